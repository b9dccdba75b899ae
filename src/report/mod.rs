//! Rendering what commands report: the audit's table and Prometheus text,
//! and the versions they show. The findings themselves are
//! [`crate::finding`]'s, stderr messages [`crate::notice`]'s (re-exported
//! here until their users import them from there).

pub mod prometheus;
pub mod table;

pub use crate::finding::{Problem, Severity, has_findings};
pub use crate::notice::{Verbosity, note, set_verbosity, verbosity, warn};

/// The versions of some claims (`12.6,11.8`; empty for none), as the
/// audit's table and metrics show them.
pub fn versions(claims: &[crate::inventory::Claim]) -> String {
    claims
        .iter()
        .map(|c| c.version.as_str())
        .collect::<Vec<_>>()
        .join(",")
}
