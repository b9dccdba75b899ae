//! Plain Python venvs (#42 item 2), made by the real `python3 -m venv`:
//! selected from `VIRTUAL_ENV` and from a `.venv` in or above the working
//! directory, listed by `envs` and `audit`, and hooked through their own
//! `bin/activate` and `bin/activate.fish`, run in the real shells, with the
//! loader's own answer (`/proc/self/maps`) for what the venv's python
//! loads. A real `uv venv` and the real wheel from PyPI are in the
//! opt-in tier (tests/it/real_venvs.rs).

use crate::support;

use std::fs;
use std::path::Path;

use serde_json::Value;
use support::Sandbox;
use support::venvs::{INITS, assert_cycle, cycle, sha, venv};

fn json(out: std::process::Output) -> Value {
    assert!(out.status.code().unwrap() <= 1, "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_active_venv_is_chosen_as_uv_chooses_it() {
    let sb = Sandbox::new();
    let (project_venv, _) = venv(&sb.path("project/.venv"));
    let (other, _) = venv(&sb.path("other"));
    let conda = support::cpu_only(&sb.path("conda/envs/x"));
    let deep = sb.path("project/src/pkg");
    fs::create_dir_all(&deep).unwrap();
    let show = |cwd: &Path, vars: &[(&str, &Path)]| {
        let mut cmd = sb.envhook();
        cmd.args(["show", "--json", "-v"]).current_dir(cwd);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (json(out)["prefix"].as_str().unwrap().to_string(), err)
    };
    // VIRTUAL_ENV first, even over an active conda environment below it.
    let (prefix, err) = show(
        &deep,
        &[("VIRTUAL_ENV", &other), ("CONDA_PREFIX", &conda.prefix)],
    );
    assert_eq!(prefix, other.display().to_string());
    assert!(err.contains("found via VIRTUAL_ENV"), "{err}");
    // Then CONDA_PREFIX of an environment that is not base.
    let (prefix, _) = show(&deep, &[("CONDA_PREFIX", &conda.prefix)]);
    assert_eq!(prefix, conda.prefix.display().to_string());
    // Then a .venv here or above, over an active base.
    let (prefix, err) = show(&deep, &[]);
    assert_eq!(prefix, project_venv.display().to_string());
    assert!(err.contains(".venv in a parent directory"), "{err}");
    let mut cmd = sb.envhook();
    let out = cmd
        .args(["show", "--json", "-v"])
        .current_dir(sb.path("project"))
        .env("CONDA_PREFIX", sb.path("conda"))
        .env("CONDA_DEFAULT_ENV", "base")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(".venv in the current directory"),
        "{out:?}"
    );
    assert_eq!(json(out)["prefix"], project_venv.display().to_string());
    // Nothing: exit 2, and the hint names both conventions.
    let out = sb
        .envhook()
        .arg("check")
        .current_dir(sb.path("conda"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no environment selected")
            && err.contains("VIRTUAL_ENV")
            && err.contains(".venv"),
        "{err}"
    );
    // A .venv that is not a venv is said, not skipped for one above.
    fs::create_dir_all(sb.path("project/src/.venv")).unwrap();
    let out = sb
        .envhook()
        .arg("check")
        .current_dir(&deep)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("pyvenv.cfg"),
        "{out:?}"
    );
}

