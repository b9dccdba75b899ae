//! The shell harness the hook tests share: environments with envhook's
//! hooks, the real shells that source them, the activation sequences conda,
//! mamba and rattler produce, and the rules every run must keep.

use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{self, Sandbox};

// ------------------------------------------------------------ fixture ----

/// An environment with envhook's hooks installed.
pub struct Hooked {
    pub prefix: PathBuf,
    /// What the hooks put on LD_LIBRARY_PATH.
    pub dir: String,
}

impl Hooked {
    pub fn hook(&self, phase: &str, ext: &str) -> PathBuf {
        self.prefix
            .join(format!("etc/conda/{phase}.d/envhook.{ext}"))
    }
}

pub fn install(sb: &Sandbox, prefix: &Path) -> Hooked {
    support::cuda11_paddle(prefix);
    let out = sb
        .envhook()
        .args(["install", "--always", "-p"])
        .arg(prefix)
        .output()
        .unwrap();
    support::stdout_ok(out);
    Hooked {
        prefix: prefix.to_path_buf(),
        dir: prefix.join("lib/envhook/cuda").display().to_string(),
    }
}

// ------------------------------------------------------------- shells ----

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sh {
    Bash,
    Zsh,
    Dash,
    Fish,
    /// tcsh, as conda.csh runs the .csh hooks.
    Tcsh,
    /// tcsh with globbing off and unmatched globs allowed: the hooks must
    /// not depend on either setting.
    TcshNoglob,
}

pub const SHELLS: [Sh; 5] = [Sh::Bash, Sh::Zsh, Sh::Dash, Sh::Fish, Sh::Tcsh];

impl Sh {
    pub fn ext(self) -> &'static str {
        match self {
            Sh::Fish => "fish",
            Sh::Tcsh | Sh::TcshNoglob => "csh",
            _ => "sh",
        }
    }

    pub fn is_csh(self) -> bool {
        matches!(self, Sh::Tcsh | Sh::TcshNoglob)
    }

    pub fn command(self, script: &str) -> Command {
        let (bin, args, prelude): (&str, &[&str], &str) = match self {
            Sh::Bash => (
                "bash",
                &["--noprofile", "--norc", "-c"],
                "set -euo pipefail\n",
            ),
            Sh::Zsh => (
                "zsh",
                &["-f", "-c"],
                "set -eu -o pipefail\nsetopt nounset\n",
            ),
            Sh::Dash => ("dash", &["-c"], "set -eu\n"),
            Sh::Fish => ("fish", &["--no-config", "-c"], ""),
            Sh::Tcsh => ("tcsh", &["-f", "-c"], ""),
            Sh::TcshNoglob => ("tcsh", &["-f", "-c"], "set noglob\nset nonomatch\n"),
        };
        let mut cmd = Command::new(bin);
        cmd.args(args).arg(format!("{prelude}{script}"));
        cmd
    }

    pub fn source(self, var: &str) -> String {
        match self {
            Sh::Fish => format!("source \"${var}\"\n"),
            Sh::Tcsh | Sh::TcshNoglob => format!("source ${var}:q\n"),
            _ => format!(". \"${{{var}}}\"\n"),
        }
    }

    /// Export CONDA_PREFIX as the value of `var`, as conda does around
    /// a hook: activate.d sees the incoming environment, deactivate.d the
    /// outgoing one.
    pub fn set_conda_prefix(self, var: &str) -> String {
        match self {
            Sh::Fish => format!("set -gx CONDA_PREFIX \"${var}\"\n"),
            Sh::Tcsh | Sh::TcshNoglob => format!("setenv CONDA_PREFIX ${var}:q\n"),
            _ => format!("CONDA_PREFIX=\"${{{var}}}\"; export CONDA_PREFIX\n"),
        }
    }

    pub fn unset_conda_prefix(self) -> &'static str {
        match self {
            Sh::Fish => "set -e CONDA_PREFIX\n",
            Sh::Tcsh | Sh::TcshNoglob => "unsetenv CONDA_PREFIX\n",
            _ => "unset CONDA_PREFIX\n",
        }
    }

    pub fn dump(self, n: usize) -> String {
        if self.is_csh() {
            return format!("env -0 > $T_DUMP:q/{n}\n");
        }
        format!("env -0 > \"$T_DUMP/{n}\"\n")
    }

    pub fn user_prepend(self) -> &'static str {
        match self {
            Sh::Fish => "set -gx LD_LIBRARY_PATH /user/added $LD_LIBRARY_PATH\n",
            Sh::Tcsh | Sh::TcshNoglob => {
                "set _u = 0\nif ( $?LD_LIBRARY_PATH ) then\nif ( ${LD_LIBRARY_PATH:q} != \"\" ) set _u = 1\nendif\n\
                 if ( $_u ) then\nsetenv LD_LIBRARY_PATH /user/added:${LD_LIBRARY_PATH:q}\nelse\n\
                 setenv LD_LIBRARY_PATH /user/added\nendif\nunset _u\n"
            }
            _ => {
                "LD_LIBRARY_PATH=\"/user/added${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}\"; export LD_LIBRARY_PATH\n"
            }
        }
    }

    pub fn user_unset(self) -> &'static str {
        match self {
            Sh::Fish => "set -e LD_LIBRARY_PATH\n",
            Sh::Tcsh | Sh::TcshNoglob => "unsetenv LD_LIBRARY_PATH\n",
            _ => "unset LD_LIBRARY_PATH\n",
        }
    }

    /// Every shell variable name (to find leaked temporaries).
    pub fn dump_vars(self) -> &'static str {
        match self {
            Sh::Fish => "set -n > \"$T_DUMP/vars\"; functions -n >> \"$T_DUMP/vars\"\n",
            Sh::Zsh => "set > \"$T_DUMP/vars\"; print -l ${(k)functions} >> \"$T_DUMP/vars\"\n",
            Sh::Tcsh | Sh::TcshNoglob => "set > $T_DUMP:q/vars\n",
            _ => "set > \"$T_DUMP/vars\"\n",
        }
    }
}

