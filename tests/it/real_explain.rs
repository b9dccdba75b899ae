//! Opt-in tier: `envhook explain` on the corpus of real messages (#41,
//! tests/it/explain_corpus.rs) against real environments: PyPI's wheels in
//! prefixes shaped like conda environments (`tests/real-wheels/make-prefix.sh`,
//! kept in `ENVHOOK_REAL_WHEELS_DIR`), in the state each thread shows. Off
//! unless `ENVHOOK_REAL_WHEELS=1`; about 12 GB of downloads, 9 GB on disk
//! with every state kept.
//!
//! Each row is held to its thread's resolution by the fixture corpus's own
//! judgement ([`judged`]). Where the answer carries a fix that is a
//! command, the fix is run as printed in a copy of the state, the state must
//! have changed as the thread's resolution says, and where the message can
//! be provoked without a GPU (an import, `ctypes.CDLL` under
//! `LD_BIND_NOW=1`, the framework's own version checks), it is provoked in
//! the state first (it must be there: the state is the thread's) and again
//! after the fix (it must be gone). Rows whose state cannot be made here
//! are in [`FIXTURE_ONLY`], each with why.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::Value;

use super::explain_corpus::{Row, Want, fixes, judged, rows};
use crate::support::real_wheels::{cache_dir, enabled, envhook, follow, made, python};

/// One state at a time: several are GB, and copies share their files.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// An environment as the thread shows it, made from PyPI's wheels: `base`
/// copied (hard links: pip unlinks a file before writing it) and then
/// `then`'s pip arguments run, or `requirements` installed by
/// `ENVHOOK_REAL_WHEELS_PYTHON` (3.11 for the wheels named here).
struct State {
    name: &'static str,
    requirements: &'static [&'static str],
    base: Option<&'static State>,
    then: &'static [&'static [&'static str]],
}

