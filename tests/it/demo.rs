//! `envhook demo`: the installation it lays out with the binary alone, the
//! objects it writes as `readelf` and the loader see them, and the
//! directories it refuses.

use crate::support;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use support::demo_layout::elf::{Import, SearchPath, SharedObject, write};
use support::demo_layout::tree::Tree;
use support::{Sandbox, outcome, snapshot, stdout_silent};

/// `readelf ARGS PATH`, which must say nothing on stderr (no warning).
fn readelf(args: &[&str], path: &Path) -> String {
    let out = Command::new("readelf")
        .args(args)
        .arg(path)
        .output()
        .expect("readelf is installed (binutils, with gcc)");
    stdout_silent(out, &format!("readelf {args:?} {}", path.display()))
}

/// The lines of `readelf -d` that name something (SONAME, NEEDED, RPATH,
/// RUNPATH) and the version names of `readelf -V`: what the loader acts on,
/// without the addresses, which differ between any two links.
fn linkage(path: &Path) -> Vec<String> {
    let dynamic = readelf(&["-dW"], path);
    let versions = readelf(&["-VW"], path);
    let named = dynamic.lines().filter(|l| l.contains(": [")).map(|l| {
        l.split_once(") ")
            .map_or(l, |(_, rest)| rest)
            .trim()
            .to_string()
    });
    let version_names = versions.lines().filter_map(|l| {
        let name = l
            .split("Name: ")
            .nth(1)
            .or_else(|| l.split("File: ").nth(1))?;
        Some(name.split_whitespace().next()?.to_string())
    });
    named.chain(version_names).collect()
}

/// What `readelf -d` and `-V` show of a written object is what they show
/// of the same object from `cc` and `ld`, and they warn about neither.
#[test]
fn readelf_reads_written_objects_as_cc_built_ones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.map"), "LIBA_2.0 { global: a_f; local: *; };\n").unwrap();
    std::fs::write(d.join("x.map"), "LIBX_1.0 { global: x_one; local: *; };\n").unwrap();
    let script = |m: &str| format!("-Wl,--version-script={}", d.join(m).display());
    let liba = support::cc_nostdlib(
        d,
        "liba.so.2",
        "int a_f(void) { return 1; }\n",
        &["-Wl,-soname,liba.so.2".into(), script("a.map")],
    );
    let built = support::cc_nostdlib(
        d,
        "libx.so.1",
        "extern int a_f(void);\nint x_one(void) { return a_f(); }\n",
        &[
            "-Wl,-soname,libx.so.1".into(),
            "-Wl,--enable-new-dtags".into(),
            "-Wl,-rpath,$ORIGIN/../lib".into(),
            script("x.map"),
            "-Wl,--no-as-needed".into(),
            liba.display().to_string(),
        ],
    );
    let written = d.join("written.so");
    let object = SharedObject {
        soname: "libx.so.1",
        needed: &["liba.so.2"],
        search: Some(SearchPath::Runpath("$ORIGIN/../lib")),
        defines: &["x_one"],
        version: Some("LIBX_1.0"),
        imports: &[Import {
            symbol: "a_f",
            version: "LIBA_2.0",
            file: "liba.so.2",
        }],
    };
    std::fs::write(&written, write(&object).unwrap()).unwrap();
    let want = linkage(&built);
    assert!(want.len() >= 7, "{want:?}");
    assert_eq!(linkage(&written), want);
    // Everything else readelf can show, without a warning.
    readelf(&["-aW"], &written);
}

/// The object every library file of the demo holds is the test suite's
/// cc-built fixture to readelf, and glibc's loader maps it and runs its
/// function.
#[test]
// The one test that calls foreign code: glibc's loader maps the object.
#[allow(unsafe_code)]
fn the_demo_object_is_the_fixture_and_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("libdemo.so");
    std::fs::write(&path, support::demo_layout::object().unwrap()).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/fixture.so");
    assert_eq!(linkage(&path), linkage(&fixture));
    readelf(&["-aW"], &path);
    // SAFETY: the object has no initialisers, and its one function takes
    // nothing and returns an int.
    let value = unsafe {
        let lib = libloading::Library::new(&path).unwrap();
        let f: libloading::Symbol<unsafe extern "C" fn() -> i32> =
            lib.get(b"envhook_fixture").unwrap();
        f()
    };
    assert_eq!(value, 0);
}

