//! File operations confined to one environment.
//!
//! envhook runs as root on shared machines (`audit --fix` from cron) over
//! environments that users own, so a user must not be able to steer its
//! writes anywhere else. Every path envhook creates, replaces or removes is
//! therefore reached from a handle on the prefix directory, one component
//! at a time, with `O_NOFOLLOW`: the kernel refuses a symbolic link in the
//! same call that opens the directory, so a link planted between a check
//! and a write cannot redirect the write. Whatever is then done (create,
//! rename, unlink, symlink) is relative to a directory handle that was
//! verified this way, never to a path looked up again.
//!
//! The rule, as documented in docs/shared-machines.md: **no symbolic link is followed
//! below the prefix** on the paths envhook writes (`etc/conda/activate.d`,
//! `etc/conda/deactivate.d`, `lib/envhook`, `conda-meta/.envhook.lock`;
//! in a venv also `bin/activate`, `bin/activate.fish`, `.envhook.lock`;
//! `share/jupyter/kernels/*/kernel.json` and `kernel.json.envhook`),
//! whether it leads out of the environment or stays inside; links in the
//! prefix's own path (`~/envs -> /data/envs`) are the user's choice and are
//! followed. A refused link is reported with where it points.
//!
//! Ownership: when envhook runs as root over an environment that someone
//! else owns, everything it creates gets the owner (uid and gid) of the
//! environment's `conda-meta` (else of the prefix), so the owner can still
//! refresh or uninstall. Modes are set explicitly (files 0644, directories
//! 0755), whatever the umask.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{self as rfs, AtFlags, FileType, Gid, Mode, OFlags, Uid};
use rustix::io::Errno;

use crate::error::{Error, Result};

/// The mode of every directory envhook creates.
pub const DIR_MODE: u32 = 0o755;
/// The mode of every file envhook creates.
pub const FILE_MODE: u32 = 0o644;

/// Names of temporary files and directories start with this, so that a
/// later run recognises the leftovers of a killed one (see
/// [`is_temporary`]).
pub const TEMP_PREFIX: &str = ".envhook-tmp-";

/// Whether a name is one of envhook's temporary names ([`TEMP_PREFIX`]).
pub fn is_temporary(name: &str) -> bool {
    name.starts_with(TEMP_PREFIX)
}

/// The environment's owner, applied to what envhook creates when it runs as
/// root over someone else's environment.
#[derive(Debug, Clone, Copy)]
struct Owner {
    uid: Uid,
    gid: Gid,
}

/// A handle on an environment's prefix directory.
#[derive(Debug)]
pub struct Prefix {
    fd: OwnedFd,
    path: PathBuf,
    owner: Option<Owner>,
}

/// A directory inside the prefix, reached without following any link.
#[derive(Debug)]
pub struct Dir<'p> {
    fd: OwnedFd,
    path: PathBuf,
    prefix: &'p Prefix,
}

/// What a name in a directory is, looked at without following it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// Nothing there.
    Missing,
    /// A regular file.
    File,
    /// A real directory.
    Dir,
    /// A symbolic link, and what it points at.
    Link(PathBuf),
    /// A FIFO, socket or device.
    Special,
}

impl Entry {
    /// A few words for messages.
    pub fn describe(&self) -> String {
        match self {
            Entry::Missing => "nothing".into(),
            Entry::File => "a file".into(),
            Entry::Dir => "a directory".into(),
            Entry::Link(to) => format!("a symbolic link to {}", to.display()),
            Entry::Special => "a FIFO, socket or device".into(),
        }
    }
}

fn io(e: Errno) -> std::io::Error {
    std::io::Error::from(e)
}

impl Prefix {
    /// Open the prefix (following links in its own path) and find whose
    /// it is.
    pub fn open(path: &Path) -> Result<Prefix> {
        let fd = rfs::open(
            path,
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| Error::read(path, io(e)))?;
        let owner = if rustix::process::geteuid().is_root() {
            let stat = match rfs::statat(&fd, "conda-meta", AtFlags::SYMLINK_NOFOLLOW) {
                Ok(s) if FileType::from_raw_mode(s.st_mode) == FileType::Directory => s,
                _ => rfs::fstat(&fd).map_err(|e| Error::read(path, io(e)))?,
            };
            let uid = Uid::from_raw(stat.st_uid);
            (!uid.is_root()).then(|| Owner {
                uid,
                gid: Gid::from_raw(stat.st_gid),
            })
        } else {
            None
        };
        Ok(Prefix {
            fd,
            path: path.to_path_buf(),
            owner,
        })
    }

