//! The finding for libraries a framework loads that are nowhere
//! (`library-not-found`): its severity, its message, and the one fix (the
//! build for the environment's CUDA major, the variable that picked
//! another object, or what installs the stack).

use super::Seen;
use super::findings::{dedup, framework};
use crate::data::catalog::CATALOG;
use crate::data::matrix::major;
use crate::finding::{Cmd, Code, Fix, Problem, Severity};
use crate::inventory::needs::needs;
use crate::rules::Facts;
use crate::rules::libraries::Via;

/// A library needed at load time breaks the import; cuDNN and cuBLAS are
/// loaded at once; without any of some frameworks' libraries they run on
/// the CPU; one the data says the framework needs for nearly everything
/// (CuPy's NVRTC) leaves it nothing to run: an error. The rest fail only
/// when an operation needs them (curand for random numbers, nccl for
/// several GPUs): a warning.
fn missing_severity(missing: &[&Seen], names: &[&str]) -> Severity {
    let error = missing.iter().any(|s| {
        s.kind == Via::Needed
            || s.kind == Via::Dependency
            || s.falls_back_to_cpu
            || s.required.is_some()
    }) || names
        .iter()
        // Without its CUDA runtime nothing of a framework runs
        // (numba-cuda 0.30.4 fails at `from numba import cuda`).
        .any(|n| {
            n.starts_with("libcudnn.so")
                || n.starts_with("libcublas.so")
                || n.starts_with("libcudart.so")
        });
    if error {
        Severity::Error
    } else {
        Severity::Warning
    }
}

/// One finding for every library a framework loads that is nowhere, with
/// the one command that installs the stack they belong to.
pub(super) fn missing_finding(f: &Facts, label: &str, missing: &[&Seen]) -> Problem {
    let names: Vec<&str> = dedup(missing.iter().map(|s| s.name.as_str()));
    let objects: Vec<&str> = dedup(missing.iter().map(|s| s.object.as_str()));
    let any_needed = missing
        .iter()
        .any(|s| s.kind == Via::Needed || s.kind == Via::Dependency);
    let on_cpu = missing.iter().any(|s| s.falls_back_to_cpu);
    let severity = missing_severity(missing, &names);
    let fw = framework(f, label);
    let components: Vec<&str> = dedup(names.iter().filter_map(|n| CATALOG.library_component(n)));
    let framework_fix = || fw.map(|fw| crate::rules::fixes::for_framework(f, fw, &components));
    let hint = match fw.and_then(|fw| override_fix(f, fw)) {
        Some(fix) => fix,
        None => rebuilt_or(
            f,
            fw.and_then(|fw| rebuilt(f, fw)),
            framework_fix,
            &components,
        ),
    };
    let first = names.first().copied().unwrap_or("the library");
    Problem {
        severity,
        code: Code::LibraryNotFound,
        message: format!(
            "{label} ({}) {} {}, which {} in this environment nor on the system. Expect \"{first}: cannot \
             open shared object file\"",
            objects.join(", "),
            if any_needed {
                "needs"
            } else if missing.iter().all(|s| s.kind == Via::Pathfinder) {
                "loads through cuda-pathfinder"
            } else {
                "loads by name"
            },
            names.join(", "),
            if names.len() == 1 {
                "is not"
            } else {
                "are not"
            }
        ) + if on_cpu {
            "; without them it runs on the CPU"
        } else {
            ""
        } + &required_costs(missing),
        fix: Some(hint),
        path: None,
        source: None,
    }
}

/// What fails without the missing libraries a framework needs for nearly
/// everything, in the data's words: "; without libnvrtc.so.11.2 every
/// kernel fails: ...".
fn required_costs(missing: &[&Seen]) -> String {
    let mut said: Vec<&str> = Vec::new();
    let mut out = String::new();
    for s in missing {
        let Some(what) = s.required.as_deref() else {
            continue;
        };
        if said.contains(&s.name.as_str()) {
            continue;
        }
        said.push(&s.name);
        out += &format!(
            "{} without {} {what}",
            if out.is_empty() { ";" } else { "; and" },
            s.name
        );
    }
    out
}

/// For a build named for another CUDA major than the environment's
/// runtime (cupy-cuda11x beside torch's CUDA 12 wheels), the same release
/// built for this major, as cuda-mismatch's fix: the other major's
/// libraries installed beside would share sonames with this one's
/// (libcurand.so.10 is both CUDA 11's and 12's). Ends with the hooks'
/// refresh.
pub(super) fn rebuilt(f: &Facts, fw: &crate::inventory::FrameworkBuild) -> Option<Cmd> {
    let have = f.inv.cuda.first().and_then(|rt| major(&rt.version))?;
    let built = needs(fw, f.matrix).and_then(|n| n.cuda)?;
    if major(&built) == Some(have) {
        return None;
    }
    crate::rules::fixes::for_major(f, fw, have)
}

/// The fix for libraries a build loads that are nowhere: its replacement
/// for the environment's CUDA major (`rebuilt`), else what installs them.
/// The fix is the whole sequence: what it installs changes the library
/// set, so the hooks are written (or refreshed) after it; they also
/// provide the unversioned names that come only from -dev packages.
fn rebuilt_or(
    f: &Facts,
    rebuilt: Option<Cmd>,
    framework_fix: impl FnOnce() -> Option<Fix>,
    components: &[&str],
) -> Fix {
    let refresh = crate::rules::fixes::refresh(&f.inv.prefix);
    let rebuilt_fix = rebuilt.is_some();
    match rebuilt.map(Fix::Command).or_else(framework_fix) {
        // for_major's command ends with the hooks' refresh already.
        Some(fix) if rebuilt_fix => fix,
        Some(Fix::Command(c)) => Fix::Command(crate::rules::fixes::then_refresh(c, &f.inv.prefix)),
        Some(choose) => choose,
        None if crate::discovery::is_venv(&f.inv.prefix) => Fix::advice(format!(
            "install {} for the CUDA the framework was built for",
            components.join(", ")
        )),
        None => Fix::Choose {
            advice: format!(
                "install {} for the CUDA the framework was built for, then write the hooks",
                components.join(", ")
            ),
            commands: vec![refresh],
        },
    }
}

/// Where the process picks another object than the framework's CUDA's
/// through the distribution's variable (`BNB_CUDA_VERSION=118` under a
/// torch for CUDA 12.4): the variable is the cause, and unsetting it (the
/// distribution's own advice) is the fix.
fn override_fix(f: &Facts, fw: &crate::inventory::FrameworkBuild) -> Option<Fix> {
    let (var, digits) = crate::rules::libraries::objects::overridden(f, fw)?;
    let row = CATALOG.picked_library(&fw.package)?;
    Some(Fix::Choose {
        advice: format!(
            "{var}={digits} makes {} load {} instead of the object for its framework's CUDA: \
             unset it, or install the libraries of the CUDA it names",
            fw.package,
            row.files_with(digits).join(" or ")
        ),
        commands: vec![Cmd::new("unset").raw(var)],
    })
}
