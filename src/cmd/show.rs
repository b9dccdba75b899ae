//! `envhook show`: the inventory of one environment, for people or as JSON.

use std::io::Write;

use crate::cli::ShowArgs;
use crate::discovery::Context;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::finding;
use crate::inventory::builds::Variant;
use crate::inventory::{Claim, DirHolds, Inventory};

/// Run `show`.
/// The problems it lists are `check`'s findings, from the same rules
/// against the same machine, so the two never disagree; `check` adds what
/// each name resolves to and the fixes.
/// The JSON's `problems` are the same findings, every severity (the text
/// lists the warnings and errors and counts the notes).
pub fn run(args: &ShowArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    let (name, g) = super::gather(&args.env, &args.target, ctx)?;
    let report = g.report(ctx);
    // The exit code stays the inventory's (unreadable records, damaged
    // packages): `show` describes; `check` is the verdict.
    let status = if finding::has_findings(&g.inv.problems) {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    };
    if args.json {
        let inv = Inventory {
            problems: report.findings,
            ..g.inv
        };
        crate::report::json::write(out, &inv)?;
    } else {
        render(&g.inv, &report.findings, name.as_deref(), out).map_err(Error::Output)?;
    }
    Ok(status)
}

/// The human-readable summary.
fn render(
    inv: &Inventory,
    problems: &[finding::Problem],
    name: Option<&str>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    match name {
        Some(name) => writeln!(out, "environment  {name}  ({})", inv.prefix.display())?,
        None => writeln!(out, "environment  {}", inv.prefix.display())?,
    }
    if let Some(platform) = &inv.platform {
        writeln!(out, "platform     {platform}")?;
    }
    writeln!(out)?;
    for (label, claims) in [
        ("CUDA runtime", &inv.cuda),
        ("cuDNN", &inv.cudnn),
        ("cuBLAS", &inv.cublas),
        ("NCCL", &inv.nccl),
    ] {
        write_claims(out, label, claims)?;
    }

    write_frameworks(out, inv)?;
    write_workloads(out, inv, problems)?;
    write_library_dirs(out, inv)?;
    write_problems(out, problems, &inv.prefix)?;
    writeln!(out, "\n{}", read_line(&inv.stats))
}

/// What was read, in words a newcomer follows: envhook opens only the
/// packages that can hold CUDA libraries or GPU frameworks, so "2 of 4"
/// is the design, not a failure; a kind of package the environment has
/// none of is not mentioned.
fn read_line(s: &crate::inventory::Stats) -> String {
    let of = |read: usize, total: usize, kind: &str| {
        let noun = if total == 1 { "package" } else { "packages" };
        format!("{read} of {total} {kind} {noun}")
    };
    let mut read = Vec::new();
    if s.records_total > 0 {
        read.push(of(s.records_parsed, s.records_total, "conda"));
    }
    if s.dist_infos_total > 0 || read.is_empty() {
        read.push(of(s.dist_infos_read, s.dist_infos_total, "pip"));
    }
    format!(
        "read {} (envhook reads only those that can hold CUDA libraries or GPU frameworks); \
         checked {} library files on disk",
        read.join(" and "),
        s.libraries_checked
    )
}

/// The framework builds and what each was built for.
fn write_frameworks(out: &mut impl Write, inv: &Inventory) -> std::io::Result<()> {
    writeln!(out, "\nframeworks")?;
    if inv.frameworks.is_empty() {
        writeln!(out, "  none found")?;
    }
    for fw in &inv.frameworks {
        let target = match &fw.build.variant {
            Variant::Cuda { cuda, cudnn } => {
                let mut t = match cuda {
                    Some(c) => format!("built for CUDA {c}"),
                    None => "built for CUDA (version not recorded)".to_string(),
                };
                if let Some(d) = cudnn {
                    t.push_str(&format!(" / cuDNN {d}"));
                }
                t
            }
            Variant::Rocm { hip } => format!("built for ROCm (HIP {hip})"),
            Variant::Cpu => "built for CPU only".to_string(),
            Variant::Unknown => "CPU or GPU build not recorded".to_string(),
        };
        writeln!(
            out,
            "  {:<14} {} {} ({})  {target}  [{}]",
            fw.framework.display_name(),
            fw.package,
            fw.version,
            fw.installer.label(),
            fw.build.evidence
        )?;
    }
    Ok(())
}

