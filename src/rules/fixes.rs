//! The commands findings suggest. Every fix that installs CUDA libraries
//! comes from [`install`], so that the fixes in one report agree: the same
//! installer (the one the environment's CUDA stack already uses, else the
//! framework's), the CUDA major the framework was built for, and version
//! ranges that keep the build's minor as the floor (a newer minor of the
//! same major works; another major does not).

use std::path::Path;

use super::Facts;
use super::needs::needs;
use crate::data::catalog::CATALOG;
use crate::data::matrix::{major, major_minor};
use crate::inventory::{FrameworkBuild, Installer};

/// What to install: the CUDA the libraries must belong to, the cuDNN when
/// it is wanted, and the components.
#[derive(Debug, Clone, Default)]
pub struct Want<'a> {
    /// `X.Y` (or a bare major) the build targets.
    pub cuda: Option<&'a str>,
    /// The cuDNN the build was made with (`8.6`, `9.26.0.51`).
    pub cudnn: Option<&'a str>,
    /// Catalogue components (`cudart`, `cublas`, `cudnn`, `nccl`, ...).
    pub components: Vec<&'a str>,
}

/// `>=A.B,<A+1`: the floor a build needs, within its major.
fn within_major(v: &str) -> Option<String> {
    let m = major(v)?;
    if v.contains('.') {
        Some(format!(">={},<{}", major_minor(v), m + 1))
    } else {
        Some(format!(">={m},<{}", m + 1))
    }
}

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
pub fn install(want: &Want, installer: Installer, prefix: &Path) -> String {
    let p = prefix.display();
    let cuda_major = want.cuda.and_then(major);
    let wants = |c: &str| want.components.contains(&c);
    match installer {
        Installer::Pip => {
            let suffix = cuda_major.map(|m| format!("-cu{m}")).unwrap_or_default();
            let mut parts = Vec::new();
            let extras: Vec<&str> = TOOLKIT_EXTRAS
                .iter()
                .copied()
                .filter(|c| wants(c))
                .collect();
            if !extras.is_empty() {
                let version = match want.cuda {
                    Some(c) if c.contains('.') => format!("=={}.*", major_minor(c)),
                    Some(c) => within_major(c).unwrap_or_default(),
                    None => String::new(),
                };
                parts.push(format!("'cuda-toolkit[{}]{version}'", extras.join(",")));
            }
            if wants("cudnn") {
                let range = want.cudnn.and_then(within_major).unwrap_or_default();
                parts.push(format!("'nvidia-cudnn{suffix}{range}'"));
            }
            for (component, dist) in [("nccl", "nvidia-nccl"), ("cusparselt", "nvidia-cusparselt")]
            {
                if wants(component) {
                    parts.push(format!("{dist}{suffix}"));
                }
            }
            format!("{p}/bin/python -m pip install {}", parts.join(" "))
        }
        Installer::Conda => {
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
                let range = want.cudnn.and_then(within_major).unwrap_or_default();
                parts.push(if range.is_empty() {
                    "cudnn".into()
                } else {
                    format!("'cudnn{range}'")
                });
            }
            if wants("nccl") {
                parts.push("nccl".into());
            }
            format!("conda install -p {p} -c conda-forge {}", parts.join(" "))
        }
    }
}

/// The installer fixes use: the one the environment's CUDA stack already
/// uses, else the framework's.
pub fn stack_installer(f: &Facts, fw: &FrameworkBuild) -> Installer {
    f.inv.cuda.first().map_or(fw.installer, |c| c.installer)
}

/// The command that installs `components` of the CUDA stack a framework
/// build was made for.
pub fn for_framework(f: &Facts, fw: &FrameworkBuild, components: &[&str]) -> String {
    let n = needs(fw, f.matrix).unwrap_or_default();
    let want = Want {
        cuda: n.cuda.as_deref(),
        cudnn: n.cudnn.as_deref(),
        components: components.to_vec(),
    };
    install(&want, stack_installer(f, fw), &f.inv.prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_command_per_installer_and_cuda_major() {
        let p = Path::new("/e");
        let paddle = Want {
            cuda: Some("11.8"),
            cudnn: Some("8.6.0"),
            components: vec!["cudart", "cublas", "cudnn", "curand", "nccl"],
        };
        assert_eq!(
            install(&paddle, Installer::Pip, p),
            "/e/bin/python -m pip install 'cuda-toolkit[cudart,cublas,curand]==11.8.*' \
             'nvidia-cudnn-cu11>=8.6,<9' nvidia-nccl-cu11"
        );
        assert_eq!(
            install(&paddle, Installer::Conda, p),
            "conda install -p /e -c conda-forge cudatoolkit=11.8 'cudnn>=8.6,<9' nccl"
        );
        let torch = Want {
            cuda: Some("12.6"),
            cudnn: Some("9.10.2.21"),
            components: vec!["cudart", "cudnn"],
        };
        assert_eq!(
            install(&torch, Installer::Conda, p),
            "conda install -p /e -c conda-forge cuda-version=12.6 cuda-cudart 'cudnn>=9.10,<10'"
        );
        let cudnn_only = Want {
            components: vec!["cudnn"],
            ..paddle.clone()
        };
        assert_eq!(
            install(&cudnn_only, Installer::Conda, p),
            "conda install -p /e -c conda-forge 'cudnn>=8.6,<9'"
        );
        assert_eq!(
            install(&torch, Installer::Pip, p),
            "/e/bin/python -m pip install 'cuda-toolkit[cudart]==12.6.*' 'nvidia-cudnn-cu12>=9.10,<10'"
        );
    }
}