const fn state(name: &'static str, requirements: &'static [&'static str]) -> State {
    State {
        name,
        requirements,
        base: None,
        then: &[],
    }
}

const TORCH: State = state("torch251", &["torch==2.5.1"]);
/// pytorch/pytorch#131312: torch's nvJitLink downgraded under cuSPARSE's.
const TORCH_OLD_NVJITLINK: State = State {
    name: "torch251-nvjitlink121",
    base: Some(&TORCH),
    then: &[&["install", "--no-deps", "nvidia-nvjitlink-cu12==12.1.105"]],
    ..TORCH
};
const PADDLE: State = state("paddle262", &["paddlepaddle-gpu==2.6.2", "setuptools"]);
const JAX_0424: State = state(
    "jax0424",
    &[
        "jax==0.4.24",
        "jaxlib==0.4.24",
        "nvidia-cuda-nvcc-cu12==12.3.107",
        "numpy<2",
        "scipy<1.13",
    ],
);
const JAX_0428: State = state(
    "jax0428",
    &[
        "jax==0.4.28",
        "jaxlib==0.4.28",
        "nvidia-cuda-nvcc-cu12==12.5.40",
        "numpy<2",
        "scipy<1.13",
    ],
);
const JAX_0436: State = state("jax0436", &["jax==0.4.36", "jaxlib==0.4.36"]);
/// jax-ml/jax#24684's pair, as `pip install jaxlib==0.4.35` leaves it.
const JAX_0436_JAXLIB_0435: State = State {
    name: "jax0436-jaxlib0435",
    base: Some(&JAX_0436),
    then: &[&["install", "--no-deps", "jaxlib==0.4.35"]],
    ..JAX_0436
};
const CUPY_11: State = state(
    "cupy11",
    &["cupy-cuda11x==13.4.1", "nvidia-cuda-runtime-cu11==11.8.89"],
);
const NUMBA: State = state("numba060", &["numba==0.60.0"]);
const NUMBA_CUDA: State = state("ncbare", &["numba-cuda==0.30.4"]);
const NUMBA_CUDA_12: State = state("ncu12", &["numba-cuda[cu12]==0.30.4"]);
/// numpy 1, which ONNX Runtime 1.17 and 1.18 were built against.
const ORT_117: State = state("ort117", &["onnxruntime-gpu==1.17.0", "numpy<2"]);
/// microsoft/onnxruntime#21684: onnxruntime-gpu 1.18.0 (CUDA 11.8 on
/// PyPI) beside torch's CUDA 12 wheels.
const ORT_118: State = State {
    name: "torch251-ort118",
    base: Some(&TORCH),
    then: &[&["install", "onnxruntime-gpu==1.18.0", "numpy<2"]],
    ..TORCH
};
const ORT_122: State = state(
    "ort122",
    &[
        "onnxruntime-gpu==1.22.0",
        "nvidia-cuda-runtime-cu12==12.9.79",
        "nvidia-cublas-cu12==12.9.1.4",
        "nvidia-cudnn-cu12==9.11.0.98",
    ],
);
const TF_216: State = state("tf216", &["tensorflow==2.16.1"]);

/// The message provoked without a GPU: `code` in the prefix's Python
/// (through `envhook run` after a fix that installs the hook) prints
/// `shows` in the thread's state; after the fix it must not, and must
/// print `then` (what works now: a failure can hide a message too).
struct Provoke {
    code: &'static str,
    env: &'static [(&'static str, &'static str)],
    shows: &'static str,
    then: &'static str,
}

/// ONNX Runtime 1.18's CUDA provider beside CUDA 12's wheels: it cannot
/// load cuBLASLt 11; after the fix it loads.
const ORT_CUBLAS11: Provoke = Provoke {
    code: ORT_PROVIDER,
    env: &[],
    shows: "libcublasLt.so.11: cannot open shared object file",
    then: "provider loaded",
};

/// An ONNX Runtime CUDA provider that lacks some library; after the fix
/// it loads.
const ORT_CANNOT_OPEN: Provoke = Provoke {
    code: ORT_PROVIDER,
    env: &[],
    shows: "cannot open shared object file",
    then: "provider loaded",
};

/// A corpus row explained against a real state.
struct Real {
    /// A part of the row's `cite` no other row's has.
    cite: &'static str,
    state: &'static State,
    provoke: Option<Provoke>,
    /// After the printed fix: each distribution's version satisfies the
    /// specifier (`absent`: not installed).
    fixed: &'static [(&'static str, &'static str)],
    /// Why the printed fix cannot be followed here, where it cannot.
    not_followed: Option<&'static str>,
    /// Why explain still says `cause` after the fix, where it must: the
    /// message names what the fix removed, which explain then takes for a
    /// cause outside the environment.
    cause_after_fix: Option<&'static str>,
    /// The thread's resolution as the real wheels state it, where they
    /// state it otherwise than the fixture (the comment beside it says
    /// why); else the row's `want`.
    want_here: Option<Want>,
}

/// A thread of ONNX Runtime 1.18 (CUDA 11.8) beside CUDA 12's wheels,
/// settled by a CUDA 12 build (1.19 or newer).
const fn ort_118_replaced(cite: &'static str) -> Real {
    Real {
        provoke: Some(ORT_CUBLAS11),
        fixed: &[("onnxruntime-gpu", ">=1.19")],
        ..real(cite, &ORT_118)
    }
}

const fn real(cite: &'static str, state: &'static State) -> Real {
    Real {
        cite,
        state,
        provoke: None,
        fixed: &[],
        not_followed: None,
        cause_after_fix: None,
        want_here: None,
    }
}

/// `ctypes.CDLL` of ONNX Runtime's CUDA provider, every symbol bound now,
/// in a child whose loader says (`LD_DEBUG=files`) whether the provider's
/// initializer ran: it runs only once every library is loaded and bound,
/// and then, with no driver here, may crash the child.
const ORT_PROVIDER: &str = r#"import os, re, subprocess, sys
code = ("import ctypes, os, onnxruntime\n"
        "ctypes.CDLL(os.path.join(os.path.dirname(onnxruntime.__file__), "
        "'capi/libonnxruntime_providers_cuda.so'), os.RTLD_NOW)")
r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                   env=dict(os.environ, LD_BIND_NOW='1', LD_DEBUG='files'))
lines = r.stderr.splitlines()
if any('calling init:' in l and l.endswith('/libonnxruntime_providers_cuda.so') for l in lines):
    print('provider loaded: its initializer ran')
