//! Builds temporary prefixes laid out like real conda environments, for the
//! integration tests and for `cargo run --example demo-env`.
//!
//! Records carry the keys real conda and rattler records carry
//! (`../shared/reference/real-env-data.md` §1.2), with valid hash strings
//! and the quirks of real ones (`"features": ""`, `"track_features": ""`,
//! channel with and without subdir). Library files are real files and
//! symlinks arranged as the conda-forge and PyPI packages arrange them.
#![allow(dead_code)] // each test binary uses a different part

use std::fs;
use std::path::{Path, PathBuf};

pub mod paddle;
pub mod source;
pub mod terminal;

/// One file a package installs.
#[derive(Clone, Debug)]
pub enum FileSpec {
    /// A regular file with some bytes.
    File(&'static str),
    /// A symlink (relative target, as conda packages ship them).
    Link(&'static str, &'static str),
    /// Listed in the record but not on disk (a broken install).
    Absent(&'static str),
}

impl FileSpec {
    fn rel(&self) -> &'static str {
        match self {
            FileSpec::File(p) | FileSpec::Link(p, _) | FileSpec::Absent(p) => p,
        }
    }
}

/// A conda package to install into a prefix.
#[derive(Clone, Debug)]
pub struct CondaPkg {
    pub name: &'static str,
    pub version: &'static str,
    pub build: &'static str,
    pub channel: &'static str,
    pub subdir: &'static str,
    pub depends: Vec<&'static str>,
    pub files: Vec<FileSpec>,
}

impl CondaPkg {
    /// A conda-forge linux-64 package.
    pub fn new(name: &'static str, version: &'static str, build: &'static str) -> Self {
        CondaPkg {
            name,
            version,
            build,
            channel: "https://conda.anaconda.org/conda-forge/",
            subdir: "linux-64",
            depends: Vec::new(),
            files: Vec::new(),
        }
    }

    pub fn files(mut self, files: Vec<FileSpec>) -> Self {
        self.files = files;
        self
    }

    pub fn depends(mut self, deps: Vec<&'static str>) -> Self {
        self.depends = deps;
        self
    }

    pub fn noarch(mut self) -> Self {
        self.subdir = "noarch";
        self
    }

    pub fn channel(mut self, channel: &'static str) -> Self {
        self.channel = channel;
        self
    }
}

/// A pip distribution to install into site-packages.
#[derive(Clone, Debug)]
pub struct PipDist {
    /// The distribution name as on PyPI (`nvidia-cuda-runtime-cu12`).
    pub name: &'static str,
    pub version: &'static str,
    pub installer: &'static str,
    /// Files relative to site-packages.
    pub files: Vec<FileSpec>,
    /// Extra files with contents (`torch/version.py`), also in RECORD.
    pub texts: Vec<(&'static str, String)>,
    /// `Requires-Dist:` lines of METADATA.
    pub requires: Vec<&'static str>,
}

impl PipDist {
    pub fn new(name: &'static str, version: &'static str) -> Self {
        PipDist {
            name,
            version,
            installer: "pip",
            files: Vec::new(),
            texts: Vec::new(),
            requires: Vec::new(),
        }
    }

    pub fn requires(mut self, requires: Vec<&'static str>) -> Self {
        self.requires = requires;
        self
    }

    pub fn files(mut self, files: Vec<FileSpec>) -> Self {
        self.files = files;
        self
    }

    pub fn text(mut self, rel: &'static str, body: impl Into<String>) -> Self {
        self.texts.push((rel, body.into()));
        self
    }

