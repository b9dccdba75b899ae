//! The state of the environment's `LD_LIBRARY_PATH` hooks: envhook's (stale
//! or not; and the Jupyter kernelspecs it set the path in, rewritten since
//! without it), and the others, hand-written scripts and conda's own
//! environment variables, checked for the known bugs.
//!
//! It reads `activation`, the floor below, rather than judging on its own:
//! what activation wrote is judged by activation's status rule and
//! sentences (the same ones the hooks print), and a copy of that rule here
//! would let the two disagree.

use super::{Facts, finding};
use crate::activation::foreign;
use crate::activation::kernelspec;
use crate::activation::shell::messages;
use crate::activation::status::HookStatus;
use crate::activation::takeover;
use crate::finding::{Code, Fix, Problem, Severity};

/// The hook rules: hooks written for other packages.
pub fn check(f: &Facts, hook: &HookStatus) -> Vec<Problem> {
    let mut findings = Vec::new();
    // The same sentences the hooks print on activation (without their
    // `envhook: `), so activation, check and audit say one thing.
    match hook {
        // The message is the hooks' own sentence; the fix, the command
        // it names.
        HookStatus::Stale { .. } => findings.push(finding(
            Severity::Warning,
            Code::StaleHook,
            messages::stale_message(&f.inv.prefix)
                .trim_start_matches("envhook: ")
                .to_string(),
            Some(Fix::Command(super::fixes::refresh(&f.inv.prefix))),
        )),
        HookStatus::Moved { from, to } => findings.push(finding(
            Severity::Warning,
            Code::MovedHooks,
            messages::moved_message(to, from)
                .trim_start_matches("envhook: ")
                .to_string(),
            Some(Fix::Command(super::fixes::refresh(to))),
        )),
        _ => {}
    }
    findings.extend(kernelspec::rewritten(&f.inv.prefix).into_iter().map(|path| {
        let mut p = finding(
            Severity::Warning,
            Code::KernelspecWithoutPath,
            format!(
                "{} was rewritten without the LD_LIBRARY_PATH envhook set in its env: kernels \
                 started from it do not get the environment's CUDA libraries",
                path.display()
            ),
            Some(Fix::Command(super::fixes::refresh(&f.inv.prefix))),
        );
        p.path = Some(path);
        p
    }));
    let foreign = foreign::scan(&f.inv.prefix);
    findings.extend(
        foreign
            .iter()
            .filter_map(|h| takeover::problem(h, &foreign, &f.inv.prefix)),
    );
    findings
}
