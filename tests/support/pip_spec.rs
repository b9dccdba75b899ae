//! The pip specs in a printed fix, held to what pip would do with them: a
//! spec no version satisfies (`==9.5.1.17,>=9.7`) fails the install, and a
//! command whose every spec the environment already satisfies installs
//! nothing (`nvidia-cudnn-cu12==9.5.1.17` where 9.5.1.17 is installed).
//! Versions compare by their numeric release parts, which is all the
//! specs envhook prints use.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

/// One spec: the distribution (normalised), whether it names extras, and
/// its clauses (`>=`, `8.6`).
#[derive(Debug)]
pub struct Spec {
    pub name: String,
    pub extras: bool,
    pub clauses: Vec<(String, String)>,
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
    let spec = spec.split(';').next()?.trim();
    let end = spec
        .find(['[', '<', '>', '=', '!', '~'])
        .unwrap_or(spec.len());
    let name = spec[..end].trim().to_lowercase().replace('_', "-");
    let mut rest = &spec[end..];
    let extras = rest.starts_with('[');
    if extras {
        rest = &rest[rest.find(']')? + 1..];
    }
    let clauses = rest
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(|c| {
            let at = c.find(|ch: char| ch.is_ascii_digit()).unwrap_or(c.len());
            (c[..at].trim().to_string(), c[at..].trim().to_string())
        })
        .collect();
    (!name.is_empty()).then_some(Spec {
        name,
        extras,
        clauses,
    })
}

fn parts(v: &str) -> Vec<u64> {
    v.split('.')
        .map_while(|p| {
            let digits: String = p.chars().take_while(|c| c.is_ascii_digit()).collect();
            digits.parse().ok()
        })
        .collect()
}

fn cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (parts(a), parts(b));
    let n = a.len().max(b.len());
    a.resize(n, 0);
    b.resize(n, 0);
    a.cmp(&b)
}

/// Whether version `v` satisfies one clause.
fn allows(v: &str, (op, want): &(String, String)) -> bool {
    if let Some(prefix) = want.strip_suffix(".*") {
        let (v, p) = (parts(v), parts(prefix));
        let matches = v.len() >= p.len() && v[..p.len()] == p[..];
        return if op == "!=" { !matches } else { matches };
    }
    let o = cmp(v, want);
    match op.as_str() {
        "==" | "===" => o == Ordering::Equal,
        "!=" => o != Ordering::Equal,
        ">=" => o != Ordering::Less,
        ">" => o == Ordering::Greater,
        "<=" => o != Ordering::Greater,
        "<" => o == Ordering::Less,
        "~=" => o != Ordering::Less,
        _ => true,
    }
}

/// Whether some version satisfies every clause: an exact one must pass the
/// others; ranges need their highest floor below their lowest ceiling.
pub fn satisfiable(spec: &Spec) -> bool {
    if let Some((_, v)) = spec
        .clauses
        .iter()
        .find(|(op, v)| op == "==" && !v.ends_with(".*"))
    {
        return spec.clauses.iter().all(|c| allows(v, c));
    }
    let floor = spec
        .clauses
        .iter()
        .filter(|(op, _)| op.starts_with('>') || op == "~=")
        .max_by(|a, b| cmp(&a.1, &b.1));
    let ceiling = spec
        .clauses
        .iter()
        .filter(|(op, _)| op.starts_with('<'))
        .min_by(|a, b| cmp(&a.1, &b.1));
    match (floor, ceiling) {
        (Some(f), Some(c)) => match cmp(&f.1, &c.1) {
            Ordering::Less => true,
            Ordering::Equal => f.0 == ">=" && c.0 == "<=",
            Ordering::Greater => false,
        },
        _ => true,
    }
}

/// The version of `name` installed in `prefix`'s site-packages.
pub fn installed(prefix: &Path, name: &str) -> Option<String> {
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
            if dist.to_lowercase().replace('_', "-") == name {
                return Some(version.to_string());
            }
        }
    }
    None
}

/// Why `line`'s pip installs would fail or change nothing, if they would.
pub fn fault(line: &str, prefixes: &[PathBuf]) -> Option<String> {
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
                    || installed(&prefix, &s.name)
                        .is_none_or(|v| !s.clauses.iter().all(|c| allows(&v, c)))
            });
        if !changes && !specs.is_empty() {
            return Some("every spec is already satisfied: the command changes nothing".into());
        }
    }
    None
}
