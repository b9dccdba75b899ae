//! A path where envhook would write that holds something not envhook's,
//! and the message that lists them.

use std::path::PathBuf;

/// A path where envhook would write that holds something not envhook's.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Conflict {
    /// The path.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub path: PathBuf,
    /// What is there.
    pub what: String,
}

pub(super) fn not_ours_message(conflicts: &[Conflict]) -> String {
    let mut text = match conflicts.len() {
        1 => "a path where envhook writes holds something not envhook's:".to_string(),
        n => format!("{n} paths where envhook writes hold something not envhook's:"),
    };
    for c in conflicts {
        text.push_str(&format!("\n  {}: {}", c.path.display(), c.what));
    }
    text
}
