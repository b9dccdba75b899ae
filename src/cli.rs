//! The command line, as clap definitions only: no I/O happens here.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::activation::shell::Dialect;
use crate::activation::spec::Mode;

/// Matched CUDA library paths and compatibility checks for conda
/// environments running GPU frameworks.
///
/// Exit codes: 0 all well, 1 findings reported, 2 error.
#[derive(Debug, Parser)]
#[command(
    name = "envhook",
    version,
    about,
    long_about = None,
    after_help = "Exit codes: 0 all well, 1 findings reported, 2 error."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show an environment's GPU stack: CUDA, cuDNN, NCCL, cuBLAS, framework
    /// builds, library directories and broken installs.
    Show(ShowArgs),
    /// List the environments envhook can find, and where it found them.
    Envs(EnvsArgs),
    /// Write activate.d/deactivate.d hooks that put exactly this
    /// environment's CUDA libraries on LD_LIBRARY_PATH, and restore it on
    /// deactivation.
    Install(InstallArgs),
    /// Remove envhook's hooks and link directory, and nothing else.
    Uninstall(UninstallArgs),
    /// Check the environment against the compatibility matrix, this
    /// machine's driver and GPUs, and the loader: what will fail, and why.
    Check(CheckArgs),
    /// Check every environment on the machine: CUDA stack, hook status and
    /// findings per environment, in parallel. Exit 1 when any environment
    /// has a finding of severity error.
    Audit(AuditArgs),
    /// Print the environment's matched library path for deployments that
    /// never run `conda activate`: a /etc/profile.d snippet, Dockerfile ENV
    /// lines, an env-file, or JSON.
    Export(ExportArgs),
    /// Run a command with the environment's matched library path, without
    /// activating it.
    Run(RunArgs),
    /// Print shell completions for envhook.
    Completions(CompletionsArgs),
    /// Print envhook's man page (roff).
    Man,
    /// Explain an error message (`libcudnn.so.8: cannot open shared object
    /// file`, `no kernel image is available ...`) in terms of this
    /// environment.
    Explain(ExplainArgs),
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
        conflicts_with = "prefix"
    )]
    pub name: Option<String>,
    /// The environment's prefix (or a pixi project directory).
    #[arg(short = 'p', long = "prefix", value_name = "PREFIX")]
    pub prefix: Option<PathBuf>,
}

/// `envhook show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub env: EnvSelection,
    /// Print the inventory as JSON (schema `envhook.inventory/1`, see README).
    #[arg(long)]
    pub json: bool,
}

/// `envhook install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub env: EnvSelection,
    /// Print the plan and the scripts; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Shells to write hooks for (sh covers bash, zsh, dash and xonsh).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "sh,fish,powershell",
        value_name = "SHELL,..."
    )]
    pub shells: Vec<Dialect>,
    /// isolated: one private directory of links to the CUDA libraries only
    /// (default); dirs: the directories that hold them, as they are.
    #[arg(long, value_enum, default_value_t = Mode::Isolated)]
    pub mode: Mode,
}

/// What `check` and `explain` check against.
#[derive(Debug, Clone, Args)]
pub struct TargetArgs {
    /// Check for this driver version instead of the one installed (e.g.
    /// for the machine a container image will run on).
    #[arg(long, value_name = "VERSION")]
    pub driver_version: Option<String>,
    /// Check for this GPU: sm_XY, X.Y, or a name such as "A100".
    #[arg(long, value_name = "sm_XY|NAME")]
    pub gpu: Option<String>,
    /// Extra compatibility rows (TOML, same tables as the built-in matrix);
    /// they take precedence. Also read from ENVHOOK_MATRIX.
    #[arg(long, value_name = "FILE")]
    pub matrix: Option<PathBuf>,
}

/// `envhook check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub env: EnvSelection,
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print the report as JSON (schema `envhook.check/1`, see README).
    #[arg(long)]
    pub json: bool,
}

/// `envhook audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print the audit as JSON (schema `envhook.audit/1`, see README).
    #[arg(long)]
    pub json: bool,
    /// Install or refresh envhook's hooks where they are missing or stale
    /// (as `envhook install` does), and report what changed.
    #[arg(long)]
    pub fix: bool,
    /// Also audit these: envs directories, pixi projects or environments.
    #[arg(long = "envs-dir", value_name = "DIR")]
    pub envs_dirs: Vec<PathBuf>,
}

/// `envhook export` formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// A POSIX sh snippet for /etc/profile.d.
    Sh,
    /// Dockerfile `ENV` lines.
    Dockerfile,
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
    /// isolated: the link directory `envhook install` created; dirs: the
    /// library directories. Default: the link directory if it exists.
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
    pub shell: clap_complete::Shell,
}

/// `envhook explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The error message or whole traceback, as pasted; `-` or nothing:
    /// read it from standard input.
    #[arg(value_name = "ERROR TEXT")]
    pub message: Option<String>,
    #[command(flatten)]
    pub env: EnvSelection,
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print the explanation as JSON (schema `envhook.explain/1`).
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
    /// Print the discovery as JSON (schema `envhook.envs/1`, see README).
    #[arg(long)]
    pub json: bool,
    /// Also look here: an envs directory, a pixi project or an environment.
    #[arg(long = "envs-dir", value_name = "DIR")]
    pub envs_dirs: Vec<PathBuf>,
}
