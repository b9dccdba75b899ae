//! Completion, driven through the real shells (#14): bash's completion
//! function as bash calls it, fish's `complete -C`, zsh's completion system
//! in a terminal (tmux), each answering from this machine's environments
//! and this build's GPU data.

use crate::support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use support::{Env, Sandbox};

/// A sandbox with a conda root holding `paddle` and `torch`, and `envhook`
/// on its `PATH` as a link to the binary under test.
fn machine() -> Sandbox {
    let sb = Sandbox::new();
    let root = sb.path("home/miniconda3");
    Env::new(&root);
    Env::new(root.join("envs/paddle"));
    Env::new(root.join("envs/torch"));
    std::os::unix::fs::symlink(
        assert_cmd::cargo::cargo_bin("envhook"),
        sb.path("bin/envhook"),
    )
    .unwrap();
    sb
}

/// `PATH` for the shells: the sandbox's `bin` first, then the system's
/// (the shells themselves, `cat`, ...).
fn path(sb: &Sandbox) -> String {
    format!("{}:/usr/local/bin:/usr/bin:/bin", sb.path("bin").display())
}

fn shell(sb: &Sandbox, program: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .env("HOME", sb.home())
        .env("PATH", path(sb))
        .env("ENVHOOK_SYSROOT", sb.path("sysroot"))
        .current_dir(sb.path(""));
    cmd
}

