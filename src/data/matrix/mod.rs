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

use rattler_conda_version::version_spec::{EqualityOperator, LogicalOperator, RangeOperator};
use rattler_conda_version::{ParseStrictness, Version, VersionSpec};
use serde::Deserialize;

use crate::data::arch::{self, Cc, Kind, Variant};
use crate::data::catalog::Framework;
use crate::error::{Error, Result};

const MATRIX_TOML: &str = include_str!("../../../data/matrix.toml");

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
    soname: Vec<SonameRow>,
    pathfinder: Vec<PathfinderRow>,
    known_bad: Vec<KnownBad>,
    broken_import: Vec<BrokenImport>,
    start_check: Vec<StartCheck>,
}

/// The matrix in use.
#[derive(Debug, Clone)]
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
    pub soname: Vec<SonameRow>,
    pub pathfinder: Vec<PathfinderRow>,
    pub known_bad: Vec<KnownBad>,
    pub broken_import: Vec<BrokenImport>,
    pub start_check: Vec<StartCheck>,
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

/// The shipped matrix alone, parsed once: what the hooks' link directory
/// is derived from. The hooks are a function of the environment, not of a
/// command's `--matrix`, so every command that writes or compares them
/// derives the same ones (`None` only if the built-in file did not parse,
/// which the matrix tests rule out).
pub fn shipped() -> Option<&'static Matrix> {
    static SHIPPED: std::sync::OnceLock<Option<Matrix>> = std::sync::OnceLock::new();
    SHIPPED.get_or_init(|| parse(MATRIX_TOML).ok()).as_ref()
}

impl Matrix {
    /// The shipped matrix, plus `user` (rows first, so they win).
    pub fn load(user: Option<&Path>) -> Result<Matrix> {
        // Parsed once per process ([`shipped`], which the hooks' link
        // directory reads too), copied for each caller.
        let shipped = match shipped() {
            Some(m) => m.clone(),
            None => parse(MATRIX_TOML).map_err(|reason| Error::BadMatrix {
                path: "data/matrix.toml (built in)".into(),
                reason,
            })?,
        };
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
            soname: merge(user.soname, shipped.soname),
            pathfinder: merge(user.pathfinder, shipped.pathfinder),
            known_bad: merge(user.known_bad, shipped.known_bad),
            broken_import: merge(user.broken_import, shipped.broken_import),
            start_check: merge(user.start_check, shipped.start_check),
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

    /// The architecture rows whose generic code runs on `cc` by NVIDIA's
    /// binary compatibility ([`arch::runs`]): the GPU's own row and those
    /// of its major with a lower minor (10.0 and 10.3 for a 10.3 GPU).
    fn reaching(&self, cc: &str) -> Vec<&Arch> {
        let Some(device) = Cc::parse(cc) else {
            return Vec::new();
        };
        self.arch
            .iter()
            .filter(|a| {
                Cc::parse(&a.cc)
                    .is_some_and(|code| arch::runs(Kind::Sass, Variant::Generic, code, device))
            })
            .collect()
    }

    /// Whether CUDA `cuda` has code that runs on a `cc` GPU: it can target
    /// the GPU's architecture or one whose cubins run there (CUDA 12.8 on a
    /// 10.3 B300 through sm_100, on a 12.1 GB10 through sm_120). `true`
    /// with the newest architecture it reaches it by; `false` with the
    /// architecture that bounds it (needing the oldest first toolkit when
    /// CUDA is too old, else the one supported longest); `None` when no
    /// row covers the GPU's major at or below its minor.
    pub fn cuda_supports_cc(&self, cuda: &str, cc: &str) -> Option<(bool, &Arch)> {
        let c = version(&major_minor(cuda))?;
        let rows = self.reaching(cc);
        let targets = |a: &&&Arch| {
            version(&a.first_ctk).is_some_and(|f| c >= f)
                && (a.last_ctk.is_empty() || version(&a.last_ctk).is_some_and(|l| c <= l))
        };
        if let Some(a) = rows.iter().filter(targets).max_by_key(|a| Cc::parse(&a.cc)) {
            return Some((true, *a));
        }
        let first = rows.iter().min_by_key(|a| version(&a.first_ctk))?;
        if version(&first.first_ctk).is_some_and(|f| c < f) {
            return Some((false, *first));
        }
        let last = rows
            .iter()
            .max_by_key(|a| (a.last_ctk.is_empty(), version(&a.last_ctk)))?;
        Some((false, *last))
    }

    /// The row for a cuDNN version.
    pub fn cudnn(&self, cudnn: &str) -> Option<&CudnnRow> {
        let v = version(cudnn)?;
        self.cudnn
            .iter()
            .find(|r| spec(&r.versions).is_ok_and(|s| s.matches(&v)))
    }

    /// The architecture a cuDNN release cannot have code for because every
    /// CUDA it was built for predates the first toolkit that targets the
    /// GPU or any architecture whose cubins run there (cuDNN 8.9, built for
    /// CUDA 11.x and up to 12.2, on Blackwell, which needs CUDA 12.8): the
    /// row and the architecture needing the oldest toolkit. `None` when the
    /// row or the architecture is unknown, the CUDA ranges reach one of
    /// them, or the row lists a capability whose code runs on the GPU
    /// (cuDNN 9.7 lists 10.0, which a 10.3 B300 runs).
    pub fn cudnn_predates_arch(&self, cudnn: &str, cc: &str) -> Option<(&CudnnRow, &Arch)> {
        let row = self.cudnn(cudnn)?;
        if row_supports_cc(row, cc) == Some(true) {
            return None;
        }
        let (top, _) = upper_bound(&spec(&row.cuda).ok()?)?;
        let first = self
            .reaching(cc)
            .into_iter()
            .filter_map(|a| Some((version(&a.first_ctk)?, a)))
            .min_by(|a, b| a.0.cmp(&b.0))?;
        (top <= first.0).then_some((row, first.1))
    }

    /// The oldest cuDNN release whose row lists compute capability `cc`
    /// (`9.7` for Blackwell), as the lower end of its `versions` spec.
    pub fn cudnn_first_for_cc(&self, cc: &str) -> Option<String> {
        self.cudnn
            .iter()
            .filter(|r| row_supports_cc(r, cc) == Some(true))
            .filter_map(|r| {
                let low = r.versions.strip_prefix(">=")?.split(',').next()?.trim();
                Some((version(low)?, low.to_string()))
            })
            .min_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, text)| text)
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

