//! Reading pip-installed distributions (`site-packages/*.dist-info`).
//!
//! Like conda-meta, a dist-info directory is named
//! `<name>-<version>.dist-info` (the name with `-` escaped to `_`), so only
//! the distributions in the catalogue are opened. For those, `METADATA`
//! gives the authoritative name and version, `INSTALLER` tells pip's copies
//! from conda's (conda-forge python packages write `conda`), and `RECORD`
//! lists the installed files, relative to site-packages.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use super::MAX_LIBRARIES;
use crate::error::{Error, Result};
use crate::inventory::records::MetaIndex;

/// A dist-info directory known by its name only.
#[derive(Debug, Clone)]
pub struct DistInfoEntry {
    /// Normalised distribution name (PEP 503, `-` separated, lower case).
    pub name: String,
    /// The version the directory's name gives: enough to hold a
    /// requirement against (the extras a framework was installed with
    /// are told by which requirements hold), without opening METADATA.
    pub version: String,
    /// The dist-info directory.
    pub dir: PathBuf,
    /// The site-packages directory it belongs to.
    pub site: PathBuf,
}

/// What `METADATA`, `INSTALLER` and `RECORD` say.
#[derive(Debug, Clone)]
pub struct DistInfo {
    /// The `Version:` header.
    pub version: String,
    /// The first line of `INSTALLER`, if present (`pip`, `conda`, `uv`).
    pub installer: Option<String>,
    /// The shared libraries it installed, absolute (RECORD paths joined to
    /// site-packages), each with the size RECORD gives it: what pip wrote,
    /// to tell a file another wheel wrote over since.
    pub libraries: Vec<(PathBuf, Option<u64>)>,
    /// How many shared libraries RECORD lists: more than `libraries`
    /// holds when it lists more than [`super::MAX_LIBRARIES`].
    pub libraries_listed: usize,
    /// The `Requires-Dist:` headers, as written.
    pub requires: Vec<String>,
}

/// PEP 503 normalisation: lower case, runs of `-`, `_`, `.` become `-`.
pub fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('-');
            }
            sep = false;
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The site-packages directories of an environment.
///
/// The Python version comes from the `python-X.Y.Z-*.json` record's file
/// name (no parse); free-threaded builds (`*_cp313t`) use `pythonX.Yt`.
/// Without a python record (`lib/` copied by hand, or a python from pip's
/// own venv), `lib/python*/site-packages` is listed instead. Windows-layout
/// environments use `Lib/site-packages`.
pub fn site_packages(prefix: &Path, meta: &MetaIndex) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for entry in meta.named("python") {
        let mut parts = entry.version.split('.');
        if let (Some(major), Some(minor)) = (parts.next(), parts.next()) {
            let t = if entry.build.contains("_cp") && entry.build.ends_with('t') {
                "t"
            } else {
                ""
            };
            for dir in [
                format!("python{major}.{minor}{t}"),
                format!("python{major}.{minor}"),
            ] {
                let site = prefix.join("lib").join(dir).join("site-packages");
                if site.is_dir() && !dirs.contains(&site) {
                    dirs.push(site);
                }
            }
        }
    }
    if dirs.is_empty()
        && let Ok(entries) = fs_err::read_dir(prefix.join("lib"))
    {
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with("python"))
            })
            .map(|e| e.path().join("site-packages"))
            .filter(|p| p.is_dir())
            .collect();
        found.sort();
        dirs.extend(found);
    }
    let windows = prefix.join("Lib").join("site-packages");
    if windows.is_dir() {
        dirs.push(windows);
    }
    dirs
}

/// List the dist-info directories of one site-packages without opening any.
pub fn scan(site: &Path) -> Result<Vec<DistInfoEntry>> {
    let mut out = Vec::new();
    crate::paths::for_each_entry(site, |file_name, _| {
        let Some(stem) = file_name
            .to_str()
            .and_then(|n| n.strip_suffix(".dist-info"))
        else {
            return;
        };
        let Some((name, version)) = stem.split_once('-') else {
            return;
        };
        out.push(DistInfoEntry {
            name: normalize(name),
            version: version.to_string(),
            dir: site.join(file_name),
            site: site.to_path_buf(),
        });
    })
    .map_err(|e| Error::read(site, e))?;
    // One directory: by name (a Path comparison walks components).
    out.sort_unstable_by(|a, b| a.dir.file_name().cmp(&b.dir.file_name()));
    Ok(out)
}

