//! Reading `conda-meta/*.json` package records.
//!
//! A record's file name is `<name>-<version>-<build>.json` (CEP 32; rattler's
//! `PrefixRecord::file_name`), and neither version nor build may contain `-`.
//! So the name, version and build of every installed package are known from
//! one directory listing, and only the records envhook cares about are
//! opened and parsed. A 500-package environment costs one `readdir` and a
//! handful of JSON parses.
//!
//! A record is parsed into [`Record`], the five fields envhook reads, not
//! into rattler's `PrefixRecord`: that one allocates every `paths_data`
//! entry (path, hash, size, type) of packages that list thousands of files,
//! which was a tenth of `envhook audit`'s CPU time on a realistic fleet. The
//! version is still checked with rattler's parser, and `paths_data` is only
//! parsed when `files` is empty.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Deserialize;
use serde_json::value::RawValue;

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

/// What envhook reads of a `conda-meta/*.json` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Package name, as the record spells it.
    pub name: String,
    /// Version (checked to parse as a conda version).
    pub version: String,
    /// Build string.
    pub build: String,
    /// `linux-64`, `noarch`, ... (empty when the record has none).
    pub subdir: String,
    /// The installed files, relative to the prefix: `files`, which conda
    /// itself uses to unlink, else `paths_data`'s paths.
    pub files: Vec<PathBuf>,
}

/// The record as JSON: known keys only (CEP 32: others are ignored),
/// `paths_data` left unparsed.
#[derive(Deserialize)]
struct RawRecord<'a> {
    name: String,
    version: String,
    build: String,
    #[serde(default)]
    subdir: String,
    #[serde(default)]
    files: Vec<PathBuf>,
    #[serde(default, borrow)]
    paths_data: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct PathsData {
    #[serde(default)]
    paths: Vec<PathsEntry>,
}

#[derive(Deserialize)]
struct PathsEntry {
    #[serde(rename = "_path")]
    path: PathBuf,
}

/// Parse one record, with errors that name the file.
///
/// The bytes are read and checked as UTF-8 here (a JSON parser would
/// report neither the file nor the offset), then parsed. Unknown keys are
/// ignored, as CEP 32 requires; keys envhook reads with the wrong type,
/// and versions conda could not parse, are errors.
pub fn read_record(path: &Path) -> Result<Record> {
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
    let bad = |reason: String| Error::BadRecord {
        path: path.to_path_buf(),
        reason,
    };
    let raw: RawRecord<'_> = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if let Err(e) = rattler_conda_types::Version::from_str(&raw.version) {
        return Err(bad(format!("malformed version '{}': {e}", raw.version)));
    }
    let files = match raw.paths_data {
        Some(paths) if raw.files.is_empty() => serde_json::from_str::<PathsData>(paths.get())
            .map_err(|e| bad(format!("paths_data: {e}")))?
            .paths
            .into_iter()
            .map(|p| p.path)
            .collect(),
        _ => raw.files,
    };
    Ok(Record {
        name: raw.name,
        version: raw.version,
        build: raw.build,
        subdir: raw.subdir,
        files,
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

    fn parse(json: &str) -> Result<Record> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x-1-0.json");
        std::fs::write(&path, json).unwrap();
        read_record(&path)
    }

    #[test]
    fn reads_files_else_paths_data() {
        let both = r#"{"name": "x", "version": "1.0", "build": "h_0", "subdir": "linux-64",
            "depends": ["y"], "files": ["lib/libx.so.1"],
            "paths_data": {"paths": [{"_path": "lib/other.so", "sha256": "00", "size_in_bytes": 1}],
                           "paths_version": 1}}"#;
        let r = parse(both).unwrap();
        assert_eq!(
            (
                r.name.as_str(),
                r.version.as_str(),
                r.build.as_str(),
                r.subdir.as_str()
            ),
            ("x", "1.0", "h_0", "linux-64")
        );
        assert_eq!(r.files, [PathBuf::from("lib/libx.so.1")]);
        let only_paths = both.replace(r#""files": ["lib/libx.so.1"],"#, r#""files": [],"#);
        assert_eq!(
            parse(&only_paths).unwrap().files,
            [PathBuf::from("lib/other.so")]
        );
    }

    #[test]
    fn wrong_types_and_versions_are_errors() {
        let bad_paths =
            r#"{"name": "x", "version": "1", "build": "0", "paths_data": {"paths": 5}}"#;
        assert!(
            parse(bad_paths)
                .unwrap_err()
                .to_string()
                .contains("paths_data")
        );
        let bad_version = r#"{"name": "x", "version": "8..9", "build": "0"}"#;
        let err = parse(bad_version).unwrap_err();
        assert!(
            format!("{err:?}").contains("malformed version '8..9'"),
            "{err:?}"
        );
        assert!(parse(r#"{"name": "x", "version": "1"}"#).is_err());
    }
}
