//! One quoting function per dialect. Each turns any string into a literal
//! that the shell reads back byte for byte, with nothing expanded: no `$`,
//! no backticks, no globbing, no history expansion. The form never depends
//! on the value (rattler_shell's choice of double quotes when a value holds
//! `$` is how its generated scripts end up running code).

/// POSIX sh (and bash, zsh, dash): single quotes, with `'` written as
/// `'\''`. Inside single quotes nothing is special, not even `\`. Defined
/// on the ground floor as [`crate::finding::quoted`]: the fix lines of
/// findings, built below this floor, are quoted by the same function.
pub fn posix(s: &str) -> String {
    crate::finding::quoted(s)
}

/// Apptainer's embedded interpreter (mvdan/sh), which runs definition
/// files' `%environment`: single quotes, with `'` written as `'"'"'`. Its
/// parser keeps the backslash of POSIX's `'\''` in an assignment's value
/// (`x='it'\''s'` gives `it\'s`), so a quote inside is closed, given in
/// double quotes, and reopened. The result is POSIX sh as well.
pub fn apptainer(s: &str) -> String {
    format!("'{}'", s.replace('\'', r#"'"'"'"#))
}

/// The inside of a Dockerfile double-quoted value (`ENV K="..."`): `\`,
/// `"` and `$` escaped with a backslash, Dockerfile's own escaping; the
/// caller writes the quotes and any `${VAR}` it means to expand.
pub fn dockerfile_inner(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '"' | '$') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// fish: single quotes, where only `\` and `'` are special and are
/// escaped with a backslash. (fish's single quotes are not POSIX's:
/// `\\` stands for one backslash, so POSIX quoting would change the value.)
pub fn fish(s: &str) -> String {
    format!("'{}'", s.replace('\\', r"\\").replace('\'', r"\'"))
}

/// PowerShell: a verbatim (single-quoted) string, where the only escape is
/// doubling the quote. PowerShell also takes the typographic single quotes
/// U+2018..U+201B as quote characters, so those are doubled too.
pub fn powershell(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}') {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// tcsh and csh: single quotes, where nothing is special but `'` (written
/// `'\''`, as in POSIX sh) and `!`, which csh history-expands even there
/// (even in a sourced file); `\!` is a literal `!`. Newlines cannot be
/// quoted in csh at all: the caller refuses them.
pub fn csh(s: &str) -> String {
    debug_assert!(!s.contains(['\n', '\r']));
    format!("'{}'", s.replace('\'', r"'\''").replace('!', r"\!"))
}

/// The text of a csh `:s#l#r#` modifier's `l`: taken literally by csh
/// (nothing expanded), except that `\` quotes the next character, so `\`,
/// `'`, `"` and `!` are escaped. The delimiter `#` cannot be escaped (a
/// `\#` there does not match); [`csh_modifier_ok`] says whether `s` can be
/// written at all.
pub fn csh_modifier(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if matches!(c, '\\' | '\'' | '"' | '!') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether [`csh_modifier`] can express `s`: no `#` (the delimiter), no
/// line break.
pub fn csh_modifier_ok(s: &str) -> bool {
    !s.contains(['#', '\n', '\r'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_quoting() {
        assert_eq!(posix("a b"), "'a b'");
        assert_eq!(posix("it's"), r"'it'\''s'");
        assert_eq!(posix("$(touch pwned)`x`;y\\"), "'$(touch pwned)`x`;y\\'");
        assert_eq!(posix(""), "''");
    }

    #[test]
    fn apptainer_quoting() {
        assert_eq!(apptainer("it's"), r#"'it'"'"'s'"#);
        assert_eq!(apptainer("\\'$(x)"), r#"'\'"'"'$(x)'"#);
        assert_eq!(apptainer(""), "''");
    }

    #[test]
    fn fish_quoting() {
        assert_eq!(fish("it's"), r"'it\'s'");
        assert_eq!(fish(r"a\b"), r"'a\\b'");
        assert_eq!(fish("$(x) (y) *"), "'$(x) (y) *'");
    }

    #[test]
    fn powershell_quoting() {
        assert_eq!(powershell("it's"), "'it''s'");
        assert_eq!(powershell("a\u{2019}b"), "'a\u{2019}\u{2019}b'");
        assert_eq!(powershell("$env:HOME `n $(x)"), "'$env:HOME `n $(x)'");
    }

    /// Strings that break naive quoting.
    fn nasty() -> Vec<String> {
        let mut v: Vec<String> = [
            "",
            " ",
            "a b",
            "it's",
            "''",
            "\\",
            "\\'",
            "'\\",
            "$HOME",
            "${HOME}",
            "$(touch pwned)",
            "`touch pwned`",
            "x;y",
            "a&&b",
            "a|b",
            "*",
            "?",
            "[a]",
            "{a,b}",
            "~",
            "~root",
            "!!",
            "!$",
            "#not a comment",
            "tab\there",
            "new\nline",
            "\r",
            "ünï кот 🐍",
            "%PATH%",
            "$env:PATH",
            "‘’‚‛",
            "(x)",
            "@(x)",
            "--",
            "-e",
            "a\\nb",
            "\"dq\"",
            "$",
            "\\$",
            "'\"'\"'",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Every printable ASCII character in one string.
        v.push((0x20u8..0x7f).map(char::from).collect());
        v
    }

    /// Run `printf '%s' <quoted>` in a real shell and return what it printed.
    fn echo_through(shell: &str, args: &[&str], quoted: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(shell)
            .args(args)
            .arg(format!("printf '%s' {quoted}"))
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .output()
            .unwrap_or_else(|e| panic!("{shell}: {e}"));
        assert!(
            out.status.success(),
            "{shell} {quoted}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!dir.path().join("pwned").exists(), "{shell} ran {quoted}");
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn posix_round_trips_in_real_shells() {
        for s in nasty() {
            let q = posix(&s);
            for (shell, args) in [
                ("bash", &["--norc", "-c"][..]),
                ("zsh", &["-f", "-c"]),
                ("dash", &["-c"]),
            ] {
                assert_eq!(echo_through(shell, args, &q), s, "{shell}: {q}");
            }
        }
    }

    /// tests/it/apptainer.rs runs it through mvdan/sh itself.
    #[test]
    fn apptainer_round_trips_in_real_shells() {
        for s in nasty() {
            let q = apptainer(&s);
            for (shell, args) in [("bash", &["--norc", "-c"][..]), ("dash", &["-c"])] {
                assert_eq!(echo_through(shell, args, &q), s, "{shell}: {q}");
            }
        }
    }

    #[test]
    fn fish_round_trips_in_real_fish() {
        for s in nasty() {
            let q = fish(&s);
            assert_eq!(echo_through("fish", &["--no-config", "-c"], &q), s, "{q}");
        }
    }

    #[test]
    fn posix_quoting_is_wrong_for_fish() {
        // Why fish has its own function: a backslash before a quote.
        let s = "a\\'b";
        assert_ne!(
            std::panic::catch_unwind(|| echo_through("fish", &["--no-config", "-c"], &posix(s)))
                .ok(),
            Some(s.to_string())
        );
    }

    #[test]
    fn csh_quoting() {
        assert_eq!(csh("it's"), r"'it'\''s'");
        assert_eq!(csh("a!b $x `y` *"), r"'a\!b $x `y` *'");
        assert_eq!(csh_modifier(r#"/it's "q" \ !"#), r#"/it\'s \"q\" \\ \!"#);
        assert!(!csh_modifier_ok("/a#b"));
        assert!(csh_modifier_ok("/a b/$x/{y}"));
    }
}
