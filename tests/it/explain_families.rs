//! `envhook explain` on the messages the frameworks print (#29): one test
//! per family, with the message as the framework's source writes it (the
//! comment names the file), against fixture environments with real ELF
//! built by `cc`. The verdict is the exit code: 1 when the cause is in
//! the environment, 0 when it is not or cannot be told.

use crate::support;

use std::path::Path;

use support::Sandbox;
use support::explaining::{
    A100, clue, explain, explain_text, explain_with, fix_text, jax_cuda11, jax_monolithic_cuda12,
    known, text, torch_cu128,
};
use support::paddle::{cudnn8, paddle_env};

// ------------------------------------------------------------- versions ----

/// pytorch/pytorch c10/cuda/CUDAFunctions.cpp, device_count_impl.
#[test]
fn torch_driver_too_old_decodes_the_driver_api_version() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let msg = "RuntimeError: The NVIDIA driver on your system is too old (found version 12020). \
               Please update your GPU driver by downloading and installing a new version from the \
               URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: \
               https://pytorch.org to install a PyTorch version that has been compiled with your \
               version of the CUDA driver.";
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    let a = clue(&json, "version");
    assert_eq!(a["clue"]["component"], "driver");
    assert_eq!(a["clue"]["found"], "12.2");
    assert_eq!(a["verdict"], "cause");
    let diagnosis = text(&a["diagnosis"]);
    assert!(
        diagnosis.contains("supports CUDA 12.2 at most"),
        "{diagnosis}"
    );
    assert!(
        diagnosis.contains("torch 2.7.1+cu128 is built for CUDA 12.8"),
        "{diagnosis}"
    );
    assert_eq!(
        a["fix"]["choose"]["advice"],
        "upgrade the NVIDIA driver, or use a build made with CUDA 12.2 or older"
    );
    assert_eq!(json["known"][0]["framework"], "PyTorch");
}

