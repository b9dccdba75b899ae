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


def envhook_subcommand(args: Sequence[str]) -> int:
    """``conda envhook ARGS...``."""
    args = list(args)
    selects_env = any(a in ("-n", "--name", "-p", "--prefix") or a.startswith(("--name=", "--prefix=")) for a in args)
    takes_env = bool(args) and args[0] in {"show", "install", "uninstall", "check", "explain", "export"}
    if takes_env and not selects_env:
        args += ["-p", _target_prefix()]
    binary = envhook_binary()
    if binary is None:
        print(f"conda envhook: envhook is not installed ({INSTALL_HINT})", file=sys.stderr)
        return 2
    return subprocess.call([binary, *args])


def refresh_after(command: str) -> None:
    """Post-command action: refresh the hooks of the changed environment."""
    if command not in CHANGING_COMMANDS:
        return
    prefix = _target_prefix()
    if not has_envhook_hooks(prefix):
        return
    try:
        result = _run(["install", "-p", prefix])
    except FileNotFoundError as e:
        print(f"envhook: {e}", file=sys.stderr)
        return
    # 0: refreshed; 1: refreshed, with findings worth a look; 2: failed.
    if result.returncode == 2:
        print(f"envhook: could not refresh the hooks of {prefix}:\n{result.stderr}", file=sys.stderr)
    elif result.returncode == 1:
        print(f"envhook: hooks refreshed; run `envhook check -p {prefix}` for the findings", file=sys.stderr)


def health_check(prefix: str, verbose: bool) -> None:
    """``conda doctor``: envhook's check of ``prefix``."""
    from conda.base.constants import OK_MARK, X_MARK

    try:
        result = _run(["check", "-p", str(prefix)])
    except FileNotFoundError as e:
        print(f"{X_MARK} envhook: {e}")
        return
    if result.returncode == 0:
        print(f"{OK_MARK} envhook: the CUDA stack is consistent with this machine")
    elif result.returncode == 1:
        print(f"{X_MARK} envhook: problems with the CUDA stack:")
        lines = result.stdout.splitlines()
        shown = [l for l in lines if verbose or l.startswith(("error[", "warning[", "    fix:"))]
        for line in shown:
            print(f"  {line}")
    else:
        print(f"{X_MARK} envhook could not check {prefix}: {result.stderr.strip()}")


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
