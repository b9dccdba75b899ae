//! `envhook explain` on a corpus of real messages (#41 item 3): each row is
//! a message exactly as a framework printed it, where it was printed (an
//! issue thread, or the source that prints it), the environment and
//! machine the thread shows, laid out in a temp prefix, and what the thread
//! settled on: the verdict and the fix that worked, not envhook's wording.
//! A row envhook still gets wrong says why in `gap`, and the test holds it
//! to being wrong, so that fixing it means updating the row.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::explaining::{A100, explain_with, jax_cuda11, tensorflow_216_bare, torch_cu128};
use support::paddle::{cudnn8, paddle_262};
use support::{Env, FileSpec, PipDist, Sandbox, cc_shared, cc_source};

/// What the thread settled on.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Want {
    /// The cause is here; the fix the thread used contains this.
    Cause(&'static str),
    /// Nothing here causes it: another environment, machine or copy.
    NotHere,
    /// envhook cannot check the cause (the driver's module, the machine).
    CannotTell,
    /// Not an environment problem at all.
    NotEnvironment,
}

pub struct Row {
    /// The message, as printed.
    pub message: &'static str,
    /// The thread or source that shows it.
    pub cite: &'static str,
    /// The environment the thread shows.
    pub env: fn(&Path) -> Env,
    /// The machine it shows (`--driver-version`, `--gpu`).
    pub machine: &'static [&'static str],
    pub want: Want,
    /// Why envhook still answers otherwise, for a row it gets wrong.
    pub gap: Option<&'static str>,
}

const R470: &[&str] = &["--driver-version", "470.199.02"];
const R535: &[&str] = &["--driver-version", "535.154.05"];
const R550: &[&str] = &["--driver-version", "550.78"];
const R390: &[&str] = &["--driver-version", "390.77"];
const R418: &[&str] = &["--driver-version", "418.67"];
const RTX5090: &[&str] = &["--driver-version", "570.124.04", "--gpu", "RTX 5090"];
const NONE: &[&str] = &[];

fn torch(p: &Path) -> Env {
    torch_cu128(p)
}

/// nagadomi/nunif#702: a torch for CUDA 13.
fn torch_cu130(p: &Path) -> Env {
    support::explaining::cuda13_with_compat(p, false)
}

fn paddle_demo(p: &Path) -> Env {
    support::cuda11_paddle(p)
}

/// A pip Paddle whose version file says `cuda` and `cudnn`.
fn paddle_wheel(p: &Path, version: &'static str, cuda: &str, cudnn: &str) -> Env {
    let mut env = Env::new(p);
    env.python("3.10.14");
    env.pip(
        PipDist::new("paddlepaddle-gpu", version)
            .files(vec![FileSpec::File("paddle/fluid/libpaddle.so")])
            .text(
                "paddle/version/__init__.py",
                format!(
                    "full_version    = '{version}'\ncuda_version    = '{cuda}'\ncudnn_version   = '{cudnn}'\n"
                ),
            ),
    );
    env
}

/// PaddlePaddle/PaddleSeg#3470: 2.5.1.post117 (CUDA 11.7).
fn paddle_post117(p: &Path) -> Env {
    paddle_wheel(p, "2.5.1.post117", "11.7", "8.4.1")
}

/// PaddlePaddle/Paddle#38668: 2.2.1.post112 (cuDNN 8.2) over conda's
/// cuDNN 8.1.
fn paddle_cudnn81(p: &Path) -> Env {
    let mut env = paddle_wheel(p, "2.2.1.post112", "11.2", "8.2.1");
    env.conda(
        support::CondaPkg::new("cudnn", "8.1.1.33", "h9e1b8e3_0")
            .files(cudnn8("lib/libcudnn.so.8.1.1")),
    );
    env
}

/// PaddlePaddle/Paddle#46233: 2.3.1.post112 and no cuDNN in the
/// environment.
fn paddle_no_cudnn(p: &Path) -> Env {
    paddle_wheel(p, "2.3.1.post112", "11.2", "8.1.1")
}

/// jax, jaxlib and the nvcc wheel whose ptxas XLA runs.
fn jax_with(p: &Path, jax: &'static str, nvcc: &'static str) -> Env {
    let mut env = Env::new(p);
    env.python("3.12.1");
    env.pip(PipDist::new("jax", jax));
    env.pip(PipDist::new("jaxlib", jax).files(vec![FileSpec::File("jaxlib/xla_extension.so")]));
    env.pip(
        PipDist::new("nvidia-cuda-nvcc-cu12", nvcc)
            .files(vec![FileSpec::File("nvidia/cuda_nvcc/bin/ptxas")]),
    );
    env
}

/// jax-ml/jax#19821: jax 0.4.24 with the nvcc wheel 12.3.107.
fn jax_0424(p: &Path) -> Env {
    jax_with(p, "0.4.24", "12.3.107")
}

