//! `envhook run` on an environment envhook never wrote to: the same
//! CUDA-only link directory `install` makes, built privately, per user and
//! outside the environment, so `run` works like `conda run` on any
//! environment, a shared read-only one included, and writes nothing in it.
//!
//! It lives in `$XDG_RUNTIME_DIR/envhook-run` (per user, mode 0700, gone at
//! logout) or else in the cache directory (`~/.cache/envhook-run`), which
//! must be a directory of this user's that nobody else can open (else
//! envhook refuses: another user could swap the links). One directory per
//! environment and set of packages, `<prefix hash>-<fingerprint>`: reused
//! while the packages are the same, rebuilt when they change, the older
//! one removed. Links are absolute (the directory does not move with the
//! environment), built under a temporary name and renamed into place, as
//! `install` does.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::activation::confined::{self, Entry, Prefix};
use crate::activation::spec::{HookSpec, Mode};
use crate::discovery::Context;
use crate::error::{Conflict, Error, Result};
use crate::inventory::Inventory;

/// The directory under the runtime or cache directory.
const ROOT: &str = "envhook-run";

/// In every directory this module builds, first: what makes it removable.
const MARK: &str = ".envhook-run";

/// The private link directory for `inv`'s environment, built or reused;
/// `None` when the environment has no CUDA libraries.
pub fn link_dir(inv: &Inventory, ctx: &Context) -> Result<Option<PathBuf>> {
    let Some(spec) = HookSpec::from_inventory(inv, Mode::Isolated)? else {
        return Ok(None);
    };
    let Some(iso) = spec.isolation else {
        return Ok(None);
    };
    let root_path = private_root(ctx)?;
    let root_prefix = Prefix::open(&root_path)?;
    let root = root_prefix.root()?;
    let key = prefix_key(&inv.prefix);
    let name = format!("{key}-{}", spec.fingerprint);
    let complete = root.entry(&name)? == Entry::Dir && root.is_marked_dir(&name, MARK)?;
    if !complete {
        // The rename needs the name free. A directory there without the
        // mark is what a removal killed after the mark went (empty), or
        // not envhook's: only the first is removed.
        if root.entry(&name)? == Entry::Dir {
            let empty = root
                .subdir(&name, false)?
                .map(|d| d.names())
                .transpose()?
                .is_none_or(|names| names.is_empty());
            if !empty {
                return Err(Error::NotOurs {
                    conflicts: vec![Conflict {
                        path: root_path.join(&name),
                        what: format!("a directory without envhook run's mark ({MARK})"),
                    }],
                });
            }
            root.remove_tree(&name, MARK)?;
        }
        let links = iso
            .entries
            .iter()
            .map(|e| (e.target.clone(), e.name.as_str()));
        let mark: (&str, &[u8]) = (MARK, b"written by envhook run; removed when stale\n");
        root.build_link_dir(&name, "run", mark, links)?;
    }
    // The same environment's directories for other packages are stale.
    for old in root.names()? {
        let stale = old != name
            && (old.starts_with(&format!("{key}-"))
                || old.starts_with(&format!("{}run-", confined::TEMP_PREFIX)));
        if stale && root.is_marked_dir(&old, MARK)? {
            root.remove_tree(&old, MARK)?;
        }
    }
    Ok(Some(root_path.join(name)))
}

/// 16 hex digits of the prefix's SHA-256: one directory per environment.
fn prefix_key(prefix: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let digest = Sha256::digest(prefix.as_os_str().as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// `$XDG_RUNTIME_DIR/envhook-run`, else `<cache>/envhook-run`: made 0700
/// when missing, and refused unless it is a directory (not a link) of this
/// user's that no one else can open.
fn private_root(ctx: &Context) -> Result<PathBuf> {
    let base = ctx
        .var_path("XDG_RUNTIME_DIR")
        .filter(|p| p.is_absolute() && p.is_dir())
        .or_else(|| {
            ctx.var_path("XDG_CACHE_HOME")
                .filter(|p| p.is_absolute())
                .or_else(|| ctx.home().map(|h| h.join(".cache")))
        })
        .ok_or_else(|| Error::PrivateDir {
            path: PathBuf::from(ROOT),
            why: "there is no XDG_RUNTIME_DIR, XDG_CACHE_HOME or home directory".into(),
        })?;
    let root = base.join(ROOT);
    if !root.exists() {
        std::fs::create_dir_all(&base).map_err(|e| Error::write(&base, e))?;
        match std::fs::DirBuilder::new().mode(0o700).create(&root) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Error::write(&root, e)),
        }
    }
    let meta = std::fs::symlink_metadata(&root).map_err(|e| Error::read(&root, e))?;
    let uid = rustix::process::geteuid().as_raw();
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
