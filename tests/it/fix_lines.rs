//! Every fix envhook prints is a command a user can paste (#30): a `fix:`
//! line, and each command under a `choose:`, is one line that bash parses
//! (`bash -n`), starts with a command and not with prose, and quotes the
//! environment's prefix as one word. Gathered from `check` (text and
//! JSON), `install --dry-run`, `audit` (table and JSON) and `explain` (on
//! every message family docs/explain-messages.md lists) over the fixture
//! layouts tests/it/support makes and the special cases other tests build,
//! in a prefix with a space, a quote and a `$`, on several machines.

use crate::support;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use support::{Env, FileSpec, PipDist, Sandbox};

/// What a pasted fix may start with: the environment's own Python (as
/// `'PREFIX/bin/python' -m pip`) or one of these.
const COMMANDS: &[&str] = &[
    "conda",
    "envhook",
    "export",
    "ln",
    "rm",
    "unset",
    "nvidia-smi",
    "ulimit",
    "echo",
    "cat",
    "ls",
    "sudo",
];

/// The machines the checks run for.
const MACHINES: &[&[&str]] = &[
    &[],
    &["--driver-version", "470.82.01", "--gpu", "A100"],
    &["--driver-version", "535.104.05", "--gpu", "A100"],
    &["--driver-version", "580.65.06", "--gpu", "V100"],
    &["--driver-version", "580.65.06", "--gpu", "B200"],
];

/// A fix found, and where.
struct Seen {
    line: String,
    from: String,
}

/// The fixes in human output: `fix:` lines and the lines under `choose:`.
fn from_text(text: &str, from: &str, out: &mut Vec<Seen>) {
    let mut choose_indent: Option<usize> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start();
        match choose_indent {
            Some(i) if indent == i + 2 && !body.is_empty() => {
                out.push(Seen {
                    line: body.to_string(),
                    from: format!("{from} (under choose:)"),
                });
                continue;
            }
            _ => choose_indent = None,
        }
        if let Some(cmd) = body.strip_prefix("fix: ") {
            out.push(Seen {
                line: cmd.to_string(),
                from: from.to_string(),
            });
        } else if body.starts_with("choose: ") {
            choose_indent = Some(indent);
        }
    }
}

/// The fixes anywhere in a JSON document: every `fix` object's command,
/// and the commands of its choice.
fn from_json(v: &Value, from: &str, out: &mut Vec<Seen>) {
    match v {
        Value::Object(map) => {
            if let Some(fix) = map.get("fix").filter(|f| f.is_object()) {
                let commands = fix["command"].as_str().into_iter().chain(
                    fix["choose"]["commands"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str),
                );
                for c in commands {
                    out.push(Seen {
                        line: c.to_string(),
                        from: format!("{from} (json)"),
                    });
                }
            }
            map.values().for_each(|v| from_json(v, from, out));
        }
        Value::Array(items) => items.iter().for_each(|v| from_json(v, from, out)),
        _ => {}
    }
}

