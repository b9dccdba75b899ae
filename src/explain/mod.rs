//! `envhook explain`: what a pasted error message means in this
//! environment. The message is read for what it names ([`clues`]); each
//! library or symbol it names is answered from the environment
//! ([`library`], in the model of [`answer`]): what it holds of that
//! library, who asks for that version, whether the loader reaches it with
//! and without envhook's hook, and the one fix. Messages that name nothing envhook can tie to the environment
//! (a Windows DLL error, a segmentation fault) get what they mean and what
//! envhook can and cannot check, never a dump of unrelated findings.

mod abi;
pub mod agree;
pub mod answer;
mod askers;
pub mod capability;
pub mod clues;
pub mod component;
pub mod cpu_build;
pub mod decode;
pub mod devices;
mod driver;
mod library;
pub mod measured;
mod named;
pub mod numbers;
mod pair;
mod ptxas;
mod symbol;
pub mod versioned;

use std::io::Write;

use serde::Serialize;

use crate::finding::{Code, Fix, Problem, Severity};
use crate::rules::{Facts, Report};
use answer::{Answer, Verdict};
use clues::{Clue, KnownMessage, Measures, MessageKind};

/// Identifies the JSON document of `envhook explain --json`.
pub const SCHEMA: &str = "envhook.explain/2";

/// The whole explanation.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The environment.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub prefix: std::path::PathBuf,
    /// The known messages it matched.
    pub known: Vec<KnownMessage>,
    /// Each library, symbol or DLL it names, answered (the first
    /// [`clues::MAX_NAMED`] distinct ones).
    pub answers: Vec<Answer>,
    /// How many more distinct libraries, symbols and DLLs it names, not
    /// answered.
    #[serde(skip_serializing_if = "is_zero")]
    pub left_out: usize,
    /// `check`'s findings that can cause it here.
    pub causes: Vec<Problem>,
    /// The driver and GPUs as envhook sees them, for messages about the
    /// driver or the GPU's architecture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// What envhook concludes overall.
    pub verdict: Verdict,
}

/// `left_out` is in the document only where something was left out, so
/// that the answer to an ordinary message reads as before.
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Explain `message` for the environment of `report`.
pub fn explain(message: &str, f: &Facts, report: &Report) -> Explanation {
    let reading = clues::read(message);
    let stated = capability::stated(message);
    let answers: Vec<Answer> = reading
        .clues
        .iter()
        .map(|c| answer_clue(f, report, &reading.known, c))
        .map(|a| stated_beside(a, stated.as_ref()))
        .collect();
    let names: Vec<&str> = reading
        .clues
        .iter()
        .filter(|c| !matches!(c, Clue::Dll { .. }))
        .filter_map(Clue::name)
        .collect();
    // The findings that can cause it: of the codes the known messages
    // name, and about what the message names when it names something.
    let causes: Vec<Problem> = report
        .findings
        .iter()
        // No driver is only an info for `check` (a CPU machine is normal),
        // but it is the cause of a message about the driver.
        .filter(|p| p.severity >= Severity::Warning || p.code == Code::NoDriver)
        .filter(|p| reading.known.iter().any(|k| k.codes.contains(&p.code)))
        .filter(|p| {
            names.is_empty()
                || names.iter().any(|n| p.message.contains(n))
                || matches!(p.code, Code::SystemLibraryWins | Code::PinBroken)
        })
        .cloned()
        .collect();
    let verdict = verdict(&reading.known, &answers, &causes);
    let driver = reading
        .known
        .iter()
        .any(|k| {
            matches!(
                k.kind,
                MessageKind::Driver | MessageKind::KernelImage | MessageKind::NoDevice
            )
        })
        .then(|| f.machine.driver.describe());
    Explanation {
        schema: SCHEMA,
        prefix: report.prefix.clone(),
        known: reading.known,
        answers,
        left_out: reading.left_out,
        causes,
        driver,
        verdict,
    }
}

/// What envhook concludes from the known messages, the answers and check's
/// findings that can cause it.
fn verdict(known: &[KnownMessage], answers: &[Answer], causes: &[Problem]) -> Verdict {
    if answers.iter().any(|a| a.verdict == Verdict::Cause) || !causes.is_empty() {
        Verdict::Cause
    } else if !known.is_empty()
        && answers.is_empty()
        && known.iter().all(KnownMessage::not_environment)
    {
        // Out of memory, a kernel's fault, a shape error, a harmless
        // warning, with nothing else in the paste: not the environment.
        Verdict::NotEnvironment
    } else if known
        .iter()
        .any(|k| matches!(k.kind, MessageKind::KernelFault | MessageKind::UserCode))
    {
        // The program's own kernel faulted or asserted, and nothing the
        // environment holds is at fault: what follows in the log (NCCL's
        // abort on the same CUDA error) is its consequence.
        Verdict::NotEnvironment
    } else if answers.iter().any(|a| a.verdict == Verdict::NotHere)
        || (!known.is_empty()
        && known
            .iter()
            .all(|k| k.kind != MessageKind::Windows && k.kind != MessageKind::Crash)
        // An answer that cannot tell but says how to find out (the
        // driver and GPU of the machine that printed it) is not a
        // "none of the causes is here".
        && !answers
            .iter()
            .any(|a| a.verdict == Verdict::CannotTell && a.fix.is_some()))
    {
        Verdict::NotHere
    } else {
        Verdict::CannotTell
    }
}

