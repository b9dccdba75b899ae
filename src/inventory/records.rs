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

use super::MAX_LIBRARIES;
use crate::error::{Error, Result};

/// Records larger than this are not read: the package is left out of the
/// checks, with a warning (`record-too-large`). envhook parses only the
/// records of CUDA and framework packages, which reach a few MiB (pytorch's
/// lists every file, about 6 MiB); 64 MiB is far beyond any real one, and
/// parsing it takes about a tenth of a second.
pub const MAX_RECORD_BYTES: u64 = 64 << 20;

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
        // A venv has no records: pip-only.
        if crate::discovery::is_venv(prefix) {
            return Ok(MetaIndex { entries, total });
        }
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
    /// The shared libraries among the installed files, relative to the
    /// prefix: from `files`, which conda itself uses to unlink, else from
    /// `paths_data`'s paths; the first [`MAX_LIBRARIES`].
    pub libraries: Vec<PathBuf>,
    /// How many shared libraries the record lists.
    pub libraries_listed: usize,
}

/// The shared libraries among a JSON array of paths: the first
/// [`MAX_LIBRARIES`] kept, all counted, and no other path allocated (a
/// record may list a hundred thousand files).
#[derive(Default)]
struct Libraries {
    kept: Vec<PathBuf>,
    listed: usize,
    /// Paths of any kind.
    entries: usize,
}

impl Libraries {
    fn add(&mut self, path: LibPath) {
        self.entries += 1;
        if let LibPath(Some(p)) = path {
            self.listed += 1;
            if self.kept.len() < MAX_LIBRARIES {
                self.kept.push(p);
            }
        }
    }
}

impl<'de> Deserialize<'de> for Libraries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Seq;
        impl<'de> serde::de::Visitor<'de> for Seq {
            type Value = Libraries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of paths")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Libraries, A::Error> {
                let mut out = Libraries::default();
                while let Some(path) = seq.next_element::<LibPath>()? {
                    out.add(path);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Seq)
    }
}

/// One path of a record: kept only when it names a shared library.
struct LibPath(Option<PathBuf>);

impl<'de> Deserialize<'de> for LibPath {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Str;
        impl serde::de::Visitor<'_> for Str {
            type Value = LibPath;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a path")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<LibPath, E> {
                let name = v.rsplit('/').next().unwrap_or(v);
                Ok(LibPath(
                    crate::paths::is_shared_library(name).then(|| PathBuf::from(v)),
                ))
            }
        }
        d.deserialize_str(Str)
    }
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
    files: Option<Libraries>,
    #[serde(default, borrow)]
    paths_data: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct PathsData {
    #[serde(default)]
    paths: PathsEntries,
}

/// `paths_data.paths`: each entry's `_path`, as [`Libraries`] keeps them.
#[derive(Default)]
struct PathsEntries(Libraries);

impl<'de> Deserialize<'de> for PathsEntries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Entry {
            #[serde(rename = "_path")]
            path: LibPath,
        }
        struct Seq;
        impl<'de> serde::de::Visitor<'de> for Seq {
            type Value = PathsEntries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of path entries")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<PathsEntries, A::Error> {
                let mut out = Libraries::default();
                while let Some(entry) = seq.next_element::<Entry>()? {
                    out.add(entry.path);
                }
                Ok(PathsEntries(out))
            }
        }
        d.deserialize_seq(Seq)
    }
}

/// Parse one record, with errors that name the file.
///
/// The bytes are read and checked as UTF-8 here (a JSON parser would
/// report neither the file nor the offset), then parsed. Unknown keys are
/// ignored, as CEP 32 requires; keys envhook reads with the wrong type,
/// and versions conda could not parse, are errors.
pub fn read_record(path: &Path) -> Result<Record> {
    let bytes = crate::paths::read_regular(path, MAX_RECORD_BYTES).map_err(|e| match e.kind() {
        std::io::ErrorKind::FileTooLarge => Error::RecordTooLarge {
            path: path.to_path_buf(),
            max: MAX_RECORD_BYTES,
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
    if raw.version.len() > super::MAX_VERSION {
        return Err(bad(format!(
            "malformed version '{}': longer than {} bytes",
            super::clip(&raw.version),
            super::MAX_VERSION
        )));
    }
    if let Err(e) = rattler_conda_version::Version::from_str(&raw.version) {
        return Err(bad(format!(
            "malformed version '{}': {e}",
            super::clip(&raw.version)
        )));
    }
    // `files` when it lists anything, else `paths_data` (parsed only then).
    let libraries = match (raw.files, raw.paths_data) {
        (Some(files), _) if files.entries > 0 => files,
        (_, Some(paths)) => {
            serde_json::from_str::<PathsData>(paths.get())
                .map_err(|e| bad(format!("paths_data: {e}")))?
                .paths
                .0
        }
        (files, None) => files.unwrap_or_default(),
    };
    Ok(Record {
        name: raw.name,
        version: raw.version,
        build: raw.build,
        subdir: raw.subdir,
        libraries: libraries.kept,
        libraries_listed: libraries.listed,
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
        assert_eq!(r.libraries, [PathBuf::from("lib/libx.so.1")]);
        let only_paths = both.replace(r#""files": ["lib/libx.so.1"],"#, r#""files": [],"#);
        assert_eq!(
            parse(&only_paths).unwrap().libraries,
            [PathBuf::from("lib/other.so")]
        );
    }

    /// Only shared libraries are kept, at most MAX_LIBRARIES, all counted;
    /// other files (and escaped paths) are read, not kept.
    #[test]
    fn keeps_shared_libraries_only_and_at_most_the_bound() {
        let mut files: Vec<String> = (0..MAX_LIBRARIES + 3)
            .map(|i| format!("\"lib/libx{i}.so\""))
            .collect();
        files.push(r#""share/doc/a\u0062c.txt""#.into());
        files.push(r#""lib/esc\u0061ped.so.1""#.into());
        let json = format!(
            r#"{{"name": "x", "version": "1.0", "build": "h_0", "files": [{}]}}"#,
            files.join(",")
        );
        let r = parse(&json).unwrap();
        assert_eq!(r.libraries.len(), MAX_LIBRARIES);
        assert_eq!(r.libraries_listed, MAX_LIBRARIES + 4);
        assert_eq!(r.libraries[2], PathBuf::from("lib/libx2.so"));
        let json = r#"{"name": "x", "version": "1.0", "build": "h_0",
                       "files": ["share/a.txt", "lib/esc\u0061ped.so.1"]}"#;
        assert_eq!(
            parse(json).unwrap().libraries,
            [PathBuf::from("lib/escaped.so.1")]
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