/// jax-ml/jax jax/_src/xla_bridge.py at 9404518201 (jaxlib 0.4.17-0.4.25).
#[test]
fn jax_found_cudnn_version_is_decoded_and_compared() {
    let sb = Sandbox::new();
    let msg = "CUDA backend failed to initialize: Found cuDNN version 8500, but JAX was built \
               against version 8600, which is newer. The copy of cuDNN that is installed must be \
               at least as new as the version against which JAX was built. (Set \
               TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)";
    let old = jax_cuda11(&sb.path("envs/old"), Some("8.5.0.96"));
    let (json, code) = explain(&sb, &old.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    let a = clue(&json, "version");
    assert_eq!(a["clue"]["found"], "8.5.0");
    assert_eq!(a["clue"]["built"], "8.6.0");
    assert_eq!(a["verdict"], "cause", "{a:#}");
    assert!(
        text(&a["diagnosis"]).contains("This environment's cuDNN is 8.5.0.96"),
        "{a:#}"
    );
    let fix = fix_text(a);
    assert!(fix.contains("cudnn") && fix.contains(">=8.6"), "{fix}");

    // New enough here: the process loaded another copy.
    let good = jax_cuda11(&sb.path("envs/good"), Some("8.9.6.50"));
    let (json, code) = explain(&sb, &good.prefix, msg, A100);
    let a = clue(&json, "version");
    assert_eq!(a["verdict"], "not-here", "{a:#}");
    assert!(
        text(&a["diagnosis"]).contains("so the process loaded another copy"),
        "{a:#}"
    );
    assert_eq!(code, 0, "{json:#}");
}

/// jax-ml/jax jax/_src/xla_bridge.py `_check_cuda_versions` at jax-v0.4.23:
/// the build's own start-up check refuses the environment's CUDA runtime,
/// and explain says what check says, with check's fix (#39).
#[test]
fn jax_found_cuda_version_is_checks_refusal_with_checks_fix() {
    let sb = Sandbox::new();
    let msg = "RuntimeError: Found CUDA version 12010, but JAX was built against version 12020, \
               which is newer. The copy of CUDA that is installed must be at least as new as the \
               version against which JAX was built.";
    let env = jax_monolithic_cuda12(&sb.path("envs/old"), "12.1.105");
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    let a = clue(&json, "version");
    assert_eq!(
        (a["clue"]["component"].as_str(), a["clue"]["found"].as_str()),
        (Some("cudart"), Some("12.1"))
    );
    assert_eq!(a["verdict"], "cause", "{a:#}");
    assert!(
        text(&a["diagnosis"]).contains("which jax 0.4.23 refuses when its CUDA backend starts"),
        "{a:#}"
    );
    let (_, out, _) = sb.run_on(&[&["check", "--json"][..], A100].concat(), &env.prefix);
    let check: serde_json::Value = serde_json::from_str(&out).unwrap();
    let refused = check["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "refused-at-start")
        .unwrap_or_else(|| panic!("{:#}", check["findings"]));
    assert_eq!(a["fix"], refused["fix"]);
    assert_eq!(
        fix_text(a),
        format!(
            "'{}/bin/python' -m pip install 'nvidia-cuda-runtime-cu12==12.2.*'",
            env.prefix.display()
        )
    );
    // Past the build's CUDA, the process loaded another copy.
    let new = jax_monolithic_cuda12(&sb.path("envs/new"), "12.2.140");
    let (json, code) = explain(&sb, &new.prefix, msg, A100);
    assert_eq!(clue(&json, "version")["verdict"], "not-here", "{json:#}");
    assert_eq!(code, 0, "{json:#}");
}

/// openxla/xla xla/stream_executor/cuda/cuda_dnn.cc, CudnnSupport::Init;
/// and jax_plugins/cuda/__init__.py's later "Outdated" wording.
#[test]
fn xla_and_jax_outdated_cudnn_forms() {
    let sb = Sandbox::new();
    let env = jax_cuda11(&sb.path("envs/old"), Some("8.5.0.96"));
    for (msg, found, built) in [
        (
            "E0508 03:34:06.237713 14701 cuda_dnn.cc:522] Loaded runtime CuDNN library: 8.5.0 but \
             source was compiled with: 8.6.0.  CuDNN library needs to have matching major version \
             and equal or higher minor version.",
            "8.5.0",
            "8.6.0",
        ),
        (
            "RuntimeError: Outdated cuDNN installation found.\nVersion JAX was built against: 8600\n\
             Minimum supported: 86\nInstalled version: 8500\nThe local installation version must \
             be no lower than 86.",
            "8.5.0",
            "8.6.0",
        ),
    ] {
        let (json, code) = explain(&sb, &env.prefix, msg, A100);
        assert_eq!(code, 1, "{json:#}");
        let a = clue(&json, "version");
        assert_eq!(
            (a["clue"]["found"].as_str(), a["clue"]["built"].as_str()),
            (Some(found), Some(built))
        );
        assert_eq!(a["verdict"], "cause");
    }
}

// -------------------------------------------------------------- libraries ----

/// jax-ml/jax jax_plugins/cuda/__init__.py, _check_cuda_versions.
#[test]
fn jax_unable_to_load_cudnn_names_the_framework_that_needs_it() {
    let sb = Sandbox::new();
    let env = jax_cuda11(&sb.path("envs/none"), None);
    let msg = "CUDA backend failed to initialize: Unable to load cuDNN. Is it installed? (Set \
               TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)";
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(known(&json), ["JAX could not load cuDNN"]);
    let a = clue(&json, "component");
    assert_eq!(a["verdict"], "cause");
    assert!(
        text(&a["diagnosis"]).contains("has no cuDNN, and jaxlib 0.4.25+cuda11.cudnn86 needs it"),
        "{a:#}"
    );
    assert!(fix_text(a).contains("cudnn"), "{a:#}");
}

/// pytorch/pytorch aten/src/ATen/cuda/Exceptions.h, TORCH_CUDABLAS_CHECK.
#[test]
fn cublas_not_initialized_says_what_the_environment_holds() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let msg = "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling \
               `cublasCreate(handle)`";
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(known(&json), ["cuBLAS could not create a handle"]);
    let a = clue(&json, "component");
    assert_eq!(a["clue"]["component"], "cublas");
    assert!(text(&a["here"][0]).starts_with("cuBLAS 12.8"), "{a:#}");
    assert!(text(&a["diagnosis"]).contains("GPU memory"), "{a:#}");
    assert_eq!(code, i32::from(json["verdict"] == "cause"), "{json:#}");
}

/// TensorFlow's log: openxla/xla xla/tsl/platform/default/dso_loader.cc
/// ("Could not load dynamic library '...'; dlerror: ...") before
/// tensorflow/core/common_runtime/gpu/gpu_device.cc's summary.
#[test]
fn a_tensorflow_log_is_decided_by_the_failing_library_line() {
    let sb = Sandbox::new();
    let env = support::pip_cuda13(&sb.path("envs/cu13"));
    let log = "2024-05-31 11:19:20.168223: I tensorflow/tsl/platform/default/dso_loader.cc:53] Successfully opened dynamic library libcudart.so.13\n\
               2024-05-31 11:19:20.168268: W tensorflow/tsl/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.9'; dlerror: libcudnn.so.9: cannot open shared object file: No such file or directory\n\
               2024-05-31 11:19:20.168292: W tensorflow/core/common_runtime/gpu/gpu_device.cc:2256] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU.\n\
               Skipping registering GPU devices...";
    let (json, code) = explain(&sb, &env.prefix, log, A100);
    assert_eq!(known(&json), ["TensorFlow could not load a CUDA library"]);
    let answers = json["answers"].as_array().unwrap();
    assert_eq!(answers.len(), 1, "{json:#}");
    assert_eq!(answers[0]["clue"]["name"], "libcudnn.so.9");
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        answers[0]["fix"]["command"],
        format!("envhook install -p '{}'", env.prefix.display())
    );
}

