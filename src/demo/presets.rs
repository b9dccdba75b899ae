//! The environments of the demo installation, each shaped like a real one
//! (the integration tests lay them out too).

use std::io;

use super::prefix::{CondaPkg, Env, FileSpec, PipDist};
use super::tree::Tree;

/// CUDA 11 the conda way: `cudatoolkit` 11.8 with everything flat in `lib/`
/// (symlink chains `libcudart.so -> .so.11.0 -> .so.11.8.89`), `cudnn` 8.9
/// (defaults build `cuda11_0`), `nccl`, and the Paddle 2.5 CUDA 11.6 wheel.
pub fn cuda11_paddle(at: Tree, lib: &'static [u8]) -> io::Result<Env> {
    use FileSpec::*;
    let mut env = Env::at(at, lib)?;
    env.python("3.10.14")?;
    env.conda(
        CondaPkg::new("cudatoolkit", "11.8.0", "h4ba93d1_13").files(vec![
            File("lib/libcudart.so.11.8.89"),
            Link("lib/libcudart.so.11.0", "libcudart.so.11.8.89"),
            Link("lib/libcudart.so", "libcudart.so.11.0"),
            File("lib/libcublas.so.11.11.3.6"),
            Link("lib/libcublas.so.11", "libcublas.so.11.11.3.6"),
            Link("lib/libcublas.so", "libcublas.so.11"),
            File("lib/libcublasLt.so.11.11.3.6"),
            Link("lib/libcublasLt.so.11", "libcublasLt.so.11.11.3.6"),
            Link("lib/libcublasLt.so", "libcublasLt.so.11"),
            File("lib/libcufft.so.10.9.0.58"),
            Link("lib/libcufft.so.10", "libcufft.so.10.9.0.58"),
            Link("lib/libcufft.so", "libcufft.so.10"),
            File("lib/libcurand.so.10.3.0.86"),
            Link("lib/libcurand.so.10", "libcurand.so.10.3.0.86"),
            Link("lib/libcurand.so", "libcurand.so.10"),
            File("lib/libcusolver.so.11.4.1.48"),
            Link("lib/libcusolver.so.11", "libcusolver.so.11.4.1.48"),
            Link("lib/libcusolver.so", "libcusolver.so.11"),
            File("lib/libcusparse.so.11.7.5.86"),
            Link("lib/libcusparse.so.11", "libcusparse.so.11.7.5.86"),
            Link("lib/libcusparse.so", "libcusparse.so.11"),
            File("lib/libnvrtc.so.11.8.89"),
            Link("lib/libnvrtc.so.11.2", "libnvrtc.so.11.8.89"),
            Link("lib/libnvrtc.so", "libnvrtc.so.11.2"),
            File("lib/cudatoolkit_config.yaml"),
        ]),
    )?;
    env.conda(
        CondaPkg::new("cudnn", "8.9.2.26", "cuda11_0")
            .channel("https://repo.anaconda.com/pkgs/main/linux-64")
            .depends(vec!["cudatoolkit 11.*"])
            .files(vec![
                File("lib/libcudnn.so.8.9.2"),
                Link("lib/libcudnn.so.8", "libcudnn.so.8.9.2"),
                Link("lib/libcudnn.so", "libcudnn.so.8"),
                File("lib/libcudnn_ops_infer.so.8.9.2"),
                Link("lib/libcudnn_ops_infer.so.8", "libcudnn_ops_infer.so.8.9.2"),
                File("lib/libcudnn_cnn_infer.so.8.9.2"),
                Link("lib/libcudnn_cnn_infer.so.8", "libcudnn_cnn_infer.so.8.9.2"),
                File("include/cudnn.h"),
            ]),
    )?;
    env.conda(
        CondaPkg::new("openssl", "3.0.13", "h7f8727e_0")
            .files(vec![File("lib/libcrypto.so.3"), File("lib/libssl.so.3")]),
    )?;
    env.pip(
        PipDist::new("paddlepaddle-gpu", "2.5.2.post116")
            .files(vec![
                File("paddle/fluid/libpaddle.so"),
                File("paddle/libs/libdnnl.so.3"),
                File("paddle/libs/libwarpctc.so"),
                File("paddle/libs/libmklml_intel.so"),
                File("paddle/__init__.py"),
            ])
            .text(
                "paddle/version/__init__.py",
                "# THIS FILE IS GENERATED FROM PADDLEPADDLE SETUP.PY\n#\nfull_version    = '2.5.2'\nmajor           = '2'\nminor           = '5'\npatch           = '2'\nrc              = '0'\ncuda_version    = '11.6'\ncudnn_version   = '8.4.0'\nxpu_version     = 'False'\nistaged         = True\ncommit          = 'cd5b5e9f4b7d6d2fb8ab2e34f8346c46b5e94e7a'\nwith_mkl        = 'ON'\n",
            ),
    )?;
    Ok(env)
}

