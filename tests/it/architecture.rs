//! The house rules that a review would otherwise check by eye, read from
//! `src/` itself: the modules import one way (no circles between the
//! top-level rooms, nor between the rooms inside each), no function
//! outside tests passes 80 lines, no file's code passes 600.
//!
//! The reading is lexical: comments, strings and character literals are
//! blanked first (a doc link or a format string is not an import), then
//! `use` trees and inline `crate::`/`super::` paths give the arrows. A
//! module's root (`mod.rs`) declaring and re-exporting its own rooms is
//! not an arrow; its rooms reaching back into it are.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::source;

/// The floors of `src/lib.rs`'s map, from the ground up: an import may run
/// down or across a floor, never up.
const FLOORS: &[&[&str]] = &[
    &[
        "paths", "env_vars", "exit", "error", "finding", "notice", "colour",
    ],
    &["data", "demo"],
    &["discovery"],
    &["machine", "inventory"],
    &["activation"],
    &["loading"],
    &["rules"],
    &["explain", "audit"],
    &["report"],
    &["manual", "cli"],
    &["cmd"],
];

/// The longest a function outside tests may be, signature to closing brace.
const MAX_FUNCTION_LINES: usize = 80;
/// The longest a file's code (before its tests) may be.
const MAX_FILE_LINES: usize = 600;

/// One source file: its module path and its code without tests, with
/// comments, strings and character literals blanked (line breaks kept).
struct Source {
    path: PathBuf,
    module: Vec<String>,
    code: String,
}

fn sources() -> Vec<Source> {
    source::files()
        .into_iter()
        .map(|f| {
            let mut module: Vec<String> = f
                .rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "main" | "lib")
            ) {
                module.pop();
            }
            Source {
                path: f.path,
                module,
                code: blank(&f.code),
            }
        })
        .collect()
}

/// `text` with comments, string and character literals replaced by spaces
/// (newlines kept, so line numbers hold).
fn blank(text: &str) -> String {
    source::pieces(text)
        .into_iter()
        .map(|(piece, part)| match piece {
            source::Piece::Code => part.to_string(),
            _ => part
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' })
                .collect(),
        })
        .collect()
}

/// The module paths a file names: `use` trees expanded, and inline
/// `crate::a::b` and `super::a` paths, each resolved from the crate root.
fn imports(s: &Source) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = s.code.as_str();
    let mut inline = String::new();
    while let Some(at) = find_use(rest) {
        inline.push_str(&rest[..at]);
        let end = at + rest[at..].find(';').unwrap();
        let tree: String = rest[at + 4..end].split_whitespace().collect();
        for path in expand(&tree) {
            out.extend(resolve(&s.module, &path));
        }
        rest = &rest[end + 1..];
    }
    inline.push_str(rest);
    for start in ["crate::", "super::"] {
        for (at, _) in inline.match_indices(start) {
            if inline[..at]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let path: Vec<String> = inline[at..]
                .split("::")
                .map(|seg| {
                    seg.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<String>()
                })
                .take_while(|seg| !seg.is_empty())
                .collect();
            out.extend(resolve(&s.module, &path));
        }
    }
    out
}

