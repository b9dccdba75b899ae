//! `envhook audit`'s table, for people: one row per environment with
//! columns sized from their content and the terminal, then what to do:
//! each finding once, with its fix, identical findings of several
//! environments on one line with their names (`-v`: one block per
//! environment), then the summary. Text only; colour is the caller's
//! (anstyle codes, stripped where stdout is no terminal).

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};
use unicode_width::UnicodeWidthStr;

use crate::audit::{Audit, Hook, Row};
use crate::discovery::Context;
use crate::finding::Severity;
use findings::findings;

mod findings;

/// How to lay the table out.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Columns available (`None`: not a terminal, nothing is cut).
    pub width: Option<usize>,
    /// One findings block per environment instead of grouping.
    pub verbose: bool,
    /// Only the summary: one line per kind of finding, and the totals.
    pub summary_only: bool,
}

/// The terminal's width: `COLUMNS` when set (as shells export it), else
/// the terminal on stdout, else `None` (a pipe or a file: no cutting).
pub fn terminal_width(ctx: &Context) -> Option<usize> {
    if let Some(n) = ctx
        .var_str(crate::env_vars::COLUMNS)
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
    {
        return Some(n);
    }
    let size = rustix::termios::tcgetwinsize(std::io::stdout()).ok()?;
    (size.ws_col > 0).then_some(usize::from(size.ws_col))
}

const RED: Style = Style::new()
    .fg_color(Some(anstyle::Color::Ansi(AnsiColor::Red)))
    .bold();
const YELLOW: Style = Style::new().fg_color(Some(anstyle::Color::Ansi(AnsiColor::Yellow)));
const GREEN: Style = Style::new().fg_color(Some(anstyle::Color::Ansi(AnsiColor::Green)));
const DIM: Style = Style::new().dimmed();

/// A column: its header, the narrowest it may get, and whether it goes
/// first when even the narrowest widths do not fit.
struct Column {
    header: &'static str,
    min: usize,
    drop_rank: Option<u8>,
}

const COLUMNS: [Column; 6] = [
    Column {
        header: "ENV",
        min: 12,
        drop_rank: None,
    },
    Column {
        header: "CUDA",
        min: 4,
        drop_rank: Some(2),
    },
    Column {
        header: "CUDNN",
        min: 5,
        drop_rank: Some(1),
    },
    Column {
        header: "HOOK",
        min: 4,
        drop_rank: Some(3),
    },
    Column {
        header: "FRAMEWORKS",
        min: 12,
        drop_rank: Some(0),
    },
    Column {
        header: "STATUS",
        min: 12,
        drop_rank: None,
    },
];

/// Two spaces between columns.
const GAP: usize = 2;

/// Render the whole audit.
pub fn render(a: &Audit, layout: Layout) -> String {
    let mut out = String::new();
    if let Some(n) = &a.nothing_found {
        let width = layout.width.unwrap_or(usize::MAX).max(40);
        out.push_str("no environments found\n");
        let looked = if n.looked_in.is_empty() {
            "no conda root and no envs directory".to_string()
        } else {
            n.looked_in.join(", ")
        };
        wrap(&mut out, "  ", &format!("looked in: {looked}"), width);
        wrap(&mut out, "  ", &format!("hint: {}", n.hint), width);
    }
    if !layout.summary_only && a.nothing_found.is_none() {
        rows(a, layout, &mut out);
        changed(a, &mut out);
    }
    findings(a, layout, &mut out);
    for s in &a.stale {
        let text = format!(
            "stale entry {} in {}: {}",
            s.entry,
            s.file.display(),
            s.reason
        );
        let mut wrapped = String::new();
        wrap(
            &mut wrapped,
            "",
            &text,
            layout.width.unwrap_or(usize::MAX).max(40),
        );
        let _ = write!(out, "{DIM}{wrapped}{DIM:#}");
    }
    summary(a, layout, &mut out);
    out
}

/// The HOOK cell: as the JSON names it, with a dash for "not needed".
fn hook(r: &Row) -> &'static str {
    match r.hook {
        Hook::NotNeeded => "-",
        h => h.label(),
    }
}

/// The CUDA and CUDNN cells: a dash for none.
fn versions(claims: &[crate::inventory::Claim]) -> String {
    let v = crate::report::versions(claims);
    if v.is_empty() { "-".into() } else { v }
}

