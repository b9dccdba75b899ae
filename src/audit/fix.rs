//! `audit --fix`: the plan for every environment, and carrying it out.

use std::path::PathBuf;

use serde::Serialize;

use crate::activation::decide::{Decision, Request, decide};
use crate::activation::install;
use crate::finding::{Code, Fix, Problem, Severity};
use crate::inventory::Inventory;

use super::{Audit, Hook};

/// What `--fix` would do to one environment.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum FixAction {
    /// Write or refresh envhook's hooks and link directory.
    Write {
        /// What would be written (or cleaned, or replaced).
        #[serde(serialize_with = "crate::paths::serialize_vec")]
        paths: Vec<std::path::PathBuf>,
    },
    /// Remove envhook's files: the environment no longer needs hooks.
    Remove {
        /// What would be removed.
        #[serde(serialize_with = "crate::paths::serialize_vec")]
        paths: Vec<std::path::PathBuf>,
    },
    /// Nothing `--fix` can do would help; the reason says what would.
    Skip {
        /// Why, and what to do instead.
        reason: String,
    },
    /// Writing would fail or was refused (a planted link, something not
    /// envhook's in the way, a prefix no hook can carry): an error of that
    /// environment's, reported in its row.
    Refused {
        /// The error.
        reason: String,
        /// What to do about it.
        #[serde(skip_serializing_if = "Option::is_none")]
        hint: Option<String>,
    },
}

impl FixAction {
    /// Whether carrying it out changes files (writes or removes).
    fn acts(&self) -> bool {
        matches!(self, FixAction::Write { .. } | FixAction::Remove { .. })
    }

    fn refused(e: &crate::error::Error) -> Self {
        FixAction::Refused {
            reason: e.to_string(),
            hint: e.hint(),
        }
    }
}

/// One environment's entry in the `--fix` plan.
#[derive(Debug, Clone, Serialize)]
pub struct FixPlan {
    /// The environment.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub prefix: std::path::PathBuf,
    /// Its name, if any.
    pub name: Option<String>,
    /// What `--fix` does there.
    #[serde(flatten)]
    pub action: FixAction,
}

/// The `--fix` plan: for every environment whose hooks are missing, stale
/// or moved, what installing them would write (a dry run of `install`,
/// which also finds planted links and files not envhook's), or why it is
/// skipped: an unreadable environment, broken installs or two CUDA
/// runtimes (hooks would expose a stack that does not work), or a
/// hand-written hook (taking it over is `install --replace-handwritten`'s
/// decision, not a cron job's).
pub fn plan_fixes(a: &Audit) -> Vec<FixPlan> {
    let mut plans = Vec::new();
    for r in &a.envs {
        let entry = |action| FixPlan {
            prefix: r.prefix.clone(),
            name: r.name.clone(),
            action,
        };
        let wanted = matches!(
            r.hook,
            Hook::None | Hook::Stale | Hook::Moved | Hook::Legacy | Hook::Foreign
        );
        if let Some(error) = r.status.error() {
            plans.push(entry(FixAction::Skip {
                reason: format!("unreadable: {error}"),
            }));
            continue;
        }
        if !wanted {
            continue;
        }
        let inv = match Inventory::read(&r.prefix) {
            Ok(inv) => inv,
            Err(e) => {
                plans.push(entry(FixAction::refused(&e)));
                continue;
            }
        };
        // The rows acted on are those whose hooks are wanted: audit's own
        // verdict (not-needed rows are not here).
        let plan = match decide(&inv, Request::fix(), || Ok(true)) {
            Ok(Decision::Write(plan)) => *plan,
            Ok(Decision::Remove) if matches!(r.hook, Hook::Stale | Hook::Moved) => {
                match install::uninstall(&inv.prefix, true) {
                    Ok(changes) => plans.push(entry(FixAction::Remove {
                        paths: changes.touched(),
                    })),
                    Err(e) => plans.push(entry(FixAction::refused(&e))),
                }
                continue;
            }
            Ok(Decision::Remove | Decision::NotNeeded) => continue,
            Err(e) => {
                plans.push(entry(FixAction::refused(&e)));
                continue;
            }
        };
        let blocking = inv
            .problems
            .iter()
            .find(|p| matches!(p.code, Code::BrokenInstall | Code::MixedCudaRuntimes));
        if let Some(p) = blocking {
            plans.push(entry(FixAction::Skip {
                reason: format!(
                    "{} ({}): fix that first, then envhook install",
                    p.code, p.message
                ),
            }));
            continue;
        }
        if matches!(r.hook, Hook::Legacy | Hook::Foreign) {
            plans.push(entry(FixAction::Skip {
                reason: format!(
                    "a hand-written LD_LIBRARY_PATH hook: envhook install -p {} --replace-handwritten \
                     takes it over (reversibly), when its owner decides to",
                    crate::activation::shell::quote::posix(&inv.prefix.display().to_string())
                ),
            }));
            continue;
        }
        match install::install(&plan, true) {
            Ok(changes) => plans.push(entry(FixAction::Write {
                paths: changes.touched(),
            })),
            Err(e) => plans.push(entry(FixAction::refused(&e))),
        }
    }
    plans
}

