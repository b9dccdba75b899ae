//! `envhook run` on an environment envhook never wrote to: the same
//! CUDA-only link directory `install` makes, built privately, per user and
//! outside the environment, so `run` works like `conda run` on any
//! environment, a shared read-only one included, and writes nothing in it.
//!
//! It lives in `$XDG_RUNTIME_DIR/envhook-run` (per user, mode 0700, gone at
//! logout), else in the cache directory (`~/.cache/envhook-run`), else in
//! `/tmp/envhook-run-<uid>`; a place is used only when this user owns it
//! and nobody else can write to it, and its path holds no `:` (which would
//! split `LD_LIBRARY_PATH`). The directory itself must be this user's and
//! closed to others (else another user could swap the links). One
//! directory per environment and set of packages, `<prefix hash>-
//! <fingerprint>`: reused while the packages are the same, rebuilt when
//! they change, the older one removed. Links are absolute (the directory
//! does not move with the environment), built under a temporary name and
//! renamed into place, as `install` does.
//!
//! Concurrent runs take turns: building, reusing and sweeping happen under
//! an advisory lock on `envhook-run/.lock`, released before the command
//! starts, so N runs at once all find one complete directory and no run
//! removes another's build in progress. The sweep removes, besides the same
//! environment's stale directories, temporary ones a killed run left and
//! the directories of environments that no longer exist (the mark file
//! names the prefix); entries that are not directories are not its
//! business and are left.
//!
//! A directory in use is never swept: each run takes, still under the
//! turn, a shared `flock` on its directory through a handle without
//! close-on-exec, which the command inherits when it replaces envhook, so
//! the lock lasts as long as the command (and whatever it started keeping
//! the handle). The sweep removes only a directory it can lock
//! exclusively without waiting; one in use waits for a run after its
//! jobs end.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::activation::confined::{self, Dir, Entry, Prefix};
use crate::activation::spec::{HookSpec, Mode};
use crate::discovery::Context;
use crate::error::{Conflict, Error, Result};
use crate::inventory::Inventory;

/// The directory under the runtime or cache directory.
const ROOT: &str = "envhook-run";

/// In every directory this module builds, first: what makes it removable.
const MARK: &str = ".envhook-run";

/// The lock concurrent runs take turns on.
const LOCK: &str = ".lock";

/// How long a run waits for another: building a link directory takes
/// milliseconds, so a holder this slow is stuck.
const PATIENCE: Duration = Duration::from_secs(120);

/// A private link directory, held: while `lock` (a shared lock on the
/// directory, through a handle the command inherits) is open, no sweep
/// removes it.
#[derive(Debug)]
pub struct InUse {
    /// The directory.
    pub path: PathBuf,
    /// Kept open until the command has replaced envhook.
    _lock: std::fs::File,
}

/// The private link directory for `inv`'s environment, built or reused,
/// and held; `None` when the environment has no CUDA libraries.
pub fn link_dir(inv: &Inventory, ctx: &Context) -> Result<Option<InUse>> {
    let Some(spec) = HookSpec::from_inventory(inv, Mode::Isolated)? else {
        return Ok(None);
    };
    let Some(iso) = spec.isolation else {
        return Ok(None);
    };
    let root_path = private_root(ctx)?;
    let root_prefix = Prefix::open(&root_path)?;
    let root = root_prefix.root()?;
    let _turn = take_turn(&root, &root_path)?;
    let key = prefix_key(&inv.prefix);
    let name = format!("{key}-{}", spec.fingerprint);
    match root.entry(&name)? {
        Entry::Dir if root.is_marked_dir(&name, MARK)? => {}
        Entry::Dir => {
            // The rename needs the name free. A directory there without
            // the mark is what a removal killed after the mark went
            // (empty), or not envhook's: only the first is removed.
            let empty = root
                .subdir(&name, false)?
                .map(|d| d.names())
                .transpose()?
                .is_none_or(|names| names.is_empty());
            if !empty {
                return Err(not_ours(
                    &root_path,
                    &name,
                    "a directory without envhook run's mark",
                ));
            }
            root.remove_tree(&name, MARK)?;
            build(&root, &name, &inv.prefix, &iso)?;
        }
        Entry::Missing => build(&root, &name, &inv.prefix, &iso)?,
        other => return Err(not_ours(&root_path, &name, &other.describe())),
    }
    // Held before the turn ends, so no other run's sweep sees it unused.
    let lock = hold(&root, &name)?;
    sweep(&root, &key, &name)?;
    Ok(Some(InUse {
        path: root_path.join(name),
        _lock: lock,
    }))
}