    pub fn installer(mut self, installer: &'static str) -> Self {
        self.installer = installer;
        self
    }
}

/// A prefix under construction.
pub struct Env {
    pub prefix: PathBuf,
    python: Option<&'static str>,
}

/// The bytes of every fixture library: a real, 1.5 kB x86-64 shared object
/// (built once with `cc -shared -nostdlib -s -Wl,-z,max-page-size=0x10`),
/// so the loader simulation accepts it like the real thing. Tests about
/// SONAMEs, DT_NEEDED and RPATHs build their own objects with `cc`.
const LIB_BYTES: &[u8] = include_bytes!("fixture.so");

fn hex(seed: &str, len: usize) -> String {
    // FNV-1a, repeated: a valid, stable hex digest of the right length.
    let mut out = String::new();
    let mut h: u64 = 0xcbf29ce484222325;
    while out.len() < len {
        for b in seed.bytes().chain(out.len().to_le_bytes()) {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
        out.push_str(&format!("{h:016x}"));
    }
    out.truncate(len);
    out
}

impl Env {
    /// An empty environment: `conda-meta/` with a `history` file.
    pub fn new(prefix: impl Into<PathBuf>) -> Self {
        let prefix = prefix.into();
        fs::create_dir_all(prefix.join("conda-meta")).unwrap();
        fs::write(
            prefix.join("conda-meta/history"),
            "==> 2024-04-25 02:54:58 <==\n# cmd: /opt/conda/bin/conda create -n env\n# conda version: 24.3.0\n",
        )
        .unwrap();
        Env {
            prefix,
            python: None,
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.prefix.join(rel)
    }

    /// Install a python record and create its site-packages.
    pub fn python(&mut self, version: &'static str) -> &mut Self {
        let mm: Vec<&str> = version.split('.').take(2).collect();
        let site = format!("lib/python{}/site-packages", mm.join("."));
        fs::create_dir_all(self.prefix.join(&site)).unwrap();
        self.conda(
            CondaPkg::new("python", version, "hd12c33a_0_cpython")
                .files(vec![FileSpec::File("bin/python3")]),
        );
        let link = self.prefix.join("bin/python");
        if !link.exists() {
            std::os::unix::fs::symlink("python3", link).unwrap();
        }
        self.python = Some(version);
        self
    }

    /// The site-packages directory (python must be installed first).
    pub fn site(&self) -> PathBuf {
        let v = self.python.expect("call python() first");
        let mm: Vec<&str> = v.split('.').take(2).collect();
        self.prefix
            .join(format!("lib/python{}/site-packages", mm.join(".")))
    }

    fn lay_out(base: &Path, files: &[FileSpec]) {
        for f in files {
            let path = base.join(f.rel());
            if let Some(dir) = path.parent() {
                fs::create_dir_all(dir).unwrap();
            }
            match f {
                FileSpec::File(_) => fs::write(&path, LIB_BYTES).unwrap(),
                FileSpec::Link(_, target) => {
                    let _ = fs::remove_file(&path);
                    std::os::unix::fs::symlink(target, &path).unwrap();
                }
                FileSpec::Absent(_) => {}
            }
        }
    }

    /// Install a conda package: its files and its record. Returns the
    /// record's path.
    pub fn conda(&mut self, pkg: CondaPkg) -> PathBuf {
        Self::lay_out(&self.prefix, &pkg.files);
        let fn_ = format!("{}-{}-{}.conda", pkg.name, pkg.version, pkg.build);
        let url = format!(
            "https://conda.anaconda.org/conda-forge/{}/{fn_}",
            pkg.subdir
        );
        let cache = format!(
            "/home/u/miniforge3/pkgs/{}-{}-{}",
            pkg.name, pkg.version, pkg.build
        );
        let paths: Vec<serde_json::Value> = pkg
            .files
            .iter()
            .map(|f| {
                let kind = match f {
                    FileSpec::Link(..) => "softlink",
                    _ => "hardlink",
                };
                serde_json::json!({
                    "_path": f.rel(),
                    "path_type": kind,
                    "sha256": hex(f.rel(), 64),
                    "sha256_in_prefix": hex(f.rel(), 64),
                    "size_in_bytes": LIB_BYTES.len(),
                })
            })
            .collect();
        let mut record = serde_json::json!({
            "build": pkg.build,
            "build_number": pkg.build.rsplit('_').next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0),
            "channel": pkg.channel,
            "constrains": [],
            "depends": pkg.depends,
            "extracted_package_dir": cache,
            "features": "",
            "files": pkg.files.iter().map(FileSpec::rel).collect::<Vec<_>>(),
            "fn": fn_,
            "license": "LicenseRef-NVIDIA-End-User-License-Agreement",
            "link": {"source": cache, "type": 1},
            "md5": hex(&fn_, 32),
            "name": pkg.name,
            "package_tarball_full_path": format!("{cache}.conda"),
            "paths_data": {"paths": paths, "paths_version": 1},
            "requested_spec": "None",
            "sha256": hex(&url, 64),
            "size": 123456,
            "subdir": pkg.subdir,
            "timestamp": 1_718_000_000_000u64,
            "track_features": "",
            "url": url,
            "version": pkg.version,
        });
        if pkg.subdir == "noarch" {
            record["noarch"] = "generic".into();
        }
        let path = self
            .prefix
            .join("conda-meta")
            .join(format!("{}-{}-{}.json", pkg.name, pkg.version, pkg.build));
        fs::write(&path, serde_json::to_string_pretty(&record).unwrap()).unwrap();
        path
    }

    /// Install a pip distribution into site-packages. Returns the dist-info
    /// directory.
    pub fn pip(&mut self, dist: PipDist) -> PathBuf {
        let site = self.site();
        Self::lay_out(&site, &dist.files);
        let escaped = dist.name.replace('-', "_");
        let info_rel = format!("{escaped}-{}.dist-info", dist.version);
        let info = site.join(&info_rel);
        fs::create_dir_all(&info).unwrap();
        let requires: String = dist
            .requires
            .iter()
            .map(|r| format!("Requires-Dist: {r}\n"))
            .collect();
        fs::write(
            info.join("METADATA"),
            format!(
                "Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: fixture\nRequires-Python: >=3\n{requires}\nLong description.\n",
                dist.name, dist.version
            ),
        )
        .unwrap();
        fs::write(info.join("INSTALLER"), format!("{}\n", dist.installer)).unwrap();
        fs::write(info.join("WHEEL"), "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.41.2)\nRoot-Is-Purelib: false\nTag: py3-none-manylinux2014_x86_64\n").unwrap();
        let mut record = String::new();
        for f in &dist.files {
            record.push_str(&format!(
                "{},sha256={},{}\n",
                f.rel(),
                hex(f.rel(), 43),
                LIB_BYTES.len()
            ));
        }
        for (rel, body) in &dist.texts {
            let path = site.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, body).unwrap();
            record.push_str(&format!("{rel},sha256={},{}\n", hex(rel, 43), body.len()));
        }
        for meta in ["METADATA", "INSTALLER", "WHEEL"] {
            record.push_str(&format!("{info_rel}/{meta},,\n"));
        }
        record.push_str(&format!("{info_rel}/RECORD,,\n"));
        fs::write(info.join("RECORD"), record).unwrap();
        info
    }

    /// `n` ordinary packages nobody cares about, like the bulk of a real env.
    /// With `garbage`, their records are not even JSON: reading one would
    /// fail, so a passing run proves they were never opened.
    pub fn filler(&mut self, n: usize, garbage: bool) {
        for i in 0..n {
            let name = format!("filler-pkg{i}");
            let path = self
                .prefix
                .join("conda-meta")
                .join(format!("{name}-1.{i}.0-h{i:07x}_0.json"));
            if garbage {
                fs::write(&path, b"\xff\xfe not json at all {{{").unwrap();
            } else {
                // Leak-free static names are not needed: write the record directly.
                let record = serde_json::json!({
                    "build": format!("h{i:07x}_0"), "build_number": 0,
                    "channel": "https://conda.anaconda.org/conda-forge/", "depends": [],
                    "files": [format!("lib/libfiller{i}.so")], "fn": format!("{name}-1.{i}.0-h{i:07x}_0.conda"),
                    "name": name, "subdir": "linux-64", "version": format!("1.{i}.0"),
                    "url": format!("https://conda.anaconda.org/conda-forge/linux-64/{name}-1.{i}.0-h{i:07x}_0.conda"),
                    "paths_data": {"paths": [], "paths_version": 1},
                });
                fs::write(&path, record.to_string()).unwrap();
            }
        }
    }
}

// ------------------------------------------------------------- presets ----

/// CUDA 11 the conda way: `cudatoolkit` 11.8 with everything flat in `lib/`
/// (symlink chains `libcudart.so -> .so.11.0 -> .so.11.8.89`), `cudnn` 8.9
/// (defaults build `cuda11_0`), `nccl`, and the Paddle 2.5 CUDA 11.6 wheel.
pub fn cuda11_paddle(prefix: &Path) -> Env {
    use FileSpec::*;
    let mut env = Env::new(prefix);
    env.python("3.10.14");
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
    );
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
    );
    env.conda(
        CondaPkg::new("openssl", "3.0.13", "h7f8727e_0")
            .files(vec![File("lib/libcrypto.so.3"), File("lib/libssl.so.3")]),
    );
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
    );
    env
}

