//! Environments that move (#12): `conda create --clone`, `conda rename` and
//! conda-pack + `conda-unpack` copy the hooks and rewrite the old prefix
//! inside them. A copy is a different environment from its source, also
//! when stacked on it; activation, `check` and `audit` say the same thing
//! about it; and an unrelated conda transaction gets the same verdict from
//! all three.

use crate::harness;
use crate::support;

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use harness::*;
use support::Sandbox;

/// What conda does to the untracked files of an environment it clones or
/// renames (and conda-unpack to a packed one): copy the tree, symbolic
/// links as links, and rewrite the old prefix inside every file that holds
/// it (text files; ours are).
fn conda_copy(from: &Path, to: &Path) {
    let old = from.as_os_str().as_bytes();
    let new = to.as_os_str().as_bytes();
    for (path, meta) in support::walk(from) {
        let target = to.join(path.strip_prefix(from).unwrap());
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&path).unwrap(), &target).unwrap();
        } else if meta.is_dir() {
            fs::create_dir_all(&target).unwrap();
        } else {
            let bytes = fs::read(&path).unwrap();
            fs::write(&target, replace(&bytes, old, new)).unwrap();
        }
    }
}

fn replace(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

fn copied(sb: &Sandbox, source: &Hooked, name: &str) -> Hooked {
    let prefix = sb.path(&format!("envs/{name}"));
    fs::create_dir_all(&prefix).unwrap();
    conda_copy(&source.prefix, &prefix);
    Hooked {
        dir: prefix.join("lib/envhook/cuda").display().to_string(),
        prefix,
    }
}

/// The reported case: `conda activate rel; conda activate --stack relclone`
/// left rel's directory on the path. Every sequence, every starting value,
/// every shell, with the copy as the second environment.
#[test]
fn a_copy_stacked_on_its_source_is_a_different_environment() {
    let sb = Sandbox::new();
    let source = install(&sb, &sb.path("envs/rel"));
    let clone = copied(&sb, &source, "relclone");
    let mut failures = Vec::new();
    for sh in SHELLS.into_iter().chain([Sh::TcshNoglob]) {
        for (state_name, initial) in initial_states() {
            for (seq_name, steps) in SEQUENCES {
                // The copy warns on activation (checked below); here the
                // values are what matters.
                let r = run_with(
                    sh,
                    &source,
                    &clone,
                    steps,
                    &initial,
                    &[("ENVHOOK_QUIET", "1")],
                );
                for v in check(&source, &clone, steps, &initial, &r) {
                    failures.push(format!("{sh:?} / {state_name} / {seq_name}: {v}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // And the other way round: the source stacked on its copy.
    let steps = STACK;
    let initial = Some(b"/sys/a".to_vec());
    let r = run_with(
        Sh::Bash,
        &clone,
        &source,
        steps,
        &initial,
        &[("ENVHOOK_QUIET", "1")],
    );
    let bad = check(&clone, &source, steps, &initial, &r);
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Activation, `check` and `audit` give one message for a copy.
#[test]
fn a_copy_is_reported_the_same_by_activation_check_and_audit() {
    let sb = Sandbox::new();
    let source = install(&sb, &sb.path("envs/rel"));
    let clone = copied(&sb, &source, "relclone");
    let want = format!(
        "{} was moved or copied from {} (a conda clone or rename, conda-pack, or a copy of its directory) since \
         its CUDA hooks were written; refresh them with: envhook install -p '{}'",
        clone.prefix.display(),
        source.prefix.display(),
        clone.prefix.display()
    );
    for sh in SHELLS {
        let r = run(sh, &clone, &source, &[Step::ActA], &None);
        assert_eq!(r.stderr, format!("envhook: {want}\n"), "{sh:?}");
    }
    let (json, code) = support::check_json(&sb, &clone.prefix, &[]);
    assert_eq!(json["hook"]["state"], "moved", "{json}");
    assert_eq!(
        support::finding(&json, "moved-hooks")["message"],
        want.as_str()
    );
    assert_eq!(code, 1);
    // audit: the row's hook status.
    let out = sb
        .envhook()
        .args(["audit", "--json", "--envs-dir"])
        .arg(sb.path("envs"))
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = json["envs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["prefix"] == clone.prefix.to_str().unwrap())
        .unwrap();
    assert_eq!(row["hook"], "moved", "{row}");
    // The source is unaffected, and a refresh makes the copy current.
    let (json, _) = support::check_json(&sb, &source.prefix, &[]);
    assert_eq!(json["hook"]["state"], "current", "{json}");
    sb.envhook()
        .args(["install", "-p"])
        .arg(&clone.prefix)
        .assert()
        .code(0);
    let (json, _) = support::check_json(&sb, &clone.prefix, &[]);
    assert_eq!(json["hook"]["state"], "current", "{json}");
    for sh in SHELLS {
        assert_eq!(
            run(sh, &clone, &source, &[Step::ActA], &None).stderr,
            "",
            "{sh:?}"
        );
    }
}

/// Two copies whose keys coincide (same prefix length), stacked: the
/// second leaves LD_LIBRARY_PATH as it is and says why, and the whole
/// sequence still restores the starting value exactly.
#[test]
fn copies_with_coinciding_keys_never_corrupt_each_other() {
    let sb = Sandbox::new();
    let source = install(&sb, &sb.path("envs/rel"));
    let c1 = copied(&sb, &source, "copy1");
    let c2 = copied(&sb, &source, "copy2");
    let steps = STACK;
    for sh in SHELLS {
        for initial in [None, Some(b"/sys/a".to_vec())] {
            let r = run_with(sh, &c1, &c2, steps, &initial, &[]);
            assert_eq!(r.status, Some(0), "{sh:?}");
            assert!(
                r.stderr.contains("LD_LIBRARY_PATH is left as it is"),
                "{sh:?}: {}",
                r.stderr
            );
            let after_b = r.dumps[2].get(std::ffi::OsStr::new("LD_LIBRARY_PATH"));
            assert!(
                after_b.is_some_and(|v| v.as_bytes().starts_with(c1.dir.as_bytes())),
                "{sh:?}: copy1's value stays while copy2 is stacked"
            );
            let last = r
                .dumps
                .last()
                .unwrap()
                .get(std::ffi::OsStr::new("LD_LIBRARY_PATH"));
            assert_eq!(last.map(|v| v.as_bytes().to_vec()), initial, "{sh:?}");
        }
    }
}

/// A conda transaction that changed nothing of the hooks' (history newer
/// than the hooks): the hooks warn, and check and audit agree.
#[test]
fn an_unrelated_transaction_gets_one_verdict() {
    let sb = Sandbox::new();
    let h = install(&sb, &sb.path("envs/rel"));
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(20);
    for phase in ["activate", "deactivate"] {
        for ext in ["sh", "fish", "ps1", "csh"] {
            fs::File::options()
                .write(true)
                .open(h.hook(phase, ext))
                .unwrap()
                .set_modified(past)
                .unwrap();
        }
    }
    let stale = format!(
        "the packages of {p} changed since its CUDA hooks were written; refresh them with: \
         envhook install -p '{p}'",
        p = h.prefix.display()
    );
    assert_eq!(
        run(Sh::Bash, &h, &h, &[Step::ActA], &None).stderr,
        format!("envhook: {stale}\n")
    );
    let (json, _) = support::check_json(&sb, &h.prefix, &[]);
    assert_eq!(json["hook"]["state"], "stale", "{json}");
    assert_eq!(
        support::finding(&json, "stale-hook")["message"],
        stale.as_str()
    );
    // A refresh settles it for all three.
    sb.envhook()
        .args(["install", "-p"])
        .arg(&h.prefix)
        .assert()
        .code(0);
    assert_eq!(run(Sh::Bash, &h, &h, &[Step::ActA], &None).stderr, "");
    let (json, _) = support::check_json(&sb, &h.prefix, &[]);
    assert_eq!(json["hook"]["state"], "current", "{json}");
}
