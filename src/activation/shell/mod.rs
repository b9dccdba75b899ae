//! Everything that knows shell syntax: the hook templates in `hooks/`, the
//! quoting of values into them, and the ownership header. No other module
//! writes shell text.
//!
//! Templates are real scripts (they pass `sh -n`, `fish --no-execute`,
//! shellcheck and the PowerShell parser as they are) with placeholders that
//! are plain words: `__ENVHOOK_DIRS__` and the like become a quoted literal
//! of the dialect, `__ENVHOOK_ID__` (inside variable names) becomes the
//! environment's hex id, and the line `# __ENVHOOK_HEADER__` becomes the
//! ownership header. Values are always quoted the same way, whatever they
//! hold.

mod copy;
pub mod export;
pub mod messages;
pub mod quote;
pub mod venv;

use std::fmt;
use std::path::Path;

use serde::Serialize;

/// A shell family with its own hook file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// POSIX sh: sourced by bash, zsh, dash, busybox sh, and by xonsh via
    /// `source-bash` (conda and rattler pick `*.sh` for all of them).
    Posix,
    /// fish (`*.fish`).
    Fish,
    /// PowerShell (`*.ps1`).
    Powershell,
    /// tcsh and csh (`*.csh`, sourced by conda's `conda.csh`).
    Csh,
}

impl Dialect {
    /// Every dialect, in the order hooks are written: `install`'s default
    /// (its `--shells` default names them; a test holds the two together)
    /// and what `audit --fix` writes.
    pub const ALL: [Dialect; 4] = [
        Dialect::Posix,
        Dialect::Fish,
        Dialect::Powershell,
        Dialect::Csh,
    ];

    /// The file extension conda, mamba and rattler match on.
    pub fn extension(self) -> &'static str {
        match self {
            Dialect::Posix => "sh",
            Dialect::Fish => "fish",
            Dialect::Powershell => "ps1",
            Dialect::Csh => "csh",
        }
    }

    /// Quote a value as a literal of this dialect.
    pub fn quote(self, s: &str) -> String {
        match self {
            Dialect::Posix => quote::posix(s),
            Dialect::Fish => quote::fish(s),
            Dialect::Powershell => quote::powershell(s),
            Dialect::Csh => quote::csh(s),
        }
    }

    /// Why this dialect cannot express hooks for these directories, if it
    /// cannot: csh edits values with `:s#...#` modifiers, where `#` cannot
    /// be written.
    pub fn unsupported(self, dirs: &[String]) -> Option<String> {
        match self {
            Dialect::Csh => dirs.iter().find(|d| !quote::csh_modifier_ok(d)).map(|d| {
                format!(
                    "{d} contains '#', which csh's string editing cannot express; \
                     no .csh hook is written (tcsh and csh users get none)"
                )
            }),
            _ => None,
        }
    }

    fn template(self, phase: Phase) -> &'static str {
        match (self, phase) {
            (Dialect::Posix, Phase::Activate) => include_str!("../../../hooks/activate.sh"),
            (Dialect::Posix, Phase::Deactivate) => include_str!("../../../hooks/deactivate.sh"),
            (Dialect::Fish, Phase::Activate) => include_str!("../../../hooks/activate.fish"),
            (Dialect::Fish, Phase::Deactivate) => include_str!("../../../hooks/deactivate.fish"),
            (Dialect::Powershell, Phase::Activate) => include_str!("../../../hooks/activate.ps1"),
            (Dialect::Powershell, Phase::Deactivate) => {
                include_str!("../../../hooks/deactivate.ps1")
            }
            (Dialect::Csh, Phase::Activate) => include_str!("../../../hooks/activate.csh"),
            (Dialect::Csh, Phase::Deactivate) => include_str!("../../../hooks/deactivate.csh"),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Posix => "sh",
            Dialect::Fish => "fish",
            Dialect::Powershell => "powershell",
            Dialect::Csh => "csh",
        })
    }
}

impl std::str::FromStr for Dialect {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "sh" | "posix" | "bash" | "zsh" | "dash" => Ok(Dialect::Posix),
            "fish" => Ok(Dialect::Fish),
            "powershell" | "pwsh" | "ps1" => Ok(Dialect::Powershell),
            "csh" | "tcsh" => Ok(Dialect::Csh),
            other => Err(format!(
                "unknown shell '{other}' (expected sh, bash, zsh, fish, powershell or csh)"
            )),
        }
    }
}

