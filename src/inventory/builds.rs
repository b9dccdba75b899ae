//! Which CUDA (and cuDNN) a framework package was built for, read from the
//! places the frameworks themselves record it, without importing them.
//!
//! In order of trust:
//! 1. the framework's generated build file in site-packages (see
//!    [`crate::inventory::pyconst`]);
//! 2. the pip version: a local part (`2.1.0+cu118`, `0.4.13+cuda12.cudnn89`),
//!    Paddle 2.x's post-release tag (`2.5.2.post116` = CUDA 11.6), or the
//!    distribution name (`jax-cuda12-plugin`, CPU-only `paddlepaddle`);
//! 3. the conda build string (`py3.9_cuda11.8_cudnn8.7.0_0`,
//!    `cuda120_py313h6ccb88c_302`, `py39_gpu_cuda11.2_many_linux`, `cpu_mkl_...`).

use std::path::Path;

use serde::Serialize;

use crate::data::catalog::Framework;
use crate::inventory::pyconst::{self, Value};

/// What a framework build targets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Variant {
    /// A CUDA build; the versions when known (`cuda` may be a bare major).
    Cuda {
        /// CUDA version, `X.Y` or `X`.
        cuda: Option<String>,
        /// cuDNN version it was built with, when recorded.
        cudnn: Option<String>,
    },
    /// A ROCm build (torch `hip` set).
    Rocm {
        /// The HIP version.
        hip: String,
    },
    /// A CPU-only build.
    Cpu,
    /// Nothing says which.
    Unknown,
}

/// A variant and the evidence for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BuildInfo {
    /// What the build targets.
    pub variant: Variant,
    /// Where that was read, e.g. `version suffix .post116`.
    pub evidence: String,
    /// Paddle's `with_pip_cuda_libraries`: the build loads CUDA from pip
    /// `nvidia-*` wheels (and asks for versioned names) rather than from
    /// the system or conda (unversioned names).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pip_cuda_libraries: Option<bool>,
    /// The architectures the build file says its kernels were compiled
    /// for, as compute capabilities (`7.5`), which outrank the CUDA
    /// release and the data's range where no fatbin can be read: Paddle
    /// 3.x's `compiled_cuda_archs` (`[75, 80, 86, 90]`, a list of ints as
    /// `paddle.version.cuda_archs()` returns it), TensorFlow's cubins in
    /// `cuda_compute_capabilities` (`'sm_89'`). Empty where not recorded.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub archs: Vec<String>,
    /// The architectures it carries PTX for, which the driver JIT-compiles
    /// for any newer GPU: TensorFlow's `'compute_90'`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ptx: Vec<String>,
    /// The build file's key the lists were read from
    /// (`compiled_cuda_archs`, `cuda_compute_capabilities`), for messages.
    #[serde(skip)]
    pub archs_key: &'static str,
}

impl BuildInfo {
    /// The file the build was read from (`paddle/version/__init__.py`),
    /// as its evidence names it: where `archs` came from.
    pub fn file(&self) -> &str {
        self.evidence.split(':').next().unwrap_or("its build file")
    }

    /// A build with its evidence.
    pub fn new(variant: Variant, evidence: impl Into<String>) -> Self {
        BuildInfo {
            variant,
            evidence: evidence.into(),
            pip_cuda_libraries: None,
            archs: Vec::new(),
            ptx: Vec::new(),
            archs_key: "",
        }
    }
}

/// The build file each framework writes, relative to site-packages.
fn build_file(framework: Framework) -> Option<&'static str> {
    match framework {
        Framework::Paddlepaddle => Some("paddle/version/__init__.py"),
        Framework::Pytorch => Some("torch/version.py"),
        Framework::Tensorflow => Some("tensorflow/python/platform/build_info.py"),
        Framework::Onnxruntime => Some("onnxruntime/capi/build_and_package_info.py"),
        Framework::Jax | Framework::Other => None,
    }
}

