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
