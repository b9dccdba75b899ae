//! The loader's view of the frameworks' objects: every CUDA-stack name a
//! framework object needs (DT_NEEDED) or loads by name (dlopen), resolved
//! as the glibc loader would ([`crate::machine::resolve`]), with and
//! without envhook's hook.
//!
//! Each resolution is classified ([`Outcome`]); the findings are then made
//! per framework, not per name, so that one missing CUDA stack is one
//! finding with one fix (and the driver's own libraries are never
//! something to install into an environment).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::needs::{needs, release_of};
use super::{Facts, finding};
use crate::data::catalog::{CATALOG, Framework};
use crate::data::matrix::major;
use crate::finding::{Problem, Severity};
use crate::inventory::builds::Variant;
use crate::inventory::{FrameworkBuild, Installer, LibStatus};
use crate::machine::elf::{self, ElfInfo};
use crate::machine::resolve::{Found, Rule, Search, SearchDir};
use tally::Tally;

mod tally;

/// How one name resolves with and without envhook's hook.
#[derive(Debug, Clone, Serialize)]
pub struct NameCheck {
    /// The soname.
    pub name: String,
    /// `needed` (DT_NEEDED) or `dlopen` (loaded by name at run time).
    pub kind: &'static str,
    /// With the hook's directories first on `LD_LIBRARY_PATH` (simulated
    /// when the hooks are not installed yet).
    pub with_hook: Option<Found>,
    /// With `LD_LIBRARY_PATH` as it is, minus envhook's directories.
    pub without_hook: Option<Found>,
}

/// The loader's view of one framework object.
#[derive(Debug, Clone, Serialize)]
pub struct LibraryCheck {
    /// Which framework.
    pub framework: Framework,
    /// The object.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub object: PathBuf,
    /// Its ELF facts.
    pub elf: Option<ElfInfo>,
    /// The CUDA-stack names it needs.
    pub names: Vec<NameCheck>,
}

/// What one resolution means for the user.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// Nothing to say.
    Fine,
    /// A link-time stub would be loaded.
    Stub(PathBuf),
    /// The driver's library is nowhere the loader looks.
    DriverMissing,
    /// Found only through envhook's hook, which is not installed.
    OnlyWithHook,
    /// A copy outside the environment wins over the environment's.
    SystemWins {
        winner: Found,
        env: PathBuf,
        without_hook_only: bool,
    },
    /// The environment's copy is not a loadable ELF for this machine.
    NotLoadable(PathBuf),
    /// The environment's copy is a valid library in a directory no search
    /// reaches (not one the hook exposes).
    NotExposed(PathBuf),
    /// The unversioned name is missing; a versioned file exists.
    DevMissing(String),
    /// Nowhere.
    Missing,
}

/// The two searches: with envhook's hook (simulated when not installed)
/// and without it.
struct Searches<'a> {
    with: Search<'a>,
    without: Search<'a>,
    /// Whether the hooks are installed.
    installed: bool,
}

