//! What the real-wheel tiers share (tests/it/real_wheels.rs and
//! tests/it/real_explain.rs): whether the tier is on, prefixes made from
//! PyPI's wheels by `tests/real-wheels/make-prefix.sh` and kept in
//! `ENVHOOK_REAL_WHEELS_DIR`, and running envhook, the prefix's Python, pip
//! and a printed fix in them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A framework as users install it, and what envhook must say.
pub struct Case {
    pub name: &'static str,
    pub requirements: &'static [&'static str],
    /// The finding codes (not `info`) before `envhook install`.
    pub before: &'static [&'static str],
    /// And after.
    pub after: &'static [&'static str],
}

/// A prefix with the case installed; removed on drop unless kept.
pub struct Prefix {
    pub path: PathBuf,
    _temp: Option<tempfile::TempDir>,
}

pub fn enabled() -> bool {
    crate::support::opt_in(
        "ENVHOOK_REAL_WHEELS",
        "set ENVHOOK_REAL_WHEELS=1 to run the real-wheel tier",
    )
    .is_some()
}

pub fn prefix(case: &Case) -> Prefix {
    let (dir, temp) = cache_dir();
    let path = dir.join(case.name);
    made(&path, None, case.requirements);
    // What a user would have done before: no hooks yet.
    let _ = envhook(&["uninstall", "-p"], &path);
    Prefix { path, _temp: temp }
}

/// Where prefixes go: `ENVHOOK_REAL_WHEELS_DIR` (kept), or a temporary
/// directory removed when the returned guard drops.
pub fn cache_dir() -> (PathBuf, Option<tempfile::TempDir>) {
    match std::env::var_os("ENVHOOK_REAL_WHEELS_DIR") {
        Some(d) => (PathBuf::from(d), None),
        None => {
            let t = tempfile::Builder::new()
                .prefix("envhook-real-")
                .tempdir()
                .unwrap();
            (t.path().to_path_buf(), Some(t))
        }
    }
}

/// Make `path` a prefix holding `requirements`, installed by `python`
/// (default `ENVHOOK_REAL_WHEELS_PYTHON`, else `python3`), unless its
/// marker says it holds them already (a kept prefix is reused).
pub fn made(path: &Path, python: Option<&str>, requirements: &[&str]) {
    let marker = path.join("conda-meta/.envhook-real-wheels");
    let wanted = requirements.join("\n");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(wanted.as_str()) {
        return;
    }
    let python = python.map(String::from).unwrap_or_else(|| {
        std::env::var("ENVHOOK_REAL_WHEELS_PYTHON").unwrap_or_else(|_| "python3".into())
    });
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real-wheels/make-prefix.sh");
    let status = Command::new(script)
        .arg(&python)
        .arg(path)
        .args(requirements)
        .status()
        .unwrap();
    assert!(status.success(), "installing {requirements:?} failed");
    std::fs::write(&marker, &wanted).unwrap();
}

/// Run envhook with no LD_LIBRARY_PATH of the test's own.
pub fn envhook(args: &[&str], prefix: &Path) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_envhook"));
    cmd.args(args).arg(prefix).env_remove("LD_LIBRARY_PATH");
    cmd.output().unwrap()
}

/// The sonames this machine's loader cache holds.
pub fn ld_cache() -> String {
    let out = Command::new("/sbin/ldconfig").arg("-p").output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `PREFIX/bin/python -c CODE`, through `envhook run` or not.
pub fn python(prefix: &Path, code: &str, with_hook: bool, env: &[(&str, &str)]) -> (bool, String) {
    let py = prefix.join("bin/python");
    let mut cmd = if with_hook {
        let mut c = Command::new(env!("CARGO_BIN_EXE_envhook"));
        c.args(["run", "-p"]).arg(prefix).arg("--").arg(&py);
        c
    } else {
        Command::new(&py)
    };
    cmd.args(["-c", code]).env_remove("LD_LIBRARY_PATH");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// `PREFIX/bin/python -m pip ARGS --quiet`, which must succeed.
pub fn pip(prefix: &Path, args: &[&str]) {
    let out = Command::new(prefix.join("bin/python"))
        .args(["-m", "pip"])
        .args(args)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Run one fix as printed, with this build's envhook first on PATH and no
/// LD_LIBRARY_PATH of the test's own; it must succeed.
pub fn follow(name: &str, command: &str) {
    let bin = Path::new(env!("CARGO_BIN_EXE_envhook")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    eprintln!("{name}: following {command}");
    let out = Command::new("sh")
        .args(["-c", command])
        .env("PATH", &path)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The version of an installed distribution (normalised name).
pub fn installed(p: &Path, name: &str) -> Option<String> {
    let out = Command::new(p.join("bin/python"))
        .args([
            "-c",
            &format!("import importlib.metadata as m; print(m.version('{name}'))"),
        ])
        .output()
        .unwrap();
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// site-packages of a prefix's Python, whatever its version.
pub fn site_packages(prefix: &Path) -> PathBuf {
    std::fs::read_dir(prefix.join("lib"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.is_dir())
        .unwrap()
}
