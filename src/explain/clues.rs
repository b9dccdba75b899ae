//! Reading a pasted error message (or a whole traceback) for what it
//! names: the sonames it mentions with their versions (`libcudnn.so.8`,
//! `libcudart.so.11.0`, Paddle's "(libcudnn.so)"), the undefined symbols,
//! Windows DLLs, and the known messages of `data/explain.toml`.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::data::catalog::CATALOG;

/// A known message (`[[message]]` of `data/explain.toml`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct KnownMessage {
    /// Lower-case substring that identifies it.
    #[serde(skip_serializing)]
    pub pattern: String,
    /// Which question explain asks of the environment.
    pub kind: String,
    /// One line.
    pub title: String,
    /// What it means, in general.
    pub explanation: String,
    /// The finding codes that can cause it.
    pub codes: Vec<String>,
    /// A library the message is about without naming it
    /// ("Cannot load cudnn shared library": Paddle's libcudnn.so).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// Where this comes from.
    pub source: String,
}

/// Which library exports symbols of a prefix (`[[symbol]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SymbolPrefix {
    prefix: String,
    lib: String,
    #[allow(dead_code)] // for reviewers
    source: String,
}

/// A function whose presence depends on the library's version
/// (`[[symbol_fact]]`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolFact {
    /// The function.
    pub name: String,
    /// The catalogue component that exports it.
    pub lib: String,
    /// A conda version spec of the library versions that export it.
    pub exported_by: String,
    /// What that means.
    pub note: String,
    /// Where this comes from.
    pub source: String,
}

/// The one soname every release of a library major has (`[[soname]]`):
/// a message naming another (`libcudart.so.11.6`) was retyped.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SonameFact {
    /// The catalogue component.
    pub lib: String,
    /// The major.
    pub major: u32,
    /// Its soname.
    pub soname: String,
    /// What that means.
    pub note: String,
    /// Where this comes from.
    #[allow(dead_code)] // for reviewers
    source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExplainFile {
    message: Vec<KnownMessage>,
    symbol: Vec<SymbolPrefix>,
    symbol_fact: Vec<SymbolFact>,
    soname: Vec<SonameFact>,
}

static DATA: LazyLock<ExplainFile> = LazyLock::new(|| {
    toml::from_str(include_str!("../../data/explain.toml"))
        .expect("data/explain.toml is checked by the test suite")
});

/// Something a message names.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Clue {
    /// A shared library: `libcudnn.so.8`.
    Library {
        /// As written.
        name: String,
        /// The catalogue component (`cudnn`), when known.
        component: Option<String>,
        /// The soname's major (`8`; `11` for `libcudart.so.11.0`).
        major: Option<u32>,
    },
    /// `undefined symbol: cudnnSetRNNDescriptor_v8`.
    Symbol {
        /// The function.
        name: String,
        /// The component that exports it, from its prefix.
        component: Option<String>,
    },
    /// A Windows DLL: `cudnn64_8.dll`.
    Dll {
        /// As written.
        name: String,
    },
}

/// What a message says: the known messages it matches, and what it names.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Reading {
    /// Known messages matched (every one that does).
    pub known: Vec<KnownMessage>,
    /// Libraries, symbols, DLLs named, in order.
    pub clues: Vec<Clue>,
}

/// The tokens of a message: words between spaces, quotes, brackets, colons
/// and commas.
fn tokens(message: &str) -> impl Iterator<Item = &str> {
    message
        .split(|c: char| {
            c.is_whitespace() || matches!(c, ':' | '(' | ')' | '"' | '\'' | ',' | '[' | ']' | '`')
        })
        .map(|t| t.trim_end_matches('.'))
        .filter(|t| !t.is_empty())
}

/// `libcudnn.so.8` -> its component and major.
fn library(name: &str) -> Clue {
    let major = name
        .split_once(".so.")
        .and_then(|(_, v)| v.split('.').next()?.parse().ok());
    Clue::Library {
        name: name.to_string(),
        component: CATALOG.library_component(name).map(String::from),
        major,
    }
}

/// The component a symbol's prefix names (the longest prefix wins).
fn symbol_component(symbol: &str) -> Option<String> {
    DATA.symbol
        .iter()
        .filter(|s| symbol.starts_with(&s.prefix))
        .max_by_key(|s| s.prefix.len())
        .map(|s| s.lib.clone())
}

