//! CUDA forward compatibility, applied to what the driver rules find: a
//! CUDA too new for the kernel driver runs after all where NVIDIA's
//! `cuda-compat` libcuda supports it, the process loads that libcuda, and
//! the GPU is one forward compatibility is for (data-centre GPUs and
//! Jetson boards; NVIDIA, "CUDA Compatibility", Forward Compatibility).
//! A `driver-too-old` error is then a note (`forward-compat`), or says
//! what keeps the compat libcuda from helping.

use super::{Facts, finding};
use crate::data::matrix::{major_minor, version};
use std::path::Path;

use crate::finding::{Cmd, Code, Fix, Problem, Severity};
use crate::machine::compat::{self, CompatLibcuda};

/// NVIDIA's page on forward compatibility, for messages.
const DOCS: &str = "docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html";

/// Whether forward compatibility applies to every GPU: `Some(true)` when
/// all are data-centre or Jetson GPUs, `Some(false)` naming one that is
/// not, `None` when the data does not say for some.
fn applies(f: &Facts) -> Result<Option<()>, String> {
    let mut unknown = f.machine.driver.gpus.is_empty();
    for gpu in &f.machine.driver.gpus {
        let row = gpu.name.as_deref().and_then(|n| f.matrix.gpu_by_name(n));
        match row.and_then(|r| r.forward_compat) {
            Some(true) => {}
            Some(false) => return Err(gpu.name.clone().unwrap_or_default()),
            None => unknown = true,
        }
    }
    Ok((!unknown).then_some(()))
}

/// The forward-compatibility libcudas of this environment and machine.
pub fn libcudas(f: &Facts) -> Vec<CompatLibcuda> {
    let cache = f.machine.cache.as_ref().ok().and_then(Option::as_ref);
    compat::find(&f.inv.prefix, f.ctx, cache)
}

/// A `driver-too-old` finding for `cuda`, judged again where a
/// forward-compatibility libcuda supports that CUDA.
pub fn judge(f: &Facts, found: &[CompatLibcuda], cuda: &str, p: Problem) -> Problem {
    if p.code != Code::DriverTooOld {
        return p;
    }
    let Some(c) = version(&major_minor(cuda)) else {
        return p;
    };
    let Some((lib, supports)) = found.iter().find_map(|lib| {
        let max = f.matrix.max_cuda_for_driver(&lib.version)?;
        (version(&max)? >= c).then_some((lib, max))
    }) else {
        return too_old(f, found, p);
    };
    let dir = lib.dir.display();
    let what = format!(
        "the forward-compatibility libcuda {} in {dir} (CUDA {supports})",
        lib.version
    );
    match (applies(f), &lib.loaded_by) {
        (Err(gpu), _) => Problem {
            message: format!(
                "{}. The {what} does not help: forward compatibility is for data-centre GPUs and \
                 Jetson boards, not {gpu} ({DOCS})",
                p.message
            ),
            ..p
        },
        (Ok(known), Some(how)) => {
            let note = finding(
                if known.is_some() {
                    Severity::Info
                } else {
                    Severity::Warning
                },
                Code::ForwardCompat,
                format!(
                    "{} It runs through forward compatibility instead: the process loads {what} \
                     through {how}.{} NVIDIA supports it on certain kernel-driver branches only ({DOCS})",
                    first_sentence(&p.message),
                    if known.is_some() {
                        ""
                    } else {
                        " That holds on data-centre GPUs and Jetson boards only; which GPU this is, \
                         the data does not say."
                    }
                ),
                p.fix.clone(),
            );
            Problem {
                source: p.source,
                ..note
            }
        }
        (Ok(_), None) => Problem {
            message: format!(
                "{}. The {what} would run it through forward compatibility, but nothing makes the \
                 process load it",
                p.message
            ),
            fix: Some(Fix::Choose {
                advice: format!(
                    "put {dir} first on LD_LIBRARY_PATH so that its libcuda.so.1 loads (data-centre \
                     GPUs), or {}",
                    match &p.fix {
                        Some(Fix::Choose { advice, .. }) => advice.as_str(),
                        _ => "upgrade the NVIDIA driver",
                    }
                ),
                commands: export_first(&lib.dir, &p.fix),
            }),
            ..p
        },
    }
}

/// The export that puts `dir`'s libcuda first, then the driver rule's own
/// commands (the build this driver runs).
fn export_first(dir: &Path, fix: &Option<Fix>) -> Vec<Cmd> {
    let mut commands = vec![super::fixes::export_first(dir)];
    if let Some(Fix::Choose { commands: own, .. }) = fix {
        commands.extend(own.iter().cloned());
    }
    commands
}

/// `p` when no forward-compatibility libcuda supports its CUDA: one that
/// is too old is said, so that nobody counts on it.
fn too_old(f: &Facts, found: &[CompatLibcuda], p: Problem) -> Problem {
    let Some(lib) = found.first() else {
        return p;
    };
    Problem {
        message: format!(
            "{}. The forward-compatibility libcuda {} in {} supports CUDA {} at most",
            p.message,
            lib.version,
            lib.dir.display(),
            f.matrix
                .max_cuda_for_driver(&lib.version)
                .unwrap_or_else(|| "unknown".into())
        ),
        ..p
    }
}

/// A message up to its first full stop: what needs which CUDA, without
/// the "Expect ..." that forward compatibility takes back.
fn first_sentence(message: &str) -> String {
    match message.find(". ") {
        Some(at) => message[..=at].to_string(),
        None => message.to_string(),
    }
}
