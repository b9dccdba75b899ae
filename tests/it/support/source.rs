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
    #[allow(dead_code)] // read by tests/it/architecture.rs, not tests/it/docs.rs
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

/// What a stretch of Rust source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    Code,
    Comment,
    /// A string literal with its quotes (raw and byte strings too).
    Str,
    /// A character literal (a lifetime stays code).
    Char,
}

/// Rust source cut into code, comments, string and character literals, in
/// order: together the pieces are the whole text. The one reading of
/// Rust's lexical rules both source tests use.
#[allow(dead_code)] // each test uses the parts it needs
pub fn pieces(src: &str) -> Vec<(Piece, &str)> {
    let c: Vec<(usize, char)> = src.char_indices().collect();
    let at = |k: usize| c.get(k).map_or(src.len(), |&(b, _)| b);
    let ch = |k: usize| c.get(k).map(|&(_, x)| x);
    let ident = |k: Option<usize>| {
        k.and_then(ch)
            .is_some_and(|x| x.is_alphanumeric() || x == '_')
    };
    let find = |from: usize, pred: &dyn Fn(usize) -> bool| (from..c.len()).find(|&j| pred(j));
    let mut out = Vec::new();
    let (mut k, mut code_start) = (0, 0);
    while k < c.len() {
        let prev = k.checked_sub(1);
        let hashes = (k + 1..c.len()).take_while(|&j| ch(j) == Some('#')).count();
        let raw = ch(k) == Some('r')
            && ch(k + 1 + hashes) == Some('"')
            && (!ident(prev)
                || (prev.and_then(ch) == Some('b') && !ident(prev.and_then(|p| p.checked_sub(1)))));
        let piece = match (ch(k), ch(k + 1)) {
            (Some('/'), Some('/')) => Some((
                Piece::Comment,
                find(k, &|j| ch(j) == Some('\n')).unwrap_or(c.len()),
            )),
            (Some('/'), Some('*')) => Some((
                Piece::Comment,
                find(k + 2, &|j| ch(j) == Some('*') && ch(j + 1) == Some('/'))
                    .map_or(c.len(), |j| j + 2),
            )),
            _ if raw => {
                let closes =
                    |j: usize| ch(j) == Some('"') && (1..=hashes).all(|h| ch(j + h) == Some('#'));
                Some((
                    Piece::Str,
                    find(k + 2 + hashes, &closes).map_or(c.len(), |j| j + 1 + hashes),
                ))
            }
            (Some('"'), _) => {
                let mut j = k + 1;
                while j < c.len() && ch(j) != Some('"') {
                    j += if ch(j) == Some('\\') { 2 } else { 1 };
                }
                Some((Piece::Str, (j + 1).min(c.len())))
            }
            (Some('\''), Some('\\')) => {
                // Past the escaped character: `'\''` and `'\u{41}'` alike.
                Some((
                    Piece::Char,
                    find(k + 3, &|j| ch(j) == Some('\'')).map_or(c.len(), |j| j + 1),
                ))
            }
            (Some('\''), Some(_)) if ch(k + 2) == Some('\'') => Some((Piece::Char, k + 3)),
            _ => None,
        };
        match piece {
            Some((kind, end)) => {
                if at(k) > code_start {
                    out.push((Piece::Code, &src[code_start..at(k)]));
                }
                out.push((kind, &src[at(k)..at(end)]));
                code_start = at(end);
                k = end;
            }
            None => k += 1,
        }
    }
    if code_start < src.len() {
        out.push((Piece::Code, &src[code_start..]));
    }
    out
}