/// The most envhook reads of a build file: real ones are a few kilobytes
/// (TensorFlow's `build_info.py` 1 to 3 kB); a larger one is not a build
/// file any generator wrote, and is not read.
const MAX_BUILD_FILE: u64 = 1 << 20;

/// Read the framework's build file in `site`, if it has one there.
/// The path of the file read is returned with the result.
pub fn from_build_file(framework: Framework, site: &Path) -> Option<BuildInfo> {
    let rel = build_file(framework)?;
    let bytes = crate::paths::read_regular(&site.join(rel), MAX_BUILD_FILE).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let f = BuildFile { rel, text: &text };
    match framework {
        Framework::Pytorch => torch_build(&f),
        Framework::Tensorflow => tensorflow_build(&f),
        Framework::Paddlepaddle | Framework::Onnxruntime => cuda_version_build(&f),
        Framework::Jax | Framework::Other => None,
    }
}

/// A framework's build file, read: its path in site-packages and text.
struct BuildFile<'a> {
    rel: &'a str,
    text: &'a str,
}

impl BuildFile<'_> {
    fn get(&self, key: &str) -> Option<Value> {
        pyconst::lookup(self.text, key)
    }

    /// The evidence: where a value was read.
    fn cite(&self, key: &str, v: &str) -> String {
        format!("{}: {key} = '{v}'", self.rel)
    }
}

/// `torch/version.py`: `hip` for ROCm, `cuda` (None for CPU).
fn torch_build(f: &BuildFile) -> Option<BuildInfo> {
    if let Some(hip) = f.get("hip").as_ref().and_then(Value::as_version) {
        return Some(BuildInfo::new(
            Variant::Rocm { hip: hip.into() },
            f.cite("hip", hip),
        ));
    }
    match f.get("cuda")? {
        Value::None => Some(BuildInfo::new(
            Variant::Cpu,
            format!("{}: cuda = None", f.rel),
        )),
        v => {
            let cuda = v.as_version()?.to_string();
            let evidence = f.cite("cuda", &cuda);
            Some(BuildInfo::new(
                Variant::Cuda {
                    cuda: Some(cuda),
                    cudnn: None,
                },
                evidence,
            ))
        }
    }
}

/// TensorFlow's `build_info.py`: `is_cuda_build`, `cuda_version`,
/// `cudnn_version`.
fn tensorflow_build(f: &BuildFile) -> Option<BuildInfo> {
    let cuda = f
        .get("cuda_version")
        .as_ref()
        .and_then(|v| v.as_version().map(String::from));
    let cudnn = f
        .get("cudnn_version")
        .as_ref()
        .and_then(|v| v.as_version().map(String::from));
    match (f.get("is_cuda_build"), cuda) {
        (Some(Value::Bool(false)), _) => Some(BuildInfo::new(
            Variant::Cpu,
            format!("{}: is_cuda_build = False", f.rel),
        )),
        (_, Some(cuda)) => {
            let evidence = f.cite("cuda_version", &cuda);
            let mut info = BuildInfo::new(
                Variant::Cuda {
                    cuda: Some(cuda),
                    cudnn,
                },
                evidence,
            );
            if let Some(Value::Other(list)) = f.get(TF_ARCHS) {
                (info.archs, info.ptx) = nvcc_list(&list).unwrap_or_default();
                info.archs_key = TF_ARCHS;
            }
            Some(info)
        }
        _ => None,
    }
}

/// TensorFlow's `build_info.py` key for the architectures it was compiled
/// for (`['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']` in PyPI's
/// tensorflow 2.17.0 and 2.20.0, `['sm_50', 'sm_60', 'sm_70', 'sm_75',
/// 'compute_80']` in 2.15.1).
const TF_ARCHS: &str = "cuda_compute_capabilities";

