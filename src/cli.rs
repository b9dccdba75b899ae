//! The command line, as clap definitions only: no I/O happens here.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Matched CUDA library paths and compatibility checks for conda
/// environments running GPU frameworks.
///
/// Exit codes: 0 all well, 1 findings reported, 2 error.
#[derive(Debug, Parser)]
#[command(name = "envhook", version, about, long_about = None)]
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
