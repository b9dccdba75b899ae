//! The compatibility matrix (`data/matrix.toml`, shipped in the binary),
//! optionally extended by a user file whose rows take precedence, and the
//! questions envhook asks of it. Versions are compared with rattler's conda
//! version ordering, ranges are conda version specs.
//!
//! Every range in the shipped data is closed above at what its source
//! covers, and the questions answer `None` ("not covered by the data") for a
//! version past every row instead of guessing: a cuDNN newer than the last
//! `[[cudnn]]` row, a CUDA newer than every cuDNN row lists, a framework
//! release newer than its last row, a driver of a newer branch than the
//! newest `[[toolkit_driver]]` row.

use std::path::Path;
use std::str::FromStr;

use rattler_conda_types::version_spec::{EqualityOperator, LogicalOperator, RangeOperator};
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
    /// How much the row can be trusted (default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// What the row does not show on its own.
    pub note: Option<String>,
    /// Where the facts were read.
    pub source: String,
}

/// The driver a toolkit release bundles.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolkitDriver {
    /// The toolkit release, `12.6.3`.
    pub ctk: String,
    /// The Linux driver it bundles.
    pub linux: String,
    /// The Windows driver it bundles (none from CUDA 13 on).
    pub windows: Option<String>,
    /// How much the row can be trusted (optional; default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// What the row does not show on its own (optional).
    pub note: Option<String>,
    /// Where the facts were read.
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
    /// The architecture's name, `Ampere`.
    pub name: String,
    /// The first toolkit able to target it.
    pub first_ctk: String,
    /// The last toolkit able to target it; empty: still supported.
    pub last_ctk: String,
    /// How much the row can be trusted (default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// What the row does not show on its own.
    pub note: Option<String>,
    /// Where the facts were read.
    pub source: String,
}

/// A GPU model.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    /// A label for the row.
    pub name: String,
    /// Whole model names as nvidia-smi prints them (`"A100"`, `"RTX 4090"`,
    /// `"Jetson T4000"`). A name matches when its model tokens equal those
    /// of one entry; vendor, brand, memory and form-factor words are ignored
    /// on both sides (see [`Matrix::gpu_by_name`]).
    #[serde(rename = "match")]
    pub matches: Vec<String>,
    /// Compute capability, `8.6`.
    pub cc: String,
    /// How much the row can be trusted (default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// What the row does not show on its own (optional).
    pub note: Option<String>,
    /// Where the facts were read.
    pub source: String,
}

/// A cuDNN release range, the CUDA versions and the GPUs it supports.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudnnRow {
    /// Spec on the cuDNN version, `">=9.1,<9.6"`.
    pub versions: String,
    /// Spec on the CUDA versions NVIDIA lists, `">=11.0,<11.9|>=12.0,<12.7"`.
    pub cuda: String,
    /// The compute capabilities NVIDIA's support matrix lists for these
    /// releases (`["7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "12.0"]`).
    /// Optional; absent = not recorded, and [`Matrix::cudnn_supports_cc`]
    /// answers `None`. A GPU whose capability shares the major of a listed
    /// one, with an equal or higher minor, is covered by binary
    /// compatibility (8.7 runs 8.6 code).
    pub cc: Option<Vec<String>>,
    /// How much the row can be trusted (default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// Caveats such as the driver a particular build needs (optional).
    pub note: Option<String>,
    /// Where the facts were read.
    pub source: String,
}

/// What a framework build was made with.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameworkRow {
    /// Which framework.
    pub framework: Framework,
    /// Spec on the release (version without local/post tags), closed above.
    pub release: String,
    /// `post116`, `cu121`, `cuda12`, or `default` (plain PyPI version).
    pub tag: String,
    /// The CUDA the build was compiled with, `12.8`.
    pub cuda: String,
    /// The cuDNN it pins or was built with; `"9"` = only the major is known.
    pub cudnn: Option<String>,
    /// The lowest compute capability its kernels cover, where known.
    pub min_cc: Option<String>,
    /// The highest compute capability its kernels cover, where limited.
    pub max_cc: Option<String>,
    /// How much the row can be trusted (default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// What the row does not show on its own.
    pub note: Option<String>,
    /// Where the facts were read.
    pub source: String,
}

