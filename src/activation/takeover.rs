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

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::activation::foreign::{self, ForeignHook};
use crate::activation::shell::Phase;
use crate::finding::{Cmd, Code, Fix, Problem, Severity};

/// What a moved-aside script's name ends in.
pub const SUFFIX: &str = ".envhook-replaced";

/// The hand-written scripts `--replace-handwritten` moves: every foreign
/// `LD_LIBRARY_PATH` script in activate.d or deactivate.d (not conda's own
/// variables, which are not scripts), and the warnings for those it holds
/// back. Both halves move or neither: a script whose partner (the same
/// name in the other directory) is there but could not be read (over
/// 1 MiB, not a regular file, unreadable) stays, and so does the partner.
pub fn scripts(foreign: &[ForeignHook]) -> (Vec<PathBuf>, Vec<Problem>) {
    let mut moves = Vec::new();
    let mut held = Vec::new();
    for h in foreign {
        let Some(dir) = h.path.parent().filter(|d| d.ends_with(h.phase.dir_name())) else {
            continue;
        };
        let other = match h.phase {
            Phase::Activate => Phase::Deactivate,
            Phase::Deactivate => Phase::Activate,
        };
        let partner = dir
            .with_file_name(other.dir_name())
            .join(h.path.file_name().unwrap_or_default());
        let read = foreign.iter().any(|f| f.path == partner);
        match std::fs::symlink_metadata(&partner) {
            Ok(m) if !read && !foreign::is_readable_script(&m) => {
                held.push(Problem {
                    severity: Severity::Warning,
                    code: Code::HandwrittenKept,
                    message: format!(
                        "{} stays where it is: its partner {} is {}, which envhook does not \
                         read, and the two halves of a hand-written hook move together or not \
                         at all",
                        h.path.display(),
                        partner.display(),
                        if m.is_file() {
                            "over 1 MiB"
                        } else {
                            "not a regular file"
                        }
                    ),
                    fix: Some(Fix::advice(
                        "move both aside yourself (a name ending in .envhook-replaced keeps a \
                         script without conda running it), or shrink the script to what it does \
                         to LD_LIBRARY_PATH, then run envhook install --replace-handwritten again",
                    )),
                    path: Some(partner),
                    source: None,
                });
            }
            _ => moves.push(h.path.clone()),
        }
    }
    (moves, held)
}

/// The finding for a foreign hook with bugs (`None` for a careful one),
/// the same in `install`, `check` and `audit`. The fix never removes half
/// of a hand-written pair: the deactivate.d script left alone would wipe
/// the variable on the next deactivation.
pub fn problem(hook: &ForeignHook, all: &[ForeignHook], prefix: &Path) -> Option<Problem> {
    if hook.bugs.is_empty() {
        return None;
    }
    let install = Cmd::new("envhook install -p").path(prefix);
    // What envhook's hook would do instead, for the message when the fix
    // is a command.
    let mut also = String::new();
    let fix = if hook.path.ends_with("conda-meta/state") {
        also = "; envhook's hook does this job, and conda's variable then goes".into();
        Fix::Command(
            install.and(Cmd::new("conda env config vars unset LD_LIBRARY_PATH -p").path(prefix)),
        )
    } else if hook
        .path
        .parent()
        .is_some_and(|d| d.ends_with("env_vars.d"))
    {
        Fix::Choose {
            advice: format!(
                "envhook's hook does this job; the variable comes from a package's {}: remove \
                 its LD_LIBRARY_PATH entry (reinstalling the package brings it back)",
                hook.path.display()
            ),
            commands: vec![install],
        }
    } else {
        // The scripts --replace-handwritten moves, both halves.
        let (moves, _) = scripts(all);
        if moves.contains(&hook.path) {
            let scripts: Vec<String> = moves.iter().map(|p| p.display().to_string()).collect();
            also = format!(
                "; envhook install --replace-handwritten writes envhook's hooks and moves the \
                 hand-written ones aside together ({}), where conda no longer runs them; \
                 envhook uninstall puts them back",
                scripts.join(", ")
            );
            Fix::Command(install.raw("--replace-handwritten"))
        } else {
            // Its other half cannot be read: --replace-handwritten holds
            // both back (handwritten-kept says why).
            Fix::Choose {
                advice: "its other half could not be read, so --replace-handwritten leaves \
                         both: move both aside yourself (a name ending in .envhook-replaced \
                         keeps a script without conda running it), then install envhook's hooks"
                    .into(),
                commands: vec![install],
            }
        }
    };
    Some(Problem {
        severity: Severity::Warning,
        code: Code::ForeignHook,
        message: format!(
            "{} (not envhook's; left as it is): {}{also}",
            hook.path.display(),
            hook.bugs.join("; ")
        ),
        fix: Some(fix),
        path: Some(hook.path.clone()),
        source: None,
    })
}

/// The scripts already moved aside in `prefix`, by their original paths
/// (names are bytes: a user's file may have any).
pub fn moved_aside(prefix: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for phase in [Phase::Activate, Phase::Deactivate] {
        for path in crate::paths::dir_entries(&prefix.join(phase.rel_dir())) {
            if let Some(original) = path.file_name().and_then(original_name) {
                out.push(path.with_file_name(original));
            }
        }
    }
    out
}

/// `env_vars.sh.envhook-replaced` → `env_vars.sh`.
pub fn original_name(name: &OsStr) -> Option<&OsStr> {
    name.as_bytes()
        .strip_suffix(SUFFIX.as_bytes())
        .filter(|n| !n.is_empty())
        .map(OsStr::from_bytes)
}

/// `env_vars.sh` → `env_vars.sh.envhook-replaced`.
pub fn aside_name(name: &OsStr) -> std::ffi::OsString {
    let mut aside = name.to_os_string();
    aside.push(SUFFIX);
    aside
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The moved name is one conda's activator never runs: it matches none
    /// of the suffixes conda globs for in activate.d/deactivate.d.
    #[test]
    fn aside_names_are_not_run_by_conda() {
        for name in ["env_vars.sh", "x.fish", "y.csh", "z.ps1", "w.bat", "v.xsh"] {
            let aside = aside_name(name.as_ref());
            let text = aside.to_str().unwrap();
            for ext in [".sh", ".fish", ".csh", ".ps1", ".bat", ".xsh"] {
                assert!(!text.ends_with(ext), "{text}");
            }
            assert_eq!(original_name(&aside), Some(OsStr::new(name)));
        }
        assert_eq!(original_name(OsStr::new(SUFFIX)), None);
        assert_eq!(original_name(OsStr::new("env_vars.sh")), None);
        // Names are bytes.
        let odd = OsStr::from_bytes(b"caf\xe9.sh");
        assert_eq!(original_name(&aside_name(odd)), Some(odd));
    }
}
