//! Bad input gets one clear error line naming the file (plus `hint:` lines)
//! and exit code 2, never a panic.

use crate::support;

use std::fs;
use std::path::Path;
use std::process::Command;

use support::{Env, PipDist, Sandbox};

/// Run `show -p PREFIX`, expect exit 2, return stderr.
fn fails(sb: &Sandbox, prefix: &Path) -> String {
    let out = sb
        .envhook()
        .args(["show", "-p"])
        .arg(prefix)
        .output()
        .unwrap();
    an_error(out)
}

/// A run that ended with exit 2 and one error line, plus indented hints:
/// its stderr.
fn an_error(out: std::process::Output) -> String {
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(out.stdout.is_empty(), "nothing on stdout on error");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let first = stderr.lines().next().unwrap();
    assert!(first.starts_with("error: "), "{stderr}");
    for line in stderr.lines().skip(1) {
        assert!(
            line.starts_with("  "),
            "continuation lines are indented hints: {stderr}"
        );
    }
    stderr
}

fn paddle_env(sb: &Sandbox) -> Env {
    support::cuda11_paddle(&sb.path("env"))
}

fn record(env: &Env, name: &str) -> std::path::PathBuf {
    fs::read_dir(env.path("conda-meta"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with(&format!("{name}-"))
        })
        .unwrap()
}

#[test]
fn prefix_that_does_not_exist() {
    let sb = Sandbox::new();
    let err = fails(&sb, &sb.path("nope"));
    assert!(
        err.contains(&format!("{}: no such directory", sb.path("nope").display())),
        "{err}"
    );
    assert!(err.contains("hint:"));
}

#[test]
fn directory_that_is_not_an_env() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.path("plain/lib")).unwrap();
    let err = fails(&sb, &sb.path("plain"));
    assert!(
        err.contains(
            "is not a conda environment (it has no conda-meta/ directory (nor a venv's pyvenv.cfg))"
        ),
        "{err}"
    );
}

#[test]
fn conda_meta_that_is_a_file() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.path("odd")).unwrap();
    fs::write(sb.path("odd/conda-meta"), "").unwrap();
    let err = fails(&sb, &sb.path("odd"));
    assert!(err.contains("conda-meta is not a directory"), "{err}");
}

#[test]
fn prefix_that_is_a_file() {
    let sb = Sandbox::new();
    fs::write(sb.path("file"), "").unwrap();
    let err = fails(&sb, &sb.path("file"));
    assert!(err.contains("it is not a directory"), "{err}");
}

#[test]
fn conda_meta_symlink_loop() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.path("loop")).unwrap();
    std::os::unix::fs::symlink("conda-meta", sb.path("loop/conda-meta")).unwrap();
    let err = fails(&sb, &sb.path("loop"));
    assert!(
        err.contains(&sb.path("loop/conda-meta").display().to_string()),
        "{err}"
    );
    assert!(err.contains("symbolic links"), "{err}");
}

#[test]
fn truncated_record() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb);
    let path = record(&env, "cudnn");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, &text[..text.len() / 2]).unwrap();
    let err = fails(&sb, &env.prefix);
    assert!(
        err.contains(&format!(
            "could not parse conda-meta record {}",
            path.display()
        )),
        "{err}"
    );
    assert!(err.contains("--force-reinstall"), "{err}");
}

#[test]
fn empty_record() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb);
    let path = record(&env, "cudatoolkit");
    fs::write(&path, "").unwrap();
    let err = fails(&sb, &env.prefix);
    assert!(
        err.contains(&path.display().to_string()) && err.contains("empty"),
        "{err}"
    );
}

#[test]
fn non_utf8_record() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb);
    let path = record(&env, "cudnn");
    let mut bytes = fs::read(&path).unwrap();
    bytes.splice(10..10, [0xff, 0xfe]);
    fs::write(&path, bytes).unwrap();
    let err = fails(&sb, &env.prefix);
    assert!(
        err.contains(&path.display().to_string()) && err.contains("not valid UTF-8 (byte 10)"),
        "{err}"
    );
}

#[test]
fn record_with_a_field_of_the_wrong_type() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb);
    let path = record(&env, "cudnn");
    let mut json: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    json["files"] = serde_json::json!({"not": "a list"});
    fs::write(&path, json.to_string()).unwrap();
    let err = fails(&sb, &env.prefix);
    assert!(err.contains(&path.display().to_string()), "{err}");
}

#[test]
fn record_with_a_malformed_version() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb);
    let path = record(&env, "cudnn");
    let mut json: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    json["version"] = "8..9".into();
    fs::write(&path, json.to_string()).unwrap();
    let err = fails(&sb, &env.prefix);
    assert!(err.contains("malformed version"), "{err}");
}