/// CUDA 12 the conda-forge way: `cuda-version` 12.6, split packages whose
/// real files live in `targets/x86_64-linux/lib` with `lib/` symlinks,
/// cuDNN 9 from the 2025 split (`cudnn` metapackage -> `libcudnn`),
/// `nccl`, the driver stub, and conda-forge's pytorch 2.4.1 CUDA build.
pub fn cuda12_split(prefix: &Path) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.12.4");
    cuda12_toolkit(&mut env);
    cuda12_libraries(&mut env);
    fs::write(
        env.site().join("torch/version.py"),
        "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n__version__ = '2.4.1'\ndebug = False\ncuda: Optional[str] = '12.0'\ngit_version = 'Unknown'\nhip: Optional[str] = None\n",
    )
    .unwrap();
    env
}

/// `cuda12_split`'s CUDA toolkit: `cuda-version`, the runtime, cuBLAS, NVRTC
/// and the driver stub.
fn cuda12_toolkit(env: &mut Env) {
    use FileSpec::*;
    env.conda(CondaPkg::new("cuda-version", "12.6", "h7480c83_3").noarch());
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
    );
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
    );
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
    );
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
    );
    env.conda(
        CondaPkg::new("cuda-driver-dev_linux-64", "12.6.77", "h3f2d84a_0")
            .noarch()
            .files(vec![File("targets/x86_64-linux/lib/stubs/libcuda.so")]),
    );
    env.conda(
        CondaPkg::new("cuda-driver-dev", "12.6.77", "h5888daf_0").files(vec![Link(
            "lib/stubs/libcuda.so",
            "../../targets/x86_64-linux/lib/stubs/libcuda.so",
        )]),
    );
}

