//! `export` (sh, Dockerfile, env-file, JSON) through real shells, `run`,
//! completions, the man page, and the packaging files' consistency.

use crate::support;

use std::fs;
use std::path::Path;
use std::process::Command;

use support::Sandbox;

/// `export` in directories mode: these tests are about each format's
/// quoting (the default mode refuses to expose all of `lib/` without an
/// install; see `export_never_exposes_all_of_lib_unasked`).
fn export(sb: &Sandbox, prefix: &Path, format: &str) -> String {
    let out = sb
        .envhook()
        .args(["export", "--mode", "dirs", "--format", format, "-p"])
        .arg(prefix)
        .output()
        .unwrap();
    support::stdout_ok(out)
}

/// Source `script` in `shell` with LD_LIBRARY_PATH `initial`; return the value after.
fn source_in(shell: &str, script: &Path, initial: Option<&str>) -> Option<String> {
    let mut cmd = Command::new(shell);
    cmd.arg("-c").arg(
        "set -eu; . \"$T_SCRIPT\"; if [ -n \"${LD_LIBRARY_PATH+x}\" ]; then printf '%s' \"$LD_LIBRARY_PATH\"; else printf UNSET; fi",
    );
    cmd.env("T_SCRIPT", script).env_remove("LD_LIBRARY_PATH");
    if let Some(v) = initial {
        cmd.env("LD_LIBRARY_PATH", v);
    }
    let v = support::stdout_silent(cmd.output().unwrap(), shell);
    (v != "UNSET").then_some(v)
}

#[test]
fn profile_snippet_round_trips_in_real_shells() {
    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("it's $(x) a b/env"));
    let script = sb.path("profile.sh");
    fs::write(&script, export(&sb, &env.prefix, "sh")).unwrap();
    let out = Command::new("shellcheck")
        .args(["--shell=sh", "--enable=all"])
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let lib = env.path("lib").display().to_string();
    let targets = env.path("targets/x86_64-linux/lib").display().to_string();
    let dirs = format!("{lib}:{targets}");
    for shell in ["bash", "zsh", "dash"] {
        assert_eq!(
            source_in(shell, &script, None).as_deref(),
            Some(dirs.as_str()),
            "{shell} unset"
        );
        assert_eq!(
            source_in(shell, &script, Some("")).as_deref(),
            Some(dirs.as_str()),
            "{shell} empty"
        );
        assert_eq!(
            source_in(shell, &script, Some("/opt/x::/y $z:")).as_deref(),
            Some(format!("{dirs}:/opt/x:/y $z").as_str()),
            "{shell} value"
        );
        // Sourcing twice (a login shell inside a login shell) adds nothing.
        assert_eq!(
            source_in(shell, &script, Some(&format!("{dirs}:/opt/x"))).as_deref(),
            Some(format!("{dirs}:/opt/x").as_str()),
            "{shell} again"
        );
    }
    assert!(!sb.path("x").exists());
}

/// `--json` is `--format json`, as for audit (#42 item 6).
#[test]
fn json_flag_is_the_json_format() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let (code, flag, err) = sb.run_on(&["export", "--mode", "dirs", "--json"], &env.prefix);
    assert_eq!(code, 0, "{err}");
    assert_eq!(flag, export(&sb, &env.prefix, "json"));
    let doc: serde_json::Value = serde_json::from_str(&flag).unwrap();
    assert_eq!(doc["schema"], "envhook.export/1");
    let (code, _, err) = sb.run_on(&["export", "--json", "--format", "sh"], &env.prefix);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn dockerfile_env_line() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("with $dollar \"quote\" back\\slash/env"));
    let text = export(&sb, &env.prefix, "dockerfile");
    let line = text.lines().find(|l| l.starts_with("ENV ")).unwrap();
    let lib = env.path("lib").display().to_string();
    let escaped = lib
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('$', "\\$");
    assert_eq!(
        line,
        format!("ENV LD_LIBRARY_PATH=\"{escaped}${{LD_LIBRARY_PATH:+:${{LD_LIBRARY_PATH}}}}\"")
    );
    // Dockerfile double quotes escape `\`, `"` and `$` as sh's do, and
    // `${VAR:+word}` substitutes as in sh: evaluate the value with sh.
    let value = line.strip_prefix("ENV LD_LIBRARY_PATH=").unwrap();
    for (initial, want) in [
        (None, lib.clone()),
        (
            Some("/usr/local/nvidia/lib64"),
            format!("{lib}:/usr/local/nvidia/lib64"),
        ),
    ] {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("v={value}; printf '%s' \"$v\""))
            .env_remove("LD_LIBRARY_PATH");
        if let Some(i) = initial {
            cmd.env("LD_LIBRARY_PATH", i);
        }
        assert_eq!(
            String::from_utf8(cmd.output().unwrap().stdout).unwrap(),
            want
        );
    }
}

