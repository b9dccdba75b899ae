//! The loader's view of the frameworks: each framework's import run in a
//! simulated process ([`crate::machine::loader`]), with and without
//! envhook's hook, by the simulation of [`crate::loading`]. Its steps
//! follow how the framework really reaches its CUDA libraries
//! ([`crate::loading::asked`]): what its Python code loads by path
//! (torch's preloader, JAX's) or through cuda-pathfinder
//! ([`crate::loading::pathfinder`]), its objects with what they need
//! (DT_NEEDED), what it dlopens by name from the object whose code calls
//! dlopen ([`crate::loading::run`]). Every library loaded pulls
//! in its own dependencies, searched from itself, and their symbols are
//! looked up in the copy the loader binds ([`closure`]).
//!
//! Each name asked and each dependency is classified ([`Outcome`]); the
//! findings are then made per framework, not per name ([`tally`]), so
//! that one missing CUDA stack is one finding with one fix (and the
//! driver's own libraries are never something to install into an
//! environment).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::{Facts, finding};
use crate::data::catalog::{CATALOG, Framework};
use crate::finding::{Code, Problem, Severity};
use crate::inventory::FrameworkBuild;
use crate::inventory::builds::Variant;
pub use crate::loading::Via;
use crate::loading::asked::plan;
pub use crate::loading::loaded::{Loaded, Use};
use crate::loading::pathfinder::Pathfinder;
use crate::loading::run::run;
use crate::loading::searches::Searches;
use crate::machine::elf::{self, ElfInfo};
use crate::machine::loader::Objects;
use crate::machine::resolve::Found;
use closure::Closure;
pub use closure::DependencyCheck;
pub(super) use objects::objects;
use objects::{host, read_object};
use tally::Tally;

mod closure;
mod major;
mod objects;
mod tally;

/// How one name resolves with and without envhook's hook.
#[derive(Debug, Clone, Serialize)]
pub struct NameCheck {
    /// The soname.
    pub name: String,
    /// How the framework asks for it.
    pub kind: Via,
    /// With the hook's directories first on `LD_LIBRARY_PATH` (simulated
    /// when the hooks are not installed yet).
    pub with_hook: Option<Found>,
    /// With `LD_LIBRARY_PATH` as it is, minus envhook's directories.
    pub without_hook: Option<Found>,
    /// Where `with_hook` came through the link directory a fresh install
    /// would write (the hooks not installed, or stale): the file its link
    /// will point at, which exists now, unlike the link.
    #[serde(skip)]
    pub hook_target: Option<PathBuf>,
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
    /// The environment has it only in wheels of another CUDA major than
    /// the build's (a CUDA 12 `libcurand.so.10` for a CUDA 11 build), and
    /// nothing else is found: the hook is no fix, and the build's
    /// `cuda-mismatch` says what is.
    OtherMajorOnly,
    /// The loader takes a copy from outside the environment, which may fit
    /// the build, where the hook puts (or would put) the environment's copy
    /// of another CUDA major first under the same soname.
    HookShadows {
        /// The copy outside the environment.
        system: PathBuf,
        /// The environment's copy's CUDA major.
        env_major: u32,
        /// Whether the hook is installed.
        installed: bool,
    },
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
    /// An unversioned name (`libcudnn.so`) the build dlopens reaches a
    /// library of another major than it was built for (`want`), or the
    /// environment has it only in another major: no link fixes that, the
    /// build's own major must be installed.
    OtherMajor(major::Wrong),
    /// The unversioned name is missing; a versioned file exists.
    DevMissing(String),
    /// Nowhere.
    Missing,
}

/// Where the loader finds `name` for an object of the environment that has
/// no RPATH of its own (a name pasted in an error message): with envhook's
/// hook (simulated when it is not installed) and without it.
pub fn resolve_one(f: &Facts, name: &str) -> (Option<Found>, Option<Found>, Option<PathBuf>) {
    let sysroot = f.ctx.sysroot();
    let searches = Searches::new(f, &sysroot);
    let caller = python_caller(f);
    let with = searches.with.resolve(name, &caller);
    let target = searches.with.simulated_target(with.as_ref());
    (with, searches.without.resolve(name, &caller), target)
}

