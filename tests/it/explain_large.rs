//! `envhook explain` on pastes far larger than a traceback (#38 item 5):
//! thousands of distinct libraries, 10^5 lines, a 1 MiB symbol name. What
//! it prints stays bounded, whatever the paste holds: the first distinct
//! names are answered and the rest counted, a name no library or symbol
//! could have is echoed once, clipped. The work is linear by construction
//! (a set of the clues seen, a fixed number answered); these tests hold
//! the output's size, never a time (benches/explain-lines.sh times it).

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::Sandbox;
use support::explaining::{A100, torch_cu128};

/// What a message names, answered at most this many times (the cap of
/// `src/explain/clues.rs`).
const ANSWERED: usize = 16;

/// No answer for a person about any paste is longer than this: sixteen
/// answers of a dozen lines, the message's titles and the closing line.
const MAX_TEXT: usize = 32 * 1024;

/// `envhook explain` of `message` on standard input, for a person (or
/// `--json`): what it printed, and the exit code.
fn explain_stdin(sb: &Sandbox, prefix: &Path, message: &str, json: bool) -> (String, i32) {
    let mut cmd = sb.envhook();
    cmd.arg("explain");
    if json {
        cmd.arg("--json");
    }
    let out = cmd
        .args(A100)
        .arg("-p")
        .arg(prefix)
        .write_stdin(message.as_bytes().to_vec())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

/// `n` lines, each about another library (`libmissing7.so.1`), as a log
/// of failed loads writes them.
fn distinct_lines(n: usize) -> String {
    (0..n)
        .map(|i| format!("OSError: libmissing{i}.so.1: cannot open shared object file\n"))
        .collect()
}

#[test]
fn sixteen_thousand_distinct_libraries_get_the_first_answered_and_a_count() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("env"));
    let message = distinct_lines(16000);
    // All of it is read: standard input is read up to 1 MiB.
    assert!(message.len() < 1 << 20);
    let (text, code) = explain_stdin(&sb, &env.prefix, &message, false);
    assert_eq!(code, 0, "{text}");
    assert!(text.len() <= MAX_TEXT, "{} bytes", text.len());
    assert!(text.contains("\n  libmissing0.so.1\n"), "{text}");
    assert!(text.contains("\n  libmissing15.so.1\n"), "{text}");
    assert!(!text.contains("libmissing16.so.1"), "{text}");
    assert!(
        text.contains(&format!(
            "  ... and 15984 more libraries, symbols or DLLs the message names, left out: \
             envhook answers the first {ANSWERED}\n"
        )),
        "{text}"
    );
    let (json, _) = explain_stdin(&sb, &env.prefix, &message, true);
    let json: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["answers"].as_array().unwrap().len(), ANSWERED);
    assert_eq!(json["left_out"], 15984);
}

/// 10^5 short lines (about the 1 MiB that standard input is read up to),
/// each naming one of 1000 libraries: the repeats are one clue each, the
/// output as bounded as for a few.
#[test]
fn a_hundred_thousand_lines_print_a_bounded_answer() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("env"));
    let message: String = (0..100_000)
        .map(|i| format!("lib{}.so\n", i % 1000))
        .collect();
    assert!(message.len() < 1 << 20);
    let (text, code) = explain_stdin(&sb, &env.prefix, &message, false);
    assert_eq!(code, 0, "{text}");
    assert!(text.len() <= MAX_TEXT, "{} bytes", text.len());
    assert!(
        text.contains("  ... and 984 more libraries, symbols or DLLs"),
        "{text}"
    );
}

/// A symbol name of 1 MiB, less its line (standard input is read up to
/// 1 MiB), a paste cut mid-line or made to hurt, is echoed
/// once, clipped to its first bytes and its length; never looked up, never
/// repeated in the diagnosis, in either output.
#[test]
fn a_one_mebibyte_symbol_name_is_echoed_once_and_clipped() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("env"));
    let name = format!("cudnnX{}", "y".repeat((1 << 20) - 106));
    let message = format!("ImportError: /x/libtorch_cuda.so: undefined symbol: {name}\n");
    assert!(message.len() < 1 << 20);
    for json in [false, true] {
        let (out, code) = explain_stdin(&sb, &env.prefix, &message, json);
        assert_eq!(code, 0, "{out}");
        assert!(out.len() <= MAX_TEXT, "{} bytes", out.len());
        let kept = &name[..80];
        assert_eq!(out.matches(kept).count(), 1, "{out}");
        assert!(out.contains(&format!("{kept}... (1048476 bytes)")), "{out}");
    }
}
