//! What discovery reads from the outside world, behind one struct so the
//! rules can be exercised with a fake home, environment and `PATH`.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::env_vars;

/// The process environment as discovery sees it.
#[derive(Debug, Clone, Default)]
pub struct Context {
    vars: HashMap<String, OsString>,
    home: Option<PathBuf>,
}

impl Context {
    /// The real process environment.
    pub fn from_process() -> Self {
        Context {
            vars: env_vars::process(),
            home: env_vars::home_dir(),
        }
    }

    /// A synthetic environment (for tests).
    #[cfg(test)]
    pub fn fake(home: &Path, vars: &[(&str, &str)]) -> Self {
        Context {
            vars: vars
                .iter()
                .map(|(k, v)| (k.to_string(), OsString::from(v)))
                .collect(),
            home: Some(home.to_path_buf()),
        }
    }

    /// A variable's value; an empty value counts as unset, as conda treats it.
    pub fn var(&self, name: &str) -> Option<&OsStr> {
        self.vars
            .get(name)
            .map(OsString::as_os_str)
            .filter(|v| !v.is_empty())
    }

    /// A variable's raw value, empty included.
    pub fn var_os(&self, name: &str) -> Option<&OsStr> {
        self.vars.get(name).map(OsString::as_os_str)
    }

    /// A variable's value even when empty (for conventions where empty means
    /// something, like `CONDA_OVERRIDE_CUDA=""`).
    pub fn var_os_raw(&self, name: &str) -> Option<String> {
        self.vars
            .get(name)
            .map(|v| v.to_string_lossy().into_owned())
    }

    /// A variable's value as a path.
    pub fn var_path(&self, name: &str) -> Option<PathBuf> {
        self.var(name).map(PathBuf::from)
    }

    /// The variable as a string, for `~`/`$VAR` expansion.
    pub fn var_str(&self, name: &str) -> Option<&str> {
        self.var(name).and_then(OsStr::to_str)
    }

    /// The user's home directory.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Where system files are read from: `/`, or `ENVHOOK_SYSROOT`.
    pub fn sysroot(&self) -> PathBuf {
        self.var_path(env_vars::ENVHOOK_SYSROOT)
            .unwrap_or_else(|| PathBuf::from("/"))
    }

    /// `/etc/conda`-style system path under the sysroot.
    pub fn system_path(&self, absolute: &str) -> PathBuf {
        self.sysroot().join(absolute.trim_start_matches('/'))
    }

    /// An executable on this environment's `PATH`.
    pub fn which(&self, name: &str) -> Option<PathBuf> {
        let path = self.var("PATH")?;
        let cwd = std::env::current_dir().ok()?;
        which::which_in(name, Some(path), cwd).ok()
    }
}
