//! Whether hooks go into one environment, and which: the one decision
//! `install` and `audit --fix` share, so that a cron job and a person
//! asking for the same environment get the same hooks.
//!
//! The rules' verdict (does any framework load a library differently with
//! a hook?) sits a floor above; the caller supplies it, asked for only
//! when the decision turns on it.

use std::path::PathBuf;

use super::plan::{Plan, hook_path};
use super::shell::{Dialect, Phase};
use super::spec::{HookSpec, Mode};
use super::takeover;
use crate::error::Result;
use crate::inventory::Inventory;

/// What was asked for.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// How the hooks expose the libraries.
    pub mode: Mode,
    /// The shells to write hooks for.
    pub shells: &'a [Dialect],
    /// Hand-written hooks to move aside now (`--replace-handwritten`).
    pub take_over: Vec<PathBuf>,
    /// Hooks even where the rules find none needed (`--always`).
    pub always: bool,
}

impl Request<'_> {
    /// `audit --fix`'s request: `install`'s defaults, nothing taken over.
    pub fn fix() -> Request<'static> {
        Request {
            mode: Mode::Isolated,
            shells: &Dialect::ALL,
            take_over: Vec::new(),
            always: false,
        }
    }
}

/// The decision.
#[derive(Debug)]
pub enum Decision {
    /// Write these hooks (boxed: a plan holds every hook's text).
    Write(Box<Plan>),
    /// No CUDA libraries to expose: no hooks, and envhook's, if any, go.
    Remove,
    /// Hooks nobody needs: none installed to refresh, not asked for with
    /// `--always`, and the caller's verdict is that no framework loads a
    /// library differently with them.
    NotNeeded,
}

/// Decide for `inv`. `needed` is the rules' verdict, asked for only where
/// no hooks are installed and `--always` was not given (installed ones are
/// refreshed: whoever installed them asked).
pub fn decide(
    inv: &Inventory,
    request: Request,
    needed: impl FnOnce() -> Result<bool>,
) -> Result<Decision> {
    let Some(spec) = HookSpec::from_inventory(inv, request.mode)? else {
        return Ok(Decision::Remove);
    };
    if !request.always && !has_hooks(&inv.prefix) && !needed()? {
        return Ok(Decision::NotNeeded);
    }
    Ok(Decision::Write(Box::new(plan(spec, request))))
}

/// The hooks for `spec`, keeping the record of hand-written hooks moved
/// aside before as well as now.
fn plan(spec: HookSpec, request: Request) -> Plan {
    let mut replaced = takeover::moved_aside(&spec.prefix);
    replaced.extend(request.take_over.iter().cloned());
    Plan::new(spec, request.shells, request.take_over, &replaced)
}

/// Whether envhook's activate hook of any shell is in the environment.
pub fn has_hooks(prefix: &std::path::Path) -> bool {
    Dialect::ALL
        .iter()
        .any(|&d| hook_path(prefix, d, Phase::Activate).exists())
}
