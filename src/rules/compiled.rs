//! A wheel that pins one cuDNN and was compiled with a newer one of the
//! same major: Paddle 3.x's cu126 wheels pin `nvidia-cudnn-cu12==9.5.1.17`
//! and record `cudnn_version = '9.9.0'` in `paddle/version/__init__.py`.
//! Paddle compares the two at start and only logs ("The installed Paddle
//! is compiled with CUDNN 9.9, but CUDNN version in your machine is 9.5,
//! which may cause serious incompatible bug", `gpu_resources.cc`; the
//! strings are in `libphi.so`), then runs. So neither cuDNN is a problem
//! to fix: with the pinned one installed, a fix to the pin changes
//! nothing, and one to the compiled version breaks the pin; with the
//! compiled one installed, the pin is what is "broken", and restoring it
//! only brings the warning back. One info says which, and no fix.

use super::finding;
use crate::data::catalog::Framework;
use crate::data::matrix::{major, major_minor};
use crate::finding::{Code, Problem, Severity};
use crate::inventory::FrameworkBuild;
use crate::inventory::builds::Variant;
use crate::inventory::needs::older_minor;
use crate::inventory::pins::Pin;

/// The wheel's cuDNN pin and the cuDNN its build file says it was
/// compiled with, where the compiled one is the newer of the same major.
pub(super) fn pinned_below(fw: &FrameworkBuild) -> Option<(&Pin, &str)> {
    let Variant::Cuda {
        cudnn: Some(compiled),
        ..
    } = &fw.build.variant
    else {
        return None;
    };
    let pin = fw
        .pins
        .iter()
        .find(|p| p.name.starts_with("nvidia-cudnn"))?;
    let floor = pin.floor()?;
    (major(&floor) == major(compiled) && older_minor(&floor, compiled))
        .then_some((pin, compiled.as_str()))
}

/// What the framework does at start when the cuDNN it finds is older than
/// the one it was compiled with, where the data knows.
fn at_start(fw: &FrameworkBuild, compiled: &str, have: &str) -> String {
    match fw.framework {
        Framework::Paddlepaddle => format!(
            "Paddle logs \"The installed Paddle is compiled with CUDNN {}, but CUDNN version in your \
             machine is {}\" at start and runs (paddle/phi/backends/gpu/gpu_resources.cc)",
            major_minor(compiled),
            major_minor(have)
        ),
        _ => "the framework was published this way".into(),
    }
}

/// `have` (the installed cuDNN wheel's version) judged against the pin
/// and the compiled version: an info, whichever of the two is installed;
/// `None` where it is neither (the other rules judge it).
pub(super) fn info(fw: &FrameworkBuild, have: &str) -> Option<Problem> {
    let (pin, compiled) = pinned_below(fw)?;
    let name = format!("{} {}", fw.package, fw.version);
    let evidence = &fw.build.evidence;
    let message = if pin.allows(have) == Some(true) {
        format!(
            "{name} was compiled with cuDNN {} ({evidence}) but its wheel pins {}, which is installed \
             ({have}); {}. Either cuDNN is usable: installing {} silences the warning and breaks the pin \
             `pip check` holds",
            major_minor(compiled),
            pin.requirement,
            at_start(fw, compiled, have),
            major_minor(compiled)
        )
    } else if !older_minor(have, compiled) && major(have) == major(compiled) {
        format!(
            "{name} pins {} (its METADATA) but was compiled with cuDNN {} ({evidence}); this environment \
             has {have}, the cuDNN it was compiled with: `pip check` reports the pin, and the framework \
             runs without its start-up warning",
            pin.requirement,
            major_minor(compiled)
        )
    } else {
        return None;
    };
    Some(finding(
        Severity::Info,
        Code::CudnnPinBelowBuild,
        message,
        None,
    ))
}
