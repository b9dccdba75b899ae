"""A stand-in for the parts of conda the plugin imports.

conda itself cannot be installed from PyPI (the PyPI `conda` is a 2017
release without the plugin API), so the tests provide `conda.plugins`
(`hookimpl`, `types.CondaSubcommand/CondaPostCommand/CondaHealthCheck` with
the fields and keyword-only construction conda documents),
`conda.base.context.context.target_prefix` and
`conda.base.constants.OK_MARK/X_MARK`. The envhook binary under test is the
real one (`ENVHOOK_BIN`, set by the Rust test that runs pytest).
"""

import sys
import types
from dataclasses import dataclass, field
from typing import Callable, Optional


def _install_fake_conda():
    conda = types.ModuleType("conda")
    plugins = types.ModuleType("conda.plugins")
    ptypes = types.ModuleType("conda.plugins.types")
    base = types.ModuleType("conda.base")
    context_mod = types.ModuleType("conda.base.context")
    constants = types.ModuleType("conda.base.constants")

    @dataclass(frozen=True)
    class CondaSubcommand:
        name: str
        summary: str
        action: Callable
        configure_parser: Optional[Callable] = None

    @dataclass(frozen=True)
    class CondaPostCommand:
        name: str
        action: Callable[[str], None]
        run_for: set = field(default_factory=set)

    @dataclass(frozen=True)
    class CondaHealthCheck:
        name: str
        action: Callable[[str, bool], None]

    ptypes.CondaSubcommand = CondaSubcommand
    ptypes.CondaPostCommand = CondaPostCommand
    ptypes.CondaHealthCheck = CondaHealthCheck
    plugins.types = ptypes
    plugins.hookimpl = lambda f: f  # pluggy's marker; identity is enough here
    plugins.CondaSubcommand = CondaSubcommand
    plugins.CondaPostCommand = CondaPostCommand
    plugins.CondaHealthCheck = CondaHealthCheck

    class Context:
        target_prefix = None

    context_mod.context = Context()
    constants.OK_MARK = "✅"
    constants.X_MARK = "❌"
    conda.plugins = plugins
    conda.base = base
    base.context = context_mod
    base.constants = constants
    for name, mod in {
        "conda": conda,
        "conda.plugins": plugins,
        "conda.plugins.types": ptypes,
        "conda.base": base,
        "conda.base.context": context_mod,
        "conda.base.constants": constants,
    }.items():
        sys.modules[name] = mod


_install_fake_conda()
