//! The demo installation: a conda root with environments shaped like real
//! ones, to try envhook on.

pub mod elf;
pub mod prefix;
pub mod presets;

use std::path::{Path, PathBuf};

use prefix::{CondaPkg, Env};
use presets::{cpu_only, cuda11_paddle, cuda12_split, pip_wheels};

/// The demo installation (`cargo run --example demo-env`, the README's
/// walkthrough): a root prefix `miniconda3/` with the environments
/// `paddle`, `torch`, `wheels` and `cpu`, and `home/.conda/environments.txt`
/// as conda would leave it (with one entry deleted by hand). Returns the
/// root prefix and the home directory.
pub fn demo(dir: &Path) -> (PathBuf, PathBuf) {
    let root = dir.join("miniconda3");
    let mut base = Env::new(&root);
    base.python("3.12.4");
    base.conda(CondaPkg::new("conda", "24.11.3", "py312h7900ff3_0"));
    let envs = root.join("envs");
    cuda11_paddle(&envs.join("paddle"));
    cuda12_split(&envs.join("torch"));
    pip_wheels(&envs.join("wheels"));
    cpu_only(&envs.join("cpu"));

    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".conda")).unwrap();
    let mut listing = format!("{}\n", root.display());
    for name in ["paddle", "torch", "wheels", "cpu", "deleted-by-hand"] {
        listing.push_str(&format!("{}\n", envs.join(name).display()));
    }
    std::fs::write(home.join(".conda/environments.txt"), listing).unwrap();

    (root, home)
}
