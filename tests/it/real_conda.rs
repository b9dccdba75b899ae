//! Opt-in tier: the generated hooks under real conda. Environments made by
//! the real `conda create` (then given a CUDA 11 Paddle layout), hooks from
//! `envhook install`, and the real `conda activate` / `--stack` /
//! `deactivate` of conda's own shell integration in bash, zsh, dash, fish
//! and tcsh, from several starting values of `LD_LIBRARY_PATH`: every value
//! on the way is what it must be, the end is exactly the start, no state
//! variable is left behind and nothing is printed.
//!
//! Off unless `ENVHOOK_REAL_CONDA` names a conda installation's root prefix
//! (`etc/profile.d/conda.sh`, `conda.csh`, `etc/fish/conf.d/conda.fish`,
//! `bin/conda`); it runs offline. See docs/development.md, "The real-conda tier", for building
//! conda from its source for this.

use crate::support;

use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{EnvDump, Sandbox, ld, parse_env};

fn conda_root() -> Option<PathBuf> {
    support::opt_in(
        "ENVHOOK_REAL_CONDA",
        "set ENVHOOK_REAL_CONDA=<conda root prefix> to run the real-conda tier",
    )
    .map(PathBuf::from)
}

/// A real `conda create -p` environment with a CUDA 11 Paddle layout and
/// envhook's hooks; returns the directory the hooks put first.
fn environment(sb: &Sandbox, root: &Path, name: &str) -> String {
    let prefix = sb.path(&format!("envs/{name}"));
    let out = Command::new(root.join("bin/conda"))
        .args(["create", "-y", "-q", "--offline", "-p"])
        .arg(&prefix)
        .env("HOME", sb.home())
        .output()
        .unwrap();
    assert!(out.status.success(), "conda create: {out:?}");
    support::cuda11_paddle(&prefix);
    sb.install(&prefix);
    prefix.join("lib/envhook/cuda").display().to_string()
}

#[derive(Clone, Copy, Debug)]
enum Shell {
    Bash,
    Zsh,
    Dash,
    Fish,
    Tcsh,
}

impl Shell {
    /// The script: conda's integration, then the sequence, the
    /// environment dumped (`env -0`) before and after each step.
    fn script(self, root: &Path) -> String {
        let root = root.display();
        let (setup, a, b) = match self {
            Shell::Fish => (
                format!("source {root}/etc/fish/conf.d/conda.fish"),
                "\"$T_A\"",
                "\"$T_B\"",
            ),
            Shell::Tcsh => (
                format!("source {root}/etc/profile.d/conda.csh"),
                "$T_A:q",
                "$T_B:q",
            ),
            _ => (
                format!(". {root}/etc/profile.d/conda.sh"),
                "\"$T_A\"",
                "\"$T_B\"",
            ),
        };
        let dump = |n: usize| match self {
            Shell::Tcsh => format!("env -0 > $T_DUMP:q/{n}\n"),
            _ => format!("env -0 > \"$T_DUMP/{n}\"\n"),
        };
        let mut script = format!("{setup}\n{}", dump(0));
        for (n, step) in [
            format!("conda activate {a}"),
            // Reactivation: conda runs deactivate.d, then activate.d.
            format!("conda activate {a}"),
            format!("conda activate --stack {b}"),
            "conda deactivate".to_string(),
            "conda deactivate".to_string(),
        ]
        .iter()
        .enumerate()
        {
            script.push_str(step);
            script.push('\n');
            script.push_str(&dump(n + 1));
        }
        script
    }

    fn command(self, script: &Path) -> Command {
        let (bin, args): (&str, &[&str]) = match self {
            Shell::Bash => ("bash", &["--noprofile", "--norc"]),
            Shell::Zsh => ("zsh", &["-f"]),
            Shell::Dash => ("dash", &[]),
            Shell::Fish => ("fish", &["--no-config"]),
            // A file, not -c: csh expands an alias only on a later line.
            Shell::Tcsh => ("tcsh", &["-f"]),
        };
        let mut cmd = Command::new(bin);
        cmd.args(args).arg(script);
        cmd
    }
}

