//! The commands findings suggest. Every fix that installs CUDA libraries
//! comes from [`install`], so that the fixes in one report agree: the same
//! installer (the one the environment's CUDA stack already uses, else the
//! framework's), the CUDA major the framework was built for, and version
//! ranges that keep the build's minor as the floor (a newer minor of the
//! same major works; another major does not). A framework's own pins come
//! first: a pip fix for a component the framework's METADATA pins is that
//! requirement, so the fix never breaks the pin it is judged by.

mod commands;
mod ranges;

use super::Facts;
use super::for_gpu::{CudnnFit, build_fix, build_for_major, ccs, cudnn_fit};
use crate::data::catalog::CATALOG;
use crate::data::matrix::major;
use crate::finding::{Cmd, Fix};
use crate::inventory::needs::needs;
use crate::inventory::{FrameworkBuild, Installer};
pub use commands::{
    conda_install, export_first, hook_fix, install, install_with, pip, pip_install, refresh,
    then_refresh,
};
use commands::{conda_parts, pip_parts};
use ranges::{cudnn_range, narrowed};

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
    /// What the GPUs need of cuDNN (`<9.11` on Volta, `9.7` on Blackwell):
    /// ranges and pins are narrowed to it.
    pub cudnn_fit: CudnnFit,
}

/// The installer fixes use: the one the environment's CUDA stack already
/// uses, else the framework's.
pub fn stack_installer(f: &Facts, fw: &FrameworkBuild) -> Installer {
    f.inv.cuda.first().map_or(fw.installer, |c| c.installer)
}

/// The command that installs `components` of the CUDA stack a framework
/// build was made for (or, where no cuDNN fits both it and the GPUs, the
/// build to choose instead).
pub fn for_framework(f: &Facts, fw: &FrameworkBuild, components: &[&str]) -> Fix {
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
        cudnn_fit: cudnn_fit(f),
    };
    // cuDNN this build needs and the GPU has no kernels in: the build is
    // what must change.
    if components.contains(&"cudnn") && conflicts(&want) {
        let sm = ccs(f)
            .first()
            .map(|cc| cc.replace('.', ""))
            .unwrap_or_default();
        return build_fix(f, fw, &sm).fix;
    }
    // The environment's own copies of them are all another CUDA major's:
    // the build for that major, not a second CUDA line beside it.
    if let Some(cmd) = held_major(f, components)
        .filter(|m| n.cuda.as_deref().and_then(major) != Some(*m))
        .and_then(|m| replacement(f, fw, m))
    {
        return Fix::Command(cmd);
    }
    let installer = stack_installer(f, fw);
    if want.pinned.is_empty()
        && installer == Installer::Pip
        && fw.installer == Installer::Pip
        && let Some(command) = with_extra(f, fw, components)
    {
        return Fix::Command(command);
    }
    let parts = match installer {
        Installer::Pip => pip_parts(&want),
        Installer::Conda => conda_parts(&want),
    };
    if parts.is_empty() {
        // Never a command that installs nothing (TensorRT from pip).
        return Fix::advice(format!(
            "install {} for {} {} from where its vendor ships it: envhook's data names no {} \
             package for it",
            components.join(", "),
            fw.package,
            fw.version,
            installer.label()
        ));
    }
    Fix::Command(install(&want, installer, &f.inv.prefix))
}

/// No cuDNN release both satisfies `want`'s build or pin and has kernels
/// for the GPUs.
fn conflicts(want: &Want) -> bool {
    match want.pinned.iter().find(|(c, _)| *c == "cudnn") {
        Some((_, requirement)) => narrowed(requirement, &want.cudnn_fit).is_none(),
        None => cudnn_range(want.cudnn, &want.cudnn_fit).is_none(),
    }
}

