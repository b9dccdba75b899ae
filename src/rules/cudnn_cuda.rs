//! cuDNN against the CUDA runtime it is paired with.

use super::{Facts, finding, sourced};
use crate::data::matrix::{Matrix, major};
use crate::finding::{Fix, Problem, Severity, quoted};
use crate::inventory::needs::{needs, preferred};
use crate::inventory::pip::normalize;
use crate::inventory::{Claim, Inventory};

/// The cuDNN/CUDA pairing rules.
pub fn check(f: &Facts) -> Vec<Problem> {
    let mut findings = Vec::new();
    check_cudnn_cuda(f, &mut findings);
    findings
}

/// Whether a framework of the environment asks for this cuDNN's soname
/// (`libcudnn.so.9` for any 9.x): a cuDNN nothing loads pairs with nothing.
/// Without a framework envhook knows, the user's own code may load it.
fn asked_for(f: &Facts, cudnn: &Claim) -> bool {
    let have = major(&cudnn.version);
    f.inv.frameworks.is_empty()
        || f.inv.frameworks.iter().any(|fw| {
            needs(fw, f.matrix)
                .and_then(|n| n.cudnn)
                .is_none_or(|want| major(&want) == have)
        })
}

/// Whether one framework pins both this cuDNN and this CUDA runtime, at
/// the versions installed.
fn pinned_together(inv: &Inventory, cudnn: &Claim, cuda: &Claim) -> bool {
    let holds = |pin: &crate::inventory::pins::Pin, claim: &Claim| {
        normalize(&claim.package) == pin.name && pin.allows(&claim.package_version) == Some(true)
    };
    inv.frameworks
        .iter()
        .any(|fw| fw.pins.iter().any(|p| holds(p, cudnn)) && fw.pins.iter().any(|p| holds(p, cuda)))
}

fn check_cudnn_cuda(f: &Facts, findings: &mut Vec<Problem>) {
    let (inv, m): (&Inventory, &Matrix) = (f.inv, f.matrix);
    for d in &inv.cudnn {
        // pip wheels say their CUDA major in the name; a runtime of that
        // major is its partner when the environment holds several.
        let pkg = inv
            .packages
            .iter()
            .find(|p| p.name == d.package && p.installer == d.installer);
        let want = pkg.and_then(|p| p.cuda_major);
        let Some(rt) = want
            .and_then(|w| inv.cuda.iter().find(|c| major(&c.version) == Some(w)))
            .or_else(|| preferred(&inv.cuda, d.installer))
        else {
            continue;
        };
        // Only what is loaded is judged: a cu12 cuDNN 9 beside a CUDA 11
        // build that loads libcudnn.so.8 is nobody's partner.
        if !asked_for(f, d) {
            continue;
        }
        if let Some(want) = want
            && Some(want) != major(&rt.version)
        {
            findings.push(finding(
                Severity::Error,
                "cudnn-cuda-mismatch",
                format!(
                    "{} {} is the CUDA {want} build of cuDNN; the environment's CUDA is {} ({})",
                    d.package, d.version, rt.version, rt.package
                ),
                Some(Fix::Command(rebuilt_cudnn(f, d, rt))),
            ));
            continue;
        }
        // A pair a framework pins itself (torch 2.15: cuda-toolkit==13.2.2
        // and nvidia-cudnn-cu13==9.26.0.51) is the pair it was built and
        // tested with, whatever a support matrix lists.
        if pinned_together(inv, d, rt) {
            continue;
        }
        if let Some((false, row)) = m.cudnn_supports_cuda(&d.version, &rt.version) {
            let f = finding(
                Severity::Warning,
                "cudnn-cuda-unlisted",
                format!(
                    "NVIDIA lists cuDNN {} for CUDA {} only; this environment has CUDA {}. Within one CUDA \
                     major this usually works (minor version compatibility), but it is not a tested pair",
                    d.version,
                    row.cuda.replace('|', " or "),
                    rt.version,
                ),
                Some(Fix::advice(format!(
                    "keep this pair (one CUDA major: it usually works), or install a cuDNN release \
                     NVIDIA lists for CUDA {}",
                    rt.version
                ))),
            );
            findings.push(sourced(f, &row.source, row.confidence));
        }
    }
}

/// The cuDNN of `cudnn`'s release built for `cuda`'s major, in place of
/// the one built for another: the pip wheel of the other major goes first
/// (both majors' wheels write `nvidia/cudnn/lib`).
fn rebuilt_cudnn(f: &Facts, cudnn: &Claim, cuda: &Claim) -> String {
    let want = super::fixes::Want {
        cuda: Some(&cuda.version),
        cudnn: Some(&cudnn.version),
        components: vec!["cudnn"],
        ..Default::default()
    };
    let install = super::fixes::install(&want, cudnn.installer, &f.inv.prefix);
    match cudnn.installer {
        crate::inventory::Installer::Pip => format!(
            "{} uninstall -y {} && {install}",
            super::fixes::pip(&f.inv.prefix),
            quoted(&cudnn.package)
        ),
        crate::inventory::Installer::Conda => install,
    }
}