/// What the library rules found.
pub struct Libraries {
    /// The resolution of every framework object's names.
    pub checks: Vec<LibraryCheck>,
    /// The dependencies of the CUDA libraries the frameworks load, as the
    /// loader settles them.
    pub dependencies: Vec<DependencyCheck>,
    /// The findings.
    pub findings: Vec<Problem>,
    /// The builds (`package version`) with libraries that are nowhere.
    pub missing_stack: Vec<String>,
    /// The builds that lack a library of their own CUDA major.
    pub lacking_major: Vec<String>,
    /// The files each build's import loads: the copies the rules that
    /// judge one copy of a library judge.
    pub loaded: Loaded,
}

/// The library rules.
pub fn check(f: &Facts) -> Libraries {
    let mut findings = Vec::new();
    let sysroot = f.ctx.sysroot();
    let searches = Searches::new(f, &sysroot);
    findings.extend(search_findings(&searches));
    let python = python_caller(f);
    let mut c = Checker {
        f,
        pathfinder: Pathfinder::new(f, &python),
        searches,
        read_elf: Objects::default(),
        out: Vec::new(),
        tally: Tally::default(),
        closure: Closure::default(),
        loaded: Loaded::default(),
        hosts: BTreeMap::new(),
        machine: python.machine,
    };
    // The frameworks first, then what runs on one of them.
    let mut order: Vec<&FrameworkBuild> = f.inv.frameworks.iter().collect();
    order.sort_by_key(|fw| host(fw).is_some());
    for fw in order {
        if !matches!(fw.build.variant, Variant::Cpu | Variant::Rocm { .. }) {
            c.framework(fw, &mut findings);
        }
    }
    let missing_stack = c.tally.missing_stack();
    let lacking_major = c.tally.lacking_major();
    findings.extend(c.tally.findings(f, c.searches.installed));
    findings.extend(c.closure.symbols(f, c.searches.installed));
    Libraries {
        checks: c.out,
        dependencies: c.closure.into_edges(),
        findings,
        missing_stack,
        lacking_major,
        loaded: c.loaded,
    }
}

/// The objects `fw`'s import loads, each with its ELF facts and whether
/// they could be read. A package of Python code alone (numba-cuda) loads
/// through cuda-pathfinder from the environment's Python, which asks; a
/// framework's objects not found ask nothing.
fn read_objects(
    f: &Facts,
    fw: &FrameworkBuild,
    findings: &mut Vec<Problem>,
) -> Vec<(PathBuf, ElfInfo, bool)> {
    let mut read: Vec<(PathBuf, ElfInfo, bool)> = objects(f, fw)
        .into_iter()
        .map(|object| {
            let (info, readable) = read_object(&object, findings);
            (object, info, readable)
        })
        .collect();
    if read.is_empty() && fw.framework == Framework::Other {
        read.push((f.inv.prefix.join("bin/python"), python_caller(f), true));
    }
    read
}

/// Keep what `fw`'s import loaded, with and without the hook, where a
/// package here runs on it.
fn keep_as_host(
    hosts: &mut BTreeMap<Framework, (Vec<PathBuf>, Vec<PathBuf>)>,
    f: &Facts,
    fw: &FrameworkBuild,
    (with, without): (&[PathBuf], &[PathBuf]),
) {
    if f.inv
        .frameworks
        .iter()
        .any(|o| host(o) == Some(fw.framework))
    {
        hosts
            .entry(fw.framework)
            .or_insert_with(|| (with.to_vec(), without.to_vec()));
    }
}

/// What the library rules carry from one framework to the next.
struct Checker<'a> {
    f: &'a Facts<'a>,
    searches: Searches<'a>,
    pathfinder: Pathfinder<'a>,
    read_elf: Objects,
    out: Vec<LibraryCheck>,
    tally: Tally,
    closure: Closure,
    loaded: Loaded,
    /// The files each framework's import loaded, with and without the
    /// hook: what is in the process before a package that runs on it.
    hosts: BTreeMap<Framework, (Vec<PathBuf>, Vec<PathBuf>)>,
    /// The environment's ELF machine.
    machine: u16,
}

