//! envhook on shared machines, attacked: links planted at every level of
//! the paths it writes, root over an environment another uid owns,
//! unmarked files in its way, concurrent writers, and runs killed at
//! random points. Nothing outside the prefix may change, what envhook
//! creates belongs to the environment's owner, and nothing is left behind.

use crate::support;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::{Sandbox, snapshot};

/// The victim environment's owner.
const USER: u32 = support::OTHER_UID;

fn run(sb: &Sandbox, args: &[&str], prefix: &Path) -> Output {
    sb.envhook_std()
        .args(args)
        .arg("-p")
        .arg(prefix)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Every path under `dir` with its owner and mode (links: owner only).
fn owners(dir: &Path) -> Vec<(PathBuf, u32, u32, u32)> {
    support::walk(dir)
        .into_iter()
        .map(|(p, m)| {
            let mode = if m.file_type().is_symlink() {
                0
            } else {
                m.permissions().mode() & 0o7777
            };
            (p, m.uid(), m.gid(), mode)
        })
        .collect()
}

/// The paths that differ between two listings, for messages (snapshots
/// are too large to print whole).
fn diff<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T]) -> String {
    let only = |x: &[T], y: &[T]| -> Vec<String> {
        x.iter()
            .filter(|e| !y.contains(e))
            .map(|e| format!("{e:?}"))
            .take(5)
            .collect()
    };
    format!(
        "before only: {:?}; after only: {:?}",
        only(a, b),
        only(b, a)
    )
}

/// A victim directory outside the environment, as a root-owned system
/// directory would be: a file, and a marked link directory that an
/// install following `lib/envhook` would take for its own.
fn victim(sb: &Sandbox) -> PathBuf {
    let v = sb.path("victim");
    fs::create_dir_all(v.join("cuda-0123456789abcdef")).unwrap();
    fs::write(v.join("cuda-0123456789abcdef/.envhook-owned"), "x").unwrap();
    fs::write(v.join("profile"), "export PATH=/usr/bin\n").unwrap();
    v
}

/// Replace `rel` in the environment by a link to `target` (the parents are
/// made as real directories).
fn plant(prefix: &Path, rel: &str, target: &Path) {
    let at = prefix.join(rel);
    fs::create_dir_all(at.parent().unwrap()).unwrap();
    match fs::symlink_metadata(&at) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(&at).unwrap(),
        Ok(_) => fs::remove_file(&at).unwrap(),
        Err(_) => {}
    }
    std::os::unix::fs::symlink(target, &at).unwrap();
}

const LEVELS: &[&str] = &[
    "etc",
    "etc/conda",
    "etc/conda/activate.d",
    "etc/conda/deactivate.d",
    "etc/conda/activate.d/envhook.sh",
    "etc/conda/deactivate.d/envhook.fish",
    "lib/envhook",
    "lib/envhook/cuda",
    "conda-meta/.envhook.lock",
];

#[test]
fn planted_links_at_every_level_change_nothing_outside() {
    for level in LEVELS.iter().copied().chain(["lib"]) {
        let sb = Sandbox::new();
        let env = support::cuda11_paddle(&sb.path("home/.conda/envs/victimised"));
        let v = victim(&sb);
        if level == "lib" {
            // The libraries still resolve: the user moved lib/ out and
            // linked it back.
            fs::rename(env.path("lib"), v.join("lib")).unwrap();
            plant(&env.prefix, "lib", &v.join("lib"));
        } else {
            plant(&env.prefix, level, &v);
        }
        if support::is_root() {
            support::chown_tree(&env.prefix, USER);
        }
        let before = (snapshot(&v), owners(&v));

        let install = run(&sb, &["install"], &env.prefix);
        let code = install.status.code();
        let err = String::from_utf8_lossy(&install.stderr).to_string();
        assert_eq!(code, Some(2), "{level}: {}", text(&install));
        assert!(
            err.contains(&env.path(level).display().to_string()),
            "{level}: the error names the link: {err}"
        );
        let dry = run(&sb, &["install", "--dry-run"], &env.prefix);
        assert_eq!(dry.status.code(), Some(2), "{level}: {}", text(&dry));

        let fix = sb
            .envhook_std()
            .args(["audit", "--fix", "--json", "--driver-version", "560.35.05"])
            .output()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&fix.stdout)
            .unwrap_or_else(|e| panic!("{level}: {e}: {}", text(&fix)));
        let row = &doc["envs"][0];
        let failed = row["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == "fix-failed")
            .unwrap_or_else(|| panic!("{level}: {row}"));
        assert!(
            failed["message"]
                .as_str()
                .unwrap()
                .contains(&env.path(level).display().to_string()),
            "{level}: {failed}"
        );

        // A planted directory stops uninstall too; a link at a hook file's
        // name is not envhook's and stays; one at lib/envhook/cuda is
        // reported as left alone.
        let uninstall = run(&sb, &["uninstall"], &env.prefix);
        let want = match level {
            l if l.ends_with(".sh") || l.ends_with(".fish") => 0,
            "lib/envhook/cuda" => 1,
            _ => 2,
        };
        assert_eq!(
            uninstall.status.code(),
            Some(want),
            "{level}: {}",
            text(&uninstall)
        );
        let after = (snapshot(&v), owners(&v));
        assert!(
            after == before,
            "{level}: the victim directory changed: {}",
            diff(&before.1, &after.1)
        );
    }
}

