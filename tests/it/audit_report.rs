//! `envhook audit` as people and monitoring read it (#13): findings once
//! with their fix, grouped across environments; columns that fit the
//! terminal; `--summary`; `--fix --dry-run`, the confirmation on a
//! terminal; Prometheus text checked by the real `promtool` and served by the
//! real node_exporter's textfile collector; one exit-code
//! contract, closed pipes included.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use support::Sandbox;
use support::terminal::Terminal;

/// Three Paddle environments without hooks (the same warning each), a
/// healthy pip one with hooks, a CPU one: a fleet where grouping matters.
fn fleet(sb: &Sandbox) -> PathBuf {
    let envs = sb.path("envs");
    for name in ["paddle-a", "paddle-b", "paddle-with-a-long-name"] {
        support::cuda11_paddle(&envs.join(name));
    }
    let healthy = support::pip_wheels(&envs.join("wheels"));
    sb.install(&healthy.prefix);
    support::cpu_only(&envs.join("cpu"));
    envs
}

fn audit(sb: &Sandbox, envs: &Path, columns: Option<usize>, extra: &[&str]) -> (String, i32) {
    let mut cmd = sb.envhook();
    if let Some(c) = columns {
        cmd.env("COLUMNS", c.to_string());
    }
    let out = cmd
        .args(["audit", "--driver-version", "560.35.05", "--envs-dir"])
        .arg(envs)
        .args(extra)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    (
        text.replace(
            sb.path("").to_str().unwrap().trim_end_matches('/'),
            "[SANDBOX]",
        ),
        out.status.code().unwrap(),
    )
}

