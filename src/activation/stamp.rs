//! Hook files stamped after what they watch, as the filesystem stamps
//! them: tcsh compares whole seconds (see [`write_past_records`]).

use std::path::{Path, PathBuf};

use super::plan::HookFile;
use super::shell::Phase;
use crate::error::Result;

/// The newest whole second in which something the hooks watch changed,
/// as the filesystem stamped it: `conda-meta/` (a record added or
/// removed), each record in it (one rewritten in place leaves the
/// directory's time alone), and the watched dist-infos.
pub fn watched_second(conda_meta: &Path, watch: &[PathBuf]) -> Option<u64> {
    let secs = |p: &Path| {
        std::fs::symlink_metadata(p)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs())
    };
    let records = crate::paths::dir_entries(conda_meta)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"));
    std::iter::once(conda_meta.to_path_buf())
        .chain(records)
        .chain(watch.iter().cloned())
        .filter_map(|p| secs(&p))
        .max()
}

/// The whole second of a file's modification time, read without
/// following a link.
fn stamped_second(path: &Path) -> Option<u64> {
    let t = std::fs::symlink_metadata(path).ok()?.modified().ok()?;
    Some(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs())
}

/// Write the hook files so that each one's modification time, in whole
/// seconds as the filesystem stamps it, is later than everything the
/// hooks watch. tcsh compares modification times in whole seconds and
/// counts a change in the hook's own second as after it (`-M record >=
/// -M hook`); this makes that exact, so tcsh answers as `check` and the
/// other shells do. The filesystem stamps files from the kernel's coarse
/// clock, up to a tick behind the one a process reads, so the result is
/// checked with `stat` and a file stamped in the records' second is
/// written again. It waits at most a little over a second, and only right
/// after a transaction (the conda plugin's refresh).
pub fn write_past_records(
    dir_of: impl Fn(Phase) -> Result<PathBuf>,
    write: impl Fn(&HookFile) -> Result<()>,
    files: &[&HookFile],
    watched: Option<u64>,
) -> Result<()> {
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
    };
    // A change stamped in the future (clock skew on a network mount) is
    // not waited for beyond a second.
    let watched = watched.filter(|w| *w <= now().as_secs() + 1);
    if let Some(w) = watched {
        let next = std::time::Duration::from_secs(w + 1);
        if let Some(wait) = next.checked_sub(now()) {
            std::thread::sleep(wait + std::time::Duration::from_millis(2));
        }
    }
    let mut pending: Vec<&HookFile> = files.to_vec();
    for attempt in 0..100 {
        for file in &pending {
            write(file)?;
        }
        let Some(w) = watched else { return Ok(()) };
        let mut late = Vec::new();
        for file in pending {
            let path = dir_of(file.phase)?.join(file.name());
            if stamped_second(&path).is_none_or(|s| s <= w) {
                late.push(file);
            }
        }
        if late.is_empty() {
            return Ok(());
        }
        pending = late;
        // The coarse clock catches up within a tick (1 to 10 ms).
        std::thread::sleep(std::time::Duration::from_millis(2 + attempt));
    }
    Ok(())
}
