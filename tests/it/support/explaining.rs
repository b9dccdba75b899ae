//! What the explain tests share: `envhook explain --json` and readers of
//! its document, and the pip environments the message families are
//! explained against.

use std::path::Path;

use serde_json::Value;

use super::{Env, FileSpec, PipDist, Sandbox};

pub const A100: &[&str] = &["--driver-version", "535.104.05", "--gpu", "A100"];

/// `envhook explain MESSAGE --json ... -p PREFIX` with `vars` set: the
/// document and the exit code.
pub fn explain_with(
    sb: &Sandbox,
    prefix: &Path,
    message: &str,
    extra: &[&str],
    vars: &[(&str, &str)],
) -> (Value, i32) {
    let mut cmd = sb.envhook();
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd
        .args(["explain", "--json"])
        .arg(message)
        .args(extra)
        .arg("-p")
        .arg(prefix)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["schema"], "envhook.explain/2");
    (json, out.status.code().unwrap())
}

pub fn explain(sb: &Sandbox, prefix: &Path, message: &str, extra: &[&str]) -> (Value, i32) {
    explain_with(sb, prefix, message, extra, &[])
}

/// The same, for a person.
pub fn explain_text(sb: &Sandbox, prefix: &Path, message: &str, extra: &[&str]) -> (String, i32) {
    let out = sb
        .envhook()
        .arg("explain")
        .arg(message)
        .args(extra)
        .arg("-p")
        .arg(prefix)
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

/// The answer about the clue of `kind`.
pub fn clue<'a>(json: &'a Value, kind: &str) -> &'a Value {
    json["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["clue"]["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} answer: {json:#}"))
}

pub fn known(json: &Value) -> Vec<&str> {
    json["known"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["title"].as_str().unwrap())
        .collect()
}

pub fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

/// A fix's command, or (where no one command does it) its advice.
pub fn fix_text(a: &Value) -> &str {
    let fix = &a["fix"];
    fix["command"]
        .as_str()
        .or(fix["choose"]["advice"].as_str())
        .unwrap_or_else(|| panic!("no fix: {a:#}"))
}

/// A torch wheel of `version`, built for `cuda` as its version.py says.
fn torch(env: &mut Env, version: &'static str, cuda: &str) {
    let version_py = format!(
        "__version__ = '{version}'\ncuda: Optional[str] = '{cuda}'\nhip: Optional[str] = None\n"
    );
    env.pip(
        PipDist::new("torch", version)
            .files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")])
            .text("torch/version.py", version_py),
    );
}

/// torch 2.7.1+cu128 from the PyTorch index with its cuBLAS wheel and none
/// of its others (no cuDNN, no NCCL: the explain tests rely on that).
pub fn torch_cu128(prefix: &Path) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.12.8");
    env.pip(
        PipDist::new("nvidia-cublas-cu12", "12.8.3.14")
            .files(vec![FileSpec::File("nvidia/cublas/lib/libcublas.so.12")]),
    );
    torch(&mut env, "2.7.1+cu128", "12.8");
    env
}

/// jaxlib 0.4.25 built for CUDA 11.8 and cuDNN 8.6, over `cudnn` (the
/// nvidia-cudnn-cu11 version), or no cuDNN.
pub fn jax_cuda11(prefix: &Path, cudnn: Option<&'static str>) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.11.9");
    if let Some(v) = cudnn {
        env.pip(
            PipDist::new("nvidia-cudnn-cu11", v)
                .files(vec![FileSpec::File("nvidia/cudnn/lib/libcudnn.so.8")]),
        );
    }
    env.pip(
        PipDist::new("jaxlib", "0.4.25+cuda11.cudnn86")
            .files(vec![FileSpec::File("jaxlib/xla_extension.so")]),
    );
    env
}

/// jax 0.4.23 with the monolithic jaxlib 0.4.23+cuda12.cudnn89 (its
/// `jaxlib/cuda/_versions` module, which JAX's start-up check reads) and
/// the CUDA 12 runtime wheel of `runtime`.
pub fn jax_monolithic_cuda12(prefix: &Path, runtime: &'static str) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.11.7");
    env.pip(PipDist::new("jax", "0.4.23"));
    env.pip(PipDist::new("jaxlib", "0.4.23+cuda12.cudnn89").files(vec![
        FileSpec::File("jaxlib/xla_extension.so"),
        FileSpec::File("jaxlib/cuda/_versions.so"),
    ]));
    let rel = "nvidia/cuda_runtime/lib/libcudart.so.12";
    env.pip(PipDist::new("nvidia-cuda-runtime-cu12", runtime).files(vec![FileSpec::File(rel)]));
    super::cc_shared(&env.site().join(rel), "libcudart.so.12", &[], None, false);
    env
}

/// A CUDA 13.0 build (torch 2.10 cu130) with its runtime wheel, and
/// NVIDIA's forward-compatibility libcuda 580.65.06 (CUDA 13.0) where
/// conda's cuda-compat-impl puts it: `$PREFIX/cuda-compat`.
pub fn cuda13_with_compat(prefix: &Path, compat: bool) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.12.8");
    env.pip(
        PipDist::new("nvidia-cuda-runtime", "13.0.96")
            .files(vec![FileSpec::File("nvidia/cu13/lib/libcudart.so.13")]),
    );
    torch(&mut env, "2.10.0+cu130", "13.0");
    if compat {
        let dir = prefix.join("cuda-compat");
        std::fs::create_dir_all(&dir).unwrap();
        super::cc_shared(
            &dir.join("libcuda.so.580.65.06"),
            "libcuda.so.1",
            &[],
            None,
            false,
        );
        std::os::unix::fs::symlink("libcuda.so.580.65.06", dir.join("libcuda.so.1")).unwrap();
    }
    env
}