/// `cuda12_split`'s libraries over the toolkit: cuDNN 9, NCCL and pytorch.
fn cuda12_libraries(env: &mut Env) {
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
    );
    env.conda(
        CondaPkg::new("cudnn", "9.3.0.75", "h93bb076_0").depends(vec!["libcudnn-dev 9.3.0.75"]),
    );
    env.conda(
        CondaPkg::new("nccl", "2.23.4.1", "h52f6c39_0")
            .depends(vec!["cuda-version >=12,<13.0a0"])
            .files(vec![
                File("lib/libnccl.so.2.23.4"),
                Link("lib/libnccl.so.2", "libnccl.so.2.23.4"),
                Link("lib/libnccl.so", "libnccl.so.2"),
                File("lib/libnccl_device.bc"),
            ]),
    );
    env.conda(
        CondaPkg::new("libtorch", "2.4.1", "cuda120_h1d34654_302").files(vec![
            File("lib/libtorch.so"),
            File("lib/libtorch_cpu.so"),
            File("lib/libtorch_cuda.so"),
            File("lib/libc10_cuda.so"),
        ]),
    );
    env.conda(
        CondaPkg::new("pytorch", "2.4.1", "cuda120_py312h6ccb88c_302").files(vec![
            File("lib/python3.12/site-packages/torch/_C.cpython-312-x86_64-linux-gnu.so"),
            File("lib/python3.12/site-packages/torch/version.py"),
        ]),
    );
}

/// CUDA from pip only: PyPI torch 2.3.1 with the pinned `nvidia-*-cu12`
/// wheels (files under `site-packages/nvidia/<lib>/lib`, no symlinks).
pub fn pip_wheels(prefix: &Path) -> Env {
    use FileSpec::*;
    let mut env = Env::new(prefix);
    env.python("3.11.9");
    env.pip(
        PipDist::new("nvidia-cuda-runtime-cu12", "12.1.105").files(vec![
            File("nvidia/__init__.py"),
            File("nvidia/cuda_runtime/lib/libcudart.so.12"),
        ]),
    );
    env.pip(PipDist::new("nvidia-cublas-cu12", "12.1.3.1").files(vec![
        File("nvidia/cublas/lib/libcublas.so.12"),
        File("nvidia/cublas/lib/libcublasLt.so.12"),
        File("nvidia/cublas/lib/libnvblas.so.12"),
    ]));
    env.pip(PipDist::new("nvidia-cudnn-cu12", "8.9.2.26").files(vec![
        File("nvidia/cudnn/lib/libcudnn.so.8"),
        File("nvidia/cudnn/lib/libcudnn_ops_infer.so.8"),
        File("nvidia/cudnn/lib/libcudnn_cnn_infer.so.8"),
    ]));
    env.pip(
        PipDist::new("nvidia-nccl-cu12", "2.20.5")
            .files(vec![File("nvidia/nccl/lib/libnccl.so.2")]),
    );
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
    );
    env.pip(PipDist::new("numpy", "1.26.4").files(vec![File(
        "numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so",
    )]));
    env
}

