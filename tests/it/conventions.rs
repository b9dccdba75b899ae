//! Command-line conventions every command shares (#14): values checked when
//! they are parsed, one error prefix, `-q`/`-v`, and what `envs` says.

use crate::support;

use std::fs;

use support::{Env, Sandbox};

#[test]
fn a_driver_version_that_is_not_one_is_a_usage_error() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("envs/paddle"));
    let prefix = env.prefix.to_str().unwrap();
    for bad in ["abc", "535.", "5.3.5.1", "", "535.104.05x"] {
        let (code, out, err) = sb.run(&["check", "-p", prefix, "--driver-version", bad]);
        assert_eq!(code, 2, "{bad}: {out}{err}");
        assert!(out.is_empty(), "{out}");
        assert!(err.starts_with("error: invalid value"), "{err}");
    }
    for good in ["535.104.05", "470.57", "580"] {
        let (code, _, err) = sb.run(&["check", "-p", prefix, "--driver-version", good]);
        assert_ne!(code, 2, "{good}: {err}");
    }
}

#[test]
fn an_unknown_gpu_is_an_error_with_names_like_it() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("envs/paddle"));
    let prefix = env.prefix.to_str().unwrap();
    let (code, out, err) = sb.run(&["check", "-p", prefix, "--gpu", "RTX 9999"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.starts_with("error: --gpu RTX 9999: not a compute capability"),
        "{err}"
    );
    assert!(err.contains("  hint: known names like it: RTX "), "{err}");
    for good in ["sm_90", "8.6", "86", "H100", "NVIDIA A100-SXM4-80GB"] {
        let (code, _, err) = sb.run(&["check", "-p", prefix, "--gpu", good]);
        assert_ne!(code, 2, "{good}: {err}");
    }
    // audit checks the same flag the same way.
    let (code, _, err) = sb.run(&["audit", "--gpu", "nonsense"]);
    assert_eq!(code, 2, "{err}");
}

/// `--gpu NUMBER` (#42): a GPU's model number names that GPU before
/// anything else (4090 is the RTX 4090, never sm_4090); a number that no
/// model carries is a compute capability without its dot only where it is
/// one (86, 120); anything else is refused, and so is a compute capability
/// that does not exist (`sm_4090`).
#[test]
fn a_model_number_is_that_gpu_and_a_compute_capability_must_exist() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("envs/paddle"));
    let prefix = env.prefix.to_str().unwrap();
    let gpu = |value: &str| {
        let (code, out, err) = sb.run(&["check", "--json", "-p", prefix, "--gpu", value]);
        assert_ne!(code, 2, "{value}: {err}");
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        let gpu = &json["driver"]["gpus"][0];
        (
            gpu["name"].as_str().map(str::to_string),
            gpu["cc"].as_str().unwrap().to_string(),
        )
    };
    for (value, name, cc) in [
        ("4090", "RTX 4090", "8.9"),
        ("3090", "RTX 3090", "8.6"),
        ("5090", "RTX 5090", "12.0"),
        ("4060", "RTX 4060", "8.9"),
        ("1080", "GTX 1080", "6.1"),
        ("4070 Ti SUPER", "RTX 4070", "8.9"),
    ] {
        assert_eq!(
            gpu(value),
            (Some(name.to_string()), cc.to_string()),
            "{value}"
        );
    }
    for (value, cc) in [
        ("86", "8.6"),
        ("120", "12.0"),
        ("sm_89", "8.9"),
        ("8.9", "8.9"),
    ] {
        assert_eq!(gpu(value), (None, cc.to_string()), "{value}");
    }
    let refused = |value: &str| {
        let (code, out, err) = sb.run(&["check", "-p", prefix, "--gpu", value]);
        assert_eq!(code, 2, "{value}: {out}{err}");
        err
    };
    for value in ["4091", "99", "sm_4090", "40.9"] {
        let err = refused(value);
        assert!(
            err.starts_with(&format!("error: --gpu {value}: not a compute capability")),
            "{err}"
        );
        assert!(
            err.contains("  hint: a bare number is a GPU's model number"),
            "{err}"
        );
    }
    assert!(refused("sm_4090").contains("RTX 4090"));
    assert!(refused("4091").contains("RTX 4090"));
    // A number several GPUs of different compute capabilities carry.
    let err = refused("6000");
    assert!(
        err.starts_with("error: --gpu 6000: several GPUs carry that model number"),
        "{err}"
    );
    for name in [
        "RTX-6000 (sm_75)",
        "RTX-6000-Ada (sm_89)",
        "RTX-PRO-6000-Blackwell (sm_120)",
    ] {
        assert!(err.contains(name), "{name}: {err}");
    }
}

