//! NVIDIA's cuda-pathfinder (`load_nvidia_dynamic_lib`), simulated: how
//! CuPy 14 and numba-cuda get their CUDA libraries. Its search, the same
//! from 1.3.3 to 1.9.1 (`_load_lib_no_cache`), over the catalogue rows of
//! the release the environment holds ([`crate::data::matrix::PathfinderRow`]):
//!
//! 1. each site-packages directory's row directories (`nvidia/cu13/lib`,
//!    `nvidia/cublas/lib`), each tried for the row's sonames in order;
//! 2. `$CONDA_PREFIX` under the row's anchors (the environment, once
//!    activated);
//! 3. a library already loaded under one of the sonames, after its
//!    dependencies are loaded the same way;
//! 4. the file found, by absolute path;
//! 5. else `dlopen` of each soname: the loader's search (`LD_LIBRARY_PATH`,
//!    the cache);
//! 6. else `$CUDA_PATH` or `$CUDA_HOME` under the anchors.
//!
//! (The canary subprocess of 1.4 on, which derives a toolkit root from a
//! system-loaded CUDA runtime, is not simulated: it only runs where every
//! step above failed, and then finds a system toolkit at best.)

use std::path::{Path, PathBuf};

use super::Facts;
use crate::machine::elf::ElfInfo;
use crate::machine::loader::{Dependency, Objects, Process};
use crate::machine::resolve::{Found, Rule};

/// Dependencies are loaded first, recursively; the catalogue's chains are
/// two deep (cuSOLVER -> cuSPARSE -> nvJitLink): more is a loop.
const MAX_DEPTH: usize = 4;

/// The environment's cuda-pathfinder.
pub struct Pathfinder<'a> {
    f: &'a Facts<'a>,
    /// Its version, if installed.
    release: Option<&'a str>,
    /// `$CUDA_PATH`, else `$CUDA_HOME`, as the command saw them.
    cuda_home: Option<PathBuf>,
    /// Who calls dlopen for the system search: Python's ctypes, whose
    /// RPATH plays no part.
    caller: &'a ElfInfo,
}

impl<'a> Pathfinder<'a> {
    pub fn new(f: &'a Facts<'a>, caller: &'a ElfInfo) -> Self {
        let var = |name: &str| {
            f.ctx
                .var_os_raw(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Pathfinder {
            f,
            release: f
                .inv
                .distributions
                .get("cuda-pathfinder")
                .map(String::as_str),
            cuda_home: var("CUDA_PATH").or_else(|| var("CUDA_HOME")),
            caller,
        }
    }

    /// Load `stem` as `load_nvidia_dynamic_lib` would: `None` when the
    /// data cannot say how (no cuda-pathfinder installed, a release or a
    /// library no row covers); `Some(None)` when it finds nothing (the
    /// package raises `DynamicLibNotFoundError`).
    pub fn load(
        &self,
        stem: &str,
        process: &mut Process,
        objects: &mut Objects,
        deps: &mut Vec<Dependency>,
    ) -> Option<Option<Found>> {
        self.load_at(stem, process, objects, deps, 0)
    }

    fn load_at(
        &self,
        stem: &str,
        process: &mut Process,
        objects: &mut Objects,
        deps: &mut Vec<Dependency>,
        depth: usize,
    ) -> Option<Option<Found>> {
        let row = self.f.matrix.pathfinder(stem, self.release?)?;
        let in_dirs = |dirs: &mut dyn Iterator<Item = PathBuf>| {
            dirs.flat_map(|d| row.sonames.iter().map(move |s| d.join(s)))
                .find(|p| p.is_file())
        };
        let file = in_dirs(
            &mut self
                .f
                .inv
                .sites
                .iter()
                .flat_map(|site| row.site_packages.iter().map(move |r| site.join(r))),
        )
        .or_else(|| in_dirs(&mut anchored(&self.f.inv.prefix, &row.anchor)));
        if depth < MAX_DEPTH {
            for dep in &row.dependencies {
                self.load_at(dep, process, objects, deps, depth + 1);
            }
        }
        if let Some(path) = row.sonames.iter().find_map(|s| process.loaded(s)) {
            return Some(Some(Found {
                path: path.to_path_buf(),
                rule: Rule::Loaded,
            }));
        }
        if let Some(path) = file {
            return Some(Some(by_path(path, process, objects, deps)));
        }
        for soname in &row.sonames {
            let (found, more) = process.open(soname, self.caller, objects);
            deps.extend(more);
            if found.is_some() {
                return Some(found);
            }
        }
        let late = self
            .cuda_home
            .as_deref()
            .and_then(|home| in_dirs(&mut anchored(home, &row.anchor)));
        Some(late.map(|path| by_path(path, process, objects, deps)))
    }
}

/// The file pathfinder found, loaded by absolute path with its closure.
fn by_path(
    path: PathBuf,
    process: &mut Process,
    objects: &mut Objects,
    deps: &mut Vec<Dependency>,
) -> Found {
    deps.extend(process.load_file(&path, objects));
    Found {
        path,
        rule: Rule::Path,
    }
}

/// `root` joined with each anchor directory.
fn anchored<'r>(root: &'r Path, anchor: &'r [String]) -> impl Iterator<Item = PathBuf> + 'r {
    anchor.iter().map(move |a| root.join(a))
}
