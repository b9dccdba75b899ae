//! Whether an environment has envhook's hooks, and whether they still
//! match its packages: read from the header every hook carries (written by
//! [`crate::activation::plan::Plan::new`]).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::activation::plan::hook_path;
use crate::activation::shell::{self, Dialect, Phase};
use crate::activation::spec::HookSpec;
use crate::paths;

use crate::activation::shell::messages::unhex;

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

/// What the installed hooks record in their details lines (written by
/// [`Plan::new`](crate::activation::plan::Plan::new)): the fingerprint and the directories they put on
/// `LD_LIBRARY_PATH`. Every dialect records the same header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledHooks {
    /// The `| fingerprint ...` of the header.
    pub fingerprint: String,
    /// The `# library path ...` lines, in order.
    pub dirs: Vec<PathBuf>,
    /// The prefix the hooks were written for (`# origin-hex`); `None` when
    /// the line is missing (a hook edited by hand).
    pub origin: Option<PathBuf>,
    /// The activate hook's modification time: when it was written.
    pub written: Option<std::time::SystemTime>,
}

/// Read the header of the installed activate hook (POSIX, else fish);
/// `None` when envhook's hooks are not installed. In a venv, hooks count
/// only while one of its activation scripts runs them (holds envhook's
/// block, unedited): hook files nothing sources change nothing.
pub fn installed(prefix: &Path) -> Option<InstalledHooks> {
    if crate::discovery::is_venv(prefix) && !crate::activation::venv::is_wired(prefix) {
        return None;
    }
    let read = |d| paths::read_regular(&hook_path(prefix, d, Phase::Activate), paths::MAX_TEXT);
    let bytes = read(Dialect::Posix).or_else(|_| read(Dialect::Fish)).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    if !shell::is_owned(&text) {
        return None;
    }
    // The details are comment lines at the end; any line may hold them, so
    // a comment a user adds above them changes nothing.
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
