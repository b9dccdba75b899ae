//! "No CUDA GPUs are available", `CUDA_ERROR_NO_DEVICE`,
//! `cudaErrorNoDevice`: the driver found no GPU the process may use. The
//! cause is outside the environment, so the answer looks where it is
//! (#29): `CUDA_VISIBLE_DEVICES` and `NVIDIA_VISIBLE_DEVICES` of the shell
//! explain runs in (empty hides every GPU; an index past the GPUs there
//! names a missing one), then the driver and the `/dev/nvidia*` device
//! files (a driver without them is a container started without GPUs).

use super::answer::{Answer, Verdict};
use super::clues::Clue;
use crate::env_vars::{CUDA_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES};
use crate::finding::{Cmd, Fix, quoted_path};
use crate::machine::driver::{Driver, Source};
use crate::rules::Facts;

/// What nvidia-smi prints for `--driver-version` and `--gpu`.
pub(super) const QUERY: &str =
    "nvidia-smi --query-gpu=driver_version,name,compute_cap --format=csv";

/// Answer "no GPU".
pub fn answer(f: &Facts, clue: &Clue) -> Answer {
    let d = &f.machine.driver;
    let nodes = device_nodes(f);
    let mut a = Answer::blank(clue, Vec::new());
    a.here.push(if nodes.is_empty() {
        "no /dev/nvidia* device files".to_string()
    } else {
        format!("device files: {}", nodes.join(", "))
    });
    for name in [CUDA_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES] {
        match f.ctx.var_os_raw(name) {
            Some(v) => a.here.push(format!("{name}={v}")),
            None => a.here.push(format!("{name} unset")),
        }
    }
    if let Some(v) = f.ctx.var_os_raw(CUDA_VISIBLE_DEVICES)
        && let Some((diagnosis, fix)) = hidden(d, &v)
    {
        a.diagnosis = diagnosis;
        a.fix = Some(fix);
        a.verdict = Verdict::Cause;
        return a;
    }
    if let Some(v) = f.ctx.var_os_raw(NVIDIA_VISIBLE_DEVICES)
        && matches!(v.trim(), "" | "void" | "none")
    {
        a.diagnosis = format!(
            "NVIDIA_VISIBLE_DEVICES={v} in this shell: the NVIDIA container toolkit mounts no GPU \
             into a container started so"
        );
        a.fix = Some(Fix::advice(
            "start the container with GPUs: docker run --gpus all (or NVIDIA_VISIBLE_DEVICES=all)",
        ));
        a.verdict = Verdict::Cause;
        return a;
    }
    machine(a, d, &nodes, f)
}

/// `CUDA_VISIBLE_DEVICES` hides every GPU or names one that is not here:
/// what it means and the fix.
fn hidden(d: &Driver, v: &str) -> Option<(String, Fix)> {
    let v = v.trim();
    if v.is_empty() {
        return Some((
            "CUDA_VISIBLE_DEVICES is set and empty in this shell: CUDA then hides every GPU".into(),
            Fix::Choose {
                advice: "unset CUDA_VISIBLE_DEVICES, or set it to the GPUs to use".into(),
                commands: vec![
                    Cmd::new("unset CUDA_VISIBLE_DEVICES"),
                    Cmd::new("export CUDA_VISIBLE_DEVICES=").glued_value("0"),
                ],
            },
        ));
    }
    let entries: Vec<&str> = v.split(',').map(str::trim).collect();
    // UUIDs (GPU-..., MIG-...) cannot be checked against an index.
    if entries
        .iter()
        .any(|e| e.starts_with("GPU-") || e.starts_with("MIG-"))
    {
        return None;
    }
    let n = d.gpus.len();
    let index = |e: &str| e.parse::<usize>().ok();
    // CUDA stops at the first entry that is not a GPU here.
    let first_bad = entries
        .iter()
        .position(|e| index(e).is_none_or(|i| n > 0 && i >= n))?;
    if n == 0 && index(entries[first_bad]).is_some() {
        return None;
    }
    let good: Vec<&str> = entries[..first_bad].to_vec();
    let fix = Fix::Command(Cmd::new("export CUDA_VISIBLE_DEVICES=").glued_value(
        if good.is_empty() {
            (0..n.max(1))
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        } else {
            good.join(",")
        },
    ));
    let seen = if n == 0 {
        String::new()
    } else {
        format!(
            "; envhook sees {n} GPU{} here (index 0{}, {})",
            if n == 1 { "" } else { "s" },
            if n == 1 {
                String::new()
            } else {
                format!(" to {}", n - 1)
            },
            d.describe()
        )
    };
    Some((
        format!(
            "CUDA_VISIBLE_DEVICES={v} in this shell names {} `{}`{seen}: CUDA hides it and every \
             entry after it{}",
            if index(entries[first_bad]).is_some() {
                "a GPU that does not exist,"
            } else {
                "no GPU:"
            },
            entries[first_bad],
            if good.is_empty() {
                ", so no GPU is visible"
            } else {
                ""
            }
        ),
        fix,
    ))
}

