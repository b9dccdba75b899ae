//! Issue #39 (item 2): the GPU, driver, version and known-bad rules judge
//! the copies of a library some framework of the environment loads, as the
//! simulated imports settle it, and no other. ONNX Runtime 1.18 (a CUDA
//! 11.8 build) beside CUDA 12 wheels it never opens gets its one error,
//! not `gpu-unsupported` for the cuDNN 9.1 wheel on an RTX 5090 or
//! `known-bad-version` for the cuBLAS 12.9 wheel on a B200; the same
//! wheels loaded by a framework, or in an environment without one, are
//! judged as before. Objects are real ELF built with `cc`, each framework
//! object needing what the real one's `DT_NEEDED` names.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::{CondaPkg, Env, FileSpec, PipDist, Sandbox};

fn check(sb: &Sandbox, prefix: &Path, extra: &[&str]) -> Value {
    support::check_json(sb, prefix, extra).0
}

/// The findings with `code`, as `severity: message`.
fn findings(json: &Value, code: &str) -> Vec<String> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| format!("{}: {}", f["severity"], f["message"]))
        .collect()
}

/// A pip wheel whose libraries (at `rels` under site-packages) are real,
/// each with its file name as soname, as the `nvidia-*` wheels ship them.
fn wheel(env: &mut Env, dist: &'static str, version: &'static str, rels: &[&'static str]) {
    env.pip(PipDist::new(dist, version).files(rels.iter().map(|r| FileSpec::File(r)).collect()));
    for rel in rels {
        let path = env.site().join(rel);
        let soname = path.file_name().unwrap().to_str().unwrap().to_string();
        support::cc_shared(&path, &soname, &[], None, false);
    }
}

/// Rebuild a framework's object at `object` as a real ELF whose
/// `DT_NEEDED` are `names` (linked against stubs of those sonames made
/// aside and removed, so the environment's own copies, or none, are what
/// the loader finds), with `rpath` as its DT_RPATH, and with `fatbin`'s
/// device code: the `.nv_fatbin` section of that fixture
/// (tests/fixtures/fatbin, written by NVIDIA's nvcc), copied by objcopy.
fn needing(object: &Path, names: &[&str], rpath: Option<&str>, fatbin: Option<&str>) {
    let scratch = object.with_extension("stubs");
    let stubs: Vec<PathBuf> = names.iter().map(|n| scratch.join(n)).collect();
    for (stub, name) in stubs.iter().zip(names) {
        support::cc_shared(stub, name, &[], None, false);
    }
    let soname = object.file_name().unwrap().to_str().unwrap().to_string();
    let deps: Vec<&Path> = stubs.iter().map(PathBuf::as_path).collect();
    support::cc_shared(object, &soname, &deps, rpath, false);
    if let Some(fixture) = fatbin {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fatbin");
        let section = scratch.join("nv_fatbin");
        let objcopy = |args: Vec<std::ffi::OsString>| {
            let status = std::process::Command::new("objcopy")
                .args(args)
                .status()
                .expect("objcopy is installed (binutils, with gcc)");
            assert!(status.success());
        };
        objcopy(vec![
            "--dump-section".into(),
            format!(".nv_fatbin={}", section.display()).into(),
            fixtures.join(fixture).into(),
        ]);
        objcopy(vec![
            "--add-section".into(),
            format!(".nv_fatbin={}", section.display()).into(),
            object.into(),
        ]);
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// What PyPI's `nvidia-cudnn-cu12==9.1.0.70` and
/// `nvidia-cublas-cu12==12.9.1.4` install (`--no-deps`), and, with
/// `runtime`, `nvidia-cuda-runtime-cu12==12.9.79`.
fn cuda12_wheels(env: &mut Env, runtime: bool) {
    wheel(
        env,
        "nvidia-cudnn-cu12",
        "9.1.0.70",
        &["nvidia/cudnn/lib/libcudnn.so.9"],
    );
    wheel(
        env,
        "nvidia-cublas-cu12",
        "12.9.1.4",
        &[
            "nvidia/cublas/lib/libcublas.so.12",
            "nvidia/cublas/lib/libcublasLt.so.12",
        ],
    );
    if runtime {
        wheel(
            env,
            "nvidia-cuda-runtime-cu12",
            "12.9.79",
            &["nvidia/cuda_runtime/lib/libcudart.so.12"],
        );
    }
}

/// PyPI's onnxruntime-gpu 1.18.0 (cp311 manylinux): a CUDA 11.8 build whose
/// CUDA provider needs what `readelf -d` lists for the real wheel, has no
/// RPATH, and carries PTX for compute_80 (the real one's newest entry, so
/// that it runs on Blackwell by JIT: its cuDNN, not it, would be the
/// blocker there).
fn ort_118(env: &mut Env) {
    let provider = "onnxruntime/capi/libonnxruntime_providers_cuda.so";
    env.pip(PipDist::new("onnxruntime-gpu", "1.18.0").files(vec![FileSpec::File(provider)]));
    needing(
        &env.site().join(provider),
        &[
            "libcublasLt.so.11",
            "libcublas.so.11",
            "libcudnn.so.8",
            "libcurand.so.10",
            "libcufft.so.10",
            "libcudart.so.11.0",
        ],
        None,
        Some("sm80_compute80.so"),
    );
}

/// PyPI's torch 2.7.1+cu128 (its data row reaches sm_120 and sm_100):
/// `libtorch_cuda.so` needs the CUDA 12 libraries, found through its
/// DT_RPATH into the `nvidia-*` wheels, as the real wheel's.
fn torch_cu128(env: &mut Env) {
    let object = "torch/lib/libtorch_cuda.so";
    env.pip(
        PipDist::new("torch", "2.7.1+cu128")
            .files(vec![FileSpec::File(object)])
            .text(
                "torch/version.py",
                "__version__ = '2.7.1+cu128'\ncuda = '12.8'\nhip = None\n",
            ),
    );
    needing(
        &env.site().join(object),
        &[
            "libcudart.so.12",
            "libcublas.so.12",
            "libcublasLt.so.12",
            "libcudnn.so.9",
        ],
        Some(
            "$ORIGIN/../../nvidia/cublas/lib:$ORIGIN/../../nvidia/cuda_runtime/lib:\
             $ORIGIN/../../nvidia/cudnn/lib",
        ),
        None,
    );
}

const RTX_5090: &[&str] = &["--driver-version", "580.65.06", "--gpu", "RTX 5090"];
const B200: &[&str] = &["--driver-version", "580.65.06", "--gpu", "B200"];

/// The environment: ONNX Runtime 1.18 beside the cuDNN 9.1 and
/// cuBLAS 12.9 wheels, which its provider never asks for. Its one error
/// is that its own CUDA 11 libraries are nowhere; nothing is said about
/// the two wheels, not even that they are unused (nothing loads their
/// names).
#[test]
fn wheels_nothing_loads_are_not_judged() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/ort"));
    env.python("3.11.7");
    ort_118(&mut env);
    cuda12_wheels(&mut env, false);
    for machine in [RTX_5090, B200] {
        let json = check(&sb, &env.prefix, machine);
        for code in ["gpu-unsupported", "known-bad-version", "library-unused"] {
            assert_eq!(findings(&json, code), Vec::<String>::new(), "{machine:?}");
        }
        let missing = findings(&json, "library-not-found");
        assert_eq!(missing.len(), 1, "{machine:?}: {:#}", json["findings"]);
        assert!(missing[0].contains("libcudnn.so.8"), "{missing:?}");
    }
    // A CUDA 12 runtime wheel it never loads asks nothing of the driver:
    // on a CUDA 11.4 driver only the build's own CUDA 11.8 is measured.
    cuda12_wheels(&mut env, true);
    let json = check(&sb, &env.prefix, &["--driver-version", "470.57.02"]);
    assert_eq!(findings(&json, "driver-too-old"), Vec::<String>::new());
    let older = findings(&json, "driver-older-than-cuda");
    assert_eq!(older.len(), 1, "{:#}", json["findings"]);
    assert!(
        older[0].contains("the onnxruntime-gpu 1.18.0 build needs CUDA 11.8"),
        "{older:?}"
    );
}

/// The same wheels loaded by a framework (torch 2.7.1+cu128, through its
/// RPATH) are judged: cuDNN 9.1 has no kernels for Blackwell, cuBLAS 12.9
/// is known-bad on sm_100, the runtime needs a CUDA 12 driver.
#[test]
fn wheels_a_framework_loads_are_judged() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/torch"));
    env.python("3.11.7");
    torch_cu128(&mut env);
    cuda12_wheels(&mut env, true);
    let json = check(&sb, &env.prefix, RTX_5090);
    let unsupported = findings(&json, "gpu-unsupported");
    assert_eq!(unsupported.len(), 1, "{:#}", json["findings"]);
    assert!(
        unsupported[0].starts_with("\"error\": \"cuDNN 9.1.0.70 (nvidia-cudnn-cu12 9.1.0.70)"),
        "{unsupported:?}"
    );
    let json = check(&sb, &env.prefix, B200);
    let bad = findings(&json, "known-bad-version");
    assert_eq!(bad.len(), 1, "{:#}", json["findings"]);
    assert!(bad[0].contains("cuBLAS 12.9.1.4"), "{bad:?}");
    let json = check(&sb, &env.prefix, &["--driver-version", "470.57.02"]);
    let old = findings(&json, "driver-too-old");
    assert!(
        old.iter()
            .any(|m| m.contains("nvidia-cuda-runtime-cu12 12.9.79 (pip) needs CUDA 12.9")),
        "{old:?}"
    );
}

/// Without any framework (CUDA libraries only, as a toolkit for compiling
/// has them) the user's own programs load them: every copy is judged.
#[test]
fn without_frameworks_every_copy_is_judged() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/cuda"));
    env.python("3.11.7");
    cuda12_wheels(&mut env, true);
    let json = check(&sb, &env.prefix, RTX_5090);
    assert_eq!(
        findings(&json, "gpu-unsupported").len(),
        1,
        "{:#}",
        json["findings"]
    );
    let json = check(&sb, &env.prefix, B200);
    assert_eq!(findings(&json, "known-bad-version").len(), 1);
    assert_eq!(findings(&json, "gpu-unsupported").len(), 1);
    let json = check(&sb, &env.prefix, &["--driver-version", "470.57.02"]);
    assert_eq!(findings(&json, "driver-too-old").len(), 1);
}

