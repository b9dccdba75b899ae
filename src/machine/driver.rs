//! The machine's NVIDIA driver and GPUs, found without any framework, in
//! this order (each reported with its source):
//!
//! 1. `--driver-version` / `--gpu` flags (checking for another machine, e.g.
//!    while building a container image);
//! 2. `CONDA_OVERRIDE_CUDA` (conda's convention: the CUDA the driver
//!    supports; empty means no CUDA at all);
//! 3. NVML (`libnvidia-ml.so.1`, loaded in-process, nothing spawned);
//! 4. `nvidia-smi` found on `PATH` (a 5 s limit; drivers too old for the
//!    `compute_cap` field are asked again without it);
//! 5. `/proc/driver/nvidia/version` (proprietary and open kernel module
//!    formats) or `/sys/module/nvidia/version`, under `ENVHOOK_SYSROOT`.
//!
//! No GPU is a normal state, not an error.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Serialize;

use crate::data::matrix::{self, Matrix};
use crate::discovery::Context;
use crate::machine::nvml::{Nvml, Unavailable};

/// Where the driver facts came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// `--driver-version` / `--gpu`.
    Flag,
    /// `CONDA_OVERRIDE_CUDA`.
    CondaOverrideCuda,
    /// NVML.
    Nvml,
    /// `nvidia-smi`.
    NvidiaSmi,
    /// `/proc/driver/nvidia/version` or `/sys/module/nvidia/version`.
    KernelModule,
    /// Nothing found.
    None,
}

/// One GPU.
#[derive(Debug, Clone, Serialize)]
pub struct GpuInfo {
    /// As the driver names it, or as given.
    pub name: Option<String>,
    /// Compute capability, `8.6`.
    pub cc: Option<String>,
    /// Where `cc` came from.
    pub cc_source: Option<CcSource>,
}

/// Where a GPU's compute capability came from (JSON's `cc_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CcSource {
    /// The driver (NVML or nvidia-smi).
    #[serde(rename = "driver")]
    Driver,
    /// The GPU table in data/matrix.toml, by the GPU's name.
    #[serde(rename = "matrix gpu table")]
    MatrixGpuTable,
    /// `--gpu sm_XX` or a compute capability given directly.
    #[serde(rename = "--gpu")]
    Flag,
    /// The pasted message (`explain`).
    #[serde(rename = "the message")]
    Message,
}

/// What is known about the driver.
#[derive(Debug, Clone, Serialize)]
pub struct Driver {
    /// Display driver version, e.g. `550.54.15`.
    pub version: Option<String>,
    /// The newest CUDA the driver supports (from the driver, the override,
    /// or derived from its version with the matrix).
    pub max_cuda: Option<String>,
    /// The GPUs.
    pub gpus: Vec<GpuInfo>,
    /// Where it came from.
    pub source: Source,
    /// Things learnt along the way (a failed `nvidia-smi`, an unreadable file).
    pub notes: Vec<String>,
}

impl Driver {
    /// No driver known: for commands that judge the environment alone.
    pub fn none() -> Driver {
        Driver {
            version: None,
            max_cuda: None,
            gpus: Vec::new(),
            source: Source::None,
            notes: Vec::new(),
        }
    }

    /// One line for reports: `550.54.15 (nvidia-smi), supports CUDA <= 12.4;
    /// NVIDIA A100 sm_80`.
    pub fn describe(&self) -> String {
        let d = self;
        let source = match d.source {
            Source::Flag => "--driver-version/--gpu",
            Source::CondaOverrideCuda => "CONDA_OVERRIDE_CUDA",
            Source::Nvml => "NVML",
            Source::NvidiaSmi => "nvidia-smi",
            Source::KernelModule => "kernel module",
            Source::None => return "none found".into(),
        };
        let mut line = d
            .version
            .clone()
            .unwrap_or_else(|| "version unknown".into());
        line.push_str(&format!(" ({source})"));
        if let Some(c) = &d.max_cuda {
            line.push_str(&format!(", supports CUDA <= {c}"));
        }
        for g in &d.gpus {
            let name = g.name.as_deref().unwrap_or("GPU");
            match &g.cc {
                Some(cc) => line.push_str(&format!("; {name} sm_{}", cc.replace('.', ""))),
                None => line.push_str(&format!("; {name}")),
            }
        }
        line
    }
}

/// What the user asked for on the command line.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--driver-version`.
    pub driver_version: Option<String>,
    /// `--gpu`, read by [`gpu_flag`].
    pub gpu: Option<GpuInfo>,
}

