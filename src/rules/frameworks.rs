//! Each framework build against the CUDA runtime and cuDNN the
//! environment holds: another major (different sonames: not found), an
//! older minor ("undefined symbol"), or none at all.

use super::fixes::{for_framework, for_major};
use super::libraries::Libraries;
use super::{Facts, Loaded, finding, sourced};
use crate::data::matrix::{major, major_minor};
use crate::finding::{Code, Fix, Problem, Severity};
use crate::inventory::needs::{Needs, linked_in, needs, older_minor};
use crate::inventory::{Claim, FrameworkBuild, Installer, Stack};

/// The framework rules, over what the library rules found: `missing_stack`
/// names the builds (`package version`) for which they already reported
/// libraries that are nowhere, with the fix that installs them: "no CUDA
/// runtime", "no cuDNN" and "another major" would say the same again, with
/// a second fix. `lacking_major` names those that lack a library of their
/// own CUDA major: for a build with its runtime linked in, only that makes
/// the environment's runtime of another major matter. `loaded` says which
/// copy each build loads: the one its versions are held against.
/// `refused` names the builds and components a start-up check refuses
/// ([`super::start_check`]): that error says more than "older than the
/// build".
pub fn check(f: &Facts, libraries: &Libraries, refused: &[(String, &str)]) -> Vec<Problem> {
    let (missing_stack, lacking_major) = (&libraries.missing_stack, &libraries.lacking_major);
    let loaded = &libraries.loaded;
    let mut findings = Vec::new();
    for fw in &f.inv.frameworks {
        let Some(n) = needs(fw, f.matrix) else {
            continue;
        };
        let name = format!("{} {}", fw.package, fw.version);
        let mut found = Vec::new();
        if let Some(cuda) = &n.cuda {
            let static_runtime = linked_in(fw, f.matrix, "libcudart");
            if !static_runtime || lacking_major.contains(&name) {
                let rt = partner(f, loaded, (Stack::Cuda, fw), major(cuda));
                found.extend(runtime(f, fw, (&n, cuda), rt, static_runtime));
            }
        }
        if n.cudnn.is_some() && !bundled(f, fw, "cudnn") {
            let need = n.cudnn.as_deref().and_then(major);
            let have = partner(f, loaded, (Stack::Cudnn, fw), need);
            found.extend(cudnn(f, fw, &n, have));
        }
        // One finding per cause: the libraries of another major are not
        // found either, and the library rule's fix installs the right ones.
        if missing_stack.contains(&name) {
            found.retain(|p| {
                !matches!(
                    p.code,
                    Code::NoCudaRuntime | Code::NoCudnn | Code::CudaMismatch | Code::CudnnMismatch
                )
            });
        }
        found.retain(|p| {
            !refused.iter().any(|(label, component)| {
                *label == name
                    && matches!(
                        (p.code, *component),
                        (Code::CudaOlderThanBuild, "cudart") | (Code::CudnnOlderThanBuild, "cudnn")
                    )
            })
        });
        // Findings that rest on a matrix row say which.
        findings.extend(found.into_iter().map(|p| match &n.row {
            Some((source, confidence)) => sourced(p, source, *confidence),
            None => p,
        }));
    }
    findings
}