/// CUDA 12 the conda-forge way: `cuda-version` 12.6, split packages whose
/// real files live in `targets/x86_64-linux/lib` with `lib/` symlinks,
/// cuDNN 9 from the 2025 split (`cudnn` metapackage -> `libcudnn`),
/// `nccl`, the driver stub, and conda-forge's pytorch 2.4.1 CUDA build.
pub fn cuda12_split(at: Tree, lib: &'static [u8]) -> io::Result<Env> {
    let mut env = Env::at(at, lib)?;
    env.python("3.12.4")?;
    cuda12_toolkit(&mut env)?;
    cuda12_libraries(&mut env)?;
    env.write(
        env.site_rel().join("torch/version.py"),
        "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n__version__ = '2.4.1'\ndebug = False\ncuda: Optional[str] = '12.0'\ngit_version = 'Unknown'\nhip: Optional[str] = None\n",
    )?;
    Ok(env)
}

/// `cuda12_split`'s CUDA toolkit: `cuda-version`, the runtime, cuBLAS, NVRTC
/// and the driver stub.
fn cuda12_toolkit(env: &mut Env) -> io::Result<()> {
    use FileSpec::*;
    env.conda(CondaPkg::new("cuda-version", "12.6", "h7480c83_3").noarch())?;
    env.conda(
        CondaPkg::new("cuda-cudart_linux-64", "12.6.77", "h3f2d84a_0")
            .noarch()
            .files(vec![
                File("targets/x86_64-linux/lib/libcudart.so.12.6.77"),
                Link(
                    "targets/x86_64-linux/lib/libcudart.so.12",
                    "libcudart.so.12.6.77",
                ),
            ]),
    )?;
    env.conda(
        CondaPkg::new("cuda-cudart", "12.6.77", "h5888daf_0")
            .depends(vec![
                "cuda-cudart_linux-64 12.6.77 h3f2d84a_0",
                "cuda-version >=12.6,<12.7.0a0",
            ])
            .files(vec![
                Link(
                    "lib/libcudart.so.12",
                    "../targets/x86_64-linux/lib/libcudart.so.12",
                ),
                Link(
                    "lib/libcudart.so.12.6.77",
                    "../targets/x86_64-linux/lib/libcudart.so.12.6.77",
                ),
            ]),
    )?;
    env.conda(
        CondaPkg::new("libcublas", "12.6.4.1", "hbd13f7d_0").files(vec![
            File("targets/x86_64-linux/lib/libcublas.so.12.6.4.1"),
            Link(
                "targets/x86_64-linux/lib/libcublas.so.12",
                "libcublas.so.12.6.4.1",
            ),
            File("targets/x86_64-linux/lib/libcublasLt.so.12.6.4.1"),
            Link(
                "targets/x86_64-linux/lib/libcublasLt.so.12",
                "libcublasLt.so.12.6.4.1",
            ),
            Link(
                "lib/libcublas.so.12",
                "../targets/x86_64-linux/lib/libcublas.so.12",
            ),
            Link(
                "lib/libcublasLt.so.12",
                "../targets/x86_64-linux/lib/libcublasLt.so.12",
            ),
        ]),
    )?;
    env.conda(
        CondaPkg::new("cuda-nvrtc", "12.6.85", "hbd13f7d_0").files(vec![
            File("targets/x86_64-linux/lib/libnvrtc.so.12.6.85"),
            Link(
                "targets/x86_64-linux/lib/libnvrtc.so.12",
                "libnvrtc.so.12.6.85",
            ),
            Link(
                "lib/libnvrtc.so.12",
                "../targets/x86_64-linux/lib/libnvrtc.so.12",
            ),
        ]),
    )?;
    env.conda(
        CondaPkg::new("cuda-driver-dev_linux-64", "12.6.77", "h3f2d84a_0")
            .noarch()
            .files(vec![File("targets/x86_64-linux/lib/stubs/libcuda.so")]),
    )?;
    env.conda(
        CondaPkg::new("cuda-driver-dev", "12.6.77", "h5888daf_0").files(vec![Link(
            "lib/stubs/libcuda.so",
            "../../targets/x86_64-linux/lib/stubs/libcuda.so",
        )]),
    )?;
    Ok(())
}