/// A shared lock on the directory `name`, through a handle that stays
/// open across `exec` (a plain `dup` has no close-on-exec): the command
/// holds it from then on.
fn hold(root: &Dir, name: &str) -> Result<std::fs::File> {
    let dir = root.subdir(name, false)?.ok_or_else(|| Error::PrivateDir {
        path: root.join(name),
        why: "it was gone as soon as it was built".into(),
    })?;
    let held = std::fs::File::from(
        rustix::io::dup(&dir).map_err(|e| Error::read(root.join(name), e.into()))?,
    );
    held.lock_shared()
        .map_err(|e| Error::write(root.join(name), e))?;
    Ok(held)
}

/// An exclusive lock on the directory `name`, if no one holds it (no
/// running command uses it); `None` otherwise.
fn unused(root: &Dir, name: &str) -> Result<Option<std::fs::File>> {
    let Some(dir) = root.subdir(name, false)? else {
        return Ok(None);
    };
    let fd = rustix::io::fcntl_dupfd_cloexec(&dir, 0)
        .map_err(|e| Error::read(root.join(name), e.into()))?;
    let file = std::fs::File::from(fd);
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::write(root.join(name), e)),
    }
}

/// Wait for this user's other runs to finish with the directory.
fn take_turn(root: &Dir, root_path: &Path) -> Result<std::fs::File> {
    let file = root.open_lock_file(LOCK)?;
    let start = Instant::now();
    let mut said = false;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < PATIENCE => {
                if !said {
                    said = true;
                    crate::notice::waiting(&format!(
                        "another envhook run, which holds {} while it builds or sweeps \
                         the private link directories (at most {} s)",
                        root_path.join(LOCK).display(),
                        PATIENCE.as_secs()
                    ));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::PrivateDir {
                    path: root_path.join(LOCK),
                    why: format!(
                        "another envhook run has held its lock for {} s",
                        start.elapsed().as_secs()
                    ),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(Error::write(root_path.join(LOCK), e));
            }
        }
    }
}

/// Something at the directory's name that is not envhook's.
fn not_ours(root_path: &Path, name: &str, what: &str) -> Error {
    Error::NotOurs {
        conflicts: vec![Conflict {
            path: root_path.join(name),
            what: format!("{what} where envhook run keeps its link directory"),
        }],
    }
}

/// Build the directory: the mark (naming the environment, for the sweep),
/// then the links, under a temporary name renamed into place.
fn build(
    root: &Dir,
    name: &str,
    prefix: &Path,
    iso: &crate::activation::spec::Isolation,
) -> Result<()> {
    let links = iso
        .entries
        .iter()
        .map(|e| (e.target.clone(), e.name.as_str()));
    let note = format!(
        "written by envhook run; removed when stale\nprefix={}\n",
        prefix.display()
    );
    root.build_link_dir(name, "run", (MARK, note.as_bytes()), links)
}

/// Remove, under the lock: the same environment's directories for other
/// packages, temporary directories a killed run left, and directories of
/// environments that no longer exist; none that a command still uses.
fn sweep(root: &Dir, key: &str, keep: &str) -> Result<()> {
    for old in root.names()? {
        // A user's file (`notes.txt`) is not in the way of anything.
        if old == keep || old == LOCK || root.entry(&old)? != Entry::Dir {
            continue;
        }
        let temporary = old.starts_with(&format!("{}run-", confined::TEMP_PREFIX));
        if temporary && !root.is_marked_dir(&old, MARK)? {
            // Killed between making it and writing the mark: empty.
            root.remove_empty_dir(&old);
            continue;
        }
        if !root.is_marked_dir(&old, MARK)? {
            continue;
        }
        let stale =
            temporary || old.starts_with(&format!("{key}-")) || environment_gone(root, &old);
        if !stale {
            continue;
        }
        // A directory a running command still uses waits for a later run.
        match unused(root, &old)? {
            Some(_unused) => root.remove_tree(&old, MARK)?,
            None => crate::notice::note(&format!(
                "{} left for now: a running command uses it",
                root.join(&old).display()
            )),
        }
    }
    Ok(())
}