print('\n'.join(l for l in lines if not re.match(r'\s*\d+:', l)))
"#;

/// TensorFlow's own `TryDlopenCUDALibraries`, as its GPU device discovery
/// calls it (see real_wheels.rs), logging each library it opens or not.
const TF_DLOPEN: &str = "import ctypes, os, tensorflow as tf\n\
    lib = ctypes.CDLL(os.path.join(os.path.dirname(tf.__file__), 'libtensorflow_framework.so.2'))\n\
    f = lib._ZN3tsl8internal9DsoLoader22TryDlopenCUDALibrariesEv\n\
    f.argtypes = [ctypes.c_void_p]\n\
    buf = ctypes.create_string_buffer(64)\n\
    f(ctypes.addressof(buf))";
const TF_LOG: &[(&str, &str)] = &[
    ("TF_CPP_MAX_VLOG_LEVEL", "1"),
    ("TF_CPP_MIN_LOG_LEVEL", "0"),
];

const fn jax_import(shows: &'static str, then: &'static str) -> Option<Provoke> {
    Some(Provoke {
        code: "import jax; print('jax', jax.__version__)",
        env: &[],
        shows,
        then,
    })
}

const REAL: &[Real] = &[
    // ---------------------------------------------------------- torch ----
    real("Person_reID_baseline_pytorch/issues/372", &TORCH),
    real("simple-faster-rcnn-pytorch/issues/198", &TORCH),
    real("pytorch-image-models/issues/1077", &TORCH),
    real("pytorch/pytorch/issues/59778", &TORCH),
    real("pytorch/pytorch/issues/16417", &TORCH),
    real("evo-design/evo/issues/136", &TORCH),
    real("VICO-UoE/MTPSL/issues/3", &TORCH),
    real("replicate/cog-svd/issues/11", &TORCH),
    real("pytorch/pytorch/issues/159954", &TORCH),
    real("Djdefrag/QualityScaler/issues/9", &TORCH),
    real("c10/cuda/CUDAFunctions.cpp@v2.5.1", &TORCH),
    // torch 2.5.1 (CUDA 12.4) was built for the message's architectures
    // (get_arch_list() is empty without a GPU, the flags it reads are
    // not).
    Real {
        not_followed: Some(
            "the fix installs from download.pytorch.org, which this machine cannot reach",
        ),
        provoke: Some(Provoke {
            code: "import torch; print(torch._C._cuda_getArchFlags())",
            env: &[],
            shows: "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
            then: "",
        }),
        ..real("xorbitsai/inference/issues/3603", &TORCH)
    },
    Real {
        provoke: Some(Provoke {
            code: "import torch; torch.cuda.init()",
            env: &[],
            shows: "Found no NVIDIA driver on your system",
            then: "",
        }),
        ..real("torch/cuda/__init__.py@v2.5.1", &TORCH)
    },
    Real {
        provoke: Some(Provoke {
            code: "from triton.backends.nvidia.driver import libcuda_dirs; libcuda_dirs()",
            env: &[],
            shows: "libcuda.so cannot found!",
            then: "",
        }),
        ..real("backend/driver.py@v3.1.0", &TORCH)
    },
    Real {
        provoke: Some(Provoke {
            code: "import torch\n\
                   print(*{l.split()[-1] for l in open('/proc/self/maps') if 'libnvJitLink' in l})",
            env: &[],
            shows: "undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12",
            then: "site-packages/nvidia/nvjitlink/lib/libnvJitLink.so.12",
        }),
        fixed: &[("nvidia-nvjitlink-cu12", ">=12.4")],
        // The thread's "12.4 or newer" is, for the real torch 2.5.1, its
        // own pin nvidia-nvjitlink-cu12==12.4.127 (the fixture has no
        // torch METADATA, so no pin: ">=12.4").
        want_here: Some(Want::Cause("nvidia-nvjitlink-cu12==12.4")),
        ..real("pytorch/pytorch/issues/131312", &TORCH_OLD_NVJITLINK)
    },
    // ----------------------------------------------------------- Paddle ----
    real("gpu_resources.cc@v2.6.2", &PADDLE),
    real("PaddlePaddle/PaddleGAN/issues/587", &PADDLE),
    Real {
        provoke: Some(Provoke {
            code: "import paddle; paddle.utils.run_check()",
            env: &[],
            shows: "there is no GPU detected on your machine",
            then: "",
        }),
        ..real("install_check.py@v2.6.2", &PADDLE)
    },
    // The thread's 2.3.1.post112 is on Paddle's own index; PyPI's 2.6.2
    // alone is the same state: a Paddle and no cuDNN anywhere.
    Real {
        provoke: Some(Provoke {
            code: "import paddle; print('cudnn', paddle.device.get_cudnn_version())\n\
                   print(*{l.split()[-1] for l in open('/proc/self/maps') if 'libcudnn.so' in l})",
            env: &[],
            shows: "cudnn None",
            // cuDNN 8 from the wheel the fix installed, as the process mapped it.
            then: "site-packages/nvidia/cudnn/lib/libcudnn.so.8",
        }),
        fixed: &[("nvidia-cudnn-cu11", ">=8.6,<9")],
        ..real("PaddlePaddle/Paddle/issues/46233", &PADDLE)
    },
    // -------------------------------------------------------------- JAX ----
    // XLA reads the ptxas version from `ptxas --version`, as here.
    Real {
        provoke: Some(Provoke {
            code: "import os, subprocess, nvidia.cuda_nvcc as n\n\
                   print(subprocess.run([os.path.join(n.__path__[0], 'bin', 'ptxas'), '--version'], \
                   capture_output=True, text=True).stdout)",
            env: &[],
            shows: "V12.3.107",
            then: "V12.2.",
        }),
        fixed: &[("nvidia-cuda-nvcc-cu12", "==12.2.*")],
        cause_after_fix: Some(
            "the message's ptxas 12.3.107 is no longer here, so XLA ran one from outside (the \
             corpus holds that to be the machine's cause: YoshitakaMo/localcolabfold#126)",
        ),
        ..real("jax-ml/jax/issues/19821", &JAX_0424)
    },
    real("google/brax/issues/488", &JAX_0428),
    Real {
        provoke: jax_import(
            "jaxlib is version 0.4.35, but this version of jax requires version >= 0.4.36",
            "jax 0.4.36",
        ),
        fixed: &[("jaxlib", "==0.4.36")],
        ..real(
            "jax/_src/lib/__init__.py@jax-v0.4.36",
            &JAX_0436_JAXLIB_0435,
        )
    },
    // ----------------------------------------------------- TensorFlow ----
    Real {
        provoke: Some(Provoke {
            code: TF_DLOPEN,
            env: TF_LOG,
            shows: "Could not load dynamic library 'libcublas.so.12'",
            then: "Successfully opened dynamic library libcublas.so.12",
        }),
        fixed: &[("nvidia-cublas-cu12", "==12.3.4.1")],
        ..real(
            "tensorflow-v2.16.1 (tensorflow 2.16.1 without its [and-cuda]",
            &TF_216,
        )
    },
    Real {
        provoke: Some(Provoke {
            code: TF_DLOPEN,
            env: TF_LOG,
            shows: "Could not load dynamic library 'libcudnn.so.8'",
            then: "Successfully opened dynamic library libcudnn.so.8",
        }),
        fixed: &[("nvidia-cudnn-cu12", "==8.9.7.29")],
        ..real("(the line after the ptxas warning", &TF_216)
    },
    // TF-TRT's own version check, as trt_convert runs it.
    Real {
        provoke: Some(Provoke {
            code: "from tensorflow.python.compiler.tensorrt import trt_convert as trt\n\
                   try:\n    trt._check_trt_version_compatibility()\nexcept Exception:\n    pass",
            env: TF_LOG,
            shows: "Could not load dynamic library 'libnvinfer.so.8.6.1'",
            then: "",
        }),
        not_followed: Some(
            "the fix installs from pypi.nvidia.com, which this machine cannot reach (PyPI has \
             tensorrt-libs 9 dev builds only)",
        ),
        ..real("TF-TRT is optional", &TF_216)
    },
    // --------------------------------------------------- ONNX Runtime ----
    ort_118_replaced("fudan-generative-vision/hallo/issues/203"),
    ort_118_replaced("stepfun-ai/Step-Audio-EditX/issues/3"),
    ort_118_replaced("microsoft/onnxruntime/issues/21684"),
    // The thread's machine had a CUDA toolkit, so cuDNN was the first
    // library the provider missed; here no CUDA is installed at all and
    // the loader names libcublasLt.so.11 first: the provider cannot load.
    Real {
        provoke: Some(ORT_CANNOT_OPEN),
        fixed: &[("nvidia-cudnn-cu11", ">=8.2,<9")],
        ..real("microsoft/onnxruntime/issues/19616", &ORT_117)
    },
    Real {
        provoke: Some(ORT_CANNOT_OPEN),
        ..real("microsoft/onnxruntime/issues/25609", &ORT_122)
    },
    // ------------------------------------------------- CuPy and numba ----
    real("NVIDIA/FastPhotoStyle/issues/68", &CUPY_11),
    Real {
        provoke: Some(Provoke {
            code: "import cupy; cupy.cuda.runtime.getDeviceCount()",
            env: &[],
            shows: "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version",
            then: "",
        }),
        ..real("cupy/cupy/issues/9252", &CUPY_11)
    },
    Real {
        provoke: Some(Provoke {
            code: "from numba import cuda; cuda.current_context()",
            env: &[],
            shows: "CUDA driver library cannot be found.",
            then: "",
        }),
        ..real("numba/cuda/cudadrv/driver.py@0.60.0", &NUMBA)
    },
    Real {
        provoke: Some(Provoke {
            code: "from numba import cuda; cuda.current_context()",
            env: &[],
            shows: "CUDA driver library cannot be found.",
            then: "",
        }),
        ..real("cudadrv/driver.py@v0.30.4", &NUMBA_CUDA_12)
    },
    Real {
        provoke: Some(Provoke {
            code: "from numba import cuda; print('numba.cuda imported')",
            env: &[],
            shows: "Failure finding \"libcudart.so.13 or libcudart.so.12\"",
            then: "numba.cuda imported",
        }),
        fixed: &[("cuda-toolkit", ">=12")],
        ..real("numba/cuda/debuginfo.py@v0.30.4", &NUMBA_CUDA)
    },
];

