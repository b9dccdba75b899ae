//! Environments copied without conda (#31): `cp -a ENV COPY`, rsync or a
//! restored backup copy the hooks byte for byte, the source's prefix in
//! them, and nothing rewrites it. Activating the copy must use the copy's
//! own libraries (its link directory holds relative links, valid where it
//! lies) and say it was moved, never put the source's on the path; in
//! every shell, in every sequence, also when the source is gone, and
//! without mistaking another spelling of the source, or another
//! environment, for a copy.

use crate::harness;
use crate::support;

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

use harness::*;
use support::Sandbox;

/// `cp -a`, the real one.
fn cp_a(from: &Path, to: &Path) -> Hooked {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    let out = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Hooked {
        prefix: to.to_path_buf(),
        dir: to.join("lib/envhook/cuda").display().to_string(),
    }
}

fn ld_after(r: &Run, step: usize) -> Option<Vec<u8>> {
    r.dumps[step]
        .get(OsStr::new("LD_LIBRARY_PATH"))
        .map(|v| v.as_bytes().to_vec())
}

fn moved(copy: &Path, source: &Path) -> String {
    format!(
        "envhook: {} was moved or copied from {} (a conda clone or rename, conda-pack, or a copy of \
         its directory) since its CUDA hooks were written; refresh them with: envhook install -p {}\n",
        copy.display(),
        source.display(),
        shell_quote(&copy.display().to_string())
    )
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The copy's link directory resolves inside the copy, every entry.
fn resolves_inside(copy: &Hooked) {
    let dir = Path::new(&copy.dir);
    let mut n = 0;
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let real = fs::canonicalize(&path).unwrap();
        let root = fs::canonicalize(&copy.prefix).unwrap();
        assert!(
            real.starts_with(&root),
            "{} -> {}",
            path.display(),
            real.display()
        );
        n += 1;
    }
    assert!(n > 0, "an empty link directory");
}

