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
    /// Installed for other packages (or another mode) than there are now.
    Stale {
        /// The fingerprint in the hooks.
        installed: String,
        /// What `envhook install` would write now (`none`: no hook needed).
        current: String,
    },
}

/// What the installed hooks record in their header (written by
/// [`Plan::new`](crate::activation::plan::Plan::new)): the fingerprint and the directories they put on
/// `LD_LIBRARY_PATH`. Every dialect records the same header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledHooks {
    /// The `| fingerprint ...` of the header.
    pub fingerprint: String,
    /// The `# library path ...` lines, in order.
    pub dirs: Vec<PathBuf>,
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
    let header = || text.lines().take_while(|l| l.starts_with('#'));
    let fingerprint = header()
        .find_map(|l| l.split("| fingerprint ").nth(1))
        .map(|f| f.trim().to_string())?;
    let dirs = header()
        .filter_map(|l| l.strip_prefix("# library path "))
        .map(PathBuf::from)
        .collect();
    Some(InstalledHooks { fingerprint, dirs })
}

/// Compare the installed hooks (see [`installed`]) with what `spec` would
/// produce.
pub fn hook_status(installed: Option<&InstalledHooks>, spec: Option<&HookSpec>) -> HookStatus {
    match (installed.map(|h| h.fingerprint.clone()), spec) {
        (None, _) => HookStatus::None,
        (Some(installed), Some(spec)) if installed == spec.fingerprint => HookStatus::Current {
            fingerprint: installed,
        },
        (Some(installed), spec) => HookStatus::Stale {
            installed,
            current: spec.map_or_else(|| "none".to_string(), |s| s.fingerprint.clone()),
        },
    }
}
