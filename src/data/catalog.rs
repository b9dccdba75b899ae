//! The package catalogue: which conda packages, pip distributions and
//! library files envhook cares about, loaded from `data/packages.toml`.
//!
//! The catalogue is what lets envhook pick records by file name: anything
//! not named here is never opened. Keeping it a data file (with a source per
//! row) means adding a package is a one-row change that reviewers can check
//! against its source.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Deserialize;

/// The catalogue shipped inside the binary.
const PACKAGES_TOML: &str = include_str!("../../data/packages.toml");

/// What a package contributes to the GPU stack.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize, PartialOrd, Ord,
)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// A bundle of CUDA runtime libraries (CUDA <= 11 `cudatoolkit`).
    CudaToolkit,
    /// The CUDA 12+ `cuda-version` metapackage.
    CudaVersion,
    /// One CUDA component library (cudart, cublas, ...).
    CudaLibrary,
    /// cuDNN.
    Cudnn,
    /// NCCL.
    Nccl,
    /// Link-time stubs of the driver (`lib/stubs/libcuda.so`).
    DriverStub,
    /// A framework build.
    Framework,
    /// A distribution that carries a framework's CUDA objects but is no
    /// build of its own (JAX's `jax-cuda12-pjrt` holds `xla_cuda_plugin.so`;
    /// the build is `jax-cuda12-plugin`'s).
    FrameworkLibrary,
    /// A distribution whose compiled objects are built against a
    /// framework's own libraries (torchvision's `_C.so` needs `libc10.so`
    /// and `libtorch_cpu.so`): they work only with the framework release
    /// they were built against.
    FrameworkExtension,
    /// A metapackage that only selects a variant.
    Meta,
}

/// The frameworks envhook knows.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize, PartialOrd, Ord,
)]
#[serde(rename_all = "kebab-case")]
pub enum Framework {
    /// PaddlePaddle (`paddlepaddle-gpu`, `paddlepaddle`).
    Paddlepaddle,
    /// PyTorch (`pytorch`, `libtorch`, `torch`).
    Pytorch,
    /// TensorFlow.
    Tensorflow,
    /// JAX (`jaxlib` and the CUDA plugins).
    Jax,
    /// ONNX Runtime.
    Onnxruntime,
    /// A pip distribution envhook has no data for whose objects need CUDA
    /// libraries (CuPy's `cupy-cuda12x`, `cudf-cu12`): checked from its
    /// objects' DT_NEEDED and its own pins alone.
    Other,
}

impl Framework {
    /// The name users know the framework by.
    pub fn display_name(self) -> &'static str {
        match self {
            Framework::Paddlepaddle => "PaddlePaddle",
            Framework::Pytorch => "PyTorch",
            Framework::Tensorflow => "TensorFlow",
            Framework::Jax => "JAX",
            Framework::Onnxruntime => "ONNX Runtime",
            Framework::Other => "a CUDA package",
        }
    }
}

/// One package row of the catalogue.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageRow {
    /// conda package name or normalised pip distribution name.
    pub name: String,
    /// What the package contributes.
    pub role: Role,
    /// The component key, for `cuda-library` rows.
    pub lib: Option<String>,
    /// The framework, for `framework` rows.
    pub framework: Option<Framework>,
    /// Where the fact comes from.
    #[allow(dead_code)] // read by the catalogue test; kept for reviewers
    pub source: String,
}

/// One library-name row of the catalogue.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibraryRow {
    /// The file-name prefix, e.g. `libcudart`.
    pub stem: String,
    /// The component key, e.g. `cudart`.
    pub lib: String,
    /// Whether envhook's isolating link directory exposes it (default):
    /// `false` for libraries that CUDA packages carry but that are not
    /// CUDA's (the OpenCL ICD loader would shadow the system's) and for the
    /// driver's, which come from the driver, never from an environment.
    #[serde(default = "yes")]
    pub exposed: bool,
    /// What the library is only needed for, when frameworks load it by
    /// name just for that (NCCL: several GPUs).
    pub optional: Option<String>,
    /// Where the fact comes from.
    #[allow(dead_code)] // read by the catalogue test; kept for reviewers
    pub source: String,
}

fn yes() -> bool {
    true
}

/// The component of the driver's own libraries (`libcuda.so.1`,
/// `libnvidia-ml.so.1`).
pub const DRIVER: &str = "driver";

