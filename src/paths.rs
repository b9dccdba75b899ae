//! Small path helpers shared by the modules that read environments.
//!
//! Error convention: code that turns an I/O failure into an
//! [`Error`](crate::error::Error) uses `std::fs` and wraps the error with
//! its path ([`Error::read`](crate::error::Error::read)); code that keeps the
//! failure as text (warnings, problems) uses `fs_err`, whose messages
//! already name the path.

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
    paths.sort();
    paths
}

/// Open a file for reading only if it is a regular file: opening a FIFO
/// blocks until someone writes to it, and a device can be endless, so a
/// stray `mkfifo` in `conda-meta/` or `activate.d/` must not hang envhook.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "is a directory"
        } else {
            "is not a regular file (a FIFO, socket or device)"
        };
        return Err(std::io::Error::other(what));
    }
    std::fs::File::open(path)
}

/// Read a regular file whole, refusing files larger than `max` bytes.
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut file = open_regular(path)?;
    let len = file.metadata()?.len();
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("larger than the {max} bytes envhook reads of such a file"),
        )
    };
    if len > max {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.by_ref().take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
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