/// The longest `Requires-Dist` value kept.
const MAX_REQUIREMENT: usize = 4096;

/// Read the parts of a dist-info directory envhook uses.
pub fn read(entry: &DistInfoEntry) -> Result<DistInfo> {
    let metadata_path = entry.dir.join("METADATA");
    let metadata = read_text(&metadata_path)?;
    let version = header(&metadata, "Version").ok_or_else(|| Error::BadDistInfo {
        path: metadata_path.clone(),
        reason: "no Version: header".into(),
    })?;
    if version.len() > super::MAX_VERSION {
        return Err(Error::BadDistInfo {
            path: metadata_path,
            reason: format!(
                "Version: {} is longer than {} bytes",
                super::clip(&version),
                super::MAX_VERSION
            ),
        });
    }
    if let Some(name) = header(&metadata, "Name")
        && normalize(&name) != entry.name
    {
        return Err(Error::BadDistInfo {
            path: metadata_path,
            reason: format!(
                "Name: {} does not match the directory name",
                super::clip(&name)
            ),
        });
    }
    let installer = crate::paths::read_regular(&entry.dir.join("INSTALLER"), 4096)
        .ok()
        .and_then(|b| {
            String::from_utf8_lossy(&b)
                .lines()
                .next()
                .map(|l| l.trim().to_string())
        });
    let record_path = entry.dir.join("RECORD");
    let (rows, libraries_listed) =
        match crate::paths::read_regular(&record_path, crate::paths::MAX_TEXT) {
            Ok(bytes) => record_libraries(&bytes, &record_path)?,
            // RECORD is optional for some installers (and for `pip install -e`).
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), 0),
            Err(e) => return Err(Error::read(record_path, e)),
        };
    let libraries = rows
        .into_iter()
        .map(|(rel, size)| (entry.site.join(rel), size))
        .collect();
    // A requirement longer than any real one (a few hundred bytes) is not
    // kept: it would be quoted whole in findings.
    let requires = headers(&metadata, "Requires-Dist")
        .into_iter()
        .filter(|r| r.len() <= MAX_REQUIREMENT)
        .collect();
    Ok(DistInfo {
        version,
        installer,
        libraries,
        libraries_listed,
        requires,
    })
}

/// The most bytes of METADATA read for its headers: real ones end within
/// a few kB (the long description follows the first blank line, and may
/// run to a megabyte).
const MAX_HEADERS: u64 = 64 * 1024;

/// The `Requires-Dist:` headers of a distribution envhook does not
/// catalogue, read without its description: enough to tell whether it
/// builds on a framework. Headers that run past [`MAX_HEADERS`] are read
/// to there.
pub fn requirements(entry: &DistInfoEntry) -> Result<Vec<String>> {
    use std::io::Read;
    let path = entry.dir.join("METADATA");
    let file = crate::paths::open_regular(&path).map_err(|e| Error::read(&path, e))?;
    let mut text = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut reader = file.take(MAX_HEADERS);
    loop {
        let n = reader.read(&mut chunk).map_err(|e| Error::read(&path, e))?;
        if n == 0 {
            break;
        }
        // Look for the blank line from a little before the new bytes, as
        // it may straddle two reads.
        let from = text.len().saturating_sub(3);
        text.extend_from_slice(&chunk[..n]);
        if let Some(end) = blank_line(&text[from..]) {
            text.truncate(from + end);
            break;
        }
    }
    let text = String::from_utf8_lossy(&text);
    Ok(headers(&text, "Requires-Dist")
        .into_iter()
        .filter(|r| r.len() <= MAX_REQUIREMENT)
        .collect())
}

/// Where the first blank line (`\n\n` or `\n\r\n`) starts in `bytes`.
fn blank_line(bytes: &[u8]) -> Option<usize> {
    bytes.windows(2).enumerate().find_map(|(i, w)| {
        (w == b"\n\n" || (w == b"\n\r" && bytes.get(i + 2) == Some(&b'\n'))).then_some(i)
    })
}

