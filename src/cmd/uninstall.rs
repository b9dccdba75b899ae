//! `envhook uninstall`: remove exactly envhook's files.

use std::io::Write;

use crate::activation::install;
use crate::cli::UninstallArgs;
use crate::discovery::{self, Context};
use crate::error::{Error, Result};
use crate::exit::ExitStatus;

/// Run `uninstall`.
pub fn run(args: &UninstallArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    let env = discovery::select(ctx, &args.env.selector())?;
    // Kernelspecs first: one edited by hand stops the run before anything
    // is removed.
    let mut shown = Vec::new();
    let kernels = super::jupyter::uninstall(&env.prefix, args.dry_run, &mut shown)?;
    let changes = install::uninstall(&env.prefix, args.dry_run)?;
    let w = Error::Output;
    // -q: only what was left (a finding); the changes are not printed.
    let quiet = crate::notice::verbosity() == crate::notice::Verbosity::Quiet;
    if !quiet {
        if changes.is_empty() && changes.conflicts.is_empty() && !kernels {
            writeln!(out, "{}: no envhook files", env.prefix.display()).map_err(w)?;
        }
        out.write_all(&shown).map_err(w)?;
        super::install::print_changes(out, &changes, args.dry_run).map_err(w)?;
    }
    let left = super::install::left_alone(&changes);
    super::install::print_findings(out, &left).map_err(w)?;
    Ok(if left.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Findings
    })
}
