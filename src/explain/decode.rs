//! Decoded version numbers ([`super::numbers`]) compared with the
//! environment (#29): which side is older, and the fix `check` gives for
//! the same cause.

use super::answer::{Answer, Verdict, claims, held};
use super::clues::Clue;
use super::numbers::{component_name, older, same};
use crate::data::matrix::{major_minor, version};
use crate::finding::{Code, Fix};
use crate::inventory::FrameworkBuild;
use crate::inventory::needs::needs;
use crate::rules::{Facts, Report, fixes};

/// Answer a decoded version: the process found `component` at `found`,
/// and the framework was built against `built` where the message says.
pub fn answer(
    f: &Facts,
    report: &Report,
    clue: &Clue,
    component: &str,
    found: &str,
    built: Option<&str>,
) -> Answer {
    if component == "driver" {
        return driver(f, report, clue, found, built.is_some());
    }
    let what = component_name(component);
    let mut a = Answer::blank(clue, held(f, Some(component), what));
    let Some(built) = built else {
        a.diagnosis = format!("the process loaded {what} {found}");
        if component == "nccl" {
            nccl(f, report, &mut a, found);
        }
        return a;
    };
    // The build's own start-up check refuses it here: check's error, with
    // check's fix.
    if let Some((diagnosis, fix)) = refused(f, component, built) {
        (a.diagnosis, a.verdict, a.fix) = (diagnosis, Verdict::Cause, Some(fix));
        return a;
    }
    if let Some((diagnosis, verdict)) = settled(f, report, component, (found, built)) {
        (a.diagnosis, a.verdict) = (diagnosis, verdict);
        return a;
    }
    if !older(found, built) {
        a.diagnosis = format!(
            "the process loaded {what} {found}, which is not older than the {built} the build was \
             made with: the check that failed is about the minor or the patch level"
        );
        return a;
    }
    a.diagnosis = format!(
        "the process loaded {what} {found}; the framework was built against {what} {built}: the \
         loaded {what} is older."
    );
    let here: Vec<&str> = claims(f, component)
        .iter()
        .map(|c| c.version.as_str())
        .collect();
    let fw = built_with(f, component);
    let fix = || fw.map(|fw| fixes::for_framework(f, fw, &[component]));
    if let Some(old) = here.iter().find(|v| older(v, built)) {
        a.diagnosis.push_str(&format!(
            " This environment's {what} is {old}, older than the build's: it is the copy loaded."
        ));
        a.verdict = Verdict::Cause;
        a.fix = fix();
    } else if here.is_empty() {
        a.diagnosis.push_str(&format!(
            " This environment has no {what}, so the process loaded one from outside it (a system \
             {what} on the loader's path)."
        ));
        a.verdict = Verdict::Cause;
        a.fix = fix();
    } else {
        let (which, verdict) = another_copy(
            report,
            "an LD_LIBRARY_PATH pointing at an older one, or another environment's",
        );
        a.diagnosis.push_str(&format!(
            " This environment's {what} ({}) is new enough, so the process loaded another copy: \
             {which}",
            here.join(", ")
        ));
        a.verdict = verdict;
    }
    a
}

/// What is said before the versions are compared: the message names a
/// build no build here was made with (it came from another environment),
/// or a wheel pinned below the cuDNN it was compiled with (Paddle 3.x
/// cu126), which warns at every start and runs, as check's info says; no
/// fix to the pin or past it changes anything worth changing.
fn settled(
    f: &Facts,
    report: &Report,
    component: &str,
    (found, built): (&str, &str),
) -> Option<(String, Verdict)> {
    let what = component_name(component);
    if let Some(other) = not_this_build(f, component, built) {
        return Some((
            format!(
                "the message names a build made with {what} {built}; {other}: it came from \
                 another environment or another installation"
            ),
            Verdict::NotHere,
        ));
    }
    let p = report
        .findings
        .iter()
        .find(|p| component == "cudnn" && p.code == Code::CudnnPinBelowBuild)?;
    Some((
        format!(
            "a start-up warning, not an error: the process loaded {what} {found}, older than the \
             {built} the framework was compiled with, because its own wheel pins it. {}",
            p.message
        ),
        Verdict::Cause,
    ))
}

