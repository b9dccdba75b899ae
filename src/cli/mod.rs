//! The command line, as clap definitions only: no I/O happens here.

pub mod candidates;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueHint};
use clap_complete::{ArgValueCandidates, ArgValueCompleter};

use crate::activation::shell::Dialect;
use crate::activation::spec::Mode;

/// Matched CUDA library paths and compatibility checks for conda
/// environments running GPU frameworks.
///
/// Exit codes: 0 nothing to act on, 1 findings of severity warning or
/// error, 2 error.
#[derive(Debug, Parser)]
#[command(
    name = "envhook",
    version,
    about,
    long_about = None,
    after_help = crate::exit::SUMMARY
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Print nothing on stderr but errors: no warnings, notes or progress.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Also say on stderr where envhook found the driver and the
    /// environments, and how long the work took.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// When to colour the output (severity words, finding codes, fix
    /// lines, and this help): auto (on a terminal, unless NO_COLOR is set),
    /// always, never. JSON is never coloured.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    pub color: clap::ColorChoice,
}

/// The `--color` choice, read before the real parse so that clap's own
/// help and usage errors follow it too: the same command line parsed with
/// errors ignored and the help and version flags taken out (they end a
/// parse before the options after them are read); `auto` without one.
pub fn colour_choice(args: impl IntoIterator<Item = std::ffi::OsString>) -> anstream::ColorChoice {
    use clap::CommandFactory;
    let args = args
        .into_iter()
        .filter(|a| !matches!(a.to_str(), Some("-h" | "--help" | "-V" | "--version")));
    let chosen = Cli::command()
        .ignore_errors(true)
        .try_get_matches_from(args)
        .ok()
        .and_then(|m| m.get_one::<clap::ColorChoice>("color").copied());
    match chosen {
        Some(clap::ColorChoice::Always) => anstream::ColorChoice::Always,
        Some(clap::ColorChoice::Never) => anstream::ColorChoice::Never,
        _ => anstream::ColorChoice::Auto,
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show an environment's GPU stack: CUDA, cuDNN, NCCL, cuBLAS, framework
    /// builds, library directories and broken installs.
    #[command(after_help = crate::exit::SUMMARY)]
    Show(ShowArgs),
    /// List the environments envhook can find, and where it found them.
    #[command(after_help = crate::exit::SUMMARY)]
    Envs(EnvsArgs),
    /// Write activate.d/deactivate.d hooks that put exactly this
    /// environment's CUDA libraries on LD_LIBRARY_PATH, and restore it on
    /// deactivation.
    #[command(after_help = crate::exit::SUMMARY)]
    Install(InstallArgs),
    /// Remove envhook's hooks and link directory, and nothing else.
    #[command(after_help = crate::exit::SUMMARY)]
    Uninstall(UninstallArgs),
    /// Check the environment against the compatibility matrix, this
    /// machine's driver and GPUs, and the loader: what will fail, and why.
    #[command(after_help = crate::exit::SUMMARY)]
    Check(CheckArgs),
    /// Check every environment on the machine: CUDA stack, hook status and
    /// findings per environment, in parallel. Exit 1 when any environment
    /// has a finding of severity warning or error, or cannot be read.
    #[command(after_help = crate::exit::SUMMARY)]
    Audit(AuditArgs),
    /// Print the environment's matched library path for deployments that
    /// never run `conda activate`: a /etc/profile.d snippet, Dockerfile ENV
    /// lines, an env-file, or JSON.
    #[command(after_help = crate::exit::SUMMARY)]
    Export(ExportArgs),
    /// Run a command in the environment without activating it, like
    /// `conda run`: PATH, CONDA_PREFIX, CONDA_SHLVL, CONDA_DEFAULT_ENV and
    /// CONDA_PROMPT_MODIFIER as `conda activate` sets them from this
    /// shell's state (a `conda activate` inside switches), and the matched
    /// library path.
    #[command(after_help = crate::exit::RUN_SUMMARY)]
    Run(RunArgs),
    /// Print the shell code that completes envhook's subcommands, options,
    /// environment names (-n), GPUs (--gpu) and formats, asking envhook
    /// itself for the candidates. bash: `source <(envhook completions
    /// bash)` in ~/.bashrc.
    #[command(after_help = crate::exit::SUMMARY)]
    Completions(CompletionsArgs),
    /// Print envhook's man page (roff), or write every page to a directory.
    #[command(after_help = crate::exit::SUMMARY)]
    Man(ManArgs),
    /// Explain an error message (`libcudnn.so.8: cannot open shared object
    /// file`, `no kernel image is available ...`) in terms of this
    /// environment.
    #[command(after_help = crate::exit::SUMMARY)]
    Explain(ExplainArgs),
    /// Lay out a demo conda installation to try envhook on: environments
    /// shaped like real ones (CUDA 11 + Paddle, CUDA 12 + pytorch, pip's
    /// nvidia wheels, CPU only), with real shared objects; nothing is
    /// installed. Running it again replaces the demo it wrote, and only that.
    /// DIR is never a symbolic link (however spelled: `link/` too), and
    /// nothing is written through one. Run as root in a directory another
    /// user owns (DIR, or its parent where DIR is made), the demo is that
    /// user's: everything made there is given to the directory's owner, so
    /// they can use and replace it without root.
    #[command(after_help = crate::exit::SUMMARY)]
    Demo(DemoArgs),
}

/// Selecting one environment; with neither flag, the active one
/// (`CONDA_PREFIX`).
#[derive(Debug, Clone, Args)]
pub struct EnvSelection {
    /// The environment's name, as `conda activate NAME` takes it.
    #[arg(
        short = 'n',
        long = "name",
        value_name = "NAME",
        conflicts_with = "prefix",
        add = ArgValueCandidates::new(candidates::env_names)
    )]
    pub name: Option<String>,
    /// The environment's prefix (or a pixi project directory).
    #[arg(short = 'p', long = "prefix", value_name = "PREFIX", value_hint = ValueHint::DirPath)]
    pub prefix: Option<PathBuf>,
}