/// Rows whose state cannot be made here, and why.
const FIXTURE_ONLY: &[(&str, &str)] = &[
    (
        "jax-ml/jax/issues/17638",
        "jaxlib 0.4.14 is not on PyPI (its wheels there are 0.4.13, then 0.4.18 on)",
    ),
    (
        "google-deepmind/weathernext/issues/48",
        "jaxlib 0.3.25 is not on PyPI (its wheels there start at 0.4.13)",
    ),
    (
        "delalamo/af2_conformations/issues/17",
        "jaxlib 0.4.7 is not on PyPI (its wheels there start at 0.4.13)",
    ),
    (
        "sxyu/plenoctree/issues/22",
        "jaxlib 0.1.57 is not on PyPI (its wheels there start at 0.4.13)",
    ),
    (
        "PaddleSeg/issues/3470",
        "paddlepaddle-gpu 2.5.1.post117 is on Paddle's own index, not PyPI",
    ),
    (
        "PaddlePaddle/Paddle/issues/38668",
        "2.2.1.post112 is on Paddle's index; the state is conda's cuDNN 8.1 package",
    ),
    (
        "dynload/cudnn.cc@v2.6.2",
        "the state is conda's cuDNN 8.9 package without libcudnn.so (the demo's), not wheels",
    ),
    (
        "nagadomi/nunif/issues/702",
        "torch for CUDA 13 with its wheels is about 4 GB more than this tier's disk allows",
    ),
    (
        "google/flax/issues/2249",
        "jaxlib 0.4.25+cuda11.cudnn86 is on Google's index only",
    ),
    (
        "tensorflow-feedstock/issues/417 (driver 550.144",
        "tensorflow 2.18.0's 2 GB for two rows without a fix to follow: left for disk",
    ),
    (
        "tensorflow/tensorflow/issues/62075",
        "tensorflow 2.18.0's 2 GB for two rows without a fix to follow: left for disk",
    ),
    (
        "tensorflow/tensorflow/issues/60854",
        "the state is conda's cudatoolkit 11.2 and cuDNN 8.1 packages",
    ),
    (
        "tensorflow/tensorflow/issues/56413",
        "the state is conda's cudatoolkit 11.2 and cuDNN 8.1 packages",
    ),
    (
        "bitsandbytes/issues/1483",
        "torch 2.0.1+cu118 is on download.pytorch.org only",
    ),
    (
        "jax_plugins/cuda/__init__.py@jax-v0.4.25",
        "jaxlib 0.4.25+cuda11.cudnn86 is on Google's index only",
    ),
    (
        "xla_bridge.py@jax-v0.4.25",
        "jaxlib 0.4.25+cuda11.cudnn86 is on Google's index only",
    ),
    (
        "gpu_device.cc@v2.16.1",
        "paddlepaddle-gpu 3.2.0 for CUDA 13 is on Paddle's own index",
    ),
    (
        "YoshitakaMo/localcolabfold/issues/126",
        "jaxlib 0.4.25+cuda11.cudnn86 is on Google's index only, and the ptxas is the system's",
    ),
    (
        "vllm-project/vllm/issues/5501",
        "vllm 0.5.0 over torch 2.2.1 needs torch's CUDA wheels, several GB, to import",
    ),
    (
        "MRzzm/DINet/issues/100",
        "torch 1.7.1+cu101 is on download.pytorch.org only",
    ),
    (
        "niuchuangnn/SPICE/issues/26",
        "torch 1.7.1 (CUDA 10.2) from PyPI for one row without a fix this machine can follow (it is on download.pytorch.org)",
    ),
    (
        "triton-lang/triton/pull/2883",
        "the state is the machine's /lib64/libcuda.so.1 without its unversioned link",
    ),
    (
        "vllm-project/vllm/issues/3147",
        "vllm 0.3.2 over torch 2.2.1 needs torch's CUDA wheels, several GB, to import",
    ),
    (
        "tensorflow/tensorflow/issues/64809",
        "tensorrt-cu12-libs 10.0.1 beside tensorflow 2.16.1 is about 3 GB more",
    ),
    (
        "lipzh5/ResearchProgress/issues/17",
        "the state is conda's cudatoolkit 11.1 package",
    ),
];

