//! `[[broken_import]]`: states pip produces in which a framework's own
//! Python fails at import on every machine, whatever the GPU and driver:
//! a release that reads a package of another distribution in a way a
//! newer release of that distribution broke (jax 0.4.35 takes
//! `nvidia.cuda_nvcc.__file__`, which is `None` since
//! `nvidia-cuda-nvcc-cu12` 12.9 ships no `__init__.py`).

use serde::Deserialize;

use super::{known_bad::matches_spec, spec};

/// One such state.
// The fields mirror the data file; the rule reads what it needs.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrokenImport {
    /// The distribution whose import fails (normalised: `jax`).
    pub distribution: String,
    /// Its releases that fail (a conda version spec).
    pub versions: String,
    /// The condition, read in the environment itself: this package
    /// directory under site-packages (`nvidia/cuda_nvcc`) exists and has
    /// no `__init__.py` (a namespace package, whose `__file__` is `None`).
    pub package_without_init: String,
    /// What fails, as a clause.
    pub what: String,
    /// The requirement that fixes it, as pip takes it.
    pub fix: String,
    /// Where the facts were read.
    pub source: String,
}

impl BrokenImport {
    /// Whether a release of the distribution is one this row names.
    pub fn matches(&self, v: &str) -> bool {
        matches_spec(&self.versions, v)
    }
}

/// Every row's spec parses, and its package is a relative path.
pub(super) fn validate(rows: &[BrokenImport]) -> Result<(), String> {
    for r in rows {
        spec(&r.versions).map_err(|e| format!("broken_import {e}"))?;
        let p = std::path::Path::new(&r.package_without_init);
        if p.is_absolute() || p.components().any(|c| c.as_os_str() == "..") {
            return Err(format!(
                "broken_import {}: package_without_init must be a path under site-packages",
                r.distribution
            ));
        }
    }
    Ok(())
}
