//! pip wheels that write the same files. The CUDA 11, 12 and 13 wheels of
//! one NVIDIA component install into the same `site-packages/nvidia/<x>/`
//! directory (`nvidia-cudnn-cu12` and `nvidia-cudnn-cu13` both own
//! `nvidia/cudnn/lib/libcudnn.so.9`), so two frameworks that pin different
//! ones (`pip install torch tensorflow[and-cuda]`) end with one wheel's
//! files written over the other's, and pip says nothing. The RECORD of each
//! wheel gives the size of every file it wrote: the one whose sizes match
//! the disk wrote last; the other's files are gone.
//!
//! Also here: a soname two CUDA lines both provide in different places
//! (CUDA 12's `nvidia/cusparse/lib/libcusparse.so.12` and CUDA 13's
//! `nvidia/cu13/lib/libcusparse.so.12`), of which the hook can expose one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Facts, finding};
use crate::finding::{Cmd, Code, Fix, Problem, Severity};
use crate::inventory::{Installer, Package};

/// The wheel-file rules.
pub fn check(f: &Facts) -> Vec<Problem> {
    let mut out = overwritten(f);
    // The hook exposes one file per soname; install says which it drops,
    // and so does check.
    if let Some(spec) = &f.spec {
        out.extend(
            spec.notes
                .iter()
                .filter(|p| p.code == Code::ShadowedLibrary)
                .cloned(),
        );
    }
    out
}

/// One finding per pair (overwritten wheel, wheel that wrote over it).
fn overwritten(f: &Facts) -> Vec<Problem> {
    // path -> the pip packages whose RECORD lists it, with the size.
    let mut owners: BTreeMap<&Path, Vec<(&Package, Option<u64>)>> = BTreeMap::new();
    for pkg in f
        .inv
        .packages
        .iter()
        .filter(|p| p.installer == Installer::Pip)
    {
        for lib in &pkg.libraries {
            owners
                .entry(lib.path.as_path())
                .or_default()
                .push((pkg, lib.recorded_size));
        }
    }
    // (overwritten, by) -> the files.
    let mut pairs: BTreeMap<(&str, &str), (&Package, &Package, Vec<PathBuf>)> = BTreeMap::new();
    for (path, listed) in owners.iter().filter(|(_, l)| l.len() > 1) {
        // A symlink's size is its own; only regular files are compared.
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let disk = meta.len();
        let Some(&(by, _)) = listed.iter().find(|(_, size)| *size == Some(disk)) else {
            continue; // nobody's size: damaged, a matter for the ELF checks
        };
        for &(lost, size) in listed {
            if size.is_some_and(|s| s != disk) && lost.name != by.name {
                pairs
                    .entry((lost.name.as_str(), by.name.as_str()))
                    .or_insert_with(|| (lost, by, Vec::new()))
                    .2
                    .push(path.to_path_buf());
            }
        }
    }
    pairs
        .into_values()
        .map(|(lost, by, files)| finding_for(f, lost, by, &files))
        .collect()
}

/// The frameworks whose pins name `pkg`, with the pin.
fn pinned_by<'a>(f: &'a Facts, pkg: &Package) -> Vec<Pinned<'a>> {
    f.inv
        .frameworks
        .iter()
        .filter_map(|fw| {
            fw.pins
                .iter()
                .find(|p| p.name == pkg.name)
                .map(|pin| Pinned { fw, pin })
        })
        .collect()
}

/// A framework and its pin on a wheel.
struct Pinned<'a> {
    fw: &'a crate::inventory::FrameworkBuild,
    pin: &'a crate::inventory::pins::Pin,
}

impl Pinned<'_> {
    /// `torch 2.15.0`.
    fn label(&self) -> String {
        format!("{} {}", self.fw.package, self.fw.version)
    }

    /// The command that makes an environment of its own for the
    /// framework, next to this one (`NAME-torch`), with this one's Python
    /// and the framework's release (and the extra its pin came with).
    fn own_environment(&self, f: &Facts) -> Cmd {
        let env = format!(
            "{}-{}",
            f.inv
                .prefix
                .file_name()
                .map_or("env".into(), |n| n.to_string_lossy()),
            self.fw.package
        )
        // conda refuses a name with any of these
        // (conda/base/constants.py, PREFIX_NAME_DISALLOWED_CHARS).
        .replace(['/', ' ', ':', '#'], "-");
        let python = python_version(f).map_or("python".into(), |v| format!("python={v}"));
        let extra = self
            .pin
            .extra
            .as_ref()
            .map_or(String::new(), |e| format!("[{e}]"));
        let spec = format!("{}{extra}=={}", self.fw.package, self.fw.version);
        Cmd::new("conda create -y -n")
            .arg(&env)
            .arg(python)
            .raw("pip")
            .and(
                Cmd::new("conda run -n")
                    .arg(env)
                    .raw("python -m pip install")
                    .arg(spec),
            )
    }
}

