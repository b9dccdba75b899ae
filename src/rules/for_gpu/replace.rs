//! The one command that replaces a framework build with another: the
//! framework's own index for that build, its release range, its installed
//! companions (torchvision, the JAX plugins) with it, and, for another
//! CUDA major, the old line's wheels out.

use crate::data::catalog::Framework;
use crate::data::matrix::{FrameworkRow, major, major_minor, release_top, version};
use crate::finding::Cmd;
use crate::inventory::FrameworkBuild;
use crate::inventory::Installer;
use crate::inventory::needs::needs;
use crate::inventory::pip::normalize;
use crate::rules::Facts;

use super::cudnn_fit;

/// The command that replaces `fw` with the build `row` describes: the
/// framework's own package index for that build, the release range of
/// the row, the framework's installed companions (torchvision, the JAX
/// plugins) replaced with it. `None` where the build cannot be named as
/// one command (Paddle's `.postNNN` wheels).
pub(super) fn command(f: &Facts, fw: &FrameworkBuild, row: &FrameworkRow) -> Option<Cmd> {
    // The cuDNN the new build pulls in must have kernels for the GPUs
    // too: its own requirement (`>=9.10.2.21,<10`) alone would take 9.28
    // onto a V100.
    let cap = cudnn_fit(f).cap;
    if fw.installer == Installer::Conda {
        let package = conda_package(fw.framework)?;
        let cuda = major_minor(&row.cuda);
        let cuda_version = format!("cuda-version>={cuda},<{}", major(&cuda)? + 1);
        return Some(
            Cmd::new("conda install -p")
                .path(&f.inv.prefix)
                .raw("-c conda-forge")
                .arg(package)
                .arg(cuda_version)
                .args(cap.map(|c| format!("cudnn{c}"))),
        );
    }
    let cudnn = match (cap, major(&row.cuda)) {
        (Some(c), Some(m)) => Some(format!("nvidia-cudnn-cu{m}{c}")),
        _ => None,
    };
    // `fixes::pip`'s words (fixes imports this file, so not from there).
    let py = || {
        Cmd::default()
            .path(f.inv.prefix.join("bin/python"))
            .raw("-m pip")
    };
    let release = pip_release(row)?;
    let has = |name: &str| f.inv.distributions.contains_key(&normalize(name));
    let (remove, install, index) = pip_parts(f, fw, row, &release)?;
    // Built for another CUDA major: the wheels the old build pulled in go
    // with it. Left behind, CUDA 13's cuDNN and NCCL wheels share their
    // directories with CUDA 12's and write over them (seen on real
    // jax[cuda13] -> jax[cuda12]).
    let mut remove = remove;
    let old_major = needs(fw, f.matrix)
        .and_then(|n| n.cuda)
        .and_then(|c| major(&c));
    if old_major.is_some() && old_major != major(&row.cuda) {
        let pins: Vec<&str> = fw
            .pins
            .iter()
            .chain(&fw.fix_pins)
            .map(|p| p.name.as_str())
            .collect();
        let line = old_line(f, &remove, &pins);
        remove.extend(line);
    }
    let remove: Vec<&str> = remove.into_iter().filter(|d| has(d)).collect();
    let mut install = py().raw("install").args(install).args(cudnn);
    if let Some((flag, url)) = index {
        install = install.raw(flag).arg(url);
    }
    Some(match remove.is_empty() {
        true => install,
        false => py().raw("uninstall -y").args(remove).and(install),
    })
}