/// `LD_LIBRARY_PATH` in a dump, as text; `None` when unset.
fn ld_text(env: &EnvDump) -> Option<String> {
    ld(env).map(|v| String::from_utf8_lossy(v).into_owned())
}

#[test]
fn conda_activation_sequences_restore_exactly_in_every_shell() {
    let Some(root) = conda_root() else { return };
    let sb = Sandbox::new();
    let a = environment(&sb, &root, "alpha");
    let b = environment(&sb, &root, "beta");
    let initials: [Option<&str>; 5] = [
        None,
        Some(""),
        Some("/usr/local/nvidia/lib64"),
        Some("/a:/b c"),
        Some("::/lead::/mid:"),
    ];
    let mut failures = Vec::new();
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Dash,
        Shell::Fish,
        Shell::Tcsh,
    ] {
        let script = sb.path(&format!("sequence-{shell:?}"));
        fs::write(&script, shell.script(&root)).unwrap();
        for initial in initials {
            let dumps = tempfile::tempdir().unwrap();
            let mut cmd = shell.command(&script);
            cmd.env("HOME", sb.home())
                .env("T_A", sb.path("envs/alpha"))
                .env("T_B", sb.path("envs/beta"))
                .env("T_DUMP", dumps.path())
                .env_remove("CONDA_PREFIX")
                .env_remove("CONDA_SHLVL")
                .env_remove("CONDA_DEFAULT_ENV");
            match initial {
                Some(v) => cmd.env("LD_LIBRARY_PATH", v),
                None => cmd.env_remove("LD_LIBRARY_PATH"),
            };
            let out = cmd.output().unwrap();
            let got: Vec<EnvDump> = (0..6)
                .map(|n| parse_env(&fs::read(dumps.path().join(n.to_string())).unwrap_or_default()))
                .collect();
            // What activation must give: ours first, then the value with
            // its empty elements dropped (an empty element is the
            // current directory).
            let rest: Vec<&str> = initial
                .unwrap_or("")
                .split(':')
                .filter(|e| !e.is_empty())
                .collect();
            let active = std::iter::once(a.as_str())
                .chain(rest.iter().copied())
                .collect::<Vec<_>>()
                .join(":");
            let want = [
                initial.map(String::from),
                Some(active.clone()),
                Some(active.clone()),
                Some(format!("{b}:{active}")),
                Some(active.clone()),
                initial.map(String::from),
            ];
            let seen: Vec<Option<String>> = got.iter().map(ld_text).collect();
            if seen != want {
                failures.push(format!(
                    "{shell:?} from {initial:?}:\n  want {want:?}\n  got  {seen:?}"
                ));
            }
            let left: Vec<String> = got[5]
                .keys()
                .filter(|k| {
                    [
                        b"ENVHOOK_STATE_".as_slice(),
                        b"ENVHOOK_SAVED_",
                        b"ENVHOOK_APPLIED_",
                    ]
                    .iter()
                    .any(|p| k.as_bytes().starts_with(p))
                })
                .map(|k| k.to_string_lossy().into_owned())
                .collect();
            if !left.is_empty() {
                failures.push(format!("{shell:?} from {initial:?}: left {left:?}"));
            }
            if !out.status.success() || !out.stderr.is_empty() {
                failures.push(format!(
                    "{shell:?} from {initial:?}: status {:?}, stderr {}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The byte values envhook compares are the ones conda exported: a value
/// that is not UTF-8 comes back byte for byte too (bash only; conda's
/// Python reads the environment as bytes-escaped text).
#[test]
fn conda_keeps_a_non_utf8_value_exactly() {
    let Some(root) = conda_root() else { return };
    let sb = Sandbox::new();
    environment(&sb, &root, "alpha");
    environment(&sb, &root, "beta");
    let script = sb.path("sequence");
    fs::write(&script, Shell::Bash.script(&root)).unwrap();
    let dumps = tempfile::tempdir().unwrap();
    let value = OsString::from_vec(b"/opt/caf\xe9/lib:/x".to_vec());
    let out = Shell::Bash
        .command(&script)
        .env("HOME", sb.home())
        .env("T_A", sb.path("envs/alpha"))
        .env("T_B", sb.path("envs/beta"))
        .env("T_DUMP", dumps.path())
        .env("LD_LIBRARY_PATH", &value)
        .output()
        .unwrap();
    let end = parse_env(&fs::read(dumps.path().join("5")).unwrap_or_default());
    assert_eq!(ld(&end), Some(value.as_bytes()), "{out:?}");
}

/// #42: `envhook run` sets what `conda activate` sets, so that inside it
/// `conda activate` switches and `conda deactivate` goes back. From a
/// shell with base active, each variable of conda's activation and PATH,
/// in the command, after a `conda activate beta` inside and after the
/// `conda deactivate` that follows, is what `conda run` (whose script runs
/// conda's own `conda activate`) gives. From a shell without conda's
/// integration, where `conda run`'s hook first activates base below the
/// environment, `run` starts at the first level, the switch inside leaves
/// alpha off PATH, and alpha stays on conda's stack.
#[test]
fn run_activates_as_conda_run_does() {
    let Some(root) = conda_root() else { return };
    let sb = Sandbox::new();
    environment(&sb, &root, "alpha");
    environment(&sb, &root, "beta");
    let probe = "for v in CONDA_SHLVL CONDA_PREFIX CONDA_DEFAULT_ENV CONDA_PROMPT_MODIFIER \
                 CONDA_PREFIX_1 CONDA_PREFIX_2 CONDA_PREFIX_3 PATH LD_LIBRARY_PATH; do \
                 eval \"printf '%s=%s\\n' $v \\\"\\${$v--}\\\"\"; done";
    let inner = format!(
        "{probe}; eval \"$(\"$T_CONDA\" shell.bash hook)\"; conda activate \"$T_B\"; {probe}; \
         conda deactivate; {probe}"
    );
    let envhook = assert_cmd::cargo::cargo_bin("envhook");
    let run = |setup: &str, with: &str| {
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-c"])
            .arg(format!("{setup}\n{with} bash -c \"$T_INNER\""))
            .env_clear()
            .env("HOME", sb.home())
            .env("PATH", "/usr/bin:/bin")
            .env("T_CONDA", root.join("bin/conda"))
            .env("T_A", sb.path("envs/alpha"))
            .env("T_B", sb.path("envs/beta"))
            .env("T_INNER", &inner)
            .env("T_ENVHOOK", &envhook)
            .output()
            .unwrap();
        assert!(out.status.success(), "{with}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let base = format!(
        ". '{}/etc/profile.d/conda.sh' && conda activate base",
        root.display()
    );
    let conda = run(&base, "conda run -p \"$T_A\"");
    assert_eq!(run(&base, "\"$T_ENVHOOK\" run -p \"$T_A\" --"), conda);
    // No conda in the calling shell.
    let ours = run("", "\"$T_ENVHOOK\" run -p \"$T_A\" --");
    let alpha = sb.path("envs/alpha");
    let steps: Vec<&str> = ours.split("CONDA_SHLVL=").skip(1).collect();
    assert_eq!(steps.len(), 3, "{ours}");
    assert!(steps[0].starts_with("1\n"), "{ours}");
    let path = |step: &str| {
        step.lines()
            .find_map(|l| l.strip_prefix("PATH="))
            .unwrap()
            .to_string()
    };
    assert!(
        !path(steps[1]).contains(&alpha.join("bin").display().to_string()),
        "{ours}"
    );
    // The hook the inner shell evaluates activates base in alpha's place
    // (auto_activate), as in any shell; alpha stays below it.
    assert!(
        steps[2].contains(&format!("CONDA_PREFIX_1={}\n", alpha.display())),
        "{ours}"
    );
}