/// `cuda12_split`'s libraries over the toolkit: cuDNN 9, NCCL and pytorch.
fn cuda12_libraries(env: &mut Env) -> io::Result<()> {
    use FileSpec::*;
    env.conda(
        CondaPkg::new("libcudnn", "9.3.0.75", "h0a7ce49_0")
            .depends(vec!["cuda-version >=12,<13.0a0", "libcublas"])
            .files(vec![
                File("lib/libcudnn.so.9.3.0"),
                Link("lib/libcudnn.so.9", "libcudnn.so.9.3.0"),
                File("lib/libcudnn_graph.so.9.3.0"),
                Link("lib/libcudnn_graph.so.9", "libcudnn_graph.so.9.3.0"),
                File("lib/libcudnn_engines_precompiled.so.9.3.0"),
                Link(
                    "lib/libcudnn_engines_precompiled.so.9",
                    "libcudnn_engines_precompiled.so.9.3.0",
                ),
            ]),
    )?;
    env.conda(
        CondaPkg::new("cudnn", "9.3.0.75", "h93bb076_0").depends(vec!["libcudnn-dev 9.3.0.75"]),
    )?;
    env.conda(
        CondaPkg::new("nccl", "2.23.4.1", "h52f6c39_0")
            .depends(vec!["cuda-version >=12,<13.0a0"])
            .files(vec![
                File("lib/libnccl.so.2.23.4"),
                Link("lib/libnccl.so.2", "libnccl.so.2.23.4"),
                Link("lib/libnccl.so", "libnccl.so.2"),
                File("lib/libnccl_device.bc"),
            ]),
    )?;
    env.conda(
        CondaPkg::new("libtorch", "2.4.1", "cuda120_h1d34654_302").files(vec![
            File("lib/libtorch.so"),
            File("lib/libtorch_cpu.so"),
            File("lib/libtorch_cuda.so"),
            File("lib/libc10_cuda.so"),
        ]),
    )?;
    env.conda(
        CondaPkg::new("pytorch", "2.4.1", "cuda120_py312h6ccb88c_302").files(vec![
            File("lib/python3.12/site-packages/torch/_C.cpython-312-x86_64-linux-gnu.so"),
            File("lib/python3.12/site-packages/torch/version.py"),
        ]),
    )?;
    Ok(())
}

/// CUDA from pip only: PyPI torch 2.3.1 with the pinned `nvidia-*-cu12`
/// wheels (files under `site-packages/nvidia/<lib>/lib`, no symlinks).
pub fn pip_wheels(at: Tree, lib: &'static [u8]) -> io::Result<Env> {
    use FileSpec::*;
    let mut env = Env::at(at, lib)?;
    env.python("3.11.9")?;
    env.pip(
        PipDist::new("nvidia-cuda-runtime-cu12", "12.1.105").files(vec![
            File("nvidia/__init__.py"),
            File("nvidia/cuda_runtime/lib/libcudart.so.12"),
        ]),
    )?;
    env.pip(PipDist::new("nvidia-cublas-cu12", "12.1.3.1").files(vec![
        File("nvidia/cublas/lib/libcublas.so.12"),
        File("nvidia/cublas/lib/libcublasLt.so.12"),
        File("nvidia/cublas/lib/libnvblas.so.12"),
    ]))?;
    env.pip(PipDist::new("nvidia-cudnn-cu12", "8.9.2.26").files(vec![
        File("nvidia/cudnn/lib/libcudnn.so.8"),
        File("nvidia/cudnn/lib/libcudnn_ops_infer.so.8"),
        File("nvidia/cudnn/lib/libcudnn_cnn_infer.so.8"),
    ]))?;
    env.pip(
        PipDist::new("nvidia-nccl-cu12", "2.20.5")
            .files(vec![File("nvidia/nccl/lib/libnccl.so.2")]),
    )?;
    env.pip(
        PipDist::new("torch", "2.3.1")
            .files(vec![
                File("torch/lib/libtorch_cuda.so"),
                File("torch/lib/libtorch_cpu.so"),
                File("torch/lib/libc10.so"),
                File("torch/_C.cpython-311-x86_64-linux-gnu.so"),
            ])
            .text(
                "torch/version.py",
                "from typing import Optional\n\n__version__ = '2.3.1'\ndebug = False\ncuda: Optional[str] = '12.1'\ngit_version = '63d5e9221bedd1546b7d364b5ce4171547db12a9'\nhip: Optional[str] = None\n",
            ),
    )?;
    env.pip(PipDist::new("numpy", "1.26.4").files(vec![File(
        "numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so",
    )]))?;
    Ok(env)
}

/// No CUDA anywhere: conda-forge CPU pytorch and the CPU Paddle wheel.
pub fn cpu_only(at: Tree, lib: &'static [u8]) -> io::Result<Env> {
    use FileSpec::*;
    let mut env = Env::at(at, lib)?;
    env.python("3.13.1")?;
    env.conda(CondaPkg::new("numpy", "2.1.3", "py313h4bf6692_0").files(vec![File("lib/python3.13/site-packages/numpy/_core/_multiarray_umath.cpython-313-x86_64-linux-gnu.so")]))?;
    env.conda(
        CondaPkg::new("pytorch", "2.4.1", "cpu_mkl_py313hbc6f0e9_102")
            .files(vec![File("lib/libtorch_cpu.so")]),
    )?;
    env.pip(PipDist::new("paddlepaddle", "2.6.2").files(vec![File("paddle/base/libpaddle.so")]))?;
    Ok(env)
}
