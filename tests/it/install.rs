//! `envhook install` / `uninstall` as file operations: ownership, foreign
//! scripts left alone and diagnosed, exact removal, dry runs, refreshes,
//! interrupted installs and read-only prefixes.

use crate::support;

use std::fs;
use std::path::Path;

use support::Sandbox;

const FOLK_ACTIVATE: &str = "export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH\n";
const FOLK_DEACTIVATE: &str = "unset LD_LIBRARY_PATH\n";

/// Run `envhook VERB [EXTRA...] -p PREFIX`: (exit code, stdout, stderr).
fn envhook(sb: &Sandbox, verb: &str, prefix: &Path, extra: &[&str]) -> (i32, String, String) {
    sb.run_on(&[&[verb], extra].concat(), prefix)
}

fn install(sb: &Sandbox, prefix: &Path, extra: &[&str]) -> (i32, String, String) {
    envhook(sb, "install", prefix, extra)
}

#[test]
fn install_writes_owned_files_for_every_shell() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let (code, out, err) = install(&sb, &env.prefix, &[]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    for phase in ["activate", "deactivate"] {
        for ext in ["sh", "fish", "ps1"] {
            let path = env.path(&format!("etc/conda/{phase}.d/envhook.{ext}"));
            let text = fs::read_to_string(&path).unwrap();
            assert!(text.starts_with("# envhook:owned"), "{}", path.display());
            assert!(text.contains("| fingerprint "), "{}", path.display());
            assert!(out.contains(&path.display().to_string()), "{out}");
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o644
            );
        }
    }
    // No temporary files are left behind.
    for phase in ["activate.d", "deactivate.d"] {
        let names: Vec<String> = fs::read_dir(env.path(&format!("etc/conda/{phase}")))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.iter().all(|n| n.starts_with("envhook.")), "{names:?}");
    }
}

#[test]
fn shells_can_be_chosen_and_others_are_removed() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    install(&sb, &env.prefix, &[]);
    let (code, out, _) = install(&sb, &env.prefix, &["--shells", "bash,fish"]);
    assert_eq!(code, 0);
    assert!(env.path("etc/conda/activate.d/envhook.sh").exists());
    assert!(env.path("etc/conda/activate.d/envhook.fish").exists());
    assert!(!env.path("etc/conda/activate.d/envhook.ps1").exists());
    assert!(!env.path("etc/conda/deactivate.d/envhook.ps1").exists());
    assert!(out.contains("removed"), "{out}");
    assert!(!env.path("etc/conda/activate.d/envhook.csh").exists());
    let (code, _, err) = install(&sb, &env.prefix, &["--shells", "cmd"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown shell 'cmd'"), "{err}");
}

/// #12: tcsh gets its hook by default; a prefix csh cannot express gets
/// none (never a broken one), and install says so with exit 1.
#[test]
fn csh_hooks_are_written_unless_the_prefix_cannot_be_expressed() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let (code, out, _) = install(&sb, &env.prefix, &[]);
    assert_eq!(code, 0, "{out}");
    for phase in ["activate.d", "deactivate.d"] {
        assert!(
            env.path(&format!("etc/conda/{phase}/envhook.csh"))
                .is_file()
        );
    }
    let hashed = support::cuda11_paddle(&sb.path("a#b/env"));
    let (code, out, _) = install(&sb, &hashed.prefix, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("warning[shell-unsupported]: no csh hook: "),
        "{out}"
    );
    assert!(out.contains("contains '#'"), "{out}");
    assert!(hashed.path("etc/conda/activate.d/envhook.sh").is_file());
    assert!(!hashed.path("etc/conda/activate.d/envhook.csh").exists());
    // Uninstall removes the csh hooks with the others.
    sb.envhook()
        .args(["uninstall", "-p"])
        .arg(&env.prefix)
        .assert()
        .code(0);
    assert!(!env.path("etc/conda/activate.d/envhook.csh").exists());
}