#[test]
fn env_file_and_json() {
    let sb = Sandbox::new();
    let env = support::pip_wheels(&sb.path("env"));
    sb.install(&env.prefix);
    let link = env.path("lib/envhook/cuda").display().to_string();
    // The default mode, after an install: the link directory.
    let out = sb
        .envhook()
        .args(["export", "--format", "env", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, format!("LD_LIBRARY_PATH={link}\n"));
    // Read back the way env-file consumers do: one KEY=VALUE per line, verbatim.
    let file = sb.path("cuda.env");
    fs::write(&file, &text).unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg("while IFS= read -r l; do export \"$l\"; done < \"$1\"; printf '%s' \"$LD_LIBRARY_PATH\"")
        .arg("bash")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), link);
    let out = sb
        .envhook()
        .args(["export", "--format", "json", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["schema"], "envhook.export/1");
    assert_eq!(json["mode"], "isolated");
    assert_eq!(json["prepend"], serde_json::json!([link]));
    assert_eq!(json["env"]["LD_LIBRARY_PATH"], link);
}

/// Without an install, an isolated export names the link directory
/// `envhook install` makes, and says that it is not there yet (#30).
#[test]
fn isolated_export_names_the_directory_install_makes() {
    let sb = Sandbox::new();
    let env = support::pip_wheels(&sb.path("env"));
    let out = sb
        .envhook()
        .args(["export", "--mode", "isolated", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&env.path("lib/envhook/cuda").display().to_string()),
        "{text}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has no envhook link directory yet"), "{err}");
    assert!(err.contains("envhook install -p"), "{err}");
    // Without --mode it falls back to the library directories.
    assert!(export(&sb, &env.prefix, "env").contains("site-packages/nvidia/cuda_runtime/lib"));
}

#[test]
fn run_executes_with_the_matched_path_and_its_exit_status() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let lib = env.path("lib").display().to_string();
    let out = sb
        .envhook()
        .env("LD_LIBRARY_PATH", "::/existing")
        .args(["run", "--mode", "dirs", "-p"])
        .arg(&env.prefix)
        .args([
            "--",
            "/bin/sh",
            "-c",
            "printf '%s' \"$LD_LIBRARY_PATH\"; exit 7",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{lib}:/existing")
    );
    // A CPU environment: nothing to add, nothing changed.
    let cpu = support::cpu_only(&sb.path("cpu"));
    let out = sb
        .envhook()
        .args(["run", "-p"])
        .arg(&cpu.prefix)
        .args([
            "--",
            "/bin/sh",
            "-c",
            "printf '%s' \"${LD_LIBRARY_PATH-unset}\"",
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "unset");
    let out = sb
        .envhook()
        .args(["run", "--mode", "dirs", "-p"])
        .arg(&env.prefix)
        .args(["--", "no-such-program-xyz"])
        .output()
        .unwrap();
    // As shells exit for a command not found.
    assert_eq!(out.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&out.stderr).contains("could not run no-such-program-xyz"));
}

