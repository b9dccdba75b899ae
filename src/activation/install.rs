//! Writing and removing envhook's files in an environment, safely:
//!
//! * every file carries the ownership mark ([`shell::OWNER_MARK`]) and only
//!   marked files are ever replaced or removed; other scripts in
//!   `activate.d`/`deactivate.d` are left alone (and checked, see
//!   [`crate::activation::foreign`]);
//! * files are written to a temporary file in the same directory, synced,
//!   and renamed over the old one, so an interrupted install leaves the old
//!   file or the new one, never half of one;
//! * the isolation directory is built under a fingerprinted name and then
//!   published by atomically replacing the `lib/envhook/cuda` symlink.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::activation::shell::{self, Dialect, HookValues, Phase};
use crate::activation::spec::{HookSpec, Isolation};
use crate::error::{Error, Result};
use crate::paths;

/// The file name of every hook envhook writes, before the extension.
pub const HOOK_STEM: &str = "envhook";

/// Marks a link directory as envhook's, so uninstall removes only those.
const DIR_MARK: &str = ".envhook-owned";

/// One file the install writes.
#[derive(Debug, Clone, Serialize)]
pub struct HookFile {
    /// Where.
    #[serde(serialize_with = "paths::serialize")]
    pub path: PathBuf,
    /// Which shell family.
    pub dialect: Dialect,
    /// activate.d or deactivate.d.
    pub phase: Phase,
    /// The script.
    #[serde(skip)]
    pub text: String,
}

/// What an install will do.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// The spec the hooks implement.
    pub spec: HookSpec,
    /// The scripts to write.
    pub files: Vec<HookFile>,
    /// envhook's own files that the new set no longer has (another shell
    /// selection, or an older layout).
    #[serde(serialize_with = "paths::serialize_vec")]
    pub remove: Vec<PathBuf>,
}

/// The hook file for one dialect and phase.
pub fn hook_path(prefix: &Path, dialect: Dialect, phase: Phase) -> PathBuf {
    prefix
        .join("etc/conda")
        .join(phase.dir_name())
        .join(format!("{HOOK_STEM}.{}", dialect.extension()))
}

/// envhook's own files in `activate.d`/`deactivate.d`, found by their
/// ownership mark (not by name, so renamed or older files are found too).
pub fn owned_files(prefix: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for phase in [Phase::Activate, Phase::Deactivate] {
        let dir = prefix.join("etc/conda").join(phase.dir_name());
        out.extend(
            paths::dir_entries(&dir)
                .into_iter()
                .filter(|p| starts_with_mark(p)),
        );
    }
    out
}

fn starts_with_mark(path: &Path) -> bool {
    use std::io::Read;
    let Ok(mut file) = paths::open_regular(path) else {
        return false;
    };
    let mut head = [0u8; 64];
    let n = file.read(&mut head).unwrap_or(0);
    head[..n].starts_with(shell::OWNER_MARK.as_bytes())
}

impl Plan {
    /// Render the hooks of `spec` for `dialects`.
    pub fn new(spec: HookSpec, dialects: &[Dialect]) -> Plan {
        let prefix = spec.prefix.clone();
        let dirs: Vec<String> = spec.dirs.iter().map(|d| d.display().to_string()).collect();
        let watch: Vec<String> = spec.watch.iter().map(|w| w.display().to_string()).collect();
        let history = prefix.join("conda-meta/history").display().to_string();
        let stale_message = format!(
            "envhook: the packages of {} changed since its CUDA hooks were written; \
             refresh them with: envhook install -p {}",
            prefix.display(),
            // Quoted, so the command can be pasted whatever the path holds.
            shell::quote::posix(&prefix.display().to_string())
        );
        let mut header = vec![
            format!(
                "envhook {} | mode {} | fingerprint {}",
                env!("CARGO_PKG_VERSION"),
                spec.mode,
                spec.fingerprint
            ),
            format!("prefix {}", prefix.display()),
        ];
        header.extend(
            spec.dirs
                .iter()
                .map(|d| format!("library path {}", d.display())),
        );
        let mut files = Vec::new();
        for &dialect in dialects {
            let self_path = hook_path(&prefix, dialect, Phase::Activate)
                .display()
                .to_string();
            for phase in [Phase::Activate, Phase::Deactivate] {
                let values = HookValues {
                    id: &spec.id,
                    dirs: &dirs,
                    history: &history,
                    self_path: &self_path,
                    watch: &watch,
                    stale_message: &stale_message,
                    header: &header,
                };
                files.push(HookFile {
                    path: hook_path(&prefix, dialect, phase),
                    dialect,
                    phase,
                    text: shell::render(dialect, phase, &values),
                });
            }
        }
        let keep: Vec<&PathBuf> = files.iter().map(|f| &f.path).collect();
        let remove = owned_files(&prefix)
            .into_iter()
            .filter(|p| !keep.contains(&p))
            .collect();
        Plan {
            spec,
            files,
            remove,
        }
    }

