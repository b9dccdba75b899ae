//! Who in the environment asks for a library a message names: the
//! framework objects whose DT_NEEDED name it, else those that ask
//! cuda-pathfinder for a request it is one of the sonames of, else for a
//! library pathfinder loads it before, as its dependency.

use crate::data::matrix::PathfinderRow;
use crate::inventory::FrameworkBuild;
use crate::inventory::needs::needs;
use crate::rules::{Facts, Report};

/// The frameworks whose objects ask for `name`, as "object of package
/// version, built for ...". Where none does, those that ask for a library
/// cuda-pathfinder loads `name` before, as its dependency: CuPy asks for
/// libcublas.so.12, and pathfinder fails first on libcublasLt.so.12.
pub(super) fn askers<'a>(
    f: &Facts<'a>,
    report: &Report,
    name: &str,
) -> Vec<(String, &'a FrameworkBuild)> {
    let direct = asked_directly(f, report, name);
    if !direct.is_empty() {
        return direct;
    }
    let siblings = siblings(f, report, name);
    if !siblings.is_empty() {
        return siblings;
    }
    as_dependency(f, report, name)
}

/// Those who ask cuda-pathfinder for a request `name` is one of the
/// sonames of ("libcudart.so.13 or libcudart.so.12").
pub(super) fn siblings<'a>(
    f: &Facts<'a>,
    report: &Report,
    name: &str,
) -> Vec<(String, &'a FrameworkBuild)> {
    through(
        f,
        report,
        f.matrix
            .pathfinder
            .iter()
            .filter(|r| r.sonames.iter().any(|s| s == name)),
        |soname| soname != name,
        |by, soname, _| format!("{by}, which cuda-pathfinder serves with {soname} or {name}"),
    )
}

/// Those who ask cuda-pathfinder for a library it loads `name`'s library
/// before, as its dependency (in whichever major that library needs).
fn as_dependency<'a>(
    f: &Facts<'a>,
    report: &Report,
    name: &str,
) -> Vec<(String, &'a FrameworkBuild)> {
    let stem = name.split(".so").next().unwrap_or(name);
    through(
        f,
        report,
        f.matrix
            .pathfinder
            .iter()
            .filter(|r| r.dependencies.iter().any(|d| d == stem)),
        |_| true,
        |by, soname, row| {
            format!(
                "{by}, through {soname}: cuda-pathfinder loads {stem} first, as {}'s dependency",
                row.library
            )
        },
    )
}

/// Those who ask for the sonames of cuda-pathfinder `rows` that `take`
/// keeps, each said by `line` once.
fn through<'a, 'r>(
    f: &Facts<'a>,
    report: &Report,
    rows: impl Iterator<Item = &'r PathfinderRow>,
    take: impl Fn(&str) -> bool,
    line: impl Fn(&str, &str, &PathfinderRow) -> String,
) -> Vec<(String, &'a FrameworkBuild)> {
    let mut out: Vec<(String, &FrameworkBuild)> = Vec::new();
    for row in rows {
        for soname in row.sonames.iter().filter(|s| take(s)) {
            for (by, fw) in asked_directly(f, report, soname) {
                let said = line(&by, soname, row);
                if !out.iter().any(|(l, _)| *l == said) {
                    out.push((said, fw));
                }
            }
        }
    }
    out
}

/// The frameworks whose objects ask for `name` themselves.
pub(super) fn asked_directly<'a>(
    f: &Facts<'a>,
    report: &Report,
    name: &str,
) -> Vec<(String, &'a FrameworkBuild)> {
    let mut out = Vec::new();
    for lib in &report.libraries {
        if !lib.names.iter().any(|n| n.name == name) {
            continue;
        }
        let Some(fw) = f
            .inv
            .frameworks
            .iter()
            .find(|fw| fw.framework == lib.framework)
        else {
            continue;
        };
        let built = needs(fw, f.matrix)
            .map(|n| match (n.cuda, n.cudnn) {
                (Some(c), Some(d)) => format!(", built for CUDA {c} / cuDNN {d}"),
                (Some(c), None) => format!(", built for CUDA {c}"),
                _ => String::new(),
            })
            .unwrap_or_default();
        let object = lib
            .object
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        out.push((
            format!(
                "{} of {} {}{built}",
                object.unwrap_or_default(),
                fw.package,
                fw.version
            ),
            fw,
        ));
    }
    out
}
