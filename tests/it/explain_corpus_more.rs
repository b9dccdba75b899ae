//! More rows of the corpus of real messages (#41), for the frameworks the
//! first rows cover least: Triton, vLLM, TensorRT, numba-cuda,
//! bitsandbytes, TensorFlow, JAX, ONNX Runtime. Judged with the first rows
//! by `explain_corpus`, the same way; a row whose `cite` says "printed by
//! the real ... wheel on this project's machine" was provoked on the
//! published wheel, without a GPU.

use crate::support;

use std::path::Path;

use super::explain_corpus::{Row, Want};
use support::explaining::{A100, tensorflow_216_bare, torch_cu128};
use support::{CondaPkg, Env, FileSpec, PipDist, cc_shared, cc_source};

const NONE: &[&str] = &[];

fn torch(p: &Path) -> Env {
    torch_cu128(p)
}

/// A shared object at `site`/`rel` whose DT_NEEDED names `needs` (each
/// built in a scratch directory, then removed: not in the environment).
fn needing(env: &Env, rel: &str, needs: &[&str]) {
    let scratch = env.prefix.with_extension("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let deps: Vec<std::path::PathBuf> = needs
        .iter()
        .map(|n| {
            let dep = scratch.join(n);
            cc_shared(&dep, n, &[], None, false);
            dep
        })
        .collect();
    let deps: Vec<&Path> = deps.iter().map(|d| d.as_path()).collect();
    let out = env.site().join(rel);
    let soname = out.file_name().unwrap().to_string_lossy().into_owned();
    cc_shared(&out, &soname, &deps, None, false);
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// bitsandbytes 0.41.1 over torch `version` built for `cuda`, with two of
/// its per-CUDA objects as the real ones are (bitsandbytes 0.45.0 from
/// PyPI, readelf -d): cuda118 needs CUDA 11's sonames, cuda124 CUDA 12's.
pub fn bitsandbytes_on(p: &Path, version: &'static str, cuda: &str) -> Env {
    let mut env = torch_build(p, version, cuda);
    let objects = [
        (
            "cuda118",
            [
                "libcudart.so.11.0",
                "libcublas.so.11",
                "libcublasLt.so.11",
                "libcusparse.so.11",
            ],
        ),
        (
            "cuda124",
            [
                "libcudart.so.12",
                "libcublas.so.12",
                "libcublasLt.so.12",
                "libcusparse.so.12",
            ],
        ),
    ];
    env.pip(PipDist::new("bitsandbytes", "0.41.1").files(vec![
        FileSpec::File("bitsandbytes/libbitsandbytes_cuda118.so"),
        FileSpec::File("bitsandbytes/libbitsandbytes_cuda124.so"),
    ]));
    for (cuda, needs) in objects {
        needing(
            &env,
            &format!("bitsandbytes/libbitsandbytes_{cuda}.so"),
            &needs,
        );
    }
    env
}

/// A pip wheel of one CUDA library: its distribution, version and file
/// under site-packages, a real ELF named by the file.
fn cuda_wheel(env: &mut Env, dist: &'static str, version: &'static str, rel: &'static str) {
    env.pip(PipDist::new(dist, version).files(vec![FileSpec::File(rel)]));
    let soname = Path::new(rel)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    cc_shared(&env.site().join(rel), &soname, &[], None, false);
}

/// onnxruntime-gpu `version` (a CUDA 11.8 build on PyPI) whose CUDA
/// provider needs `needs`.
fn ort_cuda11(env: &mut Env, version: &'static str, needs: &[&str]) {
    let rel = "onnxruntime/capi/libonnxruntime_providers_cuda.so";
    env.pip(PipDist::new("onnxruntime-gpu", version).files(vec![FileSpec::File(rel)]));
    needing(env, rel, needs);
}

/// microsoft/onnxruntime#21684: onnxruntime-gpu 1.18.0 from PyPI (CUDA
/// 11.8) beside torch 2.4's CUDA 12 wheels.
fn ort_118_over_cuda12(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.10.14");
    cuda_wheel(
        &mut env,
        "nvidia-cublas-cu12",
        "12.1.3.1",
        "nvidia/cublas/lib/libcublasLt.so.12",
    );
    cuda_wheel(
        &mut env,
        "nvidia-cudnn-cu12",
        "9.1.0.70",
        "nvidia/cudnn/lib/libcudnn.so.9",
    );
    ort_cuda11(&mut env, "1.18.0", &["libcublasLt.so.11", "libcudnn.so.8"]);
    env
}

/// microsoft/onnxruntime#19616: onnxruntime-gpu 1.17.0 alone, the CUDA
/// 12.2 toolkit and no cuDNN on the machine.
fn ort_117_alone(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.10.12");
    ort_cuda11(&mut env, "1.17.0", &["libcudart.so.11.0", "libcudnn.so.8"]);
    env
}

/// microsoft/onnxruntime#25609: onnxruntime-gpu 1.22.0 (CUDA 12) with
/// its CUDA 12 and cuDNN 9 wheels, which its provider has no RUNPATH to.
fn ort_122_with_wheels(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.12.3");
    cuda_wheel(
        &mut env,
        "nvidia-cuda-runtime-cu12",
        "12.9.79",
        "nvidia/cuda_runtime/lib/libcudart.so.12",
    );
    cuda_wheel(
        &mut env,
        "nvidia-cublas-cu12",
        "12.9.1.4",
        "nvidia/cublas/lib/libcublasLt.so.12",
    );
    cuda_wheel(
        &mut env,
        "nvidia-cudnn-cu12",
        "9.11.0.98",
        "nvidia/cudnn/lib/libcudnn.so.9",
    );
    let rel = "onnxruntime/capi/libonnxruntime_providers_cuda.so";
    env.pip(PipDist::new("onnxruntime-gpu", "1.22.0").files(vec![FileSpec::File(rel)]));
    needing(
        &env,
        rel,
        &["libcudart.so.12", "libcublasLt.so.12", "libcudnn.so.9"],
    );
    env
}

/// vLLM over a torch whose libtorch_cpu.so lacks `symbol`, which vLLM's
/// `_C` (`object`) needs: vLLM `vllm` requiring `requires`, over `torch`.
fn vllm_over(
    p: &Path,
    torch: (&'static str, &'static str),
    vllm: (&'static str, &'static str),
    object: &'static str,
    symbol: &str,
) -> Env {
    let mut env = Env::new(p);
    env.python("3.10.12");
    let lib = env.site().join("torch/lib");
    let (version, cuda) = torch;
    env.pip(
        PipDist::new("torch", version.split('+').next().unwrap())
            .files(vec![
                FileSpec::File("torch/lib/libtorch_cpu.so"),
                FileSpec::File("torch/lib/libtorch_cuda.so"),
            ])
            .text(
                "torch/version.py",
                format!("__version__ = '{version}'\ndebug = False\ncuda = '{cuda}'\nhip = None\n"),
            ),
    );
    let cpu = lib.join("libtorch_cpu.so");
    cc_source(
        &cpu,
        "libtorch_cpu.so",
        "int torch_cpu_part(void) { return 0; }\n",
        &[],
    );
    cc_source(
        &lib.join("libtorch_cuda.so"),
        "libtorch_cuda.so",
        "int cuda_part(void) { return 0; }\n",
        &[],
    );
    let (release, requires) = vllm;
    env.pip(
        PipDist::new("vllm", release)
            .requires(vec![requires])
            .files(vec![FileSpec::File(object)]),
    );
    let name = Path::new(object)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    cc_source(
        &env.site().join(object),
        &name,
        &format!("int {symbol}(void);\nint PyInit__C(void) {{ return {symbol}(); }}\n"),
        &[&cpu],
    );
    env
}

/// The symbol of vllm-project/vllm#3147: at::_ops::to_dtype_layout::call
/// with c10::optional arguments, as torch 2.1 defines it.
const TO_DTYPE_LAYOUT_21: &str = "_ZN2at4_ops15to_dtype_layout4callERKNS_6TensorEN3c108optionalINS5_10ScalarTypeEEENS6_INS5_6LayoutEEENS6_INS5_6DeviceEEENS6_IbEEbbNS6_INS5_12MemoryFormatEEE";

/// vllm-project/vllm#3147: vllm 0.3.2 (built for torch 2.1.2, its own
/// requirement) over torch 2.2.1.
fn vllm_032_over_torch_221(p: &Path) -> Env {
    vllm_over(
        p,
        ("2.2.1+cu121", "12.1"),
        ("0.3.2", "torch ==2.1.2"),
        "vllm/_C.cpython-310-x86_64-linux-gnu.so",
        TO_DTYPE_LAYOUT_21,
    )
}

/// tensorflow/tensorflow#64809: tensorflow 2.16.1 (TF-TRT looks for
/// TensorRT 8.6.1) with TensorRT 10's libraries from pip.
fn tf_216_trt10(p: &Path) -> Env {
    let mut env = tensorflow_216_bare(p);
    cuda_wheel(
        &mut env,
        "tensorrt-cu12-libs",
        "10.0.1",
        "tensorrt_libs/libnvinfer.so.10",
    );
    env
}

/// tensorflow 2.4.0 from pip (built for CUDA 11.0, whose cuSOLVER is
/// libcusolver.so.10) over conda's cudatoolkit 11.1 (libcusolver.so.11):
/// lipzh5/ResearchProgress#17, as tensorflow/tensorflow#44777.
fn tf_24_over_cuda111(p: &Path) -> Env {
    let mut env = Env::new(p);
    env.python("3.8.10");
    env.conda(
        CondaPkg::new("cudatoolkit", "11.1.74", "h6bb024c_0").files(vec![
            FileSpec::File("lib/libcudart.so.11.1.74"),
            FileSpec::Link("lib/libcudart.so.11.0", "libcudart.so.11.1.74"),
            FileSpec::File("lib/libcusolver.so.11.0.1.105"),
            FileSpec::Link("lib/libcusolver.so.11", "libcusolver.so.11.0.1.105"),
        ]),
    );
    env.pip(
        PipDist::new("tensorflow", "2.4.0").files(vec![FileSpec::File(
            "tensorflow/python/_pywrap_tensorflow_internal.so",
        )]),
    );
    env
}

/// jax `jax` over jaxlib `jaxlib` (CPU wheels), from pip.
fn jax_pair(p: &Path, jax: &'static str, jaxlib: &'static str) -> Env {
    let mut env = Env::new(p);
    env.python("3.10.12");
    env.pip(PipDist::new("jax", jax));
    env.pip(PipDist::new("jaxlib", jaxlib).files(vec![FileSpec::File("jaxlib/xla_extension.so")]));
    env
}

/// google-deepmind/weathernext#48: Colab's jaxlib 0.3.25 under a jax
/// that requires 0.4.19 (0.4.23, Colab's at the time).
fn jax_0423_jaxlib_0325(p: &Path) -> Env {
    jax_pair(p, "0.4.23", "0.3.25")
}

/// delalamo/af2_conformations#17: jax 0.3.25 under jaxlib 0.4.7.
fn jax_0325_jaxlib_047(p: &Path) -> Env {
    jax_pair(p, "0.3.25", "0.4.7")
}

/// numba-cuda 0.30.4 over numba 0.68.1 from pip, with `requires` (its
/// METADATA's lines that matter here).
fn numba_cuda(p: &Path, requires: Vec<&'static str>) -> Env {
    let mut env = Env::new(p);
    env.python("3.11.2");
    env.pip(PipDist::new("numba", "0.68.1"));
    env.pip(PipDist::new("numba-cuda", "0.30.4").requires(requires));
    env
}

/// numba-cuda 0.30.4 with its `cu12` extra, as PyPI installs it (the
/// real environment that printed the driver row here).
fn numba_cuda_cu12(p: &Path) -> Env {
    let mut env = numba_cuda(
        p,
        vec!["cuda-toolkit[cccl,cudart,nvcc,nvrtc]==12.*; extra == \"cu12\""],
    );
    env.pip(PipDist::new("cuda-toolkit", "12.9.2.0"));
    let rel = "nvidia/cuda_runtime/lib/libcudart.so.12";
    cuda_wheel(&mut env, "nvidia-cuda-runtime-cu12", "12.9.79", rel);
    env
}

/// numba-cuda 0.30.4 without either CUDA extra, as `pip install
/// numba-cuda` leaves it: no CUDA runtime wheel.
fn numba_cuda_bare(p: &Path) -> Env {
    let mut env = numba_cuda(
        p,
        vec![
            "cuda-pathfinder<2.0.0,>=1.4.0",
            "cuda-toolkit[cccl,cudart,nvcc,nvrtc]==12.*; extra == \"cu12\"",
            "cuda-toolkit[cccl,cudart,nvrtc,nvvm]==13.*; extra == \"cu13\"",
        ],
    );
    env.pip(PipDist::new("cuda-pathfinder", "1.9.1"));
    env
}

/// sxyu/plenoctree#22: jax 0.3.9 under jaxlib 0.1.57.
fn jax_039_jaxlib_0157(p: &Path) -> Env {
    jax_pair(p, "0.3.9", "0.1.57")
}

/// torch `version` from the PyTorch index, built for CUDA `cuda`.
fn torch_build(p: &Path, version: &'static str, cuda: &str) -> Env {
    let mut env = Env::new(p);
    env.python("3.8.10");
    env.pip(
        PipDist::new("torch", version)
            .files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")])
            .text(
                "torch/version.py",
                format!("__version__ = '{version}'\ncuda: Optional[str] = '{cuda}'\nhip: Optional[str] = None\n"),
            ),
    );
    env
}

/// MRzzm/DINet#100: torch 1.7.1+cu101, DINet's requirement.
fn torch_171_cu101(p: &Path) -> Env {
    torch_build(p, "1.7.1+cu101", "10.1")
}

/// niuchuangnn/SPICE#26: a torch for CUDA 10.2, whose architectures the
/// message lists (sm_37 to sm_75 and compute_37: the cu102 builds').
fn torch_cu102(p: &Path) -> Env {
    torch_build(p, "1.7.1+cu102", "10.2")
}

const RTX3090: &[&str] = &["--driver-version", "535.104.05", "--gpu", "RTX 3090"];

pub const ROWS: &[Row] = &[
    // ------------------------------------------------------------ torch ----
    Row {
        message: "NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.",
        cite: "https://github.com/MRzzm/DINet/issues/100 (torch==1.7.1+cu101 on an RTX 3090; a torch built with CUDA 11 fixed it)",
        env: torch_171_cu101,
        machine: RTX3090,
        want: Want::Cause("download.pytorch.org/whl/cu1"),
        gap: None,
    },
    Row {
        message: "UserWarning: NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_61 sm_70 sm_75 compute_37.\nIf you want to use the NVIDIA GeForce RTX 3090 GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/",
        cite: "https://github.com/niuchuangnn/SPICE/issues/26 (\"I can run the code using pytorch 1.7.0 with CUDA 11.0\")",
        env: torch_cu102,
        machine: RTX3090,
        want: Want::Cause("download.pytorch.org/whl/cu1"),
        gap: None,
    },
    // ----------------------------------------------------------- Triton ----
    Row {
        message: "AssertionError: libcuda.so cannot found!\nPlease make sure GPU is set up and then run \"/sbin/ldconfig\" (requires sudo) to refresh the linker cache.",
        cite: "triton-lang/triton third_party/nvidia/backend/driver.py@v3.1.0 (libcuda_dirs; printed by the real triton 3.1.0 wheel, torch 2.5.1's, on this project's machine, which has no driver)",
        env: torch,
        machine: NONE,
        want: Want::Cause("nvidia-smi"),
        gap: None,
    },
    Row {
        message: "AssertionError: libcuda.so cannot found!\nPossible files are located at ['/lib64/libcuda.so.1'].Please create a symlink of libcuda.so to any of the file.",
        cite: "https://github.com/triton-lang/triton/pull/2883 (desktable's review: triton 2.x python/triton/common/build.py wants the unversioned libcuda.so beside libcuda.so.1; TRITON_LIBCUDA_PATH or the link fixed it, as state-spaces/mamba#123)",
        env: torch,
        machine: A100,
        want: Want::Cause("TRITON_LIBCUDA_PATH"),
        gap: Some(
            "the thread's /lib64/libcuda.so.1 without its unversioned link is the machine's, which a row cannot lay out: explain reads this machine, which has no driver, and says so",
        ),
    },
    // ------------------------------------------------------------- vLLM ----
    Row {
        message: "ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN2at4_ops15to_dtype_layout4callERKNS_6TensorEN3c108optionalINS5_10ScalarTypeEEENS6_INS5_6LayoutEEENS6_INS5_6DeviceEEENS6_IbEEbbNS6_INS5_12MemoryFormatEEE",
        cite: "https://github.com/vllm-project/vllm/issues/3147 (vllm 0.3.2 over torch 2.2.1: \"solved by downgrading torch to 2.1.2\", the release vllm requires: the pair aligned; envhook's fix keeps torch and lets pip choose vllm's release for it, check's extension-mismatch fix, as for vllm-project/vllm#5501)",
        env: vllm_032_over_torch_221,
        machine: A100,
        want: Want::Cause("install 'torch==2.2.1' 'vllm'"),
        gap: None,
    },
    // --------------------------------------------------------- TensorRT ----
    Row {
        message: "2024-06-04 15:42:11.291621: I external/local_tsl/tsl/platform/default/dso_loader.cc:70] Could not load dynamic library 'libnvinfer.so.8.6.1'; dlerror: libnvinfer.so.8.6.1: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: :/home/zilla/miniconda3/lib/\n2024-06-04 15:42:11.291687: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT",
        cite: "https://github.com/tensorflow/tensorflow/issues/64809 (tensorflow 2.16 looks for TensorRT 8.6.1; the environment's TensorRT is 10: libnvinfer.so.10)",
        env: tf_216_trt10,
        machine: A100,
        want: Want::Cause("tensorrt"),
        gap: None,
    },
    // ------------------------------------------------------- TensorFlow ----
    Row {
        message: "2021-01-09 12:25:10.511045: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libcusolver.so.10'; dlerror: libcusolver.so.10: cannot open shared object file: No such file or directory",
        cite: "https://github.com/lipzh5/ResearchProgress/issues/17 (tensorflow 2.4.0 with CUDA 11.1, whose cuSOLVER is libcusolver.so.11; as tensorflow/tensorflow#44777: CUDA 11.0's cuSOLVER, or TensorFlow 2.5, fixed it)",
        env: tf_24_over_cuda111,
        machine: A100,
        want: Want::Cause("cusolver"),
        gap: Some(
            "the data's TensorFlow dlopen rows start at 2.12: nothing says TensorFlow 2.4 asks for libcusolver.so.10, so explain says the message came from elsewhere",
        ),
    },
    // -------------------------------------------------------------- JAX ----
    Row {
        message: "RuntimeError: jaxlib is version 0.3.25, but this version of jax requires version >= 0.4.19.",
        cite: "https://github.com/google-deepmind/weathernext/issues/48 (\"just update your jaxlib version\")",
        env: jax_0423_jaxlib_0325,
        machine: NONE,
        want: Want::Cause("jaxlib>=0.4.19"),
        gap: None,
    },
    Row {
        message: "RuntimeError: jaxlib version 0.4.7 is newer than and incompatible with jax version 0.3.25. Please update your jax and/or jaxlib packages.",
        cite: "https://github.com/delalamo/af2_conformations/issues/17 (jax 0.3.25 under jaxlib 0.4.7; the message's own fix, as jax-ml/jax#17638)",
        env: jax_0325_jaxlib_047,
        machine: NONE,
        want: Want::Cause("jax==0.4.7"),
        gap: None,
    },
    Row {
        message: "RuntimeError: jaxlib is version 0.1.57, but this version of jax requires version >= 0.3.7.",
        cite: "https://github.com/sxyu/plenoctree/issues/22 (jax 0.3.9 with jaxlib 0.1.57; the message's own fix, as google-deepmind/weathernext#48)",
        env: jax_039_jaxlib_0157,
        machine: NONE,
        want: Want::Cause("jaxlib>=0.3.7"),
        gap: None,
    },
    // ----------------------------------------------------- ONNX Runtime ----
    Row {
        message: "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object file: No such file or directory",
        cite: "https://github.com/microsoft/onnxruntime/issues/21684 (tianleiwu: for CUDA 12 and cuDNN 9, as torch 2.4 brings, pip install onnxruntime-gpu==1.19.2)",
        env: ort_118_over_cuda12,
        machine: A100,
        want: Want::Cause("'onnxruntime-gpu>=1.2"),
        gap: None,
    },
    Row {
        message: "2024-02-23 12:12:19.240097373 [E:onnxruntime:Default, provider_bridge_ort.cc:1546 TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1209 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.8: cannot open shared object file: No such file or directory",
        cite: "https://github.com/microsoft/onnxruntime/issues/19616 (onnxruntime-gpu 1.17.0 with no cuDNN: \"make sure you have the correct cuDNN version installed\")",
        env: ort_117_alone,
        machine: A100,
        want: Want::Cause("cudnn"),
        gap: None,
    },
    Row {
        message: "2025-07-31 15:09:16.647314988 [E:onnxruntime:Default, provider_bridge_ort.cc:2195 TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1778 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object file: No such file or directory",
        cite: "https://github.com/microsoft/onnxruntime/issues/25609 (onnxruntime-gpu 1.22.0 with nvidia-cudnn-cu12 installed: the wheel's directory is not on the loader's path)",
        env: ort_122_with_wheels,
        machine: A100,
        want: Want::Cause("envhook install"),
        gap: None,
    },
    // ------------------------------------------------------- numba-cuda ----
    Row {
        message: "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: \n\nCUDA driver library cannot be found.\nEnsure that a compatible NVIDIA driver is installed and available on your system path.\n:",
        cite: "NVIDIA/numba-cuda numba_cuda/numba/cuda/cudadrv/driver.py@v0.30.4 (DRIVER_NOT_FOUND_MSG; printed by the real numba-cuda[cu12] 0.30.4 wheels at cuda.current_context() on this project's machine, which has no driver)",
        env: numba_cuda_cu12,
        machine: NONE,
        want: Want::Cause("nvidia-smi"),
        gap: None,
    },
    Row {
        message: "cuda.pathfinder._dynamic_libs.load_dl_common.DynamicLibNotFoundError: Failure finding \"libcudart.so.13 or libcudart.so.12\": No such file: libcudart.so.13 or libcudart.so.12, No such file: libcudart.so.13 or libcudart.so.12",
        cite: "NVIDIA/numba-cuda numba_cuda/numba/cuda/debuginfo.py@v0.30.4 (printed by the real numba-cuda 0.30.4 wheel, installed without its cu12 or cu13 extra, at `from numba import cuda` on this project's machine)",
        env: numba_cuda_bare,
        machine: NONE,
        want: Want::Cause("numba-cuda[cu1"),
        gap: None,
    },
];

// What the corpus rows rest on, as `check` says it: explain's answers and
// check's findings come from the same rules.

/// numba's own driver search (data/packages.toml `driver_user`): an
/// environment with numba-cuda or numba and nothing else of CUDA's still
/// needs a driver, and on this machine (none) check says there is none;
/// one without them does not.
#[test]
fn a_package_that_opens_the_driver_itself_needs_one() {
    let sb = support::Sandbox::new();
    for (name, env) in [
        ("numba-cuda", numba_cuda_cu12(&sb.path("envs/nc"))),
        ("numba-cuda bare", numba_cuda_bare(&sb.path("envs/bare"))),
    ] {
        let (json, _) = support::check_json(&sb, &env.prefix, &[]);
        assert!(
            !support::findings_of(&json, "no-driver").is_empty(),
            "{name}: {:#}",
            json["findings"]
        );
    }
    let mut plain = Env::new(sb.path("envs/plain"));
    plain.python("3.11.2");
    plain.pip(PipDist::new("requests", "2.32.3"));
    let (json, _) = support::check_json(&sb, &plain.prefix, &[]);
    assert!(
        support::findings_of(&json, "no-driver").is_empty(),
        "{json:#}"
    );
}

/// bitsandbytes loads the object for its torch's CUDA (data/packages.toml
/// `picked_library`): under torch cu124 its cuda118 object, whose CUDA 11
/// libraries nothing here has, is not read; under torch cu118 it is the
/// one read, and its missing cuSPARSE 11 is a finding with CUDA 11.8's fix.
#[test]
fn bitsandbytes_is_read_for_the_cuda_of_its_torch() {
    let sb = support::Sandbox::new();
    let cu124 = bitsandbytes_on(&sb.path("envs/cu124"), "2.5.1+cu124", "12.4");
    let (json, _) = support::check_json(&sb, &cu124.prefix, A100);
    let text = json.to_string();
    assert!(
        !text.contains("libcusparse.so.11"),
        "{:#}",
        json["findings"]
    );
    assert!(text.contains("libcusparse.so.12"), "{:#}", json["findings"]);
    let cu118 = bitsandbytes_on(&sb.path("envs/cu118"), "2.0.1+cu118", "11.8");
    let (json, _) = support::check_json(&sb, &cu118.prefix, A100);
    let missing = support::findings_of(&json, "library-not-found");
    let bnb = missing
        .iter()
        .find(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .contains("bitsandbytes 0.41.1")
        })
        .unwrap_or_else(|| panic!("{:#}", json["findings"]));
    assert!(
        bnb["message"]
            .as_str()
            .unwrap()
            .contains("libcusparse.so.11"),
        "{bnb:#}"
    );
    assert!(
        !bnb["message"].as_str().unwrap().contains(".so.12"),
        "{bnb:#}"
    );
    assert!(bnb["fix"].to_string().contains("11.8"), "{bnb:#}");
}

/// onnxruntime-gpu 1.18 (CUDA 11.8 on PyPI) among CUDA 12's wheels: check's
/// fix is its CUDA 12 build from PyPI (1.19 on), in place of the old one,
/// not CUDA 11's libraries beside CUDA 12's.
#[test]
fn a_cuda11_build_among_cuda12_wheels_is_replaced_by_its_cuda12_build() {
    let sb = support::Sandbox::new();
    let env = ort_118_over_cuda12(&sb.path("envs/ort"));
    let (json, _) = support::check_json(&sb, &env.prefix, A100);
    let missing = support::findings_of(&json, "library-not-found");
    let ort = missing
        .iter()
        .find(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .contains("onnxruntime-gpu 1.18.0")
        })
        .unwrap_or_else(|| panic!("{:#}", json["findings"]));
    let fix = ort["fix"].to_string();
    assert!(fix.contains("uninstall -y 'onnxruntime-gpu'"), "{fix}");
    assert!(fix.contains("'onnxruntime-gpu>=1.2"), "{fix}");
    assert!(!fix.contains("cu11"), "{fix}");
}