#[test]
fn envs_and_audit_list_venvs_as_venvs() {
    let sb = Sandbox::new();
    let (listed, _) = venv(&sb.path("listed"));
    let (child, _) = venv(&sb.path("dir/child"));
    let (active, _) = venv(&sb.path("active"));
    fs::write(
        sb.path("home/.conda/environments.txt"),
        format!("{}\n", listed.display()),
    )
    .unwrap();
    let envs = json(
        sb.envhook()
            .args(["envs", "--json", "--envs-dir"])
            .arg(sb.path("dir"))
            .env("VIRTUAL_ENV", &active)
            .output()
            .unwrap(),
    );
    assert_eq!(envs["stale"], serde_json::json!([]), "{envs:#}");
    let kinds: Vec<(String, String)> = envs["envs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["prefix"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for venv in [&listed, &child, &active] {
        assert!(
            kinds.contains(&(venv.display().to_string(), "venv".into())),
            "{kinds:?}"
        );
    }
    assert_eq!(envs["active"], active.display().to_string());
    let text = support::stdout_ok(
        sb.envhook()
            .args(["envs", "--envs-dir"])
            .arg(sb.path("dir"))
            .output()
            .unwrap(),
    );
    assert!(text.contains("(venv; given "), "{text}");
    assert!(!text.contains("stale"), "{text}");
    let audit = json(
        sb.envhook()
            .args(["audit", "--format", "json", "--envs-dir"])
            .arg(sb.path("dir"))
            .env("VIRTUAL_ENV", &active)
            .output()
            .unwrap(),
    );
    let rows = audit["envs"].as_array().unwrap();
    for venv in [&listed, &child, &active] {
        let row = rows
            .iter()
            .find(|r| r["prefix"] == venv.display().to_string())
            .unwrap_or_else(|| panic!("{audit:#}"));
        assert_eq!(row["kind"], "venv");
        assert_ne!(row["status"], "unreadable", "{row:#}");
    }
}

/// What `check` says of the hooks of the venv active in `VIRTUAL_ENV`.
fn hook_state(sb: &Sandbox, prefix: &Path) -> String {
    let check = json(
        sb.envhook()
            .args(["check", "--json"])
            .env("VIRTUAL_ENV", prefix)
            .output()
            .unwrap(),
    );
    check["hook"]["state"].as_str().unwrap().to_string()
}

#[test]
fn install_hooks_the_venvs_own_activation_reversibly() {
    let sb = Sandbox::new();
    let (prefix, cudart) = venv(&sb.path("v"));
    let scripts = ["activate", "activate.fish", "activate.csh", "Activate.ps1"];
    let before: Vec<Vec<u8>> = scripts
        .iter()
        .map(|s| sha(&prefix.join("bin").join(s)))
        .collect();
    // --show-hooks shows the block as it is then appended.
    let (code, shown, err) = sb.run_on(
        &["install", "--always", "--dry-run", "--show-hooks"],
        &prefix,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        scripts
            .iter()
            .map(|s| sha(&prefix.join("bin").join(s)))
            .collect::<Vec<_>>(),
        before
    );
    let (code, out, err) = sb.run_on(&["install", "--always"], &prefix);
    assert_eq!(code, 0, "{out}{err}");
    let hooked = fs::read_to_string(prefix.join("bin/activate")).unwrap();
    let block = &hooked[hooked.find("\n# >>> envhook >>>").unwrap()..];
    let header = format!(
        "==> {} (appended) <==\n",
        prefix.join("bin/activate").display()
    );
    assert!(shown.contains(&format!("{header}{block}")), "{shown}");
    for s in ["activate", "activate.fish"] {
        let line = format!("hooked       {}", prefix.join("bin").join(s).display());
        assert!(out.contains(&line), "{out}");
    }
    assert!(
        out.contains("powershell and csh activation scripts are not hooked"),
        "{out}"
    );
    // The csh and PowerShell scripts are as they were.
    assert_eq!(sha(&prefix.join("bin/activate.csh")), before[2]);
    assert_eq!(sha(&prefix.join("bin/Activate.ps1")), before[3]);
    // check reads the hooks as installed, and current.
    assert_eq!(hook_state(&sb, &prefix), "current");
    for shell in ["bash", "zsh", "fish"] {
        for init in INITS {
            let out = cycle(shell, &prefix, init);
            assert_cycle(&out, &prefix, &cudart, init, &format!("{shell} {init:?}"));
        }
    }
    // Again: nothing to change, nothing written.
    let mtime = fs::metadata(prefix.join("bin/activate"))
        .unwrap()
        .modified()
        .unwrap();
    let (code, out, _) = sb.run_on(&["install", "--always"], &prefix);
    assert_eq!(code, 0);
    assert!(!out.contains("  hooked "), "{out}");
    assert_eq!(
        fs::metadata(prefix.join("bin/activate"))
            .unwrap()
            .modified()
            .unwrap(),
        mtime
    );
    let (code, out, err) = sb.run_on(&["uninstall"], &prefix);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("unhooked"), "{out}");
    let after: Vec<Vec<u8>> = scripts
        .iter()
        .map(|s| sha(&prefix.join("bin").join(s)))
        .collect();
    assert_eq!(after, before);
    for gone in ["etc", "lib/envhook", ".envhook.lock"] {
        assert!(!prefix.join(gone).exists(), "{gone}");
    }
    assert_eq!(hook_state(&sb, &prefix), "none");
}

