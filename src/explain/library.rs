//! What a library the message names means in this environment: what it
//! holds of the library, who asks for that version and what it was built
//! for, whether the loader reaches it with and without envhook's hook, and
//! the one fix.

use super::answer::{Answer, Verdict, held};
use super::askers::{asked_directly, askers, siblings};
use super::clues::{Clue, soname_fact};
use super::numbers::component_name;
use crate::data::catalog::CATALOG;
use crate::finding::{Cmd, Code, Fix};
use crate::inventory::FrameworkBuild;
use crate::machine::resolve::Found;
use crate::rules::{Facts, Report, fixes, libraries};

/// The versioned files of a library stem the environment has, sorted.
fn files(f: &Facts, stem: &str) -> Vec<String> {
    let mut out: Vec<String> = f.inv.versioned_names(stem).map(String::from).collect();
    out.sort();
    out.dedup();
    out
}

/// The major of the soname a file name carries: `libcudnn.so.9.1.1` -> 9.
fn soname_major(file: &str) -> Option<u32> {
    crate::inventory::needs::name_major(file)?.parse().ok()
}

/// Answer a library the message names (`libcudnn.so.8`, of `component`,
/// whose soname's major is `wanted`).
pub fn answer(
    f: &Facts,
    report: &Report,
    clue: &Clue,
    name: &str,
    component: Option<&str>,
    wanted: Option<u32>,
) -> Answer {
    match soname_fact(name, component, wanted) {
        // No release has that name: answer for the real one, and say so.
        Some(fact) => {
            let mut a = library(f, report, clue, &fact.soname, component, wanted);
            a.diagnosis = format!(
                "no release has {name}: {}; for {}: {}",
                fact.note, fact.soname, a.diagnosis
            );
            a
        }
        None => library(f, report, clue, name, component, wanted),
    }
}

/// A Windows DLL the message names: Windows's search, which envhook does
/// not see.
pub fn dll(clue: &Clue, name: &str) -> Answer {
    let mut a = Answer::blank(clue, Vec::new());
    a.diagnosis = format!(
        "{name} is a Windows DLL: Windows searches PATH and the directories added with \
         os.add_dll_directory, not LD_LIBRARY_PATH; envhook checks Linux environments and \
         cannot see this machine's DLL search"
    );
    a
}

/// A library by name: the driver's, a framework's own object, another
/// major than the environment holds, or where the loader finds it.
fn library(
    f: &Facts,
    report: &Report,
    clue: &Clue,
    name: &str,
    component: Option<&str>,
    wanted: Option<u32>,
) -> Answer {
    let stem = name.split(".so").next().unwrap_or(name);
    let what = component.map_or_else(|| stem.to_string(), |c| component_name(c).to_string());
    let here = held(f, component, &what);
    let have = files(f, stem);
    let asked: Vec<(String, &FrameworkBuild)> = askers(f, report, name);
    let (with_hook, without_hook, hook_target) = resolved(f, report, name);
    let a = Answer {
        clue: clue.clone(),
        here,
        asked_by: asked.iter().map(|(s, _)| s.clone()).collect(),
        with_hook,
        without_hook,
        hook_target,
        diagnosis: String::new(),
        verdict: Verdict::Cause,
        fix: None,
    };
    // The fix installs what the asking framework was built for; with no
    // asker in the environment there is no build to read a version from,
    // and a guessed one could break the frameworks that are here.
    let fix_for = || {
        component.and_then(|c| {
            asked
                .first()
                .map(|(_, fw)| fixes::for_framework(f, fw, &[c]))
        })
    };
    let asker = asked
        .first()
        .map(|(_, fw)| format!("{} {}", fw.package, fw.version))
        .unwrap_or_default();
    let ask = Asked {
        name,
        what: &what,
        have: &have,
        nobody: asked.is_empty(),
        indirect: only_as_dependency(f, report, name, &asked),
        fix: &fix_for,
        report,
        asker: &asker,
        extra: component.and_then(|c| {
            asked
                .first()
                .and_then(|(_, fw)| super::agree::missing_extra(fw, c))
        }),
    };
    // The driver's own library: `explain::driver` answers it from this.
    if is_driver(name, component) {
        return a;
    }
    // A framework's own CUDA object (ONNX Runtime's "Failed to load library
    // libonnxruntime_providers_cuda.so with error: ..."): it is here, and
    // what it failed to load is the rest of the message.
    if let Some(object) = report
        .libraries
        .iter()
        .find(|l| l.object.file_name().is_some_and(|n| n == name))
    {
        return framework_object(a, name, object);
    }
    if let Some((sibling, found)) = served_by_sibling(f, report, name) {
        return sibling_found(a, name, &sibling, &found, f);
    }
    let majors: Vec<u32> = have.iter().filter_map(|f| soname_major(f)).collect();
    if let Some(w) = wanted
        && !majors.is_empty()
        && !majors.contains(&w)
    {
        return other_major(a, &ask, w);
    }
    located(f, a, &ask, wanted)
}

