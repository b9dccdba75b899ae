//! Activation scripts envhook did not write: found, left alone, and checked
//! for the known bugs of hand-written `LD_LIBRARY_PATH` hooks (the folk
//! `env_vars.sh` from blog posts and TensorFlow's old install docs).
//!
//! The checks are textual and deliberately narrow: each one matches the
//! shape of a real recipe (see `tests/foreign.rs` for the exact scripts).
//!
//! conda's own environment variables are hooks too: `conda env config vars
//! set LD_LIBRARY_PATH=...` (stored in `conda-meta/state`) and the
//! `etc/conda/env_vars.d/*.json` files packages ship are exported by conda
//! on activation, before activate.d runs, and restored from
//! `__CONDA_SHLVL_<n>_LD_LIBRARY_PATH` on deactivation.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::activation::shell::{self, Phase};

/// A hook script of another origin that touches `LD_LIBRARY_PATH`.
#[derive(Debug, Clone, Serialize)]
pub struct ForeignHook {
    /// The script.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub path: PathBuf,
    /// activate.d or deactivate.d.
    pub phase: Phase,
    /// The bugs found in it, one sentence each.
    pub bugs: Vec<String>,
}

/// Scripts larger than this are not hooks anyone wrote by hand.
pub const MAX_SCRIPT_BYTES: u64 = 1 << 20;

/// Whether [`scan`] reads a script with this metadata: a regular file of
/// at most [`MAX_SCRIPT_BYTES`].
pub fn is_readable_script(m: &std::fs::Metadata) -> bool {
    m.is_file() && m.len() <= MAX_SCRIPT_BYTES
}

/// Every non-envhook script in `activate.d`/`deactivate.d` that mentions
/// `LD_LIBRARY_PATH`, with its bugs. Unreadable files are skipped: they
/// cannot be run by conda either.
pub fn scan(prefix: &Path) -> Vec<ForeignHook> {
    let mut scripts: Vec<(Phase, PathBuf, String)> = Vec::new();
    for phase in [Phase::Activate, Phase::Deactivate] {
        let dir = prefix.join("etc/conda").join(phase.dir_name());
        for path in crate::paths::dir_entries(&dir) {
            let hookish = matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("sh" | "fish" | "ps1" | "csh" | "bat" | "xsh")
            );
            let small = std::fs::metadata(&path).is_ok_and(|m| is_readable_script(&m));
            if !hookish || !small {
                continue;
            }
            let Ok(bytes) = crate::paths::read_regular(&path, MAX_SCRIPT_BYTES) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if shell::is_owned(&text) || !text.contains("LD_LIBRARY_PATH") {
                continue;
            }
            scripts.push((phase, path, text));
        }
    }
    let deactivate_restores = scripts
        .iter()
        .any(|(phase, _, _)| *phase == Phase::Deactivate);
    let mut hooks: Vec<ForeignHook> = scripts
        .iter()
        .map(|(phase, path, text)| ForeignHook {
            path: path.clone(),
            phase: *phase,
            bugs: bugs(*phase, text, deactivate_restores),
        })
        .collect();
    hooks.extend(conda_env_var(prefix));
    hooks
}

