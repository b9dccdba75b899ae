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
//!
//! A requirement under an extra counts only when that extra was installed.
//! pip records no extras, so they are told from what is installed
//! ([`active_extras`]): numba-cuda has a `cu12` and a `cu13` extra, each
//! pinning `cuda-toolkit` to its own major, and only the one whose
//! requirements the environment holds is the one the user asked for.

use std::collections::{BTreeMap, BTreeSet};
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
    /// The extra it is required under (`cu13`), one the environment was
    /// installed with ([`active_extras`]); `None` for a plain requirement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra: Option<String>,
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

/// The distributions pip installed in an environment, by normalised name,
/// with their versions.
pub type Installed = BTreeMap<String, String>;

/// One `Requires-Dist` line whose environment markers hold here.
struct Line {
    name: String,
    /// The extra it is under, if any.
    extra: Option<String>,
    specifiers: Option<VersionSpecifiers>,
    /// As pip takes it, marker dropped.
    requirement: String,
}

impl Line {
    /// Whether the installed version satisfies it (`None`: not
    /// installed; a version that does not parse satisfies).
    fn holds(&self, installed: &Installed) -> Option<bool> {
        let version = installed.get(&self.name)?;
        Some(match (&self.specifiers, Version::from_str(version)) {
            (Some(spec), Ok(v)) => spec.contains(&v),
            _ => true,
        })
    }
}

/// The `Requires-Dist` lines whose environment markers hold for Linux on
/// this machine and `python` (`None`: markers on the Python version count
/// as met), each with the extra it is under.
fn lines(requires: &[String], python: Option<&str>) -> Vec<Line> {
    let env = python.and_then(environment);
    let mut out = Vec::new();
    for line in requires {
        let Ok(req) = Requirement::<pep508_rs::VerbatimUrl>::from_str(line) else {
            continue;
        };
        let extra = match req.marker.top_level_extra() {
            Some(MarkerExpression::Extra {
                name: MarkerValueExtra::Extra(extra),
                ..
            }) => Some(extra),
            _ => None,
        };
        let always = req.marker.evaluate_optional_environment(env.as_ref(), &[]);
        let under_extra = !always
            && extra.as_ref().is_some_and(|e| {
                req.marker
                    .evaluate_optional_environment(env.as_ref(), std::slice::from_ref(e))
            });
        if !always && !under_extra {
            continue;
        }
        let name = normalize(req.name.as_ref());
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
        out.push(Line {
            requirement: format!("{name}{extras_text}{spec_text}"),
            name,
            extra: if always {
                None
            } else {
                extra.map(|e| e.to_string())
            },
            specifiers,
        });
    }
    out
}

/// The extras a distribution was installed with, told from what is
/// installed: an extra whose every requirement is installed and holds;
/// and one whose requirements are all installed but not all held (a wheel
/// upgraded past the pin), unless an extra that holds wholly names one of
/// the same distributions (numba-cuda's `cu12` beside its `cu13`: both name
/// `cuda-toolkit`, and the environment holds the CUDA 13 one).
fn active_extras(lines: &[Line], installed: &Installed) -> BTreeSet<String> {
    let mut by_extra: BTreeMap<&str, Vec<&Line>> = BTreeMap::new();
    for l in lines {
        if let Some(e) = &l.extra {
            by_extra.entry(e).or_default().push(l);
        }
    }
    let present = |ls: &[&Line]| ls.iter().all(|l| l.holds(installed).is_some());
    let held = |ls: &[&Line]| ls.iter().all(|l| l.holds(installed) == Some(true));
    let wholly: Vec<&str> = by_extra
        .iter()
        .filter(|(_, ls)| held(ls))
        .map(|(e, _)| *e)
        .collect();
    by_extra
        .iter()
        .filter(|(e, ls)| {
            wholly.contains(e)
                || (present(ls)
                    && !wholly.iter().any(|w| {
                        by_extra[w]
                            .iter()
                            .any(|other| ls.iter().any(|l| l.name == other.name))
                    }))
        })
        .map(|(e, _)| e.to_string())
        .collect()
}

