//! What a framework build needs (CUDA, cuDNN, architectures), derived once
//! from what the build records about itself and, where it is silent, from
//! the matrix.

use super::builds::Variant;
use super::pins::Pin;
use super::{Claim, FrameworkBuild, Installer};
use crate::data::matrix::{self, Matrix, major_minor, version};

/// The release part of a version: `2.5.2.post116` -> `2.5.2`,
/// `2.1.0+cu118` -> `2.1.0`.
pub fn release_of(v: &str) -> String {
    let v = v.split('+').next().unwrap_or(v);
    match v.split_once(".post") {
        Some((r, _)) => r.to_string(),
        None => v.to_string(),
    }
}

/// The build tag as the matrix names it.
pub fn tag_of(fw: &FrameworkBuild) -> String {
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

/// Whether a build links `stem` in statically, as its `[[dlopen]]` rows
/// say (CuPy's CUDA runtime): it needs no copy of it.
pub fn linked_in(fw: &FrameworkBuild, m: &Matrix, stem: &str) -> bool {
    let cuda = needs(fw, m).and_then(|n| n.cuda);
    loading_rows(fw, m, cuda.as_deref())
        .iter()
        .any(|r| r.linked_in.iter().any(|l| l == stem))
}

/// The `[[dlopen]]` rows of a build made for `cuda`: how it reaches its
/// libraries.
pub fn loading_rows<'m>(
    fw: &FrameworkBuild,
    m: &'m Matrix,
    cuda: Option<&str>,
) -> Vec<&'m matrix::DlopenRow> {
    m.dlopen(
        fw.framework,
        &fw.package,
        &release_of(&fw.version),
        fw.build.pip_cuda_libraries.unwrap_or(false),
        cuda.and_then(matrix::major),
    )
}

/// Whether `name` carries no major (`libcudnn.so`, `libcublas.so`): the
/// name Paddle and other loaders that expect a system or conda toolkit
/// dlopen, which any major's `-dev` link answers.
pub fn unversioned(name: &str) -> bool {
    name.ends_with(".so")
}

/// The major a soname or file name carries: `libcudnn.so.8.9.2` -> `8`,
/// `libcudart.so.11.0` -> `11`.
pub fn name_major(name: &str) -> Option<&str> {
    let (_, version) = name.split_once(".so.")?;
    let major = version.split('.').next()?;
    (!major.is_empty() && major.bytes().all(|b| b.is_ascii_digit())).then_some(major)
}

/// The soname an unversioned `name` (`libcudnn.so`) a build made for
/// `cuda` and `cudnn` dlopens must reach: the library of the build's own
/// major (`libcudnn.so.8` for cuDNN 8.6, `libcublas.so.11` for CUDA
/// 11.8). `None` for a versioned name, and where the build's versions or
/// the data do not say which: the name is then bound to nothing.
pub fn bound_soname(
    m: &Matrix,
    name: &str,
    (cuda, cudnn): (Option<&str>, Option<&str>),
) -> Option<String> {
    let stem = name.strip_suffix(".so")?;
    m.soname_of(stem, cuda, cudnn)
}

/// The name that carries the major of the library at `path`: its
/// `soname` where that has one, else (no SONAME, or one without a major)
/// the name of the file its links end at.
pub fn major_name(soname: Option<&str>, path: &std::path::Path) -> Option<String> {
    if let Some(s) = soname.filter(|s| name_major(s).is_some()) {
        return Some(s.to_string());
    }
    let real = crate::paths::real_path(path).ok()?;
    let name = real.file_name()?.to_str()?;
    name_major(name).map(|_| name.to_string())
}

/// The unversioned names a build dlopens (its `[[dlopen]]` rows' literal
/// names) that are bound to a soname ([`bound_soname`]), with it.
pub fn unversioned_asks(fw: &FrameworkBuild, m: &Matrix) -> Vec<(String, String)> {
    let Some(n) = needs(fw, m) else {
        return Vec::new();
    };
    let versions = (n.cuda.as_deref(), n.cudnn.as_deref());
    let mut out: Vec<(String, String)> = Vec::new();
    for row in loading_rows(fw, m, n.cuda.as_deref()) {
        for name in &row.names {
            if out.iter().any(|(have, _)| have == name) {
                continue;
            }
            if let Some(want) = bound_soname(m, name, versions) {
                out.push((name.clone(), want));
            }
        }
    }
    out
}