#[test]
fn foreign_scripts_are_left_alone_and_diagnosed() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let act = env.path("etc/conda/activate.d/env_vars.sh");
    let deact = env.path("etc/conda/deactivate.d/env_vars.sh");
    fs::create_dir_all(act.parent().unwrap()).unwrap();
    fs::create_dir_all(deact.parent().unwrap()).unwrap();
    fs::write(&act, FOLK_ACTIVATE).unwrap();
    fs::write(&deact, FOLK_DEACTIVATE).unwrap();
    // A package's own unrelated hook.
    let glib = env.path("etc/conda/activate.d/libglib_activate.sh");
    fs::write(
        &glib,
        "export GSETTINGS_SCHEMA_DIR=$CONDA_PREFIX/share/glib-2.0/schemas\n",
    )
    .unwrap();
    let (code, out, _) = install(&sb, &env.prefix, &[]);
    assert_eq!(code, 1, "foreign buggy hooks are findings: {out}");
    assert_eq!(fs::read_to_string(&act).unwrap(), FOLK_ACTIVATE);
    assert_eq!(fs::read_to_string(&deact).unwrap(), FOLK_DEACTIVATE);
    assert!(glib.exists());
    assert!(
        out.contains(&format!(
            "warning[foreign-hook]: {} (not envhook's; left as it is)",
            act.display()
        )),
        "{out}"
    );
    assert!(out.contains("leaves an empty element"), "{out}");
    assert!(
        out.contains("exposes all of the environment's lib/"),
        "{out}"
    );
    assert!(out.contains("deactivation unsets LD_LIBRARY_PATH"), "{out}");
    assert!(
        !out.contains("libglib_activate"),
        "unrelated hooks are not reported: {out}"
    );
    // Uninstall leaves them too.
    sb.envhook()
        .args(["uninstall", "-p"])
        .arg(&env.prefix)
        .assert()
        .code(0);
    assert_eq!(fs::read_to_string(&act).unwrap(), FOLK_ACTIVATE);
    assert!(glib.exists());
}

#[test]
fn uninstall_removes_exactly_what_install_added() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    // A foreign hook, so the directories exist before envhook.
    let other = env.path("etc/conda/activate.d/other.sh");
    fs::create_dir_all(other.parent().unwrap()).unwrap();
    fs::write(&other, "export X=1\n").unwrap();
    let before = support::snapshot(&env.prefix);
    install(&sb, &env.prefix, &[]);
    install(&sb, &env.prefix, &["--mode", "dirs"]);
    install(&sb, &env.prefix, &[]);
    assert_ne!(support::snapshot(&env.prefix), before);
    let (code, text, _) = envhook(&sb, "uninstall", &env.prefix, &[]);
    assert_eq!(code, 0);
    assert!(
        text.contains("removed") && text.contains("lib/envhook/cuda"),
        "{text}"
    );
    // Empty directories envhook created (deactivate.d, lib/envhook) may
    // remain only if they existed before.
    let after: Vec<_> = support::snapshot(&env.prefix)
        .into_iter()
        .filter(|(p, c)| {
            !(c.is_none()
                && p.ends_with("deactivate.d")
                && fs::read_dir(p).unwrap().next().is_none())
        })
        .collect();
    assert_eq!(after, before);
    // Nothing left to remove.
    let (_, text, _) = envhook(&sb, "uninstall", &env.prefix, &[]);
    assert!(text.contains("no envhook files"), "{text}");
}