/// Whether a distribution is pure Python by its `WHEEL` file
/// (`Root-Is-Purelib: true`): a pure wheel carries no object that links
/// anything. Without a readable `WHEEL` (an egg-info install, a hand-made
/// copy), `false`: its files are looked at.
pub fn is_pure(entry: &DistInfoEntry) -> bool {
    crate::paths::read_regular(&entry.dir.join("WHEEL"), 4096).is_ok_and(|b| {
        headers(&String::from_utf8_lossy(&b), "Root-Is-Purelib")
            .first()
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    })
}

/// The first `max` ELF shared objects (`.so`, `.so.N`) a distribution's
/// RECORD lists, absolute (none without a RECORD).
pub fn objects(entry: &DistInfoEntry, max: usize) -> Result<Vec<PathBuf>> {
    let path = entry.dir.join("RECORD");
    let bytes = match crate::paths::read_regular(&path, crate::paths::MAX_TEXT) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::read(path, e)),
    };
    Ok(record_libraries(&bytes, &path)?
        .0
        .into_iter()
        .map(|(file, _)| file)
        .filter(|file| {
            file.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".so") || n.contains(".so."))
        })
        .take(max)
        .map(|file| entry.site.join(file))
        .collect())
}

thread_local! {
    /// csv_core's reader: building its state machine costs more than
    /// reading a short RECORD, so each thread keeps one and resets it.
    static CSV: RefCell<csv_core::Reader> = RefCell::new(csv_core::Reader::new());
}

/// A path RECORD lists, with the size it gives.
type SizedPath = (PathBuf, Option<u64>);

/// The shared libraries a RECORD file lists (its first column; a CSV:
/// paths with commas are quoted), with their sizes (the third), the first
/// [`super::MAX_LIBRARIES`] of them; and how many it lists. Other rows are not
/// kept: a RECORD may list a hundred thousand Python files.
fn record_libraries(bytes: &[u8], path: &Path) -> Result<(Vec<SizedPath>, usize)> {
    // Without a quote no field spans rows or holds a comma, so only the
    // rows that name a library need reading: found by memchr's SIMD search
    // for their suffixes, not by parsing every row (torch's RECORD has
    // 13 000 rows and 1.3 MB, 2% of them libraries).
    if memchr::memchr(b'"', bytes).is_none() {
        return library_rows(bytes, path);
    }
    record_libraries_csv(bytes, path)
}

/// [`record_libraries`] for a RECORD with no quoted field: each row that
/// holds `.so`, `.dll` or `.dylib`, split at its commas.
fn library_rows(bytes: &[u8], path: &Path) -> Result<(Vec<SizedPath>, usize)> {
    let mut starts: Vec<usize> = [&b".so"[..], b".dll", b".dylib"]
        .iter()
        .flat_map(|needle| memchr::memmem::find_iter(bytes, needle))
        .map(|hit| memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |i| i + 1))
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let mut files: Vec<SizedPath> = Vec::new();
    let mut listed = 0;
    for start in starts {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let row = bytes[start..end]
            .strip_suffix(b"\r")
            .unwrap_or(&bytes[start..end]);
        let mut fields = row.split(|&b| b == b',');
        let file = fields.next().unwrap_or_default();
        let Ok(file) = std::str::from_utf8(file) else {
            let line = memchr::memchr_iter(b'\n', &bytes[..start]).count() + 1;
            return Err(Error::BadDistInfo {
                path: path.to_path_buf(),
                reason: format!("record {line}: a path that is not valid UTF-8"),
            });
        };
        let file = PathBuf::from(file);
        let library = file
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(crate::paths::is_shared_library);
        if !library {
            continue;
        }
        listed += 1;
        if files.len() < MAX_LIBRARIES {
            // A size that does not parse is no size.
            let size = fields
                .nth(1)
                .and_then(|f| std::str::from_utf8(f).ok())
                .and_then(|t| t.parse().ok());
            files.push((file, size));
        }
    }
    Ok((files, listed))
}