/// A distribution's CUDA-stack pins: those it is held to, and those its
/// fixes follow.
#[derive(Debug, Clone, Default)]
pub struct Pins {
    /// Plain requirements and those of the extras it was installed with.
    pub held: Vec<Pin>,
    /// Those of an extra it was not installed with that no other extra
    /// stands in for (TensorFlow's `and-cuda`, but not numba-cuda's `cu12`
    /// beside its `cu13`): not held, but a fix that installs one of those
    /// wheels installs it as the extra would (TensorFlow 2.20 installed
    /// bare, then given cuBLAS by a fix, wants `nvidia-cublas-cu12>=12.5.3.2`).
    pub for_fixes: Vec<Pin>,
    /// Those of extras that stand in for each other (numba-cuda's `cu12`
    /// and `cu13`), where it was installed with none of them: a fix
    /// installs the package with the one for the environment's CUDA major.
    pub alternatives: Vec<Pin>,
}

/// The CUDA-stack pins among `Requires-Dist` lines, for an environment
/// running `python` (`None`: markers on the Python version count as met)
/// with `installed` distributions.
pub fn parse(requires: &[String], python: Option<&str>, installed: &Installed) -> Pins {
    let lines = lines(requires, python);
    let active = active_extras(&lines, installed);
    // Extras that stand in for each other name the same distributions.
    let alternative = |extra: &str| {
        lines.iter().any(|l| {
            l.extra.as_deref().is_some_and(|e| e != extra)
                && lines
                    .iter()
                    .any(|m| m.extra.as_deref() == Some(extra) && m.name == l.name)
        })
    };
    let standing_in: BTreeSet<String> = lines
        .iter()
        .filter_map(|l| l.extra.clone())
        .filter(|e| alternative(e))
        .collect();
    let mut pins = Pins::default();
    for l in lines.into_iter().filter(|l| is_cuda_stack(&l.name)) {
        let held = l.extra.as_ref().is_none_or(|e| active.contains(e));
        let usable = held || l.extra.as_ref().is_some_and(|e| !standing_in.contains(e));
        let pin = Pin {
            name: l.name,
            requirement: l.requirement,
            extra: l.extra,
            specifiers: l.specifiers,
        };
        if held {
            pins.held.push(pin);
        } else if usable {
            pins.for_fixes.push(pin);
        } else if active.is_empty() || !active.iter().any(|a| standing_in.contains(a)) {
            pins.alternatives.push(pin);
        }
    }
    pins
}

/// The requirements among `Requires-Dist` lines on one of `names` (a
/// framework's distributions: xformers 0.0.28.post3's `torch==2.5.1`) that
/// hold for this environment: plain ones and those of the extras it was
/// installed with (tensorflow-text's `tensorflow-cpu` under its
/// `tensorflow_cpu` extra counts only where that is installed).
pub fn on_distributions(
    requires: &[String],
    python: Option<&str>,
    installed: &Installed,
    names: &[String],
) -> Vec<Pin> {
    let lines = lines(requires, python);
    let active = active_extras(&lines, installed);
    lines
        .into_iter()
        .filter(|l| names.contains(&l.name))
        .filter(|l| l.extra.as_ref().is_none_or(|e| active.contains(e)))
        .map(|l| Pin {
            name: l.name,
            requirement: l.requirement,
            extra: l.extra,
            specifiers: l.specifiers,
        })
        .collect()
}