/// The layouts: tests/it/support's, and the special cases of other tests.
fn layouts(sb: &Sandbox) -> Vec<std::path::PathBuf> {
    let dir = sb.path("envs");
    let odd = |name: &str| dir.join(format!("it's a $HOME {name}"));
    let mut out = vec![
        support::cuda11_paddle(&odd("paddle")).prefix.clone(),
        support::cuda12_split(&odd("torch")).prefix.clone(),
        support::pip_wheels(&odd("wheels")).prefix.clone(),
        support::pip_cuda13(&odd("cu13")).prefix.clone(),
        support::cpu_only(&odd("cpu")).prefix.clone(),
        support::mixed(&odd("mixed")).prefix.clone(),
    ];
    // conda's own LD_LIBRARY_PATH (conda env config vars).
    let state = support::cuda11_paddle(&odd("state"));
    std::fs::write(
        state.path("conda-meta/state"),
        serde_json::json!({"env_vars": {"LD_LIBRARY_PATH": format!("{}/lib", state.prefix.display())}})
            .to_string(),
    )
    .unwrap();
    out.push(state.prefix.clone());
    // A broken install: a listed library gone.
    let broken = support::pip_wheels(&odd("broken"));
    std::fs::remove_file(
        broken
            .site()
            .join("nvidia/cudnn/lib/libcudnn_cnn_infer.so.8"),
    )
    .unwrap();
    out.push(broken.prefix.clone());
    // CuPy 13 beside torch's cuDNN 9 wheel: its cudnn module's cuDNN 8.
    out.push(crate::output::cupy_beside_cudnn9(sb).0);
    // Paddle 2.6.2 (CUDA 11.8 / cuDNN 8.6) beside CUDA 12 / cuDNN 9 wheels.
    let mut paddle = support::paddle::paddle_262(&odd("paddle262"));
    support::paddle::wheels(&mut paddle, support::paddle::CUDA12_CUDNN9);
    out.push(paddle.prefix.clone());
    // Two frameworks pinning the CUDA 12 and 13 builds of cuDNN, whose
    // wheels wrote over each other: the choice of two environments.
    let mut two = Env::new(odd("two"));
    two.python("3.12.4");
    let shared = "nvidia/cudnn/lib/libcudnn.so.9";
    let cu12 =
        two.pip(PipDist::new("nvidia-cudnn-cu12", "9.10.2.21").files(vec![FileSpec::File(shared)]));
    two.pip(PipDist::new("nvidia-cudnn-cu13", "9.26.0.51").files(vec![FileSpec::File(shared)]));
    two.pip(PipDist::new("torch", "2.15.0").requires(vec!["nvidia-cudnn-cu13==9.26.0.51"]));
    two.pip(PipDist::new("tensorflow", "2.21.0").requires(vec![
        "nvidia-cudnn-cu12<10,>=9.3.0.75; extra == \"and-cuda\"",
    ]));
    let record = cu12.join("RECORD");
    let text = std::fs::read_to_string(&record).unwrap();
    let (line, rest) = text.split_once('\n').unwrap();
    let (head, _) = line.rsplit_once(',').unwrap();
    std::fs::write(&record, format!("{head},999999\n{rest}")).unwrap();
    out.push(two.prefix.clone());
    out
}

/// The messages docs/explain-messages.md lists (the first column).
fn messages() -> Vec<String> {
    let page = std::fs::read_to_string("docs/explain-messages.md").unwrap();
    page.lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('`').map(|(m, _)| m.to_string()))
        .collect()
}

fn gather(sb: &Sandbox, prefixes: &[std::path::PathBuf]) -> Vec<Seen> {
    let mut seen = Vec::new();
    let messages = messages();
    assert!(messages.len() > 20, "{messages:?}");
    for prefix in prefixes {
        let p = prefix.to_str().unwrap();
        let name = prefix.file_name().unwrap().to_string_lossy().into_owned();
        for machine in MACHINES {
            let from = format!("check {name} {}", machine.join(" "));
            let run = |args: &[&str]| sb.run(&[args, machine].concat());
            let (_, text, _) = run(&["check", "-p", p]);
            from_text(&text, &from, &mut seen);
            let (_, json, _) = run(&["check", "--json", "-p", p]);
            from_json(&serde_json::from_str(&json).unwrap(), &from, &mut seen);
        }
        let (_, text, _) = sb.run(&["install", "--dry-run", "-p", p]);
        from_text(&text, &format!("install {name}"), &mut seen);
        for message in &messages {
            let from = format!("explain {name} {message:?}");
            let args = [
                "explain",
                message.as_str(),
                "--driver-version",
                "535.104.05",
                "--gpu",
                "A100",
                "-p",
                p,
            ];
            let (_, text, _) = sb.run(&args);
            from_text(&text, &from, &mut seen);
            let (_, json, _) = sb.run(&[&args[..], &["--json"]].concat());
            from_json(&serde_json::from_str(&json).unwrap(), &from, &mut seen);
        }
    }
    let dirs = sb.path("envs");
    let d = dirs.to_str().unwrap();
    for machine in MACHINES {
        let (_, text, _) = sb.run(&[&["audit", "-v", "--envs-dir", d][..], machine].concat());
        from_text(&text, "audit", &mut seen);
        let (_, json, _) =
            sb.run(&[&["audit", "--format", "json", "--envs-dir", d][..], machine].concat());
        from_json(&serde_json::from_str(&json).unwrap(), "audit", &mut seen);
    }
    seen
}

