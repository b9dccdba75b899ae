//! A message about a library by its name in words ("Unable to load
//! cuDNN. Is it installed?", "CUBLAS_STATUS_NOT_INITIALIZED"): what the
//! environment holds of it, and when it holds none, the framework that
//! needs it and `check`'s fix.

use super::answer::{Answer, Verdict, held};
use super::clues::Clue;
use super::numbers::component_name;
use crate::inventory::LibStatus;
use crate::inventory::needs::needs;
use crate::rules::{Facts, Report, fixes};

/// Answer a component named in words.
pub fn answer(f: &Facts, report: &Report, clue: &Clue, component: &str) -> Answer {
    let what = component_name(component);
    let mut held = held(f, Some(component), what);
    if held.is_empty() {
        held = packaged(f, component, what);
    }
    let mut a = Answer::blank(clue, held);
    if !a.here.is_empty() {
        a.diagnosis = format!(
            "this environment has {what}; the process could not load or use it. The causes \
             envhook checks that are present are listed below; where none is, look at what it \
             cannot see: the failing shell's LD_LIBRARY_PATH, the Python that ran (is it {}/bin/python?), \
             GPU memory another process holds (nvidia-smi)",
            f.inv.prefix.display()
        );
        return a;
    }
    // The framework build that needs it: cuDNN for builds that name one,
    // the other CUDA libraries for every CUDA build.
    let fw = f.inv.frameworks.iter().find(|fw| {
        needs(fw, f.matrix).is_some_and(|n| match component {
            "cudnn" => n.cudnn.is_some(),
            _ => n.cuda.is_some(),
        })
    });
    // check's finding about this component's library (any severity: CUPTI
    // is optional, an info) has the command check gives: explain gives
    // the same.
    let stem = format!("lib{component}");
    if let Some(p) = report
        .findings
        .iter()
        .find(|p| p.fix.is_some() && p.message.contains(&format!("{stem}.so")))
    {
        a.diagnosis = format!("this environment has no {what}: {}", p.message);
        a.verdict = Verdict::Cause;
        a.fix = p.fix.clone();
        return a;
    }
    match fw {
        Some(fw) => {
            a.diagnosis = format!(
                "this environment has no {what}, and {} {} needs it",
                fw.package, fw.version
            );
            a.verdict = Verdict::Cause;
            a.fix = Some(fixes::for_framework(f, fw, &[component]));
        }
        None => {
            a.diagnosis = format!(
                "this environment has no {what}, and no framework build here that envhook reads \
                 needs it: the message came from another environment"
            );
            a.verdict = Verdict::NotHere;
        }
    }
    a
}

/// The packages that carry a usable library of a component the inventory
/// keeps no versions of (cuSPARSE, cuFFT, cuSOLVER, CUPTI): "this
/// environment has no cuSPARSE" would deny the wheel it holds.
fn packaged(f: &Facts, component: &str, what: &str) -> Vec<String> {
    let stem = format!("lib{component}.so");
    f.inv
        .packages
        .iter()
        .filter(|p| p.component.as_deref() == Some(component))
        .filter(|p| {
            p.libraries.iter().any(|l| {
                l.status == LibStatus::Ok
                    && l.path
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(&stem))
            })
        })
        .map(|p| format!("{what} ({} {}, {})", p.name, p.version, p.installer.label()))
        .collect()
}
