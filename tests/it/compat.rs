//! Issue #28: NVIDIA's compatibility rules as `check` applies them. Binary
//! compatibility on the newest GPUs (the data audit's P1 repros: CUDA 12.8
//! and cuDNN 9.7-9.9 on B300, GB10 and Rubin), architecture-specific code
//! refused elsewhere, and fixes chosen for the GPU they are for. Objects
//! are real ELF; the fatbins were written by NVIDIA's nvcc
//! (tests/fixtures/fatbin/build.sh).

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::explaining::cuda13_with_compat;
use support::{Env, FileSpec, PipDist, Sandbox, check_json, findings_of};

fn errors(json: &Value) -> Vec<&Value> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect()
}

/// torch 2.7.1 cu128 as PyPI's download.pytorch.org wheel leaves it: CUDA
/// 12.8 runtime, cuDNN `cudnn` (torch 2.7 cu128 pins 9.7.1.26), its core
/// object carrying `code` (a fatbin fixture) or none.
fn torch_cu128(prefix: &Path, cudnn: &'static str, code: Option<&str>) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.12.8");
    env.pip(
        PipDist::new("nvidia-cuda-runtime-cu12", "12.8.57").files(vec![FileSpec::File(
            "nvidia/cuda_runtime/lib/libcudart.so.12",
        )]),
    );
    let library = if cudnn.starts_with("8.") {
        "nvidia/cudnn/lib/libcudnn.so.8"
    } else {
        "nvidia/cudnn/lib/libcudnn.so.9"
    };
    env.pip(PipDist::new("nvidia-cudnn-cu12", cudnn).files(vec![FileSpec::File(library)]));
    env.pip(
        PipDist::new("torch", "2.7.1+cu128")
            .files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")])
            .text(
                "torch/version.py",
                "__version__ = '2.7.1+cu128'\ncuda = '12.8'\nhip = None\n",
            ),
    );
    if let Some(fixture) = code {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fatbin");
        std::fs::copy(
            fixtures.join(fixture),
            env.site().join("torch/lib/libtorch_cuda.so"),
        )
        .unwrap();
    }
    env
}

/// The audit's P1 repros: sm_100 and sm_120 cubins run on sm_103 (B300),
/// sm_107 (Rubin, "uses the SM103 instruction set") and sm_121 (GB10), so
/// a CUDA 12.8 runtime and cuDNN 9.7-9.9, which target sm_100 and sm_120,
/// are no error there; neither is a current CUDA 13 stack on Rubin.
#[test]
fn blackwell_and_rubin_run_same_major_code() {
    let sb = Sandbox::new();
    for cudnn in ["9.7.1.26", "9.8.0.87", "9.9.0.52"] {
        let env = torch_cu128(&sb.path(&format!("envs/t{cudnn}")), cudnn, None);
        for gpu in ["B300", "NVIDIA GB10", "sm_107", "B200", "RTX 5090"] {
            let (json, _) = check_json(
                &sb,
                &env.prefix,
                &["--driver-version", "580.65.06", "--gpu", gpu],
            );
            assert!(
                findings_of(&json, "gpu-unsupported").is_empty(),
                "cuDNN {cudnn} on {gpu}: {:#}",
                json["findings"]
            );
            assert!(errors(&json).is_empty(), "{gpu}: {:#}", json["findings"]);
        }
    }
    // Current builds on Rubin: torch 2.15.0 (CUDA 13.2, cuDNN 9.26), the
    // CUDA 13 wheels.
    let mut env = Env::new(sb.path("envs/t215"));
    env.python("3.12.8");
    env.pip(
        PipDist::new("nvidia-cuda-runtime", "13.2.51")
            .files(vec![FileSpec::File("nvidia/cu13/lib/libcudart.so.13")]),
    );
    env.pip(
        PipDist::new("nvidia-cudnn-cu13", "9.26.0.51")
            .files(vec![FileSpec::File("nvidia/cudnn/lib/libcudnn.so.9")]),
    );
    env.pip(
        PipDist::new("torch", "2.15.0")
            .files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")])
            .text(
                "torch/version.py",
                "__version__ = '2.15.0'\ncuda = '13.2'\nhip = None\n",
            ),
    );
    for gpu in ["sm_107", "B300", "GB10"] {
        let (json, _) = check_json(
            &sb,
            &env.prefix,
            &["--driver-version", "595.71.05", "--gpu", gpu],
        );
        assert!(
            findings_of(&json, "gpu-unsupported").is_empty(),
            "{gpu}: {:#}",
            json["findings"]
        );
    }
    // The same with the build's own code read from its fatbin: sm_100f and
    // sm_120 cubins (nvcc 13.5) on the newer members of their families.
    let env = torch_cu128(
        &sb.path("envs/fatbin"),
        "9.8.0.87",
        Some("cu13_variants.so"),
    );
    for gpu in ["B300", "GB10", "sm_107"] {
        let (json, _) = check_json(
            &sb,
            &env.prefix,
            &["--driver-version", "580.65.06", "--gpu", gpu],
        );
        assert!(errors(&json).is_empty(), "{gpu}: {:#}", json["findings"]);
        assert!(findings_of(&json, "gpu-jit").is_empty(), "{gpu}: SASS runs");
    }
}

