//! The two searches every name is resolved with: envhook's hook first on
//! `LD_LIBRARY_PATH` (simulated when it is not installed, or stale) and
//! the value as it is without envhook's directories.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::finding::{Code, Fix, Problem, Severity};
use crate::machine::resolve::{Search, SearchDir};
use crate::rules::{Facts, finding};

/// The two searches: with envhook's hook (simulated when not installed)
/// and without it.
pub(super) struct Searches<'a> {
    pub(super) with: Search<'a>,
    pub(super) without: Search<'a>,
    /// Whether the hooks are installed.
    pub(super) installed: bool,
}

impl<'a> Searches<'a> {
    pub(super) fn new(
        f: &Facts<'a>,
        sysroot: &'a Path,
        findings: &mut Vec<Problem>,
    ) -> Searches<'a> {
        if let Err(e) = &f.machine.cache {
            findings.push(finding(
                Severity::Info,
                Code::LdCacheUnreadable,
                e.clone(),
                None,
            ));
        }
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
        findings.extend(current.iter().filter_map(|d| stub_on_path(d)));
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
        }
    }
}

/// A driver stub directory on LD_LIBRARY_PATH: whatever loads libcuda
/// through it gets the link-time stub.
fn stub_on_path(dir: &Path) -> Option<Problem> {
    if !(crate::paths::is_stub(dir) && dir.join("libcuda.so").exists()) {
        return None;
    }
    Some(finding(
        Severity::Error,
        Code::StubOnPath,
        format!(
            "LD_LIBRARY_PATH contains {}, whose libcuda.so is a link-time stub: programs that \
             load it fail with \"CUDA driver version is insufficient\" or find no device",
            dir.display()
        ),
        Some(Fix::advice(format!(
            "remove {} from LD_LIBRARY_PATH",
            dir.display()
        ))),
    ))
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
