//! The findings the tally makes: one constructor per finding, with its
//! message and fix.

use std::path::Path;

use super::missing::rebuilt;
use super::{Outcome, Seen};
use crate::data::catalog::CATALOG;
use crate::data::matrix::major;
use crate::finding::{Cmd, Code, Fix, Problem, Severity};
use crate::machine::resolve::Rule;
use crate::rules::libraries::Via;
use crate::rules::{Facts, finding};

/// "needs" for a DT_NEEDED entry, "loads by name" for a dlopen, "loads
/// through cuda-pathfinder" for what it finds.
fn how(s: &Seen) -> &'static str {
    match s.kind {
        Via::Dlopen => "loads by name",
        Via::Pathfinder => "loads through cuda-pathfinder",
        _ => "needs",
    }
}

/// A needed library (of a framework object, or of a CUDA library it
/// loads) is an error when missing or broken; one loaded by name, a
/// warning (the framework may work without it).
fn severity(s: &Seen) -> Severity {
    if s.kind == Via::Needed || s.kind == Via::Dependency {
        Severity::Error
    } else {
        Severity::Warning
    }
}

/// The hook puts (or would put) the environment's copies of another CUDA
/// major before copies outside the environment that may fit the build.
pub(super) fn hook_shadows(f: &Facts, label: &str, shadows: &[&Seen]) -> Problem {
    let mut names: Vec<&str> = Vec::new();
    let mut dirs: Vec<String> = Vec::new();
    let (mut env_major, mut installed) = (0, false);
    for s in shadows {
        if let Outcome::HookShadows {
            system,
            env_major: m,
            installed: i,
        } = &s.outcome
        {
            if !names.contains(&s.name.as_str()) {
                names.push(&s.name);
            }
            let dir = system.parent().unwrap_or(system).display().to_string();
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
            (env_major, installed) = (*m, *i);
        }
    }
    let fix = framework(f, label)
        .and_then(|fw| crate::rules::fixes::for_major(f, fw, env_major))
        .map(Fix::Command)
        .unwrap_or_else(|| {
            Fix::advice(format!(
                "keep {label} in an environment of its own CUDA major: this one's {} are CUDA {env_major}'s",
                names.join(", ")
            ))
        });
    finding(
        Severity::Warning,
        Code::HookOtherMajor,
        format!(
            "{label} needs {}; without envhook's hook the loader takes {} from {}, but the hook {} the \
             environment's first: CUDA {env_major} wheels' under the same sonames, not the CUDA this build \
             was made for",
            names.join(", "),
            if names.len() == 1 { "it" } else { "them" },
            dirs.join(", "),
            if installed { "puts" } else { "would put" }
        ),
        Some(fix),
    )
}

/// The loader would take the driver's link-time stub.
pub(super) fn stub_libcuda(s: &Seen, path: &Path) -> Problem {
    let how = how(s);
    finding(
        Severity::Error,
        Code::StubLibcuda,
        format!(
            "{} {how} {}, and the loader would take the stub {}",
            s.object,
            s.name,
            path.display()
        ),
        Some(Fix::advice(format!(
            "take {} off LD_LIBRARY_PATH (a link-time stub, never loaded by a program that runs)",
            path.parent().unwrap_or(path).display()
        ))),
    )
}

/// The environment's copy is not a loadable ELF for this machine.
pub(super) fn not_loadable(s: &Seen, copy: &Path) -> Problem {
    let how = how(s);
    finding(
        severity(s),
        Code::LibraryNotLoadable,
        format!(
            "{} {how} {}; the environment's {} is not a loadable 64-bit ELF for this machine \
             (another architecture, or damaged)",
            s.object,
            s.name,
            copy.display()
        ),
        Some(Fix::advice(format!(
            "reinstall the package that owns {}",
            copy.display()
        ))),
    )
}

