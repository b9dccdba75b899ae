//! cuDNN against the CUDA runtime it is paired with.

use super::{Facts, Loaded, finding, of_copy, sourced};
use crate::data::matrix::{Matrix, major};
use crate::finding::{Cmd, Code, Fix, Problem, Severity};
use crate::inventory::needs::preferred;
use crate::inventory::pip::normalize;
use crate::inventory::{Claim, Inventory, Stack};

/// The cuDNN/CUDA pairing rules: a cuDNN that a framework loads (or, where
/// no framework asks for a CUDA library, every cuDNN) against a CUDA
/// runtime loaded beside it. A cuDNN nothing loads pairs with nothing: a cu12
/// cuDNN 9 beside a CUDA 11 build that asks for `libcudnn.so.8`.
pub fn check(f: &Facts, loaded: &Loaded) -> Vec<Problem> {
    let mut findings = Vec::new();
    for (d, p) in check_cudnn_cuda(f, loaded) {
        findings.extend(of_copy(f, loaded, (Stack::Cudnn, d), p));
    }
    findings
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

/// Each cuDNN's finding, with the cuDNN.
fn check_cudnn_cuda<'a>(f: &'a Facts, loaded: &Loaded) -> Vec<(&'a Claim, Problem)> {
    let (inv, m): (&Inventory, &Matrix) = (f.inv, f.matrix);
    let mut findings = Vec::new();
    // The runtimes loaded: one nothing loads is no cuDNN's partner.
    let runtimes: Vec<Claim> = inv
        .cuda
        .iter()
        .filter(|c| loaded.loads(inv, Stack::Cuda, c))
        .cloned()
        .collect();
    for d in &inv.cudnn {
        // pip wheels say their CUDA major in the name; a runtime of that
        // major is its partner when the environment holds several.
        let pkg = inv
            .packages
            .iter()
            .find(|p| p.name == d.package && p.installer == d.installer);
        let want = pkg.and_then(|p| p.cuda_major);
        let Some(rt) = want
            .and_then(|w| runtimes.iter().find(|c| major(&c.version) == Some(w)))
            .or_else(|| preferred(&runtimes, d.installer))
        else {
            continue;
        };
        if let Some(want) = want
            && Some(want) != major(&rt.version)
        {
            let p = finding(
                Severity::Error,
                Code::CudnnCudaMismatch,
                format!(
                    "{} {} is the CUDA {want} build of cuDNN; the environment's CUDA is {} ({})",
                    d.package, d.version, rt.version, rt.package
                ),
                Some(Fix::Command(rebuilt_cudnn(f, d, rt))),
            );
            findings.push((d, p));
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
                Code::CudnnCudaUnlisted,
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
            findings.push((d, sourced(f, &row.source, row.confidence)));
        }
    }
    findings
}

/// The cuDNN of `cudnn`'s release built for `cuda`'s major, in place of
/// the one built for another: the pip wheel of the other major goes first
/// (both majors' wheels write `nvidia/cudnn/lib`).
fn rebuilt_cudnn(f: &Facts, cudnn: &Claim, cuda: &Claim) -> Cmd {
    let want = super::fixes::Want {
        cuda: Some(&cuda.version),
        cudnn: Some(&cudnn.version),
        components: vec!["cudnn"],
        ..Default::default()
    };
    let install = super::fixes::install(&want, cudnn.installer, &f.inv.prefix);
    match cudnn.installer {
        crate::inventory::Installer::Pip => super::fixes::pip(&f.inv.prefix)
            .raw("uninstall -y")
            .arg(&cudnn.package)
            .and(install),
        crate::inventory::Installer::Conda => install,
    }
}
