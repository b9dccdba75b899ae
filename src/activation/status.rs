//! Whether an environment has envhook's hooks, and whether they still
//! match its packages: read from the header every hook carries (written by
//! [`crate::activation::plan::Plan::new`]).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::activation::plan::hook_path;
use crate::activation::shell::{self, Dialect, Phase};
use crate::activation::spec::HookSpec;
use crate::paths;

/// Whether an environment has envhook's hooks, and whether they still
/// match its packages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum HookStatus {
    /// No envhook hook.
    None,
    /// Installed and matching the packages.
    Current {
        /// The fingerprint in the hooks.
        fingerprint: String,
    },
    /// Installed for other packages (or another mode) than there are now,
    /// or a conda transaction happened since: the rule the hooks apply on
    /// activation (see [`hook_status`]).
    Stale {
        /// The fingerprint in the hooks.
        installed: String,
        /// What `envhook install` would write now (`none`: no hook needed).
        current: String,
    },
    /// The hooks were written for another prefix: the environment was
    /// copied or moved (`conda create --clone`, `conda rename`,
    /// conda-pack), which rewrote the prefix inside them.
    Moved {
        /// The prefix the hooks were written for.
        #[serde(serialize_with = "paths::serialize")]
        from: PathBuf,
        /// Where they are now.
        #[serde(serialize_with = "paths::serialize")]
        to: PathBuf,
    },
}

/// The warning for a moved or copied environment, worded the same by the
/// hooks on activation (which print [`moved_format`] with `printf`) and by
/// `check` and `audit`.
pub fn moved_message(to: &Path, from: &Path) -> String {
    let to_text = to.display().to_string();
    format!(
        "{MOVED_LEAD}{to_text}{MOVED_MIDDLE}{}{MOVED_TAIL}{}",
        from.display(),
        crate::activation::shell::quote::posix(&to_text)
    )
}

/// The pieces of [`moved_message`] around the new prefix, the origin and
/// the new prefix quoted for pasting (the csh hook echoes them).
pub const MOVED_LEAD: &str = "envhook: ";
/// See [`MOVED_LEAD`].
pub const MOVED_MIDDLE: &str = " was moved or copied from ";
/// See [`MOVED_LEAD`].
pub const MOVED_TAIL: &str = " (conda create --clone, conda rename or conda-pack) since its CUDA \
     hooks were written; refresh them with: envhook install -p ";

/// The warning for hooks older than the environment's packages, worded
/// the same by the hooks and by `check` and `audit`.
pub fn stale_message(prefix: &Path) -> String {
    let text = prefix.display().to_string();
    format!(
        "envhook: the packages of {text} changed since its CUDA hooks were written; \
         refresh them with: envhook install -p {}",
        // Quoted, so the command can be pasted whatever the path holds.
        crate::activation::shell::quote::posix(&text)
    )
}

/// [`moved_message`] as a printf format: `%s` for the new prefix, the
/// origin and the new prefix quoted for pasting, then a newline.
pub fn moved_format() -> String {
    format!("{MOVED_LEAD}%s{MOVED_MIDDLE}%s{MOVED_TAIL}%s\\n")
}

/// Printed by a hook that finds the state under its key applied by
/// another copy of the same environment (copies whose keys coincide).
pub const FOREIGN_MESSAGE: &str = "envhook: LD_LIBRARY_PATH is left as it is: another copy of this \
     environment is active with state under the same key; refresh the copies' hooks with envhook \
     install";

/// Lower-case hex of a string's bytes (the header's `origin-hex`).
pub fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<String> {
    let bytes: Option<Vec<u8>> = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

/// What the installed hooks record in their details lines (written by
/// [`Plan::new`](crate::activation::plan::Plan::new)): the fingerprint and the directories they put on
/// `LD_LIBRARY_PATH`. Every dialect records the same header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledHooks {
    /// The `| fingerprint ...` of the header.
    pub fingerprint: String,
    /// The `# library path ...` lines, in order.
    pub dirs: Vec<PathBuf>,
    /// The prefix the hooks were written for (`# origin-hex`), when they
    /// record it (envhook 0.1 hooks after #12).
    pub origin: Option<PathBuf>,
    /// The activate hook's modification time: when it was written.
    pub written: Option<std::time::SystemTime>,
}

