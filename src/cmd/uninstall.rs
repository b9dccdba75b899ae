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
    let removed = install::uninstall(&env.prefix, args.dry_run)?;
    let w = Error::Output;
    if removed.is_empty() {
        writeln!(out, "{}: no envhook files", env.prefix.display()).map_err(w)?;
    }
    let verb = if args.dry_run {
        "would remove"
    } else {
        "removed"
    };
    for path in &removed {
        writeln!(out, "  {verb:<12} {}", path.display()).map_err(w)?;
    }
    Ok(ExitStatus::Success)
}
