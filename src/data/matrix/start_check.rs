//! `[[start_check]]`: a framework release's own check, when its CUDA
//! backend starts, of the CUDA libraries it loads against the versions its
//! build was made with (the `[[framework]]` row's `cuda`, `cudnn` and
//! `libraries`). JAX 0.4.17-0.4.25's `_check_cuda_versions` refuses a
//! library older than the build's at a precision of its own per library
//! ("Found CUDA version 12010, but JAX was built against version 12020,
//! which is newer"); 0.4.26 replaced it with absolute floors.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{known_bad::matches_spec, spec};

/// One form of the check.
// The fields mirror the data file; the rule reads what it needs.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartCheck {
    /// The distribution whose code runs the check (`jax`).
    pub distribution: String,
    /// Its releases that run it in this form (a conda version spec).
    pub versions: String,
    /// The distribution whose build the versions are compared with
    /// (`jaxlib`), matched to its `[[framework]]` row.
    pub build: String,
    /// The module the check reads the build's versions from, as a path
    /// under site-packages without its suffix (`jaxlib/cuda/_versions`): the
    /// check runs only where it is installed. JAX's plugin builds of these
    /// releases carry their own and never run the check.
    pub module: String,
    /// The libraries compared (catalogue components: `cudart`, `cudnn`,
    /// `cufft`, ...), each with how many leading parts of its version count
    /// (2: major.minor; 3: major.minor.patch). A library the build's row
    /// gives no version for is not compared.
    pub compares: BTreeMap<String, usize>,
    /// What the framework does when the check fails, as a clause.
    pub refuses: String,
    /// Where the facts were read.
    pub source: String,
}

impl StartCheck {
    /// Whether a release of the distribution runs this form of the check.
    pub fn matches(&self, v: &str) -> bool {
        matches_spec(&self.versions, v)
    }
}

/// `version` cut to its first `parts` parts (`12.1.105`, 2 -> `12.1`).
pub fn leading(version: &str, parts: usize) -> String {
    version.split('.').take(parts).collect::<Vec<_>>().join(".")
}

/// Whether `have` is older than `built` at the precision the check
/// compares: their first `parts` parts, as numbers (a missing part is 0),
/// as JAX compares the integers the libraries report. Anything that is not
/// a number is never older.
pub fn older_at(have: &str, built: &str, parts: usize) -> bool {
    let numbers = |v: &str| -> Option<Vec<u64>> {
        let mut n: Vec<u64> = v
            .split('.')
            .take(parts)
            .map(|p| p.parse().ok())
            .collect::<Option<_>>()?;
        n.resize(parts, 0);
        Some(n)
    };
    match (numbers(have), numbers(built)) {
        (Some(h), Some(b)) => h < b,
        _ => false,
    }
}

/// Every row's spec parses, its module is a relative path, and it compares
/// at least one library at a precision of one to three parts.
pub(super) fn validate(rows: &[StartCheck]) -> Result<(), String> {
    for r in rows {
        spec(&r.versions).map_err(|e| format!("start_check {e}"))?;
        let p = std::path::Path::new(&r.module);
        if p.is_absolute() || p.components().any(|c| c.as_os_str() == "..") {
            return Err(format!(
                "start_check {}: module must be a path under site-packages",
                r.versions
            ));
        }
        if r.compares.is_empty() || r.compares.values().any(|n| !(1..=3).contains(n)) {
            return Err(format!(
                "start_check {}: compares needs libraries with 1 to 3 parts each",
                r.versions
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_at_the_precision_compared() {
        // JAX's scale_for_comparison=100 drops the patch: 11.0.2 is not
        // older than 11.0.8 at two parts, and is at three.
        assert!(!older_at("11.0.2.54", "11.0.8", 2));
        assert!(older_at("11.0.2.54", "11.0.8", 3));
        assert!(older_at("12.1", "12.2", 2));
        assert!(!older_at("12.10", "12.2", 2));
        assert!(!older_at("8.9.2.26", "8.9.4", 2));
        assert!(older_at("8.8.1.3", "8.9.4", 2));
        // What is no version is never older.
        assert!(!older_at("twelve", "12.2", 2));
        assert_eq!(leading("12.1.105", 2), "12.1");
    }
}
