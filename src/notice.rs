//! Messages on stderr that are not part of a command's report: warnings
//! (unless `-q`) and notes on how the work was done (`-v`).

use std::io::Write;

/// How much goes to stderr besides errors: `-q` (only errors), default
/// (warnings), `-v` (warnings and notes). Set once by `main`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// `-q`.
    Quiet = 0,
    /// Neither flag.
    Normal = 1,
    /// `-v`.
    Verbose = 2,
}

static VERBOSITY: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(1);

/// Set the verbosity for the rest of the process.
pub fn set_verbosity(v: Verbosity) {
    VERBOSITY.store(v as u8, std::sync::atomic::Ordering::Relaxed);
}

/// The verbosity `main` set.
pub fn verbosity() -> Verbosity {
    match VERBOSITY.load(std::sync::atomic::Ordering::Relaxed) {
        0 => Verbosity::Quiet,
        1 => Verbosity::Normal,
        _ => Verbosity::Verbose,
    }
}

/// Print a warning that is not part of a command's report (a config file
/// discovery had to skip) to stderr, unless `-q`.
pub fn warn(message: &str) {
    if verbosity() >= Verbosity::Normal {
        let label =
            crate::colour::paint(crate::colour::stderr(), crate::colour::WARNING, "warning");
        let _ = writeln!(std::io::stderr().lock(), "{label}: {message}");
    }
}

/// Print a note on how the work was done (`-v` only) to stderr.
pub fn note(message: &str) {
    if verbosity() >= Verbosity::Verbose {
        let label = crate::colour::paint(crate::colour::stderr(), crate::colour::NOTE, "note");
        let _ = writeln!(std::io::stderr().lock(), "{label}: {message}");
    }
}

/// Say, before envhook blocks, what it waits for (unless `-q`): a wait of
/// up to minutes without a word looks like a hang.
pub fn waiting(what: &str) {
    if verbosity() >= Verbosity::Normal {
        let _ = writeln!(std::io::stderr().lock(), "envhook: waiting for {what}");
    }
}