/// What is known of a symbol, if anything.
pub fn symbol_fact(symbol: &str) -> Option<&'static SymbolFact> {
    DATA.symbol_fact.iter().find(|f| f.name == symbol)
}

/// The real soname of a library name no release has: `libcudart.so.11.6`
/// -> the fact that CUDA 11's runtime is `libcudart.so.11.0`.
pub fn soname_fact(
    name: &str,
    component: Option<&str>,
    major: Option<u32>,
) -> Option<&'static SonameFact> {
    DATA.soname.iter().find(|s| {
        Some(s.lib.as_str()) == component
            && Some(s.major) == major
            && s.soname != name
            && name.starts_with(&format!(
                "{}.",
                s.soname.rsplit_once('.').map_or("", |(a, _)| a)
            ))
    })
}

/// Read a message.
pub fn read(message: &str) -> Reading {
    let lower = message.to_lowercase();
    let mut reading = Reading {
        known: DATA
            .message
            .iter()
            .filter(|m| lower.contains(&m.pattern))
            .cloned()
            .collect(),
        clues: Vec::new(),
    };
    let mut push = |clue: Clue| {
        if !reading.clues.contains(&clue) {
            reading.clues.push(clue);
        }
    };
    let words: Vec<&str> = tokens(message).collect();
    for (i, word) in words.iter().enumerate() {
        if word.starts_with("lib") && (word.ends_with(".so") || word.contains(".so.")) {
            push(library(word));
        } else if word.to_lowercase().ends_with(".dll") {
            push(Clue::Dll {
                name: word.to_string(),
            });
        } else if *word == "symbol"
            && i > 0
            && words[i - 1].eq_ignore_ascii_case("undefined")
            && let Some(symbol) = words.get(i + 1)
        {
            push(Clue::Symbol {
                name: symbol.to_string(),
                component: symbol_component(symbol),
            });
        }
    }
    for known in &reading.known.clone() {
        if let Some(lib) = &known.library {
            push(library(lib));
        }
    }
    reading
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_parses() {
        assert!(DATA.message.len() >= 10);
        for m in &DATA.message {
            assert_eq!(m.pattern, m.pattern.to_lowercase(), "{}", m.pattern);
            assert!(!m.source.is_empty());
        }
        for f in &DATA.symbol_fact {
            assert!(
                crate::data::matrix::version("8").is_some()
                    && rattler_conda_types::VersionSpec::from_str(
                        &f.exported_by,
                        rattler_conda_types::ParseStrictness::Strict
                    )
                    .is_ok(),
                "{}",
                f.name
            );
        }
    }

    #[test]
    fn sonames_symbols_and_dlls() {
        let r = read(
            "OSError: libcudnn.so.8: cannot open shared object file: No such file or directory",
        );
        assert_eq!(
            r.clues,
            vec![Clue::Library {
                name: "libcudnn.so.8".into(),
                component: Some("cudnn".into()),
                major: Some(8)
            }]
        );
        assert_eq!(r.known[0].kind, "not-found");
        let r = read("ImportError: libcudart.so.11.0: cannot open shared object file");
        assert!(matches!(
            &r.clues[0],
            Clue::Library {
                major: Some(11),
                ..
            }
        ));
        let r = read(
            "The third-party dynamic library (libcudnn.so) that Paddle depends on is not configured correctly. (error code is libcudnn.so: cannot open shared object file)",
        );
        assert_eq!(r.known.len(), 2);
        assert!(matches!(&r.clues[0], Clue::Library { major: None, .. }));
        let r = read(
            "RuntimeError: Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.",
        );
        assert!(matches!(&r.clues[0], Clue::Library { name, .. } if name == "libcudnn.so"));
        let r = read("ImportError: /x/libpaddle.so: undefined symbol: cudnnSetRNNDescriptor_v8");
        assert!(r.clues.contains(&Clue::Symbol {
            name: "cudnnSetRNNDescriptor_v8".into(),
            component: Some("cudnn".into())
        }));
        let r = read(
            "OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\\\x\\\\cudnn64_8.dll\"",
        );
        assert_eq!(r.known[0].kind, "windows");
        assert!(r.clues.iter().any(|c| matches!(c, Clue::Dll { .. })));
        assert!(
            read("Segmentation fault (core dumped)")
                .known
                .iter()
                .all(|k| k.kind == "crash")
        );
        assert!(read("hello").known.is_empty());
    }
}
