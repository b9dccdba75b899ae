//! `packaging/monitoring/`: the Prometheus alerting rules pass `promtool
//! check rules` and their unit tests (`promtool test rules`), whose input is
//! a real audit's output; that output is made again here, from the same
//! installation, so the sample cannot drift from what envhook writes. The
//! Grafana dashboard's queries parse as PromQL and name only metrics envhook
//! writes.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

fn monitoring() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/monitoring")
}

fn promtool(args: &[&str], dir: &Path) -> String {
    let out = Command::new("promtool")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("promtool (scripts/test installs Debian's prometheus)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "promtool {args:?}:\n{text}");
    text
}

#[test]
fn alerting_rules_pass_promtool_check_and_their_unit_tests() {
    let dir = monitoring();
    let check = promtool(&["check", "rules", "envhook.rules.yml"], &dir);
    assert!(check.contains("SUCCESS: 5 rules found"), "{check}");
    let test = promtool(&["test", "rules", "envhook.rules.test.yml"], &dir);
    assert!(test.contains("SUCCESS"), "{test}");
}

/// The root the sample's prefixes are written under, for the demo's
/// directory.
const SAMPLE_ROOT: &str = "/home/alice";

/// The installation the sample was taken from: the demo, with `torch`
/// stale, `wheels-copy` a copy of `wheels` with its hooks, `broken` with a
/// truncated cuDNN record and `halfgone` with cuDNN's files deleted. Its
/// audit, as the textfile collector would read it.
fn real_audit(dir: &Path) -> String {
    let ok = |cmd: &mut Command, what: &str| {
        let out = cmd.output().unwrap();
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    ok(
        Command::new(env!("CARGO_BIN_EXE_envhook"))
            .arg("demo")
            .arg(dir),
        "the demo",
    );
    let envs = dir.join("miniconda3/envs");
    let envhook = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_envhook"));
        c.env_clear()
            .env("HOME", dir.join("home"))
            .env("PATH", "/usr/bin:/bin");
        c
    };
    for env in ["torch", "wheels"] {
        ok(
            // Hooks the user chose to write (these environments need none).
            envhook()
                .args(["install", "--always", "-p"])
                .arg(envs.join(env)),
            "install",
        );
    }
    // A transaction after the install: a package's record newer than the
    // hooks.
    let record = envs.join("torch/conda-meta/zlib-1.3.1-h4ab18f5_1.json");
    fs::write(
        &record,
        r#"{"name": "zlib", "version": "1.3.1", "build": "h4ab18f5_1"}"#,
    )
    .unwrap();
    for changed in [record, envs.join("torch/conda-meta")] {
        fs::File::open(changed)
            .unwrap()
            .set_modified(SystemTime::now() + Duration::from_secs(60))
            .unwrap();
    }
    for (from, to) in [
        ("wheels", "wheels-copy"),
        ("paddle", "broken"),
        ("paddle", "halfgone"),
    ] {
        ok(
            Command::new("cp")
                .arg("-a")
                .arg(envs.join(from))
                .arg(envs.join(to)),
            "cp -a",
        );
    }
    let record = fs::read_dir(envs.join("broken/conda-meta"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("cudnn-")
        })
        .unwrap();
    let text = fs::read(&record).unwrap();
    fs::write(&record, &text[..100]).unwrap();
    for lib in fs::read_dir(envs.join("halfgone/lib")).unwrap() {
        let lib = lib.unwrap().path();
        if lib
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("libcudnn")
        {
            fs::remove_file(lib).unwrap();
        }
    }
    let list = dir.join("home/.conda/environments.txt");
    let mut txt = fs::read_to_string(&list).unwrap();
    for env in ["wheels-copy", "broken", "halfgone"] {
        txt.push_str(&format!("{}\n", envs.join(env).display()));
    }
    fs::write(&list, txt).unwrap();
    let out = envhook()
        .args(["audit", "--format", "prometheus"])
        .args(["--driver-version", "470.82.01", "--gpu", "A100"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "findings: exit 1");
    String::from_utf8(out.stdout)
        .unwrap()
        .replace(&dir.display().to_string(), SAMPLE_ROOT)
}

/// `name{labels}` -> value, for every sample line.
fn samples(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').unwrap();
            (series.to_string(), value.to_string())
        })
        .collect()
}

