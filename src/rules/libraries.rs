//! The loader's view of the frameworks' objects: every CUDA-stack name an
//! object needs (DT_NEEDED) or loads by name (dlopen), resolved as the
//! glibc loader would, with and without envhook's hook.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::needs::release_of;
use super::{Facts, finding};
use crate::activation::spec::HookSpec;
use crate::activation::status;
use crate::data::catalog::{CATALOG, Framework};
use crate::data::matrix::{Matrix, major};
use crate::discovery::Context;
use crate::inventory::builds::Variant;
use crate::inventory::{Inventory, LibStatus};
use crate::machine::Machine;
use crate::machine::elf::{self, ElfInfo};
use crate::machine::resolve::{Found, Search, SearchDir};
use crate::report::{Problem, Severity};

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

/// The loader's view of one framework library.
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

/// The library rules: the resolution of every framework object's names,
/// and the findings about them.
pub fn check(f: &Facts) -> (Vec<LibraryCheck>, Vec<Problem>) {
    let mut findings = Vec::new();
    let libraries = check_libraries(
        f.machine,
        f.inv,
        f.matrix,
        f.ctx,
        f.spec.as_ref(),
        f.installed.as_ref(),
        &mut findings,
    );
    (libraries, findings)
}

fn check_libraries(
    machine: &Machine,
    inv: &Inventory,
    m: &Matrix,
    ctx: &Context,
    spec: Option<&HookSpec>,
    hooks: Option<&status::InstalledHooks>,
    findings: &mut Vec<Problem>,
) -> Vec<LibraryCheck> {
    let prefix = &inv.prefix;
    let sysroot = ctx.sysroot();
    if let Err(e) = &machine.cache {
        findings.push(finding(
            Severity::Info,
            "ld-cache-unreadable",
            e.clone(),
            None,
        ));
    }
    let cache = machine.cache.as_ref().ok().and_then(Option::as_ref);
    let installed = hooks.is_some();
    let ours: Vec<PathBuf> = match hooks {
        Some(h) => h.dirs.clone(),
        None => spec.map(|s| s.dirs.clone()).unwrap_or_default(),
    };
    let current: Vec<PathBuf> = ctx
        .var_os_raw("LD_LIBRARY_PATH")
        .map(|v| v.split(':').map(PathBuf::from).collect())
        .unwrap_or_default();
    for dir in &current {
        if crate::paths::is_stub(dir) && dir.join("libcuda.so").exists() {
            findings.push(finding(
                Severity::Error,
                "stub-on-path",
                format!(
                    "LD_LIBRARY_PATH contains {}, whose libcuda.so is a link-time stub: programs that load \
                     it fail with \"CUDA driver version is insufficient\" or find no device",
                    dir.display()
                ),
                Some(format!("remove {} from LD_LIBRARY_PATH", dir.display())),
            ));
        }
    }
    let without: Vec<SearchDir> = current
        .iter()
        .filter(|d| !ours.contains(d))
        .cloned()
        .map(SearchDir::Real)
        .collect();
    let mut with: Vec<SearchDir> = match (installed, spec.and_then(|s| s.isolation.as_ref())) {
        (false, Some(iso)) => vec![SearchDir::Virtual {
            path: iso.link.clone(),
            entries: iso
                .entries
                .iter()
                .map(|e| (e.name.clone(), e.target.clone()))
                .collect::<BTreeMap<_, _>>(),
        }],
        _ => ours.iter().cloned().map(SearchDir::Real).collect(),
    };
    with.extend(without.iter().cloned());
    let cwd = std::env::current_dir().unwrap_or_default();
    let search_without = Search {
        ld_library_path: without,
        cache,
        sysroot: &sysroot,
        cwd: cwd.clone(),
    };
    let search_with = Search {
        ld_library_path: with,
        cache,
        sysroot: &sysroot,
        cwd,
    };
    let env_copy = |name: &str| {
        inv.packages
            .iter()
            .flat_map(|p| p.libraries.iter())
            .find(|l| l.status == LibStatus::Ok && l.path.file_name().is_some_and(|n| n == name))
            .map(|l| l.path.clone())
    };
    let fix = format!("envhook install -p {}", prefix.display());
    let cuda_major = inv.cuda.first().and_then(|c| major(&c.version));

    let mut out = Vec::new();
    let mut only_with_hook: Vec<String> = Vec::new();
    for fw in &inv.frameworks {
        if matches!(fw.build.variant, Variant::Cpu | Variant::Rocm { .. }) {
            continue;
        }
        let Some(pkg) = inv
            .packages
            .iter()
            .find(|p| p.name == fw.package && p.installer == fw.installer)
        else {
            continue;
        };
        let cores: Vec<&Path> = pkg
            .libraries
            .iter()
            .filter(|l| l.status == LibStatus::Ok)
            .filter(|l| {
                l.path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| CATALOG.is_core_library(fw.framework, n))
            })
            .map(|l| l.path.as_path())
            .collect();
        for core in cores {
            // An object that cannot be parsed still dlopens its names; they
            // are resolved as from an object without RPATH.
            let (info, readable) = match elf::read(core) {
                Ok(i) => (i, true),
                Err(e) => {
                    findings.push(finding(
                        Severity::Info,
                        "elf-unreadable",
                        format!(
                            "{}: {e}; its DT_NEEDED libraries are not resolved",
                            core.display()
                        ),
                        None,
                    ));
                    let blank = ElfInfo {
                        path: core.to_path_buf(),
                        soname: None,
                        needed: Vec::new(),
                        rpath: Vec::new(),
                        runpath: Vec::new(),
                        machine: 62,
                        bytes_read: 0,
                    };
                    (blank, false)
                }
            };
            let object = core
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut names: Vec<(String, &'static str)> = info
                .needed
                .iter()
                .filter(|n| CATALOG.library_component(n).is_some())
                .map(|n| (n.clone(), "needed"))
                .collect();
            if fw.framework == Framework::Paddlepaddle {
                let pip = fw.build.pip_cuda_libraries.unwrap_or(false);
                if let Some(row) = m.dlopen(fw.framework, &release_of(&fw.version), pip) {
                    names.extend(row.names.iter().map(|n| (n.clone(), "dlopen")));
                }
            }
            let mut checks = Vec::new();
            for (name, kind) in names {
                let with_hook = search_with.resolve(&name, &info);
                let without_hook = search_without.resolve(&name, &info);
                check_one(
                    cuda_major,
                    &name,
                    kind,
                    &object,
                    &with_hook,
                    &without_hook,
                    installed,
                    prefix,
                    &env_copy,
                    &fix,
                    findings,
                    &mut only_with_hook,
                );
                checks.push(NameCheck {
                    name,
                    kind,
                    with_hook,
                    without_hook,
                });
            }
            out.push(LibraryCheck {
                framework: fw.framework,
                object: core.to_path_buf(),
                elf: readable.then_some(info),
                names: checks,
            });
        }
    }
    if !only_with_hook.is_empty() && !installed {
        only_with_hook.dedup();
        findings.push(finding(
            Severity::Warning,
            "needs-hook",
            format!(
                "{} found only through LD_LIBRARY_PATH, and this environment has no envhook hook: {}",
                if only_with_hook.len() == 1 { "this library is" } else { "these libraries are" },
                only_with_hook.join(", ")
            ),
            Some(fix),
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn check_one(
    cuda_major: Option<u32>,
    name: &str,
    kind: &str,
    object: &str,
    with_hook: &Option<Found>,
    without_hook: &Option<Found>,
    installed: bool,
    prefix: &Path,
    env_copy: &dyn Fn(&str) -> Option<PathBuf>,
    fix: &str,
    findings: &mut Vec<Problem>,
    only_with_hook: &mut Vec<String>,
) {
    let how = if kind == "dlopen" {
        "loads by name"
    } else {
        "needs"
    };
    for found in [with_hook, without_hook].into_iter().flatten() {
        if crate::paths::is_stub(&found.path) {
            findings.push(finding(
                Severity::Error,
                "stub-libcuda",
                format!(
                    "{object} {how} {name}, and the loader would take the stub {}",
                    found.path.display()
                ),
                Some("take the stubs directory off LD_LIBRARY_PATH".into()),
            ));
            return;
        }
    }
    let inside = |f: &Found| f.path.starts_with(prefix);
    match (with_hook, without_hook) {
        (None, None) if env_copy(name).is_some() => {
            let copy = env_copy(name).unwrap_or_default();
            findings.push(finding(
                if kind == "needed" { Severity::Error } else { Severity::Warning },
                "library-not-loadable",
                format!(
                    "{object} {how} {name}; the environment's {} is not a loadable 64-bit ELF for this \
                     machine (another architecture, or damaged)",
                    copy.display()
                ),
                Some(format!("reinstall the package that owns {}", copy.display())),
            ));
        }
        (None, None) => {
            let stem = name.split(".so").next().unwrap_or(name);
            let versioned = env_copy_stem(prefix, stem);
            let dev_missing = versioned.is_some() && kind == "dlopen";
            let package = CATALOG
                .library_component(name)
                .and_then(|c| CATALOG.conda_package_for(c, cuda_major));
            let p = prefix.display();
            let (message, hint) = match versioned {
                Some(v) if kind == "dlopen" => (
                    format!(
                        "{object} {how} {name}, which this environment lacks: it has only {v} (the \
                         unversioned name comes from -dev packages). Expect \"The third-party dynamic library \
                         ({name}) that Paddle depends on is not configured correctly\""
                    ),
                    match package.filter(|pk| pk != "cudatoolkit") {
                        Some(pk) => {
                            let dev = if pk == "cudnn" {
                                "libcudnn-dev".to_string()
                            } else {
                                format!("{pk}-dev")
                            };
                            format!(
                                "{fix} (its isolating mode provides {name}), or conda install -p {p} -c conda-forge {dev}"
                            )
                        }
                        None => format!("{fix} (its isolating mode provides {name})"),
                    },
                ),
                _ => (
                    format!(
                        "{object} {how} {name}, which is not in this environment nor on the system. Expect \"{name}: cannot open shared object file\""
                    ),
                    match package {
                        Some(pk) => format!("conda install -p {p} -c conda-forge {pk}"),
                        None => format!(
                            "install the package that provides {name} (see `envhook show -p {p}`)"
                        ),
                    },
                ),
            };
            // A dlopened library fails only when the operation needing it
            // runs (curand for random ops, nccl for multi-GPU); cuDNN and
            // cuBLAS are needed at once.
            let severity = if kind == "needed"
                || name.starts_with("libcudnn.so")
                || name.starts_with("libcublas.so")
            {
                Severity::Error
            } else {
                Severity::Warning
            };
            let code = if dev_missing {
                "missing-dev-symlink"
            } else {
                "library-not-found"
            };
            findings.push(finding(severity, code, message, Some(hint)));
        }
        (Some(w), None) => {
            if !installed && inside(w) {
                only_with_hook.push(name.to_string());
            }
        }
        (with, Some(wo)) => {
            // A copy outside the environment wins although the environment has one.
            let winner = with.as_ref().unwrap_or(wo);
            if let Some(env) = env_copy(name).filter(|_| !inside(winner)) {
                let scenario = if installed || with.is_none() {
                    ""
                } else {
                    " without envhook's hook"
                };
                findings.push(finding(
                    Severity::Warning,
                    "system-library-wins",
                    format!(
                        "{object} {how} {name}:{scenario} the loader takes {} ({}), not the environment's {}",
                        winner.path.display(),
                        winner.rule.label(),
                        env.display()
                    ),
                    Some(if installed {
                        "remove the system CUDA directory from LD_LIBRARY_PATH, or rebuild the framework without that RPATH".into()
                    } else {
                        fix.to_string()
                    }),
                ));
            } else if !installed
                && with.as_ref().is_some_and(&inside)
                && !inside(wo)
                && env_copy(name).is_some()
            {
                findings.push(finding(
                    Severity::Warning,
                    "system-library-wins",
                    format!(
                        "{object} {how} {name}: without envhook's hook the loader takes {} ({}), not the environment's",
                        wo.path.display(),
                        wo.rule.label()
                    ),
                    Some(fix.to_string()),
                ));
            }
        }
    }
}

/// A versioned file of `stem` in the environment's `lib/` or pip
/// `nvidia/*/lib` (for the "only has libcudnn.so.9" message).
fn env_copy_stem(prefix: &Path, stem: &str) -> Option<String> {
    let mut dirs = vec![prefix.join("lib")];
    dirs.extend(crate::paths::dir_entries(&prefix.join("lib/envhook/cuda")));
    crate::paths::dir_entries(&prefix.join("lib"))
        .into_iter()
        .chain(dirs.into_iter().flat_map(|d| crate::paths::dir_entries(&d)))
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .find(|n| n.starts_with(&format!("{stem}.so.")))
}