fn counts(r: &Row) -> (usize, usize) {
    let n = |s| r.findings.iter().filter(|p| p.severity == s).count();
    (n(Severity::Error), n(Severity::Warning))
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The STATUS cell and its colour.
fn status(r: &Row) -> (Style, String) {
    let (errors, warnings) = counts(r);
    if let Some(error) = r.status.error() {
        (RED, format!("unreadable: {error}"))
    } else if errors > 0 {
        (
            RED,
            format!(
                "{}, {}",
                plural(errors, "error"),
                plural(warnings, "warning")
            ),
        )
    } else if warnings > 0 {
        (YELLOW, plural(warnings, "warning"))
    } else {
        (GREEN, "ok".into())
    }
}

/// The order in which columns give way when the table is too wide:
/// frameworks first, the environment's name (what a reader looks for)
/// and the status last.
const SHRINK_ORDER: [usize; 6] = [4, 2, 1, 3, 0, 5];

/// Column widths from the content, narrowed to `width`: columns give way
/// in [`SHRINK_ORDER`], each down to its minimum; if even the minimums do
/// not fit, whole columns go (frameworks, then cuDNN, CUDA, hook) and the
/// rest get their room back.
fn widths(cells: &[[String; 6]], width: Option<usize>) -> [Option<usize>; 6] {
    let natural: [usize; 6] = std::array::from_fn(|i| {
        cells
            .iter()
            .map(|row| row[i].width())
            .chain([COLUMNS[i].header.len()])
            .max()
            .unwrap_or(0)
    });
    let mut shown = [true; 6];
    loop {
        let mut w: [Option<usize>; 6] = std::array::from_fn(|i| shown[i].then_some(natural[i]));
        let Some(limit) = width else { return w };
        let total = |w: &[Option<usize>; 6]| {
            let cols: Vec<usize> = w.iter().flatten().copied().collect();
            cols.iter().sum::<usize>() + GAP * cols.len().saturating_sub(1)
        };
        for i in SHRINK_ORDER {
            let excess = total(&w).saturating_sub(limit);
            if excess == 0 {
                break;
            }
            if let Some(n) = w[i] {
                let min = COLUMNS[i].min.min(n);
                w[i] = Some(n - excess.min(n - min));
            }
        }
        if total(&w) <= limit {
            return w;
        }
        let next = (0..6)
            .filter(|&i| shown[i])
            .filter_map(|i| COLUMNS[i].drop_rank.map(|r| (r, i)))
            .min();
        match next {
            Some((_, i)) => shown[i] = false,
            None => return w,
        }
    }
}

/// `text` cut to `width` display columns (with `…` when cut), padded.
fn cell(text: &str, width: usize) -> String {
    let mut out = if text.width() <= width {
        text.to_string()
    } else {
        let mut head = take_columns(text.chars(), width.saturating_sub(1));
        head.push('…');
        head
    };
    pad(&mut out, width);
    out
}

/// The leading characters of `chars` that fit in `columns` display
/// columns.
fn take_columns(chars: impl Iterator<Item = char>, columns: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in chars {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > columns {
            break;
        }
        out.push(c);
        used += w;
    }
    out
}

/// `out` padded with spaces to `width` display columns.
fn pad(out: &mut String, width: usize) {
    let n = width.saturating_sub(out.width());
    out.extend(std::iter::repeat_n(' ', n));
}

/// `text` cut in the middle to `width` display columns, padded: an
/// environment's name or prefix keeps its start and its end, where two
/// long prefixes differ (`/shared/conda/…/envs/paddle-a`), so two rows
/// never read the same.
fn cell_middle(text: &str, width: usize) -> String {
    if text.width() <= width || width < 5 {
        return cell(text, width);
    }
    let keep = width - 1;
    let mut out = take_columns(text.chars(), keep / 3);
    out.push('…');
    let tail = take_columns(text.chars().rev(), keep - keep / 3);
    out.extend(tail.chars().rev());
    pad(&mut out, width);
    out
}

fn rows(a: &Audit, layout: Layout, out: &mut String) {
    let cells: Vec<[String; 6]> = a
        .envs
        .iter()
        .map(|r| {
            let fws: Vec<String> = r
                .frameworks
                .iter()
                .map(|f| format!("{} {}", f.package, f.version))
                .collect();
            [
                r.label(),
                versions(&r.cuda),
                versions(&r.cudnn),
                hook(r).to_string(),
                if fws.is_empty() {
                    "-".into()
                } else {
                    fws.join(", ")
                },
                status(r).1,
            ]
        })
        .collect();
    let w = widths(&cells, layout.width);
    let line = |texts: &[String; 6], status_style: Option<Style>| {
        let mut parts = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let Some(width) = w[i] else { continue };
            let last = (i + 1..6).all(|j| w[j].is_none());
            let mut c = match i {
                0 => cell_middle(text, width),
                _ => cell(text, width),
            };
            if last {
                c = c.trim_end().to_string();
            }
            match (i, status_style) {
                (5, Some(s)) => parts.push(format!("{s}{c}{s:#}")),
                _ => parts.push(c),
            }
        }
        parts.join(&" ".repeat(GAP))
    };
    let header: [String; 6] = std::array::from_fn(|i| COLUMNS[i].header.to_string());
    let _ = writeln!(out, "{DIM}{}{DIM:#}", line(&header, None));
    for (r, texts) in a.envs.iter().zip(&cells) {
        let _ = writeln!(out, "{}", line(texts, Some(status(r).0)));
    }
}