    /// The prefix's path, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The prefix itself as a [`Dir`].
    pub fn root(&self) -> Result<Dir<'_>> {
        let fd = self
            .fd
            .try_clone()
            .map_err(|e| Error::read(&self.path, e))?;
        Ok(Dir {
            fd,
            path: self.path.clone(),
            prefix: self,
        })
    }

    /// The directory at `rel` (components separated by `/`), reached one
    /// component at a time without following links. With `create`, missing
    /// components are made (mode 0755, the environment's owner); without,
    /// a missing one gives `None`.
    pub fn dir(&self, rel: &str, create: bool) -> Result<Option<Dir<'_>>> {
        let mut dir = self.root()?;
        for name in rel.split('/').filter(|c| !c.is_empty()) {
            match dir.subdir(name, create)? {
                Some(next) => dir = next,
                None => return Ok(None),
            }
        }
        Ok(Some(dir))
    }
}

/// Unique temporary names within this process; the pid separates processes.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh temporary name: [`TEMP_PREFIX`], pid, counter, clock.
pub fn temp_name(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{TEMP_PREFIX}{what}-{}-{}-{nanos:08x}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// The directory's own handle: for a lock held on the directory itself
/// (`envhook run`'s, while its command runs).
impl AsFd for Dir<'_> {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl<'p> Dir<'p> {
    /// The directory's path (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of `name` in this directory (for messages).
    pub fn join(&self, name: &(impl AsRef<OsStr> + ?Sized)) -> PathBuf {
        self.path.join(name.as_ref())
    }

    fn read_err(&self, name: &(impl AsRef<OsStr> + ?Sized), e: Errno) -> Error {
        Error::read(self.join(name), io(e))
    }

    fn write_err(
        &self,
        name: &(impl AsRef<OsStr> + ?Sized),
        e: impl Into<std::io::Error>,
    ) -> Error {
        Error::write(self.join(name), e.into())
    }

    /// What `name` is, without following it.
    pub fn entry(&self, name: &(impl AsRef<OsStr> + ?Sized)) -> Result<Entry> {
        let stat = match rfs::statat(&self.fd, name.as_ref(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(s) => s,
            Err(Errno::NOENT) => return Ok(Entry::Missing),
            Err(e) => return Err(self.read_err(name, e)),
        };
        Ok(match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => Entry::File,
            FileType::Directory => Entry::Dir,
            FileType::Symlink => Entry::Link(self.read_link(name)?),
            _ => Entry::Special,
        })
    }

    /// The permission bits of the regular file `name` (not following a
    /// link); `None` for anything else.
    pub fn file_mode(&self, name: &str) -> Result<Option<u32>> {
        match rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(s) if FileType::from_raw_mode(s.st_mode) == FileType::RegularFile => {
                Ok(Some(s.st_mode & 0o7777))
            }
            Ok(_) | Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(self.read_err(name, e)),
        }
    }

    /// A link's target.
    pub fn read_link(&self, name: &(impl AsRef<OsStr> + ?Sized)) -> Result<PathBuf> {
        let target = rfs::readlinkat(&self.fd, name.as_ref(), Vec::new())
            .map_err(|e| self.read_err(name, e))?;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(
            target.as_bytes(),
        )))
    }

    /// The names in this directory, sorted; names that are not UTF-8 are
    /// never envhook's and are left out.
    pub fn names(&self) -> Result<Vec<String>> {
        let entries = rfs::Dir::read_from(&self.fd).map_err(|e| self.read_err("", e))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| self.read_err("", e))?;
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            if name != "." && name != ".." {
                names.push(name.to_string());
            }
        }
        names.sort();
        Ok(names)
    }

    /// Every name in this directory, as bytes, sorted: for a user's files,
    /// whose names may be anything.
    pub fn os_names(&self) -> Result<Vec<std::ffi::OsString>> {
        let entries = rfs::Dir::read_from(&self.fd).map_err(|e| self.read_err("", e))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| self.read_err("", e))?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name != "." && name != ".." {
                names.push(name.to_os_string());
            }
        }
        names.sort();
        Ok(names)
    }

    /// The first `max` bytes of a regular file; `None` for anything else
    /// (a link is not followed, a FIFO is not waited on).
    pub fn read_head(&self, name: &str, max: usize) -> Option<Vec<u8>> {
        let fd = rfs::openat(
            &self.fd,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .ok()?;
        let stat = rfs::fstat(&fd).ok()?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return None;
        }
        let mut buf = vec![0u8; max];
        let mut len = 0;
        while len < max {
            match rustix::io::read(&fd, &mut buf[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(Errno::INTR) => {}
                Err(_) => return None,
            }
        }
        buf.truncate(len);
        Some(buf)
    }

    /// The subdirectory `name`, not following a link; made (0755, the
    /// environment's owner) when missing and `create` is set.
    pub fn subdir(&self, name: &str, create: bool) -> Result<Option<Dir<'p>>> {
        let flags = OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::RDONLY | OFlags::CLOEXEC;
        let open = || rfs::openat(&self.fd, name, flags, Mode::empty());
        let fd = match open() {
            Ok(fd) => fd,
            Err(Errno::NOENT) if create => {
                match rfs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o700)) {
                    Ok(()) => {
                        let fd = open().map_err(|e| self.refusal(name, e))?;
                        self.adopt(&fd, name, DIR_MODE)?;
                        fd
                    }
                    // Made meanwhile by a concurrent writer: use what is there.
                    Err(Errno::EXIST) => open().map_err(|e| self.refusal(name, e))?,
                    Err(e) => return Err(self.write_err(name, e)),
                }
            }
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => return Err(self.refusal(name, e)),
        };
        Ok(Some(Dir {
            fd,
            path: self.join(name),
            prefix: self.prefix,
        }))
    }

    /// Why `name` could not be opened as a directory: a planted link, a
    /// file in the way, or an I/O error.
    fn refusal(&self, name: &str, e: Errno) -> Error {
        match self.entry(name) {
            Ok(Entry::Link(target)) => Error::PlantedLink {
                link: self.join(name),
                target,
            },
            Ok(other @ (Entry::File | Entry::Special)) => Error::NotOurs {
                conflicts: vec![crate::error::Conflict {
                    path: self.join(name),
                    what: format!("{}, where envhook needs a directory", other.describe()),
                }],
            },
            _ => Error::write(self.join(name), io(e)),
        }
    }

    /// Make the directory `name` (fails if anything is there), 0755, owned
    /// by the environment's owner.
    pub fn make_dir(&self, name: &str) -> Result<()> {
        rfs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o700))
            .map_err(|e| self.write_err(name, e))?;
        let fd = rfs::openat(
            &self.fd,
            name,
            OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::RDONLY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| self.write_err(name, e))?;
        self.adopt(&fd, name, DIR_MODE)
    }

    /// Give a freshly made file or directory its mode and owner.
    fn adopt(&self, fd: &impl AsFd, name: &str, mode: u32) -> Result<()> {
        if let Some(o) = self.prefix.owner {
            rfs::fchown(fd, Some(o.uid), Some(o.gid)).map_err(|e| self.write_err(name, e))?;
        }
        // After chown, which may clear set-id bits; explicit, so the umask
        // never decides.
        rfs::fchmod(fd, Mode::from_raw_mode(mode)).map_err(|e| self.write_err(name, e))
    }

    /// Create `name` with `bytes` (0644, the environment's owner); fails
    /// if anything is there.
    pub fn create_file(&self, name: &str, bytes: &[u8]) -> Result<()> {
        self.create_file_mode(name, bytes, FILE_MODE)
    }

    /// [`Dir::create_file`] with the permission bits `mode`.
    fn create_file_mode(&self, name: &str, bytes: &[u8], mode: u32) -> Result<()> {
        let fd = rfs::openat(
            &self.fd,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|e| self.write_err(name, e))?;
        self.adopt(&fd, name, mode)?;
        let mut file = File::from(fd);
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| self.write_err(name, e))
    }

    /// Replace `name` with a file holding `bytes`, atomically: a temporary
    /// file in the same directory, synced, then renamed over it. An
    /// interrupted write leaves the old file or the new one, never half of
    /// one (and a temporary name a later run removes).
    pub fn write_atomic(&self, name: &str, bytes: &[u8]) -> Result<()> {
        self.write_atomic_mode(name, bytes, FILE_MODE)
    }

    /// [`Dir::write_atomic`] with the permission bits `mode`: for a user's
    /// file envhook edits (a venv's `bin/activate`), which keeps its own.
    pub fn write_atomic_mode(&self, name: &str, bytes: &[u8], mode: u32) -> Result<()> {
        let tmp = temp_name("file");
        self.create_file_mode(&tmp, bytes, mode)?;
        rfs::renameat(&self.fd, &tmp, &self.fd, name).map_err(|e| {
            let _ = rfs::unlinkat(&self.fd, &tmp, AtFlags::empty());
            self.write_err(name, e)
        })
    }

    /// Whether `name` is a directory holding the file `mark`: one envhook
    /// built (see [`Dir::build_link_dir`]).
    pub fn is_marked_dir(&self, name: &str, mark: &str) -> Result<bool> {
        Ok(self
            .subdir(name, false)?
            .is_some_and(|d| d.entry(mark).is_ok_and(|e| e == Entry::File)))
    }

    /// Build the directory `name` of symbolic links (`(target, link
    /// name)`): under a temporary name (`what` in it), with `mark`
    /// (holding `note`) written first, so that a build killed halfway is
    /// recognisably envhook's, then renamed into place complete.
    pub fn build_link_dir<'a>(
        &self,
        name: &str,
        what: &str,
        (mark, note): (&str, &[u8]),
        links: impl IntoIterator<Item = (PathBuf, &'a str)>,
    ) -> Result<()> {
        let tmp = temp_name(what);
        self.make_dir(&tmp)?;
        {
            let build = self.subdir(&tmp, false)?.expect("just made");
            build.create_file(mark, note)?;
            for (target, link) in links {
                build.symlink(&target, link)?;
            }
        }
        self.rename(&tmp, name)
    }

    /// Make the symbolic link `name -> target` (fails if anything is
    /// there); owned by the environment's owner.
    pub fn symlink(&self, target: &Path, name: &str) -> Result<()> {
        rfs::symlinkat(target, &self.fd, name).map_err(|e| self.write_err(name, e))?;
        if let Some(o) = self.prefix.owner {
            rfs::chownat(
                &self.fd,
                name,
                Some(o.uid),
                Some(o.gid),
                AtFlags::SYMLINK_NOFOLLOW,
            )
            .map_err(|e| self.write_err(name, e))?;
        }
        Ok(())
    }

    /// Rename `from` to `to` within this directory, replacing `to`.
    pub fn rename(&self, from: &str, to: &str) -> Result<()> {
        rfs::renameat(&self.fd, from, &self.fd, to).map_err(|e| self.write_err(to, e))
    }

    /// Rename `from` to `to` in this directory, failing (`EEXIST`) rather
    /// than replacing whatever is at `to`: for moving a user's file, which
    /// must never land on another.
    pub fn rename_noreplace(
        &self,
        from: &(impl AsRef<OsStr> + ?Sized),
        to: &(impl AsRef<OsStr> + ?Sized),
    ) -> Result<()> {
        rfs::renameat_with(
            &self.fd,
            from.as_ref(),
            &self.fd,
            to.as_ref(),
            rfs::RenameFlags::NOREPLACE,
        )
        .map_err(|e| self.write_err(to, e))
    }

    /// Remove the file or link `name`; nothing there is not an error.
    pub fn remove_file(&self, name: &str) -> Result<()> {
        match rfs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => Ok(()),
            Err(e) => Err(self.write_err(name, e)),
        }
    }

    /// Remove the directory `name` if it is empty; whether it was removed.
    pub fn remove_empty_dir(&self, name: &str) -> bool {
        rfs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR).is_ok()
    }

    /// Remove the directory `name` and everything in it, never following a
    /// link (links inside are removed, not their targets). Only for
    /// directories envhook made and marked.
    pub fn remove_tree(&self, name: &str, mark: &str) -> Result<()> {
        let Some(sub) = self.subdir(name, false)? else {
            return Ok(());
        };
        // The mark goes last: a run killed halfway leaves a directory that
        // is still recognisably envhook's, which the next run finishes.
        let mut children = sub.names()?;
        children.sort_by_key(|c| c == mark);
        for child in children {
            match sub.entry(&child)? {
                Entry::Dir => sub.remove_tree(&child, mark)?,
                _ => sub.remove_file(&child)?,
            }
        }
        drop(sub);
        match rfs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR) {
            Ok(()) | Err(Errno::NOENT) => Ok(()),
            Err(e) => Err(self.write_err(name, e)),
        }
    }

    /// Open (creating, 0644, the environment's owner) `name` for reading
    /// and writing, not following a link: for lock files.
    pub fn open_lock_file(&self, name: &str) -> Result<File> {
        let flags = OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        match rfs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => return Ok(File::from(fd)),
            Err(Errno::NOENT) => {}
            Err(e) => return Err(self.lock_refusal(name, e)),
        }
        match rfs::openat(
            &self.fd,
            name,
            flags | OFlags::CREATE | OFlags::EXCL,
            Mode::from_raw_mode(0o600),
        ) {
            Ok(fd) => {
                self.adopt(&fd, name, FILE_MODE)?;
                Ok(File::from(fd))
            }
            // Created meanwhile by another envhook.
            Err(Errno::EXIST) => rfs::openat(&self.fd, name, flags, Mode::empty())
                .map(File::from)
                .map_err(|e| self.lock_refusal(name, e)),
            Err(e) => Err(self.write_err(name, e)),
        }
    }

    fn lock_refusal(&self, name: &str, e: Errno) -> Error {
        match self.entry(name) {
            Ok(Entry::Link(target)) => Error::PlantedLink {
                link: self.join(name),
                target,
            },
            _ => self.write_err(name, e),
        }
    }

    /// The device and inode of `name` (not following a link), to tell
    /// whether a path still names an open file.
    pub fn identity(&self, name: &str) -> Option<(u64, u64)> {
        rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW)
            .ok()
            .map(|s| (s.st_dev, s.st_ino))
    }
}