/// A framework's core shared object.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreLibraryRow {
    /// Which framework.
    pub framework: Framework,
    /// File name (or its start, for versioned files).
    pub name: String,
    /// What the object is loaded for, when the framework loads it only on
    /// a user's request (ONNX Runtime's TensorRT provider, only for
    /// `TensorrtExecutionProvider`): what it needs and lacks is then worth
    /// an info, not an error.
    pub optional: Option<String>,
    /// Where the fact comes from.
    #[allow(dead_code)] // read by the catalogue test; kept for reviewers
    pub source: String,
}

/// The component of TensorRT's libraries (`libnvinfer.so.10`): built per
/// CUDA major under one soname (`tensorrt-cu12-libs` and
/// `tensorrt-cu13-libs` both ship `libnvinfer.so.10`).
pub const TENSORRT: &str = "tensorrt";

/// A package that runs on a framework without declaring it (PaddleOCR on
/// PaddlePaddle): `show` says what it will run on.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadRow {
    /// The pip distribution (normalised).
    pub name: String,
    /// The framework it runs on.
    pub framework: Framework,
    /// How it picks the device, in its own code.
    pub device: String,
    /// Where the facts come from.
    #[allow(dead_code)] // read by the catalogue test; kept for reviewers
    pub source: String,
}

/// A framework whose C++ API other distributions link against, without
/// symbol versions (torch's `c10::`, `at::`): an object built against one
/// release may need symbols another does not define.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameworkAbiRow {
    /// Which framework.
    pub framework: Framework,
    /// Its pip distributions, normalised: what a consumer's
    /// `Requires-Dist` names.
    pub distributions: Vec<String>,
    /// The starts of its libraries' file names that carry the API
    /// (`libtorch`, `libc10`): a consumer's DT_NEEDED names one.
    pub libraries: Vec<String>,
    /// Its C++ namespaces (`c10`, `at`): the undefined symbols in them
    /// are the framework's to define.
    pub namespaces: Vec<String>,
    /// Where the facts come from.
    #[allow(dead_code)] // read by the catalogue test; kept for reviewers
    pub source: String,
}

impl FrameworkAbiRow {
    /// Whether a library's file name is one of the framework's API
    /// libraries.
    pub fn is_library(&self, file_name: &str) -> bool {
        self.libraries.iter().any(|l| file_name.starts_with(l))
    }

    /// Whether a mangled name is in one of the framework's namespaces: a
    /// nested name (`_ZN`, `_ZNK`, with cv and ref qualifiers), or the
    /// typeinfo, vtable or TLS wrapper of one (`_ZTI`, `_ZTV`, `_ZTS`,
    /// `_ZTH`, `_ZTW`), whose first part is the namespace as the Itanium
    /// ABI writes it: its length, then its name (`3c10`).
    pub fn owns_symbol(&self, symbol: &str) -> bool {
        let Some(rest) = symbol.strip_prefix("_Z") else {
            return false;
        };
        let rest = ["TI", "TV", "TS", "TH", "TW"]
            .iter()
            .find_map(|p| rest.strip_prefix(p))
            .unwrap_or(rest);
        let Some(rest) = rest.strip_prefix('N') else {
            return false;
        };
        let rest = rest.trim_start_matches(['K', 'V', 'r', 'R', 'O']);
        self.namespaces.iter().any(|ns| {
            // The length prefix fixes where the name ends: `3c10` is not
            // the start of `4c10x`.
            rest.strip_prefix(ns.len().to_string().as_str())
                .is_some_and(|r| r.starts_with(ns.as_str()))
        })
    }
}

/// A pip distribution that opens the driver's library by its own search,
/// with no CUDA build envhook reads: it needs a driver all the same.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverUserRow {
    /// The pip distribution, normalised.
    pub name: String,
    /// The names it opens, in its order.
    pub loads: Vec<String>,
    /// Where the facts come from.
    #[allow(dead_code)] // read by the catalogue test; kept for reviewers
    pub source: String,
}

/// A pip distribution that ships one CUDA object per CUDA release and
/// loads the one for the CUDA of the framework build it runs on.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PickedLibraryRow {
    /// The pip distribution, normalised.
    pub name: String,
    /// The framework whose build's CUDA picks the object.
    pub framework: Framework,
    /// The objects' file names, `{cuda}` standing for that CUDA's major
    /// and minor as digits (`11.8` -> `118`).
    pub files: Vec<String>,
    /// The variable whose value, where set and not empty, replaces those
    /// digits (bitsandbytes' `BNB_CUDA_VERSION`): the object loaded then
    /// is that CUDA's, whatever the framework's.
    #[serde(default)]
    pub digits_from: Option<String>,
    /// Where the facts come from.
    #[allow(dead_code)] // read by the catalogue test; kept for reviewers
    pub source: String,
}

