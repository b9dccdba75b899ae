//! The state of envhook's hooks in the environment.

use super::{Facts, finding};
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
    findings
}
