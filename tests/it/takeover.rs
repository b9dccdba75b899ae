//! Taking over a hand-written hook (#14): `install --replace-handwritten`
//! moves both halves aside, activation and deactivation are then exact in
//! bash, zsh, dash and fish as conda runs activate.d/deactivate.d (every
//! file with the shell's suffix, sorted), and `uninstall` puts the user's
//! files back byte for byte.

use crate::support;

use std::fs;
use std::path::Path;
use std::process::Command;

use support::Sandbox;

/// The field notes' recipe (seed 000): a backup variable and all of lib/.
const FOLK_ACTIVATE: &str = "export LD_LIBRARY_PATH_BACKUP=$LD_LIBRARY_PATH\n\
                             export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH\n";
/// Its deactivate.d half, the one that wipes the variable when left alone.
const FOLK_DEACTIVATE: &str = "unset LD_LIBRARY_PATH\n";
const FOLK_ACTIVATE_FISH: &str = "set -gx LD_LIBRARY_PATH $CONDA_PREFIX/lib $LD_LIBRARY_PATH\n";
const FOLK_DEACTIVATE_FISH: &str = "set -e LD_LIBRARY_PATH\n";

fn handwritten(prefix: &Path) {
    for (rel, text) in [
        ("etc/conda/activate.d/env_vars.sh", FOLK_ACTIVATE),
        ("etc/conda/deactivate.d/env_vars.sh", FOLK_DEACTIVATE),
        ("etc/conda/activate.d/env_vars.fish", FOLK_ACTIVATE_FISH),
        ("etc/conda/deactivate.d/env_vars.fish", FOLK_DEACTIVATE_FISH),
    ] {
        let path = prefix.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

fn envhook(sb: &Sandbox, args: &[&str], prefix: &Path) -> (i32, String) {
    let (code, out, err) = sb.run_on(args, prefix);
    (code, out + &err)
}

/// Activate then deactivate as conda does, in `shell`, from `initial`
/// (`None`: unset); the value after each, `None` for unset.
fn activate_deactivate(shell: &str, prefix: &Path, initial: Option<&str>) -> [Option<String>; 2] {
    let (ext, script) = match shell {
        "fish" => (
            "fish",
            "function show; if set -q LD_LIBRARY_PATH; echo \"set:$LD_LIBRARY_PATH\"; else; echo unset; end; end\n\
             for f in $CONDA_PREFIX/etc/conda/activate.d/*.fish; source $f; end; show\n\
             for f in $CONDA_PREFIX/etc/conda/deactivate.d/*.fish; source $f; end; show\n",
        ),
        _ => (
            "sh",
            "show() { if [ -n \"${LD_LIBRARY_PATH+x}\" ]; then echo \"set:$LD_LIBRARY_PATH\"; else echo unset; fi; }\n\
             for f in \"$CONDA_PREFIX\"/etc/conda/activate.d/*.sh; do . \"$f\"; done; show\n\
             for f in \"$CONDA_PREFIX\"/etc/conda/deactivate.d/*.sh; do . \"$f\"; done; show\n",
        ),
    };
    let _ = ext;
    let mut cmd = Command::new(shell);
    if shell == "fish" {
        cmd.arg("--no-config");
    }
    if shell == "zsh" {
        // conda's own zsh integration sources the .sh hooks in zsh.
        cmd.arg("-f");
    }
    cmd.arg("-c").arg(script);
    cmd.env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", prefix.parent().unwrap())
        .env("CONDA_PREFIX", prefix);
    if let Some(v) = initial {
        cmd.env("LD_LIBRARY_PATH", v);
    }
    let text = support::stdout_silent(cmd.output().unwrap(), shell);
    let values: Vec<Option<String>> = text
        .lines()
        .map(|l| l.strip_prefix("set:").map(str::to_string))
        .collect();
    [values[0].clone(), values[1].clone()]
}

const INITIAL: &[Option<&str>] = &[None, Some(""), Some("/sys/a"), Some("/sys/a:/sys/b")];

#[test]
fn taking_over_moves_both_halves_and_uninstall_puts_them_back() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("envs/paddle"));
    handwritten(&env.prefix);
    let before = support::snapshot(&env.prefix);

    // The finding names the flag, never a half removal.
    let (code, out) = envhook(&sb, &["check"], &env.prefix);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "    fix: envhook install -p '{}' --replace-handwritten\n",
            env.prefix.display()
        )),
        "{out}"
    );
    assert!(!out.contains("rm "), "{out}");

    // --dry-run shows the moves and changes nothing.
    let (code, out) = envhook(
        &sb,
        &["install", "--replace-handwritten", "--dry-run"],
        &env.prefix,
    );
    assert_ne!(code, 2, "{out}");
    for rel in ["activate.d/env_vars.sh", "deactivate.d/env_vars.sh"] {
        assert!(
            out.contains(&format!(
                "would move aside {} -> env_vars.sh.envhook-replaced",
                env.prefix.join("etc/conda").join(rel).display()
            )),
            "{out}"
        );
    }
    assert!(support::snapshot(&env.prefix) == before, "--dry-run wrote");

    let (code, out) = envhook(&sb, &["install", "--replace-handwritten"], &env.prefix);
    assert_eq!(code, 0, "nothing left to report: {out}");
    assert!(out.contains("moved aside"), "{out}");
    for phase in ["activate.d", "deactivate.d"] {
        for name in ["env_vars.sh", "env_vars.fish"] {
            let dir = env.prefix.join("etc/conda").join(phase);
            assert!(!dir.join(name).exists(), "{phase}/{name} still runs");
            assert!(dir.join(format!("{name}.envhook-replaced")).is_file());
        }
    }
    let header = fs::read_to_string(env.path("etc/conda/activate.d/envhook.sh")).unwrap();
    assert!(
        header.contains(&format!(
            "# replaced {} (kept as env_vars.sh.envhook-replaced; envhook uninstall puts it back)",
            env.path("etc/conda/deactivate.d/env_vars.sh").display()
        )),
        "{header}"
    );

    // Exact in every shell, from every starting value.
    let ours = env.path("lib/envhook/cuda").display().to_string();
    for shell in ["bash", "zsh", "dash", "fish"] {
        for initial in INITIAL {
            let [active, after] = activate_deactivate(shell, &env.prefix, *initial);
            let active = active.unwrap_or_default();
            assert!(active.starts_with(&ours), "{shell} {initial:?}: {active}");
            assert!(
                !active
                    .split(':')
                    .any(|e| e == env.path("lib").to_str().unwrap()),
                "{shell}: all of lib/ exposed: {active}"
            );
            assert_eq!(after.as_deref(), *initial, "{shell}: not restored");
        }
    }

    // A refresh (conda install, audit --fix) keeps the record.
    let (code, out) = envhook(&sb, &["install"], &env.prefix);
    assert_eq!(code, 0, "{out}");
    let header = fs::read_to_string(env.path("etc/conda/activate.d/envhook.sh")).unwrap();
    assert_eq!(header.matches("# replaced ").count(), 4, "{header}");

    let (code, out) = envhook(&sb, &["uninstall"], &env.prefix);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("restored"), "{out}");
    assert!(
        support::snapshot(&env.prefix) == before,
        "not restored byte for byte"
    );
}