/// But never across a major, and architecture-specific code runs on its
/// own architecture only: sm_90a cubins are not B200 code.
#[test]
fn arch_specific_code_runs_on_its_own_gpu_only() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/hopper"), "9.8.0.87", Some("sm90a.so"));
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "580.65.06", "--gpu", "H100"],
    );
    assert!(errors(&json).is_empty(), "{:#}", json["findings"]);
    for gpu in ["B200", "B300", "RTX 5090"] {
        let (json, code) = check_json(
            &sb,
            &env.prefix,
            &["--driver-version", "580.65.06", "--gpu", gpu],
        );
        assert_eq!(code, 1, "{gpu}");
        let f = findings_of(&json, "gpu-unsupported");
        assert_eq!(f.len(), 1, "{gpu}: {:#}", json["findings"]);
        let message = f[0]["message"].as_str().unwrap();
        assert!(message.contains("has sm_90a, no PTX"), "{message}");
    }
    // cuDNN 8.9, built for CUDA up to 12.2, has nothing of major 10 or 12.
    let env = torch_cu128(&sb.path("envs/old"), "8.9.7.29", None);
    for gpu in ["B300", "GB10"] {
        let (json, _) = check_json(
            &sb,
            &env.prefix,
            &["--driver-version", "580.65.06", "--gpu", gpu],
        );
        let f = findings_of(&json, "gpu-unsupported");
        assert!(
            f.iter()
                .any(|p| p["message"].as_str().unwrap().starts_with("cuDNN 8.9.7.29")),
            "{gpu}: {:#}",
            json["findings"]
        );
    }
}

/// onnxruntime-gpu 1.20.2 (CUDA 12, cuDNN 9) beside cuDNN 8: the provider
/// needs `libcudnn.so.9`, which is not there.
fn ort_120_beside_cudnn_8(prefix: &Path) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.12.8");
    env.pip(
        PipDist::new("nvidia-cudnn-cu12", "8.9.7.29")
            .files(vec![FileSpec::File("nvidia/cudnn/lib/libcudnn.so.8")]),
    );
    env.pip(
        PipDist::new("onnxruntime-gpu", "1.20.2").files(vec![FileSpec::File(
            "onnxruntime/capi/libonnxruntime_providers_cuda.so",
        )]),
    );
    let site = env.site();
    support::cc_shared(
        &site.join("nvidia/cudnn/lib/libcudnn.so.8"),
        "libcudnn.so.8",
        &[],
        None,
        false,
    );
    let scratch = prefix.parent().unwrap().join("libcudnn.so.9");
    support::cc_shared(&scratch, "libcudnn.so.9", &[], None, false);
    support::cc_shared(
        &site.join("onnxruntime/capi/libonnxruntime_providers_cuda.so"),
        "libonnxruntime_providers_cuda.so",
        &[&scratch],
        Some("$ORIGIN/../../nvidia/cudnn/lib"),
        true,
    );
    std::fs::remove_file(&scratch).unwrap();
    env
}

