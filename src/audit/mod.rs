//! `envhook audit`'s logic: every environment discovery finds, checked in
//! parallel, one row each. An environment that cannot be read is a row with
//! the reason, never the end of the audit.

mod fix;
mod parallel;

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::activation::foreign;
use crate::activation::status::HookStatus;
use crate::data::matrix::Matrix;
use crate::discovery::{Context, Discovery, EnvKind, KnownEnv};
use crate::finding::{Problem, Severity};
use crate::inventory::{Claim, FrameworkBuild, Inventory};
use crate::machine::Machine;
use crate::machine::driver::Driver;
use crate::rules::{self, Report};

pub use fix::{FixAction, FixPlan, acts, apply_fixes, plan_fixes, record_fixes};
pub use parallel::parallel_with_timeout;

/// Identifies the JSON document of `envhook audit --json`.
pub const SCHEMA: &str = "envhook.audit/2";

/// The hook situation of one environment, as audit reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Hook {
    /// No LD_LIBRARY_PATH hook at all.
    None,
    /// envhook's hooks, matching the packages.
    Current,
    /// envhook's hooks, written for other packages.
    Stale,
    /// envhook's hooks, written for another prefix (a clone, a renamed or
    /// unpacked environment).
    Moved,
    /// Only hand-written hooks, without known bugs.
    Foreign,
    /// Hand-written hooks with known bugs.
    Legacy,
    /// No hook needed: no CUDA libraries, or every library the frameworks
    /// load is found without one.
    NotNeeded,
}

/// One environment's row.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The environment.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub prefix: std::path::PathBuf,
    /// Its name, if any.
    pub name: Option<String>,
    /// How discovery found it.
    pub kind: EnvKind,
    /// How reading it went; JSON's `status` and `error` fields.
    #[serde(flatten)]
    pub status: Status,
    /// CUDA runtimes.
    pub cuda: Vec<Claim>,
    /// cuDNN.
    pub cudnn: Vec<Claim>,
    /// Framework builds.
    pub frameworks: Vec<FrameworkBuild>,
    /// Hook status.
    pub hook: Hook,
    /// What `--fix` did: the paths written or removed.
    #[serde(serialize_with = "crate::paths::serialize_vec")]
    pub fixed: Vec<std::path::PathBuf>,
    /// `check`'s findings.
    pub findings: Vec<Problem>,
}

/// How reading one environment went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Read, and no warning or error found.
    Ok,
    /// Read, with warnings or errors.
    Findings,
    /// Not read: why.
    Unreadable(String),
}

impl Status {
    /// The status as the JSON document spells it.
    pub fn label(&self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Findings => "findings",
            Status::Unreadable(_) => "unreadable",
        }
    }

    /// Why the environment could not be read.
    pub fn error(&self) -> Option<&str> {
        match self {
            Status::Unreadable(why) => Some(why),
            _ => None,
        }
    }
}

/// `"status": "unreadable", "error": "why"` (`"error": null` when read):
/// the two fields the JSON document has always had.
impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("status", self.label())?;
        map.serialize_entry("error", &self.error())?;
        map.end()
    }
}

impl Hook {
    /// Every status, in the order they are listed.
    pub const ALL: [Hook; 7] = [
        Hook::None,
        Hook::Current,
        Hook::Stale,
        Hook::Moved,
        Hook::Foreign,
        Hook::Legacy,
        Hook::NotNeeded,
    ];

    /// The status as the JSON document spells it.
    pub fn label(self) -> &'static str {
        match self {
            Hook::None => "none",
            Hook::Current => "current",
            Hook::Stale => "stale",
            Hook::Moved => "moved",
            Hook::Foreign => "foreign",
            Hook::Legacy => "legacy",
            Hook::NotNeeded => "not-needed",
        }
    }
}

