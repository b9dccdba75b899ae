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
//! A directory is an environment when it has a `conda-meta/` directory.
//! Nothing here writes anything.

mod condarc;
mod context;
mod environments_txt;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use context::Context;

use crate::error::{Error, Result};
use crate::paths;

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
    /// Neither: the active environment (`CONDA_PREFIX`).
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

/// The subdirectories of `dir` that are environments, sorted; nothing when
/// `dir` cannot be read (a missing envs directory is normal).
fn child_envs(dir: &Path) -> Vec<PathBuf> {
    let mut envs = paths::dir_entries(dir);
    envs.retain(|p| is_env(p));
    envs
}

/// Common install locations under the home directory, for machines where
/// conda's shell integration is not loaded (cron jobs, `ssh host cmd`).
const HOME_ROOT_GUESSES: &[&str] = &[
    "miniconda3",
    "anaconda3",
    "miniforge3",
    "mambaforge",
    "micromamba",
    ".local/share/mamba",
];

impl Discovery {
    /// Discover every environment reachable from `ctx`, plus the extra
    /// directories given (each an envs directory, a pixi project, or an
    /// environment itself).
    pub fn run(ctx: &Context, extra_dirs: &[PathBuf]) -> Self {
        let mut d = Builder::default();
        let listed = d.roots(ctx);
        d.envs_dirs(ctx);
        d.environments(listed, extra_dirs);
        d.out
    }

