//! Where the demo is written: a handle on a directory, and every path
//! below it reached from that handle one component at a time with
//! `O_NOFOLLOW`, the rule `src/activation/confined.rs` keeps in
//! environments (which this module cannot name: the test suite includes
//! `src/demo` on its own). A link swapped in anywhere below the handle
//! makes a write fail, never land elsewhere, and a file is replaced by
//! unlinking it and creating it anew (`O_EXCL`), never written through a
//! hard link someone put in its place.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

/// A directory being written, by handle.
#[derive(Debug)]
pub struct Tree {
    fd: OwnedFd,
    /// What the directory is called: the name the demo writes into its
    /// files (`environments.txt`) and messages give.
    path: PathBuf,
}

/// Opening a directory below the handle: never through a link.
fn dir_flags() -> OFlags {
    OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::RDONLY | OFlags::CLOEXEC
}

/// `e`, naming what failed on which path, as `fs_err`'s messages do.
fn named(e: impl Into<io::Error>, what: &str, path: &Path) -> io::Error {
    let e = e.into();
    io::Error::new(
        e.kind(),
        format!("failed to {what} `{}`: {e}", path.display()),
    )
}

impl Tree {
    /// The directory at `path`, made with its parents when missing; links
    /// on the way are followed: for the test suite's prefixes, and for the
    /// parent of the directory `envhook demo` is given (whose path is the
    /// user's choice).
    pub fn create(path: &Path) -> io::Result<Tree> {
        fs_err::create_dir_all(path)?;
        let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
        let fd =
            rfs::open(path, flags, Mode::empty()).map_err(|e| named(e, "open directory", path))?;
        Ok(Tree {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// The directory's name (see [`Tree`]).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory `name` in this one, not following a link; made
    /// (0755) when missing and `create` is set.
    fn subdir(&self, name: &OsStr, create: bool) -> io::Result<Tree> {
        let path = self.path.join(name);
        let open = || rfs::openat(&self.fd, name, dir_flags(), Mode::empty());
        let fd = match open() {
            Err(Errno::NOENT) if create => {
                match rfs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o755)) {
                    // Made meanwhile (by another writer): use what is there.
                    Ok(()) | Err(Errno::EXIST) => open(),
                    Err(e) => Err(e),
                }
            }
            other => other,
        }
        .map_err(|e| named(e, "open directory (not following a link)", &path))?;
        Ok(Tree { fd, path })
    }

    /// The directory at `rel` below this one, each component reached
    /// without following a link and made when missing; `""` is this one.
    pub fn dir(&self, rel: impl AsRef<Path>) -> io::Result<Tree> {
        let mut dir = Tree {
            fd: self.fd.try_clone()?,
            path: self.path.clone(),
        };
        for component in rel.as_ref().components() {
            match component {
                Component::Normal(name) => dir = dir.subdir(name, true)?,
                Component::CurDir => {}
                _ => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("`{}` leaves the tree", rel.as_ref().display()),
                    ));
                }
            }
        }
        Ok(dir)
    }

    /// The directory holding `rel` (made when missing), and `rel`'s name.
    fn parent_of<'a>(&self, rel: &'a Path) -> io::Result<(Tree, &'a OsStr)> {
        let name = rel.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{}` names no file", rel.display()),
            )
        })?;
        Ok((self.dir(rel.parent().unwrap_or(Path::new("")))?, name))
    }

    /// Remove the file or link `name`; nothing there is not an error.
    fn unlink(&self, name: &OsStr) -> io::Result<()> {
        match rfs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => Ok(()),
            Err(e) => Err(named(e, "remove", &self.path.join(name))),
        }
    }

    /// Write `bytes` to the file `rel`, replacing a file or link there.
    pub fn write(&self, rel: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> io::Result<()> {
        let (dir, name) = self.parent_of(rel.as_ref())?;
        dir.unlink(name)?;
        let path = dir.path.join(name);
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rfs::openat(&dir.fd, name, flags, Mode::from_raw_mode(0o644))
            .map_err(|e| named(e, "create file", &path))?;
        std::fs::File::from(fd)
            .write_all(bytes.as_ref())
            .map_err(|e| named(e, "write", &path))
    }

    /// Make the link `rel -> target`, replacing a file or link there.
    pub fn symlink(&self, target: &str, rel: impl AsRef<Path>) -> io::Result<()> {
        let (dir, name) = self.parent_of(rel.as_ref())?;
        dir.unlink(name)?;
        rfs::symlinkat(target, &dir.fd, name)
            .map_err(|e| named(e, "make the link", &dir.path.join(name)))
    }

    /// Whether anything is at `rel` (a link is not followed).
    pub fn exists(&self, rel: impl AsRef<Path>) -> io::Result<bool> {
        let (dir, name) = self.parent_of(rel.as_ref())?;
        Ok(dir.kind(name)?.is_some())
    }

    /// What `name` in this directory is, not following a link; `None`
    /// when nothing is there.
    pub fn kind(&self, name: &OsStr) -> io::Result<Option<FileType>> {
        match rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(FileType::from_raw_mode(stat.st_mode))),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(named(e, "look at", &self.path.join(name))),
        }
    }
}
