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

use std::collections::HashSet;
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
    // The real directory of each one kept, resolved once: /usr/local/cuda
    // is usually a link to one of the others.
    let mut seen: HashSet<PathBuf> = HashSet::new();
    for dir in candidates(prefix, ctx) {
        let Some(version) = crate::paths::dir_entries(&dir).into_iter().find_map(|p| {
            let name = p.file_name()?.to_str()?;
            driver_version(name).map(str::to_string)
        }) else {
            continue;
        };
        let real = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        if seen.contains(&real) {
            continue;
        }
        let loaded_by = loaded_by(&dir, &real, prefix, ctx, cache);
        seen.insert(real);
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
/// `real` is `dir` resolved, once by the caller.
fn loaded_by(
    dir: &Path,
    real: &Path,
    prefix: &Path,
    ctx: &Context,
    cache: Option<&LdCache>,
) -> Option<String> {
    let same = |a: &Path| a == dir || std::fs::canonicalize(a).is_ok_and(|a| a == real);
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

    /// Many CUDA installations under /usr/local, each with a compat
    /// libcuda, and links to them (`cuda`, and a second name for each):
    /// each real directory is found once, under its first name in order,
    /// its path resolved once (a set of those seen, #38).
    #[test]
    fn each_real_compat_directory_once_among_many() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("sysroot");
        let local = root.join("usr/local");
        const N: usize = 300;
        for i in 0..N {
            let compat = local.join(format!("cuda-{i:03}.0/compat"));
            std::fs::create_dir_all(&compat).unwrap();
            std::fs::write(compat.join(format!("libcuda.so.{}.1", 500 + i)), b"").unwrap();
            // cuda-NNN.0-link sorts after cuda-NNN.0: the real name first.
            std::os::unix::fs::symlink(
                format!("cuda-{i:03}.0"),
                local.join(format!("cuda-{i:03}.0-link")),
            )
            .unwrap();
        }
        std::os::unix::fs::symlink("cuda-007.0", local.join("cuda")).unwrap();
        let ctx = Context::fake(t.path(), &[("ENVHOOK_SYSROOT", root.to_str().unwrap())]);
        let found = find(&t.path().join("env"), &ctx, None);
        assert_eq!(found.len(), N, "{found:?}");
        // `cuda` sorts first: /usr/local/cuda stands for cuda-007.0.
        assert_eq!(found[0].dir, local.join("cuda/compat"));
        assert_eq!(found[0].version, "507.1");
        let names: HashSet<_> = found.iter().map(|c| c.dir.clone()).collect();
        assert_eq!(names.len(), N);
        assert!(
            found
                .iter()
                .all(|c| !c.dir.to_string_lossy().contains("-link"))
        );
        assert!(found.iter().all(|c| c.loaded_by.is_none()));
    }
}
