//! What a framework's pip distribution requires of the CUDA stack, from the
//! `Requires-Dist` lines of its METADATA: torch 2.15.0 requires
//! `cuda-toolkit[cublas,cudart,...]==13.2.2` and `nvidia-cudnn-cu13==9.26.0.51`,
//! jax-cuda12-plugin requires `nvidia-cudnn-cu12>=9.10.2.21,<10.0` under its
//! `with-cuda` extra. These pins are the build's own word on the CUDA and
//! cuDNN it was made for, and the yardstick `pip check` uses.
//!
//! Requirements are parsed and their markers evaluated with `pep508_rs`
//! (uv's PEP 508 implementation) for Linux on this machine's architecture
//! and the environment's Python; only those naming a distribution of the
//! CUDA stack (the catalogue's pip rows, `cuda-toolkit`) are kept.

use std::str::FromStr;

use pep508_rs::pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::{
    MarkerEnvironment, MarkerEnvironmentBuilder, MarkerExpression, MarkerValueExtra, Requirement,
    VersionOrUrl,
};
use serde::Serialize;

use crate::data::catalog::CATALOG;
use crate::inventory::pip::normalize;

/// One requirement on a CUDA-stack distribution.
#[derive(Debug, Clone, Serialize)]
pub struct Pin {
    /// The distribution, normalised (`nvidia-cudnn-cu13`).
    pub name: String,
    /// The requirement as a pip command takes it, marker dropped:
    /// `nvidia-cudnn-cu13==9.26.0.51`.
    pub requirement: String,
    /// Only under an extra (`with-cuda`): whether it applies is not
    /// recorded once installed, so only an installed distribution is held
    /// to it.
    pub extra_only: bool,
    #[serde(skip)]
    specifiers: Option<VersionSpecifiers>,
}

impl Pin {
    /// Whether an installed version satisfies the pin; `None` when either
    /// does not parse as a PEP 440 version.
    pub fn allows(&self, version: &str) -> Option<bool> {
        let spec = self.specifiers.as_ref()?;
        let v = Version::from_str(version).ok()?;
        Some(spec.contains(&v))
    }

    /// The lowest version the pin allows, as written (`==9.26.0.51` and
    /// `>=9.10.2.21,<10` give `9.26.0.51` and `9.10.2.21`): the build's
    /// floor.
    pub fn floor(&self) -> Option<String> {
        let spec = self.specifiers.as_ref()?;
        spec.iter()
            .filter(|s| {
                let op = s.operator().to_string();
                matches!(op.as_str(), "==" | ">=" | "~=" | "===")
            })
            .map(|s| s.version().to_string())
            .next()
    }
}

/// The marker environment of a Linux machine like this one running
/// `python` (`3.11`).
fn environment(python: &str) -> Option<MarkerEnvironment> {
    let full = format!("{python}.0");
    MarkerEnvironment::try_from(MarkerEnvironmentBuilder {
        implementation_name: "cpython",
        implementation_version: &full,
        os_name: "posix",
        platform_machine: std::env::consts::ARCH,
        platform_python_implementation: "CPython",
        platform_release: "",
        platform_system: "Linux",
        platform_version: "",
        python_full_version: &full,
        python_version: python,
        sys_platform: "linux",
    })
    .ok()
}

/// Whether a distribution is part of the CUDA stack.
fn is_cuda_stack(name: &str) -> bool {
    name == "cuda-toolkit"
        || CATALOG
            .pip(name)
            .is_some_and(|(row, _)| row.framework.is_none())
}

/// The CUDA-stack pins among `Requires-Dist` lines, for an environment
/// running `python` (`None`: markers on the Python version count as met).
pub fn parse(lines: &[String], python: Option<&str>) -> Vec<Pin> {
    let env = python.and_then(environment);
    let mut pins = Vec::new();
    for line in lines {
        let Ok(req) = Requirement::<pep508_rs::VerbatimUrl>::from_str(line) else {
            continue;
        };
        let name = normalize(req.name.as_ref());
        if !is_cuda_stack(&name) {
            continue;
        }
        let always = req.marker.evaluate_optional_environment(env.as_ref(), &[]);
        let extras = match req.marker.top_level_extra() {
            Some(MarkerExpression::Extra {
                name: MarkerValueExtra::Extra(extra),
                ..
            }) => vec![extra],
            _ => Vec::new(),
        };
        let with_extras = req
            .marker
            .evaluate_optional_environment(env.as_ref(), &extras);
        if !always && !with_extras {
            continue;
        }
        let specifiers = match &req.version_or_url {
            Some(VersionOrUrl::VersionSpecifier(s)) => Some(s.clone()),
            _ => None,
        };
        let extras_text = if req.extras.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = req.extras.iter().map(|e| e.to_string()).collect();
            format!("[{}]", names.join(","))
        };
        let spec_text = specifiers
            .as_ref()
            .map(|s| s.to_string())
            .unwrap_or_default();
        pins.push(Pin {
            requirement: format!("{name}{extras_text}{spec_text}"),
            name,
            extra_only: !always,
            specifiers,
        });
    }
    pins
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(String::from).collect()
    }

    /// torch 2.15.0's Requires-Dist (PyPI METADATA, December 2026).
    #[test]
    fn torch_pins_its_toolkit_and_cudnn() {
        let pins = parse(
            &lines(
                "filelock\ntyping-extensions>=4.10.0\n\
                 cuda-toolkit[cublas,cudart,cufft,cufile,cupti,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.2.2; platform_system == \"Linux\"\n\
                 nvidia-cudnn-cu13==9.26.0.51; platform_system == \"Linux\"\n\
                 nvidia-nccl-cu13==2.30.7; platform_system == \"Linux\"\n\
                 triton~=3.9.0; platform_system == \"Linux\"\n\
                 optree>=0.13.0; extra == \"optree\"",
            ),
            Some("3.11"),
        );
        let names: Vec<&str> = pins.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            ["cuda-toolkit", "nvidia-cudnn-cu13", "nvidia-nccl-cu13"]
        );
        assert_eq!(
            pins[0].requirement,
            "cuda-toolkit[cublas,cudart,cufft,cufile,cupti,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.2.2"
        );
        assert_eq!(pins[1].floor().as_deref(), Some("9.26.0.51"));
        assert_eq!(pins[1].allows("9.26.0.51"), Some(true));
        assert_eq!(pins[1].allows("9.20.0.48"), Some(false));
        assert!(pins.iter().all(|p| !p.extra_only));
    }

    /// jax-cuda12-plugin 0.12.0.1: the CUDA wheels only under `with-cuda`.
    #[test]
    fn extras_are_held_only_to_installed_distributions() {
        let pins = parse(
            &lines(
                "jax-cuda12-pjrt==0.12.0.1\n\
                 nvidia-cudnn-cu12<10.0,>=9.10.2.21; sys_platform == \"linux\" and extra == \"with-cuda\"\n\
                 nvidia-cublas-cu12>=12.1.3.1; sys_platform == \"win32\" and extra == \"with-cuda\"",
            ),
            Some("3.12"),
        );
        assert_eq!(pins.len(), 1);
        assert!(pins[0].extra_only);
        assert_eq!(pins[0].floor().as_deref(), Some("9.10.2.21"));
        assert_eq!(pins[0].allows("10.1.0"), Some(false));
        assert_eq!(pins[0].allows("9.28.0.42"), Some(true));
    }
}
