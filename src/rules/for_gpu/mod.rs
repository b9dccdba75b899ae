//! Fixes for the GPUs they are for. Every fix that installs cuDNN or a
//! framework build is checked against the machine's GPUs (or those given
//! with `--gpu`) by NVIDIA's compatibility rules before it is printed: a
//! cuDNN 9 fix on a V100 keeps below 9.11 (the first release without
//! Volta kernels), and a framework build made with a CUDA that dropped the
//! GPU (CUDA 13 on Volta) is replaced by the newest build the data knows
//! that runs there, named as the command that installs it.

mod replace;

use super::Facts;
use crate::data::matrix::{FrameworkRow, major, major_minor, version};
use crate::finding::{Cmd, Fix};
use crate::inventory::FrameworkBuild;
use crate::inventory::needs::{needs, release_of, tag_of};
use replace::command;

/// The compute capabilities of the GPUs the checks are for (those known).
pub fn ccs(f: &Facts) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for cc in f.machine.driver.gpus.iter().filter_map(|g| g.cc.clone()) {
        if !out.contains(&cc) {
            out.push(cc);
        }
    }
    out
}

/// What every GPU needs of cuDNN: a floor (`9.7` on Blackwell, whose
/// kernels came with it) and a cap (`<9.11` on Volta, which 9.11 dropped).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CudnnFit {
    /// The oldest release with kernels for every GPU, `9.7`.
    pub floor: Option<String>,
    /// A version spec that keeps to releases still carrying them, `<9.11`.
    pub cap: Option<String>,
}

/// The cuDNN releases with kernels for every GPU.
pub fn cudnn_fit(f: &Facts) -> CudnnFit {
    let mut fit = CudnnFit::default();
    for cc in ccs(f) {
        if let Some(floor) = f.matrix.cudnn_floor_for_cc(&cc)
            && fit
                .floor
                .as_deref()
                .is_none_or(|have| version(&floor) > version(have))
        {
            fit.floor = Some(floor);
        }
        if let Some(cap) = f.matrix.cudnn_cap_for_cc(&cc)
            && fit
                .cap
                .as_deref()
                .is_none_or(|have| bound(&cap) < bound(have))
        {
            fit.cap = Some(cap);
        }
    }
    fit
}

/// `<9.11` -> (9.11, excluded); `<=9.10.2` -> (9.10.2, included).
fn bound(cap: &str) -> Option<(rattler_conda_version::Version, bool)> {
    match cap.strip_prefix("<=") {
        Some(v) => Some((version(v)?, true)),
        None => Some((version(cap.strip_prefix('<')?)?, false)),
    }
}

/// Whether a release `floor` (`9.26`, `9.26.0.51`) lies at or above a
/// cap: no release both satisfies the framework and runs on the GPU.
pub fn above_cap(floor: &str, cap: &str) -> bool {
    let (Some(v), Some((top, included))) = (version(floor), bound(cap)) else {
        return false;
    };
    if included { v > top } else { v >= top }
}

/// The newest build of `fw`'s framework that the data says runs on every
/// GPU and on the driver, other than the one installed, and the command
/// that installs it in place of the installed one. `None` where no GPU is
/// known: the fix for a GPU names the build for it.
pub fn build<'m>(f: &Facts<'m>, fw: &FrameworkBuild) -> Option<(&'m FrameworkRow, Cmd)> {
    if ccs(f).is_empty() {
        return None;
    }
    newest(f, fw, true, |_| true)
}

/// [`build`] for a driver too old for `fw`'s CUDA, GPUs known or not: the
/// newest build the driver runs, through minor version compatibility too
/// (a CUDA 12.8 build on a CUDA 12.2 driver: `driver-older-than-cuda` says
/// what that leaves out), and every GPU known has code in. Not the newest
/// it supports outright, as [`build`] prefers: on a CUDA 11.4 driver that
/// is torch 1.12 (cu113) where torch 2.7's cu118 build runs.
pub fn build_for_driver<'m>(f: &Facts<'m>, fw: &FrameworkBuild) -> Option<(&'m FrameworkRow, Cmd)> {
    newest(f, fw, false, |_| true)
}

/// [`build`] made with CUDA `cuda_major` on the framework's default
/// index, GPUs known or not: the fix for a build of another CUDA major
/// than the libraries the environment holds, where the framework's
/// releases on PyPI moved from one CUDA major to the next (onnxruntime-gpu
/// 1.18 is CUDA 11.8's there and 1.19 on CUDA 12's: beside CUDA 12's
/// cuBLAS, 1.19 on is the fix, not CUDA 11's libraries beside CUDA
/// 12's). Builds on an index of their own (Paddle's cu129, torch's cu118)
/// are not taken: there the release stays and the libraries follow it.
pub fn build_for_major<'m>(
    f: &Facts<'m>,
    fw: &FrameworkBuild,
    cuda_major: u32,
) -> Option<(&'m FrameworkRow, Cmd)> {
    newest(f, fw, true, |row| {
        row.tag == "default" && major(&row.cuda) == Some(cuda_major)
    })
}

