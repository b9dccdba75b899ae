//! The GPUs' architectures against what must run on them: the CUDA
//! releases in the environment, and the device code compiled into the
//! frameworks' objects.
//!
//! The binaries say it best: the architectures in each CUDA object's fatbin
//! ([`crate::machine::fatbin`]) predict "no kernel image is available for
//! execution on the device" without a GPU and without importing anything.
//! Where an object has no readable fatbin, the build's CUDA release and the
//! matrix row say which architectures it can hold.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::libraries::objects;
use super::{Facts, Loaded, finding, for_gpu, of_copy, sourced};
use crate::data::arch::{self, Cc, Kind, Variant};
use crate::data::matrix::{Arch, major_minor, version};
use crate::finding::{Code, Fix, Problem, Severity};
use crate::inventory::builds::Variant as BuildVariant;
use crate::inventory::needs::{Needs, needs};
use crate::inventory::{Claim, FrameworkBuild, Installer, Stack};
use crate::machine::fatbin::{self, FatbinEntry, Fatbins, Verdict};

/// Whether some framework can run on some GPU of this machine only by
/// JIT-compiling PTX.
pub fn needs_jit(findings: &[Problem]) -> bool {
    findings.iter().any(|p| p.code == Code::GpuJit)
}

/// The architecture rules. The environment's CUDA and cuDNN are judged
/// where a framework loads them (`loaded`): a copy nothing loads runs no
/// kernel.
pub fn check(f: &Facts, loaded: &Loaded) -> Vec<Problem> {
    let mut findings = Vec::new();
    for (i, gpu) in f.machine.driver.gpus.iter().enumerate() {
        let label = gpu.name.clone().unwrap_or_else(|| format!("GPU {i}"));
        let Some(cc) = gpu.cc.as_deref() else {
            findings.push(finding(
                Severity::Info,
                Code::GpuUnknown,
                format!("the compute capability of {label} is not known; architecture checks are skipped"),
                Some(Fix::advice(
                    "name its compute capability with --gpu (sm_XY, as nvidia-smi \
                     --query-gpu=compute_cap reports X.Y)",
                )),
            ));
            continue;
        };
        let builds: Vec<Problem> = f
            .inv
            .frameworks
            .iter()
            .filter(|fw| cuda_build(fw))
            .flat_map(|fw| framework(f, fw, &label, cc))
            .collect();
        // A framework with no code for the GPU is the finding and its fix
        // (another build brings its own CUDA and cuDNN); that the
        // environment's CUDA or cuDNN cannot target it either follows. A
        // framework that runs there by JIT-compiling its PTX is not held
        // back by the CUDA release it was built with (NVIDIA's Blackwell
        // guide: PTX JITs forward); what it loads without PTX, cuDNN, is
        // then the blocker, and the one named.
        if !builds.iter().any(|p| p.code == Code::GpuUnsupported) {
            if !builds.iter().any(|p| p.code == Code::GpuJit) {
                findings.extend(runtimes(f, loaded, &label, cc));
            }
            findings.extend(cudnn(f, loaded, &label, cc));
        }
        findings.extend(builds);
    }
    findings
}

