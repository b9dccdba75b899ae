//! The NVIDIA driver against every CUDA that must run on it: the
//! environment's runtimes that something loads and the CUDA the framework
//! builds target. A runtime nothing loads (a CUDA 12 wheel beside a CUDA 11
//! build) asks nothing of the driver.

use super::{Facts, Loaded, finding, sourced};
use crate::data::catalog::CATALOG;
use crate::data::matrix::{DriverFloor, Matrix, major, major_minor, version};
use crate::finding::{Cmd, Code, Fix, Problem, Severity};
use crate::inventory::Stack;
use crate::inventory::needs::needs;
use crate::machine::driver::{Driver, Source};

/// The driver rules. `jit` says whether some framework needs PTX
/// JIT-compiled on this machine's GPUs (see [`super::gpu_arch`]): only
/// then does a driver older than the CUDA minor matter.
pub fn check(f: &Facts, jit: bool, loaded: &Loaded) -> Vec<Problem> {
    // A build that names only its CUDA major (cupy-cuda11x, which links
    // its runtime in: no runtime wheel here is loaded) is measured against
    // the floor of its major, as explain states it (#41: CuPy for CUDA 11
    // on a 390 driver).
    let cudas = with_major_only(f, cudas(f, loaded));
    let d = &f.machine.driver;
    if cudas.is_empty() {
        // A package that opens the driver by its own search (numba's CUDA
        // target) needs one as much as a build does.
        let opens_driver = CATALOG
            .driver_users()
            .iter()
            .any(|r| f.inv.distributions.contains_key(&r.name));
        return if opens_driver {
            no_driver(d).into_iter().collect()
        } else {
            Vec::new()
        };
    }
    if let Some(p) = no_driver(d) {
        return vec![p];
    }
    // Looked for only when the driver falls short.
    let mut compat = None;
    let mut findings = Vec::new();
    for (cuda, who) in short_together(f.matrix, d, cudas) {
        let Some(p) = check_cuda(f.matrix, d, jit, &cuda, &who) else {
            continue;
        };
        let p = with_builds(f, &cuda, p);
        let found = compat.get_or_insert_with(|| super::forward::libcudas(f));
        findings.push(super::forward::judge(f, found, &cuda, p));
    }
    findings
}

/// Each CUDA with what needs it, as the finding's subject (`the torch
/// 2.5.1 build needs CUDA 12.4`). The CUDA versions below one floor
/// of the driver (every CUDA 12.x) are one subject, with the newest of
/// them, since one driver upgrade or one older build serves them all: two
/// findings would give the same fix twice.
fn short_together(m: &Matrix, d: &Driver, cudas: Vec<(String, String)>) -> Vec<(String, String)> {
    let floor_short = |cuda: &str| {
        let floor = m.driver_floor(cuda).filter(|fl| !fl.exact)?;
        let dv = version(d.version.as_deref()?)?;
        (dv < version(&floor.linux)?).then(|| floor.cuda.clone())
    };
    let mut out: Vec<(String, String, Option<String>)> = Vec::new();
    for (cuda, what) in cudas {
        let who = needs_cuda(&what, &cuda);
        let short = floor_short(&cuda);
        match out
            .iter_mut()
            .find(|(_, _, s)| short.is_some() && *s == short)
        {
            Some((newest, all, _)) => {
                all.push_str(" and ");
                all.push_str(&who);
                if version(&cuda) > version(newest) {
                    *newest = cuda;
                }
            }
            None => out.push((cuda, who, short)),
        }
    }
    out.into_iter().map(|(cuda, who, _)| (cuda, who)).collect()
}

/// `the torch 2.5.1 build needs CUDA 12.4`; `need` after several.
fn needs_cuda(what: &str, cuda: &str) -> String {
    let needs = if what.contains(", ") { "need" } else { "needs" };
    format!("{what} {needs} CUDA {cuda}")
}

/// A `driver-too-old` finding's fix with, beside the driver upgrade, the
/// command that puts in each framework build of that CUDA major the
/// newest build the data has that the driver runs (the way
/// `gpu-unsupported` names the build for a GPU).
fn with_builds(f: &Facts, cuda: &str, mut p: Problem) -> Problem {
    let Some(Fix::Choose { advice, commands }) =
        p.fix.as_mut().filter(|_| p.code == Code::DriverTooOld)
    else {
        return p;
    };
    for fw in &f.inv.frameworks {
        let built = needs(fw, f.matrix).and_then(|n| n.cuda);
        if built.as_deref().and_then(major) != major(cuda) {
            continue;
        }
        if let Some((row, command)) = super::for_gpu::build_for_driver(f, fw)
            && !commands.contains(&command)
        {
            advice.push_str(&format!(
                "; for {} {}, the newest build in envhook's data that this driver runs: {} {} (made \
                 with CUDA {})",
                fw.package, fw.version, fw.package, row.release, row.cuda
            ));
            commands.push(command);
        }
    }
    p
}

