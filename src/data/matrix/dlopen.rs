//! `[[dlopen]]`: the library names a framework loads by name at run time,
//! and which rows apply to a framework release.

use serde::Deserialize;

use super::{Confidence, Matrix, spec, version};
use crate::data::catalog::Framework;

/// Library names a framework dlopens.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DlopenRow {
    /// Which framework.
    pub framework: Framework,
    /// Spec on the release, closed above.
    pub release: String,
    /// Only for builds with (true) or without (false) pip CUDA libraries.
    pub pip_cuda_libraries: Option<bool>,
    /// Only for builds for this CUDA major (JAX's cuda12 and cuda13
    /// plugins load different sonames).
    pub cuda_major: Option<u32>,
    /// The file name of the object that calls dlopen: its RPATH or RUNPATH
    /// is searched (`libtensorflow_cc.so.2`). Absent: the framework's first
    /// core object.
    pub object: Option<String>,
    /// The framework's Python code first loads each name by path from the
    /// pip `nvidia-*` wheel that ships it, when that wheel is installed
    /// (JAX's `_load_nvidia_libraries`); the dlopen by name follows, and
    /// finds the loaded copy by its soname.
    #[serde(default)]
    pub preloaded_from_wheels: bool,
    /// The names it passes to dlopen.
    pub names: Vec<String>,
    /// How much the row can be trusted (default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// What the row does not show on its own.
    pub note: Option<String>,
    /// Where the facts were read.
    pub source: String,
}

impl Matrix {
    /// The rows of names a framework release dlopens (one per calling
    /// object), for a build with or without pip CUDA libraries and for a
    /// CUDA major (`None`: not known, only rows for every major match).
    pub fn dlopen(
        &self,
        fw: Framework,
        release: &str,
        pip_cuda_libraries: bool,
        cuda_major: Option<u32>,
    ) -> Vec<&DlopenRow> {
        let Some(v) = version(release) else {
            return Vec::new();
        };
        self.dlopen
            .iter()
            .filter(|r| {
                r.framework == fw
                    && r.pip_cuda_libraries.is_none_or(|p| p == pip_cuda_libraries)
                    && r.cuda_major.is_none_or(|m| Some(m) == cuda_major)
                    && spec(&r.release).is_ok_and(|s| s.matches(&v))
            })
            .collect()
    }
}