/// The row whose cite holds `cite`: exactly one.
fn row_of(cite: &str) -> &'static Row {
    let found: Vec<&Row> = rows()
        .into_iter()
        .filter(|r| r.cite.contains(cite))
        .collect();
    assert_eq!(found.len(), 1, "{cite:?} names {} rows", found.len());
    found[0]
}

/// Every row is either explained against a real state or says why not,
/// never both (needs nothing from PyPI: it runs in the regular tier).
#[test]
fn every_row_is_real_or_says_why_not() {
    let mut seen: Vec<*const Row> = Vec::new();
    let cites = REAL
        .iter()
        .map(|r| r.cite)
        .chain(FIXTURE_ONLY.iter().map(|(c, _)| *c));
    for cite in cites {
        let row: *const Row = row_of(cite);
        assert!(!seen.contains(&row), "{cite:?} is listed twice");
        seen.push(row);
    }
    assert_eq!(seen.len(), rows().len(), "a row is neither real nor listed");
    eprintln!(
        "explain corpus: {} rows against real environments, {} against fixtures only",
        REAL.len(),
        FIXTURE_ONLY.len()
    );
}

/// The prefix of `state` under `dir`, made if its marker says otherwise.
fn prefix_of(dir: &Path, state: &State) -> PathBuf {
    let path = dir.join(state.name);
    let Some(base) = state.base else {
        made(&path, None, state.requirements);
        return path;
    };
    let from = prefix_of(dir, base);
    let marker = path.join("conda-meta/.envhook-real-wheels");
    let wanted = format!("{}\n{:?}", base.name, state.then);
    if std::fs::read_to_string(&marker).ok().as_deref() != Some(wanted.as_str()) {
        copy(&from, &path);
        for args in state.then {
            let out = Command::new(path.join("bin/python"))
                .args(["-m", "pip"])
                .args(*args)
                .arg("--quiet")
                .output()
                .unwrap();
            assert!(out.status.success(), "{args:?}: {out:?}");
        }
        std::fs::write(&marker, wanted).unwrap();
    }
    path
}

