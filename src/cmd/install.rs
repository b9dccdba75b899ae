//! `envhook install`: write matched hooks for one environment.

use std::io::Write;

use crate::activation::decide::{self, Decision};
use crate::activation::foreign::{self, ForeignHook};
use crate::activation::install::{self, Changes};
use crate::activation::plan::Plan;
use crate::activation::shell::{Dialect, Phase};
use crate::activation::takeover;
use crate::activation::venv;
use crate::cli::InstallArgs;
use crate::data::matrix::Matrix;
use crate::discovery::{self, Context};
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::finding::{Code, Fix, Problem, Severity};
use crate::inventory::Inventory;
use crate::machine::Machine;
use crate::machine::driver::Driver;
use crate::rules;

/// Run `install`.
pub fn run(args: &InstallArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    let (env, prefix) = selected(args, ctx)?;
    let inv = Inventory::read(&prefix)?;
    let foreign = foreign::scan(&prefix);
    let mut findings: Vec<Problem> = inv
        .problems
        .iter()
        .filter(|p| p.severity >= Severity::Warning)
        .cloned()
        .collect();
    let w = |e| Error::Output(e);

    let (decision, lacking, held) = decided(args, ctx, &inv, &foreign)?;
    let plan = match decision {
        Decision::Remove => return no_hooks(args, ctx, &inv, &foreign, findings, out),
        Decision::NotNeeded => {
            findings.extend(lacking);
            return not_needed(&prefix, &findings, out);
        }
        Decision::Write(plan) => *plan,
    };
    findings.extend(plan.spec.notes.iter().cloned());
    findings.extend(held);
    findings.extend(
        plan.skipped
            .iter()
            .map(|(dialect, why)| shell_unsupported(&prefix, *dialect, why)),
    );

    let name = env.name.as_deref().unwrap_or("environment");
    // -q: errors only; the plan, the changes and the rest are not printed.
    let quiet = crate::notice::verbosity() == crate::notice::Verbosity::Quiet;
    let mut sink = std::io::sink();
    let mut shown: &mut dyn Write = if quiet { &mut sink } else { out };
    writeln!(shown, "{name}: {}", prefix.display()).map_err(w)?;
    describe(&mut shown, &plan).map_err(w)?;
    venv_notes(&mut shown, &prefix, &plan).map_err(w)?;
    let changes = write(&plan, args, ctx, shown)?;
    // What was moved aside no longer runs: nothing to report about it.
    let foreign: Vec<ForeignHook> = foreign
        .into_iter()
        .filter(|h| !changes.move_aside.contains(&h.path))
        .collect();
    report_foreign(&mut shown, &prefix, &foreign, &mut findings).map_err(w)?;
    if quiet {
        let errors: Vec<Problem> = findings
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .cloned()
            .collect();
        print_findings(out, &errors).map_err(w)?;
    } else {
        print_findings(out, &findings).map_err(w)?;
    }
    if args.show_hooks {
        print_files(out, &plan).map_err(w)?;
    } else if args.dry_run && !quiet {
        writeln!(
            out,
            "  (--show-hooks prints the {} hook files)",
            plan.files.len()
        )
        .map_err(w)?;
    }
    Ok(status(&findings))
}

/// Carry the plan out, and the Jupyter kernelspecs' part of it (planned
/// first: one edited by hand stops the run before anything is written),
/// printing what changed.
fn write(
    plan: &Plan,
    args: &InstallArgs,
    ctx: &Context,
    mut out: &mut dyn Write,
) -> Result<Changes> {
    let kernels = super::jupyter::plan(&plan.spec, args.jupyter)?;
    let changes = install::install(plan, args.dry_run)?;
    // The plan first; the hooks' texts (long) only when asked for.
    print_changes(&mut out, &changes, args.dry_run).map_err(Error::Output)?;
    super::jupyter::apply(&plan.spec, kernels, args.dry_run, ctx, out)?;
    Ok(changes)
}