/// [`record_libraries`] by the CSV reader, every row: for a RECORD with a
/// quoted field.
fn record_libraries_csv(bytes: &[u8], path: &Path) -> Result<(Vec<SizedPath>, usize)> {
    use csv_core::ReadFieldResult;
    CSV.with_borrow_mut(|reader| {
        reader.reset();
        let mut files: Vec<(PathBuf, Option<u64>)> = Vec::new();
        let mut listed = 0;
        let mut input = bytes;
        let mut out = [0u8; 512];
        let mut field = Vec::new();
        // The column of the field being read: 0 path, 1 hash, 2 size.
        let mut column = 0;
        // Whether this record's path is a shared library (its size is kept).
        let mut library = false;
        let mut line = 1;
        loop {
            let (result, read, written) = reader.read_field(input, &mut out);
            input = &input[read..];
            if column == 0 || (column == 2 && library) {
                field.extend_from_slice(&out[..written]);
            }
            match result {
                // An empty input on the next call is the end of the file.
                ReadFieldResult::InputEmpty | ReadFieldResult::OutputFull => {}
                ReadFieldResult::Field { record_end } => {
                    if column == 0 && !field.is_empty() {
                        let file = String::from_utf8(std::mem::take(&mut field)).map_err(|_| {
                            Error::BadDistInfo {
                                path: path.to_path_buf(),
                                reason: format!("record {line}: a path that is not valid UTF-8"),
                            }
                        })?;
                        let file = PathBuf::from(file);
                        library = file
                            .file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(crate::paths::is_shared_library);
                        if library {
                            listed += 1;
                            library = files.len() < MAX_LIBRARIES;
                            if library {
                                files.push((file, None));
                            }
                        }
                    } else if column == 2 && library {
                        // A size that does not parse is no size.
                        let size = std::str::from_utf8(&field)
                            .ok()
                            .and_then(|t| t.parse().ok());
                        if let Some(last) = files.last_mut() {
                            last.1 = size;
                        }
                    }
                    field.clear();
                    column = if record_end { 0 } else { column + 1 };
                    if record_end {
                        library = false;
                        line += 1;
                    }
                }
                ReadFieldResult::End => return Ok((files, listed)),
            }
        }
    })
}