/// The builds a driver runs, for a build of `needed` it does not run, in
/// one wording for check's and explain's fixes: `CUDA 12.x` where the
/// driver meets the floor of a major with minor version compatibility (its
/// `version` at or above it; known only by the CUDA it supports,
/// `max_cuda`, the floor of that CUDA's major), so that every release of
/// the major runs (470 runs CUDA 11.8 builds); `CUDA {max_cuda} or older`
/// where it meets none, or where `needed` is of that very major (a 12.8
/// build a 12.2 driver refused: minor version compatibility did not carry
/// it). `None` when neither is known.
pub fn builds_it_runs(
    m: &Matrix,
    version: Option<&str>,
    max_cuda: Option<&str>,
    needed: &str,
) -> Option<String> {
    let floor_major = match version {
        Some(v) => met_major(m, v),
        None => max_cuda
            .filter(|c| m.driver_floor(c).is_some_and(|f| !f.exact))
            .and_then(major),
    };
    match (floor_major.filter(|f| Some(*f) != major(needed)), max_cuda) {
        (Some(major), _) => Some(format!("CUDA {major}.x")),
        (None, Some(max)) => Some(format!("CUDA {max} or older")),
        (None, None) => None,
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
/// runtimes and the frameworks' builds, one entry per CUDA minor with
/// everything that needs it (`cuda-toolkit 13.2.2 (pip), the torch
/// 2.15.0 build`).
fn cudas(f: &Facts, loaded: &Loaded) -> Vec<(String, String)> {
    let mut grouped: Vec<(String, String)> = Vec::new();
    for (cuda, what) in each_cuda(f, loaded) {
        let mm = major_minor(&cuda);
        match grouped.iter_mut().find(|(c, _)| major_minor(c) == mm) {
            Some((_, all)) if !all.contains(&what) => {
                all.push_str(", ");
                all.push_str(&what);
            }
            Some(_) => {}
            None => grouped.push((cuda, what)),
        }
    }
    grouped
}

fn each_cuda(f: &Facts, loaded: &Loaded) -> Vec<(String, String)> {
    let (inv, m) = (f.inv, f.matrix);
    let mut out: Vec<(String, String)> = inv
        .cuda
        .iter()
        .filter(|c| loaded.loads(inv, Stack::Cuda, c))
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
            out.push((cuda, format!("the {} {} build", fw.package, fw.version)));
        }
    }
    out
}

/// `all` with each build that names only its CUDA major (cupy-cuda12x):
/// the major, where nothing in `all` stands for that major.
fn with_major_only(f: &Facts, mut all: Vec<(String, String)>) -> Vec<(String, String)> {
    for fw in &f.inv.frameworks {
        if let Some(m) = needs(fw, f.matrix)
            .and_then(|n| n.cuda)
            .filter(|c| !c.contains('.'))
            && !all.iter().any(|(c, _)| major(c) == major(&m))
        {
            all.push((m, format!("the {} {} build", fw.package, fw.version)));
        }
    }
    all
}

/// No driver to check against: nothing found, or conda told there is none.
fn no_driver(d: &Driver) -> Option<Problem> {
    if d.source == Source::None {
        return Some(finding(
            Severity::Info,
            Code::NoDriver,
            "no NVIDIA driver found (no NVML, no nvidia-smi, no /proc/driver/nvidia/version); \
             the driver checks are skipped"
                .into(),
            Some(Fix::advice(
                "to check for another machine, name its driver and GPU with --driver-version and --gpu",
            )),
        ));
    }
    if d.source == Source::CondaOverrideCuda && d.max_cuda.is_none() {
        return Some(finding(
            Severity::Warning,
            Code::NoCudaDriver,
            "CONDA_OVERRIDE_CUDA is set but empty: conda treats this machine as having no CUDA driver".into(),
            Some(Fix::Choose {
                advice: "unset CONDA_OVERRIDE_CUDA, or set it to the CUDA the target driver supports"
                    .into(),
                commands: vec![Cmd::new("unset CONDA_OVERRIDE_CUDA")],
            }),
        ));
    }
    None
}

