//! `envhook run` on an environment envhook never wrote to (#21): like
//! `conda run`, it works on any environment, a shared read-only one
//! included. The CUDA-only link directory `install` would make is built
//! privately, per user, outside the environment, reused while the
//! packages are the same, and nothing is written inside the environment.

use crate::support;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use support::{Sandbox, snapshot};

/// `envhook run -p PREFIX -- sh -c 'printf %s "$LD_LIBRARY_PATH"'` with
/// `vars`: (exit code, the value the command saw, stderr).
fn run(sb: &Sandbox, prefix: &Path, vars: &[(&str, &Path)]) -> (i32, String, String) {
    let mut cmd = sb.envhook();
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd
        .args(["run", "-p"])
        .arg(prefix)
        .args(["--", "/bin/sh", "-c", "printf %s \"$LD_LIBRARY_PATH\""])
        .output()
        .unwrap();
    support::outcome(out)
}

/// A `$XDG_RUNTIME_DIR` as systemd makes it: the user's, mode 0700.
fn runtime_dir(sb: &Sandbox) -> PathBuf {
    let xdg = sb.path("xdg");
    fs::create_dir(&xdg).unwrap();
    fs::set_permissions(&xdg, fs::Permissions::from_mode(0o700)).unwrap();
    xdg
}

fn private_dir(value: &str) -> PathBuf {
    PathBuf::from(value.split(':').next().unwrap())
}

#[test]
fn run_without_hooks_uses_a_private_link_directory_and_writes_nothing_in_the_env() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let before = snapshot(&env.prefix);
    let xdg = runtime_dir(&sb);
    let (code, value, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 0, "{err}");
    let dir = private_dir(&value);
    assert_eq!(dir.parent().unwrap(), xdg.join("envhook-run"), "{value}");
    assert_eq!(
        fs::metadata(xdg.join("envhook-run")).unwrap().mode() & 0o777,
        0o700
    );
    // CUDA's libraries only, each the environment's own file.
    let cudnn = dir.join("libcudnn.so.8");
    assert_eq!(
        fs::canonicalize(&cudnn).unwrap(),
        fs::canonicalize(env.path("lib/libcudnn.so.8")).unwrap()
    );
    let names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("libc") || n.starts_with("libn") || n.starts_with(".envhook")),
        "{names:?}"
    );
    assert!(
        !names.iter().any(|n| n.starts_with("libstdc++")),
        "{names:?}"
    );
    assert_eq!(
        snapshot(&env.prefix),
        before,
        "nothing written in the environment"
    );

    // Reused while the packages are the same.
    let inode = fs::metadata(&dir).unwrap().ino();
    let (_, again, _) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(again, value);
    assert_eq!(fs::metadata(&dir).unwrap().ino(), inode);

    // A transaction: a new package with a CUDA library. A new directory,
    // the old one gone.
    let mut env = env;
    env.conda(
        support::CondaPkg::new("nccl", "2.18.3.1", "h12f7317_0")
            .files(vec![support::FileSpec::File("lib/libnccl.so.2")]),
    );
    let (_, after, _) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    let new_dir = private_dir(&after);
    assert_ne!(new_dir, dir);
    assert!(new_dir.join("libnccl.so.2").exists());
    assert!(!dir.exists(), "the stale directory is removed");

    // Without XDG_RUNTIME_DIR: the cache directory.
    let (code, value, err) = run(&sb, &env.prefix, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        value.starts_with(&sb.home().join(".cache/envhook-run").display().to_string()),
        "{value}"
    );
}

/// A private directory others can write to (or a link in its place) is
/// refused: whoever can write there could swap the libraries.
#[test]
fn run_refuses_a_private_directory_others_can_write() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let xdg = sb.path("xdg");
    fs::create_dir_all(xdg.join("envhook-run")).unwrap();
    fs::set_permissions(xdg.join("envhook-run"), fs::Permissions::from_mode(0o777)).unwrap();
    let (code, _, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("its mode is 777"), "{err}");
    assert!(err.contains("hint:"), "{err}");
    fs::remove_dir(xdg.join("envhook-run")).unwrap();
    std::os::unix::fs::symlink(sb.path("elsewhere"), xdg.join("envhook-run")).unwrap();
    fs::create_dir(sb.path("elsewhere")).unwrap();
    let (code, _, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a directory"), "{err}");
    assert_eq!(fs::read_dir(sb.path("elsewhere")).unwrap().count(), 0);
}