/// What a framework build needs, from its own record and the matrix.
#[derive(Debug, Default)]
pub struct Needs {
    /// CUDA it was built for.
    pub cuda: Option<String>,
    /// cuDNN it was built with.
    pub cudnn: Option<String>,
    /// Lowest compute capability it runs on.
    pub min_cc: Option<String>,
    /// Highest.
    pub max_cc: Option<String>,
    /// The matrix row used, if any: its source and confidence.
    pub row: Option<(String, matrix::Confidence)>,
    /// Where the CUDA and cuDNN came from, for messages: `torch/version.py`,
    /// `Requires-Dist nvidia-cudnn-cu13==9.26.0.51`.
    pub evidence: Vec<String>,
}

/// What a framework build needs. The build's own files first (its build
/// file, its version tag, its `Requires-Dist` pins), the matrix row where
/// they are silent.
pub fn needs(fw: &FrameworkBuild, m: &Matrix) -> Option<Needs> {
    let (mut cuda, mut cudnn) = match &fw.build.variant {
        Variant::Cuda { cuda, cudnn } => (cuda.clone(), cudnn.clone()),
        Variant::Unknown => (None, None),
        Variant::Cpu | Variant::Rocm { .. } => return None,
    };
    let mut evidence = Vec::new();
    if cuda.is_some() || cudnn.is_some() {
        evidence.push(fw.build.evidence.clone());
    }
    // The pins say the toolkit minor when the name says only the major
    // (jax-cuda12-plugin), and the cuDNN the build file does not name.
    if cuda.as_deref().is_none_or(|c| !c.contains('.'))
        && let Some((pin, floor)) = pin_floor(fw, |n| {
            n == "cuda-toolkit" || n.starts_with("nvidia-cuda-runtime")
        })
    {
        cuda = Some(major_minor(&floor));
        evidence.push(format!("Requires-Dist {}", pin.requirement));
    }
    if cudnn.is_none()
        && let Some((pin, floor)) = pin_floor(fw, |n| n.starts_with("nvidia-cudnn"))
    {
        cudnn = Some(floor);
        evidence.push(format!("Requires-Dist {}", pin.requirement));
    }
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
    // The architectures the build file lists outrank the row's range; PTX
    // (TensorFlow's compute_90) runs on every newer GPU, so a list with
    // PTX has no top.
    let (archs, ptx) = (&fw.build.archs, &fw.build.ptx);
    let cc = |a: &&String| crate::data::arch::Cc::parse(a);
    let lowest = archs.iter().chain(ptx).min_by_key(cc);
    let (min_cc, max_cc) = match (lowest, archs.iter().max_by_key(cc)) {
        (Some(lo), hi) => {
            let ptx_words = ptx.iter().map(|p| format!("PTX {p}"));
            let listed: Vec<String> = archs.iter().cloned().chain(ptx_words).collect();
            evidence.push(format!(
                "{} {} {}",
                fw.build.file(),
                fw.build.archs_key,
                listed.join(" ")
            ));
            let top = hi.filter(|_| ptx.is_empty()).cloned();
            (Some(lo.clone()), top)
        }
        _ => (
            row.and_then(|r| r.min_cc.clone()),
            row.and_then(|r| r.max_cc.clone()),
        ),
    };
    Some(Needs {
        cuda: cuda.or_else(|| row.map(|r| r.cuda.clone())),
        cudnn: cudnn.or_else(|| row.and_then(|r| r.cudnn.clone())),
        min_cc,
        max_cc,
        row: row.map(|r| (r.source.clone(), r.confidence)),
        evidence,
    })
}

/// The first pin on a distribution matching `name`, with its floor.
fn pin_floor(fw: &FrameworkBuild, name: impl Fn(&str) -> bool) -> Option<(&Pin, String)> {
    fw.pins
        .iter()
        .filter(|p| name(&p.name))
        .find_map(|p| p.floor().map(|f| (p, f)))
}

/// The claim a framework will use: the same installer's first, else any.
pub fn preferred(claims: &[Claim], installer: Installer) -> Option<&Claim> {
    claims
        .iter()
        .find(|c| c.installer == installer)
        .or(claims.first())
}

/// `8.4.0` vs `8.2.1` on major.minor (cuDNN and CUDA are ABI-stable within
/// a major; the minor decides which symbols exist).
pub fn older_minor(have: &str, need: &str) -> bool {
    match (version(&major_minor(have)), version(&major_minor(need))) {
        (Some(h), Some(n)) => need.contains('.') && h < n,
        _ => false,
    }
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
