//! What an environment's hooks must do, derived from its inventory: which
//! directories go on `LD_LIBRARY_PATH`, and in isolating mode which
//! libraries the private link directory exposes.
//!
//! **Isolating mode** (the default) puts exactly one directory on the path,
//! `PREFIX/lib/envhook/cuda`, holding relative symlinks to the CUDA-stack
//! libraries of the environment (conda and pip) and nothing else, so the
//! environment's `libcrypto`, `libtinfo` or `libstdc++` never shadow the
//! system's (the `ssh`/`git`/`bash` breakage of exposing all of `lib/`).
//! Where a library has no unversioned name (`libcudnn.so`, which Paddle
//! 2.x `dlopen`s, lives in `-dev` packages) the directory provides one,
//! bound to the major the asking build was made for, or none at all
//! ([`bind_unversioned`]).
//! `lib/envhook/cuda` is itself a symlink to `cuda-<fingerprint>`, swapped
//! atomically on refresh, so shells that are active during a refresh keep a
//! valid path.
//!
//! **Directories mode** puts the inventory's library directories on the
//! path as they are (conda `lib/`, `targets/x86_64-linux/lib`, pip
//! `nvidia/*/lib`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::activation::shadowing;
use crate::data::catalog::{CATALOG, Role};
use crate::error::{Error, Result};
use crate::finding::{Code, Problem, Severity};
use crate::inventory::{Inventory, LibStatus, needs};
use crate::paths;

/// How the hooks expose libraries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// One private directory of symlinks to the CUDA libraries only.
    Isolated,
    /// The directories that hold the libraries, as they are.
    Dirs,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::Isolated => "isolated",
            Mode::Dirs => "dirs",
        })
    }
}

/// One entry of the isolation directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkEntry {
    /// File name in the link directory, e.g. `libcudnn.so.8`.
    pub name: String,
    /// The library it points at (absolute; written as a relative link).
    #[serde(serialize_with = "paths::serialize")]
    pub target: PathBuf,
    /// An unversioned name the environment itself lacks.
    pub alias: bool,
}

/// The isolation directory.
#[derive(Debug, Clone, Serialize)]
pub struct Isolation {
    /// `PREFIX/lib/envhook`: everything envhook owns under `lib/`.
    #[serde(serialize_with = "paths::serialize")]
    pub root: PathBuf,
    /// `PREFIX/lib/envhook/cuda`, the path the hooks use (a symlink).
    #[serde(serialize_with = "paths::serialize")]
    pub link: PathBuf,
    /// `PREFIX/lib/envhook/cuda-<fingerprint>`, the real directory.
    #[serde(serialize_with = "paths::serialize")]
    pub dir: PathBuf,
    /// Its entries, sorted by name.
    pub entries: Vec<LinkEntry>,
}

/// Everything needed to render and install an environment's hooks.
#[derive(Debug, Clone, Serialize)]
pub struct HookSpec {
    /// The environment (absolute).
    #[serde(serialize_with = "paths::serialize")]
    pub prefix: PathBuf,
    /// 8 hex digits from the prefix, used in the hooks' variable names so
    /// that stacked environments keep separate state.
    pub id: String,
    /// Isolated or directories.
    pub mode: Mode,
    /// What goes first on `LD_LIBRARY_PATH`, in order.
    #[serde(serialize_with = "paths::serialize_vec")]
    pub dirs: Vec<PathBuf>,
    /// The link directory, in isolating mode.
    pub isolation: Option<Isolation>,
    /// Records and dist-info directories the spec was made from (in the
    /// fingerprint). The activate hook warns when a dist-info disappears
    /// (a pip upgrade or removal) or when conda-meta/ changed (which a
    /// record's upgrade or removal does).
    #[serde(serialize_with = "paths::serialize_vec")]
    pub watch: Vec<PathBuf>,
    /// Hash of everything above that depends on the packages: equal
    /// fingerprints mean equal hooks.
    pub fingerprint: String,
    /// Things worth telling about the spec (shadowed duplicates, skipped
    /// broken libraries).
    pub notes: Vec<Problem>,
}

