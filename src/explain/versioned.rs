//! Symbols that carry the release which first defines them: nvJitLink's
//! entry points are `__nvJitLinkComplete_12_4` (version `libnvJitLink.so.12`),
//! so a cuSPARSE, cuSOLVER or cuFFT from CUDA 12.4 needs nvJitLink 12.4 or
//! newer, and an older copy loaded first fails with "undefined symbol:
//! __nvJitLinkComplete_12_4" (pytorch/pytorch#134929, #131312). The answer
//! decodes the release, compares the environment's nvJitLink, and names
//! the copy the loader takes.

use crate::data::matrix::version;
use crate::finding::{Cmd, Code, Fix};
use crate::inventory::Installer;
use crate::rules::{Facts, Report};

/// `__nvJitLinkComplete_12_4` -> `12.4`: the `_X_Y` suffix of a symbol of
/// a library that versions its entry points so.
pub fn release_in_name(symbol: &str) -> Option<String> {
    let mut parts = symbol.rsplitn(3, '_');
    let minor = parts.next()?;
    let major = parts.next()?;
    let ok = |p: &str| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit());
    (ok(major) && ok(minor) && parts.next().is_some_and(|p| !p.is_empty()))
        .then(|| format!("{major}.{minor}"))
}

/// What an nvJitLink symbol means in the environment.
#[derive(Debug, Default)]
pub struct Reading {
    /// The environment's nvJitLink releases, a line each.
    pub here: Vec<String>,
    /// What it means here.
    pub diagnosis: String,
    /// `Some(true)`: the cause is here; `Some(false)`: not here; `None`:
    /// cannot tell.
    pub cause: Option<bool>,
    /// The command that fixes it.
    pub fix: Option<Fix>,
}

/// The reading of an nvJitLink symbol that needs release `need`.
pub fn nvjitlink(f: &Facts, report: &Report, name: &str, need: &str) -> Reading {
    let mut a = Reading::default();
    let held: Vec<(&str, Installer)> = f
        .inv
        .packages
        .iter()
        .filter(|p| p.component.as_deref() == Some("nvjitlink"))
        .map(|p| (p.version.as_str(), p.installer))
        .collect();
    a.here = held
        .iter()
        .map(|(v, i)| format!("nvJitLink {v} ({})", i.label()))
        .collect();
    let older: Vec<&(&str, Installer)> = held
        .iter()
        .filter(|(v, _)| version(v) < version(need))
        .collect();
    a.diagnosis = format!(
        "{name} is defined by nvJitLink {need} and newer: the library that needs it (cuSPARSE, \
         cuSOLVER or cuFFT of CUDA {need} or newer) was loaded with an older libnvJitLink."
    );
    let major = need.split('.').next().unwrap_or("12");
    // An older copy on this shell's LD_LIBRARY_PATH, where the
    // environment's own would do.
    let shell = older
        .is_empty()
        .then(|| shell_copy(f, major, need))
        .flatten();
    // check's closure found the very failure: its finding names the copy.
    if let Some(p) = report
        .findings
        .iter()
        .find(|p| p.code == Code::SymbolMissing && p.message.contains(name))
    {
        found_by_check(&mut a, p, shell);
        return a;
    }
    if let Some((_, installer)) = older.first() {
        a.diagnosis.push_str(&format!(
            " This environment's nvJitLink {} is older.",
            older.iter().map(|(v, _)| *v).collect::<Vec<_>>().join(", ")
        ));
        a.cause = Some(true);
        a.fix = Some(upgrade(f, *installer, major, need));
    } else if !held.is_empty()
        && let Some(shell) = shell
    {
        shell_cause(&mut a, shell);
    } else if !held.is_empty() {
        a.diagnosis.push_str(
            " This environment's nvJitLink is new enough, so the process loaded another copy \
             (an LD_LIBRARY_PATH or a system CUDA that comes first).",
        );
        a.cause = Some(false);
    }
    a
}

/// check's closure found the failure: its finding names the copy, and
/// where that copy is the shell's, the shell's variable is the cause.
fn found_by_check(a: &mut Reading, p: &crate::finding::Problem, shell: Option<ShellCopy>) {
    a.diagnosis.push_str(&format!(" Here: {}.", p.message));
    a.cause = Some(true);
    a.fix = p.fix.clone();
    if let Some(shell) = shell {
        a.diagnosis.push_str(SHELL_CAUSE);
        a.fix = Some(match p.fix.clone() {
            Some(Fix::Command(hook)) => Fix::Choose {
                advice: "take that directory out of this shell's LD_LIBRARY_PATH, or let the \
                         environment's hook put its own copy first"
                    .to_string(),
                commands: vec![shell.without, hook],
            },
            _ => Fix::Command(shell.without),
        });
    }
}