#[test]
fn dry_run_prints_the_plan_and_scripts_and_writes_nothing() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let before = support::snapshot(&env.prefix);
    // The plan, short; the scripts only when asked for (#30).
    let (code, out, err) = install(&sb, &env.prefix, &["--dry-run"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(support::snapshot(&env.prefix), before);
    assert!(out.contains("mode         isolated"), "{out}");
    assert!(out.contains("provides     "), "{out}");
    assert!(!out.contains("# envhook:owned"), "{out}");
    assert!(out.lines().count() < 40, "{out}");
    let (code, out, err) = install(&sb, &env.prefix, &["--dry-run", "--show-hooks"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(support::snapshot(&env.prefix), before);
    let plan_ends = out.find("would write").unwrap();
    let hooks_start = out
        .find(&format!(
            "==> {} <==",
            env.path("etc/conda/activate.d/envhook.sh").display()
        ))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(plan_ends < hooks_start, "the plan first: {out}");
    assert!(out.contains("# envhook:owned"), "{out}");
    // -q: nothing but errors.
    let out = sb
        .envhook()
        .args(["-q", "install", "--dry-run", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    install(&sb, &env.prefix, &[]);
    let before = support::snapshot(&env.prefix);
    let (_, text, _) = envhook(&sb, "uninstall", &env.prefix, &["--dry-run"]);
    assert!(text.contains("would remove"), "{text}");
    assert_eq!(support::snapshot(&env.prefix), before);
    // uninstall -q removes and prints nothing (#42 item 6), twice.
    for _ in 0..2 {
        let (code, text, _) = sb.run_on(&["-q", "uninstall"], &env.prefix);
        assert_eq!((code, text.as_str()), (0, ""));
    }
    assert!(!env.path("etc/conda/activate.d/envhook.sh").exists());
}

#[test]
fn refresh_follows_package_changes() {
    let sb = Sandbox::new();
    let mut env = support::cuda11_paddle(&sb.path("env"));
    install(&sb, &env.prefix, &[]);
    let link = env.path("lib/envhook/cuda");
    let first = fs::read_link(&link).unwrap();
    // Re-installing an unchanged env keeps the same link directory.
    install(&sb, &env.prefix, &[]);
    assert_eq!(fs::read_link(&link).unwrap(), first);
    // `conda install nccl`: a new fingerprint, the old directory is gone.
    env.conda(
        support::CondaPkg::new("nccl", "2.18.3.1", "h12f7317_0").files(vec![
            support::FileSpec::File("lib/libnccl.so.2.18.3"),
            support::FileSpec::Link("lib/libnccl.so.2", "libnccl.so.2.18.3"),
        ]),
    );
    install(&sb, &env.prefix, &[]);
    let second = fs::read_link(&link).unwrap();
    assert_ne!(second, first);
    assert!(!env.path("lib/envhook").join(&first).exists());
    assert!(link.join("libnccl.so.2").exists());
    assert!(
        link.join("libnccl.so").exists(),
        "unversioned alias for the new library"
    );
}

#[test]
fn cpu_env_needs_no_hooks_and_loses_old_ones() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    install(&sb, &env.prefix, &[]);
    // All CUDA packages removed.
    for entry in fs::read_dir(env.path("conda-meta")).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if name.starts_with("cudatoolkit") || name.starts_with("cudnn") {
            fs::remove_file(p).unwrap();
        }
    }
    let (code, out, _) = install(&sb, &env.prefix, &[]);
    assert!(
        out.contains("no CUDA libraries from conda or pip, so no hooks to write"),
        "{out}"
    );
    // The Paddle wheel is still a CUDA build: install says what it lacks,
    // as check does (issue #10), and exits 1.
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("error[library-not-found]: paddlepaddle-gpu 2.5.2.post116"),
        "{out}"
    );
    assert!(!env.path("etc/conda/activate.d/envhook.sh").exists());
    assert!(!env.path("lib/envhook").exists());
}

#[test]
fn interrupted_install_leaves_old_or_new_never_half() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    install(&sb, &env.prefix, &[]);
    let hook = env.path("etc/conda/activate.d/envhook.sh");
    let old = fs::read(&hook).unwrap();
    // A crash after the temp file was written but before the rename leaves
    // a `.envhook-*` temp file, which conda ignores (wrong extension)...
    let tmp = env.path("etc/conda/activate.d/.envhook-XXXXXX");
    fs::write(&tmp, &old[..old.len() / 2]).unwrap();
    // ... and a half-built link directory without its completion mark.
    let partial = env.path("lib/envhook/cuda-0000000000000000");
    fs::create_dir_all(&partial).unwrap();
    assert_eq!(fs::read(&hook).unwrap(), old, "the hook itself is whole");
    // The next install completes normally.
    let (code, _, err) = install(&sb, &env.prefix, &[]);
    assert_eq!((code, err.as_str()), (0, ""));
    let text = fs::read_to_string(&hook).unwrap();
    // Whole: the mark first, the last command, then the details last.
    let last = format!("# library path {}", env.path("lib/envhook/cuda").display());
    assert!(text.starts_with("# envhook:owned"), "{text}");
    assert!(text.contains("\n:\n# written by envhook"), "{text}");
    assert!(text.trim_end().ends_with(&last), "{text}");
    assert!(env.path("lib/envhook/cuda/libcudart.so").exists());
}

/// A prefix the user cannot write: a clear error. Root writes anyway, so
/// a root test runs envhook as the prefix's owner, who may not write
/// `etc/`.
#[test]
fn read_only_prefix_is_a_clear_error() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let etc = env.path("etc");
    fs::create_dir_all(&etc).unwrap();
    if support::is_root() {
        support::chown_tree(&env.prefix, support::OTHER_UID);
    }
    fs::set_permissions(&etc, fs::Permissions::from_mode(0o555)).unwrap();
    let out = sb
        .envhook_unprivileged()
        .args(["install", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let (code, out, err) = support::outcome(out);
    fs::set_permissions(&etc, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(code, 2, "{out}");
    assert!(err.starts_with("error: could not write "), "{err}");
    assert!(
        err.contains("hint: the environment is read-only for this user"),
        "{err}"
    );
}

#[test]
fn install_by_name_and_active_env() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("home/.conda/envs/paddle"));
    sb.envhook()
        .args(["install", "-n", "paddle"])
        .assert()
        .code(0);
    assert!(env.path("etc/conda/activate.d/envhook.sh").exists());
    sb.envhook()
        .args(["uninstall"])
        .env("CONDA_PREFIX", &env.prefix)
        .assert()
        .code(0);
    assert!(!env.path("etc/conda/activate.d/envhook.sh").exists());
}

/// Issue #31: tcsh compares whole seconds, and files are stamped from the
/// kernel's coarse clock, a tick behind the one a process reads. A record
/// rewritten in place early in a second (conda-meta/'s own time does not
/// change), then `install` at once: the hooks' modification times, as
/// `stat` reads them, are in a later whole second than the record's, each
/// time; and tcsh, activating, says nothing.
#[test]
fn hooks_are_stamped_after_the_records_second() {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let record = fs::read_dir(env.path("conda-meta"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let secs = |p: &Path| {
        fs::symlink_metadata(p)
            .unwrap()
            .modified()
            .unwrap()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };
    let hooks = [
        "etc/conda/activate.d/envhook.csh",
        "etc/conda/deactivate.d/envhook.csh",
        "etc/conda/activate.d/envhook.sh",
    ];
    for round in 0..6 {
        // Early in a second: wait for the next one to start.
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        std::thread::sleep(Duration::from_nanos(
            1_000_000_000 - u64::from(now.subsec_nanos()) + 1_000_000,
        ));
        let text = fs::read(&record).unwrap();
        fs::write(&record, text).unwrap();
        let (code, out, err) = install(&sb, &env.prefix, &[]);
        assert_eq!((code, err.as_str()), (0, ""), "{out}");
        for hook in hooks {
            assert!(
                secs(&env.path(hook)) > secs(&record),
                "round {round}: {hook} stamped in the record's second"
            );
        }
    }
    let script = format!(
        "source '{}'; printenv LD_LIBRARY_PATH\n",
        env.path("etc/conda/activate.d/envhook.csh").display()
    );
    let out = std::process::Command::new("tcsh")
        .args(["-f", "-c", &script])
        .env("CONDA_PREFIX", &env.prefix)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(!out.stdout.is_empty(), "the hook ran");
}

/// tcsh under a UTF-8 locale globs nothing under a quoted path with
/// non-ASCII characters (tcsh 6.24): for such a prefix a package added
/// after the hook is still seen (#31 item 11).
#[test]
fn tcsh_sees_new_packages_in_a_non_ascii_prefix() {
    let sb = Sandbox::new();
    let mut env = support::cuda11_paddle(&sb.path("envs/ünïcode"));
    let (code, out, err) = install(&sb, &env.prefix, &[]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    let tcsh = |env: &support::Env| {
        let script = format!(
            "source '{}'\n",
            env.path("etc/conda/activate.d/envhook.csh").display()
        );
        let out = std::process::Command::new("tcsh")
            .args(["-f", "-c", &script])
            .env("CONDA_PREFIX", &env.prefix)
            .env("LC_ALL", "C.UTF-8")
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert_eq!(tcsh(&env), "", "fresh");
    // Later, a transaction adds a package: the hooks' times are set back
    // rather than a second waited for, tcsh comparing whole seconds.
    support::age_hooks(&env.prefix, 20);
    env.conda(support::CondaPkg::new("zlib", "1.3.1", "h4ab18f5_1"));
    assert!(tcsh(&env).contains("changed since"), "stale");
}

/// An environment whose frameworks find every CUDA library through the
/// wheels' RPATHs needs no hook: install says so and writes none, unless
/// asked with --always (#30).
#[test]
fn install_writes_no_hook_nobody_needs_unless_asked() {
    let sb = Sandbox::new();
    let env = support::pip_wheels(&sb.path("env"));
    let before = support::snapshot(&env.prefix);
    let (code, out, err) = install(&sb, &env.prefix, &[]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(out.contains("resolves without a hook"), "{out}");
    assert!(out.contains("--always"), "{out}");
    assert_eq!(support::snapshot(&env.prefix), before, "nothing written");
    let (code, out, _) = install(&sb, &env.prefix, &["--always"]);
    assert_eq!(code, 0, "{out}");
    assert!(env.path("etc/conda/activate.d/envhook.sh").exists());
    // Once there, they are refreshed like any other.
    let (code, out, _) = install(&sb, &env.prefix, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("resolves without a hook"), "{out}");
    // An environment that does need them gets them.
    let paddle = support::cuda11_paddle(&sb.path("paddle"));
    install(&sb, &paddle.prefix, &[]);
    assert!(paddle.path("etc/conda/activate.d/envhook.sh").exists());
}