/// One CUDA version against the driver (`who`: what needs it, see
/// [`short_together`]): below the driver floor its source states, or past
/// the CUDA the driver supports.
fn check_cuda(m: &Matrix, d: &Driver, jit: bool, cuda: &str, who: &str) -> Option<Problem> {
    let from = source_label(d.source);
    let floor = m.driver_floor(cuda);
    if let Some(p) = floor.and_then(|floor| below_floor(m, d, floor, cuda, who)) {
        return Some(p);
    }
    let max = d.max_cuda.as_deref()?;
    let (c, mx) = (version(&major_minor(cuda))?, version(max)?);
    if c <= mx {
        return None;
    }
    let same_major = major(cuda) == major(max);
    if same_major && major(cuda).is_some_and(|x| x >= 11) && floor.is_some_and(|f| !f.exact) {
        // Minor version compatibility runs machine code (SASS) of a
        // newer minor; only PTX of it cannot be JIT-compiled by an
        // older driver.
        Some(finding(
            if jit {
                Severity::Warning
            } else {
                Severity::Info
            },
            Code::DriverOlderThanCuda,
            format!(
                "{who}; the driver supports CUDA {max} ({from}). It runs through minor \
                 version compatibility; only PTX of the newer CUDA cannot be JIT-compiled{}",
                if jit {
                    ", and a framework here needs PTX JIT-compiled on this GPU (see gpu-jit)"
                } else {
                    ""
                }
            ),
            Some(Fix::advice(format!(
                "upgrade the NVIDIA driver to one that supports CUDA {}",
                major_minor(cuda)
            ))),
        ))
    } else {
        Some(finding(
            Severity::Error,
            Code::DriverTooOld,
            format!(
                "{who}; the driver supports CUDA {max} at most ({from}). \
                 Expect \"CUDA driver version is insufficient for CUDA runtime version\""
            ),
            Some(Fix::advice(format!(
                "upgrade the NVIDIA driver, or use a build made with {}",
                builds_it_runs(m, d.version.as_deref(), Some(max), cuda).unwrap_or_default()
            ))),
        ))
    }
}

/// The driver below the floor the matrix's source states for `cuda`.
fn below_floor(
    m: &Matrix,
    d: &Driver,
    floor: &DriverFloor,
    cuda: &str,
    who: &str,
) -> Option<Problem> {
    let dv = d.version.as_deref()?;
    if version(dv)? >= version(&floor.linux)? {
        return None;
    }
    let from = source_label(d.source);
    let rule = if floor.exact {
        format!(
            "CUDA {} has no minor version compatibility and needs",
            floor.cuda
        )
    } else {
        format!("every CUDA {}.x needs", floor.cuda)
    };
    let older = builds_it_runs(m, Some(dv), d.max_cuda.as_deref(), cuda)
        .map(|b| format!(", or use a build made with {b}"))
        .unwrap_or_default();
    Some(sourced(
        finding(
            Severity::Error,
            Code::DriverTooOld,
            format!(
                "{who}: {rule} an NVIDIA driver >= {}; this machine has {dv} ({from}). \
                 Expect \"CUDA driver version is insufficient for CUDA runtime version\"",
                floor.linux
            ),
            Some(Fix::advice(format!(
                "upgrade the NVIDIA driver to {} or newer{older}",
                floor.linux
            ))),
        ),
        &floor.source,
        floor.confidence,
    ))
}

/// The newest CUDA major whose floor (one for every release of the major)
/// the driver `dv` meets.
fn met_major(m: &Matrix, dv: &str) -> Option<u32> {
    let dv = version(dv)?;
    m.driver_floor
        .iter()
        .filter(|f| !f.exact && version(&f.linux).is_some_and(|l| l <= dv))
        .filter_map(|f| major(&f.cuda))
        .max()
}

/// What the environment needs of a driver, one line per CUDA minor
/// (`the torch 2.5.1 build needs CUDA 12.4: a driver >= 525.60.13
/// (every CUDA 12.x)`), for `explain` where the driver that printed a
/// message is not the one here, or is not known.
pub fn needed(f: &Facts, loaded: &Loaded) -> Vec<String> {
    with_major_only(f, cudas(f, loaded))
        .into_iter()
        .map(|(cuda, what)| {
            let who = needs_cuda(&what, &cuda);
            match f.matrix.driver_floor(&cuda) {
                Some(floor) if floor.exact => format!(
                    "{who}: a driver >= {} (CUDA {} has no minor version compatibility)",
                    floor.linux, floor.cuda
                ),
                Some(floor) => format!(
                    "{who}: a driver >= {} (every CUDA {}.x)",
                    floor.linux, floor.cuda
                ),
                None => format!("{who}: no driver floor is known for it"),
            }
        })
        .collect()
}
