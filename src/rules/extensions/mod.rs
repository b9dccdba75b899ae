//! Distributions built against a framework's C++ API (torchvision,
//! xformers, vLLM, flash-attn, torchao against libtorch and libc10;
//! tensorflow-text against libtensorflow_framework) work only with the
//! release they were built against: the API has no symbol versions, so
//! another release fails the load with `undefined symbol:
//! _ZN2at18TensorIteratorBaseC2Ev` (xformers 0.0.28.post3, built for torch
//! 2.5.1, under torch 2.6.0). torchvision swallows that error and fails
//! later with "operator torchvision::nms does not exist"; xformers warns
//! that it "can't load C++/CUDA extensions".
//!
//! The consumers are found by what they are, not by a list
//! (`inventory::consumers`); [`gaps()`] says what each lacks and these rules
//! judge it by its consequence:
//! - a symbol the installed release does not define: the load fails, an
//!   error, whatever the pins say;
//! - every symbol there, but a requirement on the framework broken (vLLM
//!   0.7.3's `torch==2.5.1` under torch 2.6.0, which defines all it
//!   needs): it loads, and pip's own check fails; a warning.

mod gaps;

pub use gaps::{Gap, gaps};

use super::{Facts, finding};
use crate::finding::{Code, Fix, Problem, Severity};
use crate::machine::symbols::demangle;

/// The extension rules.
pub fn check(f: &Facts) -> Vec<Problem> {
    gaps(f).iter().map(|gap| problem(f, gap)).collect()
}

/// The finding for one consumer's gap: what `check` prints and what
/// `explain` of its `undefined symbol` repeats.
pub fn problem(f: &Facts, gap: &Gap) -> Problem {
    let Gap {
        consumer,
        framework,
        ..
    } = gap;
    let installed = format!("the installed {} {}", framework.name, framework.version);
    let Some(first) = gap.missing.first() else {
        let (pins, versions): (Vec<String>, Vec<String>) = gap
            .broken_pins
            .iter()
            .map(|(pin, version)| (pin.requirement.clone(), format!("{} {version}", pin.name)))
            .unzip();
        return finding(
            Severity::Warning,
            Code::FrameworkPinBroken,
            format!(
                "{} {} requires {}, and {} installed (pip check reports it): {}",
                consumer.name,
                consumer.version,
                pins.join(", "),
                versions.join(", "),
                match gap.linking {
                    0 => "it was written for the other releases".to_string(),
                    n => format!(
                        "its {n} object(s) built against {} find every symbol they need, so it \
                         loads, but it was built and tested with the other releases",
                        framework.name
                    ),
                }
            ),
            Some(move_extension(f, gap)),
        );
    };
    let readable = demangle(first).map_or_else(|| first.clone(), |d| format!("{d} ({first})"));
    let more = match gap.missing.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    let built = match gap.built_for() {
        None => format!(
            "was built against another {} than {installed}",
            framework.name
        ),
        Some(pin) => format!(
            "was built for {} (its own requirement), not {installed}",
            pin.requirement
        ),
    };
    // Its own requirement names the release it was built for: pip finds
    // its release for this one. Without it, pip would keep it as it is.
    let fix = match gap.built_for() {
        Some(_) => move_extension(f, gap),
        None => rebuild(f, gap),
    };
    finding(
        Severity::Error,
        Code::ExtensionMismatch,
        format!(
            "{} {} ({}) {built}: it needs {readable}{more}, which {}'s libraries do not define, so \
             loading it fails with \"undefined symbol: {first}\"",
            consumer.name,
            consumer.version,
            gap.objects.join(", "),
            framework.name,
        ),
        Some(fix),
    )
}

/// pip's choice of the consumer's release whose own requirement is the
/// framework installed (measured: `pip install 'torch==2.6.0' torchvision`
/// over torchvision 0.22.0 installs 0.21.0; over xformers 0.0.28.post3 it
/// installs the xformers that pins torch 2.6.0).
fn move_extension(f: &Facts, gap: &Gap) -> Fix {
    let framework = gap.framework;
    let release = framework
        .version
        .split('+')
        .next()
        .unwrap_or(&framework.version);
    Fix::Command(super::fixes::pip_install(
        &f.inv.prefix,
        [
            format!("{}=={release}", framework.name),
            gap.consumer.name.clone(),
        ],
    ))
}

/// A consumer that does not say which release it was built for (no
/// requirement, or one the installed release meets): pip would keep it,
/// so the choice is its release built for this framework, which only its
/// project lists, or a build from source against the installed one.
fn rebuild(f: &Facts, gap: &Gap) -> Fix {
    let consumer = gap.consumer;
    Fix::Choose {
        advice: format!(
            "{} does not say which {} it was built for: install its release built for {} {} (its \
             project lists them), or build it from source against the installed one (needs a \
             compiler, and nvcc for CUDA kernels)",
            consumer.name, gap.framework.name, gap.framework.name, gap.framework.version
        ),
        commands: vec![
            super::fixes::pip(&f.inv.prefix)
                .raw("install --force-reinstall --no-deps --no-build-isolation --no-binary")
                .arg(&consumer.name)
                .arg(format!("{}=={}", consumer.name, consumer.version)),
        ],
    }
}