/// The answer about the GPUs, with what the message says of the torch
/// that printed it beside what the environment's builds carry.
fn stated_beside(mut a: Answer, stated: Option<&capability::Stated>) -> Answer {
    if let (
        Clue::Machine {
            measures: Measures::Gpu,
        },
        Some(s),
    ) = (&a.clue, stated)
    {
        s.annotate(&mut a);
    }
    a
}

/// One clue, answered by the module for its kind: the one place that
/// tells the kinds apart.
fn answer_clue(f: &Facts, report: &Report, known: &[KnownMessage], c: &Clue) -> Answer {
    match c {
        _ if c.name().is_some_and(|n| n.len() > clues::MAX_NAME) => overlong(c),
        Clue::Component { component } => component::answer(f, report, c, component),
        // For ptxas, `built` is the least version XLA trusts.
        Clue::Version {
            component,
            found,
            built,
        } if component == "ptxas" => ptxas::answer(f, c, found, built.as_deref()),
        Clue::Version {
            component,
            found,
            built,
        } => decode::answer(f, report, c, component, found, built.as_deref()),
        // A symbol of a framework's C++ API (`_ZN2at…`) is answered from
        // check's facts about the extensions built against it.
        Clue::Symbol {
            name,
            component: None,
        } if abi::owner(name).is_some() => abi::answer(f, c, name),
        Clue::Symbol { name, component } => {
            symbol::answer(f, report, c, name, component.as_deref())
        }
        Clue::Devices => devices::answer(f, c),
        Clue::CudaBackend => cpu_build::answer(f, c),
        Clue::JaxPair {
            jax,
            jaxlib,
            minimum,
        } => pair::answer(f, c, jax.as_deref(), jaxlib, minimum.as_deref()),
        Clue::Machine { measures } => measured::answer(f, report, c, *measures),
        Clue::Library {
            name,
            component,
            major,
        } => {
            let a = library::answer(f, report, c, name, component.as_deref(), *major);
            if library::is_driver(name, component.as_deref()) {
                driver_step(f, driver::answer(f, known, a))
            } else {
                a
            }
        }
        Clue::Dll { name } => library::dll(c, name),
    }
}

/// A name longer than any library's or symbol's: echoed once, clipped (the
/// clue's label), never looked up or repeated in the diagnosis.
fn overlong(c: &Clue) -> Answer {
    let mut a = Answer::blank(&c.clipped(), Vec::new());
    a.diagnosis = format!(
        "no library or symbol has a name this long (over {} bytes): the message was cut or \
         garbled on its way here",
        clues::MAX_NAME
    );
    a
}

/// The driver's own library (libcuda.so.1) not found where there is no
/// driver at all: a GPU machine may have printed it, and the step that
/// names that machine is the one to take.
fn driver_step(f: &Facts, mut a: Answer) -> Answer {
    let driver_library = matches!(
        &a.clue,
        Clue::Library { name, .. } if crate::data::catalog::CATALOG.is_driver_library(name)
    );
    if driver_library
        && a.verdict == Verdict::Cause
        && a.fix.is_none()
        && f.machine.driver.source == crate::machine::driver::Source::None
    {
        a.fix = Some(devices::ask(f));
    }
    a
}