/// Library names a framework dlopens.
// The fields mirror the data file; the checks read what they need.
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DlopenRow {
    /// Which framework.
    pub framework: Framework,
    /// Spec on the release, closed above.
    pub release: String,
    /// Only for builds with (true) or without (false) pip CUDA libraries.
    pub pip_cuda_libraries: Option<bool>,
    /// Only for builds for this CUDA major (JAX's cuda12 and cuda13
    /// plugins load different sonames).
    pub cuda_major: Option<u32>,
    /// The file name of the object that calls dlopen: its RPATH or RUNPATH
    /// is searched (`libtensorflow_cc.so.2`). Absent: the framework's first
    /// core object.
    pub object: Option<String>,
    /// The framework's Python code first loads each name by path from the
    /// pip `nvidia-*` wheel that ships it, when that wheel is installed
    /// (JAX's `_load_nvidia_libraries`); the dlopen by name follows, and
    /// finds the loaded copy by its soname.
    #[serde(default)]
    pub preloaded_from_wheels: bool,
    /// The names it passes to dlopen.
    pub names: Vec<String>,
    /// How much the row can be trusted (default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// What the row does not show on its own.
    pub note: Option<String>,
    /// Where the facts were read.
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
    /// `driver`: the highest CUDA it supports with every feature. `None`
    /// when the driver is older than every row, or belongs to a newer
    /// branch (`610.x` when the newest row bundles `595.x`): such a driver
    /// may support toolkits the data does not know, so its maximum is not
    /// covered by the data. A newer driver of the newest branch still
    /// answers that branch's CUDA (each CUDA minor release has come with a
    /// new branch).
    pub fn max_cuda_for_driver(&self, driver: &str) -> Option<String> {
        let d = version(driver)?;
        let newest_branch = self
            .toolkit_driver
            .iter()
            .filter_map(|t| major(&t.linux))
            .max()?;
        if major(driver.trim())? > newest_branch {
            return None;
        }
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

    /// The GPU model a name matches: the first row one of whose `match`
    /// entries has the same model tokens as `name` (see [`model_tokens`]).
    /// Whole names only, so `NVIDIA RTX A1000` is not an A100, `NVIDIA
    /// Jetson T4000` not a T4, `NVIDIA A10` not an A100 and `NVIDIA L4`
    /// not an L40S. `None` for a model the table does not list.
    pub fn gpu_by_name(&self, name: &str) -> Option<&Gpu> {
        let want = model_tokens(name);
        if want.is_empty() {
            return None;
        }
        self.gpu
            .iter()
            .find(|g| g.matches.iter().any(|m| model_tokens(m) == want))
    }

    /// The row for a cuDNN version.
    pub fn cudnn(&self, cudnn: &str) -> Option<&CudnnRow> {
        let v = version(cudnn)?;
        self.cudnn
            .iter()
            .find(|r| spec(&r.versions).is_ok_and(|s| s.matches(&v)))
    }

    /// Whether a cuDNN release lists a CUDA version: `None` when the cuDNN
    /// release is not in the matrix, or when the CUDA is newer than every
    /// CUDA the `[[cudnn]]` rows cover (no source says whether it is
    /// listed).
    pub fn cudnn_supports_cuda(&self, cudnn: &str, cuda: &str) -> Option<(bool, &CudnnRow)> {
        let row = self.cudnn(cudnn)?;
        let c = version(&major_minor(cuda))?;
        let listed = spec(&row.cuda).is_ok_and(|s| s.matches(&c));
        if !listed && !self.cudnn_rows_cover_cuda(&c) {
            return None;
        }
        Some((listed, row))
    }

    /// Whether some `[[cudnn]]` row's CUDA spec reaches `cuda` (a row open
    /// above reaches everything).
    fn cudnn_rows_cover_cuda(&self, cuda: &Version) -> bool {
        self.cudnn.iter().any(|r| match spec(&r.cuda) {
            Ok(s) => upper_bound(&s).is_none_or(|(v, incl)| cuda < &v || (incl && cuda == &v)),
            Err(_) => false,
        })
    }

    /// Whether a cuDNN release supports a GPU of compute capability `cc`
    /// (`"7.0"`), by the capabilities its row lists (`cc` field): `true`
    /// when `cc` is listed or shares the major of a listed capability with
    /// an equal or higher minor (binary compatibility: 8.7 runs 8.6 code,
    /// 10.3 runs 10.0 code); `false` below the lowest listed capability
    /// (cuDNN 9.11 and newer on a V100); `None` when the release is not in
    /// the matrix, its row records no capabilities, or `cc` has a major the
    /// row does not list above its lowest (11.0 for a list without 11.x, a
    /// future architecture): not covered by the data.
    pub fn cudnn_supports_cc(&self, cudnn: &str, cc: &str) -> Option<(bool, &CudnnRow)> {
        let row = self.cudnn(cudnn)?;
        Some((row_supports_cc(row, cc)?, row))
    }

    /// The newest cuDNN releases that still support compute capability
    /// `cc`, as the spec a fix can install (`"<9.11"`): the upper end of
    /// the newest row listing it. `None` when no row with capabilities
    /// lists it, or the newest that does is open above.
    pub fn cudnn_keeping_cc(&self, cc: &str) -> Option<String> {
        let (v, inclusive) = self
            .cudnn
            .iter()
            .filter(|r| row_supports_cc(r, cc) == Some(true))
            .map(|r| spec(&r.versions).ok().and_then(|s| upper_bound(&s)))
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            .max_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)))?;
        Some(format!("{}{v}", if inclusive { "<=" } else { "<" }))
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

    /// The rows of names a framework release dlopens (one per calling
    /// object), for a build with or without pip CUDA libraries and for a
    /// CUDA major (`None`: not known, only rows for every major match).
    pub fn dlopen(
        &self,
        fw: Framework,
        release: &str,
        pip_cuda_libraries: bool,
        cuda_major: Option<u32>,
    ) -> Vec<&DlopenRow> {
        let Some(v) = version(release) else {
            return Vec::new();
        };
        self.dlopen
            .iter()
            .filter(|r| {
                r.framework == fw
                    && r.pip_cuda_libraries.is_none_or(|p| p == pip_cuda_libraries)
                    && r.cuda_major.is_none_or(|m| Some(m) == cuda_major)
                    && spec(&r.release).is_ok_and(|s| s.matches(&v))
            })
            .collect()
    }
}