/// The environment's copy would do; the shell's variable put an older one
/// first (infiniflow/ragflow#4466: LD_LIBRARY_PATH=/usr/local/cuda-12.1/lib64).
fn shell_cause(a: &mut Reading, shell: ShellCopy) {
    a.diagnosis.push_str(&format!(
        " This environment's nvJitLink is new enough, but this shell's LD_LIBRARY_PATH puts {} \
         first, {}: LD_LIBRARY_PATH is searched before the RUNPATH that leads to the \
         environment's copy.{SHELL_CAUSE}",
        shell.file.display(),
        shell.release.as_deref().map_or_else(
            || "whose release envhook cannot read from its name".to_string(),
            |r| format!("nvJitLink {r}")
        )
    ));
    a.cause = Some(true);
    a.fix = Some(Fix::Command(shell.without));
}

/// The install of nvJitLink `need` or newer of the same major, by the
/// installer of the environment's older copy.
fn upgrade(f: &Facts, installer: Installer, major: &str, need: &str) -> Fix {
    let spec = match installer {
        Installer::Pip if major == "12" => "nvidia-nvjitlink-cu12",
        Installer::Pip => "nvidia-nvjitlink",
        Installer::Conda => "libnvjitlink",
    };
    let spec = format!("{spec}>={need},<{}", next(major));
    Fix::Command(crate::rules::fixes::install_with(
        installer,
        &f.inv.prefix,
        spec,
    ))
}

/// An nvJitLink of this shell's LD_LIBRARY_PATH, outside the environment,
/// that the loader takes before the environment's.
struct ShellCopy {
    /// `DIR/libnvJitLink.so.12`.
    file: std::path::PathBuf,
    /// Its release, from the name of the file the soname leads to
    /// (`libnvJitLink.so.12.1.105` -> `12.1.105`).
    release: Option<String>,
    /// The command that takes its directory out of LD_LIBRARY_PATH.
    without: Cmd,
}

/// The first directory of the shell's LD_LIBRARY_PATH that holds
/// `libnvJitLink.so.MAJOR`, where it is outside the environment and not
/// known to be `need` or newer.
fn shell_copy(f: &Facts, major: &str, need: &str) -> Option<ShellCopy> {
    let value = f.ctx.var_os_raw("LD_LIBRARY_PATH")?;
    let soname = format!("libnvJitLink.so.{major}");
    let dirs: Vec<&str> = value.split(':').collect();
    let (at, dir) = dirs
        .iter()
        .enumerate()
        .find(|(_, d)| !d.is_empty() && std::path::Path::new(d).join(&soname).exists())?;
    let dir = std::path::Path::new(dir);
    if dir.starts_with(&f.inv.prefix) {
        return None;
    }
    let file = dir.join(&soname);
    let release = std::fs::canonicalize(&file).ok().and_then(|real| {
        let name = real.file_name()?.to_str()?.to_string();
        name.strip_prefix("libnvJitLink.so.")
            .filter(|r| r.contains('.'))
            .map(String::from)
    });
    if release
        .as_deref()
        .is_some_and(|r| version(r) >= version(need))
    {
        return None;
    }
    // The other directories in their order; empty elements (the working
    // directory, mostly a stray colon) go with it.
    let rest: Vec<&str> = dirs
        .iter()
        .enumerate()
        .filter(|(i, d)| *i != at && !d.is_empty())
        .map(|(_, d)| *d)
        .collect();
    let without = if rest.is_empty() {
        Cmd::new("unset LD_LIBRARY_PATH")
    } else {
        Cmd::new("export LD_LIBRARY_PATH=").glued_value(rest.join(":"))
    };
    Some(ShellCopy {
        file,
        release,
        without,
    })
}

/// Said where the older copy is the shell's.
const SHELL_CAUSE: &str = " The cause is this shell's own LD_LIBRARY_PATH, not the environment.";

/// The next major: `12` -> `13`.
fn next(major: &str) -> u32 {
    major.parse::<u32>().map_or(0, |m| m + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_in_symbol_names() {
        assert_eq!(
            release_in_name("__nvJitLinkComplete_12_4").as_deref(),
            Some("12.4")
        );
        assert_eq!(
            release_in_name("__nvJitLinkGetErrorLogSize_12_9").as_deref(),
            Some("12.9")
        );
        assert_eq!(
            release_in_name("__nvJitLinkCreate_13_0").as_deref(),
            Some("13.0")
        );
        assert_eq!(release_in_name("cudnnCreate"), None);
        assert_eq!(release_in_name("_12_4"), None);
        assert_eq!(release_in_name("x_1234_5"), None);
    }
}