fn lines(out: std::process::Output) -> Vec<String> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The candidates bash's completion function gives for `line` (completing
/// its last word), called the way bash's programmable completion calls it.
fn bash_candidates(sb: &Sandbox, line: &str) -> Vec<String> {
    let script = r#"
source <(envhook completions bash)
read -r -a COMP_WORDS <<<"$LINE"
[[ $LINE == *' ' ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE=$LINE
COMP_POINT=${#LINE}
complete -p envhook >/dev/null
_clap_complete_envhook envhook "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let mut cmd = shell(sb, "bash", &["--norc", "--noprofile", "-c", script]);
    cmd.env("LINE", line);
    lines(cmd.output().unwrap())
}

/// fish's own completion of `line`, value only.
fn fish_candidates(sb: &Sandbox, line: &str) -> Vec<String> {
    let script = "envhook completions fish | source; complete -C \"$LINE\"";
    let mut cmd = shell(sb, "fish", &["--no-config", "-c", script]);
    cmd.env("LINE", line);
    lines(cmd.output().unwrap())
        .into_iter()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

#[test]
fn bash_completes_environment_names_gpus_formats_and_prefixes() {
    let sb = machine();
    assert_eq!(
        bash_candidates(&sb, "envhook show -n "),
        ["base", "paddle", "torch"]
    );
    assert_eq!(bash_candidates(&sb, "envhook check -n pa"), ["paddle"]);
    assert_eq!(
        bash_candidates(&sb, "envhook export --format "),
        ["sh", "dockerfile", "apptainer", "env", "json"]
    );
    let gpus = bash_candidates(&sb, "envhook check --gpu H1");
    assert!(gpus.contains(&"H100".to_string()), "{gpus:?}");
    assert!(bash_candidates(&sb, "envhook check --gpu sm_9").contains(&"sm_90".to_string()),);
    // GPU names need no quoting: `RTX 4090` is offered as RTX-4090, which
    // --gpu accepts.
    let rtx = bash_candidates(&sb, "envhook check --gpu RTX-40");
    assert!(rtx.contains(&"RTX-4090".to_string()), "{rtx:?}");
    assert!(rtx.iter().all(|c| !c.contains(' ')), "{rtx:?}");
    // -p offers directories, not environment names.
    std::fs::create_dir_all(sb.path("work/projdir")).unwrap();
    std::fs::write(sb.path("work/file.txt"), "").unwrap();
    let dirs = bash_candidates(&sb, "envhook show -p work/");
    assert_eq!(dirs, ["work/projdir/"], "{dirs:?}");
    // Subcommands and flags still complete.
    let subs = bash_candidates(&sb, "envhook ins");
    assert_eq!(subs, ["install"]);
    assert!(bash_candidates(&sb, "envhook install --dr").contains(&"--dry-run".to_string()));
}

#[test]
fn every_offered_gpu_is_accepted_by_gpu() {
    let sb = machine();
    let all = bash_candidates(&sb, "envhook check --gpu ");
    assert!(all.len() > 40, "{all:?}");
    let prefix = sb.path("home/miniconda3/envs/paddle");
    for gpu in all.iter().step_by(7) {
        let out = sb
            .envhook()
            .args(["check", "-p", prefix.to_str().unwrap(), "--gpu", gpu])
            .output()
            .unwrap();
        assert_ne!(
            out.status.code(),
            Some(2),
            "{gpu}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// What is typed after `--gpu` is matched without regard to case, and a
/// model number finds its GPU (#42); each candidate keeps what was typed,
/// so every shell's own prefix filter keeps it, and `--gpu` takes it.
#[test]
fn gpus_complete_from_lower_case_and_model_numbers() {
    let sb = machine();
    let rtx = bash_candidates(&sb, "envhook check --gpu rtx-40");
    assert!(rtx.contains(&"rtx-4090".to_string()), "{rtx:?}");
    assert!(rtx.iter().all(|c| c.starts_with("rtx-40")), "{rtx:?}");
    let h = bash_candidates(&sb, "envhook check --gpu h1");
    assert!(h.contains(&"h100".to_string()), "{h:?}");
    assert_eq!(bash_candidates(&sb, "envhook check --gpu 409"), ["4090"]);
    let forty = bash_candidates(&sb, "envhook check --gpu 40");
    for number in ["4090", "4080", "4070", "4060", "4050"] {
        assert!(forty.contains(&number.to_string()), "{forty:?}");
    }
    // 4000 is three GPUs (Quadro RTX 4000, RTX 4000 Ada, RTX PRO 4000
    // Blackwell): --gpu refuses it, so it is not offered.
    assert!(!forty.contains(&"4000".to_string()), "{forty:?}");
    assert!(fish_candidates(&sb, "envhook check --gpu rtx-409").contains(&"rtx-4090".to_string()));
    let prefix = sb.path("home/miniconda3/envs/paddle");
    for gpu in ["rtx-4090", "h100", "4090", "Sm_90"] {
        let (code, _, err) = sb.run(&["check", "-p", prefix.to_str().unwrap(), "--gpu", gpu]);
        assert_ne!(code, 2, "{gpu}: {err}");
    }
    assert!(bash_candidates(&sb, "envhook check --gpu Sm_9").contains(&"Sm_90".to_string()));
}

#[test]
fn fish_completes_environment_names_and_gpus() {
    let sb = machine();
    assert_eq!(
        fish_candidates(&sb, "envhook install -n "),
        ["base", "paddle", "torch"]
    );
    assert!(fish_candidates(&sb, "envhook audit --gpu A10").contains(&"A100".to_string()));
    let shells: Vec<String> = fish_candidates(&sb, "envhook completions ")
        .into_iter()
        .filter(|c| !c.starts_with('-'))
        .collect();
    assert_eq!(shells, ["bash", "zsh", "fish", "powershell", "elvish"]);
    assert!(fish_candidates(&sb, "envhook man ").contains(&"install".to_string()));
}

/// zsh's completion system, interactively: a zsh in a tmux terminal, the
/// script sourced as a user would, Tab pressed.
#[test]
fn zsh_completes_environment_names_in_a_terminal() {
    let sb = machine();
    let term = ZshTerminal::start(&sb);
    term.run("autoload -U compinit && compinit -u && source <(envhook completions zsh)");
    term.keys(&["envhook show -n ", "Tab"]);
    let pane = term.wait_for("torch");
    for name in ["base", "paddle", "torch"] {
        assert!(pane.contains(name), "{pane}");
    }
    term.keys(&["C-u", "envhook check --gpu H10", "Tab"]);
    term.wait_for("--gpu H100");
    // Lower case and model numbers (#42), through zsh's own matching.
    term.keys(&["C-u", "envhook check --gpu rtx-409", "Tab"]);
    term.wait_for("--gpu rtx-4090");
    term.keys(&["C-u", "envhook check --gpu 509", "Tab"]);
    term.wait_for("--gpu 5090");
}

/// zsh, with the script installed the way packages install it: as
/// `_envhook` in a directory on `fpath`, autoloaded by compinit. The first
/// Tab must already complete.
#[test]
fn zsh_completes_from_fpath_on_the_first_tab() {
    let sb = machine();
    let fpath = sb.path("site-functions");
    std::fs::create_dir_all(&fpath).unwrap();
    let script = sb
        .envhook()
        .args(["completions", "zsh", "--completer", "envhook"])
        .output()
        .unwrap()
        .stdout;
    std::fs::write(fpath.join("_envhook"), script).unwrap();
    let term = ZshTerminal::start(&sb);
    term.run(&format!(
        "fpath=({} $fpath); autoload -U compinit && compinit -u",
        fpath.display()
    ));
    term.keys(&["envhook install -n pad", "Tab"]);
    term.wait_for("install -n paddle");
}

/// An interactive `zsh -f` in a real terminal.
struct ZshTerminal(support::terminal::Terminal);

impl ZshTerminal {
    fn start(sb: &Sandbox) -> Self {
        let command = format!(
            "env -i HOME={} PATH={} ENVHOOK_SYSROOT={} TERM=xterm zsh -f",
            sb.home().display(),
            path(sb),
            sb.path("sysroot").display()
        );
        ZshTerminal(support::terminal::Terminal::start(
            &sb.path("tmux.sock"),
            &command,
            Duration::from_secs(10),
        ))
    }

    fn keys(&self, keys: &[&str]) {
        self.0.keys(keys);
    }

    /// Type a command line, press Enter, and wait until it has run.
    fn run(&self, line: &str) {
        self.keys(&[&format!("{line} && print ready"), "Enter"]);
        self.wait_for("\nready");
    }

    fn wait_for(&self, want: &str) -> String {
        self.0.wait_for(want)
    }
}

#[test]
fn powershell_and_elvish_scripts_are_generated() {
    let sb = machine();
    let ps = sb
        .envhook()
        .args(["completions", "powershell"])
        .output()
        .unwrap();
    let ps = String::from_utf8(ps.stdout).unwrap();
    // No pwsh can be installed here: the script is parsed by the real
    // PowerShell grammar, and must call envhook back for candidates.
    assert_eq!(
        support::powershell_errors(&ps, |_| false),
        Vec::<String>::new()
    );
    assert!(ps.contains("COMPLETE") && ps.contains("envhook"), "{ps}");
    let elvish = sb
        .envhook()
        .args(["completions", "elvish"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8(elvish.stdout)
            .unwrap()
            .contains("COMPLETE")
    );
}

/// Without envhook on `PATH` (`cargo run`, a build directory), the script
/// calls the binary by its absolute path.
#[test]
fn the_script_names_this_binary_when_it_is_not_on_path() {
    let sb = Sandbox::new();
    let out = sb.envhook().args(["completions", "bash"]).output().unwrap();
    let script = String::from_utf8(out.stdout).unwrap();
    let me: &Path = &assert_cmd::cargo::cargo_bin("envhook");
    assert!(script.contains(&me.display().to_string()), "{script}");
}

/// #21: bash inserts candidates quoted for the command line, never
/// globbed: an environment named with a `;` and a space (in a shared envs
/// directory anyone can write to) cannot run code when the line is
/// entered, and one named `glob*` is not replaced by a file it matches.
#[test]
fn bash_candidates_are_quoted_and_never_globbed() {
    let sb = machine();
    let root = sb.path("home/miniconda3");
    Env::new(root.join("envs/semi;touch PWNED"));
    Env::new(root.join("envs/glob*"));
    std::fs::write(sb.path("globX"), "").unwrap();
    let got = bash_candidates(&sb, "envhook show -n ");
    assert!(got.contains(&r"semi\;touch\ PWNED".to_string()), "{got:?}");
    assert!(got.contains(&r"glob\*".to_string()), "{got:?}");
    assert!(!got.iter().any(|c| c == "globX"), "{got:?}");
    // What bash would put on the line, run: the name stays one word.
    let line = format!(
        "printf '%s\\n' {}",
        got.iter().find(|c| c.starts_with("semi")).unwrap()
    );
    let out = shell(&sb, "bash", &["--norc", "-c", &line])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "semi;touch PWNED\n");
    assert!(!sb.path("PWNED").exists());
}

/// #21: the completer's path is quoted once: a directory with a space and
/// a `$(...)` in its name neither breaks completion nor runs at Tab.
#[test]
fn bash_completer_path_with_a_space_and_a_substitution() {
    let sb = machine();
    let odd = sb.path("we ird$(touch PWNED)");
    std::fs::create_dir_all(&odd).unwrap();
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("envhook"), odd.join("envhook"))
        .unwrap();
    let script = r#"
source <(envhook completions bash --completer "$ODD/envhook")
COMP_WORDS=(envhook show -n pa)
COMP_CWORD=3
_clap_complete_envhook envhook pa -n
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let mut cmd = shell(&sb, "bash", &["--norc", "--noprofile", "-c", script]);
    cmd.env("ODD", &odd);
    assert_eq!(lines(cmd.output().unwrap()), ["paddle"]);
    assert!(!sb.path("PWNED").exists());
    assert!(!odd.parent().unwrap().join("PWNED").exists());
}
