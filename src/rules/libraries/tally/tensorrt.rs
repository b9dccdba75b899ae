//! TensorRT, which frameworks load only for one feature (ONNX Runtime's
//! `TensorrtExecutionProvider`, TensorFlow's TF-TRT): its absence is an
//! info, but a TensorRT of another major (`libnvinfer.so.8` where the build
//! needs `.so.10`) or built for another CUDA major is a warning, since
//! whoever installed it means to use it.

use super::Seen;
use crate::data::matrix::major;
use crate::finding::{Cmd, Code, Fix, Problem, Severity};
use crate::inventory::Installer;
use crate::inventory::needs::needs;
use crate::rules::{Facts, finding};

/// What the name is loaded for, as the messages say it.
fn feature(s: &Seen) -> String {
    match &s.feature {
        Some(feature) => format!("{} (loaded only for {feature})", s.object),
        None => format!(
            "{} (TensorRT, only for {})",
            s.object,
            crate::data::catalog::CATALOG
                .optional_use(&s.name)
                .unwrap_or("TensorRT engines")
        ),
    }
}

/// The build behind a label (`package version`).
fn build<'a>(f: &'a Facts, label: &str) -> Option<&'a crate::inventory::FrameworkBuild> {
    f.inv
        .frameworks
        .iter()
        .find(|fw| format!("{} {}", fw.package, fw.version) == label)
}

/// The CUDA major the build was made for.
fn cuda_major(f: &Facts, label: &str) -> Option<u32> {
    let fw = build(f, label)?;
    needs(fw, f.matrix)?.cuda.as_deref().and_then(major)
}

/// The TensorRT major a soname names (`libnvinfer.so.10` -> 10,
/// `libnvinfer.so.8.6.1` -> 8).
fn trt_major(name: &str) -> Option<u32> {
    crate::inventory::needs::name_major(name)?.parse().ok()
}

/// The packages that provide TensorRT `soname` for a CUDA major: pip's
/// `tensorrt-cuNN-libs` (libraries in `site-packages/tensorrt_libs`) or
/// conda-forge's `libnvinfer` outputs, of the installer the build came
/// with.
pub(super) fn fix(f: &Facts, label: &str, soname: &str) -> Fix {
    let trt = trt_major(soname);
    let version = trt.map_or(String::new(), |t| format!("=={t}.*"));
    let cuda = cuda_major(f, label);
    let py = crate::rules::fixes::pip(&f.inv.prefix);
    // Without the build's CUDA major, the wheels of both majors are the
    // choice. Before TensorRT 10 there were no -cuNN wheels: PyPI's
    // tensorrt 8.6.1.post1 is an sdist whose setup.py installs
    // `tensorrt_libs==8.6.1` from NVIDIA's index, which is the command.
    let pip: Vec<Cmd> = if trt.is_some_and(|t| t < 10) {
        vec![
            py.clone()
                .raw("install --extra-index-url https://pypi.nvidia.com")
                .arg(format!("tensorrt-libs{version}")),
        ]
    } else {
        match cuda {
            Some(m) => vec![m],
            None => vec![12, 13],
        }
        .into_iter()
        .map(|m| {
            py.clone()
                .raw("install")
                .arg(format!("tensorrt-cu{m}-libs{version}"))
        })
        .collect()
    };
    let conda_version = trt.map_or(String::new(), |t| format!("={t}.*"));
    let conda = Cmd::new("conda install -p")
        .path(&f.inv.prefix)
        .raw("-c conda-forge")
        .args(
            ["libnvinfer", "libnvinfer-plugin", "libnvonnxparser"]
                .map(|package| format!("{package}{conda_version}")),
        )
        .args(cuda.map(|m| format!("cuda-version={m}")));
    let mut commands = pip;
    match build(f, label).map(|fw| fw.installer) {
        Some(Installer::Conda) => commands.insert(0, conda),
        _ => commands.push(conda),
    }
    let which = match cuda {
        Some(m) => format!(" for CUDA {m}"),
        None => " for the build's CUDA major".into(),
    };
    Fix::Choose {
        advice: format!(
            "only if you use TensorRT: TensorRT {}'s libraries{which}, from pip's wheels or \
             conda-forge's packages",
            trt.map_or("of the major it needs".into(), |t| t.to_string())
        ),
        commands,
    }
}

/// A TensorRT of another major than the one the build needs.
pub(super) fn other_version_finding(f: &Facts, label: &str, s: &Seen, have: &str) -> Problem {
    finding(
        Severity::Warning,
        Code::TensorrtOtherVersion,
        format!(
            "{label}'s {} needs {}, but the environment's TensorRT is {have}: another TensorRT \
             major, which this build cannot use, so TensorRT fails with \"{}: cannot open shared \
             object file\"",
            feature(s),
            s.name,
            s.name
        ),
        Some(fix(f, label, &s.name)),
    )
}

/// The environment's TensorRT is built for another CUDA major than the
/// build (a `tensorrt-cu13-libs` beside a CUDA 12 build).
pub(super) fn other_cuda_finding(f: &Facts, label: &str, s: &Seen) -> Problem {
    let mut owners: Vec<String> = f
        .inv
        .libraries_named(&s.name)
        .map(|(p, _)| p.name.clone())
        .collect();
    owners.dedup();
    let build_major = cuda_major(f, label).map_or("its own".into(), |m| format!("CUDA {m}"));
    finding(
        Severity::Warning,
        Code::TensorrtOtherCuda,
        format!(
            "{label}'s {} needs {}; the environment has it only from {}, built for another CUDA \
             major than this build's ({build_major}), so TensorRT would load against the wrong \
             CUDA libraries or not at all",
            feature(s),
            s.name,
            owners.join(", ")
        ),
        Some(fix(f, label, &s.name)),
    )
}

#[cfg(test)]
mod tests {
    use super::trt_major;

    #[test]
    fn tensorrt_major_from_the_soname() {
        assert_eq!(trt_major("libnvinfer.so.10"), Some(10));
        assert_eq!(trt_major("libnvinfer_plugin.so.8.6.1"), Some(8));
        assert_eq!(trt_major("libnvinfer.so"), None);
    }
}
