//! `envhook explain` on messages that measure the environment against the
//! machine (#29): the driver ("driver version is insufficient"), the GPU's
//! architecture ("no kernel image"), the driver's own state (NVML). What
//! the environment needs is stated; the driver and GPU here or given are
//! measured; where envhook sees none, it asks for them.

mod support;

use std::path::Path;

use support::Sandbox;
use support::explaining::{
    A100, clue, cuda13_with_compat, explain, explain_text, explain_with, fix_text, known, text,
    torch_cu128,
};

/// The CUDA runtime's text for cudaErrorInsufficientDriver, as torch
/// prints it (c10/cuda/CUDAException.h, C10_CUDA_CHECK).
const INSUFFICIENT: &str =
    "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version";

/// On a machine without a driver (a login node), the answer states what
/// the environment needs of one, and how to name the driver that printed
/// the message, not "none of the known causes" (#29). Given that driver,
/// it measures it.
#[test]
fn driver_insufficient_without_a_driver_states_the_floor_and_asks() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let (json, code) = explain(&sb, &env.prefix, INSUFFICIENT, &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_ne!(json["verdict"], "not-here", "{json:#}");
    let a = clue(&json, "machine");
    assert_eq!(
        a["here"][0],
        "torch 2.7.1+cu128 (built for CUDA) needs CUDA 12.8: a driver >= 525.60.13 (every CUDA 12.x)"
    );
    assert_eq!(a["verdict"], "cannot-tell", "{a:#}");
    assert!(text(&a["diagnosis"]).contains("no NVIDIA driver here"));
    assert_eq!(
        a["fix"]["choose"]["commands"][0],
        "nvidia-smi --query-gpu=driver_version,name,compute_cap --format=csv"
    );
    let (shown, _) = explain_text(&sb, &env.prefix, INSUFFICIENT, &[]);
    assert!(!shown.contains("none of the known causes"), "{shown}");
    assert!(
        shown.contains("the rest depends on the machine that printed the message"),
        "{shown}"
    );

    // The driver of the machine that printed it, as nvidia-smi names it.
    let (json, code) = explain(
        &sb,
        &env.prefix,
        INSUFFICIENT,
        &["--driver-version", "470.82.01", "--gpu", "A100"],
    );
    assert_eq!(code, 1, "{json:#}");
    assert!(
        text(&clue(&json, "machine")["diagnosis"])
            .contains("the driver here (470.82.01) falls short")
    );
    assert_eq!(json["causes"][0]["code"], "driver-too-old", "{json:#}");
    // One that meets it: the message came from elsewhere.
    let (json, code) = explain(&sb, &env.prefix, INSUFFICIENT, A100);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["verdict"], "not-here", "{json:#}");
    assert!(
        text(&clue(&json, "machine")["diagnosis"])
            .starts_with("the driver here (535.104.05) meets every one of them"),
        "{json:#}"
    );
}

/// "no kernel image" against the architectures the build's own fatbin
/// carries (a real one, built by nvcc: tests/fixtures/fatbin): unknown
/// without a GPU, named with one.
#[test]
fn no_kernel_image_lists_the_code_the_build_carries() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fatbin/sm70_sm80.so");
    std::fs::copy(fixture, env.site().join("torch/lib/libtorch_cuda.so")).unwrap();
    // cudaGetErrorString(cudaErrorNoKernelImageForDevice), as torch's
    // C10_CUDA_CHECK prints it.
    let msg = "RuntimeError: CUDA error: no kernel image is available for execution on the device";
    let (json, code) = explain(&sb, &env.prefix, msg, &[]);
    assert_eq!(code, 0, "{json:#}");
    let a = clue(&json, "machine");
    assert_eq!(
        a["here"][0],
        "torch 2.7.1+cu128: has sm_70 sm_80, no PTX (its CUDA objects)"
    );
    assert_eq!(a["verdict"], "cannot-tell", "{a:#}");
    assert!(text(&a["diagnosis"]).contains("no GPU whose compute capability it knows"));
    assert!(
        fix_text(a).contains("--driver-version VERSION --gpu NAME"),
        "{a:#}"
    );

    let (json, code) = explain(
        &sb,
        &env.prefix,
        msg,
        &["--driver-version", "570.86.15", "--gpu", "H100"],
    );
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        clue(&json, "machine")["diagnosis"],
        "a build here has no code that runs on H100 (sm_90), below"
    );
    assert_eq!(json["causes"][0]["code"], "gpu-unsupported", "{json:#}");
    let (json, code) = explain(
        &sb,
        &env.prefix,
        msg,
        &["--driver-version", "570.86.15", "--gpu", "A100"],
    );
    assert_eq!(code, 0, "{json:#}");
    assert!(
        text(&clue(&json, "machine")["diagnosis"])
            .starts_with("every build here has code for A100 (sm_80)"),
        "{json:#}"
    );
}