/// NVIDIA/cuda-python cuda_pathfinder/.../find_nvidia_dynamic_lib.py.
#[test]
fn cuda_pathfinder_names_the_library_it_did_not_find() {
    let sb = Sandbox::new();
    let env = support::pip_cuda13(&sb.path("envs/cu13"));
    let msg = "cuda.pathfinder._dynamic_libs.load_dl_common.DynamicLibNotFoundError: Failure \
               finding \"libnvrtc.so\": No such file: libnvrtc.so*, No such file: libnvrtc.so*";
    let (json, _) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(
        known(&json),
        ["cuda-pathfinder found no copy of a CUDA library"]
    );
    let a = clue(&json, "library");
    assert_eq!(a["clue"]["name"], "libnvrtc.so");
    assert!(!text(&a["diagnosis"]).is_empty());
}

/// microsoft/onnxruntime onnxruntime/core/session/provider_bridge_ort.cc:
/// the summary gives way to nothing, and the provider line before it is read.
#[test]
fn onnxruntime_cuda_path_summary_keeps_the_provider_line() {
    let sb = Sandbox::new();
    let env = support::pip_cuda13(&sb.path("envs/cu13"));
    let log = "[E:onnxruntime:Default, provider_bridge_ort.cc:1862 TryGetProviderInfo_CUDA] Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object file: No such file or directory\n\
               [W:onnxruntime:Default, onnxruntime_pybind_state.cc:993 CreateExecutionProviderInstance] CUDA_PATH is set but CUDA wasn't able to be loaded. Please install the correct version of CUDA and cuDNN as mentioned in the GPU requirements page";
    let (json, _) = explain(&sb, &env.prefix, log, A100);
    let titles = known(&json);
    assert!(
        titles.contains(&"ONNX Runtime's CUDA provider did not load"),
        "{titles:?}"
    );
    let names: Vec<&str> = json["answers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["clue"]["name"].as_str())
        .collect();
    assert!(names.contains(&"libcublasLt.so.11"), "{names:?}");
}

/// NVIDIA/nccl ncclGetErrorString: nothing in an environment but two
/// NCCLs causes it; explain says none is here.
#[test]
fn nccl_system_error_says_plainly_that_the_cause_is_outside() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb.path("env"), "8.4.1", cudnn8("lib/libcudnn.so.8.4.1"));
    sb.install(&env.prefix);
    let msg = "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:121, \
               unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3";
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["verdict"], "not-here");
    assert!(text(&json["known"][0]["explanation"]).contains("/dev/shm"));
}

// ---------------------------------------------------------------- drivers ----

/// cupy/cupy cupy_backends/cuda/api/runtime.pyx (CUDARuntimeError: name: string).
#[test]
fn cupy_insufficient_driver_is_the_specific_row() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb.path("env"), "8.4.1", cudnn8("lib/libcudnn.so.8.4.1"));
    sb.install(&env.prefix);
    let msg = "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA \
               driver version is insufficient for CUDA runtime version";
    let (json, code) = explain(&sb, &env.prefix, msg, &["--driver-version", "418.67"]);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        known(&json),
        ["CuPy: the NVIDIA driver is older than the CUDA runtime"]
    );
    let codes: Vec<&str> = json["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"driver-too-old"), "{codes:?}");
}

// ----------------------------------------------------------------- no GPU ----

/// pytorch/pytorch c10/cuda/CUDAFunctions.cpp, device_count_ensure_non_zero.
const NO_GPUS: &str = "RuntimeError: No CUDA GPUs are available";