/// A directory at the private directory's own name without envhook's mark
/// is removed only when empty (a removal killed after its mark went);
/// anything else there is not envhook's, and run refuses to touch it.
#[test]
fn run_removes_only_its_own_directories() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let xdg = runtime_dir(&sb);
    let (code, value, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 0, "{err}");
    let dir = private_dir(&value);
    // Killed halfway through a removal: empty, unmarked. Rebuilt.
    for entry in fs::read_dir(&dir).unwrap() {
        fs::remove_file(entry.unwrap().path()).unwrap();
    }
    let (code, again, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!((code, &again), (0, &value), "{err}");
    assert!(dir.join("libcudnn.so.8").exists());
    // Someone else's files under that name: left alone, exit 2.
    for entry in fs::read_dir(&dir).unwrap() {
        fs::remove_file(entry.unwrap().path()).unwrap();
    }
    fs::write(dir.join("notes.txt"), "mine\n").unwrap();
    let (code, _, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("without envhook run's mark"), "{err}");
    assert!(err.contains("hint:"), "{err}");
    assert_eq!(fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine\n");
}

/// Eight first runs at once on an environment without hooks, beside runs
/// on another one, several rounds (#31): every run succeeds and sees one
/// complete directory, and nothing temporary is left behind.
#[test]
fn concurrent_first_runs_all_succeed_and_leave_nothing_behind() {
    let sb = Sandbox::new();
    let a = support::cuda11_paddle(&sb.path("a"));
    let b = support::cuda12_split(&sb.path("b"));
    for round in 0..5 {
        let xdg = sb.path(&format!("xdg{round}"));
        fs::create_dir(&xdg).unwrap();
        fs::set_permissions(&xdg, fs::Permissions::from_mode(0o700)).unwrap();
        let children: Vec<(bool, std::process::Child)> = (0..10)
            .map(|i| {
                let prefix = if i < 8 { &a.prefix } else { &b.prefix };
                let child = sb
                    .envhook_std()
                    .env("XDG_RUNTIME_DIR", &xdg)
                    .args(["run", "-p"])
                    .arg(prefix)
                    .args(["--", "/bin/sh", "-c", "printf %s \"$LD_LIBRARY_PATH\""])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap();
                (i < 8, child)
            })
            .collect();
        let mut seen_a = Vec::new();
        for (is_a, child) in children {
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "round {round}: {err}");
            if is_a {
                seen_a.push(String::from_utf8(out.stdout).unwrap());
            }
        }
        seen_a.dedup();
        assert_eq!(seen_a.len(), 1, "round {round}: {seen_a:?}");
        let dir = private_dir(&seen_a[0]);
        assert!(dir.join("libcudnn.so.8").exists(), "round {round}");
        let left: Vec<String> = fs::read_dir(xdg.join("envhook-run"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with(".envhook-tmp"))
            .collect();
        assert!(left.is_empty(), "round {round}: {left:?}");
    }
}

/// Directories a killed run left (unmarked, or marked but never renamed)
/// and those of environments that no longer exist are swept by the next
/// run; the private directory of an existing environment stays.
#[test]
fn run_sweeps_what_killed_runs_and_removed_environments_left() {
    let sb = Sandbox::new();
    let xdg = runtime_dir(&sb);
    let gone = support::cuda11_paddle(&sb.path("gone"));
    let (code, value, err) = run(&sb, &gone.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 0, "{err}");
    let gone_dir = private_dir(&value);
    fs::remove_dir_all(&gone.prefix).unwrap();
    let root = xdg.join("envhook-run");
    fs::create_dir(root.join(".envhook-tmp-run-1-0-0")).unwrap();
    fs::create_dir(root.join(".envhook-tmp-run-2-0-0")).unwrap();
    fs::write(root.join(".envhook-tmp-run-2-0-0/.envhook-run"), "x\n").unwrap();
    let env = support::cuda11_paddle(&sb.path("env"));
    let (code, value, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 0, "{err}");
    let mut names: Vec<String> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let kept = private_dir(&value)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(names, [".lock".to_string(), kept], "{gone_dir:?}");
}

/// The place of the private directory is checked as the directory is:
/// another user's `XDG_RUNTIME_DIR` (even 1777), one writable by others
/// without the sticky bit, or one whose path holds a `:` is not used;
/// run falls back to the cache directory (#31).
#[test]
fn run_uses_no_place_another_user_or_a_colon_could_subvert() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let cache = sb.home().join(".cache/envhook-run").display().to_string();
    // World-writable, not sticky.
    let open = sb.path("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let (code, value, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &open)]);
    assert_eq!(code, 0, "{err}");
    assert!(value.starts_with(&cache), "{value}");
    assert!(!open.join("envhook-run").exists());
    // A colon in the path: LD_LIBRARY_PATH would split there.
    let colon = sb.path("a:b");
    fs::create_dir(&colon).unwrap();
    fs::set_permissions(&colon, fs::Permissions::from_mode(0o700)).unwrap();
    let (code, value, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &colon)]);
    assert_eq!(code, 0, "{err}");
    assert!(value.starts_with(&cache), "{value}");
    assert!(value.split(':').all(|e| e.starts_with('/')), "{value}");
    // Another user's, 1777 (only root can make one here).
    if support::require("root", support::is_root()) {
        let theirs = sb.path("theirs");
        fs::create_dir(&theirs).unwrap();
        fs::set_permissions(&theirs, fs::Permissions::from_mode(0o1777)).unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        let (code, value, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &theirs)]);
        assert_eq!(code, 0, "{err}");
        assert!(value.starts_with(&cache), "{value}");
        assert!(!theirs.join("envhook-run").exists());
    }
}

