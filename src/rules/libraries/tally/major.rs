//! The finding for unversioned names bound to another major
//! ([`super::super::major`]): one per build, an error, whose fix installs
//! the build's own major (then the hooks, which bind the name to it).

use super::Seen;
use super::findings::{dedup, framework};
use crate::data::catalog::CATALOG;
use crate::finding::{Code, Fix, Problem, Severity};
use crate::inventory::needs::needs;
use crate::rules::Facts;
use crate::rules::libraries::major::Wrong;
use crate::rules::{finding, fixes};

/// `label`'s unversioned names that reach, or can only reach, another
/// major than the build's.
/// Its fix installs what `missing` lacks too: one command for the stack.
pub(super) fn other_major_finding(
    f: &Facts,
    label: &str,
    wrong: &[(&Seen, &Wrong)],
    missing: &[&Seen],
) -> Problem {
    let names: Vec<&str> = dedup(wrong.iter().map(|(s, _)| s.name.as_str()));
    let objects: Vec<&str> = dedup(wrong.iter().map(|(s, _)| s.object.as_str()));
    let wants: Vec<&str> = dedup(wrong.iter().map(|(_, w)| w.want.as_str()));
    let haves: Vec<&str> = dedup(wrong.iter().map(|(_, w)| w.have.as_str()));
    let fw = framework(f, label);
    let built = fw
        .and_then(|fw| needs(fw, f.matrix))
        .map(|n| {
            let mut parts = Vec::new();
            if let Some(c) = n.cuda {
                parts.push(format!("CUDA {c}"));
            }
            if let Some(c) = n.cudnn {
                parts.push(format!("cuDNN {c}"));
            }
            parts.join(" / ")
        })
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| "another major".into());
    let reached: Vec<String> = wrong
        .iter()
        .filter_map(|(_, w)| {
            w.path
                .as_ref()
                .map(|p| format!("{} ({})", p.display(), w.have))
        })
        .collect();
    let reason = if reached.is_empty() {
        format!(
            "this environment has them only as {}, and no link to another major serves it. \
             Expect \"{}: cannot open shared object file\"",
            haves.join(", "),
            names[0]
        )
    } else {
        format!(
            "the loader hands it {}. Expect it to call functions that major changed or no longer \
             exports (\"undefined symbol\", CUDNN_STATUS errors, wrong results)",
            reached.join(", ")
        )
    };
    let all = names
        .iter()
        .copied()
        .chain(missing.iter().map(|s| s.name.as_str()));
    let components: Vec<&str> = dedup(all.filter_map(|n| CATALOG.library_component(n)));
    let fix = match fw.map(|fw| fixes::for_framework(f, fw, &components)) {
        Some(Fix::Command(c)) => Fix::Command(fixes::then_refresh(c, &f.inv.prefix)),
        Some(choose) => choose,
        None => Fix::advice(format!(
            "install {} of the major the framework was built for",
            components.join(", ")
        )),
    };
    finding(
        Severity::Error,
        Code::LibraryOtherMajor,
        format!(
            "{label} ({}) was built for {built} and dlopens {} by name, which must be {}; {reason}",
            objects.join(", "),
            names.join(", "),
            wants.join(", "),
        ),
        Some(fix),
    )
}
