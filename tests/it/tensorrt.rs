//! TensorRT (data audit 2026-12-05, P7): ONNX Runtime's TensorRT provider
//! needs `libnvinfer.so.N` (DT_NEEDED), TensorFlow 2.16-2.17 loads it by
//! name for TF-TRT. Both run without it, so a missing TensorRT is an info
//! that names the provider and the package; a TensorRT of another major,
//! or built for another CUDA major, is a warning. Objects are real ELF
//! built with `cc`, laid out as the PyPI wheels lay them out
//! (`onnxruntime/capi/`, `tensorrt_libs/`).

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::{Env, FileSpec, PipDist, Sandbox, findings_of};

const DRIVER: &str = "580.65.06";

fn check(sb: &Sandbox, prefix: &Path) -> (Value, i32) {
    support::check_json(sb, prefix, &["--driver-version", DRIVER])
}

fn severities(json: &Value) -> Vec<String> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{}:{}", f["severity"], f["code"]))
        .collect()
}

/// A pip wheel that installs one real library at `rel` under
/// site-packages; the library's path.
fn wheel_lib(
    env: &mut Env,
    dist: &'static str,
    version: &'static str,
    rel: &'static str,
) -> PathBuf {
    env.pip(PipDist::new(dist, version).files(vec![FileSpec::File(rel)]));
    let path = env.site().join(rel);
    let soname = path.file_name().unwrap().to_str().unwrap().to_string();
    support::cc_shared(&path, &soname, &[], None, false);
    path
}

/// PyPI's onnxruntime-gpu 1.31.1 with its CUDA 13 runtime and cuDNN 9
/// wheels: `libonnxruntime_providers_cuda.so` and, as in the real wheel,
/// `libonnxruntime_providers_tensorrt.so` with DT_NEEDED
/// `libnvinfer.so.10`, `libnvonnxparser.so.10` and `libcudart.so.13`. The
/// TensorRT libraries it links against are built outside the environment.
fn ort_1_31(sb: &Sandbox, name: &str) -> Env {
    let mut env = Env::new(sb.path(&format!("envs/{name}")));
    env.python("3.12.4");
    let cudart = wheel_lib(
        &mut env,
        "nvidia-cuda-runtime",
        "13.0.96",
        "nvidia/cu13/lib/libcudart.so.13",
    );
    wheel_lib(
        &mut env,
        "nvidia-cudnn-cu13",
        "9.28.1.4",
        "nvidia/cudnn/lib/libcudnn.so.9",
    );
    // 1.28+ loads cuFFT by name too (optional, for Rfft/Irfft).
    wheel_lib(
        &mut env,
        "nvidia-cufft",
        "12.0.0.61",
        "nvidia/cu13/lib/libcufft.so.12",
    );
    let outside = sb.path(&format!("build/{name}"));
    let nvinfer = outside.join("libnvinfer.so.10");
    let parser = outside.join("libnvonnxparser.so.10");
    support::cc_shared(&nvinfer, "libnvinfer.so.10", &[], None, false);
    support::cc_shared(&parser, "libnvonnxparser.so.10", &[], None, false);
    env.pip(PipDist::new("onnxruntime-gpu", "1.31.1").files(vec![
        FileSpec::File("onnxruntime/capi/libonnxruntime_providers_cuda.so"),
        FileSpec::File("onnxruntime/capi/libonnxruntime_providers_tensorrt.so"),
    ]));
    let capi = env.site().join("onnxruntime/capi");
    support::cc_shared(
        &capi.join("libonnxruntime_providers_cuda.so"),
        "libonnxruntime_providers_cuda.so",
        &[],
        None,
        false,
    );
    support::cc_shared(
        &capi.join("libonnxruntime_providers_tensorrt.so"),
        "libonnxruntime_providers_tensorrt.so",
        &[&nvinfer, &parser, &cudart],
        None,
        false,
    );
    env
}

