//! The two searches every name is resolved with: envhook's hook first on
//! `LD_LIBRARY_PATH` (simulated when it is not installed, or stale) and
//! the value as it is without envhook's directories. Data only: what the
//! rules make findings of (an unreadable loader cache, a driver stub on
//! the path) is handed back with the searches.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Facts;
use crate::machine::resolve::{Search, SearchDir};

/// The two searches: with envhook's hook (simulated when not installed)
/// and without it.
pub struct Searches<'a> {
    pub with: Search<'a>,
    pub without: Search<'a>,
    /// Whether the hooks are installed.
    pub installed: bool,
    /// Why the loader cache (`ld.so.cache`) could not be read.
    pub cache_error: Option<String>,
    /// Driver stub directories on `LD_LIBRARY_PATH` (a link-time
    /// `libcuda.so` that programs would load).
    pub stubs: Vec<PathBuf>,
}

impl<'a> Searches<'a> {
    pub fn new(f: &Facts<'a>, sysroot: &'a Path) -> Searches<'a> {
        let cache_error = f.machine.cache.as_ref().err().cloned();
        let cache = f.machine.cache.as_ref().ok().and_then(Option::as_ref);
        let installed = f.installed.is_some();
        // Hooks written for other packages are judged as the refresh the
        // stale-hook finding asks for would leave them: what they expose
        // now is gone or incomplete, and blaming the libraries for that
        // would invent damage (#19).
        let stale = f.installed.as_ref().is_some_and(|h| {
            f.spec
                .as_ref()
                .is_some_and(|s| s.fingerprint != h.fingerprint)
        });
        let simulated: Vec<PathBuf> = f.spec.as_ref().map(|s| s.dirs.clone()).unwrap_or_default();
        let ours: Vec<PathBuf> = match &f.installed {
            Some(h) if !stale => h.dirs.clone(),
            _ => simulated.clone(),
        };
        // Envhook's directories, of the installed hooks and of a refresh,
        // are never part of the value "without the hook".
        let envhooks: Vec<&PathBuf> = ours
            .iter()
            .chain(f.installed.iter().flat_map(|h| h.dirs.iter()))
            .collect();
        let current: Vec<PathBuf> = f
            .ctx
            .var_os_raw("LD_LIBRARY_PATH")
            .map(|v| v.split(':').map(PathBuf::from).collect())
            .unwrap_or_default();
        let stubs = current.iter().filter(|d| is_stub_dir(d)).cloned().collect();
        let without: Vec<SearchDir> = current
            .iter()
            .filter(|d| !envhooks.contains(d))
            .cloned()
            .map(SearchDir::Real)
            .collect();
        let mut with = hooked(f, installed && !stale, ours);
        with.extend(without.iter().cloned());
        let cwd = std::env::current_dir().unwrap_or_default();
        // The frameworks run in the environment's Python: its DT_RPATH
        // (conda's `$ORIGIN/../lib`) is searched for callers without
        // DT_RUNPATH, hook or no hook.
        let main_rpath = crate::machine::resolve::main_rpath(&f.inv.prefix.join("bin/python"));
        Searches {
            with: Search {
                ld_library_path: with,
                cache,
                sysroot,
                cwd: cwd.clone(),
                main_rpath: main_rpath.clone(),
            },
            without: Search {
                ld_library_path: without,
                cache,
                sysroot,
                cwd,
                main_rpath,
            },
            installed,
            cache_error,
            stubs,
        }
    }
}

/// A driver stub directory: whatever loads libcuda through it gets the
/// link-time stub.
fn is_stub_dir(dir: &Path) -> bool {
    crate::paths::is_stub(dir) && dir.join("libcuda.so").exists()
}

/// The directories the hook puts first: the installed hook's, or (not
/// installed, or stale) the link directory a fresh install would write,
/// simulated from the spec.
fn hooked(f: &Facts, hooks_current: bool, ours: Vec<PathBuf>) -> Vec<SearchDir> {
    let iso = f.spec.as_ref().and_then(|s| s.isolation.as_ref());
    match (hooks_current, iso) {
        (false, Some(iso)) => vec![SearchDir::Virtual {
            path: iso.link.clone(),
            entries: iso
                .entries
                .iter()
                .map(|e| (e.name.clone(), e.target.clone()))
                .collect::<BTreeMap<_, _>>(),
        }],
        _ => ours.into_iter().map(SearchDir::Real).collect(),
    }
}
