//! The version ranges fixes install: the build's major from its minor
//! on, narrowed to what the GPUs need, and a framework's own requirement
//! kept within the build's major.

use crate::data::matrix::{major, major_minor, version};
use crate::rules::for_gpu::{CudnnFit, above_cap};

/// The cuDNN range a fix installs: the build's major from its minor on,
/// narrowed to what the GPUs need (`>=9.0,<9.11` on a V100). `None` when
/// no release is both: the build needs cuDNN the GPU has no kernels in.
pub(super) fn cudnn_range(build: Option<&str>, fit: &CudnnFit) -> Option<String> {
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
pub(super) fn narrowed(requirement: &str, fit: &CudnnFit) -> Option<String> {
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
pub(super) fn within_build_major(requirement: String, build: Option<&str>) -> String {
    match build.and_then(major) {
        Some(m) if !requirement.contains('<') && !requirement.contains("==") => {
            format!("{requirement},<{}", m + 1)
        }
        _ => requirement,
    }
}

/// The lower end a pip requirement states: `>=9.3.0.75` or `==9.26.0.51`.
pub(super) fn requirement_floor(requirement: &str) -> Option<&str> {
    let at = requirement.find(">=").or_else(|| requirement.find("=="))?;
    let rest = requirement[at + 2..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .unwrap_or(rest.len());
    Some(&rest[..end]).filter(|v| !v.is_empty())
}

/// `>=A.B,<A+1`: the floor a build needs, within its major.
pub(super) fn within_major(v: &str) -> Option<String> {
    let m = major(v)?;
    if v.contains('.') {
        Some(format!(">={},<{}", major_minor(v), m + 1))
    } else {
        Some(format!(">={m},<{}", m + 1))
    }
}
