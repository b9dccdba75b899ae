//! The compatibility matrix (`data/matrix.toml`, shipped in the binary),
//! optionally extended by a user file whose rows take precedence, and the
//! questions envhook asks of it. Versions are compared with rattler's conda
//! version ordering, ranges are conda version specs.

use std::path::Path;
use std::str::FromStr;

use rattler_conda_types::{ParseStrictness, Version, VersionSpec};
use serde::Deserialize;

use crate::data::catalog::Framework;
use crate::error::{Error, Result};

const MATRIX_TOML: &str = include_str!("../../data/matrix.toml");

/// Parse a version; `None` for strings that are not versions.
pub fn version(s: &str) -> Option<Version> {
    Version::from_str(s.trim()).ok()
}

/// Parse a version spec strictly.
fn spec(s: &str) -> std::result::Result<VersionSpec, String> {
    VersionSpec::from_str(s, ParseStrictness::Strict).map_err(|e| format!("'{s}': {e}"))
}

/// `12.6.77` -> `12.6`, `12` -> `12`.
pub fn major_minor(v: &str) -> String {
    v.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// The leading number of a version (`12.6` -> 12).
pub fn major(v: &str) -> Option<u32> {
    v.split('.').next()?.parse().ok()
}

/// How much a row can be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Read in the cited document.
    #[default]
    Verified,
    /// Several secondary sources agree.
    Corroborated,
    /// Partial evidence.
    Uncertain,
}

/// Driver floor for a CUDA major (or an exact pre-11 release).
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverFloor {
    /// `"12"`, or `"10.2"` with `exact`.
    pub cuda: String,
    /// Minimum Linux driver.
    pub linux: String,
    /// Minimum Windows driver.
    pub windows: Option<String>,
    /// No minor-version compatibility: `cuda` is one release.
    #[serde(default)]
    pub exact: bool,
    #[serde(default)]
    pub confidence: Confidence,
    pub note: Option<String>,
    pub source: String,
}

/// The driver a toolkit release bundles.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolkitDriver {
    pub ctk: String,
    pub linux: String,
    pub windows: Option<String>,
    pub source: String,
}

/// Toolkits able to target an architecture.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arch {
    /// Compute capability, `8.6`.
    pub cc: String,
    pub name: String,
    pub first_ctk: String,
    /// Empty: still supported.
    pub last_ctk: String,
    #[serde(default)]
    pub confidence: Confidence,
    pub note: Option<String>,
    pub source: String,
}

/// A GPU model.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    pub name: String,
    /// Substrings of the name nvidia-smi prints.
    #[serde(rename = "match")]
    pub matches: Vec<String>,
    pub cc: String,
    #[serde(default)]
    pub confidence: Confidence,
    pub source: String,
}

/// A cuDNN release range and the CUDA versions it supports.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudnnRow {
    pub versions: String,
    pub cuda: String,
    #[serde(default)]
    pub confidence: Confidence,
    pub source: String,
}

/// What a framework build was made with.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameworkRow {
    pub framework: Framework,
    /// Spec on the release (version without local/post tags).
    pub release: String,
    /// `post116`, `cu121`, `cuda12`, or `default` (plain PyPI version).
    pub tag: String,
    pub cuda: String,
    pub cudnn: Option<String>,
    pub min_cc: Option<String>,
    pub max_cc: Option<String>,
    #[serde(default)]
    pub confidence: Confidence,
    pub note: Option<String>,
    pub source: String,
}

/// Library names a framework dlopens.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DlopenRow {
    pub framework: Framework,
    pub release: String,
    /// Only for builds with (true) or without (false) pip CUDA libraries.
    pub pip_cuda_libraries: Option<bool>,
    pub names: Vec<String>,
    #[serde(default)]
    pub confidence: Confidence,
    pub note: Option<String>,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    version: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct MatrixFile {
    meta: Option<Meta>,
    driver_floor: Vec<DriverFloor>,
    toolkit_driver: Vec<ToolkitDriver>,
    arch: Vec<Arch>,
    gpu: Vec<Gpu>,
    cudnn: Vec<CudnnRow>,
    framework: Vec<FrameworkRow>,
    dlopen: Vec<DlopenRow>,
}

/// The matrix in use.
#[derive(Debug)]
pub struct Matrix {
    /// Data version, `+user` when a user file was merged.
    pub version: String,
    pub driver_floor: Vec<DriverFloor>,
    pub toolkit_driver: Vec<ToolkitDriver>,
    pub arch: Vec<Arch>,
    pub gpu: Vec<Gpu>,
    pub cudnn: Vec<CudnnRow>,
    pub framework: Vec<FrameworkRow>,
    pub dlopen: Vec<DlopenRow>,
}

