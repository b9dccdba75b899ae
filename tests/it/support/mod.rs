//! Builds temporary prefixes laid out like real conda environments, for the
//! integration tests: with the code that lays out the demo installation
//! (the library's `demo`), and presets of their own.
#![allow(dead_code)] // each test binary uses a different part

use std::fs;
use std::path::{Path, PathBuf};

pub mod cc;
pub mod explaining;
pub mod json;
pub mod paddle;
pub mod pip_spec;
pub mod real_wheels;
pub mod source;
pub mod terminal;
pub mod tiers;
pub mod venvs;

pub use cc::*;
pub use envhook::demo as demo_layout;
pub use json::*;
pub use tiers::{OTHER_UID, chown_tree, is_root, opt_in, require};

pub use demo_layout::prefix::{CondaPkg, FileSpec, PipDist};
use demo_layout::tree::Tree;
use demo_layout::{prefix, presets};

/// The bytes of every fixture library: a real, 1.5 kB x86-64 shared object
/// (built once with `cc -shared -nostdlib -s -Wl,-z,max-page-size=0x10`),
/// so the loader simulation accepts it like the real thing. Tests about
/// SONAMEs, DT_NEEDED and RPATHs build their own objects with `cc`.
pub const LIB_BYTES: &[u8] = include_bytes!("fixture.so");

/// A prefix under construction: the demo's builder (`src/demo/prefix.rs`)
/// with [`LIB_BYTES`] for every library, where a failure fails the test.
pub struct Env(prefix::Env);

impl std::ops::Deref for Env {
    type Target = prefix::Env;

    fn deref(&self) -> &prefix::Env {
        &self.0
    }
}

impl Env {
    /// An empty environment: `conda-meta/` with a `history` file.
    pub fn new(prefix: impl Into<PathBuf>) -> Self {
        Env(prefix::Env::new(prefix, LIB_BYTES).unwrap())
    }

    /// Install a python record and create its site-packages.
    pub fn python(&mut self, version: &'static str) -> &mut Self {
        self.0.python(version).unwrap();
        self
    }

    /// Install a conda package: its files and its record. Returns the
    /// record's path.
    pub fn conda(&mut self, pkg: CondaPkg) -> PathBuf {
        self.0.conda(pkg).unwrap()
    }

    /// Install a pip distribution into site-packages. Returns the dist-info
    /// directory.
    pub fn pip(&mut self, dist: PipDist) -> PathBuf {
        self.0.pip(dist).unwrap()
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

/// The demo's `paddle` (`src/demo/presets.rs`).
pub fn cuda11_paddle(prefix: &Path) -> Env {
    Env(presets::cuda11_paddle(Tree::create(prefix).unwrap(), LIB_BYTES).unwrap())
}

/// The demo's `torch`.
pub fn cuda12_split(prefix: &Path) -> Env {
    Env(presets::cuda12_split(Tree::create(prefix).unwrap(), LIB_BYTES).unwrap())
}

/// The demo's `wheels`.
pub fn pip_wheels(prefix: &Path) -> Env {
    Env(presets::pip_wheels(Tree::create(prefix).unwrap(), LIB_BYTES).unwrap())
}

/// The demo's `cpu`.
pub fn cpu_only(prefix: &Path) -> Env {
    Env(presets::cpu_only(Tree::create(prefix).unwrap(), LIB_BYTES).unwrap())
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

/// Set the mtime of a file or directory to `secs_ago` seconds in the past
/// (futimens on a read-only descriptor, which a directory allows too).
pub fn set_age(path: &Path, secs_ago: u64) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(secs_ago);
    fs::File::open(path).unwrap().set_modified(when).unwrap();
}

/// The hooks of `prefix` (sh, fish, ps1 and csh, both phases), written
/// `secs_ago` seconds ago: what a later change is compared with, set
/// rather than waited for (the hooks and the kernel compare file times in
/// whole seconds or clock ticks).
pub fn age_hooks(prefix: &Path, secs_ago: u64) {
    for phase in ["activate", "deactivate"] {
        for ext in ["sh", "fish", "ps1", "csh"] {
            set_age(
                &prefix.join(format!("etc/conda/{phase}.d/envhook.{ext}")),
                secs_ago,
            );
        }
    }
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
