//! Reading a pasted error message (or a whole traceback) for what it
//! names: the sonames it mentions with their versions (`libcudnn.so.8`,
//! `libcudart.so.11.0`, Paddle's "(libcudnn.so)"), the undefined symbols,
//! Windows DLLs, and the known messages of `data/explain.toml`.

use std::collections::HashSet;
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
    pub kind: MessageKind,
    /// One line.
    pub title: String,
    /// What it means, in general.
    pub explanation: String,
    /// The finding codes that can cause it.
    pub codes: Vec<crate::finding::Code>,
    /// A library the message is about without naming it
    /// ("Cannot load cudnn shared library": Paddle's libcudnn.so).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// The catalogue component a message is about without naming a file
    /// ("Unable to load cuDNN"; "CUBLAS_STATUS_NOT_INITIALIZED").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// The components are the ones the message names in JAX's "Unable to
    /// load cuSPARSE. Is it installed?" ([`super::named::components`]).
    #[serde(default, skip_serializing)]
    pub names_component: bool,
    /// Which version numbers the message carries (`driver-api`, `cudnn`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode: Option<String>,
    /// A summary line: dropped when a row of the same kind that is not
    /// generic matches the same paste (the specific line decides).
    #[serde(default, skip_serializing)]
    pub generic: bool,
    /// Who prints it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub framework: Option<String>,
    /// For a cause outside the environment, the command that finds or
    /// removes it, or the choices where there is no one command.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<crate::finding::Fix>,
    /// What of the machine the environment is measured against (`driver`,
    /// `gpu`): explain states what the environment needs of it, and where
    /// envhook cannot see it here, how to name the one that printed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measures: Option<Measures>,
    /// The releases that print it, where the source tells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub releases: Option<String>,
    /// For a message whose cause is never the environment
    /// ([`KnownMessage::not_environment`]): what to look at instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub look: Option<String>,
    /// Where this comes from.
    pub source: String,
}

/// Which question explain asks of the environment for a known message
/// (`kind` of a `[[message]]` row): a closed vocabulary, so a row of
/// data/explain.toml with another kind fails when the file is read, and a
/// misspelt kind in the code does not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MessageKind {
    /// A framework without its CUDA backend (a CPU build).
    CpuBuild,
    /// A crash in native code.
    Crash,
    /// CUPTI refused for want of privileges.
    CuptiPrivileges,
    /// The driver, measured against what the environment needs.
    Driver,
    /// A warning that means nothing is wrong.
    HarmlessWarning,
    /// jax and jaxlib that do not go together.
    JaxPair,
    /// A kernel's fault (an illegal memory access, a device-side assert).
    KernelFault,
    /// No code for the GPU ("no kernel image").
    KernelImage,
    /// A library the framework could not load (JAX's "Unable to load").
    Library,
    /// NCCL failing in a system call.
    Nccl,
    /// No GPU seen.
    NoDevice,
    /// A library not found.
    NotFound,
    /// The GPU out of memory.
    OutOfMemory,
    /// Paddle's cuDNN version warning.
    PaddleCudnn,
    /// Paddle's dynamic loader failing on a library.
    PaddleDynload,
    /// XLA's ptxas warnings.
    Ptxas,
    /// A CUDA library's call or handle failing with its status code.
    Status,
    /// A library loaded in another version than its caller was built
    /// against (an undefined symbol).
    Symbol,
    /// triton's "libcuda.so cannot found".
    TritonLibcuda,
    /// An error in the user's code.
    UserCode,
    /// A version the process loaded, against the one it was built with
    /// or needs.
    Version,
    /// Windows could not load a DLL.
    Windows,
}

/// What of the machine a message measures the environment against
/// (`measures` of a `[[message]]` row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Measures {
    /// The driver ("driver version is insufficient").
    Driver,
    /// The GPU ("no kernel image is available").
    Gpu,
}

/// The kinds of message whose cause is never the environment: the GPU out
/// of memory, a kernel's fault, an error in the user's code, a harmless
/// warning. explain says what they are and installs nothing.
pub const NOT_ENVIRONMENT: &[MessageKind] = &[
    MessageKind::OutOfMemory,
    MessageKind::KernelFault,
    MessageKind::UserCode,
    MessageKind::HarmlessWarning,
];

