//! Version combinations NVIDIA's release notes name as broken (the
//! `[[known_bad]]` rows): cuBLAS 12.8-13.1 on Blackwell data-centre GPUs,
//! cuDNN 9.10.0's ABI break, cuDNN before 9.10.1 with cuBLASLt 12.9 on
//! several GPUs. JAX checks them at start-up and refuses to start for two
//! of them; every framework that loads those libraries is exposed to them,
//! and only those: a release is judged where a framework loads it.

use super::{Facts, Loaded, Use, finding, of_copy, sourced};
use crate::data::catalog::Framework;
use crate::data::matrix::{Confidence, KnownBad, major, matches_spec};
use crate::finding::{Code, Fix, Problem, Severity};
use crate::inventory::needs::needs;
use crate::inventory::{Claim, FrameworkBuild, Stack};

/// The known-bad rule.
pub fn check(f: &Facts, loaded: &Loaded) -> Vec<Problem> {
    let mut out = Vec::new();
    for row in &f.matrix.known_bad {
        let Some(stack) = stack(&row.library) else {
            continue;
        };
        for claim in f.inv.claims(stack) {
            // The frameworks that load this copy (all, where none loads
            // anything: the user's own programs); where none does, the
            // finding is judged as of all, for the note that says so.
            let taken = loaded.claim(f.inv, stack, claim);
            let by = |fw: &FrameworkBuild| match &taken {
                Use::Loaded(by) if !by.is_empty() => by.contains(&label(fw).as_str()),
                _ => true,
            };
            if row.matches(&claim.version) && holds(f, loaded, row, &by) {
                let p = problem(f, row, claim, &by);
                out.extend(of_copy(f, loaded, (stack, claim), p));
            }
        }
    }
    out
}

/// The claim list of a row's component.
fn stack(library: &str) -> Option<Stack> {
    match library {
        "cublas" => Some(Stack::Cublas),
        "cudnn" => Some(Stack::Cudnn),
        _ => None,
    }
}

/// `package version`, as the loaded files name a build.
fn label(fw: &FrameworkBuild) -> String {
    format!("{} {}", fw.package, fw.version)
}

/// The row's other conditions: the GPUs, the other library (a copy that
/// is loaded), how many GPUs, a framework that loads this copy built with
/// another release (`by`).
fn holds(f: &Facts, loaded: &Loaded, row: &KnownBad, by: &dyn Fn(&FrameworkBuild) -> bool) -> bool {
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
        && !stack(lib).is_some_and(|s| {
            f.inv
                .claims(s)
                .iter()
                .any(|c| matches_spec(versions, &c.version) && loaded.loads(f.inv, s, c))
        })
    {
        return false;
    }
    if row.min_gpus.is_some_and(|n| gpus.len() < n) {
        return false;
    }
    if row.built_with_other {
        // Some framework here was built with a release outside the row's.
        let other = f.inv.frameworks.iter().filter(|fw| by(fw)).any(|fw| {
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

/// The finding; an error where a JAX that loads the copy refuses it.
fn problem(
    f: &Facts,
    row: &KnownBad,
    claim: &Claim,
    by: &dyn Fn(&FrameworkBuild) -> bool,
) -> Problem {
    let jax = row.jax_refuses
        && f.inv
            .frameworks
            .iter()
            .any(|fw| fw.framework == Framework::Jax && by(fw));
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
        Code::KnownBadVersion,
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
    let spec = format!("{}{}{end}", claim.package, row.fixed_in);
    Fix::Command(super::fixes::install_with(
        claim.installer,
        &f.inv.prefix,
        spec,
    ))
}
