//! Rendering what commands report: JSON for every command, the audit's
//! table and Prometheus text, and the versions they show. It renders
//! [`crate::finding`]s and what the floors below produce, and only the
//! commands import it.

pub mod json;
pub mod prometheus;
pub mod table;

/// The versions of some claims (`12.6,11.8`; empty for none), as the
/// audit's table and metrics show them.
pub fn versions(claims: &[crate::inventory::Claim]) -> String {
    claims
        .iter()
        .map(|c| c.version.as_str())
        .collect::<Vec<_>>()
        .join(",")
}
