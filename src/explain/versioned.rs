//! Symbols that carry the release which first defines them: nvJitLink's
//! entry points are `__nvJitLinkComplete_12_4` (version `libnvJitLink.so.12`),
//! so a cuSPARSE, cuSOLVER or cuFFT from CUDA 12.4 needs nvJitLink 12.4 or
//! newer, and an older copy loaded first fails with "undefined symbol:
//! __nvJitLinkComplete_12_4" (pytorch/pytorch#134929, #131312). The answer
//! decodes the release, compares the environment's nvJitLink, and names
//! the copy the loader takes.

use crate::data::matrix::version;
use crate::finding::{Fix, quoted, quoted_path};
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
    // check's closure found the very failure: its finding names the copy.
    if let Some(p) = report
        .findings
        .iter()
        .find(|p| p.code == "symbol-missing" && p.message.contains(name))
    {
        a.diagnosis.push_str(&format!(" Here: {}.", p.message));
        a.cause = Some(true);
        a.fix = p.fix.clone();
        return a;
    }
    let major = need.split('.').next().unwrap_or("12");
    if let Some((_, installer)) = older.first() {
        a.diagnosis.push_str(&format!(
            " This environment's nvJitLink {} is older.",
            older.iter().map(|(v, _)| *v).collect::<Vec<_>>().join(", ")
        ));
        a.cause = Some(true);
        a.fix = Some(Fix::Command(match installer {
            Installer::Pip => {
                let dist = if major == "12" {
                    "nvidia-nvjitlink-cu12".to_string()
                } else {
                    "nvidia-nvjitlink".to_string()
                };
                format!(
                    "{} install {}",
                    crate::rules::fixes::pip(&f.inv.prefix),
                    quoted(&format!("{dist}>={need},<{}", next(major)))
                )
            }
            Installer::Conda => {
                format!(
                    "conda install -p {} -c conda-forge {}",
                    quoted_path(&f.inv.prefix),
                    quoted(&format!("libnvjitlink>={need},<{}", next(major)))
                )
            }
        }));
    } else if !held.is_empty() {
        a.diagnosis.push_str(
            " This environment's nvJitLink is new enough, so the process loaded another copy \
             (an LD_LIBRARY_PATH or a system CUDA that comes first).",
        );
        a.cause = Some(false);
    }
    a
}

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