/// bash's completion registration (`hooks/completion.bash`), calling
/// `completer` (any path: quoted here) for candidates.
pub fn bash_completion(completer: &str) -> String {
    substitute(include_str!("../../../hooks/completion.bash"), |token| {
        Some(match token {
            "COMPLETER" => quote::posix(completer),
            _ => return None,
        })
    })
}

/// Which of the two hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// `etc/conda/activate.d`.
    Activate,
    /// `etc/conda/deactivate.d`.
    Deactivate,
}

impl Phase {
    /// The directory name under `etc/conda`.
    pub fn dir_name(self) -> &'static str {
        match self {
            Phase::Activate => "activate.d",
            Phase::Deactivate => "deactivate.d",
        }
    }

    /// The directory relative to the prefix.
    pub fn rel_dir(self) -> &'static str {
        match self {
            Phase::Activate => "etc/conda/activate.d",
            Phase::Deactivate => "etc/conda/deactivate.d",
        }
    }
}

/// The first line of every file envhook writes: how it recognises its own
/// files, so that it replaces or removes those and nothing else.
pub const OWNER_MARK: &str = "# envhook:owned";

/// The state the activate hooks of every dialect keep, in the variables
/// they name after the environment's `id` (`ENVHOOK_STATE_<id>`, `_SAVED_`,
/// `_APPLIED_`), for a process that gets `applied` as `LD_LIBRARY_PATH`
/// without running a hook (`envhook run`): whether the value `before` was
/// set, that value, and what was applied. The deactivate hook then puts
/// `before` back byte for byte, as after a hook's own activation.
pub fn saved_state(
    id: &str,
    before: Option<&std::ffi::OsStr>,
    applied: &std::ffi::OsStr,
) -> [(String, std::ffi::OsString); 3] {
    let state = if before.is_some() { "set" } else { "unset" };
    [
        (format!("ENVHOOK_STATE_{id}"), state.into()),
        (
            format!("ENVHOOK_SAVED_{id}"),
            before.unwrap_or_default().to_os_string(),
        ),
        (format!("ENVHOOK_APPLIED_{id}"), applied.to_os_string()),
    ]
}

/// Whether a file's text starts with envhook's ownership mark.
pub fn is_owned(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|l| l.starts_with(OWNER_MARK))
}

/// What one pair of hooks is rendered from. Strings are the values
/// themselves; quoting happens here.
#[derive(Debug, Clone)]
pub struct HookValues<'a> {
    /// Hex id of the environment, used in variable names.
    pub id: &'a str,
    /// The directories to put first on `LD_LIBRARY_PATH`, in order.
    pub dirs: &'a [String],
    /// The `conda-meta` directory: every conda, mamba or pixi transaction
    /// adds or removes a record there, so its time says whether one
    /// happened since the hooks were written.
    pub conda_meta: &'a str,
    /// The activate script itself (its mtime is the install time).
    pub self_path: &'a str,
    /// pip dist-info directories whose disappearance means the hook is
    /// stale (the records it was made from are covered by `conda_meta`).
    pub watch: &'a [String],
    /// Printed (to stderr) on activation when stale.
    pub stale_message: &'a str,
    /// The environment's prefix (conda rewrites it in a copy).
    pub prefix: &'a str,
    /// The printf format of the moved-or-copied warning, with `%s` for the
    /// new prefix, the origin and the new prefix quoted for pasting
    /// ([`crate::activation::shell::messages::moved_message`] writes the same text).
    pub moved_format: &'a str,
    /// Printed when the state under the hook's key belongs to another copy.
    pub foreign_message: &'a str,
    /// Comment lines at the end of the hook: what it was written from
    /// (see [`crate::activation::status::installed`]).
    pub header: &'a [String],
    /// What a copy of the environment made without conda holds, relative
    /// to its prefix (from `/`): the hook itself (a file), then the link
    /// directory the hooks were written with (or, without one, the
    /// directories they expose). See `copy.rs`.
    pub copy_marks: &'a [String],
}

