//! `envhook envs`: every environment discovery finds, and how.

use std::io::Write;

use serde::Serialize;

use crate::cli::EnvsArgs;
use crate::discovery::{Context, Discovery};
use crate::error::{Error, Result};
use crate::exit::ExitStatus;

/// The JSON document.
#[derive(Serialize)]
struct Doc<'a> {
    schema: &'static str,
    #[serde(flatten)]
    discovery: &'a Discovery,
}

/// Run `envs`. Stale `environments.txt` entries are reported but are not
/// findings: conda itself keeps them until `conda env list` cleans up.
pub fn run(args: &EnvsArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    let discovery = Discovery::run(ctx, &args.envs_dirs);
    for w in &discovery.warnings {
        crate::report::warn(w);
    }
    if args.json {
        super::write_json(
            out,
            &Doc {
                schema: "envhook.envs/1",
                discovery: &discovery,
            },
        )?;
    } else {
        render(&discovery, out).map_err(Error::Output)?;
    }
    Ok(ExitStatus::Success)
}

fn render(d: &Discovery, out: &mut impl Write) -> std::io::Result<()> {
    if d.envs.is_empty() {
        writeln!(out, "no environments found")?;
    }
    let width = d
        .envs
        .iter()
        .map(|e| e.name.as_deref().unwrap_or("-").len())
        .max()
        .unwrap_or(0)
        .max(4);
    for env in &d.envs {
        writeln!(
            out,
            "{:<width$}  {}  ({})",
            env.name.as_deref().unwrap_or("-"),
            env.prefix.display(),
            env.found_via.join(", ")
        )?;
    }
    for s in &d.stale {
        writeln!(
            out,
            "stale: {} in {}: {}",
            s.entry,
            s.file.display(),
            s.reason
        )?;
    }
    Ok(())
}
