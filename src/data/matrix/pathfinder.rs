//! `[[pathfinder]]`: how NVIDIA's cuda-pathfinder finds each library, from
//! its own catalogue (`cuda/pathfinder/_dynamic_libs/descriptor_catalog.py`
//! and, before 1.5, `supported_nvidia_libs.py`). CuPy 14 and numba-cuda
//! load the CUDA libraries through it, by absolute path, so what they get
//! is what pathfinder's search finds, not what the loader's would.
//!
//! The search itself (the same from 1.3.3 to 1.9.1, in
//! `load_nvidia_dynamic_lib._load_lib_no_cache`): the site-packages
//! directories of the row, in order, each tried for the row's sonames in
//! order; then `$CONDA_PREFIX` under the row's anchor directories; then,
//! the dependencies loaded first, a library already loaded under one of
//! the sonames; then the file found, by absolute path; else `dlopen` of
//! each soname (the loader's search); else `$CUDA_PATH` / `$CUDA_HOME`
//! under the anchor directories. It is simulated in
//! `rules::libraries::pathfinder`.

use serde::Deserialize;

use super::{Matrix, spec, version};

/// One library as a range of cuda-pathfinder releases finds it.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathfinderRow {
    /// The library's file-name stem (`libcublas`).
    pub library: String,
    /// Spec on the cuda-pathfinder version, closed above.
    pub release: String,
    /// The sonames it tries, most preferred first.
    pub sonames: Vec<String>,
    /// The directories under each site-packages it looks in, in order.
    pub site_packages: Vec<String>,
    /// The directories under `$CONDA_PREFIX` and `$CUDA_HOME` it looks in.
    #[serde(default = "lib_dirs")]
    pub anchor: Vec<String>,
    /// The libraries (stems) it loads first, through itself.
    #[serde(default)]
    pub dependencies: Vec<String>,
    /// What the row does not show on its own.
    pub note: Option<String>,
    /// Where the facts were read.
    pub source: String,
}

fn lib_dirs() -> Vec<String> {
    vec!["lib64".into(), "lib".into()]
}

impl Matrix {
    /// How cuda-pathfinder `release` finds `library` (a stem); `None` when
    /// no row covers that release, or it does not know the library.
    pub fn pathfinder(&self, library: &str, release: &str) -> Option<&PathfinderRow> {
        let v = version(release)?;
        self.pathfinder
            .iter()
            .find(|r| r.library == library && spec(&r.release).is_ok_and(|s| s.matches(&v)))
    }
}
