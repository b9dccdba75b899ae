//! One library name from two packages (`shadowed-library`): which one the
//! link directory exposes, and what to do about the other.

use std::path::Path;

use crate::finding::Fix;

/// What to do about `name` from two packages: where both are pip's wheels
/// (of two CUDA lines: CUDA 12's nvidia-curand-cu12 and CUDA 13's
/// nvidia-curand both install libcurand.so.10), the two named, with the
/// command that removes each; else the choice between conda's line and
/// pip's.
pub fn fix(prefix: &Path, name: &str, pkgs: [&crate::inventory::Package; 2]) -> Fix {
    use crate::inventory::Installer;
    if pkgs.iter().any(|p| p.installer != Installer::Pip) || pkgs[0].name == pkgs[1].name {
        return Fix::advice(
            "keep one CUDA line in the environment (conda's packages or pip's wheels)",
        );
    }
    let label = |p: &crate::inventory::Package| {
        format!("{} {} ({})", p.name, p.version, p.installer.label())
    };
    Fix::Choose {
        advice: format!(
            "keep one CUDA line: {} and {} both install {name}; uninstall the one of the CUDA \
             major the frameworks here do not use",
            label(pkgs[0]),
            label(pkgs[1])
        ),
        commands: pkgs
            .iter()
            .map(|p| {
                crate::finding::Cmd::default()
                    .path(prefix.join("bin/python"))
                    .raw("-m pip uninstall -y")
                    .arg(&p.name)
            })
            .collect(),
    }
}
