//! The generated hooks, proven in real shells: bash, zsh, dash and fish
//! processes source them over a matrix of initial `LD_LIBRARY_PATH` states
//! and activation sequences (as conda, mamba and rattler run them), and the
//! whole environment before and after is compared. Also: shellcheck and the
//! shells' own parsers on the rendered output, a PowerShell parse with
//! tree-sitter, hostile prefix names, strict modes, and no forks.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{Sandbox, set_age};

use crate::harness;

use harness::*;

fn matrix(sh: Sh) {
    let sb = Sandbox::new();
    let a = install(&sb, &sb.path("envs/alpha"));
    let b = install(&sb, &sb.path("envs/beta"));
    let mut failures = Vec::new();
    let mut runs = 0;
    for (state_name, initial) in initial_states() {
        for (seq_name, steps) in SEQUENCES {
            let r = run(sh, &a, &b, steps, &initial);
            runs += 1;
            for v in check(&a, &b, steps, &initial, &r) {
                failures.push(format!("{sh:?} / {state_name} / {seq_name}: {v}"));
            }
        }
    }
    assert!(runs >= 60);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Issue #11: the hooks split long values in linear time; exactness must
/// hold there too. 10k elements (120 kB, near the kernel's 128 kB limit
/// for one exported variable) with our directory, empty elements
/// (leading, inside, trailing) and hostile elements among them, through
/// every sequence in every shell.
#[test]
fn long_values_round_trip_exactly_in_every_shell() {
    let sb = Sandbox::new();
    let a = install(&sb, &sb.path("envs/alpha"));
    let b = install(&sb, &sb.path("envs/beta"));
    let mut parts: Vec<String> = (0..10_000).map(|i| format!("/p{i:05}/lib")).collect();
    parts[3333] = "{A}".into();
    parts[5000] = String::new();
    parts[7000] = "/glob*?[x]/$HOME/`t`/$(touch pwned)/q'uo\"te".into();
    parts[7001] = "/new\nline".into();
    let initial = Some(format!(":{}:", parts.join(":")).into_bytes());
    let mut failures = Vec::new();
    // Every program started with such a value costs the loader ~0.2 s
    // (it searches all 10k directories for libc), so the dumps between
    // steps dominate: the sequences that strip on activation and on
    // deactivation, with and without stacking, are enough here.
    let sequences = SEQUENCES.iter().filter(|(name, _)| {
        matches!(
            *name,
            "activate, deactivate"
                | "stack"
                | "user edit while active"
                | "user edit then reactivate"
        )
    });
    for sh in SHELLS {
        for (seq_name, steps) in sequences.clone() {
            let r = run(sh, &a, &b, steps, &initial);
            for v in check(&a, &b, steps, &initial, &r) {
                let v: String = v.chars().take(300).collect();
                failures.push(format!("{sh:?} / {seq_name}: {v}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn bash_round_trips() {
    matrix(Sh::Bash);
}

#[test]
fn zsh_round_trips() {
    matrix(Sh::Zsh);
}

#[test]
fn dash_round_trips() {
    matrix(Sh::Dash);
}

#[test]
fn fish_round_trips() {
    matrix(Sh::Fish);
}

#[test]
fn tcsh_round_trips() {
    matrix(Sh::Tcsh);
}

#[test]
fn tcsh_round_trips_with_noglob_and_nonomatch() {
    matrix(Sh::TcshNoglob);
}

/// The harness itself must be able to fail: a naive hook (the seeds' one
/// line, with the usual unset deactivate) breaks the rules it checks.
#[test]
fn the_matrix_catches_the_folk_hook() {
    let sb = Sandbox::new();
    let a = install(&sb, &sb.path("envs/alpha"));
    let b = install(&sb, &sb.path("envs/beta"));
    fs::write(
        a.hook("activate", "sh"),
        "export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH\n",
    )
    .unwrap();
    fs::write(a.hook("deactivate", "sh"), "unset LD_LIBRARY_PATH\n").unwrap();
    let (_, initial) = &initial_states()[2];
    let steps = SEQUENCES[0].1;
    let r = run(Sh::Bash, &a, &b, steps, initial);
    let bad = check(&a, &b, steps, initial, &r);
    assert!(!bad.is_empty(), "the folk hook passed the checks");
}

// ---------------------------------------------------- hostile prefixes ----

/// Prefix names that break naive quoting. Each must neither break the hooks
/// nor run anything.
const HOSTILE: &[&str] = &[
    "a b",
    "it's",
    "$(touch pwned)",
    "`touch pwned`",
    "x;y",
    "ünï кот",
    "back\\slash",
    "*?[a]",
    "{x,y}",
    "~tilde",
    "q\"uote",
];

#[test]
fn hostile_prefix_names_in_every_shell() {
    let sb = Sandbox::new();
    for (i, name) in HOSTILE.iter().enumerate() {
        let a = install(&sb, &sb.path(&format!("h{i}/{name}/env")));
        let b = install(&sb, &sb.path(&format!("h{i}/{name}/other")));
        for sh in SHELLS {
            for (state_name, initial) in [&initial_states()[0], &initial_states()[3]] {
                for (seq_name, steps) in &SEQUENCES[..3] {
                    let r = run(sh, &a, &b, steps, initial);
                    let bad = check(&a, &b, steps, initial, &r);
                    assert!(
                        bad.is_empty(),
                        "{name:?} {sh:?} {state_name} {seq_name}: {bad:#?}"
                    );
                }
            }
        }
    }
}

#[test]
fn prefix_with_a_colon_is_refused() {
    let sb = Sandbox::new();
    let prefix = sb.path("a:b");
    support::cuda11_paddle(&prefix);
    let out = sb
        .envhook()
        .args(["install", "--always", "-p"])
        .arg(&prefix)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("it contains ':', the LD_LIBRARY_PATH separator"),
        "{err}"
    );
    assert!(!prefix.join("etc/conda/activate.d").exists());
}

// ----------------------------------------------------- static checks ----

fn quiet(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn rendered_scripts_pass_shellcheck_and_the_parsers() {
    let sb = Sandbox::new();
    let hooked = [
        install(&sb, &sb.path("plain/env")),
        install(&sb, &sb.path("it's $(x) `y` a;b/env")),
    ];
    for h in &hooked {
        for phase in ["activate", "deactivate"] {
            let sh = h.hook(phase, "sh");
            quiet(
                Command::new("shellcheck")
                    .args(["--shell=sh", "--enable=all", "--severity=style"])
                    .arg(&sh),
            );
            for parser in ["bash", "zsh", "dash"] {
                quiet(Command::new(parser).arg("-n").arg(&sh));
            }
            quiet(
                Command::new("fish")
                    .arg("--no-execute")
                    .arg(h.hook(phase, "fish")),
            );
            // tcsh has no linter; -n parses without running.
            quiet(
                Command::new("tcsh")
                    .args(["-f", "-n"])
                    .arg(h.hook(phase, "csh")),
            );
        }
    }
}

#[test]
fn templates_are_real_scripts() {
    let hooks = Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks");
    // The stripping fragments (rendered where a template says
    // `# __ENVHOOK_STRIP__`), the profile snippet and the Apptainer section
    // are real scripts too.
    for name in [
        "activate",
        "deactivate",
        "strip",
        "key",
        "profile",
        "apptainer",
        "venv",
    ] {
        let sh = hooks.join(format!("{name}.sh"));
        quiet(
            Command::new("shellcheck")
                .args(["--shell=sh", "--enable=all"])
                .arg(&sh),
        );
        for parser in ["bash", "zsh", "dash"] {
            quiet(Command::new(parser).arg("-n").arg(&sh));
        }
        let fish = hooks.join(format!("{name}.fish"));
        if fish.exists() {
            quiet(Command::new("fish").arg("--no-execute").arg(&fish));
            assert_fish_indented(&fish);
        }
        let ps1 = hooks.join(format!("{name}.ps1"));
        if ps1.exists() {
            assert_powershell_parses(&fs::read_to_string(&ps1).unwrap(), "template");
        }
        let csh = hooks.join(format!("{name}.csh"));
        if csh.exists() {
            quiet(Command::new("tcsh").args(["-f", "-n"]).arg(&csh));
        }
    }
}

/// fish_indent leaves a well-formatted file unchanged.
fn assert_fish_indented(fish: &Path) {
    let text = fs::read(fish).unwrap();
    let mut child = Command::new("fish_indent")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&text),
        "fish_indent {}",
        fish.display()
    );
}

/// A real parse of PowerShell (no pwsh can be installed here): the
/// tree-sitter grammar must find no error or missing node.
fn assert_powershell_parses(src: &str, what: &str) {
    let errors = support::powershell_errors(src, |_| false);
    assert!(
        errors.is_empty(),
        "{what}: PowerShell parse errors:\n{}",
        errors.join("\n")
    );
}

#[test]
fn rendered_powershell_parses() {
    let sb = Sandbox::new();
    for name in ["plain", "it's ‘q’ $(x) `y`"] {
        let h = install(&sb, &sb.path(&format!("{name}/env")));
        for phase in ["activate", "deactivate"] {
            let text = fs::read_to_string(h.hook(phase, "ps1")).unwrap();
            assert_powershell_parses(&text, &format!("{name} {phase}"));
            // The hostile prefix is inside single-quoted literals only.
            assert!(
                text.contains(&format!(
                    "'{}'",
                    h.dir
                        .replace('\'', "''")
                        .replace('‘', "‘‘")
                        .replace('’', "’’")
                )),
                "{text}"
            );
        }
    }
}

/// The PowerShell check can fail: broken input is reported.
#[test]
fn powershell_check_catches_errors() {
    let result =
        std::panic::catch_unwind(|| assert_powershell_parses("if ($x) { $y = (1 + \n", "broken"));
    assert!(result.is_err());
}

// --------------------------------------------------------- behaviour ----

/// Processes started while `sh` sources `act` twice and `deact` once,
/// starting from a value with an empty element and with user edits in
/// between, so that every stripping branch runs: (execve calls, forks).
/// Threads (fish has some) are not processes.
fn processes(sh: Sh, act: &Path, deact: &Path, home: &Path) -> (usize, usize, String) {
    let trace = tempfile::NamedTempFile::new().unwrap();
    let script = format!(
        "{}{}{}{}{}",
        sh.source("T_ACT"),
        sh.user_prepend(),
        sh.source("T_ACT"),
        sh.user_prepend(),
        sh.source("T_DEACT")
    );
    let inner = sh.command(&script);
    let out = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-e",
            "trace=execve,fork,vfork,clone,clone3",
            "-o",
        ])
        .arg(trace.path())
        .arg(inner.get_program())
        .args(inner.get_args())
        .env("T_ACT", act)
        .env("T_DEACT", deact)
        .env("HOME", home)
        .env("LD_LIBRARY_PATH", "/before::/after:")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{sh:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = fs::read_to_string(trace.path()).unwrap();
    let execs = log.lines().filter(|l| l.contains("execve(")).count();
    let forks = log
        .lines()
        .filter(|l| {
            (l.contains("clone(") || l.contains("clone3(") || l.contains("fork("))
                && !l.contains("CLONE_THREAD")
        })
        .count();
    (
        execs,
        forks,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn hooks_never_fork() {
    let sb = Sandbox::new();
    let h = install(&sb, &sb.path("env"));
    // Stale, so the warning branch runs too.
    simulate_transaction(&h);
    let empty = sb.path("empty-hook");
    fs::write(&empty, "").unwrap();
    for sh in SHELLS {
        let (execs, forks, stderr) = processes(
            sh,
            &h.hook("activate", sh.ext()),
            &h.hook("deactivate", sh.ext()),
            &sb.home(),
        );
        assert!(
            stderr.contains("changed since"),
            "{sh:?}: the stale branch ran"
        );
        // What the shell starts by itself, sourcing empty files (tcsh
        // forks once at startup): the hooks add nothing to it.
        let (base_execs, base_forks, _) = processes(sh, &empty, &empty, &sb.home());
        assert_eq!(base_execs, 1, "{sh:?}: the one execve is the shell itself");
        assert_eq!(
            (execs, forks),
            (base_execs, base_forks),
            "{sh:?} started processes"
        );
    }
}

/// The common activations (a reactivation; a first activation in place of
/// an unset value or one with no empty element and none of ours) return
/// before the shell parses the general path: a copy of the hook whose
/// general path is a syntax error still does them, in bash, zsh and dash.
/// Any other value reaches the broken part, so the test can fail.
#[test]
fn common_activations_return_before_the_general_path() {
    let sb = Sandbox::new();
    let h = install(&sb, &sb.path("env"));
    let text = fs::read_to_string(h.hook("activate", "sh")).unwrap();
    let general = text.find("\n_envhook_dirs=").expect("the key fragment");
    let broken = sb.path("broken.sh");
    fs::write(&broken, format!("{}\nif then ( ;;\n", &text[..general])).unwrap();
    for sh in [Sh::Bash, Sh::Zsh, Sh::Dash] {
        let run = |initial: Option<&str>, twice: bool| {
            let set = initial.map_or("unset LD_LIBRARY_PATH\n".to_string(), |v| {
                format!("LD_LIBRARY_PATH='{v}'; export LD_LIBRARY_PATH\n")
            });
            let again = if twice {
                sh.source("HOOK")
            } else {
                String::new()
            };
            let script = format!(
                "{set}{}{again}printf '%s' \"${{LD_LIBRARY_PATH-unset}}\"",
                sh.source("HOOK")
            );
            let out = sh.command(&script).env("HOOK", &broken).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                err,
            )
        };
        let ours = &h.dir;
        for (initial, want) in [
            (None, ours.clone()),
            (Some("/a:/b c"), format!("{ours}:/a:/b c")),
        ] {
            for twice in [false, true] {
                assert_eq!(
                    run(initial, twice),
                    (Some(0), want.clone(), String::new()),
                    "{sh:?} from {initial:?}, sourced twice: {twice}"
                );
            }
        }
        for initial in ["/a::/b", &format!("/a:{ours}")] {
            let (code, _, err) = run(Some(initial), false);
            assert!(
                code != Some(0) || !err.is_empty(),
                "{sh:?}: {initial} must take the general path"
            );
        }
    }
}

/// The fork check can fail: a hook with a command substitution is caught.
#[test]
fn fork_check_catches_a_subshell() {
    let sb = Sandbox::new();
    let h = install(&sb, &sb.path("env"));
    let forking = sb.path("forking.sh");
    fs::write(&forking, "x=$(dirname /a/b)\n").unwrap();
    let (execs, forks, _) = processes(Sh::Bash, &forking, &h.hook("deactivate", "sh"), &sb.home());
    assert!(execs > 1 && forks > 0, "{execs} {forks}");
}

/// What a conda, mamba or pixi transaction does to an environment with
/// hooks, after them: records added to or removed from conda-meta/ (the
/// history conda also appends to is not what the hooks read). Ages
/// instead of sleeps: tcsh's -M is in whole seconds, and the kernel's file
/// times move in clock ticks.
fn simulate_transaction(h: &Hooked) {
    support::age_hooks(&h.prefix, 20);
    let record = add_record(h);
    set_age(&record, 10);
    set_age(&h.prefix.join("conda-meta"), 10);
}

/// A package installed: its record in conda-meta/, as conda writes one.
fn add_record(h: &Hooked) -> PathBuf {
    let record = h.prefix.join("conda-meta/zlib-1.3.1-h4ab18f5_1.json");
    fs::write(
        &record,
        r#"{"name": "zlib", "version": "1.3.1", "build": "h4ab18f5_1", "build_number": 1,
            "channel": "https://conda.anaconda.org/conda-forge/", "subdir": "linux-64",
            "fn": "zlib-1.3.1-h4ab18f5_1.conda", "depends": [], "files": []}"#,
    )
    .unwrap();
    record
}

#[test]
fn stale_hooks_warn_once_per_activation_and_refresh_clears_it() {
    let sb = Sandbox::new();
    let h = install(&sb, &sb.path("env"));
    let activate = |sh: Sh, extra_env: &[(&str, &str)]| {
        let mut cmd = sh.command(&sh.source("T_ACT"));
        cmd.env("T_ACT", h.hook("activate", sh.ext()))
            .env("HOME", sb.home());
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    for sh in SHELLS {
        assert_eq!(activate(sh, &[]), "", "{sh:?}: fresh hooks are quiet");
    }
    simulate_transaction(&h);
    for sh in SHELLS {
        let err = activate(sh, &[]);
        assert_eq!(
            err,
            format!(
                "envhook: the packages of {p} changed since its CUDA hooks were written; refresh them with: envhook install -p '{p}'\n",
                p = h.prefix.display()
            ),
            "{sh:?}"
        );
        assert_eq!(
            activate(sh, &[("ENVHOOK_QUIET", "1")]),
            "",
            "{sh:?}: ENVHOOK_QUIET silences it"
        );
    }
    // Refreshing makes the hooks newer than conda-meta/ again.
    sb.install(&h.prefix);
    for sh in SHELLS {
        assert_eq!(activate(sh, &[]), "", "{sh:?}: refreshed hooks are quiet");
    }
    // pip installs something else, some time later: site-packages changed
    // (so the POSIX hook leaves its fast path) but no package the hooks
    // were made from did; still quiet, and the value is still right.
    let site = h.prefix.join("lib/python3.10/site-packages");
    set_age(&h.prefix.join("conda-meta"), 30);
    set_age(&site, 30);
    support::age_hooks(&h.prefix, 20);
    fs::create_dir(site.join("requests-2.32.3.dist-info")).unwrap();
    for sh in SHELLS {
        assert_eq!(activate(sh, &[]), "", "{sh:?}: an unrelated pip install");
    }
    for sh in [Sh::Bash, Sh::Zsh, Sh::Dash] {
        let out = sh
            .command(&format!(
                "LD_LIBRARY_PATH=/a; export LD_LIBRARY_PATH\n{}printf %s \"$LD_LIBRARY_PATH\"",
                sh.source("T_ACT")
            ))
            .env("T_ACT", h.hook("activate", "sh"))
            .output()
            .unwrap();
        assert_eq!(support::stdout_ok(out), format!("{}:/a", h.dir), "{sh:?}");
    }
    // pip upgrades the framework the hooks were made from: its dist-info
    // is gone.
    fs::rename(
        site.join("paddlepaddle_gpu-2.5.2.post116.dist-info"),
        site.join("paddlepaddle_gpu-2.6.2.post117.dist-info"),
    )
    .unwrap();
    for sh in SHELLS {
        assert!(
            activate(sh, &[]).contains("changed since"),
            "{sh:?}: pip upgrade"
        );
    }
    fs::rename(
        site.join("paddlepaddle_gpu-2.6.2.post117.dist-info"),
        site.join("paddlepaddle_gpu-2.5.2.post116.dist-info"),
    )
    .unwrap();
    // An upgrade, some time later, replaces the record the hooks were made
    // from (pixi writes no history, but it does replace records).
    support::age_hooks(&h.prefix, 20);
    let record = h.prefix.join("conda-meta/cudnn-8.9.2.26-cuda11_0.json");
    fs::rename(
        &record,
        h.prefix.join("conda-meta/cudnn-8.9.7.29-cuda11_0.json"),
    )
    .unwrap();
    for sh in SHELLS {
        assert!(activate(sh, &[]).contains("changed since"), "{sh:?}");
    }
}

#[test]
fn isolation_exposes_cuda_libraries_only_with_dev_aliases() {
    let sb = Sandbox::new();
    let h = install(&sb, &sb.path("env"));
    let dir = Path::new(&h.dir);
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(names.contains(&"libcudnn.so.8".to_string()));
    // cudnn ships no unversioned libcudnn_ops_infer.so; Paddle-style
    // dlopen of unversioned names needs one.
    assert!(names.contains(&"libcudnn_ops_infer.so".to_string()));
    assert!(names.contains(&"libcublasLt.so".to_string()));
    // The environment's own non-CUDA libraries are not there.
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("libcrypto") || n.starts_with("libssl")),
        "{names:?}"
    );
    // Every link resolves, relative to the environment.
    for n in names.iter().filter(|n| !n.starts_with('.')) {
        let link = dir.join(n);
        assert!(link.exists(), "{n} dangles");
        assert!(fs::read_link(&link).unwrap().is_relative());
        assert!(
            fs::canonicalize(&link)
                .unwrap()
                .starts_with(fs::canonicalize(&h.prefix).unwrap())
        );
    }
    assert_eq!(
        fs::read_link(dir.join("libcudnn_ops_infer.so")).unwrap(),
        PathBuf::from("../../libcudnn_ops_infer.so.8")
    );
    // The stable path is a symlink to the fingerprinted directory.
    let stable = h.prefix.join("lib/envhook/cuda");
    assert!(
        fs::symlink_metadata(&stable)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn dirs_mode_uses_the_library_directories() {
    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("env"));
    sb.envhook()
        .args(["install", "--always", "--mode", "dirs", "-p"])
        .arg(&env.prefix)
        .assert()
        .code(0);
    let text = fs::read_to_string(env.prefix.join("etc/conda/activate.d/envhook.sh")).unwrap();
    let want = format!(
        "_envhook_dirs='{}:{}'",
        env.prefix.join("lib").display(),
        env.prefix.join("targets/x86_64-linux/lib").display()
    );
    assert!(text.contains(&want), "{text}");
    assert!(
        !env.prefix.join("lib/envhook").exists(),
        "no link directory in dirs mode"
    );
}

#[test]
fn pip_wheels_are_linked_too() {
    let sb = Sandbox::new();
    let env = support::pip_wheels(&sb.path("env"));
    sb.install(&env.prefix);
    let dir = env.prefix.join("lib/envhook/cuda");
    for n in [
        "libcudart.so.12",
        "libcudnn.so.8",
        "libcudnn.so",
        "libnccl.so.2",
        "libcublasLt.so.12",
    ] {
        assert!(dir.join(n).exists(), "{n}");
    }
    assert_eq!(
        fs::read_link(dir.join("libcudart.so.12")).unwrap(),
        PathBuf::from("../../python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12")
    );
}

// ----------------------------------------------------------- property ----

mod property {
    use super::*;
    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = Option<Vec<u8>>> {
        let element = prop_oneof![
            4 => "[^\\x00:]{0,12}".prop_map(String::into_bytes),
            1 => Just(b"{A}".to_vec()),
            1 => Just(Vec::new()),
        ];
        proptest::option::weighted(
            0.85,
            proptest::collection::vec(element, 0..6).prop_map(|parts| parts.join(&b':')),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Any initial value, any sequence, bash and zsh: the rules hold.
        #[test]
        fn random_initial_values(initial in value(), seq in 0..SEQUENCES.len(), zsh in any::<bool>()) {
            let sb = Sandbox::new();
            let a = install(&sb, &sb.path("envs/alpha"));
            let b = install(&sb, &sb.path("envs/beta"));
            let sh = if zsh { Sh::Zsh } else { Sh::Bash };
            let steps = SEQUENCES[seq].1;
            let r = run(sh, &a, &b, steps, &initial);
            let bad = check(&a, &b, steps, &initial, &r);
            prop_assert!(bad.is_empty(), "{:?} {} {:?}: {:#?}", sh, SEQUENCES[seq].0, initial.as_deref().map(String::from_utf8_lossy), bad);
        }
    }
}

/// xonsh runs the `.sh` hooks through `source-bash` (conda's conda.xsh on
/// Unix): the environment bash leaves behind is imported into xonsh.
/// (xonsh 0.13's source-bash pastes the path into `source PATH` unquoted,
/// so a prefix with spaces or quotes fails inside xonsh before our script
/// runs; the prefix here is plain.)
#[test]
fn xonsh_through_source_bash() {
    let sb = Sandbox::new();
    let a = install(&sb, &sb.path("envs/xonsh-env"));
    let script = "source-bash --suppress-skip-message -n @($T_ACT)\n\
         print('A=' + ${...}.detype().get('LD_LIBRARY_PATH', 'UNSET'))\n\
         source-bash --suppress-skip-message -n @($T_DEACT)\n\
         env = ${...}.detype()\n\
         print('D=' + env.get('LD_LIBRARY_PATH', 'UNSET'))\n\
         print('LEFT=' + ','.join(k for k in env if k.startswith('ENVHOOK_')))\n";
    for initial in [None, Some("/orig lib:/x")] {
        let mut cmd = Command::new("xonsh");
        cmd.args(["--no-rc", "-c", script])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap())
            .env("HOME", sb.home())
            .env("T_ACT", a.hook("activate", "sh"))
            .env("T_DEACT", a.hook("deactivate", "sh"));
        if let Some(v) = initial {
            cmd.env("LD_LIBRARY_PATH", v);
        }
        let out = cmd.output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want_active = match initial {
            Some(v) => format!("A={}:{v}", a.dir),
            None => format!("A={}", a.dir),
        };
        assert!(text.contains(&want_active), "{text}");
        assert!(
            text.contains(&format!("D={}", initial.unwrap_or("UNSET"))),
            "{text}"
        );
        assert!(text.contains("LEFT=\n"), "{text}");
    }
}

/// #12: xonsh's source-bash discards what a .sh hook prints, and its bash
/// has no controlling terminal; the staleness warning still reaches the
/// user's terminal (the hook writes it to its standard input, the
/// terminal). Driven in a real terminal: xonsh in tmux.
#[test]
fn xonsh_users_see_the_staleness_warning() {
    let sb = Sandbox::new();
    let a = install(&sb, &sb.path("envs/xonsh-env"));
    simulate_transaction(&a);
    let start = format!(
        "env -i HOME={} PATH={} TERM=xterm T_ACT={} xonsh --no-rc",
        sb.home().display(),
        std::env::var("PATH").unwrap(),
        a.hook("activate", "sh").display()
    );
    let term = support::terminal::Terminal::start(
        &sb.path("tmux.sock"),
        &start,
        std::time::Duration::from_secs(20),
    );
    term.wait_for("@");
    term.keys(&[
        "source-bash --suppress-skip-message -n $T_ACT; print('sourced')",
        "Enter",
    ]);
    let pane = term.wait_for("\nsourced");
    assert!(
        pane.contains(&format!(
            "envhook: the packages of {} changed",
            a.prefix.display()
        )),
        "{pane}"
    );
}

/// Set a file's or directory's mtime to `when`.
fn set_time(path: &Path, when: std::time::SystemTime) {
    fs::File::open(path).unwrap().set_modified(when).unwrap();
}

/// What activating `h` in `sh` prints on stderr.
fn activation_stderr(sb: &Sandbox, h: &Hooked, sh: Sh) -> String {
    let out = sh
        .command(&sh.source("T_ACT"))
        .env("T_ACT", h.hook("activate", sh.ext()))
        .env("HOME", sb.home())
        .output()
        .unwrap();
    String::from_utf8(out.stderr).unwrap()
}

/// The stale warning, as every shell prints it.
fn stale_line(h: &Hooked) -> String {
    format!(
        "envhook: the packages of {p} changed since its CUDA hooks were written; refresh them with: envhook install -p '{p}'\n",
        p = h.prefix.display()
    )
}

/// #21: a csh batch job logs with `>&` (stdout and stderr, one file). The
/// stale warning goes into that log between the job's own lines: it
/// neither truncates the log nor is written over by the next line.
#[test]
fn tcsh_warning_keeps_a_redirected_log_whole() {
    let sb = Sandbox::new();
    let h = install(&sb, &sb.path("env"));
    simulate_transaction(&h);
    let job = sb.path("job.csh");
    fs::write(
        &job,
        format!(
            "echo line1\nsource '{}'\necho line2\n",
            h.hook("activate", "csh").display()
        ),
    )
    .unwrap();
    let log = sb.path("job.log");
    // As csh's `tcsh -f job.csh >& job.log`: one open file for both.
    let status = Command::new("sh")
        .args(["-c", "tcsh -f \"$1\" > \"$2\" 2>&1", "sh"])
        .arg(&job)
        .arg(&log)
        .env("HOME", sb.home())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        fs::read_to_string(&log).unwrap(),
        format!("line1\n{}line2\n", stale_line(&h))
    );
}

/// #21: one staleness rule, one answer, to the second and below it. Records
/// changed 0.8 s after the hooks were written, in the same whole second:
/// stale for `check`, for the POSIX shells, fish, and tcsh (whose -M has
/// whole seconds). And hooks written right after a transaction are fresh
/// in tcsh too: install writes them in a later second.
#[test]
fn staleness_within_one_second_is_the_same_in_every_shell() {
    let sb = Sandbox::new();
    let h = install(&sb, &sb.path("env"));
    let second = std::time::UNIX_EPOCH
        + std::time::Duration::from_secs(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
                - 100,
        );
    for phase in ["activate", "deactivate"] {
        for ext in ["sh", "fish", "ps1", "csh"] {
            set_time(
                &h.hook(phase, ext),
                second + std::time::Duration::from_millis(100),
            );
        }
    }
    let record = add_record(&h);
    for changed in [record.as_path(), &h.prefix.join("conda-meta")] {
        set_time(changed, second + std::time::Duration::from_millis(900));
    }
    let activate = |sh: Sh| activation_stderr(&sb, &h, sh);
    for sh in SHELLS {
        assert_eq!(activate(sh), stale_line(&h), "{sh:?}");
    }
    let out = sb
        .envhook()
        .args(["check", "-p"])
        .arg(&h.prefix)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("warning[stale-hook]"));

    // A transaction this very second, then install at once (as the conda
    // plugin does): fresh everywhere.
    let record = h.prefix.join("conda-meta/bzip2-1.0.8-hd590300_5.json");
    fs::copy(
        h.prefix.join("conda-meta/zlib-1.3.1-h4ab18f5_1.json"),
        &record,
    )
    .unwrap();
    sb.install(&h.prefix);
    for sh in SHELLS {
        assert_eq!(
            activate(sh),
            "",
            "{sh:?}: refreshed right after a transaction"
        );
    }
}

/// #21: `conda env config vars set` writes conda-meta/state, which is no
/// package: the hooks stay fresh in every shell and for `check`. A record
/// added after it is still seen; so is a record the hooks were made from
/// going away (`conda remove`), with no newer record at all.
#[test]
fn conda_env_config_vars_do_not_make_hooks_stale() {
    let sb = Sandbox::new();
    let h = install(&sb, &sb.path("env"));
    // The records, as the transaction that made the environment left
    // them, before the hooks.
    let age_records = |secs| {
        for e in fs::read_dir(h.prefix.join("conda-meta")).unwrap() {
            set_age(&e.unwrap().path(), secs);
        }
    };
    age_records(30);
    support::age_hooks(&h.prefix, 20);
    let state = h.prefix.join("conda-meta/state");
    fs::write(&state, r#"{"env_vars": {"MY_VAR": "1"}}"#).unwrap();
    set_age(&state, 10);
    set_age(&h.prefix.join("conda-meta"), 10);
    let activate = |sh: Sh| activation_stderr(&sb, &h, sh);
    let check = || {
        let out = sb
            .envhook()
            .args(["check", "-p"])
            .arg(&h.prefix)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    for sh in SHELLS {
        assert_eq!(activate(sh), "", "{sh:?}: conda-meta/state is no package");
    }
    assert!(!check().contains("stale-hook"), "{}", check());
    // Then a package.
    let record = add_record(&h);
    set_age(&record, 5);
    set_age(&h.prefix.join("conda-meta"), 5);
    for sh in SHELLS {
        assert_eq!(activate(sh), stale_line(&h), "{sh:?}: a new record");
    }
    assert!(check().contains("stale-hook"));
    // Refreshed, then cuDNN removed: no record is newer, one watched is gone.
    sb.install(&h.prefix);
    age_records(30);
    support::age_hooks(&h.prefix, 20);
    fs::remove_file(h.prefix.join("conda-meta/cudnn-8.9.2.26-cuda11_0.json")).unwrap();
    set_age(&h.prefix.join("conda-meta"), 10);
    for sh in SHELLS {
        assert_eq!(activate(sh), stale_line(&h), "{sh:?}: a record removed");
    }
}

/// The record check globs whatever the user's shell options: noglob in
/// bash and dash, failglob in bash, NOMATCH (the default) and NO_GLOB in
/// zsh; still stale, nothing printed but the warning.
#[test]
fn the_record_check_globs_under_any_options() {
    let sb = Sandbox::new();
    let h = install(&sb, &sb.path("env"));
    simulate_transaction(&h);
    for (sh, setup) in [
        (Sh::Bash, "set -f; shopt -s failglob;"),
        (Sh::Dash, "set -f;"),
        (Sh::Zsh, "setopt noglob;"),
        (Sh::Zsh, "setopt nomatch;"),
    ] {
        let out = sh
            .command(&format!("{setup} {}", sh.source("T_ACT")))
            .env("T_ACT", h.hook("activate", sh.ext()))
            .env("HOME", sb.home())
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            stale_line(&h),
            "{sh:?} {setup}"
        );
    }
    // tcsh with noglob and nonomatch.
    let out = Sh::Tcsh
        .command(&format!("set noglob; {}", Sh::Tcsh.source("T_ACT")))
        .env("T_ACT", h.hook("activate", "csh"))
        .env("HOME", sb.home())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stderr).unwrap(), stale_line(&h));
}