/// The prefix must be something every dialect can carry: absolute, UTF-8,
/// and without `:` (the `LD_LIBRARY_PATH` separator, which no quoting can
/// protect) or newlines.
pub fn check_prefix(prefix: &Path) -> Result<&str> {
    let unsupported = |why: &'static str| Error::UnsupportedPrefix {
        path: prefix.to_path_buf(),
        why,
    };
    let text = prefix
        .to_str()
        .ok_or_else(|| unsupported("it is not valid UTF-8"))?;
    if !prefix.is_absolute() {
        return Err(unsupported("it is not an absolute path"));
    }
    if text.contains(':') {
        return Err(unsupported(
            "it contains ':', the LD_LIBRARY_PATH separator, so no path under it can be on LD_LIBRARY_PATH",
        ));
    }
    if text.contains(['\n', '\r']) {
        return Err(unsupported("it contains a line break"));
    }
    Ok(text)
}

/// The short id of a prefix.
pub fn prefix_id(prefix: &str) -> String {
    hex(&Sha256::digest(prefix.as_bytes()))[..8].to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl HookSpec {
    /// Derive the spec; `None` when the environment holds no CUDA library
    /// (a CPU-only environment needs no hook).
    pub fn from_inventory(inv: &Inventory, mode: Mode) -> Result<Option<HookSpec>> {
        let prefix_text = check_prefix(&inv.prefix)?;
        let prefix = inv.prefix.clone();
        let mut notes = Vec::new();
        let (dirs, isolation) = match mode {
            Mode::Dirs => {
                let dirs: Vec<PathBuf> = inv.library_dirs.iter().map(|d| d.path.clone()).collect();
                (dirs, None)
            }
            Mode::Isolated => {
                let entries = link_entries(inv, &mut notes);
                if entries.is_empty() {
                    (Vec::new(), None)
                } else {
                    let root = prefix.join("lib").join("envhook");
                    let link = root.join("cuda");
                    (
                        vec![link.clone()],
                        Some(Isolation {
                            dir: PathBuf::new(), // set below, once the fingerprint is known
                            root,
                            link,
                            entries,
                        }),
                    )
                }
            }
        };
        if dirs.is_empty() {
            return Ok(None);
        }
        for dir in &dirs {
            check_prefix(dir)?;
        }
        let mut watch: Vec<PathBuf> = inv
            .packages
            .iter()
            .filter(|p| p.role != Role::Meta)
            .map(|p| p.metadata.clone())
            .collect();
        watch.sort();
        watch.dedup();

        let mut h = Sha256::new();
        h.update(format!("{mode:?}\0"));
        for d in &dirs {
            h.update(d.as_os_str().as_encoded_bytes());
            h.update(b"\0");
        }
        if let Some(iso) = &isolation {
            for e in &iso.entries {
                h.update(format!("{}\0{}\0{}\0", e.name, e.target.display(), e.alias));
            }
        }
        for w in &watch {
            h.update(w.as_os_str().as_encoded_bytes());
            h.update(b"\0");
        }
        let fingerprint = hex(&h.finalize())[..16].to_string();
        let isolation = isolation.map(|mut iso| {
            iso.dir = iso.root.join(format!("cuda-{fingerprint}"));
            iso
        });
        Ok(Some(HookSpec {
            id: prefix_id(prefix_text),
            prefix,
            mode,
            dirs,
            isolation,
            watch,
            fingerprint,
            notes,
        }))
    }
}

/// The libraries the isolation directory exposes: every present library of
/// the CUDA packages (conda first, then pip, runtime first), under its own
/// file name, plus an unversioned alias where the environment has none.
fn link_entries(inv: &Inventory, notes: &mut Vec<Problem>) -> Vec<LinkEntry> {
    let mut by_name: BTreeMap<String, LinkEntry> = BTreeMap::new();
    // The package each exposed name came from, for the shadowing advice.
    let mut from: BTreeMap<String, &crate::inventory::Package> = BTreeMap::new();
    // Of two wheels with one name, the frameworks' CUDA line is exposed.
    let major = crate::data::matrix::shipped().and_then(|m| shadowing::frameworks_major(inv, m));
    for pkg in inv.library_packages() {
        for lib in &pkg.libraries {
            let Some(name) = lib.path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            // Only CUDA's own libraries: not the OpenCL ICD loader some
            // CUDA wheels carry, nor anything the catalogue does not know.
            if paths::is_stub(&lib.path)
                || !paths::is_shared_library(name)
                || !CATALOG.is_exposed(name)
            {
                continue;
            }
            if lib.status != LibStatus::Ok {
                continue; // reported as broken-install by the inventory
            }
            if let Some(first) = by_name.get(name) {
                // conda's CUDA 12 layout lists lib/libX.so.12 ->
                // ../targets/x86_64-linux/lib/libX.so.12 and the target
                // itself: two names of one file are one library.
                if same_file(&first.target, &lib.path) {
                    continue;
                }
                let second = shadowing::prefer_second(major, from[name], pkg);
                let (kept, other) = if second {
                    ((pkg, &lib.path), (from[name], &first.target))
                } else {
                    ((from[name], &first.target), (pkg, &lib.path))
                };
                notes.push(Problem {
                    severity: Severity::Warning,
                    code: Code::ShadowedLibrary,
                    message: format!(
                        "{name} exists twice; {} is exposed and {} is not",
                        kept.1.display(),
                        other.1.display()
                    ),
                    fix: Some(shadowing::fix(&inv.prefix, name, [kept.0, other.0], major)),
                    path: Some(other.1.clone()),
                    source: None,
                });
                if !second {
                    continue;
                }
            }
            from.insert(name.to_string(), pkg);
            by_name.insert(
                name.to_string(),
                LinkEntry {
                    name: name.to_string(),
                    target: lib.path.clone(),
                    alias: false,
                },
            );
        }
    }
    bind_unversioned(&mut by_name, &wanted(inv));
    by_name.into_values().collect()
}

/// The sonames the environment's builds want each unversioned name they
/// dlopen to reach (`libcudnn.so` -> `libcudnn.so.8` for a cuDNN 8.6
/// Paddle). A name a build asks for without the data saying which major is
/// left out: nothing can be said of it.
fn wanted(inv: &Inventory) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let Some(m) = crate::data::matrix::shipped() else {
        return out;
    };
    for fw in &inv.frameworks {
        for (name, want) in needs::unversioned_asks(fw, m) {
            out.entry(name).or_default().insert(want);
        }
    }
    out
}

