//! The answer for an undefined symbol of a framework's C++ API
//! (`_ZN2at18TensorIteratorBaseC2Ev`): which distribution in this
//! environment needs it, and from which framework release it is missing.
//! The facts are `check`'s ([`crate::rules::extensions::gaps()`]) and so is
//! the fix: the message and `check` never disagree.

use super::answer::{Answer, Verdict};
use super::clues::Clue;
use crate::data::catalog::{CATALOG, FrameworkAbiRow};
use crate::machine::symbols::demangle;
use crate::rules::{Facts, extensions};

/// The framework whose C++ API a mangled name belongs to.
pub(super) fn owner(name: &str) -> Option<&'static FrameworkAbiRow> {
    CATALOG
        .framework_abis()
        .iter()
        .find(|row| row.owns_symbol(name))
}

pub(super) fn answer(f: &Facts, clue: &Clue, name: &str) -> Answer {
    let Some(abi) = owner(name) else {
        return Answer::blank(clue, Vec::new());
    };
    let readable = demangle(name).map_or_else(|| name.to_string(), |d| format!("{d} ({name})"));
    let framework = f.inv.packages.iter().find(|p| {
        p.role == crate::data::catalog::Role::Framework && abi.distributions.contains(&p.name)
    });
    let here = framework
        .map(|p| {
            vec![format!(
                "{} {} ({})",
                p.name,
                p.version,
                p.installer.label()
            )]
        })
        .unwrap_or_default();
    let mut a = Answer::blank(clue, here);
    let Some(framework) = framework else {
        a.diagnosis = format!(
            "{readable} belongs to {}'s C++ API, and this environment has no {} release: the \
             message came from another environment",
            abi.framework.display_name(),
            abi.distributions[0]
        );
        a.verdict = Verdict::NotHere;
        return a;
    };
    let gaps = extensions::gaps(f);
    if let Some(gap) = gaps.iter().find(|g| g.missing.iter().any(|m| m == name)) {
        let problem = extensions::problem(f, gap);
        a.asked_by = vec![format!(
            "{} {} ({})",
            gap.consumer.name,
            gap.consumer.version,
            gap.objects.join(", ")
        )];
        a.diagnosis = format!("{}.", problem.message);
        a.fix = problem.fix;
        a.verdict = Verdict::Cause;
        return a;
    }
    let lacking: Vec<String> = gaps
        .iter()
        .filter(|g| !g.missing.is_empty())
        .map(|g| format!("{} {}", g.consumer.name, g.consumer.version))
        .collect();
    a.diagnosis = if lacking.is_empty() {
        format!(
            "{readable} belongs to {}'s C++ API; every extension in this environment finds the \
             {} {} symbols it needs, so the message came from another environment, or from an \
             extension loaded from outside it (PYTHONPATH, a build directory)",
            abi.framework.display_name(),
            framework.name,
            framework.version
        )
    } else {
        format!(
            "{readable} belongs to {}'s C++ API; no extension here needs it, but {} lack other \
             symbols of {} {} (see check)",
            abi.framework.display_name(),
            lacking.join(", "),
            framework.name,
            framework.version
        )
    };
    a.verdict = Verdict::NotHere;
    a
}