impl KnownMessage {
    /// Whether the message is of a kind no environment causes.
    pub fn not_environment(&self) -> bool {
        NOT_ENVIRONMENT.contains(&self.kind)
    }
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
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
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
    /// A library the message is about by its name in words ("Unable to
    /// load cuDNN", "CUBLAS_STATUS_NOT_INITIALIZED").
    Component {
        /// The catalogue component.
        component: String,
    },
    /// Versions the message states, decoded: torch's driver API version
    /// (12020 is CUDA 12.2), JAX's and XLA's cuDNN versions.
    Version {
        /// `driver` (the CUDA the driver supports) or a catalogue component.
        component: String,
        /// The version the process found, `X.Y` or `X.Y.Z`.
        found: String,
        /// The version the framework was built against, when it says.
        #[serde(skip_serializing_if = "Option::is_none")]
        built: Option<String>,
    },
    /// The GPUs the process could see: none.
    Devices,
    /// JAX's CUDA backend (its `jax-cudaNN-plugin`), which it did not find.
    CudaBackend,
    /// jax and jaxlib of versions jax refuses together.
    JaxPair {
        /// jax's version, where the message says it.
        #[serde(skip_serializing_if = "Option::is_none")]
        jax: Option<String>,
        /// jaxlib's.
        jaxlib: String,
        /// The least jaxlib that jax accepts, where the message says it.
        #[serde(skip_serializing_if = "Option::is_none")]
        minimum: Option<String>,
    },
    /// What the environment needs of the machine's `driver` or `gpu`.
    Machine {
        /// The driver or the GPU.
        measures: Measures,
    },
}

/// The longest library, symbol or DLL name explain answers for: sonames
/// are short, and C++ symbols a few hundred bytes. A longer one (a paste
/// cut mid-line, a hostile one) is echoed once, clipped, and not looked up.
pub const MAX_NAME: usize = 1024;

impl Clue {
    /// The library, symbol or DLL name the clue carries.
    pub fn name(&self) -> Option<&str> {
        match self {
            Clue::Library { name, .. } | Clue::Symbol { name, .. } | Clue::Dll { name } => {
                Some(name)
            }
            _ => None,
        }
    }

    /// The clue with its name clipped for echoing ([`crate::inventory::clip`]).
    pub fn clipped(&self) -> Clue {
        let mut c = self.clone();
        if let Clue::Library { name, .. } | Clue::Symbol { name, .. } | Clue::Dll { name } = &mut c
        {
            *name = crate::inventory::clip(name);
        }
        c
    }

    /// What the clue names, for a person.
    pub fn label(&self) -> String {
        match self {
            Clue::Library { name, .. } | Clue::Symbol { name, .. } | Clue::Dll { name } => {
                name.clone()
            }
            Clue::Component { component } => super::numbers::component_name(component).to_string(),
            Clue::Version {
                component, found, ..
            } if component == "driver" => format!("the driver's CUDA {found}"),
            Clue::Version {
                component, found, ..
            } => format!("{} {found}", super::numbers::component_name(component)),
            Clue::Devices => "the GPUs this process sees".to_string(),
            Clue::CudaBackend => "JAX's CUDA plugin".to_string(),
            Clue::JaxPair { .. } => "jax and jaxlib".to_string(),
            Clue::Machine {
                measures: Measures::Driver,
            } => "the driver this environment needs".to_string(),
            Clue::Machine { .. } => "the GPUs this environment has code for".to_string(),
        }
    }
}

/// What a message says: the known messages it matches, and what it names.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Reading {
    /// Known messages matched (every one that does).
    pub known: Vec<KnownMessage>,
    /// Libraries, symbols, DLLs named, in order.
    pub clues: Vec<Clue>,
    /// How many more distinct libraries, symbols and DLLs the message
    /// names, past the first [`MAX_NAMED`], which are not answered.
    pub left_out: usize,
}

/// The most distinct libraries, symbols and DLLs a message is answered
/// for: a real log names a few (TensorFlow's, a line for each of nine
/// libraries), and each answer walks the environment, so a paste of
/// thousands gets its first ones answered and the rest counted, in time
/// and output that stay bounded.
pub const MAX_NAMED: usize = 16;

/// The clues of a reading as they are found: each kept once (a set, not
/// a scan of those kept), the message's names up to [`MAX_NAMED`].
#[derive(Default)]
struct Found {
    seen: HashSet<Clue>,
    clues: Vec<Clue>,
    named: usize,
    left_out: usize,
}

