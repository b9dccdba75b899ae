//! The README's walkthrough is what envhook says: every `console` block is
//! run, command by command in one bash, with only the binary (as a pip user
//! has it: the first command, `envhook demo`, lays out the demo in a
//! sandbox in place of the README's `/tmp/envhook-demo`), and its output
//! must be the block's. A line `…` stands for any number of lines; fingerprints (16
//! hex digits, which hash the prefix) are compared as such.

use crate::support;

use support::Sandbox;

const DEMO: &str = "/tmp/envhook-demo";

/// A console block: its commands (`$ ` lines) and the output expected.
struct Block {
    commands: Vec<String>,
    expected: Vec<String>,
}

fn blocks(readme: &str) -> Vec<Block> {
    readme
        .split("```console\n")
        .skip(1)
        .map(|rest| {
            let body = rest.split("\n```").next().unwrap();
            let mut block = Block {
                commands: Vec::new(),
                expected: Vec::new(),
            };
            for line in body.lines() {
                match line.strip_prefix("$ ") {
                    Some(cmd) => block.commands.push(cmd.to_string()),
                    None => block.expected.push(line.to_string()),
                }
            }
            block
        })
        .collect()
}

/// 16-hex-digit runs (fingerprints) as `<fp>`.
fn normalize(line: &str) -> String {
    let mut out = String::new();
    let mut run = String::new();
    for c in line.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() || ('a'..='f').contains(&c) {
            run.push(c);
            continue;
        }
        if run.len() == 16 {
            out.push_str("<fp>");
        } else {
            out.push_str(&run);
        }
        run.clear();
        out.push(c);
    }
    out.pop();
    out
}

/// Whether `actual` is `expected`, where an expected `…` line matches any
/// number of lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e.trim() == "…" => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, tail)| normalize(e) == normalize(a) && matches(rest, tail)),
    }
}

#[test]
fn the_matcher_skips_elisions_and_fingerprints() {
    let lines = |s: &str| s.lines().map(String::from).collect::<Vec<_>>();
    assert!(matches(
        &lines("a\n…\nd cuda-4d6ac5bb9ebb5f27"),
        &lines("a\nb\nc\nd cuda-0123456789abcdef")
    ));
    assert!(matches(&lines("a\n…"), &lines("a")));
    assert!(!matches(&lines("a\n…\nd"), &lines("a\nb")));
    assert!(!matches(&lines("a"), &lines("a\nb")));
    assert!(!matches(
        &lines("x 4d6ac5bb9ebb5f27"),
        &lines("x 4d6ac5bb9ebb5f2")
    ));
}

#[test]
fn the_readme_walkthrough_is_what_envhook_says() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let blocks = blocks(&readme);
    assert!(blocks.len() >= 4, "console blocks were not read");
    let first = blocks[0].commands.first().map(String::as_str);
    assert_eq!(
        first,
        Some("envhook demo /tmp/envhook-demo"),
        "the walkthrough starts with the demo"
    );
    let sb = Sandbox::new();
    let demo = sb.path("demo").display().to_string();
    let bin = assert_cmd::cargo::cargo_bin("envhook");
    let mut ran = 0;
    for block in &blocks {
        // `envhook` is the binary under test, and nothing else is at hand.
        let script: Vec<String> = block
            .commands
            .iter()
            .inspect(|c| assert!(!c.contains("cargo"), "the walkthrough needs cargo: {c}"))
            .map(|c| c.replace(DEMO, &demo))
            .collect();
        ran += script.len();
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "envhook() {{ '{}' \"$@\"; }}\n{}",
                bin.display(),
                script.join("\n")
            ))
            .env_clear()
            .env("HOME", sb.home())
            .env("PATH", "/usr/bin:/bin")
            .env("ENVHOOK_SYSROOT", sb.path("sysroot"))
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let actual: Vec<String> = stdout.lines().map(|l| l.replace(&demo, DEMO)).collect();
        assert!(
            matches(&block.expected, &actual),
            "the README says, for\n{}\n\n{}\n\nbut envhook says\n\n{}\n\n(stderr: {})",
            block.commands.join("\n"),
            block.expected.join("\n"),
            actual.join("\n"),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(ran >= 8, "commands were not run: {ran}");
}
