//! One writer per environment: `install`, `uninstall` and `audit --fix`
//! take an advisory lock (`flock`, through `std::fs::File::lock`) on
//! `conda-meta/.envhook.lock` (in a venv, which has no `conda-meta/`,
//! `.envhook.lock` in the prefix) before they look at what to change, so
//! concurrent runs happen one after the other and each sees the state the
//! previous one left. Readers (`show`, `check`, activation) never take it.
//!
//! The kernel releases the lock when its holder dies, so a lock file left by
//! a killed run never blocks. `uninstall` removes the file while holding the
//! lock; a waiter that then gets the lock on the removed file notices that
//! the path names another file (or none) and tries again.

use std::fs::File;
use std::time::{Duration, Instant};

use crate::activation::confined::{self, Prefix};
use crate::error::{Error, Result};

/// The lock file's directory, relative to the prefix: `conda-meta/`,
/// which every conda environment has; a venv's prefix itself.
pub fn lock_dir(prefix: &Prefix) -> &'static str {
    if crate::discovery::is_venv(prefix.path()) {
        ""
    } else {
        "conda-meta"
    }
}
/// Its name there.
pub const LOCK_NAME: &str = ".envhook.lock";

/// How long a writer waits for another before giving up: an install takes
/// milliseconds, so a holder this slow is stuck (a dead network mount).
const PATIENCE: Duration = Duration::from_secs(120);

/// A held lock; released when dropped.
#[derive(Debug)]
pub struct Lock {
    file: File,
    /// How long acquiring it took, when another writer held it.
    pub waited: Option<Duration>,
}

/// Take the environment's lock, waiting (up to [`PATIENCE`]) while
/// another envhook holds it.
pub fn acquire(prefix: &Prefix) -> Result<Lock> {
    let dir = prefix
        .dir(lock_dir(prefix), false)?
        .ok_or_else(|| Error::NotAnEnv {
            path: prefix.path().to_path_buf(),
            why: "no conda-meta/ directory",
        })?;
    let start = Instant::now();
    let mut contended = false;
    loop {
        let file = dir.open_lock_file(LOCK_NAME)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                contended = true;
                if start.elapsed() > PATIENCE {
                    return Err(Error::Locked {
                        prefix: prefix.path().to_path_buf(),
                        secs: start.elapsed().as_secs(),
                    });
                }
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(Error::write(dir.join(LOCK_NAME), e));
            }
        }
        // Locked; but if an uninstall removed (or replaced) the file while
        // we waited, this lock guards nothing: start over.
        if confined::identity_of(&file).is_some()
            && confined::identity_of(&file) == dir.identity(LOCK_NAME)
        {
            return Ok(Lock {
                file,
                waited: contended.then(|| start.elapsed()),
            });
        }
    }
}

impl Lock {
    /// Remove the lock file (by `uninstall`, which leaves nothing behind),
    /// keeping the lock until `self` is dropped.
    pub fn remove_file(&self, prefix: &Prefix) -> Result<()> {
        if let Some(dir) = prefix.dir(lock_dir(prefix), false)? {
            dir.remove_file(LOCK_NAME)?;
        }
        let _ = &self.file;
        Ok(())
    }
}