/// Carry out one planned fix (a real run: under the environment's lock,
/// surveyed again); what it wrote or removed.
fn apply_fix(plan: &FixPlan) -> crate::error::Result<Vec<std::path::PathBuf>> {
    if matches!(
        plan.action,
        FixAction::Skip { .. } | FixAction::Refused { .. }
    ) {
        return Ok(Vec::new());
    }
    let inv = Inventory::read(&plan.prefix)?;
    match (&plan.action, decide(&inv, Request::fix(), || Ok(true))?) {
        (FixAction::Write { .. }, Decision::Write(hooks)) => {
            Ok(install::install(&hooks, false)?.touched())
        }
        _ => Ok(install::uninstall(&inv.prefix, false)?.touched()),
    }
}

/// Whether a plan would change anything (write or remove files).
pub fn acts(plans: &[FixPlan]) -> bool {
    plans.iter().any(|p| p.action.acts())
}

/// What carrying out a plan did: per environment, the paths written or
/// removed, or the error that stopped it.
#[derive(Debug, Default)]
pub struct Applied {
    written: Vec<(PathBuf, Vec<PathBuf>)>,
    failed: Vec<(PathBuf, String, Option<String>)>,
}

/// Carry out every fix that acts, each on its own: one environment's
/// failure is its row's error, never the end of the others.
pub fn apply_fixes(plans: &[FixPlan]) -> Applied {
    let mut applied = Applied::default();
    for plan in plans.iter().filter(|p| p.action.acts()) {
        match apply_fix(plan) {
            Ok(paths) => applied.written.push((plan.prefix.clone(), paths)),
            Err(e) => applied
                .failed
                .push((plan.prefix.clone(), e.to_string(), e.hint())),
        }
    }
    applied
}

/// Put the plan and what came of it into the audit (the state after the
/// fixes, when they ran): each row says what `--fix` wrote there, and what
/// it could not do, refused at planning or failed when applied, is a
/// `fix-failed` error of that environment's.
pub fn record_fixes(a: &mut Audit, plans: Vec<FixPlan>, applied: Option<Applied>) {
    let applied = applied.unwrap_or_default();
    for (prefix, paths) in applied.written {
        if let Some(row) = a.envs.iter_mut().find(|r| r.prefix == prefix) {
            row.fixed = paths;
        }
    }
    let refused = plans.iter().filter_map(|p| match &p.action {
        FixAction::Refused { reason, hint } => {
            Some((p.prefix.clone(), reason.clone(), hint.clone()))
        }
        _ => None,
    });
    for (prefix, message, hint) in refused.chain(applied.failed) {
        if let Some(row) = a.envs.iter_mut().find(|r| r.prefix == prefix) {
            row.findings.insert(
                0,
                Problem {
                    severity: Severity::Error,
                    code: Code::FixFailed,
                    message,
                    fix: hint.map(Fix::advice),
                    path: None,
                    source: None,
                },
            );
            row.status = super::Status::Findings;
        }
    }
    super::summarize(a);
    a.fix_plan = Some(plans);
}
