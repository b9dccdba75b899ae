"""``python -m conda_envhook``: whether conda in this Python sees the plugin.

A wheel runs no code when pip installs it, so ``pip install conda-envhook``
into a Python without conda succeeds and does nothing: conda loads plugins
only from the Python it runs in (its base environment). This answers the
question a user then has, with the command that installs the plugin where
conda runs. Exit 0 when conda here has the plugin API and this Python lists
the plugin's entry point, 1 otherwise.
"""

from __future__ import annotations

import os
import shlex
import sys
from importlib import metadata
from typing import Optional


def _conda_base() -> Optional[str]:
    """conda's base prefix, from ``CONDA_EXE`` (``BASE/bin/conda``), which
    conda's shell integration sets in every shell it initialised."""
    exe = os.environ.get("CONDA_EXE")
    if not exe:
        return None
    return os.path.dirname(os.path.dirname(os.path.abspath(exe)))


def _registered() -> bool:
    eps = metadata.entry_points()
    group = eps.select(group="conda") if hasattr(eps, "select") else eps.get("conda", [])
    return any(ep.value.startswith("conda_envhook") for ep in group)


def main() -> int:
    here = sys.prefix
    try:
        import conda  # noqa: F401
        from conda import plugins  # noqa: F401
    except ImportError:
        base = _conda_base()
        if base and os.path.realpath(base) != os.path.realpath(here):
            where = f"{shlex.quote(os.path.join(base, 'bin', 'python'))} -m pip install conda-envhook"
        else:
            # No CONDA_EXE (conda's shell integration did not run in this
            # shell): conda on PATH still names its base.
            where = '"$(conda info --base)/bin/python" -m pip install conda-envhook'
        print(
            f"conda-envhook: this Python ({here}) has no conda with plugins, so nothing here loads the plugin\n"
            "hint: conda loads plugins from the Python it runs in, its base environment; install it there:\n"
            f"  {where}\n"
            "hint: envhook itself needs no conda plugin: `envhook install -p PREFIX` writes the hooks",
            file=sys.stderr,
        )
        return 1
    # Only now: the plugin module imports conda's plugin API.
    from conda_envhook.plugin import INSTALL_HINT, envhook_binary

    version = getattr(sys.modules["conda"], "__version__", "of unknown version")
    if not _registered():
        print(
            f"conda-envhook: conda {version} is here ({here}), but no `conda` entry point names the plugin\n"
            f"hint: reinstall it into this Python: {shlex.quote(sys.executable)} -m pip install --force-reinstall conda-envhook",
            file=sys.stderr,
        )
        return 1
    binary = envhook_binary()
    print(f"conda {version} in {here} loads conda-envhook (`conda envhook`, refresh after install, `conda doctor`)")
    if binary is None:
        print(f"hint: the envhook binary is missing: {INSTALL_HINT}", file=sys.stderr)
        return 1
    print(f"envhook: {binary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