#[test]
fn record_with_unknown_fields_is_fine() {
    // CEP 32: unknown keys MUST be ignored.
    let sb = Sandbox::new();
    let env = paddle_env(&sb);
    let path = record(&env, "cudnn");
    let mut json: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    json["some_future_key"] = serde_json::json!({"nested": [1, 2, 3]});
    json["requested_specs"] = serde_json::json!(["cudnn=8.9"]);
    fs::write(&path, json.to_string()).unwrap();
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 0);
    assert_eq!(json["cudnn"][0]["version"], "8.9.2.26");
}

#[test]
fn record_that_is_a_directory() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb);
    let path = record(&env, "cudnn");
    fs::remove_file(&path).unwrap();
    fs::create_dir(&path).unwrap();
    let err = fails(&sb, &env.prefix);
    assert!(
        err.contains(&format!(
            "could not read {}: is a directory",
            path.display()
        )),
        "{err}"
    );
}

#[test]
fn unreadable_record() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let env = paddle_env(&sb);
    let path = record(&env, "cudnn");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads it anyway: envhook runs as another user then.
    let out = sb
        .envhook_unprivileged()
        .args(["show", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let err = an_error(out);
    assert!(
        err.contains("Permission denied") && err.contains(&path.display().to_string()),
        "{err}"
    );
    assert!(
        err.contains("hint: run envhook as a user who can read the environment"),
        "{err}"
    );
}

#[test]
fn dist_info_without_version() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("env"));
    env.python("3.11.9");
    let info = env.pip(PipDist::new("nvidia-cudnn-cu12", "9.1.0.70"));
    fs::write(
        info.join("METADATA"),
        "Metadata-Version: 2.1\nName: nvidia-cudnn-cu12\n\n",
    )
    .unwrap();
    let warning = goes_on(&sb, &env.prefix);
    assert!(
        warning.contains(&format!(
            "could not parse {}: no Version: header",
            info.join("METADATA").display()
        )),
        "{warning}"
    );
}

/// A dist-info without METADATA (an interrupted install) is one package
/// left out with a warning naming it; install and check go on.
#[test]
fn dist_info_without_metadata() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("env"));
    env.python("3.11.9");
    let info = env.pip(PipDist::new("nvidia-cudnn-cu12", "9.1.0.70"));
    fs::remove_file(info.join("METADATA")).unwrap();
    let warning = goes_on(&sb, &env.prefix);
    assert!(
        warning.contains(&info.join("METADATA").display().to_string())
            && warning.contains("nvidia-cudnn-cu12 is left out of the checks"),
        "{warning}"
    );
    let out = sb
        .envhook()
        .args(["install", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("warning[dist-info-unreadable]"), "{said}");
}

/// `check --json` exits with the warnings' status (1) and the
/// `dist-info-unreadable` finding's message.
fn goes_on(sb: &Sandbox, prefix: &std::path::Path) -> String {
    let (code, out, err) = sb.run_on(&["check", "--json"], prefix);
    assert_eq!(code, 1, "{out}{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "dist-info-unreadable")
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(f["severity"], "warning");
    format!("{} {}", f["message"], f["fix"]["command"])
}

#[test]
fn dist_info_with_binary_metadata() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("env"));
    env.python("3.11.9");
    let info = env.pip(PipDist::new("torch", "2.3.1"));
    fs::write(info.join("METADATA"), b"Name: torch\n\xc3\x28Version: 1\n").unwrap();
    let err = goes_on(&sb, &env.prefix);
    assert!(
        err.contains("METADATA") && err.contains("not valid UTF-8"),
        "{err}"
    );
}

#[test]
fn dist_info_whose_metadata_names_another_package() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("env"));
    env.python("3.11.9");
    let info = env.pip(PipDist::new("torch", "2.3.1"));
    fs::write(info.join("METADATA"), "Name: numpy\nVersion: 1.0\n").unwrap();
    let err = goes_on(&sb, &env.prefix);
    assert!(err.contains("does not match the directory name"), "{err}");
}

#[test]
fn no_environment_selected() {
    let sb = Sandbox::new();
    let out = sb.envhook().arg("show").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: no environment selected\n  hint: pass -n NAME or -p PREFIX"),
        "{err}"
    );
}