/// The environment's Python (`3.12`), from its site-packages directory
/// (`lib/python3.12/site-packages`).
fn python_version(f: &Facts) -> Option<String> {
    f.inv.packages.iter().find_map(|p| {
        p.metadata.components().find_map(|c| {
            let name = c.as_os_str().to_str()?;
            let v = name.strip_prefix("python")?;
            (v.contains('.') && v.split('.').all(|n| n.parse::<u32>().is_ok()))
                .then(|| v.to_string())
        })
    })
}

fn finding_for(f: &Facts, lost: &Package, by: &Package, files: &[PathBuf]) -> Problem {
    let lost_for = pinned_by(f, lost);
    let by_for = pinned_by(f, by);
    let message = overwritten_message(lost, by, files, &lost_for);
    let (severity, hint) = overwritten_fix(f, lost, by, &lost_for, &by_for);
    let mut p = finding(severity, Code::WheelFilesOverwritten, message, Some(hint));
    p.path = Some(lost.metadata.clone());
    p
}

/// Which files of `lost` were written over by `by`, and which frameworks
/// now load `by`'s copies.
fn overwritten_message(
    lost: &Package,
    by: &Package,
    files: &[PathBuf],
    lost_for: &[Pinned],
) -> String {
    let names: Vec<String> = files
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let dirs: Vec<String> = {
        let mut d: Vec<String> = files
            .iter()
            .filter_map(|p| p.parent().map(|d| d.display().to_string()))
            .collect();
        d.dedup();
        d
    };
    let loads = if lost_for.is_empty() {
        String::new()
    } else {
        format!(
            "; {} now load{} {} {}'s copies",
            lost_for
                .iter()
                .map(Pinned::label)
                .collect::<Vec<_>>()
                .join(" and "),
            if lost_for.len() == 1 { "s" } else { "" },
            by.name,
            by.version
        )
    };
    format!(
        "{} {}'s {} in {} {} written over by {} {} (RECORD sizes no longer match the disk){loads}",
        lost.name,
        lost.version,
        names.join(", "),
        dirs.join(", "),
        if names.len() == 1 { "was" } else { "were" },
        by.name,
        by.version,
    )
}

/// The fix, by whose pins the two wheels are: separate environments when
/// both are frameworks' own, else the one nothing pins goes.
fn overwritten_fix(
    f: &Facts,
    lost: &Package,
    by: &Package,
    lost_for: &[Pinned],
    by_for: &[Pinned],
) -> (Severity, Fix) {
    let reinstall = |out: &Package, back: String| {
        let py = || super::fixes::pip(&f.inv.prefix);
        let swap = py()
            .raw("uninstall -y")
            .arg(&out.name)
            .and(py().raw("install --force-reinstall --no-deps").arg(back));
        super::fixes::then_refresh(swap, &f.inv.prefix)
    };
    match (lost_for.is_empty(), by_for.is_empty()) {
        // Both wheels are some framework's own: no one set of files
        // satisfies both pins.
        (false, false) => (
            Severity::Error,
            Fix::Choose {
                advice: format!(
                    "no one set of wheels satisfies both ({}), and {} and {} install the same \
                     files: put the frameworks in separate environments",
                    lost_for
                        .iter()
                        .chain(by_for)
                        .map(|p| format!("{} requires {}", p.label(), p.pin.requirement))
                        .collect::<Vec<_>>()
                        .join("; "),
                    lost.name,
                    by.name
                ),
                commands: lost_for
                    .iter()
                    .chain(by_for)
                    .map(|p| p.own_environment(f))
                    .collect(),
            },
        ),
        // The framework's wheel lost its files to one nothing pins.
        (false, true) => (
            Severity::Warning,
            Fix::Command(reinstall(by, format!("{}=={}", lost.name, lost.version))),
        ),
        // A leftover wheel: uninstalling it would delete the files the
        // other now owns, so that one is written again after.
        (true, _) => (
            if by_for.is_empty() {
                Severity::Info
            } else {
                Severity::Warning
            },
            Fix::Command(reinstall(lost, format!("{}=={}", by.name, by.version))),
        ),
    }
}