/// Two cuDNN 9 copies: torch takes the wheel's 9.8 through its RPATH,
/// with the hook and without, and conda's 9.1 in `lib/` is loaded by
/// nothing. It is no error on an RTX 5090, only an info that it would be
/// one where something loaded it in the wheel's place.
#[test]
fn an_unused_copy_under_a_loaded_name_is_a_note() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/two"));
    env.python("3.11.7");
    torch_cu128(&mut env);
    wheel(
        &mut env,
        "nvidia-cudnn-cu12",
        "9.8.0.87",
        &["nvidia/cudnn/lib/libcudnn.so.9"],
    );
    wheel(
        &mut env,
        "nvidia-cublas-cu12",
        "12.8.4.1",
        &[
            "nvidia/cublas/lib/libcublas.so.12",
            "nvidia/cublas/lib/libcublasLt.so.12",
        ],
    );
    wheel(
        &mut env,
        "nvidia-cuda-runtime-cu12",
        "12.8.57",
        &["nvidia/cuda_runtime/lib/libcudart.so.12"],
    );
    env.conda(
        CondaPkg::new("libcudnn", "9.1.0.70", "h0a7ce49_0").files(vec![
            FileSpec::File("lib/libcudnn.so.9.1.0"),
            FileSpec::Link("lib/libcudnn.so.9", "libcudnn.so.9.1.0"),
        ]),
    );
    support::cc_shared(
        &env.prefix.join("lib/libcudnn.so.9.1.0"),
        "libcudnn.so.9",
        &[],
        None,
        false,
    );
    let json = check(&sb, &env.prefix, RTX_5090);
    assert_eq!(
        findings(&json, "gpu-unsupported"),
        Vec::<String>::new(),
        "{:#}",
        json["findings"]
    );
    // What it would meet: no kernels for sm_120, and a CUDA it is not
    // listed for; each said once, as an info.
    let unused = findings(&json, "library-unused");
    assert_eq!(unused.len(), 2, "{:#}", json["findings"]);
    let wheel = env.site().join("nvidia/cudnn/lib");
    let opening = format!(
        "\"info\": \"no framework here loads libcudnn 9.1.0.70 (conda): torch 2.7.1+cu128 takes \
         libcudnn.so.9 from {}. Only a program that loads this copy in its place meets this: ",
        wheel.display()
    );
    assert!(unused.iter().all(|m| m.starts_with(&opening)), "{unused:?}");
    assert!(
        unused
            .iter()
            .any(|m| m.contains("cuDNN 9.1.0.70 (libcudnn 9.1.0.70) has no kernels for RTX 5090")),
        "{unused:?}"
    );
}