/// The claim a build pairs with, among the copies its import loads (all,
/// where it loads none): the wheel its own pins name (torch's
/// `nvidia-cudnn-cu13`, where TensorFlow's `nvidia-cudnn-cu12` of the same
/// cuDNN major sits beside it), else one of the build's own major when the
/// environment holds several (torch's CUDA 13 and TensorFlow's CUDA 12
/// wheels side by side), else the same installer's, else any.
fn partner<'c>(
    f: &'c Facts,
    loaded: &Loaded,
    (stack, fw): (Stack, &FrameworkBuild),
    want: Option<u32>,
) -> Option<&'c Claim> {
    let claims = f.inv.claims(stack);
    let name = format!("{} {}", fw.package, fw.version);
    // The copies its import loads, where it loads one; among them, as
    // among all, the order below (two wheels can own the file loaded:
    // TensorFlow's cu12 cuDNN wheel written over by torch's cu13).
    let mine: Vec<&Claim> = claims
        .iter()
        .filter(|c| loaded.loads_for(f.inv, stack, c, &name))
        .collect();
    let pool: Vec<&Claim> = if mine.is_empty() {
        claims.iter().collect()
    } else {
        mine
    };
    let installer = fw.installer;
    let pinned = |c: &&Claim| {
        c.installer == Installer::Pip
            && fw
                .pins
                .iter()
                .any(|p| p.name == crate::inventory::pip::normalize(&c.package))
    };
    let same_major = |c: &&Claim| want.is_some() && major(&c.version) == want;
    let pool = || pool.iter().copied();
    pool()
        .filter(same_major)
        .find(pinned)
        .or_else(|| pool().filter(same_major).find(|c| c.installer == installer))
        .or_else(|| pool().find(same_major))
        .or_else(|| pool().find(|c| c.installer == installer))
        .or_else(|| pool().next())
}

/// Whether the framework's own package carries a component (conda builds
/// of PyTorch and TensorFlow bundle cuDNN).
fn bundled(f: &Facts, fw: &FrameworkBuild, component: &str) -> bool {
    f.inv.packages.iter().any(|p| {
        p.name == fw.package
            && p.libraries
                .iter()
                .any(|l| l.component.as_deref() == Some(component))
    }) || (component == "cudnn"
        && fw.installer == Installer::Conda
        && fw.build.evidence.contains("cudnn"))
}

/// "CUDA 11.8 / cuDNN 8.6": what a build was made for, for messages.
fn built(n: &Needs) -> String {
    match (&n.cuda, &n.cudnn) {
        (Some(c), Some(d)) => format!("CUDA {c} / cuDNN {}", major_minor(d)),
        (Some(c), None) => format!("CUDA {c}"),
        _ => "CUDA".into(),
    }
}

/// The CUDA runtime against the build's CUDA. A build with the runtime
/// linked in (CuPy) needs none, but the libraries it loads must still be
/// of its CUDA major.
fn runtime(
    f: &Facts,
    fw: &FrameworkBuild,
    (n, cuda): (&Needs, &str),
    rt: Option<&Claim>,
    static_runtime: bool,
) -> Vec<Problem> {
    let name = format!("{} {}", fw.package, fw.version);
    let fix = || Some(for_framework(f, fw, &["cudart"]));
    let built = built(n);
    match rt {
        None if !bundled(f, fw, "cudart") && !static_runtime => vec![finding(
            Severity::Warning,
            Code::NoCudaRuntime,
            format!(
                "{name} is built for {built}, but the environment has no CUDA runtime: it will load \
                 whatever the system has, if anything"
            ),
            fix(),
        )],
        Some(rt) if major(&rt.version) != major(cuda) => {
            let (want, have) = (major(cuda).unwrap_or(0), major(&rt.version).unwrap_or(0));
            let why = if static_runtime {
                format!(
                    "Its CUDA runtime is linked in, but the libraries it loads must be CUDA {want}'s: \
                     most of CUDA {have}'s have other sonames, and those that share one (cuRAND's \
                     libcurand.so.10, cuSOLVER's libcusolver.so.11) are other builds"
                )
            } else {
                format!(
                    "CUDA {want} and {have} libraries have different sonames, so the framework's are not found"
                )
            };
            vec![finding(
                Severity::Error,
                Code::CudaMismatch,
                format!(
                    "{name} is built for {built}; this environment has CUDA {} ({} {}). {why}",
                    rt.version, rt.package, rt.package_version
                ),
                for_major(f, fw, have).map(Fix::Command).or_else(fix),
            )]
        }
        Some(rt) if older_minor(&rt.version, cuda) => vec![older_runtime(fw, &built, rt, fix)],
        _ => Vec::new(),
    }
}