/// Where the next `use` item starts (`use` or `pub use`, at a line's start).
fn find_use(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find("use ") {
        let at = from + at;
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        let lead = text[line_start..at].trim();
        if lead.is_empty() || lead.starts_with("pub") {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// `a::{b, c::{d, e}}` -> `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<Vec<String>> {
    let Some(open) = tree.find('{') else {
        let head = tree.split(" as ").next().unwrap_or(tree);
        return vec![head.split("::").map(String::from).collect()];
    };
    let prefix: Vec<String> = tree[..open]
        .trim_end_matches("::")
        .split("::")
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let inner = &tree[open + 1..tree.rfind('}').unwrap()];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(expand)
        .map(|tail| prefix.iter().cloned().chain(tail).collect())
        .collect()
}

/// A path as written in `module`, from the crate root; `None` for paths
/// into other crates.
fn resolve(module: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super") | Some("self") => module.to_vec(),
        _ => return None,
    };
    let mut rest = path;
    if rest[0] == "crate" {
        rest = &rest[1..];
    }
    while let Some(first) = rest.first() {
        match first.as_str() {
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(base)
}

/// The module graph at `depth` (1: `src/<room>`; 2: `src/<room>/<room>`).
fn graph(sources: &[Source], depth: usize) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<Vec<String>> = sources
        .iter()
        .flat_map(|s| (1..=s.module.len()).map(|n| s.module[..n].to_vec()))
        .collect();
    // The longest real module at most `depth` deep that a path lies in.
    let node = |path: &[String]| -> Option<String> {
        (1..=path.len().min(depth))
            .rev()
            .map(|n| &path[..n])
            .find(|p| modules.contains(*p))
            .map(|p| p.join("::"))
    };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for s in sources {
        let Some(from) = node(&s.module) else {
            continue; // the crate root declares every room
        };
        let is_root_of_node = s.module.join("::") == from && s.module.len() < depth;
        for path in imports(s) {
            let Some(to) = node(&path) else { continue };
            if to == from || (is_root_of_node && to.starts_with(&format!("{from}::"))) {
                continue;
            }
            edges.entry(from.clone()).or_default().insert(to);
        }
    }
    edges
}

/// One circle of the graph, if it has any.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| s == n) {
            let mut c = stack[at..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if !done.insert(n.to_string()) {
            return None;
        }
        stack.push(n.to_string());
        for next in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, edges, done, stack) {
                return Some(c);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|n| visit(n, edges, &mut done, &mut Vec::new()))
}

#[test]
fn the_rooms_import_one_way() {
    let sources = sources();
    for depth in [1, 2] {
        let edges = graph(&sources, depth);
        assert!(
            edges.len() > 10,
            "the import graph at depth {depth} was not read: {edges:?}"
        );
        if let Some(c) = circle(&edges) {
            panic!("an import circle at depth {depth}: {}", c.join(" -> "));
        }
    }
}

#[test]
fn every_import_runs_down_the_floors() {
    let floor = |room: &str| {
        FLOORS
            .iter()
            .position(|f| f.contains(&room))
            .unwrap_or_else(|| {
                panic!("src/{room} is on no floor: add it to FLOORS and lib.rs's map")
            })
    };
    let up: Vec<String> = graph(&sources(), 1)
        .iter()
        .flat_map(|(from, tos)| tos.iter().map(move |to| (from, to)))
        .filter(|(from, to)| floor(to) > floor(from))
        .map(|(from, to)| format!("{from} -> {to}"))
        .collect();
    assert!(
        up.is_empty(),
        "imports running up a floor: {}",
        up.join(", ")
    );
}

#[test]
fn the_reading_sees_real_arrows_and_circles() {
    // The checker on a made-up crate: a circle through a grouped `use`
    // and an inline path is found; doc links and strings are not arrows.
    let src = |module: &[&str], code: &str| Source {
        path: PathBuf::new(),
        module: module.iter().map(|s| s.to_string()).collect(),
        code: blank(code),
    };
    let sources = [
        src(
            &["a"],
            "use crate::{b::Thing, c};\n/// [`crate::d`]\nfn f() {}",
        ),
        src(&["b"], "fn g() { let s = \"crate::d\"; crate::c::h(); }"),
        src(&["c"], "use super::a;\n"),
        src(&["d"], "use std::io;\n"),
    ];
    let edges = graph(&sources, 1);
    assert_eq!(edges["a"], BTreeSet::from(["b".into(), "c".into()]));
    assert_eq!(edges["b"], BTreeSet::from(["c".into()]));
    assert!(!edges.contains_key("d"));
    let c = circle(&edges).expect("a -> c -> a is a circle");
    assert!(c.contains(&"a".to_string()) && c.contains(&"c".to_string()));
    // A room's root re-exporting its rooms is not an arrow; a room
    // reaching back into its root is.
    let sources = [
        src(&["r"], "pub use x::X;\nmod x;\nmod y;"),
        src(&["r", "x"], "use super::Shared;\nuse super::y::Y;"),
        src(&["r", "y"], "pub struct Y;"),
    ];
    let edges = graph(&sources, 2);
    assert!(!edges.contains_key("r"));
    assert_eq!(edges["r::x"], BTreeSet::from(["r".into(), "r::y".into()]));
    assert!(circle(&edges).is_none());
}

/// Every `fn` outside tests and its length in lines.
fn functions(s: &Source) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = s.code.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(name) = fn_name(lines[i]) else {
            i += 1;
            continue;
        };
        let (mut depth, mut opened, mut j) = (0i32, false, i);
        'scan: while j < lines.len() {
            for c in lines[j].chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    ';' if !opened && depth == 0 => break 'scan, // a declaration
                    _ => {}
                }
                if opened && depth == 0 {
                    break 'scan;
                }
            }
            j += 1;
        }
        if opened {
            out.push((name, i + 1, j - i + 1));
        }
        i += 1;
    }
    out
}

