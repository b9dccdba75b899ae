//! Exit codes are part of the interface (documented in the README):
//! 0 all well, 1 findings reported, 2 error (bad usage included, as clap
//! already exits 2 on usage errors).

use std::process::ExitCode;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Nothing to report.
    Success,
    /// The command reported findings of severity warning or error.
    Findings,
    /// The command could not do its job.
    Error,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        ExitCode::from(match status {
            ExitStatus::Success => 0,
            ExitStatus::Findings => 1,
            ExitStatus::Error => 2,
        })
    }
}