/// For a pip package whose name carries the CUDA major it is built for
/// (`cupy-cuda11x`), the same release built for `major`, in its place
/// (`cupy-cuda12x==13.3.0`): when the environment's CUDA is another
/// major, that is the one fix (installing
/// the other major's libraries beside it would put two CUDA releases'
/// `libcurand.so.10` in one directory).
fn rebuilt_for(f: &Facts, fw: &FrameworkBuild, major: u32) -> Option<Cmd> {
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
    let py = || pip(&f.inv.prefix);
    let swap = py()
        .raw("uninstall -y")
        .arg(&fw.package)
        .and(py().raw("install").arg(format!("{other}=={}", fw.version)));
    Some(swap)
}

/// The CUDA major of every package in the environment that provides one
/// of `components`, where they agree and say (a pip wheel's `-cu12`, a
/// conda package's `cuda-version`); `None` where none is held.
fn held_major(f: &Facts, components: &[&str]) -> Option<u32> {
    let mut majors = f
        .inv
        .packages
        .iter()
        .filter(|p| {
            p.component
                .as_deref()
                .is_some_and(|c| components.contains(&c))
        })
        .map(|p| p.cuda_major);
    let first = majors.next()??;
    majors.all(|m| m == Some(first)).then_some(first)
}

/// The command that replaces a build of one CUDA major with one of
/// `cuda_major`, the major the environment's libraries are: the same
/// release under the name of that major ([`rebuilt_for`]), else the
/// framework's newest build made with it ([`build_for_major`]). The one
/// answer to "a build of another major than the libraries held", for
/// every rule that gives it.
fn replacement(f: &Facts, fw: &FrameworkBuild, cuda_major: u32) -> Option<Cmd> {
    rebuilt_for(f, fw, cuda_major).or_else(|| build_for_major(f, fw, cuda_major).map(|(_, c)| c))
}

/// [`replacement`], then the hooks refreshed for the libraries it brings.
pub fn for_major(f: &Facts, fw: &FrameworkBuild, cuda_major: u32) -> Option<Cmd> {
    replacement(f, fw, cuda_major).map(|cmd| then_refresh(cmd, &f.inv.prefix))
}

/// The framework's own requirement on the distribution that provides
/// `component`: a pin on that wheel, or on a `cuda-toolkit` whose extras
/// name it (torch's `cuda-toolkit[cublas,cudart,...]==13.2.2`); those it
/// is held to first, then those of an extra it was installed without.
/// A pin for another CUDA major than the build's is never one: jax's
/// METADATA names `cuda11_pip`'s `nvidia-cudnn-cu11` before `cuda12_pip`'s
/// `nvidia-cudnn-cu12`, and a CUDA 12 jaxlib wants the second.
pub(crate) fn pin_for<'a>(fw: &'a FrameworkBuild, component: &str) -> Option<&'a str> {
    let build = match &fw.build.variant {
        crate::inventory::builds::Variant::Cuda { cuda: Some(c), .. } => major(c),
        _ => None,
    };
    fw.pins
        .iter()
        .chain(fw.fix_pins.iter())
        .filter(|p| build.is_none_or(|b| pin_major(p).is_none_or(|m| m == b)))
        .find(|p| provides(p, component))
        .map(|p| p.requirement.as_str())
}

/// The CUDA major a pin installs, where it says: the `-cuNN` of a wheel's
/// name, or a `cuda-toolkit` release's.
fn pin_major(p: &crate::inventory::pins::Pin) -> Option<u32> {
    if p.name == "cuda-toolkit" {
        return p.floor().as_deref().and_then(major);
    }
    CATALOG.pip(&p.name).and_then(|(_, m)| m)
}

/// Whether installing pin `p` installs `component`: a `cuda-toolkit[...]`
/// extra naming it, or the wheel the catalogue has for it.
fn provides(p: &crate::inventory::pins::Pin, component: &str) -> bool {
    use crate::data::catalog::Role;
    if p.name == "cuda-toolkit" {
        return p
            .requirement
            .split_once('[')
            .and_then(|(_, rest)| rest.split_once(']'))
            .is_some_and(|(extras, _)| {
                // CUDA 12's libnvvm is in its nvcc wheel.
                extras
                    .split(',')
                    .any(|e| e.trim() == component || (component == "nvvm" && e.trim() == "nvcc"))
            });
    }
    CATALOG.pip(&p.name).is_some_and(|(row, _)| match row.role {
        Role::Cudnn => component == "cudnn",
        Role::Nccl => component == "nccl",
        Role::CudaLibrary => row.lib.as_deref() == Some(component),
        _ => false,
    })
}

