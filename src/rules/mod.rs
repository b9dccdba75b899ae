//! The rules: what is wrong with an environment on this machine, each
//! finding saying what, why, and the one command that fixes it.
//!
//! One file per rule family, each a function over the [`Facts`] (the
//! inventory, the machine, the data) returning findings:
//!
//! | file | what it checks |
//! |---|---|
//! | [`driver`] | the NVIDIA driver against every CUDA that must run on it |
//! | [`gpu_arch`] | the GPUs' architectures against the CUDA releases and the framework builds |
//! | [`frameworks`] | each framework build against the CUDA and cuDNN the environment holds |
//! | [`cudnn_cuda`] | cuDNN against the CUDA it is paired with |
//! | [`libraries`] | the loader's view of the frameworks' objects, with and without envhook's hook |
//! | [`pins`] | the frameworks' `Requires-Dist` pins against what is installed |
//! | [`start_check`] | a framework's own start-up check of its libraries' versions (JAX 0.4.17-0.4.25) |
//! | [`hooks`] | the state of envhook's hooks |
//! | [`wheels`] | pip wheels that wrote over each other's files, sonames two CUDA lines provide |
//! | [`extensions`] | extensions built against a framework's own libraries (torchvision) against the release installed |
//!
//! [`crate::inventory::needs`] derives what each framework build needs once, for all rules;
//! [`libraries`] runs each framework's import once, and what it loads ([`Loaded`]) is
//! handed to the rules that judge one copy of a library (`gpu_arch`, `driver`, `cudnn_cuda`,
//! `known_bad`, and `frameworks`' versions): a copy no framework loads is not judged.

pub mod broken_import;
pub mod compiled;
pub mod cudnn_cuda;
pub mod driver;
pub mod extensions;
pub mod fixes;
pub mod for_gpu;
pub mod forward;
pub mod frameworks;
pub mod gpu_arch;
pub mod hooks;
pub mod known_bad;
pub mod libraries;
pub mod pins;
pub mod start_check;
pub mod wheels;

use std::path::PathBuf;

use serde::Serialize;

use crate::activation::spec::{HookSpec, Mode};
use crate::activation::status::{self, HookStatus};
use crate::data::matrix::{self, Matrix};
use crate::discovery::Context;
use crate::finding::{Code, Fix, Problem, Severity};
use crate::inventory::{Claim, FrameworkBuild, Inventory, Stack};
use crate::machine::Machine;
use crate::machine::driver::Driver;

pub use crate::loading::Facts;
pub use libraries::{LibraryCheck, Loaded, Use};

/// Identifies the JSON document of `envhook check --json`.
pub const SCHEMA: &str = "envhook.check/2";

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The environment.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub prefix: PathBuf,
    /// The matrix data version used.
    pub matrix_version: String,
    /// The driver and GPUs.
    pub driver: Driver,
    /// envhook's hooks in the environment.
    pub hook: HookStatus,
    /// The environment's CUDA runtimes.
    pub cuda: Vec<Claim>,
    /// Its cuDNN.
    pub cudnn: Vec<Claim>,
    /// Its framework builds.
    pub frameworks: Vec<FrameworkBuild>,
    /// Library resolution of the frameworks' core objects.
    pub libraries: Vec<LibraryCheck>,
    /// How the dependencies of the CUDA libraries they load resolve.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<libraries::DependencyCheck>,
    /// Everything found, most severe first.
    pub findings: Vec<Problem>,
    /// The files the frameworks' imports load (for `explain`, which
    /// states what the loaded copies need of the machine).
    #[serde(skip)]
    pub loaded: Loaded,
}

impl Report {
    /// Whether the environment needs no hook: it has frameworks envhook
    /// can judge, and every library they ask for, and every dependency
    /// of those, resolves without one (RPATHs into the wheels, preloads)
    /// or not even with one. Such a hook could only shadow (a CUDA 13
    /// cuSPARSE handed to a CUDA 12 framework beside it).
    pub fn hook_not_needed(&self) -> bool {
        // The hook changes nothing for a name when it is found nowhere
        // either way, or without the hook as the very file the hook
        // would give (not a system copy that wins without it).
        let same = |a: &std::path::Path, b: &std::path::Path| {
            a == b || std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
        };
        let fine =
            |with: &Option<crate::machine::resolve::Found>,
             without: &Option<crate::machine::resolve::Found>| match (with, without) {
                (None, _) => true,
                (Some(w), Some(o)) => same(&w.path, &o.path),
                (Some(_), None) => false,
            };
        !self.libraries.is_empty()
            && self
                .libraries
                .iter()
                .flat_map(|l| &l.names)
                .all(|n| fine(&n.with_hook, &n.without_hook))
            && self
                .dependencies
                .iter()
                .all(|d| fine(&d.with_hook, &d.without_hook))
    }
}

/// What the rules judge, owned: one environment's inventory, the data and
/// the machine. `check`, `show` and `explain` each build one and lend it
/// to the rules as [`Facts`].
pub struct Subject {
    /// The environment.
    pub inv: Inventory,
    /// The compatibility data.
    pub matrix: Matrix,
    /// The driver, GPUs and loader cache.
    pub machine: Machine,
}

impl Subject {
    /// The rules' view of it, and the finding when no hook can carry the
    /// prefix ([`facts`]).
    pub fn facts<'a>(&'a self, ctx: &'a Context) -> (Facts<'a>, Option<Problem>) {
        facts(&self.inv, &self.matrix, &self.machine, ctx)
    }

    /// Every rule over it ([`run`]).
    pub fn report(&self, ctx: &Context) -> Report {
        run(&self.inv, &self.matrix, &self.machine, ctx)
    }
}

