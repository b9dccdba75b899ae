//! `envhook envs`: every environment discovery finds, and how.

use std::io::Write;

use serde::Serialize;

use crate::cli::EnvsArgs;
use crate::discovery::{Context, Discovery, EnvKind};
use crate::error::{Error, Result};
use crate::exit::ExitStatus;

/// The JSON document.
#[derive(Serialize)]
struct Doc<'a> {
    schema: &'static str,
    #[serde(flatten)]
    discovery: &'a Discovery,
    /// The prefix of the active environment (`VIRTUAL_ENV`, `CONDA_PREFIX`,
    /// a `.venv`: the one commands use without -n/-p) when it is one of
    /// `envs`, as `conda env list` marks it with `*`.
    #[serde(serialize_with = "crate::paths::serialize_opt")]
    active: Option<std::path::PathBuf>,
}

/// Run `envs`. Stale `environments.txt` entries are reported but are not
/// findings: conda itself keeps them until `conda env list` cleans up.
pub fn run(args: &EnvsArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    super::require_dirs(&args.envs_dirs)?;
    let discovery = Discovery::run(ctx, &args.envs_dirs);
    for w in &discovery.warnings {
        crate::notice::warn(w);
    }
    let active = discovery.active(ctx).map(|e| e.prefix.clone());
    if args.json {
        crate::report::json::write(
            out,
            &Doc {
                schema: "envhook.envs/1",
                discovery: &discovery,
                active,
            },
        )?;
    } else {
        render(&discovery, active.as_deref(), out).map_err(Error::Output)?;
    }
    Ok(ExitStatus::Success)
}

fn render(
    d: &Discovery,
    active: Option<&std::path::Path>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    if d.envs.is_empty() {
        writeln!(out, "no environments found")?;
        writeln!(
            out,
            "  hint: envhook looks where conda does: root prefixes (CONDA_EXE, conda on PATH, \
             ~/miniconda3 and the like), envs_dirs in .condarc, CONDA_ENVS_DIRS and \
             ~/.conda/environments.txt; name another place with --envs-dir DIR"
        )?;
    }
    let width = d
        .envs
        .iter()
        .map(|e| e.name.as_deref().unwrap_or("-").len())
        .max()
        .unwrap_or(0)
        .max(4);
    for env in &d.envs {
        // `conda env list` marks the active environment with `*`.
        let mark = if Some(env.prefix.as_path()) == active {
            '*'
        } else {
            ' '
        };
        // A venv says so: it is activated by its own bin/activate, not by
        // conda.
        let venv = if env.kind == EnvKind::Venv {
            "venv; "
        } else {
            ""
        };
        writeln!(
            out,
            "{:<width$} {mark} {}  ({venv}{})",
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
