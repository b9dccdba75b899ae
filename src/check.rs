//! `envhook check`'s logic: the environment's inventory against the
//! compatibility matrix, the machine's driver and GPUs, and the loader's
//! view of the framework libraries. Every finding says what is wrong, why,
//! and the command that fixes it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::activation::spec::{HookSpec, Mode};
use crate::activation::status::{self, HookStatus};
use crate::data::catalog::{CATALOG, Framework};
use crate::data::matrix::{self, Matrix, major, major_minor, version};
use crate::discovery::Context;
use crate::inventory::builds::Variant;
use crate::inventory::{Claim, FrameworkBuild, Installer, Inventory, LibStatus};
use crate::machine::driver::{Driver, Source};
use crate::machine::elf::{self, ElfInfo};
use crate::machine::ldcache::LdCache;
use crate::machine::resolve::{Found, Search, SearchDir};
use crate::report::{Problem, Severity};

/// Identifies the JSON document of `envhook check --json`.
pub const SCHEMA: &str = "envhook.check/1";

/// How one name resolves with and without envhook's hook.
#[derive(Debug, Clone, Serialize)]
pub struct NameCheck {
    /// The soname.
    pub name: String,
    /// `needed` (DT_NEEDED) or `dlopen` (loaded by name at run time).
    pub kind: &'static str,
    /// With the hook's directories first on `LD_LIBRARY_PATH` (simulated
    /// when the hooks are not installed yet).
    pub with_hook: Option<Found>,
    /// With `LD_LIBRARY_PATH` as it is, minus envhook's directories.
    pub without_hook: Option<Found>,
}

/// The loader's view of one framework library.
#[derive(Debug, Clone, Serialize)]
pub struct LibraryCheck {
    /// Which framework.
    pub framework: Framework,
    /// The object.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub object: PathBuf,
    /// Its ELF facts.
    pub elf: Option<ElfInfo>,
    /// The CUDA-stack names it needs.
    pub names: Vec<NameCheck>,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The environment.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub prefix: PathBuf,
    /// The matrix data version used.
    pub matrix_version: String,
    /// The driver and GPUs.
    pub driver: Driver,
    /// envhook's hooks in the environment.
    pub hook: HookStatus,
    /// The environment's CUDA runtimes.
    pub cuda: Vec<Claim>,
    /// Its cuDNN.
    pub cudnn: Vec<Claim>,
    /// Its framework builds.
    pub frameworks: Vec<FrameworkBuild>,
    /// Library resolution of the frameworks' core objects.
    pub libraries: Vec<LibraryCheck>,
    /// Everything found, most severe first.
    pub findings: Vec<Problem>,
}

fn finding(
    severity: Severity,
    code: &'static str,
    message: String,
    hint: Option<String>,
) -> Problem {
    Problem {
        severity,
        code,
        message,
        hint,
        path: None,
        source: None,
    }
}

/// Attach the matrix row a finding rests on, and say so when the row is
/// marked uncertain.
fn sourced(mut p: Problem, source: &str, confidence: matrix::Confidence) -> Problem {
    if confidence == matrix::Confidence::Uncertain {
        p.message
            .push_str(" (this rests on a matrix row marked uncertain)");
    }
    p.source = Some(source.to_string());
    p
}

/// The release part of a version: `2.5.2.post116` -> `2.5.2`,
/// `2.1.0+cu118` -> `2.1.0`.
fn release_of(v: &str) -> String {
    let v = v.split('+').next().unwrap_or(v);
    match v.split_once(".post") {
        Some((r, _)) => r.to_string(),
        None => v.to_string(),
    }
}

/// The build tag as the matrix names it.
fn tag_of(fw: &FrameworkBuild) -> String {
    if let Some((_, local)) = fw.version.split_once('+') {
        return local.split('.').next().unwrap_or(local).to_string();
    }
    if let Some((_, post)) = fw.version.split_once(".post") {
        return format!("post{post}");
    }
    if let Some(m) = fw
        .package
        .strip_prefix("jax-cuda")
        .and_then(|r| r.split('-').next())
    {
        return format!("cuda{m}");
    }
    "default".into()
}

/// What a framework build needs, from its own record and the matrix.
#[derive(Debug, Default)]
struct Needs {
    cuda: Option<String>,
    cudnn: Option<String>,
    min_cc: Option<String>,
    max_cc: Option<String>,
    /// The matrix row used, if any: its source and confidence.
    row: Option<(String, matrix::Confidence)>,
}

