//! Finding environments: by name, by prefix, the active one, or all of them.
//!
//! The rules follow conda's own (`conda/base/context.py`, `envs_dirs`;
//! `conda/core/envs_manager.py`, `environments.txt`) so that `-n NAME` means
//! what it means to `conda activate NAME`:
//!
//! * root prefixes come from `CONDA_ROOT`, `MAMBA_ROOT_PREFIX`, `CONDA_EXE`,
//!   a `conda`/`mamba` on `PATH`, and the usual install locations in `~`;
//! * envs directories are `CONDA_ENVS_DIRS`/`CONDA_ENVS_PATH`, then the
//!   `envs_dirs` of every `.condarc` conda reads, then `<root>/envs` and
//!   `~/.conda/envs`;
//! * `~/.conda/environments.txt` adds environments created elsewhere;
//! * pixi projects contribute `.pixi/envs/*` when their directory is given.
//!
//! A directory is an environment when it has a `conda-meta/` directory,
//! or is a Python venv (`pyvenv.cfg`, no `conda-meta/`): those are found
//! where they are given, listed or active, and in the directories named
//! (see [`venv`] for which one is active). Nothing here writes anything.

mod builder;
mod condarc;
mod context;
mod environments_txt;
pub mod venv;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use context::Context;

use crate::error::{Error, Result};
use crate::paths;
use builder::Builder;

/// How an environment was found; shown by `envhook envs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EnvKind {
    /// The root (base) prefix of a conda/mamba installation.
    Root,
    /// A directory inside an envs directory; its name is the env's name.
    Named,
    /// Listed in `environments.txt` but outside every envs directory.
    Listed,
    /// An environment of a pixi project (`<project>/.pixi/envs/<name>`).
    Pixi,
    /// Given directly with `-p` or `CONDA_PREFIX`.
    Given,
    /// A Python virtual environment (venv, virtualenv, uv, Poetry): a
    /// `pyvenv.cfg` and no `conda-meta/`, wherever it was found.
    Venv,
}

/// An environment envhook knows about.
#[derive(Debug, Clone, Serialize)]
pub struct KnownEnv {
    /// The prefix, as it was found (not canonicalised, so it reads like the
    /// user's own path).
    #[serde(serialize_with = "paths::serialize")]
    pub prefix: PathBuf,
    /// The name `-n` accepts for it, if any (`base` for a root prefix).
    pub name: Option<String>,
    /// What kind of place it was found in.
    pub kind: EnvKind,
    /// Every place that pointed at it, e.g. `~/.conda/environments.txt`.
    pub found_via: Vec<String>,
}

/// An `environments.txt` line that does not lead to an environment.
#[derive(Debug, Clone, Serialize)]
pub struct StaleEntry {
    /// The line, trimmed.
    pub entry: String,
    /// The file it is in.
    #[serde(serialize_with = "paths::serialize")]
    pub file: PathBuf,
    /// Why it was skipped.
    pub reason: &'static str,
}

/// An envs directory and where it was configured.
#[derive(Debug, Clone, Serialize)]
pub struct EnvsDir {
    /// The directory.
    #[serde(serialize_with = "paths::serialize")]
    pub path: PathBuf,
    /// Where it came from, e.g. `envs_dirs in /home/u/.condarc`.
    pub origin: String,
}

/// Everything discovery found.
#[derive(Debug, Default, Serialize)]
pub struct Discovery {
    /// The environments, roots first, then in envs-directory order.
    pub envs: Vec<KnownEnv>,
    /// Root prefixes of conda/mamba installations.
    #[serde(serialize_with = "paths::serialize_vec")]
    pub roots: Vec<PathBuf>,
    /// Envs directories, in the order names are looked up.
    pub envs_dirs: Vec<EnvsDir>,
    /// `environments.txt` lines that lead nowhere.
    pub stale: Vec<StaleEntry>,
    /// Configuration files that could not be used, with the reason.
    pub warnings: Vec<String>,
}

/// Which environment a command works on.
#[derive(Debug, Clone)]
pub enum Selector {
    /// `-n NAME`.
    Name(String),
    /// `-p PREFIX`.
    Prefix(PathBuf),
    /// Neither: the active environment (`VIRTUAL_ENV`, `CONDA_PREFIX`, a
    /// `.venv`: see [`venv`]).
    Active,
}