/// `envhook show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub env: EnvSelection,
    /// The machine its problems are judged for, as `check` takes it.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print the inventory as JSON (schema `envhook.inventory/2`, see docs/json.md).
    #[arg(long)]
    pub json: bool,
}

/// `envhook install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub env: EnvSelection,
    /// Print the plan; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run: print the hooks' texts too, after the plan.
    #[arg(long, requires = "dry_run")]
    pub show_hooks: bool,
    /// Write hooks even where every library the frameworks load resolves
    /// without one (by default none are written there: such a hook could
    /// only shadow).
    #[arg(long)]
    pub always: bool,
    /// Shells to write hooks for (sh covers bash, zsh, dash and xonsh; csh
    /// covers tcsh).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "sh,fish,powershell,csh",
        value_name = "SHELL,..."
    )]
    pub shells: Vec<Dialect>,
    /// isolated: one private directory of links to the CUDA libraries only
    /// (default); dirs: the directories that hold them, as they are.
    #[arg(long, value_enum, default_value_t = Mode::Isolated)]
    pub mode: Mode,
    /// Take over a hand-written LD_LIBRARY_PATH hook: move both halves
    /// (the activate.d script and the deactivate.d one) aside to
    /// NAME.envhook-replaced, where conda no longer runs them;
    /// `envhook uninstall` puts them back.
    #[arg(long)]
    pub replace_handwritten: bool,
    /// Also set LD_LIBRARY_PATH in the env of the environment's Jupyter
    /// kernelspecs (PREFIX/share/jupyter/kernels/*/kernel.json), which
    /// kernels started from them get without activation; `envhook
    /// uninstall` puts each kernel.json back byte for byte. Once added, a
    /// plain install keeps them current.
    #[arg(long)]
    pub jupyter: bool,
}

/// What `check` and `explain` check against.
#[derive(Debug, Clone, Args)]
pub struct TargetArgs {
    /// Check for this driver version instead of the one installed (e.g.
    /// for the machine a container image will run on).
    #[arg(long, value_name = "VERSION", value_parser = crate::machine::driver::parse_driver_version)]
    pub driver_version: Option<String>,
    /// Check for this GPU: a compute capability written sm_89 or 8.9; a
    /// model number alone, which names that GPU (4090: the RTX 4090), or
    /// where no GPU carries it, a compute capability without its dot (86,
    /// 120); or a name such as "A100" or "RTX 4090".
    #[arg(
        long,
        value_name = "sm_XY|MODEL|NAME",
        add = ArgValueCompleter::new(candidates::gpu_values)
    )]
    pub gpu: Option<String>,
    /// Extra compatibility rows (TOML, same tables as the built-in matrix);
    /// they take precedence. Also read from ENVHOOK_MATRIX.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub matrix: Option<PathBuf>,
}

/// `envhook check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub env: EnvSelection,
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print the report as JSON (schema `envhook.check/2`, see docs/json.md).
    #[arg(long)]
    pub json: bool,
}

/// `envhook audit` output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuditFormat {
    /// A table for people (colour on a terminal).
    Table,
    /// A JSON document (schema `envhook.audit/2`).
    Json,
    /// Prometheus text exposition format, for node_exporter's textfile
    /// collector (`--output DIR/envhook.prom`).
    Prometheus,
}

