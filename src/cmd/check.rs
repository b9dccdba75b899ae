//! `envhook check`: will this environment work on this machine, and why not.

use std::io::Write;

use crate::activation::status::HookStatus;
use crate::cli::CheckArgs;
use crate::discovery::Context;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::finding::{self, Problem, Severity};
use crate::machine::resolve::Found;
use crate::rules::Report;
use crate::rules::libraries::NameCheck;

/// Build the report for the selected environment.
pub fn report(
    env: &crate::cli::EnvSelection,
    target: &crate::cli::TargetArgs,
    ctx: &Context,
) -> Result<Report> {
    let (_, subject) = super::gather(env, target, ctx)?;
    Ok(subject.report(ctx))
}

/// Run `check`.
pub fn run(args: &CheckArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    let r = report(&args.env, &args.target, ctx)?;
    if args.json {
        crate::report::json::write(out, &r)?;
    } else {
        render(&r, out).map_err(Error::Output)?;
    }
    Ok(if finding::has_findings(&r.findings) {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}

/// The driver line: `550.54.15 (nvidia-smi), CUDA <= 12.4`.
pub fn driver_line(r: &Report) -> String {
    r.driver.describe()
}

fn render(r: &Report, out: &mut impl Write) -> std::io::Result<()> {
    let verbose = crate::notice::verbosity() == crate::notice::Verbosity::Verbose;
    let clean = !finding::has_findings(&r.findings);
    // Notes that give nothing to do (envhook's data lacks a build, and
    // read its files instead) wait for -v.
    let (shown, hidden): (Vec<&Problem>, Vec<&Problem>) = r
        .findings
        .iter()
        .partition(|p| verbose || p.severity > Severity::Info || p.fix.is_some());
    // The verdict first where there is nothing to do: the reader who
    // sees "ok" can stop there.
    if clean {
        let notes = match shown.len() {
            0 => String::new(),
            1 => "; 1 note below".to_string(),
            n => format!("; {n} notes below"),
        };
        writeln!(out, "ok: nothing to fix{notes}\n")?;
    }
    writeln!(out, "environment  {}", r.prefix.display())?;
    writeln!(out, "driver       {}", driver_line(r))?;
    writeln!(out, "hooks        {}", hook_line(&r.hook))?;
    writeln!(out, "matrix       {}", r.matrix_version)?;
    // A clean environment's loader view holds nothing to act on; where
    // something is wrong, the names that are, and every name with -v.
    let listed = if verbose || !clean {
        loader_view(r, verbose, out)?
    } else {
        0
    };
    writeln!(out)?;
    findings(&shown, out)?;
    if !clean {
        writeln!(out, "\n{}", counts(r))?;
    }
    let names: usize = r.libraries.iter().map(|l| l.names.len()).sum();
    let notes = match hidden.len() {
        0 => None,
        1 => Some("1 more note".to_string()),
        h => Some(format!("{h} more notes")),
    };
    let unlisted = names - listed;
    let libraries = (unlisted > 0)
        .then(|| format!("where the loader finds the other {unlisted} libraries asked for"));
    let more: Vec<String> = notes.into_iter().chain(libraries).collect();
    if more.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n({}: envhook check -v)", more.join(", and "))
}

/// The hooks line: what is installed, and before `install`, that nothing
/// is yet.
fn hook_line(hook: &HookStatus) -> String {
    match hook {
        HookStatus::None => "none installed (envhook install writes them)".to_string(),
        HookStatus::Current { fingerprint } => format!("current ({fingerprint})"),
        HookStatus::Stale { installed, .. } => format!("stale ({installed})"),
        HookStatus::Moved { from, .. } => format!("moved (written for {})", from.display()),
    }
}

/// Each framework object and the libraries it asks for, under a labelled
/// header: with the hooks current, where the loader finds each one with
/// them active, and below it, where that differs, without them; before
/// `install` (or with stale hooks), where it finds each one now, and
/// below it what the hook would give, named by the file its link will
/// point at (the link does not exist yet). Without `verbose`, only the
/// names found nowhere or only through a hook not yet installed. Returns
/// how many names it listed.
fn loader_view(r: &Report, verbose: bool, out: &mut impl Write) -> std::io::Result<usize> {
    let installed = matches!(r.hook, HookStatus::Current { .. });
    let wanted = |n: &&NameCheck| {
        let (first, second) = columns(n, installed);
        verbose || first.is_none() || (!installed && first != second)
    };
    // One column for the names, as wide as the widest (`libcusparseLt.so.0
    // [needed]`).
    let width = r
        .libraries
        .iter()
        .flat_map(|l| &l.names)
        .map(|n| n.name.len() + n.kind.as_str().len() + 3)
        .max()
        .unwrap_or(0)
        .max(HEADER.len());
    let mut listed = 0;
    for lib in &r.libraries {
        let names: Vec<&NameCheck> = lib.names.iter().filter(wanted).collect();
        if names.is_empty() {
            continue;
        }
        if listed == 0 {
            let found = if installed {
                "FOUND WITH ENVHOOK'S HOOK ACTIVE"
            } else {
                "FOUND NOW (NO ENVHOOK HOOK)"
            };
            writeln!(out, "\n  {HEADER:<width$} {found}")?;
        }
        writeln!(out, "\n{}", lib.object.display())?;
        for n in names {
            listed += 1;
            let (first, second) = columns(n, installed);
            let label = format!("{} [{}]", n.name, n.kind);
            writeln!(out, "  {label:<width$} {}", place(first))?;
            if first == second {
                continue;
            }
            let second = match (installed, &n.hook_target) {
                (true, _) => format!("without the hook: {}", place(second)),
                (false, Some(target)) => format!(
                    "after envhook install: {} (linked from envhook's directory on LD_LIBRARY_PATH)",
                    target.display()
                ),
                (false, None) => format!("after envhook install: {}", place(second)),
            };
            writeln!(out, "  {:<width$} {second}", "")?;
        }
    }
    Ok(listed)
}

/// The first column's header.
const HEADER: &str = "LIBRARY [HOW IT IS LOADED]";

/// The answer shown first and the one below it: with the hooks current,
/// with them and without them; otherwise without them and with.
fn columns(n: &NameCheck, installed: bool) -> (&Option<Found>, &Option<Found>) {
    if installed {
        (&n.with_hook, &n.without_hook)
    } else {
        (&n.without_hook, &n.with_hook)
    }
}

fn place(f: &Option<Found>) -> String {
    match f {
        Some(f) => format!("{} ({})", f.path.display(), f.rule.label()),
        None => "not found".into(),
    }
}

/// The findings, each fix said once: a later finding that the same fix
/// answers points back to it rather than repeating it.
fn findings(shown: &[&Problem], out: &mut impl Write) -> std::io::Result<()> {
    let on = crate::colour::stdout();
    if shown.is_empty() {
        writeln!(out, "no problems found")?;
    }
    let mut said: Vec<&finding::Fix> = Vec::new();
    for p in shown {
        writeln!(out, "{}: {}", p.severity.tag(p.code, on), p.message)?;
        match &p.fix {
            Some(fix) if said.contains(&fix) => writeln!(out, "    (the same fix as above)")?,
            Some(fix) => {
                for line in fix.painted_lines("    ", on) {
                    writeln!(out, "{line}")?;
                }
                said.push(fix);
            }
            None => {}
        }
    }
    Ok(())
}

/// `1 error, 0 warnings, 2 notes`.
fn counts(r: &Report) -> String {
    let count = |s| r.findings.iter().filter(|p| p.severity == s).count();
    let plural = |n: usize, what: &str| {
        if n == 1 {
            format!("1 {what}")
        } else {
            format!("{n} {what}s")
        }
    };
    format!(
        "{}, {}, {}",
        plural(count(Severity::Error), "error"),
        plural(count(Severity::Warning), "warning"),
        plural(count(Severity::Info), "note")
    )
}