#[test]
fn identical_findings_are_one_line_with_their_fix() {
    let sb = Sandbox::new();
    let envs = fleet(&sb);
    let (text, code) = audit(&sb, &envs, Some(120), &[]);
    assert_eq!(code, 1, "warnings are findings: {text}");
    assert_eq!(text.matches("warning[needs-hook]").count(), 1, "{text}");
    assert!(
        text.contains(
            "warning[needs-hook] 3 environments: paddle-a, paddle-b, paddle-with-a-long-name"
        ),
        "{text}"
    );
    // The grouped fix still pastes: one loop over the three prefixes.
    let fix = "  fix: for env in '[SANDBOX]/envs/paddle-a' '[SANDBOX]/envs/paddle-b' \
               '[SANDBOX]/envs/paddle-with-a-long-name'; do envhook install -p \"$env\"; done\n";
    assert!(text.contains(fix), "{text}");
    let line = fix.trim().strip_prefix("fix: ").unwrap();
    let sh = std::process::Command::new("bash")
        .args(["-n", "-c", line])
        .status()
        .unwrap();
    assert!(sh.success(), "{line}");
    // -v: one block per environment, with its own prefix.
    let (text, _) = audit(&sb, &envs, Some(120), &["-v"]);
    assert_eq!(text.matches("warning[needs-hook]").count(), 3, "{text}");
    assert!(
        text.contains("fix: envhook install -p '[SANDBOX]/envs/paddle-b'"),
        "{text}"
    );
    // --summary: the kinds of findings and the totals.
    let (text, code) = audit(&sb, &envs, Some(120), &["--summary"]);
    assert_eq!(code, 1);
    assert!(!text.contains("ENV "), "{text}");
    assert!(!text.contains("fix:"), "{text}");
    assert!(!text.starts_with('\n'), "no blank line first: {text:?}");
    assert!(
        text.contains("warning[needs-hook] 3 environments"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("0 errors, 3 warnings"), "{text}");
}

/// Four identical Paddle environments, one named with a quote and one
/// whose prefix begins another's (`a`, `ab`): one group, and its printed
/// loop, pasted into bash with the real envhook on PATH, hooks all four.
#[test]
fn a_quote_or_a_shared_start_in_a_prefix_does_not_split_a_group() {
    let sb = Sandbox::new();
    let envs = sb.path("envs");
    let names = ["a", "ab", "it's", "a b"];
    for name in names {
        support::cuda11_paddle(&envs.join(name));
    }
    let (text, code) = audit(&sb, &envs, None, &[]);
    assert_eq!(code, 1, "{text}");
    assert_eq!(text.matches("warning[needs-hook]").count(), 1, "{text}");
    assert!(
        text.contains("warning[needs-hook] 4 environments"),
        "{text}"
    );
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("  fix: for env in "))
        .unwrap_or_else(|| panic!("one loop: {text}"));
    let line = format!("for env in {line}").replace(
        "[SANDBOX]",
        sb.path("").to_str().unwrap().trim_end_matches('/'),
    );
    let bin = assert_cmd::cargo::cargo_bin("envhook");
    let out = Command::new("bash")
        .args(["-c", &line])
        .env_clear()
        .env("HOME", sb.home())
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", bin.parent().unwrap().display()),
        )
        .env("ENVHOOK_SYSROOT", sb.path("sysroot"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in names {
        let hook = envs.join(name).join("etc/conda/activate.d");
        assert!(hook.is_dir(), "{name}: {line}");
    }
    let (text, _) = audit(&sb, &envs, None, &[]);
    assert!(!text.contains("needs-hook"), "{text}");
}

/// The table at 120, 80 and 50 columns: no line longer than the terminal,
/// every row's STATUS where the header's is.
#[test]
fn the_table_fits_the_terminal_without_misaligning() {
    let sb = Sandbox::new();
    let envs = fleet(&sb);
    for columns in [120, 80, 50] {
        let (text, _) = audit(&sb, &envs, Some(columns), &[]);
        // A fix command is the one thing never cut or wrapped: it is
        // pasted as one line.
        for line in text.lines().filter(|l| !l.starts_with("  fix: ")) {
            assert!(
                line.chars().count() <= columns,
                "{columns}: {line:?}\n{text}"
            );
        }
        let table: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
        // Display columns (the table is narrow-character text).
        let at = table[0][..table[0].find("STATUS").unwrap()].chars().count();
        for row in &table[1..] {
            let status: String = row.chars().skip(at).collect();
            assert!(
                status.starts_with("ok") || status.starts_with("1 warning"),
                "{columns}: {row:?}"
            );
        }
        insta::assert_snapshot!(format!("table_{columns}"), text);
    }
}

/// `--fix --dry-run` prints the plan (what, and what is skipped and why)
/// and writes nothing at all.
#[test]
fn fix_dry_run_plans_and_writes_nothing() {
    let sb = Sandbox::new();
    let envs = fleet(&sb);
    // A hand-written hook and a planted link: skipped, with the reason.
    let legacy = support::cuda11_paddle(&envs.join("legacy"));
    fs::create_dir_all(legacy.path("etc/conda/activate.d")).unwrap();
    fs::write(
        legacy.path("etc/conda/activate.d/env_vars.sh"),
        "export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH\n",
    )
    .unwrap();
    let planted = support::cuda11_paddle(&envs.join("planted"));
    fs::create_dir_all(planted.path("etc/conda")).unwrap();
    std::os::unix::fs::symlink(sb.path("elsewhere"), planted.path("etc/conda/activate.d")).unwrap();
    let before = support::snapshot(&envs);
    let (text, code) = audit(&sb, &envs, Some(200), &["--fix", "--dry-run"]);
    assert_eq!(code, 1, "{text}");
    assert!(
        support::snapshot(&envs) == before,
        "--dry-run wrote:\n{text}"
    );
    assert!(text.starts_with("--fix plan:\n"), "{text}");
    assert!(text.contains("  paddle-a: would write hooks ("), "{text}");
    assert!(
        text.contains("  legacy: skipped: a hand-written LD_LIBRARY_PATH hook: envhook install -p"),
        "{text}"
    );
    assert!(
        text.contains("  planted: skipped: refusing to write through"),
        "{text}"
    );
    assert!(
        !text.contains("wheels:"),
        "current hooks need nothing: {text}"
    );
    // Usage: --dry-run and --yes belong to --fix.
    let out = sb.envhook().args(["audit", "--dry-run"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// On a terminal, --fix shows the plan and asks; "n" changes nothing, "y"
/// fixes and shows the state after. Driven in a real terminal (tmux).
#[test]
fn fix_asks_on_a_terminal() {
    const PATIENCE: std::time::Duration = std::time::Duration::from_secs(15);
    let sb = Sandbox::new();
    let envs = fleet(&sb);
    let bin = assert_cmd::cargo::cargo_bin("envhook");
    let command = |answer_mark: &str| {
        format!(
            "env -i HOME={} PATH=/usr/bin:/bin ENVHOOK_SYSROOT={} {} audit --driver-version 560.35.05 --envs-dir {} --fix; echo {answer_mark}=$?; sleep 30",
            sb.home().display(),
            sb.path("sysroot").display(),
            bin.display(),
            envs.display()
        )
    };
    {
        let term = Terminal::start(&sb.path("tmux1.sock"), &command("EXIT1"), PATIENCE);
        term.wait_for("Proceed ([y]/n)? ");
        term.keys(&["n", "Enter"]);
        let pane = term.wait_for("EXIT1=");
        assert!(pane.contains("nothing changed"), "{pane}");
        assert!(pane.contains("EXIT1=1"), "{pane}");
        assert!(
            !envs
                .join("paddle-a/etc/conda/activate.d/envhook.sh")
                .exists()
        );
    }
    let term = Terminal::start(&sb.path("tmux2.sock"), &command("EXIT2"), PATIENCE);
    term.wait_for("Proceed ([y]/n)? ");
    term.keys(&["y", "Enter"]);
    let pane = term.wait_for("EXIT2=");
    assert!(
        pane.contains("hooks written or refreshed: paddle-a, paddle-b"),
        "{pane}"
    );
    assert!(pane.contains("EXIT2=0"), "{pane}");
    assert!(
        envs.join("paddle-a/etc/conda/activate.d/envhook.sh")
            .exists()
    );
}

#[test]
fn fix_without_a_terminal_does_not_ask() {
    let sb = Sandbox::new();
    let envs = fleet(&sb);
    let (text, code) = audit(&sb, &envs, None, &["--fix"]);
    assert!(!text.contains("Proceed"), "{text}");
    assert_eq!(code, 0, "everything fixable was fixed: {text}");
    assert!(
        text.contains("hooks written or refreshed: paddle-a, paddle-b, paddle-with-a-long-name"),
        "{text}"
    );
    assert!(
        text.contains("paddle-a  ") && !text.contains("warning[needs-hook]"),
        "the state after: {text}"
    );
}

/// `audit --format prometheus --output DIR/envhook.prom` over `envs`, as a
/// node's cron job runs it: the directory, the file and the run.
fn write_prometheus(sb: &Sandbox, envs: &Path) -> (PathBuf, PathBuf, std::process::Output) {
    let dir = sb.path("textfile");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("envhook.prom");
    let out = sb
        .envhook()
        .args([
            "audit",
            "--format",
            "prometheus",
            "--driver-version",
            "560.35.05",
        ])
        .arg("--output")
        .arg(&file)
        .arg("--envs-dir")
        .arg(envs)
        .output()
        .unwrap();
    (dir, file, out)
}

/// The Prometheus text, as the real promtool reads it, written atomically.
#[test]
fn prometheus_output_passes_promtool() {
    let sb = Sandbox::new();
    let envs = fleet(&sb);
    let broken = support::cuda11_paddle(&envs.join("corrupt \"quoted\""));
    fs::write(broken.path("conda-meta/cudnn-8.9.2.26-cuda11_0.json"), "{").unwrap();
    let (dir, file, out) = write_prometheus(&sb, &envs);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["envhook.prom"], "no temporary file left");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o644
    );
    let text = fs::read_to_string(&file).unwrap();
    let check = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(text.as_bytes())?;
            child.wait_with_output()
        })
        .expect("promtool (scripts/test installs Debian's prometheus)");
    assert!(
        check.status.success() && check.stdout.is_empty() && check.stderr.is_empty(),
        "{}{}\n{text}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let prefix = envs.join("paddle-a").display().to_string();
    for line in [
        format!(
            "envhook_env_findings{{env=\"paddle-a\",prefix=\"{prefix}\",severity=\"warning\",code=\"needs-hook\"}} 1"
        ),
        format!(
            "envhook_env_hook_status{{env=\"paddle-a\",prefix=\"{prefix}\",status=\"none\"}} 1"
        ),
        format!(
            "envhook_env_info{{env=\"paddle-a\",prefix=\"{prefix}\",cuda=\"11.8\",cudnn=\"8.9.2.26\",frameworks=\"paddlepaddle-gpu 2.5.2.post116\"}} 1"
        ),
        "envhook_env_readable{env=\"corrupt \\\"quoted\\\"\"".to_string(),
        "envhook_audit_environments 6".to_string(),
    ] {
        assert!(text.contains(&line), "{line}\n{text}");
    }
}

/// What a monitoring system ingests: the real node_exporter (Debian's
/// prometheus-node-exporter) reads the file through its textfile collector,
/// as a cron job would leave it, and serves every envhook sample with no
/// scrape error.
#[test]
fn node_exporter_textfile_collector_serves_every_sample() {
    let sb = Sandbox::new();
    let envs = fleet(&sb);
    let (dir, file, out) = write_prometheus(&sb, &envs);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let written = fs::read_to_string(&file).unwrap();

    // A free port: bind, read the number, let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    struct Exporter(std::process::Child);
    impl Drop for Exporter {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _exporter = Exporter(
        Command::new("prometheus-node-exporter")
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .args(["--collector.disable-defaults", "--collector.textfile"])
            .arg(format!("--collector.textfile.directory={}", dir.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus-node-exporter (scripts/test installs it)"),
    );
    let scrape = || -> std::io::Result<String> {
        use std::io::{Read, Write};
        let mut conn = std::net::TcpStream::connect(("127.0.0.1", port))?;
        conn.write_all(b"GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n")?;
        let mut body = String::new();
        conn.read_to_string(&mut body)?;
        Ok(body)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let served = loop {
        match scrape() {
            Ok(body) if body.contains("node_textfile_scrape_error") => break body,
            _ if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(50))
            }
            other => panic!("node_exporter did not answer: {other:?}"),
        }
    };
    assert!(
        served.contains("\nnode_textfile_scrape_error 0\n"),
        "{served}"
    );
    // Every sample, by name and label set (the exporter sorts labels).
    let samples = |text: &str| -> Vec<String> {
        let mut v: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("envhook_"))
            .map(|l| {
                let (series, value) = l.rsplit_once(' ').unwrap();
                let (name, labels) = series.split_once('{').unwrap_or((series, "}"));
                let mut labels: Vec<&str> = split_labels(labels.trim_end_matches('}'));
                labels.sort();
                // Values as numbers: the exporter may print 0.05 as 0.05 or 5e-02.
                let value: f64 = value.parse().unwrap();
                format!("{name}{{{}}} {value}", labels.join(","))
            })
            .collect();
        v.sort();
        v
    };
    let expected = samples(&written);
    assert!(expected.len() > 30, "{written}");
    assert_eq!(samples(&served), expected);
}

/// `a="x",b="y, \"z\""` into its `name="value"` pairs.
fn split_labels(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// One exit-code contract for every command and format: 0 nothing to act
/// on, 1 findings of warning or error severity, 2 usage or I/O errors; a
/// reader that closes the pipe early changes nothing.
#[test]
fn exit_codes_are_one_contract() {
    let sb = Sandbox::new();
    let envs = fleet(&sb);
    let healthy = envs.join("wheels");
    let warned = envs.join("paddle-a");
    let p = |path: &Path| path.to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, i32)> = vec![
        (vec!["check".into(), "-p".into(), p(&healthy)], 0),
        (
            vec!["check".into(), "--json".into(), "-p".into(), p(&healthy)],
            0,
        ),
        (vec!["check".into(), "-p".into(), p(&warned)], 1),
        (
            vec!["check".into(), "--json".into(), "-p".into(), p(&warned)],
            1,
        ),
        (vec!["audit".into(), "--envs-dir".into(), p(&envs)], 1),
        (
            vec![
                "audit".into(),
                "--json".into(),
                "--envs-dir".into(),
                p(&envs),
            ],
            1,
        ),
        (
            vec![
                "audit".into(),
                "--format".into(),
                "prometheus".into(),
                "--envs-dir".into(),
                p(&envs),
            ],
            1,
        ),
        (
            vec![
                "audit".into(),
                "--summary".into(),
                "--envs-dir".into(),
                p(&envs),
            ],
            1,
        ),
        (vec!["show".into(), "-p".into(), p(&warned)], 0),
        (
            vec!["show".into(), "--json".into(), "-p".into(), p(&warned)],
            0,
        ),
        (vec!["envs".into(), "--envs-dir".into(), p(&envs)], 0),
        (vec!["check".into(), "-p".into(), p(&sb.path("nope"))], 2),
        (vec!["audit".into(), "--format".into(), "xml".into()], 2),
        (
            vec![
                "check".into(),
                "--driver-version".into(),
                "abc".into(),
                "-p".into(),
                p(&healthy),
            ],
            2,
        ),
    ];
    for (args, want) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut full = vec!["--driver-version", "560.35.05"];
        if args.contains(&"--driver-version") || args[0] == "show" || args[0] == "envs" {
            full.clear();
        }
        let run = |closed: bool| {
            let mut cmd = sb.envhook_std();
            cmd.arg(args[0])
                .args(&full)
                .args(&args[1..])
                .stderr(Stdio::piped());
            if closed {
                // A reader that is gone before anything is written.
                let (reader, writer) = std::io::pipe().unwrap();
                drop(reader);
                cmd.stdout(writer);
            } else {
                cmd.stdout(Stdio::piped());
            }
            let out = cmd.output().unwrap();
            (
                out.status.code().unwrap(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let (code, err) = run(false);
        assert_eq!(code, want, "{args:?}: {err}");
        let (code, err) = run(true);
        assert_eq!(code, want, "{args:?} with a closed pipe: {err}");
        if want != 2 {
            assert!(!err.contains("error"), "{args:?}: {err}");
        }
    }
}

/// #21: two environments whose names differ only in bytes that are not
/// UTF-8 get different label sets (node_exporter drops duplicates), which
/// promtool accepts.
#[test]
fn prometheus_labels_keep_names_that_are_not_utf8_apart() {
    use std::os::unix::ffi::OsStrExt;
    let sb = Sandbox::new();
    let envs = sb.path("envs");
    for byte in [0xe8u8, 0xe9] {
        let bytes = [b'c', b'a', b'f', byte];
        support::cuda11_paddle(&envs.join(std::ffi::OsStr::from_bytes(&bytes)));
    }
    let (_, file, out) = write_prometheus(&sb, &envs);
    assert!(out.status.code().is_some_and(|c| c <= 1));
    let text = fs::read_to_string(&file).unwrap();
    let readable: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("envhook_env_readable{"))
        .collect();
    assert_eq!(readable.len(), 2, "{text}");
    assert_ne!(readable[0], readable[1]);
    assert!(text.contains(r#"env="caf\\xe8""#), "{text}");
    assert!(text.contains(r#"env="caf\\xe9""#), "{text}");
    let check = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(fs::File::open(&file).unwrap())
        .output()
        .unwrap();
    assert!(check.status.success(), "{check:?}");
}