/// CUDA 13 from pip: the suffix-less toolkit wheels share `nvidia/cu13/lib`,
/// while cuDNN keeps its `-cu13` suffix; Paddle 3.x with its version file.
pub fn pip_cuda13(prefix: &Path) -> Env {
    use FileSpec::*;
    let mut env = Env::new(prefix);
    env.python("3.12.4");
    env.pip(
        PipDist::new("nvidia-cuda-runtime", "13.0.96")
            .files(vec![File("nvidia/cu13/lib/libcudart.so.13")]),
    );
    env.pip(PipDist::new("nvidia-cublas", "13.1.0.3").files(vec![
        File("nvidia/cu13/lib/libcublas.so.13"),
        File("nvidia/cu13/lib/libcublasLt.so.13"),
    ]));
    env.pip(PipDist::new("nvidia-cudnn-cu13", "9.13.0.50").files(vec![
        File("nvidia/cudnn/lib/libcudnn.so.9"),
        File("nvidia/cudnn/lib/libcudnn_graph.so.9"),
    ]));
    env.pip(
        PipDist::new("paddlepaddle-gpu", "3.2.0")
            .files(vec![File("paddle/base/libpaddle.so")])
            .text(
                "paddle/version/__init__.py",
                "full_version    = '3.2.0'\ncuda_version    = '13.0'\ncudnn_version   = '9.13.0'\nnccl_version    = '2.27.7'\nwith_pip_cuda_libraries = 'ON'\ncompiled_cuda_archs = '[75, 80, 86, 89, 90, 100, 120]'\n",
            ),
    );
    env
}

/// No CUDA anywhere: conda-forge CPU pytorch and the CPU Paddle wheel.
pub fn cpu_only(prefix: &Path) -> Env {
    use FileSpec::*;
    let mut env = Env::new(prefix);
    env.python("3.13.1");
    env.conda(CondaPkg::new("numpy", "2.1.3", "py313h4bf6692_0").files(vec![File("lib/python3.13/site-packages/numpy/_core/_multiarray_umath.cpython-313-x86_64-linux-gnu.so")]));
    env.conda(
        CondaPkg::new("pytorch", "2.4.1", "cpu_mkl_py313hbc6f0e9_102")
            .files(vec![File("lib/libtorch_cpu.so")]),
    );
    env.pip(PipDist::new("paddlepaddle", "2.6.2").files(vec![File("paddle/base/libpaddle.so")]));
    env
}

/// conda's CUDA 11.8 plus pip's CUDA 12.1 torch stack in one env: the
/// mixed setup that loads whichever runtime the path finds first.
pub fn mixed(prefix: &Path) -> Env {
    use FileSpec::*;
    let mut env = cuda11_paddle(prefix);
    env.pip(
        PipDist::new("nvidia-cuda-runtime-cu12", "12.1.105")
            .files(vec![File("nvidia/cuda_runtime/lib/libcudart.so.12")]),
    );
    env.pip(
        PipDist::new("nvidia-cudnn-cu12", "8.9.2.26")
            .files(vec![File("nvidia/cudnn/lib/libcudnn.so.8")]),
    );
    env.pip(
        PipDist::new("torch", "2.1.2+cu121")
            .files(vec![File("torch/lib/libtorch_cuda.so")])
            .text("torch/version.py", "__version__ = '2.1.2+cu121'\ncuda: Optional[str] = '12.1'\nhip: Optional[str] = None\n"),
    );
    env
}

