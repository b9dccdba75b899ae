//! Opt-in tier, with the real-wheel tier (`ENVHOOK_REAL_WHEELS=1`): plain
//! venvs made by the real tools, with the real CUDA runtime wheel from
//! PyPI. uv is pip-installed from PyPI into a scratch venv; one project's
//! `.venv` is made by `python3 -m venv` and pip, the other's by `uv venv`
//! and `uv pip`. Each is selected from `VIRTUAL_ENV` and from its `.venv`,
//! listed by `envs`, hooked by `install`, activated and deactivated in real
//! bash, zsh and fish through the activation scripts that tool wrote (the
//! venv's python loading the wheel's libcudart by the loader's own account,
//! `/proc/self/maps`), and restored byte for byte by `uninstall`. A few MB
//! from PyPI; `PIP_INDEX_URL` and `UV_INDEX_URL` as the tools read them.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use support::venvs::{INITS, assert_cycle, cycle, sha};

fn enabled() -> bool {
    support::opt_in(
        "ENVHOOK_REAL_WHEELS",
        "set ENVHOOK_REAL_WHEELS=1 to run the real-wheel tier",
    )
    .is_some()
}

fn run(cmd: &mut Command) {
    let out = cmd.env("PIP_NO_CACHE_DIR", "1").output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {out:?}");
}

/// `project/.venv` made by `tool` (`venv` or `uv`, the latter from
/// `uv_bin`), with nvidia-cuda-runtime-cu12 installed by that tool's pip.
fn make(project: &Path, tool: &str, uv_bin: &Path) -> PathBuf {
    let venv = project.join(".venv");
    let python = venv.join("bin/python");
    if tool == "uv" {
        run(Command::new(uv_bin)
            .args(["venv", "--no-cache", "--python", "python3"])
            .arg(&venv));
        run(Command::new(uv_bin)
            .args(["pip", "install", "--no-cache", "--python"])
            .arg(&python)
            .arg("nvidia-cuda-runtime-cu12"));
    } else {
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
        run(Command::new(&python).args(["-m", "pip", "install", "-q", "nvidia-cuda-runtime-cu12"]));
    }
    venv
}

fn envhook(args: &[&str], cwd: &Path, vars: &[(&str, &Path)]) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_envhook"));
    cmd.args(args)
        .current_dir(cwd)
        .env_remove("VIRTUAL_ENV")
        .env_remove("CONDA_PREFIX")
        .env_remove("LD_LIBRARY_PATH");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.code().unwrap() <= 1, "{args:?}: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn venvs_from_python_and_uv_with_the_wheel_from_pypi() {
    if !enabled() {
        return;
    }
    let tmp = tempfile::Builder::new()
        .prefix("envhook-real-venvs-")
        .tempdir()
        .unwrap();
    let tools = tmp.path().join("tools");
    run(Command::new("python3").args(["-m", "venv"]).arg(&tools));
    run(Command::new(tools.join("bin/python")).args(["-m", "pip", "install", "-q", "uv"]));
    for tool in ["venv", "uv"] {
        let project = tmp.path().join(tool);
        let venv = make(&project, tool, &tools.join("bin/uv"));
        let cudart = std::fs::canonicalize(
            std::fs::read_dir(venv.join("lib"))
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path()
                .join("site-packages/nvidia/cuda_runtime/lib/libcudart.so.12"),
        )
        .unwrap();
        let want = venv.display().to_string();
        let deep = project.join("src");
        std::fs::create_dir_all(&deep).unwrap();
        let shown = envhook(&["show", "--json"], &deep, &[]);
        assert_eq!(shown["prefix"], want, "{tool}: from .venv");
        let shown = envhook(&["show", "--json"], tmp.path(), &[("VIRTUAL_ENV", &venv)]);
        assert_eq!(shown["prefix"], want, "{tool}: from VIRTUAL_ENV");
        let envs = envhook(&["envs", "--json"], &project, &[]);
        let row = envs["envs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["prefix"] == want)
            .unwrap_or_else(|| panic!("{envs:#}"));
        assert_eq!(row["kind"], "venv");
        assert_eq!(envs["active"], want);

        let scripts: Vec<PathBuf> = std::fs::read_dir(venv.join("bin"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("activate")
            })
            .collect();
        let before: Vec<Vec<u8>> = scripts.iter().map(|p| sha(p)).collect();
        let out = Command::new(env!("CARGO_BIN_EXE_envhook"))
            .args(["install", "--always", "-p"])
            .arg(&venv)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("hooked"),
            "{tool}: {out:?}"
        );
        for shell in ["bash", "zsh", "fish"] {
            for init in INITS {
                let out = cycle(shell, &venv, init);
                assert_cycle(
                    &out,
                    &venv,
                    &cudart,
                    init,
                    &format!("{tool} {shell} {init:?}"),
                );
            }
        }
        let out = Command::new(env!("CARGO_BIN_EXE_envhook"))
            .args(["uninstall", "-p"])
            .arg(&venv)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let after: Vec<Vec<u8>> = scripts.iter().map(|p| sha(p)).collect();
        assert_eq!(after, before, "{tool}: {scripts:?}");
    }
}