/// Whether one of the extras that stand in for each other (numba-cuda's
/// `cu12`, `cu13`) installs `component`: the package asks for it, in
/// whichever CUDA major.
pub(crate) fn named_by_alternatives(fw: &FrameworkBuild, component: &str) -> bool {
    fw.alt_pins.iter().any(|p| provides(p, component))
}

/// `pip install 'numba-cuda[cu13]==0.30.4'`: the package with the extra,
/// of those that stand in for each other, that installs `components` for
/// the CUDA major here (the environment's CUDA runtime, else the
/// driver's, else the newest), as its own users install it.
fn with_extra(f: &Facts, fw: &FrameworkBuild, components: &[&str]) -> Option<Cmd> {
    let mut extras: Vec<(&str, Option<u32>)> = Vec::new();
    for p in &fw.alt_pins {
        let Some(extra) = p.extra.as_deref() else {
            continue;
        };
        let pins = || {
            fw.alt_pins
                .iter()
                .filter(|q| q.extra.as_deref() == Some(extra))
        };
        let all = components.iter().all(|c| pins().any(|q| provides(q, c)));
        if all && !extras.iter().any(|(e, _)| *e == extra) {
            // `cu12`, or the toolkit's `==12.*`.
            let major = extra
                .strip_prefix("cu")
                .and_then(|m| m.parse().ok())
                .or_else(|| {
                    pins()
                        .find(|q| q.name == "cuda-toolkit")
                        .and_then(|q| q.requirement.split_once("=="))
                        .and_then(|(_, v)| major(v))
                });
            extras.push((extra, major));
        }
    }
    let here = f
        .inv
        .cuda
        .first()
        .and_then(|c| major(&c.version))
        .or_else(|| f.machine.driver.max_cuda.as_deref().and_then(major));
    let (extra, _) = extras
        .iter()
        .find(|(_, m)| here.is_some() && *m == here)
        .or_else(|| extras.iter().max_by_key(|(_, m)| *m))?;
    Some(
        pip(&f.inv.prefix)
            .raw("install")
            .arg(format!("{}[{extra}]=={}", fw.package, fw.version)),
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::ranges::requirement_floor;
    use super::*;

    #[test]
    fn one_command_per_installer_and_cuda_major() {
        let p = Path::new("/e");
        let paddle = Want {
            cuda: Some("11.8"),
            cudnn: Some("8.6.0"),
            components: vec!["cudart", "cublas", "cudnn", "curand", "nccl"],
            pinned: Vec::new(),
            cudnn_fit: CudnnFit::default(),
        };
        assert_eq!(
            install(&paddle, Installer::Pip, p).to_string(),
            "'/e/bin/python' -m pip install 'cuda-toolkit[cudart,cublas,curand]==11.8.*' \
             'nvidia-cudnn-cu11>=8.6,<9' 'nvidia-nccl-cu11'"
        );
        assert_eq!(
            install(&paddle, Installer::Conda, p).to_string(),
            "conda install -p '/e' -c conda-forge 'cudatoolkit=11.8' 'cudnn>=8.6,<9' 'nccl'"
        );
        let torch = Want {
            cuda: Some("12.6"),
            cudnn: Some("9.10.2.21"),
            components: vec!["cudart", "cudnn"],
            pinned: Vec::new(),
            cudnn_fit: CudnnFit::default(),
        };
        assert_eq!(
            install(&torch, Installer::Conda, p).to_string(),
            "conda install -p '/e' -c conda-forge 'cuda-version=12.6' 'cuda-cudart' 'cudnn>=9.10,<10'"
        );
        let cudnn_only = Want {
            components: vec!["cudnn"],
            ..paddle.clone()
        };
        assert_eq!(
            install(&cudnn_only, Installer::Conda, p).to_string(),
            "conda install -p '/e' -c conda-forge 'cudnn>=8.6,<9'"
        );
        assert_eq!(
            install(&torch, Installer::Pip, p).to_string(),
            "'/e/bin/python' -m pip install 'cuda-toolkit[cudart]==12.6.*' 'nvidia-cudnn-cu12>=9.10,<10'"
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
            cudnn_fit: CudnnFit::default(),
        };
        assert_eq!(
            install(&tf, Installer::Pip, p).to_string(),
            "'/e/bin/python' -m pip install 'nvidia-cublas-cu12>=12.5.3.2,<13.0' \
             'nvidia-cudnn-cu12>=9.3.0.75,<10' 'cuda-toolkit[cufft]==12.5.*'"
        );
    }

    #[test]
    fn cudnn_ranges_fit_the_gpus() {
        let volta = CudnnFit {
            floor: None,
            cap: Some("<9.11".into()),
        };
        let blackwell = CudnnFit {
            floor: Some("9.7".into()),
            cap: None,
        };
        let none = CudnnFit::default();
        assert_eq!(
            cudnn_range(Some("9.10.2.21"), &none).as_deref(),
            Some(">=9.10,<10")
        );
        assert_eq!(
            cudnn_range(Some("9.10.2.21"), &volta).as_deref(),
            Some(">=9.10,<9.11")
        );
        assert_eq!(cudnn_range(Some("9"), &volta).as_deref(), Some(">=9,<9.11"));
        assert_eq!(
            cudnn_range(Some("8.9"), &volta).as_deref(),
            Some(">=8.9,<9")
        );
        assert_eq!(cudnn_range(None, &volta).as_deref(), Some("<9.11"));
        assert_eq!(
            cudnn_range(Some("9.26.0.51"), &volta),
            None,
            "no such release"
        );
        assert_eq!(
            cudnn_range(Some("9.0"), &blackwell).as_deref(),
            Some(">=9.7,<10")
        );
        assert_eq!(
            cudnn_range(Some("8.9"), &blackwell),
            None,
            "cuDNN 8 has no Blackwell"
        );
        let pin = "nvidia-cudnn-cu12>=9.3.0.75, <10";
        assert_eq!(
            narrowed(pin, &volta).as_deref(),
            Some("nvidia-cudnn-cu12>=9.3.0.75,<10,<9.11")
        );
        assert_eq!(
            narrowed(pin, &blackwell).as_deref(),
            Some("nvidia-cudnn-cu12>=9.3.0.75,<10,>=9.7")
        );
        assert_eq!(narrowed("nvidia-cudnn-cu13==9.26.0.51", &volta), None);
        assert_eq!(
            requirement_floor("nvidia-cudnn-cu12 >= 9.3.0.75, <10"),
            Some("9.3.0.75")
        );
        assert_eq!(requirement_floor("nvidia-cudnn-cu12"), None);
    }

    /// libnvvm is in CUDA 12's nvcc wheel and a wheel of its own from 13
    /// on; TensorRT has no pip part, so the caller gets no command.
    #[test]
    fn nvvm_by_major_and_nothing_to_install_is_no_command() {
        let want = |cuda, components| Want {
            cuda,
            cudnn: None,
            components,
            pinned: Vec::new(),
            cudnn_fit: CudnnFit::default(),
        };
        assert_eq!(
            pip_parts(&want(Some("12.4"), vec!["nvvm"])),
            ["cuda-toolkit[nvcc]==12.4.*"]
        );
        assert_eq!(
            pip_parts(&want(Some("13.0"), vec!["nvrtc", "nvvm"])),
            ["cuda-toolkit[nvrtc,nvvm]==13.0.*"]
        );
        assert_eq!(pip_parts(&want(None, vec!["nvvm"])), ["cuda-toolkit[nvvm]"]);
        assert!(pip_parts(&want(Some("12.4"), vec!["tensorrt"])).is_empty());
    }
}