/// The decision for `inv` (activation's, shared with `audit --fix`), what
/// the environment lacks where no hooks are needed (no hook provides it),
/// and the hand-written hooks `--replace-handwritten` holds back.
fn decided(
    args: &InstallArgs,
    ctx: &Context,
    inv: &Inventory,
    foreign: &[ForeignHook],
) -> Result<(Decision, Vec<Problem>, Vec<Problem>)> {
    let mut shells = args.shells.clone();
    shells.sort();
    shells.dedup();
    let (take_over, held) = match args.replace_handwritten {
        true => takeover::scripts(foreign),
        false => (Vec::new(), Vec::new()),
    };
    let request = decide::Request {
        mode: args.mode,
        shells: &shells,
        take_over,
        always: args.always,
    };
    // Judged only where the decision turns on it.
    let mut lacking = Vec::new();
    let decision = decide::decide(inv, request, || {
        let report = judged(inv, ctx)?;
        let needed = !report.hook_not_needed();
        if !needed {
            lacking = missing(report);
        }
        Ok(needed)
    })?;
    Ok((decision, lacking, held))
}

/// What a venv's activation does not get: no script to run the hooks
/// from, or scripts of shells envhook does not hook.
fn venv_notes(out: &mut impl Write, prefix: &std::path::Path, plan: &Plan) -> std::io::Result<()> {
    if discovery::is_venv(prefix)
        && !["activate", "activate.fish"]
            .iter()
            .any(|s| prefix.join("bin").join(s).is_file())
    {
        writeln!(
            out,
            "  note         no bin/activate or bin/activate.fish to run the hooks from: commands \
             get the libraries through `envhook run`"
        )?;
    }
    if !plan.venv_unhooked.is_empty() {
        let names: Vec<String> = plan.venv_unhooked.iter().map(ToString::to_string).collect();
        writeln!(
            out,
            "  note         a venv's {} activation scripts are not hooked (its deactivate there \
             cannot be wrapped): activate it from bash, zsh or fish, or run commands through \
             `envhook run`",
            names.join(" and ")
        )?;
    }
    Ok(())
}

/// The environment to write hooks into, with its absolute prefix.
fn selected(
    args: &InstallArgs,
    ctx: &Context,
) -> Result<(discovery::KnownEnv, std::path::PathBuf)> {
    let env = discovery::select(ctx, &args.env.selector())?;
    let prefix = std::path::absolute(&env.prefix).map_err(|e| Error::read(&env.prefix, e))?;
    Ok((env, prefix))
}

/// An environment without CUDA libraries: no hooks, and envhook's old ones
/// removed.
fn no_hooks(
    args: &InstallArgs,
    ctx: &Context,
    inv: &Inventory,
    foreign: &[ForeignHook],
    mut findings: Vec<Problem>,
    out: &mut impl Write,
) -> Result<ExitStatus> {
    let w = |e| Error::Output(e);
    let prefix = &inv.prefix;
    writeln!(
        out,
        "{}: no CUDA libraries from conda or pip, so no hooks to write",
        prefix.display()
    )
    .map_err(w)?;
    super::jupyter::uninstall(prefix, args.dry_run, out)?;
    let changes = install::uninstall(prefix, args.dry_run)?;
    // A CUDA build of a framework without CUDA libraries: check says
    // so with its fix (install them, then install the hooks), and so
    // does install, with the same finding (judged once the old hooks
    // are gone).
    findings.extend(missing_stack(inv, ctx)?);
    print_changes(out, &changes, args.dry_run).map_err(w)?;
    findings.extend(left_alone(&changes));
    report_foreign(out, prefix, foreign, &mut findings).map_err(w)?;
    print_findings(out, &findings).map_err(w)?;
    Ok(status(&findings))
}

