//! Distributions built on a framework's C++ API that the catalogue does not
//! name: xformers, flash-attn, vLLM, torchao, tensorflow-text. They are not
//! listed anywhere, so they are found by what they are: a `Requires-Dist`
//! on one of the framework's distributions, or an object whose DT_NEEDED
//! names one of its API libraries (torchao declares no torch at all; its
//! `_C.abi3.so` needs `libtorch.so`). See `data/packages.toml`'s
//! `[[framework_abi]]` rows.
//!
//! Only frameworks installed here are looked for, so an environment
//! without one pays nothing. With one, each distribution costs the read
//! of its METADATA headers (not its description), and an impure one its
//! `WHEEL`, RECORD and its objects' dynamic sections: the price of finding
//! consumers that declare nothing.

use super::pins::{self, Installed};
use super::pip::{self, DistInfoEntry};
use crate::data::catalog::{CATALOG, Framework, FrameworkAbiRow};
use crate::machine::elf;

/// The objects of a distribution that declares no framework whose
/// DT_NEEDED is read to find out whether it links one. An extension's
/// objects all link its framework (torchao 0.8.0 has one `_C.abi3.so`;
/// apex's dozen CUDA modules each need `libtorch.so`), so its first ones
/// tell; a scientific package that links no framework has up to a hundred
/// (scipy), and reading them all was a large part of `check`'s time in a
/// real environment of 72 distributions.
const PROBED_OBJECTS: usize = 2;

/// The frameworks with a C++ API row that are installed here.
pub(super) fn installed_frameworks(installed: &Installed) -> Vec<&'static FrameworkAbiRow> {
    CATALOG
        .framework_abis()
        .iter()
        .filter(|row| row.distributions.iter().any(|d| installed.contains_key(d)))
        .collect()
}

/// The framework a distribution envhook does not catalogue builds on, if
/// any: the first whose distributions its plain requirements name (markers
/// evaluated for this environment; one under an extra alone, as
/// transformers' `torch` extra, does not make it one), else the first
/// whose API libraries one of its first objects needs. A distribution that cannot be read is none: it is
/// not envhook's to judge.
pub(super) fn framework_of(
    entry: &DistInfoEntry,
    python: Option<&str>,
    installed: &Installed,
    frameworks: &[&FrameworkAbiRow],
) -> Option<Framework> {
    if frameworks.is_empty() || installed_by_conda(entry) {
        return None;
    }
    let requires = pip::requirements(entry).ok()?;
    if let Some(row) = frameworks.iter().find(|row| {
        // Only the lines naming the framework are parsed: PEP 508 parsing
        // of every line (transformers has 200, mostly under extras) was
        // most of the price of this look.
        let naming: Vec<String> = requires
            .iter()
            .filter(|r| row.distributions.contains(&pip::normalize(leading_name(r))))
            .cloned()
            .collect();
        pins::on_distributions(&naming, python, installed, &row.distributions)
            .iter()
            .any(|pin| pin.extra.is_none())
    }) {
        return Some(row.framework);
    }
    if pip::is_pure(entry) {
        return None;
    }
    let objects = pip::objects(entry, PROBED_OBJECTS).ok()?;
    objects.iter().find_map(|path| {
        let info = elf::read(path).ok()?;
        frameworks
            .iter()
            .find(|row| info.needed.iter().any(|n| row.is_library(n)))
            .map(|row| row.framework)
    })
}

/// The distribution name a requirement starts with (`torch` of
/// `torch ==2.5.1; extra == "x"`), as PEP 508 spells names.
fn leading_name(requirement: &str) -> &str {
    let requirement = requirement.trim_start();
    let end = requirement
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(requirement.len());
    &requirement[..end]
}

/// conda-forge's Python packages carry a dist-info written by conda:
/// conda's solver built them against the framework conda installed.
fn installed_by_conda(entry: &DistInfoEntry) -> bool {
    crate::paths::read_regular(&entry.dir.join("INSTALLER"), 4096)
        .is_ok_and(|b| String::from_utf8_lossy(&b).trim() == "conda")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_at_the_start_of_requirements() {
        assert_eq!(leading_name("torch ==2.5.1"), "torch");
        assert_eq!(
            leading_name("  Torch_Vision>=0.2; extra == 'x'"),
            "Torch_Vision"
        );
        assert_eq!(leading_name("tensorflow-cpu<2.18"), "tensorflow-cpu");
        assert_eq!(leading_name("jax[cuda12]==0.4.36"), "jax");
        assert_eq!(leading_name(""), "");
    }
}