/// Whether the mark of directory `name` names an environment that is no
/// longer there (no `conda-meta/`, no venv's `pyvenv.cfg`). Marks without
/// a prefix (older runs) say nothing.
fn environment_gone(root: &Dir, name: &str) -> bool {
    let Some(dir) = root.subdir(name, false).ok().flatten() else {
        return false;
    };
    let Some(head) = dir.read_head(MARK, 4096) else {
        return false;
    };
    let text = String::from_utf8_lossy(&head);
    text.lines()
        .find_map(|l| l.strip_prefix("prefix="))
        .is_some_and(|p| {
            let p = Path::new(p);
            !p.join("conda-meta").is_dir() && !p.join("pyvenv.cfg").is_file()
        })
}

/// 16 hex digits of the prefix's SHA-256: one directory per environment.
fn prefix_key(prefix: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let digest = Sha256::digest(prefix.as_os_str().as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The places the directory may live, best first.
fn bases(ctx: &Context, uid: u32) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = ctx.var_path("XDG_RUNTIME_DIR").filter(|p| p.is_absolute()) {
        out.push(p);
    }
    match ctx.var_path("XDG_CACHE_HOME").filter(|p| p.is_absolute()) {
        Some(p) => out.push(p),
        None => out.extend(ctx.home().map(|h| h.join(".cache"))),
    }
    // std::env::temp_dir's rule on Linux, from this command's environment.
    let tmp = ctx
        .var_os("TMPDIR")
        .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    out.push(tmp.join(format!("envhook-run-{uid}")));
    out
}

/// Why a place cannot hold this user's private directory, if it cannot:
/// a `:` in its path, or (where it exists) not a directory of this user's
/// that only this user can write. A place that does not exist yet is made
/// by this user, 0700: its parent must be this user's and closed to
/// others' writes, or a sticky directory (`/tmp`), where no one else can
/// remove or rename what this user makes.
fn unfit(base: &Path, uid: u32) -> Option<String> {
    if base.as_os_str().as_encoded_bytes().contains(&b':') {
        return Some("its path holds a ':', which would split LD_LIBRARY_PATH".into());
    }
    let (judged, sticky_ok) = if base.exists() {
        (base, false)
    } else {
        match base.parent().filter(|p| p.exists()) {
            Some(parent) => (parent, true),
            None => return Some("neither it nor its parent exists".into()),
        }
    };
    let Ok(meta) = std::fs::symlink_metadata(judged) else {
        return Some(format!("{} cannot be read", judged.display()));
    };
    let mode = meta.mode();
    if !meta.is_dir() {
        return Some(format!("{} is not a directory", judged.display()));
    }
    if sticky_ok && mode & 0o1000 != 0 {
        return None;
    }
    if meta.uid() != uid {
        return Some(format!(
            "{} belongs to uid {}, not to you ({uid})",
            judged.display(),
            meta.uid()
        ));
    }
    if mode & 0o022 != 0 {
        return Some(format!(
            "{} is writable by others (mode {:o})",
            judged.display(),
            mode & 0o7777
        ));
    }
    None
}

/// The private root: under the first fit place, made 0700 when missing,
/// and refused unless it is a directory (not a link) of this user's that
/// no one else can open.
fn private_root(ctx: &Context) -> Result<PathBuf> {
    let uid = rustix::process::geteuid().as_raw();
    let mut refused = Vec::new();
    let base = bases(ctx, uid)
        .into_iter()
        .find(|b| match unfit(b, uid) {
            Some(why) => {
                refused.push(format!("{}: {why}", b.display()));
                false
            }
            None => true,
        })
        .ok_or_else(|| Error::PrivateDir {
            path: PathBuf::from(ROOT),
            why: if refused.is_empty() {
                "there is no XDG_RUNTIME_DIR, cache directory or temporary directory".into()
            } else {
                format!("no place fits: {}", refused.join("; "))
            },
        })?;
    let root = base.join(ROOT);
    if !root.exists() {
        for dir in [&base, &root] {
            match std::fs::DirBuilder::new().mode(0o700).create(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(Error::write(dir, e)),
            }
        }
    }
    let meta = std::fs::symlink_metadata(&root).map_err(|e| Error::read(&root, e))?;
    let why = if !meta.is_dir() {
        Some("it is not a directory (a link is not followed)".to_string())
    } else if meta.uid() != uid {
        Some(format!(
            "it belongs to uid {}, not to you ({uid})",
            meta.uid()
        ))
    } else if meta.mode() & 0o077 != 0 {
        Some(format!(
            "its mode is {:o}: others could replace the links in it",
            meta.mode() & 0o777
        ))
    } else {
        None
    };
    match why {
        Some(why) => Err(Error::PrivateDir { path: root, why }),
        None => Ok(root),
    }
}