impl PickedLibraryRow {
    /// The file names it loads for a framework build made with `cuda`
    /// (`11.8`).
    pub fn files_for(&self, cuda: &str) -> Vec<String> {
        let mut parts = cuda.split('.');
        let digits = format!(
            "{}{}",
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or("0")
        );
        self.files_with(&digits)
    }

    /// The file names with `digits` in place of `{cuda}` (`118`).
    pub fn files_with(&self, digits: &str) -> Vec<String> {
        self.files
            .iter()
            .map(|f| f.replace("{cuda}", digits))
            .collect()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogFile {
    conda: Vec<PackageRow>,
    pip: Vec<PackageRow>,
    library: Vec<LibraryRow>,
    core_library: Vec<CoreLibraryRow>,
    #[serde(default)]
    workload: Vec<WorkloadRow>,
    #[serde(default)]
    framework_abi: Vec<FrameworkAbiRow>,
    #[serde(default)]
    driver_user: Vec<DriverUserRow>,
    #[serde(default)]
    picked_library: Vec<PickedLibraryRow>,
}

/// The parsed catalogue with lookup tables.
#[derive(Debug)]
pub struct Catalog {
    conda: HashMap<String, PackageRow>,
    pip: HashMap<String, PackageRow>,
    /// Sorted longest stem first, so the first match is the longest.
    libraries: Vec<LibraryRow>,
    core: Vec<CoreLibraryRow>,
    workloads: Vec<WorkloadRow>,
    abi: Vec<FrameworkAbiRow>,
    driver_users: Vec<DriverUserRow>,
    picked: Vec<PickedLibraryRow>,
}

/// The catalogue shipped in the binary, parsed once on first use.
pub static CATALOG: LazyLock<Catalog> = LazyLock::new(|| {
    Catalog::parse(PACKAGES_TOML).expect("data/packages.toml is checked by the test suite")
});

impl Catalog {
    /// Parse a catalogue file.
    pub fn parse(text: &str) -> Result<Self, toml::de::Error> {
        let file: CatalogFile = toml::from_str(text)?;
        let mut libraries = file.library;
        libraries.sort_by_key(|r| std::cmp::Reverse(r.stem.len()));
        Ok(Catalog {
            conda: file
                .conda
                .into_iter()
                .map(|r| (r.name.clone(), r))
                .collect(),
            pip: file.pip.into_iter().map(|r| (r.name.clone(), r)).collect(),
            libraries,
            core: file.core_library,
            workloads: file.workload,
            abi: file.framework_abi,
            driver_users: file.driver_user,
            picked: file.picked_library,
        })
    }

    /// The frameworks other distributions link against by their C++ API.
    pub fn framework_abis(&self) -> &[FrameworkAbiRow] {
        &self.abi
    }

    /// The C++ API row of one framework.
    pub fn framework_abi(&self, framework: Framework) -> Option<&FrameworkAbiRow> {
        self.abi.iter().find(|r| r.framework == framework)
    }

    /// The distributions that open the driver by their own search.
    pub fn driver_users(&self) -> &[DriverUserRow] {
        &self.driver_users
    }

    /// The row of a distribution that loads one of its objects by the
    /// CUDA of the framework it runs on.
    pub fn picked_library(&self, normalized: &str) -> Option<&PickedLibraryRow> {
        self.picked.iter().find(|r| r.name == normalized)
    }

    /// The packages that run on a framework without declaring it.
    pub fn workloads(&self) -> &[WorkloadRow] {
        &self.workloads
    }

    /// The conda-forge package that ships a component's libraries: for
    /// CUDA <= 11 the `cudatoolkit` bundle, else the split package (the
    /// catalogue's `cuda-library` row for that component without `-dev`).
    pub fn conda_package_for(&self, component: &str, cuda_major: Option<u32>) -> Option<String> {
        let role_row = |role: Role| {
            self.conda
                .values()
                .find(|r| r.role == role)
                .map(|r| r.name.clone())
        };
        match component {
            "cudnn" => return role_row(Role::Cudnn).map(|_| "cudnn".to_string()),
            "nccl" => return role_row(Role::Nccl),
            _ => {}
        }
        // TensorRT was never part of cudatoolkit.
        if cuda_major.is_some_and(|m| m <= 11) && component != TENSORRT {
            return Some("cudatoolkit".into());
        }
        let mut names: Vec<&str> = self
            .conda
            .values()
            .filter(|r| r.role == Role::CudaLibrary && r.lib.as_deref() == Some(component))
            .map(|r| r.name.as_str())
            .filter(|n| !n.contains("-dev") && !n.contains("_linux-64"))
            .collect();
        names.sort();
        names.first().map(|n| n.to_string())
    }

    /// Where `file_name` stands among the CUDA-using objects of `framework`
    /// (catalogue order, the first being the one whose RPATH a run-time
    /// load uses); `None` when it is not one.
    pub fn core_library_rank(&self, framework: Framework, file_name: &str) -> Option<usize> {
        self.core
            .iter()
            .filter(|r| r.framework == framework)
            .position(|r| file_name.starts_with(&r.name))
    }

    /// What a framework object is only loaded for (see
    /// [`CoreLibraryRow::optional`]).
    pub fn core_library_use(&self, framework: Framework, file_name: &str) -> Option<&str> {
        self.core
            .iter()
            .find(|r| r.framework == framework && file_name.starts_with(&r.name))
            .and_then(|r| r.optional.as_deref())
    }

    /// The row for a conda package name, if envhook reads that package.
    pub fn conda(&self, name: &str) -> Option<&PackageRow> {
        self.conda.get(name)
    }

    /// The row for a pip distribution (name normalised per PEP 503, with
    /// `-`), and the CUDA major its `-cuNN` suffix names, if any. The
    /// suffix may sit before a last part (`tensorrt-cu12-libs` is the row
    /// `tensorrt-libs` for CUDA 12).
    pub fn pip(&self, normalized: &str) -> Option<(&PackageRow, Option<u32>)> {
        if let Some(row) = self.pip.get(normalized) {
            return Some((row, None));
        }
        let (base, suffix) = normalized.rsplit_once("-cu")?;
        let (digits, tail) = match suffix.split_once('-') {
            Some((digits, tail)) => (digits, Some(tail)),
            None => (suffix, None),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let major: u32 = digits.parse().ok()?;
        let name = match tail {
            Some(tail) => format!("{base}-{tail}"),
            None => base.to_string(),
        };
        self.pip.get(&name).map(|row| (row, Some(major)))
    }

    /// The component key for a shared-library file name, e.g.
    /// `libcublasLt.so.12` -> `cublas`.
    pub fn library_component(&self, file_name: &str) -> Option<&str> {
        self.libraries
            .iter()
            .find(|row| file_name.starts_with(&row.stem))
            .map(|row| row.lib.as_str())
    }

    /// Whether the isolating link directory exposes a library: only CUDA
    /// components the catalogue knows and marks exposed, so that no
    /// general-purpose library a CUDA package happens to ship (libOpenCL)
    /// ends up on `LD_LIBRARY_PATH`.
    pub fn is_exposed(&self, file_name: &str) -> bool {
        self.libraries
            .iter()
            .find(|row| file_name.starts_with(&row.stem))
            .is_some_and(|row| row.exposed)
    }

    /// What a library is only needed for (see [`LibraryRow::optional`]).
    pub fn optional_use(&self, file_name: &str) -> Option<&str> {
        self.libraries
            .iter()
            .find(|row| file_name.starts_with(&row.stem))
            .and_then(|row| row.optional.as_deref())
    }

    /// Whether a library is the driver's (`libcuda.so.1`,
    /// `libnvidia-ml.so.1`): installed with the NVIDIA driver, never by a
    /// package in an environment.
    pub fn is_driver_library(&self, file_name: &str) -> bool {
        self.library_component(file_name) == Some(DRIVER)
    }

    /// All conda rows (for tests and documentation).
    #[cfg(test)]
    fn conda_rows(&self) -> impl Iterator<Item = &PackageRow> {
        self.conda.values()
    }

    /// All pip rows (for tests and documentation).
    #[cfg(test)]
    fn pip_rows(&self) -> impl Iterator<Item = &PackageRow> {
        self.pip.values()
    }
}

#[cfg(test)]
mod tests;