/// TensorRT libraries as a `tensorrt-cuNN-libs` wheel lays them out.
fn trt_libs(env: &mut Env, dist: &'static str, version: &'static str, names: &[&'static str]) {
    env.pip(PipDist::new(dist, version).files(names.iter().map(|n| FileSpec::File(n)).collect()));
    for rel in names {
        let path = env.site().join(rel);
        let soname = path.file_name().unwrap().to_str().unwrap().to_string();
        support::cc_shared(&path, &soname, &[], None, false);
    }
}

/// A plain ONNX Runtime user without TensorRT: the TensorRT provider's
/// libraries are an info that names TensorrtExecutionProvider and the
/// package, never an error, and the environment passes once hooked.
#[test]
fn missing_tensorrt_is_an_info_naming_the_provider_and_the_package() {
    let sb = Sandbox::new();
    let env = ort_1_31(&sb, "ort");
    sb.install(&env.prefix);
    let (json, code) = check(&sb, &env.prefix);
    let infos = findings_of(&json, "optional-library-missing");
    let names: Vec<&str> = infos
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    // One info for the provider, naming everything it lacks.
    assert_eq!(infos.len(), 1, "{:#}", json["findings"]);
    for f in &infos {
        assert_eq!(f["severity"], "info");
        let message = f["message"].as_str().unwrap();
        assert!(
            message.contains("libonnxruntime_providers_tensorrt.so"),
            "{message}"
        );
        assert!(message.contains("TensorrtExecutionProvider"), "{message}");
        // Only for TensorRT's users: a choice, pip's wheel or conda's
        // packages, each one command.
        let fix = f["fix"]["choose"]["commands"].to_string();
        assert!(
            f["fix"]["choose"]["advice"]
                .as_str()
                .unwrap()
                .starts_with("only if you use TensorRT"),
            "{f:#}"
        );
        assert!(fix.contains("tensorrt-cu13-libs==10.*"), "{fix}");
        assert!(fix.contains("libnvinfer=10.*"), "{fix}");
    }
    assert!(names.iter().any(|m| m.contains("libnvinfer.so.10")));
    assert!(names.iter().any(|m| m.contains("libnvonnxparser.so.10")));
    // The CUDA runtime the provider also needs is found: nothing on it.
    assert!(
        !severities(&json)
            .iter()
            .any(|s| s.starts_with("\"error\"") || s.starts_with("\"warning\"")),
        "{:?}",
        severities(&json)
    );
    assert_eq!(code, 0, "{:#}", json["findings"]);
}

/// tensorrt-cu13-libs 10.x in `site-packages/tensorrt_libs/`: the hook
/// exposes it, the provider finds it, nothing is said about TensorRT.
#[test]
fn tensorrt_wheel_of_the_right_majors_is_found_through_the_hook() {
    let sb = Sandbox::new();
    let mut env = ort_1_31(&sb, "ort-trt");
    trt_libs(
        &mut env,
        "tensorrt-cu13-libs",
        "10.16.1.11",
        &[
            "tensorrt_libs/libnvinfer.so.10",
            "tensorrt_libs/libnvonnxparser.so.10",
        ],
    );
    sb.install(&env.prefix);
    let (json, code) = check(&sb, &env.prefix);
    assert_eq!(code, 0, "{:#}", json["findings"]);
    let trt = json["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| {
            l["object"]
                .as_str()
                .unwrap()
                .ends_with("providers_tensorrt.so")
        })
        .unwrap_or_else(|| panic!("{:#}", json["libraries"]));
    let nvinfer = trt["names"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "libnvinfer.so.10")
        .unwrap();
    let path = nvinfer["with_hook"]["path"].as_str().unwrap_or_default();
    assert!(
        path.contains("tensorrt_libs") || path.contains("envhook"),
        "{nvinfer:#}"
    );
    assert!(findings_of(&json, "optional-library-missing").is_empty());
    assert!(findings_of(&json, "tensorrt-other-cuda").is_empty());
}

/// TensorRT 11 (`libnvinfer.so.11`, today's tensorrt-cu13-libs) where the
/// provider needs TensorRT 10: a warning that says so, not "missing".
#[test]
fn tensorrt_of_another_major_is_a_warning() {
    let sb = Sandbox::new();
    let mut env = ort_1_31(&sb, "ort-trt11");
    trt_libs(
        &mut env,
        "tensorrt-cu13-libs",
        "11.4.0.106",
        &[
            "tensorrt_libs/libnvinfer.so.11",
            "tensorrt_libs/libnvonnxparser.so.11",
        ],
    );
    sb.install(&env.prefix);
    let (json, code) = check(&sb, &env.prefix);
    let other = findings_of(&json, "tensorrt-other-version");
    assert_eq!(other.len(), 2, "{:#}", json["findings"]);
    let message = other[0]["message"].as_str().unwrap();
    assert_eq!(other[0]["severity"], "warning");
    assert!(message.contains("libnvinfer.so.10"), "{message}");
    assert!(message.contains("libnvinfer.so.11"), "{message}");
    assert!(
        other[0]["fix"]["choose"]["commands"]
            .to_string()
            .contains("tensorrt-cu13-libs==10.*")
    );
    assert!(findings_of(&json, "optional-library-missing").is_empty());
    assert_eq!(code, 1);
}

/// tensorrt-cu12-libs (CUDA 12) beside a CUDA 13 ONNX Runtime: the same
/// soname, built for another CUDA major.
#[test]
fn tensorrt_built_for_another_cuda_major_is_a_warning() {
    let sb = Sandbox::new();
    let mut env = ort_1_31(&sb, "ort-trt-cu12");
    trt_libs(
        &mut env,
        "tensorrt-cu12-libs",
        "10.16.1.11",
        &[
            "tensorrt_libs/libnvinfer.so.10",
            "tensorrt_libs/libnvonnxparser.so.10",
        ],
    );
    sb.install(&env.prefix);
    let (json, code) = check(&sb, &env.prefix);
    let other = findings_of(&json, "tensorrt-other-cuda");
    assert!(!other.is_empty(), "{:#}", json["findings"]);
    let message = other[0]["message"].as_str().unwrap();
    assert!(message.contains("tensorrt-cu12-libs"), "{message}");
    assert!(message.contains("CUDA 13"), "{message}");
    assert!(
        other[0]["fix"]["choose"]["commands"]
            .to_string()
            .contains("tensorrt-cu13-libs")
    );
    assert_eq!(code, 1);
}