#[test]
fn a_missing_envs_dir_is_an_error_naming_it() {
    let sb = Sandbox::new();
    let missing = sb.path("no/such/dir");
    for cmd in ["envs", "audit"] {
        let (code, out, err) = sb.run(&[cmd, "--envs-dir", missing.to_str().unwrap()]);
        assert_eq!(code, 2, "{cmd}: {out}{err}");
        assert!(
            err.starts_with(&format!(
                "error: --envs-dir {}: no such directory\n  hint: ",
                missing.display()
            )),
            "{err}"
        );
    }
}

#[test]
fn envs_marks_the_active_environment_and_names_each_source_once() {
    let sb = Sandbox::new();
    let root = sb.path("home/miniconda3");
    Env::new(&root);
    Env::new(root.join("envs/paddle"));
    Env::new(root.join("envs/torch"));
    fs::write(
        sb.path("home/.conda/environments.txt"),
        format!("{}\n{}/envs/paddle\n", root.display(), root.display()),
    )
    .unwrap();
    let out = sb
        .envhook()
        .env("CONDA_PREFIX", root.join("envs/paddle"))
        .arg("envs")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} in {text}"))
            .to_string()
    };
    assert!(line("paddle").starts_with("paddle * "), "{text}");
    assert!(line("torch").starts_with("torch    "), "{text}");
    assert_eq!(
        line("base").matches("environments.txt").count(),
        1,
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_slice(
        &sb.envhook()
            .env("CONDA_PREFIX", root.join("envs/paddle"))
            .args(["envs", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(
        json["active"].as_str(),
        Some(root.join("envs/paddle").to_str().unwrap())
    );
}

#[test]
fn no_environments_found_says_where_it_looked() {
    let sb = Sandbox::new();
    let (code, out, _) = sb.run(&["envs"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("no environments found\n  hint: envhook looks where conda does"),
        "{out}"
    );
    assert!(out.contains("--envs-dir DIR"), "{out}");
}

#[test]
fn quiet_silences_warnings_and_verbose_adds_notes() {
    let sb = Sandbox::new();
    Env::new(sb.path("home/.conda/envs/ok"));
    fs::write(sb.path("home/.condarc"), "envs_dirs: [unclosed\n").unwrap();
    let (code, out, err) = sb.run(&["envs"]);
    assert_eq!(code, 0);
    assert!(err.starts_with("warning: ignoring "), "{err}");
    let (code, quiet_out, err) = sb.run(&["-q", "envs"]);
    assert_eq!(code, 0);
    assert_eq!(err, "");
    assert_eq!(quiet_out, out, "-q changes stderr only");
    // Global flags go after the subcommand too.
    let (_, _, err) = sb.run(&["audit", "-v", "--driver-version", "535.104.05"]);
    assert!(
        err.contains("note: driver: 535.104.05 (--driver-version/--gpu)"),
        "{err}"
    );
    assert!(err.contains("note: audited 1 environments in "), "{err}");
    let (code, _, err) = sb.run(&["-q", "-v", "envs"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn show_never_says_build_unknown() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/x"));
    env.python("3.11");
    env.pip(support::PipDist::new("torch", "2.4.1"));
    let (_, out, err) = sb.run(&["show", "-p", env.prefix.to_str().unwrap()]);
    assert!(!out.contains("build unknown"), "{out}{err}");
    assert!(out.contains("CPU or GPU build not recorded"), "{out}{err}");
}

/// #21: every command's `--help` states the one exit contract (`run`'s
/// status is its command's), as docs/exit-codes.md and the man pages do.
#[test]
fn every_commands_help_states_the_exit_contract() {
    let verbs = [
        "show",
        "envs",
        "install",
        "uninstall",
        "check",
        "audit",
        "export",
        "completions",
        "man",
        "explain",
    ];
    let help = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_envhook"))
            .args(args)
            .arg("--help")
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let contract = "1 findings of severity warning or error";
    assert!(help(&[]).contains(contract));
    for verb in verbs {
        let text = help(&[verb]);
        assert!(text.contains(contract), "{verb} --help:\n{text}");
        assert!(
            !text.contains("finding of severity error."),
            "{verb}: the old rule"
        );
    }
    assert!(help(&["run"]).contains("Exit codes: the command's own"));
    assert!(help(&["audit"]).contains("severity warning or error, or cannot be read"));
}
