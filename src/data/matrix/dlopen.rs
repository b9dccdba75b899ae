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

/// How a row's libraries are reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum By {
    /// `dlopen` by name from the row's object: its RPATH or RUNPATH,
    /// `LD_LIBRARY_PATH`, the cache (TSL's DsoLoader, Paddle's loader).
    #[default]
    Name,
    /// By absolute path from the pip `nvidia-*` wheel that ships each one,
    /// when it is installed, before the framework's objects load; nothing
    /// by name (torch's `_preload_cuda_deps`): the objects' `DT_NEEDED`
    /// find the loaded copies by soname.
    Preload,
    /// Through NVIDIA's cuda-pathfinder (`load_nvidia_dynamic_lib`), by
    /// absolute path where it finds the file, by name where it does not
    /// (`[[pathfinder]]` rows), before the object that needs it is
    /// imported (CuPy 14's `cupy_backends.cuda.libs.__getattr__`).
    Pathfinder,
}

/// Library names a framework dlopens.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DlopenRow {
    /// Which framework.
    pub framework: Framework,
    /// For `framework = "other"`: the pip distributions the row is about
    /// (`cupy-cuda12x`); empty: every package of the framework.
    #[serde(default)]
    pub packages: Vec<String>,
    /// How the libraries are reached (default: by name).
    #[serde(default)]
    pub by: By,
    /// Without one of these libraries the framework does not fail: it
    /// runs on the CPU (JAX's "Unable to load cuBLAS", TensorFlow's
    /// "Cannot dlopen some GPU libraries... Skipping registering GPU
    /// devices"), so a missing one is an error, not a warning.
    #[serde(default)]
    pub falls_back_to_cpu: bool,
    /// Spec on the release, closed above.
    pub release: String,
    /// Only for builds with (true) or without (false) pip CUDA libraries.
    pub pip_cuda_libraries: Option<bool>,
    /// Only for builds for this CUDA major (JAX's cuda12 and cuda13
    /// plugins load different sonames).
    pub cuda_major: Option<u32>,
    /// The file name of the object whose code calls dlopen: its RPATH or
    /// RUNPATH is searched (`libtensorflow_framework.so.2`, whose copy of
    /// TSL's DsoLoader is the one that runs although
    /// `libtensorflow_cc.so.2` up to 2.19 has one too). Absent: the
    /// framework's first core object. A row whose object the build does
    /// not have does not apply.
    pub object: Option<String>,
    /// The framework's Python code first loads each name by path from the
    /// pip `nvidia-*` wheel that ships it, when that wheel is installed
    /// (JAX's `_load_nvidia_libraries`); the dlopen by name follows, and
    /// finds the loaded copy by its soname.
    #[serde(default)]
    pub preloaded_from_wheels: bool,
    /// Libraries (stems) linked into the objects statically: never looked
    /// for (CuPy's CUDA runtime).
    #[serde(default)]
    pub linked_in: Vec<String>,
    /// Names it passes to dlopen literally (`libnvrtc.so`).
    #[serde(default)]
    pub names: Vec<String>,
    /// A directory the framework tries by path for a name once the
    /// loader's search has failed (Paddle's cuDNN: `dlopen` of
    /// `/usr/local/cuda/lib64/libcudnn.so`, its `cuda_lib_path`).
    #[serde(default)]
    pub then_dir: std::collections::BTreeMap<String, String>,
    /// Libraries it loads by a name built at run time from the build's
    /// versions (`libcufft` -> `libcufft.so.11` in a CUDA 12 build): see
    /// [`Matrix::dlopen_names`].
    #[serde(default)]
    pub libraries: Vec<String>,
    /// Libraries (stems) the framework runs without, each with what it
    /// loses then: ONNX Runtime 1.28+ loads cuDNN and cuFFT lazily, and
    /// only the kernels that need them return NOT_IMPLEMENTED. A missing
    /// one is a warning naming what fails, not an error.
    #[serde(default)]
    pub optional: std::collections::BTreeMap<String, String>,
    /// Libraries (stems) the framework needs for nearly every operation,
    /// each with what fails without them, however they are reached: CuPy
    /// compiles every kernel with NVRTC and serves matmul with cuBLAS,
    /// though only the modules that use them load them, so a package
    /// whose own requirements name neither still needs both. A missing
    /// one is an error.
    #[serde(default)]
    pub required: std::collections::BTreeMap<String, String>,
    /// How much the row can be trusted (default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// What the row does not show on its own.
    pub note: Option<String>,
    /// Where the facts were read.
    pub source: String,
}