/// The message names a build here that its own start-up check refuses for
/// `component` (JAX 0.4.17-0.4.25's "Found CUDA version 12010, but JAX was
/// built against version 12020"): what check says of it, and check's fix.
fn refused(f: &Facts, component: &str, built: &str) -> Option<(String, Fix)> {
    use crate::data::matrix::leading;
    use crate::rules::start_check;
    let refusals = start_check::refusals(f);
    let r = refusals.iter().find(|r| {
        r.older.iter().any(|o| {
            o.component == component && leading(&o.built, o.parts) == leading(built, o.parts)
        })
    })?;
    let o = r.older.iter().find(|o| o.component == component)?;
    let what = component_name(component);
    Some((
        format!(
            "{} {} was built against {what} {}; this environment's is {} ({} {}), which {} refuses \
             when its CUDA backend starts: {}",
            r.build.package,
            r.build.version,
            leading(&o.built, o.parts),
            o.have,
            o.package,
            o.package_version,
            r.checker,
            r.row.refuses
        ),
        start_check::fix(f, &r.older),
    ))
}

/// Which other copy a process loaded, where the environment's is not the
/// one in the message: the system's when check finds it winning the
/// loader's search (the cause, below), else `elsewhere` (not here).
fn another_copy(report: &Report, elsewhere: &'static str) -> (&'static str, Verdict) {
    if report
        .findings
        .iter()
        .any(|p| p.code == Code::SystemLibraryWins)
    {
        (
            "the system's, which wins the loader's search here (system-library-wins below)",
            Verdict::Cause,
        )
    } else {
        (elsewhere, Verdict::NotHere)
    }
}

/// Where every build here whose own build file records its `component`
/// (cuDNN, the CUDA runtime) records another version than `built` (to the
/// precision both give): which builds, and with what. `None` where one
/// matches or none records it; pins and the data's rows say what a build
/// accepts, not what it was made with, so they are not asked.
fn not_this_build(f: &Facts, component: &str, built: &str) -> Option<String> {
    use crate::inventory::builds::Variant;
    let recorded: Vec<(String, &str)> = f
        .inv
        .frameworks
        .iter()
        .filter_map(|fw| {
            let Variant::Cuda { cuda, cudnn } = &fw.build.variant else {
                return None;
            };
            let v = match component {
                "cudnn" => cudnn.as_deref()?,
                "cudart" => cuda.as_deref()?,
                _ => return None,
            };
            Some((
                format!("{} {} was built with {v}", fw.package, fw.version),
                v,
            ))
        })
        .collect();
    let same = |v: &str| match v.contains('.') && built.contains('.') {
        true => major_minor(v) == major_minor(built),
        false => crate::data::matrix::major(v) == crate::data::matrix::major(built),
    };
    let lines: Vec<String> = recorded.iter().map(|(l, _)| l.clone()).collect();
    (!recorded.is_empty() && !recorded.iter().any(|(_, v)| same(v))).then(|| lines.join(", "))
}

/// The framework here whose build names a version of `component`.
fn built_with<'a>(f: &Facts<'a>, component: &str) -> Option<&'a FrameworkBuild> {
    let builds = || {
        f.inv
            .frameworks
            .iter()
            .filter_map(|fw| Some((fw, needs(fw, f.matrix)?)))
    };
    builds()
        .find(|(_, n)| match component {
            "cudnn" => n.cudnn.is_some(),
            _ => n.cuda.is_some(),
        })
        .or_else(|| builds().next())
        .map(|(fw, _)| fw)
}