fn envhook_out(sb: &Sandbox, args: &[&str]) -> String {
    let out = sb.envhook().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn completions_parse_in_their_shells() {
    let sb = Sandbox::new();
    for (shell, checker, args) in [
        ("bash", "bash", &["-n"][..]),
        ("zsh", "zsh", &["-n"]),
        ("fish", "fish", &["--no-execute"]),
    ] {
        let text = envhook_out(&sb, &["completions", shell]);
        // The script asks envhook itself for candidates (see
        // tests/it/completions.rs for completion driven through the shells).
        assert!(
            text.contains("COMPLETE=") || text.contains("COMPLETE\""),
            "{shell}: {text}"
        );
        let file = sb.path(&format!("completion.{shell}"));
        fs::write(&file, text).unwrap();
        let out = Command::new(checker)
            .args(args)
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{shell}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // bash: loading it registers the completion function.
    let file = sb.path("completion.bash");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(". '{}'; complete -p envhook", file.display()))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("envhook"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ps = envhook_out(&sb, &["completions", "powershell"]);
    // tree-sitter-powershell lacks PowerShell 4's `.Where{ }` method
    // shorthand, which clap_complete uses; errors on those lines are the
    // grammar's, everything else must parse.
    let errors = support::powershell_errors(&ps, |line| line.contains(".Where{"));
    assert!(
        errors.is_empty(),
        "PowerShell completion parse errors: {errors:#?}"
    );
}

#[test]
fn man_page_and_version() {
    let sb = Sandbox::new();
    let man = envhook_out(&sb, &["man"]);
    assert!(man.contains(".TH ENVHOOK 1"), "{}", &man[..200]);
    for sub in ["install", "check", "audit", "export"] {
        assert!(man.contains(sub), "{sub} in the man page");
    }
    let version = envhook_out(&sb, &["--version"]);
    let data =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/matrix.toml")).unwrap();
    let matrix_version = data
        .lines()
        .find_map(|l| l.strip_prefix("version = "))
        .unwrap()
        .trim_matches('"');
    assert_eq!(
        version.trim(),
        format!(
            "envhook {} (matrix {matrix_version})",
            env!("CARGO_PKG_VERSION")
        )
    );
}

#[test]
fn conda_recipes_match_the_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for rel in [
        "packaging/conda/recipe.yaml",
        "packaging/conda-plugin/recipe.yaml",
    ] {
        let text = fs::read_to_string(root.join(rel)).unwrap();
        let recipe: serde_yaml::Value =
            serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(
            recipe["context"]["version"].as_str(),
            Some(env!("CARGO_PKG_VERSION")),
            "{rel}: the recipe's version follows Cargo.toml"
        );
        assert!(recipe["package"]["name"].as_str().is_some(), "{rel}");
        assert!(
            recipe["tests"].as_sequence().is_some_and(|t| !t.is_empty()),
            "{rel} has tests"
        );
        assert!(recipe["about"]["license"].as_str() == Some("MIT"), "{rel}");
    }
}

/// #12: without an install, the default mode of export never falls back to
/// all of `lib/` (the folk hook's mistake); `--mode dirs` does, with a
/// warning.
#[test]
fn export_never_exposes_all_of_lib_unasked() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    // (`run` builds a private link directory instead: tests/it/run.rs.)
    // What the image holds after the `envhook install` the Dockerfile
    // runs, or, for this machine, what install makes here (said).
    let link = env.path("lib/envhook/cuda").display().to_string();
    let lib = format!("{}:", env.path("lib").display());
    for (args, warned) in [
        (&["export", "--format", "dockerfile"][..], false),
        (&["export"], true),
    ] {
        let mut cmd = sb.envhook();
        cmd.args(args).arg("-p").arg(&env.prefix);
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(&link), "{text}");
        assert!(!text.contains(&lib), "never all of lib/: {text}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            err.contains("has no envhook link directory yet"),
            warned,
            "{err}"
        );
    }
    let out = sb
        .envhook()
        .args(["export", "--mode", "dirs", "--format", "env", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("warning: ") && err.contains("not only CUDA's"),
        "{err}"
    );
}