/// Words of a GPU name that say who sells it, not which model it is.
const BRAND_TOKENS: &[&str] = &["NVIDIA", "TESLA", "GEFORCE", "QUADRO"];

/// Words of a GPU name that describe memory, form factor or a variant with
/// the same chip (and so the same compute capability): `NVIDIA H100 NVL`,
/// `NVIDIA GeForce RTX 4060 Laptop GPU`, `RTX 4070 Ti SUPER`, `RTX 4090 D`,
/// `NVIDIA RTX 6000 Ada Generation`, `... Max-Q Workstation Edition`, MIG
/// slices, `Orin (nvgpu)`. Sizes (`80GB`), `SXM*` and `HBM*` are matched by
/// [`is_detail_token`].
const DETAIL_TOKENS: &[&str] = &[
    "PCIE",
    "NVL",
    "SFF",
    "MIG",
    "LAPTOP",
    "MOBILE",
    "GPU",
    "MAX",
    "Q",
    "MAXQ",
    "WORKSTATION",
    "SERVER",
    "EDITION",
    "GENERATION",
    "TI",
    "SUPER",
    "D",
    "OEM",
    "NVGPU",
];

/// Whether an upper-case token of a GPU name is a memory, form-factor or
/// variant word rather than part of the model name.
fn is_detail_token(t: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    DETAIL_TOKENS.contains(&t)
        || ["GB", "MB", "G"]
            .iter()
            .any(|unit| t.strip_suffix(unit).is_some_and(digits))
        || t.strip_prefix("SXM")
            .is_some_and(|r| r.is_empty() || digits(r))
        || t.strip_prefix("HBM").is_some_and(|r| {
            let r = r.strip_suffix('E').unwrap_or(r);
            r.is_empty() || digits(r)
        })
}

/// The model tokens of a GPU name: split on anything but ASCII letters and
/// digits, upper-cased, without brand and detail words. `NVIDIA
/// A100-SXM4-80GB` -> `[A100]`, `NVIDIA GeForce RTX 4090` -> `[RTX, 4090]`,
/// `NVIDIA RTX A1000` -> `[RTX, A1000]`, `NVIDIA Jetson T4000` -> `[JETSON,
/// T4000]`, `Quadro RTX 8000` -> `[RTX, 8000]`.
fn model_tokens(name: &str) -> Vec<String> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_ascii_uppercase)
        .filter(|t| !BRAND_TOKENS.contains(&t.as_str()) && !is_detail_token(t))
        .collect()
}

/// [`Matrix::cudnn_supports_cc`] for one row.
fn row_supports_cc(row: &CudnnRow, cc: &str) -> Option<bool> {
    let listed: Vec<(u32, u32)> = row
        .cc
        .as_ref()?
        .iter()
        .filter_map(|c| cc_parts(c))
        .collect();
    let (maj, min) = cc_parts(cc)?;
    if (maj, min) < *listed.iter().min()? {
        return Some(false);
    }
    let same_major: Vec<u32> = listed
        .iter()
        .filter(|(m, _)| *m == maj)
        .map(|(_, n)| *n)
        .collect();
    if same_major.is_empty() {
        return None;
    }
    Some(same_major.iter().any(|n| *n <= min))
}

/// `"8.6"` -> `(8, 6)`, `"10.0"` -> `(10, 0)`, `"9"` -> `(9, 0)`.
fn cc_parts(cc: &str) -> Option<(u32, u32)> {
    let mut parts = cc.trim().split('.');
    let maj = parts.next()?.parse().ok()?;
    let min = match parts.next() {
        Some(m) => m.parse().ok()?,
        None => 0,
    };
    parts.next().is_none().then_some((maj, min))
}

