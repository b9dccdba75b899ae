//! States pip produces in which a framework's own Python fails at import
//! on every machine (`[[broken_import]]` rows): the row's release of the
//! distribution, and its condition read in the environment itself (a
//! package directory without `__init__.py`), each an error with the
//! requirement that fixes it.

use super::{Facts, finding};
use crate::finding::{Code, Fix, Problem, Severity};

/// The broken-import rule.
pub fn check(f: &Facts) -> Vec<Problem> {
    let mut out = Vec::new();
    for row in &f.matrix.broken_import {
        let Some(version) = f.inv.distributions.get(&row.distribution) else {
            continue;
        };
        if !row.matches(version) {
            continue;
        }
        let Some(package) = f
            .inv
            .sites
            .iter()
            .map(|site| site.join(&row.package_without_init))
            .find(|dir| dir.is_dir() && !dir.join("__init__.py").exists())
        else {
            continue;
        };
        let command = super::fixes::then_refresh(
            super::fixes::pip_install(&f.inv.prefix, [row.fix.as_str()]),
            &f.inv.prefix,
        );
        let mut p = finding(
            Severity::Error,
            Code::BrokenImport,
            format!(
                "{} {}: {} ({} has no __init__.py). Expect `import {}` to fail on every machine",
                row.distribution,
                version,
                row.what,
                package.display(),
                row.distribution
            ),
            Some(Fix::Command(command)),
        );
        p.source = Some(row.source.clone());
        out.push(p);
    }
    out
}