#[test]
fn no_gpus_with_cuda_visible_devices_empty() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let (json, code) = explain_with(
        &sb,
        &env.prefix,
        NO_GPUS,
        A100,
        &[("CUDA_VISIBLE_DEVICES", "")],
    );
    assert_eq!(code, 1, "{json:#}");
    let a = clue(&json, "devices");
    assert_eq!(a["verdict"], "cause");
    assert!(text(&a["diagnosis"]).contains("set and empty"), "{a:#}");
    assert!(
        fix_text(a).starts_with("unset CUDA_VISIBLE_DEVICES"),
        "{a:#}"
    );
}

/// jax-ml/jax jaxlib/cuda/versions_helpers.cc ("operation cuInit(0)
/// failed: "), with CUDA_VISIBLE_DEVICES naming a GPU that is not there.
#[test]
fn no_device_with_cuda_visible_devices_naming_a_missing_index() {
    let sb = Sandbox::new();
    let env = jax_cuda11(&sb.path("envs/jax"), Some("8.9.6.50"));
    let msg = "RuntimeError: jaxlib/cuda/versions_helpers.cc:113: operation cuInit(0) failed: \
               CUDA_ERROR_NO_DEVICE";
    let (json, code) = explain_with(
        &sb,
        &env.prefix,
        msg,
        A100,
        &[("CUDA_VISIBLE_DEVICES", "3")],
    );
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(known(&json), ["the CUDA driver found no GPU"]);
    let a = clue(&json, "devices");
    let diagnosis = text(&a["diagnosis"]);
    assert!(
        diagnosis.contains("names a GPU that does not exist, `3`"),
        "{diagnosis}"
    );
    assert!(diagnosis.contains("envhook sees 1 GPU here"), "{diagnosis}");
    assert_eq!(a["fix"]["command"], "export CUDA_VISIBLE_DEVICES='0'");
}

/// Unset, on a machine where envhook finds neither a driver nor a GPU (a
/// login node): the driver and GPU are unknown, and the command says how
/// to give them. cupy runtime.pyx's cudaErrorNoDevice; the CUDA runtime's
/// string is the generic row it replaces.
#[test]
fn no_device_unset_on_a_login_node_shows_the_command() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let msg = "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorNoDevice: no \
               CUDA-capable device is detected";
    let (json, code) = explain(&sb, &env.prefix, msg, &[]);
    assert_eq!(known(&json), ["CuPy: the CUDA runtime found no GPU"]);
    let a = clue(&json, "devices");
    assert_eq!(a["verdict"], "cannot-tell", "{a:#}");
    let diagnosis = text(&a["diagnosis"]);
    assert!(
        diagnosis.contains("the driver and GPU are unknown"),
        "{diagnosis}"
    );
    assert!(
        diagnosis.contains("nvidia-smi --query-gpu=driver_version,name,compute_cap --format=csv"),
        "{diagnosis}"
    );
    // No one command: the query to run there, then explain with its
    // answer.
    assert_eq!(
        a["fix"]["choose"]["commands"][0],
        "nvidia-smi --query-gpu=driver_version,name,compute_cap --format=csv"
    );
    assert!(
        text(&a["fix"]["choose"]["advice"]).ends_with(&format!(
            "envhook explain MESSAGE -p '{}' --driver-version VERSION --gpu NAME",
            env.prefix.display()
        )),
        "{a:#}"
    );
    // The sandbox's missing driver is a cause check can name (no-driver).
    assert_eq!(code, i32::from(json["verdict"] == "cause"), "{json:#}");

    // torch's own wording of the same ("Found no NVIDIA driver on your
    // system": cudaErrorInsufficientDriver with no driver version).
    let msg = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an \
               NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx";
    let (json, _) = explain(&sb, &env.prefix, msg, &[]);
    assert_eq!(known(&json), ["PyTorch found no NVIDIA driver"]);
    assert!(text(&clue(&json, "devices")["diagnosis"]).contains("unknown"));
}

