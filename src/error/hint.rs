//! What the user can do about an [`Error`]: the `hint:` lines printed
//! under it, one helper per family of errors.

use std::io;

use super::Error;

impl Error {
    /// What the user can do about it, printed as `hint:` lines.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::EnvsDirMissing { .. }
            | Error::NoMessage { .. }
            | Error::UnknownGpu { .. }
            | Error::AmbiguousGpu { .. }
            | Error::UnknownManPage { .. }
            | Error::NotADemo { .. }
            | Error::DemoPath { .. } => self.usage_hint(),
            Error::NameOutsideEnvsDirs { .. }
            | Error::NoEnvSelected
            | Error::NotAnEnv { .. }
            | Error::PixiProjectAmbiguous { .. }
            | Error::PrefixMissing { .. }
            | Error::UnknownEnv { .. } => self.selection_hint(),
            Error::BadDistInfo { .. }
            | Error::BadMatrix { .. }
            | Error::BadRecord { .. }
            | Error::Read { .. }
            | Error::RecordTooLarge { .. } => self.reading_hint(),
            _ => self.writing_hint(),
        }
    }

    /// A command given what it cannot use: a message, a directory, a GPU, a page.
    fn usage_hint(&self) -> Option<String> {
        match self {
            Error::NoMessage { .. } => Some(
                "give it as an argument (`envhook explain \"libcudnn.so.8: cannot open shared \
                 object file\"`) or pipe it in (`python train.py 2>&1 | envhook explain -`)"
                    .into(),
            ),
            Error::EnvsDirMissing { .. } => Some(
                "give an envs directory, a pixi project or an environment that exists \
                 (`envhook envs` lists what envhook finds without it)"
                    .into(),
            ),
            Error::UnknownGpu { value, suggestions } => Some(gpu_hint(value, suggestions)),
            Error::AmbiguousGpu { names, .. } => Some(format!(
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
            )),
            Error::UnknownManPage { known, .. } => {
                Some(format!("pages: envhook, {}", known.join(", ")))
            }
            Error::DemoPath { .. } => Some(
                "name a directory whose path holds no line break and ends in its name: \
                 `envhook demo DIR`"
                    .into(),
            ),
            Error::NotADemo { path, marker, .. } => Some(format!(
                "envhook demo writes only into a directory that does not exist, an empty one, \
                 or an earlier demo (which holds {}), and {} is none of these; name another \
                 directory: `envhook demo DIR`",
                marker,
                path.display()
            )),
            _ => None,
        }
    }

    /// Selecting the environment: none, missing, not one, unknown or ambiguous.
    fn selection_hint(&self) -> Option<String> {
        match self {
            Error::NoEnvSelected => Some(
                "pass -n NAME or -p PREFIX, run envhook inside an activated environment \
                 (VIRTUAL_ENV, CONDA_PREFIX), or in a directory with a .venv in it or above it \
                 (`envhook envs` lists the environments it can find)"
                    .into(),
            ),
            Error::PrefixMissing {
                from_var: Some(var),
                ..
            } => Some(format!(
                "{var} points at a removed environment; run `{}` or pass -n NAME / -p PREFIX",
                if *var == crate::env_vars::VIRTUAL_ENV {
                    "deactivate"
                } else {
                    "conda deactivate"
                }
            )),
            Error::PrefixMissing { .. } => {
                Some("check the path; `envhook envs` lists the environments it can find".into())
            }
            Error::NotAnEnv { .. } => Some(
                "a conda environment is a directory with a conda-meta/ folder; \
                 pass the environment's prefix (e.g. ~/miniconda3/envs/NAME) or a pixi project \
                 with .pixi/envs/"
                    .into(),
            ),
            Error::UnknownEnv { known, .. } if known.is_empty() => Some(
                "envhook found no environments at all; pass the prefix with -p, or set \
                 CONDA_EXE / MAMBA_ROOT_PREFIX so it can find your installation"
                    .into(),
            ),
            Error::UnknownEnv { known, .. } => {
                let mut hint = String::from("environments found:");
                for (name, prefix) in known {
                    hint.push_str(&format!(
                        "\n  {:<20} {}",
                        name.as_deref().unwrap_or("-"),
                        prefix.display()
                    ));
                }
                Some(hint)
            }
            Error::NameOutsideEnvsDirs { candidates, .. } => {
                let paths: Vec<String> = candidates
                    .iter()
                    .map(|c| format!("-p {}", crate::finding::quoted_path(c)))
                    .collect();
                Some(format!(
                    "listed in environments.txt outside them; select it by path: {}",
                    paths.join(" or ")
                ))
            }
            Error::PixiProjectAmbiguous { envs, .. } => {
                let mut hint = String::from("pick one with -p:");
                for e in envs {
                    hint.push_str(&format!("\n  {}", e.display()));
                }
                Some(hint)
            }
            _ => None,
        }
    }

    /// Reading what an environment holds, or the data.
    fn reading_hint(&self) -> Option<String> {
        match self {
            Error::Read { source, .. } if source.kind() == io::ErrorKind::PermissionDenied => {
                Some("run envhook as a user who can read the environment".into())
            }
            Error::Read { .. } => None,
            Error::BadRecord { .. } => Some(
                "the record is damaged; reinstall the package (`conda install --force-reinstall \
                 -p PREFIX NAME`) or remove the stray file from conda-meta/"
                    .into(),
            ),
            Error::BadDistInfo { .. } => Some(
                "the pip metadata is damaged; reinstall the distribution \
                 (`pip install --force-reinstall --no-deps NAME==VERSION`)"
                    .into(),
            ),
            Error::RecordTooLarge { .. } => Some(
                "reinstall the package so conda rewrites its record; envhook leaves it out \
                 of the checks meanwhile"
                    .into(),
            ),
            Error::BadMatrix { .. } => Some(
                "a matrix file has the tables of data/matrix.toml (driver_floor, toolkit_driver, \
                 arch, gpu, cudnn, framework, dlopen), every row with a source"
                    .into(),
            ),
            _ => None,
        }
    }

    /// Writing into an environment or beside it, and running a command.
    fn writing_hint(&self) -> Option<String> {
        match self {
            Error::UnsupportedPrefix { .. } => Some(
                "recreate the environment under a plain path (`conda create -p /path/without/colons`), \
                 or set LD_LIBRARY_PATH yourself"
                    .into(),
            ),
            Error::Write { source, .. }
                if matches!(
                    source.kind(),
                    io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
                ) =>
            {
                Some(
                    "the environment is read-only for this user (another owner, or a read-only \
                     mount); run envhook as the environment's owner, or see what it would write \
                     with --dry-run"
                        .into(),
                )
            }
            Error::Write { .. } => None,
            Error::PrivateDir { path, .. } => Some(format!(
                "remove {} (envhook makes it again, mode 0700), or run envhook install on the \
                 environment so run uses its own link directory",
                path.display()
            )),
            Error::NotAFile { .. } => Some(
                "envhook writes only regular files, replacing them whole; name a file that \
                 does not exist yet or is one, or write to standard output"
                    .into(),
            ),
            Error::VenvScript { path, .. } => Some(format!(
                "envhook adds to a venv's activation script, and takes out of it, only the block \
                 it wrote, unchanged: remove the lines from `# >>> envhook >>>` to \
                 `# <<< envhook <<<` in {} yourself (the rest is the venv's), then run envhook \
                 again",
                path.display()
            )),
            Error::Kernelspec { path, .. } => Some(format!(
                "envhook sets LD_LIBRARY_PATH in a kernelspec's env, and puts the file back, only \
                 where it can do so exactly: make {} what you want the kernel to get (its env's \
                 LD_LIBRARY_PATH included), delete kernel.json.envhook beside it, then run \
                 envhook again",
                path.with_file_name("kernel.json").display()
            )),
            Error::PlantedLink { link, .. } => Some(format!(
                "envhook writes only through real directories inside the environment and never \
                 follows a symbolic link there; if the link is yours, replace it with what it \
                 points at (a real directory or file) and run envhook again; if it is not, \
                 someone planted it: look at '{}' before anything else writes there",
                link.display()
            )),
            Error::NotOurs { .. } => Some(
                "envhook replaces and removes only what carries its mark (files that begin with \
                 `# envhook:owned`, directories holding `.envhook-owned`); move these aside or \
                 rename them, then run envhook again"
                    .into(),
            ),
            Error::Locked { .. } => Some(
                "an envhook install, uninstall or audit --fix is still running on this \
                 environment (a killed one releases the lock at once); wait for it, or find it \
                 with `pgrep -a envhook`"
                    .into(),
            ),
            Error::NotInstalled { prefix } => Some(format!(
                "run `envhook install -p {}` first: it creates lib/envhook/cuda, which holds the \
                 CUDA libraries only (in an image, run it there too); --mode dirs exports the \
                 library directories as they are, all of lib/ included, whose libstdc++ and \
                 libcrypto then shadow the system's",
                prefix.display()
            )),
            Error::Exec { .. } => Some("check the command name and PATH".into()),
            Error::Output(_) => None,
            _ => None,
        }
    }
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
