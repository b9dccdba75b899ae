//! JAX's "a CUDA-enabled jaxlib is not installed. Falling back to cpu"
//! (#29): JAX found no CUDA backend to load. PyPI's `jaxlib` is the CPU
//! build; the CUDA backend is the `jax-cudaNN-plugin` and
//! `jax-cudaNN-pjrt` pair of the same release, which `jax[cudaNN]`
//! installs. The answer says which of those the environment holds and
//! gives the one command, with the CUDA major the driver and the
//! environment's other CUDA wheels agree on.

use super::answer::{Answer, Verdict};
use super::clues::Clue;
use crate::data::catalog::Framework;
use crate::data::matrix::major;
use crate::finding::Fix;
use crate::inventory::Installer;
use crate::inventory::needs::release_of;
use crate::rules::Facts;

/// The CUDA majors JAX ships plugins for, newest first.
const MAJORS: [u32; 2] = [13, 12];

/// Answer the JAX CPU fallback.
pub fn answer(f: &Facts, clue: &Clue) -> Answer {
    let mut a = Answer::blank(clue, Vec::new());
    let dists = &f.inv.distributions;
    let jax = dists.get("jax").or_else(|| dists.get("jaxlib"));
    let Some(jax) = jax else {
        a.diagnosis =
            "this environment has no jax: the message came from another environment".to_string();
        a.verdict = Verdict::NotHere;
        return a;
    };
    let jaxlib = dists.get("jaxlib");
    for name in ["jax", "jaxlib"] {
        if let Some(v) = dists.get(name) {
            a.here.push(format!("{name} {v} (pip)"));
        }
    }
    let usable = plugins(dists, jaxlib, &mut a.here);
    let conda_jaxlib = f
        .inv
        .frameworks
        .iter()
        .any(|fw| fw.framework == Framework::Jax && fw.installer == Installer::Conda);
    if !usable.is_empty() {
        a.diagnosis = format!(
            "this environment has JAX's CUDA {} plugin, of jaxlib's release: JAX here loads it, so \
             the message came from another environment (or the plugin failed to load, which JAX \
             logs before this line as \"CUDA backend failed to initialize\")",
            usable[0]
        );
        a.verdict = Verdict::NotHere;
        return a;
    }
    a.verdict = Verdict::Cause;
    let Some(m) = pick(f, &release_of(jax)) else {
        a.diagnosis = format!(
            "this environment's jax {jax} has no CUDA plugin of its release, and the driver here \
             ({}) is too old for JAX's CUDA 12 and 13 plugins",
            f.machine.driver.describe()
        );
        a.fix = Some(Fix::advice(
            "upgrade the NVIDIA driver (525.60.13 or newer for CUDA 12)",
        ));
        return a;
    };
    a.diagnosis = format!(
        "this environment's jax {jax} has no CUDA plugin of its release (jax-cuda{m}-plugin and \
         jax-cuda{m}-pjrt, which jax[cuda{m}] installs), so only the CPU backend exists{}",
        if conda_jaxlib {
            "; conda's jaxlib is the CPU build unless its build string says cuda"
        } else {
            ""
        }
    );
    a.fix = Some(Fix::Command(if conda_jaxlib {
        let spec = format!("jaxlib=*=*cuda{m}*");
        crate::rules::fixes::conda_install(&f.inv.prefix, [spec])
            .and(crate::rules::fixes::refresh(&f.inv.prefix))
    } else {
        crate::rules::fixes::pip(&f.inv.prefix)
            .raw("install -U")
            .arg(format!("jax[cuda{m}]=={}", release_of(jax)))
    }));
    a
}

/// The CUDA major of the plugin to install: the one the environment's
/// other CUDA wheels are (two majors' wheels share directories), else the
/// newest the driver runs, else 12 (it runs on every driver from
/// 525.60.13 on) where the driver is unknown; always one the release has
/// a plugin for. `None`: none fits.
fn pick(f: &Facts, release: &str) -> Option<u32> {
    let driver = f.machine.driver.max_cuda.as_deref().and_then(major);
    // A major this release has a plugin for (jax[cuda13] from 0.7.2 on,
    // per the matrix) that the driver runs.
    let runs = |m: u32| {
        driver.is_none_or(|d| d >= m)
            && f.matrix
                .framework(Framework::Jax, release, &format!("cuda{m}"))
                .is_some()
    };
    let wheels: Vec<u32> = f
        .inv
        .packages
        .iter()
        .filter(|p| p.installer == Installer::Pip)
        .filter_map(|p| p.cuda_major)
        .collect();
    if let Some(m) = MAJORS.into_iter().find(|m| wheels.contains(m) && runs(*m)) {
        return Some(m);
    }
    match driver {
        None if runs(12) => Some(12),
        _ => MAJORS.into_iter().find(|m| runs(*m)),
    }
}

/// The plugin pairs present, a line each into `here`, and the CUDA majors
/// whose pair is whole and of the jaxlib's release (JAX skips a plugin of
/// another release).
fn plugins(
    dists: &crate::inventory::pins::Installed,
    jaxlib: Option<&String>,
    here: &mut Vec<String>,
) -> Vec<u32> {
    let mut usable = Vec::new();
    for m in MAJORS {
        let plugin = dists.get(&format!("jax-cuda{m}-plugin"));
        let pjrt = dists.get(&format!("jax-cuda{m}-pjrt"));
        if plugin.is_none() && pjrt.is_none() {
            here.push(format!("jax-cuda{m}-plugin: not installed"));
            continue;
        }
        for (name, v) in [("plugin", plugin), ("pjrt", pjrt)] {
            here.push(match v {
                Some(v) => format!("jax-cuda{m}-{name} {v} (pip)"),
                None => format!("jax-cuda{m}-{name}: not installed"),
            });
        }
        let same = |v: Option<&String>| {
            v.is_some_and(|v| jaxlib.is_none_or(|l| release_of(v) == release_of(l)))
        };
        if same(plugin) && same(pjrt) {
            usable.push(m);
        }
    }
    usable
}