/// The demo installation (`cargo run --example demo-env`, the README's
/// walkthrough): a root prefix `miniconda3/` with the environments
/// `paddle`, `torch`, `wheels` and `cpu`, and `home/.conda/environments.txt`
/// as conda would leave it (with one entry deleted by hand). Returns the
/// root prefix and the home directory.
pub fn demo(dir: &Path) -> (PathBuf, PathBuf) {
    let root = dir.join("miniconda3");
    let mut base = Env::new(&root);
    base.python("3.12.4");
    base.conda(CondaPkg::new("conda", "24.11.3", "py312h7900ff3_0"));
    let envs = root.join("envs");
    cuda11_paddle(&envs.join("paddle"));
    cuda12_split(&envs.join("torch"));
    pip_wheels(&envs.join("wheels"));
    cpu_only(&envs.join("cpu"));

    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".conda")).unwrap();
    let mut listing = format!("{}\n", root.display());
    for name in ["paddle", "torch", "wheels", "cpu", "deleted-by-hand"] {
        listing.push_str(&format!("{}\n", envs.join(name).display()));
    }
    std::fs::write(home.join(".conda/environments.txt"), listing).unwrap();

    (root, home)
}

// ------------------------------------------------------------ commands ----

/// A sandbox: a temp dir with a fake home and an empty `bin/` for `PATH`,
/// so nothing of the machine running the tests leaks in.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("envhook-test")
            .tempdir()
            .unwrap();
        fs::create_dir_all(dir.path().join("home/.conda")).unwrap();
        fs::create_dir_all(dir.path().join("bin")).unwrap();
        Sandbox { dir }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn home(&self) -> PathBuf {
        self.path("home")
    }

    /// The same as [`Sandbox::envhook`], as a `std::process::Command` (for
    /// spawning with a time limit).
    pub fn envhook_std(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("envhook"));
        cmd.env_clear()
            .env("HOME", self.home())
            .env("PATH", self.path("bin"))
            .env("ENVHOOK_SYSROOT", self.path("sysroot"));
        cmd
    }

    /// `envhook` with a clean environment: only HOME and PATH.
    pub fn envhook(&self) -> assert_cmd::Command {
        let mut cmd = assert_cmd::Command::cargo_bin("envhook").unwrap();
        cmd.env_clear()
            .env("HOME", self.home())
            .env("PATH", self.path("bin"))
            .env("ENVHOOK_SYSROOT", self.path("sysroot"));
        cmd
    }

    /// Run `envhook ARGS...`: (exit code, stdout, stderr).
    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        outcome(self.envhook().args(args).output().unwrap())
    }

    /// Run `envhook ARGS... -p PREFIX`: (exit code, stdout, stderr).
    pub fn run_on(&self, args: &[&str], prefix: &Path) -> (i32, String, String) {
        outcome(
            self.envhook()
                .args(args)
                .arg("-p")
                .arg(prefix)
                .output()
                .unwrap(),
        )
    }
}