#[test]
fn audit_fix_reports_a_planted_link_and_fixes_the_other_environments() {
    let sb = Sandbox::new();
    let bad = support::cuda11_paddle(&sb.path("home/.conda/envs/bad"));
    let good = support::cuda11_paddle(&sb.path("home/.conda/envs/good"));
    let v = victim(&sb);
    plant(&bad.prefix, "etc/conda/activate.d", &v);
    let before = snapshot(&v);
    let out = sb
        .envhook_std()
        .args(["audit", "--fix", "--json", "--driver-version", "560.35.05"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = doc["envs"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|r| r["name"] == name).unwrap();
    assert!(
        row("bad")["findings"]
            .to_string()
            .contains("refusing to write through"),
        "{}",
        row("bad")
    );
    assert!(!row("good")["fixed"].as_array().unwrap().is_empty());
    assert!(good.path("etc/conda/activate.d/envhook.sh").is_file());
    assert!(snapshot(&v) == before);
}

/// Run envhook as [`USER`] (root only).
fn as_user(sb: &Sandbox, args: &[&str], prefix: &Path) -> Output {
    sb.envhook_unprivileged()
        .args(args)
        .arg("-p")
        .arg(prefix)
        .output()
        .unwrap()
}

#[test]
fn root_over_another_users_environment_leaves_it_theirs() {
    if !support::require("root", support::is_root()) {
        return;
    }
    let sb = Sandbox::new();
    fs::set_permissions(sb.path(""), fs::Permissions::from_mode(0o755)).unwrap();
    let env = support::cuda11_paddle(&sb.path("user-env"));
    support::chown_tree(&env.prefix, USER);
    // A permissive umask must not leak into the modes.
    let out = Command::new("sh")
        .args(["-c", "umask 000 && exec \"$@\"", "sh"])
        .arg(assert_cmd::cargo::cargo_bin("envhook"))
        .args(["install", "-p"])
        .arg(&env.prefix)
        .env("HOME", sb.home())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let created: Vec<_> = owners(&env.prefix)
        .into_iter()
        .filter(|(p, ..)| {
            let rel = p
                .strip_prefix(&env.prefix)
                .unwrap()
                .to_string_lossy()
                .to_string();
            rel.starts_with("etc") || rel.starts_with("lib/envhook") || rel.contains("envhook.lock")
        })
        .collect();
    assert!(created.len() > 30, "{created:?}");
    for (path, uid, gid, mode) in &created {
        assert_eq!((*uid, *gid), (USER, USER), "{}", path.display());
        let m = fs::symlink_metadata(path).unwrap();
        if m.is_dir() {
            assert_eq!(*mode, 0o755, "{}", path.display());
        } else if m.is_file() {
            assert_eq!(*mode, 0o644, "{}", path.display());
        }
    }
    // The owner keeps full control: refresh (another shell set) and remove.
    let refresh = as_user(&sb, &["install", "--shells", "sh"], &env.prefix);
    assert_eq!(refresh.status.code(), Some(0), "{}", text(&refresh));
    let gone = as_user(&sb, &["uninstall"], &env.prefix);
    assert_eq!(gone.status.code(), Some(0), "{}", text(&gone));
    assert!(!env.path("lib/envhook").exists());
    assert!(!env.path("conda-meta/.envhook.lock").exists());
    assert!(!env.path("etc/conda/activate.d/envhook.sh").exists());
}

#[test]
fn unmarked_files_fifos_and_directories_are_never_replaced_or_removed() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    fs::create_dir_all(env.path("etc/conda/activate.d")).unwrap();
    fs::create_dir_all(env.path("etc/conda/deactivate.d")).unwrap();
    fs::write(env.path("etc/conda/activate.d/envhook.sh"), "echo mine\n").unwrap();
    fs::write(
        env.path("etc/conda/deactivate.d/envhook.fish"),
        "echo mine\n",
    )
    .unwrap();
    // A FIFO, which no reader may open (it would block): the snapshot
    // covers the rest, and the FIFO must still be one afterwards.
    let fifo = env.path("etc/conda/activate.d/envhook.ps1");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let snap = || {
        let is_fifo = fs::symlink_metadata(&fifo).is_ok_and(|m| {
            use std::os::unix::fs::FileTypeExt;
            m.file_type().is_fifo()
        });
        let hidden = sb.path("fifo-aside");
        fs::rename(&fifo, &hidden).unwrap();
        // The lock file is created by every writing run.
        let s: Vec<_> = snapshot(&env.prefix)
            .into_iter()
            .filter(|(p, _)| !p.ends_with("conda-meta/.envhook.lock"))
            .collect();
        fs::rename(&hidden, &fifo).unwrap();
        (is_fifo, s)
    };
    let before = snap();

    for args in [&["install", "--dry-run"][..], &["install"]] {
        let out = run(&sb, args, &env.prefix);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        for name in [
            "activate.d/envhook.sh",
            "deactivate.d/envhook.fish",
            "activate.d/envhook.ps1",
        ] {
            assert!(err.contains(name), "{args:?} names {name}: {err}");
        }
        assert!(err.contains("a FIFO"), "{err}");
        let after = snap();
        assert!(
            after == before,
            "{args:?} wrote: {}",
            diff(&before.1, &after.1)
        );
    }
    let out = run(&sb, &["uninstall"], &env.prefix);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let after = snap();
    assert!(after == before, "uninstall: {}", diff(&before.1, &after.1));

    // A real directory where envhook keeps its link.
    fs::remove_file(&fifo).unwrap();
    fs::remove_file(env.path("etc/conda/activate.d/envhook.sh")).unwrap();
    fs::remove_file(env.path("etc/conda/deactivate.d/envhook.fish")).unwrap();
    fs::create_dir_all(env.path("lib/envhook/cuda")).unwrap();
    fs::write(env.path("lib/envhook/cuda/x"), "mine").unwrap();
    let out = run(&sb, &["install"], &env.prefix);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let out = run(&sb, &["uninstall"], &env.prefix);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("lib/envhook/cuda"));
    assert_eq!(fs::read(env.path("lib/envhook/cuda/x")).unwrap(), b"mine");
}

