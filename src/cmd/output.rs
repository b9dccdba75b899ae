//! Files the commands write outside any environment (`audit --output`,
//! `man --dir`): replaced whole, and only where a regular file (or
//! nothing) is.

use std::path::{Path, PathBuf};

/// Ok when `path` does not exist or is a regular file (not followed when a
/// link): the only things envhook replaces with a file of its own.
pub fn must_be_file_or_absent(path: &Path) -> crate::error::Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let kind = match std::fs::symlink_metadata(path) {
        Ok(m) => m.file_type(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(crate::error::Error::read(path, e)),
    };
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a file"
    };
    Err(crate::error::Error::NotAFile {
        path: path.to_path_buf(),
        what,
    })
}

/// Write `bytes` to `path` as a new file (mode 0644, whatever the umask:
/// readable by node_exporter's collector, by `man`) renamed over it, so a
/// reader never sees half of it and a link or FIFO at `path` is never
/// written through or opened; anything there but a regular file is
/// refused first. The directory is opened once and the temporary file
/// created, written, renamed and (on failure) removed relative to that
/// descriptor: a directory swapped for a link meanwhile neither redirects
/// the write nor strands the temporary file.
pub fn replace_file(path: &Path, bytes: &[u8]) -> crate::error::Result<()> {
    use crate::error::Error;
    use rustix::fs::{self as rfs, AtFlags, Mode, OFlags};
    must_be_file_or_absent(path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| Error::write(path, std::io::Error::other("names no file")))?;
    let dirfd = rfs::open(
        &dir,
        OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| Error::write(&dir, e.into()))?;
    let tmp = crate::activation::confined::temp_name("output");
    let fd = rfs::openat(
        &dirfd,
        &tmp,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o644),
    )
    .map_err(|e| Error::write(&dir, e.into()))?;
    let written = (|| -> std::io::Result<()> {
        let mut file = std::fs::File::from(fd);
        std::io::Write::write_all(&mut file, bytes)?;
        // 0644 whatever the umask.
        rfs::fchmod(&file, Mode::from_raw_mode(0o644))?;
        file.sync_all()?;
        rfs::renameat(&dirfd, &tmp, &dirfd, name)?;
        Ok(())
    })();
    if let Err(e) = written {
        let _ = rfs::unlinkat(&dirfd, &tmp, AtFlags::empty());
        return Err(Error::write(path, e));
    }
    Ok(())
}