/// `['sm_60', 'compute_90']` (nvcc's names, quoted) as the compute
/// capabilities with cubins (`6.0`) and with PTX (`9.0`). Anything else,
/// an architecture- or family-specific target (`sm_90a`) included, makes
/// it no list: a list half read would say less than the data.
fn nvcc_list(text: &str) -> Option<(Vec<String>, Vec<String>)> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (mut sass, mut ptx) = (Vec::new(), Vec::new());
    for item in inner.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let name = ['\'', '"']
            .iter()
            .find_map(|q| item.strip_prefix(*q)?.strip_suffix(*q))?;
        let (out, digits) = match name.split_once('_')? {
            ("sm", d) => (&mut sass, d),
            ("compute", d) => (&mut ptx, d),
            _ => return None,
        };
        out.push(digits_cc(digits)?);
    }
    (!sass.is_empty() || !ptx.is_empty()).then_some((sass, ptx))
}

/// `75` -> `7.5`, `100` -> `10.0`: two or three digits, the last the minor.
fn digits_cc(item: &str) -> Option<String> {
    let ok = (2..=3).contains(&item.len()) && item.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| {
        let (major, minor) = item.split_at(item.len() - 1);
        format!("{major}.{minor}")
    })
}

/// Paddle's `version/__init__.py` and ONNX Runtime's build info:
/// `cuda_version`, `cudnn_version`, and Paddle's
/// `with_pip_cuda_libraries`.
fn cuda_version_build(f: &BuildFile) -> Option<BuildInfo> {
    let cuda_value = f.get("cuda_version")?;
    let cudnn = f
        .get("cudnn_version")
        .as_ref()
        .and_then(|v| v.as_version().map(String::from));
    let mut info = match cuda_value.as_version() {
        Some(cuda) => {
            let evidence = f.cite("cuda_version", cuda);
            BuildInfo::new(
                Variant::Cuda {
                    cuda: Some(cuda.into()),
                    cudnn,
                },
                evidence,
            )
        }
        None => BuildInfo::new(Variant::Cpu, format!("{}: no cuda_version", f.rel)),
    };
    info.pip_cuda_libraries = match f.get("with_pip_cuda_libraries") {
        Some(Value::Str(s)) => Some(s.eq_ignore_ascii_case("ON")),
        Some(Value::Bool(b)) => Some(b),
        _ => None,
    };
    if matches!(info.variant, Variant::Cuda { .. }) {
        info.archs = match f.get(PADDLE_ARCHS) {
            Some(Value::Other(list) | Value::Str(list)) => arch_list(&list),
            _ => Vec::new(),
        };
        info.archs_key = PADDLE_ARCHS;
    }
    Some(info)
}

/// Paddle's version-file key for the architectures it was compiled for.
const PADDLE_ARCHS: &str = "compiled_cuda_archs";

/// `[75, 80, 86]` (Paddle's setup.py writes the list; older fixtures
/// quote it) as compute capabilities `7.5`, `8.0`, `8.6`; anything that
/// is not a list of two- or three-digit architectures is no list.
fn arch_list(text: &str) -> Vec<String> {
    let Some(inner) = text
        .trim()
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
    else {
        return Vec::new();
    };
    inner
        .split(',')
        .map(str::trim)
        .filter(|i| !i.is_empty())
        .map(digits_cc)
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default()
}

