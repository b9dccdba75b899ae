//! The hooks' saved state for a process `envhook run` starts: the state an
//! activate hook would have left, so that a `conda activate other` (or
//! `conda deactivate`) inside the process runs this environment's
//! deactivate hook against it and puts `LD_LIBRARY_PATH` back as it was
//! before `run`, instead of leaving this environment's directories in
//! front of the next one's.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::activation::{shell, spec, status};
use crate::discovery::Context;

/// The variables to set beside `applied` (the `LD_LIBRARY_PATH` `run`
/// gives, `dirs` first). Empty where no deactivate hook would read them:
/// envhook's hooks are not installed in `prefix`, were written for another
/// prefix (a copy keys its state apart), or put other directories first
/// (`run --mode`, a private link directory). State the calling shell
/// already holds for the environment is the hook's own: kept where the
/// value is what it applied, else taken over as a reactivation does (the
/// change, minus our directories, becomes what deactivation returns to).
pub fn for_run(
    prefix: &Path,
    dirs: &[PathBuf],
    ctx: &Context,
    applied: &OsStr,
) -> Vec<(String, OsString)> {
    let Some(hooks) = status::installed(prefix) else {
        return Vec::new();
    };
    let origin = hooks.origin.as_deref().filter(|o| same_dir(o, prefix));
    let Some(origin) = origin.and_then(Path::to_str).filter(|_| hooks.dirs == dirs) else {
        return Vec::new();
    };
    let id = spec::prefix_id(origin);
    let current = ctx.var_os("LD_LIBRARY_PATH");
    let state = ctx.var_os(&format!("ENVHOOK_STATE_{id}"));
    let before = match state {
        None => current.map(OsStr::to_os_string),
        Some(_) if ctx.var_os(&format!("ENVHOOK_APPLIED_{id}")) == current => {
            return Vec::new();
        }
        // Changed since the hook ran: the rest of the value is what stays.
        Some(_) => current.map(|_| rest(applied, dirs)),
    };
    shell::saved_state(&id, before.as_deref(), applied).into()
}

/// `applied` without the leading `dirs`: what was there besides them.
fn rest(applied: &OsStr, dirs: &[PathBuf]) -> OsString {
    let ours = spec::prepend(dirs, None);
    let bytes = applied.as_encoded_bytes();
    let tail = bytes
        .strip_prefix(ours.as_encoded_bytes())
        .map(|t| t.strip_prefix(b":").unwrap_or(t))
        .unwrap_or(bytes);
    OsStr::from_bytes(tail).to_os_string()
}

/// Whether two paths name one directory (the hooks' `-ef`): another
/// spelling of the prefix is the same environment, a copy is not.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}
