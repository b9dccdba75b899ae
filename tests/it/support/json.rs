//! The JSON documents of `show --json` and `check --json`, as the tests
//! run and read them.

use std::path::Path;

use super::Sandbox;

/// Run `envhook show --json -p PREFIX` and parse the output; returns the
/// JSON and the exit code.
pub fn show_json(sandbox: &Sandbox, prefix: &Path) -> (serde_json::Value, i32) {
    let out = sandbox
        .envhook()
        .args(["show", "--json", "-p"])
        .arg(prefix)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {stderr}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (json, out.status.code().unwrap())
}

/// `envhook check --json MACHINE... -p PREFIX`: the document and the exit
/// code.
pub fn check_json(sb: &Sandbox, prefix: &Path, machine: &[&str]) -> (serde_json::Value, i32) {
    let mut args = vec!["check", "--json"];
    args.extend_from_slice(machine);
    let (code, out, err) = sb.run_on(&args, prefix);
    let json = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (json, code)
}

/// The findings of one code in a `check --json` document.
pub fn findings_of<'a>(json: &'a serde_json::Value, code: &str) -> Vec<&'a serde_json::Value> {
    json["findings"]
        .as_array()
        .expect("a check document has findings")
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

/// The codes of a `check --json` document's findings, in order.
pub fn codes(json: &serde_json::Value) -> Vec<String> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

/// The one finding of `code` in a `check --json` document.
pub fn finding<'a>(json: &'a serde_json::Value, code: &str) -> &'a serde_json::Value {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {:#}", json["findings"]))
}
