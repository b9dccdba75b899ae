//! The conda plugin's own tests (pytest, `packaging/conda-plugin/tests`),
//! run against the envhook binary built here. CI installs pytest; locally:
//! `python3 -m pip install pytest`.

use std::process::Command;

#[test]
fn conda_plugin_pytest_suite() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/conda-plugin");
    let probe = Command::new("python3")
        .args(["-c", "import pytest"])
        .output();
    assert!(
        probe.is_ok_and(|o| o.status.success()),
        "pytest is needed for the conda plugin's tests: python3 -m pip install pytest"
    );
    let out = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"])
        .current_dir(&root)
        .env("ENVHOOK_BIN", assert_cmd::cargo::cargo_bin("envhook"))
        .env("PYTHONPATH", &root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("10 passed"), "{text}");
}