impl Row {
    /// The environment as people name it: its name, else its prefix.
    pub fn label(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| self.prefix.display().to_string())
    }

    /// A row for `env` with nothing found yet.
    fn new(env: &KnownEnv, status: Status) -> Row {
        Row {
            prefix: env.prefix.clone(),
            name: env.name.clone(),
            kind: env.kind.clone(),
            status,
            cuda: Vec::new(),
            cudnn: Vec::new(),
            frameworks: Vec::new(),
            hook: Hook::None,
            fixed: Vec::new(),
            findings: Vec::new(),
        }
    }

    /// The most severe finding.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|p| p.severity).max()
    }
}

/// Totals for the summary line.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Environments audited.
    pub envs: usize,
    /// Without warnings or errors.
    pub ok: usize,
    /// With warnings or errors.
    pub with_findings: usize,
    /// That could not be read.
    pub unreadable: usize,
    /// Findings of severity error, over all environments.
    pub errors: usize,
    /// Findings of severity warning.
    pub warnings: usize,
    /// Environments whose hooks `--fix` wrote.
    pub fixed: usize,
}

/// The whole audit.
#[derive(Debug, Clone, Serialize)]
pub struct Audit {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The matrix data version.
    pub matrix_version: String,
    /// The driver, detected once for all environments.
    pub driver: Driver,
    /// One row per environment, in discovery order.
    pub envs: Vec<Row>,
    /// `environments.txt` entries that lead nowhere, and skipped config.
    pub stale: Vec<crate::discovery::StaleEntry>,
    /// Totals.
    pub summary: Summary,
    /// With `--fix`: the plan it followed (or, with `--dry-run`, would).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix_plan: Option<Vec<FixPlan>>,
    /// When no environment was found: where discovery looked, and how to
    /// point it elsewhere (a cron job run as root with root's HOME finds
    /// none of a user's environments).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nothing_found: Option<NothingFound>,
}

/// Where discovery looked when it found nothing.
#[derive(Debug, Clone, Serialize)]
pub struct NothingFound {
    /// The conda roots and envs directories it searched.
    pub looked_in: Vec<String>,
    /// The HOME it read `~/.conda/environments.txt` and `.condarc` from.
    pub home: Option<String>,
    /// What to do.
    pub hint: String,
}

/// What discovery searched, for [`NothingFound`].
fn nothing_found(d: &crate::discovery::Discovery, ctx: &Context) -> NothingFound {
    let mut looked_in: Vec<String> = d
        .roots
        .iter()
        .map(|r| format!("{} (conda root)", r.display()))
        .collect();
    looked_in.extend(
        d.envs_dirs
            .iter()
            .map(|e| format!("{} ({})", e.path.display(), e.origin)),
    );
    let home = ctx.home().map(|h| h.display().to_string());
    NothingFound {
        looked_in,
        hint: format!(
            "envhook looks where conda does: root prefixes (CONDA_EXE, conda on PATH, \
             ~/miniconda3 and the like), envs_dirs in .condarc, CONDA_ENVS_DIRS and \
             {}/.conda/environments.txt; name another place with --envs-dir DIR (a job run as \
             another user, root's cron for one, reads that user's HOME)",
            home.as_deref().unwrap_or("~")
        ),
        home,
    }
}