/// What `library` knows of a name while it decides: the component's name,
/// the environment's files of it, whether anything here asks for it, and
/// the fix for the framework that does.
struct Asked<'a> {
    name: &'a str,
    what: &'a str,
    have: &'a [String],
    nobody: bool,
    /// Only as a dependency cuda-pathfinder loads first, which it loads in
    /// the major the library that needs it asks for, not in `name`'s.
    indirect: bool,
    fix: &'a dyn Fn() -> Option<Fix>,
    /// check's report, whose finding for the name explain agrees with.
    report: &'a Report,
    /// The first framework that asks for it, `tensorflow 2.16.1`.
    asker: &'a str,
    /// The extra that framework was installed without whose wheels bring
    /// the name (`and-cuda`).
    extra: Option<String>,
}

/// The name is a framework's own CUDA object, loaded by path.
fn framework_object(mut a: Answer, name: &str, object: &libraries::LibraryCheck) -> Answer {
    a.here = vec![format!(
        "{} ({})",
        object.object.display(),
        object.framework.display_name()
    )];
    a.diagnosis = format!(
        "{name} is here: it is the framework's CUDA object that failed to load, and the \
         library it could not load is the cause"
    );
    // The framework's Python code loads it by path.
    let found = Found {
        path: object.object.clone(),
        rule: crate::machine::resolve::Rule::Path,
    };
    a.with_hook = Some(found.clone());
    a.without_hook = Some(found);
    a.verdict = Verdict::CannotTell;
    a
}

/// Whether those who ask for `name` (`asked`) do so only through a library
/// cuda-pathfinder loads it for, as its dependency.
fn only_as_dependency(
    f: &Facts,
    report: &Report,
    name: &str,
    asked: &[(String, &FrameworkBuild)],
) -> bool {
    !asked.is_empty()
        && asked_directly(f, report, name).is_empty()
        && siblings(f, report, name).is_empty()
}

/// Where nothing here asks for `name` itself, only cuda-pathfinder as one
/// of a request's sonames ("libcudart.so.13 or libcudart.so.12"): the
/// other soname of that request the loader reaches here, and where.
fn served_by_sibling(f: &Facts, report: &Report, name: &str) -> Option<(String, Found)> {
    if !asked_directly(f, report, name).is_empty() {
        return None;
    }
    f.matrix
        .pathfinder
        .iter()
        .filter(|r| r.sonames.iter().any(|s| s == name))
        .flat_map(|r| r.sonames.iter())
        .filter(|s| *s != name)
        .find_map(|s| {
            let (with, without, _) = resolved(f, report, s);
            let found = without.or(with.filter(|_| f.installed.is_some()))?;
            Some((s.clone(), found))
        })
}

/// cuda-pathfinder's request for `name` is served here by `sibling`: the
/// error names both sonames it tried, and came from elsewhere (#41: the
/// real `numba-cuda[cu13]`, whose libcudart.so.13 is found).
fn sibling_found(mut a: Answer, name: &str, sibling: &str, found: &Found, f: &Facts) -> Answer {
    a.diagnosis = format!(
        "cuda-pathfinder takes {sibling} or {name}, and finds {sibling} here ({}, {}): the error \
         came from another environment or before it was installed; check that the failing \
         process runs {}/bin/python",
        found.path.display(),
        found.rule.label(),
        f.inv.prefix.display()
    );
    a.verdict = Verdict::NotHere;
    a
}