/// The installed distributions `Requires-Dist` lines name, plain ones and
/// those of the extras installed (markers evaluated for `python`): what
/// pip installed for the distribution, normalised.
pub fn installed_requirements(
    requires: &[String],
    python: Option<&str>,
    installed: &Installed,
) -> Vec<String> {
    let lines = lines(requires, python);
    let active = active_extras(&lines, installed);
    let mut out: Vec<String> = lines
        .into_iter()
        .filter(|l| installed.contains_key(&l.name))
        .filter(|l| l.extra.as_ref().is_none_or(|e| active.contains(e)))
        .map(|l| l.name)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_lines(text: &str) -> Vec<String> {
        text.lines().map(String::from).collect()
    }

    /// torch 2.15.0's Requires-Dist (PyPI METADATA, December 2026).
    #[test]
    fn torch_pins_its_toolkit_and_cudnn() {
        let pins = parse(
            &text_lines(
                "filelock\ntyping-extensions>=4.10.0\n\
                 cuda-toolkit[cublas,cudart,cufft,cufile,cupti,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.2.2; platform_system == \"Linux\"\n\
                 nvidia-cudnn-cu13==9.26.0.51; platform_system == \"Linux\"\n\
                 nvidia-nccl-cu13==2.30.7; platform_system == \"Linux\"\n\
                 triton~=3.9.0; platform_system == \"Linux\"\n\
                 optree>=0.13.0; extra == \"optree\"",
            ),
            Some("3.11"),
            &Installed::new(),
        )
        .held;
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
        assert!(pins.iter().all(|p| p.extra.is_none()));
    }

    fn installed(pairs: &[(&str, &str)]) -> Installed {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    /// jax-cuda12-plugin 0.12.0.1: the CUDA wheels only under `with-cuda`,
    /// held when that extra was installed, even upgraded past its pin.
    #[test]
    fn an_installed_extra_is_held_to_its_pins() {
        let metadata = text_lines(
            "jax-cuda12-pjrt==0.12.0.1\n\
             nvidia-cudnn-cu12<10.0,>=9.10.2.21; sys_platform == \"linux\" and extra == \"with-cuda\"\n\
             nvidia-cublas-cu12>=12.1.3.1; sys_platform == \"win32\" and extra == \"with-cuda\"",
        );
        let pins = parse(
            &metadata,
            Some("3.12"),
            &installed(&[
                ("jax-cuda12-pjrt", "0.12.0.1"),
                ("nvidia-cudnn-cu12", "10.1.0"),
            ]),
        )
        .held;
        assert_eq!(pins.len(), 1);
        assert_eq!(pins[0].extra.as_deref(), Some("with-cuda"));
        assert_eq!(pins[0].floor().as_deref(), Some("9.10.2.21"));
        assert_eq!(pins[0].allows("10.1.0"), Some(false));
        assert_eq!(pins[0].allows("9.28.0.42"), Some(true));
        // Installed without the extra: its requirements are not there, and
        // are not held; a fix that installs the wheel follows them.
        let bare = parse(&metadata, Some("3.12"), &installed(&[]));
        assert!(bare.held.is_empty());
        assert_eq!(bare.for_fixes.len(), 1);
        assert_eq!(bare.for_fixes[0].floor().as_deref(), Some("9.10.2.21"));
    }

    /// numba-cuda 0.30.4's METADATA (PyPI, December 2026): a `cu12` and a
    /// `cu13` extra, each pinning cuda-toolkit to its major. In an
    /// environment made with `numba-cuda[cu13]` (and a torch that brought
    /// nvidia-nvjitlink-cu12 too), only `cu13` is the user's.
    #[test]
    fn of_two_extras_on_one_distribution_the_one_that_holds() {
        let metadata = text_lines(
            "numba>=0.60.0\n\
             cuda-bindings<14.0.0,>=12.9.1\n\
             cuda-core<2.0.0,>=0.5.1\n\
             cuda-pathfinder<2.0.0,>=1.4.0\n\
             packaging\n\
             cuda-bindings<13.0.0,>=12.9.1; extra == \"cu12\"\n\
             cuda-toolkit[cccl,cudart,nvcc,nvrtc]==12.*; extra == \"cu12\"\n\
             nvidia-nvjitlink-cu12<13.0.0,>=12.3.0; extra == \"cu12\"\n\
             cuda-bindings==13.*; extra == \"cu13\"\n\
             cuda-toolkit[cccl,cudart,nvrtc,nvvm]==13.*; extra == \"cu13\"\n\
             nvidia-nvjitlink<14.0.0,>=13.0.0; extra == \"cu13\"",
        );
        let cu13 = installed(&[
            ("numba", "0.68.1"),
            ("cuda-bindings", "13.5.0"),
            ("cuda-core", "1.2.2"),
            ("cuda-pathfinder", "1.9.1"),
            ("packaging", "26.4"),
            ("cuda-toolkit", "13.0.2"),
            ("nvidia-nvjitlink", "13.0.88"),
            ("nvidia-nvjitlink-cu12", "12.8.93"),
        ]);
        let pins = parse(&metadata, Some("3.12"), &cu13).held;
        let reqs: Vec<(&str, Option<&str>)> = pins
            .iter()
            .map(|p| (p.requirement.as_str(), p.extra.as_deref()))
            .collect();
        assert_eq!(
            reqs,
            [
                ("cuda-toolkit[cccl,cudart,nvrtc,nvvm]==13.*", Some("cu13")),
                ("nvidia-nvjitlink>=13.0.0, <14.0.0", Some("cu13")),
            ]
        );
        assert!(pins.iter().all(|p| p.allows(&cu13[&p.name]) == Some(true)));
        // The same METADATA with the CUDA 12 toolkit: `cu12` is the one.
        let mut cu12 = cu13.clone();
        cu12.insert("cuda-bindings".into(), "12.9.4".into());
        cu12.insert("cuda-toolkit".into(), "12.9.1".into());
        let pins = parse(&metadata, Some("3.12"), &cu12).held;
        assert!(
            pins.iter().all(|p| p.extra.as_deref() == Some("cu12")),
            "{pins:?}"
        );
        assert_eq!(pins.len(), 2);
        // Plain numba-cuda, no toolkit from pip: no extra, no pin; and its
        // two extras stand in for each other, so fixes follow neither.
        let bare = parse(&metadata, Some("3.12"), &installed(&[("numba", "0.68.1")]));
        assert!(
            bare.held.is_empty() && bare.for_fixes.is_empty(),
            "{bare:?}"
        );
        // They are the alternatives a fix chooses from, by CUDA major.
        let extras: Vec<&str> = bare
            .alternatives
            .iter()
            .filter_map(|p| p.extra.as_deref())
            .collect();
        // (cuda-bindings is no CUDA-stack wheel: the toolkit and nvJitLink.)
        assert_eq!(extras, ["cu12", "cu12", "cu13", "cu13"]);
        // With one installed, the other is no alternative.
        assert!(
            parse(&metadata, Some("3.12"), &cu13)
                .alternatives
                .is_empty()
        );
    }

    /// xformers 0.0.28.post3 and tensorflow-text 2.17.0's Requires-Dist
    /// (PyPI METADATA).
    #[test]
    fn requirements_on_a_framework() {
        let torch = vec!["torch".to_string()];
        let pins = on_distributions(
            &text_lines("numpy\ntorch ==2.5.1\nfairscale ; extra == \"dev\""),
            Some("3.11"),
            &installed(&[("torch", "2.6.0"), ("numpy", "2.1.0")]),
            &torch,
        );
        assert_eq!(pins.len(), 1);
        assert_eq!(pins[0].requirement, "torch==2.5.1");
        assert_eq!(pins[0].allows("2.6.0+cu124"), Some(false));
        assert_eq!(pins[0].allows("2.5.1+cu124"), Some(true));
        let tf = vec!["tensorflow".to_string(), "tensorflow-cpu".to_string()];
        let lines = text_lines(
            "tensorflow <2.18,>=2.17.0\ntensorflow-cpu <2.18,>=2.17.0 ; extra == 'tensorflow_cpu'",
        );
        let pins = on_distributions(
            &lines,
            Some("3.11"),
            &installed(&[("tensorflow", "2.18.0")]),
            &tf,
        );
        assert_eq!(
            pins.iter()
                .map(|p| p.requirement.as_str())
                .collect::<Vec<_>>(),
            ["tensorflow>=2.17.0, <2.18"]
        );
    }
}