/// The environment's copy is valid but where nothing exposes it.
pub(super) fn not_exposed(s: &Seen, copy: &Path) -> Problem {
    let how = how(s);
    finding(
        severity(s),
        Code::LibraryNotExposed,
        format!(
            "{} {how} {}; the environment's {} is a valid library, but in a directory \
             the loader does not search and envhook's hook does not expose",
            s.object,
            s.name,
            copy.display()
        ),
        // envhook does not know this layout; until it does, the directory
        // goes on the path by hand.
        Some(Fix::Command(crate::rules::fixes::export_first(
            copy.parent().unwrap_or(copy),
        ))),
    )
}

/// A library loaded only for one feature, or needed by a module of a
/// package without data that its own pins do not name: an info.
pub(super) fn optional_finding(f: &Facts, label: &str, s: &Seen) -> Problem {
    finding(
        // Operators that fail are worth a warning; a feature (profiling,
        // several GPUs) an info.
        if s.loses.is_some() {
            Severity::Warning
        } else {
            Severity::Info
        },
        Code::OptionalLibraryMissing,
        if let Some(loses) = &s.loses {
            format!(
                "{label} runs without {}, which is not in this environment nor on the system, but \
                 then {loses}",
                s.name
            )
        } else if s.other {
            format!(
                "{label}'s {} needs {}, which its own requirements do not name: only code that \
                 imports that module loads it, and it would fail with \"{}: cannot open shared \
                 object file\" (not in this environment nor on the system)",
                s.object, s.name, s.name
            )
        } else {
            format!(
                "{label} loads {} only for {}; it is not in this environment nor on the system, \
                 so that would fail with \"{}: cannot open shared object file\"",
                s.name,
                CATALOG.optional_use(&s.name).unwrap_or("some operations"),
                s.name
            )
        },
        CATALOG.library_component(&s.name).and_then(|c| match c {
            crate::data::catalog::TENSORRT => Some(super::tensorrt::fix(f, label, &s.name)),
            _ => match framework(f, label) {
                // Its build for the environment's major is the error's
                // fix; this major's library would be the wrong one.
                Some(fw) if rebuilt(f, fw).is_some() => None,
                Some(_)
                    if c == "cudnn"
                        && let Some(fix) = other_cudnn(f, label, s) =>
                {
                    Some(fix)
                }
                Some(fw) => Some(crate::rules::fixes::for_framework(f, fw, &[c])),
                None => Some(Fix::advice(format!("install {c}"))),
            },
        }),
    )
}

/// A cuDNN soname of another major than the environment's pip cuDNN
/// (CuPy 13's cudnn module needs `libcudnn.so.8` beside torch's
/// nvidia-cudnn-cu12 9.1): installing the wheel by name changes nothing.
/// The wheel of that major, where nothing here requires the one held; else
/// the requirement that holds it, and no command (one wheel name cannot
/// hold cuDNN 8 and 9).
fn other_cudnn(f: &Facts, label: &str, s: &Seen) -> Option<Fix> {
    let want: u32 = crate::inventory::needs::name_major(&s.name)?.parse().ok()?;
    let held = f.inv.packages.iter().find(|p| {
        p.installer == crate::inventory::Installer::Pip
            && p.role == crate::data::catalog::Role::Cudnn
    })?;
    if major(&held.version) == Some(want) {
        return None;
    }
    let holder = f.inv.frameworks.iter().find_map(|fw| {
        let pin = crate::rules::fixes::pin_for(fw, "cudnn")?;
        pin.starts_with(held.name.as_str())
            .then(|| format!("{} {} requires {pin}", fw.package, fw.version))
    });
    Some(match holder {
        Some(holder) => Fix::advice(format!(
            "{} needs cuDNN {want}; this environment's {} {} is cuDNN {}, and {holder}: one wheel \
             name holds one cuDNN, so use {label}'s module from an environment of its own",
            s.name,
            held.name,
            held.version,
            major(&held.version).map_or("?".into(), |m| m.to_string())
        )),
        None => Fix::Command(
            crate::rules::fixes::pip(&f.inv.prefix)
                .raw("install")
                .arg(format!("{}>={want},<{}", held.name, want + 1)),
        ),
    })
}