/// The name is another major's soname than the environment holds.
fn other_major(mut a: Answer, ask: &Asked, w: u32) -> Answer {
    let (name, what) = (ask.name, ask.what);
    let held = ask.have.join(", ");
    if ask.indirect {
        a.diagnosis = format!(
            "{name} is the soname of {what} {w}; this environment's {what} is {held}, and \
             nothing here asks for {name} itself: cuda-pathfinder loads {what} only as a \
             dependency of the libraries the frameworks ask for, in the major those need. The \
             message came from another environment, or from a package built for {what} {w}"
        );
        a.verdict = Verdict::NotHere;
    } else if ask.nobody {
        a.diagnosis = format!(
            "{name} is the soname of {what} {w}; this environment's {what} is {held} \
             (another major, another soname), and nothing envhook reads in it asks for \
             {name}: the message came from another environment, or from a package built for \
             {what} {w}, whose build for this environment's {what} is the fix"
        );
        a.verdict = Verdict::NotHere;
    } else {
        a.diagnosis = format!(
            "{name} is the soname of {what} {w}; this environment's {what} is only {held} (another \
             major, another soname), which the build cannot use"
        );
        a.fix = (ask.fix)();
    }
    a
}

/// A package record or dist-info envhook could not read whose package
/// provides `name`'s component: what it holds is unknown, so no verdict
/// about `name` rests on its absence.
fn unread<'f>(f: &'f Facts, name: &str) -> Option<&'f crate::finding::Problem> {
    use crate::data::catalog::Role;
    let component = CATALOG.library_component(name)?;
    f.inv.problems.iter().find(|p| {
        if !matches!(p.code, Code::RecordTooLarge | Code::DistInfoUnreadable) {
            return false;
        }
        let Some(file) = p
            .path
            .as_deref()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
        else {
            return false;
        };
        let row = match file.strip_suffix(".dist-info") {
            Some(stem) => {
                let dist = stem.split_once('-').map_or(stem, |(n, _)| n);
                CATALOG
                    .pip(&crate::inventory::pip::normalize(dist))
                    .map(|(r, _)| r)
            }
            None => file
                .strip_suffix(".json")
                .and_then(|stem| stem.rsplitn(3, '-').nth(2))
                .and_then(|n| CATALOG.conda(n)),
        };
        row.is_some_and(|r| {
            r.lib.as_deref() == Some(component) || (component == "cudnn" && r.role == Role::Cudnn)
        })
    })
}

/// Where the loader finds the name, with the hook and without it.
fn located(f: &Facts, mut a: Answer, ask: &Asked, wanted: Option<u32>) -> Answer {
    let (name, what) = (ask.name, ask.what);
    if let Some(p) = unread(f, name)
        && a.without_hook.is_none()
    {
        a.diagnosis = format!(
            "what this environment holds of {what} is not known: {}. envhook cannot tell whether \
             {name} is here until that is repaired",
            p.message
        );
        a.verdict = Verdict::CannotTell;
        a.fix = p.fix.clone();
        return a;
    }
    // An unversioned name bound to another major than the build's is the
    // cause whatever the loader finds under it: check's words and fix.
    if let Some(p) = super::agree::other_major(ask.report, name) {
        (a.diagnosis, a.fix) = (p.message.clone(), p.fix.clone());
        a.verdict = Verdict::Cause;
        return a;
    }
    let (with_hook, without_hook) = (a.with_hook.clone(), a.without_hook.clone());
    let installed = f.installed.is_some();
    let reachable = without_hook
        .as_ref()
        .or(with_hook.as_ref().filter(|_| installed));
    if let (Some(found), None) = (reachable, &without_hook) {
        return only_through_hook(f, a, name, found);
    } else if let Some(found) = reachable.filter(|r| shells(f, r)) {
        a = through_shell(f, a, name, found);
    } else if let Some(found) = reachable {
        a.diagnosis = format!(
            "the loader finds {name} here ({}, {}): the error came from another environment or \
             another LD_LIBRARY_PATH; check that the failing process runs {}/bin/python",
            found.path.display(),
            found.rule.label(),
            f.inv.prefix.display()
        );
        a.verdict = Verdict::NotHere;
    } else if with_hook.is_some() {
        let exact = libraries::env_copy(f, name);
        a.diagnosis = match (&exact, wanted) {
            (Some(path), _) => format!(
                "{name} is here ({}), in a directory the loader does not search; envhook's hook \
                 puts it on the loader's path, and this environment does not have the hook",
                path.display()
            ),
            (None, None) => format!(
                "this environment's {what} is only {}, in a directory the loader does not \
                 search and without the unversioned name {name} the framework loads (that \
                 name comes from -dev packages); envhook's hook exposes it under that name, and \
                 this environment does not have the hook",
                ask.have.join(", ")
            ),
            (None, Some(_)) => format!(
                "{name} is here, in a directory the loader does not search; envhook's hook puts \
                 it on the loader's path, and this environment does not have the hook"
            ),
        };
        a.fix = Some(fixes::hook_fix(&f.inv.prefix));
    } else if ask.nobody {
        a.diagnosis = format!(
            "this environment has no {name}, and nothing envhook reads in it asks for it: the \
             message came from another environment or a package envhook does not know"
        );
        a.verdict = Verdict::NotHere;
    } else {
        a.diagnosis = format!("{name} is nowhere: not in this environment, not on the system");
        if let Some(extra) = &ask.extra {
            a.diagnosis.push_str(&format!(
                "; {} was installed without its [{extra}] extra, whose wheels bring it",
                ask.asker
            ));
        }
        a.fix = (ask.fix)();
    }
    agree_with_check(a, ask)
}