/// Every cuDNN in the environment has kernels for the GPU: cuDNN 9.11
/// dropped Maxwell, Pascal and Volta, while CUDA 12 still targets them.
fn cudnn(f: &Facts, loaded: &Loaded, label: &str, cc: &str) -> Vec<Problem> {
    let sm = cc.replace('.', "");
    let mut out = Vec::new();
    for claim in &f.inv.cudnn {
        // Built only for CUDA releases older than the architecture: no
        // code for it, whatever its capability list leaves open.
        if let Some((row, arch)) = f.matrix.cudnn_predates_arch(&claim.version, cc) {
            let p = finding(
                Severity::Error,
                Code::GpuUnsupported,
                format!(
                    "cuDNN {} ({} {}) has no kernels for {label} (sm_{sm}): it was built for CUDA {} only, \
                     and {} GPUs need CUDA {} or newer. Convolutions and the other cuDNN operations fail \
                     there (CUDNN_STATUS_ARCH_MISMATCH or \"no kernel image is available\"){}",
                    claim.version,
                    claim.package,
                    claim.package_version,
                    row.cuda.replace('|', " or "),
                    arch.name,
                    arch.first_ctk,
                    f.matrix.cudnn_first_for_cc(cc).map_or(String::new(), |first| format!(
                        ". cuDNN {first} is the first with kernels for them; a framework that pins \
                         this cuDNN needs a newer release of its own"
                    ))
                ),
                Some(newer_cudnn(f, claim, arch, cc)),
            );
            let p = sourced(p, &row.source, row.confidence);
            out.extend(of_copy(f, loaded, (Stack::Cudnn, claim), p));
            continue;
        }
        let Some((false, row)) = f.matrix.cudnn_supports_cc(&claim.version, cc) else {
            continue;
        };
        let lowest = row
            .cc
            .as_ref()
            .and_then(|l| l.first())
            .map_or(String::new(), |c| {
                format!(" (it lists compute capability {c} and newer)")
            });
        let keep = f.matrix.cudnn_keeping_cc(cc);
        let hint = keep.map(|spec| {
            let package = match claim.installer {
                Installer::Pip => claim.package.as_str(),
                Installer::Conda => "cudnn",
            };
            let spec = format!("{package}{spec}");
            Fix::Command(super::fixes::install_with(
                claim.installer,
                &f.inv.prefix,
                spec,
            ))
        });
        // A framework that pins this cuDNN needs an older build of its own.
        let pinned = if claim.installer == Installer::Pip {
            " (a framework that pins this cuDNN needs an older build of its own)"
        } else {
            ""
        };
        let p = finding(
            Severity::Error,
            Code::GpuUnsupported,
            format!(
                "cuDNN {} ({} {}) has no kernels for {label} (sm_{sm}){lowest}: convolutions and \
                 the other cuDNN operations fail there (CUDNN_STATUS_ARCH_MISMATCH or \"no kernel \
                 image is available\"){pinned}",
                claim.version, claim.package, claim.package_version
            ),
            hint,
        );
        let p = sourced(p, &row.source, row.confidence);
        out.extend(of_copy(f, loaded, (Stack::Cudnn, claim), p));
    }
    out
}

/// The fix for a cuDNN built before the GPU's architecture: the first
/// release with kernels for it, as the command that installs it.
fn newer_cudnn(f: &Facts, claim: &Claim, arch: &Arch, cc: &str) -> Fix {
    let Some(first) = f.matrix.cudnn_first_for_cc(cc) else {
        return Fix::advice(format!(
            "a cuDNN built for CUDA {} or newer; a framework that pins this cuDNN needs a newer \
             release of its own",
            arch.first_ctk
        ));
    };
    let package = match claim.installer {
        Installer::Pip => claim.package.as_str(),
        Installer::Conda => "cudnn",
    };
    let spec = format!("{package}>={first}");
    Fix::Command(super::fixes::install_with(
        claim.installer,
        &f.inv.prefix,
        spec,
    ))
}

/// Why a CUDA release cannot target an architecture: too old for it
/// (`true`, "Hopper GPUs need CUDA 11.8 or newer", with `what` naming what
/// they need), or past its last toolkit.
fn arch_reason(cuda: &str, arch: &Arch, what: &str) -> (bool, String) {
    let newer = version(&major_minor(cuda)) < version(&arch.first_ctk);
    let why = if newer {
        format!("{} GPUs need {what} {} or newer", arch.name, arch.first_ctk)
    } else {
        format!(
            "CUDA {} was the last to support {} GPUs",
            arch.last_ctk, arch.name
        )
    };
    (newer, why)
}

