//! `envhook explain "<error text>"`: what a pasted error message means, and
//! which of `check`'s findings cause it in this environment. The messages
//! are in `data/explain.toml`.

use std::io::Write;
use std::sync::LazyLock;

use serde::Deserialize;

use crate::cli::ExplainArgs;
use crate::discovery::Context;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::report::Problem;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    pattern: String,
    title: String,
    explanation: String,
    codes: Vec<String>,
    #[allow(dead_code)] // documentation for reviewers
    source: String,
}

#[derive(Debug, Deserialize)]
struct File {
    message: Vec<Row>,
}

static MESSAGES: LazyLock<Vec<Row>> = LazyLock::new(|| {
    toml::from_str::<File>(include_str!("../../data/explain.toml"))
        .expect("data/explain.toml is checked by the test suite")
        .message
});

/// The library name in a message such as
/// `OSError: libcudnn.so.8: cannot open shared object file`.
fn soname_in(message: &str) -> Option<String> {
    message
        .split(|c: char| c.is_whitespace() || matches!(c, ':' | '(' | ')' | '"' | '\'' | ','))
        .find(|w| w.starts_with("lib") && (w.ends_with(".so") || w.contains(".so.")))
        .map(String::from)
}

/// Run `explain`.
pub fn run(args: &ExplainArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    let lower = args.message.to_lowercase();
    let row = MESSAGES.iter().find(|r| lower.contains(&r.pattern));
    let report = super::check::report(&args.env, &args.target, ctx)?;
    let w = Error::Output;
    let Some(row) = row else {
        writeln!(
            out,
            "envhook does not know this message; `envhook check` reports:"
        )
        .map_err(w)?;
        for p in &report.findings {
            writeln!(out, "  {}[{}]: {}", p.severity.label(), p.code, p.message).map_err(w)?;
        }
        return Ok(if crate::report::has_findings(&report.findings) {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        });
    };
    let soname = soname_in(&args.message);
    writeln!(out, "{}", row.title).map_err(w)?;
    writeln!(out, "  {}", row.explanation).map_err(w)?;
    let relevant: Vec<&Problem> = report
        .findings
        .iter()
        .filter(|p| {
            row.codes.iter().any(|c| c == p.code)
                || soname.as_deref().is_some_and(|s| p.message.contains(s))
        })
        .collect();
    writeln!(out, "\nin {}:", report.prefix.display()).map_err(w)?;
    if let Some(s) = &soname {
        for lib in &report.libraries {
            for n in lib.names.iter().filter(|n| &n.name == s) {
                let place = |f: &Option<crate::machine::resolve::Found>| {
                    f.as_ref().map_or("not found".to_string(), |f| {
                        format!("{} ({})", f.path.display(), f.rule.label())
                    })
                };
                writeln!(
                    out,
                    "  {} {} {s}: with envhook's hook {}; without {}",
                    lib.object.display(),
                    if n.kind == "dlopen" { "loads" } else { "needs" },
                    place(&n.with_hook),
                    place(&n.without_hook)
                )
                .map_err(w)?;
            }
        }
    }
    if relevant.is_empty() {
        writeln!(out, "  none of the known causes is present").map_err(w)?;
        return Ok(ExitStatus::Success);
    }
    for p in &relevant {
        writeln!(out, "  {}[{}]: {}", p.severity.label(), p.code, p.message).map_err(w)?;
        if let Some(h) = &p.hint {
            writeln!(out, "      fix: {h}").map_err(w)?;
        }
    }
    Ok(
        if crate::report::has_findings(&relevant.iter().map(|p| (*p).clone()).collect::<Vec<_>>()) {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_parse_and_name_known_codes() {
        let known = [
            "broken-install",
            "cudnn-without-libraries",
            "mixed-cuda-runtimes",
            "framework-from-conda-and-pip",
            "driver-too-old",
            "driver-older-than-cuda",
            "no-cuda-driver",
            "no-driver",
            "gpu-unsupported",
            "gpu-unknown",
            "cuda-mismatch",
            "cuda-older-than-build",
            "no-cuda-runtime",
            "no-cudnn",
            "cudnn-mismatch",
            "cudnn-older-than-build",
            "cudnn-cuda-mismatch",
            "cudnn-cuda-unlisted",
            "stub-on-path",
            "stub-libcuda",
            "library-not-found",
            "missing-dev-symlink",
            "needs-hook",
            "system-library-wins",
            "stale-hook",
        ];
        assert!(MESSAGES.len() >= 6);
        for row in MESSAGES.iter() {
            assert_eq!(
                row.pattern,
                row.pattern.to_lowercase(),
                "patterns are lower case"
            );
            for c in &row.codes {
                assert!(known.contains(&c.as_str()), "unknown code {c}");
            }
        }
    }

    #[test]
    fn sonames_in_messages() {
        assert_eq!(
            soname_in(
                "OSError: libcudnn.so.8: cannot open shared object file: No such file or directory"
            )
            .as_deref(),
            Some("libcudnn.so.8")
        );
        assert_eq!(
            soname_in("The third-party dynamic library (libcudnn.so) that Paddle depends on is not configured correctly.").as_deref(),
            Some("libcudnn.so")
        );
        assert_eq!(soname_in("CUDA driver version is insufficient"), None);
    }
}