/// `to` as a copy of `from` in hard links (pip and envhook replace a file
/// rather than write into it, so the copy's changes stay in the copy).
fn copy(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let status = Command::new("cp")
        .arg("-al")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// `envhook explain --json MESSAGE MACHINE -p PREFIX`: document and exit.
fn explain(row: &Row, prefix: &Path) -> (Value, i32) {
    let mut args = vec!["explain", "--json", row.message];
    args.extend_from_slice(row.machine);
    args.push("-p");
    let out = envhook(&args, prefix);
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (json, out.status.code().unwrap())
}

/// The commands of the document's fixes that say what the thread's fix
/// does (`want`), in order, once each.
fn printed_commands(json: &Value, want: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let fixes = ["answers", "causes", "known"]
        .iter()
        .flat_map(|k| json[k].as_array().unwrap())
        .map(|a| &a["fix"]);
    for fix in fixes {
        let choices = fix["choose"]["commands"].as_array().into_iter().flatten();
        for c in fix["command"]
            .as_str()
            .into_iter()
            .chain(choices.filter_map(Value::as_str))
        {
            if c.contains(want) && !out.iter().any(|o| o == c) {
                out.push(c.to_string());
            }
        }
    }
    out
}

/// Whether the installed version of `dist` satisfies `spec` (`absent`:
/// not installed), by pip's own reading of both.
fn satisfied(prefix: &Path, dist: &str, spec: &str) -> Result<(), String> {
    let code = format!(
        "import importlib.metadata as m\n\
         from pip._vendor.packaging.specifiers import SpecifierSet\n\
         try:\n    v = m.version('{dist}')\nexcept m.PackageNotFoundError:\n    v = None\n\
         print(v)\n\
         ok = v is None if '{spec}' == 'absent' else v is not None and SpecifierSet('{spec}').contains(v, prereleases=True)\n\
         raise SystemExit(0 if ok else 1)"
    );
    let (ok, text) = python(prefix, &code, false, &[]);
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{dist} is {} after the fix, not {spec}",
            text.trim()
        ))
    }
}