/// Render one hook. Values must not contain `:` in `dirs`/`watch` elements
/// (they are `:`-joined), nor newlines in `header` lines; the caller
/// ([`crate::activation::spec`]) refuses such prefixes.
pub fn render(dialect: Dialect, phase: Phase, v: &HookValues<'_>) -> String {
    let text = render_full(dialect, phase, v);
    match dialect {
        // The shells parse what they source, comments included, on every
        // activation: the rendered hook keeps the ownership mark, the
        // details at its end (what `check` reads, after the last command,
        // so never parsed on the way to a `return`) and shellcheck's
        // directives, and leaves the explanations to the templates in
        // hooks/.
        Dialect::Posix | Dialect::Fish | Dialect::Csh => strip_comments(&text, 1 + v.header.len()),
        Dialect::Powershell => text,
    }
}

/// `text` without comment lines and blank lines, except its first line
/// (the ownership mark), its last `details` lines and `# shellcheck`
/// directives. Hooks hold no multi-line literals (values with line breaks
/// are refused), so a line whose first non-blank character is `#` is a
/// comment.
fn strip_comments(text: &str, details: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let kept_tail = text.lines().count().saturating_sub(details);
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let comment = t.starts_with('#') && !t.starts_with("# shellcheck");
        if i == 0 || i >= kept_tail || !(comment || t.is_empty()) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn render_full(dialect: Dialect, phase: Phase, v: &HookValues<'_>) -> String {
    debug_assert!(v.id.bytes().all(|b| b.is_ascii_hexdigit()));
    substitute(dialect.template(phase), |token| value(dialect, v, token))
}

/// What a placeholder of a hook template becomes.
fn value(dialect: Dialect, v: &HookValues<'_>, token: &str) -> Option<String> {
    let q = |s: &str| dialect.quote(s);
    Some(match token {
        "HEADER" => header_text(),
        "DETAILS" => details_text(v, INSTALLED),
        "ID" => v.id.to_string(),
        "DIRS" => q(&v.dirs.join(":")),
        "CONDA_META" => q(v.conda_meta),
        // csh only: whether tcsh can glob under the records' directory
        // (not with non-ASCII characters in it, under a UTF-8 locale).
        "GLOBBABLE" => u8::from(v.conda_meta.is_ascii()).to_string(),
        "SELF" => q(v.self_path),
        "WATCH" => q(&v.watch.join(":")),
        // POSIX only: `case` patterns matching any of our directories.
        "DIR_PATTERNS" => v
            .dirs
            .iter()
            .map(|d| format!("*{}*", quote::posix(&format!(":{d}:"))))
            .collect::<Vec<_>>()
            .join(" | "),
        // csh only: one existence test per watched file.
        "WATCH_TESTS" => v
            .watch
            .iter()
            .map(|w| format!("if ( ! -e {} ) set _envhook_stale = 1", q(w)))
            .collect::<Vec<_>>()
            .join("\n    "),
        "FRESH" => posix_fresh(v.watch),
        "UNCHANGED" => posix_unchanged(v),
        "STALE_MESSAGE" => q(v.stale_message),
        "PREFIX" => q(v.prefix),
        "ORIGIN" => origin(dialect, v.prefix),
        "MOVED_FORMAT" => q(v.moved_format),
        "COPY_MARKS" => copy::marks(dialect, v.copy_marks),
        "COPY_DIRS" => copy::dirs(dialect, v.dirs, v.prefix),
        "FOREIGN_MESSAGE" => q(v.foreign_message),
        // csh: the prefix as a `:s` modifier's text, and the moved
        // warning's pieces around the two prefixes (csh has no printf).
        "PREFIX_EDIT" => quote::csh_modifier(v.prefix),
        "MOVED_PREFIX" => q(crate::activation::shell::messages::MOVED_LEAD),
        "MOVED_MIDDLE" => q(crate::activation::shell::messages::MOVED_MIDDLE),
        // The hooks append the prefix, quoted for pasting, themselves.
        "MOVED_SUFFIX" => q(crate::activation::shell::messages::MOVED_TAIL),
        "STRIP" => match dialect {
            Dialect::Csh => csh_strip(v.dirs, v.prefix),
            _ => fragment(dialect, Fragment::Strip),
        },
        // The key fragment's own placeholders are the template's.
        "KEY" => substitute(&fragment(dialect, Fragment::Key), |t| value(dialect, v, t)),
        _ => return None,
    })
}

/// POSIX: one `test` true when every watched record and dist-info is
/// still there (`:` when none is watched); the records' times are looked
/// at apart.
fn posix_fresh(watch: &[String]) -> String {
    if watch.is_empty() {
        return ":".to_string();
    }
    let tests: Vec<String> = watch
        .iter()
        .map(|w| format!("-e {}", quote::posix(w)))
        .collect();
    format!("[ {} ]", tests.join(" -a "))
}

/// POSIX: `test` operands true when no entry was added to or removed from
/// conda-meta/ or a watched dist-info's directory since the hook was
/// written. That implies FRESH (the watched dist-infos existed then), with
/// one pair of paths per directory instead of one path per package.
fn posix_unchanged(v: &HookValues<'_>) -> String {
    let self_path = quote::posix(v.self_path);
    let mut dirs = vec![v.conda_meta];
    for w in v.watch {
        if let Some(parent) = Path::new(w).parent().and_then(Path::to_str)
            && !dirs.contains(&parent)
        {
            dirs.push(parent);
        }
    }
    dirs.iter()
        .map(|d| format!("! {} -nt {self_path}", quote::posix(d)))
        .collect::<Vec<_>>()
        .join(" -a ")
}

/// The prefix as conda's rewriting cannot match it: its first character
/// and the rest as two adjacent literals (one word), so the raw bytes of
/// the prefix never appear.
fn origin(dialect: Dialect, prefix: &str) -> String {
    let split = prefix
        .char_indices()
        .nth(1)
        .map_or(prefix.len(), |(i, _)| i);
    let (first, rest) = prefix.split_at(split);
    match dialect {
        Dialect::Powershell => format!("({} + {})", dialect.quote(first), dialect.quote(rest)),
        _ => format!("{}{}", dialect.quote(first), dialect.quote(rest)),
    }
}

/// `hooks/strip.csh` with one `:as` edit per directory of ours.
fn csh_strip(dirs: &[String], prefix: &str) -> String {
    substitute(&fragment(Dialect::Csh, Fragment::Strip), |token| {
        (token == "DIR_EDITS").then(|| {
            dirs.iter()
                .map(|d| copy::csh_edit(d, prefix))
                .collect::<Vec<_>>()
                .join("\n    ")
        })
    })
}

/// A piece of code shared by several hooks of one dialect, kept in a file
/// of its own in `hooks/` and rendered where a template says
/// `# __ENVHOOK_STRIP__` or `# __ENVHOOK_KEY__`, so every hook stays one
/// file. The template line keeps its `# `, so the text starts after the
/// fragment's own first `# `.
#[derive(Clone, Copy)]
enum Fragment {
    /// Strips our directories and empty elements from `LD_LIBRARY_PATH`
    /// (`strip.*`), in linear time.
    Strip,
    /// The prefix, the state's key and the state (`key.*`).
    Key,
}

fn fragment(dialect: Dialect, which: Fragment) -> String {
    let text = match (dialect, which) {
        (Dialect::Posix, Fragment::Strip) => include_str!("../../../hooks/strip.sh"),
        (Dialect::Fish, Fragment::Strip) => include_str!("../../../hooks/strip.fish"),
        // With a placeholder of its own; see csh_strip.
        (Dialect::Csh, Fragment::Strip) => include_str!("../../../hooks/strip.csh"),
        (Dialect::Posix, Fragment::Key) => include_str!("../../../hooks/key.sh"),
        (Dialect::Fish, Fragment::Key) => include_str!("../../../hooks/key.fish"),
        (Dialect::Csh, Fragment::Key) => include_str!("../../../hooks/key.csh"),
        (Dialect::Powershell, _) => unreachable!("the PowerShell hooks are whole"),
    };
    text.strip_prefix("# ")
        .expect("hook fragments start with a comment")
        .trim_end()
        .to_string()
}

/// The ownership mark, the first line: the template line is
/// `# __ENVHOOK_HEADER__`, so the text starts after its `# `.
fn header_text() -> String {
    let mut header = OWNER_MARK.trim_start_matches("# ").to_string();
    // Short: shells read it on every activation.
    header.push_str(" -- generated, do not edit; see the end of this file");
    header
}

/// What the hook was written from, the last lines: the template's last
/// line is `# __ENVHOOK_DETAILS__`.
fn details_text(v: &HookValues<'_>, provenance: &str) -> String {
    let mut text = provenance.to_string();
    for line in v.header {
        debug_assert!(!line.contains('\n'));
        text.push_str("\n# ");
        text.push_str(line);
    }
    text
}

/// The first line of a hook's details: who writes it and what removes it.
const INSTALLED: &str =
    "written by envhook: `envhook install` rewrites it, `envhook uninstall` removes it";

/// Replace every `__ENVHOOK_<NAME>__` in `template` in one pass, so that a
/// value that happens to contain a placeholder's spelling (a prefix named
/// `__ENVHOOK_ID__`) is never substituted again. Panics on an unknown
/// placeholder: templates are part of the binary and tested.
fn substitute(template: &str, value: impl Fn(&str) -> Option<String>) -> String {
    const OPEN: &str = "__ENVHOOK_";
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + OPEN.len()..];
        let end = after.find("__").expect("placeholder is closed");
        let name = &after[..end];
        out.push_str(&value(name).unwrap_or_else(|| panic!("unknown placeholder {name}")));
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values<'a>(dirs: &'a [String], header: &'a [String]) -> HookValues<'a> {
        HookValues {
            id: "0123abcd",
            dirs,
            conda_meta: "/p/conda-meta",
            self_path: "/p/etc/conda/activate.d/envhook.sh",
            watch: &[],
            stale_message: "stale",
            prefix: "/p",
            moved_format: "%s %s %s\\n",
            foreign_message: "foreign",
            header,
            copy_marks: &[],
        }
    }

    #[test]
    fn every_placeholder_is_replaced() {
        let dirs = vec!["/p/lib/envhook/cuda".to_string()];
        let header = vec!["fingerprint abc".to_string()];
        for d in Dialect::ALL {
            for p in [Phase::Activate, Phase::Deactivate] {
                let text = render(d, p, &values(&dirs, &header));
                assert!(!text.contains("__ENVHOOK"), "{d} {p:?}");
                assert!(is_owned(&text), "{d} {p:?}");
                assert!(text.contains("0123abcd"), "{d} {p:?}");
                assert!(text.contains("# fingerprint abc"), "{d} {p:?}");
            }
        }
    }

    /// The fast path's freshness test names one path per directory, however
    /// many packages are watched; the general path's names each dist-info.
    #[test]
    fn the_fast_freshness_test_is_per_directory() {
        let dirs = vec!["/p/lib/envhook/cuda".to_string()];
        let watch: Vec<String> = [
            "/p/lib/python3.12/site-packages/nvidia_cudnn_cu12-9.1.0.70.dist-info",
            "/p/lib/python3.12/site-packages/nvidia_cublas_cu12-12.4.5.8.dist-info",
            "/p/lib/python3.12/site-packages/torch-2.5.1.dist-info",
            "/p/lib/python3.11/site-packages/torch-2.5.1.dist-info",
        ]
        .map(String::from)
        .to_vec();
        let mut v = values(&dirs, &[]);
        v.watch = &watch;
        let hook = "'/p/etc/conda/activate.d/envhook.sh'";
        assert_eq!(
            value(Dialect::Posix, &v, "UNCHANGED").unwrap(),
            format!(
                "! '/p/conda-meta' -nt {hook} -a ! '/p/lib/python3.12/site-packages' -nt {hook} \
                 -a ! '/p/lib/python3.11/site-packages' -nt {hook}"
            )
        );
        let fresh = value(Dialect::Posix, &v, "FRESH").unwrap();
        assert!(fresh.starts_with("[ -e "), "{fresh}");
        assert_eq!(fresh.matches(" -a -e ").count(), 3, "{fresh}");
    }

    #[test]
    fn values_are_never_substituted_twice() {
        let dirs = vec!["/p/__ENVHOOK_ID__/__ENVHOOK_SELF__".to_string()];
        let text = render(Dialect::Posix, Phase::Activate, &values(&dirs, &[]));
        assert!(
            text.contains("_envhook_dirs='/p/__ENVHOOK_ID__/__ENVHOOK_SELF__'"),
            "{text}"
        );
    }

    #[test]
    fn ownership_is_the_first_line_only() {
        assert!(is_owned("# envhook:owned -- x\nrest"));
        assert!(!is_owned("#!/bin/sh\n# envhook:owned"));
        assert!(!is_owned(""));
    }
}