/// cuda-pathfinder's "Failure finding \"libcudart.so.13 or
/// libcudart.so.12\"" where numba-cuda now has its CUDA 13 runtime (the
/// real numba-cuda 0.30.4 after `pip install 'numba-cuda[cu13]'`, the
/// corpus row's fix): pathfinder takes either soname and finds
/// libcudart.so.13, so libcudart.so.12 is no cause and CUDA 13's toolkit
/// no fix (#41: explain said "only libcudart.so.13, which the build cannot
/// use" after the fix).
#[test]
fn a_pathfinder_request_served_by_its_other_soname_is_not_here() {
    let sb = support::Sandbox::new();
    let mut env = numba_cuda_bare(&sb.path("envs/cu13"));
    env.pip(PipDist::new("cuda-toolkit", "13.0.2"));
    let rel = "nvidia/cu13/lib/libcudart.so.13";
    cuda_wheel(&mut env, "nvidia-cuda-runtime", "13.0.96", rel);
    let message = "cuda.pathfinder._dynamic_libs.load_dl_common.DynamicLibNotFoundError: Failure finding \"libcudart.so.13 or libcudart.so.12\": No such file: libcudart.so.13 or libcudart.so.12, No such file: libcudart.so.13 or libcudart.so.12";
    let (json, code) = support::explaining::explain(&sb, &env.prefix, message, NONE);
    let twelve = json["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["clue"]["name"] == "libcudart.so.12")
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(twelve["verdict"], "not-here", "{twelve:#}");
    assert_eq!(json["verdict"], "not-here", "{json:#}");
    assert_eq!(code, 0);
}

/// The CUDA 11 build's message (microsoft/onnxruntime#21684) where the
/// fix has put in onnxruntime-gpu's CUDA 12 build: nothing asks for
/// libcublasLt.so.11, cuda-pathfinder loads cuBLASLt only in the major
/// the libraries that need it ask for, and CUDA 12.2's cuBLAS is no fix
/// (#41: explain said "which the build cannot use" and printed one,
/// after the fix on the real wheels).
#[test]
fn another_major_nothing_asks_for_itself_is_not_here() {
    let sb = support::Sandbox::new();
    let env = ort_122_with_wheels(&sb.path("envs/ort122"));
    let message = "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object file: No such file or directory";
    let (json, code) = support::explaining::explain(&sb, &env.prefix, message, A100);
    let eleven = json["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["clue"]["name"] == "libcublasLt.so.11")
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(eleven["verdict"], "not-here", "{eleven:#}");
    assert!(eleven["fix"].is_null(), "{eleven:#}");
    assert_eq!(code, 0, "{json:#}");
}