/// Every CUDA runtime in the environment can target the GPU.
fn runtimes(f: &Facts, loaded: &Loaded, label: &str, cc: &str) -> Vec<Problem> {
    let sm = cc.replace('.', "");
    let mut out = Vec::new();
    for claim in &f.inv.cuda {
        match f.matrix.cuda_supports_cc(&claim.version, cc) {
            Some((false, arch)) => {
                let (newer, why) = arch_reason(&claim.version, arch, "CUDA");
                let p = finding(
                    Severity::Error,
                    Code::GpuUnsupported,
                    format!(
                        "CUDA {} ({} {}) cannot run on {label} (sm_{sm}): {why}. Expect \"no kernel image is \
                         available for execution on the device\"",
                        claim.version, claim.package, claim.package_version
                    ),
                    Some(cuda_for_gpu(f, claim, newer, arch)),
                );
                let p = sourced(p, &arch.source, arch.confidence);
                out.extend(of_copy(f, loaded, (Stack::Cuda, claim), p));
            }
            None if loaded.loads(f.inv, Stack::Cuda, claim) => out.push(finding(
                Severity::Info,
                Code::GpuUnknown,
                format!("sm_{sm} ({label}) is not in the matrix; its CUDA support is not checked"),
                None,
            )),
            _ => {}
        }
    }
    out
}

/// One framework build on one GPU: from its objects' fatbins, else from
/// its build's CUDA and the matrix.
fn framework(f: &Facts, fw: &FrameworkBuild, label: &str, cc: &str) -> Vec<Problem> {
    let Some(Cc { major, minor }) = Cc::parse(cc) else {
        return Vec::new();
    };
    let name = format!("{} {}", fw.package, fw.version);
    let sm = cc.replace('.', "");
    let with_code = with_code(f, fw);
    if with_code.is_empty() {
        return from_data(f, fw, &name, label, cc);
    }
    let file = |p: &PathBuf| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut none = Vec::new();
    let mut jit = Vec::new();
    for (object, fb) in &with_code {
        match fb.runs_on(major, minor) {
            Verdict::Sass(_) => {}
            Verdict::Ptx(e) => jit.push(format!("{} ({})", file(object), e.name())),
            Verdict::NoImage => none.push(format!(
                "{} ({})",
                file(object),
                code_list(fb.entries.iter())
            )),
        }
    }
    let mut out = Vec::new();
    if !none.is_empty() {
        let all = none.len() == with_code.len();
        let fix = for_gpu::build_fix(f, fw, &sm);
        out.push(finding(
            if all { Severity::Error } else { Severity::Warning },
            if all { Code::GpuUnsupported } else { Code::GpuPartlyUnsupported },
            format!(
                "{name} carries no code for {label} (sm_{sm}) in {}{}. Expect \"no kernel image is available \
                 for execution on the device\"{}.{}",
                none.join(", "),
                if all { "" } else { " (its other CUDA objects have it)" },
                if all { "" } else { " from the kernels in those objects" },
                fix.why
            ),
            Some(fix.fix),
        ));
    }
    if !jit.is_empty() {
        out.push(finding(
            Severity::Info,
            Code::GpuJit,
            format!(
                "{name} runs on {label} (sm_{sm}) only by JIT-compiling PTX: {}. The first start compiles \
                 every kernel (minutes; cached in ~/.nv/ComputeCache), and needs a driver that knows that PTX",
                jit.join(", ")
            ),
            None,
        ));
    }
    out
}

/// A build that may carry CUDA code: one made for CUDA, or of unknown
/// variant (ROCm and CPU builds carry none).
fn cuda_build(fw: &FrameworkBuild) -> bool {
    matches!(
        fw.build.variant,
        BuildVariant::Cuda { .. } | BuildVariant::Unknown
    )
}

/// The framework's objects that carry CUDA device code, with it.
fn with_code(f: &Facts, fw: &FrameworkBuild) -> Vec<(PathBuf, Fatbins)> {
    objects(f, fw)
        .into_iter()
        .filter_map(|o| fatbin::read_cached(&o).ok().flatten().map(|fb| (o, fb)))
        .filter(|(_, fb)| !fb.entries.is_empty())
        .collect()
}

