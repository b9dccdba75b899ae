//! The GPUs' architectures against the CUDA releases in the environment
//! and the architectures the framework builds were compiled for.

use super::needs::needs;
use super::{Facts, finding, sourced};
use crate::data::matrix::{Matrix, major_minor, version};
use crate::inventory::Inventory;
use crate::machine::driver::Driver;
use crate::report::{Problem, Severity};

/// The architecture rules.
pub fn check(f: &Facts) -> Vec<Problem> {
    let mut findings = Vec::new();
    check_gpus(f.inv, f.matrix, &f.machine.driver, &mut findings);
    findings
}

fn check_gpus(inv: &Inventory, m: &Matrix, d: &Driver, findings: &mut Vec<Problem>) {
    for (i, gpu) in d.gpus.iter().enumerate() {
        let label = gpu.name.clone().unwrap_or_else(|| format!("GPU {i}"));
        let Some(cc) = gpu.cc.as_deref() else {
            findings.push(finding(
                Severity::Info,
                "gpu-unknown",
                format!("the compute capability of {label} is not known; architecture checks are skipped"),
                Some("pass --gpu sm_XY".into()),
            ));
            continue;
        };
        let sm = cc.replace('.', "");
        for claim in &inv.cuda {
            match m.cuda_supports_cc(&claim.version, cc) {
                Some((false, arch)) => {
                    let why = if version(&major_minor(&claim.version)) < version(&arch.first_ctk) {
                        format!("{} GPUs need CUDA {} or newer", arch.name, arch.first_ctk)
                    } else {
                        format!(
                            "CUDA {} was the last to support {} GPUs",
                            arch.last_ctk, arch.name
                        )
                    };
                    let f = finding(
                        Severity::Error,
                        "gpu-unsupported",
                        format!(
                            "CUDA {} ({} {}) cannot run on {label} (sm_{sm}): {why}. Expect \"no kernel image \
                             is available for execution on the device\"",
                            claim.version, claim.package, claim.package_version
                        ),
                        Some(if why.contains("newer") {
                            format!(
                                "install CUDA {} or newer in this environment",
                                arch.first_ctk
                            )
                        } else {
                            format!(
                                "install CUDA {} or older in this environment",
                                arch.last_ctk
                            )
                        }),
                    );
                    findings.push(sourced(f, &arch.source, arch.confidence));
                }
                None => findings.push(finding(
                    Severity::Info,
                    "gpu-unknown",
                    format!(
                        "sm_{sm} ({label}) is not in the matrix; its CUDA support is not checked"
                    ),
                    None,
                )),
                Some((true, _)) => {}
            }
        }
        for fw in &inv.frameworks {
            let Some(n) = needs(fw, m) else { continue };
            let below = n
                .min_cc
                .as_deref()
                .is_some_and(|min| version(cc) < version(min));
            let above = n
                .max_cc
                .as_deref()
                .is_some_and(|max| version(cc) > version(max));
            if below || above {
                let range = match (&n.min_cc, &n.max_cc) {
                    (Some(a), Some(b)) => format!("{a} to {b}"),
                    (Some(a), None) => format!("{a} and newer"),
                    (None, Some(b)) => format!("up to {b}"),
                    (None, None) => unreachable!(),
                };
                findings.push(finding(
                    Severity::Error,
                    "gpu-unsupported",
                    format!(
                        "{} {} is built for compute capability {range}; {label} is sm_{sm}. Expect \"no kernel \
                         image is available for execution on the device\"",
                        fw.package, fw.version
                    ),
                    Some("install a build of the framework that includes this GPU's architecture".into()),
                ));
            }
        }
    }
}
