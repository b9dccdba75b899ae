//! Exit codes are part of the interface (documented in docs/exit-codes.md):
//! 0 all well, 1 findings reported, 2 error (bad usage included, as clap
//! already exits 2 on usage errors), 3 (explain) not an environment
//! problem.

use std::process::ExitCode;

/// The contract, as `--help` and the man pages state it.
pub const CONTRACT: &[(u8, &str)] = &[
    (
        0,
        "all well: nothing to act on (findings of severity info do not count)",
    ),
    (
        1,
        "findings of severity warning or error were reported (install: the hooks were written, \
         but there is something to fix; audit: also an environment it cannot read; explain: the \
         cause of the message is here, in the environment, on this machine or in this shell, and \
         what to do is said; a cause elsewhere, or one envhook cannot check, is 0)",
    ),
    (
        2,
        "error: bad usage, no such environment, unreadable or corrupt metadata, a symbolic link \
         or something not envhook's where it would write, another envhook holding the \
         environment's lock for over two minutes",
    ),
    (
        3,
        "explain: the message is not an environment problem (the GPU out of memory, a fault in \
         a GPU kernel, an error in the code, a harmless warning): nothing to install or change",
    ),
];

/// One line for every command's `--help`: [`CONTRACT`], short.
pub const SUMMARY: &str = "Exit codes: 0 nothing to act on; 1 findings of severity warning or \
     error (audit: also an environment it cannot read); 2 error (usage, no such environment, \
     unreadable metadata, something not envhook's where it would write); 3 explain: not an \
     environment problem.";

/// `run`'s: the command's own status replaces envhook's.
pub const RUN_SUMMARY: &str = "Exit codes: the command's own (envhook execs it); 127 when the \
     command is not found and 126 when it cannot be executed, as shells exit; 2 when envhook cannot \
     select the environment.";

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Nothing to report.
    Success,
    /// The command reported findings of severity warning or error.
    Findings,
    /// The command could not do its job.
    Error,
    /// explain: the message is not an environment problem.
    NotEnvironment,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        ExitCode::from(match status {
            ExitStatus::Success => 0,
            ExitStatus::Findings => 1,
            ExitStatus::Error => 2,
            ExitStatus::NotEnvironment => 3,
        })
    }
}