fn hint_of<'a>(json: &'a Value, code: &str) -> &'a str {
    let f = findings_of(json, code);
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    f[0]["fix"]["command"].as_str().unwrap()
}

/// A fix is for the GPU given: the cuDNN 9 that ONNX Runtime 1.20 needs
/// is any 9.x on an H100, but below 9.11 on a V100 (9.11 dropped Volta);
/// on a B200 from 9.7 on (the first with Blackwell kernels).
#[test]
fn a_cudnn_fix_fits_the_gpu() {
    let sb = Sandbox::new();
    let env = ort_120_beside_cudnn_8(&sb.path("envs/ort"));
    let python = format!("'{}/bin/python' -m pip install", env.prefix.display());
    for (gpu, range) in [
        ("H100", ">=9.0,<10"),
        ("Tesla V100-SXM2-32GB", ">=9.0,<9.11"),
        ("B200", ">=9.7,<10"),
    ] {
        let (json, _) = check_json(
            &sb,
            &env.prefix,
            &["--driver-version", "580.65.06", "--gpu", gpu],
        );
        let hint = hint_of(&json, "library-not-found");
        assert!(
            hint.starts_with(&format!("{python} 'nvidia-cudnn-cu12{range}'")),
            "{gpu}: {hint}"
        );
    }
}

/// A framework built with a CUDA that dropped the GPU (CUDA 13 on Volta):
/// the fix is the newest build the data knows that runs there, as the
/// command that installs it, with a cuDNN that still has its kernels.
#[test]
fn a_build_fix_names_the_build_that_runs_on_the_gpu() {
    let sb = Sandbox::new();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fatbin");
    let mut env = Env::new(sb.path("envs/jax"));
    env.python("3.12.8");
    env.pip(PipDist::new("jax", "0.8.2"));
    env.pip(PipDist::new("jaxlib", "0.8.2"));
    env.pip(PipDist::new("jax-cuda13-plugin", "0.8.2"));
    env.pip(
        PipDist::new("jax-cuda13-pjrt", "0.8.2").files(vec![FileSpec::File(
            "jax_plugins/xla_cuda13/xla_cuda_plugin.so",
        )]),
    );
    std::fs::copy(
        fixtures.join("cu13_variants.so"),
        env.site().join("jax_plugins/xla_cuda13/xla_cuda_plugin.so"),
    )
    .unwrap();
    let (json, code) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "580.65.06", "--gpu", "V100"],
    );
    assert_eq!(code, 1);
    let py = format!("'{}/bin/python' -m pip", env.prefix.display());
    let hint = hint_of(&json, "gpu-unsupported");
    assert_eq!(
        hint,
        format!(
            "{py} uninstall -y 'jax-cuda13-pjrt' 'jax-cuda13-plugin' 'jaxlib' && {py} install \
             'jax[cuda12]>=0.11.2,<=0.12.0.1' 'nvidia-cudnn-cu12<9.11'"
        )
    );
    // The fix is the command alone; the message says which build it is.
    let message = findings_of(&json, "gpu-unsupported")[0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.ends_with(
            "The newest build in envhook's data with code for sm_70 is made with CUDA 12.9."
        ),
        "{message}"
    );

    // torch 2.11 cu130 with torchvision: PyTorch's cu126 index.
    let mut env = torch_cu128(&sb.path("envs/torch"), "9.10.2.21", Some("sm90.so"));
    env.pip(PipDist::new("torchvision", "0.26.0+cu130"));
    let site = env.site();
    std::fs::write(
        site.join("torch/version.py"),
        "__version__ = '2.11.0+cu130'\ncuda = '13.0'\nhip = None\n",
    )
    .unwrap();
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "580.65.06", "--gpu", "V100"],
    );
    let hint = hint_of(&json, "gpu-unsupported");
    assert!(
        hint.ends_with(
            "install 'torch>=2.10,<2.15' 'torchvision' 'nvidia-cudnn-cu12<9.11' --index-url \
             'https://download.pytorch.org/whl/cu126'"
        ),
        "{hint}"
    );
    assert!(
        hint.contains("uninstall -y 'torch' 'torchvision' && "),
        "{hint}"
    );
}

