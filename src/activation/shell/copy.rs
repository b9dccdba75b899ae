//! What the hooks do in a copy of the environment made without conda
//! (`cp -a`, rsync, a restored backup): such a copy holds the hooks byte
//! for byte, with the source's prefix and directories in them, and conda
//! runs them with `CONDA_PREFIX` set to the copy. The hooks then test that
//! `CONDA_PREFIX` holds what they were written with ([`marks`]) and use
//! the copy's own directories ([`dirs()`]): the same paths under
//! `CONDA_PREFIX`. The copy's link directory holds relative links, so it
//! is valid where it lies; the source's libraries are never used for it.
//!
//! The text here is each dialect's spelling of "`CONDA_PREFIX` followed by
//! a literal": the variable is expanded by the shell when the hook runs,
//! the literal is quoted as every value is.

use super::{Dialect, quote};

/// The path of `dir` relative to `prefix`, from its `/` (`/lib/envhook/cuda`),
/// when `dir` lies under `prefix`.
fn relative<'a>(dir: &'a str, prefix: &str) -> Option<&'a str> {
    dir.strip_prefix(prefix)
        .filter(|rest| rest.starts_with('/'))
}

/// `CONDA_PREFIX` followed by the literal `rel`, as one word of `dialect`.
fn under_conda_prefix(dialect: Dialect, rel: &str) -> String {
    match dialect {
        Dialect::Posix => format!("\"${{CONDA_PREFIX}}\"{}", quote::posix(rel)),
        Dialect::Fish => format!("\"$CONDA_PREFIX\"{}", quote::fish(rel)),
        Dialect::Csh => format!("${{CONDA_PREFIX:q}}{}", quote::csh(rel)),
        // The hooks hold CONDA_PREFIX in $copyPrefix.
        Dialect::Powershell => format!("($copyPrefix + {})", quote::powershell(rel)),
    }
}

/// The test, in `dialect`, that `CONDA_PREFIX` holds the files a copy of
/// this environment holds: `marks[0]` is the hook itself (a file), the
/// rest are directories (the link directory the hooks were written with,
/// whose name carries their fingerprint, or the directories they expose).
/// Another environment with hooks of its own has another link directory.
pub fn marks(dialect: Dialect, marks: &[String]) -> String {
    let tests: Vec<String> = marks
        .iter()
        .enumerate()
        .map(|(i, rel)| {
            let path = under_conda_prefix(dialect, rel);
            match (dialect, i) {
                (Dialect::Powershell, 0) => format!("[System.IO.File]::Exists{path}"),
                (Dialect::Powershell, _) => format!("[System.IO.Directory]::Exists{path}"),
                (_, 0) => format!("-f {path}"),
                (_, _) => format!("-d {path}"),
            }
        })
        .collect();
    let and = match dialect {
        Dialect::Posix | Dialect::Fish => " -a ",
        Dialect::Csh => " && ",
        Dialect::Powershell => " -and ",
    };
    tests.join(and)
}

/// The directories the hooks expose, under `CONDA_PREFIX` instead of
/// `prefix`, as the value the dialect's hooks hold them in: `:`-joined for
/// POSIX sh and csh, a list for fish and PowerShell. A directory outside
/// the prefix (none is, today) stays as it is.
pub fn dirs(dialect: Dialect, dirs: &[String], prefix: &str) -> String {
    let words: Vec<String> = dirs
        .iter()
        .map(|d| match relative(d, prefix) {
            Some(rel) => under_conda_prefix(dialect, rel),
            None => dialect.quote(d),
        })
        .collect();
    match dialect {
        Dialect::Posix | Dialect::Csh => words.join(":"),
        Dialect::Fish => words.join(" "),
        Dialect::Powershell => words.join(", "),
    }
}

/// csh's edit removing one of our directories from `_envhook_rest`, as
/// `strip.csh` runs it: a literal `:as` edit where the hooks were written,
/// and in a copy an edit made at run time from the copy's prefix, escaped
/// for csh's edits by the hook (`_envhook_esc`), through `eval`.
pub fn csh_edit(dir: &str, prefix: &str) -> String {
    let here = format!(
        "set _envhook_rest = ${{_envhook_rest:as#:{}:#:#:q}}",
        quote::csh_modifier(dir)
    );
    let Some(rel) = relative(dir, prefix) else {
        return here;
    };
    format!(
        "if ( $_envhook_copy ) then\n        \
         eval 'set _envhook_rest = ${{_envhook_rest:as#:'\"${{_envhook_esc:q}}\"{}':#:#:q}}'\n    \
         else\n        {here}\n    endif",
        quote::csh(&quote::csh_modifier(rel))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_move_under_conda_prefix() {
        let dirs_ = [
            "/e/p/lib/envhook/cuda".to_string(),
            "/other/lib".to_string(),
        ];
        assert_eq!(
            dirs(Dialect::Posix, &dirs_, "/e/p"),
            "\"${CONDA_PREFIX}\"'/lib/envhook/cuda':'/other/lib'"
        );
        assert_eq!(
            dirs(Dialect::Fish, &dirs_[..1], "/e/p"),
            "\"$CONDA_PREFIX\"'/lib/envhook/cuda'"
        );
        // A prefix that is only a string prefix of the directory is not its parent.
        assert_eq!(relative("/e/pp/lib", "/e/p"), None);
    }

    #[test]
    fn marks_test_a_file_then_directories() {
        let m = [
            "/etc/conda/activate.d/envhook.sh".to_string(),
            "/lib/envhook/cuda-0123".to_string(),
        ];
        assert_eq!(
            marks(Dialect::Posix, &m),
            "-f \"${CONDA_PREFIX}\"'/etc/conda/activate.d/envhook.sh' -a \
             -d \"${CONDA_PREFIX}\"'/lib/envhook/cuda-0123'"
        );
        assert!(marks(Dialect::Csh, &m).contains(" && -d ${CONDA_PREFIX:q}'/lib/"));
    }
}