/// What a pip distribution's name and version say.
pub fn from_pip(framework: Framework, name: &str, version: &str) -> Option<BuildInfo> {
    if let Some((_, local)) = version.split_once('+') {
        if local == "cpu" || local.starts_with("cpu.") {
            return Some(BuildInfo::new(
                Variant::Cpu,
                format!("version tag +{local}"),
            ));
        }
        if let Some(cuda) = cuda_from_token(local) {
            let cudnn = token_after(local, "cudnn").map(|d| dotted(&d, 1));
            return Some(BuildInfo::new(
                Variant::Cuda {
                    cuda: Some(cuda),
                    cudnn,
                },
                format!("version tag +{local}"),
            ));
        }
        if let Some(rocm) = local.strip_prefix("rocm") {
            return Some(BuildInfo::new(
                Variant::Rocm { hip: rocm.into() },
                format!("version tag +{local}"),
            ));
        }
    }
    if framework == Framework::Paddlepaddle
        && let Some((_, post)) = version.rsplit_once(".post")
        && post.len() >= 2
        && post.bytes().all(|b| b.is_ascii_digit())
    {
        return Some(BuildInfo::new(
            Variant::Cuda {
                cuda: Some(dotted(post, 1)),
                cudnn: None,
            },
            format!("version suffix .post{post}"),
        ));
    }
    match name {
        "paddlepaddle" | "onnxruntime" | "tensorflow-cpu" => Some(BuildInfo::new(
            Variant::Cpu,
            format!("{name} is the CPU-only distribution"),
        )),
        // PyPI's jaxlib is CPU-only; CUDA comes from jax-cudaNN-plugin (and
        // Google's older CUDA jaxlib builds carry a +cudaNN tag, read above).
        "jaxlib" => Some(BuildInfo::new(
            Variant::Cpu,
            "jaxlib on PyPI is the CPU build; CUDA is in jax-cudaNN-plugin",
        )),
        _ => {
            let major = cuda_major_in_name(name)?;
            Some(BuildInfo::new(
                Variant::Cuda {
                    cuda: Some(major.to_string()),
                    cudnn: None,
                },
                format!("distribution name {name}"),
            ))
        }
    }
}

/// The CUDA major a distribution's name carries: `jax-cuda12-plugin`,
/// `cupy-cuda12x` and `cudf-cu12` give 12.
pub fn cuda_major_in_name(name: &str) -> Option<&str> {
    name.split('-').find_map(|part| {
        let digits = part
            .strip_prefix("cuda")
            .or_else(|| part.strip_prefix("cu"))?
            .trim_end_matches('x');
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
    })
}

/// Whether a pip distribution envhook has no row for is named as a CUDA
/// build (`cupy-cuda12x`, `cudf-cu12`, `numba-cuda`), and so has its
/// objects read: NVIDIA's own libraries (`nvidia-*`, `cuda-*` bindings,
/// `cutensor-*`) are libraries, not frameworks.
pub fn named_as_cuda_build(name: &str) -> bool {
    let library = ["nvidia-", "cuda-", "cutensor"]
        .iter()
        .any(|p| name.starts_with(p));
    !library && (cuda_major_in_name(name).is_some() || name.split('-').any(|p| p == "cuda"))
}

/// What a conda build string says.
pub fn from_conda_build(build: &str) -> Option<BuildInfo> {
    let evidence = format!("build string {build}");
    if let Some(cuda) = cuda_from_token(build) {
        let cudnn =
            token_after(build, "cudnn").map(|d| if d.contains('.') { d } else { dotted(&d, 1) });
        return Some(BuildInfo::new(
            Variant::Cuda {
                cuda: Some(cuda),
                cudnn,
            },
            evidence,
        ));
    }
    let tokens: Vec<&str> = build.split('_').collect();
    if tokens.iter().any(|t| t.starts_with("cpu")) {
        return Some(BuildInfo::new(Variant::Cpu, evidence));
    }
    if tokens
        .iter()
        .any(|t| *t == "cuda" || *t == "gpu" || t.starts_with("gpu"))
    {
        return Some(BuildInfo::new(
            Variant::Cuda {
                cuda: None,
                cudnn: None,
            },
            evidence,
        ));
    }
    None
}

