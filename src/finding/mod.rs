//! What a finding is: a severity, a stable code, one sentence, what to do
//! and the file concerned. Made by the inventory, the rules, activation and
//! explain; rendered by [`crate::report`] (table, JSON, Prometheus).
//! Commands exit 1 when they report a finding of severity `warning` or
//! `error` (see [`crate::exit`]).

mod code;
mod command;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use code::Code;
pub use command::Cmd;

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

    /// `severity[code]`, the severity word and the code styled when `on`
    /// (see [`crate::colour`]): the part of a finding's line the eye
    /// looks for first.
    pub fn tag(self, code: Code, on: bool) -> String {
        use crate::colour::{CODE, ERROR, NOTE, WARNING, paint};
        let style = match self {
            Severity::Info => NOTE,
            Severity::Warning => WARNING,
            Severity::Error => ERROR,
        };
        format!(
            "{}[{}]",
            paint(on, style, self.label()),
            paint(on, CODE, code.as_str())
        )
    }
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// How bad it is.
    pub severity: Severity,
    /// A stable identifier, e.g. `broken-install` (documented in docs/findings.md).
    pub code: Code,
    /// One sentence saying what is wrong.
    pub message: String,
    /// What to do about it: one command (`fix:`), or where no one command
    /// does it, the choices (`choose:`).
    pub fix: Option<Fix>,
    /// The file or directory concerned.
    #[serde(serialize_with = "crate::paths::serialize_opt")]
    pub path: Option<PathBuf>,
    /// The matrix row the finding rests on (its `source`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// What to do about a finding. A user pastes a [`Fix::Command`] as it is;
/// advice that no one command carries out is a [`Fix::Choose`], printed
/// under another label so that a `fix:` line is always a command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum Fix {
    /// One line for bash (or any POSIX shell), its values and paths
    /// quoted where it is rendered: printed `fix:`.
    Command(Cmd),
    /// What to choose, naming the concrete choices (which builds, which
    /// index, which environments), and the commands that carry them out
    /// where there are some, each one line as a `fix:` is: printed
    /// `choose:` with the commands under it.
    Choose {
        /// One sentence.
        advice: String,
        /// Commands, each one line; none when the choice is the user's.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        commands: Vec<Cmd>,
    },
}

impl Fix {
    /// Advice with no command.
    pub fn advice(advice: impl Into<String>) -> Fix {
        Fix::Choose {
            advice: advice.into(),
            commands: Vec::new(),
        }
    }

    /// The lines a person reads, each indented by `indent`: `fix: COMMAND`,
    /// or `choose: ADVICE` with each command under it, two spaces deeper;
    /// the `fix:` line and the commands styled when `on` (see
    /// [`crate::colour`]), the advice sentence left plain.
    pub fn painted_lines(&self, indent: &str, on: bool) -> Vec<String> {
        use crate::colour::{FIX, paint};
        match self {
            Fix::Command(c) => vec![format!("{indent}{}", paint(on, FIX, &format!("fix: {c}")))],
            Fix::Choose { advice, commands } => {
                std::iter::once(format!("{indent}choose: {advice}"))
                    .chain(
                        commands
                            .iter()
                            .map(|c| format!("{indent}  {}", paint(on, FIX, &c.to_string()))),
                    )
                    .collect()
            }
        }
    }

    /// The same fix with every path inside `env` held relative to it
    /// ([`Cmd::generalised`]): audit groups environments' fixes by it.
    pub fn generalised(&self, env: &Path) -> Fix {
        match self {
            Fix::Command(c) => Fix::Command(c.generalised(env)),
            Fix::Choose { advice, commands } => Fix::Choose {
                advice: advice.clone(),
                commands: commands.iter().map(|c| c.generalised(env)).collect(),
            },
        }
    }
}

/// One word of a fix's command line (a path, a package name, a version
/// spec), quoted for POSIX shells: single quotes, with `'` written `'\''`,
/// whatever the value holds, so a prefix with spaces, `$` or quotes pastes
/// as it reads. The definition of
/// [`crate::activation::shell::quote::posix`], kept on this floor because
/// the inventory and the rules, below activation, build fixes too.
pub fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// [`quoted`] for a path.
pub fn quoted_path(p: &std::path::Path) -> String {
    quoted(&p.to_string_lossy())
}

/// Whether any problem counts as a finding for the exit code.
pub fn has_findings(problems: &[Problem]) -> bool {
    problems.iter().any(|p| p.severity >= Severity::Warning)
}