/// Unset, a driver loaded (its kernel module under the sysroot) and no
/// /dev/nvidia*: a container started without GPUs. With the device file,
/// nothing here hides a GPU.
#[test]
fn no_gpus_unset_in_a_container_without_device_files() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let version = sb.path("sysroot/proc/driver/nvidia/version");
    std::fs::create_dir_all(version.parent().unwrap()).unwrap();
    std::fs::write(
        &version,
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Wed Jan 22 01:41:49 UTC 2025\n",
    )
    .unwrap();
    let (json, code) = explain(&sb, &env.prefix, NO_GPUS, &[]);
    assert_eq!(code, 1, "{json:#}");
    let a = clue(&json, "devices");
    assert_eq!(a["verdict"], "cause");
    assert!(
        text(&a["diagnosis"]).contains("a container started without GPUs"),
        "{a:#}"
    );
    assert!(fix_text(a).contains("docker run --gpus all"), "{a:#}");

    std::fs::create_dir_all(sb.path("sysroot/dev")).unwrap();
    std::fs::write(sb.path("sysroot/dev/nvidia0"), "").unwrap();
    let (json, _) = explain(&sb, &env.prefix, NO_GPUS, &[]);
    let a = clue(&json, "devices");
    assert_eq!(a["verdict"], "not-here", "{a:#}");
    assert!(text(&a["diagnosis"]).contains("nothing in this shell hides a GPU"));
}

// ------------------------------------------------------------------- docs ----

/// docs/explain-messages.md lists every row of data/explain.toml and no
/// other, so a user can see what explain covers.
#[test]
fn the_docs_list_every_message_family() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data: toml::Table =
        toml::from_str(&std::fs::read_to_string(root.join("data/explain.toml")).unwrap()).unwrap();
    let patterns: Vec<String> = data["message"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["pattern"].as_str().unwrap().replace('|', "\\|"))
        .collect();
    let doc = std::fs::read_to_string(root.join("docs/explain-messages.md")).unwrap();
    let rows: Vec<String> = doc
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cell = l.split(" | ").next().unwrap();
            let cell = cell.trim_start_matches("| `");
            cell[..cell.rfind('`').unwrap()].to_string()
        })
        .collect();
    assert_eq!(
        rows, patterns,
        "docs/explain-messages.md and data/explain.toml's [[message]] rows differ"
    );
}

// ----------------------------------------------------------------- status ----

/// openxla/xla xla/stream_executor/cuda/cuda_dnn.cc, CudnnSupport::Init:
/// a cuDNN older than jaxlib's build is check's finding, with its fix;
/// with a new enough one, the row's step looks at GPU memory.
#[test]
fn xla_cudnn_handle_is_checks_cudnn_finding_else_memory() {
    let sb = Sandbox::new();
    let msg = "E0508 03:34:06.2 14701 cuda_dnn.cc:535] Could not create cudnn handle: \
               CUDNN_STATUS_INTERNAL_ERROR";
    let old = jax_cuda11(&sb.path("envs/old"), Some("8.5.0.96"));
    let (json, code) = explain(&sb, &old.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(known(&json), ["XLA could not create a cuDNN handle"]);
    assert_eq!(
        json["causes"][0]["code"], "cudnn-older-than-build",
        "{json:#}"
    );
    assert_eq!(
        json["causes"][0]["fix"]["command"],
        format!(
            "'{}' -m pip install 'nvidia-cudnn-cu11>=8.6,<9'",
            old.prefix.join("bin/python").display()
        )
    );
    let good = jax_cuda11(&sb.path("envs/good"), Some("8.9.6.50"));
    let (json, code) = explain(&sb, &good.prefix, msg, A100);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        json["known"][0]["fix"]["choose"]["commands"][1],
        "export XLA_PYTHON_CLIENT_MEM_FRACTION=.5"
    );
}

/// pytorch/pytorch aten/src/ATen/cuda/Exceptions.h, AT_CUDNN_CHECK: a
/// torch without its cuDNN wheel gets the wheel its build needs.
#[test]
fn torch_cudnn_status_without_cudnn_names_the_wheel() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let msg = "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED";
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(known(&json), ["a cuDNN call failed"]);
    let a = clue(&json, "component");
    assert_eq!(
        text(&a["diagnosis"]),
        "this environment has no cuDNN, and torch 2.7.1+cu128 needs it"
    );
    assert!(
        fix_text(a).ends_with("-m pip install 'nvidia-cudnn-cu12>=9.7,<10'"),
        "{a:#}"
    );
}

