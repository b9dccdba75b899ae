//! Issue #27: the loader as it really runs. Each test is one class of
//! wrong verdict a real GPU machine or a real PyPI environment showed,
//! under the condition that showed it: a requirement under an extra the
//! environment was not installed with, libraries loaded by path (CuPy and
//! numba-cuda through cuda-pathfinder), the object whose code calls dlopen
//! (TensorFlow 2.16), the dependencies of a library loaded by path under
//! an inherited LD_LIBRARY_PATH, symbols a provider lacks, a library of
//! another CUDA major under the same soname, and a framework that falls
//! back to the CPU. Objects are real ELF built with `cc`.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{Env, FileSpec, PipDist, Sandbox};

/// The machine the checks are made for (no GPU is needed to run them).
const MACHINE: &[&str] = &["--driver-version", "580.65.06", "--gpu", "H100"];

fn check(sb: &Sandbox, prefix: &Path, extra: &[&str]) -> (Value, i32) {
    let mut args = vec!["check", "--json"];
    args.extend_from_slice(MACHINE);
    args.extend_from_slice(extra);
    let (code, out, err) = sb.run_on(&args, prefix);
    let json = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (json, code)
}

/// The findings that are not `info`, as `severity code: message`.
fn loud(json: &Value) -> Vec<String> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] != "info")
        .map(|f| {
            format!(
                "{} {}: {}",
                f["severity"].as_str().unwrap(),
                f["code"].as_str().unwrap(),
                f["message"].as_str().unwrap()
            )
        })
        .collect()
}

/// A pip wheel that installs real libraries (each built by `cc` with its
/// file name as soname) at `rels` under site-packages.
fn wheel(env: &mut Env, dist: &'static str, version: &'static str, rels: &[&'static str]) {
    env.pip(PipDist::new(dist, version).files(rels.iter().map(|r| FileSpec::File(r)).collect()));
    for rel in rels {
        let path = env.site().join(rel);
        let soname = path.file_name().unwrap().to_str().unwrap().to_string();
        support::cc_shared(&path, &soname, &[], None, false);
    }
}

/// The CUDA 13 wheels a `pip install 'numba-cuda[cu13]'` or
/// `cupy-cuda13x[ctk]` brings (PyPI, December 2026): the suffix-less
/// toolkit wheels share `nvidia/cu13/lib`.
fn cuda13_wheels(env: &mut Env) {
    wheel(
        env,
        "nvidia-cuda-runtime",
        "13.0.96",
        &["nvidia/cu13/lib/libcudart.so.13"],
    );
    wheel(
        env,
        "nvidia-cuda-nvrtc",
        "13.0.88",
        &["nvidia/cu13/lib/libnvrtc.so.13"],
    );
    wheel(
        env,
        "nvidia-nvvm",
        "13.0.88",
        &["nvidia/cu13/lib/libnvvm.so.4"],
    );
    wheel(
        env,
        "nvidia-nvjitlink",
        "13.0.88",
        &["nvidia/cu13/lib/libnvJitLink.so.13"],
    );
    env.pip(PipDist::new("cuda-toolkit", "13.0.2"));
    env.pip(PipDist::new("cuda-bindings", "13.5.0"));
    env.pip(PipDist::new("cuda-pathfinder", "1.9.1"));
}

/// numba-cuda 0.30.4's Requires-Dist (PyPI METADATA).
const NUMBA_CUDA_REQUIRES: &[&str] = &[
    "numba>=0.60.0",
    "cuda-bindings<14.0.0,>=12.9.1",
    "cuda-core<2.0.0,>=0.5.1",
    "cuda-pathfinder<2.0.0,>=1.4.0",
    "packaging",
    "cuda-bindings<13.0.0,>=12.9.1; extra == \"cu12\"",
    "cuda-toolkit[cccl,cudart,nvcc,nvrtc]==12.*; extra == \"cu12\"",
    "nvidia-nvjitlink-cu12<13.0.0,>=12.3.0; extra == \"cu12\"",
    "cuda-bindings==13.*; extra == \"cu13\"",
    "cuda-toolkit[cccl,cudart,nvrtc,nvvm]==13.*; extra == \"cu13\"",
    "nvidia-nvjitlink<14.0.0,>=13.0.0; extra == \"cu13\"",
];

/// `pip install 'numba-cuda[cu13]'`: the `cu12` extra's pins (CUDA 12's
/// toolkit) are not the user's, and never a finding. On the H200 they
/// were a false `cuda-mismatch` and a false `pin-broken`.
#[test]
fn an_extra_the_environment_was_not_installed_with_is_not_held() {
    let sb = Sandbox::new();
    let prefix = sb.path("envs/numba");
    let mut env = Env::new(&prefix);
    env.python("3.12.4");
    cuda13_wheels(&mut env);
    env.pip(PipDist::new("cuda-core", "1.2.2"));
    env.pip(PipDist::new("numba", "0.68.1"));
    env.pip(PipDist::new("packaging", "26.4"));
    let dispatcher = "numba_cuda/numba/cuda/cext/_dispatcher.cpython-312-x86_64-linux-gnu.so";
    env.pip(
        PipDist::new("numba-cuda", "0.30.4")
            .requires(NUMBA_CUDA_REQUIRES.to_vec())
            .files(vec![FileSpec::File(dispatcher)]),
    );
    support::cc_shared(
        &env.site().join(dispatcher),
        "_dispatcher.so",
        &[],
        None,
        false,
    );
    let (json, code) = check(&sb, &prefix, &[]);
    assert_eq!(loud(&json), Vec::<String>::new(), "{:#}", json["findings"]);
    let numba = json["frameworks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["package"] == "numba-cuda")
        .unwrap();
    let pins: Vec<(&str, &str)> = numba["pins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["requirement"].as_str().unwrap(),
                p["extra"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pins,
        [
            ("cuda-toolkit[cccl,cudart,nvrtc,nvvm]==13.*", "cu13"),
            ("nvidia-nvjitlink>=13.0.0, <14.0.0", "cu13"),
        ]
    );
    assert_eq!(code, 0);
    // The toolkit downgraded by hand (`pip install cuda-toolkit==12.9.1`):
    // `cu13` no longer holds wholly and `cu12` is not there (its
    // nvJitLink wheel is missing), so `cu13` is still the user's extra, and
    // now broken.
    std::fs::remove_dir_all(env.site().join("cuda_toolkit-13.0.2.dist-info")).unwrap();
    env.pip(PipDist::new("cuda-toolkit", "12.9.1"));
    let (json, code) = check(&sb, &prefix, &[]);
    let loud = loud(&json);
    assert_eq!(loud.len(), 1, "{loud:#?}");
    assert!(
        loud[0].starts_with("error pin-broken: numba-cuda 0.30.4 requires cuda-toolkit[cccl,cudart,nvrtc,nvvm]==13.*"),
        "{loud:#?}"
    );
    assert_eq!(code, 1);
}
