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
    /// One line for bash (or any POSIX shell), every path, name and
    /// version spec in it quoted by [`quoted`]: printed `fix:`.
    Command(String),
    /// What to choose, naming the concrete choices (which builds, which
    /// index, which environments), and the commands that carry them out
    /// where there are some, each one line as a `fix:` is: printed
    /// `choose:` with the commands under it.
    Choose {
        /// One sentence.
        advice: String,
        /// Commands, each one line; none when the choice is the user's.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        commands: Vec<String>,
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
    /// or `choose: ADVICE` with each command under it, two spaces deeper.
    pub fn lines(&self, indent: &str) -> Vec<String> {
        match self {
            Fix::Command(c) => vec![format!("{indent}fix: {c}")],
            Fix::Choose { advice, commands } => {
                std::iter::once(format!("{indent}choose: {advice}"))
                    .chain(commands.iter().map(|c| format!("{indent}  {c}")))
                    .collect()
            }
        }
    }

    /// The same fix with every string passed through `f` (audit's table
    /// writes one environment's prefix as `<env>` to group findings).
    pub fn map(&self, f: impl Fn(&str) -> String) -> Fix {
        match self {
            Fix::Command(c) => Fix::Command(f(c)),
            Fix::Choose { advice, commands } => Fix::Choose {
                advice: f(advice),
                commands: commands.iter().map(|c| f(c)).collect(),
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

/// `cmd`, a [`Fix::Command`] line in which `placeholder` stands for one
/// environment's prefix inside single quotes (as [`quoted`] writes it), as
/// one POSIX line that runs it for each of `prefixes`:
/// `for env in '/a' '/b'; do envhook install -p "$env"; done`. Audit's
/// table gives this for a finding several environments share, so the
/// grouped fix still pastes. `None` where the placeholder stands outside
/// single quotes, where substituting a variable would change the words.
pub fn for_each(cmd: &str, placeholder: &str, prefixes: &[String]) -> Option<String> {
    const VAR: &str = "\"$env\"";
    let mut body = String::with_capacity(cmd.len());
    let (mut single, mut double) = (false, false);
    // body's length just after the quote that opened the current single-
    // quoted word: a placeholder right there needs no empty `''` before it.
    let mut opened = usize::MAX;
    let mut rest = cmd;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix(placeholder) {
            if !single {
                return None;
            }
            if body.len() == opened {
                body.pop();
            } else {
                body.push('\'');
            }
            body.push_str(VAR);
            match after.strip_prefix('\'') {
                Some(after) => {
                    single = false;
                    rest = after;
                }
                None => {
                    body.push('\'');
                    opened = body.len();
                    rest = after;
                }
            }
            continue;
        }
        rest = &rest[c.len_utf8()..];
        body.push(c);
        match c {
            '\'' if !double => {
                single = !single;
                opened = body.len();
            }
            '"' if !single => double = !double,
            '\\' if !single => {
                if let Some(n) = rest.chars().next() {
                    body.push(n);
                    rest = &rest[n.len_utf8()..];
                }
            }
            _ => {}
        }
    }
    if single || double || !cmd.contains(placeholder) {
        return None;
    }
    let list: Vec<String> = prefixes.iter().map(|p| quoted(p)).collect();
    Some(format!("for env in {}; do {body}; done", list.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn each(cmd: &str) -> Option<String> {
        for_each(cmd, "<env>", &["/a b".into(), "/it's".into()])
    }

    #[test]
    fn a_quoted_prefix_becomes_the_loop_variable() {
        assert_eq!(
            each("envhook install -p '<env>'").as_deref(),
            Some("for env in '/a b' '/it'\\''s'; do envhook install -p \"$env\"; done")
        );
        assert_eq!(
            each("ls '<env>/lib/x' && rm -f 'a<env>'").as_deref(),
            Some(
                "for env in '/a b' '/it'\\''s'; do ls \"$env\"'/lib/x' && rm -f 'a'\"$env\"; done"
            )
        );
        // A quote escaped before the placeholder stays escaped.
        assert_eq!(
            each("echo 'it'\\''<env>'").as_deref(),
            Some("for env in '/a b' '/it'\\''s'; do echo 'it'\\'\"$env\"; done")
        );
    }

    /// What sh makes of the loop: each prefix whole, spaces and quotes kept.
    #[test]
    fn the_loop_gives_each_prefix_as_one_word() {
        let line = each("printf '[%s]\\n' '<env>/lib' 'x<env>'").unwrap();
        let out = std::process::Command::new("sh")
            .args(["-c", &line])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "[/a b/lib]\n[x/a b]\n[/it's/lib]\n[x/it's]\n"
        );
    }

    #[test]
    fn a_placeholder_outside_single_quotes_is_refused() {
        assert_eq!(each("envhook install -p <env>"), None);
        assert_eq!(each("echo \"<env>\""), None);
        assert_eq!(each("echo '\"' <env>"), None);
        assert_eq!(each("envhook audit"), None);
        assert_eq!(each("echo 'open <env>"), None);
    }
}
