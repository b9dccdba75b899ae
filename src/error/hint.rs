//! What the user can do about an [`Error`]: the `hint:` lines printed
//! under it. [`Error::hint`] names every variant, with no catch-all arm,
//! so a variant added without deciding its hint does not compile; the
//! texts are grouped by family below it (a command given what it cannot
//! use, selecting the environment, reading, writing).

use std::io;
use std::path::{Path, PathBuf};

use super::Error;

impl Error {
    /// What the user can do about it, printed as `hint:` lines.
    pub fn hint(&self) -> Option<String> {
        let text = |t: &str| Some(t.to_string());
        match self {
            // A command given what it cannot use: a message, a directory, a
            // GPU, a page.
            Error::NoMessage { .. } => text(NO_MESSAGE),
            Error::EnvsDirMissing { .. } => text(ENVS_DIR_MISSING),
            Error::UnknownGpu { value, suggestions } => Some(gpu_hint(value, suggestions)),
            Error::AmbiguousGpu { names, .. } => Some(ambiguous_gpu(names)),
            Error::UnknownManPage { known, .. } => {
                Some(format!("pages: envhook, {}", known.join(", ")))
            }
            Error::DemoPath { .. } => text(DEMO_PATH),
            Error::NotADemo { path, marker, .. } => Some(not_a_demo(path, marker)),
            Error::Demo { source } => read_only(source).then(|| DEMO_READ_ONLY.into()),
            // Selecting the environment: none, missing, not one, unknown or
            // ambiguous.
            Error::NoEnvSelected => text(NO_ENV_SELECTED),
            Error::PrefixMissing { from_var, .. } => Some(prefix_missing(*from_var)),
            Error::NotAnEnv { .. } => text(NOT_AN_ENV),
            Error::UnknownEnv { known, .. } => Some(unknown_env(known)),
            Error::NameOutsideEnvsDirs { candidates, .. } => Some(outside_envs_dirs(candidates)),
            Error::PixiProjectAmbiguous { envs, .. } => Some(pixi_ambiguous(envs)),
            // Reading what an environment holds, or the data.
            Error::Read { source, .. } => (source.kind() == io::ErrorKind::PermissionDenied)
                .then(|| "run envhook as a user who can read the environment".into()),
            Error::BadRecord { .. } => text(BAD_RECORD),
            Error::BadDistInfo { .. } => text(BAD_DIST_INFO),
            Error::RecordTooLarge { .. } => text(RECORD_TOO_LARGE),
            Error::BadMatrix { .. } => text(BAD_MATRIX),
            // Writing into an environment or beside it, and running a command.
            Error::UnsupportedPrefix { .. } => text(UNSUPPORTED_PREFIX),
            Error::Write { source, .. } => read_only(source).then(|| READ_ONLY.into()),
            Error::PrivateDir { path, .. } => Some(private_dir(path)),
            Error::NotAFile { .. } => text(NOT_A_FILE),
            Error::VenvScript { path, .. } => Some(venv_script(path)),
            Error::Kernelspec { path, .. } => Some(kernelspec(path)),
            Error::PlantedLink { link, .. } => Some(planted_link(link)),
            Error::NotOurs { .. } => text(NOT_OURS),
            Error::Locked { .. } => text(LOCKED),
            Error::NotInstalled { prefix } => Some(not_installed(prefix)),
            Error::Exec { .. } => text("check the command name and PATH"),
            Error::Output(_) => None,
        }
    }
}

// A command given what it cannot use.

const NO_MESSAGE: &str = "give it as an argument (`envhook explain \"libcudnn.so.8: cannot open \
     shared object file\"`) or pipe it in (`python train.py 2>&1 | envhook explain -`)";

const ENVS_DIR_MISSING: &str = "give an envs directory, a pixi project or an environment that \
     exists (`envhook envs` lists what envhook finds without it)";

const DEMO_PATH: &str = "name a directory whose path holds no line break and ends in its name: \
     `envhook demo DIR`";

const DEMO_READ_ONLY: &str = "name a directory this user can write: `envhook demo DIR`";