impl Checker<'_> {
    /// What the framework `fw` runs on loaded, with and without the hook
    /// (empty when it runs on none).
    fn host_files(&self, fw: &FrameworkBuild) -> (Vec<PathBuf>, Vec<PathBuf>) {
        host(fw)
            .and_then(|h| self.hosts.get(&h))
            .cloned()
            .unwrap_or_default()
    }

    /// One framework's import, run with and without the hook, each name
    /// and dependency classified.
    fn framework(&mut self, fw: &FrameworkBuild, findings: &mut Vec<Problem>) {
        let f = self.f;
        let read = read_objects(f, fw, findings);
        let infos: Vec<&ElfInfo> = read.iter().map(|(_, info, _)| info).collect();
        let paths: Vec<PathBuf> = read.iter().map(|(p, ..)| p.clone()).collect();
        let plan = plan(f, fw, &infos);
        let (s, pf) = (&self.searches, &self.pathfinder);
        let (host_with, host_without) = self.host_files(fw);
        let objects = (&paths[..], &infos[..]);
        let elf = &mut self.read_elf;
        let with = run(&plan, objects, &s.with, elf, pf, &host_with);
        let without = run(&plan, objects, &s.without, elf, pf, &host_without);
        keep_as_host(&mut self.hosts, f, fw, (&with.files, &without.files));
        let mut checks: Vec<Vec<NameCheck>> = vec![Vec::new(); read.len()];
        for (k, a) in plan.asked.iter().enumerate() {
            // A name the data cannot answer for (a cuda-pathfinder release
            // no row covers) is left out rather than guessed.
            let (Some(with_hook), Some(without_hook)) = (&with.found[k], &without.found[k]) else {
                continue;
            };
            let machine = infos[a.object].machine;
            let outcome = classify(f, s, &a.name, a.kind, machine, with_hook, without_hook);
            let outcome = by_major(
                f,
                &a.name,
                plan.cuda_major,
                (with_hook, without_hook),
                outcome,
            );
            let outcome = match &a.bound {
                Some(want) => {
                    let found = (with_hook, without_hook);
                    major::bound(f, &mut self.read_elf, want, found, outcome)
                }
                None => outcome,
            };
            let object = &paths[a.object];
            let how = tally::Consequence {
                falls_back_to_cpu: a.falls_back_to_cpu,
                loses: a.loses.as_deref(),
                required: a.required.as_deref(),
            };
            self.tally.record(fw, object, &a.name, a.kind, outcome, how);
            checks[a.object].push(NameCheck {
                name: a.name.clone(),
                kind: a.kind,
                with_hook: with_hook.clone(),
                without_hook: without_hook.clone(),
                hook_target: s.with.simulated_target(with_hook.as_ref()),
            });
        }
        let files: Vec<PathBuf> = with.files.into_iter().chain(without.files).collect();
        let name = format!("{} {}", fw.package, fw.version);
        self.loaded
            .record((name, plan.asks()), &files, |p| closure::on_disk(f, p));
        let (with, without) = (with.deps, without.deps);
        self.closure
            .record(f, (s, self.machine), fw, &mut self.tally, (with, without));
        for ((object, info, readable), names) in read.into_iter().zip(checks) {
            // Of a package without data, only the objects that need CUDA
            // libraries are worth listing (CuPy has dozens of modules).
            if fw.framework == Framework::Other && names.is_empty() {
                continue;
            }
            self.out.push(LibraryCheck {
                framework: fw.framework,
                object,
                elf: readable.then_some(info),
                names,
            });
        }
    }
}

