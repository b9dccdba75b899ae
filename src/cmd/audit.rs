//! `envhook audit`: a table for people (colour only on a terminal, NO_COLOR
//! honoured, through anstream), a JSON document for CI, a summary line, and
//! a progress bar on stderr when there are many environments.

use std::io::{IsTerminal, Write};

use anstyle::{AnsiColor, Style};

use crate::audit::{self, Audit, Hook};
use crate::cli::AuditArgs;
use crate::discovery::{Context, Discovery};
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::machine::driver;
use crate::report::Severity;

/// Environments from which a progress bar is worth drawing.
const PROGRESS_FROM: usize = 8;

/// Run `audit`.
pub fn run(args: &AuditArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    let started = std::time::Instant::now();
    super::require_dirs(&args.envs_dirs)?;
    let matrix = args.target.matrix(ctx)?;
    let discovery = Discovery::run(ctx, &args.envs_dirs);
    for w in &discovery.warnings {
        crate::report::warn(w);
    }
    crate::report::note(&format!(
        "{} environments, from {} root prefixes and {} envs directories",
        discovery.envs.len(),
        discovery.roots.len(),
        discovery.envs_dirs.len()
    ));
    let driver = driver::detect(ctx, &args.target.driver_flags(&matrix)?, &matrix);
    let total = discovery.envs.len();
    let bar = if total >= PROGRESS_FROM
        && std::io::stderr().is_terminal()
        && crate::report::verbosity() > crate::report::Verbosity::Quiet
    {
        indicatif::ProgressBar::new(total as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let a = audit::run(discovery, matrix, driver, ctx, args.fix, threads, &|| {
        bar.inc(1)
    });
    bar.finish_and_clear();
    crate::report::note(&format!(
        "audited {total} environments in {} ms",
        started.elapsed().as_millis()
    ));
    if args.json {
        super::write_json(out, &a)?;
    } else {
        render(&a, out).map_err(Error::Output)?;
    }
    let any_error = a
        .envs
        .iter()
        .any(|r| r.status == "unreadable" || r.worst() == Some(Severity::Error));
    Ok(if any_error {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}

fn render(a: &Audit, out: &mut impl Write) -> std::io::Result<()> {
    let mut text = Vec::new();
    table(a, &mut text)?;
    // Colour only where stdout is a terminal, as anstream decides it (it
    // honours NO_COLOR and CLICOLOR_FORCE).
    let text = String::from_utf8_lossy(&text);
    match anstream::AutoStream::choice(&std::io::stdout()) {
        anstream::ColorChoice::Never => {
            out.write_all(anstream::adapter::strip_str(&text).to_string().as_bytes())
        }
        _ => out.write_all(text.as_bytes()),
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn table(a: &Audit, mut out: impl Write) -> std::io::Result<()> {
    let red = Style::new().fg_color(Some(AnsiColor::Red.into())).bold();
    let yellow = Style::new().fg_color(Some(AnsiColor::Yellow.into()));
    let green = Style::new().fg_color(Some(AnsiColor::Green.into()));
    let dim = Style::new().dimmed();
    let name = |r: &audit::Row| {
        r.name
            .clone()
            .unwrap_or_else(|| r.prefix.display().to_string())
    };
    let width = a
        .envs
        .iter()
        .map(|r| name(r).chars().count())
        .max()
        .unwrap_or(3)
        .clamp(3, 40);
    writeln!(
        out,
        "{dim}{:<width$}  {:<10} {:<10} {:<8} {:<28} STATUS{dim:#}",
        "ENV", "CUDA", "CUDNN", "HOOK", "FRAMEWORKS"
    )?;
    for r in &a.envs {
        let join = |claims: &[crate::inventory::Claim]| {
            let v: Vec<&str> = claims.iter().map(|c| c.version.as_str()).collect();
            if v.is_empty() {
                "-".to_string()
            } else {
                v.join(",")
            }
        };
        let hook = match r.hook {
            Hook::None => "none",
            Hook::Current => "current",
            Hook::Stale => "stale",
            Hook::Moved => "moved",
            Hook::Foreign => "foreign",
            Hook::Legacy => "legacy",
            Hook::NotNeeded => "-",
        };
        let fws: Vec<String> = r
            .frameworks
            .iter()
            .map(|f| format!("{} {}", f.package, f.version))
            .collect();
        let fws = if fws.is_empty() {
            "-".into()
        } else {
            fws.join(", ")
        };
        let errors = r
            .findings
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count();
        let warnings = r
            .findings
            .iter()
            .filter(|p| p.severity == Severity::Warning)
            .count();
        let (style, status) = match r.status {
            "unreadable" => (
                red,
                format!("unreadable: {}", r.error.as_deref().unwrap_or("")),
            ),
            _ if errors > 0 => (
                red,
                format!(
                    "{}, {}",
                    plural(errors, "error"),
                    plural(warnings, "warning")
                ),
            ),
            _ if warnings > 0 => (yellow, plural(warnings, "warning")),
            _ => (green, "ok".to_string()),
        };
        let fixed = if r.fixed.is_empty() {
            String::new()
        } else {
            " (hooks written)".to_string()
        };
        writeln!(
            out,
            "{:<width$}  {:<10} {:<10} {:<8} {:<28} {style}{status}{style:#}{fixed}",
            name(r),
            join(&r.cuda),
            join(&r.cudnn),
            hook,
            fws
        )?;
        for p in r
            .findings
            .iter()
            .filter(|p| p.severity >= Severity::Warning)
        {
            let s = if p.severity == Severity::Error {
                red
            } else {
                yellow
            };
            writeln!(
                out,
                "  {s}{}[{}]{s:#}: {}",
                p.severity.label(),
                p.code,
                p.message
            )?;
        }
    }
    for s in &a.stale {
        writeln!(
            out,
            "{dim}stale entry {} in {}: {}{dim:#}",
            s.entry,
            s.file.display(),
            s.reason
        )?;
    }
    let t = &a.summary;
    writeln!(
        out,
        "\n{}: {} ok, {} with findings, {} unreadable; {}, {}{}",
        plural(t.envs, "environment"),
        t.ok,
        t.with_findings,
        t.unreadable,
        plural(t.errors, "error"),
        plural(t.warnings, "warning"),
        if t.fixed > 0 {
            format!("; hooks written in {}", t.fixed)
        } else {
            String::new()
        }
    )
}