/// Returns true when `dir` is an environment (has `conda-meta/`).
pub fn is_env(dir: &Path) -> bool {
    dir.join("conda-meta").is_dir()
}

/// The environments of a pixi project (`<project>/.pixi/envs/*`), sorted.
pub fn pixi_envs(project: &Path) -> Vec<PathBuf> {
    child_envs(&project.join(".pixi").join("envs"))
}

/// The subdirectories of `dir` that are environments (conda's or venvs),
/// sorted; nothing when `dir` cannot be read (a missing envs directory is
/// normal).
fn child_envs(dir: &Path) -> Vec<PathBuf> {
    let mut envs = paths::dir_entries(dir);
    envs.retain(|p| is_env(p) || is_venv(p));
    envs
}

/// The kind of an environment found in a directory of environments: a
/// venv is one wherever it lies.
fn kind_of(prefix: &Path, otherwise: EnvKind) -> EnvKind {
    if is_venv(prefix) {
        EnvKind::Venv
    } else {
        otherwise
    }
}

impl Discovery {
    /// Discover every environment reachable from `ctx`, plus the extra
    /// directories given (each an envs directory, a pixi project, or an
    /// environment itself).
    pub fn run(ctx: &Context, extra_dirs: &[PathBuf]) -> Self {
        let mut d = Builder::default();
        let listed = d.roots(ctx);
        d.envs_dirs(ctx);
        d.environments(listed, extra_dirs);
        d.active_venv(ctx);
        d.out
    }

    /// The active environment (by [`venv::active`]'s rule), when it is one
    /// of `envs`.
    pub fn active(&self, ctx: &Context) -> Option<&KnownEnv> {
        let cwd = std::env::current_dir().ok();
        let (prefix, _) = venv::active(ctx, cwd.as_deref()).ok()??;
        let prefix = canonical(&prefix);
        self.envs.iter().find(|e| canonical(&e.prefix) == prefix)
    }

    /// Find the environment `-n NAME` refers to, by conda's rule
    /// (`locate_prefix_by_name` in conda/base/context.py): `base` and
    /// `root` are the first root prefix; any other name, the first envs
    /// directory holding it. An environment listed elsewhere
    /// (environments.txt) is reachable by path only: a name that only such
    /// ones carry is an error naming their paths.
    pub fn find_by_name(&self, name: &str) -> Result<&KnownEnv> {
        let found = if name == "base" || name == "root" {
            self.envs.iter().find(|e| e.kind == EnvKind::Root)
        } else {
            self.envs
                .iter()
                .find(|e| e.kind == EnvKind::Named && e.name.as_deref() == Some(name))
        };
        if let Some(env) = found {
            return Ok(env);
        }
        let elsewhere: Vec<PathBuf> = self
            .envs
            .iter()
            .filter(|e| e.kind == EnvKind::Listed && e.prefix.file_name() == Some(name.as_ref()))
            .map(|e| e.prefix.clone())
            .collect();
        if !elsewhere.is_empty() && name != "base" && name != "root" {
            return Err(Error::NameOutsideEnvsDirs {
                name: name.to_string(),
                candidates: elsewhere,
            });
        }
        Err(Error::UnknownEnv {
            name: name.to_string(),
            known: self
                .envs
                .iter()
                .map(|e| (e.name.clone(), e.prefix.clone()))
                .collect(),
        })
    }
}

/// Resolve a selector to one environment prefix.
pub fn select(ctx: &Context, selector: &Selector) -> Result<KnownEnv> {
    let env = select_quietly(ctx, selector)?;
    crate::notice::note(&format!(
        "environment {} found via {}",
        env.prefix.display(),
        env.found_via.join(", ")
    ));
    Ok(env)
}

fn select_quietly(ctx: &Context, selector: &Selector) -> Result<KnownEnv> {
    match selector {
        Selector::Name(name) => {
            let discovery = Discovery::run(ctx, &[]);
            for w in &discovery.warnings {
                crate::notice::warn(w);
            }
            discovery.find_by_name(name).cloned()
        }
        Selector::Prefix(path) => given_prefix(path, None),
        Selector::Active => {
            let cwd = std::env::current_dir().ok();
            match venv::active(ctx, cwd.as_deref())? {
                Some((path, origin)) => given_prefix(&path, Some(&origin)),
                None => Err(Error::NoEnvSelected),
            }
        }
    }
}

