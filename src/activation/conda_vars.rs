//! What `conda activate PREFIX` sets, from the calling shell's state: for
//! `envhook run`, as `conda run` does (its script runs `conda activate`).
//! Read in conda/conda's `conda/activate.py` (`_build_activate_stack`,
//! `build_reactivate`, `_default_env`, `_prompt_modifier`,
//! `_replace_prefix_in_path`) and `conda/utils.py`
//! (`wrap_subprocess_call`).
//!
//! Without these a `conda activate other` inside `run` saw level 0 and put
//! `other` in front of the environment instead of in its place, and a
//! `conda deactivate` had nowhere to go back to. Not followed: conda's
//! shell hook, which `conda run` evaluates first, activates base where
//! `auto_activate` is on (so from a shell without conda's integration,
//! `conda run` is one level deeper, base below the environment); the
//! `env_prompt` and `changeps1` settings (conda's defaults, `({default_env})
//! ` and on, are used); the environment's own variables (`conda env config
//! vars`).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::discovery::Context;
use crate::env_vars;

/// The variables `conda activate prefix` exports, PATH included, in the
/// order conda exports them. `root`: the prefix is a conda installation's
/// root, which conda calls `base`.
pub fn activate(ctx: &Context, prefix: &Path, root: bool) -> Vec<(String, OsString)> {
    let level = ctx
        .var(env_vars::CONDA_SHLVL)
        .and_then(|v| v.to_str()?.trim().parse::<u32>().ok())
        .unwrap_or(0);
    let old = ctx.var(env_vars::CONDA_PREFIX).map(Path::new);
    let path = ctx.var_os("PATH").unwrap_or_default();
    let set = |name: &str, value: &OsStr| (name.to_string(), value.to_os_string());
    // The active environment again: a reactivation, no new level.
    if level > 0 && old.is_some_and(|o| same_path(o, prefix)) {
        let default_env = ctx
            .var(env_vars::CONDA_DEFAULT_ENV)
            .map(OsStr::to_os_string)
            .unwrap_or_else(|| default_env(prefix, root));
        return vec![
            set("PATH", &replace_bin(path, Some(prefix), prefix, None)),
            set(env_vars::CONDA_SHLVL, level.to_string().as_ref()),
            set("CONDA_PROMPT_MODIFIER", &modifier(&default_env)),
        ];
    }
    let default_env = default_env(prefix, root);
    let replaced = if level == 0 { None } else { old };
    let condabin = if level == 0 {
        condabin(ctx, path, prefix, root)
    } else {
        None
    };
    let mut vars = vec![
        set(
            "PATH",
            &replace_bin(path, replaced, prefix, condabin.as_deref()),
        ),
        set(env_vars::CONDA_PREFIX, prefix.as_os_str()),
        set(env_vars::CONDA_SHLVL, (level + 1).to_string().as_ref()),
        set(env_vars::CONDA_DEFAULT_ENV, &default_env),
        set("CONDA_PROMPT_MODIFIER", &modifier(&default_env)),
    ];
    if let Some(old) = replaced {
        vars.push(set(&format!("CONDA_PREFIX_{level}"), old.as_os_str()));
    }
    vars
}

/// The `condabin` a first activation puts after the environment's `bin`
/// where no PATH entry ends in `condabin` (`_add_prefix_to_path`): that of
/// the conda in CONDA_EXE, else of the environment's own installation (the
/// root itself, or the one whose `envs` holds it).
fn condabin(ctx: &Context, path: &OsStr, prefix: &Path, root: bool) -> Option<PathBuf> {
    if path
        .as_bytes()
        .split(|b| *b == b':')
        .any(|e| e.ends_with(b"condabin"))
    {
        return None;
    }
    let installation = ctx
        .var_path(env_vars::CONDA_EXE)
        .and_then(|exe| crate::discovery::root_of_executable(&exe))
        .or_else(|| match root {
            true => Some(prefix.to_path_buf()),
            false => prefix
                .parent()
                .filter(|p| p.file_name() == Some("envs".as_ref()))
                .and_then(Path::parent)
                .map(Path::to_path_buf),
        })?;
    Some(installation.join("condabin")).filter(|d| d.is_dir())
}

/// conda's name for an environment: `base` for the root, the directory's
/// name under a directory called `envs`, else the prefix.
fn default_env(prefix: &Path, root: bool) -> OsString {
    if root {
        return "base".into();
    }
    match (
        prefix.parent().and_then(Path::file_name),
        prefix.file_name(),
    ) {
        (Some(envs), Some(name)) if envs == "envs" => name.to_os_string(),
        _ => prefix.as_os_str().to_os_string(),
    }
}

/// CONDA_PROMPT_MODIFIER under conda's default `env_prompt`.
fn modifier(default_env: &OsStr) -> OsString {
    let mut out = OsString::from("(");
    out.push(default_env);
    out.push(") ");
    out
}

/// PATH with `old`'s `bin` replaced by `new`'s where it stands, else with
/// `new`'s `bin` put first, `condabin` after it (conda's
/// `_replace_prefix_in_path`, `_add_prefix_to_path`); the other entries,
/// empty ones included, as they were.
fn replace_bin(path: &OsStr, old: Option<&Path>, new: &Path, condabin: Option<&Path>) -> OsString {
    let mut entries: Vec<&OsStr> = if path.is_empty() {
        Vec::new()
    } else {
        path.as_bytes()
            .split(|b| *b == b':')
            .map(OsStr::from_bytes)
            .collect()
    };
    let old_bin = old.map(|o| o.join("bin"));
    let at = old_bin
        .as_deref()
        .and_then(|b| entries.iter().position(|e| same_path(Path::new(e), b)));
    let bin = new.join("bin");
    match at {
        Some(i) => entries[i] = bin.as_os_str(),
        None => {
            entries.splice(
                0..0,
                std::iter::once(bin.as_ref()).chain(condabin.map(Path::as_os_str)),
            );
        }
    }
    let mut out = OsString::new();
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push(":");
        }
        out.push(e);
    }
    out
}

/// conda's `paths_equal` on Linux: the same path once normalised (`a/./b`,
/// `a//b`, a trailing `/`), not resolved.
fn same_path(a: &Path, b: &Path) -> bool {
    a.components().eq(b.components())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_entries_are_replaced_in_place_or_put_first() {
        let p = |s: &str| OsString::from(s);
        let new = Path::new("/c/envs/b");
        assert_eq!(
            replace_bin(
                &p("/x:/c/envs/a/bin:/y"),
                Some(Path::new("/c/envs/a")),
                new,
                None
            ),
            p("/x:/c/envs/b/bin:/y")
        );
        assert_eq!(
            replace_bin(&p("/x::/y"), Some(Path::new("/c/envs/a/")), new, None),
            p("/c/envs/b/bin:/x::/y")
        );
        assert_eq!(replace_bin(&p(""), None, new, None), p("/c/envs/b/bin"));
        assert_eq!(
            replace_bin(&p("/y"), None, new, Some(Path::new("/c/condabin"))),
            p("/c/envs/b/bin:/c/condabin:/y")
        );
        assert_eq!(
            replace_bin(&p("/c/envs/b/bin/:/y"), Some(new), new, None),
            p("/c/envs/b/bin:/y")
        );
    }

    #[test]
    fn default_env_is_condas() {
        assert_eq!(default_env(Path::new("/r/envs/torch"), false), "torch");
        assert_eq!(default_env(Path::new("/r"), true), "base");
        assert_eq!(
            default_env(Path::new("/w/proj/.env"), false),
            "/w/proj/.env"
        );
    }
}
