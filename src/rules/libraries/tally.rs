//! The outcomes of every name, gathered per framework and turned into
//! findings: one missing CUDA stack is one finding with one fix, the
//! driver's libraries are the driver's, optional libraries are infos.

use std::path::Path;

use super::Outcome;
use crate::data::catalog::{CATALOG, TENSORRT};
use crate::finding::{Fix, Problem};
use crate::inventory::FrameworkBuild;
use crate::machine::driver::Source;
use crate::rules::Facts;
use crate::rules::libraries::Via;
use findings::{
    dev_links, dev_missing_finding, driver_missing_finding, feature_finding, hook_shadows,
    needs_hook_finding, not_exposed, not_loadable, optional_finding, stub_libcuda,
    system_wins_finding,
};
use major::other_major_finding;
use missing::missing_finding;
use tensorrt::{other_cuda_finding, other_version_finding};

use super::major::Wrong;

mod findings;
mod major;
mod missing;
mod tensorrt;

/// One object's name and what became of it.
#[derive(Debug, Clone)]
struct Seen {
    object: String,
    name: String,
    kind: Via,
    outcome: Outcome,
    /// For a package envhook has no data for: whether its own pins name
    /// the library's component (CuPy's `[ctk]` extra names cuBLAS, not
    /// cuTENSOR, which only `cupyx.cutensor` loads).
    expected: bool,
    /// Whether the package is one envhook has no data for, whose modules
    /// load their libraries only when imported.
    other: bool,
    /// Without it the framework runs on the CPU (the data says so).
    falls_back_to_cpu: bool,
    /// What the framework loses without it, where it runs without it
    /// (ONNX Runtime 1.28+: operators that return NOT_IMPLEMENTED).
    loses: Option<String>,
    /// What fails without it, where the framework needs it for nearly
    /// every operation (CuPy's NVRTC and cuBLAS): never optional.
    required: Option<String>,
    /// What the asking object is only loaded for, when the framework
    /// loads it only on request (ONNX Runtime's TensorRT provider).
    feature: Option<String>,
}

impl Seen {
    /// Loaded only for one feature: an info when missing. A library some
    /// known framework loads by name for one feature (NCCL), or one a
    /// package without data needs in a module its own pins say nothing of,
    /// unless the data says the framework needs it for nearly everything.
    fn optional(&self) -> bool {
        self.required.is_none()
            && (self.feature_only()
                || self.loses.is_some()
                || self.feature.is_some()
                || (self.other && !self.expected))
    }

    /// A TensorRT library asked for a feature: one soname is built for
    /// each CUDA major (`tensorrt-cu12-libs` and `-cu13-libs` both ship
    /// `libnvinfer.so.10`), so the environment's copy of another major is
    /// worth saying, where NCCL's is left to the build's own CUDA check.
    fn tensorrt(&self) -> bool {
        self.optional() && CATALOG.library_component(&self.name) == Some(TENSORRT)
    }

    /// Loaded by name only for one feature (NCCL, CUPTI). One the
    /// framework runs without while some operators fail (ONNX Runtime
    /// 1.28's cuDNN) is optional too, but worth a hook.
    fn feature_only(&self) -> bool {
        self.kind == Via::Dlopen && CATALOG.optional_use(&self.name).is_some()
    }
}

/// What the data says a framework's name costs when it is missing (the
/// `[[dlopen]]` row's `falls_back_to_cpu`, `optional` and `required`).
#[derive(Default)]
pub(super) struct Consequence<'a> {
    /// Without it the framework runs on the CPU.
    pub(super) falls_back_to_cpu: bool,
    /// What the framework loses, where it runs without it.
    pub(super) loses: Option<&'a str>,
    /// What fails, where it needs it for nearly everything.
    pub(super) required: Option<&'a str>,
}

/// The outcomes of every framework, gathered so that findings can be made
/// per framework.
#[derive(Default)]
pub(super) struct Tally {
    by_framework: Vec<(String, Vec<Seen>)>,
}