    /// The active environment (`CONDA_PREFIX`), when it is one of `envs`.
    pub fn active(&self, ctx: &Context) -> Option<&KnownEnv> {
        let prefix = canonical(&ctx.var_path(crate::env_vars::CONDA_PREFIX)?);
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

impl Builder {
    /// Root prefixes, most explicit first; the environments
    /// environments.txt lists.
    fn roots(&mut self, ctx: &Context) -> Vec<PathBuf> {
        for (var, label) in [
            (crate::env_vars::CONDA_ROOT, "CONDA_ROOT"),
            (crate::env_vars::MAMBA_ROOT_PREFIX, "MAMBA_ROOT_PREFIX"),
        ] {
            if let Some(root) = ctx.var_path(var) {
                self.root(root, label);
            }
        }
        if let Some(exe) = ctx.var_path(crate::env_vars::CONDA_EXE)
            && let Some(root) = root_of_executable(&exe)
        {
            self.root(root, "CONDA_EXE");
        }
        for tool in ["conda", "mamba"] {
            if let Some(exe) = ctx.which(tool)
                && let Some(root) = root_of_executable(&exe)
            {
                self.root(root, &format!("{tool} on PATH"));
            }
        }
        if let Some(home) = ctx.home() {
            for guess in HOME_ROOT_GUESSES {
                self.root(home.join(guess), &format!("~/{guess}"));
            }
        }
        // environments.txt lists roots too, and `<root>/envs/<name>` entries
        // name their root: a machine without conda's shell integration
        // still has every installation that ever created an env.
        let listed = read_environments_txt(ctx, &mut self.out);
        for prefix in &listed {
            if looks_like_root(prefix) {
                self.root(prefix.clone(), "~/.conda/environments.txt");
            } else if let Some(root) = prefix
                .parent()
                .filter(|p| p.file_name() == Some("envs".as_ref()))
                .and_then(Path::parent)
            {
                self.root(root.to_path_buf(), "~/.conda/environments.txt");
            }
        }
        listed
    }

    /// Envs directories, in conda's lookup order.
    fn envs_dirs(&mut self, ctx: &Context) {
        for var in [
            crate::env_vars::CONDA_ENVS_DIRS,
            crate::env_vars::CONDA_ENVS_PATH,
        ] {
            if let Some(value) = ctx.var(var) {
                for dir in std::env::split_paths(value) {
                    if !dir.as_os_str().is_empty() {
                        self.envs_dir(dir, var.to_string());
                    }
                }
            }
        }
        let roots = self.out.roots.clone();
        for file in condarc::search_path(ctx, &roots) {
            match condarc::read_envs_dirs(&file, ctx) {
                Ok(dirs) => {
                    for dir in dirs {
                        self.envs_dir(dir, format!("envs_dirs in {}", file.display()));
                    }
                }
                Err(reason) => self.out.warnings.push(format!(
                    "ignoring {}: {reason}; its envs_dirs are not searched",
                    file.display()
                )),
            }
        }
        for root in &roots {
            self.envs_dir(root.join("envs"), format!("{}/envs", root.display()));
        }
        if let Some(home) = ctx.home() {
            self.envs_dir(home.join(".conda").join("envs"), "~/.conda/envs".into());
        }
    }

    /// The environments themselves: roots, the envs directories' children,
    /// environments.txt's entries and the directories given.
    fn environments(&mut self, listed: Vec<PathBuf>, extra_dirs: &[PathBuf]) {
        let roots = self.out.roots.clone();
        for (root, origin) in roots.iter().zip(self.root_origins.clone()) {
            self.env(root.clone(), Some("base".into()), EnvKind::Root, &origin);
        }
        let dirs: Vec<EnvsDir> = self.out.envs_dirs.clone();
        for dir in &dirs {
            for env in child_envs(&dir.path) {
                let name = env.file_name().map(|n| n.to_string_lossy().into_owned());
                self.env(env, name, EnvKind::Named, &dir.origin);
            }
        }
        for prefix in listed {
            self.env(prefix, None, EnvKind::Listed, "~/.conda/environments.txt");
        }
        for dir in extra_dirs {
            self.extra(dir);
        }
    }
}

/// The environments `~/.conda/environments.txt` lists; entries that lead
/// nowhere are recorded as stale.
fn read_environments_txt(ctx: &Context, out: &mut Discovery) -> Vec<PathBuf> {
    let Some(home) = ctx.home() else {
        return Vec::new();
    };
    let file = home.join(".conda").join("environments.txt");
    let lines = match environments_txt::read(&file) {
        Ok(Some(lines)) => lines,
        Ok(None) => return Vec::new(),
        Err(e) => {
            out.warnings
                .push(format!("ignoring {}: {e}", file.display()));
            return Vec::new();
        }
    };
    let mut envs = Vec::new();
    for line in lines {
        let (entry, reason) = match line {
            environments_txt::Line::Env(prefix) if is_env(&prefix) => {
                envs.push(prefix);
                continue;
            }
            environments_txt::Line::Env(prefix) => {
                let reason = if prefix.exists() {
                    "no conda-meta/ directory"
                } else {
                    "no longer exists"
                };
                (prefix.display().to_string(), reason)
            }
            environments_txt::Line::Foreign(entry) => {
                (entry, "a path for another operating system")
            }
        };
        out.stale.push(StaleEntry {
            entry,
            file: file.clone(),
            reason,
        });
    }
    envs
}

/// Whether an environment is the root of an installation: it has conda's
/// `condabin/`, a conda/mamba executable, or an `envs/` directory.
fn looks_like_root(prefix: &Path) -> bool {
    prefix.join("condabin").is_dir()
        || prefix.join("envs").is_dir()
        || ["conda", "mamba", "micromamba"]
            .iter()
            .any(|exe| prefix.join("bin").join(exe).is_file())
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
        Selector::Prefix(path) => given_prefix(path, false),
        Selector::Active => match ctx.var_path(crate::env_vars::CONDA_PREFIX) {
            Some(path) => given_prefix(&path, true),
            None => Err(Error::NoEnvSelected),
        },
    }
}

/// A prefix given directly: an environment, or a pixi project whose
/// `default` (or only) environment is meant.
/// Whether `path` is a Python virtual environment without conda: its
/// `pyvenv.cfg`, which venv, virtualenv and uv write, and no `conda-meta/`.
pub fn is_venv(path: &Path) -> bool {
    path.join("pyvenv.cfg").is_file() && !path.join("conda-meta").exists()
}

fn given_prefix(path: &Path, from_conda_prefix: bool) -> Result<KnownEnv> {
    let meta = path.join("conda-meta");
    let via = if from_conda_prefix {
        "CONDA_PREFIX"
    } else {
        "-p"
    };
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::PrefixMissing {
                path: path.to_path_buf(),
                from_conda_prefix,
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
    // A plain Python environment (venv, virtualenv, uv venv): pip-only,
    // read from its site-packages as a conda environment's pip part is.
    if is_venv(path) {
        return Ok(KnownEnv {
            prefix: path.to_path_buf(),
            name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
            kind: EnvKind::Given,
            found_via: vec![via.into(), "pyvenv.cfg".into()],
        });
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

/// Accumulates discovery results, de-duplicating by canonical path.
#[derive(Default)]
struct Builder {
    out: Discovery,
    /// canonical prefix -> index in `out.envs`.
    seen_envs: HashMap<PathBuf, usize>,
    seen_dirs: HashMap<PathBuf, usize>,
    /// Where each of `out.roots` was first found, same order.
    root_origins: Vec<String>,
}

impl Builder {
    fn root(&mut self, root: PathBuf, origin: &str) {
        if !is_env(&root) {
            return;
        }
        let canon = canonical(&root);
        if self.out.roots.iter().all(|r| canonical(r) != canon) {
            self.out.roots.push(root);
            self.root_origins.push(format!("root prefix via {origin}"));
        }
    }

    fn envs_dir(&mut self, path: PathBuf, origin: String) {
        let canon = canonical(&path);
        if self.seen_dirs.contains_key(&canon) {
            return;
        }
        self.seen_dirs.insert(canon, self.out.envs_dirs.len());
        self.out.envs_dirs.push(EnvsDir { path, origin });
    }

    fn env(&mut self, prefix: PathBuf, name: Option<String>, kind: EnvKind, via: &str) {
        let canon = canonical(&prefix);
        if let Some(&i) = self.seen_envs.get(&canon) {
            let env = &mut self.out.envs[i];
            // A root found through environments.txt is listed there too:
            // one source, named once.
            if !env
                .found_via
                .iter()
                .any(|v| v == via || v.strip_prefix("root prefix via ") == Some(via))
            {
                env.found_via.push(via.to_string());
            }
            return;
        }
        self.seen_envs.insert(canon, self.out.envs.len());
        self.out.envs.push(KnownEnv {
            prefix,
            name,
            kind,
            found_via: vec![via.to_string()],
        });
    }

    /// A directory given on the command line: an environment, a pixi
    /// project, or an envs directory.
    fn extra(&mut self, dir: &Path) {
        let via = format!("given {}", dir.display());
        if is_env(dir) {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            self.env(dir.to_path_buf(), name, EnvKind::Given, &via);
            return;
        }
        let pixi = pixi_envs(dir);
        if !pixi.is_empty() {
            for env in pixi {
                let name = env.file_name().map(|n| n.to_string_lossy().into_owned());
                self.env(
                    env,
                    name,
                    EnvKind::Pixi,
                    &format!("pixi project {}", dir.display()),
                );
            }
            return;
        }
        self.envs_dir(dir.to_path_buf(), via.clone());
        for env in child_envs(dir) {
            let name = env.file_name().map(|n| n.to_string_lossy().into_owned());
            self.env(env, name, EnvKind::Named, &via);
        }
    }
}

/// The path with symlinks resolved, or the path itself when that fails
/// (a directory that does not exist yet still de-duplicates by spelling).
fn canonical(path: &Path) -> PathBuf {
    crate::paths::real_path(path).unwrap_or_else(|_| path.to_path_buf())
}
