//! The PaddlePaddle 2.5 CUDA 11.6 wheel over conda's cudatoolkit 11.8 and
//! a cuDNN package, with real shared objects: the environment of seed 000.

use std::path::Path;

use super::{CondaPkg, Env, FileSpec, PipDist};

/// cudatoolkit 11.8's libraries: (real file, soname).
pub const TOOLKIT: &[(&str, &str)] = &[
    ("libcudart.so.11.8.89", "libcudart.so.11.0"),
    ("libcublas.so.11.11.3.6", "libcublas.so.11"),
    ("libcublasLt.so.11.11.3.6", "libcublasLt.so.11"),
    ("libcurand.so.10.3.0.86", "libcurand.so.10"),
    ("libcusolver.so.11.4.1.48", "libcusolver.so.11"),
    ("libcusparse.so.11.7.5.86", "libcusparse.so.11"),
    ("libcufft.so.10.9.0.58", "libcufft.so.10"),
    ("libnvrtc.so.11.8.89", "libnvrtc.so.11.2"),
];

/// A Paddle 2.5 CUDA 11.6 wheel over conda's cudatoolkit 11.8 and `cudnn`
/// at `cudnn` (8.2.1 by default: older than the 8.4 the wheel is built
/// with), with real shared objects: libpaddle.so NEEDs libcudart.so.11.0
/// and libcublas.so.11 and has RPATH $ORIGIN/../libs.
pub fn paddle_env(prefix: &Path, cudnn: &'static str, cudnn_files: Vec<FileSpec>) -> Env {
    use FileSpec::*;
    let mut env = Env::new(prefix);
    env.python("3.10.14");
    // cudatoolkit ships every library with its unversioned name.
    let mut toolkit = Vec::new();
    for (file, soname) in TOOLKIT {
        let unversioned = soname.split(".so").next().unwrap().to_string() + ".so";
        toolkit.push(File(Box::leak(format!("lib/{file}").into_boxed_str())));
        toolkit.push(Link(
            Box::leak(format!("lib/{soname}").into_boxed_str()),
            file,
        ));
        toolkit.push(Link(
            Box::leak(format!("lib/{unversioned}").into_boxed_str()),
            soname,
        ));
    }
    env.conda(CondaPkg::new("cudatoolkit", "11.8.0", "h4ba93d1_13").files(toolkit));
    env.conda(CondaPkg::new("nccl", "2.18.3.1", "h12f7317_0").files(vec![
        File("lib/libnccl.so.2.18.3"),
        Link("lib/libnccl.so.2", "libnccl.so.2.18.3"),
        Link("lib/libnccl.so", "libnccl.so.2"),
    ]));
    env.conda(CondaPkg::new("cudnn", cudnn, "h3e0f4f4_0").files(cudnn_files.clone()));
    env.pip(
        PipDist::new("paddlepaddle-gpu", "2.5.2.post116")
            .files(vec![
                File("paddle/fluid/libpaddle.so"),
                File("paddle/libs/libdnnl.so.3"),
            ])
            .text(
                "paddle/version/__init__.py",
                "full_version = '2.5.2'\ncuda_version = '11.6'\ncudnn_version = '8.4.0'\n",
            ),
    );
    let lib = env.path("lib");
    for (file, soname) in TOOLKIT {
        super::cc_shared(&lib.join(file), soname, &[], None, false);
    }
    super::cc_shared(
        &lib.join("libnccl.so.2.18.3"),
        "libnccl.so.2",
        &[],
        None,
        false,
    );
    for f in &cudnn_files {
        if let File(rel) = f {
            let name = Path::new(rel).file_name().unwrap().to_str().unwrap();
            let soname = name.split(".so.").next().unwrap().to_string()
                + ".so."
                + name
                    .split(".so.")
                    .nth(1)
                    .unwrap()
                    .split('.')
                    .next()
                    .unwrap();
            super::cc_shared(&env.path(rel), &soname, &[], None, false);
        }
    }
    let site = env.site();
    super::cc_shared(
        &site.join("paddle/libs/libdnnl.so.3"),
        "libdnnl.so.3",
        &[],
        None,
        false,
    );
    super::cc_shared(
        &site.join("paddle/fluid/libpaddle.so"),
        "libpaddle.so",
        &[
            &lib.join("libcudart.so.11.8.89"),
            &lib.join("libcublas.so.11.11.3.6"),
            &site.join("paddle/libs/libdnnl.so.3"),
        ],
        Some("$ORIGIN/../libs"),
        false,
    );
    env
}

/// cuDNN 8's files: the real `file` and its soname and unversioned links.
pub fn cudnn8(file: &'static str) -> Vec<FileSpec> {
    vec![
        FileSpec::File(file),
        FileSpec::Link("lib/libcudnn.so.8", file_name(file)),
        FileSpec::Link("lib/libcudnn.so", "libcudnn.so.8"),
    ]
}

