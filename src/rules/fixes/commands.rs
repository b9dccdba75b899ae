//! The shapes of the commands fixes print: pip through the environment's
//! own Python, conda with the prefix and conda-forge, the hooks' refresh,
//! an `LD_LIBRARY_PATH` export. Every install of CUDA libraries goes
//! through [`install`].

use std::path::Path;

use super::Want;
use super::ranges::{cudnn_range, narrowed, within_build_major, within_major};
use crate::data::catalog::CATALOG;
use crate::data::matrix::{major, major_minor};
use crate::finding::{Cmd, Fix};
use crate::inventory::Installer;

/// The components PyPI's `cuda-toolkit` metapackage installs as extras
/// (`cuda-toolkit[cudart,cublas]==12.8.*`, from 11.8.0 on).
const TOOLKIT_EXTRAS: &[&str] = &[
    "cudart",
    "cublas",
    "cufft",
    "curand",
    "cusolver",
    "cusparse",
    "nvrtc",
    "cupti",
    "nvjitlink",
    "nvtx",
    "cufile",
];

/// The one command that installs `want` into the environment at `prefix`
/// with `installer`.
pub fn install(want: &Want, installer: Installer, prefix: &Path) -> Cmd {
    match installer {
        Installer::Pip => pip_install(prefix, pip_parts(want)),
        Installer::Conda => conda_install(prefix, conda_parts(want)),
    }
}

/// `'PREFIX/bin/python' -m pip install SPEC...`.
pub fn pip_install<S: Into<String>>(prefix: &Path, specs: impl IntoIterator<Item = S>) -> Cmd {
    pip(prefix).raw("install").args(specs)
}

/// `conda install -p PREFIX -c conda-forge SPEC...`.
pub fn conda_install<S: Into<String>>(prefix: &Path, specs: impl IntoIterator<Item = S>) -> Cmd {
    Cmd::new("conda install -p")
        .path(prefix)
        .raw("-c conda-forge")
        .args(specs)
}

/// [`pip_install`] or [`conda_install`], by `installer`.
pub fn install_with(installer: Installer, prefix: &Path, spec: String) -> Cmd {
    match installer {
        Installer::Pip => pip_install(prefix, [spec]),
        Installer::Conda => conda_install(prefix, [spec]),
    }
}

/// `'PREFIX/bin/python' -m pip`: pip as the environment's own Python runs
/// it, whatever `pip` is first on `PATH`.
pub fn pip(prefix: &Path) -> Cmd {
    Cmd::default().path(prefix.join("bin/python")).raw("-m pip")
}

/// pip's requirements for `want`: the frameworks' own pins first, then
/// the toolkit's extras, cuDNN and the libraries outside the toolkit.
pub(super) fn pip_parts(want: &Want) -> Vec<String> {
    let cuda_major = want.cuda.and_then(major);
    let wants = |c: &str| want.components.contains(&c);
    let suffix = cuda_major.map(|m| format!("-cu{m}")).unwrap_or_default();
    let mut parts: Vec<String> = Vec::new();
    for (component, requirement) in &want.pinned {
        let requirement = if *component == "cudnn" {
            let r = narrowed(requirement, &want.cudnn_fit)
                .unwrap_or_else(|| requirement.replace(' ', ""));
            within_build_major(r, want.cudnn)
        } else {
            requirement.replace(' ', "")
        };
        if !parts.contains(&requirement) {
            parts.push(requirement);
        }
    }
    let wants = |c: &str| wants(c) && !want.pinned.iter().any(|(p, _)| *p == c);
    let mut extras: Vec<&str> = TOOLKIT_EXTRAS
        .iter()
        .copied()
        .filter(|c| wants(c))
        .collect();
    // libnvvm: in CUDA 12's nvcc wheel (nvidia/cuda_nvcc/nvvm/lib64), a
    // wheel and an extra of its own from CUDA 13 on (PyPI cuda-toolkit
    // 12.9.1 and 13.0.2 METADATA).
    if wants("nvvm") {
        extras.push(if cuda_major.is_some_and(|m| m <= 12) {
            "nvcc"
        } else {
            "nvvm"
        });
    }
    if !extras.is_empty() {
        let version = match want.cuda {
            Some(c) if c.contains('.') => format!("=={}.*", major_minor(c)),
            Some(c) => within_major(c).unwrap_or_default(),
            None => String::new(),
        };
        parts.push(format!("cuda-toolkit[{}]{version}", extras.join(",")));
    }
    if wants("cudnn") {
        let range = cudnn_range(want.cudnn, &want.cudnn_fit).unwrap_or_default();
        parts.push(format!("nvidia-cudnn{suffix}{range}"));
    }
    for (component, dist) in [
        ("nccl", "nvidia-nccl"),
        ("cusparselt", "nvidia-cusparselt"),
        ("cutensor", "cutensor"),
    ] {
        if wants(component) {
            parts.push(format!("{dist}{suffix}"));
        }
    }
    parts
}

/// conda's package specs for `want`: the CUDA line (cudatoolkit for 11,
/// cuda-version and the split packages after), cuDNN, NCCL.
pub(super) fn conda_parts(want: &Want) -> Vec<String> {
    let cuda_major = want.cuda.and_then(major);
    let wants = |c: &str| want.components.contains(&c);
    let mut parts = Vec::new();
    let libraries: Vec<&str> = want
        .components
        .iter()
        .copied()
        .filter(|c| !matches!(*c, "cudnn" | "nccl"))
        .collect();
    match (want.cuda, cuda_major) {
        _ if libraries.is_empty() => {}
        (Some(c), Some(m)) if m <= 11 => {
            parts.push(format!("cudatoolkit={}", major_minor(c)));
        }
        (cuda, _) => {
            if let Some(c) = cuda {
                parts.push(format!("cuda-version={}", major_minor(c)));
            }
            for component in libraries {
                if let Some(pkg) = CATALOG.conda_package_for(component, cuda_major)
                    && !parts.contains(&pkg)
                {
                    parts.push(pkg);
                }
            }
        }
    }
    if wants("cudnn") {
        let range = cudnn_range(want.cudnn, &want.cudnn_fit).unwrap_or_default();
        parts.push(format!("cudnn{range}"));
    }
    if wants("nccl") {
        parts.push("nccl".to_string());
    }
    parts
}

/// The command that writes (or refreshes) the environment's hooks, quoted
/// for pasting: what ends every fix that changes the library set.
pub fn refresh(prefix: &Path) -> Cmd {
    Cmd::new("envhook install -p").path(prefix)
}

/// `cmd && envhook install -p PREFIX`, to end a fix that changes the
/// library set (a venv's hooks too: `install` hooks its activation
/// scripts).
pub fn then_refresh(cmd: Cmd, prefix: &Path) -> Cmd {
    cmd.and(refresh(prefix))
}

/// `export LD_LIBRARY_PATH='DIR'${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}`:
/// `dir` first on the loader's path for this shell, with no empty entry
/// where the variable was unset.
pub fn export_first(dir: &Path) -> Cmd {
    Cmd::new("export LD_LIBRARY_PATH=")
        .glued_path(dir)
        .glued("${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
}

/// The fix where only envhook's hook puts a library on the loader's path:
/// the hooks (in a venv, run from its own activation scripts).
pub fn hook_fix(prefix: &Path) -> Fix {
    Fix::Command(refresh(prefix))
}
