//! The findings under audit's table: each kind once, with its fix,
//! identical findings of several environments grouped with their names
//! and their fix run for each in one loop (`-v`: one block per
//! environment).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use unicode_width::UnicodeWidthStr;

use super::{Layout, RED, YELLOW, cell, wrap};
use crate::audit::{Audit, Row};
use crate::finding::{Cmd, Code, Fix, Severity};

/// One kind of finding, and the environments that have it.
struct Group<'a> {
    severity: Severity,
    code: Code,
    /// Message and fix with the environment's prefix set aside (`<env>`
    /// in the message, paths relative to it in the fix's commands) when
    /// several environments may share them.
    message: String,
    fix: Option<Fix>,
    envs: Vec<&'a Row>,
    /// Further findings of the same code and fix in one environment.
    more: usize,
}

impl Group<'_> {
    /// A command of the group's fix as pasted: for its one environment,
    /// or run for each of them in one loop.
    fn line(&self, c: &Cmd) -> String {
        match &self.envs[..] {
            [one] => c.in_env(&one.prefix),
            many => {
                let prefixes: Vec<PathBuf> = many.iter().map(|r| r.prefix.clone()).collect();
                c.for_each(&prefixes)
            }
        }
    }
}

/// Findings of warning or error severity, each kind once: within an
/// environment, those of one code with one fix are one entry (the first
/// message, and how many more); across environments, entries that read the
/// same once the prefix is set aside are one group.
fn groups(a: &Audit, verbose: bool) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    for r in &a.envs {
        let general = !verbose && !r.prefix.as_os_str().is_empty();
        let mut own: Vec<Group<'_>> = Vec::new();
        let shown = r
            .findings
            .iter()
            .filter(|p| p.severity >= Severity::Warning);
        for p in shown {
            let fix = match &p.fix {
                Some(f) if general => Some(f.generalised(&r.prefix)),
                other => other.clone(),
            };
            match own.iter_mut().find(|g| g.code == p.code && g.fix == fix) {
                Some(g) => g.more += 1,
                None => own.push(Group {
                    severity: p.severity,
                    code: p.code,
                    message: match general {
                        true => set_aside(&p.message, &r.prefix),
                        false => p.message.clone(),
                    },
                    fix,
                    envs: vec![r],
                    more: 0,
                }),
            }
        }
        if let Some(error) = r.status.error() {
            own.push(Group {
                severity: Severity::Error,
                code: Code::Unreadable,
                message: error.to_string(),
                fix: None,
                envs: vec![r],
                more: 0,
            });
        }
        for g in own {
            let same = groups.iter_mut().find(|h| {
                !verbose
                    && h.code == g.code
                    && h.severity == g.severity
                    && h.message == g.message
                    && h.fix == g.fix
                    && h.more == g.more
            });
            match same {
                Some(h) => h.envs.extend(g.envs),
                None => groups.push(g),
            }
        }
    }
    // A message that names only one environment reads better with its
    // own prefix back in.
    for g in &mut groups {
        if let [one] = &g.envs[..] {
            g.message = g.message.replace(ENV, &one.prefix.to_string_lossy());
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.severity));
    groups
}

/// What stands for an environment's prefix in a grouped message.
const ENV: &str = "<env>";

/// `text` with each mention of `prefix` as a whole path (followed by `/`,
/// the end, or a character no path name continues with in a sentence)
/// written [`ENV`]: `/envs/a` is not set aside inside `/envs/ab`.
fn set_aside(text: &str, prefix: &Path) -> String {
    let prefix = prefix.to_string_lossy();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&*prefix) {
        let (before, from) = rest.split_at(at);
        let after = &from[prefix.len()..];
        out.push_str(before);
        let starts = before
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || "/._-~".contains(c)));
        let mut next = after.chars();
        let ends = match next.next() {
            None => true,
            Some(c) if c == '/' || c.is_whitespace() || "'\"`),;:)]".contains(c) => true,
            // A full stop ends a sentence, not a name, when a space or the
            // end follows it.
            Some('.') => next.next().is_none_or(char::is_whitespace),
            Some(_) => false,
        };
        if starts && ends {
            out.push_str(ENV);
        } else {
            out.push_str(&prefix);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

pub(super) fn findings(a: &Audit, layout: Layout, out: &mut String) {
    let groups = groups(a, layout.verbose);
    if groups.is_empty() {
        return;
    }
    let width = layout.width.unwrap_or(usize::MAX).max(40);
    // A blank line after the table; `--summary` has none above it.
    if !out.is_empty() {
        out.push('\n');
    }
    for g in groups {
        let style = if g.severity == Severity::Error {
            RED
        } else {
            YELLOW
        };
        let label = format!("{}[{}]", g.severity.label(), g.code);
        let names: Vec<String> = g.envs.iter().map(|r| r.label()).collect();
        let who = if names.len() == 1 {
            names[0].clone()
        } else {
            format!("{} environments: {}", names.len(), names.join(", "))
        };
        // On a terminal, a long list of names is cut to the line (-v
        // lists each environment on its own).
        let who = match layout.width {
            Some(w) => cell(&who, w.saturating_sub(label.width() + 1).max(10))
                .trim_end()
                .to_string(),
            None => who,
        };
        let _ = writeln!(out, "{style}{label}{style:#} {who}");
        if layout.summary_only {
            continue;
        }
        let mut message = g.message.clone();
        if g.more > 0 {
            message.push_str(&format!(" (and {} more like it)", g.more));
        }
        wrap(out, "  ", &message, width);
        // A command is never wrapped: it is pasted as one line.
        match &g.fix {
            Some(Fix::Command(c)) => {
                let _ = writeln!(out, "  fix: {}", g.line(c));
            }
            Some(Fix::Choose { advice, commands }) => {
                wrap(out, "  choose: ", advice, width);
                for c in commands {
                    let _ = writeln!(out, "    {}", g.line(c));
                }
            }
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_is_set_aside_only_as_a_whole_path() {
        let p = Path::new("/envs/a");
        assert_eq!(
            set_aside("/envs/a/lib/x and /envs/ab/lib and /envs/a.", p),
            "<env>/lib/x and /envs/ab/lib and <env>."
        );
        assert_eq!(
            set_aside("'/envs/a' /x/envs/a /envs/a.so", p),
            "'<env>' /x/envs/a /envs/a.so"
        );
    }
}