    /// The tags the data's rows give a framework release (`post112`,
    /// `post116`, `default` for 2.5.2), in row order: what a tag no row
    /// names is held against.
    pub fn tags(&self, fw: Framework, release: &str) -> Vec<&str> {
        let Some(v) = version(release) else {
            return Vec::new();
        };
        let mut out: Vec<&str> = Vec::new();
        for r in &self.framework {
            if r.framework == fw
                && spec(&r.release).is_ok_and(|s| s.matches(&v))
                && !out.contains(&r.tag.as_str())
            {
                out.push(&r.tag);
            }
        }
        out
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
}

/// [`Matrix::cudnn_supports_cc`] for one row: some listed capability's
/// cubins run on `cc` ([`arch::runs`]).
fn row_supports_cc(row: &CudnnRow, cc: &str) -> Option<bool> {
    let listed: Vec<Cc> = row
        .cc
        .as_ref()?
        .iter()
        .filter_map(|c| Cc::parse(c))
        .collect();
    let device = Cc::parse(cc)?;
    if device < *listed.iter().min()? {
        return Some(false);
    }
    if !listed.iter().any(|l| l.major == device.major) {
        return None;
    }
    Some(
        listed
            .iter()
            .any(|l| arch::runs(Kind::Sass, Variant::Generic, *l, device)),
    )
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
            Cc::parse(cc).ok_or_else(|| format!("cudnn.cc: '{cc}' is not a compute capability"))?;
        }
    }
    for r in &f.framework {
        spec(&r.release).map_err(|e| format!("framework.release {e}"))?;
        check_version("framework.cuda", &r.cuda)?;
    }
    check_loading(&f)?;
    known_bad::validate(&f.known_bad)?;
    broken_import::validate(&f.broken_import)?;
    start_check::validate(&f.start_check)?;
    for r in &f.soname {
        spec(&r.cuda).map_err(|e| format!("soname.cuda {e}"))?;
        if !r.library.starts_with("lib") || r.version.is_empty() {
            return Err(format!(
                "soname row {} .so.{}: not a library stem and version",
                r.library, r.version
            ));
        }
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
        soname: f.soname,
        pathfinder: f.pathfinder,
        known_bad: f.known_bad,
        broken_import: f.broken_import,
        start_check: f.start_check,
    })
}

/// The rows of how libraries are reached: `[[dlopen]]` and `[[pathfinder]]`.
fn check_loading(f: &MatrixFile) -> std::result::Result<(), String> {
    for r in &f.dlopen {
        spec(&r.release).map_err(|e| format!("dlopen.release {e}"))?;
        if r.names.is_empty() && r.libraries.is_empty() {
            return Err(format!(
                "dlopen row for {:?} {}: neither names nor libraries",
                r.framework, r.release
            ));
        }
        if r.by != By::Name && r.libraries.is_empty() {
            return Err(format!(
                "dlopen row for {:?} {}: loaded by path or through pathfinder, but no libraries",
                r.framework, r.release
            ));
        }
        if r.framework == Framework::Other && r.packages.is_empty() {
            return Err(format!(
                "dlopen row for a package without data ({}): no packages named",
                r.release
            ));
        }
    }
    for r in &f.pathfinder {
        spec(&r.release).map_err(|e| format!("pathfinder.release {e}"))?;
        if !r.library.starts_with("lib") || r.sonames.is_empty() {
            return Err(format!(
                "pathfinder row {}: not a library stem with sonames",
                r.library
            ));
        }
    }
    Ok(())
}

mod broken_import;
mod dlopen;
mod for_gpu;
mod gpus;
mod known_bad;
mod pathfinder;
mod rows;
mod start_check;

pub use broken_import::BrokenImport;
pub use dlopen::{By, DlopenRow, SonameRow};
pub use for_gpu::release_top;
pub use gpus::GpuFlag;
pub use known_bad::{KnownBad, matches_spec};
pub use pathfinder::PathfinderRow;
pub use rows::{Arch, Confidence, CudnnRow, DriverFloor, FrameworkRow, Gpu, ToolkitDriver};
pub use start_check::{StartCheck, leading, older_at};

#[cfg(test)]
mod tests;
