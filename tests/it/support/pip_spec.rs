//! The pip specs in a printed fix, held to what pip would do with them: a
//! spec no version satisfies (`==9.5.1.17,>=9.7`) fails the install, and a
//! command whose every spec the environment already satisfies installs
//! nothing (`nvidia-cudnn-cu12==9.5.1.17` where 9.5.1.17 is installed).
//! Specs are read with `pep508_rs`, the parser envhook reads pins with.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use pep508_rs::pep440_rs::{Operator, Version, VersionSpecifiers};
use pep508_rs::{Requirement, VerbatimUrl, VersionOrUrl};

/// One spec: the distribution (normalised), whether it names extras, and
/// its version specifiers.
#[derive(Debug)]
pub struct Spec {
    pub name: String,
    pub extras: bool,
    pub specifiers: VersionSpecifiers,
}

/// The quoted specs of each `python -m pip install` in `line`, with the
/// prefix whose Python runs it.
pub fn pip_installs(line: &str, prefixes: &[PathBuf]) -> Vec<(PathBuf, Vec<Spec>)> {
    let mut out = Vec::new();
    for command in line.split(" && ") {
        let Some((python, args)) = command.split_once(" -m pip install ") else {
            continue;
        };
        let Some(prefix) = prefixes.iter().find(|p| {
            let py = p.join("bin/python").display().to_string();
            python.trim() == format!("'{}'", py.replace('\'', r"'\''"))
        }) else {
            continue;
        };
        let specs = args
            .split('\'')
            .skip(1)
            .step_by(2)
            .filter_map(parse)
            .collect();
        out.push((prefix.clone(), specs));
    }
    out
}

fn parse(spec: &str) -> Option<Spec> {
    let req = Requirement::<VerbatimUrl>::from_str(spec).ok()?;
    let specifiers = match req.version_or_url {
        Some(VersionOrUrl::VersionSpecifier(s)) => s,
        _ => VersionSpecifiers::from_str("").ok()?,
    };
    Some(Spec {
        name: normalize(req.name.as_ref()),
        extras: !req.extras.is_empty(),
        specifiers,
    })
}

fn normalize(name: &str) -> String {
    name.to_lowercase().replace(['_', '.'], "-")
}

/// Whether some version satisfies every specifier: an exact one must pass
/// the others; ranges need their highest floor below their lowest ceiling.
pub fn satisfiable(spec: &Spec) -> bool {
    let s = &spec.specifiers;
    if let Some(exact) = s.iter().find(|c| *c.operator() == Operator::Equal) {
        return s.contains(exact.version());
    }
    const FLOORS: &[Operator] = &[
        Operator::GreaterThan,
        Operator::GreaterThanEqual,
        Operator::TildeEqual,
    ];
    const CEILINGS: &[Operator] = &[Operator::LessThan, Operator::LessThanEqual];
    let floor = s
        .iter()
        .filter(|c| FLOORS.contains(c.operator()))
        .max_by(|a, b| a.version().cmp(b.version()));
    let ceiling = s
        .iter()
        .filter(|c| CEILINGS.contains(c.operator()))
        .min_by(|a, b| a.version().cmp(b.version()));
    match (floor, ceiling) {
        (Some(f), Some(c)) => match f.version().cmp(c.version()) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => {
                *f.operator() == Operator::GreaterThanEqual
                    && *c.operator() == Operator::LessThanEqual
            }
            std::cmp::Ordering::Greater => false,
        },
        _ => true,
    }
}

/// The version of `name` installed in `prefix`'s site-packages.
pub fn installed(prefix: &Path, name: &str) -> Option<Version> {
    for lib in std::fs::read_dir(prefix.join("lib")).ok()?.flatten() {
        let site = lib.path().join("site-packages");
        for entry in std::fs::read_dir(&site).into_iter().flatten().flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            let Some(stem) = file.strip_suffix(".dist-info") else {
                continue;
            };
            let Some((dist, version)) = stem.rsplit_once('-') else {
                continue;
            };
            if normalize(dist) == name {
                return Version::from_str(version).ok();
            }
        }
    }
    None
}

/// The distributions a `python -m pip uninstall` in `line` removes
/// (normalised): one its install then puts back changes something even at
/// the version installed (a build of another CUDA from another index).
fn uninstalled(line: &str) -> Vec<String> {
    line.split(" && ")
        .filter_map(|c| c.split_once(" -m pip uninstall "))
        .flat_map(|(_, args)| args.split('\'').skip(1).step_by(2).map(normalize))
        .collect()
}

/// Why `line`'s pip installs would fail or change nothing, if they would.
pub fn fault(line: &str, prefixes: &[PathBuf]) -> Option<String> {
    let removed = uninstalled(line);
    for (prefix, specs) in pip_installs(line, prefixes) {
        if let Some(s) = specs.iter().find(|s| !satisfiable(s)) {
            return Some(format!("no version satisfies {s:?}"));
        }
        // A forced reinstall rewrites what is there (files another wheel
        // wrote over).
        let forced = line.contains(" --force-reinstall ");
        let changes = forced
            || specs.iter().any(|s| {
                s.extras
                    || removed.contains(&s.name)
                    || installed(&prefix, &s.name).is_none_or(|v| !s.specifiers.contains(&v))
            });
        if !changes && !specs.is_empty() {
            return Some("every spec is already satisfied: the command changes nothing".into());
        }
    }
    None
}
