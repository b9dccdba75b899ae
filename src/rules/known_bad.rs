//! Version combinations NVIDIA's release notes name as broken (the
//! `[[known_bad]]` rows): cuBLAS 12.8-13.1 on Blackwell data-centre GPUs,
//! cuDNN 9.10.0's ABI break, cuDNN before 9.10.1 with cuBLASLt 12.9 on
//! several GPUs. JAX checks them at start-up and refuses to start for two
//! of them; every framework that loads those libraries is exposed to them.

use super::{Facts, finding, sourced};
use crate::data::catalog::Framework;
use crate::data::matrix::{Confidence, KnownBad, major, matches_spec};
use crate::finding::{Fix, Problem, Severity, quoted};
use crate::inventory::needs::needs;
use crate::inventory::{Claim, Installer};

/// The known-bad rule.
pub fn check(f: &Facts) -> Vec<Problem> {
    let mut out = Vec::new();
    for row in &f.matrix.known_bad {
        for claim in claims(f, &row.library) {
            if row.matches(&claim.version) && holds(f, row) {
                out.push(problem(f, row, claim));
            }
        }
    }
    out
}

/// The environment's claims for a component.
fn claims<'a>(f: &'a Facts, library: &str) -> &'a [Claim] {
    match library {
        "cublas" => &f.inv.cublas,
        "cudnn" => &f.inv.cudnn,
        _ => &[],
    }
}

/// The row's other conditions: the GPUs, the other library, how many
/// GPUs, a framework built with another release.
fn holds(f: &Facts, row: &KnownBad) -> bool {
    let gpus = &f.machine.driver.gpus;
    if let Some(cc) = &row.cc
        && !gpus
            .iter()
            .filter_map(|g| g.cc.as_deref())
            .any(|c| matches_spec(cc, c))
    {
        return false;
    }
    if let (Some(lib), Some(versions)) = (&row.with_library, &row.with_versions)
        && !claims(f, lib)
            .iter()
            .any(|c| matches_spec(versions, &c.version))
    {
        return false;
    }
    if row.min_gpus.is_some_and(|n| gpus.len() < n) {
        return false;
    }
    if row.built_with_other {
        // Some framework here was built with a release outside the row's.
        let other = f.inv.frameworks.iter().any(|fw| {
            needs(fw, f.matrix)
                .and_then(|n| n.cudnn)
                .is_some_and(|built| built.contains('.') && !row.matches(&built))
        });
        if !other {
            return false;
        }
    }
    true
}

fn problem(f: &Facts, row: &KnownBad, claim: &Claim) -> Problem {
    let jax = row.jax_refuses
        && f.inv
            .frameworks
            .iter()
            .any(|fw| fw.framework == Framework::Jax);
    let name = match row.library.as_str() {
        "cublas" => "cuBLAS",
        "cudnn" => "cuDNN",
        other => other,
    };
    let p = finding(
        if jax {
            Severity::Error
        } else {
            Severity::Warning
        },
        "known-bad-version",
        format!(
            "{name} {} ({} {}): {}{}",
            claim.version,
            claim.package,
            claim.package_version,
            row.what,
            if jax {
                ". JAX refuses to start with it (\"Unable to use CUDA because of the following issues \
                 with CUDA components\")"
            } else {
                ""
            }
        ),
        Some(fix(f, row, claim, name)),
    );
    sourced(p, &row.source, Confidence::Verified)
}

/// The release that fixes it, as a command where one of the same major
/// exists; where none does (no cuBLAS 12 has the fix), what to move to.
fn fix(f: &Facts, row: &KnownBad, claim: &Claim, name: &str) -> Fix {
    let fixed = row.fixed_in.trim_start_matches(">=");
    if major(fixed) != major(&claim.version) {
        return Fix::advice(format!(
            "no {name} {} release has the fix: it came with {name} {fixed}; use builds for the CUDA \
             that ships it",
            major(&claim.version).unwrap_or_default()
        ));
    }
    let mut end = major(fixed).map_or(String::new(), |m| format!(",<{}", m + 1));
    // On a GPU a newer cuDNN dropped (Volta), the fix stays below it.
    if row.library == "cudnn"
        && let Some(cap) = super::for_gpu::cudnn_fit(f).cap
    {
        end = format!(",{cap}");
    }
    let spec = quoted(&format!("{}{}{end}", claim.package, row.fixed_in));
    Fix::Command(match claim.installer {
        Installer::Pip => format!("{} install {spec}", super::fixes::pip(&f.inv.prefix)),
        Installer::Conda => format!(
            "conda install -p {} -c conda-forge {spec}",
            crate::finding::quoted_path(&f.inv.prefix)
        ),
    })
}