/// The shipped data version (for `--version`), read from the `[meta]`
/// table's `version = "..."` line without parsing the whole file: every
/// invocation builds the version string. The matrix test checks it equals
/// the parsed value.
pub fn shipped_version() -> &'static str {
    MATRIX_TOML
        .lines()
        .skip_while(|l| l.trim() != "[meta]")
        .find_map(|l| l.trim().strip_prefix("version = "))
        .map(|v| v.trim().trim_matches('"'))
        .unwrap_or("unknown")
}

impl Matrix {
    /// The shipped matrix, plus `user` (rows first, so they win).
    pub fn load(user: Option<&Path>) -> Result<Matrix> {
        let shipped = parse(MATRIX_TOML).map_err(|reason| Error::BadMatrix {
            path: "data/matrix.toml (built in)".into(),
            reason,
        })?;
        let Some(path) = user else {
            return Ok(shipped);
        };
        let bytes = crate::paths::read_regular(path, crate::paths::MAX_TEXT)
            .map_err(|e| Error::read(path, e))?;
        let text = String::from_utf8(bytes).map_err(|_| Error::BadMatrix {
            path: path.to_path_buf(),
            reason: "not valid UTF-8".into(),
        })?;
        let user = parse(&text).map_err(|reason| Error::BadMatrix {
            path: path.to_path_buf(),
            reason,
        })?;
        fn merge<T>(mut first: Vec<T>, then: Vec<T>) -> Vec<T> {
            first.extend(then);
            first
        }
        Ok(Matrix {
            version: format!("{}+user", shipped.version),
            driver_floor: merge(user.driver_floor, shipped.driver_floor),
            toolkit_driver: merge(user.toolkit_driver, shipped.toolkit_driver),
            arch: merge(user.arch, shipped.arch),
            gpu: merge(user.gpu, shipped.gpu),
            cudnn: merge(user.cudnn, shipped.cudnn),
            framework: merge(user.framework, shipped.framework),
            dlopen: merge(user.dlopen, shipped.dlopen),
        })
    }

    /// The driver floor for a CUDA runtime version (`11.8`).
    pub fn driver_floor(&self, cuda: &str) -> Option<&DriverFloor> {
        let mm = major_minor(cuda);
        self.driver_floor
            .iter()
            .find(|f| f.exact && f.cuda == mm)
            .or_else(|| {
                let m = major(cuda)?;
                self.driver_floor
                    .iter()
                    .find(|f| !f.exact && major(&f.cuda) == Some(m) && m >= 11)
            })
    }

    /// The newest CUDA release whose bundled Linux driver is not newer than
    /// `driver`: the highest CUDA it supports with every feature.
    pub fn max_cuda_for_driver(&self, driver: &str) -> Option<String> {
        let d = version(driver)?;
        self.toolkit_driver
            .iter()
            .filter(|t| version(&t.linux).is_some_and(|l| l <= d))
            .filter_map(|t| Some((version(&t.ctk)?, t)))
            .max_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, t)| major_minor(&t.ctk))
    }

    /// The architecture row for a compute capability.
    pub fn arch(&self, cc: &str) -> Option<&Arch> {
        let want = version(cc)?;
        self.arch
            .iter()
            .find(|a| version(&a.cc).is_some_and(|v| v == want))
    }

    /// Whether CUDA `cuda` can target `cc`: `Some(true/false)`, `None` when
    /// the architecture is unknown.
    pub fn cuda_supports_cc(&self, cuda: &str, cc: &str) -> Option<(bool, &Arch)> {
        let arch = self.arch(cc)?;
        let c = version(&major_minor(cuda))?;
        let first = version(&arch.first_ctk)?;
        let ok_first = c >= first;
        let ok_last = arch.last_ctk.is_empty() || version(&arch.last_ctk).is_some_and(|l| c <= l);
        Some((ok_first && ok_last, arch))
    }

    /// The GPU model a name matches (the longest matching substring wins,
    /// so `A100` is not taken for `A10`).
    pub fn gpu_by_name(&self, name: &str) -> Option<&Gpu> {
        let upper = name.to_uppercase();
        self.gpu
            .iter()
            .flat_map(|g| g.matches.iter().map(move |m| (m, g)))
            .filter(|(m, _)| contains_word(&upper, &m.to_uppercase()))
            .max_by_key(|(m, _)| m.len())
            .map(|(_, g)| g)
    }

    /// The row for a cuDNN version.
    pub fn cudnn(&self, cudnn: &str) -> Option<&CudnnRow> {
        let v = version(cudnn)?;
        self.cudnn
            .iter()
            .find(|r| spec(&r.versions).is_ok_and(|s| s.matches(&v)))
    }

    /// Whether a cuDNN release lists a CUDA version: `None` when the cuDNN
    /// release is not in the matrix.
    pub fn cudnn_supports_cuda(&self, cudnn: &str, cuda: &str) -> Option<(bool, &CudnnRow)> {
        let row = self.cudnn(cudnn)?;
        let c = version(&major_minor(cuda))?;
        Some((spec(&row.cuda).is_ok_and(|s| s.matches(&c)), row))
    }

    /// The build row for a framework release and tag.
    pub fn framework(&self, fw: Framework, release: &str, tag: &str) -> Option<&FrameworkRow> {
        let v = version(release)?;
        self.framework.iter().find(|r| {
            r.framework == fw && r.tag == tag && spec(&r.release).is_ok_and(|s| s.matches(&v))
        })
    }

    /// The build row for a framework release built for a given CUDA.
    pub fn framework_by_cuda(
        &self,
        fw: Framework,
        release: &str,
        cuda: &str,
    ) -> Option<&FrameworkRow> {
        let v = version(release)?;
        let c = major_minor(cuda);
        self.framework.iter().find(|r| {
            r.framework == fw
                && major_minor(&r.cuda) == c
                && spec(&r.release).is_ok_and(|s| s.matches(&v))
        })
    }

    /// Names a framework release dlopens.
    pub fn dlopen(
        &self,
        fw: Framework,
        release: &str,
        pip_cuda_libraries: bool,
    ) -> Option<&DlopenRow> {
        let v = version(release)?;
        self.dlopen.iter().find(|r| {
            r.framework == fw
                && r.pip_cuda_libraries.is_none_or(|p| p == pip_cuda_libraries)
                && spec(&r.release).is_ok_and(|s| s.matches(&v))
        })
    }
}

