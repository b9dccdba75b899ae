//! `[[known_bad]]`: version combinations NVIDIA's release notes name as
//! broken, which a framework itself checks at start-up (JAX's
//! `_check_cuda_versions`), so that `check` says so before a run does.

use serde::Deserialize;

use super::{spec, version};

/// One broken combination.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownBad {
    /// The library whose versions are broken: `cublas` or `cudnn`.
    pub library: String,
    /// Its broken versions (a conda version spec on the library version).
    pub versions: String,
    /// Only on GPUs whose compute capability matches this spec.
    pub cc: Option<String>,
    /// Only with another library (`cublas`) in these versions.
    pub with_library: Option<String>,
    pub with_versions: Option<String>,
    /// Only with at least this many GPUs.
    pub min_gpus: Option<usize>,
    /// Only when a framework here was built with another release of the
    /// library (an ABI change inside one release).
    #[serde(default)]
    pub built_with_other: bool,
    /// JAX raises at start-up ("Unable to use CUDA because of the
    /// following issues with CUDA components"): an error for JAX builds.
    #[serde(default)]
    pub jax_refuses: bool,
    /// What goes wrong, as a clause.
    pub what: String,
    /// The versions that fix it (a spec on the library version).
    pub fixed_in: String,
    /// Where the facts were read.
    pub source: String,
}

impl KnownBad {
    /// Whether a library version is one this row names.
    pub fn matches(&self, v: &str) -> bool {
        matches_spec(&self.versions, v)
    }
}

/// `v` against a spec from the data; false for anything unparsable.
pub fn matches_spec(s: &str, v: &str) -> bool {
    match (spec(s), version(v)) {
        (Ok(s), Some(v)) => s.matches(&v),
        _ => false,
    }
}

/// Every spec of a row parses.
pub(super) fn validate(rows: &[KnownBad]) -> Result<(), String> {
    for r in rows {
        for s in [
            Some(&r.versions),
            r.cc.as_ref(),
            r.with_versions.as_ref(),
            Some(&r.fixed_in),
        ]
        .into_iter()
        .flatten()
        {
            spec(s).map_err(|e| format!("known_bad {e}"))?;
        }
        if r.with_library.is_some() != r.with_versions.is_some() {
            return Err(format!(
                "known_bad {}: with_library needs with_versions",
                r.versions
            ));
        }
    }
    Ok(())
}