/// Detect the driver.
pub fn detect(ctx: &Context, flags: &Flags, m: &Matrix) -> Driver {
    let mut d = if flags.driver_version.is_some() || flags.gpu.is_some() {
        Driver {
            version: flags.driver_version.clone(),
            max_cuda: None,
            gpus: flags.gpu.iter().cloned().collect(),
            source: Source::Flag,
            notes: Vec::new(),
        }
    } else if let Some(value) = ctx.var_os_raw(crate::env_vars::CONDA_OVERRIDE_CUDA) {
        let value = value.trim().to_string();
        Driver {
            version: None,
            max_cuda: (!value.is_empty()).then_some(value),
            gpus: Vec::new(),
            source: Source::CondaOverrideCuda,
            notes: Vec::new(),
        }
    } else {
        let mut notes = Vec::new();
        nvml(&mut notes)
            .or_else(|| nvidia_smi(ctx, &mut notes))
            .or_else(|| kernel_module(ctx, &mut notes))
            .unwrap_or(Driver {
                notes,
                ..Driver::none()
            })
    };
    if d.max_cuda.is_none()
        && let Some(v) = &d.version
    {
        d.max_cuda = m.max_cuda_for_driver(v);
    }
    for gpu in &mut d.gpus {
        if gpu.cc.is_none()
            && let Some(row) = gpu.name.as_deref().and_then(|n| m.gpu_by_name(n))
        {
            gpu.cc = Some(row.cc.clone());
            gpu.cc_source = Some(CcSource::MatrixGpuTable);
        }
    }
    for n in &d.notes {
        crate::notice::note(n);
    }
    crate::notice::note(&format!("driver: {}", d.describe()));
    d
}

/// `--gpu VALUE`: the GPU it names (by [`matrix::GpuFlag`]'s rule), or
/// why it names none.
pub fn gpu_flag(value: &str, m: &Matrix) -> Result<GpuInfo, crate::error::Error> {
    match m.gpu_flag(value) {
        matrix::GpuFlag::Cc(cc) => Ok(GpuInfo {
            name: None,
            cc: Some(cc.to_string()),
            cc_source: Some(CcSource::Flag),
        }),
        matrix::GpuFlag::Model(name, gpu) => Ok(GpuInfo {
            name: Some(name),
            cc: Some(gpu.cc.clone()),
            cc_source: Some(CcSource::MatrixGpuTable),
        }),
        matrix::GpuFlag::Ambiguous(rows) => Err(crate::error::Error::AmbiguousGpu {
            value: value.to_string(),
            names: rows
                .into_iter()
                .map(|(name, gpu)| (name.to_string(), gpu.cc.clone()))
                .collect(),
        }),
        matrix::GpuFlag::Unknown(suggestions) => Err(crate::error::Error::UnknownGpu {
            value: value.to_string(),
            suggestions,
        }),
    }
}

/// `--driver-version`: a driver version as nvidia-smi prints it
/// (`535.104.05`, `470.57`), checked when the command line is parsed so a
/// typo is a usage error, not a driver reported as too old.
pub fn parse_driver_version(value: &str) -> Result<String, String> {
    let parts: Vec<&str> = value.trim().split('.').collect();
    let numeric = |p: &&str| !p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit());
    if (1..=3).contains(&parts.len()) && parts.iter().all(numeric) {
        Ok(value.trim().to_string())
    } else {
        Err(
            "expected a driver version such as 535.104.05 or 470.57 (`nvidia-smi` prints it)"
                .into(),
        )
    }
}

/// NVML, loaded with the normal library search (`libnvidia-ml.so.1`).
fn nvml(notes: &mut Vec<String>) -> Option<Driver> {
    let nvml = match Nvml::init() {
        Ok(nvml) => nvml,
        Err(Unavailable::NotInstalled) => return None,
        Err(Unavailable::InitFailed) => {
            notes.push(
                "NVML is installed but nvmlInit failed (no GPU, or the driver is not loaded)"
                    .into(),
            );
            return None;
        }
    };
    let version = nvml.driver_version();
    let max_cuda = nvml
        .cuda_driver_version()
        .filter(|cuda| *cuda > 0)
        .map(|cuda| format!("{}.{}", cuda / 1000, (cuda % 1000) / 10));
    let count = nvml.device_count().unwrap_or(0);
    let gpus = (0..count.min(64))
        .filter_map(|i| nvml.device(i))
        .map(|gpu| {
            let cc = gpu
                .compute_capability()
                .map(|(major, minor)| format!("{major}.{minor}"));
            GpuInfo {
                name: gpu.name(),
                cc_source: cc.as_ref().map(|_| CcSource::Driver),
                cc,
            }
        })
        .collect();
    Some(Driver {
        version,
        max_cuda,
        gpus,
        source: Source::Nvml,
        notes: std::mem::take(notes),
    })
}