/// `needle` in `haystack` with no letter or digit right after it (so `L4`
/// does not match `L40S`; `A10` does not match `A100`).
fn contains_word(haystack: &str, needle: &str) -> bool {
    haystack.match_indices(needle).any(|(at, _)| {
        let after = haystack[at + needle.len()..].chars().next();
        let before = haystack[..at].chars().next_back();
        !after.is_some_and(|c| c.is_ascii_alphanumeric())
            && !before.is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

/// Parse and validate a matrix file: every version and spec must parse.
fn parse(text: &str) -> std::result::Result<Matrix, String> {
    let f: MatrixFile = toml::from_str(text).map_err(|e| e.to_string())?;
    // conda versions may be words ("twelve" parses); the matrix's are numbers.
    let check_version = |what: &str, s: &str| {
        version(s)
            .filter(|_| s.starts_with(|c: char| c.is_ascii_digit()))
            .map(|_| ())
            .ok_or_else(|| format!("{what}: '{s}' is not a version number"))
    };
    for r in &f.driver_floor {
        check_version("driver_floor.cuda", &r.cuda)?;
        check_version("driver_floor.linux", &r.linux)?;
    }
    for r in &f.toolkit_driver {
        check_version("toolkit_driver.ctk", &r.ctk)?;
        check_version("toolkit_driver.linux", &r.linux)?;
    }
    for r in &f.arch {
        check_version("arch.cc", &r.cc)?;
        check_version("arch.first_ctk", &r.first_ctk)?;
        if !r.last_ctk.is_empty() {
            check_version("arch.last_ctk", &r.last_ctk)?;
        }
    }
    for r in &f.gpu {
        check_version("gpu.cc", &r.cc)?;
    }
    for r in &f.cudnn {
        spec(&r.versions).map_err(|e| format!("cudnn.versions {e}"))?;
        spec(&r.cuda).map_err(|e| format!("cudnn.cuda {e}"))?;
    }
    for r in &f.framework {
        spec(&r.release).map_err(|e| format!("framework.release {e}"))?;
        check_version("framework.cuda", &r.cuda)?;
    }
    for r in &f.dlopen {
        spec(&r.release).map_err(|e| format!("dlopen.release {e}"))?;
    }
    Ok(Matrix {
        version: f.meta.map(|m| m.version).unwrap_or_else(|| "user".into()),
        driver_floor: f.driver_floor,
        toolkit_driver: f.toolkit_driver,
        arch: f.arch,
        gpu: f.gpu,
        cudnn: f.cudnn,
        framework: f.framework,
        dlopen: f.dlopen,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m() -> Matrix {
        Matrix::load(None).unwrap()
    }

    #[test]
    fn every_row_has_a_source() {
        let m = m();
        let sources = m
            .driver_floor
            .iter()
            .map(|r| &r.source)
            .chain(m.toolkit_driver.iter().map(|r| &r.source))
            .chain(m.arch.iter().map(|r| &r.source))
            .chain(m.gpu.iter().map(|r| &r.source))
            .chain(m.cudnn.iter().map(|r| &r.source))
            .chain(m.framework.iter().map(|r| &r.source))
            .chain(m.dlopen.iter().map(|r| &r.source));
        for s in sources {
            assert!(s.trim().len() > 5, "row without a source");
        }
        assert!(!m.version.is_empty());
        assert_eq!(
            shipped_version(),
            m.version,
            "the quick read agrees with the parser"
        );
    }

    #[test]
    fn driver_floors_at_and_around_each_boundary() {
        let m = m();
        let floor = |cuda: &str| m.driver_floor(cuda).map(|f| f.linux.as_str());
        assert_eq!(floor("11.0"), Some("450.80.02"));
        assert_eq!(floor("11.8"), Some("450.80.02"));
        assert_eq!(floor("12.0"), Some("525.60.13"));
        assert_eq!(floor("12.9"), Some("525.60.13"));
        assert_eq!(floor("13.0"), Some("580.65.06"));
        assert_eq!(floor("10.2"), Some("440.33"));
        assert_eq!(
            floor("10.1"),
            None,
            "no row: no minor version compatibility before 11"
        );
        let v = |s: &str| version(s).unwrap();
        assert!(v("525.60.12") < v("525.60.13") && v("525.60.13") < v("525.85.12"));
        assert!(v("580.65.06") > v("575.57.08"));
    }

    #[test]
    fn max_cuda_of_a_driver() {
        let m = m();
        let max = |d: &str| m.max_cuda_for_driver(d);
        assert_eq!(max("450.80.02").as_deref(), Some("11.0"));
        assert_eq!(max("470.82.01").as_deref(), Some("11.4"));
        assert_eq!(max("525.60.12").as_deref(), Some("11.8"));
        assert_eq!(max("525.60.13").as_deref(), Some("12.0"));
        assert_eq!(max("550.54.15").as_deref(), Some("12.4"));
        assert_eq!(max("575.57.08").as_deref(), Some("12.9"));
        assert_eq!(max("580.65.06").as_deref(), Some("13.0"));
        assert_eq!(max("590.44.01").as_deref(), Some("13.1"));
        assert_eq!(max("300.0"), None);
    }

    #[test]
    fn architectures_per_toolkit() {
        let m = m();
        let ok = |cuda: &str, cc: &str| m.cuda_supports_cc(cuda, cc).map(|(ok, _)| ok);
        assert_eq!(ok("11.7", "9.0"), Some(false), "sm_90 needs 11.8");
        assert_eq!(ok("11.8", "9.0"), Some(true));
        assert_eq!(ok("11.8", "8.9"), Some(true));
        assert_eq!(ok("12.9", "7.0"), Some(true));
        assert_eq!(ok("13.0", "7.0"), Some(false), "CUDA 13 drops Volta");
        assert_eq!(ok("13.0", "7.5"), Some(true));
        assert_eq!(ok("11.8", "3.5"), Some(true));
        assert_eq!(ok("12.0", "3.5"), Some(false), "CUDA 12 drops Kepler");
        assert_eq!(ok("12.7", "10.0"), Some(false));
        assert_eq!(ok("12.8", "10.0"), Some(true));
        assert_eq!(ok("12.8", "12.0"), Some(true));
        assert_eq!(ok("12.8", "4.2"), None);
    }

    #[test]
    fn gpu_names() {
        let m = m();
        let cc = |name: &str| m.gpu_by_name(name).map(|g| g.cc.as_str());
        assert_eq!(cc("NVIDIA A100-SXM4-40GB"), Some("8.0"));
        assert_eq!(cc("NVIDIA A10"), Some("8.6"));
        assert_eq!(cc("NVIDIA A10G"), Some("8.6"));
        assert_eq!(cc("NVIDIA L4"), Some("8.9"));
        assert_eq!(cc("NVIDIA L40S"), Some("8.9"));
        assert_eq!(cc("NVIDIA H100 80GB HBM3"), Some("9.0"));
        assert_eq!(cc("NVIDIA GeForce RTX 4090"), Some("8.9"));
        assert_eq!(cc("Tesla T4"), Some("7.5"));
        assert_eq!(cc("Tesla V100-SXM2-16GB"), Some("7.0"));
        assert_eq!(cc("NVIDIA GeForce RTX 5090"), Some("12.0"));
        assert_eq!(cc("Quadro P1000"), None);
    }

    #[test]
    fn cudnn_and_cuda() {
        let m = m();
        let ok = |d: &str, c: &str| m.cudnn_supports_cuda(d, c).map(|(ok, _)| ok);
        assert_eq!(ok("8.2.1", "11.3"), Some(true));
        assert_eq!(ok("8.2.1", "11.4"), Some(false), "8.2.0-8.2.1 stop at 11.3");
        assert_eq!(ok("8.2.2", "11.4"), Some(true));
        assert_eq!(ok("8.4.0", "11.6"), Some(true));
        assert_eq!(ok("8.4.0", "11.7"), Some(false));
        assert_eq!(ok("8.9.2.26", "12.2"), Some(true));
        assert_eq!(ok("8.9.2.26", "11.8"), Some(true));
        assert_eq!(ok("8.9.7.29", "12.3"), Some(false));
        assert_eq!(ok("9.1.0.70", "11.8"), Some(true));
        assert_eq!(ok("9.1.0.70", "11.7"), Some(false));
        assert_eq!(ok("9.3.0.75", "12.6"), Some(true));
        assert_eq!(ok("9.10.2.21", "12.9"), Some(true));
        assert_eq!(ok("9.13.0.50", "13.0"), Some(true));
        assert_eq!(ok("9.13.0.50", "11.8"), Some(false));
        assert_eq!(ok("6.0", "8.0"), None);
    }

    #[test]
    fn framework_builds() {
        let m = m();
        let row = |fw, r: &str, t: &str| {
            m.framework(fw, r, t)
                .map(|r| (r.cuda.as_str(), r.cudnn.as_deref()))
        };
        assert_eq!(
            row(Framework::Paddlepaddle, "2.5.2", "post116"),
            Some(("11.6", Some("8.4.0")))
        );
        assert_eq!(
            row(Framework::Paddlepaddle, "2.4.2", "post116"),
            Some(("11.6", Some("8.4.0")))
        );
        assert_eq!(
            row(Framework::Paddlepaddle, "2.6.2", "default"),
            Some(("11.8", Some("8.6.0")))
        );
        assert_eq!(
            row(Framework::Paddlepaddle, "2.4.2", "default"),
            Some(("10.2", Some("7.6.5")))
        );
        assert_eq!(
            row(Framework::Paddlepaddle, "2.4.2", "post120"),
            None,
            "post120 starts at 2.5"
        );
        assert_eq!(
            row(Framework::Pytorch, "2.3.1", "default"),
            Some(("12.1", Some("8.9.2.26")))
        );
        assert_eq!(
            row(Framework::Pytorch, "2.7.0", "default"),
            Some(("12.6", Some("9.5.1.17")))
        );
        assert_eq!(
            row(Framework::Tensorflow, "2.15.0", "default"),
            Some(("12.2", Some("8.9")))
        );
        assert_eq!(
            row(Framework::Tensorflow, "2.11.1", "default"),
            Some(("11.2", Some("8.1")))
        );
        let by_cuda = m
            .framework_by_cuda(Framework::Paddlepaddle, "3.0.0", "12.6")
            .unwrap();
        assert_eq!(by_cuda.cudnn.as_deref(), Some("9.5.1.17"));
        let dl = m.dlopen(Framework::Paddlepaddle, "2.5.2", false).unwrap();
        assert!(dl.names.contains(&"libcudnn.so".to_string()));
        assert_eq!(
            m.dlopen(Framework::Paddlepaddle, "3.0.0", true)
                .unwrap()
                .names,
            vec!["libnvrtc.so"]
        );
    }

    #[test]
    fn user_rows_take_precedence_and_bad_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.toml");
        std::fs::write(
            &file,
            "[[driver_floor]]\ncuda = \"12\"\nlinux = \"999.1\"\nsource = \"site policy\"\n",
        )
        .unwrap();
        let m = Matrix::load(Some(&file)).unwrap();
        assert_eq!(m.driver_floor("12.4").unwrap().linux, "999.1");
        assert!(m.version.ends_with("+user"));
        std::fs::write(
            &file,
            "[[cudnn]]\nversions = \">=8.2,,<8.3\"\ncuda = \"11\"\nsource = \"x\"\n",
        )
        .unwrap();
        let err = Matrix::load(Some(&file)).unwrap_err().to_string();
        assert!(
            err.contains("m.toml") && err.contains(">=8.2,,<8.3"),
            "{err}"
        );
        std::fs::write(&file, "[[gpu]]\nname = 1\n").unwrap();
        assert!(Matrix::load(Some(&file)).is_err());
    }
}