/// The harness can fail: with the hand-written pair left in place, the
/// deactivate.d half wipes the user's value, and the checks see it.
#[test]
fn the_handwritten_pair_fails_the_same_checks() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("envs/paddle"));
    handwritten(&env.prefix);
    let [active, after] = activate_deactivate("bash", &env.prefix, Some("/sys/a"));
    assert!(
        active
            .unwrap()
            .starts_with(env.path("lib").to_str().unwrap())
    );
    assert_eq!(after, None, "the folk deactivate unsets it");
}

/// What stands where envhook would move a file is never overwritten, and
/// a restored name taken in the meantime keeps the moved file where it is.
#[test]
fn moves_never_overwrite() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("envs/paddle"));
    handwritten(&env.prefix);
    let aside = env.path("etc/conda/deactivate.d/env_vars.sh.envhook-replaced");
    fs::write(&aside, "mine\n").unwrap();
    let before = support::snapshot(&env.prefix);
    let (code, out) = envhook(&sb, &["install", "--replace-handwritten"], &env.prefix);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains(&aside.display().to_string()), "{out}");
    // Nothing written but the lock file a real run takes first.
    let mut after = support::snapshot(&env.prefix);
    after.retain(|(p, _)| !p.ends_with("conda-meta/.envhook.lock"));
    assert!(after == before, "something was written");

    fs::remove_file(&aside).unwrap();
    let (code, out) = envhook(&sb, &["install", "--replace-handwritten"], &env.prefix);
    assert_eq!(code, 0, "{out}");
    // The user writes a new env_vars.sh; uninstall leaves both.
    let new = env.path("etc/conda/activate.d/env_vars.sh");
    fs::write(&new, "export FOO=1\n").unwrap();
    let (code, out) = envhook(&sb, &["uninstall"], &env.prefix);
    assert_eq!(code, 1, "{out}");
    assert_eq!(fs::read_to_string(&new).unwrap(), "export FOO=1\n");
    assert_eq!(
        fs::read_to_string(env.path("etc/conda/activate.d/env_vars.sh.envhook-replaced")).unwrap(),
        FOLK_ACTIVATE
    );
    // The other three went back.
    assert_eq!(
        fs::read_to_string(env.path("etc/conda/deactivate.d/env_vars.sh")).unwrap(),
        FOLK_DEACTIVATE
    );
}