// ---------------------------------------------------------- sequences ----

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Source env A's activate hook.
    ActA,
    DeactA,
    ActB,
    DeactB,
    UserPrepend,
    UserUnset,
}

/// activate A; activate --stack B; deactivate (conda re-runs A's
/// activate.d); deactivate.
pub const STACK: &[Step] = {
    use Step::*;
    &[ActA, ActB, DeactB, ActA, DeactA]
};

/// The sequences conda, mamba and rattler produce, plus user edits.
pub const SEQUENCES: &[(&str, &[Step])] = {
    use Step::*;
    &[
        ("activate, deactivate", &[ActA, DeactA]),
        // conda reactivates (deactivate.d, activate.d) after install;
        // rattler and the stacked-deactivate path re-run activate.d alone.
        ("reactivate", &[ActA, DeactA, ActA, ActA, DeactA]),
        ("stack", STACK),
        // switching without --stack runs A's deactivate.d first
        ("switch", &[ActA, DeactA, ActB, DeactB]),
        // pixi never runs deactivate.d; a later conda deactivation still works
        ("stack without deactivating", &[ActA, ActB, DeactB, DeactA]),
        ("user edit while active", &[ActA, UserPrepend, DeactA]),
        (
            "user edit then reactivate",
            &[ActA, UserPrepend, ActA, DeactA],
        ),
        ("user unset while active", &[ActA, UserUnset, DeactA]),
        ("deactivate without activate", &[DeactA]),
    ]
};

/// Initial LD_LIBRARY_PATH states; `None` is unset. `{A}` stands for env
/// A's own directory.
pub fn initial_states() -> Vec<(&'static str, Option<Vec<u8>>)> {
    vec![
        ("unset", None),
        ("empty", Some(b"".to_vec())),
        ("one entry", Some(b"/usr/local/nvidia/lib64".to_vec())),
        ("many", Some(b"/a:/b:/c d:/opt/cuda/lib64".to_vec())),
        ("contains ours", Some(b"{A}:/keep/me".to_vec())),
        ("empty elements", Some(b"::/lead::/mid:".to_vec())),
        // More fields to drop than dash's cut-and-shift path takes (16):
        // the rest go through its index list.
        (
            "many to drop",
            Some(
                (0..20)
                    .map(|i| format!("/k{i}::{{A}}"))
                    .collect::<Vec<_>>()
                    .join(":")
                    .into_bytes(),
            ),
        ),
        (
            "hostile",
            Some(
                "/sp ace:/glob*?[x]:/dollar$HOME:/`tick`:/$(touch pwned):/q'uo\"te:/ünï/кот:/semi;colon:/new\nline:/back\\slash"
                    .as_bytes()
                    .to_vec(),
            ),
        ),
    ]
}