/// Unversioned names are bound to a major. A build that dlopens one
/// (Paddle 2.x's `libcudnn.so`, `libcublas.so`) gets the library of the
/// major it was built for or nothing: a link to another major is what hands
/// a cuDNN 8 build cuDNN 9, whose missing legacy functions it then calls.
/// So the environment's own unversioned file (a `-dev` link) is exposed
/// only when it is of a wanted major, and a missing one is provided
/// (`libcudnn.so -> libcudnn.so.8`) from a library of that major. A name no
/// build asks for is provided only where the environment has one major of
/// it; where builds want different majors, none is.
fn bind_unversioned(
    by_name: &mut BTreeMap<String, LinkEntry>,
    wanted: &BTreeMap<String, BTreeSet<String>>,
) {
    let majors = |name: &str| -> BTreeSet<String> {
        wanted.get(name).map_or_else(BTreeSet::new, |w| {
            w.iter()
                .filter_map(|s| needs::name_major(s).map(String::from))
                .collect()
        })
    };
    by_name.retain(|name, e| {
        let want = majors(name);
        !needs::unversioned(name)
            || want.is_empty()
            || target_major(&e.target).is_some_and(|m| want.contains(&m))
    });
    let mut aliases: BTreeMap<String, LinkEntry> = BTreeMap::new();
    for entry in by_name.values() {
        let Some((stem, _)) = entry.name.split_once(".so.") else {
            continue;
        };
        let unversioned = format!("{stem}.so");
        if by_name.contains_key(&unversioned) || aliases.contains_key(&unversioned) {
            continue;
        }
        let of_stem: Vec<&LinkEntry> = by_name
            .values()
            .filter(|e| e.name.split_once(".so.").is_some_and(|(s, _)| s == stem))
            .collect();
        let want = majors(&unversioned);
        let major = match want.len() {
            1 => want.into_iter().next(),
            0 => one_major(&of_stem),
            _ => None, // builds that want different majors: no one name serves both
        };
        let Some(major) = major else { continue };
        // The soname itself (`libcudnn.so.8`) before longer names of it.
        let best = of_stem
            .iter()
            .filter(|e| needs::name_major(&e.name) == Some(major.as_str()))
            .min_by_key(|e| e.name.len());
        if let Some(best) = best {
            aliases.insert(
                unversioned.clone(),
                LinkEntry {
                    name: unversioned,
                    target: best.target.clone(),
                    alias: true,
                },
            );
        }
    }
    by_name.extend(aliases);
}

