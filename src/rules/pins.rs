//! The frameworks' own pins on the CUDA stack (`Requires-Dist`), held
//! against what is installed, as `pip check` would: a cuDNN wheel upgraded
//! past torch's `nvidia-cudnn-cu13==9.26.0.51` is a finding, with the
//! command that restores the pin. And the build as its files describe it
//! where the data has no row for it (a release newer than the data).

use super::{Facts, finding};
use crate::data::matrix::major;
use crate::finding::{Code, Fix, Problem, Severity};
use crate::inventory::needs::{Needs, needs};
use crate::inventory::pip::normalize;
use crate::inventory::{FrameworkBuild, Installer};

/// The pin rules.
pub fn check(f: &Facts) -> Vec<Problem> {
    let mut out = Vec::new();
    for fw in &f.inv.frameworks {
        out.extend(pins(f, fw));
        if let Some(n) = needs(fw, f.matrix) {
            out.extend(beyond_data(fw, &n));
        }
        out.extend(no_such_build(f, fw));
    }
    out
}

/// Every pin on an installed distribution must hold; a missing pinned
/// distribution is worth an info (the library rules say whether its
/// libraries are found elsewhere, say from conda).
fn pins(f: &Facts, fw: &FrameworkBuild) -> Vec<Problem> {
    let name = format!("{} {}", fw.package, fw.version);
    // The pip install changes what the hooks were written from: with
    // hooks installed, the fix ends with their refresh.
    let fix = |req: &str| {
        let install = super::fixes::pip(&f.inv.prefix).raw("install").arg(req);
        Some(Fix::Command(match f.installed {
            Some(_) => install.and(super::fixes::refresh(&f.inv.prefix)),
            None => install,
        }))
    };
    let mut out = Vec::new();
    for pin in &fw.pins {
        let installed = f
            .inv
            .packages
            .iter()
            .find(|p| p.installer == Installer::Pip && normalize(&p.name) == pin.name);
        match installed {
            None if pin.extra.is_none() => out.push(finding(
                Severity::Info,
                Code::PinMissing,
                format!(
                    "{name} requires {} (its METADATA), which pip did not install here; the libraries \
                     come from elsewhere, if at all",
                    pin.requirement
                ),
                fix(&pin.requirement),
            )),
            // The cuDNN the build was compiled with, above its own pin:
            // the frameworks rule's info says so, not a broken pin.
            Some(p)
                if super::compiled::pinned_below(fw).is_some_and(|(c, _)| c.name == pin.name)
                    && super::compiled::info(fw, &p.version).is_some() => {}
            Some(p) if pin.allows(&p.version) == Some(false) => {
                let other_major = pin
                    .floor()
                    .is_some_and(|floor| major(&floor) != major(&p.version));
                let (severity, consequence) = match torch_cudnn(fw, pin, &p.version) {
                    _ if other_major => (
                        Severity::Error,
                        ", another major: its libraries have other sonames",
                    ),
                    Some(consequence) => consequence,
                    None => (
                        Severity::Warning,
                        ", which the build was not made with (\"undefined symbol\", wrong results)",
                    ),
                };
                out.push(finding(
                    severity,
                    Code::PinBroken,
                    format!(
                        "{name} requires {} (its METADATA{}); this environment has {} {}{consequence}",
                        pin.requirement,
                        pin.extra.as_ref().map_or(String::new(), |e| format!(
                            ", under the [{e}] extra it was installed with"
                        )),
                        p.name,
                        p.version,
                    ),
                    fix(&pin.requirement),
                ));
            }
            _ => {}
        }
    }
    out
}

/// What torch does with a cuDNN of its pin's major but another release:
/// at start (`torch.backends.cudnn` `_init`) it accepts the same major
/// with an equal or newer minor ("minor versions are backwards-compatible"
/// from cuDNN 7) and raises "cuDNN version incompatibility" for an older
/// minor. So a newer minor past the pin is pip's complaint, not torch's
/// (an info); an older one stops torch (an error). `None` for another
/// framework or wheel.
fn torch_cudnn(
    fw: &FrameworkBuild,
    pin: &crate::inventory::pins::Pin,
    have: &str,
) -> Option<(Severity, &'static str)> {
    if fw.framework != crate::data::catalog::Framework::Pytorch
        || !pin.name.starts_with("nvidia-cudnn")
    {
        return None;
    }
    let compiled = pin.floor()?;
    Some(if crate::inventory::needs::older_minor(have, &compiled) {
        (
            Severity::Error,
            ", an older minor than torch was compiled with: torch raises \"cuDNN version \
             incompatibility\" at start (torch/backends/cudnn/__init__.py)",
        )
    } else {
        (
            Severity::Info,
            ", a newer minor of the same major, which torch accepts at start (torch/backends/cudnn/\
             __init__.py: the same major and an equal or newer minor); only pip's check of the pin \
             fails",
        )
    })
}

/// A Paddle `.postNNN` version no release of that line carries
/// (`2.5.2.post118`, which a widely copied table names: the CUDA 11.8
/// build of 2.5 and 2.6 is the plain version): where the data knows the
/// release's tags and this is none of them, say so, and that it is judged
/// as the CUDA its tag says. A nightly or a local build may carry it; the
/// release's own install pages do not.
fn no_such_build(f: &Facts, fw: &FrameworkBuild) -> Option<Problem> {
    if fw.framework != crate::data::catalog::Framework::Paddlepaddle {
        return None;
    }
    let tag = crate::inventory::needs::tag_of(fw);
    let release = crate::inventory::needs::release_of(&fw.version);
    let tags = f.matrix.tags(fw.framework, &release);
    if !tag.starts_with("post") || tags.is_empty() || tags.contains(&tag.as_str()) {
        return None;
    }
    let listed: Vec<String> = tags
        .iter()
        .map(|t| match *t {
            "default" => format!("{release} (plain)"),
            t if t.starts_with("post") => format!("{release}.{t}"),
            t => format!("{release} from Paddle's {t} index"),
        })
        .collect();
    Some(finding(
        Severity::Info,
        Code::NoSuchBuild,
        format!(
            "{} {}: no PaddlePaddle {release} release carries .{tag}; its builds are {} \
             (PaddlePaddle's install pages). It is judged as the build its tag names, but it came \
             from a nightly, a local build or a renamed wheel, not from a release",
            fw.package,
            fw.version,
            listed.join(", ")
        ),
        None,
    ))
}

/// A build the data has no row for is checked from its own files only:
/// say so, and with what (never a warning: the data's silence is not a
/// problem of the environment).
fn beyond_data(fw: &FrameworkBuild, n: &Needs) -> Option<Problem> {
    if n.row.is_some() || n.evidence.is_empty() {
        return None;
    }
    Some(finding(
        Severity::Info,
        Code::BuildNotInData,
        format!(
            "{} {} is not in envhook's data; what it needs was read from its own files: {}",
            fw.package,
            fw.version,
            n.evidence.join("; ")
        ),
        None,
    ))
}