/// `envhook demo DIR` lays out the installation conda's way: `envs` finds
/// every environment through `home/.conda/environments.txt`; run again, it
/// replaces its own demo.
#[test]
fn the_demo_is_laid_out_and_replaced() {
    let sb = Sandbox::new();
    let dir = sb.path("demo");
    let (code, out, err) = sb.run(&["demo", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(&format!("demo installation written to {}\n", dir.display())));
    let envs = outcome(
        sb.envhook()
            .env("HOME", dir.join("home"))
            .args(["envs", "--json"])
            .output()
            .unwrap(),
    );
    for name in ["base", "paddle", "torch", "wheels", "cpu"] {
        assert!(
            envs.1.contains(&format!("\"{name}\"")),
            "{name}: {}",
            envs.1
        );
    }
    std::fs::write(dir.join("scratch"), "left by the user").unwrap();
    let (code, _, err) = sb.run(&["demo", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(!dir.join("scratch").exists());
    assert!(dir.join("miniconda3/envs/paddle/conda-meta").is_dir());
}

/// A directory that is not empty and not a demo, a file, or a link to a
/// demo: exit 2, the path named, a hint, and nothing touched.
#[test]
fn what_is_not_a_demo_is_left_alone() {
    let sb = Sandbox::new();
    let theirs = sb.path("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), "mine").unwrap();
    let file = sb.path("file");
    std::fs::write(&file, "mine").unwrap();
    let demo = sb.path("demo");
    assert_eq!(sb.run(&["demo", demo.to_str().unwrap()]).0, 0);
    let link = sb.path("link");
    std::os::unix::fs::symlink(&demo, &link).unwrap();
    let before = snapshot(sb.dir.path());
    for (target, what) in [
        (&theirs, "a directory that is not empty and no earlier demo"),
        (&file, "not a directory"),
        (&link, "a symbolic link (not followed)"),
    ] {
        let (code, out, err) = sb.run(&["demo", target.to_str().unwrap()]);
        assert_eq!(code, 2, "{}: {err}", target.display());
        assert!(out.is_empty(), "{out}");
        let want = format!(
            "error: refusing to lay out the demo in {}: it is {what}\n  hint: ",
            target.display()
        );
        assert!(err.starts_with(&want), "{err}");
    }
    assert_eq!(snapshot(sb.dir.path()), before);
}

/// Another user owns DIR's parent and swaps DIR between an empty directory
/// and a link to a directory of root's while `envhook demo DIR` runs again
/// and again (#38): whatever each run's exit, nothing is ever written
/// through the link.
#[test]
fn a_link_swapped_in_is_never_written_through() {
    let sb = Sandbox::new();
    let (roots, graves, dir) = (sb.path("roots"), sb.path("graves"), sb.path("demo"));
    fs::create_dir(&roots).unwrap();
    fs::create_dir(&graves).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = std::thread::spawn({
        let (roots, dir, stop) = (roots.clone(), dir.clone(), stop.clone());
        move || {
            // Bounded, though the runs end it far sooner.
            for i in 0..200_000 {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                // An empty directory (what a run wrote in goes to a grave)...
                let _ = fs::rename(&dir, graves.join(format!("{i}-link")));
                let _ = fs::create_dir(&dir);
                std::thread::sleep(Duration::from_micros(300));
                // ... then a link to root's.
                let _ = fs::rename(&dir, graves.join(format!("{i}-dir")));
                let _ = std::os::unix::fs::symlink(&roots, &dir);
                std::thread::sleep(Duration::from_micros(300));
            }
        }
    });
    for _ in 0..30 {
        sb.envhook().args(["demo"]).arg(&dir).output().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    let written: Vec<_> = fs::read_dir(&roots)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(written.is_empty(), "written through the link: {written:?}");
}

/// A link is refused however DIR is spelled (`L/`, `L//`, `L/.`), whether
/// it leads to an empty directory or to an earlier demo (#38): exit 2, the
/// link named, nothing touched.
#[test]
fn a_link_is_refused_however_it_is_spelled() {
    let sb = Sandbox::new();
    let empty = sb.path("empty");
    fs::create_dir(&empty).unwrap();
    let demo = sb.path("demo");
    assert_eq!(sb.run(&["demo", demo.to_str().unwrap()]).0, 0);
    for to in [&empty, &demo] {
        let link = sb.path(&format!(
            "link-to-{}",
            to.file_name().unwrap().to_str().unwrap()
        ));
        std::os::unix::fs::symlink(to, &link).unwrap();
        let before = snapshot(sb.dir.path());
        for tail in ["/", "//", "/."] {
            let spelled = format!("{}{tail}", link.display());
            let (code, out, err) = sb.run(&["demo", &spelled]);
            assert_eq!(code, 2, "{spelled}: {err}");
            assert!(out.is_empty(), "{out}");
            let want = format!(
                "error: refusing to lay out the demo in {}: it is a symbolic link (not followed)\n",
                link.display()
            );
            assert!(err.starts_with(&want), "{spelled}: {err}");
            assert_eq!(snapshot(sb.dir.path()), before, "{spelled}");
        }
    }
}

/// The `try:` lines paste as they read, whatever DIR holds (a space, a
/// quote, `$(...)`): each runs envhook with the words it shows (#38).
#[test]
fn the_try_lines_paste_as_they_read() {
    let sb = Sandbox::new();
    let dir = sb.path("it's a demo $(touch pwned)");
    let (code, out, err) = sb.run(&["demo", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // A stand-in envhook that says its HOME and its arguments, one a line.
    let fake = sb.path("bin/envhook");
    fs::write(&fake, "#!/bin/sh\nprintf '%s\\n' \"HOME=$HOME\" \"$@\"\n").unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let pasted: Vec<String> = out
        .lines()
        .skip_while(|l| *l != "try:")
        .skip(1)
        .map(|line| {
            let run = Command::new("/bin/sh")
                .args(["-c", line.trim()])
                .env_clear()
                .env("PATH", sb.path("bin"))
                .env("HOME", sb.home())
                .current_dir(sb.dir.path())
                .output()
                .unwrap();
            stdout_silent(run, line)
        })
        .collect();
    let (home, demo_home) = (sb.home(), dir.join("home"));
    let paddle = dir.join("miniconda3/envs/paddle");
    let want = [
        format!("HOME={}\nshow\n-p\n{}\n", home.display(), paddle.display()),
        format!("HOME={}\nenvs\n", demo_home.display()),
        format!("HOME={}\naudit\n", demo_home.display()),
    ];
    assert_eq!(pasted, want, "{out}");
    assert!(!sb.path("pwned").exists());
}

/// A line break in DIR would split the demo's `environments.txt` into
/// paths that do not exist: refused, the path named, nothing made (#38).
#[test]
fn a_line_break_in_the_directory_is_refused() {
    let sb = Sandbox::new();
    let dir = sb.path("two\nlines");
    let before = snapshot(sb.dir.path());
    let (code, out, err) = sb.run(&["demo", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with("error: refusing to lay out the demo in "),
        "{err}"
    );
    assert!(err.contains(dir.to_str().unwrap()), "{err}");
    assert!(err.contains("line break"), "{err}");
    assert_eq!(snapshot(sb.dir.path()), before);
}

/// A directory that cannot be made or opened is an error that names its
/// path once, as the demo's tree words it (#40 item 8: it was wrapped in an
/// error that named DIR again).
#[test]
fn an_error_names_its_path_once() {
    let sb = Sandbox::new();
    let file = sb.path("a-file");
    fs::write(&file, "").unwrap();
    let proc = Path::new("/proc/envhook-no-such-dir").to_path_buf();
    for (dir, named) in [(proc.clone(), proc), (file.join("demo"), file.clone())] {
        let (code, out, err) = sb.run(&["demo", dir.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.starts_with("error: could not lay out the demo: "),
            "{err}"
        );
        assert_eq!(err.matches(named.to_str().unwrap()).count(), 1, "{err}");
    }
}

/// Root lays the demo out in a user's directory for that user (#38):
/// everything it makes there is the directory owner's, so the user can
/// use it, and replace it with their own `envhook demo`.
#[test]
fn root_lays_the_demo_out_for_the_directorys_owner() {
    if !support::require("root", support::is_root()) {
        return;
    }
    let sb = Sandbox::new();
    let dir = sb.path("alices");
    fs::create_dir(&dir).unwrap();
    std::os::unix::fs::chown(&dir, Some(4242), Some(4243)).unwrap();
    for run in ["first", "again"] {
        let (code, _, err) = sb.run(&["demo", dir.to_str().unwrap()]);
        assert_eq!(code, 0, "{run}: {err}");
        let walked = support::walk(&dir);
        assert!(walked.len() > 100, "{run}: {}", walked.len());
        for (path, meta) in walked {
            assert_eq!(
                (meta.uid(), meta.gid()),
                (4242, 4243),
                "{run}: {}",
                path.display()
            );
        }
    }
}

/// What root gives a user is only what it made (#38): among the demo's
/// files, a file of someone else's and a hard link to a file of root's
/// (what a user racing the demo could put there) keep their owners; the
/// rest, links and directories included, change hands.
#[test]
fn root_gives_away_only_what_it_made() {
    if !support::require("root", support::is_root()) {
        return;
    }
    let sb = Sandbox::new();
    let tree = Tree::create(&sb.path("alices")).unwrap();
    tree.write("sub/ours", "made here").unwrap();
    tree.symlink("ours", "sub/link").unwrap();
    let sub = sb.path("alices/sub");
    fs::write(sub.join("theirs"), "someone else's").unwrap();
    std::os::unix::fs::chown(sub.join("theirs"), Some(5000), Some(5000)).unwrap();
    let secret = sb.path("roots-secret");
    fs::write(&secret, "root's").unwrap();
    fs::hard_link(&secret, sub.join("linked")).unwrap();
    tree.give(4242, 4243).unwrap();
    let owner = |p: &Path| {
        let m = fs::symlink_metadata(p).unwrap();
        (m.uid(), m.gid())
    };
    for given in ["alices", "alices/sub", "alices/sub/ours", "alices/sub/link"] {
        assert_eq!(owner(&sb.path(given)), (4242, 4243), "{given}");
    }
    assert_eq!(owner(&sub.join("theirs")), (5000, 5000));
    assert_eq!(owner(&secret), (0, 0));
}