fn ambiguous_gpu(names: &[(String, String)]) -> String {
    format!(
        "name one: {}",
        names
            .iter()
            .map(|(name, cc)| format!(
                "{} (sm_{})",
                name.split_whitespace().collect::<Vec<_>>().join("-"),
                cc.replace('.', "")
            ))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn not_a_demo(path: &Path, marker: &str) -> String {
    format!(
        "envhook demo writes only into a directory that does not exist, an empty one, or an \
         earlier demo (which holds {}), and {} is none of these; name another directory: \
         `envhook demo DIR`",
        marker,
        path.display()
    )
}

// Selecting the environment.

const NO_ENV_SELECTED: &str = "pass -n NAME or -p PREFIX, run envhook inside an activated \
     environment (VIRTUAL_ENV, CONDA_PREFIX), or in a directory with a .venv in it or above it \
     (`envhook envs` lists the environments it can find)";

const NOT_AN_ENV: &str = "a conda environment is a directory with a conda-meta/ folder; pass the \
     environment's prefix (e.g. ~/miniconda3/envs/NAME) or a pixi project with .pixi/envs/";

fn prefix_missing(from_var: Option<&str>) -> String {
    match from_var {
        Some(var) => format!(
            "{var} points at a removed environment; run `{}` or pass -n NAME / -p PREFIX",
            if var == crate::env_vars::VIRTUAL_ENV {
                "deactivate"
            } else {
                "conda deactivate"
            }
        ),
        None => "check the path; `envhook envs` lists the environments it can find".into(),
    }
}

fn unknown_env(known: &[(Option<String>, PathBuf)]) -> String {
    if known.is_empty() {
        return "envhook found no environments at all; pass the prefix with -p, or set \
                CONDA_EXE / MAMBA_ROOT_PREFIX so it can find your installation"
            .into();
    }
    let mut hint = String::from("environments found:");
    for (name, prefix) in known {
        hint.push_str(&format!(
            "\n  {:<20} {}",
            name.as_deref().unwrap_or("-"),
            prefix.display()
        ));
    }
    hint
}

fn outside_envs_dirs(candidates: &[PathBuf]) -> String {
    let paths: Vec<String> = candidates
        .iter()
        .map(|c| format!("-p {}", crate::finding::quoted_path(c)))
        .collect();
    format!(
        "listed in environments.txt outside them; select it by path: {}",
        paths.join(" or ")
    )
}

fn pixi_ambiguous(envs: &[PathBuf]) -> String {
    let mut hint = String::from("pick one with -p:");
    for e in envs {
        hint.push_str(&format!("\n  {}", e.display()));
    }
    hint
}

// Reading what an environment holds, or the data.

const BAD_RECORD: &str = "the record is damaged; reinstall the package (`conda install \
     --force-reinstall -p PREFIX NAME`) or remove the stray file from conda-meta/";

const BAD_DIST_INFO: &str = "the pip metadata is damaged; reinstall the distribution \
     (`pip install --force-reinstall --no-deps NAME==VERSION`)";

const RECORD_TOO_LARGE: &str = "reinstall the package so conda rewrites its record; envhook \
     leaves it out of the checks meanwhile";

const BAD_MATRIX: &str = "a matrix file has the tables of data/matrix.toml (driver_floor, \
     toolkit_driver, arch, gpu, cudnn, framework, dlopen), every row with a source";

// Writing into an environment or beside it, and running a command.

const UNSUPPORTED_PREFIX: &str = "recreate the environment under a plain path (`conda create -p \
     /path/without/colons`), or set LD_LIBRARY_PATH yourself";

/// A write refused for want of rights, or on a read-only mount.
fn read_only(source: &io::Error) -> bool {
    matches!(
        source.kind(),
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
    )
}

const READ_ONLY: &str = "the environment is read-only for this user (another owner, or a \
     read-only mount); run envhook as the environment's owner, or see what it would write with \
     --dry-run";

const NOT_A_FILE: &str = "envhook writes only regular files, replacing them whole; name a file \
     that does not exist yet or is one, or write to standard output";

const NOT_OURS: &str = "envhook replaces and removes only what carries its mark (files that \
     begin with `# envhook:owned`, directories holding `.envhook-owned`); move these aside or \
     rename them, then run envhook again";

const LOCKED: &str = "an envhook install, uninstall or audit --fix is still running on this \
     environment (a killed one releases the lock at once); wait for it, or find it with \
     `pgrep -a envhook`";

fn private_dir(path: &Path) -> String {
    format!(
        "remove {} (envhook makes it again, mode 0700), or run envhook install on the \
         environment so run uses its own link directory",
        path.display()
    )
}

fn venv_script(path: &Path) -> String {
    format!(
        "envhook adds to a venv's activation script, and takes out of it, only the block it \
         wrote, unchanged: remove the lines from `# >>> envhook >>>` to `# <<< envhook <<<` in \
         {} yourself (the rest is the venv's), then run envhook again",
        path.display()
    )
}

fn kernelspec(path: &Path) -> String {
    format!(
        "envhook sets LD_LIBRARY_PATH in a kernelspec's env, and puts the file back, only where \
         it can do so exactly: make {} what you want the kernel to get (its env's \
         LD_LIBRARY_PATH included), delete kernel.json.envhook beside it, then run envhook again",
        path.with_file_name("kernel.json").display()
    )
}

fn planted_link(link: &Path) -> String {
    format!(
        "envhook writes only through real directories inside the environment and never follows \
         a symbolic link there; if the link is yours, replace it with what it points at (a real \
         directory or file) and run envhook again; if it is not, someone planted it: look at \
         '{}' before anything else writes there",
        link.display()
    )
}

fn not_installed(prefix: &Path) -> String {
    format!(
        "run `envhook install -p {}` first: it creates lib/envhook/cuda, which holds the CUDA \
         libraries only (in an image, run it there too); --mode dirs exports the library \
         directories as they are, all of lib/ included, whose libstdc++ and libcrypto then \
         shadow the system's",
        prefix.display()
    )
}

/// The hint for a `--gpu` value that names nothing: for a number (`4091`,
/// `sm_4090`, `40.9`), the rule numbers are read by; for a name, the names
/// like it. `suggestions` are names from the data.
fn gpu_hint(value: &str, suggestions: &[String]) -> String {
    let lower = value.trim().to_ascii_lowercase();
    let digits = ["compute_", "sm_", "sm"]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
        .unwrap_or(&lower);
    let like = match suggestions {
        [] => String::new(),
        names => format!("; GPUs like it: {}", names.join(", ")),
    };
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return format!(
            "a bare number is a GPU's model number (`--gpu 4090`: the RTX 4090), else a compute \
             capability without its dot (`--gpu 89`); write a compute capability as sm_89 or \
             8.9, one the matrix's [[arch]] table holds{like}"
        );
    }
    match suggestions {
        [] => "give the compute capability (`--gpu sm_90`, `--gpu 8.6`), or add the GPU to \
               a --matrix file's [[gpu]] table"
            .into(),
        names => format!(
            "known names like it: {}; or give the compute capability (`--gpu sm_90`)",
            names.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests;