/// jax-ml/jax jax_plugins/cuda/__init__.py, _check_cuda_versions: a
/// CUDA 11 jaxlib without cuBLAS gets the CUDA 11 toolkit's cuBLAS
/// (PyPI's cuda-toolkit 11.8.0 has the `cublas` extra).
#[test]
fn jax_unable_to_load_cublas_names_the_cuda_11_wheel() {
    let sb = Sandbox::new();
    let env = jax_cuda11(&sb.path("envs/jax"), Some("8.9.6.50"));
    let msg = "CUDA backend failed to initialize: Unable to load cuBLAS. Is it installed? (Set \
               TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)";
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(known(&json), ["JAX could not load cuBLAS"]);
    let a = clue(&json, "component");
    assert_eq!(a["clue"]["component"], "cublas");
    assert!(
        fix_text(a).ends_with("-m pip install 'cuda-toolkit[cublas]>=11,<12'"),
        "{a:#}"
    );
}

/// pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp
/// (alltoall_base without NCCL 2.7): the environment's NCCL is named; new
/// enough, the process loaded another copy; none, torch's wheel is the fix.
#[test]
fn nccl_alltoall_floor_names_the_environments_nccl() {
    let sb = Sandbox::new();
    let msg =
        "RuntimeError: ProcessGroupNCCL only supports alltoall* for NCCL lib version >= 2.7.0";
    let mut env = support::Env::new(sb.path("envs/nccl"));
    env.python("3.12.1");
    env.pip(
        support::PipDist::new("nvidia-nccl-cu12", "2.21.5").files(vec![support::FileSpec::File(
            "nvidia/nccl/lib/libnccl.so.2",
        )]),
    );
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 0, "{json:#}");
    let a = clue(&json, "component");
    assert_eq!(a["here"][0], "NCCL 2.21.5 (nvidia-nccl-cu12 2.21.5, pip)");
    assert!(text(&a["diagnosis"]).contains("LD_LIBRARY_PATH"), "{a:#}");

    let torch = torch_cu128(&sb.path("envs/torch"));
    let (json, code) = explain(&sb, &torch.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    assert!(
        fix_text(clue(&json, "component")).ends_with("-m pip install 'nvidia-nccl-cu12'"),
        "{json:#}"
    );
}

/// tensorflow/tensorflow tensorflow/core/profiler/internal/gpu/cupti_tracer.cc
/// (RETURN_IF_CUPTI_ERROR): nothing in an environment causes it; the
/// row's step is the driver option.
#[test]
fn cupti_insufficient_privileges_is_the_drivers_option() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let msg = "E cupti_tracer.cc:1000] function cupti_interface_->Subscribe( &subscriber_, \
               (CUpti_CallbackFunc)ApiCallback, this)failed with error \
               CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        known(&json),
        ["the NVIDIA driver lets only administrators profile"]
    );
    assert_eq!(
        json["known"][0]["fix"]["choose"]["commands"][0],
        "echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' | sudo tee \
         /etc/modprobe.d/nvidia-profiling.conf"
    );
}

// ---------------------------------------------------- architectures ----

/// torch's start-up warning (pytorch/pytorch torch/cuda/__init__.py
/// `_check_cubins` at v2.5.1), as printed on an RTX 5090 in
/// https://github.com/xorbitsai/inference/issues/3603. The message names
/// the GPU and its capability: explain measures the environment against
/// that GPU with no --gpu, and answers with check's finding for it and
/// check's fix (#41).
#[test]
fn torch_sm_not_compatible_names_the_gpu_and_checks_fix() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fatbin/sm90.so");
    std::fs::copy(fixture, env.site().join("torch/lib/libtorch_cuda.so")).unwrap();
    let msg = "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the \
               current PyTorch installation.\nThe current PyTorch install supports CUDA \
               capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\nIf you want to use the \
               NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the instructions at \
               https://pytorch.org/get-started/locally/";
    // check's finding for that GPU on the same machine (the same driver).
    let checked = |flags: &[&str]| {
        let (_, out, _) = sb.run_on(&[&["check", "--json"][..], flags].concat(), &env.prefix);
        let check: serde_json::Value = serde_json::from_str(&out).unwrap();
        sm_120(&check["findings"])
    };
    let no_driver = checked(&["--gpu", "sm_120"]);
    let driver_535 = checked(&["--driver-version", "535.104.05", "--gpu", "sm_120"]);
    for (extra, finding) in [
        (&[][..], &no_driver),
        (&["--gpu", "sm_120"][..], &no_driver),
        // Another GPU given: the message's is measured beside it.
        (A100, &driver_535),
    ] {
        let (json, code) = explain(&sb, &env.prefix, msg, extra);
        assert_eq!(code, 1, "{extra:?}: {json:#}");
        assert_eq!(json["known"][0]["framework"], "PyTorch");
        assert_eq!(json["verdict"], "cause", "{json:#}");
        let diagnosis = text(&clue(&json, "machine")["diagnosis"]);
        assert!(diagnosis.contains("(sm_120), below"), "{diagnosis}");
        assert!(
            diagnosis.contains(
                "the torch that printed it has code for sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 \
                 sm_90, none for sm_120"
            ),
            "{diagnosis}"
        );
        // check's finding, with the GPU named as the message names it.
        let cause = sm_120(&json["causes"]);
        assert_eq!(cause["fix"], finding["fix"], "{json:#}");
        assert!(finding["fix"]["command"].is_string(), "{finding:#}");
        assert_eq!(
            text(&cause["message"]).replace("NVIDIA GeForce RTX 5090 (sm_120)", "GPU 0 (sm_120)"),
            text(&finding["message"])
        );
    }
    // The message's own GPU, not check's guess at the machine's.
    let (shown, _) = explain_text(&sb, &env.prefix, msg, &[]);
    assert!(
        shown.contains("NVIDIA GeForce RTX 5090 (sm_120)"),
        "{shown}"
    );

    // The same GPU named with --gpu, and torch's later error.
    let msg = "RuntimeError: CUDA error: no kernel image is available for execution on the device";
    let (json, code) = explain(&sb, &env.prefix, msg, &["--gpu", "sm_120"]);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(sm_120(&json["causes"]), no_driver, "{json:#}");
}