/// A runtime of an older minor than the build's: a warning (it may lack
/// symbols the build uses), unless the build's own requirement on that
/// runtime's wheel accepts it (onnxruntime-gpu 1.26, built with CUDA 12.8,
/// requires nvidia-cuda-runtime-cu12~=12.0; on 12.4.127 its CUDA
/// provider's 60 libcudart symbols are all defined): then an info, with no
/// fix, since the framework's own pin is what any fix would install.
fn older_runtime(
    fw: &FrameworkBuild,
    built: &str,
    rt: &Claim,
    fix: impl Fn() -> Option<Fix>,
) -> Problem {
    let name = format!("{} {}", fw.package, fw.version);
    // Its requirements, those of its extras too (onnxruntime-gpu[cuda]'s
    // pins the runtime wheel whether or not the extra was asked for).
    let accepted = fw
        .pins
        .iter()
        .chain(&fw.fix_pins)
        .chain(&fw.alt_pins)
        .find(|p| p.name == rt.package && p.allows(&rt.package_version) == Some(true));
    let have = format!(
        "the older CUDA {} ({} {})",
        rt.version, rt.package, rt.package_version
    );
    match accepted {
        Some(pin) => finding(
            Severity::Info,
            Code::CudaOlderThanBuild,
            format!(
                "{name} is built for {built}; this environment has {have}, which its own \
                 requirement {} accepts",
                pin.requirement
            ),
            None,
        ),
        None => finding(
            Severity::Warning,
            Code::CudaOlderThanBuild,
            format!(
                "{name} is built for {built}; this environment has {have}, which may lack symbols \
                 the build uses (\"undefined symbol\")"
            ),
            fix(),
        ),
    }
}

/// The environment's cuDNN against the build's.
/// Whether the build's loading scheme runs without a library (stem).
fn runs_without(f: &Facts, fw: &FrameworkBuild, n: &Needs, stem: &str) -> bool {
    crate::inventory::needs::loading_rows(fw, f.matrix, n.cuda.as_deref())
        .iter()
        .any(|row| row.optional.contains_key(stem))
}

fn cudnn(f: &Facts, fw: &FrameworkBuild, n: &Needs, have: Option<&Claim>) -> Vec<Problem> {
    let Some(need) = n.cudnn.as_deref() else {
        return Vec::new();
    };
    let name = format!("{} {}", fw.package, fw.version);
    let fix = || Some(for_framework(f, fw, &["cudnn"]));
    let built = built(n);
    match have {
        // A build that runs without cuDNN (ONNX Runtime 1.28+): the
        // library rule says which operators fail without it.
        None if runs_without(f, fw, n, "libcudnn") => Vec::new(),
        None => vec![finding(
            Severity::Warning,
            Code::NoCudnn,
            format!(
                "{name} is built for {built}; the environment has no cuDNN, so the system's is used if there \
                 is one"
            ),
            fix(),
        )],
        Some(have) if major(&have.version) != major(need) => vec![finding(
            Severity::Error,
            Code::CudnnMismatch,
            format!(
                "{name} is built for {built}; this environment has cuDNN {} ({}). cuDNN {} and {} are not \
                 interchangeable (libcudnn.so.{} vs libcudnn.so.{})",
                have.version,
                have.package,
                major(need).unwrap_or(0),
                major(&have.version).unwrap_or(0),
                major(need).unwrap_or(0),
                major(&have.version).unwrap_or(0)
            ),
            fix(),
        )],
        // The wheel's own pin below the cuDNN it was compiled with:
        // nothing a fix can change.
        Some(have) if super::compiled::pinned_below(fw).is_some() => {
            super::compiled::info(fw, &have.version)
                .into_iter()
                .collect()
        }
        Some(have) if older_minor(&have.version, need) => vec![finding(
            Severity::Warning,
            Code::CudnnOlderThanBuild,
            format!(
                "{name} is built for {built}; this environment has the older cuDNN {} ({}), which may lack \
                 symbols the build uses",
                have.version, have.package
            ),
            fix(),
        )],
        _ => Vec::new(),
    }
}