/// The old CUDA line that goes with a build replaced by one of another
/// major: the build's `pins` and the pip wheels they pulled in (what their
/// `Requires-Dist` names, and what those name in turn: CUDA 13's
/// `nvidia-cublas` after `nvidia-cudnn-cu13`), less what something staying
/// requires (another wheel, another framework's pin), so that pip check
/// finds nothing missing after the fix. `replaced`: the distributions the
/// fix replaces anyway.
fn old_line<'f>(f: &'f Facts, replaced: &[&str], pins: &[&'f str]) -> Vec<&'f str> {
    let pip = || {
        f.inv
            .packages
            .iter()
            .filter(|p| p.installer == Installer::Pip)
    };
    let mut line: Vec<&str> = Vec::new();
    for pin in pins {
        if !replaced.contains(pin) && !line.contains(pin) {
            line.push(pin);
        }
    }
    let mut grew = true;
    while grew {
        grew = false;
        for p in pip() {
            let leaving = |n: &str| replaced.contains(&n) || line.contains(&n);
            let pulled = pip().any(|q| leaving(&q.name) && q.depends.contains(&p.name));
            if pulled && !leaving(&p.name) {
                line.push(&p.name);
                grew = true;
            }
        }
    }
    loop {
        let leaving = |n: &str| replaced.contains(&n) || line.contains(&n);
        let needed = |name: &str| {
            pip().any(|q| !leaving(&q.name) && q.depends.iter().any(|d| d == name))
                || f.inv
                    .frameworks
                    .iter()
                    .any(|fw| !leaving(&fw.package) && fw.pins.iter().any(|pin| pin.name == name))
        };
        match line.iter().position(|n| needed(n)) {
            Some(at) => {
                line.remove(at);
            }
            None => return line,
        }
    }
}

/// What replacing `fw` with `row`'s build takes with pip: the
/// distributions to remove, the requirements to install, the index (its
/// option and address).
fn pip_parts<'f>(
    f: &'f Facts,
    fw: &'f FrameworkBuild,
    row: &FrameworkRow,
    release: &str,
) -> Option<PipParts<'f>> {
    let has = |name: &str| f.inv.distributions.contains_key(&normalize(name));
    let parts: PipParts = match fw.framework {
        Framework::Pytorch => {
            let index = match row.tag.as_str() {
                "default" => None,
                tag if tag.starts_with("cu") => Some((
                    "--index-url",
                    format!("https://download.pytorch.org/whl/{tag}"),
                )),
                _ => return None,
            };
            let mut names = vec!["torch"];
            names.extend(["torchvision", "torchaudio"].into_iter().filter(|c| has(c)));
            let install = std::iter::once(format!("torch{release}"))
                .chain(names[1..].iter().map(|c| c.to_string()))
                .collect();
            (names, install, index)
        }
        Framework::Jax => {
            let tag = row
                .tag
                .strip_prefix("cuda")
                .filter(|m| m.parse::<u32>().is_ok())?;
            let plugins: Vec<&str> = f
                .inv
                .distributions
                .keys()
                .map(String::as_str)
                .filter(|d| {
                    (d.starts_with("jax-cuda") && (d.ends_with("-plugin") || d.ends_with("-pjrt")))
                        || *d == "jaxlib"
                })
                .collect();
            (plugins, vec![format!("jax[cuda{tag}]{release}")], None)
        }
        Framework::Tensorflow => {
            let extra = if release_top(row).is_some_and(|(v, _)| version("2.14") <= Some(v)) {
                "[and-cuda]"
            } else {
                ""
            };
            let install = vec![format!("tensorflow{extra}{release}")];
            (vec![fw.package.as_str()], install, None)
        }
        Framework::Onnxruntime if row.tag == "default" => {
            let install = vec![format!("onnxruntime-gpu{}{release}", extras_of(fw))];
            (vec![fw.package.as_str()], install, None)
        }
        Framework::Paddlepaddle => {
            let index = match row.tag.as_str() {
                "default" => None,
                tag if tag.starts_with("cu") => Some((
                    "-i",
                    format!("https://www.paddlepaddle.org.cn/packages/stable/{tag}/"),
                )),
                _ => return None,
            };
            let install = vec![format!("paddlepaddle-gpu{release}")];
            (vec![fw.package.as_str()], install, index)
        }
        _ => return None,
    };
    Some(parts)
}

/// What replacing a build takes with pip: the distributions to remove,
/// the requirements to install, the index option and its address.
type PipParts<'f> = (Vec<&'f str>, Vec<String>, Option<(&'static str, String)>);

/// The extras `fw` was installed with, as pip writes them after the name
/// (`[cuda,cudnn]`, which bring ONNX Runtime's CUDA wheels of the build's
/// major): they go with a new build.
fn extras_of(fw: &FrameworkBuild) -> String {
    let mut extras: Vec<&str> = fw.pins.iter().filter_map(|p| p.extra.as_deref()).collect();
    extras.sort_unstable();
    extras.dedup();
    match extras.as_slice() {
        [] => String::new(),
        some => format!("[{}]", some.join(",")),
    }
}

/// A row's release range as pip writes it (`>=2.10,<2.15`); `None` for
/// ranges pip cannot take (alternatives with `|`).
fn pip_release(row: &FrameworkRow) -> Option<String> {
    let r = row.release.replace(' ', "");
    (!r.contains('|')).then_some(r)
}

/// The conda-forge package of a framework.
fn conda_package(fw: Framework) -> Option<&'static str> {
    match fw {
        Framework::Pytorch => Some("pytorch"),
        Framework::Tensorflow => Some("tensorflow"),
        Framework::Jax => Some("jaxlib"),
        Framework::Onnxruntime => Some("onnxruntime"),
        Framework::Paddlepaddle => Some("paddlepaddle"),
        Framework::Other => None,
    }
}