pub use super::support::{EnvDump as Env, ld, parse_env};

pub fn kept(original: Option<&[u8]>, ours: &[&str]) -> Vec<Vec<u8>> {
    original
        .unwrap_or(b"")
        .split(|b| *b == b':')
        .filter(|e| !e.is_empty() && !ours.iter().any(|o| o.as_bytes() == *e))
        .map(<[u8]>::to_vec)
        .collect()
}

pub fn join(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.join(&b':')
}

pub struct Run {
    pub dumps: Vec<Env>,
    pub vars: String,
    pub stderr: String,
    pub status: Option<i32>,
}

pub fn run(sh: Sh, a: &Hooked, b: &Hooked, steps: &[Step], initial: &Option<Vec<u8>>) -> Run {
    run_with(sh, a, b, steps, initial, &[])
}

/// [`run`] with extra environment variables.
pub fn run_with(
    sh: Sh,
    a: &Hooked,
    b: &Hooked,
    steps: &[Step],
    initial: &Option<Vec<u8>>,
    extra: &[(&str, &str)],
) -> Run {
    run_as(sh, a, b, steps, initial, extra, Conda::Prefix)
}

/// How the hooks are sourced.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(dead_code)] // not every test crate including the harness sources by hand
pub enum Conda {
    /// As conda and mamba do: CONDA_PREFIX is the hook's environment
    /// while it runs (and unset between steps, so that the environment
    /// before and after compares equal).
    Prefix,
    /// By hand, CONDA_PREFIX unset.
    NoPrefix,
}

/// [`run_with`], sourcing the hooks as `conda` says.
pub fn run_as(
    sh: Sh,
    a: &Hooked,
    b: &Hooked,
    steps: &[Step],
    initial: &Option<Vec<u8>>,
    extra: &[(&str, &str)],
    conda: Conda,
) -> Run {
    let dump_dir = tempfile::tempdir().unwrap();
    let mut script = sh.dump(0);
    let hook = |hook: &str, prefix: &str| match conda {
        Conda::Prefix => format!(
            "{}{}{}",
            sh.set_conda_prefix(prefix),
            sh.source(hook),
            sh.unset_conda_prefix()
        ),
        Conda::NoPrefix => sh.source(hook),
    };
    for (i, step) in steps.iter().enumerate() {
        script.push_str(&match step {
            Step::ActA => hook("T_A_ACT", "T_A_PREFIX"),
            Step::DeactA => hook("T_A_DEACT", "T_A_PREFIX"),
            Step::ActB => hook("T_B_ACT", "T_B_PREFIX"),
            Step::DeactB => hook("T_B_DEACT", "T_B_PREFIX"),
            Step::UserPrepend => sh.user_prepend().to_string(),
            Step::UserUnset => sh.user_unset().to_string(),
        });
        script.push_str(&sh.dump(i + 1));
    }
    script.push_str(sh.dump_vars());
    let mut cmd = sh.command(&script);
    let home = dump_dir.path().join("home");
    fs::create_dir_all(&home).unwrap();
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap())
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("LANG", "C.UTF-8")
        .env("T_DUMP", dump_dir.path())
        .env("T_A_ACT", a.hook("activate", sh.ext()))
        .env("T_A_DEACT", a.hook("deactivate", sh.ext()))
        .env("T_B_ACT", b.hook("activate", sh.ext()))
        .env("T_B_DEACT", b.hook("deactivate", sh.ext()))
        .env("T_A_PREFIX", &a.prefix)
        .env("T_B_PREFIX", &b.prefix)
        .current_dir(dump_dir.path());
    for (k, v) in extra {
        cmd.env(k, v);
    }
    if let Some(v) = initial {
        let v = v.replace_all(b"{A}", a.dir.as_bytes());
        cmd.env("LD_LIBRARY_PATH", OsString::from_vec(v));
    }
    let out = cmd.output().unwrap();
    let dumps = (0..=steps.len())
        .map(|n| parse_env(&fs::read(dump_dir.path().join(n.to_string())).unwrap_or_default()))
        .collect();
    assert!(
        !dump_dir.path().join("pwned").exists(),
        "a value was executed"
    );
    Run {
        dumps,
        vars: fs::read_to_string(dump_dir.path().join("vars")).unwrap_or_default(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code(),
    }
}