    /// Carry the plan out. Returns the paths written, in order.
    pub fn apply(&self) -> Result<Vec<PathBuf>> {
        let mut written = Vec::new();
        if let Some(iso) = &self.spec.isolation {
            publish_isolation(iso)?;
            written.push(iso.link.clone());
        } else {
            remove_isolation(&self.spec.prefix)?;
        }
        // Deactivate hooks first: a shell activating mid-install then finds
        // a deactivate hook at least as new as the activate hook it ran.
        let mut files: Vec<&HookFile> = self.files.iter().collect();
        files.sort_by_key(|f| f.phase != Phase::Deactivate);
        for file in files {
            write_atomic(&file.path, file.text.as_bytes())?;
            written.push(file.path.clone());
        }
        for path in &self.remove {
            remove_file(path)?;
        }
        Ok(written)
    }
}

/// Remove every envhook file from the environment. Returns what was removed.
pub fn uninstall(prefix: &Path, dry_run: bool) -> Result<Vec<PathBuf>> {
    let mut removed = owned_files(prefix);
    let root = prefix.join("lib/envhook");
    if root.join("cuda").symlink_metadata().is_ok() {
        removed.push(root.join("cuda"));
    }
    removed.extend(
        owned_link_dirs(&root, None)
            .into_iter()
            .filter(|d| d.join(DIR_MARK).is_file()),
    );
    if dry_run {
        return Ok(removed);
    }
    for path in &removed {
        if path.is_dir() && !path.is_symlink() {
            std::fs::remove_dir_all(path).map_err(|e| Error::write(path, e))?;
        } else {
            remove_file(path)?;
        }
    }
    // The envhook directory itself, once empty (never with foreign content).
    let _ = std::fs::remove_dir(&root);
    Ok(removed)
}

/// Write `bytes` to `path` atomically (temp file in the same directory,
/// fsync, rename), creating the directory if needed. Mode 0644.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().expect("hook paths have a parent");
    std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".envhook-")
        .tempfile_in(dir)
        .map_err(|e| Error::write(dir, e))?;
    tmp.write_all(bytes)
        .map_err(|e| Error::write(tmp.path(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::write(tmp.path(), e))?;
    set_mode(tmp.path(), 0o644)?;
    tmp.persist(path).map_err(|e| Error::write(path, e.error))?;
    Ok(())
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| Error::write(path, e))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> Result<()> {
    Ok(())
}

fn remove_file(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::write(path, e)),
        _ => Ok(()),
    }
}

/// envhook's `cuda-*` directories under `lib/envhook`, except `keep`.
fn owned_link_dirs(root: &Path, keep: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = paths::dir_entries(root);
    dirs.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("cuda-"))
            && p.is_dir()
            && !p.is_symlink()
            && Some(p.as_path()) != keep
    });
    dirs
}

/// Build the link directory (unless one with this fingerprint is complete
/// already) and point `lib/envhook/cuda` at it; then remove older ones.
#[cfg(unix)]
fn publish_isolation(iso: &Isolation) -> Result<()> {
    use std::os::unix::fs::symlink;
    std::fs::create_dir_all(&iso.root).map_err(|e| Error::write(&iso.root, e))?;
    if !iso.dir.join(DIR_MARK).is_file() {
        // Absent, or left half-built by an interrupted install.
        if iso.dir.exists() {
            std::fs::remove_dir_all(&iso.dir).map_err(|e| Error::write(&iso.dir, e))?;
        }
        std::fs::create_dir(&iso.dir).map_err(|e| Error::write(&iso.dir, e))?;
        for entry in &iso.entries {
            let link = iso.dir.join(&entry.name);
            // Relative, so the environment can be moved or packed.
            let target = pathdiff::diff_paths(&entry.target, &iso.dir)
                .unwrap_or_else(|| entry.target.clone());
            symlink(&target, &link).map_err(|e| Error::write(&link, e))?;
        }
        // Written last: its presence means the directory is complete.
        let mark = iso.dir.join(DIR_MARK);
        std::fs::write(
            &mark,
            "written by envhook; removed by `envhook uninstall`\n",
        )
        .map_err(|e| Error::write(&mark, e))?;
    }
    let dir_name = iso.dir.file_name().expect("fingerprinted name");
    let tmp = iso.root.join(format!(".cuda.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    symlink(dir_name, &tmp).map_err(|e| Error::write(&tmp, e))?;
    std::fs::rename(&tmp, &iso.link).map_err(|e| Error::write(&iso.link, e))?;
    for old in owned_link_dirs(&iso.root, Some(&iso.dir)) {
        if old.join(DIR_MARK).is_file() {
            std::fs::remove_dir_all(&old).map_err(|e| Error::write(&old, e))?;
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn publish_isolation(iso: &Isolation) -> Result<()> {
    Err(Error::write(
        &iso.link,
        std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "symlinks need a Unix system; use --mode dirs",
        ),
    ))
}

/// Remove the link directory (switching to `--mode dirs`, or nothing left
/// to expose).
fn remove_isolation(prefix: &Path) -> Result<()> {
    let root = prefix.join("lib/envhook");
    let link = root.join("cuda");
    if link.is_symlink() {
        remove_file(&link)?;
    }
    for dir in owned_link_dirs(&root, None) {
        if dir.join(DIR_MARK).is_file() {
            std::fs::remove_dir_all(&dir).map_err(|e| Error::write(&dir, e))?;
        }
    }
    let _ = std::fs::remove_dir(&root);
    Ok(())
}

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
/// [`Plan::new`]): the fingerprint and the directories they put on
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