/// The gpu-unsupported finding about sm_120 among `findings`.
fn sm_120(findings: &serde_json::Value) -> serde_json::Value {
    findings
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "gpu-unsupported" && text(&p["message"]).contains("(sm_120)"))
        .unwrap_or_else(|| panic!("{findings:#}"))
        .clone()
}

/// JAX's start-up check names each CUDA library it could not load
/// (jax-ml/jax jax/_src/xla_bridge.py `_version_check` at jax-v0.4.36,
/// later jax_plugins/xla_cuda12/__init__.py: f"Unable to load {name}. Is
/// it installed?", for CUDA, cuDNN, cuFFT, cuSOLVER, cuPTI, cuBLAS and
/// cuSPARSE): the component is read from the message, each one named is
/// answered as cuDNN's and cuBLAS's are.
#[test]
fn jax_unable_to_load_names_each_component() {
    let sb = Sandbox::new();
    let env = jax_monolithic_cuda12(&sb.path("envs/jax"), "12.3.101");
    for (msg, components) in [
        // https://github.com/jax-ml/jax/issues/30050
        (
            "ERROR:2025-07-08 12:39:34,990 jax._src.xla_bridge:444] Jax plugin configuration \
             error: Exception when calling jax_plugins.xla_cuda12.initialize()\n...\n\
             RuntimeError: Unable to load cuSPARSE. Is it installed?\nWARNING:2025-07-08 \
             12:39:34,994 jax._src.xla_bridge:794] An NVIDIA GPU may be present on this machine, \
             but a CUDA-enabled jaxlib is not installed. Falling back to cpu.",
            &["cusparse"][..],
        ),
        // https://github.com/conda-forge/jaxlib-feedstock/issues/285: two
        // in one report.
        (
            "RuntimeError: Unable to use CUDA because of the following issues with CUDA \
             components:\nUnable to load cuFFT. Is it installed?\nTraceback (most recent call \
             last):\nRuntimeError: jaxlib/cuda/versions_helpers.cc:54: operation \
             cufftGetVersion(&version) failed: cuFFT internal error\n\n\
             --------------------------------------------------\nUnable to load cuSOLVER. Is it \
             installed?",
            &["cufft", "cusolver"][..],
        ),
        // The source's own wording for CUPTI.
        (
            "RuntimeError: Unable to load cuPTI. Is it installed?",
            &["cupti"][..],
        ),
    ] {
        let (json, code) = explain(&sb, &env.prefix, msg, A100);
        // The first names what failed (the CPU fallback after it is its
        // consequence, another row).
        assert_eq!(
            known(&json)[0],
            "JAX could not load a CUDA library",
            "{json:#}"
        );
        let named: Vec<&str> = json["answers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["clue"]["kind"] == "component")
            .map(|a| text(&a["clue"]["component"]))
            .collect();
        assert_eq!(named, components, "{json:#}");
        for a in json["answers"].as_array().unwrap() {
            if a["clue"]["kind"] != "component" {
                continue;
            }
            assert_eq!(a["verdict"], "cause", "{a:#}");
            assert!(
                text(&a["diagnosis"]).starts_with("this environment has no "),
                "{a:#}"
            );
            assert!(fix_text(a).contains(" -m pip install "), "{a:#}");
        }
        assert_eq!(code, 1, "{json:#}");
    }

    // Where the environment has the wheel, explain says so, and looks
    // past it (a copy on LD_LIBRARY_PATH that wins, in jax#29843).
    let mut with = jax_monolithic_cuda12(&sb.path("envs/with"), "12.3.101");
    let rel = "nvidia/cusparse/lib/libcusparse.so.12";
    with.pip(
        support::PipDist::new("nvidia-cusparse-cu12", "12.5.10.65")
            .files(vec![support::FileSpec::File(rel)]),
    );
    let (json, code) = explain(
        &sb,
        &with.prefix,
        "RuntimeError: Unable to load cuSPARSE. Is it installed?",
        A100,
    );
    let a = clue(&json, "component");
    assert_eq!(
        a["here"][0], "cuSPARSE (nvidia-cusparse-cu12 12.5.10.65, pip)",
        "{a:#}"
    );
    assert!(
        text(&a["diagnosis"]).starts_with("this environment has cuSPARSE;"),
        "{a:#}"
    );
    assert_eq!(code, 0, "{json:#}");
}

// ----------------------------------------------------------- jax pair ----

/// A pip environment with jax and jaxlib of these versions.
fn jax_pair(prefix: &Path, jax: &'static str, jaxlib: &'static str) -> support::Env {
    let mut env = support::Env::new(prefix);
    env.python("3.11.9");
    env.pip(support::PipDist::new("jax", jax));
    env.pip(
        support::PipDist::new("jaxlib", jaxlib)
            .files(vec![support::FileSpec::File("jaxlib/xla_extension.so")]),
    );
    env
}

/// jax's own check of jaxlib at import (jax-ml/jax jax/_src/lib/__init__.py
/// `check_jaxlib_version` at jax-v0.4.36): the versions are read from the
/// message and from the environment, and the fix is the pip command that
/// aligns them.
#[test]
fn jaxlib_newer_than_jax_is_aligned() {
    let sb = Sandbox::new();
    // https://github.com/jax-ml/jax/issues/17638
    let msg = "RuntimeError: jaxlib version 0.4.14 is newer than and incompatible with jax \
               version 0.4.6. Please update your jax and/or jaxlib packages.";
    let env = jax_pair(&sb.path("envs/pair"), "0.4.6", "0.4.14");
    let (json, code) = explain(&sb, &env.prefix, msg, &[]);
    assert_eq!(code, 1, "{json:#}");
    let a = clue(&json, "jax-pair");
    assert_eq!(
        (a["clue"]["jax"].as_str(), a["clue"]["jaxlib"].as_str()),
        (Some("0.4.6"), Some("0.4.14"))
    );
    assert_eq!(a["verdict"], "cause", "{a:#}");
    assert_eq!(a["here"][0], "jax 0.4.6, jaxlib 0.4.14 (pip)");
    assert_eq!(
        fix_text(a),
        format!(
            "'{}/bin/python' -m pip install 'jax==0.4.14'",
            env.prefix.display()
        )
    );
    // Aligned here: another environment printed it.
    let fixed = jax_pair(&sb.path("envs/fixed"), "0.4.14", "0.4.14");
    let (json, code) = explain(&sb, &fixed.prefix, msg, &[]);
    assert_eq!(clue(&json, "jax-pair")["verdict"], "not-here", "{json:#}");
    assert_eq!(code, 0, "{json:#}");
}

/// The other half of the same check: a jaxlib older than jax's minimum
/// (jax 0.4.36's `_minimum_jaxlib_version` is "0.4.36", jax/version.py).
#[test]
fn jaxlib_older_than_jaxs_minimum_is_aligned() {
    let sb = Sandbox::new();
    let msg = "RuntimeError: jaxlib is version 0.4.35, but this version of jax requires version \
               >= 0.4.36.";
    let env = jax_pair(&sb.path("envs/pair"), "0.4.36", "0.4.35");
    let (json, code) = explain(&sb, &env.prefix, msg, &[]);
    assert_eq!(code, 1, "{json:#}");
    let a = clue(&json, "jax-pair");
    assert_eq!(a["clue"]["minimum"], "0.4.36");
    assert_eq!(
        fix_text(a),
        format!(
            "'{}/bin/python' -m pip install 'jaxlib==0.4.36'",
            env.prefix.display()
        )
    );
}