/// torch's "found version 12020": the CUDA the driver supports, against
/// the CUDA the environment's framework builds need. `compared` is a
/// message that states the build's CUDA beside the driver's: a start-up
/// comparison (Paddle's warning), which under minor version compatibility
/// runs, as check's driver-older-than-cuda says; torch's states only the
/// driver's, and is the failure itself.
fn driver(f: &Facts, report: &Report, clue: &Clue, found: &str, compared: bool) -> Answer {
    let mut a = Answer::blank(clue, Vec::new());
    let built: Vec<(String, String)> = f
        .inv
        .frameworks
        .iter()
        .filter_map(|fw| {
            let cuda = needs(fw, f.matrix)?.cuda?;
            Some((format!("{} {}", fw.package, fw.version), cuda))
        })
        .collect();
    a.here = built
        .iter()
        .map(|(fw, cuda)| format!("{fw}, built for CUDA {cuda}"))
        .collect();
    a.diagnosis = format!("the driver that printed this supports CUDA {found} at most");
    if let Some(max) = f.machine.driver.max_cuda.as_deref()
        && !same(max, found)
    {
        a.diagnosis.push_str(&format!(
            " (the driver envhook sees here supports CUDA {max}: the message came from another \
             machine, or the --driver-version given is not that machine's)"
        ));
    }
    let newer: Vec<&(String, String)> = built.iter().filter(|(_, c)| older(found, c)).collect();
    if let Some((fw, cuda)) = newer.first() {
        a.diagnosis.push_str(&format!(
            "; {fw} is built for CUDA {cuda}: the driver is older than the build."
        ));
        a.verdict = Verdict::Cause;
        // check's driver-too-old fix where the driver here printed it (its
        // command installs the build this driver runs); else check's
        // words for the driver the message names.
        let here = f
            .machine
            .driver
            .max_cuda
            .as_deref()
            .is_some_and(|max| same(max, found));
        let checked = report.findings.iter().find(|p| {
            here && (p.code == Code::DriverTooOld
                || compared && p.code == Code::DriverOlderThanCuda)
                && p.message.starts_with(&format!("the {fw} build"))
        });
        // A driver of the build's major runs it through minor version
        // compatibility (Paddle warns, and runs): check's words for it.
        if let Some(p) = checked.filter(|p| p.code == Code::DriverOlderThanCuda) {
            a.diagnosis.push_str(&format!(
                " check: {}[{}]: {}",
                p.severity.label(),
                p.code,
                p.message
            ));
        }
        a.fix = checked.and_then(|p| p.fix.clone()).or_else(|| {
            Some(Fix::advice(format!(
                "upgrade the NVIDIA driver, or use a build made with {}",
                crate::rules::driver::builds_it_runs(f.matrix, None, Some(found), cuda)?
            )))
        });
    } else if built.is_empty() {
        a.diagnosis.push_str(
            "; envhook knows no framework build here that says its CUDA, so it cannot compare",
        );
    } else {
        a.diagnosis.push_str(
            "; every framework build here needs that or older: the message came from another \
             environment, whose build is newer",
        );
        a.verdict = Verdict::NotHere;
    }
    a
}

/// torch's ", NCCL version X.Y.Z": the NCCL the process loaded, against
/// the environment's. Another release means another copy won the loader's
/// search; the same one means the error is NCCL's own, which its debug log
/// names.
fn nccl(f: &Facts, report: &Report, a: &mut Answer, found: &str) {
    let here: Vec<&str> = claims(f, "nccl")
        .iter()
        .map(|c| c.version.as_str())
        .collect();
    let same = |v: &&str| version(&major_minor(v)) == version(&major_minor(found));
    if here.is_empty() {
        a.diagnosis.push_str(
            "; this environment has no NCCL package: the framework's own (linked in) or one \
             from outside the environment",
        );
    } else if here.iter().any(same) {
        a.diagnosis.push_str(&format!(
            ", this environment's ({}): the error is NCCL's own, and its debug log names the \
             failing call",
            here.join(", ")
        ));
        a.fix = Some(Fix::Choose {
            advice: "rerun with NCCL's debug log, which names the failing call".to_string(),
            commands: vec![crate::finding::Cmd::new("export NCCL_DEBUG=INFO")],
        });
    } else {
        let (which, verdict) = another_copy(
            report,
            "an LD_LIBRARY_PATH naming another libnccl.so.2, or another environment's",
        );
        a.diagnosis.push_str(&format!(
            "; this environment's NCCL is {}: the process loaded another copy ({which})",
            here.join(", ")
        ));
        a.verdict = verdict;
    }
}
