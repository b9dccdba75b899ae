"""conda plugin hooks for envhook.

Three hooks, each a thin call of the ``envhook`` binary (found through
``ENVHOOK_BIN``, then beside the Python running conda, then ``PATH``), so
that conda users get envhook's behaviour without envhook needing Python:

* ``conda envhook ARGS...`` (``conda_subcommands``): runs ``envhook ARGS...``;
  with no ``-n``/``-p`` it targets the environment conda would
  (``context.target_prefix``).
* after ``conda install``/``update``/``upgrade``/``remove``/``uninstall``
  (``conda_post_commands``): refreshes the hooks of the environment the
  command changed, but only where ``envhook install`` put hooks before; it
  never installs hooks on its own.
* ``conda doctor`` (``conda_health_checks``): runs ``envhook check`` on the
  environment and prints its findings.

The hook signatures follow conda's plugin documentation
(``conda.plugins.types``): a post-command action takes the command name, a
health check takes ``(prefix, verbose)``, and a subcommand without
``configure_parser`` receives the remaining arguments as a tuple.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from typing import Iterable, Optional, Sequence

from conda import plugins

#: Commands after which an environment's packages may have changed.
CHANGING_COMMANDS = frozenset({"install", "update", "upgrade", "remove", "uninstall"})

#: The first line of every file envhook writes.
OWNER_MARK = "# envhook:owned"


#: What to run when the binary is missing. The ``envhook`` wheel, which
#: ``conda-envhook`` requires, puts it beside conda's Python.
INSTALL_HINT = "pip install envhook (or conda install -c conda-forge envhook)"


def envhook_binary() -> Optional[str]:
    """The envhook executable: ``ENVHOOK_BIN``; else the one in the scripts
    directory of the Python running conda, where ``pip install envhook`` puts
    it and which need not be on ``PATH`` (``/opt/conda/bin/conda`` run from a
    shell that never activated base); else the one on ``PATH``."""
    explicit = os.environ.get("ENVHOOK_BIN")
    if explicit:
        return explicit
    beside = os.path.join(sysconfig.get_path("scripts"), "envhook")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    return shutil.which("envhook")


def _target_prefix() -> str:
    from conda.base.context import context

    return str(context.target_prefix)


def has_envhook_hooks(prefix: str) -> bool:
    """Whether ``envhook install`` wrote hooks into ``prefix``."""
    hook = os.path.join(prefix, "etc", "conda", "activate.d", "envhook.sh")
    try:
        with open(hook, encoding="utf-8") as f:
            return f.readline().startswith(OWNER_MARK)
    except OSError:
        return False


def _run(args: Sequence[str]) -> subprocess.CompletedProcess:
    binary = envhook_binary()
    if binary is None:
        raise FileNotFoundError(
            f"envhook is not installed: {INSTALL_HINT}, or set ENVHOOK_BIN"
        )
    return subprocess.run([binary, *args], capture_output=True, text=True)


#: envhook commands that act on one environment: without -n/-p, the
#: plugin gives them the environment conda would act on.
TAKES_ENV = frozenset({"show", "install", "uninstall", "check", "explain", "export", "run"})


def _with_target(args: list) -> list:
    """``args`` with ``-p <conda's target prefix>`` added where the command
    takes an environment and none is selected; before ``--`` (``run``'s
    command), which must stay last."""
    if not args or args[0] not in TAKES_ENV:
        return args
    options = args[: args.index("--")] if "--" in args else args
    if any(a in ("-n", "--name", "-p", "--prefix") or a.startswith(("--name=", "--prefix=")) for a in options):
        return args
    at = len(options)
    return [*args[:at], "-p", _target_prefix(), *args[at:]]


def envhook_subcommand(args: Sequence[str]) -> int:
    """``conda envhook ARGS...``."""
    args = _with_target(list(args))
    binary = envhook_binary()
    if binary is None:
        print(f"conda envhook: envhook is not installed: {INSTALL_HINT}", file=sys.stderr)
        return 2
    try:
        return subprocess.call([binary, *args])
    except OSError as e:
        # ENVHOOK_BIN naming nothing, or something that cannot run.
        print(f"conda envhook: cannot run {binary}: {e.strerror}; unset ENVHOOK_BIN or {INSTALL_HINT}", file=sys.stderr)
        return 2


def refresh_after(command: str) -> None:
    """Post-command action: refresh the hooks of the changed environment."""
    if command not in CHANGING_COMMANDS:
        return
    prefix = _target_prefix()
    if not has_envhook_hooks(prefix):
        return
    try:
        result = _run(["install", "-p", prefix])
    except OSError as e:
        print(f"envhook: {e}", file=sys.stderr)
        return
    # 0: refreshed; 1: refreshed, with findings worth a look; 2: failed.
    if result.returncode == 0:
        print(f"envhook: refreshed the CUDA hooks of {prefix}", file=sys.stderr)
    elif result.returncode == 2:
        print(f"envhook: could not refresh the hooks of {prefix}:\n{result.stderr}", file=sys.stderr)
    elif result.returncode == 1:
        print(f"envhook: hooks refreshed; run `envhook check -p {prefix}` for the findings", file=sys.stderr)


def _shown_findings(stdout: str, verbose: bool) -> list:
    """The lines of ``envhook check`` that ``conda doctor`` shows: every line
    with ``verbose``, else the warnings and errors, each with the lines
    indented under it (its ``fix:``), and no info or its lines."""
    shown, keep = [], verbose
    for line in stdout.splitlines():
        if line and not line[0].isspace():
            keep = verbose or line.startswith(("error[", "warning["))
        if keep:
            shown.append(line)
    return shown


def health_check(prefix: str, verbose: bool) -> None:
    """``conda doctor``: envhook's check of ``prefix``."""
    from conda.base.constants import OK_MARK, X_MARK

    try:
        result = _run(["check", "-p", str(prefix)])
    except OSError as e:
        print(f"{X_MARK} envhook: {e}\n")
        return
    if result.returncode == 0:
        message = "no problems found in the CUDA stack"
        if "info[no-driver]" in result.stdout:
            message += " (no NVIDIA driver on this machine: the driver was not checked)"
        print(f"{OK_MARK} envhook: {message}\n")
    elif result.returncode == 1:
        print(f"{X_MARK} envhook: problems with the CUDA stack:")
        for line in _shown_findings(result.stdout, verbose):
            print(f"  {line}" if line else "")
        print()
    else:
        print(f"{X_MARK} envhook could not check {prefix}: {result.stderr.strip()}\n")


@plugins.hookimpl
def conda_subcommands() -> Iterable[plugins.types.CondaSubcommand]:
    yield plugins.types.CondaSubcommand(
        name="envhook",
        summary="Matched CUDA library paths and compatibility checks (envhook).",
        action=envhook_subcommand,
    )


@plugins.hookimpl
def conda_post_commands() -> Iterable[plugins.types.CondaPostCommand]:
    yield plugins.types.CondaPostCommand(
        name="envhook-refresh-hooks",
        action=refresh_after,
        run_for=set(CHANGING_COMMANDS),
    )


@plugins.hookimpl
def conda_health_checks() -> Iterable[plugins.types.CondaHealthCheck]:
    yield plugins.types.CondaHealthCheck(
        name="envhook CUDA stack",
        action=health_check,
    )