/// A shell whose hook cannot carry this prefix.
fn shell_unsupported(prefix: &std::path::Path, dialect: Dialect, why: &str) -> Problem {
    Problem {
        severity: Severity::Warning,
        code: Code::ShellUnsupported,
        message: format!("no {dialect} hook: {why}"),
        fix: Some(Fix::advice(
            "the other shells' hooks are written; for tcsh, a prefix without '#' \
             (conda's own environment names cannot contain it) gets its hook",
        )),
        path: Some(prefix.to_path_buf()),
        source: None,
    }
}

/// `--show-hooks`: the hooks that would be written, each after its path,
/// and in a venv the block appended to each activation script.
fn print_files(out: &mut impl Write, plan: &Plan) -> std::io::Result<()> {
    for file in &plan.files {
        writeln!(out, "\n==> {} <==", file.path.display())?;
        out.write_all(file.text.as_bytes())?;
    }
    if discovery::is_venv(&plan.spec.prefix) {
        let activate = plan.files.iter().filter(|f| f.phase == Phase::Activate);
        for file in activate {
            if let Some((script, block)) = venv::block_for(&plan.spec.prefix, file.dialect) {
                writeln!(out, "\n==> {} (appended) <==", script.display())?;
                out.write_all(block.as_bytes())?;
            }
        }
    }
    writeln!(out)
}

