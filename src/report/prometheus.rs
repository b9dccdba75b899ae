//! `envhook audit --format prometheus`: the text exposition format that
//! node_exporter's textfile collector reads (`*.prom` files written by a
//! cron job or systemd timer), so a cluster's Prometheus knows which nodes'
//! environments will fail, and since when.
//!
//! Per environment (labels `env`, `prefix`): whether it could be read, its
//! findings by severity and code, its hook status, and an info metric whose
//! labels carry the CUDA, cuDNN and framework versions; per run, when it
//! ran, how long it took and how many environments it saw.

use std::fmt::Write as _;
use std::time::Duration;

use crate::audit::{Audit, Hook, Row};
use crate::finding::{Code, Severity};

/// A label value: `\`, `"` and line feeds escaped, as the format requires.
fn escape(value: &str) -> String {
    value
        .replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

/// A path's bytes as label text, losslessly: UTF-8 as it is, `\` doubled,
/// and each byte that is not UTF-8 as `\xNN`. Two environments whose names
/// differ only in such bytes (which `Path::display` would print alike) get
/// different label sets, so node_exporter keeps every series.
fn bytes_text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', r"\\"));
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

fn env_labels(r: &Row) -> String {
    use std::os::unix::ffi::OsStrExt;
    let prefix = bytes_text(r.prefix.as_os_str().as_bytes());
    // A named environment is named after its directory: from the bytes,
    // when they are not UTF-8.
    let env = match (&r.name, r.prefix.file_name()) {
        (Some(_), Some(dir)) if dir.to_str().is_none() => bytes_text(dir.as_bytes()),
        _ => bytes_text(r.label().as_bytes()),
    };
    format!("env=\"{}\",prefix=\"{}\"", escape(&env), escape(&prefix))
}

/// One metric family (every one is a gauge): `# HELP`, `# TYPE`, then the
/// samples `samples` writes.
fn family(out: &mut String, name: &str, help: &str, samples: impl FnOnce(&mut String)) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
    samples(out);
}

/// Render the audit; `took` is how long it ran.
pub fn render(a: &Audit, took: Duration) -> String {
    let mut out = String::new();
    let read = || a.envs.iter().filter(|r| r.status.error().is_none());
    family(
        &mut out,
        "envhook_env_readable",
        "1 when envhook could read the environment, 0 when not (metadata broken, mount not answering).",
        |o| {
            for r in &a.envs {
                let readable = u8::from(r.status.error().is_none());
                let _ = writeln!(o, "envhook_env_readable{{{}}} {readable}", env_labels(r));
            }
        },
    );
    family(
        &mut out,
        "envhook_env_findings",
        "Findings of an environment by severity and code (info included).",
        |o| a.envs.iter().for_each(|r| findings_samples(o, r)),
    );
    family(
        &mut out,
        "envhook_env_worst_severity",
        "The worst finding of an environment: 0 none, 1 info, 2 warning, 3 error (unreadable counts as error).",
        |o| a.envs.iter().for_each(|r| worst_sample(o, r)),
    );
    family(
        &mut out,
        "envhook_env_hook_status",
        "1 for the environment's LD_LIBRARY_PATH hook status, 0 for the others.",
        |o| read().for_each(|r| hook_samples(o, r)),
    );
    family(
        &mut out,
        "envhook_env_info",
        "Always 1; the labels carry the environment's CUDA runtime, cuDNN and framework builds.",
        |o| read().for_each(|r| info_sample(o, r)),
    );
    run_samples(&mut out, a, took);
    out
}

/// An environment's findings, one sample per severity and code.
fn findings_samples(out: &mut String, r: &Row) {
    let mut seen: Vec<(Severity, Code, usize)> = Vec::new();
    for p in &r.findings {
        match seen
            .iter_mut()
            .find(|(s, c, _)| *s == p.severity && *c == p.code)
        {
            Some(entry) => entry.2 += 1,
            None => seen.push((p.severity, p.code, 1)),
        }
    }
    for (severity, code, n) in seen {
        let _ = writeln!(
            out,
            "envhook_env_findings{{{},severity=\"{}\",code=\"{}\"}} {n}",
            env_labels(r),
            severity.label(),
            escape(code.as_str())
        );
    }
}

