//! `envhook audit` over a fleet of environments: healthy, broken, stale,
//! foreign-hooked and unreadable ones, the JSON document's shape, exit
//! codes, and `--fix`.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use support::Sandbox;

/// A miniconda root with envs of every kind; returns the root.
fn fleet(sb: &Sandbox) -> PathBuf {
    let root = sb.path("miniconda3");
    let mut base = support::Env::new(&root);
    base.python("3.12.4");
    fs::create_dir_all(root.join("condabin")).unwrap();
    let envs = root.join("envs");
    support::pip_wheels(&envs.join("healthy"));
    support::cpu_only(&envs.join("cpu"));
    // Broken: a library the record lists is gone.
    let broken = support::cuda12_split(&envs.join("broken"));
    fs::remove_file(broken.path("targets/x86_64-linux/lib/libcudart.so.12.6.77")).unwrap();
    // Stale: hooks installed, then a package upgraded.
    let stale = support::cuda11_paddle(&envs.join("stale"));
    sb.install(&stale.prefix);
    fs::rename(
        stale.path("conda-meta/cudnn-8.9.2.26-cuda11_0.json"),
        stale.path("conda-meta/cudnn-8.9.7.29-cuda11_0.json"),
    )
    .unwrap();
    // Legacy: the blog recipe.
    let legacy = support::cuda11_paddle(&envs.join("legacy"));
    for (phase, text) in [
        (
            "activate",
            "export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH\n",
        ),
        ("deactivate", "unset LD_LIBRARY_PATH\n"),
    ] {
        let dir = legacy.path(&format!("etc/conda/{phase}.d"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("env_vars.sh"), text).unwrap();
    }
    // Unreadable: a truncated record.
    let corrupt = support::cuda11_paddle(&envs.join("corrupt"));
    fs::write(
        corrupt.path("conda-meta/cudnn-8.9.2.26-cuda11_0.json"),
        "{\"name\": \"cud",
    )
    .unwrap();
    root
}

fn audit(sb: &Sandbox, root: &Path, extra: &[&str]) -> (Value, i32, String) {
    let out = sb
        .envhook()
        .env("CONDA_ROOT", root)
        .args(["audit", "--json", "--driver-version", "560.35.05"])
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (json, out.status.code().unwrap(), stderr)
}

fn row<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["envs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row {name}"))
}

fn codes(row: &Value) -> Vec<&str> {
    row["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect()
}

#[test]
fn every_kind_of_env_gets_its_row() {
    let sb = Sandbox::new();
    let root = fleet(&sb);
    let (json, code, stderr) = audit(&sb, &root, &[]);
    assert_eq!(stderr, "", "no progress bar when stderr is not a terminal");
    assert_eq!(code, 1, "errors in some envs");
    assert_eq!(json["schema"], "envhook.audit/2");
    let names: Vec<&str> = json["envs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec![
            "base", "broken", "corrupt", "cpu", "healthy", "legacy", "stale"
        ]
    );

    assert_eq!(row(&json, "healthy")["status"], "ok");
    assert_eq!(row(&json, "healthy")["cuda"][0]["version"], "12.1");
    assert_eq!(row(&json, "cpu")["hook"], "not-needed");

    let broken = row(&json, "broken");
    assert_eq!(broken["status"], "findings");
    assert!(
        codes(broken).contains(&"broken-install"),
        "{:?}",
        codes(broken)
    );

    let corrupt = row(&json, "corrupt");
    assert_eq!(corrupt["status"], "unreadable");
    assert!(
        corrupt["error"]
            .as_str()
            .unwrap()
            .contains("cudnn-8.9.2.26-cuda11_0.json")
    );

    let stale = row(&json, "stale");
    assert_eq!(stale["hook"], "stale");
    assert!(codes(stale).contains(&"stale-hook"), "{:?}", codes(stale));

    let legacy = row(&json, "legacy");
    assert_eq!(legacy["hook"], "legacy");
    assert!(
        codes(legacy).contains(&"foreign-hook"),
        "{:?}",
        codes(legacy)
    );

    let s = &json["summary"];
    assert_eq!(s["envs"], 7);
    assert_eq!(s["unreadable"], 1);
    assert_eq!(
        s["ok"].as_u64().unwrap() + s["with_findings"].as_u64().unwrap() + 1,
        7
    );
    assert!(s["errors"].as_u64().unwrap() >= 1);
    // The driver is detected once and reported at the top.
    assert_eq!(json["driver"]["version"], "560.35.05");
}

