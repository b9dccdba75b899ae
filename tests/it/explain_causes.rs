//! `envhook explain` agrees with `check` (#29): where check already names
//! the cause of a message (a framework installed without the wheels of its
//! CUDA extra, a JAX without its CUDA plugin), explain says the same and
//! ends with the same command. Fixture environments are shaped like the
//! real wheels (METADATA pins, build files, RUNPATH copied from PyPI's
//! tensorflow 2.16.1), their objects real ELF built by `cc`.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::{Env, FileSpec, PipDist, Sandbox};

const A100: &[&str] = &["--driver-version", "560.35.05", "--gpu", "A100"];

fn run_json(sb: &Sandbox, verb: &str, prefix: &Path, message: Option<&str>) -> (Value, i32) {
    let mut cmd = sb.envhook();
    cmd.args([verb, "--json"]);
    if let Some(m) = message {
        cmd.arg(m);
    }
    let out = cmd.args(A100).arg("-p").arg(prefix).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

/// A fix that is one command (`{"command": ...}`).
fn command(fix: &Value) -> &str {
    text(&fix["command"])
}

/// The fix of check's finding of `code`, one command.
fn check_fix(sb: &Sandbox, prefix: &Path, code: &str) -> String {
    let (json, _) = run_json(sb, "check", prefix, None);
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == code)
        .and_then(|p| p["fix"]["command"].as_str())
        .unwrap_or_else(|| panic!("no {code} with a fix: {:#}", json["findings"]))
        .to_string()
}

/// PyPI's tensorflow 2.16.1 installed as `pip install tensorflow==2.16.1`:
/// its `and-cuda` pins unmet, no nvidia-* wheel, libtensorflow_framework's
/// RUNPATH leading into nvidia/cuda_runtime/lib only.
fn tensorflow_216_bare(prefix: &Path) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.12.1");
    env.pip(
        PipDist::new("tensorflow", "2.16.1")
            .requires(vec![
                "nvidia-cublas-cu12 ==12.3.4.1 ; extra == 'and-cuda'",
                "nvidia-cuda-cupti-cu12 ==12.3.101 ; extra == 'and-cuda'",
                "nvidia-cuda-runtime-cu12 ==12.3.101 ; extra == 'and-cuda'",
                "nvidia-cudnn-cu12 ==8.9.7.29 ; extra == 'and-cuda'",
                "nvidia-cufft-cu12 ==11.0.12.1 ; extra == 'and-cuda'",
                "nvidia-cusolver-cu12 ==11.5.4.101 ; extra == 'and-cuda'",
                "nvidia-cusparse-cu12 ==12.2.0.103 ; extra == 'and-cuda'",
                "nvidia-nccl-cu12 ==2.19.3 ; extra == 'and-cuda'",
            ])
            .files(vec![FileSpec::File("tensorflow/libtensorflow_framework.so.2")])
            .text(
                "tensorflow/python/platform/build_info.py",
                "import collections\nbuild_info = collections.OrderedDict([('cuda_version', '12.3'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False)])\n",
            ),
    );
    support::cc_shared(
        &env.site().join("tensorflow/libtensorflow_framework.so.2"),
        "libtensorflow_framework.so.2",
        &[],
        Some("$ORIGIN/:$ORIGIN/../nvidia/cuda_runtime/lib"),
        true,
    );
    env
}

