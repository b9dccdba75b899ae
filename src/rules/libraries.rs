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

use super::needs::release_of;
use super::{Facts, finding};
use crate::data::catalog::{CATALOG, Framework};
use crate::inventory::builds::Variant;
use crate::inventory::{FrameworkBuild, LibStatus};
use crate::machine::driver::Source;
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
        let ours: Vec<PathBuf> = match &f.installed {
            Some(h) => h.dirs.clone(),
            None => f.spec.as_ref().map(|s| s.dirs.clone()).unwrap_or_default(),
        };
        let current: Vec<PathBuf> = f
            .ctx
            .var_os_raw("LD_LIBRARY_PATH")
            .map(|v| v.split(':').map(PathBuf::from).collect())
            .unwrap_or_default();
        for dir in &current {
            if crate::paths::is_stub(dir) && dir.join("libcuda.so").exists() {
                findings.push(finding(
                    Severity::Error,
                    "stub-on-path",
                    format!(
                        "LD_LIBRARY_PATH contains {}, whose libcuda.so is a link-time stub: programs that \
                         load it fail with \"CUDA driver version is insufficient\" or find no device",
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
        let iso = f.spec.as_ref().and_then(|s| s.isolation.as_ref());
        let mut with: Vec<SearchDir> = match (installed, iso) {
            (false, Some(iso)) => vec![SearchDir::Virtual {
                path: iso.link.clone(),
                entries: iso
                    .entries
                    .iter()
                    .map(|e| (e.name.clone(), e.target.clone()))
                    .collect::<BTreeMap<_, _>>(),
            }],
            _ => ours.into_iter().map(SearchDir::Real).collect(),
        };
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
        for (i, object) in objects(f, fw).into_iter().enumerate() {
            let (info, readable) = read_object(&object, &mut findings);
            let mut checks = Vec::new();
            // Names loaded at run time belong to the framework; they are
            // resolved from its first object, whose RPATH they would use.
            for (name, kind) in names(f, fw, &info, i == 0) {
                let with_hook = searches.with.resolve(&name, &info);
                let without_hook = searches.without.resolve(&name, &info);
                let outcome = classify(f, &searches, &name, kind, &with_hook, &without_hook);
                tally.record(fw, &object, &name, kind, outcome);
                checks.push(NameCheck {
                    name,
                    kind,
                    with_hook,
                    without_hook,
                });
            }
            out.push(LibraryCheck {
                framework: fw.framework,
                object,
                elf: readable.then_some(info),
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
        .flat_map(|p| p.libraries.iter())
        .filter(|l| l.status == LibStatus::Ok)
        .filter_map(|l| {
            let name = l.path.file_name()?.to_str()?;
            Some((
                CATALOG.core_library_rank(fw.framework, name)?,
                l.path.clone(),
            ))
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

/// The CUDA-stack names an object needs, and (for the framework's first
/// object) the names the framework loads by name at run time.
fn names(
    f: &Facts,
    fw: &FrameworkBuild,
    info: &ElfInfo,
    first: bool,
) -> Vec<(String, &'static str)> {
    let mut names: Vec<(String, &'static str)> = info
        .needed
        .iter()
        .filter(|n| CATALOG.library_component(n).is_some())
        .map(|n| (n.clone(), "needed"))
        .collect();
    if first {
        let pip = fw.build.pip_cuda_libraries.unwrap_or(false);
        if let Some(row) = f.matrix.dlopen(fw.framework, &release_of(&fw.version), pip) {
            for name in &row.names {
                if !names.iter().any(|(n, _)| n == name) {
                    names.push((name.clone(), "dlopen"));
                }
            }
        }
    }
    names
}

/// The copy of a library in the environment, by file name.
fn env_copy(f: &Facts, name: &str) -> Option<PathBuf> {
    f.inv
        .packages
        .iter()
        .flat_map(|p| p.libraries.iter())
        .find(|l| l.status == LibStatus::Ok && l.path.file_name().is_some_and(|n| n == name))
        .map(|l| l.path.clone())
}

/// What a resolution means.
fn classify(
    f: &Facts,
    s: &Searches,
    name: &str,
    kind: &str,
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
        // The driver's: never from the environment, found or not.
        return if with_hook.is_none() && without_hook.is_none() {
            Outcome::DriverMissing
        } else {
            Outcome::Fine
        };
    }
    match (with_hook, without_hook) {
        (None, None) => {
            if let Some(copy) = env_copy(f, name) {
                return Outcome::NotLoadable(copy);
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
    let want = format!("{stem}.so.");
    f.inv
        .packages
        .iter()
        .flat_map(|p| p.libraries.iter())
        .filter(|l| l.status == LibStatus::Ok)
        .filter_map(|l| l.path.file_name()?.to_str().map(String::from))
        .find(|n| n.starts_with(&want))
}

/// One object's name and what became of it.
#[derive(Debug, Clone)]
struct Seen {
    object: String,
    name: String,
    kind: &'static str,
    outcome: Outcome,
}

/// The outcomes of every framework, gathered so that findings can be made
/// per framework.
#[derive(Default)]
struct Tally {
    by_framework: Vec<(String, Vec<Seen>)>,
}

impl Tally {
    /// The builds with at least one library that is nowhere.
    fn missing_stack(&self) -> Vec<String> {
        self.by_framework
            .iter()
            .filter(|(_, all)| {
                all.iter().any(|s| {
                    s.outcome == Outcome::Missing
                        && !(s.kind == "dlopen" && CATALOG.optional_use(&s.name).is_some())
                })
            })
            .map(|(label, _)| label.clone())
            .collect()
    }

    fn record(
        &mut self,
        fw: &FrameworkBuild,
        object: &Path,
        name: &str,
        kind: &'static str,
        outcome: Outcome,
    ) {
        let label = format!("{} {}", fw.package, fw.version);
        let seen = Seen {
            object: object
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            name: name.to_string(),
            kind,
            outcome,
        };
        match self.by_framework.iter_mut().find(|(l, _)| *l == label) {
            Some((_, all)) => all.push(seen),
            None => self.by_framework.push((label, vec![seen])),
        }
    }

    fn findings(&self, f: &Facts, installed: bool) -> Vec<Problem> {
        let mut out = Vec::new();
        let prefix = f.inv.prefix.display();
        let fix = format!("envhook install -p {prefix}");
        let mut only_with_hook: Vec<String> = Vec::new();
        let mut driver_missing = Vec::new();
        for (label, all) in &self.by_framework {
            let mut missing: Vec<&Seen> = Vec::new();
            let mut dev_missing: Vec<(&Seen, &str)> = Vec::new();
            let mut system_wins: Vec<&Seen> = Vec::new();
            for s in all {
                let how = if s.kind == "dlopen" {
                    "loads by name"
                } else {
                    "needs"
                };
                match &s.outcome {
                    Outcome::Fine => {}
                    Outcome::Stub(path) => out.push(finding(
                        Severity::Error,
                        "stub-libcuda",
                        format!(
                            "{} {how} {}, and the loader would take the stub {}",
                            s.object,
                            s.name,
                            path.display()
                        ),
                        Some("take the stubs directory off LD_LIBRARY_PATH".into()),
                    )),
                    Outcome::DriverMissing => driver_missing.push(format!("{} ({})", s.name, s.object)),
                    Outcome::OnlyWithHook => only_with_hook.push(s.name.clone()),
                    Outcome::SystemWins { .. } => system_wins.push(s),
                    Outcome::NotLoadable(copy) => out.push(finding(
                        if s.kind == "needed" { Severity::Error } else { Severity::Warning },
                        "library-not-loadable",
                        format!(
                            "{} {how} {}; the environment's {} is not a loadable 64-bit ELF for this machine \
                             (another architecture, or damaged)",
                            s.object,
                            s.name,
                            copy.display()
                        ),
                        Some(format!("reinstall the package that owns {}", copy.display())),
                    )),
                    Outcome::DevMissing(have) => dev_missing.push((s, have)),
                    Outcome::Missing => missing.push(s),
                }
            }
            // Libraries loaded by name only for one feature (NCCL for
            // several GPUs): their absence is worth knowing, not a warning.
            let (optional, required): (Vec<&Seen>, Vec<&Seen>) = missing
                .into_iter()
                .partition(|s| s.kind == "dlopen" && CATALOG.optional_use(&s.name).is_some());
            if !required.is_empty() {
                out.push(missing_finding(f, label, &required, installed));
            }
            for s in optional {
                out.push(finding(
                    Severity::Info,
                    "optional-library-missing",
                    format!(
                        "{label} loads {} only for {}; it is not in this environment nor on the system, so \
                         that would fail with \"{}: cannot open shared object file\"",
                        s.name,
                        CATALOG.optional_use(&s.name).unwrap_or("some operations"),
                        s.name
                    ),
                    CATALOG.library_component(&s.name).map(|c| {
                        f.inv
                            .frameworks
                            .iter()
                            .find(|fw| format!("{} {}", fw.package, fw.version) == *label)
                            .map(|fw| super::fixes::for_framework(f, fw, &[c]))
                            .unwrap_or_default()
                    }),
                ));
            }
            if !dev_missing.is_empty() {
                out.push(dev_missing_finding(label, &dev_missing, &fix));
            }
            if !system_wins.is_empty() {
                out.push(system_wins_finding(label, &system_wins, installed, &fix));
            }
        }
        if !driver_missing.is_empty() && f.machine.driver.source != Source::None {
            driver_missing.dedup();
            out.push(finding(
                Severity::Error,
                "driver-library-missing",
                format!(
                    "{} come with the NVIDIA driver, but the loader finds none (not in /etc/ld.so.cache nor \
                     the default directories), although a driver is reported ({}). Expect \"libcuda.so.1: \
                     cannot open shared object file\" or \"no CUDA-capable device is detected\"",
                    driver_missing.join(", "),
                    f.machine.driver.version.as_deref().unwrap_or("version unknown")
                ),
                Some(
                    "install the driver's user-space libraries matching the kernel module (and run ldconfig); \
                     in a container, run it with the NVIDIA container toolkit (--gpus all)"
                        .into(),
                ),
            ));
        }
        if !only_with_hook.is_empty() && !installed {
            only_with_hook.sort();
            only_with_hook.dedup();
            out.push(finding(
                Severity::Warning,
                "needs-hook",
                format!(
                    "{} found only through LD_LIBRARY_PATH, and this environment has no envhook hook: {}",
                    if only_with_hook.len() == 1 {
                        "this library is"
                    } else {
                        "these libraries are"
                    },
                    only_with_hook.join(", ")
                ),
                Some(fix),
            ));
        }
        out
    }
}

/// One finding for every library a framework loads that is nowhere, with
/// the one command that installs the stack they belong to.
fn missing_finding(f: &Facts, label: &str, missing: &[&Seen], installed: bool) -> Problem {
    let names: Vec<&str> = dedup(missing.iter().map(|s| s.name.as_str()));
    let objects: Vec<&str> = dedup(missing.iter().map(|s| s.object.as_str()));
    let any_needed = missing.iter().any(|s| s.kind == "needed");
    // A library needed at load time breaks the import; cuDNN and cuBLAS are
    // loaded at once; the rest only when an operation needs them (curand
    // for random numbers, nccl for several GPUs).
    let severity = if any_needed
        || names
            .iter()
            .any(|n| n.starts_with("libcudnn.so") || n.starts_with("libcublas.so"))
    {
        Severity::Error
    } else {
        Severity::Warning
    };
    let fw = f
        .inv
        .frameworks
        .iter()
        .find(|fw| format!("{} {}", fw.package, fw.version) == label);
    let components: Vec<&str> = dedup(names.iter().filter_map(|n| CATALOG.library_component(n)));
    let mut hint = fw
        .map(|fw| super::fixes::for_framework(f, fw, &components))
        .unwrap_or_else(|| "install the CUDA libraries the framework was built for".into());
    // Unversioned names come only from -dev packages; envhook's link
    // directory provides them.
    if !installed && names.iter().any(|n| n.ends_with(".so")) {
        hint.push_str(&format!(
            ", then envhook install -p {} (it provides the unversioned names the framework loads)",
            f.inv.prefix.display()
        ));
    }
    let first = names.first().copied().unwrap_or("the library");
    Problem {
        severity,
        code: "library-not-found",
        message: format!(
            "{label} ({}) {} {}, which {} in this environment nor on the system. Expect \"{first}: cannot \
             open shared object file\"",
            objects.join(", "),
            if any_needed { "needs" } else { "loads by name" },
            names.join(", "),
            if names.len() == 1 {
                "is not"
            } else {
                "are not"
            }
        ),
        hint: Some(hint),
        path: None,
        source: None,
    }
}

/// One finding for the libraries of a framework that the loader takes from
/// outside the environment although the environment has them.
fn system_wins_finding(label: &str, wins: &[&Seen], installed: bool, fix: &str) -> Problem {
    let mut names = Vec::new();
    let mut from = Vec::new();
    let mut without_hook_only = true;
    for s in wins {
        if let Outcome::SystemWins {
            winner,
            without_hook_only: only,
            ..
        } = &s.outcome
        {
            if !names.contains(&s.name) {
                names.push(s.name.clone());
            }
            let dir = winner.path.parent().unwrap_or(Path::new("/")).display();
            let place = format!("{dir} ({})", winner.rule.label());
            if !from.contains(&place) {
                from.push(place);
            }
            without_hook_only &= *only;
        }
    }
    let scenario = if without_hook_only {
        "without envhook's hook, "
    } else {
        ""
    };
    finding(
        Severity::Warning,
        "system-library-wins",
        format!(
            "{label}: {scenario}the loader takes {} from {}, not the environment's copies; a CUDA from outside \
             the environment may not match the build (\"undefined symbol\", wrong versions)",
            names.join(", "),
            from.join(", ")
        ),
        Some(if installed || !without_hook_only {
            "remove the system CUDA directory from LD_LIBRARY_PATH, or rebuild the framework without that RPATH"
                .into()
        } else {
            fix.to_string()
        }),
    )
}

/// One finding for the unversioned names a framework dlopens that the
/// environment has only in versioned form.
fn dev_missing_finding(label: &str, dev_missing: &[(&Seen, &str)], fix: &str) -> Problem {
    let names: Vec<&str> = dedup(dev_missing.iter().map(|(s, _)| s.name.as_str()));
    let haves: Vec<&str> = dedup(dev_missing.iter().map(|(_, h)| *h));
    let severity = if names
        .iter()
        .any(|n| n.starts_with("libcudnn.so") || n.starts_with("libcublas.so"))
    {
        Severity::Error
    } else {
        Severity::Warning
    };
    let first = names.first().copied().unwrap_or("the library");
    finding(
        severity,
        "missing-dev-symlink",
        format!(
            "{label} loads by name {}, which this environment has only as {} (unversioned names come from \
             -dev packages). Expect \"The third-party dynamic library ({first}) that Paddle depends on is \
             not configured correctly\" or \"{first}: cannot open shared object file\"",
            names.join(", "),
            haves.join(", ")
        ),
        Some(format!(
            "{fix} (its link directory provides the unversioned names)"
        )),
    )
}

/// Distinct values, first occurrence order.
fn dedup<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}