/// Root with another user's HOME (`sudo -E envhook run`): nothing
/// root-owned is made there; the private directory goes to the temporary
/// directory, per uid (#31).
#[test]
fn root_with_a_users_home_makes_nothing_there() {
    if !support::require("root", support::is_root()) {
        return;
    }
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let home = sb.home();
    std::os::unix::fs::chown(&home, Some(65534), Some(65534)).unwrap();
    let tmp = sb.path("tmp");
    fs::create_dir(&tmp).unwrap();
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o1777)).unwrap();
    let (code, value, err) = run(&sb, &env.prefix, &[("TMPDIR", &tmp)]);
    assert_eq!(code, 0, "{err}");
    assert!(!home.join(".cache").exists(), "{value}");
    assert!(
        value.starts_with(&tmp.join("envhook-run-0/envhook-run").display().to_string()),
        "{value}"
    );
    assert_eq!(
        fs::metadata(tmp.join("envhook-run-0")).unwrap().mode() & 0o777,
        0o700
    );
}

/// Something other than a directory at the private directory's name (a
/// file, a FIFO, a link) is refused with its path and what to do (#31).
#[test]
fn a_file_at_the_private_directorys_name_is_named() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let xdg = runtime_dir(&sb);
    let (code, value, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 0, "{err}");
    let dir = private_dir(&value);
    fs::remove_dir_all(&dir).unwrap();
    fs::write(&dir, "not a directory\n").unwrap();
    let (code, _, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&dir.display().to_string()), "{err}");
    assert!(err.contains("hint:"), "{err}");
    assert!(!err.contains("os error 20"), "{err}");
}

