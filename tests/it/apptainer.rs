//! `envhook export --format apptainer`: the `%environment` section of an
//! Apptainer/Singularity definition file, run as a container runs it.
//!
//! Apptainer copies the section into `/.singularity.d/env/90-environment.sh`
//! and runs it in its embedded interpreter, mvdan/sh, which parses the whole
//! file before running any of it. The section is run here by that
//! interpreter (Debian's golang-mvdan-sh-dev, built by `go` into a small
//! runner that parses and runs as Apptainer does), and by dash, bash and
//! busybox sh, from several inherited values.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use support::Sandbox;

/// The runner in `tests/it/support/mvdan-sh`, built once per test run.
fn mvdan_runner() -> &'static Path {
    static RUNNER: OnceLock<PathBuf> = OnceLock::new();
    RUNNER.get_or_init(|| {
        let gopath = Path::new("/usr/share/gocode");
        assert!(
            gopath.join("src/mvdan.cc/sh/v3/interp").is_dir(),
            "mvdan/sh's source is needed: apt-get install golang-go golang-mvdan-sh-dev \
             (scripts/test installs them)"
        );
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let runner = tmp.join("mvdan-sh-runner");
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/mvdan-sh/main.go");
        let out = Command::new("go")
            .args(["build", "-o"])
            .arg(&runner)
            .arg(&src)
            .env("GOPATH", gopath)
            .env("GO111MODULE", "off")
            .env("GOFLAGS", "")
            .env("GOCACHE", tmp.join("go-cache"))
            .output()
            .expect("go (apt-get install golang-go; scripts/test installs it)");
        assert!(
            out.status.success(),
            "go build: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        runner
    })
}

/// The section's body as the container gets it: the lines after
/// `%environment`, without the definition file's indentation.
fn section(def: &str) -> String {
    let (_, body) = def
        .split_once("%environment\n")
        .unwrap_or_else(|| panic!("no %environment line:\n{def}"));
    assert!(!body.contains("\n%"), "one section only:\n{def}");
    body.lines()
        .map(|l| {
            assert!(l.is_empty() || l.starts_with("    "), "not indented: {l:?}");
            l.strip_prefix("    ").unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Runs `script` with LD_LIBRARY_PATH `initial` in `shell` ("mvdan" for
/// Apptainer's interpreter); the value after, and what was left behind.
fn run(shell: &str, script: &Path, initial: Option<&str>) -> String {
    let mut cmd = if shell == "mvdan" {
        let mut c = Command::new(mvdan_runner());
        c.arg(script);
        c
    } else {
        let mut c = Command::new(shell);
        if shell == "busybox" {
            c.arg("sh");
        }
        // As Apptainer's action scripts: `.` the file, with allexport.
        c.args([
            "-c",
            "set -a; . \"$1\"; if [ -n \"${LD_LIBRARY_PATH+x}\" ]; then \
             printf '%s' \"$LD_LIBRARY_PATH\"; else printf UNSET; fi; \
             set | grep '^_envhook' | sed 's/=.*//; s/^/\\nleft: /' | tr -d '\\n' | sed 's/left/\\nleft/g'",
            "sh",
        ])
        .arg(script);
        c
    };
    cmd.env_clear().env("PATH", "/usr/bin:/bin");
    if let Some(v) = initial {
        cmd.env("LD_LIBRARY_PATH", v);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.is_empty(),
        "{shell}: {}\n{stderr}",
        out.status
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn apptainer_section_keeps_the_inherited_value_after_the_environments() {
    // Prefixes with quotes, a dollar, a glob, spaces and backslashes.
    for rel in ["it's $(x) a b*/env", "q\\\"d\\'e `y`/env"] {
        section_from(rel);
    }
}

fn section_from(rel: &str) {
    let sb = Sandbox::new();
    let env = support::pip_wheels(&sb.path(rel));
    sb.install(&env.prefix);
    let out = sb
        .envhook()
        .args(["export", "--format", "apptainer", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let def = support::stdout_silent(out, "export --format apptainer");
    // The link directory exists in the image only if install ran there:
    // the comment before the section names the %post line.
    // (The comment is for sh in %post: POSIX quoting.)
    let install = format!(
        "#     envhook install -p '{}'",
        env.prefix.display().to_string().replace('\'', "'\\''")
    );
    assert!(def.lines().any(|l| l == install), "{def}");
    let (before, _) = def.split_once("%environment\n").unwrap();
    assert!(before.lines().all(|l| l.starts_with('#')), "{before}");

    let script = sb.path("90-environment.sh");
    fs::write(&script, section(&def)).unwrap();
    let lint = Command::new("shellcheck")
        .args(["--shell=sh", "--enable=all"])
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        lint.status.success(),
        "{}",
        String::from_utf8_lossy(&lint.stdout)
    );

    let ours = env.path("lib/envhook/cuda").display().to_string();
    let cases: Vec<(Option<String>, String)> = vec![
        (None, ours.clone()),
        (Some(String::new()), ours.clone()),
        // `--nv`'s driver directory, inherited, stays after.
        (
            Some("/.singularity.d/libs".into()),
            format!("{ours}:/.singularity.d/libs"),
        ),
        // Empty elements go; elements are text, never patterns.
        (
            Some("/opt/x::/y $z:*:[a]:".into()),
            format!("{ours}:/opt/x:/y $z:*:[a]"),
        ),
        // Ours already there (an image started from a shell that had it):
        // once, first.
        (Some(format!("/a:{ours}:/b")), format!("{ours}:/a:/b")),
        (Some(":::".into()), ours.clone()),
    ];
    for shell in ["mvdan", "dash", "bash", "busybox"] {
        for (initial, want) in &cases {
            assert_eq!(
                run(shell, &script, initial.as_deref()),
                *want,
                "{shell} from {initial:?}"
            );
        }
    }
    assert!(!sb.path("x").exists(), "nothing in the prefix ran");
}

/// Apptainer's parser rejects what only zsh or bash understands anywhere in
/// the file, even in a branch that would never run: the section has none.
#[test]
fn apptainer_section_parses_as_posix_sh() {
    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("env"));
    let out = sb
        .envhook()
        .args(["export", "--mode", "dirs", "--format", "apptainer", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let def = String::from_utf8(out.stdout).unwrap();
    // What --mode dirs costs is said on stderr; the section is stdout.
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        def.starts_with("%environment\n"),
        "no install line for dirs:\n{def}"
    );
    let script = sb.path("90-environment.sh");
    fs::write(&script, section(&def)).unwrap();
    // dash -n parses without running; mvdan parses it whole before running.
    let parse = Command::new("dash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(parse.status.success(), "{parse:?}");
    let lib = env.path("lib").display().to_string();
    let targets = env.path("targets/x86_64-linux/lib").display().to_string();
    assert_eq!(
        run("mvdan", &script, Some("/.singularity.d/libs")),
        format!("{lib}:{targets}:/.singularity.d/libs")
    );
}