fn needs(fw: &FrameworkBuild, m: &Matrix) -> Option<Needs> {
    let (cuda, cudnn) = match &fw.build.variant {
        Variant::Cuda { cuda, cudnn } => (cuda.clone(), cudnn.clone()),
        Variant::Unknown => (None, None),
        Variant::Cpu | Variant::Rocm { .. } => return None,
    };
    let release = release_of(&fw.version);
    let row = m
        .framework(fw.framework, &release, &tag_of(fw))
        .or_else(|| {
            cuda.as_deref()
                .and_then(|c| m.framework_by_cuda(fw.framework, &release, c))
        });
    // A plain PyPI version of an unknown build: nothing to check against.
    if row.is_none() && cuda.is_none() {
        return None;
    }
    Some(Needs {
        cuda: cuda.or_else(|| row.map(|r| r.cuda.clone())),
        cudnn: cudnn.or_else(|| row.and_then(|r| r.cudnn.clone())),
        min_cc: row.and_then(|r| r.min_cc.clone()),
        max_cc: row.and_then(|r| r.max_cc.clone()),
        row: row.map(|r| (r.source.clone(), r.confidence)),
    })
}

/// The claim a framework will use: the same installer's first, else any.
fn preferred(claims: &[Claim], installer: Installer) -> Option<&Claim> {
    claims
        .iter()
        .find(|c| c.installer == installer)
        .or(claims.first())
}

/// `8.4.0` vs `8.2.1` on major.minor (cuDNN and CUDA are ABI-stable within
/// a major; the minor decides which symbols exist).
fn older_minor(have: &str, need: &str) -> bool {
    match (version(&major_minor(have)), version(&major_minor(need))) {
        (Some(h), Some(n)) => need.contains('.') && h < n,
        _ => false,
    }
}

/// The command that installs a CUDA runtime of `cuda` in the style of the
/// framework's installer.
fn cuda_install_hint(cuda: &str, installer: Installer, prefix: &Path) -> String {
    let mm = major_minor(cuda);
    let p = prefix.display();
    match (installer, major(cuda)) {
        (Installer::Pip, Some(maj)) if maj >= 13 => {
            format!("{p}/bin/python -m pip install nvidia-cuda-runtime=={mm}.*")
        }
        (Installer::Pip, Some(maj)) => {
            format!("{p}/bin/python -m pip install nvidia-cuda-runtime-cu{maj}")
        }
        (_, Some(maj)) if maj <= 11 => {
            format!("conda install -p {p} -c conda-forge cudatoolkit={mm}")
        }
        _ => format!("conda install -p {p} -c conda-forge cuda-version={mm} cuda-cudart libcublas"),
    }
}

fn cudnn_install_hint(
    cudnn: &str,
    installer: Installer,
    cuda: Option<&str>,
    prefix: &Path,
) -> String {
    let mm = major_minor(cudnn);
    let p = prefix.display();
    match installer {
        Installer::Pip => {
            let suffix = cuda
                .and_then(major)
                .map(|m| format!("-cu{m}"))
                .unwrap_or_default();
            format!("{p}/bin/python -m pip install 'nvidia-cudnn{suffix}=={mm}.*'")
        }
        Installer::Conda => format!("conda install -p {p} -c conda-forge cudnn={mm}"),
    }
}

/// What is the same for every environment on a machine: read once, even
/// when `audit` checks hundreds of environments.
#[derive(Debug)]
pub struct Machine {
    /// The driver and GPUs.
    pub driver: Driver,
    /// `/etc/ld.so.cache` (under the sysroot): none on musl systems, or why
    /// it could not be read.
    pub cache: Result<Option<LdCache>, String>,
}

impl Machine {
    /// Read the loader cache; the driver is detected by the caller.
    pub fn new(driver: Driver, ctx: &Context) -> Self {
        Machine {
            driver,
            cache: LdCache::read(&ctx.system_path("/etc/ld.so.cache")),
        }
    }
}