/// #21: a hand-written hook whose file name is not UTF-8 is moved aside and
/// back by its bytes (it panicked before).
#[test]
fn names_that_are_not_utf8_move_by_their_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.sh");
    for (dir, text) in [
        ("etc/conda/activate.d", FOLK_ACTIVATE),
        ("etc/conda/deactivate.d", FOLK_DEACTIVATE),
    ] {
        fs::create_dir_all(env.path(dir)).unwrap();
        fs::write(env.path(dir).join(name), text).unwrap();
    }
    let (code, out) = envhook(&sb, &["install", "--replace-handwritten"], &env.prefix);
    assert!(code <= 1, "{out}");
    assert!(!out.contains("panicked"), "{out}");
    let mut aside = name.to_os_string();
    aside.push(".envhook-replaced");
    for dir in ["etc/conda/activate.d", "etc/conda/deactivate.d"] {
        assert!(!env.path(dir).join(name).exists(), "{dir}: {out}");
        assert!(env.path(dir).join(&aside).is_file(), "{dir}: {out}");
    }
    let (code, out) = envhook(&sb, &["uninstall"], &env.prefix);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        fs::read(env.path("etc/conda/activate.d").join(name)).unwrap(),
        FOLK_ACTIVATE.as_bytes()
    );
    assert_eq!(
        fs::read(env.path("etc/conda/deactivate.d").join(name)).unwrap(),
        FOLK_DEACTIVATE.as_bytes()
    );
}

/// #21: both halves or neither. An activate.d half over 1 MiB (which
/// envhook does not read) keeps its deactivate.d half where it is, and
/// install says why (exit 1).
#[test]
fn a_half_too_large_to_read_keeps_both_halves() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    handwritten(&env.prefix);
    let big = env.path("etc/conda/activate.d/env_vars.sh");
    let mut text = FOLK_ACTIVATE.to_string();
    text.push_str(&format!("# {}\n", "x".repeat(1 << 20)));
    fs::write(&big, &text).unwrap();
    let (code, out) = envhook(&sb, &["install", "--replace-handwritten"], &env.prefix);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("warning[handwritten-kept]"), "{out}");
    assert!(out.contains("over 1 MiB"), "{out}");
    assert_eq!(fs::read_to_string(&big).unwrap(), text);
    assert_eq!(
        fs::read_to_string(env.path("etc/conda/deactivate.d/env_vars.sh")).unwrap(),
        FOLK_DEACTIVATE
    );
    // The fish pair, both small, is taken over as before.
    assert!(
        env.path("etc/conda/activate.d/env_vars.fish.envhook-replaced")
            .is_file()
    );
    assert!(
        env.path("etc/conda/deactivate.d/env_vars.fish.envhook-replaced")
            .is_file()
    );
}
