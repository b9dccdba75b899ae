//! The matrix's rows, as `data/matrix.toml` spells them: each with the
//! source it was read from.

use serde::Deserialize;

use crate::data::catalog::Framework;

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
    /// on both sides (see [`super::Matrix::gpu_by_name`]).
    #[serde(rename = "match")]
    pub matches: Vec<String>,
    /// Compute capability, `8.6`.
    pub cc: String,
    /// Whether CUDA forward compatibility applies (data-centre GPUs and
    /// Jetson boards); `None` where the row does not say.
    pub forward_compat: Option<bool>,
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
    /// Optional; absent = not recorded, and [`super::Matrix::cudnn_supports_cc`]
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
    /// The version of each other CUDA library (catalogue component:
    /// `cufft`, `cusolver`, `cupti`, ...) the build was made with, where it
    /// was read (JAX's `_versions` module): what a `[[start_check]]`
    /// compares. CUPTI's is the CUDA release of the CUPTI it was built
    /// with, since CUPTI's own API number follows it.
    #[serde(default)]
    pub libraries: std::collections::BTreeMap<String, String>,
    /// How much the row can be trusted (default: verified).
    #[serde(default)]
    pub confidence: Confidence,
    /// What the row does not show on its own.
    pub note: Option<String>,
    /// Where the facts were read.
    pub source: String,
}
