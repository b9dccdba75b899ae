//! Small path helpers shared by the modules that read environments.
//!
//! Error convention: code that turns an I/O failure into an
//! [`Error`](crate::error::Error) uses `std::fs` and wraps the error with
//! its path ([`Error::read`](crate::error::Error::read)); code that keeps the
//! failure as text (warnings, problems) uses `fs_err`, whose messages
//! already name the path, and never wraps its error in an `Error` that
//! names the path again (the demo's tree words its errors as `fs_err`
//! does, and `Error::Demo` prints them as they are).

use std::path::{Path, PathBuf};

use serde::Serializer;

/// Serialise a path as a JSON string. Paths that are not UTF-8 are written
/// lossily (JSON has no way to carry raw bytes).
pub fn serialize<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

/// Serialise an optional path.
pub fn serialize_opt<S: Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    match path {
        Some(p) => serialize(p, s),
        None => s.serialize_none(),
    }
}

/// Serialise a list of paths.
pub fn serialize_vec<S: Serializer>(paths: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(paths.iter().map(|p| p.to_string_lossy()))
}

/// The entries of a directory, sorted; nothing when it cannot be read
/// (for directories that may legitimately be missing: envs dirs,
/// `condarc.d`, `activate.d`).
pub fn dir_entries(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs_err::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    // One directory: ordering by name is ordering by path, without
    // comparing the shared parent component by component each time.
    paths.sort_unstable_by(|a, b| a.file_name().cmp(&b.file_name()));
    paths
}

/// Open a file for reading only if it is a regular file: opening a FIFO
/// blocks until someone writes to it, and a device can be endless, so a
/// stray `mkfifo` in `conda-meta/` or `activate.d/` must not hang envhook.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    open_regular_with_len(path).map(|(file, _)| file)
}

/// [`open_regular`], with the file's length from the same `stat`.
fn open_regular_with_len(path: &Path) -> std::io::Result<(std::fs::File, u64)> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "is a directory"
        } else {
            "is not a regular file (a FIFO, socket or device)"
        };
        return Err(std::io::Error::other(what));
    }
    Ok((std::fs::File::open(path)?, meta.len()))
}

