//! CUDA forward compatibility: the `cuda-compat` package's user-mode
//! driver (`libcuda.so.<driver version>`), which lets a newer CUDA run on
//! an older kernel driver, on data-centre GPUs only (NVIDIA, "CUDA
//! Compatibility", Forward Compatibility). It lies where NVIDIA's
//! packages put it (`/usr/local/cuda[-X.Y]/compat/`, as in NGC images) or
//! where conda's `cuda-compat-impl` does (`$PREFIX/cuda-compat/`), and it
//! works only when it is the `libcuda.so.1` the process loads: named on
//! `LD_LIBRARY_PATH`, in the loader's cache, or linked into the
//! environment's `lib/` on activation (conda-forge's newer packages do
//! that in an activate.d script).

use std::path::{Path, PathBuf};

use crate::discovery::Context;
use crate::machine::ldcache::LdCache;

/// One forward-compatibility libcuda.
#[derive(Debug, Clone, PartialEq)]
pub struct CompatLibcuda {
    /// The directory holding it.
    pub dir: PathBuf,
    /// The driver version it is (`595.45.04`), from its file name.
    pub version: String,
    /// Whether the process would load it for `libcuda.so.1`, and how.
    pub loaded_by: Option<String>,
}

/// The directories a forward-compatibility libcuda is looked for in: the
/// environment's `cuda-compat/`, then the system's CUDA installations.
fn candidates(prefix: &Path, ctx: &Context) -> Vec<PathBuf> {
    let mut dirs = vec![prefix.join("cuda-compat")];
    let local = ctx.system_path("/usr/local");
    let mut system: Vec<PathBuf> = crate::paths::dir_entries(&local)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n == "cuda" || n.starts_with("cuda-"))
        })
        .map(|p| p.join("compat"))
        .collect();
    system.sort();
    dirs.extend(system);
    dirs
}

/// `libcuda.so.595.45.04` -> `595.45.04`.
fn driver_version(file_name: &str) -> Option<&str> {
    let v = file_name.strip_prefix("libcuda.so.")?;
    (v.contains('.')
        && v.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
    .then_some(v)
}

/// Every forward-compatibility libcuda for an environment at `prefix` on
/// this machine, the environment's first.
pub fn find(prefix: &Path, ctx: &Context, cache: Option<&LdCache>) -> Vec<CompatLibcuda> {
    let mut out: Vec<CompatLibcuda> = Vec::new();
    for dir in candidates(prefix, ctx) {
        let Some(version) = crate::paths::dir_entries(&dir).into_iter().find_map(|p| {
            let name = p.file_name()?.to_str()?;
            driver_version(name).map(str::to_string)
        }) else {
            continue;
        };
        // /usr/local/cuda is usually a link to one of the others.
        let real = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        if out
            .iter()
            .any(|c| std::fs::canonicalize(&c.dir).unwrap_or_else(|_| c.dir.clone()) == real)
        {
            continue;
        }
        let loaded_by = loaded_by(&dir, prefix, ctx, cache);
        out.push(CompatLibcuda {
            dir,
            version,
            loaded_by,
        });
    }
    out
}

/// How the process would come to load the libcuda in `dir`: through
/// `LD_LIBRARY_PATH` (before any other directory holding a libcuda), the
/// loader's cache, or conda-forge's activation script linking it into the
/// environment's `lib/`.
fn loaded_by(dir: &Path, prefix: &Path, ctx: &Context, cache: Option<&LdCache>) -> Option<String> {
    let same = |a: &Path| {
        a == dir
            || std::fs::canonicalize(a)
                .ok()
                .is_some_and(|a| std::fs::canonicalize(dir).is_ok_and(|d| a == d))
    };
    if let Some(ld) = ctx.var_str("LD_LIBRARY_PATH") {
        for entry in ld.split(':').filter(|e| !e.is_empty()) {
            let entry = Path::new(entry);
            if same(entry) {
                return Some("LD_LIBRARY_PATH".into());
            }
            if entry.join("libcuda.so.1").exists() {
                // Another libcuda comes first.
                break;
            }
        }
    }
    if let Some(found) = cache.and_then(|c| c.lookup("libcuda.so.1", native_machine()))
        && found.parent().is_some_and(same)
    {
        return Some("the loader's cache (/etc/ld.so.cache)".into());
    }
    if dir == prefix.join("cuda-compat")
        && crate::paths::dir_entries(&prefix.join("etc/conda/activate.d"))
            .iter()
            .any(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("cuda-compat"))
            })
    {
        return Some("cuda-compat's activation script (linked into lib/ on conda activate)".into());
    }
    None
}

/// This machine's ELF `e_machine`, which the cache's entries are tagged
/// with: what a framework process here loads.
fn native_machine() -> u16 {
    match std::env::consts::ARCH {
        "aarch64" => 183,
        _ => 62,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_come_from_the_file_name() {
        assert_eq!(driver_version("libcuda.so.595.45.04"), Some("595.45.04"));
        assert_eq!(driver_version("libcuda.so.1"), None);
        assert_eq!(driver_version("libcuda.so"), None);
        assert_eq!(driver_version("libcuda.so.5x.1"), None);
    }
}