/// The CUDA version in a token run such as `cuda11.8`, `cu118`, `cuda120`,
/// `cuda12`: dotted forms are taken as written, packed digits split before
/// the last one (`118` = 11.8, `92` = 9.2). A bare major (`cuda12`, two
/// digits starting with 1) stays a major.
fn cuda_from_token(text: &str) -> Option<String> {
    let digits = token_after(text, "cuda").or_else(|| token_after(text, "cu"))?;
    if digits.contains('.') {
        return Some(digits);
    }
    match digits.len() {
        2 if digits.starts_with('1') => Some(digits), // `cuda12`: a major only
        1 => Some(digits),
        _ => Some(dotted(&digits, 1)),
    }
}

/// The digits and dots right after the first `prefix` that is followed by
/// a digit (`cudnn8.7.0` -> `8.7.0`).
fn token_after(text: &str, prefix: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let after = &rest[at + prefix.len()..];
        let digits: String = after
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let digits = digits.trim_end_matches('.').to_string();
        if digits.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(digits);
        }
        rest = after;
    }
    None
}

/// `118` -> `11.8`: a dot before the last `minor_digits` digits.
fn dotted(digits: &str, minor_digits: usize) -> String {
    if digits.len() <= minor_digits {
        return digits.to_string();
    }
    let (major, minor) = digits.split_at(digits.len() - minor_digits);
    format!("{major}.{minor}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cuda(c: &str, d: Option<&str>) -> Variant {
        Variant::Cuda {
            cuda: Some(c.into()),
            cudnn: d.map(String::from),
        }
    }

    /// The line PyPI's tensorflow 2.17.0 wheel writes (its
    /// `tensorflow/python/platform/build_info.py`, read from the wheel).
    const TF_217: &str = "build_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), ('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), ('cuda_version', '12.3'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])\n";

    #[test]
    fn tensorflow_lists_its_cubins_and_ptx() {
        let f = BuildFile {
            rel: "tensorflow/python/platform/build_info.py",
            text: TF_217,
        };
        let info = tensorflow_build(&f).unwrap();
        assert_eq!(info.archs, ["6.0", "7.0", "8.0", "8.9"]);
        assert_eq!(info.ptx, ["9.0"]);
        assert_eq!(info.archs_key, "cuda_compute_capabilities");
        // Anything else is no list: an architecture-specific target, a
        // word, an unquoted item, a list that does not close.
        for list in [
            "['sm_90a', 'compute_90']",
            "['sm_60', 'gfx90a']",
            "[sm_60]",
            "['sm_6']",
            "['sm_60'",
            "[]",
        ] {
            assert_eq!(nvcc_list(list), None, "{list}");
        }
        assert_eq!(
            nvcc_list("[\"sm_100\", \"compute_120\"]"),
            Some((vec!["10.0".to_string()], vec!["12.0".to_string()]))
        );
    }

    #[test]
    fn conda_build_strings() {
        let v = |b: &str| from_conda_build(b).map(|i| i.variant);
        assert_eq!(
            v("py3.9_cuda11.8_cudnn8.7.0_0"),
            Some(cuda("11.8", Some("8.7.0")))
        );
        assert_eq!(
            v("py3.9_cuda11.3_cudnn8.3.2_0"),
            Some(cuda("11.3", Some("8.3.2")))
        );
        assert_eq!(v("cuda120_py313h6ccb88c_302"), Some(cuda("12.0", None)));
        assert_eq!(v("cuda126_mkl_py312h1234567_300"), Some(cuda("12.6", None)));
        assert_eq!(v("cuda120py311h5b0d1fe_0"), Some(cuda("12.0", None)));
        assert_eq!(v("py39_gpu_cuda11.2_many_linux"), Some(cuda("11.2", None)));
        assert_eq!(v("cpu_mkl_py313hbc6f0e9_102"), Some(Variant::Cpu));
        assert_eq!(v("py3.7_cpu_0"), Some(Variant::Cpu));
        assert_eq!(
            v("gpu_py39h7f4b5a9_0"),
            Some(Variant::Cuda {
                cuda: None,
                cudnn: None
            })
        );
        assert_eq!(
            v("py311h1b3f5a8_0_cuda"),
            Some(Variant::Cuda {
                cuda: None,
                cudnn: None
            })
        );
        assert_eq!(v("h0d30ee6_0"), None);
    }

    #[test]
    fn pip_versions_and_names() {
        let v = |f, n: &str, ver: &str| from_pip(f, n, ver).map(|i| i.variant);
        assert_eq!(
            v(Framework::Pytorch, "torch", "2.1.0+cu118"),
            Some(cuda("11.8", None))
        );
        assert_eq!(
            v(Framework::Pytorch, "torch", "2.9.0+cu130"),
            Some(cuda("13.0", None))
        );
        assert_eq!(
            v(Framework::Pytorch, "torch", "2.3.1+cpu"),
            Some(Variant::Cpu)
        );
        assert_eq!(v(Framework::Pytorch, "torch", "2.3.1"), None);
        assert_eq!(
            v(Framework::Pytorch, "torch", "2.0.1+rocm5.4.2"),
            Some(Variant::Rocm {
                hip: "5.4.2".into()
            })
        );
        assert_eq!(
            v(Framework::Paddlepaddle, "paddlepaddle-gpu", "2.5.2.post116"),
            Some(cuda("11.6", None))
        );
        assert_eq!(
            v(Framework::Paddlepaddle, "paddlepaddle-gpu", "2.4.2.post102"),
            Some(cuda("10.2", None))
        );
        assert_eq!(
            v(Framework::Paddlepaddle, "paddlepaddle-gpu", "2.6.1.post120"),
            Some(cuda("12.0", None))
        );
        assert_eq!(
            v(Framework::Paddlepaddle, "paddlepaddle-gpu", "2.6.2"),
            None
        );
        assert_eq!(
            v(Framework::Paddlepaddle, "paddlepaddle", "2.6.2"),
            Some(Variant::Cpu)
        );
        assert_eq!(
            v(Framework::Jax, "jaxlib", "0.4.13+cuda12.cudnn89"),
            Some(cuda("12", Some("8.9")))
        );
        // Google's monolithic CUDA jaxlibs (0.4.2-0.4.29): both CUDA 11
        // wheels of 0.4.2-0.4.10 read as CUDA 11, the cuDNN from the name.
        assert_eq!(
            v(Framework::Jax, "jaxlib", "0.4.7+cuda11.cudnn82"),
            Some(cuda("11", Some("8.2")))
        );
        assert_eq!(
            v(Framework::Jax, "jaxlib", "0.4.25+cuda11.cudnn86"),
            Some(cuda("11", Some("8.6")))
        );
        assert_eq!(
            v(Framework::Jax, "jaxlib", "0.4.29+cuda12.cudnn91"),
            Some(cuda("12", Some("9.1")))
        );
        assert_eq!(
            v(Framework::Jax, "jax-cuda12-plugin", "0.4.30"),
            Some(cuda("12", None))
        );
        assert_eq!(
            v(Framework::Onnxruntime, "onnxruntime", "1.18.0"),
            Some(Variant::Cpu)
        );
        assert_eq!(v(Framework::Onnxruntime, "onnxruntime-gpu", "1.18.0"), None);
        assert_eq!(cuda_major_in_name("cupy-cuda12x"), Some("12"));
        assert_eq!(cuda_major_in_name("cudf-cu12"), Some("12"));
        assert_eq!(cuda_major_in_name("jax-cuda13-pjrt"), Some("13"));
        assert_eq!(cuda_major_in_name("numba-cuda"), None);
        assert_eq!(cuda_major_in_name("cupy"), None);
        assert!(named_as_cuda_build("cupy-cuda12x") && named_as_cuda_build("numba-cuda"));
        assert!(
            !named_as_cuda_build("nvidia-cutensor-cu12") && !named_as_cuda_build("cuda-python")
        );
        assert!(!named_as_cuda_build("cutensor-cu12") && !named_as_cuda_build("requests"));
    }
}
