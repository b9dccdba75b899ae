//! envhook's own source, for the tests that hold the house rules and the
//! documentation to it: every `.rs` file under `src/` that is not a test
//! module, with its code before its tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One source file.
pub struct File {
    /// Its path.
    pub path: PathBuf,
    /// Its path under `src/`, without the extension (`audit/fix`).
    #[allow(dead_code)] // read by tests/architecture.rs, not tests/docs.rs
    pub rel: PathBuf,
    /// Its text up to its first `#[cfg(test)] mod`.
    pub code: String,
}

/// Every source file outside tests, sorted by path.
pub fn files() -> Vec<File> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    walk(&src, &mut paths);
    let texts: BTreeMap<PathBuf, String> = paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    texts
        .iter()
        .filter(|(path, _)| !is_test_module(path, &texts))
        .map(|(path, text)| File {
            path: path.clone(),
            rel: path.strip_prefix(&src).unwrap().with_extension(""),
            code: match text.find("#[cfg(test)]\nmod ") {
                Some(at) => text[..at].to_string(),
                None => text.clone(),
            },
        })
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file its parent declares as `#[cfg(test)] mod NAME;`.
fn is_test_module(path: &Path, texts: &BTreeMap<PathBuf, String>) -> bool {
    let name = path.file_stem().unwrap().to_string_lossy();
    let dir = path.parent().unwrap();
    let declaration = format!("#[cfg(test)]\nmod {name};");
    [dir.join("mod.rs"), dir.with_extension("rs")]
        .iter()
        .filter_map(|parent| texts.get(parent))
        .any(|text| text.contains(&declaration))
}