/// The newest build of `fw`'s framework, other than the installed one,
/// that the data says runs on every GPU known and on the driver, with the
/// command that installs it; with `natively`, one the driver supports
/// outright first where there is one.
fn newest<'m>(
    f: &Facts<'m>,
    fw: &FrameworkBuild,
    natively: bool,
    keep: impl Fn(&FrameworkRow) -> bool,
) -> Option<(&'m FrameworkRow, Cmd)> {
    let ccs = ccs(f);
    // The installed build's own row, by its tag or by its CUDA: never the
    // fix for itself.
    let release = release_of(&fw.version);
    let cuda = needs(fw, f.matrix).and_then(|n| n.cuda);
    let own = [
        f.matrix.framework(fw.framework, &release, &tag_of(fw)),
        cuda.as_deref()
            .and_then(|c| f.matrix.framework_by_cuda(fw.framework, &release, c)),
    ];
    let mut candidates = f
        .matrix
        .builds_newest_first(fw.framework)
        .into_iter()
        .filter(|row| !own.iter().flatten().any(|o| std::ptr::eq(*o, *row)))
        .filter(|row| keep(row))
        .filter(|row| {
            ccs.iter()
                .all(|cc| f.matrix.row_runs_on(row, cc) == Some(true))
        })
        .filter(|row| driver_runs(f, &row.cuda) != Runs::No)
        .filter_map(|row| command(f, fw, row).map(|c| (row, c)))
        .collect::<Vec<_>>();
    // One the driver supports outright before one it runs only through
    // minor version compatibility (no PTX JIT of the newer minor).
    let pick = candidates
        .iter()
        .position(|(row, _)| !natively || driver_runs(f, &row.cuda) == Runs::Natively)
        .unwrap_or(0);
    (!candidates.is_empty()).then(|| candidates.swap_remove(pick))
}

/// How the driver runs a build.
#[derive(Debug, PartialEq)]
enum Runs {
    /// It supports the build's CUDA (or the driver is not known).
    Natively,
    /// Through minor version compatibility: same major, from 11 on.
    SameMajor,
    No,
}

/// The driver runs a build made with `cuda`: it supports that CUDA, or
/// a later release of a major whose floor the driver meets (minor version
/// compatibility, from 11 on: [`crate::data::matrix::Matrix::driver_floor`]),
/// or not. Unknown drivers do not rule anything out; a driver known only
/// by the CUDA it supports (CONDA_OVERRIDE_CUDA) meets the floor of its
/// own major.
fn driver_runs(f: &Facts, cuda: &str) -> Runs {
    let d = &f.machine.driver;
    let Some(max) = d.max_cuda.as_deref() else {
        return Runs::Natively;
    };
    if version(&major_minor(cuda)) <= version(max) {
        return Runs::Natively;
    }
    let meets = match (
        f.matrix.driver_floor(cuda).filter(|fl| !fl.exact),
        &d.version,
    ) {
        (Some(floor), Some(v)) => version(v) >= version(&floor.linux),
        (Some(_), None) => major(cuda) == major(max),
        (None, _) => false,
    };
    if meets { Runs::SameMajor } else { Runs::No }
}

/// The fix for a framework build with no code for a GPU: the newest build
/// that runs there as one command (and, for the message, which that is),
/// else the build to look for.
pub struct BuildFix {
    /// The command, or the build to choose where none in the data fits.
    pub fix: Fix,
    /// A sentence for the finding's message: which build the fix installs.
    pub why: String,
}

/// [`BuildFix`] for `fw` on the GPUs, `sm` naming the one in messages.
pub fn build_fix(f: &Facts, fw: &FrameworkBuild, sm: &str) -> BuildFix {
    match build(f, fw) {
        Some((row, command)) => BuildFix {
            fix: Fix::Command(command),
            why: format!(
                " The newest build in envhook's data with code for sm_{sm} is made with CUDA {}.",
                row.cuda
            ),
        },
        None => {
            let range = ccs(f)
                .iter()
                .filter_map(|cc| f.matrix.cuda_for_cc(cc))
                .next()
                .map(|(first, last)| match last {
                    Some(last) => format!(" (made with CUDA {first} to {last})"),
                    None => format!(" (made with CUDA {first} or newer)"),
                })
                .unwrap_or_default();
            BuildFix {
                fix: Fix::advice(format!(
                    "a build of {} compiled for sm_{sm}{range}; none in envhook's data has code \
                     for sm_{sm}",
                    fw.package
                )),
                why: String::new(),
            }
        }
    }
}