impl Tally {
    /// The builds that lack a library of their own CUDA major: one
    /// nowhere (other than for an optional feature), or one the
    /// environment has only from another major's wheels.
    pub(super) fn lacking_major(&self) -> Vec<String> {
        self.by_framework
            .iter()
            .filter(|(_, all)| {
                all.iter().any(|s| match s.outcome {
                    // NCCL (one soname in every major) only for several GPUs.
                    Outcome::OtherMajorOnly => CATALOG.optional_use(&s.name).is_none(),
                    Outcome::Missing | Outcome::OtherMajor(_) => !s.optional(),
                    _ => false,
                })
            })
            .map(|(label, _)| label.clone())
            .collect()
    }

    /// The builds with at least one library that is nowhere.
    pub(super) fn missing_stack(&self) -> Vec<String> {
        self.by_framework
            .iter()
            .filter(|(_, all)| {
                all.iter()
                    .any(|s| s.outcome == Outcome::Missing && !s.optional())
            })
            .map(|(label, _)| label.clone())
            .collect()
    }

    pub(super) fn record(
        &mut self,
        fw: &FrameworkBuild,
        object: &Path,
        name: &str,
        kind: Via,
        outcome: Outcome,
        how: Consequence,
    ) {
        let label = format!("{} {}", fw.package, fw.version);
        // The object a package picks for its framework's CUDA
        // (bitsandbytes') is what its import loads: its needs are the
        // package's, as a framework's core library's are.
        let other = fw.framework == crate::data::catalog::Framework::Other
            && CATALOG.picked_library(&fw.package).is_none();
        let expected = !other
            || CATALOG.library_component(name).is_some_and(|c| {
                crate::rules::fixes::pin_for(fw, c).is_some()
                    || crate::rules::fixes::named_by_alternatives(fw, c)
            });
        let file = object
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let seen = Seen {
            feature: CATALOG
                .core_library_use(fw.framework, &file)
                .map(String::from),
            object: file,
            name: name.to_string(),
            kind,
            outcome,
            expected,
            other,
            falls_back_to_cpu: how.falls_back_to_cpu,
            loses: how.loses.map(str::to_string),
            required: how.required.map(str::to_string),
        };
        match self.by_framework.iter_mut().find(|(l, _)| *l == label) {
            Some((_, all)) => all.push(seen),
            None => self.by_framework.push((label, vec![seen])),
        }
    }

    pub(super) fn findings(&self, f: &Facts, installed: bool) -> Vec<Problem> {
        let mut out = Vec::new();
        let fix = crate::rules::fixes::hook_fix(&f.inv.prefix);
        let mut only_with_hook: Vec<String> = Vec::new();
        // The builds that run on the CPU until the hook is there.
        let mut on_cpu: Vec<&str> = Vec::new();
        // The builds that fail nearly every operation until the hook is
        // there (CuPy without NVRTC).
        let mut failing: Vec<&str> = Vec::new();
        let mut driver_missing = Vec::new();
        for (label, all) in &self.by_framework {
            let mut sorted = Sorted::default();
            for s in all {
                match &s.outcome {
                    Outcome::OtherMajorOnly if s.tensorrt() => sorted.other_cuda.push(s),
                    Outcome::Fine | Outcome::OtherMajorOnly => {}
                    Outcome::HookShadows { .. } => sorted.shadows.push(s),
                    Outcome::DriverMissing => {
                        driver_missing.push(format!("{} ({})", s.name, s.object))
                    }
                    // A library loaded by name only for a feature
                    // (profiling) is not worth a hook of its own.
                    Outcome::OnlyWithHook if s.feature_only() => {}
                    Outcome::OnlyWithHook => {
                        only_with_hook.push(s.name.clone());
                        if s.falls_back_to_cpu && !s.optional() && !on_cpu.contains(&label.as_str())
                        {
                            on_cpu.push(label);
                        }
                        if s.required.is_some() && !failing.contains(&label.as_str()) {
                            failing.push(label);
                        }
                    }
                    Outcome::SystemWins { .. } => sorted.system_wins.push(s),
                    Outcome::DevMissing(have) => sorted.dev_missing.push((s, have)),
                    Outcome::OtherMajor(wrong) => sorted.other_major.push((s, wrong)),
                    Outcome::Missing => sorted.missing.push(s),
                    Outcome::Stub(path) => out.push(stub_libcuda(s, path)),
                    Outcome::NotLoadable(copy) => out.push(not_loadable(s, copy)),
                    Outcome::NotExposed(copy) => out.push(not_exposed(s, copy)),
                }
            }
            sorted.findings(f, label, installed, &fix, &mut out);
        }
        if !driver_missing.is_empty() && f.machine.driver.source != Source::None {
            driver_missing.dedup();
            out.push(driver_missing_finding(f, &driver_missing));
        }
        if !only_with_hook.is_empty() && !installed {
            only_with_hook.sort();
            only_with_hook.dedup();
            out.push(needs_hook_finding(
                &only_with_hook,
                (&on_cpu, &failing),
                fix,
            ));
        }
        out
    }
}