/// `nvidia-smi --query-gpu=...`, with a time limit.
fn nvidia_smi(ctx: &Context, notes: &mut Vec<String>) -> Option<Driver> {
    let exe = ctx.which("nvidia-smi")?;
    let run = |fields: &str| -> Result<String, String> {
        let mut child = Command::new(&exe)
            .args([&format!("--query-gpu={fields}"), "--format=csv,noheader"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("could not run {}: {e}", exe.display()))?;
        use wait_timeout::ChildExt;
        match child.wait_timeout(Duration::from_secs(5)) {
            Ok(Some(_)) => {}
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{} did not answer within 5 s", exe.display()));
            }
        }
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        if out.status.success() {
            Ok(stdout)
        } else {
            Err(format!(
                "{} failed: {}",
                exe.display(),
                String::from_utf8_lossy(&out.stderr)
                    .trim()
                    .lines()
                    .chain(stdout.trim().lines())
                    .next()
                    .unwrap_or("")
            ))
        }
    };
    // Drivers of the R470 era reject `compute_cap`.
    let (text, with_cc) = match run("driver_version,name,compute_cap") {
        Ok(t) => (t, true),
        Err(first) => match run("driver_version,name") {
            Ok(t) => (t, false),
            Err(_) => {
                notes.push(first);
                return None;
            }
        },
    };
    let mut version = None;
    let mut gpus = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        version = version.or_else(|| cols.first().map(|s| s.to_string()));
        let cc = if with_cc {
            cols.get(2)
                .filter(|c| matrix::version(c).is_some())
                .map(|c| c.to_string())
        } else {
            None
        };
        let cc_source = cc.as_ref().map(|_| CcSource::Driver);
        gpus.push(GpuInfo {
            name: cols.get(1).map(|s| s.to_string()),
            cc,
            cc_source,
        });
    }
    version.as_ref()?;
    Some(Driver {
        version,
        max_cuda: None,
        gpus,
        source: Source::NvidiaSmi,
        notes: std::mem::take(notes),
    })
}

/// The kernel module's version file.
fn kernel_module(ctx: &Context, notes: &mut Vec<String>) -> Option<Driver> {
    let proc_file = ctx.system_path("/proc/driver/nvidia/version");
    let sys_file = ctx.system_path("/sys/module/nvidia/version");
    let version = read_small(&proc_file)
        .and_then(|t| parse_proc_version(&t))
        .or_else(|| {
            read_small(&sys_file)
                .map(|t| t.trim().to_string())
                .filter(|v| matrix::version(v).is_some())
        })?;
    Some(Driver {
        version: Some(version),
        max_cuda: None,
        gpus: Vec::new(),
        source: Source::KernelModule,
        notes: std::mem::take(notes),
    })
}

fn read_small(path: &Path) -> Option<String> {
    // /proc files report size 0 but are regular files.
    let mut file = crate::paths::open_regular(path).ok()?;
    let mut text = String::new();
    use std::io::Read;
    file.by_ref().take(4096).read_to_string(&mut text).ok()?;
    Some(text)
}

/// The driver version in `/proc/driver/nvidia/version`: the first dotted
/// number after "Module", in both formats:
/// `NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Wed Jan 22 ...`
/// `NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build ...`
pub fn parse_proc_version(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.contains("NVRM version"))?;
    let after = &line[line.find("Module")? + "Module".len()..];
    after
        .split_whitespace()
        .find(|w| {
            w.contains('.')
                && w.split('.')
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_version_both_formats() {
        assert_eq!(
            parse_proc_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Wed Jan 22 20:35:30 UTC 2025\nGCC version:  gcc version 12.2.0\n").as_deref(),
            Some("570.86.15")
        );
        assert_eq!(
            parse_proc_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  (dvs-builder@U16-I3-B03-4-3)  Wed May 21 2025\n").as_deref(),
            Some("575.57.08")
        );
        assert_eq!(
            parse_proc_version("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.65.06  Release Build\n").as_deref(),
            Some("580.65.06")
        );
        assert_eq!(parse_proc_version("garbage"), None);
    }

    #[test]
    fn gpu_flags() {
        let m = Matrix::load(None).unwrap();
        let cc = |value: &str| gpu_flag(value, &m).ok().and_then(|g| g.cc);
        assert_eq!(cc("sm_90").as_deref(), Some("9.0"));
        assert_eq!(cc("120").as_deref(), Some("12.0"));
        assert_eq!(cc("8.6").as_deref(), Some("8.6"));
        assert_eq!(cc("A100").as_deref(), Some("8.0"));
        // As people write them (#30), model numbers alone included (#42).
        for (name, want) in [
            ("sm90", "9.0"),
            ("SM_90", "9.0"),
            ("compute_120", "12.0"),
            ("RTX4090", "8.9"),
            ("rtx 4090", "8.9"),
            ("NVIDIA GeForce RTX 4090", "8.9"),
            ("H100-SXM5-80GB", "9.0"),
            ("NVIDIA B300 SXM6 AC", "10.3"),
            ("4090", "8.9"),
            ("3090", "8.6"),
            ("5090", "12.0"),
            ("4060", "8.9"),
            ("4060 Laptop GPU", "8.9"),
        ] {
            assert_eq!(cc(name).as_deref(), Some(want), "{name}");
        }
        let Err(crate::error::Error::UnknownGpu { suggestions, .. }) = gpu_flag("A10O", &m) else {
            panic!("A10O is no GPU");
        };
        assert_eq!(suggestions.first().map(String::as_str), Some("A100"));
        for nothing in ["Quadro P1000", "4091", "99", "sm_4090", "40.9", "8.8.1"] {
            assert!(
                matches!(
                    gpu_flag(nothing, &m),
                    Err(crate::error::Error::UnknownGpu { .. })
                ),
                "{nothing}"
            );
        }
        assert!(matches!(
            gpu_flag("6000", &m),
            Err(crate::error::Error::AmbiguousGpu { .. })
        ));
    }
}