/// Names envhook uses only while it works.
fn litter(prefix: &Path) -> Vec<PathBuf> {
    owners(prefix)
        .into_iter()
        .map(|(p, ..)| p)
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(".envhook-tmp-") && name != ".envhook-tmp-mine"
        })
        .collect()
}

/// The link directories under `lib/envhook`.
fn link_dirs(prefix: &Path) -> Vec<String> {
    let mut dirs: Vec<String> = fs::read_dir(prefix.join("lib/envhook"))
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|n| n.starts_with("cuda-"))
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

#[test]
fn concurrent_installs_all_succeed_one_after_the_other() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let children: Vec<_> = (0..10)
        .map(|i| {
            let mut cmd = sb.envhook_std();
            // Alternate the shell sets so that every run changes something.
            cmd.args(["install", "-p"]).arg(&env.prefix);
            if i % 2 == 1 {
                cmd.args(["--shells", "sh"]);
            }
            cmd.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    }
    assert_eq!(litter(&env.prefix), Vec::<PathBuf>::new());
    let dirs = link_dirs(&env.prefix);
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    assert_eq!(
        fs::read_link(env.path("lib/envhook/cuda")).unwrap(),
        PathBuf::from(&dirs[0])
    );
    let check = run(
        &sb,
        &["check", "--json", "--driver-version", "560.35.05"],
        &env.prefix,
    );
    let doc: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(doc["hook"]["state"], "current", "{doc}");
}