/// `CUDA_VISIBLE_DEVICES` hides nothing: the driver and the device files.
fn machine(mut a: Answer, d: &Driver, nodes: &[String], f: &Facts) -> Answer {
    match (d.source, nodes.is_empty()) {
        (Source::Flag, _) => {
            a.diagnosis = "the driver and GPU here are the ones given with --driver-version/--gpu; \
                 whether the process saw a GPU is a matter of the machine that printed the message: \
                 there, `echo $CUDA_VISIBLE_DEVICES` (empty hides every GPU) and `ls /dev/nvidia*` \
                 (none: a container started without GPUs)"
                .to_string();
        }
        (Source::None, true) => {
            a.diagnosis = format!(
                "envhook finds no NVIDIA driver and no /dev/nvidia* device files here, so the \
                 driver and GPU are unknown: a machine without GPUs (a login node), or a container \
                 started without them. If the message came from a GPU machine, run `{QUERY}` there \
                 and pass what it prints to explain"
            );
            a.fix = Some(ask(f));
        }
        (_, true) => {
            a.diagnosis = format!(
                "the NVIDIA driver is on this machine ({}), but there are no /dev/nvidia* device \
                 files: a container started without GPUs",
                d.describe()
            );
            a.fix = Some(Fix::advice(
                "start the container with GPUs: docker run --gpus all (NVIDIA container toolkit), \
                 apptainer --nv, or a Kubernetes nvidia.com/gpu limit",
            ));
            a.verdict = Verdict::Cause;
        }
        (_, false) => {
            a.diagnosis = format!(
                "this machine has the driver ({}) and its device files, and nothing in this shell \
                 hides a GPU: the process that printed the message had another CUDA_VISIBLE_DEVICES \
                 (a scheduler sets one per job), ran in a sandbox without /dev/nvidia*, or ran on \
                 another machine",
                d.describe()
            );
            a.verdict = Verdict::NotHere;
        }
    }
    a
}

/// The step that names the driver and GPU of the machine that printed a
/// message, where envhook sees none here.
pub(super) fn ask(f: &Facts) -> Fix {
    Fix::Choose {
        advice: format!(
            "on the GPU machine that printed the message, run the first command, then explain the \
             message here with what it prints: envhook explain MESSAGE -p {} --driver-version \
             VERSION --gpu NAME",
            quoted_path(&f.inv.prefix)
        ),
        commands: vec![Cmd::new(QUERY)],
    }
}

/// The GPU device files under the sysroot's /dev: `/dev/nvidia0`, ...
fn device_nodes(f: &Facts) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(f.ctx.system_path("/dev")) else {
        return Vec::new();
    };
    let mut out: Vec<String> = dir
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| {
            n.strip_prefix("nvidia")
                .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|n| format!("/dev/{n}"))
        .collect();
    out.sort();
    out
}
