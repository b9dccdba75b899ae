//! Where the demo is written: a handle on a directory, and every path
//! below it reached from that handle one component at a time with
//! `O_NOFOLLOW`, the rule `src/activation/confined.rs` keeps in
//! environments (which this module cannot name: the test suite includes
//! `src/demo` on its own). A link swapped in anywhere below the handle
//! makes a write fail, never land elsewhere, and a file is replaced by
//! unlinking it and creating it anew (`O_EXCL`), never written through a
//! hard link someone put in its place.

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{self as rfs, AtFlags, FileType, Gid, Mode, OFlags, Uid};
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
        self.enter(name, create).map(|(tree, _)| tree)
    }

    /// The directory `name` in this one, never through a link (`DIR` of
    /// `envhook demo DIR`), made (0755) when missing; and whether this
    /// call made it.
    pub fn open_dir(&self, name: &OsStr) -> io::Result<(Tree, bool)> {
        self.enter(name, true)
    }

    /// [`Tree::subdir`], and whether it made the directory.
    fn enter(&self, name: &OsStr, create: bool) -> io::Result<(Tree, bool)> {
        let path = self.path.join(name);
        let open = || rfs::openat(&self.fd, name, dir_flags(), Mode::empty());
        let mut made = false;
        let fd = match open() {
            Err(Errno::NOENT) if create => {
                match rfs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o755)) {
                    Ok(()) => {
                        made = true;
                        open()
                    }
                    // Made meanwhile (by another writer): use what is there.
                    Err(Errno::EXIST) => open(),
                    Err(e) => Err(e),
                }
            }
            other => other,
        }
        .map_err(|e| named(e, "open directory (not following a link)", &path))?;
        Ok((Tree { fd, path }, made))
    }

    /// The directory at `rel` below this one, each component reached
    /// without following a link and made when missing; `""` is this one.
    pub fn dir(&self, rel: impl AsRef<Path>) -> io::Result<Tree> {
        let mut dir = Tree {
            fd: (self.fd.try_clone()).map_err(|e| named(e, "open directory", &self.path))?,
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

    /// The names in this directory.
    pub fn names(&self) -> io::Result<Vec<OsString>> {
        let read = |e| named(e, "read directory", &self.path);
        let mut names = Vec::new();
        for entry in rfs::Dir::read_from(&self.fd).map_err(read)? {
            let entry = entry.map_err(read)?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name != "." && name != ".." {
                names.push(name.to_os_string());
            }
        }
        Ok(names)
    }

    /// Remove everything in this directory, never following a link (a link
    /// is removed, not what it leads to); `last` goes last, so that a clear
    /// cut short leaves it (the demo's mark: the next run finishes it).
    pub fn clear(&self, last: &str) -> io::Result<()> {
        let mut names = self.names()?;
        names.sort_by_key(|n| n == last);
        for name in names {
            let flags = match self.kind(&name)? {
                None => continue,
                Some(FileType::Directory) => {
                    self.subdir(&name, false)?.clear(last)?;
                    AtFlags::REMOVEDIR
                }
                Some(_) => AtFlags::empty(),
            };
            rfs::unlinkat(&self.fd, &name, flags)
                .map_err(|e| named(e, "remove", &self.path.join(&name)))?;
        }
        Ok(())
    }

    /// Give what this process made below this directory, and the directory
    /// if it made it, to `uid:gid` (root laying a demo out for a user).
    /// Children go first, so each directory is still this process's, and no
    /// one else can change what is in it, while its entries change hands.
    /// What this process did not make is left as it is: a directory or file
    /// of someone else's (and all in such a directory), and a file with a
    /// second hard link (someone linked it there; only one name is ever
    /// made for a file here).
    pub fn give(&self, uid: u32, gid: u32) -> io::Result<()> {
        let me = rustix::process::geteuid().as_raw();
        let to = (Some(Uid::from_raw(uid)), Some(Gid::from_raw(gid)));
        let mine = rfs::fstat(&self.fd)
            .map_err(|e| named(e, "look at", &self.path))?
            .st_uid
            == me;
        for name in self.names()? {
            let path = self.path.join(&name);
            let chown = |e| named(e, "give away", &path);
            match self.kind(&name)? {
                Some(FileType::Directory) => {
                    let sub = self.subdir(&name, false)?;
                    if sub.owner()?.0 == me {
                        sub.give(uid, gid)?;
                    }
                }
                // Only where no one else can swap the link for a file.
                Some(FileType::Symlink) if mine => {
                    rfs::chownat(&self.fd, &name, to.0, to.1, AtFlags::SYMLINK_NOFOLLOW)
                        .map_err(chown)?;
                }
                Some(FileType::RegularFile) => {
                    let flags =
                        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
                    let fd = rfs::openat(&self.fd, &name, flags, Mode::empty())
                        .map_err(|e| named(e, "open", &path))?;
                    let stat = rfs::fstat(&fd).map_err(|e| named(e, "look at", &path))?;
                    let file = FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile;
                    if file && stat.st_uid == me && stat.st_nlink == 1 {
                        rfs::fchown(&fd, to.0, to.1).map_err(chown)?;
                    }
                }
                _ => {}
            }
        }
        if mine {
            rfs::fchown(&self.fd, to.0, to.1).map_err(|e| named(e, "give away", &self.path))?;
        }
        Ok(())
    }

    /// The owner of this directory: uid and gid.
    pub fn owner(&self) -> io::Result<(u32, u32)> {
        let stat = rfs::fstat(&self.fd).map_err(|e| named(e, "look at", &self.path))?;
        Ok((stat.st_uid, stat.st_gid))
    }
}
