//! One library name from two packages (`shadowed-library`): which one the
//! link directory exposes, and what to do about the other.

use std::path::Path;

use crate::data::matrix::{Matrix, major};
use crate::finding::{Cmd, Fix};
use crate::inventory::{Installer, Inventory, Package, needs};

/// The CUDA major every framework build here names, where they agree.
pub fn frameworks_major(inv: &Inventory, m: &Matrix) -> Option<u32> {
    let mut majors = inv
        .frameworks
        .iter()
        .filter_map(|fw| needs::needs(fw, m)?.cuda)
        .map(|c| major(&c));
    let first = majors.next()??;
    majors.all(|m| m == Some(first)).then_some(first)
}

/// A package's CUDA major: its `-cuNN` suffix, else, for CUDA 13's
/// unsuffixed wheels, the `nvidia/cuNN/` directory its libraries are in.
fn package_major(p: &Package) -> Option<u32> {
    p.cuda_major.or_else(|| {
        p.libraries.iter().find_map(|lib| {
            let mut parts = lib.path.components().map(|c| c.as_os_str());
            parts.find(|c| *c == "nvidia")?;
            let dir = parts.next()?.to_str()?.strip_prefix("cu")?;
            dir.parse().ok()
        })
    })
}

/// Whether `second` is to be exposed instead of `first` (the one met
/// first: conda's before pip's, runtime first): where it alone is of the
/// CUDA major the frameworks here are built for (`major`).
pub fn prefer_second(major: Option<u32>, first: &Package, second: &Package) -> bool {
    major.is_some_and(|m| package_major(second) == Some(m) && package_major(first) != Some(m))
}

/// What to do about `name` from two packages, `pkgs[0]` the one exposed:
/// where both are pip's wheels (of two CUDA lines: CUDA 12's
/// nvidia-curand-cu12 and CUDA 13's nvidia-curand both install
/// libcurand.so.10), the two named; with the command that removes the
/// other where the frameworks here are built for the major of the one
/// exposed (`major`), else with one for each; and between conda's line
/// and pip's, the choice.
pub fn fix(prefix: &Path, name: &str, pkgs: [&Package; 2], major: Option<u32>) -> Fix {
    if pkgs.iter().any(|p| p.installer != Installer::Pip) || pkgs[0].name == pkgs[1].name {
        return Fix::advice(
            "keep one CUDA line in the environment (conda's packages or pip's wheels)",
        );
    }
    let label = |p: &Package| format!("{} {} ({})", p.name, p.version, p.installer.label());
    let uninstall = |p: &Package| {
        Cmd::default()
            .path(prefix.join("bin/python"))
            .raw("-m pip uninstall -y")
            .arg(&p.name)
    };
    if let Some(m) = major.filter(|m| package_major(pkgs[0]) == Some(*m)) {
        return Fix::Choose {
            advice: format!(
                "keep one CUDA line: {} and {} both install {name}; the frameworks here are \
                 built for CUDA {m}, so uninstall {}",
                label(pkgs[0]),
                label(pkgs[1]),
                pkgs[1].name
            ),
            commands: vec![uninstall(pkgs[1])],
        };
    }
    Fix::Choose {
        advice: format!(
            "keep one CUDA line: {} and {} both install {name}; uninstall the one of the CUDA \
             major the frameworks here do not use",
            label(pkgs[0]),
            label(pkgs[1])
        ),
        commands: pkgs.iter().map(|p| uninstall(p)).collect(),
    }
}
