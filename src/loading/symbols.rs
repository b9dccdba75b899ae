//! The versioned symbols each CUDA library a framework loads needs from
//! its dependencies, looked up in the copy the loader binds: cuSPARSE of
//! CUDA 12.4 with the nvJitLink of 12.1 fails with `undefined symbol:
//! __nvJitLinkComplete_12_4, version libnvJitLink.so.12`. Data only; the
//! rules make `symbol-missing` of it.

use std::cell::Cell;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Facts;
use crate::machine::resolve::Found;
use crate::machine::symbols;

/// How one dependency of a loaded CUDA library resolves, with and without
/// envhook's hook.
#[derive(Debug, Clone, Serialize)]
pub struct DependencyCheck {
    /// The library that needs it (as loaded without the hook).
    #[serde(serialize_with = "crate::paths::serialize")]
    pub needed_by: PathBuf,
    /// The name in its `DT_NEEDED`.
    pub name: String,
    /// With the hook's directories first on `LD_LIBRARY_PATH`.
    pub with_hook: Option<Found>,
    /// With `LD_LIBRARY_PATH` as it is, minus envhook's directories.
    pub without_hook: Option<Found>,
}

/// One library whose provider lacks symbols it needs.
pub struct SymbolGap<'e> {
    /// The dependency: who needs which name.
    pub edge: &'e DependencyCheck,
    /// The copy the loader binds for it.
    pub provider: &'e Found,
    /// The symbols (and versions) it lacks, in the consumer's order.
    pub lacking: Vec<(String, String)>,
    /// Whether the hook binds another provider that has them all.
    pub hook_fixes: bool,
}

/// The versioned symbols each library of `edges` needs that the provider
/// the loader binds lacks, in the scenario the user has: with the hook if
/// it is `installed`, else without.
pub fn symbol_gaps<'e>(
    f: &Facts,
    edges: &'e [DependencyCheck],
    installed: bool,
) -> Vec<SymbolGap<'e>> {
    let mut out = Vec::new();
    for e in edges {
        let (now, other) = if installed {
            (&e.with_hook, &e.without_hook)
        } else {
            (&e.without_hook, &e.with_hook)
        };
        let Some(provider) = now else { continue };
        let consumer = on_disk(f, &e.needed_by);
        let Some(lacking) =
            lacking(&consumer, &on_disk(f, &provider.path), &e.name).filter(|l| !l.is_empty())
        else {
            continue;
        };
        // The hook binds another provider that has them all: it is the
        // fix.
        let hook_fixes = !installed
            && other.as_ref().is_some_and(|o| {
                let theirs = on_disk(f, &o.path);
                theirs != on_disk(f, &provider.path)
                    && lacking_none(&consumer, &theirs, &e.name, &lacking)
            });
        out.push(SymbolGap {
            edge: e,
            provider,
            lacking,
            hook_fixes,
        });
    }
    out
}

/// The file a path names: itself, or, in the link directory the hook
/// would create (simulated before it exists), the link's target.
pub fn on_disk(f: &Facts, path: &Path) -> PathBuf {
    let iso = f.spec.as_ref().and_then(|s| s.isolation.as_ref());
    let target = iso
        .filter(|iso| path.parent() == Some(iso.link.as_path()) && !path.exists())
        .and_then(|iso| {
            iso.entries
                .iter()
                .find(|e| path.file_name().is_some_and(|n| n == e.name.as_str()))
        })
        .map(|e| e.target.clone());
    let path = target.unwrap_or_else(|| path.to_path_buf());
    crate::paths::real_path(&path).unwrap_or(path)
}

/// The symbols (and their versions) `consumer` needs from `name` that
/// `provider` does not define; `None` when either cannot be read.
fn lacking(consumer: &Path, provider: &Path, name: &str) -> Option<Vec<(String, String)>> {
    let count = Cell::new(0);
    let c = symbols::open(consumer, &count).ok()?;
    let p = symbols::open(provider, &count).ok()?;
    Some(
        c.needs(&|file| file == name)
            .ok()?
            .into_iter()
            .filter(|n| p.defines(&n.symbol, Some(&n.version)) == Some(false))
            .map(|n| (n.symbol, n.version))
            .collect(),
    )
}

/// Whether `provider` defines every one of `lacking` (it can be read).
fn lacking_none(
    consumer: &Path,
    provider: &Path,
    name: &str,
    lacking: &[(String, String)],
) -> bool {
    self::lacking(consumer, provider, name)
        .is_some_and(|still| lacking.iter().all(|l| !still.contains(l)))
}