/// The device and inode of an open file.
pub fn identity_of(file: &File) -> Option<(u64, u64)> {
    rfs::fstat(file).ok().map(|s| (s.st_dev, s.st_ino))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names() {
        assert!(is_temporary(&temp_name("file")));
        // Names no released envhook wrote are someone else's.
        assert!(!is_temporary(".envhook-AbC123"));
        assert!(!is_temporary(".cuda.tmp-4242"));
        assert!(!is_temporary(".envhook-owned"));
        assert!(!is_temporary("envhook.sh"));
        assert!(!is_temporary(".envhook-mine-and-longer"));
        assert_ne!(temp_name("x"), temp_name("x"));
    }

    #[test]
    fn links_are_never_followed_below_the_prefix() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let prefix = t.path().join("env");
        std::fs::create_dir_all(prefix.join("etc")).unwrap();
        std::os::unix::fs::symlink(&outside, prefix.join("etc/conda")).unwrap();
        let p = Prefix::open(&prefix).unwrap();
        match p.dir("etc/conda/activate.d", true) {
            Err(Error::PlantedLink { link, target }) => {
                assert_eq!(link, prefix.join("etc/conda"));
                assert_eq!(target, outside);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        // A link that stays inside is refused too.
        std::fs::remove_file(prefix.join("etc/conda")).unwrap();
        std::fs::create_dir_all(prefix.join("share")).unwrap();
        std::os::unix::fs::symlink("../share", prefix.join("etc/conda")).unwrap();
        assert!(matches!(
            p.dir("etc/conda", false),
            Err(Error::PlantedLink { .. })
        ));
    }

    #[test]
    fn modes_are_explicit() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let p = Prefix::open(t.path()).unwrap();
        p.dir("a/b", true)
            .unwrap()
            .unwrap()
            .write_atomic("f", b"x")
            .unwrap();
        let mode = |rel: &str| {
            std::fs::metadata(t.path().join(rel))
                .unwrap()
                .permissions()
                .mode()
                & 0o7777
        };
        assert_eq!(mode("a"), 0o755);
        assert_eq!(mode("a/b"), 0o755);
        assert_eq!(mode("a/b/f"), 0o644);
        assert_eq!(std::fs::read_dir(t.path().join("a/b")).unwrap().count(), 1);
    }

    #[test]
    fn a_file_in_the_way_is_not_ours() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("etc"), "mine").unwrap();
        let p = Prefix::open(t.path()).unwrap();
        assert!(matches!(
            p.dir("etc/conda", true),
            Err(Error::NotOurs { .. })
        ));
        assert_eq!(std::fs::read(t.path().join("etc")).unwrap(), b"mine");
    }
}