/// `LD_LIBRARY_PATH` as conda's own environment variables set it: the
/// package files in `etc/conda/env_vars.d/*.json` in sorted order, then
/// `conda-meta/state`, which wins (`***unset***` there removes it).
pub fn conda_env_var(prefix: &Path) -> Option<ForeignHook> {
    let mut found: Option<(PathBuf, String)> = None;
    let files = crate::paths::dir_entries(&prefix.join("etc/conda/env_vars.d"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"));
    for file in files {
        if let Some(value) = env_var_in(&file, false) {
            found = Some((file, value));
        }
    }
    let state = prefix.join("conda-meta/state");
    match env_var_in(&state, true).as_deref() {
        Some("***unset***") => found = None,
        Some(value) => found = Some((state.clone(), value.to_string())),
        None => {}
    }
    let (path, value) = found?;
    let from_state = path == state;
    Some(ForeignHook {
        bugs: env_var_bugs(&value, prefix, from_state),
        path,
        phase: Phase::Activate,
    })
}

/// The `LD_LIBRARY_PATH` of one JSON file: `{"env_vars": {...}}` for the
/// state file, a flat object for env_vars.d.
fn env_var_in(file: &Path, state: bool) -> Option<String> {
    let bytes = crate::paths::read_regular(file, MAX_SCRIPT_BYTES).ok()?;
    let doc: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let vars = if state { doc.get("env_vars")? } else { &doc };
    vars.get("LD_LIBRARY_PATH")?.as_str().map(String::from)
}

/// What is wrong with a value conda exports as it is.
fn env_var_bugs(value: &str, prefix: &Path, from_state: bool) -> Vec<String> {
    let mut out = vec![format!(
        "conda exports LD_LIBRARY_PATH={value} on activation{}: it replaces the value you have then \
         (conda stores it literally, so a $LD_LIBRARY_PATH typed at `set` time was expanded once, \
         then), and restores yours only on deactivation",
        if from_state {
            " (conda env config vars)"
        } else {
            ""
        }
    )];
    let lib = prefix.join("lib");
    if value
        .split(':')
        .any(|el| Path::new(el.trim_end_matches('/')) == lib)
    {
        out.push(
            "it exposes all of the environment's lib/, so its libcrypto, libtinfo and libstdc++ \
             shadow the system's (ssh, git and bash then fail with symbol errors)"
                .to_string(),
        );
    }
    if value.split(':').any(str::is_empty) {
        out.push(
            "it has an empty element, which the loader reads as the current directory".to_string(),
        );
    }
    out
}

/// The known bugs in one script's text.
pub fn bugs(phase: Phase, text: &str, has_deactivate: bool) -> Vec<String> {
    let code: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#') && !l.starts_with("REM") && !l.is_empty())
        .collect();
    let assigns: Vec<&str> = code.iter().copied().filter(|l| assigns_ld(l)).collect();
    match phase {
        Phase::Deactivate => deactivate_bugs(&code, &assigns),
        Phase::Activate => activate_bugs(&code, &assigns, has_deactivate),
    }
}

/// What a deactivate script gets wrong: wiping the value, or restoring a
/// backup that reactivation overwrote.
fn deactivate_bugs(code: &[&str], assigns: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let wipes = |l: &str| {
        ["unset ", "set -e ", "unsetenv ", "Remove-Item env:"]
            .iter()
            .any(|cmd| l.split(';').any(|part| names_ld(part.trim(), cmd)))
    };
    if code.iter().any(|l| wipes(l)) {
        out.push(
            "deactivation unsets LD_LIBRARY_PATH, wiping the value you had before activating"
                .to_string(),
        );
    }
    if assigns
        .iter()
        .any(|l| l.contains("_BACKUP") || l.contains("_OLD") || l.contains("ORIG"))
    {
        out.push(
            "deactivation restores a backup that reactivation overwrites (conda reactivates \
             after every install), and an unset variable comes back set but empty"
                .to_string(),
        );
    }
    out
}

/// What an activate script gets wrong: empty elements, duplicates, all of
/// lib/, programs run, nothing to undo it.
fn activate_bugs(code: &[&str], assigns: &[&str], has_deactivate: bool) -> Vec<String> {
    let mut out = Vec::new();
    let refs_self = |l: &str| {
        l.contains("$LD_LIBRARY_PATH")
            || l.contains("${LD_LIBRARY_PATH}")
            || l.contains("%LD_LIBRARY_PATH%")
    };
    if assigns
        .iter()
        .any(|l| refs_self(l) && !l.contains("LD_LIBRARY_PATH:+"))
    {
        out.push(
            "when LD_LIBRARY_PATH is unset it leaves an empty element, which the loader \
             reads as the current directory; and it fails under `set -u`"
                .to_string(),
        );
        let guarded = code
            .iter()
            .any(|l| l.starts_with("case ") || l.contains("contains "));
        if !guarded {
            out.push(
                "every reactivation (after each `conda install`) prepends the same entries again"
                    .to_string(),
            );
        }
    }
    if assigns.iter().any(|l| {
        l.contains("CONDA_PREFIX/lib:")
            || l.contains("CONDA_PREFIX/lib/:")
            || l.contains("CONDA_PREFIX}/lib:")
            || l.ends_with("CONDA_PREFIX/lib")
            || l.ends_with("CONDA_PREFIX/lib/")
            || l.contains("CONDA_PREFIX/lib\"")
    }) {
        out.push(
            "it exposes all of the environment's lib/, so its libcrypto, libtinfo and \
             libstdc++ shadow the system's (ssh, git and bash then fail with symbol errors)"
                .to_string(),
        );
    }
    if code.iter().any(|l| l.contains("$(") || l.contains('`')) {
        out.push("it runs programs (command substitution) on every activation".to_string());
    }
    if !has_deactivate {
        out.push("no deactivate.d script undoes it".to_string());
    }
    out
}

/// Whether the line assigns `LD_LIBRARY_PATH` itself (not
/// `LD_LIBRARY_PATH_BACKUP`, not `MY_LD_LIBRARY_PATH`).
fn assigns_ld(line: &str) -> bool {
    const NAME: &str = "LD_LIBRARY_PATH";
    line.match_indices(NAME).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + NAME.len()..].trim_start_matches(' ');
        let starts_word = before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        let is_target = after.starts_with('=') && !after.starts_with("==")
            || line[..at].trim_end().ends_with("set -gx")
            || line[..at].trim_end().ends_with("setenv")
            || line[..at].ends_with("$env:") && after.starts_with('=');
        starts_word && is_target
    })
}