fn worst_sample(out: &mut String, r: &Row) {
    let worst = if r.status.error().is_some() {
        3
    } else {
        match r.worst() {
            None => 0,
            Some(Severity::Info) => 1,
            Some(Severity::Warning) => 2,
            Some(Severity::Error) => 3,
        }
    };
    let _ = writeln!(
        out,
        "envhook_env_worst_severity{{{}}} {worst}",
        env_labels(r)
    );
}

/// Every status, so each environment has one series per status (0 or 1)
/// and a change of status is a change of value, not of series.
fn hook_samples(out: &mut String, r: &Row) {
    for hook in Hook::ALL {
        let _ = writeln!(
            out,
            "envhook_env_hook_status{{{},status=\"{}\"}} {}",
            env_labels(r),
            hook.label(),
            u8::from(r.hook == hook)
        );
    }
}

fn info_sample(out: &mut String, r: &Row) {
    let frameworks: Vec<String> = r
        .frameworks
        .iter()
        .map(|f| format!("{} {}", f.package, f.version))
        .collect();
    let _ = writeln!(
        out,
        "envhook_env_info{{{},cuda=\"{}\",cudnn=\"{}\",frameworks=\"{}\"}} 1",
        env_labels(r),
        escape(&crate::report::versions(&r.cuda)),
        escape(&crate::report::versions(&r.cudnn)),
        escape(&frameworks.join(", "))
    );
}

/// The families of the run itself: how many environments, how long, when,
/// and which envhook with which data.
fn run_samples(out: &mut String, a: &Audit, took: Duration) {
    family(
        out,
        "envhook_audit_environments",
        "Environments the audit found.",
        |o| {
            let _ = writeln!(o, "envhook_audit_environments {}", a.envs.len());
            if let Some(n) = &a.nothing_found {
                // A comment the textfile collector ignores, for whoever
                // reads the file; the alert rules watch the gauge above.
                let _ = writeln!(
                    o,
                    "# envhook: no environments found; looked in: {}; {}",
                    n.looked_in.join(", ").replace('\n', " "),
                    n.hint.replace('\n', " ")
                );
            }
        },
    );
    family(
        out,
        "envhook_audit_duration_seconds",
        "How long the audit took.",
        |o| {
            let _ = writeln!(
                o,
                "envhook_audit_duration_seconds {:.3}",
                took.as_secs_f64()
            );
        },
    );
    family(
        out,
        "envhook_audit_timestamp_seconds",
        "When the audit ran (Unix time): how fresh this file is.",
        |o| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64());
            let _ = writeln!(o, "envhook_audit_timestamp_seconds {now:.3}");
        },
    );
    family(
        out,
        "envhook_build_info",
        "Always 1; the labels name envhook's version and its compatibility data.",
        |o| {
            let _ = writeln!(
                o,
                "envhook_build_info{{version=\"{}\",matrix=\"{}\"}} 1",
                env!("CARGO_PKG_VERSION"),
                escape(&a.matrix_version)
            );
        },
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn label_text_keeps_every_byte_apart() {
        use super::bytes_text;
        assert_eq!(bytes_text(b"paddle"), "paddle");
        assert_eq!(bytes_text(b"caf\xe9"), r"caf\xe9");
        assert_eq!(bytes_text(b"caf\xe8"), r"caf\xe8");
        // A name that spells the escape is not the byte.
        assert_eq!(bytes_text(br"caf\xe9"), r"caf\\xe9");
        assert_eq!(bytes_text("café".as_bytes()), "café");
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(super::escape("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
    }
}
