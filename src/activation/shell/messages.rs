//! The sentences the hooks print and `check`/`audit` print alike (moved,
//! stale, another copy's state), and the hex encoding of the prefix in the
//! hooks' details. In `shell`, whose hooks print them, below both the
//! writer (plan) and the reader (status), so neither imports the other for
//! them.

use std::path::Path;

/// The warning for a moved or copied environment, worded the same by the
/// hooks on activation (which print [`moved_format`] with `printf`) and by
/// `check` and `audit`.
pub fn moved_message(to: &Path, from: &Path) -> String {
    let to_text = to.display().to_string();
    format!(
        "{MOVED_LEAD}{to_text}{MOVED_MIDDLE}{}{MOVED_TAIL}{}",
        from.display(),
        super::quote::posix(&to_text)
    )
}

/// The pieces of [`moved_message`] around the new prefix, the origin and
/// the new prefix quoted for pasting (the csh hook echoes them).
pub const MOVED_LEAD: &str = "envhook: ";
/// See [`MOVED_LEAD`].
pub const MOVED_MIDDLE: &str = " was moved or copied from ";
/// See [`MOVED_LEAD`].
pub const MOVED_TAIL: &str = " (a conda clone or rename, conda-pack, or a copy of its directory) since its CUDA \
     hooks were written; refresh them with: envhook install -p ";

/// The warning for hooks older than the environment's packages, worded
/// the same by the hooks and by `check` and `audit`.
pub fn stale_message(prefix: &Path) -> String {
    let text = prefix.display().to_string();
    format!(
        "envhook: the packages of {text} changed since its CUDA hooks were written; \
         refresh them with: envhook install -p {}",
        // Quoted, so the command can be pasted whatever the path holds.
        super::quote::posix(&text)
    )
}

/// [`moved_message`] as a printf format: `%s` for the new prefix, the
/// origin and the new prefix quoted for pasting, then a newline.
pub fn moved_format() -> String {
    format!("{MOVED_LEAD}%s{MOVED_MIDDLE}%s{MOVED_TAIL}%s\\n")
}

/// Printed by a hook that finds the state under its key applied by
/// another copy of the same environment (copies whose keys coincide).
pub const FOREIGN_MESSAGE: &str = "envhook: LD_LIBRARY_PATH is left as it is: another copy of this \
     environment is active with state under the same key; refresh the copies' hooks with envhook \
     install";

/// Lower-case hex of a string's bytes (the header's `origin-hex`).
pub fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn unhex(s: &str) -> Option<String> {
    let bytes: Option<Vec<u8>> = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}