/// The explanation for a person.
pub fn render(e: &Explanation, out: &mut impl Write) -> std::io::Result<()> {
    if e.known.is_empty() && e.answers.is_empty() {
        writeln!(
            out,
            "envhook does not recognise this message: it names no library, symbol or known error.\n\
             `envhook check -p {}` lists what envhook can see wrong in the environment.",
            e.prefix.display()
        )?;
        return Ok(());
    }
    let mut titles: Vec<&str> = Vec::new();
    for k in &e.known {
        if !titles.contains(&k.title.as_str()) {
            titles.push(&k.title);
            writeln!(out, "{}", k.title)?;
            writeln!(out, "  {}", k.explanation)?;
        }
    }
    if e.verdict == Verdict::NotEnvironment {
        return not_environment(e, out);
    }
    writeln!(out, "\nin {}:", e.prefix.display())?;
    if let Some(d) = &e.driver {
        writeln!(out, "  the driver here: {d}")?;
    }
    for a in &e.answers {
        render_answer(a, out)?;
    }
    if e.left_out > 0 {
        writeln!(
            out,
            "  ... and {} more libraries, symbols or DLLs the message names, left out: envhook \
             answers the first {}",
            e.left_out,
            clues::MAX_NAMED
        )?;
    }
    // One fix is said once, however many findings lead to it.
    let mut said: Vec<&Fix> = e.answers.iter().filter_map(|a| a.fix.as_ref()).collect();
    for p in &e.causes {
        let on = crate::colour::stdout();
        writeln!(out, "  {}: {}", p.severity.tag(p.code, on), p.message)?;
        if let Some(h) = p.fix.as_ref().filter(|h| !said.contains(h)) {
            for line in h.painted_lines("      ", on) {
                writeln!(out, "{line}")?;
            }
            said.push(h);
        }
    }
    // Where the cause is outside the environment, the step that finds or
    // removes it (the row's `fix`), once.
    let mut outside = false;
    if e.verdict != Verdict::Cause {
        for k in &e.known {
            if let Some(next) = k.fix.as_ref().filter(|n| !said.contains(n)) {
                for line in next.painted_lines("  ", crate::colour::stdout()) {
                    writeln!(out, "{line}")?;
                }
                said.push(next);
                outside = true;
            }
        }
    }
    if let Some(line) = closing(e, outside) {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

/// The last line: what envhook concludes, and where to look next.
fn closing(e: &Explanation, outside: bool) -> Option<&'static str> {
    // An answer waiting for the machine that printed the message.
    let asks = e
        .answers
        .iter()
        .any(|a| a.verdict == Verdict::CannotTell && a.fix.is_some());
    Some(match e.verdict {
        Verdict::Cause => return None,
        Verdict::NotHere if outside => {
            "nothing in this environment causes it: the step above looks outside it"
        }
        // An answer above already says where it came from (another
        // environment, a process that did not activate this one, another
        // machine): "none of the known causes" would contradict it.
        Verdict::NotHere if e.answers.iter().any(|a| a.verdict == Verdict::NotHere) => {
            "nothing in this environment causes it: the answer above says where it came from"
        }
        Verdict::NotHere => "none of the known causes is present here",
        Verdict::CannotTell if asks => {
            "none of the causes envhook can check here is present; the rest depends on the \
             machine that printed the message (above)"
        }
        Verdict::CannotTell if e.causes.is_empty() => {
            "envhook cannot tie this message to the environment; none of the causes it can check \
             is present"
        }
        Verdict::CannotTell => "envhook cannot tie this message to the environment",
        Verdict::NotEnvironment => return None,
    })
}

/// A message no environment causes: what to look at, the step that shows
/// it, and that nothing is to be installed.
fn not_environment(e: &Explanation, out: &mut impl Write) -> std::io::Result<()> {
    let mut said: Vec<&Fix> = Vec::new();
    let mut looks: Vec<&str> = Vec::new();
    writeln!(out)?;
    for k in &e.known {
        if let Some(look) = k.look.as_deref().filter(|l| !looks.contains(l)) {
            writeln!(out, "  look at: {look}")?;
            looks.push(look);
        }
        if let Some(step) = k.fix.as_ref().filter(|f| !said.contains(f)) {
            for line in step.painted_lines("  ", crate::colour::stdout()) {
                writeln!(out, "{line}")?;
            }
            said.push(step);
        }
    }
    writeln!(
        out,
        "  this is not an environment problem: nothing to install or change in {}",
        e.prefix.display()
    )
}

fn render_answer(a: &Answer, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "  {}", a.clue.label())?;
    for h in &a.here {
        writeln!(out, "    here:         {h}")?;
    }
    for by in &a.asked_by {
        writeln!(out, "    asked for by: {by}")?;
    }
    if matches!(a.clue, Clue::Library { .. }) {
        let place = |f: &Option<crate::machine::resolve::Found>| {
            f.as_ref().map_or("not found".to_string(), |f| {
                format!("{} ({})", f.path.display(), f.rule.label())
            })
        };
        // Before install the hook's link does not exist: the file it will
        // point at, which does.
        let with_hook = match &a.hook_target {
            Some(target) => format!(
                "not installed yet; envhook install would expose {}",
                target.display()
            ),
            None => place(&a.with_hook),
        };
        writeln!(out, "    with envhook's hook:    {with_hook}")?;
        writeln!(
            out,
            "    without envhook's hook: {}",
            place(&a.without_hook)
        )?;
    }
    writeln!(out, "    {}", a.diagnosis)?;
    let on = crate::colour::stdout();
    for line in a.fix.iter().flat_map(|f| f.painted_lines("    ", on)) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