/// Whether `part` is `<cmd>LD_LIBRARY_PATH`, the whole variable name.
fn names_ld(part: &str, cmd: &str) -> bool {
    part.strip_prefix(cmd)
        .and_then(|rest| rest.strip_prefix("LD_LIBRARY_PATH"))
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recipe from the field notes (`../shared/seeds/000_*`): a backup
    /// variable and a prepend of all of `lib/`.
    const BLOG_ACTIVATE: &str = "export LD_LIBRARY_PATH_BACKUP=$LD_LIBRARY_PATH\nexport LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH\n";
    const BLOG_DEACTIVATE: &str =
        "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH_BACKUP\nunset LD_LIBRARY_PATH_BACKUP\n";
    /// TensorFlow's 2022 docs (tensorflow/docs be62ee25b): append, no deactivate.
    const TF_2022: &str = "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CONDA_PREFIX/lib/\n";
    /// TensorFlow's 2024 docs (c494be58c).
    const TF_2024_ACT: &str = "NVIDIA_DIR=$(dirname $(dirname $(python -c \"import nvidia.cudnn;print(nvidia.cudnn.__file__)\")))\nexport LD_LIBRARY_PATH=$(echo ${NVIDIA_DIR}/*/lib/ | sed -r 's/\\s+/:/g')${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}\n";
    const TF_2024_DEACT: &str = "unset NVIDIA_DIR; unset LD_LIBRARY_PATH\n";

    #[test]
    fn blog_recipe() {
        let act = bugs(Phase::Activate, BLOG_ACTIVATE, true);
        assert_eq!(act.len(), 3, "{act:#?}");
        assert!(act[0].contains("empty element"));
        assert!(act[1].contains("every reactivation"));
        assert!(act[2].contains("exposes all of the environment's lib/"));
        let deact = bugs(Phase::Deactivate, BLOG_DEACTIVATE, true);
        assert_eq!(deact.len(), 1, "{deact:#?}");
        assert!(deact[0].contains("reactivation overwrites"));
    }

    #[test]
    fn tensorflow_2022_recipe() {
        let act = bugs(Phase::Activate, TF_2022, false);
        assert!(act.iter().any(|b| b.contains("empty element")), "{act:#?}");
        assert!(act.iter().any(|b| b.contains("exposes all")), "{act:#?}");
        assert!(
            act.iter().any(|b| b.contains("no deactivate.d script")),
            "{act:#?}"
        );
    }

    #[test]
    fn tensorflow_2024_recipe() {
        let act = bugs(Phase::Activate, TF_2024_ACT, true);
        assert_eq!(
            act,
            vec!["it runs programs (command substitution) on every activation"]
        );
        let deact = bugs(Phase::Deactivate, TF_2024_DEACT, true);
        assert_eq!(deact.len(), 1);
        assert!(deact[0].contains("wiping the value you had"));
    }

    #[test]
    fn conda_env_vars_from_state_and_packages() {
        let t = tempfile::tempdir().unwrap();
        let prefix = t.path();
        std::fs::create_dir_all(prefix.join("conda-meta")).unwrap();
        std::fs::create_dir_all(prefix.join("etc/conda/env_vars.d")).unwrap();
        assert!(conda_env_var(prefix).is_none());
        std::fs::write(
            prefix.join("etc/conda/env_vars.d/cudnn.json"),
            r#"{"LD_LIBRARY_PATH": "/opt/cudnn/lib"}"#,
        )
        .unwrap();
        let hook = conda_env_var(prefix).unwrap();
        assert!(hook.path.ends_with("env_vars.d/cudnn.json"));
        assert_eq!(hook.bugs.len(), 1, "{:#?}", hook.bugs);
        // `conda env config vars set LD_LIBRARY_PATH=$CONDA_PREFIX/lib:` as
        // tf#52988 suggests: the state file wins.
        let value = format!("{}/lib:", prefix.display());
        std::fs::write(
            prefix.join("conda-meta/state"),
            serde_json::json!({"env_vars": {"LD_LIBRARY_PATH": value}}).to_string(),
        )
        .unwrap();
        let hook = conda_env_var(prefix).unwrap();
        assert!(hook.path.ends_with("conda-meta/state"));
        assert!(hook.bugs[0].contains("(conda env config vars)"));
        assert!(hook.bugs[1].contains("exposes all of the environment's lib/"));
        assert!(hook.bugs[2].contains("empty element"));
        // `conda env config vars unset` writes a marker that removes it.
        std::fs::write(
            prefix.join("conda-meta/state"),
            r#"{"env_vars": {"LD_LIBRARY_PATH": "***unset***"}}"#,
        )
        .unwrap();
        assert!(conda_env_var(prefix).is_none());
    }

    #[test]
    fn careful_scripts_pass() {
        let act = "case \":${LD_LIBRARY_PATH:-}:\" in *\":/opt/x/lib:\"*) ;; *) export LD_LIBRARY_PATH=\"/opt/x/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\" ;; esac\n";
        assert_eq!(bugs(Phase::Activate, act, true), Vec::<String>::new());
        assert!(
            bugs(
                Phase::Deactivate,
                "export MY_LD_LIBRARY_PATH=1\nunset LD_LIBRARY_PATH_SAVED\n",
                true
            )
            .is_empty()
        );
    }
}