/// openxla/xla xla/tsl/platform/default/dso_loader.cc (GetDsoHandle) on a
/// TensorFlow 2.16 without its `[and-cuda]` wheels: the library is missing
/// here, and the fix is check's, the whole stack TensorFlow pins.
#[test]
fn tensorflow_without_its_cuda_extra_is_missing_the_library_here() {
    let sb = Sandbox::new();
    let env = tensorflow_216_bare(&sb.path("envs/tf"));
    let fix = check_fix(&sb, &env.prefix, "library-not-found");
    assert!(fix.contains("'nvidia-cublas-cu12==12.3.4.1'"), "{fix}");
    assert!(fix.contains("'nvidia-cudnn-cu12==8.9.7.29'"), "{fix}");
    let msg = "2024-03-12 10:01:02.123456: W external/local_tsl/tsl/platform/default/dso_loader.cc:64] \
               Could not load dynamic library 'libcublas.so.12'; dlerror: libcublas.so.12: cannot \
               open shared object file: No such file or directory";
    let (json, code) = run_json(&sb, "explain", &env.prefix, Some(msg));
    assert_eq!(code, 1, "{json:#}");
    let a = &json["answers"][0];
    assert_eq!(a["clue"]["name"], "libcublas.so.12");
    assert_eq!(a["verdict"], "cause", "{a:#}");
    let diagnosis = text(&a["diagnosis"]);
    assert!(
        diagnosis.contains("tensorflow 2.16.1 was installed without its [and-cuda] extra"),
        "{diagnosis}"
    );
    assert!(!diagnosis.contains("another environment"), "{diagnosis}");
    assert_eq!(command(&a["fix"]), fix);

    // TensorFlow's summary line alone: check's finding and its fix.
    let summary = "W tensorflow/core/common_runtime/gpu/gpu_device.cc:2251] Cannot dlopen some GPU \
                   libraries. Please make sure the missing libraries mentioned above are installed \
                   properly if you would like to use GPU. Follow the guide at \
                   https://www.tensorflow.org/install/gpu for how to download and setup the \
                   required libraries for your platform.\nSkipping registering GPU devices...";
    let (json, code) = run_json(&sb, "explain", &env.prefix, Some(summary));
    assert_eq!(code, 1, "{json:#}");
    let cause = json["causes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["code"] == "library-not-found")
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(command(&cause["fix"]), fix);
}

/// jax-ml/jax jax/_src/xla_bridge.py (_suggest_missing_backends): PyPI's
/// jaxlib alone is the CPU build; the fix installs the CUDA plugin of the
/// same release, of the CUDA major the environment's wheels and the driver
/// agree on.
#[test]
fn jax_without_its_cuda_plugin_gets_the_extra_of_its_release() {
    let sb = Sandbox::new();
    let msg = "WARNING:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a \
               CUDA-enabled jaxlib is not installed. Falling back to cpu.";
    let mut env = Env::new(sb.path("envs/jax"));
    env.python("3.12.1");
    env.pip(PipDist::new("jax", "0.8.2"));
    env.pip(PipDist::new("jaxlib", "0.8.2").files(vec![FileSpec::File("jaxlib/_jax.so")]));
    let (json, code) = run_json(&sb, "explain", &env.prefix, Some(msg));
    assert_eq!(code, 1, "{json:#}");
    let a = &json["answers"][0];
    assert_eq!(a["clue"]["kind"], "cuda-backend");
    let here: Vec<&str> = a["here"].as_array().unwrap().iter().map(text).collect();
    assert!(here.contains(&"jaxlib 0.8.2 (pip)"), "{here:?}");
    assert!(
        here.contains(&"jax-cuda12-plugin: not installed"),
        "{here:?}"
    );
    // A 560 driver supports CUDA 12.6: CUDA 13's plugin would not run.
    let py = env.prefix.join("bin/python");
    assert_eq!(
        command(&a["fix"]),
        format!("'{}' -m pip install -U 'jax[cuda12]==0.8.2'", py.display())
    );

    // Beside CUDA 13 wheels (torch cu130's), on a driver that runs them:
    // the CUDA 13 plugin, so that two majors' wheels do not share
    // directories.
    env.pip(
        PipDist::new("nvidia-cublas", "13.1.0.3")
            .files(vec![FileSpec::File("nvidia/cu13/lib/libcublas.so.13")]),
    );
    let out = sb
        .envhook()
        .args([
            "explain",
            "--json",
            msg,
            "--driver-version",
            "580.95.05",
            "-p",
        ])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        command(&json["answers"][0]["fix"]),
        format!("'{}' -m pip install -U 'jax[cuda13]==0.8.2'", py.display())
    );

    // With the plugin of its release, JAX here loads it.
    env.pip(PipDist::new("jax-cuda13-plugin", "0.8.2"));
    env.pip(PipDist::new("jax-cuda13-pjrt", "0.8.2"));
    let (json, code) = run_json(&sb, "explain", &env.prefix, Some(msg));
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["answers"][0]["verdict"], "not-here");
}