/// #12: after an install, the Dockerfile form makes the path exist in the
/// image (a RUN line before the ENV line), and the RUN line is valid sh
/// whatever the prefix holds.
#[test]
fn dockerfile_after_install_creates_the_link_directory_in_the_image() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("it's a $env"));
    sb.envhook()
        .args(["install", "-p"])
        .arg(&env.prefix)
        .assert()
        .code(0);
    let out = sb
        .envhook()
        .args(["export", "--format", "dockerfile", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 2, "{text}");
    let run = lines[0].strip_prefix("RUN ").expect("RUN first");
    assert!(lines[1].starts_with("ENV LD_LIBRARY_PATH=\""), "{text}");
    assert!(lines[1].contains("lib/envhook/cuda"), "{text}");
    // A real Dockerfile parser (dockerfile-parse, PyPI; hadolint is not in
    // Debian 12) reads one RUN and one ENV of LD_LIBRARY_PATH.
    let dockerfile = sb.path("Dockerfile");
    fs::write(&dockerfile, format!("FROM scratch\n{text}")).unwrap();
    let parsed = Command::new("python3")
        .arg("-c")
        .arg(
            "import sys; from dockerfile_parse import DockerfileParser\n\
             d = DockerfileParser(sys.argv[1])\n\
             print([i['instruction'] for i in d.structure if i['instruction'] != 'COMMENT'])\n\
             print([i['value'].split('=')[0] for i in d.structure if i['instruction'] == 'ENV'])",
        )
        .arg(&dockerfile)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(parsed.stdout).unwrap(),
        "['FROM', 'RUN', 'ENV']\n['LD_LIBRARY_PATH']\n",
        "{}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    // The RUN line as the image's /bin/sh would run it: envhook with the
    // prefix as one argument.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("envhook() {{ printf '%s\\n' \"$@\"; }}; {run}"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("install\n-p\n{}\n", env.prefix.display())
    );
}

/// #12: `run` is like `conda run`: the environment's python, its prefix in
/// CONDA_PREFIX, its name in CONDA_DEFAULT_ENV (conda's name for it, by
/// the prefix, however it was selected: #42).
#[test]
fn run_uses_the_environments_own_programs() {
    let sb = Sandbox::new();
    let prefix = sb.path("home/miniconda3/envs/paddle");
    support::Env::new(sb.path("home/miniconda3"));
    let env = support::cuda11_paddle(&prefix);
    // A real python whose sys.prefix is the environment: a venv made over
    // it, with copies (the fixture's bin/python* go first; never write
    // through a venv's links, which lead to the system's interpreter).
    for name in ["python", "python3"] {
        let _ = fs::remove_file(prefix.join("bin").join(name));
    }
    let venv = Command::new("python3")
        .args(["-m", "venv", "--without-pip", "--copies"])
        .arg(&prefix)
        .output()
        .unwrap();
    assert!(
        venv.status.success(),
        "{}",
        String::from_utf8_lossy(&venv.stderr)
    );
    sb.envhook()
        .args(["install", "-p"])
        .arg(&env.prefix)
        .assert()
        .code(0);
    for (select, default_env) in [
        (vec!["-n", "paddle"], "paddle".to_string()),
        (vec!["-p", prefix.to_str().unwrap()], "paddle".to_string()),
    ] {
        let out = sb
            .envhook()
            .arg("run")
            .args(&select)
            .args([
                "--",
                "python",
                "-c",
                "import os, sys; print(sys.prefix); print(os.environ['CONDA_PREFIX']); \
                 print(os.environ['CONDA_DEFAULT_ENV']); print(os.environ['LD_LIBRARY_PATH'])",
            ])
            .output()
            .unwrap();
        let text = support::stdout_ok(out);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], prefix.to_str().unwrap(), "sys.prefix");
        assert_eq!(lines[1], prefix.to_str().unwrap(), "CONDA_PREFIX");
        assert_eq!(lines[2], default_env, "CONDA_DEFAULT_ENV");
        assert_eq!(lines[3], prefix.join("lib/envhook/cuda").to_str().unwrap());
    }
}