#[test]
fn conda_prefix_of_a_removed_env() {
    let sb = Sandbox::new();
    let out = sb
        .envhook()
        .arg("show")
        .env("CONDA_PREFIX", sb.path("gone"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no such directory")
            && err.contains("CONDA_PREFIX points at a removed environment"),
        "{err}"
    );
}

#[test]
fn name_and_prefix_together_is_a_usage_error() {
    let sb = Sandbox::new();
    sb.envhook()
        .args(["show", "-n", "a", "-p", "/b"])
        .assert()
        .code(2);
}

#[test]
fn closed_stdout_is_not_an_error() {
    // A broken install listing 3000 libraries: the JSON is far larger than a
    // pipe's buffer, so `| head -c 10` closes the pipe while envhook writes.
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("env"));
    let files = (0..3000)
        .map(|i| {
            support::FileSpec::Absent(Box::leak(
                format!("lib/libcufft_part{i}.so.11").into_boxed_str(),
            ))
        })
        .collect();
    env.conda(support::CondaPkg::new("cudatoolkit", "11.8.0", "h4ba93d1_13").files(files));
    let bin = assert_cmd::cargo::cargo_bin("envhook");
    let script = format!(
        "'{}' show --json -p '{}' | head -c 10 >/dev/null; echo \"${{PIPESTATUS[0]}}\"",
        bin.display(),
        env.prefix.display()
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
    // The status the work earned (1: the broken install is a finding), not
    // 2 (an output error): the reader chose to stop, which changes nothing
    // (#13: one contract for every format, piped or not).
    let unpiped = sb
        .envhook()
        .args(["show", "--json", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    assert_eq!(unpiped.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "1");
}

/// `mkfifo` where a record or a hook should be: opening a FIFO blocks until
/// someone writes, so envhook must refuse it instead of hanging. Each run is
/// given 20 s; a hang fails the test.
#[test]
fn fifos_are_refused_not_read() {
    use std::time::Duration;
    use wait_timeout::ChildExt;
    let sb = Sandbox::new();
    let env = paddle_env(&sb);
    let mkfifo = |path: &Path| {
        let _ = fs::remove_file(path);
        assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
    };
    let run = |args: &[&str]| {
        let mut child = sb
            .envhook_std()
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let status = child.wait_timeout(Duration::from_secs(20)).unwrap();
        let Some(status) = status else {
            child.kill().unwrap();
            panic!("envhook {args:?} hung on a FIFO");
        };
        let mut err = String::new();
        use std::io::Read;
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        (status.code().unwrap(), err)
    };
    let prefix = env.prefix.to_str().unwrap();
    // A hook directory entry: install and audit look at every file there.
    fs::create_dir_all(env.path("etc/conda/activate.d")).unwrap();
    mkfifo(&env.path("etc/conda/activate.d/stray.sh"));
    assert_eq!(run(&["install", "-p", prefix]).0, 0);
    // A record envhook reads.
    let record = record(&env, "cudnn");
    mkfifo(&record);
    let (code, err) = run(&["show", "-p", prefix]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a regular file"), "{err}");
    let (code, _) = run(&["check", "-p", prefix]);
    assert_eq!(code, 2);
    let audit_root = env.prefix.parent().unwrap().to_str().unwrap().to_string();
    let (code, _) = run(&["audit", "--envs-dir", &audit_root]);
    assert_eq!(code, 1, "the FIFO env is an unreadable row");
}

/// What a hostile file holds is never echoed whole (#31): a 32 MiB
/// Version header, a 1 MiB Requires-Dist and a conda record with a 32 MiB
/// version make `check --json` a few kilobytes, each file named.
#[test]
fn huge_values_in_files_are_not_echoed() {
    let sb = Sandbox::new();
    let mut env = paddle_env(&sb);
    let huge = "1".repeat(32 << 20);
    env.pip(support::PipDist::new("nvidia-cublas-cu12", "12.1.3.1"));
    std::fs::write(
        env.site()
            .join("nvidia_cublas_cu12-12.1.3.1.dist-info/METADATA"),
        format!("Metadata-Version: 2.1\nName: nvidia-cublas-cu12\nVersion: {huge}\n"),
    )
    .unwrap();
    env.pip(support::PipDist::new("onnxruntime-gpu", "1.20.2"));
    std::fs::write(
        env.site().join("onnxruntime_gpu-1.20.2.dist-info/METADATA"),
        format!(
            "Metadata-Version: 2.1\nName: onnxruntime-gpu\nVersion: 1.20.2\nRequires-Dist: nvidia-cudnn-cu12>={}\n",
            "9".repeat(1 << 20)
        ),
    )
    .unwrap();
    let out = sb
        .envhook()
        .args(["check", "--json", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    assert!(
        out.stdout.len() < 64 << 10,
        "{} bytes of report",
        out.stdout.len()
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("nvidia_cublas_cu12-12.1.3.1.dist-info"),
        "{report}"
    );
    assert!(report.contains("bytes"), "{report}");
    // A record with a 32 MiB version: the error names it, briefly.
    let rec = record(&env, "cudnn");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    json["version"] = serde_json::Value::String(format!("8.{huge}"));
    std::fs::write(&rec, serde_json::to_string(&json).unwrap()).unwrap();
    let err = fails(&sb, &env.prefix);
    assert!(err.len() < 4096, "{} bytes on stderr", err.len());
    assert!(err.contains("longer than 256 bytes"), "{err}");
}