/// Read the header of the installed activate hook (POSIX, else fish);
/// `None` when envhook's hooks are not installed.
pub fn installed(prefix: &Path) -> Option<InstalledHooks> {
    let read = |d| paths::read_regular(&hook_path(prefix, d, Phase::Activate), paths::MAX_TEXT);
    let bytes = read(Dialect::Posix).or_else(|_| read(Dialect::Fish)).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    if !shell::is_owned(&text) {
        return None;
    }
    // The details are comment lines at the end (before envhook 0.1's
    // hooks put them there, at the top): any line may hold them.
    let header = || text.lines().filter(|l| l.starts_with("# "));
    let fingerprint = header()
        .find_map(|l| l.split("| fingerprint ").nth(1))
        .map(|f| f.trim().to_string())?;
    let dirs = header()
        .filter_map(|l| l.strip_prefix("# library path "))
        .map(PathBuf::from)
        .collect();
    let origin = header()
        .find_map(|l| l.strip_prefix("# origin-hex "))
        .and_then(|h| unhex(h.trim()))
        .map(PathBuf::from);
    let written = [Dialect::Posix, Dialect::Fish]
        .iter()
        .find_map(|&d| std::fs::metadata(hook_path(prefix, d, Phase::Activate)).ok())
        .and_then(|m| m.modified().ok());
    Some(InstalledHooks {
        fingerprint,
        dirs,
        origin,
        written,
    })
}

/// Compare the installed hooks (see [`installed`]) with what `spec` would
/// produce, by the rule the hooks apply on activation, so that activation,
/// `check` and `audit` say the same thing:
///
/// 1. written for another prefix: [`HookStatus::Moved`];
/// 2. made from other records, or a record in `conda-meta/` is newer than
///    the hooks (a conda, mamba or pixi transaction since they were written
///    added it, which the hooks cannot tell from one that changed nothing
///    of theirs; files there that are not records, like the `state` that
///    `conda env config vars set` writes, do not count):
///    [`HookStatus::Stale`];
/// 3. otherwise [`HookStatus::Current`].
pub fn hook_status(
    prefix: &Path,
    installed: Option<&InstalledHooks>,
    spec: Option<&HookSpec>,
) -> HookStatus {
    let Some(hooks) = installed else {
        return HookStatus::None;
    };
    if let Some(origin) = &hooks.origin
        && origin != prefix
    {
        return HookStatus::Moved {
            from: origin.clone(),
            to: prefix.to_path_buf(),
        };
    }
    let records_newer = hooks
        .written
        .is_some_and(|written| record_newer_than(&prefix.join("conda-meta"), written));
    match spec {
        Some(spec) if hooks.fingerprint == spec.fingerprint && !records_newer => {
            HookStatus::Current {
                fingerprint: hooks.fingerprint.clone(),
            }
        }
        spec => HookStatus::Stale {
            installed: hooks.fingerprint.clone(),
            current: spec.map_or_else(|| "none".to_string(), |s| s.fingerprint.clone()),
        },
    }
}

/// Whether a record (`*.json`) in `conda_meta` was modified after
/// `written`: the rule the hooks apply. The directory's own time is looked
/// at first (one `stat`): no entry added or removed since, no record newer.
fn record_newer_than(conda_meta: &Path, written: std::time::SystemTime) -> bool {
    let changed = std::fs::metadata(conda_meta).and_then(|m| m.modified());
    if !changed.is_ok_and(|t| t > written) {
        return false;
    }
    crate::paths::dir_entries(conda_meta).iter().any(|p| {
        p.extension().is_some_and(|e| e == "json")
            && std::fs::metadata(p)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t > written)
    })
}