/// Audit one environment.
fn audit_one(env: &KnownEnv, m: &Matrix, machine: &Machine, ctx: &Context) -> Row {
    let mut row = Row::new(env, Status::Ok);
    let prefix = std::path::absolute(&env.prefix).unwrap_or_else(|_| env.prefix.clone());
    let inv = match Inventory::read(&prefix) {
        Ok(inv) => inv,
        Err(e) => {
            row.status = Status::Unreadable(e.to_string());
            return row;
        }
    };
    let report: Report = rules::run(&inv, m, machine, ctx);
    let foreign = foreign::scan(&prefix);
    row.hook = match (&report.hook, inv.library_dirs.is_empty()) {
        (HookStatus::Current { .. }, _) => Hook::Current,
        (HookStatus::Stale { .. }, _) => Hook::Stale,
        (HookStatus::Moved { .. }, _) => Hook::Moved,
        (HookStatus::None, _) if foreign.iter().any(|f| !f.bugs.is_empty()) => Hook::Legacy,
        (HookStatus::None, _) if !foreign.is_empty() => Hook::Foreign,
        (HookStatus::None, true) => Hook::NotNeeded,
        // Every library the frameworks load resolves without a hook.
        (HookStatus::None, false) if report.hook_not_needed() => Hook::NotNeeded,
        (HookStatus::None, false) => Hook::None,
    };
    row.findings.extend(report.findings);
    row.findings.sort_by_key(|p| std::cmp::Reverse(p.severity));
    row.cuda = report.cuda;
    row.cudnn = report.cudnn;
    row.frameworks = report.frameworks;
    if crate::finding::has_findings(&row.findings) {
        row.status = Status::Findings;
    }
    row
}

/// How long one environment may take before audit gives up on it:
/// `ENVHOOK_AUDIT_TIMEOUT` seconds, 60 by default.
fn timeout(ctx: &Context) -> Duration {
    let secs = ctx
        .var_str(crate::env_vars::ENVHOOK_AUDIT_TIMEOUT)
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .unwrap_or(60.0);
    Duration::from_secs_f64(secs)
}

/// Audit everything `discovery` found, on `threads` threads; `progress` is
/// called after each environment.
pub fn run(
    discovery: Discovery,
    m: Arc<Matrix>,
    driver: Driver,
    ctx: &Context,
    threads: usize,
    progress: &dyn Fn(),
) -> Audit {
    let nothing = discovery
        .envs
        .is_empty()
        .then(|| nothing_found(&discovery, ctx));
    let envs = Arc::new(discovery.envs);
    let machine = Arc::new(Machine::new(driver, ctx));
    let matrix_version = m.version.clone();
    let limit = timeout(ctx);
    let job = {
        let (envs, machine, m, ctx) = (envs.clone(), machine.clone(), m.clone(), ctx.clone());
        Arc::new(move |i: usize| audit_one(&envs[i], &m, &machine, &ctx))
    };
    let rows: Vec<Row> = parallel_with_timeout(envs.len(), threads, limit, job, progress)
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            row.unwrap_or_else(|| {
                let error = format!(
                    "no answer within {} s (a dead network mount?); set ENVHOOK_AUDIT_TIMEOUT to wait longer",
                    limit.as_secs_f64()
                );
                Row::new(&envs[i], Status::Unreadable(error))
            })
        })
        .collect();
    let mut a = Audit {
        schema: SCHEMA,
        matrix_version,
        driver: machine.driver.clone(),
        envs: rows,
        stale: discovery.stale,
        summary: Summary::default(),
        fix_plan: None,
        nothing_found: nothing,
    };
    summarize(&mut a);
    a
}

impl Audit {
    /// Whether anyone needs to act, the contract every command keeps:
    /// findings of warning or error severity in any environment (hooks
    /// `--fix` could not write among them), or an unreadable environment.
    pub fn needs_action(&self) -> bool {
        self.envs
            .iter()
            .any(|r| r.status.error().is_some() || r.worst() >= Some(Severity::Warning))
    }
}

/// Count the rows into the summary (again, after `--fix` changed them).
pub fn summarize(a: &mut Audit) {
    let mut summary = Summary {
        envs: a.envs.len(),
        ..Summary::default()
    };
    for r in &a.envs {
        match &r.status {
            Status::Unreadable(_) => summary.unreadable += 1,
            Status::Findings => summary.with_findings += 1,
            Status::Ok => summary.ok += 1,
        }
        let count = |s| r.findings.iter().filter(|p| p.severity == s).count();
        summary.errors += count(Severity::Error);
        summary.warnings += count(Severity::Warning);
        if !r.fixed.is_empty() {
            summary.fixed += 1;
        }
    }
    a.summary = summary;
}
