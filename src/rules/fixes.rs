//! The commands findings suggest. Every fix that installs CUDA libraries
//! comes from [`install`], so that the fixes in one report agree: the same
//! installer (the one the environment's CUDA stack already uses, else the
//! framework's), the CUDA major the framework was built for, and version
//! ranges that keep the build's minor as the floor (a newer minor of the
//! same major works; another major does not). A framework's own pins come
//! first: a pip fix for a component the framework's METADATA pins is that
//! requirement, so the fix never breaks the pin it is judged by.

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
    /// Requirements the framework itself states for some of them
    /// (`nvidia-cublas-cu12>=12.5.3.2, <13.0`), installed as written by
    /// pip fixes in place of those components.
    pub pinned: Vec<(&'a str, &'a str)>,
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
    match installer {
        Installer::Pip => format!(
            "{p}/bin/python -m pip install {}",
            pip_parts(want).join(" ")
        ),
        Installer::Conda => format!(
            "conda install -p {p} -c conda-forge {}",
            conda_parts(want).join(" ")
        ),
    }
}

/// pip's requirements for `want`: the frameworks' own pins first, then
/// the toolkit's extras, cuDNN and the libraries outside the toolkit.
fn pip_parts(want: &Want) -> Vec<String> {
    let cuda_major = want.cuda.and_then(major);
    let wants = |c: &str| want.components.contains(&c);
    let suffix = cuda_major.map(|m| format!("-cu{m}")).unwrap_or_default();
    let mut parts: Vec<String> = Vec::new();
    for (_, requirement) in &want.pinned {
        let quoted = format!("'{}'", requirement.replace(' ', ""));
        if !parts.contains(&quoted) {
            parts.push(quoted);
        }
    }
    let wants = |c: &str| wants(c) && !want.pinned.iter().any(|(p, _)| *p == c);
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
fn conda_parts(want: &Want) -> Vec<String> {
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
    parts
}

/// The command that writes (or refreshes) the environment's hooks, quoted
/// for pasting: what ends every fix that changes the library set.
pub fn refresh(prefix: &Path) -> String {
    format!(
        "envhook install -p {}",
        crate::activation::shell::quote::posix(&prefix.display().to_string())
    )
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
    let pinned = components
        .iter()
        .filter_map(|c| pin_for(fw, c).map(|r| (*c, r)))
        .collect();
    let want = Want {
        cuda: n.cuda.as_deref(),
        cudnn: n.cudnn.as_deref(),
        components: components.to_vec(),
        pinned,
    };
    install(&want, stack_installer(f, fw), &f.inv.prefix)
}

/// For a pip package whose name carries the CUDA major it is built for
/// (`cupy-cuda11x`), the same release built for `major`, in its place
/// (`cupy-cuda12x==13.3.0`), then the hooks refreshed: when the
/// environment's CUDA is another major, that is the one fix (installing
/// the other major's libraries beside it would put two CUDA releases'
/// `libcurand.so.10` in one directory).
pub fn rebuilt_for(f: &Facts, fw: &FrameworkBuild, major: u32) -> Option<String> {
    if fw.installer != Installer::Pip {
        return None;
    }
    let have = crate::inventory::builds::cuda_major_in_name(&fw.package)?;
    let other = fw
        .package
        .split('-')
        .map(|part| match part.strip_suffix('x').unwrap_or(part) {
            p if p.ends_with(have) && (p.starts_with("cuda") || p.starts_with("cu")) => {
                part.replacen(have, &major.to_string(), 1)
            }
            _ => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join("-");
    let python = f.inv.prefix.join("bin/python");
    Some(format!(
        "{py} -m pip uninstall -y {old} && {py} -m pip install '{other}=={version}' && {refresh}",
        py = python.display(),
        old = fw.package,
        version = fw.version,
        refresh = refresh(&f.inv.prefix)
    ))
}

/// The framework's own requirement on the distribution that provides
/// `component`: a pin on that wheel, or on a `cuda-toolkit` whose extras
/// name it (torch's `cuda-toolkit[cublas,cudart,...]==13.2.2`); those it
/// is held to first, then those of an extra it was installed without.
pub(crate) fn pin_for<'a>(fw: &'a FrameworkBuild, component: &str) -> Option<&'a str> {
    use crate::data::catalog::Role;
    fw.pins
        .iter()
        .chain(fw.fix_pins.iter())
        .find(|p| {
            if p.name == "cuda-toolkit" {
                return p
                    .requirement
                    .split_once('[')
                    .and_then(|(_, rest)| rest.split_once(']'))
                    .is_some_and(|(extras, _)| extras.split(',').any(|e| e.trim() == component));
            }
            CATALOG.pip(&p.name).is_some_and(|(row, _)| match row.role {
                Role::Cudnn => component == "cudnn",
                Role::Nccl => component == "nccl",
                Role::CudaLibrary => row.lib.as_deref() == Some(component),
                _ => false,
            })
        })
        .map(|p| p.requirement.as_str())
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
            pinned: Vec::new(),
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
            pinned: Vec::new(),
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
        // The framework's own pins replace what they cover.
        let tf = Want {
            cuda: Some("12.5.1"),
            cudnn: Some("9"),
            components: vec!["cublas", "cufft", "cudnn"],
            pinned: vec![
                ("cublas", "nvidia-cublas-cu12>=12.5.3.2, <13.0"),
                ("cudnn", "nvidia-cudnn-cu12>=9.3.0.75, <10"),
            ],
        };
        assert_eq!(
            install(&tf, Installer::Pip, p),
            "/e/bin/python -m pip install 'nvidia-cublas-cu12>=12.5.3.2,<13.0' \
             'nvidia-cudnn-cu12>=9.3.0.75,<10' 'cuda-toolkit[cufft]==12.5.*'"
        );
    }
}
