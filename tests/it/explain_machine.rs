//! `envhook explain` on messages that measure the environment against the
//! machine (#29): the driver ("driver version is insufficient"), the GPU's
//! architecture ("no kernel image"), the driver's own state (NVML). What
//! the environment needs is stated; the driver and GPU here or given are
//! measured; where envhook sees none, it asks for them.

use crate::support;

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

/// On a machine without a driver (a login node, or the machine that
/// printed it: the CUDA runtime reports a driver it cannot load as an
/// insufficient one, as CuPy 14.2 did on this project's machine), the
/// answer states what the environment needs of one, names the missing
/// driver as the cause here, and how to name the driver of a GPU machine
/// that printed it instead, not "none of the known causes" (#29). Given
/// that driver, it measures it.
#[test]
fn driver_insufficient_without_a_driver_states_the_floor_and_asks() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let (json, code) = explain(&sb, &env.prefix, INSUFFICIENT, &[]);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(json["causes"][0]["code"], "no-driver", "{json:#}");
    let a = clue(&json, "machine");
    assert_eq!(
        a["here"][0],
        "the torch 2.7.1+cu128 build needs CUDA 12.8: a driver >= 525.60.13 (every CUDA 12.x)"
    );
    assert_eq!(a["verdict"], "cannot-tell", "{a:#}");
    assert!(
        text(&a["diagnosis"]).contains(
            "no NVIDIA driver here. If this machine printed the message, that is its cause"
        ),
        "{a:#}"
    );
    assert_eq!(
        a["fix"]["choose"]["commands"][0],
        "nvidia-smi --query-gpu=driver_version,name,compute_cap --format=csv"
    );
    let (shown, _) = explain_text(&sb, &env.prefix, INSUFFICIENT, &[]);
    assert!(!shown.contains("none of the known causes"), "{shown}");

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
    let (shown, _) = explain_text(&sb, &env.prefix, msg, &[]);
    assert!(
        shown.ends_with(
            "none of the causes envhook can check here is present; the rest depends on the \
             machine that printed the message (above)\n"
        ),
        "{shown}"
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

/// What the frameworks print where there is no driver, captured on this
/// project's machine (no NVIDIA driver, no GPU) from real PyPI wheels:
/// jax[cuda12] 0.12.0.1, tensorflow[and-cuda] 2.16.1, numba-cuda[cu12]
/// 0.30.4. Each is tied to the missing driver (exit 1) with the query for
/// the GPU machine that printed it instead; given that machine's driver,
/// the missing one here is no longer the cause.
#[test]
fn no_driver_messages_of_jax_tensorflow_and_numba() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    for (msg, title) in [
        (
            "RuntimeError: jaxlib/cuda/versions_helpers.cc:135: operation cuInit(0) failed: \
             Unknown CUDA error 303; cuGetErrorName failed. This probably means that JAX was \
             unable to load the CUDA libraries.",
            "JAX could not load the CUDA driver library",
        ),
        (
            "2026-12-06 02:50:37.342234: I external/local_xla/xla/stream_executor/cuda/\
             cuda_driver.cc:280] failed call to cuInit: UNKNOWN ERROR (303)",
            "TensorFlow could not load the CUDA driver library",
        ),
        (
            "2026-12-06 02:50:37.342250: I external/local_xla/xla/stream_executor/cuda/\
             cuda_diagnostics.cc:121] kernel driver does not appear to be running on this host \
             (vm): /proc/driver/nvidia/version does not exist",
            "TensorFlow found no NVIDIA kernel driver",
        ),
        (
            "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: \n\nCUDA driver \
             library cannot be found.\nEnsure that a compatible NVIDIA driver is installed and \
             available on your system path.\n:",
            "numba found no CUDA driver library",
        ),
        (
            "tensorflow.python.framework.errors_impl.InvalidArgumentError: Could not satisfy \
             device specification '/job:localhost/replica:0/task:0/device:GPU:0'. \
             enable_soft_placement=0. Supported device types [CPU]. All available devices \
             [/job:localhost/replica:0/task:0/device:CPU:0].",
            "TensorFlow has no GPU device",
        ),
    ] {
        let (json, code) = explain(&sb, &env.prefix, msg, &[]);
        assert_eq!(known(&json), [title], "{msg}");
        assert_eq!(code, 1, "{json:#}");
        assert!(
            json["causes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["code"] == "no-driver"),
            "{json:#}"
        );
        let a = clue(&json, "devices");
        assert!(
            text(&a["diagnosis"]).contains("the driver and GPU are unknown"),
            "{a:#}"
        );
        assert_eq!(
            a["fix"]["choose"]["commands"][0],
            "nvidia-smi --query-gpu=driver_version,name,compute_cap --format=csv"
        );
        let (json, code) = explain(&sb, &env.prefix, msg, A100);
        assert_eq!(code, 0, "{msg}: {json:#}");
    }
}

/// cupy-cuda12x names only its CUDA major; CuPy 14.2 printed
/// cudaErrorInsufficientDriver on this project's machine, which has no
/// driver. The floor is CUDA 12's, and the missing driver the cause.
#[test]
fn cupy_insufficient_driver_without_a_driver_is_the_missing_driver() {
    let sb = Sandbox::new();
    let env = cupy_cuda12x(&sb, "envs/cupy");
    let msg = "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA \
               driver version is insufficient for CUDA runtime version";
    let (json, code) = explain(&sb, &env.prefix, msg, &[]);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        clue(&json, "machine")["here"][0],
        "the cupy-cuda12x 14.2.0 build needs CUDA 12: a driver >= 525.60.13 (every CUDA 12.x)"
    );
    assert_eq!(json["causes"][0]["code"], "no-driver", "{json:#}");
}