/// The upper end of a version spec and whether it is included; `None` when
/// the spec is open above (`>=9.17`, `*`, `!=1.0`). `==12.*`-style specs
/// count as open (the data does not use them).
fn upper_bound(s: &VersionSpec) -> Option<(Version, bool)> {
    // Tighter first: a lower version, or the same version excluded.
    let key = |b: &(Version, bool)| (b.0.clone(), b.1);
    match s {
        VersionSpec::Range(RangeOperator::Less, v) => Some((v.clone(), false)),
        VersionSpec::Range(RangeOperator::LessEquals, v) => Some((v.clone(), true)),
        VersionSpec::Exact(EqualityOperator::Equals, v) => Some((v.clone(), true)),
        VersionSpec::Group(LogicalOperator::And, specs) => {
            specs.iter().filter_map(upper_bound).min_by_key(key)
        }
        VersionSpec::Group(LogicalOperator::Or, specs) => specs
            .iter()
            .map(upper_bound)
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            .max_by_key(key),
        _ => None,
    }
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
        for cc in r.cc.iter().flatten() {
            check_version("cudnn.cc", cc)?;
            cc_parts(cc).ok_or_else(|| format!("cudnn.cc: '{cc}' is not a compute capability"))?;
        }
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
        assert_eq!(max("590.48.01").as_deref(), Some("13.1"));
        assert_eq!(max("595.45.04").as_deref(), Some("13.2"));
        assert_eq!(max("595.58.03").as_deref(), Some("13.2"));
        assert_eq!(max("595.71.05").as_deref(), Some("13.2"), "same branch");
        assert_eq!(max("610.43.02").as_deref(), Some("13.3"));
        assert_eq!(max("545.23.08").as_deref(), Some("12.3"));
        assert_eq!(max("300.0"), None);
        assert_eq!(
            max("620.10"),
            None,
            "a newer branch than any row: not covered by the data"
        );
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
        // Names as nvidia-smi prints them, and what they must map to.
        let table: &[(&str, Option<&str>)] = &[
            ("NVIDIA A100-SXM4-40GB", Some("8.0")),
            ("NVIDIA A100-SXM4-80GB", Some("8.0")),
            ("NVIDIA A100-PCIE-40GB", Some("8.0")),
            ("NVIDIA A100 80GB PCIe", Some("8.0")),
            ("NVIDIA A100-SXM4-80GB MIG 1g.10gb", Some("8.0")),
            ("NVIDIA A800-SXM4-80GB", Some("8.0")),
            ("NVIDIA A30", Some("8.0")),
            ("NVIDIA A10", Some("8.6")),
            ("NVIDIA A10G", Some("8.6")),
            ("NVIDIA A40", Some("8.6")),
            ("NVIDIA A16", Some("8.6")),
            ("NVIDIA A2", Some("8.6")),
            ("NVIDIA RTX A1000", Some("8.6")),
            ("NVIDIA RTX A6000", Some("8.6")),
            ("NVIDIA L4", Some("8.9")),
            ("NVIDIA L40S", Some("8.9")),
            ("NVIDIA L40", Some("8.9")),
            ("NVIDIA L20", Some("8.9")),
            ("NVIDIA H100 80GB HBM3", Some("9.0")),
            ("NVIDIA H100 PCIe", Some("9.0")),
            ("NVIDIA H100 NVL", Some("9.0")),
            ("NVIDIA H200", Some("9.0")),
            ("NVIDIA H200 NVL", Some("9.0")),
            ("NVIDIA GH200 480GB", Some("9.0")),
            ("NVIDIA H800", Some("9.0")),
            ("NVIDIA H20", Some("9.0")),
            ("NVIDIA B200", Some("10.0")),
            ("NVIDIA GB200", Some("10.0")),
            ("NVIDIA B300", Some("10.3")),
            ("NVIDIA GB10", Some("12.1")),
            ("NVIDIA Jetson T4000", Some("11.0")),
            ("NVIDIA Jetson T5000", Some("11.0")),
            ("Orin (nvgpu)", Some("8.7")),
            ("Tesla T4", Some("7.5")),
            ("Tesla V100-SXM2-16GB", Some("7.0")),
            ("Tesla V100-PCIE-32GB", Some("7.0")),
            ("Tesla V100S-PCIE-32GB", Some("7.0")),
            ("Tesla P100-PCIE-16GB", Some("6.0")),
            ("Tesla P40", Some("6.1")),
            ("Tesla P4", Some("6.1")),
            ("NVIDIA GeForce GTX 1080 Ti", Some("6.1")),
            ("NVIDIA TITAN V", Some("7.0")),
            ("NVIDIA TITAN RTX", Some("7.5")),
            ("NVIDIA GeForce RTX 2080 Ti", Some("7.5")),
            ("NVIDIA GeForce GTX 1660 SUPER", Some("7.5")),
            ("Quadro RTX 8000", Some("7.5")),
            ("Quadro RTX 6000", Some("7.5")),
            ("NVIDIA T1000 8GB", Some("7.5")),
            ("NVIDIA GeForce RTX 3090", Some("8.6")),
            ("NVIDIA GeForce RTX 3060 Laptop GPU", Some("8.6")),
            ("NVIDIA GeForce RTX 4090", Some("8.9")),
            ("NVIDIA GeForce RTX 4090 D", Some("8.9")),
            ("NVIDIA GeForce RTX 4070 Ti SUPER", Some("8.9")),
            ("NVIDIA RTX 6000 Ada Generation", Some("8.9")),
            ("NVIDIA RTX 4000 SFF Ada Generation", Some("8.9")),
            ("NVIDIA GeForce RTX 5090", Some("12.0")),
            ("NVIDIA GeForce RTX 5070 Ti", Some("12.0")),
            ("NVIDIA GeForce RTX 5060", Some("12.0")),
            (
                "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                Some("12.0"),
            ),
            ("NVIDIA RTX PRO 6000 Blackwell Server Edition", Some("12.0")),
            (
                "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
                Some("12.0"),
            ),
            ("NVIDIA RTX PRO 4000 Blackwell", Some("12.0")),
            // Flag-style names (`--gpu A100`) work the same way.
            ("A100", Some("8.0")),
            ("rtx 4090", Some("8.9")),
            // Unknown models are unknown, not the nearest substring.
            ("Quadro P1000", None),
            ("Tesla K80", None),
            ("NVIDIA Graphics Device", None),
            ("NVIDIA", None),
            ("", None),
        ];
        for (name, want) in table {
            assert_eq!(cc(name), *want, "{name:?}");
        }
    }

    #[test]
    fn gpu_names_are_whole_models_not_substrings() {
        let m = m();
        let row = |name: &str| m.gpu_by_name(name).map(|g| g.name.as_str());
        // Each of these contains another row's model as a substring.
        assert_eq!(row("NVIDIA RTX A1000"), Some("RTX A1000"), "not an A100");
        assert_ne!(row("NVIDIA A100-SXM4-80GB"), Some("A10 / A10G"));
        assert_eq!(row("NVIDIA A10"), Some("A10 / A10G"), "not an A100");
        assert_eq!(
            row("NVIDIA Jetson T4000"),
            Some("Jetson Thor (T5000 / T4000)"),
            "not a T4"
        );
        assert_eq!(row("NVIDIA L4"), Some("L4"), "not an L40S");
        assert_eq!(row("NVIDIA GH200 480GB"), Some("H200 / GH200"));
        assert_eq!(
            row("NVIDIA RTX 6000 Ada Generation"),
            Some("RTX Ada Generation"),
            "not the Turing Quadro RTX 6000"
        );
        assert_eq!(
            row("NVIDIA GeForce RTX 30"),
            None,
            "a series is not a model"
        );
        assert_eq!(
            model_tokens("NVIDIA A100-SXM4-80GB"),
            vec!["A100".to_string()]
        );
        assert_eq!(
            model_tokens("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"),
            vec!["RTX", "PRO", "6000", "BLACKWELL"]
        );
        assert_eq!(model_tokens("NVIDIA H100 80GB HBM3e"), vec!["H100"]);
    }

    #[test]
    fn a_user_gpu_row_wins_and_uses_the_same_matching() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.toml");
        std::fs::write(
            &file,
            "[[gpu]]\nname = \"lab card\"\nmatch = [\"GeForce RTX 4090\"]\ncc = \"8.9\"\nsource = \"site\"\n",
        )
        .unwrap();
        let m = Matrix::load(Some(&file)).unwrap();
        let g = m.gpu_by_name("NVIDIA GeForce RTX 4090 D").unwrap();
        assert_eq!(g.name, "lab card");
        assert_eq!(m.gpu_by_name("NVIDIA GeForce RTX 4080").unwrap().cc, "8.9");
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
        // A5: the CUDA 11.x packages of 9.0-9.10 also list 11.0-11.7.
        assert_eq!(ok("9.1.0.70", "11.7"), Some(true));
        assert_eq!(ok("9.0.0.312", "11.4"), Some(true));
        assert_eq!(ok("9.1.0.70", "10.2"), Some(false));
        assert_eq!(ok("9.3.0.75", "12.6"), Some(true));
        assert_eq!(ok("9.10.2.21", "12.9"), Some(true));
        assert_eq!(ok("9.10.2.21", "11.8"), Some(true));
        assert_eq!(ok("9.11.0.98", "11.8"), Some(false), "no CUDA 11 build");
        assert_eq!(ok("9.13.0.50", "13.0"), Some(true));
        assert_eq!(ok("9.13.0.50", "11.8"), Some(false));
        assert_eq!(ok("9.17.1.4", "13.1"), Some(true));
        assert_eq!(ok("9.17.1.4", "13.2"), Some(false));
        assert_eq!(ok("9.19.0.56", "13.0"), Some(true), "torch 2.11's pair");
        // A3: PyTorch's own CUDA 13.2 pairings are listed.
        assert_eq!(ok("9.20.0.48", "13.2"), Some(true));
        assert_eq!(ok("9.24.0.43", "13.2"), Some(true));
        assert_eq!(ok("9.26.0.51", "13.2"), Some(true), "torch 2.15's pair");
        assert_eq!(ok("9.28.1.4", "12.9"), Some(true));
        assert_eq!(ok("6.0", "8.0"), None);
        // Not covered by the data: unknown, not "unlisted".
        assert_eq!(ok("9.29.0.1", "13.2"), None, "cuDNN past the last row");
        assert_eq!(ok("9.28.1.4", "13.5"), None, "CUDA past every row");
        assert_eq!(ok("9.28.1.4", "14.0"), None);
        assert_eq!(
            m.cudnn("9.28.1.4").map(|r| r.versions.as_str()),
            Some(">=9.20,<=9.28.1.4")
        );
        assert!(m.cudnn("9.28.1.5").is_none());
    }

    #[test]
    fn cudnn_and_compute_capability() {
        let m = m();
        let ok = |d: &str, cc: &str| m.cudnn_supports_cc(d, cc).map(|(ok, _)| ok);
        // A4: Maxwell, Pascal and Volta are gone from 9.11 on.
        assert_eq!(ok("9.10.2.21", "7.0"), Some(true), "V100");
        assert_eq!(ok("9.10.2.21", "6.1"), Some(true), "P40");
        assert_eq!(
            ok("9.10.2.21", "5.2"),
            Some(true),
            "GTX 9xx: binary compatible with 5.0"
        );
        assert_eq!(ok("9.11.0.98", "7.0"), Some(false));
        assert_eq!(ok("9.17.1.4", "7.0"), Some(false), "V100");
        assert_eq!(ok("9.17.1.4", "6.0"), Some(false), "P100");
        assert_eq!(ok("9.26.0.51", "6.1"), Some(false), "P4/P40/GTX 10xx");
        assert_eq!(ok("9.17.1.4", "7.5"), Some(true));
        assert_eq!(ok("9.17.1.4", "8.7"), Some(true), "Orin runs 8.6 code");
        assert_eq!(ok("9.17.1.4", "9.0"), Some(true));
        assert_eq!(ok("9.17.1.4", "10.3"), Some(true), "B300 runs 10.0 code");
        assert_eq!(ok("9.17.1.4", "12.1"), Some(true), "GB10 runs 12.0 code");
        assert_eq!(ok("9.5.1.17", "9.0"), Some(true));
        assert_eq!(ok("9.5.1.17", "3.7"), Some(false), "Kepler");
        assert_eq!(ok("8.9.7.29", "9.0"), Some(true));
        // Not covered: a major the list does not have, a future one, a row
        // without capabilities, a release past the table.
        assert_eq!(ok("9.17.1.4", "11.0"), None, "Thor: not listed");
        assert_eq!(ok("9.17.1.4", "13.0"), None);
        assert_eq!(ok("9.5.1.17", "10.0"), None);
        assert_eq!(ok("8.6.0.163", "8.6"), None, "no cc recorded");
        assert_eq!(ok("9.30.0.1", "8.0"), None);
        assert_eq!(ok("9.17.1.4", "sm_70"), None, "not a capability");
        let (_, row) = m.cudnn_supports_cc("9.10.2.21", "12.0").unwrap();
        assert!(
            row.note.as_deref().is_some_and(|n| n.contains("570.26")),
            "A6: Blackwell needs the 12.8+ build and driver 570.26"
        );
        // What a fix keeps to.
        assert_eq!(m.cudnn_keeping_cc("7.0").as_deref(), Some("<9.11"));
        assert_eq!(m.cudnn_keeping_cc("5.2").as_deref(), Some("<9.11"));
        assert_eq!(
            m.cudnn_keeping_cc("3.7"),
            None,
            "no row with capabilities lists Kepler"
        );
        assert_eq!(m.cudnn_keeping_cc("8.0").as_deref(), Some("<=9.28.1.4"));
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
        // A8: no CUDA 12 build runs on Kepler.
        assert_eq!(
            m.framework(Framework::Paddlepaddle, "2.6.2", "post120")
                .and_then(|r| r.min_cc.as_deref()),
            Some("5.0")
        );
        // B4: the 3.0 betas have a cu118 build.
        assert_eq!(
            m.framework_by_cuda(Framework::Paddlepaddle, "3.0.0b2", "11.8")
                .map(|r| r.tag.as_str()),
            Some("cu118")
        );
        // B3: cu130, with its cuDNN pin not recorded.
        let cu130 = m
            .framework_by_cuda(Framework::Paddlepaddle, "3.3.0", "13.0")
            .unwrap();
        assert_eq!(cu130.cudnn, None);
        assert_eq!(cu130.confidence, Confidence::Uncertain);
        assert_eq!(
            row(Framework::Paddlepaddle, "0.0.0", "post118"),
            Some(("11.8", Some("8.6.0"))),
            "B7: nightly only"
        );
        // B1/B2: PyTorch 2.10-2.15, defaults from PyPI METADATA.
        assert_eq!(
            row(Framework::Pytorch, "2.10.0", "default"),
            Some(("12.8", Some("9.10.2.21")))
        );
        assert_eq!(
            row(Framework::Pytorch, "2.11.0", "default"),
            Some(("13.0", Some("9.19.0.56")))
        );
        assert_eq!(
            row(Framework::Pytorch, "2.13.0", "default"),
            Some(("13.0", Some("9.20.0.48")))
        );
        assert_eq!(
            row(Framework::Pytorch, "2.14.1", "cu126"),
            Some(("12.6", Some("9.10.2.21")))
        );
        assert_eq!(
            row(Framework::Pytorch, "2.14.1", "cu132"),
            Some(("13.2", Some("9.24.0.43")))
        );
        assert_eq!(
            row(Framework::Pytorch, "2.15.0", "default"),
            Some(("13.2", Some("9.26.0.51")))
        );
        assert_eq!(
            m.framework_by_cuda(Framework::Pytorch, "2.15.0", "13.2")
                .map(|r| r.cudnn.as_deref()),
            Some(Some("9.26.0.51"))
        );
        assert_eq!(
            row(Framework::Tensorflow, "2.21.0", "default"),
            Some(("12.5", Some("9.3")))
        );
        // A1/A2/B6: JAX per build.
        assert_eq!(
            row(Framework::Jax, "0.4.26", "cuda12"),
            Some(("12.3", Some("8.9.6")))
        );
        assert_eq!(
            row(Framework::Jax, "0.5.3", "cuda12"),
            Some(("12.3", Some("9.1.1")))
        );
        assert_eq!(
            row(Framework::Jax, "0.6.2", "cuda12"),
            Some(("12.8", Some("9.8.0")))
        );
        assert_eq!(
            row(Framework::Jax, "0.10.2", "cuda12"),
            Some(("12.9", Some("9.8.0")))
        );
        assert_eq!(
            row(Framework::Jax, "0.12.0.1", "cuda12"),
            Some(("12.9", Some("9.10.2")))
        );
        assert_eq!(
            row(Framework::Jax, "0.9.0.1", "cuda13"),
            Some(("13.0", Some("9.12.0")))
        );
        assert_eq!(
            row(Framework::Jax, "0.7.1", "cuda13"),
            None,
            "cuda13 starts at 0.7.2"
        );
        assert_eq!(
            row(Framework::Jax, "0.4.25", "cuda11"),
            Some(("11.8", Some("8.6")))
        );
        // B5: ONNX Runtime 1.21-1.31 from the wheels' build files.
        assert_eq!(
            row(Framework::Onnxruntime, "1.23.2", "default"),
            Some(("12.2", Some("9")))
        );
        assert_eq!(
            row(Framework::Onnxruntime, "1.26.0", "default"),
            Some(("12.8", Some("9")))
        );
        assert_eq!(
            row(Framework::Onnxruntime, "1.31.1", "default"),
            Some(("13.0", Some("9")))
        );
        let dl = m.dlopen(Framework::Paddlepaddle, "2.5.2", false, Some(11));
        assert!(dl[0].names.contains(&"libcudnn.so".to_string()));
        assert_eq!(
            m.dlopen(Framework::Paddlepaddle, "3.0.0", true, Some(12))[0].names,
            vec!["libnvrtc.so"]
        );
        // TensorFlow: one row per calling object.
        let tf = m.dlopen(Framework::Tensorflow, "2.21.0", true, Some(12));
        let objects: Vec<_> = tf.iter().map(|r| r.object.as_deref()).collect();
        assert_eq!(
            objects,
            [
                Some("libtensorflow_framework.so.2"),
                Some("libtensorflow_cc.so.2")
            ]
        );
        // JAX: the plugin's CUDA major decides the sonames.
        let jax12 = m.dlopen(Framework::Jax, "0.12.0.1", true, Some(12));
        assert!(jax12[0].names.contains(&"libcusolver.so.11".to_string()));
        assert!(jax12[0].preloaded_from_wheels);
        let jax13 = m.dlopen(Framework::Jax, "0.12.0.1", true, Some(13));
        assert!(jax13[0].names.contains(&"libcusolver.so.12".to_string()));
        assert!(m.dlopen(Framework::Jax, "0.12.0.1", true, None).is_empty());
        let ort = m.dlopen(Framework::Onnxruntime, "1.31.1", true, Some(13));
        assert_eq!(ort[0].names, vec!["libcudnn.so.9"]);
    }

    #[test]
    fn releases_past_the_data_are_not_covered() {
        let m = m();
        for (fw, release, tag) in [
            (Framework::Pytorch, "2.15.1", "default"),
            (Framework::Pytorch, "2.16.0", "default"),
            (Framework::Pytorch, "2.16.0", "cu132"),
            (Framework::Tensorflow, "2.21.1", "default"),
            (Framework::Tensorflow, "2.22.0", "default"),
            (Framework::Jax, "0.12.1", "cuda12"),
            (Framework::Jax, "0.13.0", "cuda13"),
            (Framework::Onnxruntime, "1.32.0", "default"),
            (Framework::Paddlepaddle, "3.4.0", "default"),
        ] {
            assert!(
                m.framework(fw, release, tag).is_none(),
                "{fw:?} {release} {tag} is past the data"
            );
        }
        assert!(
            m.framework_by_cuda(Framework::Paddlepaddle, "3.4.0", "13.0")
                .is_none()
        );
        assert!(
            m.framework_by_cuda(Framework::Pytorch, "2.16.0", "13.2")
                .is_none()
        );
        assert!(
            m.dlopen(Framework::Paddlepaddle, "3.4.0", true, Some(12))
                .is_empty()
        );
        assert!(m.cudnn("9.29.0.1").is_none());
    }

    /// Every version, release and CUDA spec of the shipped data ends at what
    /// its source covers (data audit 2026-12, "closed ranges").
    #[test]
    fn specs_are_closed_above() {
        // Specs allowed to stay open above, as (table.field, spec). None at
        // present. What is open on purpose lives outside specs:
        // - [[arch]] rows with last_ctk = "": architectures that every
        //   toolkit up to the newest still targets (checked below);
        // - [[driver_floor]] and [[toolkit_driver]]: a newer driver still runs
        //   older CUDA (backward compatibility), so floors have no top;
        // - [[cudnn]] `cc` lists: a newer minor of a listed major is covered
        //   by binary compatibility, any other newer major is unknown.
        const OPEN_ALLOWED: &[(&str, &str)] = &[];
        let m = m();
        let specs = m
            .framework
            .iter()
            .map(|r| ("framework.release", r.release.as_str(), r.source.as_str()))
            .chain(m.cudnn.iter().flat_map(|r| {
                [
                    ("cudnn.versions", r.versions.as_str(), r.source.as_str()),
                    ("cudnn.cuda", r.cuda.as_str(), r.source.as_str()),
                ]
            }))
            .chain(
                m.dlopen
                    .iter()
                    .map(|r| ("dlopen.release", r.release.as_str(), r.source.as_str())),
            );
        for (field, text, source) in specs {
            let s = spec(text).unwrap();
            if OPEN_ALLOWED.contains(&(field, text)) {
                continue;
            }
            assert!(
                upper_bound(&s).is_some(),
                "{field} = {text:?} is open above ({source})"
            );
        }
        // The architectures still supported: Turing and newer (CUDA 13 dropped
        // Maxwell, Pascal and Volta; sm_101 became sm_110).
        let mut open_arch: Vec<&str> = m
            .arch
            .iter()
            .filter(|a| a.last_ctk.is_empty())
            .map(|a| a.cc.as_str())
            .collect();
        open_arch.sort_by_key(|cc| cc_parts(cc));
        assert_eq!(
            open_arch,
            [
                "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.3", "11.0", "12.0", "12.1"
            ]
        );
    }

    #[test]
    fn upper_bounds_of_specs() {
        let ub = |s: &str| upper_bound(&spec(s).unwrap()).map(|(v, incl)| (v.to_string(), incl));
        assert_eq!(ub(">=9.17"), None);
        assert_eq!(ub("<3.0.0a0"), Some(("3.0.0a0".into(), false)));
        assert_eq!(ub(">=2.15,<=2.15.0"), Some(("2.15.0".into(), true)));
        assert_eq!(ub("==0.0.0"), Some(("0.0.0".into(), true)));
        assert_eq!(
            ub(">=11.0,<11.9|>=12.0,<12.10"),
            Some(("12.10".into(), false))
        );
        assert_eq!(ub("==10.2|>=11.0"), None, "one open branch opens the whole");
        assert_eq!(ub("*"), None);
        assert_eq!(ub("!=1.0"), None);
    }

    #[test]
    fn shipped_rows_follow_the_schema_rules() {
        let m = m();
        for r in &m.cudnn {
            for cc in r.cc.iter().flatten() {
                assert!(cc_parts(cc).is_some(), "{cc} in {}", r.versions);
            }
        }
        for r in &m.framework {
            for cc in [&r.min_cc, &r.max_cc].into_iter().flatten() {
                assert!(
                    cc_parts(cc).is_some(),
                    "{cc} in {:?} {}",
                    r.framework,
                    r.release
                );
            }
            if r.confidence == Confidence::Uncertain {
                assert!(
                    r.note.is_some(),
                    "uncertain row without a note: {:?} {} {}",
                    r.framework,
                    r.release,
                    r.tag
                );
            }
        }
        // No two rows of one framework and tag overlap (the first would hide
        // the second).
        for (i, a) in m.framework.iter().enumerate() {
            for b in &m.framework[i + 1..] {
                if a.framework != b.framework || a.tag != b.tag {
                    continue;
                }
                let (sa, sb) = (spec(&a.release).unwrap(), spec(&b.release).unwrap());
                for probe in [&a.release, &b.release] {
                    for v in probe
                        .split(['|', ','])
                        .map(|p| p.trim_start_matches(['>', '<', '=', '!']))
                        .filter_map(version)
                    {
                        assert!(
                            !(sa.matches(&v) && sb.matches(&v)),
                            "{:?} {}: {} and {} both match {v}",
                            a.framework,
                            a.tag,
                            a.release,
                            b.release
                        );
                    }
                }
            }
        }
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
        // A file written for 2026.12.0 (no cc, note or toolkit confidence)
        // still parses; a bad capability is an error.
        std::fs::write(
            &file,
            "[[cudnn]]\nversions = \">=9.30,<9.31\"\ncuda = \">=13.0,<13.6\"\nsource = \"site\"\n\
             [[toolkit_driver]]\nctk = \"13.5.0\"\nlinux = \"620.1\"\nsource = \"site\"\n",
        )
        .unwrap();
        let m = Matrix::load(Some(&file)).unwrap();
        assert_eq!(
            m.cudnn_supports_cuda("9.30.1", "13.5").map(|(ok, _)| ok),
            Some(true)
        );
        assert!(m.cudnn_supports_cc("9.30.1", "8.0").is_none());
        assert_eq!(m.max_cuda_for_driver("620.1").as_deref(), Some("13.5"));
        assert_eq!(m.toolkit_driver[0].confidence, Confidence::Verified);
        std::fs::write(
            &file,
            "[[cudnn]]\nversions = \">=9.30,<9.31\"\ncuda = \">=13.0,<13.6\"\ncc = [\"sm_75\"]\nsource = \"x\"\n",
        )
        .unwrap();
        let err = Matrix::load(Some(&file)).unwrap_err().to_string();
        assert!(err.contains("sm_75"), "{err}");
    }
}