#[test]
fn json_rows_have_the_documented_shape() {
    let sb = Sandbox::new();
    let root = fleet(&sb);
    let (json, _, _) = audit(&sb, &root, &[]);
    let mut top: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    top.sort();
    assert_eq!(
        top,
        vec![
            "driver",
            "envs",
            "matrix_version",
            "schema",
            "stale",
            "summary"
        ]
    );
    for r in json["envs"].as_array().unwrap() {
        let mut keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(
            keys,
            vec![
                "cuda",
                "cudnn",
                "error",
                "findings",
                "fixed",
                "frameworks",
                "hook",
                "kind",
                "name",
                "prefix",
                "status"
            ]
        );
        assert!(["ok", "findings", "unreadable"].contains(&r["status"].as_str().unwrap()));
        assert!(
            [
                "none",
                "current",
                "stale",
                "foreign",
                "legacy",
                "not-needed"
            ]
            .contains(&r["hook"].as_str().unwrap())
        );
    }
    let mut summary: Vec<&str> = json["summary"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    summary.sort();
    assert_eq!(
        summary,
        vec![
            "envs",
            "errors",
            "fixed",
            "ok",
            "unreadable",
            "warnings",
            "with_findings"
        ]
    );
}

#[test]
fn audit_writes_nothing_and_fix_installs_and_refreshes() {
    let sb = Sandbox::new();
    let root = fleet(&sb);
    let before = support::snapshot(&root);
    audit(&sb, &root, &[]);
    assert_eq!(
        support::snapshot(&root),
        before,
        "audit without --fix writes nothing"
    );

    let (json, _, _) = audit(&sb, &root, &["--fix"]);
    assert_eq!(row(&json, "stale")["hook"], "current");
    assert!(!row(&json, "stale")["fixed"].as_array().unwrap().is_empty());
    // Every library of the pip environment resolves through its wheels'
    // RPATHs: it needs no hook, and --fix writes none (#30).
    assert_eq!(row(&json, "healthy")["hook"], "not-needed");
    assert!(
        !root
            .join("envs/healthy/etc/conda/activate.d/envhook.sh")
            .exists()
    );
    // CPU envs and unreadable ones are left alone.
    assert!(!root.join("envs/cpu/etc/conda/activate.d").exists());
    assert!(row(&json, "cpu")["fixed"].as_array().unwrap().is_empty());
    // The hand-written hook stays, and is still reported; --fix does not
    // take it over (that is install --replace-handwritten's decision), and
    // writes no hooks beside it.
    assert!(
        root.join("envs/legacy/etc/conda/activate.d/env_vars.sh")
            .exists()
    );
    assert!(
        !root
            .join("envs/legacy/etc/conda/activate.d/envhook.sh")
            .exists()
    );
    assert!(codes(row(&json, "legacy")).contains(&"foreign-hook"));
    // A broken install is not papered over with hooks either.
    assert!(row(&json, "broken")["fixed"].as_array().unwrap().is_empty());
    assert_eq!(json["summary"]["fixed"].as_u64().unwrap(), 1, "stale");
    // A second --fix has nothing to do.
    let (json, _, _) = audit(&sb, &root, &["--fix"]);
    assert_eq!(json["summary"]["fixed"], 0);
}

#[test]
fn human_table_and_summary() {
    let sb = Sandbox::new();
    let root = fleet(&sb);
    let out = sb
        .envhook()
        .env("CONDA_ROOT", &root)
        .args(["audit", "--driver-version", "560.35.05"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains('\u{1b}'),
        "no colour when stdout is not a terminal"
    );
    assert!(text.starts_with("ENV "), "{text}");
    assert!(
        text.contains("unreadable: could not parse conda-meta record"),
        "{text}"
    );
    assert!(
        text.trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("7 environments: "),
        "{text}"
    );
    // CLICOLOR_FORCE turns colour on even in a pipe; NO_COLOR wins over nothing else.
    let out = sb
        .envhook()
        .env("CONDA_ROOT", &root)
        .env("CLICOLOR_FORCE", "1")
        .args(["audit", "--driver-version", "560.35.05"])
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().contains('\u{1b}'));
    let out = sb
        .envhook()
        .env("CONDA_ROOT", &root)
        .env("NO_COLOR", "1")
        .args(["audit", "--driver-version", "560.35.05"])
        .output()
        .unwrap();
    assert!(!String::from_utf8(out.stdout).unwrap().contains('\u{1b}'));
}

#[test]
fn healthy_fleet_exits_zero() {
    let sb = Sandbox::new();
    let root = sb.path("mm");
    support::Env::new(&root);
    support::pip_wheels(&root.join("envs/a"));
    support::cpu_only(&root.join("envs/b"));
    let (json, code, _) = audit(&sb, &root, &[]);
    assert_eq!(code, 0, "{:#}", json["envs"]);
    assert_eq!(json["summary"]["envs"], 3);
}

/// Nothing found (a root cron job with root's HOME): the table, the JSON
/// and the Prometheus output say where discovery looked and how to point
/// it elsewhere, never an empty table alone (#30).
#[test]
fn no_environments_found_says_where_it_looked() {
    let sb = Sandbox::new();
    let out = sb.envhook().arg("audit").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("no environments found\n"), "{text}");
    assert!(text.contains("looked in: "), "{text}");
    assert!(text.contains("--envs-dir DIR"), "{text}");
    assert!(!text.contains("ENV  CUDA"), "no empty table: {text}");
    let out = sb.envhook().args(["audit", "--json"]).output().unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let looked = json["nothing_found"]["looked_in"].as_array().unwrap();
    assert!(
        looked
            .iter()
            .any(|l| l.as_str().unwrap().contains(".conda/envs")),
        "{json:#}"
    );
    let out = sb
        .envhook()
        .args(["audit", "--format", "prometheus"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("envhook_audit_environments 0\n# envhook: no environments found"),
        "{text}"
    );
    // With environments, none of it.
    let root = fleet(&sb);
    let (json, _, _) = audit(&sb, &root, &[]);
    assert!(json.get("nothing_found").is_none(), "{json:#}");
}
