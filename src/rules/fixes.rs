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
use super::for_gpu::{CudnnFit, above_cap, build_fix, build_for_major, ccs, cudnn_fit};
use crate::data::catalog::CATALOG;
use crate::data::matrix::{major, major_minor, version};
use crate::finding::{Cmd, Fix};
use crate::inventory::needs::needs;
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
    /// What the GPUs need of cuDNN (`<9.11` on Volta, `9.7` on Blackwell):
    /// ranges and pins are narrowed to it.
    pub cudnn_fit: CudnnFit,
}

/// The cuDNN range a fix installs: the build's major from its minor on,
/// narrowed to what the GPUs need (`>=9.0,<9.11` on a V100). `None` when
/// no release is both: the build needs cuDNN the GPU has no kernels in.
fn cudnn_range(build: Option<&str>, fit: &CudnnFit) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut floor = build.map(|b| {
        if b.contains('.') {
            major_minor(b)
        } else {
            b.to_string()
        }
    });
    if let Some(gpu) = &fit.floor {
        match (&floor, build.and_then(major)) {
            (Some(have), Some(m)) if version(gpu) > version(have) => {
                if major(gpu) != Some(m) {
                    return None;
                }
                floor = Some(gpu.clone());
            }
            (None, _) => floor = Some(gpu.clone()),
            _ => {}
        }
    }
    if let Some(low) = &floor {
        parts.push(format!(">={low}"));
    }
    match (&fit.cap, &floor) {
        (Some(cap), Some(low)) if above_cap(low, cap) => return None,
        _ => {}
    }
    let cap = fit.cap.as_deref();
    if let Some(m) = build.and_then(major) {
        let end = format!("<{}", m + 1);
        if cap.is_none_or(|c| !above_cap(&(m + 1).to_string(), c)) {
            parts.push(end);
        }
    }
    if let Some(cap) = cap
        && build
            .and_then(major)
            .is_none_or(|m| above_cap(&(m + 1).to_string(), cap))
    {
        parts.push(cap.to_string());
    }
    Some(parts.join(","))
}

/// A framework's own cuDNN requirement narrowed to what the GPUs need:
/// `nvidia-cudnn-cu12>=9.3.0.75,<10` plus `,<9.11` on Volta. `None` when
/// its floor is past what the GPUs run.
fn narrowed(requirement: &str, fit: &CudnnFit) -> Option<String> {
    let mut out = requirement.replace(' ', "");
    let floor = requirement_floor(requirement);
    if let (Some(low), Some(cap)) = (floor, &fit.cap)
        && above_cap(low, cap)
    {
        return None;
    }
    if let Some(gpu) = &fit.floor
        && floor.is_none_or(|low| version(gpu) > version(low))
    {
        out.push_str(&format!(",>={gpu}"));
    }
    if let Some(cap) = &fit.cap {
        out.push(',');
        out.push_str(cap);
    }
    Some(out)
}

/// A cuDNN requirement open above (jax 0.4.23's `nvidia-cudnn-cu12>=8.9`)
/// closed at the build's cuDNN major: cuDNN 9 has another soname
/// (`libcudnn.so.9`) than the `libcudnn.so.8` a cuDNN 8 build loads.
fn within_build_major(requirement: String, build: Option<&str>) -> String {
    match build.and_then(major) {
        Some(m) if !requirement.contains('<') && !requirement.contains("==") => {
            format!("{requirement},<{}", m + 1)
        }
        _ => requirement,
    }
}

/// The lower end a pip requirement states: `>=9.3.0.75` or `==9.26.0.51`.
fn requirement_floor(requirement: &str) -> Option<&str> {
    let at = requirement.find(">=").or_else(|| requirement.find("=="))?;
    let rest = requirement[at + 2..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .unwrap_or(rest.len());
    Some(&rest[..end]).filter(|v| !v.is_empty())
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
fn pip_parts(want: &Want) -> Vec<String> {
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
        .and_then(|m| build_for_major(f, fw, m))
    {
        return Fix::Command(cmd.1);
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
/// (`cupy-cuda12x==13.3.0`), then the hooks refreshed: when the
/// environment's CUDA is another major, that is the one fix (installing
/// the other major's libraries beside it would put two CUDA releases'
/// `libcurand.so.10` in one directory).
pub fn rebuilt_for(f: &Facts, fw: &FrameworkBuild, major: u32) -> Option<Cmd> {
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
    Some(then_refresh(swap, &f.inv.prefix))
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
/// framework's newest build made with it ([`build_for_major`]).
pub fn for_major(f: &Facts, fw: &FrameworkBuild, cuda_major: u32) -> Option<Cmd> {
    rebuilt_for(f, fw, cuda_major).or_else(|| {
        build_for_major(f, fw, cuda_major).map(|(_, cmd)| then_refresh(cmd, &f.inv.prefix))
    })
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
