//! Which environment is active when neither `-n` nor `-p` is given, by
//! uv's rule (`crates/uv-python/src/virtualenv.rs` and `discovery.rs`):
//! `VIRTUAL_ENV` first (a venv activated inside a conda environment is on
//! top of it), then `CONDA_PREFIX` of an environment other than base, then
//! a venv the current directory is in or a `.venv` in it or one of its
//! parents (uv's and Poetry's convention), and last an active base
//! environment (uv treats base as a system Python, below a project's
//! `.venv`).

use std::path::{Path, PathBuf};

use crate::discovery::Context;
use crate::env_vars;
use crate::error::{Error, Result};

/// Where the active environment was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A variable the activation set: `VIRTUAL_ENV` or `CONDA_PREFIX`.
    Var(&'static str),
    /// The working directory is inside this venv.
    Inside(PathBuf),
    /// A `.venv` in the working directory (`parent` false) or above it.
    DotVenv {
        /// Whether it is in a parent of the working directory.
        parent: bool,
    },
}

impl Origin {
    /// The words `envs` and `-v` show for it.
    pub fn describe(&self) -> String {
        match self {
            Origin::Var(var) => (*var).to_string(),
            Origin::Inside(_) => "the current directory (inside the venv)".into(),
            Origin::DotVenv { parent: false } => ".venv in the current directory".into(),
            Origin::DotVenv { parent: true } => ".venv in a parent directory".into(),
        }
    }
}

/// The active environment by uv's rule, with where it was found; `None`
/// when nothing is active and no `.venv` is near `cwd`. A `.venv` without
/// `pyvenv.cfg` is an error, as uv makes it: it is not skipped for one
/// further up.
pub fn active(ctx: &Context, cwd: Option<&Path>) -> Result<Option<(PathBuf, Origin)>> {
    if let Some(venv) = ctx.var_path(env_vars::VIRTUAL_ENV) {
        return Ok(Some((venv, Origin::Var(env_vars::VIRTUAL_ENV))));
    }
    let conda = ctx.var_path(env_vars::CONDA_PREFIX);
    if let Some(prefix) = conda.as_ref().filter(|p| !is_conda_base(ctx, p)) {
        return Ok(Some((prefix.clone(), Origin::Var(env_vars::CONDA_PREFIX))));
    }
    if let Some(found) = cwd.map(from_working_dir).transpose()?.flatten() {
        return Ok(Some(found));
    }
    Ok(conda.map(|p| (p, Origin::Var(env_vars::CONDA_PREFIX))))
}

/// Whether `CONDA_PREFIX` is the base environment, by uv's test: it is
/// `CONDA_ROOT`, or conda named the active environment `base` (`root`)
/// and the prefix is not a directory of that name (a pixi environment is
/// never base).
fn is_conda_base(ctx: &Context, prefix: &Path) -> bool {
    if prefix.join("conda-meta").join("pixi").is_file() {
        return false;
    }
    if ctx.var_path(env_vars::CONDA_ROOT).as_deref() == Some(prefix) {
        return true;
    }
    let Some(name) = ctx.var_str(env_vars::CONDA_DEFAULT_ENV) else {
        return false;
    };
    matches!(name, "base" | "root") && prefix.file_name() != Some(name.as_ref())
}

/// The venv `cwd` is in, or the first `.venv` (a directory, or a link to
/// one) in `cwd` or a parent, nearest first.
fn from_working_dir(cwd: &Path) -> Result<Option<(PathBuf, Origin)>> {
    for (depth, dir) in cwd.ancestors().enumerate() {
        if dir.join("pyvenv.cfg").is_file() {
            return Ok(Some((dir.to_path_buf(), Origin::Inside(dir.to_path_buf()))));
        }
        let dot_venv = dir.join(".venv");
        let meta = match std::fs::symlink_metadata(&dot_venv) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::read(dot_venv, e)),
        };
        if !meta.is_dir() && !meta.file_type().is_symlink() {
            continue;
        }
        if !dot_venv.join("pyvenv.cfg").is_file() {
            return Err(Error::NotAnEnv {
                path: dot_venv,
                why: "a .venv without pyvenv.cfg, which is where uv and envhook look",
            });
        }
        return Ok(Some((dot_venv, Origin::DotVenv { parent: depth > 0 })));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn venv(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    }

    #[test]
    fn virtual_env_wins_over_conda_prefix_and_dot_venv() {
        let tmp = tempfile::tempdir().unwrap();
        venv(&tmp.path().join(".venv"));
        let ctx = Context::fake(
            tmp.path(),
            &[("VIRTUAL_ENV", "/v"), ("CONDA_PREFIX", "/c/envs/x")],
        );
        let (path, origin) = active(&ctx, Some(tmp.path())).unwrap().unwrap();
        assert_eq!(
            (path.as_path(), origin),
            (Path::new("/v"), Origin::Var("VIRTUAL_ENV"))
        );
    }

    #[test]
    fn dot_venv_wins_over_base_but_not_over_a_named_env() {
        let tmp = tempfile::tempdir().unwrap();
        venv(&tmp.path().join(".venv"));
        let deep = tmp.path().join("src/pkg");
        std::fs::create_dir_all(&deep).unwrap();
        let base = [("CONDA_PREFIX", "/c"), ("CONDA_DEFAULT_ENV", "base")];
        let (path, origin) = active(&Context::fake(tmp.path(), &base), Some(&deep))
            .unwrap()
            .unwrap();
        assert_eq!(path, tmp.path().join(".venv"));
        assert_eq!(origin, Origin::DotVenv { parent: true });
        let named = [("CONDA_PREFIX", "/c/envs/x"), ("CONDA_DEFAULT_ENV", "x")];
        let (path, _) = active(&Context::fake(tmp.path(), &named), Some(&deep))
            .unwrap()
            .unwrap();
        assert_eq!(path, Path::new("/c/envs/x"));
    }

    #[test]
    fn a_dot_venv_without_pyvenv_cfg_is_an_error_and_inside_a_venv_counts() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("p/.venv")).unwrap();
        let ctx = Context::fake(tmp.path(), &[]);
        assert!(active(&ctx, Some(&tmp.path().join("p"))).is_err());
        venv(&tmp.path().join("v"));
        std::fs::create_dir_all(tmp.path().join("v/lib")).unwrap();
        let (path, origin) = active(&ctx, Some(&tmp.path().join("v/lib")))
            .unwrap()
            .unwrap();
        assert_eq!(path, tmp.path().join("v"));
        assert_eq!(origin, Origin::Inside(tmp.path().join("v")));
        assert!(active(&ctx, Some(Path::new("/"))).unwrap().is_none());
    }
}
