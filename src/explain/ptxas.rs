//! XLA's warnings about the ptxas it compiles PTX with (openxla/xla
//! xla/service/gpu/nvptx_compiler.cc, xla/stream_executor/gpu/
//! asm_compiler.cc): "The NVIDIA driver's CUDA version is 12.2 which is
//! older than the ptxas CUDA version (12.3.107)" and "You are using ptxas
//! 10.1.243, which is older than 11.1". The ptxas version the message
//! states is set beside the ptxas this environment holds (pip's
//! nvidia-cuda-nvcc wheels, conda's cuda-nvcc), whose version is its
//! package's; the driver's side is answered by [`super::decode`] as every
//! driver version is.

use super::answer::{Answer, Verdict};
use super::clues::Clue;
use super::numbers::older;
use crate::data::matrix::major_minor;
use crate::finding::{Cmd, Fix};
use crate::rules::{Facts, fixes};

/// The pip distributions and conda packages that carry ptxas.
const PIP: &[&str] = &[
    "nvidia-cuda-nvcc-cu12",
    "nvidia-cuda-nvcc-cu11",
    "nvidia-cuda-nvcc",
];
const CONDA: &[&str] = &["cuda-nvcc-tools", "cuda-nvcc"];

/// The ptxas this environment holds: (package, version, installer), pip's
/// first (JAX points XLA at its wheel's directory).
fn held(f: &Facts) -> Vec<Held> {
    let mut out: Vec<Held> = PIP
        .iter()
        .filter_map(|n| Some((n.to_string(), f.inv.distributions.get(*n)?.clone(), "pip")))
        .collect();
    let records = std::fs::read_dir(f.inv.prefix.join("conda-meta"))
        .into_iter()
        .flatten();
    for entry in records.flatten() {
        let name = entry.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        // `cuda-nvcc-tools-12.4.131-h0.json`: name, version, build.
        let mut parts = stem.rsplitn(3, '-');
        let (_, Some(version), Some(package)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if CONDA.contains(&package) {
            out.push((package.to_string(), version.to_string(), "conda"));
        }
    }
    out
}

/// A ptxas package this environment holds: (package, version, installer).
type Held = (String, String, &'static str);

/// Answer the ptxas version a message states (`found`); `floor` is the
/// least ptxas XLA trusts where the message is about an old one (11.1).
pub fn answer(f: &Facts, clue: &Clue, found: &str, floor: Option<&str>) -> Answer {
    let here = held(f);
    let mut a = Answer::blank(
        clue,
        here.iter()
            .map(|(p, v, i)| format!("ptxas {} ({p} {v}, {i})", major_minor(v)))
            .collect(),
    );
    let same = here
        .iter()
        .find(|(_, v, _)| major_minor(v) == major_minor(found));
    match (floor, same) {
        (Some(floor), None) => old_elsewhere(f, &mut a, found, floor, here.is_empty()),
        (Some(floor), Some((p, v, _))) => {
            a.diagnosis = format!(
                "the ptxas XLA ran, {found}, is this environment's ({p} {v}), older than {floor}: \
                 a newer one replaces it"
            );
            a.verdict = Verdict::Cause;
            a.fix = Some(Fix::Command(
                fixes::pip(&f.inv.prefix).raw("install -U").arg(p.clone()),
            ));
        }
        (None, Some(held)) => newer_than_driver(f, &mut a, found, held),
        (None, None) => outside(f, &mut a, found),
    }
    a
}

/// An old ptxas, not this environment's: XLA found another first.
fn old_elsewhere(f: &Facts, a: &mut Answer, found: &str, floor: &str, none_here: bool) {
    a.diagnosis = format!(
        "the ptxas XLA ran is {found}, older than {floor}; this environment's is {}: XLA looks \
         for ptxas in its CUDA directories (JAX's nvidia-cuda-nvcc wheel, \
         --xla_gpu_cuda_data_dir) and then on PATH, so an older CUDA toolkit first on PATH or \
         under /usr/local/cuda won",
        if none_here {
            "none".to_string()
        } else {
            a.here.join(", ")
        }
    );
    a.verdict = if none_here {
        Verdict::Cause
    } else {
        Verdict::NotHere
    };
    a.fix = Some(Fix::Choose {
        advice: format!(
            "see which ptxas comes first on PATH, and put a ptxas of CUDA {floor} or newer \
             before it (the environment's own, or its CUDA's nvcc wheel)"
        ),
        commands: vec![
            Cmd::new("which -a ptxas"),
            fixes::pip_install(&f.inv.prefix, ["nvidia-cuda-nvcc-cu12"]),
        ],
    });
}

/// The environment's own ptxas, of a newer CUDA than the driver: the
/// driver here decides whether this machine printed it.
fn newer_than_driver(f: &Facts, a: &mut Answer, found: &str, (p, v, installer): &Held) {
    let driver_cuda = f.machine.driver.max_cuda.as_deref();
    if let Some(cuda) = driver_cuda.filter(|c| !older(c, found)) {
        a.diagnosis = format!(
            "this environment's ptxas is {v} ({p}), and the driver here supports CUDA {cuda}, \
             not older: the message came from another machine, whose driver is older"
        );
        a.verdict = Verdict::NotHere;
        return;
    }
    a.diagnosis = format!(
        "the ptxas is this environment's ({p} {v}, {installer}), of a newer CUDA than the \
         driver supports: XLA compiles serially (slower, not wrong)"
    );
    a.verdict = Verdict::Cause;
    a.fix = Some(match (driver_cuda, *installer) {
        (Some(cuda), "pip") => Fix::Choose {
            advice: format!(
                "upgrade the NVIDIA driver to one that supports CUDA {}, or, where the \
                 framework's pins allow it (pip says), install the ptxas of the driver's CUDA \
                 {cuda}",
                major_minor(found)
            ),
            commands: vec![fixes::pip_install(
                &f.inv.prefix,
                [format!("{p}=={}.*", major_minor(cuda))],
            )],
        },
        _ => Fix::advice(format!(
            "upgrade the NVIDIA driver to one that supports CUDA {}, or install the ptxas of the \
             driver's CUDA",
            major_minor(found)
        )),
    });
}

/// A ptxas this environment does not hold: from another environment, or
/// a toolkit outside it that this machine's driver is older than.
fn outside(f: &Facts, a: &mut Answer, found: &str) {
    a.diagnosis = format!(
        "this environment holds no ptxas {found}{}: XLA ran one from outside it (a CUDA \
         toolkit on PATH, --xla_gpu_cuda_data_dir) or the message came from another environment",
        if a.here.is_empty() {
            String::new()
        } else {
            format!(" (its own is {})", a.here.join(", "))
        }
    );
    a.verdict = Verdict::NotHere;
    let Some(cuda) = f
        .machine
        .driver
        .max_cuda
        .as_deref()
        .filter(|c| older(c, found))
    else {
        return;
    };
    a.diagnosis.push_str(&format!(
        "; the driver here supports CUDA {cuda}, older than that ptxas, so on this machine XLA \
         compiles serially"
    ));
    a.verdict = Verdict::Cause;
    a.fix = Some(Fix::Choose {
        advice: format!(
            "upgrade the NVIDIA driver to one that supports CUDA {}, or put a ptxas of CUDA \
             {cuda} first on PATH",
            major_minor(found)
        ),
        commands: vec![Cmd::new("which -a ptxas")],
    });
}
