//! Findings: what envhook found wrong in an environment, with a severity,
//! the file concerned and what to do. Commands exit 1 when they report a
//! finding of severity `warning` or `error` (see [`crate::exit`]).

pub mod prometheus;
pub mod table;

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; not a finding for the exit code.
    Info,
    /// Likely to cause trouble.
    Warning,
    /// Will break.
    Error,
}

impl Severity {
    /// The label printed before the message.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// How bad it is.
    pub severity: Severity,
    /// A stable identifier, e.g. `broken-install` (documented in the README).
    pub code: &'static str,
    /// One sentence saying what is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
    /// The file or directory concerned.
    #[serde(serialize_with = "crate::paths::serialize_opt")]
    pub path: Option<PathBuf>,
    /// The matrix row the finding rests on (its `source`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The versions of some claims (`12.6,11.8`; empty for none), as the
/// audit's table and metrics show them.
pub fn versions(claims: &[crate::inventory::Claim]) -> String {
    claims
        .iter()
        .map(|c| c.version.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// Whether any problem counts as a finding for the exit code.
pub fn has_findings(problems: &[Problem]) -> bool {
    problems.iter().any(|p| p.severity >= Severity::Warning)
}

/// How much goes to stderr besides errors: `-q` (only errors), default
/// (warnings), `-v` (warnings and notes). Set once by `main`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// `-q`.
    Quiet = 0,
    /// Neither flag.
    Normal = 1,
    /// `-v`.
    Verbose = 2,
}

static VERBOSITY: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(1);

/// Set the verbosity for the rest of the process.
pub fn set_verbosity(v: Verbosity) {
    VERBOSITY.store(v as u8, std::sync::atomic::Ordering::Relaxed);
}

/// The verbosity `main` set.
pub fn verbosity() -> Verbosity {
    match VERBOSITY.load(std::sync::atomic::Ordering::Relaxed) {
        0 => Verbosity::Quiet,
        1 => Verbosity::Normal,
        _ => Verbosity::Verbose,
    }
}

/// Print a warning that is not part of a command's report (a config file
/// discovery had to skip) to stderr, unless `-q`.
pub fn warn(message: &str) {
    if verbosity() >= Verbosity::Normal {
        let _ = writeln!(std::io::stderr().lock(), "warning: {message}");
    }
}

/// Print a note on how the work was done (`-v` only) to stderr.
pub fn note(message: &str) {
    if verbosity() >= Verbosity::Verbose {
        let _ = writeln!(std::io::stderr().lock(), "note: {message}");
    }
}
