//! `envhook audit`'s logic: every environment discovery finds, checked in
//! parallel, one row each. An environment that cannot be read is a row with
//! the reason, never the end of the audit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::activation::foreign;
use crate::activation::install;
use crate::activation::plan::Plan;
use crate::activation::shell::Dialect;
use crate::activation::spec::{HookSpec, Mode};
use crate::activation::status::HookStatus;
use crate::data::matrix::Matrix;
use crate::discovery::{Context, Discovery, EnvKind, KnownEnv};
use crate::finding::{Problem, Severity};
use crate::inventory::{Claim, FrameworkBuild, Inventory};
use crate::machine::Machine;
use crate::machine::driver::Driver;
use crate::rules::{self, Report};

/// Identifies the JSON document of `envhook audit --json`.
pub const SCHEMA: &str = "envhook.audit/1";

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
    /// No hook needed (no CUDA libraries).
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
    /// `ok`, `findings` (warnings or errors) or `unreadable`.
    pub status: &'static str,
    /// Why it could not be read.
    pub error: Option<String>,
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
    fn new(env: &KnownEnv, status: &'static str, error: Option<String>) -> Row {
        Row {
            prefix: env.prefix.clone(),
            name: env.name.clone(),
            kind: env.kind.clone(),
            status,
            error,
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
}

/// Audit one environment.
fn audit_one(env: &KnownEnv, m: &Matrix, machine: &Machine, ctx: &Context) -> Row {
    let mut row = Row::new(env, "ok", None);
    let prefix = std::path::absolute(&env.prefix).unwrap_or_else(|_| env.prefix.clone());
    let inv = match Inventory::read(&prefix) {
        Ok(inv) => inv,
        Err(e) => {
            row.status = "unreadable";
            row.error = Some(e.to_string());
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
        (HookStatus::None, false) => Hook::None,
    };
    row.findings.extend(report.findings);
    row.findings.sort_by_key(|p| std::cmp::Reverse(p.severity));
    row.cuda = report.cuda;
    row.cudnn = report.cudnn;
    row.frameworks = report.frameworks;
    if crate::finding::has_findings(&row.findings) {
        row.status = "findings";
    }
    row
}

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
        if r.status == "unreadable" {
            plans.push(entry(FixAction::Skip {
                reason: format!("unreadable: {}", r.error.as_deref().unwrap_or("")),
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
        let spec = match HookSpec::from_inventory(&inv, Mode::Isolated) {
            Ok(spec) => spec,
            Err(e) => {
                plans.push(entry(FixAction::refused(&e)));
                continue;
            }
        };
        let Some(spec) = spec else {
            if !matches!(r.hook, Hook::Stale | Hook::Moved) {
                continue;
            }
            match install::uninstall(&inv.prefix, true) {
                Ok(changes) => plans.push(entry(FixAction::Remove {
                    paths: changes.touched(),
                })),
                Err(e) => plans.push(entry(FixAction::refused(&e))),
            }
            continue;
        };
        let blocking = inv
            .problems
            .iter()
            .find(|p| matches!(p.code, "broken-install" | "mixed-cuda-runtimes"));
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
        match install::install(&hooks_plan(&inv, spec), true) {
            Ok(changes) => plans.push(entry(FixAction::Write {
                paths: changes.touched(),
            })),
            Err(e) => plans.push(entry(FixAction::refused(&e))),
        }
    }
    plans
}

/// The shells `--fix` writes hooks for: `install`'s default.
const FIX_DIALECTS: [Dialect; 4] = [
    Dialect::Posix,
    Dialect::Fish,
    Dialect::Powershell,
    Dialect::Csh,
];

/// The hooks `--fix` writes for an environment: `install`'s default
/// shells, keeping the record of hand-written hooks moved aside earlier.
fn hooks_plan(inv: &Inventory, spec: HookSpec) -> Plan {
    let replaced = crate::activation::takeover::moved_aside(&inv.prefix);
    Plan::new(spec, &FIX_DIALECTS, Vec::new(), &replaced)
}

/// Carry out one planned fix (a real run: under the environment's lock,
/// surveyed again); what it wrote or removed.
pub fn apply_fix(plan: &FixPlan) -> crate::error::Result<Vec<std::path::PathBuf>> {
    let inv = Inventory::read(&plan.prefix)?;
    match (
        &plan.action,
        HookSpec::from_inventory(&inv, Mode::Isolated)?,
    ) {
        (FixAction::Skip { .. } | FixAction::Refused { .. }, _) => Ok(Vec::new()),
        (FixAction::Remove { .. }, _) | (_, None) => {
            Ok(install::uninstall(&inv.prefix, false)?.touched())
        }
        (FixAction::Write { .. }, Some(spec)) => {
            Ok(install::install(&hooks_plan(&inv, spec), false)?.touched())
        }
    }
}

/// Run `job(0..n)` on `threads` worker threads; results in index order.
/// A job that has not answered `timeout` after it started (a stat on a
/// dead network mount blocks forever, and no thread can be interrupted) is
/// given up as `None`: its thread is left behind, a fresh worker takes over
/// its share, and the process exits without waiting for it.
pub fn parallel_with_timeout<T: Send + 'static>(
    n: usize,
    threads: usize,
    timeout: Duration,
    job: Arc<dyn Fn(usize) -> T + Send + Sync>,
    progress: &dyn Fn(),
) -> Vec<Option<T>> {
    let next = Arc::new(AtomicUsize::new(0));
    let started: Arc<Mutex<Vec<Option<Instant>>>> = Arc::new(Mutex::new(vec![None; n]));
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    let spawn = || {
        let (next, started, tx, job) = (next.clone(), started.clone(), tx.clone(), job.clone());
        std::thread::spawn(move || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                started.lock().expect("no panics under this lock")[i] = Some(Instant::now());
                let out = job(i);
                if tx.send((i, out)).is_err() {
                    break; // the audit is over
                }
            }
        });
    };
    for _ in 0..threads.clamp(1, n.max(1)) {
        spawn();
    }
    let mut results: Vec<Option<T>> = (0..n).map(|_| None).collect();
    let mut done = vec![false; n];
    let mut remaining = n;
    while remaining > 0 {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok((i, out)) => {
                if !done[i] {
                    results[i] = Some(out);
                    done[i] = true;
                    remaining -= 1;
                    progress();
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let now = Instant::now();
                let stuck: Vec<usize> = started
                    .lock()
                    .expect("no panics under this lock")
                    .iter()
                    .enumerate()
                    .filter(|(i, s)| {
                        !done[*i] && s.is_some_and(|t| now.duration_since(t) > timeout)
                    })
                    .map(|(i, _)| i)
                    .collect();
                for i in stuck {
                    done[i] = true;
                    remaining -= 1;
                    progress();
                    spawn(); // replace the blocked worker
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    results
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
                Row::new(&envs[i], "unreadable", Some(error))
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
    };
    summarize(&mut a);
    a
}

/// Count the rows into the summary (again, after `--fix` changed them).
pub fn summarize(a: &mut Audit) {
    let mut summary = Summary {
        envs: a.envs.len(),
        ..Summary::default()
    };
    for r in &a.envs {
        match r.status {
            "unreadable" => summary.unreadable += 1,
            "findings" => summary.with_findings += 1,
            _ => summary.ok += 1,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_that_never_answers_is_given_up() {
        let job: Arc<dyn Fn(usize) -> usize + Send + Sync> = Arc::new(|i| {
            if i == 3 {
                loop {
                    std::thread::park(); // as a stat on a dead mount
                }
            }
            i * 10
        });
        let calls = AtomicUsize::new(0);
        let start = Instant::now();
        let out = parallel_with_timeout(8, 2, Duration::from_millis(300), job, &|| {
            calls.fetch_add(1, Ordering::Relaxed);
        });
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(out.len(), 8);
        for (i, r) in out.iter().enumerate() {
            assert_eq!(*r, if i == 3 { None } else { Some(i * 10) });
        }
        assert_eq!(calls.load(Ordering::Relaxed), 8);
    }

    #[test]
    fn every_job_runs_once_in_order() {
        let job: Arc<dyn Fn(usize) -> usize + Send + Sync> = Arc::new(|i| i + 1);
        let out = parallel_with_timeout(100, 4, Duration::from_secs(10), job, &|| {});
        assert_eq!(out, (1..=100).map(Some).collect::<Vec<_>>());
        let none: Arc<dyn Fn(usize) -> usize + Send + Sync> = Arc::new(|i| i);
        assert!(parallel_with_timeout(0, 4, Duration::from_secs(1), none, &|| {}).is_empty());
    }
}