/// Findings, one with its hint per line pair.
pub fn print_findings(out: &mut impl Write, findings: &[Problem]) -> std::io::Result<()> {
    let on = crate::colour::stdout();
    for p in findings {
        writeln!(out, "{}: {}", p.severity.tag(p.code, on), p.message)?;
        for line in p.fix.iter().flat_map(|f| f.painted_lines("    ", on)) {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// What a run changed (or, dry, would change), one path a line.
pub fn print_changes(
    out: &mut impl Write,
    changes: &Changes,
    dry_run: bool,
) -> std::io::Result<()> {
    if let Some(waited) = changes.waited {
        writeln!(
            out,
            "  note         waited {:.1} s for another envhook writing to this environment",
            waited.as_secs_f64()
        )?;
    }
    let groups: [(&str, &str, &[std::path::PathBuf]); 5] = [
        ("cleaned", "would clean", &changes.clean),
        ("wrote", "would write", &changes.write),
        ("removed", "would remove", &changes.remove),
        ("hooked", "would hook", &changes.wire),
        ("unhooked", "would unhook", &changes.unwire),
    ];
    for (done, dry, paths) in groups {
        let verb = if dry_run { dry } else { done };
        for path in paths {
            writeln!(out, "  {verb:<12} {}", path.display())?;
        }
    }
    // The hand-written hooks: where each goes, so the user can find it.
    let moves: [(&str, &str, &[std::path::PathBuf], bool); 2] = [
        ("moved aside", "would move aside", &changes.move_aside, true),
        ("restored", "would restore", &changes.restore, false),
    ];
    for (done, dry, paths, aside) in moves {
        let verb = if dry_run { dry } else { done };
        for path in paths {
            let name = path.file_name().unwrap_or_default();
            let moved = takeover::aside_name(name);
            let (from, to) = if aside {
                (name, &*moved)
            } else {
                (&*moved, name)
            };
            writeln!(
                out,
                "  {verb:<12} {} -> {}",
                path.with_file_name(from).display(),
                to.to_string_lossy()
            )?;
        }
    }
    Ok(())
}

/// What an uninstall left because it is not envhook's, as findings.
pub fn left_alone(changes: &Changes) -> Vec<Problem> {
    changes
        .conflicts
        .iter()
        .map(|c| Problem {
            severity: Severity::Warning,
            code: Code::NotEnvhooks,
            message: format!(
                "{}: {} (not envhook's; left as it is)",
                c.path.display(),
                c.what
            ),
            fix: Some(Fix::advice(
                "envhook removes only what carries its mark; remove it yourself if it is no \
                 longer needed",
            )),
            path: Some(c.path.clone()),
            source: None,
        })
        .collect()
}

/// The rules' findings about CUDA libraries a framework needs and the
/// environment lacks (judged without a driver: install is about the
/// environment).
/// Say that the environment needs no hook, and write none.
fn not_needed(
    prefix: &std::path::Path,
    findings: &[Problem],
    out: &mut impl Write,
) -> Result<ExitStatus> {
    let w = |e| Error::Output(e);
    // Libraries found nowhere, or only in another major, are no reason for
    // a hook either: no hook provides them. Saying they all resolve would
    // be false (a CUDA 11.8 Paddle beside only CUDA 12 wheels).
    let what = if findings.iter().any(|p| MISSING.contains(&p.code)) {
        "no hook would change what its frameworks load: what is found is found without one \
         (RPATHs into the wheels, preloads), and what is missing (below) no hook can provide"
    } else {
        "every CUDA library its frameworks load resolves without a hook (RPATHs into the \
         wheels, preloads)"
    };
    writeln!(
        out,
        "{}: {what}, so no hooks are written; such a hook could only shadow them (--always \
         writes them anyway)",
        prefix.display()
    )
    .map_err(w)?;
    print_findings(out, findings).map_err(w)?;
    Ok(status(findings))
}

/// The rules' report on the environment, judged without a driver:
/// install is about the environment (whether it needs a hook:
/// [`rules::Report::hook_not_needed`]; what it lacks: [`missing`]).
fn judged(inv: &Inventory, ctx: &Context) -> Result<rules::Report> {
    let matrix = Matrix::load(None)?;
    let machine = Machine::new(Driver::none(), ctx);
    Ok(rules::run(inv, &matrix, &machine, ctx))
}

fn missing_stack(inv: &Inventory, ctx: &Context) -> Result<Vec<Problem>> {
    Ok(missing(judged(inv, ctx)?))
}

/// The report's findings about CUDA libraries a framework needs and the
/// environment lacks.
fn missing(report: rules::Report) -> Vec<Problem> {
    report
        .findings
        .into_iter()
        .filter(|p| MISSING.contains(&p.code))
        .collect()
}

/// The codes of the libraries a framework needs that the environment
/// lacks, or has only in another major: what install reports beside the
/// hooks, since no hook provides them.
const MISSING: &[Code] = &[
    Code::LibraryNotFound,
    Code::LibraryOtherMajor,
    Code::MissingDevSymlink,
    Code::NoCudaRuntime,
    Code::NoCudnn,
];

fn status(findings: &[Problem]) -> ExitStatus {
    if crate::finding::has_findings(findings) {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    }
}

/// The plan in a few lines.
fn describe(out: &mut impl Write, plan: &Plan) -> std::io::Result<()> {
    let spec = &plan.spec;
    match &spec.isolation {
        Some(iso) => {
            let aliases: Vec<&str> = iso
                .entries
                .iter()
                .filter(|e| e.alias)
                .map(|e| e.name.as_str())
                .collect();
            writeln!(
                out,
                "  mode         isolated: LD_LIBRARY_PATH gets {} ({} CUDA libraries linked from {})",
                iso.link.display(),
                iso.entries.len() - aliases.len(),
                iso.dir.display()
            )?;
            if !aliases.is_empty() {
                writeln!(
                    out,
                    "  provides     {} (no unversioned name in the environment)",
                    aliases.join(", ")
                )?;
            }
        }
        None => {
            writeln!(out, "  mode         dirs: LD_LIBRARY_PATH gets")?;
            for d in &spec.dirs {
                writeln!(out, "               {}", d.display())?;
            }
        }
    }
    writeln!(out, "  fingerprint  {}", spec.fingerprint)
}

/// Foreign hooks are reported, never touched.
fn report_foreign(
    out: &mut impl Write,
    prefix: &std::path::Path,
    foreign: &[ForeignHook],
    findings: &mut Vec<Problem>,
) -> std::io::Result<()> {
    for hook in foreign {
        match takeover::problem(hook, foreign, prefix) {
            Some(p) => findings.push(p),
            None => writeln!(
                out,
                "  note         {} also sets LD_LIBRARY_PATH (not envhook's; left as it is)",
                hook.path.display()
            )?,
        }
    }
    Ok(())
}
