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

/// What `export` and `run` put on the path, for one environment.
struct Matched {
    /// The environment.
    env: discovery::KnownEnv,
    prefix: std::path::PathBuf,
    mode: Mode,
    dirs: Vec<std::path::PathBuf>,
    /// The link directory is the one `envhook install` will make: not on
    /// this machine yet.
    planned: bool,
    /// `run`'s private link directory, held until the command replaces
    /// envhook (which inherits the hold).
    _in_use: Option<crate::activation::private::InUse>,
}

/// `private`: `run`'s fallback where the environment has no link
/// directory (envhook never wrote to it; it may be read-only): the same one,
/// built privately ([`crate::activation::private`]).
fn dirs_of(
    env: &crate::cli::EnvSelection,
    mode: Option<Mode>,
    ctx: &Context,
    private: bool,
) -> Result<Matched> {
    let env = discovery::select(ctx, &env.selector())?;
    let prefix = std::path::absolute(&env.prefix).map_err(|e| Error::read(&env.prefix, e))?;
    let inv = Inventory::read(&prefix)?;
    let mut planned = false;
    let mut in_use = None;
    let (mode, dirs) = match spec::matched_dirs(&inv, mode) {
        Err(Error::NotInstalled { .. }) if private && mode.is_none() => {
            in_use = crate::activation::private::link_dir(&inv, ctx)?;
            (
                Mode::Isolated,
                in_use.iter().map(|u| u.path.clone()).collect(),
            )
        }
        // export: the link directory `envhook install` will make, which is
        // what an image that runs it holds.
        Err(Error::NotInstalled { .. }) if !private => {
            planned = true;
            (Mode::Isolated, planned_link(&inv)?)
        }
        other => other?,
    };
    // Asked for with --mode dirs, all of lib/ is what the user wants; say
    // what it costs anyway.
    if let Some(lib) = dirs.iter().find(|d| spec::exposes_all_of_lib(d, &prefix)) {
        crate::notice::warn(&format!(
            "{} is all of the environment's libraries, not only CUDA's: its libstdc++, \
             libcrypto and the like shadow the system's (envhook install, then the default \
             mode, exposes CUDA's only)",
            lib.display()
        ));
    }
    Ok(Matched {
        env,
        prefix,
        mode,
        dirs,
        planned,
        _in_use: in_use,
    })
}

/// The link directory `envhook install` would make (not there yet).
fn planned_link(inv: &Inventory) -> Result<Vec<std::path::PathBuf>> {
    Ok(spec::HookSpec::from_inventory(inv, Mode::Isolated)?
        .and_then(|s| s.isolation)
        .map(|iso| iso.link)
        .into_iter()
        .collect())
}

/// The comment lines that end an sh or Apptainer export: what it was made
/// from, and where the link directory exists.
fn header(prefix: &std::path::Path, mode: Mode) -> Vec<String> {
    let mut header = vec![
        format!(
            "envhook {} export for {}",
            env!("CARGO_PKG_VERSION"),
            prefix.display()
        ),
        format!("mode {mode}"),
    ];
    if mode == Mode::Isolated {
        header.push(
            "lib/envhook/cuda exists where `envhook install` ran: on this machine, or in \
             an image only if it ran there"
                .to_string(),
        );
    }
    header
}

/// Run `export`.
pub fn run(args: &ExportArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    let format = if args.json {
        ExportFormat::Json
    } else {
        args.format
    };
    let Matched {
        prefix,
        mode,
        dirs,
        planned,
        ..
    } = dirs_of(&args.env, args.mode, ctx, false)?;
    // The Dockerfile and Apptainer outputs run `envhook install` in the
    // image; what is exported for this machine needs it run here first.
    if planned
        && matches!(
            format,
            ExportFormat::Sh | ExportFormat::Env | ExportFormat::Json
        )
    {
        crate::notice::warn(&format!(
            "{} has no envhook link directory yet: this export names the one `envhook install -p \
             {}` makes (lib/envhook/cuda, the CUDA libraries only); run that before using it",
            prefix.display(),
            shell::quote::posix(&prefix.display().to_string())
        ));
    }
    let text: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let w = Error::Output;
    if dirs.is_empty() && format != ExportFormat::Json {
        crate::notice::warn(&format!(
            "{}: no CUDA libraries from conda or pip; nothing to export",
            prefix.display()
        ));
        return Ok(ExitStatus::Success);
    }
    match format {
        ExportFormat::Sh => {
            out.write_all(shell::export::profile(&text, &header(&prefix, mode)).as_bytes())
                .map_err(w)?;
        }
        ExportFormat::Apptainer => {
            let prefix_text = prefix.display().to_string();
            let install = (mode == Mode::Isolated).then_some(prefix_text.as_str());
            let section = shell::export::apptainer(&text, &header(&prefix, mode), install);
            out.write_all(section.as_bytes()).map_err(w)?;
        }
        ExportFormat::Dockerfile => {
            writeln!(
                out,
                "# envhook {}: CUDA libraries of {}",
                env!("CARGO_PKG_VERSION"),
                prefix.display()
            )
            .map_err(w)?;
            let prefix_text = prefix.display().to_string();
            let install = (mode == Mode::Isolated).then_some(prefix_text.as_str());
            out.write_all(shell::export::dockerfile(&text, install).as_bytes())
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
            crate::report::json::write(out, &doc)?;
        }
    }
    Ok(ExitStatus::Success)
}

/// Run `run`: the command replaces envhook (exec), so its exit status is
/// the command's.
///
/// Like `conda run`, it sets what `conda activate` would from the calling
/// shell's state ([`crate::activation::conda_vars`]): the environment's
/// `bin` on `PATH` (so `python` is the environment's), `CONDA_PREFIX`,
/// `CONDA_SHLVL`, `CONDA_DEFAULT_ENV` and `CONDA_PROMPT_MODIFIER`, so that
/// a `conda activate` inside switches; `LD_LIBRARY_PATH` gets what the
/// hook would put there. Other packages' activate.d scripts are not run (envhook does
/// not execute code it did not write). Without envhook's link directory in
/// the environment, a private one is used ([`crate::activation::private`]),
/// held while the command runs: `m` lives until `exec`, and the command
/// inherits the hold's handle (one open directory more in its table).
pub fn run_command(args: &RunArgs, ctx: &Context) -> Result<ExitStatus> {
    let m = dirs_of(&args.env, args.mode, ctx, true)?;
    let (program, rest) = args.command.split_first().expect("clap requires a command");
    let value = spec::prepend(&m.dirs, ctx.var_os("LD_LIBRARY_PATH"));
    // What `conda activate` sets from this shell's state, PATH included.
    let root = m.env.kind == discovery::EnvKind::Root || m.prefix.join("condabin").is_dir();
    let vars = crate::activation::conda_vars::activate(ctx, &m.prefix, root);
    let path = vars
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone());
    // The program is looked up on the new PATH, as a shell in the
    // activated environment would.
    let resolved = which::which_in(
        program,
        path.as_ref(),
        std::env::current_dir().unwrap_or_default(),
    )
    .map(std::ffi::OsString::from)
    .unwrap_or_else(|_| program.clone());
    // The state a deactivate hook reads, so that leaving the environment
    // from inside the command restores the value run started from.
    let state = crate::activation::run_state::for_run(&m.prefix, &m.dirs, ctx, &value);
    let mut cmd = std::process::Command::new(resolved);
    cmd.args(rest).envs(vars).envs(state);
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
