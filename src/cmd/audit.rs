//! `envhook audit`: every environment, then (with `--fix`) the plan, a
//! confirmation on a terminal, the fixes, and the state after them; as a
//! table (`report::table`), JSON, or Prometheus text (`report::prometheus`),
//! to stdout or atomically to `--output`.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Instant;

use crate::audit::{self, Audit, FixAction, FixPlan};
use crate::cli::{AuditArgs, AuditFormat};
use crate::discovery::{Context, Discovery};
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::machine::driver::{self, Driver};
use crate::report::table;

/// Environments from which a progress bar is worth drawing.
const PROGRESS_FROM: usize = 8;

/// Run `audit`.
pub fn run(args: &AuditArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    let started = Instant::now();
    super::require_dirs(&args.envs_dirs)?;
    let format = if args.json {
        AuditFormat::Json
    } else {
        args.format
    };
    let matrix = std::sync::Arc::new(args.target.matrix(ctx)?);
    let driver = driver::detect(ctx, &args.target.driver_flags(&matrix)?, &matrix);
    let mut a = audit_all(args, ctx, &matrix, &driver)?;
    if args.fix {
        let plans = audit::plan_fixes(&a);
        show_plan(&plans, args, format, out)?;
        let applied = if !args.dry_run && audit::acts(&plans) && confirmed(args, out)? {
            let applied = audit::apply_fixes(&plans);
            // The state after the fixes.
            a = audit_all(args, ctx, &matrix, &driver)?;
            Some(applied)
        } else {
            None
        };
        audit::record_fixes(&mut a, plans, applied);
    }
    crate::notice::note(&format!(
        "audited {} environments in {} ms",
        a.envs.len(),
        started.elapsed().as_millis()
    ));
    let text = render(&a, args, ctx, format, started)?;
    match &args.output {
        Some(path) => super::output::replace_file(path, text.as_bytes())?,
        None => out.write_all(text.as_bytes()).map_err(Error::Output)?,
    }
    Ok(if a.needs_action() {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}

/// The `--fix` plan goes where the user reads it: stdout for the table (it
/// is part of the report; with `--dry-run` a blank line parts it from the
/// state as it is), stderr for machine formats and `--output`.
fn show_plan(
    plans: &[FixPlan],
    args: &AuditArgs,
    format: AuditFormat,
    out: &mut impl Write,
) -> Result<()> {
    let mut text = Vec::new();
    print_plan(plans, args.dry_run, &mut text).map_err(Error::Output)?;
    if format == AuditFormat::Table && args.output.is_none() {
        out.write_all(&text).map_err(Error::Output)?;
        if args.dry_run {
            writeln!(out).map_err(Error::Output)?;
        }
    } else if crate::notice::verbosity() > crate::notice::Verbosity::Quiet {
        std::io::stderr().write_all(&text).map_err(Error::Output)?;
    }
    Ok(())
}

/// The audit in the format asked for.
fn render(
    a: &Audit,
    args: &AuditArgs,
    ctx: &Context,
    format: AuditFormat,
    started: Instant,
) -> Result<String> {
    Ok(match format {
        AuditFormat::Table => {
            let layout = table::Layout {
                width: if args.output.is_some() {
                    None
                } else {
                    table::terminal_width(ctx)
                },
                verbose: crate::notice::verbosity() == crate::notice::Verbosity::Verbose,
                summary_only: args.summary,
            };
            colour(&table::render(a, layout), args.output.is_none())
        }
        AuditFormat::Json => {
            let mut v = Vec::new();
            crate::report::json::write(&mut v, a)?;
            String::from_utf8(v).expect("JSON is UTF-8")
        }
        AuditFormat::Prometheus => crate::report::prometheus::render(a, started.elapsed()),
    })
}

/// Discover and audit every environment (read-only).
fn audit_all(
    args: &AuditArgs,
    ctx: &Context,
    matrix: &std::sync::Arc<crate::data::matrix::Matrix>,
    driver: &Driver,
) -> Result<Audit> {
    let discovery = Discovery::run(ctx, &args.envs_dirs);
    for w in &discovery.warnings {
        crate::notice::warn(w);
    }
    crate::notice::note(&format!(
        "{} environments, from {} root prefixes and {} envs directories",
        discovery.envs.len(),
        discovery.roots.len(),
        discovery.envs_dirs.len()
    ));
    let total = discovery.envs.len();
    let bar = if total >= PROGRESS_FROM
        && std::io::stderr().is_terminal()
        && crate::notice::verbosity() > crate::notice::Verbosity::Quiet
    {
        indicatif::ProgressBar::new(total as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let a = audit::run(
        discovery,
        matrix.clone(),
        driver.clone(),
        ctx,
        threads,
        &|| bar.inc(1),
    );
    bar.finish_and_clear();
    Ok(a)
}

/// The `--fix` plan, one environment a line (and its paths with `-v`).
fn print_plan(plans: &[FixPlan], dry_run: bool, out: &mut impl Write) -> std::io::Result<()> {
    let would = if dry_run { "would " } else { "" };
    if plans.is_empty() {
        return writeln!(out, "--fix: nothing to fix");
    }
    writeln!(out, "--fix plan:")?;
    let verbose = crate::notice::verbosity() == crate::notice::Verbosity::Verbose;
    for p in plans {
        let name = p
            .name
            .clone()
            .unwrap_or_else(|| p.prefix.display().to_string());
        let (what, paths) = match &p.action {
            FixAction::Write { paths } => (
                format!("{would}write hooks ({} paths)", paths.len()),
                paths.as_slice(),
            ),
            FixAction::Remove { paths } => (
                format!(
                    "{would}remove envhook's files ({} paths; no CUDA libraries left)",
                    paths.len()
                ),
                paths.as_slice(),
            ),
            FixAction::Skip { reason } | FixAction::Refused { reason, .. } => {
                (format!("skipped: {reason}"), &[][..])
            }
        };
        writeln!(out, "  {name}: {what}")?;
        if verbose {
            for path in paths {
                writeln!(out, "    {}", path.display())?;
            }
        }
    }
    Ok(())
}

/// Whether to go ahead: yes with `-y`, and yes without asking when stdin
/// or stdout is not a terminal (cron, scripts: never wait for an answer);
/// otherwise conda's question, answered on the terminal.
fn confirmed(args: &AuditArgs, out: &mut impl Write) -> Result<bool> {
    if args.yes || !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Ok(true);
    }
    write!(out, "\nProceed ([y]/n)? ").map_err(Error::Output)?;
    out.flush().map_err(Error::Output)?;
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(Error::Output)?;
    let yes = matches!(answer.trim(), "" | "y" | "Y" | "yes" | "Yes");
    if !yes {
        writeln!(out, "nothing changed").map_err(Error::Output)?;
    }
    writeln!(out).map_err(Error::Output)?;
    Ok(yes)
}

/// Colour only where it is seen: stdout styled (`--color`, else a
/// terminal without NO_COLOR: see [`crate::colour`]), never in a file.
fn colour(text: &str, to_stdout: bool) -> String {
    if to_stdout && crate::colour::stdout() {
        text.to_string()
    } else {
        anstream::adapter::strip_str(text).to_string()
    }
}
