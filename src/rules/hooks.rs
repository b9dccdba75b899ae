//! The state of the environment's `LD_LIBRARY_PATH` hooks: envhook's (stale
//! or not), and the others, hand-written scripts and conda's own
//! environment variables, checked for the known bugs.

use super::{Facts, finding};
use crate::activation::foreign;
use crate::activation::status::HookStatus;
use crate::report::{Problem, Severity};

/// The hook rules: hooks written for other packages.
pub fn check(f: &Facts, hook: &HookStatus) -> Vec<Problem> {
    let mut findings = Vec::new();
    if let HookStatus::Stale { installed, current } = hook {
        findings.push(finding(
            Severity::Warning,
            "stale-hook",
            format!(
                "envhook's hooks were written for other packages (fingerprint {installed}, now {current}), \
                 so they may expose libraries that are gone or miss new ones"
            ),
            Some(format!("refresh them: envhook install -p {}", f.inv.prefix.display())),
        ));
    }
    let foreign = foreign::scan(&f.inv.prefix);
    findings.extend(
        foreign
            .iter()
            .filter_map(|h| foreign::problem(h, &foreign, &f.inv.prefix)),
    );
    findings
}