/// `envhook audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print the audit as JSON (the same as --format json).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = AuditFormat::Table)]
    pub format: AuditFormat,
    /// Write the output to FILE instead of stdout, atomically (a temporary
    /// file in the same directory, renamed over FILE), as the textfile
    /// collector requires.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output: Option<PathBuf>,
    /// Only the totals and one line per kind of finding.
    #[arg(long)]
    pub summary: bool,
    /// Install or refresh envhook's hooks where they are missing, stale or
    /// moved (as `envhook install` does), after showing the plan (and, on a
    /// terminal, asking), then report the state after the fix.
    #[arg(long)]
    pub fix: bool,
    /// With --fix: print the plan (what would be written, what is skipped
    /// and why) and write nothing.
    #[arg(long, requires = "fix")]
    pub dry_run: bool,
    /// With --fix: do not ask for confirmation (never asked when stdin or
    /// stdout is not a terminal).
    #[arg(short = 'y', long, requires = "fix")]
    pub yes: bool,
    /// Also audit these: envs directories, pixi projects or environments.
    #[arg(long = "envs-dir", value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub envs_dirs: Vec<PathBuf>,
}

/// `envhook export` formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// A POSIX sh snippet for /etc/profile.d.
    Sh,
    /// Dockerfile `ENV` lines.
    Dockerfile,
    /// An Apptainer/Singularity definition file's `%environment` section
    /// (POSIX sh, sourced at container start).
    Apptainer,
    /// `KEY=VALUE` lines (docker --env-file, Kubernetes ConfigMap).
    Env,
    /// A JSON document (schema `envhook.export/1`).
    Json,
}

/// `envhook export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub env: EnvSelection,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExportFormat::Sh)]
    pub format: ExportFormat,
    /// Print the export as JSON (the same as --format json).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// isolated: the link directory `envhook install` created; dirs: the
    /// library directories, as they are. Default: the link directory; without
    /// one, the library directories only when they hold CUDA libraries only
    /// (pip's), else an error naming the install to run.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
}

/// `envhook run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub env: EnvSelection,
    /// As for `export`.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// The command and its arguments.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<std::ffi::OsString>,
}

/// `envhook completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: CompletionShell,
    /// The command the script runs for candidates. Default: `envhook` when
    /// this binary is the envhook on PATH, else this binary's path.
    #[arg(long, value_name = "COMMAND")]
    pub completer: Option<String>,
}

/// The shells envhook's completion scripts are written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompletionShell {
    /// bash 4.4 or later.
    Bash,
    /// zsh.
    Zsh,
    /// fish.
    Fish,
    /// PowerShell.
    Powershell,
    /// elvish.
    Elvish,
}

/// `envhook man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The page to print: a subcommand (`install`) for envhook-install(1);
    /// none: envhook(1).
    #[arg(
        value_name = "SUBCOMMAND",
        conflicts_with = "dir",
        add = ArgValueCandidates::new(candidates::man_pages)
    )]
    pub page: Option<String>,
    /// Write every page (envhook.1, envhook-show.1, ...) into this
    /// directory, creating it if needed, and list them.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
}

/// `envhook demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where to lay it out: a directory that does not exist, an empty one,
    /// or an earlier demo (replaced).
    #[arg(value_name = "DIR", default_value = "/tmp/envhook-demo", value_hint = ValueHint::DirPath)]
    pub dir: PathBuf,
}

/// `envhook explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The error message or whole traceback, as pasted; `-` or nothing:
    /// read it from standard input. Quoting it keeps it whole; words
    /// given unquoted are joined with spaces.
    #[arg(value_name = "ERROR TEXT", num_args = 0..)]
    pub message: Vec<String>,
    #[command(flatten)]
    pub env: EnvSelection,
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print the explanation as JSON (schema `envhook.explain/2`).
    #[arg(long)]
    pub json: bool,
}

/// `envhook uninstall`.
#[derive(Debug, Args)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub env: EnvSelection,
    /// Print what would be removed; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `envhook envs`.
#[derive(Debug, Args)]
pub struct EnvsArgs {
    /// Print the discovery as JSON (schema `envhook.envs/1`, see docs/json.md).
    #[arg(long)]
    pub json: bool,
    /// Also look here: an envs directory, a pixi project or an environment.
    #[arg(long = "envs-dir", value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub envs_dirs: Vec<PathBuf>,
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    /// `--shells`'s default is every dialect, in order: the one list
    /// `audit --fix` writes too.
    #[test]
    fn install_writes_every_dialect_by_default() {
        let cli = Cli::try_parse_from(["envhook", "install", "-p", "/e"]).unwrap();
        let Command::Install(args) = cli.command else {
            panic!("not install");
        };
        assert_eq!(args.shells, Dialect::ALL);
    }
}
