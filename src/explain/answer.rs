//! The answer model every explain module builds: what envhook concludes
//! about one clue ([`Verdict`]), the [`Answer`] it gives, and what the
//! environment holds of a component, which every answer starts from.

use serde::Serialize;

use super::clues::Clue;
use crate::finding::Fix;
use crate::inventory::Claim;
use crate::machine::resolve::Found;
use crate::rules::Facts;

/// What envhook concludes about one clue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The cause is in this environment, and the fix says what to do.
    Cause,
    /// The environment has what the message misses: the error came from
    /// elsewhere (another environment, another library path).
    NotHere,
    /// The message cannot be tied to this environment.
    CannotTell,
    /// The message is of a kind no environment causes (the GPU out of
    /// memory, a kernel's fault, the user's code, a harmless warning).
    NotEnvironment,
}

/// One clue, answered.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    /// What the message names.
    pub clue: Clue,
    /// The component's versions here: `cuDNN 9.1.1.17 (nvidia-cudnn-cu12, pip)`.
    pub here: Vec<String>,
    /// The environment's objects that ask for it, and what they were built for.
    pub asked_by: Vec<String>,
    /// With envhook's hook.
    pub with_hook: Option<Found>,
    /// Without it.
    pub without_hook: Option<Found>,
    /// Where `with_hook` is a link the hook has not written yet (not
    /// installed, or stale): the file it will point at, which exists.
    #[serde(skip)]
    pub hook_target: Option<std::path::PathBuf>,
    /// What it means here, in a sentence or two.
    pub diagnosis: String,
    /// What the verdict is.
    pub verdict: Verdict,
    /// The one command that fixes it (or, where none does, the choices).
    pub fix: Option<Fix>,
}

impl Answer {
    /// An answer that knows only what the environment holds.
    pub(super) fn blank(clue: &Clue, here: Vec<String>) -> Answer {
        Answer {
            clue: clue.clone(),
            here,
            asked_by: Vec::new(),
            with_hook: None,
            without_hook: None,
            hook_target: None,
            diagnosis: String::new(),
            verdict: Verdict::CannotTell,
            fix: None,
        }
    }
}

/// The environment's claims for a component.
pub(super) fn claims<'a>(f: &'a Facts, component: &str) -> &'a [Claim] {
    match component {
        "cudart" => &f.inv.cuda,
        "cudnn" => &f.inv.cudnn,
        "cublas" => &f.inv.cublas,
        "nccl" => &f.inv.nccl,
        _ => &[],
    }
}

/// What the environment holds of a component, a line each:
/// `cuDNN 9.1.1.17 (nvidia-cudnn-cu12 9.1.1.17, pip)`.
pub(super) fn held(f: &Facts, component: Option<&str>, what: &str) -> Vec<String> {
    component
        .map(|c| claims(f, c))
        .unwrap_or_default()
        .iter()
        .map(|c| {
            format!(
                "{what} {} ({} {}, {})",
                c.version,
                c.package,
                c.package_version,
                c.installer.label()
            )
        })
        .collect()
}