pub fn finding(severity: Severity, code: Code, message: String, fix: Option<Fix>) -> Problem {
    Problem {
        severity,
        code,
        message,
        fix,
        path: None,
        source: None,
    }
}

/// A finding about one copy of a library, the one `claim` of `stack`
/// stands for: kept where a framework's import loads that copy, or where
/// no framework's import asks for a CUDA library (the user's own programs
/// load the libraries; see [`Loaded`]). A copy no framework loads fails nothing: where a framework
/// loads another file under its name, an info says so (this copy would be
/// taken in that one's place under another search order, or by a program
/// of the user's own); else nothing is said.
pub fn of_copy(
    f: &Facts,
    loaded: &Loaded,
    (stack, claim): (Stack, &Claim),
    p: Problem,
) -> Option<Problem> {
    let instead = match loaded.claim(f.inv, stack, claim) {
        Use::Loaded(_) => return Some(p),
        Use::Unused { instead: None } => return None,
        Use::Unused {
            instead: Some(instead),
        } => instead,
    };
    let dir = instead.file.parent().unwrap_or(std::path::Path::new("/"));
    Some(Problem {
        severity: Severity::Info,
        code: Code::LibraryUnused,
        message: format!(
            "no framework here loads {} {} ({}): {} takes {} from {}. Only a program that \
             loads this copy in its place meets this: {}",
            claim.package,
            claim.package_version,
            claim.installer.label(),
            instead.framework,
            instead.name,
            dir.display(),
            p.message
        ),
        fix: None,
        ..p
    })
}

/// Attach the matrix row a finding rests on, and say so when the row is
/// marked uncertain.
pub fn sourced(mut p: Problem, source: &str, confidence: matrix::Confidence) -> Problem {
    if confidence == matrix::Confidence::Uncertain {
        p.message
            .push_str(" (this rests on a matrix row marked uncertain)");
    }
    p.source = Some(source.to_string());
    p
}

/// The facts every rule reads for one environment, and the finding when
/// the prefix is one no hook can carry. `explain` asks its own questions of
/// the same facts.
pub fn facts<'a>(
    inv: &'a Inventory,
    m: &'a Matrix,
    machine: &'a Machine,
    ctx: &'a Context,
) -> (Facts<'a>, Option<Problem>) {
    let (spec, unsupported) = match HookSpec::from_inventory(inv, Mode::Isolated) {
        Ok(spec) => (spec, None),
        Err(e) => (
            None,
            Some(finding(
                Severity::Warning,
                Code::PrefixUnsupported,
                e.to_string(),
                e.hint().map(Fix::advice),
            )),
        ),
    };
    let facts = Facts {
        inv,
        matrix: m,
        machine,
        ctx,
        spec,
        // The hooks' header is read once: status here, directories below.
        installed: status::installed(&inv.prefix),
    };
    (facts, unsupported)
}

/// Run every rule.
pub fn run(inv: &Inventory, m: &Matrix, machine: &Machine, ctx: &Context) -> Report {
    let (facts, unsupported) = facts(inv, m, machine, ctx);
    report(&facts, unsupported)
}

/// Every rule over `facts`; `unsupported` is [`facts`]'s finding.
pub fn report(facts: &Facts, unsupported: Option<Problem>) -> Report {
    let (inv, m, machine) = (facts.inv, facts.matrix, facts.machine);
    let mut findings: Vec<Problem> = inv.problems.clone();
    findings.extend(unsupported);
    let hook = status::hook_status(&inv.prefix, facts.installed.as_ref(), facts.spec.as_ref());
    // The libraries first: a framework whose CUDA stack is missing gets
    // one finding from them, not a second from the framework rules.
    // What each framework's import loads, settled once: the rules that
    // judge one copy of a library judge the copies loaded.
    let libraries = libraries::check(facts);
    let loaded = &libraries.loaded;
    findings.extend(hooks::check(facts, &hook));
    let gpu = gpu_arch::check(facts, loaded);
    findings.extend(driver::check(facts, gpu_arch::needs_jit(&gpu), loaded));
    findings.extend(gpu);
    // A build its own start-up check refuses is that one error, not a
    // second "older than the build" warning about the same library.
    let refused = start_check::refusals(facts);
    let refused_components: Vec<(String, &str)> = refused
        .iter()
        .flat_map(|r| {
            r.older.iter().map(|o| {
                (
                    format!("{} {}", r.build.package, r.build.version),
                    o.component,
                )
            })
        })
        .collect();
    findings.extend(frameworks::check(facts, &libraries, &refused_components));
    findings.extend(start_check::check(facts, &refused));
    findings.extend(cudnn_cuda::check(facts, loaded));
    findings.extend(known_bad::check(facts, loaded));
    findings.extend(broken_import::check(facts));
    findings.extend(pins::check(facts));
    findings.extend(wheels::check(facts));
    findings.extend(extensions::check(facts));
    findings.extend(libraries.findings);
    findings.sort_by_key(|p| std::cmp::Reverse(p.severity));
    Report {
        schema: SCHEMA,
        prefix: inv.prefix.clone(),
        matrix_version: m.version.clone(),
        driver: machine.driver.clone(),
        hook,
        cuda: inv.cuda.clone(),
        cudnn: inv.cudnn.clone(),
        frameworks: inv.frameworks.clone(),
        libraries: libraries.checks,
        dependencies: libraries.dependencies,
        findings,
        loaded: libraries.loaded,
    }
}