/// Whether bash parses `line` (`bash -n`), and what it said if not.
fn parses(line: &str) -> Result<(), String> {
    let out = Command::new("bash")
        .args(["-n", "-c", line])
        .output()
        .unwrap();
    match (out.status.success(), out.stderr.is_empty()) {
        (true, true) => Ok(()),
        _ => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

/// Whether `line` starts with a command: the environment's Python or one
/// of [`COMMANDS`].
fn starts_with_a_command(line: &str, prefixes: &[&Path]) -> bool {
    let python = prefixes.iter().any(|p| {
        let py = p.join("bin/python").display().to_string();
        line.starts_with(&format!("'{}' -m pip ", py.replace('\'', r"'\''")))
    });
    let first = line.split_whitespace().next().unwrap_or("");
    python || COMMANDS.contains(&first)
}

#[test]
fn every_fix_is_one_line_bash_parses_and_starts_with_a_command() {
    let sb = Sandbox::new();
    let prefixes = layouts(&sb);
    let seen = gather(&sb, &prefixes);
    let refs: Vec<&Path> = prefixes.iter().map(|p| p.as_path()).collect();
    let mut distinct: Vec<&Seen> = Vec::new();
    for s in &seen {
        if !distinct.iter().any(|d| d.line == s.line) {
            distinct.push(s);
        }
    }
    // The layouts make the findings of every family with a fix.
    assert!(distinct.len() >= 30, "only {} fixes", distinct.len());
    let mut bad = Vec::new();
    for s in &distinct {
        if s.line.contains('\n') {
            bad.push(format!("{}: more than one line: {}", s.from, s.line));
        }
        if let Err(e) = parses(&s.line) {
            bad.push(format!("{}: bash -n: {e}: {}", s.from, s.line));
        }
        // pip would refuse it, or find nothing to do (#37: a Paddle 3.x fix
        // `==9.5.1.17` where 9.5.1.17 is installed, `==9.5.1.17,>=9.7`).
        if let Some(why) = support::pip_spec::fault(&s.line, &prefixes) {
            bad.push(format!("{}: {why}: {}", s.from, s.line));
        }
        if !starts_with_a_command(&s.line, &refs) {
            bad.push(format!("{}: not a command: {}", s.from, s.line));
        }
        // An install names what it installs (a real TF 2.16 log once got
        // `pip install` and nothing after it, for TensorRT).
        if s.line
            .split(" && ")
            .any(|c| c.trim_end().ends_with(" install"))
        {
            bad.push(format!("{}: installs nothing: {}", s.from, s.line));
        }
        // A prefix in a command is one quoted word, whatever it holds.
        for p in &prefixes {
            let raw = p.display().to_string();
            let quoted = format!("'{}", raw.replace('\'', r"'\''"));
            if s.line.contains(&raw[..raw.len() - 1]) && !s.line.contains(&quoted) {
                bad.push(format!("{}: unquoted prefix: {}", s.from, s.line));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // Listed with -- --nocapture: the shapes the suite's fixtures produce.
    for s in &distinct {
        println!("{}\n    {}", s.from, s.line);
    }
}

#[test]
fn the_separate_environments_choice_names_both_conda_create_lines() {
    let sb = Sandbox::new();
    let prefixes = layouts(&sb);
    let two = prefixes.last().unwrap();
    let (_, text, _) = sb.run(&["check", "-p", two.to_str().unwrap()]);
    let mut seen = Vec::new();
    from_text(&text, "check", &mut seen);
    let creates: Vec<&str> = seen
        .iter()
        .map(|s| s.line.as_str())
        .filter(|l| l.starts_with("conda create -y -n "))
        .collect();
    assert_eq!(creates.len(), 2, "{text}");
    assert!(
        text.contains("    choose: no one set of wheels satisfies both"),
        "{text}"
    );
    // The names as bash reads them: none with what conda refuses in a name
    // (the prefix's own name has spaces).
    for line in creates {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("conda() {{ printf %s \"$4\"; exit; }}; {line}"))
            .output()
            .unwrap();
        let name = String::from_utf8(out.stdout).unwrap();
        assert!(name.starts_with("it's-a-$HOME-two-"), "{name}: {line}");
        assert!(!name.contains(['/', ' ', ':', '#']), "{name}: {line}");
    }
}