/// cuda-pathfinder loads a library's dependencies first, so CuPy's
/// cuBLAS fails on libcublasLt, which no object names: the answer names
/// the object that asks for libcublas, and check's fix (the ImportError
/// line CuPy 14.2 re-raises, captured without nvidia wheels).
#[test]
fn pathfinder_failing_on_a_dependency_names_who_asked() {
    let sb = Sandbox::new();
    let env = cupy_cuda12x(&sb, "envs/cupy");
    let msg = "ImportError: Failure finding \"libcublasLt.so.13 or libcublasLt.so.12\": No such \
               file: libcublasLt.so.13 or libcublasLt.so.12, No such file: libcublasLt.so.13 or \
               libcublasLt.so.12";
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        known(&json),
        ["cuda-pathfinder found no copy of a CUDA library"]
    );
    let a = json["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["clue"]["name"] == "libcublasLt.so.12")
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(
        a["asked_by"][0],
        "cublas.cpython-312-x86_64-linux-gnu.so of cupy-cuda12x 14.2.0, built for CUDA 12, \
         through libcublas.so.12: cuda-pathfinder loads libcublasLt first, as libcublas's \
         dependency"
    );
    assert!(
        fix_text(a).contains("-m pip install 'cuda-toolkit[cublas"),
        "{a:#}"
    );
}

/// cupy-cuda12x 14.2.0 as `pip install cupy-cuda12x` leaves it without
/// the nvidia wheels: its cuBLAS module needs libcublas.so.12.
fn cupy_cuda12x(sb: &Sandbox, at: &str) -> support::Env {
    let mut env = support::Env::new(sb.path(at));
    env.python("3.12.1");
    env.pip(support::PipDist::new("cuda-pathfinder", "1.9.1"));
    env.pip(
        support::PipDist::new("cupy-cuda12x", "14.2.0").files(vec![support::FileSpec::File(
            "cupy_backends/cuda/libs/cublas.cpython-312-x86_64-linux-gnu.so",
        )]),
    );
    let scratch = sb.path("scratch/libcublas.so.12");
    support::cc_shared(&scratch, "libcublas.so.12", &[], None, false);
    support::cc_shared(
        &env.site()
            .join("cupy_backends/cuda/libs/cublas.cpython-312-x86_64-linux-gnu.so"),
        "cublas.cpython-312-x86_64-linux-gnu.so",
        &[&scratch],
        None,
        false,
    );
    std::fs::remove_file(&scratch).unwrap();
    env
}

/// TensorFlow's dso_loader on libcuda.so.1, captured with tensorflow
/// 2.16.1 on this project's machine (no driver): the driver's library,
/// never an environment's; with no driver here, the step for a GPU
/// machine that printed it.
#[test]
fn libcuda_not_loaded_without_a_driver_asks_for_the_gpu_machine() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let msg = "2026-12-06 02:50:37.342225: I external/local_tsl/tsl/platform/default/\
               dso_loader.cc:70] Could not load dynamic library 'libcuda.so.1'; dlerror: \
               libcuda.so.1: cannot open shared object file: No such file or directory";
    let (json, code) = explain(&sb, &env.prefix, msg, &[]);
    assert_eq!(code, 1, "{json:#}");
    let a = clue(&json, "library");
    assert!(
        text(&a["diagnosis"]).starts_with("libcuda.so.1 comes with the NVIDIA driver"),
        "{a:#}"
    );
    assert_eq!(
        a["fix"]["choose"]["commands"][0],
        "nvidia-smi --query-gpu=driver_version,name,compute_cap --format=csv"
    );
}