/// Read a regular file whole, refusing files larger than `max` bytes.
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let (mut file, len) = open_regular_with_len(path)?;
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("larger than the {max} bytes envhook reads of such a file"),
        )
    };
    if len > max {
        return Err(too_large());
    }
    // The length the stat gave, in one read where the file system allows
    // (read_to_end would read once more to see the end); a file that
    // shrank meanwhile ends early, one that grew is read to the stat's
    // length, as metadata files are written whole and renamed.
    if len == 0 {
        // A file system that reports no size (procfs-like): read to the
        // end, within the limit.
        let mut bytes = Vec::new();
        file.by_ref().take(max + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > max {
            return Err(too_large());
        }
        return Ok(bytes);
    }
    let mut bytes = vec![0; len as usize];
    let mut got = 0;
    while got < bytes.len() {
        match file.read(&mut bytes[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(got);
    Ok(bytes)
}

/// Text files envhook reads (configuration, metadata) are small; 64 MiB is
/// far beyond any real one.
pub const MAX_TEXT: u64 = 64 << 20;

/// Whether a file name is a shared library: `libx.so`, `libx.so.12.1`,
/// `x.dll`, `libx.dylib`. Static archives and import libraries are not.
pub fn is_shared_library(file_name: &str) -> bool {
    file_name.ends_with(".so")
        || file_name.contains(".so.")
        || file_name.ends_with(".dll")
        || file_name.ends_with(".dylib")
}

/// Whether a path runs through a `stubs` directory: link-time stubs such as
/// `lib/stubs/libcuda.so` must never end up on a library path.
pub fn is_stub(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == "stubs")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_library_names() {
        for yes in [
            "libcudart.so",
            "libcudart.so.11.0",
            "libcudnn.so.9.3.0",
            "cudnn64_8.dll",
        ] {
            assert!(is_shared_library(yes), "{yes}");
        }
        for no in [
            "libcudart_static.a",
            "cudnn.lib",
            "libnccl_device.bc",
            "libsomething.sonic",
        ] {
            assert!(!is_shared_library(no), "{no}");
        }
        assert!(is_stub(Path::new("/p/lib/stubs/libcuda.so")));
        assert!(!is_stub(Path::new("/p/lib/libcuda_stubs.so")));
    }
}

thread_local! {
    /// Resolved paths, per thread (an audit's worker audits environments
    /// one after another; directories do not move during a run): each
    /// directory is resolved once, not once per file under it.
    static RESOLVED: std::cell::RefCell<std::collections::HashMap<std::ffi::OsString, PathBuf>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
    /// What is at each path looked at (`None`: nothing), per thread, for
    /// the same reason: the inventory, the link resolution and the hooks'
    /// spec look at the same library files. Filled by `lstat` and by
    /// directory listings ([`learn_directory`]); keys are the paths' bytes
    /// (hashing a Path walks its components).
    static KINDS: std::cell::RefCell<std::collections::HashMap<std::ffi::OsString, Option<Kind>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// What is at a path, without following a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Link,
    /// A FIFO, socket or device.
    Other,
}

impl Kind {
    /// Whether it is a regular file.
    pub fn is_file(self) -> bool {
        self == Kind::File
    }

    /// Whether it is a symbolic link.
    pub fn is_symlink(self) -> bool {
        self == Kind::Link
    }

    fn of(t: std::fs::FileType) -> Kind {
        if t.is_file() {
            Kind::File
        } else if t.is_dir() {
            Kind::Dir
        } else if t.is_symlink() {
            Kind::Link
        } else {
            Kind::Other
        }
    }
}

/// Call `f` with the name and kind of every entry of `dir` (not `.` and
/// `..`; the kind is `None` where the file system does not report it). On
/// Linux the entries are read in place from `getdents` buffers, without an
/// allocation per entry: `conda-meta/` and `site-packages/` hold hundreds
/// of entries of which envhook wants a few.
pub fn for_each_entry(
    dir: &Path,
    mut f: impl FnMut(&std::ffi::OsStr, Option<Kind>),
) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{FileType, Mode, OFlags, RawDir};
        use std::os::unix::ffi::OsStrExt;
        let fd = rustix::fs::open(
            dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let mut buf = vec![std::mem::MaybeUninit::<u8>::uninit(); 32 << 10];
        let mut raw = RawDir::new(&fd, &mut buf);
        while let Some(entry) = raw.next() {
            let entry = entry?;
            let name = std::ffi::OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            let kind = match entry.file_type() {
                FileType::RegularFile => Some(Kind::File),
                FileType::Directory => Some(Kind::Dir),
                FileType::Symlink => Some(Kind::Link),
                FileType::Unknown => None,
                _ => Some(Kind::Other),
            };
            f(name, kind);
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            f(&entry.file_name(), entry.file_type().ok().map(Kind::of));
        }
        Ok(())
    }
}

/// List `dir` once and remember the kind of each of `wanted`, or that it
/// is not there: checking 60 files of a `lib/` then costs one to three
/// `getdents` instead of 60 `lstat`s. Entries whose kind the file system
/// does not report are left to `lstat`.
pub fn learn_directory(dir: &Path, wanted: &[&Path]) {
    let names: std::collections::HashSet<&std::ffi::OsStr> =
        wanted.iter().filter_map(|p| p.file_name()).collect();
    let mut seen: std::collections::HashMap<std::ffi::OsString, Kind> = Default::default();
    let mut unknown = std::collections::HashSet::new();
    let listed = for_each_entry(dir, |name, kind| {
        if names.contains(name) {
            match kind {
                Some(k) => {
                    seen.insert(name.to_owned(), k);
                }
                None => {
                    unknown.insert(name.to_owned());
                }
            }
        }
    });
    if listed.is_err() {
        return;
    }
    KINDS.with(|c| {
        let mut c = c.borrow_mut();
        for name in names {
            if !unknown.contains(name) {
                c.insert(dir.join(name).into_os_string(), seen.get(name).copied());
            }
        }
    });
}

/// The kind of what is at `path` (not following a link), asked of the
/// file system once per path and thread: from a listing
/// [`learn_directory`] made, else from `lstat` (a missing path is
/// remembered too). For reading environments, which do not change while
/// envhook reads them; code that writes (`activation`'s install) never
/// uses it.
pub fn file_type(path: &Path) -> std::io::Result<Kind> {
    if let Some(known) = KINDS.with(|c| c.borrow().get(path.as_os_str()).copied()) {
        return known.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound));
    }
    let answer = std::fs::symlink_metadata(path).map(|m| Kind::of(m.file_type()));
    let remembered = match &answer {
        Ok(kind) => Some(Some(*kind)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(None),
        Err(_) => None,
    };
    if let Some(kind) = remembered {
        KINDS.with(|c| c.borrow_mut().insert(path.as_os_str().to_owned(), kind));
    }
    answer
}

