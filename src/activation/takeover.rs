//! Taking over a hand-written `LD_LIBRARY_PATH` hook
//! (`install --replace-handwritten`): both halves, the activate.d script
//! and the deactivate.d one that undoes it, are moved aside together, to
//! `NAME.envhook-replaced` in the same directory. conda picks the files of
//! activate.d/deactivate.d by their suffix alone (`.sh`, `.fish`, `.csh`,
//! `.ps1`, `.bat`, `.xsh`, per shell; `conda/activate.py`, and conda's own
//! test puts an `ignore.txt` there to check it), so a moved-aside script is
//! kept but never run. `uninstall` moves each one
//! back, byte for byte (a rename), when its old name is free.
//!
//! Moving only one half is the trap the issue reports: a deactivate.d
//! script left behind unsets or "restores" `LD_LIBRARY_PATH` on every
//! deactivation.
//!
//! The renamed file itself is the record (nothing else has to survive a
//! crash); the hooks' header lists it too, for a reader of the hook.
//! conda's own variables (`conda env config vars`, `env_vars.d`) are
//! conda's files and are never edited: the finding names conda's command.

use std::path::{Path, PathBuf};

use crate::activation::foreign::ForeignHook;
use crate::activation::shell::Phase;

/// What a moved-aside script's name ends in.
pub const SUFFIX: &str = ".envhook-replaced";

/// The hand-written scripts `--replace-handwritten` moves: every foreign
/// `LD_LIBRARY_PATH` script in activate.d or deactivate.d (not conda's own
/// variables, which are not scripts).
pub fn scripts(foreign: &[ForeignHook]) -> Vec<PathBuf> {
    foreign
        .iter()
        .filter(|h| {
            h.path
                .parent()
                .is_some_and(|d| d.ends_with(h.phase.dir_name()))
        })
        .map(|h| h.path.clone())
        .collect()
}

/// The scripts already moved aside in `prefix`, by their original paths.
pub fn moved_aside(prefix: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for phase in [Phase::Activate, Phase::Deactivate] {
        for path in crate::paths::dir_entries(&prefix.join(phase.rel_dir())) {
            if let Some(name) = path.file_name().and_then(|n| n.to_str())
                && let Some(original) = original_name(name)
            {
                out.push(path.with_file_name(original));
            }
        }
    }
    out
}

/// `env_vars.sh.envhook-replaced` → `env_vars.sh`.
pub fn original_name(name: &str) -> Option<&str> {
    name.strip_suffix(SUFFIX).filter(|n| !n.is_empty())
}

/// `env_vars.sh` → `env_vars.sh.envhook-replaced`.
pub fn aside_name(name: &str) -> String {
    format!("{name}{SUFFIX}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The moved name is one conda's activator never runs: it matches none
    /// of the suffixes conda globs for in activate.d/deactivate.d.
    #[test]
    fn aside_names_are_not_run_by_conda() {
        for name in ["env_vars.sh", "x.fish", "y.csh", "z.ps1", "w.bat", "v.xsh"] {
            let aside = aside_name(name);
            for ext in [".sh", ".fish", ".csh", ".ps1", ".bat", ".xsh"] {
                assert!(!aside.ends_with(ext), "{aside}");
            }
            assert_eq!(original_name(&aside), Some(name));
        }
        assert_eq!(original_name(SUFFIX), None);
        assert_eq!(original_name("env_vars.sh"), None);
    }
}