/// Run every check.
pub fn run(inv: &Inventory, m: &Matrix, machine: &Machine, ctx: &Context) -> Report {
    let driver = machine.driver.clone();
    let mut findings: Vec<Problem> = inv.problems.clone();
    let prefix = &inv.prefix;
    let spec = match HookSpec::from_inventory(inv, Mode::Isolated) {
        Ok(spec) => spec,
        Err(e) => {
            findings.push(finding(
                Severity::Warning,
                "prefix-unsupported",
                e.to_string(),
                e.hint(),
            ));
            None
        }
    };
    // The hooks' header is read once: status here, directories below.
    let installed = status::installed(prefix);
    let hook = status::hook_status(installed.as_ref(), spec.as_ref());
    if let HookStatus::Stale { installed, current } = &hook {
        findings.push(finding(
            Severity::Warning,
            "stale-hook",
            format!(
                "envhook's hooks were written for other packages (fingerprint {installed}, now {current}), \
                 so they may expose libraries that are gone or miss new ones"
            ),
            Some(format!("refresh them: envhook install -p {}", prefix.display())),
        ));
    }

    check_driver(inv, m, &driver, &mut findings);
    check_gpus(inv, m, &driver, &mut findings);
    check_frameworks(inv, m, &mut findings);
    check_cudnn_cuda(inv, m, &mut findings);
    let libraries = check_libraries(
        machine,
        inv,
        m,
        ctx,
        spec.as_ref(),
        installed.as_ref(),
        &mut findings,
    );

    // One `info` about a missing driver is enough.
    findings.sort_by_key(|p| std::cmp::Reverse(p.severity));
    Report {
        schema: SCHEMA,
        prefix: prefix.clone(),
        matrix_version: m.version.clone(),
        driver,
        hook,
        cuda: inv.cuda.clone(),
        cudnn: inv.cudnn.clone(),
        frameworks: inv.frameworks.clone(),
        libraries,
        findings,
    }
}

fn source_label(s: Source) -> &'static str {
    match s {
        Source::Flag => "--driver-version",
        Source::CondaOverrideCuda => "CONDA_OVERRIDE_CUDA",
        Source::Nvml => "NVML",
        Source::NvidiaSmi => "nvidia-smi",
        Source::KernelModule => "/proc/driver/nvidia/version",
        Source::None => "not found",
    }
}

/// The CUDA versions that must run on the driver: the environment's
/// runtimes and the frameworks' builds.
fn cudas(inv: &Inventory, m: &Matrix) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = inv
        .cuda
        .iter()
        .map(|c| {
            (
                c.version.clone(),
                format!(
                    "{} {} ({})",
                    c.package,
                    c.package_version,
                    c.installer.label()
                ),
            )
        })
        .collect();
    for fw in &inv.frameworks {
        if let Some(cuda) = needs(fw, m)
            .and_then(|n| n.cuda)
            .filter(|c| c.contains('.'))
        {
            out.push((
                cuda,
                format!("{} {} (built for CUDA)", fw.package, fw.version),
            ));
        }
    }
    out
}