impl Found {
    /// A name the message holds (a library, symbol or DLL), counted
    /// against the cap.
    fn named(&mut self, clue: Clue) {
        if self.seen.contains(&clue) {
            return;
        }
        if self.named < MAX_NAMED {
            self.named += 1;
            self.clues.push(clue.clone());
        } else {
            self.left_out += 1;
        }
        self.seen.insert(clue);
    }

    /// What a matched row names: a few per row, never capped.
    fn of_row(&mut self, clue: Clue) {
        if self.seen.insert(clue.clone()) {
            self.clues.push(clue);
        }
    }
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
    let matched: Vec<&KnownMessage> = DATA
        .message
        .iter()
        .filter(|m| lower.contains(&m.pattern))
        .collect();
    // A summary line gives way to the specific line of its kind before it
    // (TF's "Could not load dynamic library 'libcudnn.so.9'" over "Cannot
    // dlopen some GPU libraries").
    let known: Vec<KnownMessage> = matched
        .iter()
        .filter(|m| {
            !m.generic
                || !matched
                    .iter()
                    .any(|o| !o.generic && o.kind == m.kind && o.pattern != m.pattern)
        })
        .map(|m| (*m).clone())
        .collect();
    let text = decisive(message, &known);
    let mut found = Found::default();
    let words: Vec<&str> = tokens(&text).collect();
    for (i, word) in words.iter().enumerate() {
        if word.starts_with("lib") && (word.ends_with(".so") || word.contains(".so.")) {
            found.named(library(word));
        } else if word.to_lowercase().ends_with(".dll") {
            found.named(Clue::Dll {
                name: word.to_string(),
            });
        } else if *word == "symbol"
            && i > 0
            && words[i - 1].eq_ignore_ascii_case("undefined")
            && let Some(symbol) = words.get(i + 1)
        {
            found.named(Clue::Symbol {
                name: symbol.to_string(),
                component: symbol_component(symbol),
            });
        }
    }
    for row in &known {
        for clue in of_row(row, &lower) {
            found.of_row(clue);
        }
    }
    Reading {
        known,
        clues: found.clues,
        left_out: found.left_out,
    }
}

/// What a matched row names without the message naming it: its library or
/// component, the versions it carries, the question it asks of the machine.
fn of_row(known: &KnownMessage, lower: &str) -> Vec<Clue> {
    let mut out = Vec::new();
    if let Some(lib) = &known.library {
        out.push(library(lib));
    }
    if let Some(component) = &known.component {
        out.push(Clue::Component {
            component: component.clone(),
        });
    }
    if known.names_component {
        out.extend(
            super::named::components(lower)
                .into_iter()
                .map(|component| Clue::Component { component }),
        );
    }
    let decoded = known
        .decode
        .as_deref()
        .map(|d| super::numbers::versions(d, lower));
    out.extend(decoded.into_iter().flatten().map(|v| Clue::Version {
        component: v.component,
        found: v.found,
        built: v.built,
    }));
    if known.kind == MessageKind::NoDevice {
        out.push(Clue::Devices);
    }
    if known.kind == MessageKind::CpuBuild {
        out.push(Clue::CudaBackend);
    }
    if known.kind == MessageKind::JaxPair
        && let Some(p) = super::numbers::jax_pair(lower)
    {
        out.push(Clue::JaxPair {
            jax: p.jax,
            jaxlib: p.jaxlib,
            minimum: p.minimum,
        });
    }
    if let Some(measures) = known.measures {
        out.push(Clue::Machine { measures });
    }
    out
}