/// The provoking code's output, through `envhook run` or not.
fn provoked(prefix: &Path, p: &Provoke, with_hook: bool) -> String {
    python(prefix, p.code, with_hook, p.env).1
}

/// Follow the row's printed fix in a copy of `prefix` (one copy per
/// distinct set of commands, kept in `copies`); check what it changed,
/// that the message, provoked again, is gone, and that explain no longer
/// finds its cause there.
fn follow_fix(
    real: &Real,
    json: &Value,
    prefix: &Path,
    copies: &mut Vec<(Vec<String>, PathBuf)>,
) -> Result<String, String> {
    let Want::Cause(want) = real.want_here.unwrap_or(row_of(real.cite).want) else {
        return Ok(String::new());
    };
    if let Some(why) = real.not_followed {
        return Ok(format!("not followed: {why}"));
    }
    // As printed, for this state: rows that print the same fix share one
    // copy (`key`), which is then what the commands name.
    let key: Vec<String> = printed_commands(json, want)
        .into_iter()
        .filter(|c| c.starts_with('\'') || c.starts_with("envhook "))
        .collect();
    if key.is_empty() {
        return if real.fixed.is_empty() {
            Ok(String::new())
        } else {
            Err(format!("no command to follow: {}", fixes(json)))
        };
    }
    let copy_path = match copies.iter().find(|(k, _)| *k == key) {
        Some((_, p)) => p.clone(),
        None => {
            let to = prefix.with_file_name(format!("{}-fixed{}", real.state.name, copies.len()));
            copy(prefix, &to);
            let (from, into) = (prefix.display().to_string(), to.display().to_string());
            for c in &key {
                follow(real.state.name, &c.replace(&from, &into));
            }
            copies.push((key.clone(), to.clone()));
            to
        }
    };
    for (dist, spec) in real.fixed {
        satisfied(&copy_path, dist, spec)?;
    }
    let hooked = key.iter().any(|c| c.contains("envhook install"));
    let mut last = String::new();
    if let Some(p) = &real.provoke {
        let after = provoked(&copy_path, p, hooked);
        if after.contains(p.shows) || !after.contains(p.then) {
            return Err(format!(
                "after {key:?} the message is still there, or {:?} is not: {after}",
                p.then
            ));
        }
        last = after
            .lines()
            .find(|l| l.contains(p.then))
            .unwrap_or_default()
            .chars()
            .take(200)
            .collect();
    }
    let (again, _) = explain(row_of(real.cite), &copy_path);
    if again["verdict"] == "cause" && real.cause_after_fix.is_none() {
        return Err(format!(
            "after {key:?} explain still finds a cause: {again:#}"
        ));
    }
    let fixed: Vec<String> = real.fixed.iter().map(|(d, v)| format!("{d}{v}")).collect();
    Ok(format!(
        "followed {key:?}: {}; explain now says {}{}",
        fixed.join(", "),
        again["verdict"],
        if real.provoke.is_some() {
            format!("; provoked again, the message is gone: {last:?}")
        } else {
            String::new()
        }
    ))
}