/// The sample's input series for gpu-node-1, without the labels the scrape
/// adds: `name{labels}` -> the first value.
fn sample_series() -> BTreeMap<String, String> {
    let text = fs::read_to_string(monitoring().join("envhook.rules.test.yml")).unwrap();
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let mut out = BTreeMap::new();
    for s in doc["tests"][0]["input_series"].as_sequence().unwrap() {
        let series = s["series"].as_str().unwrap();
        if !series.contains("instance=\"gpu-node-1:9100\"") {
            continue;
        }
        let series = series
            .replace(",instance=\"gpu-node-1:9100\",job=\"node\"", "")
            .replace("{instance=\"gpu-node-1:9100\",job=\"node\"}", "");
        let values = s["values"].as_str().unwrap();
        let first = values.split(['x', ' ', '+']).next().unwrap().to_string();
        out.insert(series, first);
    }
    out
}

#[test]
fn the_rules_test_input_is_a_real_audits_output() {
    let tmp = tempfile::tempdir().unwrap();
    let real = samples(&real_audit(&tmp.path().join("demo")));
    let sample = sample_series();
    // Written by the run itself: the time and how long it took.
    let varying = [
        "envhook_audit_timestamp_seconds",
        "envhook_audit_duration_seconds",
    ];
    let keep = |s: &&String| !varying.iter().any(|v| s.starts_with(v));
    let real_names: BTreeSet<&String> = real.keys().filter(keep).collect();
    let sample_names: BTreeSet<&String> = sample.keys().filter(keep).collect();
    assert_eq!(
        sample_names
            .symmetric_difference(&real_names)
            .collect::<Vec<_>>(),
        Vec::<&&String>::new(),
        "the sample's series and a real audit's differ"
    );
    for name in sample_names {
        let (want, got) = (&real[name], &sample[name]);
        assert_eq!(
            want.parse::<f64>().unwrap(),
            got.parse::<f64>().unwrap(),
            "{name}"
        );
    }
    assert!(sample.contains_key("envhook_audit_duration_seconds"));
}

/// Every query of the dashboard is PromQL promtool accepts (as recording
/// rules, with the `$instance` variable at its "All" value), and names only
/// metrics envhook writes.
#[test]
fn dashboard_queries_parse_and_name_envhooks_metrics() {
    let text = fs::read_to_string(monitoring().join("envhook-dashboard.json")).unwrap();
    let dash: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut exprs = Vec::new();
    let mut ids = BTreeSet::new();
    for panel in dash["panels"].as_array().unwrap() {
        assert!(
            ids.insert(panel["id"].as_u64().unwrap()),
            "panel ids are unique"
        );
        assert!(panel["gridPos"]["w"].as_u64().is_some());
        assert!(!panel["description"].as_str().unwrap().is_empty());
        for t in panel["targets"].as_array().unwrap() {
            exprs.push(t["expr"].as_str().unwrap().replace("$instance", ".*"));
        }
    }
    let variable = dash["templating"]["list"][0]["definition"]
        .as_str()
        .unwrap();
    assert_eq!(
        variable,
        "label_values(envhook_audit_environments, instance)"
    );
    assert!(exprs.len() >= 9, "{exprs:?}");

    let metrics = envhook_metric_names();
    for e in &exprs {
        for name in e
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with("envhook_"))
        {
            assert!(
                metrics.contains(name),
                "{name} in {e:?} is not a metric envhook writes"
            );
        }
    }
    let mut rules = String::from("groups:\n  - name: dashboard\n    rules:\n");
    for (i, e) in exprs.iter().enumerate() {
        rules.push_str(&format!(
            "      - record: dashboard:query{i}\n        expr: {}\n",
            serde_json::to_string(e).unwrap()
        ));
    }
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("dashboard.rules.yml"), rules).unwrap();
    promtool(&["check", "rules", "dashboard.rules.yml"], tmp.path());
}

/// The metric names in the `# TYPE` lines of envhook's Prometheus output.
fn envhook_metric_names() -> BTreeSet<String> {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("home")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_envhook"))
        .args(["audit", "--format", "prometheus"])
        .env_clear()
        .env("HOME", tmp.path().join("home"))
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect()
}