/// The lines of a pasted log that decide: those a known row matches, when
/// the paste has several lines and some do; else the whole paste. A log
/// names libraries it loaded fine too ("Successfully opened dynamic library
/// libcudnn.so.8") and only the failing lines are about the error.
fn decisive(message: &str, known: &[KnownMessage]) -> String {
    let lines: Vec<&str> = message
        .lines()
        .filter(|l| {
            let l = l.to_lowercase();
            known.iter().any(|k| l.contains(&k.pattern))
        })
        .collect();
    if lines.is_empty() || message.lines().nth(1).is_none() {
        message.to_string()
    } else {
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind is some row's: a kind no row has is a question explain
    /// never asks. A kind spelt otherwise in the data fails to parse.
    #[test]
    fn every_message_kind_is_a_rows() {
        let kinds: Vec<String> = DATA
            .message
            .iter()
            .map(|m| serde_json::to_string(&m.kind).unwrap())
            .collect();
        for kind in [
            MessageKind::CpuBuild,
            MessageKind::Crash,
            MessageKind::CuptiPrivileges,
            MessageKind::Driver,
            MessageKind::HarmlessWarning,
            MessageKind::JaxPair,
            MessageKind::KernelFault,
            MessageKind::KernelImage,
            MessageKind::Library,
            MessageKind::Nccl,
            MessageKind::NoDevice,
            MessageKind::NotFound,
            MessageKind::OutOfMemory,
            MessageKind::PaddleCudnn,
            MessageKind::PaddleDynload,
            MessageKind::Ptxas,
            MessageKind::Status,
            MessageKind::Symbol,
            MessageKind::TritonLibcuda,
            MessageKind::UserCode,
            MessageKind::Version,
            MessageKind::Windows,
        ] {
            let name = serde_json::to_string(&kind).unwrap();
            assert!(kinds.contains(&name), "no row of kind {name}");
        }
        // The shipped file with one kind misspelt no longer parses.
        let text = include_str!("../../data/explain.toml");
        assert!(text.contains("kind = \"not-found\""));
        let bad = text.replacen("kind = \"not-found\"", "kind = \"not-fuond\"", 1);
        assert!(toml::from_str::<ExplainFile>(&bad).is_err());
    }

    #[test]
    fn the_data_parses() {
        assert!(DATA.message.len() >= 10);
        for m in &DATA.message {
            assert_eq!(m.pattern, m.pattern.to_lowercase(), "{}", m.pattern);
            assert!(!m.source.is_empty());
            // What to look at is what such a row says instead of a cause,
            // and only such a row says it.
            assert_eq!(m.not_environment(), m.look.is_some(), "{}", m.pattern);
            assert!(!m.not_environment() || m.codes.is_empty(), "{}", m.pattern);
        }
        for f in &DATA.symbol_fact {
            assert!(
                crate::data::matrix::version("8").is_some()
                    && rattler_conda_version::VersionSpec::from_str(
                        &f.exported_by,
                        rattler_conda_version::ParseStrictness::Strict
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
        assert_eq!(r.known[0].kind, MessageKind::NotFound);
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
        assert_eq!(r.known[0].kind, MessageKind::Windows);
        assert!(r.clues.iter().any(|c| matches!(c, Clue::Dll { .. })));
        assert!(
            read("Segmentation fault (core dumped)")
                .known
                .iter()
                .all(|k| k.kind == MessageKind::Crash)
        );
        assert!(read("hello").known.is_empty());
    }

    /// Each name once, however often it is repeated; the first
    /// `MAX_NAMED` distinct ones kept and the rest counted, the rows'
    /// clues kept after them (#38).
    #[test]
    fn names_kept_once_and_capped() {
        let log: String = (0..3)
            .flat_map(|_| {
                (0..MAX_NAMED + 4)
                    .map(|i| format!("libm{i}.so.1: cannot open shared object file\n"))
            })
            .collect();
        let r = read(&log);
        assert_eq!(r.clues.len(), MAX_NAMED);
        assert_eq!(r.left_out, 4);
        assert_eq!(r.clues[0].name(), Some("libm0.so.1"));
        let r = read("libx.so.1: CUBLAS_STATUS_NOT_INITIALIZED");
        assert_eq!(r.left_out, 0);
        assert!(r.clues.iter().any(|c| matches!(c, Clue::Component { .. })));
    }

    /// TF prints the failing library's line before its summary, between
    /// lines about libraries that loaded: the failing line decides (#29).
    #[test]
    fn the_decisive_line_of_a_log() {
        let log = "I tensorflow/tsl/platform/default/dso_loader.cc:53] Successfully opened dynamic library libcudart.so.12\n\
                   W dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.9'; dlerror: libcudnn.so.9: cannot open shared object file: No such file or directory\n\
                   W gpu_device.cc:2256] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly";
        let r = read(log);
        let patterns: Vec<&str> = r.known.iter().map(|k| k.pattern.as_str()).collect();
        assert_eq!(patterns, ["could not load dynamic library '"]);
        assert_eq!(r.clues.len(), 1, "{:?}", r.clues);
        assert!(matches!(&r.clues[0], Clue::Library { name, .. } if name == "libcudnn.so.9"));
        // The summary alone still counts.
        let r = read("Cannot dlopen some GPU libraries. Skipping registering GPU devices...");
        assert_eq!(r.known.len(), 1);
        assert!(r.known[0].generic);
    }
}
