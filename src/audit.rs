//! `envhook audit`'s logic: every environment discovery finds, checked in
//! parallel, one row each. An environment that cannot be read is a row with
//! the reason, never the end of the audit.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

use crate::check::{self, Machine, Report};
use crate::discovery::{Context, Discovery, EnvKind, KnownEnv};
use crate::driver::Driver;
use crate::foreign;
use crate::hookspec::{HookSpec, Mode};
use crate::install::{self, HookStatus, Plan};
use crate::inventory::{Claim, FrameworkBuild, Inventory};
use crate::matrix::Matrix;
use crate::report::{Problem, Severity};
use crate::shell::Dialect;

/// Identifies the JSON document of `envhook audit --json`.
pub const SCHEMA: &str = "envhook.audit/1";

/// The hook situation of one environment, as audit reports it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Hook {
    /// No LD_LIBRARY_PATH hook at all.
    None,
    /// envhook's hooks, matching the packages.
    Current,
    /// envhook's hooks, written for other packages.
    Stale,
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

impl Row {
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
}

/// Audit one environment.
fn audit_one(env: &KnownEnv, m: &Matrix, machine: &Machine, ctx: &Context, fix: bool) -> Row {
    let mut row = Row {
        prefix: env.prefix.clone(),
        name: env.name.clone(),
        kind: env.kind.clone(),
        status: "ok",
        error: None,
        cuda: Vec::new(),
        cudnn: Vec::new(),
        frameworks: Vec::new(),
        hook: Hook::None,
        fixed: Vec::new(),
        findings: Vec::new(),
    };
    let prefix = std::path::absolute(&env.prefix).unwrap_or_else(|_| env.prefix.clone());
    let mut inv = match Inventory::read(&prefix) {
        Ok(inv) => inv,
        Err(e) => {
            row.status = "unreadable";
            row.error = Some(e.to_string());
            return row;
        }
    };
    if fix {
        match fix_hooks(&inv) {
            Ok(written) => row.fixed = written,
            Err(e) => row.findings.push(Problem {
                severity: Severity::Error,
                code: "fix-failed",
                message: e.to_string(),
                hint: e.hint(),
                path: None,
                source: None,
            }),
        }
        if !row.fixed.is_empty() {
            // Re-read, so the report shows the environment as fixed.
            if let Ok(fresh) = Inventory::read(&prefix) {
                inv = fresh;
            }
        }
    }
    let report: Report = check::run(&inv, m, machine, ctx);
    let foreign = foreign::scan(&prefix);
    row.hook = match (&report.hook, inv.library_dirs.is_empty()) {
        (HookStatus::Current { .. }, _) => Hook::Current,
        (HookStatus::Stale { .. }, _) => Hook::Stale,
        (HookStatus::None, _) if foreign.iter().any(|f| !f.bugs.is_empty()) => Hook::Legacy,
        (HookStatus::None, _) if !foreign.is_empty() => Hook::Foreign,
        (HookStatus::None, true) => Hook::NotNeeded,
        (HookStatus::None, false) => Hook::None,
    };
    for f in foreign.iter().filter(|f| !f.bugs.is_empty()) {
        row.findings.push(Problem {
            severity: Severity::Warning,
            code: "foreign-hook",
            message: format!("{}: {}", f.path.display(), f.bugs.join("; ")),
            hint: Some(format!(
                "envhook install -p {} replaces its job; then remove the script",
                prefix.display()
            )),
            path: Some(f.path.clone()),
            source: None,
        });
    }
    row.findings.extend(report.findings);
    row.findings.sort_by_key(|p| std::cmp::Reverse(p.severity));
    row.cuda = report.cuda;
    row.cudnn = report.cudnn;
    row.frameworks = report.frameworks;
    if crate::report::has_findings(&row.findings) {
        row.status = "findings";
    }
    row
}

/// Install or refresh the hooks where they are missing or stale; nothing
/// when they are current or not needed.
fn fix_hooks(inv: &Inventory) -> crate::error::Result<Vec<std::path::PathBuf>> {
    let spec = HookSpec::from_inventory(inv, Mode::Isolated)?;
    match (install::hook_status(&inv.prefix, spec.as_ref()), spec) {
        (HookStatus::Current { .. }, _) => Ok(Vec::new()),
        (HookStatus::None, None) => Ok(Vec::new()),
        (_, None) => install::uninstall(&inv.prefix, false),
        (_, Some(spec)) => {
            let plan = Plan::new(spec, &[Dialect::Posix, Dialect::Fish, Dialect::Powershell]);
            let mut written = plan.apply()?;
            written.extend(plan.remove.iter().cloned());
            Ok(written)
        }
    }
}

/// Audit everything `discovery` found, on `threads` threads; `progress` is
/// called after each environment.
pub fn run(
    discovery: Discovery,
    m: &Matrix,
    driver: Driver,
    ctx: &Context,
    fix: bool,
    threads: usize,
    progress: &(dyn Fn() + Sync),
) -> Audit {
    let envs = &discovery.envs;
    let machine = Machine::new(driver, ctx);
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<(usize, Row)>> = Mutex::new(Vec::with_capacity(envs.len()));
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, envs.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(env) = envs.get(i) else { break };
                    let row = audit_one(env, m, &machine, ctx, fix);
                    rows.lock()
                        .expect("no worker panics while holding the lock")
                        .push((i, row));
                    progress();
                }
            });
        }
    });
    let mut rows = rows.into_inner().expect("workers are done");
    rows.sort_by_key(|(i, _)| *i);
    let rows: Vec<Row> = rows.into_iter().map(|(_, r)| r).collect();
    let mut summary = Summary {
        envs: rows.len(),
        ..Summary::default()
    };
    for r in &rows {
        match r.status {
            "unreadable" => summary.unreadable += 1,
            "findings" => summary.with_findings += 1,
            _ => summary.ok += 1,
        }
        summary.errors += r
            .findings
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count();
        summary.warnings += r
            .findings
            .iter()
            .filter(|p| p.severity == Severity::Warning)
            .count();
        if !r.fixed.is_empty() {
            summary.fixed += 1;
        }
    }
    Audit {
        schema: SCHEMA,
        matrix_version: m.version.clone(),
        driver: machine.driver,
        envs: rows,
        stale: discovery.stale,
        summary,
    }
}
