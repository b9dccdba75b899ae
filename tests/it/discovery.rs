//! Finding environments the way conda does: root prefixes, envs_dirs from
//! `.condarc` files and environment variables, `environments.txt`, pixi
//! projects, and the errors for names that do not resolve.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use support::{Env, Sandbox};

fn envs_json(cmd: &mut assert_cmd::Command) -> Value {
    let out = cmd.args(["envs", "--json"]).output().unwrap();
    serde_json::from_str(&support::stdout_ok(out)).unwrap()
}

fn names(json: &Value) -> Vec<(String, String)> {
    json["envs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap_or("-").to_string(),
                e["prefix"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `envhook show --json` for a name; returns the prefix it resolved to.
fn resolve(cmd: &mut assert_cmd::Command, name: &str) -> PathBuf {
    let out = cmd.args(["show", "--json", "-n", name]).output().unwrap();
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    PathBuf::from(json["prefix"].as_str().unwrap())
}

/// A miniconda-style root with envs under it.
fn install(root: &Path, envs: &[&str]) {
    let mut base = Env::new(root);
    base.python("3.12.4");
    fs::create_dir_all(root.join("condabin")).unwrap();
    fs::write(root.join("condabin/conda"), "#!/bin/sh\n").unwrap();
    fs::create_dir_all(root.join("bin")).unwrap();
    fs::write(root.join("bin/conda"), "#!/bin/sh\n").unwrap();
    for name in envs {
        Env::new(root.join("envs").join(name));
    }
}

fn p(path: PathBuf) -> String {
    path.display().to_string()
}

#[test]
fn environments_txt_as_real_ones_look() {
    let sb = Sandbox::new();
    let root = sb.path("miniconda3");
    install(&root, &["paddle"]);
    Env::new(sb.path("elsewhere/proj-env"));
    fs::create_dir_all(sb.path("not-an-env")).unwrap();
    let txt = format!(
        "\r\n{}\r\n\n{}\n{}\nC:\\Users\\user\\anaconda3\\envs\\AI_BIO\n{}\n{}\n",
        root.display(),
        root.join("envs/paddle").display(),
        sb.path("elsewhere/proj-env").display(),
        sb.path("gone").display(),
        sb.path("not-an-env").display(),
    );
    fs::write(sb.path("home/.conda/environments.txt"), txt).unwrap();
    let json = envs_json(&mut sb.envhook());
    assert_eq!(json["schema"], "envhook.envs/1");
    assert_eq!(
        names(&json),
        vec![
            ("base".into(), p(root.clone())),
            ("paddle".into(), p(root.join("envs/paddle"))),
            ("-".into(), p(sb.path("elsewhere/proj-env"))),
        ]
    );
    let stale: Vec<(&str, &str)> = json["stale"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["entry"].as_str().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    let gone = p(sb.path("gone"));
    let not_env = p(sb.path("not-an-env"));
    assert_eq!(
        stale,
        vec![
            (
                "C:\\Users\\user\\anaconda3\\envs\\AI_BIO",
                "a path for another operating system"
            ),
            (gone.as_str(), "no longer exists"),
            (
                not_env.as_str(),
                "no conda-meta/ directory (nor a venv's pyvenv.cfg)"
            ),
        ]
    );
    // The env outside any envs dir has no name conda's -n reaches (#42):
    // it is refused, with the path form.
    let out = sb
        .envhook()
        .args(["show", "-n", "proj-env"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(
            "error: no environment named 'proj-env' in conda's envs directories: conda \
             activate -n reaches only those and base"
        ),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "hint: listed in environments.txt outside them; select it by path: -p '{}'",
            sb.path("elsewhere/proj-env").display()
        )),
        "{err}"
    );
    assert_eq!(resolve(&mut sb.envhook(), "base"), root);
}

#[test]
fn root_from_conda_exe_and_mamba_root_prefix() {
    let sb = Sandbox::new();
    install(&sb.path("miniforge3"), &["torch"]);
    install(&sb.path("mm"), &["jax"]);
    let mut cmd = sb.envhook();
    cmd.env("CONDA_EXE", sb.path("miniforge3/bin/conda"))
        .env("MAMBA_ROOT_PREFIX", sb.path("mm"));
    let json = envs_json(&mut cmd);
    let got = names(&json);
    assert!(got.contains(&("base".into(), p(sb.path("mm")))), "{got:?}");
    assert!(
        got.contains(&("base".into(), p(sb.path("miniforge3")))),
        "{got:?}"
    );
    assert!(
        got.contains(&("torch".into(), p(sb.path("miniforge3/envs/torch")))),
        "{got:?}"
    );
    assert!(
        got.contains(&("jax".into(), p(sb.path("mm/envs/jax")))),
        "{got:?}"
    );
    // MAMBA_ROOT_PREFIX is more explicit than CONDA_EXE: its root is `base`.
    let mut cmd = sb.envhook();
    cmd.env("CONDA_EXE", sb.path("miniforge3/bin/conda"))
        .env("MAMBA_ROOT_PREFIX", sb.path("mm"));
    assert_eq!(resolve(&mut cmd, "base"), sb.path("mm"));
}

#[test]
fn conda_on_path_through_a_symlink() {
    let sb = Sandbox::new();
    install(&sb.path("opt/conda"), &["app"]);
    std::os::unix::fs::symlink(sb.path("opt/conda/condabin/conda"), sb.path("bin/conda")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(
        sb.path("opt/conda/condabin/conda"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    assert_eq!(
        resolve(&mut sb.envhook(), "app"),
        sb.path("opt/conda/envs/app")
    );
}

#[test]
fn envs_dirs_from_condarc_files_and_variables() {
    let sb = Sandbox::new();
    let root = sb.path("miniconda3");
    install(&root, &["shared"]);
    // The same name in three envs dirs: lookup order decides.
    for dir in ["scratch/envs", "team/envs", "sys/envs"] {
        Env::new(sb.path(dir).join("shared"));
    }
    Env::new(sb.path("sys/envs/only-sys"));
    Env::new(sb.path("xdg/envs/only-xdg"));
    fs::write(
        sb.path("home/.condarc"),
        "channels:\n  - conda-forge\nenvs_dirs:\n  - ~/../team/envs\n",
    )
    .unwrap();
    fs::create_dir_all(sb.path("sysroot/etc/conda/condarc.d")).unwrap();
    fs::write(
        sb.path("sysroot/etc/conda/condarc.d/site.yml"),
        format!("envs_path: {}\n", sb.path("sys/envs").display()),
    )
    .unwrap();
    fs::create_dir_all(sb.path("cfg/conda")).unwrap();
    fs::write(
        sb.path("cfg/conda/.condarc"),
        "envs_dirs: [$SCRATCH_ROOT/xdg/envs]\n",
    )
    .unwrap();

    let base = |sb: &Sandbox| {
        let mut cmd = sb.envhook();
        cmd.env("CONDA_EXE", root.join("bin/conda"))
            .env("XDG_CONFIG_HOME", sb.path("cfg"))
            .env("SCRATCH_ROOT", sb.dir.path());
        cmd
    };
    // conda reads /etc/conda before ~/.condarc: sys/envs wins.
    assert_eq!(
        resolve(&mut base(&sb), "shared"),
        sb.path("sys/envs/shared")
    );
    assert_eq!(
        resolve(&mut base(&sb), "only-xdg"),
        sb.path("xdg/envs/only-xdg")
    );
    // CONDA_ENVS_DIRS comes before every file.
    let mut cmd = base(&sb);
    cmd.env(
        "CONDA_ENVS_DIRS",
        format!("{}:/nonexistent", sb.path("scratch/envs").display()),
    );
    assert_eq!(resolve(&mut cmd, "shared"), sb.path("scratch/envs/shared"));
    // So does the older spelling.
    let mut cmd = base(&sb);
    cmd.env("CONDA_ENVS_PATH", sb.path("scratch/envs"));
    assert_eq!(resolve(&mut cmd, "shared"), sb.path("scratch/envs/shared"));

    let json = envs_json(&mut base(&sb));
    let origins: Vec<&str> = json["envs_dirs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["origin"].as_str().unwrap())
        .collect();
    assert!(
        origins[0].starts_with("envs_dirs in ") && origins[0].ends_with("site.yml"),
        "{origins:?}"
    );
}

#[test]
fn home_conda_envs_is_always_searched() {
    let sb = Sandbox::new();
    Env::new(sb.path("home/.conda/envs/mine"));
    assert_eq!(
        resolve(&mut sb.envhook(), "mine"),
        sb.path("home/.conda/envs/mine")
    );
}

#[test]
fn broken_condarc_is_a_warning_not_a_failure() {
    let sb = Sandbox::new();
    Env::new(sb.path("home/.conda/envs/ok"));
    fs::write(sb.path("home/.condarc"), "envs_dirs: [unclosed\n").unwrap();
    let out = sb.envhook().arg("envs").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(&format!(
            "warning: ignoring {}: not valid YAML",
            sb.path("home/.condarc").display()
        )),
        "{err}"
    );
    assert!(String::from_utf8(out.stdout).unwrap().contains("ok"));
}

/// Issue #11: size and depth are bounded before the YAML parser runs; the
/// file is named and skipped, the rest of discovery goes on.
#[test]
fn oversized_or_deeply_nested_condarc_is_skipped_with_its_name() {
    let deep = format!(
        "envs_dirs: {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let large = format!("# {}\nenvs_dirs: [/x]\n", "x".repeat(2 << 20));
    for (text, why) in [
        (deep, "nests deeper than the 64 levels"),
        (large, "larger than the 1048576 bytes"),
    ] {
        let sb = Sandbox::new();
        Env::new(sb.path("home/.conda/envs/ok"));
        fs::write(sb.path("home/.condarc"), text).unwrap();
        let out = sb.envhook().arg("envs").output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let err = String::from_utf8(out.stderr).unwrap();
        let file = sb.path("home/.condarc").display().to_string();
        assert!(err.contains(&file) && err.contains(why), "{err}");
        assert!(String::from_utf8(out.stdout).unwrap().contains("ok"));
    }
}

#[test]
fn unknown_name_lists_the_envs_that_exist() {
    let sb = Sandbox::new();
    install(&sb.path("miniconda3"), &["paddle", "torch"]);
    let out = sb
        .envhook()
        .env("CONDA_EXE", sb.path("miniconda3/bin/conda"))
        .args(["show", "-n", "padle"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    let want = format!(
        "error: no environment named 'padle'\n  hint: environments found:\n    base                 {root}\n    paddle               {root}/envs/paddle\n    torch                {root}/envs/torch\n",
        root = sb.path("miniconda3").display()
    );
    assert_eq!(err, want);
}

#[test]
fn unknown_name_with_no_envs_at_all() {
    let sb = Sandbox::new();
    let out = sb.envhook().args(["show", "-n", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("envhook found no environments at all"),
        "{err}"
    );
}

/// Two environments.txt entries called `proj`, both outside the envs
/// directories: neither is `-n proj` to conda, and each path is named.
#[test]
fn a_name_only_outside_envs_dirs_is_refused_with_each_path() {
    let sb = Sandbox::new();
    Env::new(sb.path("a/proj"));
    Env::new(sb.path("b/proj"));
    fs::write(
        sb.path("home/.conda/environments.txt"),
        format!(
            "{}\n{}\n",
            sb.path("a/proj").display(),
            sb.path("b/proj").display()
        ),
    )
    .unwrap();
    let out = sb.envhook().args(["show", "-n", "proj"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no environment named 'proj' in conda's envs directories"),
        "{err}"
    );
    for dir in ["a/proj", "b/proj"] {
        assert!(
            err.contains(&format!("-p '{}'", sb.path(dir).display())),
            "{err}"
        );
    }
}

/// An envs directory's environment is `-n NAME` before one listed
/// elsewhere with the same directory name, as in conda.
#[test]
fn the_envs_directory_wins_over_an_environments_txt_namesake() {
    let sb = Sandbox::new();
    let root = sb.path("miniconda3");
    install(&root, &["proj"]);
    Env::new(sb.path("elsewhere/proj"));
    fs::write(
        sb.path("home/.conda/environments.txt"),
        format!("{}\n", sb.path("elsewhere/proj").display()),
    )
    .unwrap();
    let mut cmd = sb.envhook();
    cmd.env("CONDA_EXE", root.join("bin/conda"));
    assert_eq!(resolve(&mut cmd, "proj"), root.join("envs/proj"));
}

#[test]
fn pixi_project_directory() {
    let sb = Sandbox::new();
    let project = sb.path("proj");
    fs::write(sb.path("proj-pixi.toml"), "").unwrap();
    support::cuda12_split(&project.join(".pixi/envs/default"));
    Env::new(project.join(".pixi/envs/cuda"));
    fs::write(
        project.join(".pixi/envs/default/conda-meta/pixi"),
        r#"{"manifest_path":"pixi.toml","environment_name":"default","pixi_version":"0.34.0"}"#,
    )
    .unwrap();
    // -p PROJECT means its default environment.
    let (json, _) = support::show_json(&sb, &project);
    assert_eq!(json["prefix"], p(project.join(".pixi/envs/default")));
    assert_eq!(json["cuda"][0]["version"], "12.6");
    // Listing a project shows all its environments.
    let mut cmd = sb.envhook();
    cmd.arg("--envs-dir").arg(&project);
    let out = cmd.args(["envs", "--json"]).output().unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    // `--envs-dir` belongs to the subcommand.
    assert_eq!(json, Value::Null);
    let out = sb
        .envhook()
        .args(["envs", "--json", "--envs-dir"])
        .arg(&project)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pixi: Vec<&str> = json["envs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "pixi")
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(pixi, vec!["cuda", "default"]);
}

#[test]
fn pixi_project_without_default_env() {
    let sb = Sandbox::new();
    let project = sb.path("proj");
    Env::new(project.join(".pixi/envs/cuda"));
    Env::new(project.join(".pixi/envs/cpu"));
    let out = sb
        .envhook()
        .args(["show", "-p"])
        .arg(&project)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("is a pixi project with several environments"),
        "{err}"
    );
    assert!(
        err.contains(".pixi/envs/cpu") && err.contains(".pixi/envs/cuda"),
        "{err}"
    );
}

#[test]
fn active_env_from_conda_prefix() {
    let sb = Sandbox::new();
    let env = support::pip_wheels(&sb.path("active"));
    let out = sb
        .envhook()
        .args(["show", "--json"])
        .env("CONDA_PREFIX", &env.prefix)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["prefix"], p(env.prefix.clone()));
}

#[test]
fn envs_human_output_lists_sources() {
    let sb = Sandbox::new();
    install(&sb.path("miniconda3"), &["paddle"]);
    fs::write(
        sb.path("home/.conda/environments.txt"),
        format!(
            "{}\n{}\n",
            sb.path("miniconda3/envs/paddle").display(),
            sb.path("gone").display()
        ),
    )
    .unwrap();
    let out = sb
        .envhook()
        .env("CONDA_EXE", sb.path("miniconda3/bin/conda"))
        .arg("envs")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout)
        .unwrap()
        .replace(&sb.dir.path().display().to_string(), "[SANDBOX]");
    insta::assert_snapshot!(text);
}