/// A command that cannot be started exits as shells do (#30): 127 when it
/// is not found, 126 when it is not executable; the message names it.
#[test]
fn a_command_that_cannot_start_exits_127_or_126() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let xdg = runtime_dir(&sb);
    let out = sb
        .envhook()
        .env("XDG_RUNTIME_DIR", &xdg)
        .args(["run", "-p"])
        .arg(&env.prefix)
        .args(["--", "no-such-command-here"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-command-here"));
    let script = sb.path("not-executable");
    fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o644)).unwrap();
    let out = sb
        .envhook()
        .env("XDG_RUNTIME_DIR", &xdg)
        .args(["run", "-p"])
        .arg(&env.prefix)
        .arg("--")
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(126),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Waits (bounded: 30 s) for `path` to hold something; its text.
fn wait_for_file(path: &Path) -> String {
    for _ in 0..600 {
        if let Ok(text) = fs::read_to_string(path)
            && !text.is_empty()
        {
            return text;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("{} never appeared", path.display());
}

/// A job still running keeps its private directory (#38): the packages
/// change meanwhile, and the next run builds a new directory but leaves the
/// job's, links and all; the first run after the job ends sweeps it.
#[test]
fn a_running_jobs_directory_outlives_a_change_of_packages() {
    let sb = Sandbox::new();
    let mut env = support::cuda11_paddle(&sb.path("env"));
    let xdg = runtime_dir(&sb);
    let (seen, done) = (sb.path("seen"), sb.path("done"));
    // The job says what it was given, waits for the test (30 s at most),
    // then counts the links it still finds.
    let job = "PATH=\"$PATH:/usr/bin:/bin\"
        printf %s \"$LD_LIBRARY_PATH\" > \"$1.tmp\" && mv \"$1.tmp\" \"$1\"
        i=0; while [ ! -e \"$2\" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
        ls -A \"${LD_LIBRARY_PATH%%:*}\" | wc -l";
    let first = sb
        .envhook_std()
        .env("XDG_RUNTIME_DIR", &xdg)
        .args(["run", "-p"])
        .arg(&env.prefix)
        .args(["--", "/bin/sh", "-c", job, "job"])
        .args([&seen, &done])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let dir = private_dir(&wait_for_file(&seen));
    env.conda(
        support::CondaPkg::new("nccl", "2.18.3.1", "h12f7317_0")
            .files(vec![support::FileSpec::File("lib/libnccl.so.2")]),
    );
    let (code, value, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(private_dir(&value), dir);
    let in_use = dir.join("libcudnn.so.8").symlink_metadata().is_ok();
    fs::write(&done, "").unwrap();
    let out = first.wait_with_output().unwrap();
    assert!(in_use, "the running job's {} was swept", dir.display());
    let links: usize = String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(links > 1, "the job found {links} entries in its directory");
    // The job is over: the next run removes its directory.
    let (code, _, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 0, "{err}");
    assert!(!dir.exists(), "{} outlived its job", dir.display());
}

/// A file of the user's among the private directories (`notes.txt`) is
/// not envhook's and not in the way: runs go on and leave it (#38).
#[test]
fn a_stray_file_in_the_private_directory_is_skipped() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let xdg = runtime_dir(&sb);
    let (code, _, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 0, "{err}");
    let notes = xdg.join("envhook-run/notes.txt");
    fs::write(&notes, "mine").unwrap();
    let (code, value, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 0, "{err}");
    assert!(private_dir(&value).join("libcudnn.so.8").exists());
    assert_eq!(fs::read_to_string(&notes).unwrap(), "mine");
}

/// A run that finds another holding the private directory's lock says,
/// once and before it waits, what it waits for; it goes on when the lock
/// is released (#38).
#[test]
fn a_run_says_what_it_waits_for() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let xdg = runtime_dir(&sb);
    let (code, _, err) = run(&sb, &env.prefix, &[("XDG_RUNTIME_DIR", &xdg)]);
    assert_eq!(code, 0, "{err}");
    let lock = fs::File::open(xdg.join("envhook-run/.lock")).unwrap();
    lock.lock().unwrap();
    let stderr = sb.path("stderr");
    let mut waiting = sb
        .envhook_std()
        .env("XDG_RUNTIME_DIR", &xdg)
        .args(["run", "-p"])
        .arg(&env.prefix)
        .args(["--", "/bin/true"])
        .stderr(fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    // Up to 10 s for the notice, then the lock goes either way.
    let said = (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        fs::read_to_string(&stderr).is_ok_and(|t| !t.is_empty())
    });
    drop(lock);
    let status = waiting.wait().unwrap();
    let err = fs::read_to_string(&stderr).unwrap();
    assert!(said, "nothing said while waiting: {err:?}");
    assert!(status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&xdg.join("envhook-run/.lock").display().to_string()),
        "{err}"
    );
    assert!(err.contains("another envhook run"), "{err}");
}

/// The variables of the shell `run` starts: `name=value` lines of those
/// conda's activation sets (`-` for unset), and PATH.
fn activation_vars(sb: &Sandbox, select: &[&str], vars: &[(&str, String)]) -> Vec<String> {
    let mut cmd = sb.envhook();
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let script = "for v in CONDA_SHLVL CONDA_PREFIX CONDA_DEFAULT_ENV CONDA_PROMPT_MODIFIER \
                  CONDA_PREFIX_0 CONDA_PREFIX_1 CONDA_PREFIX_2 PATH; do \
                  eval \"printf '%s=%s\\n' $v \\\"\\${$v--}\\\"\"; done";
    let out = cmd
        .arg("run")
        .args(select)
        .args(["--", "/bin/sh", "-c", script])
        .output()
        .unwrap();
    let (code, text, err) = support::outcome(out);
    assert_eq!(code, 0, "{err}");
    text.lines().map(str::to_string).collect()
}

/// #42: `run` sets what `conda activate PREFIX` sets on top of the calling
/// shell's state, as `conda run` does (its script runs `conda activate`):
/// the next level in CONDA_SHLVL, the previous prefix in CONDA_PREFIX_<n>
/// and its `bin` replaced in PATH, CONDA_DEFAULT_ENV by conda's rule (the
/// directory's name under an `envs` directory, `base` for a root, else the
/// prefix) and CONDA_PROMPT_MODIFIER; the same environment again is a
/// reactivation, no new level. So a `conda activate other` inside switches
/// instead of stacking, and `conda deactivate` goes back where it came from.
#[test]
fn run_sets_what_conda_activate_sets() {
    let sb = Sandbox::new();
    let root = sb.path("home/miniconda3");
    support::Env::new(&root);
    fs::create_dir_all(root.join("condabin")).unwrap();
    let env = support::cuda11_paddle(&root.join("envs/paddle"));
    let other = support::Env::new(sb.path("projects/other"));
    let prefix = env.prefix.display().to_string();
    let bin = |p: &Path| p.join("bin").display().to_string();
    let p = prefix.as_str();
    // No conda shell integration: the first level, with the
    // installation's condabin.
    assert_eq!(
        activation_vars(&sb, &["-p", p], &[("PATH", "/usr/bin:/bin".into())]),
        [
            "CONDA_SHLVL=1".to_string(),
            format!("CONDA_PREFIX={p}"),
            "CONDA_DEFAULT_ENV=paddle".into(),
            "CONDA_PROMPT_MODIFIER=(paddle) ".into(),
            "CONDA_PREFIX_0=-".into(),
            "CONDA_PREFIX_1=-".into(),
            "CONDA_PREFIX_2=-".into(),
            format!(
                "PATH={}:{}:/usr/bin:/bin",
                bin(&env.prefix),
                root.join("condabin").display()
            ),
        ]
    );
    // From base, active: the next level, base's bin replaced in place.
    let from_base = [
        ("CONDA_SHLVL", "1".to_string()),
        ("CONDA_PREFIX", root.display().to_string()),
        ("CONDA_DEFAULT_ENV", "base".into()),
        ("CONDA_PROMPT_MODIFIER", "(base) ".into()),
        (
            "PATH",
            format!(
                "/opt/x:{}:{}:/usr/bin",
                bin(&root),
                root.join("condabin").display()
            ),
        ),
    ];
    assert_eq!(
        activation_vars(&sb, &["-n", "paddle"], &from_base),
        [
            "CONDA_SHLVL=2".to_string(),
            format!("CONDA_PREFIX={p}"),
            "CONDA_DEFAULT_ENV=paddle".into(),
            "CONDA_PROMPT_MODIFIER=(paddle) ".into(),
            "CONDA_PREFIX_0=-".into(),
            format!("CONDA_PREFIX_1={}", root.display()),
            "CONDA_PREFIX_2=-".into(),
            format!(
                "PATH=/opt/x:{}:{}:/usr/bin",
                bin(&env.prefix),
                root.join("condabin").display()
            ),
        ]
    );
    // The root itself is base; an environment outside an envs directory
    // is its prefix.
    let vars = activation_vars(&sb, &["-n", "base"], &[("PATH", "/usr/bin".into())]);
    assert_eq!(vars[2], "CONDA_DEFAULT_ENV=base");
    let o = other.prefix.display().to_string();
    let vars = activation_vars(&sb, &["-p", &o], &[("PATH", "/usr/bin".into())]);
    assert_eq!(vars[2], format!("CONDA_DEFAULT_ENV={o}"));
    assert_eq!(vars[3], format!("CONDA_PROMPT_MODIFIER=({o}) "));
    // Already active: a reactivation, the level and PATH as they were.
    let active = [
        ("CONDA_SHLVL", "2".to_string()),
        ("CONDA_PREFIX", prefix.clone()),
        ("CONDA_PREFIX_1", root.display().to_string()),
        ("CONDA_DEFAULT_ENV", "paddle".into()),
        ("PATH", format!("{}:/usr/bin", bin(&env.prefix))),
    ];
    let vars = activation_vars(&sb, &["-p", p], &active);
    assert_eq!(vars[0], "CONDA_SHLVL=2");
    assert_eq!(vars[5], format!("CONDA_PREFIX_1={}", root.display()));
    assert_eq!(vars[6], "CONDA_PREFIX_2=-");
    assert_eq!(vars[7], format!("PATH={}:/usr/bin", bin(&env.prefix)));
}

/// What the environment's own deactivate hook leaves, run inside `envhook
/// run` (as `conda activate other` or `conda deactivate` there runs it),
/// from a calling shell whose `LD_LIBRARY_PATH` is `start`: `None` unset.
fn deactivated_inside_run(sb: &Sandbox, prefix: &Path, shell: &str, start: Option<&str>) -> String {
    let hook = |ext: &str| prefix.join(format!("etc/conda/deactivate.d/envhook.{ext}"));
    let (args, hook): (Vec<&str>, PathBuf) = match shell {
        "bash" => (vec!["/bin/bash", "-euc"], hook("sh")),
        "fish" => (vec!["/usr/bin/fish", "-c"], hook("fish")),
        _ => (vec!["/usr/bin/tcsh", "-fc"], hook("csh")),
    };
    let script = match shell {
        "fish" => format!(
            "source '{}'; if set -q LD_LIBRARY_PATH; printf '<%s>' \"$LD_LIBRARY_PATH\"; else; printf unset; end",
            hook.display()
        ),
        "bash" => format!(
            ". '{}'; if [ -n \"${{LD_LIBRARY_PATH+x}}\" ]; then printf '<%s>' \"$LD_LIBRARY_PATH\"; else printf unset; fi",
            hook.display()
        ),
        _ => format!(
            "source '{}'; if ($?LD_LIBRARY_PATH) then\n echo -n \"<$LD_LIBRARY_PATH>\"\nelse\n echo -n unset\nendif",
            hook.display()
        ),
    };
    let mut cmd = sb.envhook();
    cmd.env_remove("LD_LIBRARY_PATH");
    if let Some(v) = start {
        cmd.env("LD_LIBRARY_PATH", v);
    }
    let out = cmd
        .args(["run", "-p"])
        .arg(prefix)
        .arg("--")
        .args(&args)
        .arg(script)
        .output()
        .unwrap();
    let (code, stdout, stderr) = support::outcome(out);
    assert_eq!(
        (code, stderr.as_str()),
        (0, ""),
        "{shell} {start:?}: {stdout}"
    );
    stdout
}

/// #42 (found in review): `run` leaves the state the activate hook would
/// have, so the environment's deactivate hook, run inside the command,
/// gives back the value `run` started from, byte for byte, in each shell.
#[test]
fn leaving_the_environment_inside_run_restores_the_value_run_started_from() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    sb.install(&env.prefix);
    for shell in ["bash", "fish", "tcsh"] {
        for start in [None, Some(""), Some("/opt/x::/opt/y")] {
            let left = deactivated_inside_run(&sb, &env.prefix, shell, start);
            let want = start.map_or("unset".to_string(), |v| format!("<{v}>"));
            assert_eq!(left, want, "{shell} {start:?}");
        }
    }
}

/// `run` from a shell where the environment is active already: the state
/// the shell's activation saved stays, so leaving the environment inside
/// the command still gives the value from before that activation.
#[test]
fn run_inside_the_active_environment_keeps_the_shells_saved_state() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    sb.install(&env.prefix);
    let hook = |phase: &str| env.prefix.join(format!("etc/conda/{phase}.d/envhook.sh"));
    let script = format!(
        ". '{}'; \"$0\" run -p '{}' -- /bin/bash -euc \". '{}'; printf '<%s>' \\\"\\$LD_LIBRARY_PATH\\\"\"",
        hook("activate").display(),
        env.prefix.display(),
        hook("deactivate").display()
    );
    let out = std::process::Command::new("/bin/bash")
        .env_clear()
        .env("HOME", sb.home())
        .env("PATH", sb.path("bin"))
        .env("ENVHOOK_SYSROOT", sb.path("sysroot"))
        .env("LD_LIBRARY_PATH", "/opt/before")
        .env("ENVHOOK_QUIET", "1")
        .args(["-euc", &script])
        .arg(assert_cmd::cargo::cargo_bin("envhook"))
        .output()
        .unwrap();
    let (code, stdout, stderr) = support::outcome(out);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert_eq!(stdout, "</opt/before>");
}
