//! Man pages (#14): one per subcommand plus envhook(1), each with the
//! sections a user looks for, and lint-free in mandoc (the real formatter).

use crate::support;

use std::process::Command;

use support::Sandbox;

const SUBCOMMANDS: &[&str] = &[
    "show",
    "envs",
    "install",
    "uninstall",
    "check",
    "audit",
    "export",
    "run",
    "completions",
    "man",
    "explain",
    "demo",
];

#[test]
fn man_dir_writes_every_page_and_each_lints_clean() {
    let sb = Sandbox::new();
    // A directory that does not exist yet, as on a fresh HOME.
    let dir = sb.path("home/.local/share/man/man1");
    let out = sb
        .envhook()
        .args(["man", "--dir", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let listed = support::stdout_ok(out);
    let mut want = vec!["envhook.1".to_string()];
    want.extend(SUBCOMMANDS.iter().map(|s| format!("envhook-{s}.1")));
    for page in &want {
        let path = dir.join(page);
        assert!(listed.contains(&path.display().to_string()), "{listed}");
        let text = std::fs::read_to_string(&path).unwrap();
        for section in [
            "NAME",
            "SYNOPSIS",
            "EXIT STATUS",
            "ENVIRONMENT",
            "EXAMPLES",
            "SEE ALSO",
        ] {
            assert!(
                text.contains(&format!(".SH \"{section}\""))
                    || text.contains(&format!(".SH {section}")),
                "{page}: no {section}"
            );
        }
        let lint = Command::new("mandoc")
            .args(["-T", "lint", "-W", "warning"])
            .arg(&path)
            .output()
            .expect("mandoc (scripts/test installs it)");
        assert!(
            lint.status.success() && lint.stdout.is_empty(),
            "{page}: {}{}",
            String::from_utf8_lossy(&lint.stdout),
            String::from_utf8_lossy(&lint.stderr)
        );
    }
    // Every page the main page refers to exists.
    let main = std::fs::read_to_string(dir.join("envhook.1")).unwrap();
    for sub in SUBCOMMANDS {
        assert!(main.contains(&format!("envhook\\-{sub}(1)")), "{sub}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), want.len());
}

/// A directory that cannot be made is an error that names it once (#40
/// item 8: the error of `fs_err`, which names the path, was wrapped in one
/// that named it again).
#[test]
fn man_dir_that_cannot_be_made_is_named_once() {
    let sb = Sandbox::new();
    let file = sb.path("a-file");
    std::fs::write(&file, "").unwrap();
    for dir in [
        std::path::PathBuf::from("/proc/envhook-no-such-dir"),
        file.join("man1"),
    ] {
        let dir = dir.to_str().unwrap();
        let (code, out, err) = sb.run(&["man", "--dir", dir]);
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.starts_with(&format!("error: could not write {dir}: ")),
            "{err}"
        );
        assert_eq!(err.matches(dir).count(), 1, "{err}");
    }
}

#[test]
fn pages_document_options_files_and_every_variable() {
    let sb = Sandbox::new();
    let page = |name: &str| {
        let out = sb.envhook().args(["man", name]).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let rendered = Command::new("mandoc")
            .args(["-T", "ascii"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(&out.stdout)?;
                child.wait_with_output()
            })
            .unwrap();
        // Drop the backspace overstrikes of bold and underline.
        let mut text = String::new();
        for c in String::from_utf8(rendered.stdout).unwrap().chars() {
            if c == '\u{8}' {
                text.pop();
            } else {
                text.push(c);
            }
        }
        text
    };
    let install = page("install");
    for needle in [
        "--dry-run",
        "--replace-handwritten",
        "etc/conda/activate.d/envhook",
        "conda-meta/.envhook.lock",
        "envhook install -n paddle",
        "ENVHOOK_SYSROOT",
        "CONDA_PREFIX",
    ] {
        assert!(
            install.contains(needle),
            "install page lacks {needle}:\n{install}"
        );
    }
    let check = page("check");
    assert!(check.contains("--driver-version"), "{check}");
    assert!(check.contains("CONDA_OVERRIDE_CUDA"), "{check}");
    assert!(
        !check.contains("conda-meta/.envhook.lock"),
        "check writes nothing"
    );
    // `man` with an unknown page is an error naming the pages.
    let out = sb.envhook().args(["man", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: no man page for 'nope'\n  hint: pages: envhook, show,"),
        "{err}"
    );
}