#[test]
fn runs_killed_at_random_points_leave_nothing_the_next_run_keeps() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    // Each run rewrites the hooks and rebuilds the link directory: the
    // mode alternates between isolated and dirs, and the fingerprint
    // changes with it.
    for i in 0..40u64 {
        let mut cmd = sb.envhook_std();
        cmd.args(["install", "-p"]).arg(&env.prefix);
        if i % 2 == 1 {
            cmd.args(["--mode", "dirs"]);
        }
        let mut child = cmd
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // A spread of moments, from before main() to the end of the run.
        std::thread::sleep(std::time::Duration::from_micros((i * 7919) % 25_000));
        let _ = child.kill();
        child.wait().unwrap();
    }
    let out = run(&sb, &["install"], &env.prefix);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(litter(&env.prefix), Vec::<PathBuf>::new());
    assert_eq!(link_dirs(&env.prefix).len(), 1);
    let out = run(&sb, &["uninstall"], &env.prefix);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!env.path("lib/envhook").exists());
    assert!(!env.path("conda-meta/.envhook.lock").exists());
    for phase in ["activate.d", "deactivate.d"] {
        let dir = env.path(&format!("etc/conda/{phase}"));
        let left: Vec<_> = fs::read_dir(&dir)
            .map(|rd| rd.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "{left:?}");
    }
}

#[test]
fn leftovers_are_recognised_by_name_and_mark_and_nothing_else_is_removed() {
    use std::os::unix::fs::symlink;
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    sb.install(&env.prefix);
    let act = env.path("etc/conda/activate.d");
    let lib = env.path("lib/envhook");
    let marked = "# envhook:owned -- generated\n# half";
    // What killed runs leave: temporary hooks (empty, or marked and cut
    // short), a link directory being built (marked first) and a link
    // being swapped.
    fs::write(act.join(".envhook-tmp-file-1-0-0"), "").unwrap();
    fs::write(act.join(".envhook-tmp-file-1-1-0"), marked).unwrap();
    fs::create_dir(lib.join(".envhook-tmp-build-1-2-0")).unwrap();
    fs::write(lib.join(".envhook-tmp-build-1-2-0/.envhook-owned"), "x").unwrap();
    symlink(
        "../../libcudart.so",
        lib.join(".envhook-tmp-build-1-2-0/libcudart.so"),
    )
    .unwrap();
    symlink("cuda-0123456789abcdef", lib.join(".envhook-tmp-link-1-3-0")).unwrap();
    // Lookalikes that are not envhook's: they stay. No released envhook
    // wrote the tempfile crate's names, `.cuda.tmp-PID` or an unmarked
    // link directory, so those are someone else's too.
    symlink("cuda-0123456789abcdef", lib.join(".cuda.tmp-4242")).unwrap();
    fs::create_dir(lib.join("cuda-00000000000000ff")).unwrap();
    symlink(
        "../../libcudart.so",
        lib.join("cuda-00000000000000ff/libcudart.so"),
    )
    .unwrap();
    let keep = [
        act.join(".envhook-tmp-mine"),
        act.join(".envhook-mine-and-longer"),
        act.join("env_vars.sh"),
        lib.join("cuda-notours/file"),
        lib.join("cuda-00000000000000aa/file"),
    ];
    for path in &keep {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "mine\n").unwrap();
    }
    let out = run(&sb, &["install", "--dry-run"], &env.prefix);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("would clean").count(), 4, "{stdout}");

    let out = run(&sb, &["install"], &env.prefix);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(litter(&env.prefix), Vec::<PathBuf>::new());
    assert!(lib.join(".cuda.tmp-4242").is_symlink());
    assert!(lib.join("cuda-00000000000000ff/libcudart.so").is_symlink());
    for path in &keep {
        assert_eq!(
            fs::read_to_string(path).unwrap(),
            "mine\n",
            "{}",
            path.display()
        );
    }
    // uninstall leaves them too, and lib/envhook with them.
    let out = run(&sb, &["uninstall"], &env.prefix);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for path in &keep {
        assert!(path.exists(), "{}", path.display());
    }
    assert!(!lib.join("cuda").exists());
}