/// The name of the function a line starts, if it starts one.
fn fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.peek() {
        if w.starts_with("pub") || matches!(*w, "const" | "async" | "unsafe" | "extern") {
            words.next();
        } else {
            break;
        }
    }
    if words.next()? != "fn" {
        return None;
    }
    let name: String = words
        .next()?
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

#[test]
fn no_function_outside_tests_passes_80_lines() {
    let sources = sources();
    let all: Vec<(String, usize, usize, &Path)> = sources
        .iter()
        .flat_map(|s| {
            functions(s)
                .into_iter()
                .map(move |(n, at, len)| (n, at, len, s.path.as_path()))
        })
        .collect();
    assert!(all.len() > 500, "functions were not read: {}", all.len());
    let long: Vec<String> = all
        .iter()
        .filter(|(_, _, len, _)| *len > MAX_FUNCTION_LINES)
        .map(|(n, at, len, p)| format!("{}:{at} {n} ({len} lines)", p.display()))
        .collect();
    assert!(
        long.is_empty(),
        "split these by the steps they already have:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_function_reader_measures_what_it_should() {
    let s = Source {
        path: PathBuf::new(),
        module: Vec::new(),
        code: blank(
            "pub(crate) fn a() {\n    let s = \"}}}\";\n    let c = '}';\n}\nfn b<'x>(v: &'x str) -> &'x str;\nconst fn c() -> u8 {\n    // }\n    1\n}\n",
        ),
    };
    assert_eq!(functions(&s), vec![("a".into(), 1, 4), ("c".into(), 6, 4)]);
}

#[test]
fn the_lexer_cuts_literals_and_comments_where_rust_does() {
    use source::Piece::{Char, Code, Comment, Str};
    let src = "let q = '\\''; let r = r#\"}\"#; /* { */ let b = br\"\\\"; fn f<'a>(x: &'a str) {} // }\nlet s = \"a\\\"b\";";
    assert_eq!(
        source::pieces(src),
        vec![
            (Code, "let q = "),
            (Char, "'\\''"),
            (Code, "; let r = "),
            (Str, "r#\"}\"#"),
            (Code, "; "),
            (Comment, "/* { */"),
            (Code, " let b = b"),
            (Str, "r\"\\\""),
            (Code, "; fn f<'a>(x: &'a str) {} "),
            (Comment, "// }"),
            (Code, "\nlet s = "),
            (Str, "\"a\\\"b\""),
            (Code, ";"),
        ]
    );
}

#[test]
fn no_file_passes_600_lines_of_code() {
    let long: Vec<String> = sources()
        .iter()
        .filter(|s| s.code.lines().count() > MAX_FILE_LINES)
        .map(|s| format!("{} ({} lines)", s.path.display(), s.code.lines().count()))
        .collect();
    assert!(long.is_empty(), "split these files:\n{}", long.join("\n"));
}