/// The GPU code each CUDA framework build carries, one line each (`torch
/// 2.5.1: has sm_50 sm_60 ... sm_90, PTX compute_90 (its CUDA objects)`),
/// for `explain` where the GPU that printed a message is not known: from
/// the objects' fatbins, else the build's compute-capability range.
pub fn carried(f: &Facts) -> Vec<String> {
    f.inv
        .frameworks
        .iter()
        .filter(|fw| cuda_build(fw))
        .filter_map(|fw| {
            let name = format!("{} {}", fw.package, fw.version);
            let entries: BTreeSet<FatbinEntry> = with_code(f, fw)
                .into_iter()
                .flat_map(|(_, fb)| fb.entries)
                .collect();
            if !entries.is_empty() {
                return Some(format!(
                    "{name}: {} (its CUDA objects)",
                    code_list(entries.iter())
                ));
            }
            let n = needs(fw, f.matrix)?;
            let range = match (n.min_cc.as_deref(), n.max_cc.as_deref()) {
                (Some(lo), Some(hi)) => format!("compute capability {lo} to {hi}"),
                (Some(lo), None) => format!("compute capability {lo} and newer"),
                (None, Some(hi)) => format!("compute capability up to {hi}"),
                (None, None) => return None,
            };
            let from = n
                .row
                .map_or(String::new(), |(source, _)| format!(" ({source})"));
            Some(format!("{name}: {range}{from}"))
        })
        .collect()
}

/// `has sm_61 sm_70 sm_86, PTX compute_86` for messages.
fn code_list<'a>(entries: impl Iterator<Item = &'a FatbinEntry> + Clone) -> String {
    let names = |kind: Kind| {
        let mut out: Vec<String> = Vec::new();
        for e in entries.clone().filter(|e| e.kind == kind) {
            if !out.contains(&e.name()) {
                out.push(e.name());
            }
        }
        out
    };
    let (sass, ptx) = (names(Kind::Sass), names(Kind::Ptx));
    let mut text = if sass.is_empty() {
        "no SASS".to_string()
    } else {
        format!("has {}", sass.join(" "))
    };
    text.push_str(&if ptx.is_empty() {
        ", no PTX".to_string()
    } else {
        format!(", PTX {}", ptx.join(" "))
    });
    text
}

/// Without readable fatbins: the build's CUDA release must be able to
/// target the GPU, and the matrix row's architecture range must hold it.
fn from_data(f: &Facts, fw: &FrameworkBuild, name: &str, label: &str, cc: &str) -> Vec<Problem> {
    if let Some(listed) = from_list(f, fw, name, label, cc) {
        return listed;
    }
    let Some(n) = needs(fw, f.matrix) else {
        return Vec::new();
    };
    let sm = cc.replace('.', "");
    let mut out = Vec::new();
    if let Some(cuda) = n.cuda.as_deref().filter(|c| c.contains('.'))
        && let Some((false, arch)) = f.matrix.cuda_supports_cc(cuda, cc)
    {
        let (_, why) = arch_reason(cuda, arch, "a build made with CUDA");
        let fix = for_gpu::build_fix(f, fw, &sm);
        let p = finding(
            Severity::Error,
            Code::GpuUnsupported,
            format!(
                "{name} is built with CUDA {cuda}, which cannot produce code for {label} (sm_{sm}): {why}. \
                 Expect \"no kernel image is available for execution on the device\".{}",
                fix.why
            ),
            Some(fix.fix),
        );
        out.push(sourced(p, &arch.source, arch.confidence));
        return out;
    }
    out.extend(row_range(f, &n, fw, name, label, cc));
    out
}

