//! Each framework build against the CUDA runtime and cuDNN the
//! environment holds.

use super::fixes::{cuda_install_hint, cudnn_install_hint};
use super::needs::{needs, older_minor, preferred};
use super::{Facts, finding, sourced};
use crate::data::matrix::{Matrix, major, major_minor};
use crate::inventory::{Installer, Inventory};
use crate::report::{Problem, Severity};

/// The framework rules.
pub fn check(f: &Facts) -> Vec<Problem> {
    let mut findings = Vec::new();
    check_frameworks(f.inv, f.matrix, &mut findings);
    findings
}

fn check_frameworks(inv: &Inventory, m: &Matrix, findings: &mut Vec<Problem>) {
    let prefix = &inv.prefix;
    for fw in &inv.frameworks {
        let Some(n) = needs(fw, m) else { continue };
        let name = format!("{} {}", fw.package, fw.version);
        // Findings that rest on a matrix row say which.
        let mut push = |p: Problem| match &n.row {
            Some((source, confidence)) => findings.push(sourced(p, source, *confidence)),
            None => findings.push(p),
        };
        let bundled = |component: &str| {
            inv.packages.iter().any(|p| {
                p.name == fw.package
                    && p.libraries
                        .iter()
                        .any(|l| l.component.as_deref() == Some(component))
            }) || (component == "cudnn"
                && fw.installer == Installer::Conda
                && fw.build.evidence.contains("cudnn"))
        };
        let built = match (&n.cuda, &n.cudnn) {
            (Some(c), Some(d)) => format!("CUDA {c} / cuDNN {}", major_minor(d)),
            (Some(c), None) => format!("CUDA {c}"),
            _ => "CUDA".into(),
        };
        // Fixes use the installer the environment's CUDA stack already uses.
        let stack_installer = inv.cuda.first().map_or(fw.installer, |c| c.installer);
        if let Some(build_cuda) = &n.cuda {
            match preferred(&inv.cuda, fw.installer) {
                None if !bundled("cudart") => push(finding(
                    Severity::Warning,
                    "no-cuda-runtime",
                    format!(
                        "{name} is built for {built}, but the environment has no CUDA runtime: it will load \
                         whatever the system has, if anything"
                    ),
                    Some(cuda_install_hint(build_cuda, stack_installer, prefix)),
                )),
                None => {}
                Some(rt) if major(&rt.version) != major(build_cuda) => push(finding(
                    Severity::Error,
                    "cuda-mismatch",
                    format!(
                        "{name} is built for {built}; this environment has CUDA {} ({} {}). CUDA {} and {} \
                         libraries have different sonames, so the framework's are not found",
                        rt.version,
                        rt.package,
                        rt.package_version,
                        major(build_cuda).unwrap_or(0),
                        major(&rt.version).unwrap_or(0)
                    ),
                    Some(cuda_install_hint(build_cuda, stack_installer, prefix)),
                )),
                Some(rt) if older_minor(&rt.version, build_cuda) => push(finding(
                    Severity::Warning,
                    "cuda-older-than-build",
                    format!(
                        "{name} is built for {built}; this environment has the older CUDA {} ({} {}), which \
                         may lack symbols the build uses (\"undefined symbol\")",
                        rt.version, rt.package, rt.package_version
                    ),
                    Some(cuda_install_hint(build_cuda, stack_installer, prefix)),
                )),
                Some(_) => {}
            }
        }
        let Some(need) = &n.cudnn else { continue };
        if bundled("cudnn") {
            continue;
        }
        let cuda = n.cuda.as_deref();
        let cudnn_installer = inv.cudnn.first().map_or(stack_installer, |c| c.installer);
        match preferred(&inv.cudnn, fw.installer) {
            None => push(finding(
                Severity::Warning,
                "no-cudnn",
                format!(
                    "{name} is built for {built}; the environment has no cuDNN, so the system's is used if there is one"
                ),
                Some(cudnn_install_hint(need, cudnn_installer, cuda, prefix)),
            )),
            Some(have) if major(&have.version) != major(need) => push(finding(
                Severity::Error,
                "cudnn-mismatch",
                format!(
                    "{name} is built for {built}; this environment has cuDNN {} ({}). cuDNN {} and {} are not \
                     interchangeable (libcudnn.so.{} vs libcudnn.so.{})",
                    have.version,
                    have.package,
                    major(need).unwrap_or(0),
                    major(&have.version).unwrap_or(0),
                    major(need).unwrap_or(0),
                    major(&have.version).unwrap_or(0)
                ),
                Some(cudnn_install_hint(need, cudnn_installer, cuda, prefix)),
            )),
            Some(have) if older_minor(&have.version, need) => push(finding(
                Severity::Warning,
                "cudnn-older-than-build",
                format!(
                    "{name} is built for {built}; this env has {} {} -> {}",
                    have.package,
                    have.version,
                    cudnn_install_hint(need, cudnn_installer, cuda, prefix)
                ),
                Some(cudnn_install_hint(need, cudnn_installer, cuda, prefix)),
            )),
            Some(_) => {}
        }
    }
}