fn file_name(rel: &'static str) -> &'static str {
    rel.rsplit('/').next().unwrap()
}

/// PyPI's `paddlepaddle-gpu` 2.6.2 as its wheel lays it out: a CUDA 11.8 /
/// cuDNN 8.6.0 build (its version file) that declares no nvidia wheels,
/// `libpaddle.so` with RUNPATH `$ORIGIN/../libs/` and `libphi.so` beside
/// `libs/` (both as `readelf -d` shows them in the real wheel), in a conda
/// environment with Python 3.11.
pub fn paddle_262(prefix: &Path) -> Env {
    use FileSpec::*;
    let mut env = Env::new(prefix);
    env.python("3.11.7");
    env.pip(
        PipDist::new("paddlepaddle-gpu", "2.6.2")
            .files(vec![
                File("paddle/base/libpaddle.so"),
                File("paddle/libs/libphi.so"),
            ])
            .text(
                "paddle/version/__init__.py",
                "# THIS FILE IS GENERATED FROM PADDLEPADDLE SETUP.PY\n#\nfull_version     = '2.6.2'\nmajor            = '2'\nminor            = '6'\npatch            = '2'\nrc               = '0'\ncuda_version     = '11.8'\ncudnn_version    = '8.6.0'\nxpu_version      = 'False'\nistaged          = True\nwith_mkl         = 'ON'\n",
            ),
    );
    let site = env.site();
    let phi = site.join("paddle/libs/libphi.so");
    super::cc_shared(&phi, "libphi.so", &[], Some("$ORIGIN"), true);
    super::cc_shared(
        &site.join("paddle/base/libpaddle.so"),
        "libpaddle.so",
        &[&phi],
        Some("$ORIGIN/../libs/"),
        true,
    );
    env
}

/// A pip wheel: `(distribution, version, [(file under site-packages,
/// soname)])`.
pub type Wheel = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// pip `nvidia-*` wheels, with real shared objects.
pub fn wheels(env: &mut Env, wheels: &[Wheel]) {
    for (dist, version, files) in wheels {
        env.pip(
            PipDist::new(dist, version)
                .files(files.iter().map(|(f, _)| FileSpec::File(f)).collect()),
        );
        let site = env.site();
        for (file, soname) in *files {
            super::cc_shared(&site.join(file), soname, &[], None, false);
        }
    }
}

/// The CUDA 12 / cuDNN 9 wheels another package pulls in.
pub const CUDA12_CUDNN9: &[Wheel] = &[
    (
        "nvidia-cudnn-cu12",
        "9.1.0.70",
        &[
            ("nvidia/cudnn/lib/libcudnn.so.9", "libcudnn.so.9"),
            (
                "nvidia/cudnn/lib/libcudnn_graph.so.9",
                "libcudnn_graph.so.9",
            ),
        ],
    ),
    (
        "nvidia-cublas-cu12",
        "12.1.3.1",
        &[
            ("nvidia/cublas/lib/libcublas.so.12", "libcublas.so.12"),
            ("nvidia/cublas/lib/libcublasLt.so.12", "libcublasLt.so.12"),
        ],
    ),
];

/// What `pip install 'cuda-toolkit[...]==11.8.*' 'nvidia-cudnn-cu11>=8.6,<9'`
/// installed beside them (file names from the real wheels).
pub const CUDA11_CUDNN8: &[Wheel] = &[
    // The metapackage the fix names (PyPI cuda-toolkit 11.8.0): no files.
    ("cuda-toolkit", "11.8.0", &[]),
    (
        "nvidia-cudnn-cu11",
        "8.9.6.50",
        &[
            ("nvidia/cudnn/lib/libcudnn.so.8", "libcudnn.so.8"),
            (
                "nvidia/cudnn/lib/libcudnn_ops_infer.so.8",
                "libcudnn_ops_infer.so.8",
            ),
        ],
    ),
    (
        "nvidia-cublas-cu11",
        "11.11.3.6",
        &[
            ("nvidia/cublas/lib/libcublas.so.11", "libcublas.so.11"),
            ("nvidia/cublas/lib/libcublasLt.so.11", "libcublasLt.so.11"),
        ],
    ),
    (
        "nvidia-curand-cu11",
        "10.3.0.86",
        &[("nvidia/curand/lib/libcurand.so.10", "libcurand.so.10")],
    ),
    (
        "nvidia-cufft-cu11",
        "10.9.0.58",
        &[("nvidia/cufft/lib/libcufft.so.10", "libcufft.so.10")],
    ),
    (
        "nvidia-cusolver-cu11",
        "11.4.1.48",
        &[("nvidia/cusolver/lib/libcusolver.so.11", "libcusolver.so.11")],
    ),
    (
        "nvidia-cusparse-cu11",
        "11.7.5.86",
        &[("nvidia/cusparse/lib/libcusparse.so.11", "libcusparse.so.11")],
    ),
    (
        "nvidia-cuda-nvrtc-cu11",
        "11.8.89",
        &[("nvidia/cuda_nvrtc/lib/libnvrtc.so.11.2", "libnvrtc.so.11.2")],
    ),
];