/// Every shell, every sequence conda, mamba and rattler produce, every
/// starting value: the copy's directory and nothing of the source's, the
/// value restored exactly; with the copy first and with the source first.
#[test]
fn a_copy_made_without_conda_uses_its_own_libraries() {
    let sb = Sandbox::new();
    let source = install(&sb, &sb.path("envs/rel"));
    let copy = cp_a(&source.prefix, &sb.path("envs/relcopy"));
    resolves_inside(&copy);
    let mut failures = Vec::new();
    for sh in SHELLS.into_iter().chain([Sh::TcshNoglob]) {
        for (state_name, initial) in initial_states() {
            for (seq_name, steps) in SEQUENCES {
                for (a, b, order) in [
                    (&copy, &source, "copy first"),
                    (&source, &copy, "source first"),
                ] {
                    let r = run_with(sh, a, b, steps, &initial, &[("ENVHOOK_QUIET", "1")]);
                    for v in check(a, b, steps, &initial, &r) {
                        failures.push(format!("{sh:?} / {order} / {state_name} / {seq_name}: {v}"));
                    }
                    // check() holds the first element; nothing of the
                    // source's may follow it while only the copy is active.
                    if std::ptr::eq(a, &copy) && steps.first() == Some(&Step::ActA) {
                        let v = ld_after(&r, 1).unwrap_or_default();
                        if v.windows(source.dir.len())
                            .any(|w| w == source.dir.as_bytes())
                        {
                            failures.push(format!(
                                "{sh:?} / {state_name} / {seq_name}: the source's directory in {}",
                                String::from_utf8_lossy(&v)
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Activation says the copy was moved, with the command that refreshes
/// it, quoted for pasting, in every shell; `check` says the same.
#[test]
fn a_copy_says_it_was_moved() {
    let sb = Sandbox::new();
    let source = install(&sb, &sb.path("envs/rel"));
    let copy = cp_a(&source.prefix, &sb.path("envs/it's a copy"));
    for sh in SHELLS {
        let r = run(sh, &copy, &source, &[Step::ActA, Step::DeactA], &None);
        assert_eq!(r.stderr, moved(&copy.prefix, &source.prefix), "{sh:?}");
        assert_eq!(
            ld_after(&r, 1).as_deref(),
            Some(copy.dir.as_bytes()),
            "{sh:?}"
        );
        assert_eq!(ld_after(&r, 2), None, "{sh:?}");
    }
    let out = sb
        .envhook()
        .args(["check", "--json", "-p"])
        .arg(&copy.prefix)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["hook"]["state"], "moved", "{json}");
    let finding = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "moved-hooks")
        .unwrap();
    let want = moved(&copy.prefix, &source.prefix);
    assert_eq!(
        finding["message"].as_str().unwrap(),
        want.trim_start_matches("envhook: ").trim_end()
    );
    // The refresh it names makes the copy current, in place, silently.
    sb.envhook()
        .args(["install", "-p"])
        .arg(&copy.prefix)
        .assert()
        .code(0);
    for sh in SHELLS {
        let r = run(sh, &copy, &source, &[Step::ActA], &None);
        assert_eq!(r.stderr, "", "{sh:?}");
        assert_eq!(
            ld_after(&r, 1).as_deref(),
            Some(copy.dir.as_bytes()),
            "{sh:?}"
        );
    }
}

/// A backup restored elsewhere, the source gone: the copy still uses its
/// own libraries.
#[test]
fn a_copy_whose_source_is_gone() {
    let sb = Sandbox::new();
    let source = install(&sb, &sb.path("envs/rel"));
    let copy = cp_a(&source.prefix, &sb.path("restored/rel"));
    fs::remove_dir_all(&source.prefix).unwrap();
    resolves_inside(&copy);
    for sh in SHELLS.into_iter().chain([Sh::TcshNoglob]) {
        for (state_name, initial) in initial_states() {
            let steps = &[Step::ActA, Step::ActA, Step::DeactA];
            let r = run_with(sh, &copy, &copy, steps, &initial, &[("ENVHOOK_QUIET", "1")]);
            let bad = check(&copy, &copy, steps, &initial, &r);
            assert!(bad.is_empty(), "{sh:?} / {state_name}: {bad:#?}");
        }
    }
}

/// CONDA_PREFIX spelled through a symbolic link to the environment is the
/// same environment: no warning, the hooks' own directories, state under
/// the hooks' own key. And the hooks sourced by hand (no CONDA_PREFIX)
/// behave as they always did.
#[test]
fn another_spelling_of_the_prefix_is_not_a_copy() {
    let sb = Sandbox::new();
    let source = install(&sb, &sb.path("envs/rel"));
    let link = sb.path("link-to-rel");
    std::os::unix::fs::symlink(&source.prefix, &link).unwrap();
    let through_link = Hooked {
        prefix: link.clone(),
        dir: source.dir.clone(),
    };
    for sh in SHELLS {
        // The hook files are the source's, reached through the link;
        // CONDA_PREFIX is the link.
        let r = run(
            sh,
            &through_link,
            &source,
            &[Step::ActA, Step::DeactA],
            &Some(b"/x".to_vec()),
        );
        assert_eq!(r.stderr, "", "{sh:?}");
        assert_eq!(
            ld_after(&r, 1).as_deref(),
            Some(format!("{}:/x", source.dir).as_bytes()),
            "{sh:?}"
        );
        assert_eq!(ld_after(&r, 2).as_deref(), Some(&b"/x"[..]), "{sh:?}");
        let r = run_as(
            sh,
            &source,
            &source,
            &[Step::ActA, Step::ActA, Step::DeactA],
            &None,
            &[],
            Conda::NoPrefix,
        );
        let bad = check(
            &source,
            &source,
            &[Step::ActA, Step::ActA, Step::DeactA],
            &None,
            &r,
        );
        assert!(bad.is_empty(), "{sh:?} by hand: {bad:#?}");
    }
}

/// Another environment with hooks of its own as CONDA_PREFIX (rattler's
/// deactivation sets the previous environment's before running
/// deactivate.d) is not taken for a copy: its link directory is another.
#[test]
fn another_hooked_environment_is_not_a_copy() {
    let sb = Sandbox::new();
    let a = install(&sb, &sb.path("envs/a"));
    let b = install(&sb, &sb.path("envs/b"));
    for sh in SHELLS {
        let r = run_hooks_with_prefix(sh, &a, &b.prefix);
        assert_eq!(r.status, Some(0), "{sh:?}");
        assert_eq!(r.stderr, "", "{sh:?}");
        assert_eq!(ld_after(&r, 1).as_deref(), Some(a.dir.as_bytes()), "{sh:?}");
        assert_eq!(ld_after(&r, 2), None, "{sh:?}");
    }
}

/// `a`'s hooks, activated and then deactivated, with CONDA_PREFIX set to
/// `conda_prefix` for both (the harness always sets a hook's own prefix).
fn run_hooks_with_prefix(sh: Sh, a: &Hooked, conda_prefix: &Path) -> Run {
    let script = format!(
        "{dump0}{set}{act}{dump1}{deact}{unset}{dump2}",
        dump0 = sh.dump(0),
        set = sh.set_conda_prefix("T_PREFIX"),
        act = sh.source("T_ACT"),
        dump1 = sh.dump(1),
        deact = sh.source("T_DEACT"),
        unset = sh.unset_conda_prefix(),
        dump2 = sh.dump(2),
    );
    let dump_dir = tempfile::tempdir().unwrap();
    let out = sh
        .command(&script)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap())
        .env("HOME", dump_dir.path())
        .env("LANG", "C.UTF-8")
        .env("T_DUMP", dump_dir.path())
        .env("T_PREFIX", conda_prefix)
        .env("T_ACT", a.hook("activate", sh.ext()))
        .env("T_DEACT", a.hook("deactivate", sh.ext()))
        .output()
        .unwrap();
    Run {
        dumps: (0..3)
            .map(|n| parse_env(&fs::read(dump_dir.path().join(n.to_string())).unwrap_or_default()))
            .collect(),
        vars: String::new(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code(),
    }
}

/// tcsh cannot write a prefix holding `#` into its string edits: a copy
/// there gets nothing applied and the warning, never the source's
/// directory; the other shells use the copy's.
#[test]
fn a_copy_csh_cannot_edit_for_is_left_alone_in_tcsh() {
    let sb = Sandbox::new();
    let source = install(&sb, &sb.path("envs/rel"));
    let copy = cp_a(&source.prefix, &sb.path("envs/rel#2"));
    for sh in SHELLS {
        let r = run(
            sh,
            &copy,
            &source,
            &[Step::ActA, Step::DeactA],
            &Some(b"/x".to_vec()),
        );
        assert_eq!(r.status, Some(0), "{sh:?}");
        assert_eq!(r.stderr, moved(&copy.prefix, &source.prefix), "{sh:?}");
        let want = if sh.is_csh() {
            b"/x".to_vec()
        } else {
            format!("{}:/x", copy.dir).into_bytes()
        };
        assert_eq!(ld_after(&r, 1), Some(want), "{sh:?}");
        assert_eq!(ld_after(&r, 2).as_deref(), Some(&b"/x"[..]), "{sh:?}");
    }
}