impl<'a> Searches<'a> {
    fn new(f: &Facts<'a>, sysroot: &'a Path, findings: &mut Vec<Problem>) -> Searches<'a> {
        if let Err(e) = &f.machine.cache {
            findings.push(finding(
                Severity::Info,
                "ld-cache-unreadable",
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
        Searches {
            with: Search {
                ld_library_path: with,
                cache,
                sysroot,
                cwd: cwd.clone(),
            },
            without: Search {
                ld_library_path: without,
                cache,
                sysroot,
                cwd,
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
        "stub-on-path",
        format!(
            "LD_LIBRARY_PATH contains {}, whose libcuda.so is a link-time stub: programs that \
             load it fail with \"CUDA driver version is insufficient\" or find no device",
            dir.display()
        ),
        Some(format!("remove {} from LD_LIBRARY_PATH", dir.display())),
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

/// Where the loader finds `name` for an object of the environment that has
/// no RPATH of its own (a name pasted in an error message): with envhook's
/// hook (simulated when it is not installed) and without it.
pub fn resolve_one(f: &Facts, name: &str) -> (Option<Found>, Option<Found>) {
    let sysroot = f.ctx.sysroot();
    let searches = Searches::new(f, &sysroot, &mut Vec::new());
    let caller = ElfInfo {
        path: f.inv.prefix.join("bin/python"),
        soname: None,
        needed: Vec::new(),
        rpath: Vec::new(),
        runpath: Vec::new(),
        machine: elf::read(&f.inv.prefix.join("bin/python")).map_or(62, |i| i.machine),
        bytes_read: 0,
    };
    (
        searches.with.resolve(name, &caller),
        searches.without.resolve(name, &caller),
    )
}

/// What the library rules found.
pub struct Libraries {
    /// The resolution of every framework object's names.
    pub checks: Vec<LibraryCheck>,
    /// The findings.
    pub findings: Vec<Problem>,
    /// The builds (`package version`) with libraries that are nowhere.
    pub missing_stack: Vec<String>,
}

/// The library rules.
pub fn check(f: &Facts) -> Libraries {
    let mut findings = Vec::new();
    let sysroot = f.ctx.sysroot();
    let searches = Searches::new(f, &sysroot, &mut findings);
    let mut out = Vec::new();
    let mut tally = Tally::default();
    for fw in &f.inv.frameworks {
        if matches!(fw.build.variant, Variant::Cpu | Variant::Rocm { .. }) {
            continue;
        }
        let read: Vec<(PathBuf, ElfInfo, bool)> = objects(f, fw)
            .into_iter()
            .map(|object| {
                let (info, readable) = read_object(&object, &mut findings);
                (object, info, readable)
            })
            .collect();
        let infos: Vec<&ElfInfo> = read.iter().map(|(_, info, _)| info).collect();
        for (i, (object, info, readable)) in read.iter().enumerate() {
            let mut checks = Vec::new();
            // Names loaded at run time are resolved from the object that
            // loads them (its RPATH or RUNPATH is searched).
            for asked in names(f, fw, &infos, i, &searches) {
                let Asked {
                    name,
                    kind,
                    preloaded,
                } = asked;
                let (with_hook, without_hook) = match preloaded {
                    // Loaded by path first: the hook plays no part.
                    Some(path) => {
                        let found = Found {
                            path,
                            rule: Rule::Path,
                        };
                        (Some(found.clone()), Some(found))
                    }
                    None => (
                        searches.with.resolve(&name, info),
                        searches.without.resolve(&name, info),
                    ),
                };
                let outcome = classify(
                    f,
                    &searches,
                    &name,
                    kind,
                    info.machine,
                    &with_hook,
                    &without_hook,
                );
                tally.record(fw, object, &name, kind, outcome);
                checks.push(NameCheck {
                    name,
                    kind,
                    with_hook,
                    without_hook,
                });
            }
            // Of a package without data, only the objects that need CUDA
            // libraries are worth listing (CuPy has dozens of modules).
            if fw.framework == Framework::Other && checks.is_empty() {
                continue;
            }
            out.push(LibraryCheck {
                framework: fw.framework,
                object: object.clone(),
                elf: readable.then(|| info.clone()),
                names: checks,
            });
        }
    }
    let missing_stack = tally.missing_stack();
    findings.extend(tally.findings(f, searches.installed));
    Libraries {
        checks: out,
        findings,
        missing_stack,
    }
}

/// The CUDA-using objects of a framework build: the catalogue's core
/// libraries in the framework's own package and in the packages that carry
/// its CUDA objects (JAX's `jax-cuda12-pjrt`), catalogue order first.
pub(super) fn objects(f: &Facts, fw: &FrameworkBuild) -> Vec<PathBuf> {
    let mut found: Vec<(usize, PathBuf)> = f
        .inv
        .packages
        .iter()
        .filter(|p| p.framework == Some(fw.framework) && p.installer == fw.installer)
        // A package without data of its own: all its objects, its own only.
        .filter(|p| fw.framework != Framework::Other || p.name == fw.package)
        .flat_map(|p| p.libraries.iter())
        .filter(|l| l.status == LibStatus::Ok)
        .filter_map(|l| {
            let name = l.path.file_name()?.to_str()?;
            let rank = match fw.framework {
                Framework::Other => 0,
                known => CATALOG.core_library_rank(known, name)?,
            };
            Some((rank, l.path.clone()))
        })
        .collect();
    found.sort();
    found.dedup_by(|a, b| a.1 == b.1);
    found.into_iter().map(|(_, p)| p).collect()
}

/// An object's ELF facts; an object that cannot be parsed still dlopens
/// its names, which are then resolved as from an object without RPATH.
fn read_object(object: &Path, findings: &mut Vec<Problem>) -> (ElfInfo, bool) {
    match elf::read(object) {
        Ok(info) => (info, true),
        Err(e) => {
            findings.push(finding(
                Severity::Info,
                "elf-unreadable",
                format!(
                    "{}: {e}; its DT_NEEDED libraries are not resolved",
                    object.display()
                ),
                None,
            ));
            let blank = ElfInfo {
                path: object.to_path_buf(),
                soname: None,
                needed: Vec::new(),
                rpath: Vec::new(),
                runpath: Vec::new(),
                machine: 62,
                bytes_read: 0,
            };
            (blank, false)
        }
    }
}

/// A `[[dlopen]]` row's `object` for loading code compiled into each of
/// the framework's objects.
const ANY_OBJECT: &str = "*";

/// One name an object asks for.
struct Asked {
    name: String,
    /// `needed` or `dlopen`.
    kind: &'static str,
    /// The file the framework's Python code loads by path before the
    /// dlopen by name, when it does and the file is there.
    preloaded: Option<PathBuf>,
}

/// The CUDA-stack names object `i` of `infos` needs, and the names the
/// framework loads by name at run time from it: `[[dlopen]]` rows naming
/// it, rows naming none for the framework's first object, and, of rows
/// whose loading code is in every object (`object = "*"`), the names this
/// is the first object to find (else the first object's).
fn names(
    f: &Facts,
    fw: &FrameworkBuild,
    infos: &[&ElfInfo],
    i: usize,
    searches: &Searches,
) -> Vec<Asked> {
    let info = infos[i];
    let first = i == 0;
    // The object that finds it through its own RUNPATH (or the value as it
    // is) first, the hook's directories second.
    let owner = |name: &str| {
        let finds = |search: &Search| infos.iter().position(|o| search.resolve(name, o).is_some());
        finds(&searches.without)
            .or_else(|| finds(&searches.with))
            .unwrap_or(0)
    };
    let mut names: Vec<Asked> = info
        .needed
        .iter()
        .filter(|n| CATALOG.library_component(n).is_some())
        .map(|n| Asked {
            name: n.clone(),
            kind: "needed",
            preloaded: None,
        })
        .collect();
    let file = info.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let pip = fw.build.pip_cuda_libraries.unwrap_or(false);
    // The build's own CUDA and cuDNN name what it loads (TSL and ONNX
    // Runtime build `lib<name>.so.<version>` from them).
    let (cuda, cudnn) = needs(fw, f.matrix).map_or((None, None), |n| (n.cuda, n.cudnn));
    let cuda_major = cuda.as_deref().and_then(major);
    let rows = f
        .matrix
        .dlopen(fw.framework, &release_of(&fw.version), pip, cuda_major);
    for row in rows {
        let here = match row.object.as_deref() {
            Some(ANY_OBJECT) => true,
            Some(object) => object == file,
            None => first,
        };
        if !here {
            continue;
        }
        for name in f
            .matrix
            .dlopen_names(row, cuda.as_deref(), cudnn.as_deref())
        {
            if names.iter().any(|a| a.name == name)
                || (row.object.as_deref() == Some(ANY_OBJECT) && owner(&name) != i)
            {
                continue;
            }
            let preloaded = row
                .preloaded_from_wheels
                .then(|| wheel_copy(f, &name))
                .flatten();
            names.push(Asked {
                name,
                kind: "dlopen",
                preloaded,
            });
        }
    }
    names
}

/// The file of this name in a pip `nvidia-*` wheel of the environment
/// (`site-packages/nvidia/<component>/lib/`).
fn wheel_copy(f: &Facts, name: &str) -> Option<PathBuf> {
    f.inv
        .libraries_named(name)
        .find(|(p, l)| {
            p.installer == Installer::Pip && l.path.components().any(|c| c.as_os_str() == "nvidia")
        })
        .map(|(_, l)| l.path.clone())
}

/// The copy of a library in the environment, by file name.
pub(crate) fn env_copy(f: &Facts, name: &str) -> Option<PathBuf> {
    f.inv
        .libraries_named(name)
        .next()
        .map(|(_, l)| l.path.clone())
}

/// What a resolution means.
fn classify(
    f: &Facts,
    s: &Searches,
    name: &str,
    kind: &str,
    caller_machine: u16,
    with_hook: &Option<Found>,
    without_hook: &Option<Found>,
) -> Outcome {
    let prefix = &f.inv.prefix;
    let inside = |found: &Found| found.path.starts_with(prefix);
    if let Some(stub) = [with_hook, without_hook]
        .into_iter()
        .flatten()
        .find(|found| crate::paths::is_stub(&found.path))
    {
        return Outcome::Stub(stub.path.clone());
    }
    if CATALOG.is_driver_library(name) {
        // The driver's: never from the environment, found or not. Checked
        // for another machine (--driver-version/--gpu), it is that
        // machine's driver that will provide it, not this one's.
        let elsewhere = f.machine.driver.source == crate::machine::driver::Source::Flag;
        return if with_hook.is_none() && without_hook.is_none() && !elsewhere {
            Outcome::DriverMissing
        } else {
            Outcome::Fine
        };
    }
    match (with_hook, without_hook) {
        (None, None) => {
            // A copy the loader passed over is damaged or for another
            // machine only when its header says so; a valid one is a
            // library nothing puts on the path.
            if let Some(copy) = env_copy(f, name) {
                return match elf::read(&copy) {
                    Ok(info) if info.machine == caller_machine => Outcome::NotExposed(copy),
                    _ => Outcome::NotLoadable(copy),
                };
            }
            let stem = name.split(".so").next().unwrap_or(name);
            match versioned_copy(f, stem) {
                Some(have) if kind == "dlopen" => Outcome::DevMissing(have),
                _ => Outcome::Missing,
            }
        }
        (Some(w), None) if !s.installed && inside(w) => Outcome::OnlyWithHook,
        (Some(_), None) => Outcome::Fine,
        (with, Some(wo)) => {
            let winner = with.as_ref().unwrap_or(wo);
            let env = env_copy(f, name);
            match env {
                // A copy outside the environment wins although the
                // environment has one.
                Some(env) if !inside(winner) => Outcome::SystemWins {
                    winner: winner.clone(),
                    env,
                    without_hook_only: false,
                },
                Some(env) if !s.installed && with.as_ref().is_some_and(inside) && !inside(wo) => {
                    Outcome::SystemWins {
                        winner: wo.clone(),
                        env,
                        without_hook_only: true,
                    }
                }
                _ => Outcome::Fine,
            }
        }
    }
}

/// A versioned file of `stem` the environment has (for "only has
/// libcudnn.so.9" when a framework dlopens `libcudnn.so`).
fn versioned_copy(f: &Facts, stem: &str) -> Option<String> {
    f.inv.versioned_names(stem).next().map(String::from)
}
