//! `envhook check`: will this environment work on this machine, and why not.

use std::io::Write;

use crate::activation::status::HookStatus;
use crate::cli::CheckArgs;
use crate::discovery::{self, Context};
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::finding;
use crate::inventory::Inventory;
use crate::machine::Machine;
use crate::machine::driver;
use crate::rules::{self, Report};

/// What `check` and `explain` judge: the selected environment, the data,
/// the machine.
pub struct Gathered {
    /// The environment's name, where it has one.
    pub(super) name: Option<String>,
    pub(super) inv: Inventory,
    pub(super) matrix: crate::data::matrix::Matrix,
    pub(super) machine: Machine,
}

impl Gathered {
    /// The rules' view of it, and the finding when no hook can carry the prefix.
    pub fn facts<'a>(
        &'a self,
        ctx: &'a Context,
    ) -> (rules::Facts<'a>, Option<crate::finding::Problem>) {
        rules::facts(&self.inv, &self.matrix, &self.machine, ctx)
    }
}

/// Read the selected environment, the data and the machine.
pub fn gather(
    env: &crate::cli::EnvSelection,
    target: &crate::cli::TargetArgs,
    ctx: &Context,
) -> Result<Gathered> {
    let env = discovery::select(ctx, &env.selector())?;
    let prefix = std::path::absolute(&env.prefix).map_err(|e| Error::read(&env.prefix, e))?;
    let inv = Inventory::read(&prefix)?;
    let matrix = target.matrix(ctx)?;
    let machine = Machine::new(
        driver::detect(ctx, &target.driver_flags(&matrix)?, &matrix),
        ctx,
    );
    Ok(Gathered {
        name: env.name,
        inv,
        matrix,
        machine,
    })
}

/// Build the report for the selected environment.
pub fn report(
    env: &crate::cli::EnvSelection,
    target: &crate::cli::TargetArgs,
    ctx: &Context,
) -> Result<Report> {
    let g = gather(env, target, ctx)?;
    Ok(rules::run(&g.inv, &g.matrix, &g.machine, ctx))
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
    writeln!(out, "environment  {}", r.prefix.display())?;
    writeln!(out, "driver       {}", driver_line(r))?;
    let hook = match &r.hook {
        HookStatus::None => "none".to_string(),
        HookStatus::Current { fingerprint } => format!("current ({fingerprint})"),
        HookStatus::Stale { installed, .. } => format!("stale ({installed})"),
        HookStatus::Moved { from, .. } => format!("moved (written for {})", from.display()),
    };
    writeln!(out, "hooks        {hook}")?;
    writeln!(out, "matrix       {}", r.matrix_version)?;
    // One column for the names, as wide as the widest (`libcusparseLt.so.0
    // [needed]`); objects that ask for nothing are not listed.
    let width = r
        .libraries
        .iter()
        .flat_map(|l| &l.names)
        .map(|n| n.name.len() + n.kind.as_str().len() + 3)
        .max()
        .unwrap_or(0)
        .max(24);
    for lib in r.libraries.iter().filter(|l| !l.names.is_empty()) {
        writeln!(out, "\n{}", lib.object.display())?;
        for n in &lib.names {
            let show = |f: &Option<crate::machine::resolve::Found>| match f {
                Some(f) => format!("{} ({})", f.path.display(), f.rule.label()),
                None => "not found".into(),
            };
            writeln!(
                out,
                "  {:<width$} {}",
                format!("{} [{}]", n.name, n.kind),
                show(&n.with_hook)
            )?;
            if n.without_hook != n.with_hook {
                writeln!(
                    out,
                    "  {:<width$} without envhook's hook: {}",
                    "",
                    show(&n.without_hook)
                )?;
            }
        }
    }
    writeln!(out)?;
    if r.findings.is_empty() {
        writeln!(out, "no problems found")?;
    }
    for p in &r.findings {
        writeln!(out, "{}[{}]: {}", p.severity.label(), p.code, p.message)?;
        for line in p.fix.iter().flat_map(|f| f.lines("    ")) {
            writeln!(out, "{line}")?;
        }
    }
    let count = |s| r.findings.iter().filter(|p| p.severity == s).count();
    if !r.findings.is_empty() {
        let plural = |n: usize, what: &str| {
            if n == 1 {
                format!("1 {what}")
            } else {
                format!("{n} {what}s")
            }
        };
        writeln!(
            out,
            "\n{}, {}, {}",
            plural(count(finding::Severity::Error), "error"),
            plural(count(finding::Severity::Warning), "warning"),
            plural(count(finding::Severity::Info), "note")
        )?;
    }
    Ok(())
}
