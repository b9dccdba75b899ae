//! `envhook export` and `envhook run`: the matched library path for
//! deployments that never run `conda activate` (Docker `ENV`, `conda run`,
//! Kubernetes).

use std::io::Write;

use serde::Serialize;

use crate::activation::shell;
use crate::activation::spec::{self, Mode};
use crate::cli::{ExportArgs, ExportFormat, RunArgs};
use crate::discovery::{self, Context};
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::inventory::Inventory;

#[derive(Serialize)]
struct Doc {
    schema: &'static str,
    #[serde(serialize_with = "crate::paths::serialize")]
    prefix: std::path::PathBuf,
    mode: Mode,
    #[serde(serialize_with = "crate::paths::serialize_vec")]
    prepend: Vec<std::path::PathBuf>,
    env: std::collections::BTreeMap<&'static str, String>,
}

fn dirs_of(
    env: &crate::cli::EnvSelection,
    mode: Option<Mode>,
    ctx: &Context,
) -> Result<(std::path::PathBuf, Mode, Vec<std::path::PathBuf>)> {
    let env = discovery::select(ctx, &env.selector())?;
    let prefix = std::path::absolute(&env.prefix).map_err(|e| Error::read(&env.prefix, e))?;
    let inv = Inventory::read(&prefix)?;
    let (mode, dirs) = spec::matched_dirs(&inv, mode)?;
    Ok((prefix, mode, dirs))
}

/// Run `export`.
pub fn run(args: &ExportArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    let (prefix, mode, dirs) = dirs_of(&args.env, args.mode, ctx)?;
    let text: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let w = Error::Output;
    if dirs.is_empty() && args.format != ExportFormat::Json {
        crate::report::warn(&format!(
            "{}: no CUDA libraries from conda or pip; nothing to export",
            prefix.display()
        ));
        return Ok(ExitStatus::Success);
    }
    match args.format {
        ExportFormat::Sh => {
            let header = vec![
                format!(
                    "envhook {} export for {}",
                    env!("CARGO_PKG_VERSION"),
                    prefix.display()
                ),
                format!("mode {mode}"),
            ];
            out.write_all(shell::export::profile(&text, &header).as_bytes())
                .map_err(w)?;
        }
        ExportFormat::Dockerfile => {
            writeln!(
                out,
                "# envhook {}: CUDA libraries of {}",
                env!("CARGO_PKG_VERSION"),
                prefix.display()
            )
            .map_err(w)?;
            out.write_all(shell::export::dockerfile(&text).as_bytes())
                .map_err(w)?;
        }
        ExportFormat::Env => out
            .write_all(shell::export::env_file(&text).as_bytes())
            .map_err(w)?,
        ExportFormat::Json => {
            let doc = Doc {
                schema: "envhook.export/1",
                prefix,
                mode,
                prepend: dirs,
                env: [("LD_LIBRARY_PATH", text.join(":"))]
                    .into_iter()
                    .filter(|(_, v)| !v.is_empty())
                    .collect(),
            };
            super::write_json(out, &doc)?;
        }
    }
    Ok(ExitStatus::Success)
}

/// Run `run`: the command replaces envhook (exec), so its exit status is
/// the command's.
pub fn run_command(args: &RunArgs, ctx: &Context) -> Result<ExitStatus> {
    let (_, _, dirs) = dirs_of(&args.env, args.mode, ctx)?;
    let (program, rest) = args.command.split_first().expect("clap requires a command");
    let value = spec::prepend(&dirs, ctx.var_os("LD_LIBRARY_PATH"));
    let mut cmd = std::process::Command::new(program);
    cmd.args(rest);
    if value.is_empty() {
        cmd.env_remove("LD_LIBRARY_PATH");
    } else {
        cmd.env("LD_LIBRARY_PATH", value);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let source = cmd.exec();
        Err(Error::Exec {
            program: program.to_string_lossy().into_owned(),
            source,
        })
    }
    #[cfg(not(unix))]
    {
        let status = cmd.status().map_err(|source| Error::Exec {
            program: program.to_string_lossy().into_owned(),
            source,
        })?;
        std::process::exit(status.code().unwrap_or(1));
    }
}