/// The CUDA major of the environment's copies of `name` when every one is
/// in a pip wheel of another CUDA major than the build's
/// (`nvidia-curand-cu12` for `cupy-cuda11x`).
fn other_major(f: &Facts, name: &str, build: Option<u32>) -> Option<u32> {
    let build = build?;
    let majors: Vec<Option<u32>> = f
        .inv
        .libraries_named(name)
        .map(|(p, _)| p.cuda_major)
        .collect();
    let first = (*majors.first()?)?;
    majors
        .iter()
        .all(|m| m.is_some_and(|m| m != build))
        .then_some(first)
}

/// A name's outcome, judged by CUDA major: the environment's copy of a
/// shared soname (`libcurand.so.10` in CUDA 11 and 12) does not serve a
/// build of another major, whatever the loader finds by that name.
fn by_major(
    f: &Facts,
    name: &str,
    build: Option<u32>,
    (with, without): (&Option<Found>, &Option<Found>),
    outcome: Outcome,
) -> Outcome {
    let Some(env_major) = other_major(f, name, build) else {
        return outcome;
    };
    let inside = |found: &Option<Found>| {
        found
            .as_ref()
            .is_some_and(|x| x.path.starts_with(&f.inv.prefix))
    };
    let (with_in, without_in) = (inside(with), inside(without));
    match without {
        // The hook puts the other major's copy before one that may fit.
        Some(wo) if with_in && !without_in => Outcome::HookShadows {
            system: wo.path.clone(),
            env_major,
            installed: f.installed.is_some(),
        },
        _ if with_in || without_in || (with.is_none() && without.is_none()) => {
            Outcome::OtherMajorOnly
        }
        // Copies outside the environment serve it: one winning over the
        // environment's other major is no problem.
        _ => match outcome {
            Outcome::SystemWins { .. } => Outcome::Fine,
            other => other,
        },
    }
}

/// What the searches met that is a finding of its own: an unreadable
/// loader cache (info), a driver stub on `LD_LIBRARY_PATH` (error).
fn search_findings(s: &Searches) -> Vec<Problem> {
    let cache = s
        .cache_error
        .iter()
        .map(|e| finding(Severity::Info, Code::LdCacheUnreadable, e.clone(), None));
    let stubs = s.stubs.iter().map(|dir| {
        finding(
            Severity::Error,
            Code::StubOnPath,
            format!(
                "LD_LIBRARY_PATH contains {}, whose libcuda.so is a link-time stub: programs that \
                 load it fail with \"CUDA driver version is insufficient\" or find no device",
                dir.display()
            ),
            Some(crate::finding::Fix::advice(format!(
                "remove {} from LD_LIBRARY_PATH",
                dir.display()
            ))),
        )
    });
    cache.chain(stubs).collect()
}

/// The object whose dlopen the loader answers for code without RPATH of
/// its own (Python's ctypes, a name pasted in an error message): the
/// environment's Python, for its ELF machine.
fn python_caller(f: &Facts) -> ElfInfo {
    ElfInfo {
        path: f.inv.prefix.join("bin/python"),
        soname: None,
        needed: Vec::new(),
        rpath: Vec::new(),
        runpath: Vec::new(),
        search_elements_dropped: 0,
        machine: elf::read(&f.inv.prefix.join("bin/python")).map_or(62, |i| i.machine),
        bytes_read: 0,
    }
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
    kind: Via,
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
                Some(have) if kind == Via::Dlopen && !other_tensorrt(name, &have) => {
                    Outcome::DevMissing(have)
                }
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

/// Whether `have` is a TensorRT of another major than `name` asks for
/// (`libnvinfer.so.10` where TSL asks `libnvinfer.so.8.6.1`): no link
/// makes one serve the other.
fn other_tensorrt(name: &str, have: &str) -> bool {
    use crate::inventory::needs::name_major;
    CATALOG.library_component(name) == Some(crate::data::catalog::TENSORRT)
        && name_major(name) != name_major(have)
}

/// A versioned file of `stem` the environment has (for "only has
/// libcudnn.so.9" when a framework dlopens `libcudnn.so`).
fn versioned_copy(f: &Facts, stem: &str) -> Option<String> {
    f.inv.versioned_names(stem).next().map(String::from)
}