/// Read a small text file as UTF-8, naming the file on failure.
fn read_text(path: &Path) -> Result<String> {
    let bytes = crate::paths::read_regular(path, crate::paths::MAX_TEXT)
        .map_err(|e| Error::read(path, e))?;
    String::from_utf8(bytes).map_err(|e| Error::BadDistInfo {
        path: path.to_path_buf(),
        reason: format!("not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
    })
}

/// One header of an RFC 822-style METADATA file (headers end at the first
/// empty line; the body is the long description). A line of only spaces
/// continues the header before it, as Python's email parser, which pip
/// reads METADATA with, takes it: vLLM 0.7.3's `License:` runs over 200
/// lines with whitespace-only ones between, before its `Requires-Dist:`.
fn header(text: &str, key: &str) -> Option<String> {
    headers(text, key).into_iter().next()
}

/// Every header `key` of a METADATA file, in order.
fn headers(text: &str, key: &str) -> Vec<String> {
    text.lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with([' ', '\t']))
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(key)
                .then(|| v.trim().to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_like_pep_503() {
        assert_eq!(
            normalize("nvidia_cuda_runtime_cu12"),
            "nvidia-cuda-runtime-cu12"
        );
        assert_eq!(normalize("PaddlePaddle_GPU"), "paddlepaddle-gpu");
        assert_eq!(normalize("jax.cuda12__plugin"), "jax-cuda12-plugin");
    }

    #[test]
    fn reads_headers_not_the_body() {
        let text = "Metadata-Version: 2.1\nName: torch\nVersion: 2.1.2+cu121\n\nVersion: 9.9\n";
        assert_eq!(header(text, "version").as_deref(), Some("2.1.2+cu121"));
        assert_eq!(header("Name: x\n\nVersion: 1\n", "Version"), None);
        // vLLM 0.7.3's METADATA: a folded License with blank-looking lines.
        let text = "Name: vllm\nLicense: Apache\n        \n   1. Definitions.\n\t\nRequires-Dist: torch==2.5.1\n\nbody: x\n";
        assert_eq!(headers(text, "Requires-Dist"), ["torch==2.5.1"]);
        assert_eq!(header(text, "body"), None);
    }

    #[test]
    fn record_rows_with_quoted_commas() {
        let rec = b"nvidia/cudnn/lib/libcudnn.so.9,sha256=abc,123\n\"odd,name.py\",,\nnvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD,,\n";
        let (files, listed) = record_libraries(rec, Path::new("RECORD")).unwrap();
        // A shared library's size is kept; other files are not kept.
        assert_eq!(
            files,
            [(PathBuf::from("nvidia/cudnn/lib/libcudnn.so.9"), Some(123))]
        );
        assert_eq!(listed, 1);
        // CRLF, a path longer than one output chunk, no final newline; the
        // reader is reused between files and starts afresh each time.
        let long = "d/".repeat(400) + "libx.so";
        let rec = format!("a.so,,\r\n{long},sha256=x,1\r\n\"b\"\"q.so\",,");
        let (files, _) = record_libraries(rec.as_bytes(), Path::new("RECORD")).unwrap();
        assert_eq!(
            files,
            [
                (PathBuf::from("a.so"), None),
                (PathBuf::from(&long), Some(1)),
                (PathBuf::from("b\"q.so"), None)
            ]
        );
        let err = record_libraries(b"ok.so,,\n\xff.so,,\n", Path::new("RECORD")).unwrap_err();
        assert!(err.to_string().contains("RECORD"), "{err}");
        assert!(format!("{err:?}").contains("record 2"), "{err:?}");
    }

    #[test]
    fn a_record_keeps_at_most_max_libraries() {
        let mut rec = String::from("x/__init__.py,,\n");
        for i in 0..MAX_LIBRARIES + 5 {
            rec.push_str(&format!("x/lib{i}.so,sha256=a,{i}\n"));
        }
        let (files, listed) = record_libraries(rec.as_bytes(), Path::new("RECORD")).unwrap();
        assert_eq!(files.len(), MAX_LIBRARIES);
        assert_eq!(listed, MAX_LIBRARIES + 5);
        assert_eq!(files[7], (PathBuf::from("x/lib7.so"), Some(7)));
    }

    #[test]
    fn objects_are_found_without_parsing_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let info = dir.path().join("x-1.dist-info");
        std::fs::create_dir(&info).unwrap();
        std::fs::write(
            info.join("RECORD"),
            "x/__init__.py,sha256=a,1\nx/resource.something/a.py,,\nx/_C.so,sha256=b,2\n\
             \"x/odd,name.so.1\",,\nx/lib.dylib,,\nx/also.sox,,\nx/libfoo.so.2,,",
        )
        .unwrap();
        let entry = DistInfoEntry {
            name: "x".into(),
            version: "1".into(),
            dir: info,
            site: dir.path().to_path_buf(),
        };
        let site = dir.path();
        assert_eq!(
            objects(&entry, 10).unwrap(),
            [
                site.join("x/_C.so"),
                site.join("x/odd,name.so.1"),
                site.join("x/libfoo.so.2")
            ]
        );
        assert_eq!(objects(&entry, 1).unwrap(), [site.join("x/_C.so")]);
    }

    /// The row search and the CSV reader read a RECORD without quotes the
    /// same: libraries in a directory named like one, `.so.N`, `.dll`,
    /// `.dylib`, CRLF rows, a last row without newline, a `.so` inside a
    /// name that is no library.
    #[test]
    fn the_row_search_agrees_with_the_csv_reader() {
        let mut rec = String::new();
        for i in 0..300 {
            rec.push_str(&format!("torch/include/h{i}.h,sha256=x,{i}\n"));
        }
        rec.push_str("torch/lib/libtorch_cpu.so,sha256=y,445000000\r\n");
        rec.push_str("torch/lib.so.d/readme.txt,sha256=z,1\n");
        rec.push_str("nvidia/cudnn/lib/libcudnn.so.9,sha256=a,7\n");
        rec.push_str("x/reason.sorted.py,,\n");
        rec.push_str("x/a.dll,,\nx/b.dylib,sha256=b,notanumber\n");
        rec.push_str("torch/lib/libc10.so,sha256=c,12");
        let path = Path::new("RECORD");
        let fast = library_rows(rec.as_bytes(), path).unwrap();
        assert_eq!(fast, record_libraries_csv(rec.as_bytes(), path).unwrap());
        assert_eq!(fast.1, 5);
        assert_eq!(
            fast.0[0],
            (PathBuf::from("torch/lib/libtorch_cpu.so"), Some(445000000))
        );
        assert_eq!(fast.0[3], (PathBuf::from("x/b.dylib"), None));
    }
}