/// Symbolic links followed at most, as the kernel does (`ELOOP`).
const MAX_LINKS: u32 = 40;

/// `std::fs::canonicalize`, with what was resolved remembered: realpath(3)
/// reads the link at every component of every path it is given (a
/// `readlink` per component, a round trip each on NFS, where clusters keep
/// conda environments), so resolving the 30 libraries of an environment
/// cost ~300 system calls; here each component is looked at once per run
/// (`lstat`, and `readlink` only for links). Errors are canonicalize's:
/// `NotFound` for a missing component or a dangling link, `ELOOP` for a
/// loop.
pub fn real_path(path: &Path) -> std::io::Result<PathBuf> {
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::path::absolute(path)?
    };
    let mut links = 0;
    resolve(&path, &mut links)
}

fn resolve(path: &Path, links: &mut u32) -> std::io::Result<PathBuf> {
    use std::path::Component;
    let mut cur = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                cur.pop();
            }
            Component::Normal(name) => {
                let candidate = cur.join(name);
                if let Some(done) =
                    RESOLVED.with(|r| r.borrow().get(candidate.as_os_str()).cloned())
                {
                    cur = done;
                    continue;
                }
                let kind = file_type(&candidate)?;
                let real = if kind.is_symlink() {
                    *links += 1;
                    if *links > MAX_LINKS {
                        return Err(std::io::Error::from_raw_os_error(40));
                    }
                    let target = std::fs::read_link(&candidate)?;
                    resolve(&cur.join(target), links)?
                } else {
                    candidate.clone()
                };
                RESOLVED.with(|r| {
                    r.borrow_mut()
                        .insert(candidate.into_os_string(), real.clone())
                });
                cur = real;
            }
        }
    }
    Ok(cur)
}

#[cfg(test)]
mod real_path_tests {
    use super::real_path;

    /// The same answers as the standard library's canonicalize, on links
    /// relative and absolute, chains, `..` through links, dangling links
    /// and loops.
    #[test]
    fn agrees_with_canonicalize() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("targets/x86_64-linux/lib")).unwrap();
        std::fs::write(d.join("targets/x86_64-linux/lib/libcudart.so.12.6.77"), "").unwrap();
        std::fs::create_dir_all(d.join("lib")).unwrap();
        let link = |target: &str, at: &str| std::os::unix::fs::symlink(target, d.join(at)).unwrap();
        link(
            "libcudart.so.12.6.77",
            "targets/x86_64-linux/lib/libcudart.so.12",
        );
        link(
            "../targets/x86_64-linux/lib/libcudart.so.12",
            "lib/libcudart.so.12",
        );
        link("libcudart.so.12", "lib/libcudart.so");
        link(d.join("targets").to_str().unwrap(), "abs");
        link("nowhere", "lib/dangling");
        link("loop-b", "lib/loop-a");
        link("loop-a", "lib/loop-b");
        for rel in [
            "lib/libcudart.so",
            "lib/libcudart.so.12",
            "abs/x86_64-linux/lib/libcudart.so.12",
            "abs/../lib/libcudart.so.12",
            "targets/x86_64-linux/lib",
        ] {
            assert_eq!(
                real_path(&d.join(rel)).unwrap(),
                std::fs::canonicalize(d.join(rel)).unwrap(),
                "{rel}"
            );
        }
        assert_eq!(
            real_path(&d.join("lib/dangling")).unwrap_err().kind(),
            std::io::ErrorKind::NotFound
        );
        assert_eq!(
            real_path(&d.join("lib/loop-a")).unwrap_err().raw_os_error(),
            Some(40)
        );
    }
}