/// What `--fix` changed.
fn changed(a: &Audit, out: &mut String) {
    let fixed: Vec<String> = a
        .envs
        .iter()
        .filter(|r| !r.fixed.is_empty())
        .map(Row::label)
        .collect();
    if !fixed.is_empty() {
        let _ = writeln!(out, "\nhooks written or refreshed: {}", fixed.join(", "));
    }
}

/// Word-wrap `text` at `width`, the first line after `lead`, the others
/// indented as deep.
fn wrap(out: &mut String, lead: &str, text: &str, width: usize) {
    let indent = " ".repeat(lead.width().min(8));
    let mut line = lead.to_string();
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && line.width() + 1 + word.width() > width {
            let _ = writeln!(out, "{line}");
            line = indent.clone();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    let _ = writeln!(out, "{line}");
}

fn summary(a: &Audit, layout: Layout, out: &mut String) {
    let t = &a.summary;
    let fixed = if t.fixed > 0 {
        format!("; hooks written in {}", plural(t.fixed, "environment"))
    } else {
        String::new()
    };
    let text = format!(
        "{}: {} ok, {} with findings, {} unreadable; {}, {}{fixed}",
        plural(t.envs, "environment"),
        t.ok,
        t.with_findings,
        t.unreadable,
        plural(t.errors, "error"),
        plural(t.warnings, "warning"),
    );
    if !out.is_empty() {
        out.push('\n');
    }
    wrap(out, "", &text, layout.width.unwrap_or(usize::MAX).max(40));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_in_the_middle_and_stay_apart() {
        let a = cell_middle("/shared/conda/installations/team-a/envs/paddle-a", 24);
        let b = cell_middle("/shared/conda/installations/team-a/envs/paddle-b", 24);
        assert_ne!(a, b);
        assert_eq!(a.width(), 24);
        assert!(
            a.starts_with("/shared") && a.trim_end().ends_with("envs/paddle-a"),
            "{a}"
        );
        assert_eq!(cell_middle("short", 10), "short     ");
    }

    #[test]
    fn cells_are_cut_and_padded_to_their_width() {
        assert_eq!(cell("paddlepaddle-gpu 2.6.2", 10), "paddlepad…");
        assert_eq!(cell("ok", 4), "ok  ");
        assert_eq!(cell("кот", 3), "кот");
        assert_eq!(cell("кот", 2), "к…");
    }

    #[test]
    fn narrow_terminals_drop_columns_before_misaligning() {
        let row: [String; 6] = [
            "paddle-long-name".into(),
            "11.8".into(),
            "8.9.2.26".into(),
            "current".into(),
            "paddlepaddle-gpu 2.5.2.post116, pytorch 2.4.1".into(),
            "2 warnings".into(),
        ];
        let w = widths(std::slice::from_ref(&row), Some(80));
        let total: usize =
            w.iter().flatten().sum::<usize>() + GAP * (w.iter().flatten().count() - 1);
        assert!(total <= 80, "{w:?}");
        assert!(w.iter().all(Option::is_some), "{w:?}");
        let w = widths(&[row], Some(40));
        assert_eq!(w[4], None, "frameworks go first: {w:?}");
        let total: usize =
            w.iter().flatten().sum::<usize>() + GAP * (w.iter().flatten().count() - 1);
        assert!(total <= 40, "{w:?}");
    }
}