/// Whether `path` is a Python virtual environment without conda: its
/// `pyvenv.cfg`, which venv, virtualenv and uv write, and no conda package
/// records. A `conda-meta/` holding only a `history` (left by `conda run
/// -p` on the venv) makes no conda environment of it: conda's activation
/// never runs there, only the venv's own scripts do.
pub fn is_venv(path: &Path) -> bool {
    path.join("pyvenv.cfg").is_file() && !has_conda_records(path)
}

/// Whether `conda-meta/` holds a package record (`*.json`). Stops at the
/// first one; a missing or unreadable directory holds none.
fn has_conda_records(path: &Path) -> bool {
    std::fs::read_dir(path.join("conda-meta")).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().as_encoded_bytes().ends_with(b".json"))
    })
}

/// A prefix given directly (`origin` `None`: with `-p`) or found active:
/// an environment, a venv, or a pixi project whose `default` (or only)
/// environment is meant.
fn given_prefix(path: &Path, origin: Option<&venv::Origin>) -> Result<KnownEnv> {
    let meta = path.join("conda-meta");
    let via = origin.map_or_else(|| "-p".to_string(), venv::Origin::describe);
    let via = via.as_str();
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::PrefixMissing {
                path: path.to_path_buf(),
                from_var: match origin {
                    Some(venv::Origin::Var(var)) => Some(var),
                    _ => None,
                },
            });
        }
        Err(e) => return Err(Error::read(path, e)),
        Ok(m) if !m.is_dir() => {
            return Err(Error::NotAnEnv {
                path: path.to_path_buf(),
                why: "it is not a directory",
            });
        }
        Ok(_) => {}
    }
    // A plain Python environment (venv, virtualenv, uv venv): pip-only,
    // read from its site-packages as a conda environment's pip part is.
    if is_venv(path) {
        return Ok(KnownEnv {
            prefix: path.to_path_buf(),
            name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
            kind: EnvKind::Venv,
            found_via: vec![via.into(), "pyvenv.cfg".into()],
        });
    }
    match std::fs::metadata(&meta) {
        Ok(m) if m.is_dir() => {
            return Ok(KnownEnv {
                prefix: path.to_path_buf(),
                name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
                kind: EnvKind::Given,
                found_via: vec![via.into()],
            });
        }
        Ok(_) => {
            return Err(Error::NotAnEnv {
                path: path.to_path_buf(),
                why: "conda-meta is not a directory",
            });
        }
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::read(meta, e)),
        Err(_) => {}
    }
    let envs = pixi_envs(path);
    if envs.is_empty() {
        return Err(Error::NotAnEnv {
            path: path.to_path_buf(),
            why: "it has no conda-meta/ directory (nor a venv's pyvenv.cfg)",
        });
    }
    let chosen = match envs
        .iter()
        .find(|e| e.file_name() == Some("default".as_ref()))
    {
        Some(default) => default.clone(),
        None if envs.len() == 1 => envs[0].clone(),
        None => {
            return Err(Error::PixiProjectAmbiguous {
                project: path.to_path_buf(),
                envs,
            });
        }
    };
    Ok(KnownEnv {
        name: chosen.file_name().map(|n| n.to_string_lossy().into_owned()),
        prefix: chosen,
        kind: EnvKind::Pixi,
        found_via: vec![format!("pixi project {}", path.display())],
    })
}

/// The root prefix of an installation, from the path of its `conda` (or
/// `mamba`) executable: `<root>/bin/conda`, `<root>/condabin/conda`,
/// `<root>/Scripts/conda.exe`. Symlinks (`/usr/local/bin/conda`) are
/// followed first.
pub fn root_of_executable(exe: &Path) -> Option<PathBuf> {
    let real = fs_err::canonicalize(exe).unwrap_or_else(|_| exe.to_path_buf());
    let dir = real.parent()?;
    let dir_name = dir.file_name()?.to_str()?;
    if !matches!(dir_name, "bin" | "condabin" | "Scripts") {
        return None;
    }
    let root = dir.parent()?;
    is_env(root).then(|| root.to_path_buf())
}

/// The path with symlinks resolved, or the path itself when that fails
/// (a directory that does not exist yet still de-duplicates by spelling).
fn canonical(path: &Path) -> PathBuf {
    crate::paths::real_path(path).unwrap_or_else(|_| path.to_path_buf())
}
