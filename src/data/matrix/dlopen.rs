//! `[[dlopen]]`: the library names a framework loads by name at run time,
//! and which rows apply to a framework release; `[[soname]]`: the file name
//! each CUDA library has in a CUDA release.
//!
//! Most frameworks do not carry the names they load as strings: TSL's
//! `dso_loader` (TensorFlow, and XLA inside JAX) builds
//! `lib<name>.so.<version>` from the versions the build was configured
//! with, ONNX Runtime builds `libcudnn.so.<major>`. A row therefore names
//! the *libraries* (`libcufft`), and the name follows from the build's own
//! CUDA and cuDNN versions (its build file, its pins) and the `[[soname]]`
//! rows: CUDA 12's cuFFT is `libcufft.so.11`, CUDA 13's `libcufft.so.12`.
//! A loading scheme is then one row for every release that shares it.

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
    /// core object. `"*"`: the loading code is compiled into each of the
    /// framework's objects (TSL's DsoLoader in TensorFlow 2.15-2.17's two
    /// libraries), and a name is found when one of them finds it.
    pub object: Option<String>,
    /// The framework's Python code first loads each name by path from the
    /// pip `nvidia-*` wheel that ships it, when that wheel is installed
    /// (JAX's `_load_nvidia_libraries`); the dlopen by name follows, and
    /// finds the loaded copy by its soname.
    #[serde(default)]
    pub preloaded_from_wheels: bool,
    /// Names it passes to dlopen literally (`libnvrtc.so`).
    #[serde(default)]
    pub names: Vec<String>,
    /// Libraries it loads by a name built at run time from the build's
    /// versions (`libcufft` -> `libcufft.so.11` in a CUDA 12 build): see
    /// [`Matrix::dlopen_names`].
    #[serde(default)]
    pub libraries: Vec<String>,
    /// How much the row can be trusted (default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// What the row does not show on its own.
    pub note: Option<String>,
    /// Where the facts were read.
    pub source: String,
}

/// The soname a CUDA library has in a range of CUDA releases.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SonameRow {
    /// The library's file-name stem (`libcufft`).
    pub library: String,
    /// Spec on the CUDA version, closed above (`>=12.0,<13.0`).
    pub cuda: String,
    /// What follows `.so.` (`11`; `11.0` for CUDA 11's runtime).
    pub version: String,
    /// How much the row can be trusted (default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// What the row does not show on its own.
    pub note: Option<String>,
    /// Where the facts were read.
    pub source: String,
}

/// The library whose soname version is the build's cuDNN major, not a
/// CUDA release's (cuDNN 8 and 9 both exist for CUDA 11 and 12).
const CUDNN: &str = "libcudnn";

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

    /// The soname of `library` in CUDA `cuda` (`"12.5.1"`, or a bare major
    /// `"12"` where only that is known); `None` when no row covers it.
    pub fn soname(&self, library: &str, cuda: &str) -> Option<String> {
        let v = version(cuda)?;
        self.soname
            .iter()
            .find(|r| r.library == library && spec(&r.cuda).is_ok_and(|s| s.matches(&v)))
            .map(|r| format!("{library}.so.{}", r.version))
    }

    /// The names a row makes a build load: its literal names, then each of
    /// its libraries under the name it has for the build's CUDA and cuDNN.
    /// A library whose name cannot be derived (the build's CUDA or cuDNN
    /// not known, no `[[soname]]` row for that CUDA) is left out: the check
    /// says nothing rather than guess a name.
    pub fn dlopen_names(
        &self,
        row: &DlopenRow,
        cuda: Option<&str>,
        cudnn: Option<&str>,
    ) -> Vec<String> {
        let derived = row.libraries.iter().filter_map(|lib| {
            if lib == CUDNN {
                let major = super::major(cudnn?)?;
                Some(format!("{CUDNN}.so.{major}"))
            } else {
                self.soname(lib, cuda?)
            }
        });
        let mut names: Vec<String> = row.names.iter().cloned().chain(derived).collect();
        let mut seen = std::collections::HashSet::new();
        names.retain(|n| seen.insert(n.clone()));
        names
    }
}
