//! "CUDA driver version is insufficient", "no kernel image is available":
//! messages that measure the environment against the machine's driver or
//! GPU. The answer states what the environment needs of it (each CUDA's
//! driver floor, the architectures each build carries) and then either
//! measures the machine here or, where envhook sees no driver or GPU (a
//! login node, a laptop, a container without GPUs), says the machine is
//! unknown and how to name the one that printed the message (#29), rather
//! than "none of the known causes is present here".

use super::answer::{Answer, Verdict};
use super::clues::{Clue, Measures};
use super::devices::{QUERY, ask};
use crate::finding::{Code, Severity};
use crate::machine::driver::Source;
use crate::rules::{Facts, Report, driver, gpu_arch};

/// The finding codes that measure the driver, and the GPUs.
const DRIVER_CODES: &[Code] = &[Code::DriverTooOld, Code::DriverOlderThanCuda];
const GPU_CODES: &[Code] = &[Code::GpuUnsupported, Code::GpuPartlyUnsupported];

/// Answer what the environment needs of the machine's `driver` or `gpu`.
pub fn answer(f: &Facts, report: &Report, clue: &Clue, measures: Measures) -> Answer {
    let gpu = measures == Measures::Gpu;
    let needed = if gpu {
        gpu_arch::carried(f)
    } else {
        driver::needed(f, &report.loaded)
    };
    let mut a = Answer::blank(clue, needed);
    if a.here.is_empty() {
        a.diagnosis = if gpu {
            "no framework build here carries CUDA code envhook can read or look up: the message \
             came from another environment, or from code outside any package (a kernel of your own)"
        } else {
            "nothing here needs a CUDA driver (no CUDA runtime, no CUDA framework build): the \
             message came from another environment"
        }
        .to_string();
        a.verdict = Verdict::NotHere;
        return a;
    }
    let known = seen(f, gpu);
    if known.is_empty() {
        a.diagnosis = if gpu {
            format!(
                "envhook finds no GPU whose compute capability it knows here, so it cannot tell \
                 whether the machine that printed the message meets this: run `{QUERY}` there \
                 and pass what it prints to explain"
            )
        } else {
            // cudart answers a libcuda.so.1 it cannot load as an
            // insufficient driver (torch names it "Found no NVIDIA driver").
            format!(
                "envhook finds no NVIDIA driver here. If this machine printed the message, that \
                 is its cause: the CUDA runtime reports a driver it cannot load as an insufficient \
                 one. If a GPU machine printed it, run `{QUERY}` there and pass what it prints to \
                 explain"
            )
        };
        a.fix = Some(ask(f));
        return a;
    }
    let codes = if gpu { GPU_CODES } else { DRIVER_CODES };
    let short = report
        .findings
        .iter()
        // An info (minor version compatibility, PTX JIT) runs.
        .any(|p| p.severity >= Severity::Warning && codes.contains(&p.code));
    let what = known.join(", ");
    if short {
        a.diagnosis = if gpu {
            format!("a build here has no code that runs on {what}, below")
        } else {
            format!("{what} falls short, below")
        };
    } else {
        a.diagnosis = if gpu {
            format!(
                "every build here has code for {what}: the message came from another machine or \
                 environment, or from code outside any package (a kernel of your own)"
            )
        } else {
            format!(
                "{what} meets every one of them: the message came from another \
                 machine or environment, or a libcuda stub was loaded (check finds none on this \
                 library path)"
            )
        };
        a.verdict = Verdict::NotHere;
    }
    a
}

/// The driver or the GPUs envhook sees here or was given, for the answer:
/// `the driver here (570.86.15)`, `H100 (sm_90)`; none when unknown.
fn seen(f: &Facts, gpu: bool) -> Vec<String> {
    let d = &f.machine.driver;
    if gpu {
        // Labelled as check labels them (`GPU 0` where only sm_XY was given).
        d.gpus
            .iter()
            .enumerate()
            .filter_map(|(i, g)| {
                let cc = g.cc.as_deref()?;
                let label = g.name.clone().unwrap_or_else(|| format!("GPU {i}"));
                Some(format!("{label} (sm_{})", cc.replace('.', "")))
            })
            .collect()
    } else if d.source == Source::None {
        Vec::new()
    } else {
        vec![format!(
            "the driver here ({})",
            d.version.as_deref().unwrap_or("of unknown version")
        )]
    }
}