fn check_with(sb: &Sandbox, prefix: &Path, extra: &[&str], vars: &[(&str, String)]) -> Value {
    let mut cmd = sb.envhook();
    cmd.args(["check", "--json"])
        .args(extra)
        .arg("-p")
        .arg(prefix);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// CUDA forward compatibility (NVIDIA, "CUDA Compatibility"): an R535
/// driver runs CUDA 13 through the cuda-compat libcuda, on a data-centre
/// GPU, when the process loads that libcuda; not on a GeForce card.
#[test]
fn forward_compatibility_runs_a_newer_cuda_on_a_data_centre_gpu() {
    let sb = Sandbox::new();
    let r535 = |gpu: &'static str| ["--driver-version", "535.104.05", "--gpu", gpu];
    let plain = cuda13_with_compat(&sb.path("envs/plain"), false);
    let json = check_with(&sb, &plain.prefix, &r535("H100"), &[]);
    assert!(
        !findings_of(&json, "driver-too-old").is_empty(),
        "{:#}",
        json["findings"]
    );

    let env = cuda13_with_compat(&sb.path("envs/compat"), true);
    let dir = env.prefix.join("cuda-compat");
    // Present, not loaded: still an error, which says what would help.
    let json = check_with(&sb, &env.prefix, &r535("H100"), &[]);
    let too_old = findings_of(&json, "driver-too-old");
    assert!(!too_old.is_empty(), "{:#}", json["findings"]);
    let message = too_old[0]["message"].as_str().unwrap();
    assert!(
        message.contains("forward-compatibility libcuda 580.65.06"),
        "{message}"
    );
    assert!(
        message.contains("nothing makes the process load it"),
        "{message}"
    );
    let hint = too_old[0]["fix"]["choose"]["advice"].as_str().unwrap();
    assert!(
        hint.starts_with(&format!("put {} first on LD_LIBRARY_PATH", dir.display())),
        "{hint}"
    );
    assert_eq!(
        too_old[0]["fix"]["choose"]["commands"][0],
        format!(
            "export LD_LIBRARY_PATH='{}'${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}",
            dir.display()
        )
    );

    // Loaded: a note on a data-centre GPU, no error.
    let ld = [("LD_LIBRARY_PATH", dir.display().to_string())];
    let json = check_with(&sb, &env.prefix, &r535("H100"), &ld);
    assert!(
        findings_of(&json, "driver-too-old").is_empty(),
        "{:#}",
        json["findings"]
    );
    let note = findings_of(&json, "forward-compat");
    assert!(!note.is_empty(), "{:#}", json["findings"]);
    assert_eq!(note[0]["severity"], "info");
    assert!(
        note[0]["message"]
            .as_str()
            .unwrap()
            .contains("through LD_LIBRARY_PATH")
    );
    // A GPU known only by its architecture: a warning that it must be a
    // data-centre one.
    let json = check_with(&sb, &env.prefix, &r535("sm_90"), &ld);
    assert_eq!(
        findings_of(&json, "forward-compat")[0]["severity"],
        "warning"
    );
    // A GeForce card: forward compatibility does not apply.
    let json = check_with(&sb, &env.prefix, &r535("RTX 4090"), &ld);
    let too_old = findings_of(&json, "driver-too-old");
    assert!(!too_old.is_empty(), "{:#}", json["findings"]);
    assert!(
        too_old[0]["message"]
            .as_str()
            .unwrap()
            .contains("forward compatibility is for data-centre GPUs"),
        "{:#}",
        too_old[0]
    );

    // The system's, as NGC images have it, found under the sysroot.
    let system = sb.path("sysroot/usr/local/cuda-13.0/compat");
    std::fs::create_dir_all(&system).unwrap();
    support::cc_shared(
        &system.join("libcuda.so.580.65.06"),
        "libcuda.so.1",
        &[],
        None,
        false,
    );
    let ld = [("LD_LIBRARY_PATH", system.display().to_string())];
    let json = check_with(&sb, &plain.prefix, &r535("A100"), &ld);
    assert!(
        findings_of(&json, "driver-too-old").is_empty(),
        "{:#}",
        json["findings"]
    );
    assert_eq!(
        findings_of(&json, "forward-compat").len(),
        1,
        "{:#}",
        json["findings"]
    );
}

/// NVIDIA's known-bad versions, which JAX checks at start-up (P11): cuBLAS
/// 12.8-13.1 on sm_100-sm_11x, cuDNN 9.10.0 beside a build made with
/// another cuDNN, cuDNN < 9.10.1 with cuBLASLt >= 12.9 on several GPUs.
#[test]
fn known_bad_versions_are_named() {
    let sb = Sandbox::new();
    let mut env = torch_cu128(&sb.path("envs/torch"), "9.8.0.87", None);
    env.pip(
        PipDist::new("nvidia-cublas-cu12", "12.8.4.1")
            .files(vec![FileSpec::File("nvidia/cublas/lib/libcublas.so.12")]),
    );
    let bad = |gpu: &'static str| {
        let (json, _) = check_json(
            &sb,
            &env.prefix,
            &["--driver-version", "580.65.06", "--gpu", gpu],
        );
        findings_of(&json, "known-bad-version")
            .iter()
            .map(|p| p["message"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    for gpu in ["B200", "B300"] {
        let found = bad(gpu);
        assert_eq!(found.len(), 1, "{gpu}: {found:?}");
        assert!(found[0].starts_with("cuBLAS 12.8.4.1"), "{found:?}");
    }
    for gpu in ["H100", "RTX 5090", "GB10"] {
        assert!(bad(gpu).is_empty(), "{gpu}");
    }

    // cuDNN 9.10.0 beside torch 2.7, built with cuDNN 9.7.
    let env = torch_cu128(&sb.path("envs/cudnn"), "9.10.0.56", None);
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "580.65.06", "--gpu", "H100"],
    );
    let f = findings_of(&json, "known-bad-version");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    assert_eq!(f[0]["severity"], "warning");
    assert_eq!(
        f[0]["fix"]["command"],
        format!(
            "'{}/bin/python' -m pip install 'nvidia-cudnn-cu12>=9.10.1,<10'",
            env.prefix.display()
        )
    );
    // On a V100 the fix stays below 9.11.
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "580.65.06", "--gpu", "V100"],
    );
    assert!(
        findings_of(&json, "known-bad-version")[0]["fix"]["command"]
            .as_str()
            .unwrap()
            .ends_with("'nvidia-cudnn-cu12>=9.10.1,<9.11'"),
        "{:#}",
        json["findings"]
    );

    // JAX with cuDNN 9.8 and cuBLAS 12.9 on two GPUs: JAX refuses to start.
    let mut env = Env::new(sb.path("envs/jax"));
    env.python("3.12.8");
    env.pip(PipDist::new("jax-cuda12-plugin", "0.7.1"));
    env.pip(
        PipDist::new("nvidia-cudnn-cu12", "9.8.0.87")
            .files(vec![FileSpec::File("nvidia/cudnn/lib/libcudnn.so.9")]),
    );
    env.pip(
        PipDist::new("nvidia-cublas-cu12", "12.9.1.4")
            .files(vec![FileSpec::File("nvidia/cublas/lib/libcublas.so.12")]),
    );
    let smi = sb.path("bin/nvidia-smi");
    std::fs::write(
        &smi,
        "#!/bin/sh\necho '575.57.08, NVIDIA H100 80GB HBM3, 9.0'\necho '575.57.08, NVIDIA H100 80GB HBM3, 9.0'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&smi, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (json, _) = check_json(&sb, &env.prefix, &[]);
    let f = findings_of(&json, "known-bad-version");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    assert_eq!(f[0]["severity"], "error");
    assert!(
        f[0]["message"]
            .as_str()
            .unwrap()
            .contains("JAX refuses to start")
    );
    // One GPU: not this bug.
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "575.57.08", "--gpu", "H100"],
    );
    assert!(findings_of(&json, "known-bad-version").is_empty());
}