#[test]
fn an_edited_block_or_a_linked_script_is_refused() {
    let sb = Sandbox::new();
    let (prefix, _) = venv(&sb.path("v"));
    let activate = prefix.join("bin/activate");
    assert_eq!(sb.run_on(&["install", "--always"], &prefix).0, 0);
    let text = fs::read_to_string(&activate).unwrap();
    let edited = text.replace("unset _envhook_venv_f\n", "unset _envhook_venv_f # mine\n");
    assert_ne!(edited, text);
    fs::write(&activate, &edited).unwrap();
    for args in [&["uninstall"][..], &["install", "--always"]] {
        let (code, _, err) = sb.run_on(args, &prefix);
        let cmd = args[0];
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(err.contains("was edited since envhook wrote it"), "{err}");
        assert!(
            err.contains("hint:") && err.contains("# >>> envhook >>>"),
            "{err}"
        );
        assert_eq!(fs::read_to_string(&activate).unwrap(), edited);
    }
    // A linked script is never written through.
    let (other, _) = venv(&sb.path("w"));
    let target = sb.path("shared-activate");
    fs::rename(other.join("bin/activate"), &target).unwrap();
    std::os::unix::fs::symlink(&target, other.join("bin/activate")).unwrap();
    let before = fs::read(&target).unwrap();
    let (code, _, err) = sb.run_on(&["install", "--always"], &other);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(fs::read(&target).unwrap(), before);
    let fish = fs::read_to_string(other.join("bin/activate.fish")).unwrap();
    assert!(!fish.contains("# >>> envhook >>>"), "{fish}");
}

/// `conda run -p VENV` leaves a `conda-meta/history` and nothing else in a
/// venv: it stays a venv, whose own activation scripts are hooked (conda's
/// activate.d never runs there).
#[test]
fn a_venv_with_a_stray_conda_history_stays_a_venv() {
    let sb = Sandbox::new();
    let (prefix, _) = venv(&sb.path("v"));
    fs::create_dir(prefix.join("conda-meta")).unwrap();
    fs::write(prefix.join("conda-meta/history"), "").unwrap();
    let envs = json(
        sb.envhook()
            .args(["envs", "--json"])
            .env("VIRTUAL_ENV", &prefix)
            .output()
            .unwrap(),
    );
    let kinds: Vec<&str> = envs["envs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["prefix"] == prefix.display().to_string())
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["venv"], "{envs:#}");
    let before = sha(&prefix.join("bin/activate"));
    let (code, out, err) = sb.run_on(&["install", "--always"], &prefix);
    assert_eq!(code, 0, "{out}{err}");
    let line = format!("hooked       {}", prefix.join("bin/activate").display());
    assert!(out.contains(&line), "{out}");
    assert_eq!(hook_state(&sb, &prefix), "current");
    // A package record makes it conda's: then conda's hooks are the ones.
    let (code, out, err) = sb.run_on(&["uninstall"], &prefix);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(sha(&prefix.join("bin/activate")), before);
    fs::write(prefix.join("conda-meta/python-3.12.0-0.json"), "{}").unwrap();
    let (code, out, err) = sb.run_on(&["install", "--always"], &prefix);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("hooked "), "{out}");
    assert_eq!(sha(&prefix.join("bin/activate")), before);
}