/// Without readable fatbins, the architectures the build file lists
/// (Paddle's `compiled_cuda_archs`, TensorFlow's
/// `cuda_compute_capabilities`), which outrank the build's CUDA release and
/// the data's range: a cubin that runs on the GPU, else PTX the driver
/// JIT-compiles for it (TensorFlow 2.17's `compute_90` on Blackwell:
/// `gpu-jit`), else no image. `None` where the build file lists none.
fn from_list(
    f: &Facts,
    fw: &FrameworkBuild,
    name: &str,
    label: &str,
    cc: &str,
) -> Option<Vec<Problem>> {
    let b = &fw.build;
    if b.archs.is_empty() && b.ptx.is_empty() {
        return None;
    }
    let device = Cc::parse(cc)?;
    let best = |kind: Kind, list: &[String]| {
        list.iter()
            .filter_map(|a| Cc::parse(a))
            .filter(|code| arch::runs(kind, Variant::Generic, *code, device))
            .max()
    };
    let from = format!("{} in {}", b.archs_key, b.file());
    let sm = cc.replace('.', "");
    if best(Kind::Sass, &b.archs).is_some() {
        return Some(Vec::new());
    }
    if let Some(ptx) = best(Kind::Ptx, &b.ptx) {
        return Some(vec![finding(
            Severity::Info,
            Code::GpuJit,
            format!(
                "{name} runs on {label} (sm_{sm}) only by JIT-compiling PTX: compute_{}{} ({from}; no \
                 fatbin of its objects was read). The first start compiles every kernel (minutes; cached \
                 in ~/.nv/ComputeCache), and needs a driver that knows that PTX",
                ptx.major, ptx.minor
            ),
            None,
        )]);
    }
    let mut listed = b.archs.join(", ");
    if !b.ptx.is_empty() {
        let ptx = format!("PTX {}", b.ptx.join(", "));
        listed = if listed.is_empty() {
            ptx
        } else {
            format!("{listed} and {ptx}")
        };
    }
    let fix = for_gpu::build_fix(f, fw, &sm);
    Some(vec![finding(
        Severity::Error,
        Code::GpuUnsupported,
        format!(
            "{name} is built for compute capability {listed} ({from}); {label} is sm_{sm}. Expect \
             \"no kernel image is available for execution on the device\".{}",
            fix.why
        ),
        Some(fix.fix),
    )])
}

/// The matrix row's compute-capability range: below its lowest, or past
/// the major of its highest (a 9.0 top runs nothing on 10.0; a 12.0 top
/// runs on 12.1, [`arch::runs`]).
fn row_range(
    f: &Facts,
    n: &Needs,
    fw: &FrameworkBuild,
    name: &str,
    label: &str,
    cc: &str,
) -> Option<Problem> {
    let device = Cc::parse(cc)?;
    let below = n
        .min_cc
        .as_deref()
        .and_then(Cc::parse)
        .is_some_and(|min| device < min);
    let above =
        n.max_cc.as_deref().and_then(Cc::parse).is_some_and(|max| {
            device > max && !arch::runs(Kind::Sass, Variant::Generic, max, device)
        });
    if !(below || above) {
        return None;
    }
    let range = match (&n.min_cc, &n.max_cc) {
        (Some(a), Some(b)) => format!("{a} to {b}"),
        (Some(a), None) => format!("{a} and newer"),
        (None, Some(b)) => format!("up to {b}"),
        (None, None) => return None,
    };
    let sm = cc.replace('.', "");
    let fix = for_gpu::build_fix(f, fw, &sm);
    let p = finding(
        Severity::Error,
        Code::GpuUnsupported,
        format!(
            "{name} is built for compute capability {range}; {label} is sm_{sm}. Expect \"no kernel image is \
             available for execution on the device\".{}",
            fix.why
        ),
        Some(fix.fix),
    );
    Some(match &n.row {
        Some((source, confidence)) => sourced(p, source, *confidence),
        None => p,
    })
}

/// The CUDA a GPU's architecture needs (`newer`: from the first toolkit
/// that targets it on; else up to the last): for conda's CUDA, the
/// `cuda-version` that pins the packages to it; for pip's wheels, which
/// come one set per release, the release to choose.
fn cuda_for_gpu(f: &Facts, claim: &Claim, newer: bool, arch: &Arch) -> Fix {
    let (spec, words) = if newer {
        (
            format!(">={}", arch.first_ctk),
            format!("{} or newer", arch.first_ctk),
        )
    } else {
        (
            format!("<={}", arch.last_ctk),
            format!("{} or older", arch.last_ctk),
        )
    };
    match claim.installer {
        Installer::Conda => Fix::Command(super::fixes::conda_install(
            &f.inv.prefix,
            [format!("cuda-version{spec}")],
        )),
        Installer::Pip => Fix::advice(format!(
            "CUDA {words} in this environment: the nvidia-* wheels of that release, and framework \
             builds made with it"
        )),
    }
}