impl DlopenRow {
    /// What the framework loses without `name` (`libcudnn.so.9` ->
    /// the row's words for `libcudnn`), when the row says it runs without.
    pub fn loses(&self, name: &str) -> Option<&str> {
        by_stem(&self.optional, name)
    }

    /// What fails without `name` (`libnvrtc.so.11.2` -> the row's words
    /// for `libnvrtc`), when the row says the framework needs it for
    /// nearly everything.
    pub fn requires(&self, name: &str) -> Option<&str> {
        by_stem(&self.required, name)
    }
}

/// The words a map of stems holds for the library `name` is a file of
/// (`libcublas` for `libcublas.so.11`, not for `libcublasLt.so.11`).
fn by_stem<'a>(map: &'a std::collections::BTreeMap<String, String>, name: &str) -> Option<&'a str> {
    map.iter()
        .find(|(stem, _)| {
            name.strip_prefix(stem.as_str())
                .is_some_and(|r| r.starts_with(".so"))
        })
        .map(|(_, what)| what.as_str())
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
    /// The rows of names a framework release (of the package `package`)
    /// dlopens (one per calling object), for a build with or without pip
    /// CUDA libraries and for a CUDA major (`None`: not known, only rows
    /// for every major match).
    pub fn dlopen(
        &self,
        fw: Framework,
        package: &str,
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
                    && (r.packages.is_empty() || r.packages.iter().any(|p| p == package))
                    && r.pip_cuda_libraries.is_none_or(|p| p == pip_cuda_libraries)
                    && r.cuda_major.is_none_or(|m| Some(m) == cuda_major)
                    && spec(&r.release).is_ok_and(|s| s.matches(&v))
            })
            .collect()
    }

    /// The soname of `library` in CUDA `cuda` (`"12.5.1"`, or a bare major
    /// `"12"` where only that is known); `None` when no row covers it. A
    /// bare major needs a row covering the whole major: CUDA 11.0's cuSOLVER
    /// is `.so.10`, 11.1's `.so.11`, so `"11"` names neither.
    pub fn soname(&self, library: &str, cuda: &str) -> Option<String> {
        let probes = if cuda.contains('.') {
            vec![version(cuda)?]
        } else {
            // A conda version `11` equals `11.0`: probe both ends instead.
            vec![
                version(&format!("{cuda}.0"))?,
                version(&format!("{cuda}.999"))?,
            ]
        };
        self.soname
            .iter()
            .find(|r| {
                r.library == library
                    && spec(&r.cuda).is_ok_and(|s| probes.iter().all(|v| s.matches(v)))
            })
            .map(|r| format!("{library}.so.{}", r.version))
    }

    /// The soname `library` has in a build made for `cuda` and `cudnn`:
    /// cuDNN's follows the cuDNN major, every other library the CUDA
    /// release's `[[soname]]` row. `None` where the build's version or a
    /// row is missing.
    pub fn soname_of(
        &self,
        library: &str,
        cuda: Option<&str>,
        cudnn: Option<&str>,
    ) -> Option<String> {
        if library == CUDNN {
            let major = super::major(cudnn?)?;
            Some(format!("{CUDNN}.so.{major}"))
        } else {
            self.soname(library, cuda?)
        }
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
        let derived = row
            .libraries
            .iter()
            .filter_map(|lib| self.soname_of(lib, cuda, cudnn));
        let mut names: Vec<String> = row.names.iter().cloned().chain(derived).collect();
        let mut seen = std::collections::HashSet::new();
        names.retain(|n| seen.insert(n.clone()));
        names
    }
}