/// triton 2.x's message where the driver's libcuda.so.1 is in the
/// default directory and only the unversioned libcuda.so is missing
/// (unslothai/unsloth#679): the driver is here, the link is what is
/// missing, and triton's own TRITON_LIBCUDA_PATH or the link is the fix,
/// not "this machine has no driver" (#41 item 4a).
#[test]
fn triton_without_the_unversioned_link_is_not_a_missing_driver() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let msg = "AssertionError: libcuda.so cannot found!\nPossible files are located at \
               ['/lib/x86_64-linux-gnu/libcuda.so.1'].Please create a symlink of libcuda.so to \
               any of the file.";
    let dir = sb.path("sysroot/usr/lib/x86_64-linux-gnu");
    support::cc_shared(
        &dir.join("libcuda.so.550.90.07"),
        "libcuda.so.1",
        &[],
        None,
        false,
    );
    std::os::unix::fs::symlink("libcuda.so.550.90.07", dir.join("libcuda.so.1")).unwrap();
    let (json, code) = explain(&sb, &env.prefix, msg, &[]);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(known(&json), ["Triton did not find the driver's libcuda"]);
    let a = clue(&json, "library");
    let diagnosis = text(&a["diagnosis"]);
    assert!(
        diagnosis.starts_with("the driver's libcuda.so.1 is here ("),
        "{a:#}"
    );
    assert!(!diagnosis.contains("has none"), "{a:#}");
    let real = std::fs::canonicalize(&dir).unwrap();
    assert_eq!(
        a["fix"]["choose"]["commands"][0],
        format!("export TRITON_LIBCUDA_PATH='{}'", real.display()),
        "{a:#}"
    );
    assert_eq!(
        a["fix"]["choose"]["commands"][1],
        format!("sudo ln -s libcuda.so.1 '{}/libcuda.so'", real.display()),
        "{a:#}"
    );
    let (shown, _) = explain_text(&sb, &env.prefix, msg, &[]);
    assert!(
        !shown.contains("has none where the loader looks"),
        "{shown}"
    );
}

/// torch's "CUDA unknown error" (pytorch/pytorch c10/cuda/CUDAFunctions.cpp,
/// as the RuntimeError of https://github.com/replicate/cog-svd/issues/11
/// and as a UserWarning of torch/cuda/__init__.py): the machine's state,
/// most often nvidia_uvm after a suspend
/// (https://github.com/pytorch/pytorch/issues/49081), which envhook cannot
/// see: exit 0, with the step that reloads the module.
#[test]
fn torch_cuda_unknown_error_is_the_machines_state() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    for msg in [
        "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, \
         e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the \
         available devices to be zero.",
        // https://github.com/pytorch/pytorch/issues/159954 (torch 2.7.1)
        "/home/krish/miniconda3/envs/ass-test/lib/python3.10/site-packages/torch/cuda/\
         __init__.py:174: UserWarning: CUDA initialization: CUDA unknown error - this may be due \
         to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES \
         after program start. Setting the available devices to be zero. (Triggered internally \
         at /pytorch/c10/cuda/CUDAFunctions.cpp:109.)\n  return torch._C._cuda_getDeviceCount() \
         > 0",
    ] {
        let (json, code) = explain(&sb, &env.prefix, msg, A100);
        assert_eq!(code, 0, "{json:#}");
        assert_eq!(json["verdict"], "not-here", "{json:#}");
        assert_eq!(
            known(&json),
            ["the CUDA driver failed to start for PyTorch, for a reason it does not name"]
        );
        assert_eq!(
            json["known"][0]["fix"]["choose"]["commands"][0],
            "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm"
        );
        let (shown, _) = explain_text(&sb, &env.prefix, msg, A100);
        assert!(
            shown.ends_with(
                "  nothing in this environment causes it: the step above looks outside it\n"
            ),
            "{shown}"
        );
    }
}