/// The major every entry shares, if they share one.
fn one_major(entries: &[&LinkEntry]) -> Option<String> {
    let mut majors = entries.iter().map(|e| needs::name_major(&e.name));
    let first = majors.next()??;
    majors.all(|m| m == Some(first)).then(|| first.to_string())
}

/// The major of the library an unversioned file is ([`needs::major_name`]).
fn target_major(target: &Path) -> Option<String> {
    let soname = crate::machine::elf::read(target)
        .ok()
        .and_then(|i| i.soname);
    let name = needs::major_name(soname.as_deref(), target)?;
    needs::name_major(&name).map(String::from)
}

/// Whether two paths lead to the same file (after symlinks).
fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || match (crate::paths::real_path(a), crate::paths::real_path(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
}

/// The directories `export` and `run` put on `LD_LIBRARY_PATH`: in
/// isolating mode the installed link directory (which `envhook install`
/// creates), in directories mode the library directories; with no mode
/// given, the link directory when it exists, else the directories. Empty
/// for an environment without CUDA libraries.
pub fn matched_dirs(inv: &Inventory, mode: Option<Mode>) -> Result<(Mode, Vec<PathBuf>)> {
    let isolated = HookSpec::from_inventory(inv, Mode::Isolated)?;
    let installed = isolated
        .as_ref()
        .and_then(|s| s.isolation.as_ref())
        .filter(|iso| iso.link.is_dir())
        .map(|iso| iso.link.clone());
    match (mode, installed) {
        (Some(Mode::Isolated) | None, Some(link)) => Ok((Mode::Isolated, vec![link])),
        (Some(Mode::Isolated), None) if isolated.is_some() => Err(Error::NotInstalled {
            prefix: inv.prefix.clone(),
        }),
        _ => {
            let dirs = HookSpec::from_inventory(inv, Mode::Dirs)?
                .map(|s| s.dirs)
                .unwrap_or_default();
            // Falling back, unasked, to all of `lib/` is the folk hook's
            // mistake (its libstdc++, libcrypto, ... shadow the system's):
            // only `--mode dirs` gets that. The pip wheels' directories
            // hold CUDA libraries only, so they are a fine fallback.
            if mode.is_none() && dirs.iter().any(|d| exposes_all_of_lib(d, &inv.prefix)) {
                return Err(Error::NotInstalled {
                    prefix: inv.prefix.clone(),
                });
            }
            Ok((Mode::Dirs, dirs))
        }
    }
}

/// Whether `dir` is the environment's general library directory, which
/// holds far more than CUDA (`lib/`, `Library/bin` on Windows).
pub fn exposes_all_of_lib(dir: &Path, prefix: &Path) -> bool {
    dir == prefix.join("lib") || dir == prefix.join("Library").join("bin")
}

/// `LD_LIBRARY_PATH` with `dirs` first: an existing value is kept after
/// them, minus those directories and empty elements.
pub fn prepend(dirs: &[PathBuf], current: Option<&std::ffi::OsStr>) -> std::ffi::OsString {
    let mut parts: Vec<std::ffi::OsString> =
        dirs.iter().map(|d| d.clone().into_os_string()).collect();
    if let Some(cur) = current {
        for el in std::env::split_paths(cur) {
            if !el.as_os_str().is_empty() && !dirs.contains(&el) {
                parts.push(el.into_os_string());
            }
        }
    }
    let mut out = std::ffi::OsString::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(":");
        }
        out.push(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, target: &Path) -> (String, LinkEntry) {
        let e = LinkEntry {
            name: name.into(),
            target: target.to_path_buf(),
            alias: false,
        };
        (name.into(), e)
    }

    fn dir_with(names: &[&str]) -> (tempfile::TempDir, BTreeMap<String, LinkEntry>) {
        let dir = tempfile::tempdir().unwrap();
        let entries = names
            .iter()
            .map(|n| {
                std::fs::write(dir.path().join(n), b"").unwrap();
                entry(n, &dir.path().join(n))
            })
            .collect();
        (dir, entries)
    }

    fn wants(pairs: &[(&str, &str)]) -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (name, want) in pairs {
            out.entry(name.to_string())
                .or_default()
                .insert(want.to_string());
        }
        out
    }

    fn alias_of(entries: &BTreeMap<String, LinkEntry>, name: &str) -> Option<String> {
        let e = entries.get(name)?;
        Some(e.target.file_name()?.to_str()?.to_string())
    }

    #[test]
    fn an_asked_name_reaches_the_builds_major_or_nothing() {
        let cudnn8 = wants(&[("libcudnn.so", "libcudnn.so.8")]);
        // Only cuDNN 9 for a cuDNN 8 build: no libcudnn.so at all.
        let (_d, mut only9) = dir_with(&["libcudnn.so.9"]);
        bind_unversioned(&mut only9, &cudnn8);
        assert_eq!(alias_of(&only9, "libcudnn.so"), None);
        // Both majors: the build's, by its soname before longer names.
        let (_d, mut both) = dir_with(&["libcudnn.so.8.9.6", "libcudnn.so.8", "libcudnn.so.9"]);
        bind_unversioned(&mut both, &cudnn8);
        assert_eq!(
            alias_of(&both, "libcudnn.so").as_deref(),
            Some("libcudnn.so.8")
        );
        // Two builds that want different majors: no name serves both.
        let mut two = cudnn8.clone();
        two.get_mut("libcudnn.so")
            .unwrap()
            .insert("libcudnn.so.9".into());
        let (_d, mut both) = dir_with(&["libcudnn.so.8", "libcudnn.so.9"]);
        bind_unversioned(&mut both, &two);
        assert_eq!(alias_of(&both, "libcudnn.so"), None);
    }

    #[test]
    fn a_name_nobody_asks_for_is_linked_only_for_one_major() {
        let none = BTreeMap::new();
        let (_d, mut one) = dir_with(&["libcublas.so.12", "libcublasLt.so.12"]);
        bind_unversioned(&mut one, &none);
        assert_eq!(
            alias_of(&one, "libcublas.so").as_deref(),
            Some("libcublas.so.12")
        );
        let (_d, mut two) = dir_with(&["libcublas.so.11", "libcublas.so.12"]);
        bind_unversioned(&mut two, &none);
        assert_eq!(alias_of(&two, "libcublas.so"), None);
    }

    #[test]
    fn the_environments_own_unversioned_file_of_another_major_is_not_exposed() {
        let (dir, mut own) = dir_with(&["libcudnn.so.9.1.0"]);
        std::os::unix::fs::symlink("libcudnn.so.9.1.0", dir.path().join("libcudnn.so")).unwrap();
        let (name, e) = entry("libcudnn.so", &dir.path().join("libcudnn.so"));
        own.insert(name, e);
        let mut kept = own.clone();
        bind_unversioned(&mut own, &wants(&[("libcudnn.so", "libcudnn.so.8")]));
        assert!(!own.contains_key("libcudnn.so"));
        bind_unversioned(&mut kept, &wants(&[("libcudnn.so", "libcudnn.so.9")]));
        assert!(
            !kept["libcudnn.so"].alias,
            "the environment's own file stays"
        );
    }
}