/// The stdout of a run that must exit 0 (its stderr is the message
/// otherwise).
pub fn stdout_ok(out: std::process::Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The stdout of a tool run that must succeed without a word on stderr;
/// `what` names it in the message otherwise.
pub fn stdout_silent(out: std::process::Output, what: &str) -> String {
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A finished run as (exit code, stdout, stderr).
pub fn outcome(out: std::process::Output) -> (i32, String, String) {
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The variables of an `env -0` dump, without the shell's own (`_`, `PWD`,
/// `OLDPWD`, `SHLVL`) and the tests' `T_*`.
pub type EnvDump = std::collections::BTreeMap<std::ffi::OsString, std::ffi::OsString>;

pub fn parse_env(bytes: &[u8]) -> EnvDump {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    bytes
        .split(|b| *b == 0)
        .filter(|r| !r.is_empty())
        .filter_map(|r| {
            let at = r.iter().position(|b| *b == b'=')?;
            Some((
                std::ffi::OsString::from_vec(r[..at].to_vec()),
                std::ffi::OsString::from_vec(r[at + 1..].to_vec()),
            ))
        })
        .filter(|(k, _)| {
            let k = k.as_bytes();
            !matches!(k, b"_" | b"PWD" | b"OLDPWD" | b"SHLVL") && !k.starts_with(b"T_")
        })
        .collect()
}

/// `LD_LIBRARY_PATH` in a dump, as bytes; `None` when unset.
pub fn ld(env: &EnvDump) -> Option<&[u8]> {
    use std::os::unix::ffi::OsStrExt;
    env.get(std::ffi::OsStr::new("LD_LIBRARY_PATH"))
        .map(|v| v.as_bytes())
}

/// Run `envhook show --json -p PREFIX` and parse the output; returns the
/// JSON and the exit code.
pub fn show_json(sandbox: &Sandbox, prefix: &Path) -> (serde_json::Value, i32) {
    let out = sandbox
        .envhook()
        .args(["show", "--json", "-p"])
        .arg(prefix)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {stderr}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (json, out.status.code().unwrap())
}

// ---------------------------------------------------------- real ELF ----

/// Build a real shared object with `cc`: SONAME `soname`, DT_NEEDED on
/// each of `deps` (linked by path, so their own SONAMEs are recorded), and
/// `rpath` as DT_RPATH (`runpath: false`) or DT_RUNPATH (`runpath: true`).
pub fn cc_shared(out: &Path, soname: &str, deps: &[&Path], rpath: Option<&str>, runpath: bool) {
    if let Some(dir) = out.parent() {
        fs::create_dir_all(dir).unwrap();
    }
    let src = out.with_extension("fixture.c");
    let symbol: String = soname
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    fs::write(
        &src,
        format!("int envhook_fixture_{symbol}(void) {{ return 42; }}\n"),
    )
    .unwrap();
    let mut cmd = std::process::Command::new("cc");
    cmd.args(["-shared", "-fPIC", "-o"])
        .arg(out)
        .arg(&src)
        .arg(format!("-Wl,-soname,{soname}"));
    if let Some(r) = rpath {
        cmd.arg(if runpath {
            "-Wl,--enable-new-dtags"
        } else {
            "-Wl,--disable-new-dtags"
        });
        cmd.arg(format!("-Wl,-rpath,{r}"));
    }
    cmd.arg("-Wl,--no-as-needed");
    cmd.args(deps);
    let status = cmd.status().expect("cc is installed (CI installs gcc)");
    assert!(status.success(), "cc failed for {}", out.display());
    fs::remove_file(&src).unwrap();
}

/// A file's bytes (or a link's target) and, for files, the modification time.
pub type Content = (Vec<u8>, Option<std::time::SystemTime>);

/// Every path under `dir`, sorted, with file contents and modification
/// times and link targets (directories as `None`): equal snapshots mean
/// nothing was written, not even the same bytes again.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Option<Content>)> {
    walk(dir)
        .into_iter()
        .map(|(p, m)| {
            let content = if m.file_type().is_symlink() {
                Some((
                    fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                    None,
                ))
            } else if m.is_dir() {
                None
            } else {
                Some((fs::read(&p).unwrap(), Some(m.modified().unwrap())))
            };
            (p, content)
        })
        .collect()
}

/// Every path under `dir` (links not followed) with its metadata, sorted.
pub fn walk(dir: &Path) -> Vec<(PathBuf, fs::Metadata)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                stack.push(p.clone());
            }
            out.push((p, m));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

impl Sandbox {
    /// `envhook install --always -p PREFIX`, which must succeed with exit
    /// 0: the hooks are written even where the frameworks need none (the
    /// tests that use this test the hooks).
    pub fn install(&self, prefix: &Path) {
        self.envhook()
            .args(["install", "--always", "-p"])
            .arg(prefix)
            .assert()
            .code(0);
    }
}

/// Syntax errors the real PowerShell grammar (tree-sitter-powershell) finds
/// in `src`, as `line:column: text`, skipping lines for which `tolerate`
/// is true (constructs the grammar lacks). No pwsh can be installed here.
pub fn powershell_errors(src: &str, tolerate: impl Fn(&str) -> bool) -> Vec<String> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_powershell::LANGUAGE.into())
        .unwrap();
    let tree = parser.parse(src, None).unwrap();
    let mut errors = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let p = node.start_position();
        let line = src.lines().nth(p.row).unwrap_or("");
        if (node.is_error() || node.is_missing()) && !tolerate(line) {
            let text: String = src[node.byte_range()].chars().take(80).collect();
            errors.push(format!("{}:{}: {text}", p.row + 1, p.column + 1));
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    errors
}