pub trait ReplaceAll {
    fn replace_all(&self, from: &[u8], to: &[u8]) -> Vec<u8>;
}

impl ReplaceAll for Vec<u8> {
    fn replace_all(&self, from: &[u8], to: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.len() {
            if self[i..].starts_with(from) {
                out.extend_from_slice(to);
                i += from.len();
            } else {
                out.push(self[i]);
                i += 1;
            }
        }
        out
    }
}

/// Check one run against the rules; returns the violations.
pub fn check(
    a: &Hooked,
    b: &Hooked,
    steps: &[Step],
    initial: &Option<Vec<u8>>,
    r: &Run,
) -> Vec<String> {
    let mut bad = Vec::new();
    if r.status != Some(0) {
        bad.push(format!("exit status {:?}", r.status));
    }
    if !r.stderr.is_empty() {
        bad.push(format!("stderr: {}", r.stderr));
    }
    if r.vars.contains("_envhook") {
        bad.push("shell variables or functions _envhook* left behind".into());
    }
    if r.dumps.len() != steps.len() + 1 || r.dumps.iter().any(Env::is_empty) {
        bad.push("missing environment dumps".into());
        return bad;
    }
    let ours = [a.dir.as_str(), b.dir.as_str()];
    // While active: no empty element, ours first and exactly once.
    let mut active: Vec<&Hooked> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::ActA if !active.iter().any(|h| std::ptr::eq(*h, a)) => active.push(a),
            Step::ActB if !active.iter().any(|h| std::ptr::eq(*h, b)) => active.push(b),
            Step::DeactA => active.retain(|h| !std::ptr::eq(*h, a)),
            Step::DeactB => active.retain(|h| !std::ptr::eq(*h, b)),
            _ => {}
        }
        let Some(value) = ld(&r.dumps[i + 1]) else {
            continue;
        };
        let elems: Vec<&[u8]> = value.split(|c| *c == b':').collect();
        if matches!(step, Step::ActA | Step::ActB) {
            if elems.iter().any(|e| e.is_empty()) {
                bad.push(format!(
                    "after step {i} ({step:?}): empty element in {:?}",
                    String::from_utf8_lossy(value)
                ));
            }
            let top = if *step == Step::ActA { a } else { b };
            if elems.first().copied() != Some(top.dir.as_bytes()) {
                bad.push(format!("after {step:?}: {} is not first", top.dir));
            }
            for h in &active {
                let n = elems.iter().filter(|e| **e == h.dir.as_bytes()).count();
                if n != 1 {
                    bad.push(format!(
                        "after step {i} ({step:?}): {} appears {n} times",
                        h.dir
                    ));
                }
            }
        }
    }
    let before = &r.dumps[0];
    let after = r.dumps.last().unwrap();
    let user_edit = steps.contains(&Step::UserPrepend);
    let user_unset = steps.contains(&Step::UserUnset);
    // Everything but LD_LIBRARY_PATH must be exactly as before.
    let strip_ld = |e: &Env| {
        let mut e = e.clone();
        e.remove(&OsString::from("LD_LIBRARY_PATH"));
        e
    };
    if strip_ld(before) != strip_ld(after) {
        let diff: Vec<String> = after
            .iter()
            .filter(|(k, v)| before.get(*k) != Some(v))
            .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
            .chain(
                before
                    .keys()
                    .filter(|k| !after.contains_key(*k))
                    .map(|k| format!("-{}", k.to_string_lossy())),
            )
            .collect();
        bad.push(format!("environment differs: {diff:?}"));
    }
    let initial_value = initial
        .as_ref()
        .map(|v| v.replace_all(b"{A}", a.dir.as_bytes()));
    let expected: Option<Vec<u8>> = if user_unset {
        None
    } else if user_edit {
        let mut parts = vec![b"/user/added".to_vec()];
        parts.extend(kept(initial_value.as_deref(), &ours));
        Some(join(&parts))
    } else {
        initial_value.clone()
    };
    if ld(after).map(<[u8]>::to_vec) != expected {
        bad.push(format!(
            "LD_LIBRARY_PATH after: {:?}, expected {:?}",
            ld(after).map(String::from_utf8_lossy),
            expected.as_deref().map(String::from_utf8_lossy)
        ));
    }
    if ld(before).map(<[u8]>::to_vec) != initial_value {
        bad.push("the harness did not set the initial value".into());
    }
    bad
}