/// #21: `audit --output` and `man --dir` replace regular files only: a
/// device node, a FIFO, a directory or a planted link at the path is
/// refused (exit 2, named), never replaced, opened or written through.
#[test]
fn outputs_replace_regular_files_only() {
    let sb = Sandbox::new();
    let out_dir = sb.path("out");
    fs::create_dir_all(&out_dir).unwrap();
    let victim = sb.path("victim");
    fs::write(&victim, "precious\n").unwrap();
    let fifo = out_dir.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let link = out_dir.join("link");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let dir = out_dir.join("dir");
    fs::create_dir(&dir).unwrap();
    let mut cases = vec![
        (fifo, "a FIFO"),
        (link, "a symbolic link"),
        (dir, "a directory"),
    ];
    // A copy of /dev/null, as root can make one: what a root cron job
    // given `--output /dev/null` would otherwise replace.
    let null = out_dir.join("null");
    if support::require("root", support::is_root()) {
        let made = Command::new("mknod")
            .arg(&null)
            .args(["c", "1", "3"])
            .status()
            .unwrap();
        assert!(made.success(), "root could not mknod {}", null.display());
        cases.push((null, "a character device"));
    }
    for (path, what) in &cases {
        let before = fs::symlink_metadata(path).unwrap().file_type();
        let mut cmd = sb.envhook_std();
        cmd.args(["audit", "--format", "prometheus", "--output"])
            .arg(path);
        let out = support::outcome(cmd.output().unwrap());
        assert_eq!(out.0, 2, "{}: {out:?}", path.display());
        assert!(
            out.2.contains(&format!(
                "{}: it is {what}, not a regular file",
                path.display()
            )),
            "{}",
            out.2
        );
        assert!(out.2.contains("hint:"), "{}", out.2);
        assert_eq!(fs::symlink_metadata(path).unwrap().file_type(), before);
    }
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");

    // man --dir: a planted page link and a FIFO page (which would block
    // a plain write forever).
    let man = sb.path("man1");
    fs::create_dir_all(&man).unwrap();
    std::os::unix::fs::symlink(&victim, man.join("envhook-show.1")).unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(man.join("envhook-check.1"))
            .status()
            .unwrap()
            .success()
    );
    let mut cmd = sb.envhook_std();
    cmd.args(["man", "--dir"]).arg(&man);
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out =
        wait_timeout::ChildExt::wait_timeout(&mut { child }, std::time::Duration::from_secs(20));
    let status = out.unwrap().expect("man --dir must not block on a FIFO");
    assert_eq!(status.code(), Some(2));
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(
        fs::symlink_metadata(man.join("envhook-show.1"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // A regular file is replaced, as before.
    let fine = sb.path("man-ok");
    fs::create_dir_all(&fine).unwrap();
    fs::write(fine.join("envhook.1"), "old").unwrap();
    let mut cmd = sb.envhook_std();
    cmd.args(["man", "--dir"]).arg(&fine);
    assert_eq!(support::outcome(cmd.output().unwrap()).0, 0);
    assert!(
        fs::read_to_string(fine.join("envhook.1"))
            .unwrap()
            .contains(".TH ENVHOOK 1")
    );
}

/// The output's directory swapped for a link while `man --dir` and
/// `audit --output` write (#31): whatever the interleaving, no temporary
/// file is left behind in either directory (it is created, renamed and
/// removed relative to the one directory opened).
#[test]
fn outputs_leave_no_temporary_files_when_their_directory_is_swapped() {
    let sb = Sandbox::new();
    let out = sb.path("out");
    let real = sb.path("out.real");
    let elsewhere = sb.path("elsewhere");
    fs::create_dir_all(&out).unwrap();
    fs::create_dir_all(&elsewhere).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (out, real, elsewhere, stop) =
            (out.clone(), real.clone(), elsewhere.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if fs::rename(&out, &real).is_ok() {
                    let _ = std::os::unix::fs::symlink(&elsewhere, &out);
                    std::thread::sleep(std::time::Duration::from_micros(200));
                    let _ = fs::remove_file(&out);
                    let _ = fs::rename(&real, &out);
                }
                std::thread::sleep(std::time::Duration::from_micros(300));
            }
        })
    };
    for i in 0..30 {
        let mut cmd = sb.envhook_std();
        if i % 2 == 0 {
            cmd.args(["man", "--dir"]).arg(&out);
        } else {
            cmd.args(["audit", "--output"])
                .arg(out.join("envhook.prom"));
        }
        let _ = cmd.output().unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    for dir in [&out, &elsewhere] {
        let left: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with(".envhook"))
            .collect();
        assert!(left.is_empty(), "{}: {left:?}", dir.display());
    }
}
