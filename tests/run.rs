//! `envhook run` on an environment envhook never wrote to (#21): like
//! `conda run`, it works on any environment, a shared read-only one
//! included. The CUDA-only link directory `install` would make is built
//! privately, per user, outside the environment, reused while the
//! packages are the same, and nothing is written inside the environment.

mod support;

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
