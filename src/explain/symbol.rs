//! The answer for an undefined symbol: which library exports it, and
//! whether the environment's copy does (a symbol that names its release,
//! `__nvJitLinkComplete_12_4`, is read by `versioned`).

use super::answer::{Answer, Verdict, claims, held};
use super::clues::{Clue, symbol_fact};
use super::numbers::component_name;
use crate::data::matrix::version;
use crate::finding::Code;
use crate::inventory::Claim;
use crate::rules::{Facts, Report, fixes};

/// An answer from what a symbol that names its release means here.
fn versioned(mut a: Answer, r: super::versioned::Reading) -> Answer {
    a.here = r.here;
    a.diagnosis = r.diagnosis;
    a.fix = r.fix;
    a.verdict = match r.cause {
        Some(true) => Verdict::Cause,
        Some(false) => Verdict::NotHere,
        None => Verdict::CannotTell,
    };
    a
}

pub(super) fn answer(
    f: &Facts,
    report: &Report,
    clue: &Clue,
    name: &str,
    component: Option<&str>,
) -> Answer {
    let what = component.map_or("a library envhook does not know".to_string(), |c| {
        component_name(c).to_string()
    });
    let mut a = Answer::blank(clue, held(f, component, &what));
    if component == Some("nvjitlink")
        && let Some(need) = super::versioned::release_in_name(name)
    {
        return versioned(a, super::versioned::nvjitlink(f, report, name, &need));
    }
    let Some(fact) = symbol_fact(name) else {
        a.diagnosis = format!(
            "{name} belongs to {what}; the copy the process loaded lacks it: another version than the \
             caller was built against"
        );
        return a;
    };
    let exporting = |v: &str| {
        let spec = rattler_conda_version::VersionSpec::from_str(
            &fact.exported_by,
            rattler_conda_version::ParseStrictness::Lenient,
        );
        matches!((spec, version(v)), (Ok(s), Some(v)) if s.matches(&v))
    };
    let claims_here = component.map(|c| claims(f, c)).unwrap_or_default();
    let lacking: Vec<&Claim> = claims_here
        .iter()
        .filter(|c| !exporting(&c.version))
        .collect();
    a.diagnosis = format!("{name}: {}.", fact.note);
    if !lacking.is_empty() {
        a.diagnosis.push_str(&format!(
            " This environment's {what} {} lacks it.",
            lacking
                .iter()
                .map(|c| c.version.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        a.verdict = Verdict::Cause;
        a.fix = f
            .inv
            .frameworks
            .first()
            .map(|fw| fixes::for_framework(f, fw, &[fact.lib.as_str()]));
    } else if !claims_here.is_empty() {
        let versions = claims_here
            .iter()
            .map(|c| c.version.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let shadowed = report
            .findings
            .iter()
            .any(|p| p.code == Code::SystemLibraryWins);
        a.diagnosis.push_str(&format!(
            " This environment's {what} ({versions}) exports it, so the process loaded another \
             copy: {}",
            if shadowed {
                "the system's, which wins the loader's search here (system-library-wins below)"
            } else {
                "an LD_LIBRARY_PATH (or a framework setting such as Paddle's FLAGS_cudnn_dir) \
                 pointing at another one, or another environment's"
            }
        ));
        a.verdict = if shadowed {
            Verdict::Cause
        } else {
            Verdict::NotHere
        };
    }
    a
}
