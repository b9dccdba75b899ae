//! cron and systemd, which never activate (#42 item 3): the unit line and
//! the crontab line docs/never-activated.md gives, as written there (its
//! placeholder paths replaced by a real venv over a real ELF libcudart,
//! this build of envhook and a probe script), run with the environment
//! each gives a job: the python they start is the environment's and maps
//! its libcudart (`/proc/self/maps`). `systemd-analyze verify`, where
//! installed, accepts the unit.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::Sandbox;
use support::venvs::venv;

/// The line of the docs' ```` ```fence ```` block that starts with `start`.
fn documented(fence: &str, start: &str) -> String {
    let doc =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/never-activated.md"))
            .unwrap();
    let block = doc
        .split(&format!("```{fence}\n"))
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap_or_else(|| panic!("no {fence} block"));
    block
        .lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line starting {start:?} in the {fence} block"))
        .to_string()
}

/// The docs' placeholders, made real.
struct Real {
    envhook: PathBuf,
    prefix: PathBuf,
    cudart: PathBuf,
    script: PathBuf,
    log: PathBuf,
}

impl Real {
    fn new(sb: &Sandbox) -> Real {
        let (prefix, cudart) = venv(&sb.path("torch"));
        let (code, out, err) = sb.run_on(&["install"], &prefix);
        assert!(code == 0 || code == 1, "{out}\n{err}");
        let script = sb.path("train.py");
        fs::write(
            &script,
            "import ctypes, sys\nctypes.CDLL('libcudart.so.12')\nprint(sys.executable)\n\
             print(sorted({l.rstrip('\\n').split(None, 5)[-1] for l in open('/proc/self/maps') \
             if 'libcudart' in l}))\n",
        )
        .unwrap();
        Real {
            envhook: assert_cmd::cargo::cargo_bin("envhook"),
            prefix,
            cudart,
            script,
            log: sb.path("train.log"),
        }
    }

    fn apply(&self, line: &str) -> String {
        let s = |p: &Path| p.display().to_string();
        line.replace("/usr/local/bin/envhook", &s(&self.envhook))
            .replace("/opt/conda/envs/torch", &s(&self.prefix))
            .replace("/srv/train.py", &s(&self.script))
            .replace("/var/log/train.log", &s(&self.log))
    }

    /// What the probe prints when the environment's python ran it with
    /// the environment's libcudart.
    fn expected(&self) -> String {
        format!(
            "{}\n['{}']\n",
            self.prefix.join("bin/python").display(),
            self.cudart.display()
        )
    }
}

#[test]
fn the_documented_unit_line_runs_the_command_in_the_environment() {
    let sb = Sandbox::new();
    let real = Real::new(&sb);
    let line = real.apply(&documented("ini", "ExecStart="));
    let exec = line.strip_prefix("ExecStart=").unwrap();
    // systemd splits on whitespace (no quotes in the line) and gives a
    // service its default PATH and nothing else of a login's.
    let argv: Vec<&str> = exec.split_whitespace().collect();
    let out = Command::new(argv[0])
        .args(&argv[1..])
        .env_clear()
        .env("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin")
        .output()
        .unwrap();
    assert_eq!(support::stdout_ok(out), real.expected());

    let analyze = support::tiers::runs("systemd-analyze");
    if !support::require("systemd-analyze", analyze) {
        return;
    }
    let unit = sb.path("train.service");
    fs::write(
        &unit,
        format!("[Unit]\nDescription=train\n\n[Service]\n{line}\n"),
    )
    .unwrap();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&unit)
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
}

#[test]
fn the_documented_crontab_line_runs_the_command_in_the_environment() {
    let sb = Sandbox::new();
    let real = Real::new(&sb);
    let line = real.apply(&documented("crontab", "0 3 "));
    // cron hands the rest of the line, after the five time fields, to
    // /bin/sh -c, with HOME, LOGNAME, SHELL and PATH=/usr/bin:/bin.
    let command = line.splitn(6, ' ').nth(5).unwrap();
    let out = Command::new("/bin/sh")
        .args(["-c", command])
        .env_clear()
        .env("HOME", sb.home())
        .env("LOGNAME", "nobody")
        .env("SHELL", "/bin/sh")
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert_eq!(support::stdout_ok(out), "");
    assert_eq!(fs::read_to_string(&real.log).unwrap(), real.expected());
}
