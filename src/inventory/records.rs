//! Reading `conda-meta/*.json` package records.
//!
//! A record's file name is `<name>-<version>-<build>.json` (CEP 32; rattler's
//! `PrefixRecord::file_name`), and neither version nor build may contain `-`.
//! So the name, version and build of every installed package are known from
//! one directory listing, and only the records envhook cares about are
//! opened and parsed, with rattler's [`PrefixRecord`]. A 500-package
//! environment costs one `readdir` and a handful of JSON parses.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use rattler_conda_types::PrefixRecord;

use crate::error::{Error, Result};

/// Records larger than this are refused rather than read into memory.
/// Real records reach a few MiB (pytorch's lists every file); 256 MiB is far
/// beyond any real one and still safe to hold.
const MAX_RECORD_BYTES: u64 = 256 << 20;

/// A record known by its file name only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaEntry {
    /// Package name, e.g. `cuda-cudart`.
    pub name: String,
    /// Version, e.g. `12.6.77`.
    pub version: String,
    /// Build string, e.g. `h5888daf_0`.
    pub build: String,
    /// The record file.
    pub path: PathBuf,
}

/// The listing of a `conda-meta/` directory.
#[derive(Debug, Default)]
pub struct MetaIndex {
    /// The `*.json` files whose name splits into name, version and build
    /// and names a package envhook reads (the catalog's, and `python`),
    /// sorted by file name. The others are only counted: an environment's
    /// hundreds of other records cost no allocation.
    pub entries: Vec<MetaEntry>,
    /// Every record file, read or not.
    pub total: usize,
}

impl MetaIndex {
    /// List `PREFIX/conda-meta` without opening any record.
    pub fn scan(prefix: &Path) -> Result<Self> {
        let dir = prefix.join("conda-meta");
        let mut entries = Vec::new();
        let mut total = 0;
        crate::paths::for_each_entry(&dir, |file_name, _| {
            // conda never writes names that are not UTF-8.
            let Some((name, version, build)) = file_name.to_str().and_then(split_file_name) else {
                return;
            };
            total += 1;
            if name == "python" || crate::data::catalog::CATALOG.conda(name).is_some() {
                entries.push(MetaEntry {
                    name: name.to_string(),
                    version: version.to_string(),
                    build: build.to_string(),
                    path: dir.join(file_name),
                });
            }
        })
        .map_err(|e| Error::read(&dir, e))?;
        // All in conda-meta/: by file name (a Path comparison walks components).
        entries.sort_unstable_by(|a, b| a.path.file_name().cmp(&b.path.file_name()));
        Ok(MetaIndex { entries, total })
    }

    /// The entries for one package name (normally one; two after an
    /// interrupted transaction).
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a MetaEntry> + 'a {
        self.entries.iter().filter(move |e| e.name == name)
    }
}

/// Split `cuda-cudart-12.6.77-h5888daf_0.json` into its three parts.
pub fn split_file_name(file_name: &str) -> Option<(&str, &str, &str)> {
    let stem = file_name.strip_suffix(".json")?;
    let (rest, build) = stem.rsplit_once('-')?;
    let (name, version) = rest.rsplit_once('-')?;
    (!name.is_empty() && !version.is_empty() && !build.is_empty()).then_some((name, version, build))
}

/// Parse one record, with errors that name the file.
///
/// The bytes are read and checked as UTF-8 here (rattler's own reader would
/// report neither the file nor the offset), then parsed by rattler.
/// Unknown keys are ignored, as CEP 32 requires; keys of the wrong type are
/// errors.
pub fn read_record(path: &Path) -> Result<PrefixRecord> {
    let bytes = crate::paths::read_regular(path, MAX_RECORD_BYTES).map_err(|e| match e.kind() {
        std::io::ErrorKind::FileTooLarge => Error::BadRecord {
            path: path.to_path_buf(),
            reason: format!("{e}; no real record is that large"),
        },
        _ => Error::read(path, e),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| Error::BadRecord {
        path: path.to_path_buf(),
        reason: format!("not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
    })?;
    if text.trim().is_empty() {
        return Err(Error::BadRecord {
            path: path.to_path_buf(),
            reason: "the file is empty (an interrupted install?)".into(),
        });
    }
    PrefixRecord::from_str(&text).map_err(|e| Error::BadRecord {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_real_file_names() {
        assert_eq!(
            split_file_name("cuda-cudart-12.6.77-h5888daf_0.json"),
            Some(("cuda-cudart", "12.6.77", "h5888daf_0"))
        );
        assert_eq!(
            split_file_name("cuda-cudart_linux-64-12.6.77-h3f2d84a_0.json"),
            Some(("cuda-cudart_linux-64", "12.6.77", "h3f2d84a_0"))
        );
        assert_eq!(
            split_file_name("pytorch-2.1.0-py3.9_cuda11.8_cudnn8.7.0_0.json"),
            Some(("pytorch", "2.1.0", "py3.9_cuda11.8_cudnn8.7.0_0"))
        );
        assert_eq!(split_file_name("history"), None);
        assert_eq!(split_file_name("state.json"), None);
        assert_eq!(split_file_name("a-b.json"), None);
        assert_eq!(split_file_name("--.json"), None);
    }
}