/// What an object loaded only on request (ONNX Runtime's TensorRT
/// provider) lacks, in one info: that feature fails, nothing else.
pub(super) fn feature_finding(f: &Facts, label: &str, group: &[&Seen]) -> Problem {
    let s = group[0];
    let names: Vec<&str> = group.iter().map(|s| s.name.as_str()).collect();
    finding(
        Severity::Info,
        Code::OptionalLibraryMissing,
        format!(
            "{label}'s {} is loaded only for {}; it needs {}, which {} not in this environment nor \
             on the system, so that would fail with \"{}: cannot open shared object file\"",
            s.object,
            s.feature.as_deref().unwrap_or("one feature"),
            names.join(", "),
            if names.len() == 1 { "is" } else { "are" },
            s.name
        ),
        CATALOG.library_component(&s.name).map(|c| match c {
            crate::data::catalog::TENSORRT => super::tensorrt::fix(f, label, &s.name),
            _ => framework(f, label)
                .map(|fw| crate::rules::fixes::for_framework(f, fw, &[c]))
                .unwrap_or_else(|| Fix::advice(format!("install {c}"))),
        }),
    )
}

/// The driver's libraries, nowhere the loader looks, while a driver is
/// reported.
pub(super) fn driver_missing_finding(f: &Facts, names: &[String]) -> Problem {
    finding(
        Severity::Error,
        Code::DriverLibraryMissing,
        format!(
            "{} come with the NVIDIA driver, but the loader finds none (not in /etc/ld.so.cache nor \
             the default directories), although a driver is reported ({}). Expect \"libcuda.so.1: \
             cannot open shared object file\" or \"no CUDA-capable device is detected\"",
            names.join(", "),
            f.machine
                .driver
                .version
                .as_deref()
                .unwrap_or("version unknown")
        ),
        Some(Fix::advice(
            "install the driver's user-space libraries matching the kernel module (and run ldconfig); \
             in a container, run it with the NVIDIA container toolkit (--gpus all)",
        )),
    )
}

/// Libraries the loader finds only through the hook this environment
/// does not have: an error when a framework runs on the CPU without them,
/// or fails nearly every operation (`failing`: CuPy without NVRTC).
pub(super) fn needs_hook_finding(
    names: &[String],
    (on_cpu, failing): (&[&str], &[&str]),
    fix: Fix,
) -> Problem {
    let mut consequence = String::new();
    if !on_cpu.is_empty() {
        consequence = format!(
            "; without them {} {} on the CPU",
            on_cpu.join(" and "),
            if on_cpu.len() == 1 { "runs" } else { "run" }
        );
    }
    if !failing.is_empty() {
        consequence += &format!(
            "{} {} {} nearly every operation",
            if consequence.is_empty() {
                "; without them"
            } else {
                ", and"
            },
            failing.join(" and "),
            if failing.len() == 1 { "fails" } else { "fail" }
        );
    }
    finding(
        if on_cpu.is_empty() && failing.is_empty() {
            Severity::Warning
        } else {
            Severity::Error
        },
        Code::NeedsHook,
        format!(
            "{} in this environment, where the loader does not look; envhook's hook, not installed \
             here, puts {} on LD_LIBRARY_PATH when the environment is activated: {}{consequence}",
            if names.len() == 1 {
                "this library is"
            } else {
                "these libraries are"
            },
            if names.len() == 1 { "it" } else { "them" },
            names.join(", ")
        ),
        Some(fix),
    )
}