/// nvidia-smi after a driver upgrade without a reboot: the specific NVML
/// row decides, with the step that compares module and libraries, and the
/// answer says the cause is outside the environment.
#[test]
fn nvml_mismatch_is_the_specific_row_with_its_step() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    // nvidia-smi's output (NVML_ERROR_LIB_RM_VERSION_MISMATCH's string).
    let msg = "Failed to initialize NVML: Driver/library version mismatch
NVML library version: 570.133";
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        known(&json),
        ["the driver's kernel module and its libraries are of different versions"]
    );
    assert_eq!(
        json["known"][0]["fix"]["choose"]["commands"][0],
        "cat /proc/driver/nvidia/version"
    );
    let (shown, _) = explain_text(&sb, &env.prefix, msg, A100);
    assert!(
        shown.ends_with(
            "  nothing in this environment causes it: the step above looks outside it
"
        ),
        "{shown}"
    );
}

/// cudaGetErrorString(cudaErrorCompatNotSupportedOnDevice), CUDA runtime
/// API reference: the cuda-compat libcuda loaded on a GeForce card. check
/// names it (forward compatibility is for data-centre GPUs) and explain
/// ties the message to that finding; on a data-centre GPU the same
/// environment runs, and the message came from elsewhere.
#[test]
fn forward_compatibility_on_a_geforce_card_is_checks_finding() {
    let sb = Sandbox::new();
    let env = cuda13_with_compat(&sb.path("envs/compat"), true);
    let ld = env.prefix.join("cuda-compat").display().to_string();
    let vars = [("LD_LIBRARY_PATH", ld.as_str())];
    let msg = "RuntimeError: CUDA error: forward compatibility was attempted on non supported HW";
    let r535 = |gpu: &'static str| ["--driver-version", "535.104.05", "--gpu", gpu];
    let (json, code) = explain_with(&sb, &env.prefix, msg, &r535("RTX 4090"), &vars);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        known(&json),
        ["a CUDA forward-compatibility libcuda on a GPU that does not support it"]
    );
    assert_eq!(json["causes"][0]["code"], "driver-too-old", "{json:#}");
    assert!(
        text(&json["causes"][0]["message"])
            .contains("forward compatibility is for data-centre GPUs"),
        "{json:#}"
    );
    let (json, code) = explain_with(&sb, &env.prefix, msg, &r535("H100"), &vars);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["verdict"], "not-here", "{json:#}");
}

/// CUresult CUDA_ERROR_UNKNOWN (999), as TensorFlow's and XLA's
/// stream_executor/cuda/cuda_driver.cc log cuInit's failure ("failed call
/// to cuInit: " << ToString(res)): a libcuda stub first on the library path
/// is a cause check finds; with none, the answer is the step that reads
/// the driver's state, and says the cause is outside the environment.
#[test]
fn cuda_error_unknown_names_a_stub_else_the_drivers_log() {
    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("env"));
    let msg = "E0000 00:00:1719.62 12 cuda_driver.cc:268] failed call to cuInit: \
               CUDA_ERROR_UNKNOWN: unknown error";
    let stubs = format!("{}:/usr/lib", env.path("lib/stubs").display());
    let (json, code) = explain_with(&sb, &env.prefix, msg, A100, &[("LD_LIBRARY_PATH", &stubs)]);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        known(&json),
        ["the CUDA driver failed for a reason it does not name"]
    );
    assert_eq!(json["causes"][0]["code"], "stub-on-path", "{json:#}");

    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        json["known"][0]["fix"]["choose"]["commands"],
        serde_json::json!(["nvidia-smi", "sudo dmesg | grep -i -e nvrm -e xid"])
    );
    let (shown, _) = explain_text(&sb, &env.prefix, msg, A100);
    assert!(
        shown.ends_with(
            "  nothing in this environment causes it: the step above looks outside it\n"
        ),
        "{shown}"
    );
}