/// tensorflow/tensorflow tensorflow/core/profiler/internal/gpu/cupti_tracer.cc
/// (RETURN_IF_CUPTI_ERROR): the profiler's CUPTI is an optional library to
/// check, whose note and fix explain repeats.
#[test]
fn the_profilers_cupti_gets_checks_fix() {
    let sb = Sandbox::new();
    let env = tensorflow_216_bare(&sb.path("envs/tf"));
    let fix = check_fix(&sb, &env.prefix, "optional-library-missing");
    assert!(fix.contains("nvidia-cuda-cupti-cu12==12.3.101"), "{fix}");
    let msg = "E external/local_tsl/tsl/profiler/internal/gpu/cupti_tracer.cc:1257] function \
               cupti_interface_->Subscribe( &subscriber_, (CUpti_CallbackFunc)ApiCallback, \
               this)failed with error CUPTI could not be loaded or symbol could not be found.";
    let (json, code) = run_json(&sb, "explain", &env.prefix, Some(msg));
    assert_eq!(code, 1, "{json:#}");
    let a = &json["answers"][0];
    assert_eq!(a["clue"]["component"], "cupti");
    assert_eq!(command(&a["fix"]), fix);
}

/// pytorch/pytorch torch/csrc/distributed/c10d/NCCLUtils.hpp
/// (C10D_NCCL_CHECK, ncclGetErrorWithVersion): the NCCL version ending the
/// message against the environment's.
#[test]
fn the_nccl_version_torch_names_is_compared_with_the_environments() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/torch"));
    env.python("3.12.1");
    env.pip(
        PipDist::new("nvidia-nccl-cu12", "2.21.5")
            .files(vec![FileSpec::File("nvidia/nccl/lib/libnccl.so.2")]),
    );
    env.pip(
        PipDist::new("torch", "2.6.0")
            .files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")])
            .text(
                "torch/version.py",
                "__version__ = '2.6.0'\ncuda: Optional[str] = '12.4'\nhip: Optional[str] = None\n",
            ),
    );
    let msg = |v: &str| {
        format!(
            "torch.distributed.DistBackendError: NCCL error in: \
             ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error (run with \
             NCCL_DEBUG=INFO for details), NCCL version {v}"
        )
    };
    let (json, _) = run_json(&sb, "explain", &env.prefix, Some(&msg("2.19.3")));
    let a = &json["answers"][0];
    assert_eq!(a["clue"]["found"], "2.19.3");
    assert_eq!(a["verdict"], "not-here", "{a:#}");
    assert!(
        text(&a["diagnosis"])
            .contains("this environment's NCCL is 2.21.5: the process loaded another copy"),
        "{a:#}"
    );
    let (json, code) = run_json(&sb, "explain", &env.prefix, Some(&msg("2.21.5")));
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        json["answers"][0]["fix"]["choose"]["commands"][0],
        "export NCCL_DEBUG=INFO"
    );
    // The row's next step is in the document for a person to read.
    assert!(
        json["known"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["fix"]["choose"]["advice"]
                .as_str()
                .is_some_and(|f| f.contains("--shm-size"))),
        "{json:#}"
    );
}

/// TensorFlow 2.16.1 logs TensorRT's libraries as it tries them (TF-TRT
/// is optional): no pip package is known for TensorRT 8, so the answer
/// is advice naming it, never an install of nothing (a real TF 2.16.1
/// log once got `pip install` with no package).
#[test]
fn tensorrt_that_tensorflow_tries_is_advice_not_an_empty_install() {
    let sb = Sandbox::new();
    let env = tensorflow_216_bare(&sb.path("envs/tf"));
    let msg = "2026-12-06 02:50:37.318811: I external/local_tsl/tsl/platform/default/\
               dso_loader.cc:70] Could not load dynamic library 'libnvinfer.so.8.6.1'; dlerror: \
               libnvinfer.so.8.6.1: cannot open shared object file: No such file or directory";
    let (json, _) = run_json(&sb, "explain", &env.prefix, Some(msg));
    let a = &json["answers"][0];
    assert_eq!(a["clue"]["name"], "libnvinfer.so.8.6.1", "{json:#}");
    assert!(a["fix"]["command"].is_null(), "{a:#}");
    // check's own advice for it, so the two agree.
    assert!(
        text(&a["fix"]["choose"]["advice"]).starts_with("only if you use TensorRT"),
        "{a:#}"
    );
    assert!(
        text(&a["diagnosis"]).ends_with("(check: info[optional-library-missing])"),
        "{a:#}"
    );
    // TensorRT 8 has no -cuNN wheels: PyPI's tensorrt 8.6.1.post1 sdist
    // installs tensorrt_libs from NVIDIA's index, and so does the fix.
    assert_eq!(
        a["fix"]["choose"]["commands"][0],
        format!(
            "'{}' -m pip install --extra-index-url https://pypi.nvidia.com 'tensorrt-libs==8.*'",
            env.prefix.join("bin/python").display()
        )
    );
}
