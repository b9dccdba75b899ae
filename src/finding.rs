//! What a finding is: a severity, a stable code, one sentence, what to do
//! and the file concerned. Made by the inventory, the rules, activation and
//! explain; rendered by [`crate::report`] (table, JSON, Prometheus).
//! Commands exit 1 when they report a finding of severity `warning` or
//! `error` (see [`crate::exit`]).

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
    /// A stable identifier, e.g. `broken-install` (documented in docs/findings.md).
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

/// Whether any problem counts as a finding for the exit code.
pub fn has_findings(problems: &[Problem]) -> bool {
    problems.iter().any(|p| p.severity >= Severity::Warning)
}