/// One framework's names that need a finding made of them together.
#[derive(Default)]
struct Sorted<'a> {
    missing: Vec<&'a Seen>,
    dev_missing: Vec<(&'a Seen, &'a str)>,
    system_wins: Vec<&'a Seen>,
    shadows: Vec<&'a Seen>,
    /// TensorRT libraries the environment has only for another CUDA major.
    other_cuda: Vec<&'a Seen>,
    /// Unversioned names that reach, or can only reach, another major.
    other_major: Vec<(&'a Seen, &'a Wrong)>,
}

impl Sorted<'_> {
    fn findings(self, f: &Facts, label: &str, installed: bool, fix: &Fix, out: &mut Vec<Problem>) {
        // Libraries loaded by name only for one feature (NCCL for
        // several GPUs): their absence is worth knowing, not a warning.
        let (optional, required): (Vec<&Seen>, Vec<&Seen>) =
            self.missing.into_iter().partition(|s| s.optional());
        if !required.is_empty() {
            out.push(missing_finding(f, label, &required));
        }
        // An object loaded on request needs what the others need too: a
        // name they lack is said once, with them.
        let optional = optional
            .into_iter()
            .filter(|s| !required.iter().any(|r| r.name == s.name));
        // What one object loaded on request lacks is one finding.
        let mut by_object: Vec<Vec<&Seen>> = Vec::new();
        for s in optional {
            // TensorRT 8 where the build needs 10: the environment's
            // TensorRT is of another major, not absent.
            let stem = s.name.split(".so").next().unwrap_or(&s.name);
            match f.inv.versioned_names(stem).next() {
                Some(have) if s.tensorrt() => out.push(other_version_finding(f, label, s, have)),
                _ if s.feature.is_some() => {
                    match by_object.iter_mut().find(|g| g[0].object == s.object) {
                        Some(group) => group.push(s),
                        None => by_object.push(vec![s]),
                    }
                }
                _ => out.push(optional_finding(f, label, s)),
            }
        }
        for group in by_object {
            out.push(feature_finding(f, label, &group));
        }
        for s in self.other_cuda {
            out.push(other_cuda_finding(f, label, s));
        }
        if !self.other_major.is_empty() {
            // One command for the build's whole stack: what is missing
            // besides comes from the same major.
            out.push(other_major_finding(f, label, &self.other_major, &required));
        }
        if !self.dev_missing.is_empty() {
            // Without a hook to carry it (a prefix no hook can name),
            // the link beside the versioned file is the fix.
            // The hooks' link directory provides the unversioned names.
            let fix = match f.spec {
                Some(_) => fix.clone(),
                None => Fix::Command(dev_links(f, &self.dev_missing)),
            };
            out.push(dev_missing_finding(label, &self.dev_missing, &fix));
        }
        if !self.shadows.is_empty() {
            out.push(hook_shadows(f, label, &self.shadows));
        }
        if !self.system_wins.is_empty() {
            out.push(system_wins_finding(
                label,
                &self.system_wins,
                installed,
                fix,
            ));
        }
    }
}