fn check_driver(inv: &Inventory, m: &Matrix, d: &Driver, findings: &mut Vec<Problem>) {
    let cudas = cudas(inv, m);
    if cudas.is_empty() {
        return;
    }
    if d.source == Source::None {
        findings.push(finding(
            Severity::Info,
            "no-driver",
            "no NVIDIA driver found (no NVML, no nvidia-smi, no /proc/driver/nvidia/version); \
             the driver checks are skipped"
                .into(),
            Some("to check for another machine, pass --driver-version and --gpu".into()),
        ));
        return;
    }
    if d.source == Source::CondaOverrideCuda && d.max_cuda.is_none() {
        findings.push(finding(
            Severity::Warning,
            "no-cuda-driver",
            "CONDA_OVERRIDE_CUDA is set but empty: conda treats this machine as having no CUDA driver".into(),
            Some("unset CONDA_OVERRIDE_CUDA, or set it to the CUDA the target driver supports".into()),
        ));
        return;
    }
    let from = source_label(d.source);
    let mut seen = Vec::new();
    for (cuda, what) in cudas {
        let key = (major_minor(&cuda), what.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let floor = m.driver_floor(&cuda);
        if let (Some(dv), Some(floor)) = (d.version.as_deref(), floor)
            && let (Some(have), Some(need)) = (version(dv), version(&floor.linux))
            && have < need
        {
            let rule = if floor.exact {
                format!(
                    "CUDA {} has no minor version compatibility and needs",
                    floor.cuda
                )
            } else {
                format!("every CUDA {}.x needs", floor.cuda)
            };
            let older = d
                .max_cuda
                .as_deref()
                .map(|c| format!(", or use a build for CUDA {c} or older"))
                .unwrap_or_default();
            findings.push(sourced(
                finding(
                    Severity::Error,
                    "driver-too-old",
                    format!(
                        "{what} needs CUDA {cuda}: {rule} an NVIDIA driver >= {}; this machine has {dv} ({from}). \
                         Expect \"CUDA driver version is insufficient for CUDA runtime version\"",
                        floor.linux
                    ),
                    Some(format!("upgrade the NVIDIA driver to {} or newer{older}", floor.linux)),
                ),
                &floor.source,
                floor.confidence,
            ));
            continue;
        }
        let Some(max) = d.max_cuda.as_deref() else {
            continue;
        };
        let (Some(c), Some(mx)) = (version(&major_minor(&cuda)), version(max)) else {
            continue;
        };
        if c <= mx {
            continue;
        }
        let same_major = major(&cuda) == major(max);
        if same_major && major(&cuda).is_some_and(|x| x >= 11) && floor.is_some_and(|f| !f.exact) {
            findings.push(finding(
                Severity::Warning,
                "driver-older-than-cuda",
                format!(
                    "{what} needs CUDA {cuda}; the driver supports CUDA {max} ({from}). It runs through minor \
                     version compatibility, but PTX of the newer CUDA cannot be JIT-compiled"
                ),
                Some(format!("upgrade the driver to one that supports CUDA {}", major_minor(&cuda))),
            ));
        } else {
            findings.push(finding(
                Severity::Error,
                "driver-too-old",
                format!(
                    "{what} needs CUDA {cuda}; the driver supports CUDA {max} at most ({from}). \
                     Expect \"CUDA driver version is insufficient for CUDA runtime version\""
                ),
                Some(format!(
                    "upgrade the NVIDIA driver, or use a build for CUDA {max} or older"
                )),
            ));
        }
    }
}

fn check_gpus(inv: &Inventory, m: &Matrix, d: &Driver, findings: &mut Vec<Problem>) {
    for (i, gpu) in d.gpus.iter().enumerate() {
        let label = gpu.name.clone().unwrap_or_else(|| format!("GPU {i}"));
        let Some(cc) = gpu.cc.as_deref() else {
            findings.push(finding(
                Severity::Info,
                "gpu-unknown",
                format!("the compute capability of {label} is not known; architecture checks are skipped"),
                Some("pass --gpu sm_XY".into()),
            ));
            continue;
        };
        let sm = cc.replace('.', "");
        for claim in &inv.cuda {
            match m.cuda_supports_cc(&claim.version, cc) {
                Some((false, arch)) => {
                    let why = if version(&major_minor(&claim.version)) < version(&arch.first_ctk) {
                        format!("{} GPUs need CUDA {} or newer", arch.name, arch.first_ctk)
                    } else {
                        format!(
                            "CUDA {} was the last to support {} GPUs",
                            arch.last_ctk, arch.name
                        )
                    };
                    let f = finding(
                        Severity::Error,
                        "gpu-unsupported",
                        format!(
                            "CUDA {} ({} {}) cannot run on {label} (sm_{sm}): {why}. Expect \"no kernel image \
                             is available for execution on the device\"",
                            claim.version, claim.package, claim.package_version
                        ),
                        Some(if why.contains("newer") {
                            format!(
                                "install CUDA {} or newer in this environment",
                                arch.first_ctk
                            )
                        } else {
                            format!(
                                "install CUDA {} or older in this environment",
                                arch.last_ctk
                            )
                        }),
                    );
                    findings.push(sourced(f, &arch.source, arch.confidence));
                }
                None => findings.push(finding(
                    Severity::Info,
                    "gpu-unknown",
                    format!(
                        "sm_{sm} ({label}) is not in the matrix; its CUDA support is not checked"
                    ),
                    None,
                )),
                Some((true, _)) => {}
            }
        }
        for fw in &inv.frameworks {
            let Some(n) = needs(fw, m) else { continue };
            let below = n
                .min_cc
                .as_deref()
                .is_some_and(|min| version(cc) < version(min));
            let above = n
                .max_cc
                .as_deref()
                .is_some_and(|max| version(cc) > version(max));
            if below || above {
                let range = match (&n.min_cc, &n.max_cc) {
                    (Some(a), Some(b)) => format!("{a} to {b}"),
                    (Some(a), None) => format!("{a} and newer"),
                    (None, Some(b)) => format!("up to {b}"),
                    (None, None) => unreachable!(),
                };
                findings.push(finding(
                    Severity::Error,
                    "gpu-unsupported",
                    format!(
                        "{} {} is built for compute capability {range}; {label} is sm_{sm}. Expect \"no kernel \
                         image is available for execution on the device\"",
                        fw.package, fw.version
                    ),
                    Some("install a build of the framework that includes this GPU's architecture".into()),
                ));
            }
        }
    }
}

fn check_frameworks(inv: &Inventory, m: &Matrix, findings: &mut Vec<Problem>) {
    let prefix = &inv.prefix;
    for fw in &inv.frameworks {
        let Some(n) = needs(fw, m) else { continue };
        let name = format!("{} {}", fw.package, fw.version);
        // Findings that rest on a matrix row say which.
        let mut push = |p: Problem| match &n.row {
            Some((source, confidence)) => findings.push(sourced(p, source, *confidence)),
            None => findings.push(p),
        };
        let bundled = |component: &str| {
            inv.packages.iter().any(|p| {
                p.name == fw.package
                    && p.libraries
                        .iter()
                        .any(|l| l.component.as_deref() == Some(component))
            }) || (component == "cudnn"
                && fw.installer == Installer::Conda
                && fw.build.evidence.contains("cudnn"))
        };
        let built = match (&n.cuda, &n.cudnn) {
            (Some(c), Some(d)) => format!("CUDA {c} / cuDNN {}", major_minor(d)),
            (Some(c), None) => format!("CUDA {c}"),
            _ => "CUDA".into(),
        };
        // Fixes use the installer the environment's CUDA stack already uses.
        let stack_installer = inv.cuda.first().map_or(fw.installer, |c| c.installer);
        if let Some(build_cuda) = &n.cuda {
            match preferred(&inv.cuda, fw.installer) {
                None if !bundled("cudart") => push(finding(
                    Severity::Warning,
                    "no-cuda-runtime",
                    format!(
                        "{name} is built for {built}, but the environment has no CUDA runtime: it will load \
                         whatever the system has, if anything"
                    ),
                    Some(cuda_install_hint(build_cuda, stack_installer, prefix)),
                )),
                None => {}
                Some(rt) if major(&rt.version) != major(build_cuda) => push(finding(
                    Severity::Error,
                    "cuda-mismatch",
                    format!(
                        "{name} is built for {built}; this environment has CUDA {} ({} {}). CUDA {} and {} \
                         libraries have different sonames, so the framework's are not found",
                        rt.version,
                        rt.package,
                        rt.package_version,
                        major(build_cuda).unwrap_or(0),
                        major(&rt.version).unwrap_or(0)
                    ),
                    Some(cuda_install_hint(build_cuda, stack_installer, prefix)),
                )),
                Some(rt) if older_minor(&rt.version, build_cuda) => push(finding(
                    Severity::Warning,
                    "cuda-older-than-build",
                    format!(
                        "{name} is built for {built}; this environment has the older CUDA {} ({} {}), which \
                         may lack symbols the build uses (\"undefined symbol\")",
                        rt.version, rt.package, rt.package_version
                    ),
                    Some(cuda_install_hint(build_cuda, stack_installer, prefix)),
                )),
                Some(_) => {}
            }
        }
        let Some(need) = &n.cudnn else { continue };
        if bundled("cudnn") {
            continue;
        }
        let cuda = n.cuda.as_deref();
        let cudnn_installer = inv.cudnn.first().map_or(stack_installer, |c| c.installer);
        match preferred(&inv.cudnn, fw.installer) {
            None => push(finding(
                Severity::Warning,
                "no-cudnn",
                format!(
                    "{name} is built for {built}; the environment has no cuDNN, so the system's is used if there is one"
                ),
                Some(cudnn_install_hint(need, cudnn_installer, cuda, prefix)),
            )),
            Some(have) if major(&have.version) != major(need) => push(finding(
                Severity::Error,
                "cudnn-mismatch",
                format!(
                    "{name} is built for {built}; this environment has cuDNN {} ({}). cuDNN {} and {} are not \
                     interchangeable (libcudnn.so.{} vs libcudnn.so.{})",
                    have.version,
                    have.package,
                    major(need).unwrap_or(0),
                    major(&have.version).unwrap_or(0),
                    major(need).unwrap_or(0),
                    major(&have.version).unwrap_or(0)
                ),
                Some(cudnn_install_hint(need, cudnn_installer, cuda, prefix)),
            )),
            Some(have) if older_minor(&have.version, need) => push(finding(
                Severity::Warning,
                "cudnn-older-than-build",
                format!(
                    "{name} is built for {built}; this env has {} {} -> {}",
                    have.package,
                    have.version,
                    cudnn_install_hint(need, cudnn_installer, cuda, prefix)
                ),
                Some(cudnn_install_hint(need, cudnn_installer, cuda, prefix)),
            )),
            Some(_) => {}
        }
    }
}

fn check_cudnn_cuda(inv: &Inventory, m: &Matrix, findings: &mut Vec<Problem>) {
    for d in &inv.cudnn {
        let Some(rt) = preferred(&inv.cuda, d.installer) else {
            continue;
        };
        // pip wheels say their CUDA major in the name.
        let pkg = inv
            .packages
            .iter()
            .find(|p| p.name == d.package && p.installer == d.installer);
        if let Some(want) = pkg.and_then(|p| p.cuda_major)
            && Some(want) != major(&rt.version)
        {
            findings.push(finding(
                Severity::Error,
                "cudnn-cuda-mismatch",
                format!(
                    "{} {} is the CUDA {want} build of cuDNN; the environment's CUDA is {} ({})",
                    d.package, d.version, rt.version, rt.package
                ),
                Some(format!(
                    "install the cuDNN built for CUDA {}",
                    major(&rt.version).unwrap_or(0)
                )),
            ));
            continue;
        }
        if let Some((false, row)) = m.cudnn_supports_cuda(&d.version, &rt.version) {
            let f = finding(
                Severity::Warning,
                "cudnn-cuda-unlisted",
                format!(
                    "NVIDIA lists cuDNN {} for CUDA {} only; this environment has CUDA {}. Within one CUDA \
                     major this usually works (minor version compatibility), but it is not a tested pair",
                    d.version,
                    row.cuda.replace('|', " or "),
                    rt.version,
                ),
                Some("install a cuDNN release that lists this CUDA version".into()),
            );
            findings.push(sourced(f, &row.source, row.confidence));
        }
    }
}

fn check_libraries(
    machine: &Machine,
    inv: &Inventory,
    m: &Matrix,
    ctx: &Context,
    spec: Option<&HookSpec>,
    hooks: Option<&status::InstalledHooks>,
    findings: &mut Vec<Problem>,
) -> Vec<LibraryCheck> {
    let prefix = &inv.prefix;
    let sysroot = ctx.sysroot();
    if let Err(e) = &machine.cache {
        findings.push(finding(
            Severity::Info,
            "ld-cache-unreadable",
            e.clone(),
            None,
        ));
    }
    let cache = machine.cache.as_ref().ok().and_then(Option::as_ref);
    let installed = hooks.is_some();
    let ours: Vec<PathBuf> = match hooks {
        Some(h) => h.dirs.clone(),
        None => spec.map(|s| s.dirs.clone()).unwrap_or_default(),
    };
    let current: Vec<PathBuf> = ctx
        .var_os_raw("LD_LIBRARY_PATH")
        .map(|v| v.split(':').map(PathBuf::from).collect())
        .unwrap_or_default();
    for dir in &current {
        if crate::paths::is_stub(dir) && dir.join("libcuda.so").exists() {
            findings.push(finding(
                Severity::Error,
                "stub-on-path",
                format!(
                    "LD_LIBRARY_PATH contains {}, whose libcuda.so is a link-time stub: programs that load \
                     it fail with \"CUDA driver version is insufficient\" or find no device",
                    dir.display()
                ),
                Some(format!("remove {} from LD_LIBRARY_PATH", dir.display())),
            ));
        }
    }
    let without: Vec<SearchDir> = current
        .iter()
        .filter(|d| !ours.contains(d))
        .cloned()
        .map(SearchDir::Real)
        .collect();
    let mut with: Vec<SearchDir> = match (installed, spec.and_then(|s| s.isolation.as_ref())) {
        (false, Some(iso)) => vec![SearchDir::Virtual {
            path: iso.link.clone(),
            entries: iso
                .entries
                .iter()
                .map(|e| (e.name.clone(), e.target.clone()))
                .collect::<BTreeMap<_, _>>(),
        }],
        _ => ours.iter().cloned().map(SearchDir::Real).collect(),
    };
    with.extend(without.iter().cloned());
    let cwd = std::env::current_dir().unwrap_or_default();
    let search_without = Search {
        ld_library_path: without,
        cache,
        sysroot: &sysroot,
        cwd: cwd.clone(),
    };
    let search_with = Search {
        ld_library_path: with,
        cache,
        sysroot: &sysroot,
        cwd,
    };
    let env_copy = |name: &str| {
        inv.packages
            .iter()
            .flat_map(|p| p.libraries.iter())
            .find(|l| l.status == LibStatus::Ok && l.path.file_name().is_some_and(|n| n == name))
            .map(|l| l.path.clone())
    };
    let fix = format!("envhook install -p {}", prefix.display());
    let cuda_major = inv.cuda.first().and_then(|c| major(&c.version));

    let mut out = Vec::new();
    let mut only_with_hook: Vec<String> = Vec::new();
    for fw in &inv.frameworks {
        if matches!(fw.build.variant, Variant::Cpu | Variant::Rocm { .. }) {
            continue;
        }
        let Some(pkg) = inv
            .packages
            .iter()
            .find(|p| p.name == fw.package && p.installer == fw.installer)
        else {
            continue;
        };
        let cores: Vec<&Path> = pkg
            .libraries
            .iter()
            .filter(|l| l.status == LibStatus::Ok)
            .filter(|l| {
                l.path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| CATALOG.is_core_library(fw.framework, n))
            })
            .map(|l| l.path.as_path())
            .collect();
        for core in cores {
            // An object that cannot be parsed still dlopens its names; they
            // are resolved as from an object without RPATH.
            let (info, readable) = match elf::read(core) {
                Ok(i) => (i, true),
                Err(e) => {
                    findings.push(finding(
                        Severity::Info,
                        "elf-unreadable",
                        format!(
                            "{}: {e}; its DT_NEEDED libraries are not resolved",
                            core.display()
                        ),
                        None,
                    ));
                    let blank = ElfInfo {
                        path: core.to_path_buf(),
                        soname: None,
                        needed: Vec::new(),
                        rpath: Vec::new(),
                        runpath: Vec::new(),
                        machine: 62,
                        bytes_read: 0,
                    };
                    (blank, false)
                }
            };
            let object = core
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut names: Vec<(String, &'static str)> = info
                .needed
                .iter()
                .filter(|n| CATALOG.library_component(n).is_some())
                .map(|n| (n.clone(), "needed"))
                .collect();
            if fw.framework == Framework::Paddlepaddle {
                let pip = fw.build.pip_cuda_libraries.unwrap_or(false);
                if let Some(row) = m.dlopen(fw.framework, &release_of(&fw.version), pip) {
                    names.extend(row.names.iter().map(|n| (n.clone(), "dlopen")));
                }
            }
            let mut checks = Vec::new();
            for (name, kind) in names {
                let with_hook = search_with.resolve(&name, &info);
                let without_hook = search_without.resolve(&name, &info);
                check_one(
                    cuda_major,
                    &name,
                    kind,
                    &object,
                    &with_hook,
                    &without_hook,
                    installed,
                    prefix,
                    &env_copy,
                    &fix,
                    findings,
                    &mut only_with_hook,
                );
                checks.push(NameCheck {
                    name,
                    kind,
                    with_hook,
                    without_hook,
                });
            }
            out.push(LibraryCheck {
                framework: fw.framework,
                object: core.to_path_buf(),
                elf: readable.then_some(info),
                names: checks,
            });
        }
    }
    if !only_with_hook.is_empty() && !installed {
        only_with_hook.dedup();
        findings.push(finding(
            Severity::Warning,
            "needs-hook",
            format!(
                "{} found only through LD_LIBRARY_PATH, and this environment has no envhook hook: {}",
                if only_with_hook.len() == 1 { "this library is" } else { "these libraries are" },
                only_with_hook.join(", ")
            ),
            Some(fix),
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn check_one(
    cuda_major: Option<u32>,
    name: &str,
    kind: &str,
    object: &str,
    with_hook: &Option<Found>,
    without_hook: &Option<Found>,
    installed: bool,
    prefix: &Path,
    env_copy: &dyn Fn(&str) -> Option<PathBuf>,
    fix: &str,
    findings: &mut Vec<Problem>,
    only_with_hook: &mut Vec<String>,
) {
    let how = if kind == "dlopen" {
        "loads by name"
    } else {
        "needs"
    };
    for found in [with_hook, without_hook].into_iter().flatten() {
        if crate::paths::is_stub(&found.path) {
            findings.push(finding(
                Severity::Error,
                "stub-libcuda",
                format!(
                    "{object} {how} {name}, and the loader would take the stub {}",
                    found.path.display()
                ),
                Some("take the stubs directory off LD_LIBRARY_PATH".into()),
            ));
            return;
        }
    }
    let inside = |f: &Found| f.path.starts_with(prefix);
    match (with_hook, without_hook) {
        (None, None) if env_copy(name).is_some() => {
            let copy = env_copy(name).unwrap_or_default();
            findings.push(finding(
                if kind == "needed" { Severity::Error } else { Severity::Warning },
                "library-not-loadable",
                format!(
                    "{object} {how} {name}; the environment's {} is not a loadable 64-bit ELF for this \
                     machine (another architecture, or damaged)",
                    copy.display()
                ),
                Some(format!("reinstall the package that owns {}", copy.display())),
            ));
        }
        (None, None) => {
            let stem = name.split(".so").next().unwrap_or(name);
            let versioned = env_copy_stem(prefix, stem);
            let dev_missing = versioned.is_some() && kind == "dlopen";
            let package = CATALOG
                .library_component(name)
                .and_then(|c| CATALOG.conda_package_for(c, cuda_major));
            let p = prefix.display();
            let (message, hint) = match versioned {
                Some(v) if kind == "dlopen" => (
                    format!(
                        "{object} {how} {name}, which this environment lacks: it has only {v} (the \
                         unversioned name comes from -dev packages). Expect \"The third-party dynamic library \
                         ({name}) that Paddle depends on is not configured correctly\""
                    ),
                    match package.filter(|pk| pk != "cudatoolkit") {
                        Some(pk) => {
                            let dev = if pk == "cudnn" {
                                "libcudnn-dev".to_string()
                            } else {
                                format!("{pk}-dev")
                            };
                            format!(
                                "{fix} (its isolating mode provides {name}), or conda install -p {p} -c conda-forge {dev}"
                            )
                        }
                        None => format!("{fix} (its isolating mode provides {name})"),
                    },
                ),
                _ => (
                    format!(
                        "{object} {how} {name}, which is not in this environment nor on the system. Expect \"{name}: cannot open shared object file\""
                    ),
                    match package {
                        Some(pk) => format!("conda install -p {p} -c conda-forge {pk}"),
                        None => format!(
                            "install the package that provides {name} (see `envhook show -p {p}`)"
                        ),
                    },
                ),
            };
            // A dlopened library fails only when the operation needing it
            // runs (curand for random ops, nccl for multi-GPU); cuDNN and
            // cuBLAS are needed at once.
            let severity = if kind == "needed"
                || name.starts_with("libcudnn.so")
                || name.starts_with("libcublas.so")
            {
                Severity::Error
            } else {
                Severity::Warning
            };
            let code = if dev_missing {
                "missing-dev-symlink"
            } else {
                "library-not-found"
            };
            findings.push(finding(severity, code, message, Some(hint)));
        }
        (Some(w), None) => {
            if !installed && inside(w) {
                only_with_hook.push(name.to_string());
            }
        }
        (with, Some(wo)) => {
            // A copy outside the environment wins although the environment has one.
            let winner = with.as_ref().unwrap_or(wo);
            if let Some(env) = env_copy(name).filter(|_| !inside(winner)) {
                let scenario = if installed || with.is_none() {
                    ""
                } else {
                    " without envhook's hook"
                };
                findings.push(finding(
                    Severity::Warning,
                    "system-library-wins",
                    format!(
                        "{object} {how} {name}:{scenario} the loader takes {} ({}), not the environment's {}",
                        winner.path.display(),
                        winner.rule.label(),
                        env.display()
                    ),
                    Some(if installed {
                        "remove the system CUDA directory from LD_LIBRARY_PATH, or rebuild the framework without that RPATH".into()
                    } else {
                        fix.to_string()
                    }),
                ));
            } else if !installed
                && with.as_ref().is_some_and(&inside)
                && !inside(wo)
                && env_copy(name).is_some()
            {
                findings.push(finding(
                    Severity::Warning,
                    "system-library-wins",
                    format!(
                        "{object} {how} {name}: without envhook's hook the loader takes {} ({}), not the environment's",
                        wo.path.display(),
                        wo.rule.label()
                    ),
                    Some(fix.to_string()),
                ));
            }
        }
    }
}

/// A versioned file of `stem` in the environment's `lib/` or pip
/// `nvidia/*/lib` (for the "only has libcudnn.so.9" message).
fn env_copy_stem(prefix: &Path, stem: &str) -> Option<String> {
    let mut dirs = vec![prefix.join("lib")];
    dirs.extend(crate::paths::dir_entries(&prefix.join("lib/envhook/cuda")));
    crate::paths::dir_entries(&prefix.join("lib"))
        .into_iter()
        .chain(dirs.into_iter().flat_map(|d| crate::paths::dir_entries(&d)))
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .find(|n| n.starts_with(&format!("{stem}.so.")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_and_tags() {
        assert_eq!(release_of("2.5.2.post116"), "2.5.2");
        assert_eq!(release_of("2.1.0+cu118"), "2.1.0");
        assert_eq!(release_of("3.0.0"), "3.0.0");
        assert!(older_minor("8.2.1", "8.4.0"));
        assert!(!older_minor("8.4.1", "8.4.0"));
        assert!(!older_minor("8.9.2.26", "8"));
        assert!(older_minor("11.2", "11.6"));
    }
}