/// Whether the loader reaches it through this shell's LD_LIBRARY_PATH,
/// outside the environment.
fn shells(f: &Facts, found: &Found) -> bool {
    found.rule == crate::machine::resolve::Rule::LdLibraryPath
        && !found.path.starts_with(&f.inv.prefix)
}

/// Reached through this shell's own LD_LIBRARY_PATH, outside the
/// environment: "another environment" would blame what is not there.
fn through_shell(f: &Facts, mut a: Answer, name: &str, found: &Found) -> Answer {
    a.diagnosis = format!(
        "the loader finds {name} through this shell's LD_LIBRARY_PATH, outside this environment \
         ({}): a process started from this shell loads that copy{}",
        found.path.display(),
        libraries::env_copy(f, name).map_or_else(String::new, |own| format!(
            ", not the environment's own ({})",
            own.display()
        ))
    );
    a.verdict = Verdict::NotHere;
    a
}

/// check's finding for the same name has the fix for the framework's
/// whole stack (one missing cuBLAS is rarely the only library missing):
/// explain gives that one, so the two agree.
fn agree_with_check(mut a: Answer, ask: &Asked) -> Answer {
    if a.verdict == Verdict::Cause
        && let Some(p) = super::agree::finding(ask.report, ask.name)
            .or_else(|| super::agree::optional(ask.report, ask.name))
        && p.fix != a.fix
    {
        a.diagnosis
            .push_str(&format!(" (check: {}[{}])", p.severity.label(), p.code));
        a.fix = p.fix.clone();
    }
    a
}

/// Reached through the installed hook alone: a process that did not
/// activate the environment (a Jupyter kernel, bin/python run directly, a
/// cron job) fails exactly so.
fn only_through_hook(f: &Facts, mut a: Answer, name: &str, found: &Found) -> Answer {
    let p = f.inv.prefix.display();
    a.diagnosis = format!(
        "the loader finds {name} here only through envhook's hook ({}, {}), which the \
         environment has: the process that printed this ran without activating it (a \
         Jupyter kernel, {p}/bin/python run directly, a service), or in another environment",
        found.path.display(),
        found.rule.label(),
    );
    a.verdict = Verdict::NotHere;
    a.fix = Some(Fix::Choose {
        advice: "run the process in the activated environment, or through envhook run".to_string(),
        commands: vec![
            Cmd::new("conda activate").path(&f.inv.prefix),
            Cmd::new("envhook run -p")
                .path(&f.inv.prefix)
                .raw("-- python"),
        ],
    });
    a
}

/// Whether `name` is a library of the NVIDIA driver (`libcuda.so.1`).
pub(super) fn is_driver(name: &str, component: Option<&str>) -> bool {
    CATALOG.is_driver_library(name) || component == Some("driver")
}

/// The resolution of `name`: from the report when an object of the
/// environment asks for it, else as for a library loaded by name.
/// The third: the file the hook's link would point at, where the hook is
/// not installed yet (see `NameCheck::hook_target`).
fn resolved(
    f: &Facts,
    report: &Report,
    name: &str,
) -> (Option<Found>, Option<Found>, Option<std::path::PathBuf>) {
    // A dependency of a CUDA library a framework loads (cuSPARSE's
    // libnvJitLink.so.12) is found as the loader settles it for that
    // library, through its RUNPATH: a search of its own would miss it
    // (#41: torch 2.5.1 from PyPI).
    let dependency = || {
        report
            .dependencies
            .iter()
            .find(|d| d.name == name)
            .map(|d| (d.with_hook.clone(), d.without_hook.clone(), None))
    };
    report
        .libraries
        .iter()
        .flat_map(|l| l.names.iter())
        .find(|n| n.name == name)
        .map(|n| {
            let (with, without) = (n.with_hook.clone(), n.without_hook.clone());
            (with, without, n.hook_target.clone())
        })
        .or_else(dependency)
        .unwrap_or_else(|| libraries::resolve_one(f, name))
}