/// Explain every real row of `states`, judge it, provoke its message,
/// follow its fix; print the tally and fail on anything unexpected.
fn run(family: &str, states: &[&State]) {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (dir, _temp) = cache_dir();
    let mut copies = Vec::new();
    let (mut right, mut problems) = (0, Vec::new());
    let ours: Vec<&Real> = REAL
        .iter()
        .filter(|r| states.iter().any(|s| s.name == r.state.name))
        .collect();
    for real in &ours {
        let row = row_of(real.cite);
        let prefix = prefix_of(&dir, real.state);
        if let Some(p) = &real.provoke {
            let before = provoked(&prefix, p, false);
            if !before.contains(p.shows) {
                problems.push(format!(
                    "{}: the state does not show {:?}: {before}",
                    real.cite, p.shows
                ));
            }
        }
        let (json, code) = explain(row, &prefix);
        match (
            judged(&json, code, real.want_here.unwrap_or(row.want)),
            row.gap,
        ) {
            (Ok(()), None) => right += 1,
            (why, _) => {
                problems.push(format!(
                    "{}: {why:?} (gap {:?})\n{json:#}",
                    real.cite, row.gap
                ));
                continue;
            }
        }
        match follow_fix(real, &json, &prefix, &mut copies) {
            Ok(done) if !done.is_empty() => eprintln!("{}: {done}", real.cite),
            Ok(_) => {}
            Err(why) => problems.push(format!("{}: {why}", real.cite)),
        }
    }
    for (_, p) in &copies {
        let _ = std::fs::remove_dir_all(p);
    }
    eprintln!(
        "real_explain::{family}: {right} of {} rows right against real environments ({} rows of the corpus are fixture-only)",
        ours.len(),
        FIXTURE_ONLY.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn torch() {
    run("torch", &[&TORCH, &TORCH_OLD_NVJITLINK]);
}

#[test]
fn paddle() {
    run("paddle", &[&PADDLE]);
}

#[test]
fn jax() {
    run("jax", &[&JAX_0424, &JAX_0428, &JAX_0436_JAXLIB_0435]);
}

#[test]
fn tensorflow() {
    run("tensorflow", &[&TF_216]);
}

#[test]
fn onnxruntime() {
    run("onnxruntime", &[&ORT_117, &ORT_118, &ORT_122]);
}

#[test]
fn cupy_and_numba() {
    run(
        "cupy_and_numba",
        &[&CUPY_11, &NUMBA, &NUMBA_CUDA, &NUMBA_CUDA_12],
    );
}
