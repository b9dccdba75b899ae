//! The demo installation `envhook demo` lays out, to try envhook on: a
//! conda root `miniconda3/` (itself the `base` environment) with four more
//! environments ([`ENVIRONMENTS`]: `paddle`, CUDA 11 cudatoolkit, cuDNN 8
//! and the Paddle 2.5 CUDA 11.6 wheel; `torch`, conda-forge's CUDA 12.6
//! split packages and pytorch; `wheels`, PyPI torch with the nvidia-*-cu12
//! wheels; `cpu`, no CUDA), and `home/.conda/environments.txt` as conda
//! would leave it. Every record, dist-info and build file is shaped like
//! the real one ([`prefix`], [`presets`]); every library file is a real
//! shared object, written by [`elf`] without a compiler, so the binary a
//! pip user installed lays it out alone.
//!
//! Everything is written through a directory handle ([`tree`]), never by
//! path, so a link swapped in below it cannot redirect a write.
//!
//! The integration tests build their prefixes with the same code
//! (tests/it/support includes this module), so nothing here names the crate:
//! it needs std, `fs_err`, `rustix`, `serde_json` and `object`, and
//! nothing of envhook's.

pub mod elf;
pub mod prefix;
pub mod presets;
pub mod tree;

use std::io;
use std::path::PathBuf;
use std::sync::OnceLock;

use prefix::{CondaPkg, Env};
use presets::{cpu_only, cuda11_paddle, cuda12_split, pip_wheels};
use tree::Tree;

/// The file that marks a directory as a demo `envhook demo` wrote (and
/// may replace).
pub const MARKER: &str = ".envhook-demo";

/// The environments under `miniconda3/envs`, beside `base`.
pub const ENVIRONMENTS: &[&str] = &["paddle", "torch", "wheels", "cpu"];

/// What every library file of the demo holds: the test suite's fixture
/// object (`tests/it/support/fixture.so`, built with `cc`), to the dynamic
/// linker's eye: the same SONAME and one function, nothing needed.
pub const OBJECT: elf::SharedObject<'static> = elf::SharedObject {
    soname: "libenvhook-fixture.so",
    needed: &[],
    search: None,
    defines: &["envhook_fixture"],
    version: None,
    imports: &[],
};

/// [`OBJECT`]'s bytes, written once per run.
pub fn object() -> io::Result<&'static [u8]> {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    if let Some(bytes) = BYTES.get() {
        return Ok(bytes);
    }
    let bytes = elf::write(&OBJECT).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(BYTES.get_or_init(|| bytes))
}

/// Lay the demo installation out in `dir`, every library file holding
/// `lib`. Returns the root prefix and the home directory.
pub fn lay_out(dir: &Tree, lib: &'static [u8]) -> io::Result<(PathBuf, PathBuf)> {
    let root = dir.dir("miniconda3")?;
    let root_path = root.path().to_path_buf();
    let envs = root.dir("envs")?;
    let mut base = Env::at(root, lib)?;
    base.python("3.12.4")?;
    base.conda(CondaPkg::new("conda", "24.11.3", "py312h7900ff3_0"))?;
    cuda11_paddle(envs.dir("paddle")?, lib)?;
    cuda12_split(envs.dir("torch")?, lib)?;
    pip_wheels(envs.dir("wheels")?, lib)?;
    cpu_only(envs.dir("cpu")?, lib)?;

    // As conda leaves it: every environment it created, and one deleted by
    // hand since (`audit` reports the stale entry).
    let mut listing = format!("{}\n", root_path.display());
    for name in ENVIRONMENTS.iter().chain(&["deleted-by-hand"]) {
        listing.push_str(&format!("{}\n", envs.path().join(name).display()));
    }
    dir.write("home/.conda/environments.txt", listing)?;
    Ok((root_path, dir.path().join("home")))
}