/// One finding for the libraries of a framework that the loader takes from
/// outside the environment although the environment has them.
pub(super) fn system_wins_finding(
    label: &str,
    wins: &[&Seen],
    installed: bool,
    fix: &Fix,
) -> Problem {
    let mut seen: Vec<String> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut from: Vec<(String, &str)> = Vec::new();
    let mut without_hook_only = true;
    for s in wins {
        if let Outcome::SystemWins {
            winner,
            without_hook_only: only,
            ..
        } = &s.outcome
        {
            // A dependency of a library the framework loads says whose:
            // the copy beside it lost to the one found first.
            let name = if s.kind == Via::Dependency {
                format!("{} (which {} needs)", s.name, s.object)
            } else {
                s.name.clone()
            };
            if !seen.contains(&s.name) {
                seen.push(s.name.clone());
                names.push(name);
            }
            // A copy loaded before is named by how it was found.
            let dir = winner
                .path
                .parent()
                .unwrap_or(Path::new("/"))
                .display()
                .to_string();
            match from.iter_mut().find(|(d, _)| *d == dir) {
                Some(place) if place.1 == Rule::Loaded.label() => place.1 = winner.rule.label(),
                Some(_) => {}
                None => from.push((dir, winner.rule.label())),
            }
            without_hook_only &= *only;
        }
    }
    let scenario = if without_hook_only {
        "without envhook's hook, "
    } else {
        ""
    };
    finding(
        Severity::Warning,
        Code::SystemLibraryWins,
        format!(
            "{label}: {scenario}the loader takes {} from {}, not the environment's copies; a CUDA from outside \
             the environment may not match the build (\"undefined symbol\", wrong versions)",
            names.join(", "),
            from.iter()
                .map(|(dir, rule)| format!("{dir} ({rule})"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Some(if installed || !without_hook_only {
            Fix::advice(
                "remove the system CUDA directory from LD_LIBRARY_PATH, or rebuild the framework \
                 without that RPATH",
            )
        } else {
            fix.clone()
        }),
    )
}

/// One finding for the unversioned names a framework dlopens that the
/// environment has only in versioned form.
pub(super) fn dev_missing_finding(
    label: &str,
    dev_missing: &[(&Seen, &str)],
    fix: &Fix,
) -> Problem {
    let names: Vec<&str> = dedup(dev_missing.iter().map(|(s, _)| s.name.as_str()));
    let haves: Vec<&str> = dedup(dev_missing.iter().map(|(_, h)| *h));
    let severity = if names
        .iter()
        .any(|n| n.starts_with("libcudnn.so") || n.starts_with("libcublas.so"))
    {
        Severity::Error
    } else {
        Severity::Warning
    };
    let first = names.first().copied().unwrap_or("the library");
    finding(
        severity,
        Code::MissingDevSymlink,
        format!(
            "{label} loads by name {}, which this environment has only as {} (unversioned names come from \
             -dev packages). Expect \"The third-party dynamic library ({first}) that Paddle depends on is \
             not configured correctly\" or \"{first}: cannot open shared object file\"",
            names.join(", "),
            haves.join(", ")
        ),
        Some(fix.clone()),
    )
}

/// `ln -s` commands that give each versioned file its unversioned name.
pub(super) fn dev_links(f: &Facts, dev_missing: &[(&Seen, &str)]) -> Cmd {
    let mut links: Vec<Cmd> = Vec::new();
    for (s, have) in dev_missing {
        let Some((_, lib)) = f.inv.libraries_named(have).next() else {
            continue;
        };
        let dir = lib.path.parent().unwrap_or(&lib.path);
        let link = Cmd::new("ln -s").arg(*have).path(dir.join(&s.name));
        if !links.contains(&link) {
            links.push(link);
        }
    }
    Cmd::all(links)
}

/// The framework build a tally label (`package version`) names.
pub(super) fn framework<'a>(
    f: &'a Facts,
    label: &str,
) -> Option<&'a crate::inventory::FrameworkBuild> {
    f.inv
        .frameworks
        .iter()
        .find(|fw| format!("{} {}", fw.package, fw.version) == label)
}

/// Distinct values, first occurrence order.
pub(super) fn dedup<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}
