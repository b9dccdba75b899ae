"""Build-time metadata for conda-envhook: envhook's one version.

The version is read from the repository's Cargo.toml (two directories up),
the file `envhook --version` and the `envhook` wheel (maturin) take theirs
from, and the plugin requires exactly that `envhook`: the plugin calls the
binary's commands and reads its exit codes, which are one contract per
version.
"""

from __future__ import annotations

import os
import re

from hatchling.metadata.plugin.interface import MetadataHookInterface

CARGO_TOML = os.path.join("..", "..", "Cargo.toml")


def cargo_version(root: str) -> str:
    """`version` in Cargo.toml's `[package]` table."""
    path = os.path.normpath(os.path.join(root, CARGO_TOML))
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise RuntimeError(
            f"{path}: {e.strerror}\n"
            "hint: build conda-envhook from a checkout of envhook "
            "(scripts/build-wheels DIR), where Cargo.toml holds the version"
        ) from e
    # tomllib is 3.11+; the [package] table's version line is all we need.
    package = re.search(r"^\[package\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    version = package and re.search(r'^version\s*=\s*"([^"]+)"', package.group(1), re.M)
    if not version:
        raise RuntimeError(f"{path}: no version in [package]")
    return version.group(1)


class CustomMetadataHook(MetadataHookInterface):
    def update(self, metadata: dict) -> None:
        version = cargo_version(self.root)
        metadata["version"] = version
        metadata["dependencies"] = [f"envhook=={version}"]