/// The packages that run on a framework (PaddleOCR on Paddle), and what
/// each will run on: the framework's build here, how the package picks
/// the device, and what check finds wrong with that build.
fn write_workloads(
    out: &mut impl Write,
    inv: &Inventory,
    problems: &[finding::Problem],
) -> std::io::Result<()> {
    let here: Vec<_> = crate::data::catalog::CATALOG
        .workloads()
        .iter()
        .filter_map(|w| Some((w, inv.distributions.get(&w.name)?)))
        .collect();
    if here.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "
workloads"
    )?;
    for (w, version) in here {
        let builds: Vec<_> = inv
            .frameworks
            .iter()
            .filter(|fw| fw.framework == w.framework)
            .collect();
        let runs_on = match builds.first() {
            None => format!(
                "no {} in this environment: it cannot import it",
                w.framework.display_name()
            ),
            Some(fw) if fw.build.variant == Variant::Cpu => format!(
                "{} {}, a CPU build: it runs on the CPU",
                fw.package, fw.version
            ),
            Some(fw) => {
                let label = format!("{} {}", fw.package, fw.version);
                let errors: Vec<&str> = problems
                    .iter()
                    .filter(|p| {
                        p.severity == finding::Severity::Error && p.message.contains(&label)
                    })
                    .map(|p| p.code.as_str())
                    .collect();
                match errors.is_empty() {
                    true => format!("{label}, a GPU build; {}", w.device),
                    false => format!(
                        "{label}, a GPU build that check finds errors for ({}): fix them first; {}",
                        errors.join(", "),
                        w.device
                    ),
                }
            }
        };
        writeln!(out, "  {:<14} {version} (pip)  runs on {runs_on}", w.name)?;
    }
    Ok(())
}

/// The directories a hook exposes, and what they hold.
fn write_library_dirs(out: &mut impl Write, inv: &Inventory) -> std::io::Result<()> {
    writeln!(out, "\nlibrary directories")?;
    if inv.library_dirs.is_empty() {
        writeln!(out, "  none (no CUDA libraries from conda or pip)")?;
    }
    for dir in &inv.library_dirs {
        let holds = match dir.holds {
            DirHolds::Files => "",
            DirHolds::Symlinks => ", symlinks",
            DirHolds::Mixed => ", files and symlinks",
        };
        let components: Vec<&str> = dir.components.iter().map(String::as_str).collect();
        writeln!(
            out,
            "  {}  [{}; {}{holds}]",
            dir.path.display(),
            components.join(" "),
            dir.installer.label()
        )?;
    }

    Ok(())
}

/// `check`'s findings of severity warning and error, one line each, and
/// how many notes; `check` gives the reasons and the fixes.
fn write_problems(
    out: &mut impl Write,
    problems: &[finding::Problem],
    prefix: &std::path::Path,
) -> std::io::Result<()> {
    writeln!(out, "\nproblems")?;
    let loud: Vec<&finding::Problem> = problems
        .iter()
        .filter(|p| p.severity >= finding::Severity::Warning)
        .collect();
    let notes = problems.len() - loud.len();
    if loud.is_empty() {
        writeln!(out, "  none found")?;
    }
    for p in &loud {
        let message = p.message.split(". ").next().unwrap_or(&p.message);
        let tag = p.severity.tag(p.code, crate::colour::stdout());
        writeln!(out, "  {tag}: {message}")?;
    }
    if loud.is_empty() && notes == 0 {
        return Ok(());
    }
    let notes = match notes {
        0 => String::new(),
        1 => ", and 1 note".into(),
        n => format!(", and {n} notes"),
    };
    writeln!(
        out,
        "  (envhook check -p {} says why and what to do{notes})",
        crate::activation::shell::quote::posix(&prefix.display().to_string())
    )
}
fn write_claims(out: &mut impl Write, label: &str, claims: &[Claim]) -> std::io::Result<()> {
    if claims.is_empty() {
        return writeln!(out, "{label:<13} none");
    }
    for (i, c) in claims.iter().enumerate() {
        let label = if i == 0 { label } else { "" };
        writeln!(
            out,
            "{label:<13} {:<10} {} {} ({})",
            c.version,
            c.package,
            c.package_version,
            c.installer.label()
        )?;
    }
    Ok(())
}