/// google/brax#488: jax 0.4.28 with the nvcc wheel 12.5.40.
fn jax_0428(p: &Path) -> Env {
    jax_with(p, "0.4.28", "12.5.40")
}

/// conda-forge/tensorflow-feedstock#417: pip tensorflow[and-cuda] 2.18.0.
fn tf_218(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.11.9");
    env.pip(PipDist::new("tensorflow", "2.18.0"));
    env.pip(
        PipDist::new("nvidia-cuda-nvcc-cu12", "12.5.82")
            .files(vec![FileSpec::File("nvidia/cuda_nvcc/bin/ptxas")]),
    );
    env
}

/// google/flax#2249 (Kaggle): jax from pip, no nvcc wheel; the system's
/// CUDA 11.0 toolkit.
fn jax_no_nvcc(p: &Path) -> Env {
    jax_cuda11(p, Some("8.6.0.163"))
}

/// onnxruntime-gpu 1.18.0 (a CUDA 11 build: its provider NEEDs
/// libcublasLt.so.11) over CUDA 12's cuBLAS wheel.
fn ort_cuda11_build(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.11.9");
    env.pip(
        PipDist::new("nvidia-cublas-cu12", "12.1.3.1")
            .files(vec![FileSpec::File("nvidia/cublas/lib/libcublasLt.so.12")]),
    );
    env.pip(
        PipDist::new("onnxruntime-gpu", "1.18.0").files(vec![FileSpec::File(
            "onnxruntime/capi/libonnxruntime_providers_cuda.so",
        )]),
    );
    let site = env.site();
    cc_shared(
        &site.join("nvidia/cublas/lib/libcublasLt.so.12"),
        "libcublasLt.so.12",
        &[],
        None,
        false,
    );
    let scratch = p.with_extension("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let old = scratch.join("libcublasLt.so.11");
    cc_shared(&old, "libcublasLt.so.11", &[], None, false);
    cc_shared(
        &site.join("onnxruntime/capi/libonnxruntime_providers_cuda.so"),
        "libonnxruntime_providers_cuda.so",
        &[&old],
        None,
        false,
    );
    std::fs::remove_dir_all(&scratch).unwrap();
    env
}

/// pytorch/pytorch#131312: torch cu124 with an nvJitLink wheel of 12.1
/// under cuSPARSE 12.4's.
fn torch_old_nvjitlink(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.11.9");
    env.pip(
        PipDist::new("nvidia-nvjitlink-cu12", "12.1.105").files(vec![FileSpec::File(
            "nvidia/nvjitlink/lib/libnvJitLink.so.12",
        )]),
    );
    env
}

fn jax_cudnn85(p: &Path) -> Env {
    jax_cuda11(p, Some("8.5.0.96"))
}

fn jax_no_cudnn(p: &Path) -> Env {
    jax_cuda11(p, None)
}

/// paddlepaddle-gpu 2.6.2 as PyPI installs it (the real wheel printed
/// the run_check row on this project's machine).
fn paddle_2_6_2_wheel(p: &Path) -> Env {
    paddle_262(p)
}

fn tf_216(p: &Path) -> Env {
    tensorflow_216_bare(p)
}

/// numba 0.60 from pip, in a conda environment.
fn numba_env(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.11.9");
    env.pip(PipDist::new("numba", "0.60.0"));
    env
}

/// cupy/cupy#9252: cupy-cuda11x with its runtime wheel. CuPy links the
/// CUDA runtime in: its objects need no libcudart, its cuBLAS module
/// libcublas.so.11 (the real 13.4.1's, readelf -d), so the wheel's
/// runtime is loaded by nothing.
fn cupy_cuda11(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.10.14");
    env.pip(
        PipDist::new("nvidia-cuda-runtime-cu11", "11.8.89").files(vec![FileSpec::File(
            "nvidia/cuda_runtime/lib/libcudart.so.11.0",
        )]),
    );
    let runtime = "cupy_backends/cuda/api/runtime.cpython-310-x86_64-linux-gnu.so";
    let cublas = "cupy_backends/cuda/libs/cublas.cpython-310-x86_64-linux-gnu.so";
    env.pip(
        PipDist::new("cupy-cuda11x", "13.4.1")
            .files(vec![FileSpec::File(runtime), FileSpec::File(cublas)]),
    );
    let site = env.site();
    let scratch = p.with_extension("scratch");
    let old = scratch.join("libcublas.so.11");
    cc_shared(&old, "libcublas.so.11", &[], None, false);
    for (rel, needs) in [(runtime, vec![]), (cublas, vec![old.as_path()])] {
        let soname = rel.rsplit('/').next().unwrap();
        cc_shared(&site.join(rel), soname, &needs, None, false);
    }
    std::fs::remove_dir_all(&scratch).unwrap();
    env
}

fn paddle_2_6_2(p: &Path) -> Env {
    paddle_262(p)
}

/// jax-ml/jax#17638: jax 0.4.6 under jaxlib 0.4.14.
fn jax_0406_jaxlib_0414(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.10.12");
    env.pip(PipDist::new("jax", "0.4.6"));
    env.pip(
        PipDist::new("jaxlib", "0.4.14").files(vec![FileSpec::File("jaxlib/xla_extension.so")]),
    );
    env
}

/// jax-ml/jax#24684's pair: jax 0.4.36 with an older jaxlib.
fn jax_0436_jaxlib_0435(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.12.4");
    env.pip(PipDist::new("jax", "0.4.36"));
    env.pip(
        PipDist::new("jaxlib", "0.4.35").files(vec![FileSpec::File("jaxlib/xla_extension.so")]),
    );
    env
}

/// conda's cudatoolkit `toolkit` and cuDNN 8 in `lib/`, under pip
/// TensorFlow `tf` (tensorflow/tensorflow#60854: "11.2/8 in conda env";
/// #56413: libcudart.so.11.0 is in the environment's lib/).
fn tf_over_conda_cuda(p: &Path, tf: &'static str) -> Env {
    use support::CondaPkg;
    let mut env = Env::new(p);
    env.python("3.9.16");
    env.conda(
        CondaPkg::new("cudatoolkit", "11.2.2", "hbe64b41_10").files(vec![
            FileSpec::File("lib/libcudart.so.11.2.152"),
            FileSpec::Link("lib/libcudart.so.11.0", "libcudart.so.11.2.152"),
            FileSpec::File("lib/libcublas.so.11.4.1.1043"),
            FileSpec::Link("lib/libcublas.so.11", "libcublas.so.11.4.1.1043"),
        ]),
    );
    env.conda(
        CondaPkg::new("cudnn", "8.1.0.77", "h90431f1_0").files(cudnn8("lib/libcudnn.so.8.1.0")),
    );
    env.pip(PipDist::new("tensorflow", tf).files(vec![FileSpec::File(
        "tensorflow/python/_pywrap_tensorflow_internal.so",
    )]));
    env
}

fn tf_28(p: &Path) -> Env {
    tf_over_conda_cuda(p, "2.8.0")
}

fn tf_29(p: &Path) -> Env {
    tf_over_conda_cuda(p, "2.9.1")
}

/// bitsandbytes-foundation/bitsandbytes#1483: torch 2.x for CUDA 11.8 (so
/// bitsandbytes loads its cuda118 library) on a machine with CUDA 12.2.
fn bnb_cuda118(p: &Path) -> Env {
    super::explain_corpus_more::bitsandbytes_on(p, "2.0.1+cu118", "11.8")
}

/// cupy/cupy#9252: cupy-cuda11x from pip, the machine's driver unknown.
fn cupy_on_hpc(p: &Path) -> Env {
    cupy_cuda11(p)
}

/// The symbol of vllm-project/vllm#5501: torch 2.3's `torch::Library`
/// constructor, which takes `std::optional` (older torch: `c10::optional`).
const TORCH_LIBRARY_23: &str =
    "_ZN5torch7LibraryC1ENS0_4KindESsSt8optionalIN3c1011DispatchKeyEEPKcj";

/// vllm-project/vllm#5501: vllm 0.5.0 (built for torch 2.3.0, its own
/// requirement) over a torch 2.2.1 whose libtorch_cpu.so does not define
/// the constructor vllm's _C.abi3.so calls.
fn vllm_over_older_torch(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.8.10");
    let lib = env.site().join("torch/lib");
    env.pip(
        PipDist::new("torch", "2.2.1")
            .files(vec![
                FileSpec::File("torch/lib/libtorch_cpu.so"),
                FileSpec::File("torch/lib/libtorch_cuda.so"),
            ])
            .text(
                "torch/version.py",
                "__version__ = '2.2.1+cu121'\ndebug = False\ncuda = '12.1'\nhip = None\n",
            ),
    );
    cc_source(
        &lib.join("libtorch_cpu.so"),
        "libtorch_cpu.so",
        "int _ZN3c104cuda9SetDeviceEi(void) { return 0; }\n",
        &[],
    );
    cc_source(
        &lib.join("libtorch_cuda.so"),
        "libtorch_cuda.so",
        "int cuda_part(void) { return 0; }\n",
        &[],
    );
    env.pip(
        PipDist::new("vllm", "0.5.0")
            .requires(vec!["torch ==2.3.0"])
            .files(vec![FileSpec::File("vllm/_C.abi3.so")]),
    );
    cc_source(
        &env.site().join("vllm/_C.abi3.so"),
        "_C.abi3.so",
        &format!(
            "int {TORCH_LIBRARY_23}(void);\nint PyInit__C(void) {{ return {TORCH_LIBRARY_23}(); }}\n"
        ),
        &[&lib.join("libtorch_cpu.so")],
    );
    env
}

pub const ROWS: &[Row] = &[
    // ---------------------------------------------------- PaddlePaddle ----
    Row {
        message: "W0824 10:51:12.103622 26514 gpu_resources.cc:175] WARNING: device: 0. The installed Paddle is compiled with CUDA 11.7, but CUDA runtime version in your machine is 11.4, which may cause serious incompatible bug. Please recompile or reinstall Paddle with compatible CUDA version.",
        cite: "https://github.com/PaddlePaddle/PaddleSeg/issues/3470",
        env: paddle_post117,
        machine: R470,
        want: Want::Cause("upgrade the NVIDIA driver to one that supports CUDA 11.7"),
        gap: None,
    },
    Row {
        message: "W0104 09:58:24.399132 7912 device_context.h:397] WARNING: device: 0. The installed Paddle is compiled with CUDNN 8.2, but CUDNN version in your machine is 8.1, which may cause serious incompatible bug. Please recompile or reinstall Paddle with compatible CUDNN version.",
        cite: "https://github.com/PaddlePaddle/Paddle/issues/38668 (and #37349: installing cuDNN 8.2 removed it)",
        env: paddle_cudnn81,
        machine: R470,
        want: Want::Cause("cudnn"),
        gap: None,
    },
    Row {
        message: "InvalidArgumentError: The installed Paddle is compiled with CUDA11/cuDNN8,but CUDA/cuDNN version in your machine is CUDA10/cuDNN7. which will cause serious incompatible bug. Please recompile or reinstall Paddle with compatible CUDA/cuDNN version.",
        cite: "PaddlePaddle/Paddle paddle/phi/backends/gpu/gpu_resources.cc@v2.6.2 (PADDLE_ENFORCE_EQ; the string is in paddlepaddle-gpu 2.6.2's libphi.so)",
        env: paddle_2_6_2,
        machine: R418,
        want: Want::Cause("upgrade the NVIDIA driver"),
        gap: None,
    },
    Row {
        message: "W1020 11:34:40.916393  8908 dynamic_loader.cc:305] The third-party dynamic library (libcudnn.so) that Paddle depends on is not configured correctly. (error code is /usr/local/cuda/lib64/libcudnn.so: cannot open shared object file: No such file or directory)",
        cite: "https://github.com/PaddlePaddle/Paddle/issues/46233",
        env: paddle_no_cudnn,
        machine: R470,
        want: Want::Cause("cudnn"),
        gap: None,
    },
    Row {
        message: "RuntimeError: (PreconditionNotMet) Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.",
        cite: "PaddlePaddle/Paddle paddle/phi/backends/dynload/cudnn.cc@v2.6.2; seed 000 (the demo's paddle environment: cuDNN 8.9 without libcudnn.so)",
        env: paddle_demo,
        machine: A100,
        want: Want::Cause("envhook install"),
        gap: None,
    },
    Row {
        message: "Out of memory error on GPU 0. Cannot allocate 3.621826GB memory on GPU 0, 21.184814GB memory has been allocated and available memory is only 2.814575GB. Please check whether there is any other process using GPU 0. 1. If yes, please stop them, or start PaddlePaddle on another GPU. 2. If no, please decrease the batch size of your model.",
        cite: "https://github.com/PaddlePaddle/PaddleGAN/issues/587",
        env: paddle_demo,
        machine: A100,
        want: Want::NotEnvironment,
        gap: None,
    },
    // ----------------------------------------------------------- torch ----
    Row {
        message: "/pytorch/aten/src/THCUNN/ClassNLLCriterion.cu:108: cunn_ClassNLLCriterion_updateOutput_kernel: block: [0,0,0], thread: [31,0,0] Assertion `t >= 0 && t < n_classes` failed.\nRuntimeError: CUDA error: device-side assert triggered",
        cite: "https://github.com/layumi/Person_reID_baseline_pytorch/issues/372 (labels out of range, as pytorch/pytorch#1204)",
        env: torch,
        machine: A100,
        want: Want::NotEnvironment,
        gap: None,
    },
    Row {
        message: "RuntimeError: CUDA error: device-side assert triggered",
        cite: "https://github.com/chenyuntc/simple-faster-rcnn-pytorch/issues/198 (\"forget to modify class nums\")",
        env: torch,
        machine: A100,
        want: Want::NotEnvironment,
        gap: None,
    },
    Row {
        message: "/pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:276: operator(): block: [0,0,0], thread: [26,0,0] Assertion `idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"` failed.\nRuntimeError: CUDA error: device-side assert triggered\nterminate called after throwing an instance of 'c10::Error'\n  what():  NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:181, unhandled cuda error, NCCL version 21.0.3",
        cite: "https://github.com/huggingface/pytorch-image-models/issues/1077 (an index out of bounds; NCCL's abort follows it)",
        env: torch,
        machine: A100,
        want: Want::NotEnvironment,
        gap: None,
    },
    Row {
        message: "CUDA out of memory. Tried to allocate 2.26 GiB (GPU 0; 6.00 GiB total capacity; 781.59 MiB already allocated; 3.03 GiB free; 1.24 GiB reserved in total by PyTorch)",
        cite: "https://github.com/pytorch/pytorch/issues/59778",
        env: torch,
        machine: A100,
        want: Want::NotEnvironment,
        gap: None,
    },
    Row {
        message: "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB. GPU 0 has a total capacity of 23.65 GiB of which 11.06 MiB is free. Including non-PyTorch memory, this process has 23.60 GiB memory in use. Of the allocated memory 22.90 GiB is allocated by PyTorch, and 194.87 MiB is reserved by PyTorch but unallocated.",
        cite: "https://github.com/pytorch/pytorch/issues/16417",
        env: torch,
        machine: A100,
        want: Want::NotEnvironment,
        gap: None,
    },
    Row {
        message: "RuntimeError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        cite: "https://github.com/evo-design/evo/issues/136",
        env: torch,
        machine: A100,
        want: Want::NotEnvironment,
        gap: None,
    },
    Row {
        message: "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x2 and 6x64)",
        cite: "https://github.com/VICO-UoE/MTPSL/issues/3",
        env: torch,
        machine: A100,
        want: Want::NotEnvironment,
        gap: None,
    },
    Row {
        message: "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.",
        cite: "https://github.com/xorbitsai/inference/issues/3603 (torch for CUDA 12.8 fixed it)",
        env: support::pip_wheels,
        machine: RTX5090,
        want: Want::Cause("cu128"),
        gap: None,
    },
    Row {
        message: "ImportError: /home/dp/anaconda3/envs/ComfyUI/lib/python3.11/site-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12",
        cite: "https://github.com/pytorch/pytorch/issues/131312 (an nvJitLink of 12.4 or newer fixed it, as in #134929)",
        env: torch_old_nvjitlink,
        machine: A100,
        want: Want::Cause("nvidia-nvjitlink-cu12>=12.4"),
        gap: None,
    },
    Row {
        message: "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
        cite: "https://github.com/nagadomi/nunif/issues/702 (torch for CUDA 13: \"please install the latest NVIDIA driver\")",
        env: torch_cu130,
        machine: R535,
        want: Want::Cause("upgrade the NVIDIA driver"),
        gap: None,
    },
    // -------------------------------------------------------------- JAX ----
    Row {
        message: "2024-02-15 14:18:20.201828: W external/xla/xla/service/gpu/nvptx_compiler.cc:744] The NVIDIA driver's CUDA version is 12.2 which is older than the ptxas CUDA version (12.3.107). Because the driver is older than the ptxas version, XLA is disabling parallel compilation, which may slow down compilation. You should update your NVIDIA driver or use the NVIDIA-provided CUDA forward compatibility packages.",
        cite: "https://github.com/jax-ml/jax/issues/19821 (driver 535.154.05, nvidia-cuda-nvcc-cu12 12.3.107)",
        env: jax_0424,
        machine: R535,
        want: Want::Cause("nvidia-cuda-nvcc-cu12==12.2.*"),
        gap: None,
    },
    Row {
        message: "W external/xla/xla/service/gpu/nvptx_compiler.cc:760] The NVIDIA driver's CUDA version is 12.4 which is older than the ptxas CUDA version (12.5.40). Because the driver is older than the ptxas version, XLA is disabling parallel compilation, which may slow down compilation. You should update your NVIDIA driver or use the NVIDIA-provided CUDA forward compatibility packages.",
        cite: "https://github.com/google/brax/issues/488 (driver 550.78)",
        env: jax_0428,
        machine: R550,
        want: Want::Cause("upgrade the NVIDIA driver to one that supports CUDA 12.5"),
        gap: None,
    },
    Row {
        message: "*** WARNING *** You are using ptxas 11.0.221, which is older than 11.1. ptxas before 11.1 is known to miscompile XLA code, leading to incorrect results or invalid-address errors.\n\nYou may not need to update to CUDA 11.1; cherry-picking the ptxas binary is often sufficient.",
        cite: "https://github.com/google/flax/issues/2249 (Kaggle's CUDA 11.0 toolkit)",
        env: jax_no_nvcc,
        machine: R470,
        want: Want::Cause("which -a ptxas"),
        gap: None,
    },
    // ------------------------------------------------------- TensorFlow ----
    Row {
        message: "W external/local_xla/xla/service/gpu/nvptx_compiler.cc:930] The NVIDIA driver's CUDA version is 12.4 which is older than the PTX compiler version 12.5.82. Because the driver is older than the PTX compiler version, XLA is disabling parallel compilation, which may slow down compilation. You should update your NVIDIA driver or use the NVIDIA-provided CUDA forward compatibility packages.",
        cite: "https://github.com/conda-forge/tensorflow-feedstock/issues/417 (driver 550.144, tensorflow[and-cuda] 2.18.0)",
        env: tf_218,
        machine: &["--driver-version", "550.144.03"],
        want: Want::Cause("upgrade the NVIDIA driver to one that supports CUDA 12.5"),
        gap: None,
    },
    Row {
        message: "2025-02-09 09:37:32.334610: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
        cite: "https://github.com/tensorflow/tensorflow/issues/62075",
        env: tf_218,
        machine: A100,
        want: Want::NotEnvironment,
        gap: None,
    },
    // ----------------------------------------------------- ONNX Runtime ----
    Row {
        message: "[E:onnxruntime:Default, provider_bridge_ort.cc:1548 TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1209 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object file: No such file or directory",
        cite: "https://github.com/fudan-generative-vision/hallo/issues/203 (onnxruntime-gpu 1.18.0 is a CUDA 11 build; the CUDA 12 one fixed it, as in fudan-generative-vision/champ#95)",
        env: ort_cuda11_build,
        machine: A100,
        want: Want::Cause("'onnxruntime-gpu>=1.2"),
        gap: None,
    },
    // ------------------------------------------------------------- CuPy ----
    Row {
        message: "cupy.cuda.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version",
        cite: "https://github.com/NVIDIA/FastPhotoStyle/issues/68 (driver 390.77 under CUDA 9; as cupy/cupy#9252)",
        env: cupy_cuda11,
        machine: R390,
        want: Want::Cause("upgrade the NVIDIA driver"),
        gap: None,
    },
    Row {
        message: "RuntimeError: jaxlib version 0.4.14 is newer than and incompatible with jax version 0.4.6. Please update your jax and/or jaxlib packages.",
        cite: "https://github.com/jax-ml/jax/issues/17638 (upgrading jax fixed it)",
        env: jax_0406_jaxlib_0414,
        machine: NONE,
        want: Want::Cause("jax==0.4.14"),
        gap: None,
    },
    Row {
        message: "RuntimeError: jaxlib is version 0.4.35, but this version of jax requires version >= 0.4.36.",
        cite: "jax-ml/jax jax/_src/lib/__init__.py@jax-v0.4.36 (check_jaxlib_version; tried on the real 0.4.35/0.4.36 wheels)",
        env: jax_0436_jaxlib_0435,
        machine: NONE,
        want: Want::Cause("jaxlib==0.4.36"),
        gap: None,
    },
    Row {
        message: "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: :/usr/local/cuda/lib64",
        cite: "https://github.com/tensorflow/tensorflow/issues/60854 (cuDNN 8 in the conda environment, not on the loader's path)",
        env: tf_28,
        machine: A100,
        want: Want::Cause("envhook install"),
        gap: None,
    },
    Row {
        message: "2022-06-09 15:50:37.711160: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory",
        cite: "https://github.com/tensorflow/tensorflow/issues/56413 (libcudart.so.11.0 is in the environment's lib/)",
        env: tf_29,
        machine: A100,
        want: Want::Cause("envhook install"),
        gap: None,
    },
    Row {
        message: "CUDA SETUP: Loading binary /usr/local/lib/python3.8/dist-packages/bitsandbytes/libbitsandbytes_cuda118.so...\nlibcusparse.so.11: cannot open shared object file: No such file or directory",
        cite: "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1483 (torch for CUDA 11.8 on a CUDA 12.2 machine: bitsandbytes loads its cuda118 library, which needs CUDA 11's cuSPARSE)",
        env: bnb_cuda118,
        machine: R535,
        want: Want::Cause("cusparse]==11.8"),
        gap: None,
    },
    Row {
        message: "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version",
        cite: "https://github.com/cupy/cupy/issues/9252 (\"a problem in your CUDA driver setup\"; run where no driver is, as on this machine)",
        env: cupy_on_hpc,
        machine: NONE,
        want: Want::Cause("nvidia-smi"),
        gap: None,
    },
    Row {
        message: "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.",
        cite: "https://github.com/replicate/cog-svd/issues/11 (the machine's nvidia_uvm, as pytorch/pytorch#49081: reloading the module fixed it)",
        env: torch,
        machine: A100,
        want: Want::NotHere,
        gap: None,
    },
    Row {
        message: "/home/krish/miniconda3/envs/ass-test/lib/python3.10/site-packages/torch/cuda/__init__.py:174: UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero. (Triggered internally at /pytorch/c10/cuda/CUDAFunctions.cpp:109.)\n  return torch._C._cuda_getDeviceCount() > 0",
        cite: "https://github.com/pytorch/pytorch/issues/159954 (torch 2.7.1)",
        env: torch,
        machine: A100,
        want: Want::NotHere,
        gap: None,
    },
    Row {
        message: "RuntimeError: The NVIDIA driver on your system is too old (found version 12020). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver.",
        cite: "pytorch/pytorch c10/cuda/CUDAFunctions.cpp@v2.5.1 (device_count_impl)",
        env: torch,
        machine: A100,
        want: Want::Cause("use a build made with CUDA 12.2 or older"),
        gap: None,
    },
    Row {
        message: "CUDA backend failed to initialize: Found cuDNN version 8500, but JAX was built against version 8600, which is newer. The copy of cuDNN that is installed must be at least as new as the version against which JAX was built. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
        cite: "jax-ml/jax jax/_src/xla_bridge.py@jax-v0.4.25 (_check_cudnn_version)",
        env: jax_cudnn85,
        machine: A100,
        want: Want::Cause(">=8.6"),
        gap: None,
    },
    Row {
        message: "CUDA backend failed to initialize: Unable to load cuDNN. Is it installed? (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
        cite: "jax-ml/jax jax_plugins/cuda/__init__.py@jax-v0.4.25 (_check_cuda_versions)",
        env: jax_no_cudnn,
        machine: A100,
        want: Want::Cause("cudnn"),
        gap: None,
    },
    Row {
        message: "2024-05-31 11:19:20.168268: W tensorflow/tsl/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.9'; dlerror: libcudnn.so.9: cannot open shared object file: No such file or directory\n2024-05-31 11:19:20.168292: W tensorflow/core/common_runtime/gpu/gpu_device.cc:2256] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU.",
        cite: "openxla/xla xla/tsl/platform/default/dso_loader.cc and tensorflow/tensorflow tensorflow/core/common_runtime/gpu/gpu_device.cc@v2.16.1",
        env: support::pip_cuda13,
        machine: A100,
        want: Want::Cause("envhook install"),
        gap: None,
    },
    Row {
        message: "The specified module could not be found. Error loading \"torch\\lib\\caffe2_detectron_ops.dll\" or one of its dependencies.",
        cite: "https://github.com/Djdefrag/QualityScaler/issues/9 (Windows: the Visual C++ runtime fixed it, which envhook cannot see)",
        env: torch,
        machine: A100,
        want: Want::CannotTell,
        gap: None,
    },
    Row {
        message: "[2026-12-07 22:28:29,093] [ WARNING] install_check.py:60 - You are using GPU version PaddlePaddle, but there is no GPU detected on your machine. Maybe CUDA devices is not set properly.\n Original Error is ",
        cite: "PaddlePaddle/Paddle python/paddle/utils/install_check.py@v2.6.2 (printed by the real paddlepaddle-gpu 2.6.2 wheel's run_check() on this project's machine, which has no driver)",
        env: paddle_2_6_2_wheel,
        machine: NONE,
        want: Want::Cause("nvidia-smi"),
        gap: None,
    },
    Row {
        message: "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx",
        cite: "pytorch/pytorch torch/cuda/__init__.py@v2.5.1 (_lazy_init; printed by the real torch 2.5.1 wheel on this project's machine, which has no driver)",
        env: torch,
        machine: NONE,
        want: Want::Cause("nvidia-smi"),
        gap: None,
    },
    Row {
        message: "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: \nCUDA driver library cannot be found.\nIf you are sure that a CUDA driver is installed,\ntry setting environment variable NUMBA_CUDA_DRIVER\nwith the file path of the CUDA driver shared library.\n",
        cite: "numba/numba numba/cuda/cudadrv/driver.py@0.60.0 (DRIVER_NOT_FOUND_MSG), as in https://github.com/serrob23/falsecolor/issues/73",
        env: numba_env,
        machine: NONE,
        want: Want::Cause("nvidia-smi"),
        gap: None,
    },
    Row {
        message: "2024-03-12 10:01:02.123456: W external/local_tsl/tsl/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcublas.so.12'; dlerror: libcublas.so.12: cannot open shared object file: No such file or directory",
        cite: "openxla/xla xla/tsl/platform/default/dso_loader.cc@tensorflow-v2.16.1 (tensorflow 2.16.1 without its [and-cuda] wheels; the TensorFlow install guide's fix is pip install tensorflow[and-cuda])",
        env: tf_216,
        machine: A100,
        want: Want::Cause("nvidia-cublas-cu12==12.3.4.1"),
        gap: None,
    },
    Row {
        message: "W tensorflow/core/common_runtime/gpu/gpu_device.cc:2251] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU. Follow the guide at https://www.tensorflow.org/install/gpu for how to download and setup the required libraries for your platform.\nSkipping registering GPU devices...",
        cite: "https://github.com/conda-forge/tensorflow-feedstock/issues/417 (the line after the ptxas warning; tensorflow@v2.16.1 tensorflow/core/common_runtime/gpu/gpu_device.cc)",
        env: tf_216,
        machine: A100,
        want: Want::Cause("nvidia-cudnn-cu12==8.9.7.29"),
        gap: None,
    },
    Row {
        message: "2026-12-06 02:50:37.318811: I external/local_tsl/tsl/platform/default/dso_loader.cc:70] Could not load dynamic library 'libnvinfer.so.8.6.1'; dlerror: libnvinfer.so.8.6.1: cannot open shared object file: No such file or directory",
        cite: "openxla/xla xla/tsl/platform/default/dso_loader.cc@tensorflow-v2.16.1 (printed by the real tensorflow 2.16.1 wheel on this project's machine: TF-TRT is optional)",
        env: tf_216,
        machine: A100,
        want: Want::Cause("tensorrt-libs==8.*"),
        gap: None,
    },
    Row {
        message: "2022-12-16 18:31:30.311235: W external/org_tensorflow/tensorflow/compiler/xla/service/gpu/nvptx_compiler.cc:497] The NVIDIA driver's CUDA version is 11.0 which is older than the ptxas CUDA version (11.6.124). Because the driver is older than the ptxas version, XLA is disabling parallel compilation, which may slow down compilation. You should update your NVIDIA driver or use the NVIDIA-provided CUDA forward compatibility packages.",
        cite: "https://github.com/YoshitakaMo/localcolabfold/issues/126 (ptxas of /usr/local/cuda 11.6, not the environment's; \"Your NVIDIA driver may be old\")",
        env: jax_no_nvcc,
        machine: &["--driver-version", "450.80.02"],
        want: Want::Cause("upgrade the NVIDIA driver to one that supports CUDA 11.6"),
        gap: None,
    },
    Row {
        message: "WARNING 06-13 11:42:20 _custom_ops.py:11] Failed to import from vllm._C with ImportError('/usr/local/lib/python3.8/dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN5torch7LibraryC1ENS0_4KindESsSt8optionalIN3c1011DispatchKeyEEPKcj')",
        cite: "https://github.com/vllm-project/vllm/issues/5501 (\"torch 2.3.0 is not installed\": the pair aligned; the thread raised torch to vllm's 2.3.0, envhook's fix keeps torch and lets pip choose vllm's release for it, check's extension-mismatch fix)",
        env: vllm_over_older_torch,
        machine: A100,
        want: Want::Cause("install 'torch==2.2.1' 'vllm'"),
        gap: None,
    },
    Row {
        message: "/onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1209 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : \nFAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object file: No such file or directory",
        cite: "https://github.com/stepfun-ai/Step-Audio-EditX/issues/3 (onnxruntime-gpu 1.17.0; upgrading to 1.23.2 fixed it)",
        env: ort_cuda11_build,
        machine: A100,
        want: Want::Cause("'onnxruntime-gpu>=1.2"),
        gap: None,
    },
];

/// Every row of the corpus, these and explain_corpus_more's.
pub fn rows() -> Vec<&'static Row> {
    ROWS.iter()
        .chain(super::explain_corpus_more::ROWS)
        .collect()
}

/// Every string a fix of the document says.
pub fn fixes(json: &Value) -> String {
    let mut out = String::new();
    let mut add = |f: &Value| {
        out.push_str(&f.to_string());
        out.push('\n');
    };
    for a in json["answers"].as_array().unwrap() {
        add(&a["fix"]);
    }
    for p in json["causes"].as_array().unwrap() {
        add(&p["fix"]);
    }
    for k in json["known"].as_array().unwrap() {
        add(&k["fix"]);
    }
    out
}

/// Whether envhook's answer is the thread's: recognised, the verdict and
/// its exit code, and for a cause, the fix that worked.
pub fn judged(json: &Value, code: i32, want: Want) -> Result<(), String> {
    if json["known"].as_array().unwrap().is_empty()
        && json["answers"].as_array().unwrap().is_empty()
    {
        return Err("not recognised".to_string());
    }
    let (verdict, exit) = match want {
        Want::Cause(_) => ("cause", 1),
        Want::NotHere => ("not-here", 0),
        Want::CannotTell => ("cannot-tell", 0),
        Want::NotEnvironment => ("not-environment", 3),
    };
    if json["verdict"] != verdict || code != exit {
        return Err(format!(
            "verdict {} (exit {code}), not {verdict}",
            json["verdict"]
        ));
    }
    if let Want::Cause(fix) = want
        && !fixes(json).contains(fix)
    {
        return Err(format!("no fix with {fix:?}"));
    }
    Ok(())
}

#[test]
fn the_corpus_of_real_messages() {
    let sb = Sandbox::new();
    let mut right = 0;
    let mut wrong: Vec<String> = Vec::new();
    let mut unexpected: Vec<String> = Vec::new();
    let rows = rows();
    for (i, row) in rows.iter().enumerate() {
        assert!(
            row.cite.contains("github.com/") || row.cite.contains('@'),
            "row {i} cites no thread or source: {}",
            row.cite
        );
        let env = (row.env)(&sb.path(&format!("envs/e{i}")));
        let (json, code) = explain_with(&sb, &env.prefix, row.message, row.machine, &[]);
        match (judged(&json, code, row.want), row.gap) {
            (Ok(()), None) => right += 1,
            (Err(why), Some(_)) => wrong.push(format!("{}: {why}", row.cite)),
            (Ok(()), Some(gap)) => unexpected.push(format!(
                "row {i} ({}) is answered right now: drop its gap ({gap})",
                row.cite
            )),
            (Err(why), None) => unexpected.push(format!("row {i} ({}): {why}\n{json:#}", row.cite)),
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n\n"));
    eprintln!(
        "{right} of {} real messages tied to the thread's cause; wrong: {wrong:#?}",
        rows.len()
    );
    assert_eq!(right + wrong.len(), rows.len());
}
