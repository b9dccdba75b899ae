//! An `ldd` that runs nothing and needs no GPU: the glibc loader's search
//! for one name, simulated over files on disk (`elf/dl-load.c`,
//! `_dl_map_object`):
//!
//! 1. a name with a `/` is a path;
//! 2. the caller's `DT_RPATH`, only when it has no `DT_RUNPATH`;
//! 3. `LD_LIBRARY_PATH` (an empty element is the current directory);
//! 4. the caller's `DT_RUNPATH`;
//! 5. `/etc/ld.so.cache`;
//! 6. the default directories.
//!
//! `$ORIGIN` expands to the caller's directory. A candidate is taken only
//! if it is a 64-bit ELF for the caller's machine, as the loader does.
//! (The loader also tries the RPATHs of the objects that loaded the caller;
//! envhook looks at one object at a time and does not.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::machine::elf::{self, ElfInfo};
use crate::machine::ldcache::LdCache;

/// Which rule found a library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// The name was a path.
    Path,
    /// `DT_RPATH`.
    Rpath,
    /// `LD_LIBRARY_PATH`.
    LdLibraryPath,
    /// `DT_RUNPATH`.
    Runpath,
    /// `/etc/ld.so.cache`.
    LdSoCache,
    /// A default directory.
    DefaultDir,
    /// Already loaded in the process under that soname: not searched.
    Loaded,
}

impl Rule {
    /// How the report names the rule.
    pub fn label(self) -> &'static str {
        match self {
            Rule::Path => "path",
            Rule::Rpath => "RPATH",
            Rule::LdLibraryPath => "LD_LIBRARY_PATH",
            Rule::Runpath => "RUNPATH",
            Rule::LdSoCache => "ld.so.cache",
            Rule::DefaultDir => "default directory",
            Rule::Loaded => "already loaded",
        }
    }
}

/// Where a name resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    /// The file the loader would open.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub path: PathBuf,
    /// The rule that found it.
    pub rule: Rule,
}

/// One `LD_LIBRARY_PATH` element: a real directory, or the link
/// directory `envhook install` would create (simulated before it exists).
#[derive(Debug, Clone)]
pub enum SearchDir {
    /// A directory on disk.
    Real(PathBuf),
    /// A directory of links, by name.
    Virtual {
        /// Where it will be.
        path: PathBuf,
        /// Name -> target.
        entries: BTreeMap<String, PathBuf>,
    },
}

/// The search context of one scenario.
#[derive(Debug, Clone)]
pub struct Search<'a> {
    /// `LD_LIBRARY_PATH`, split.
    pub ld_library_path: Vec<SearchDir>,
    /// The loader cache, if the system has one.
    pub cache: Option<&'a LdCache>,
    /// Prepended to absolute paths of the cache and default directories.
    pub sysroot: &'a Path,
    /// The process's working directory (for empty `LD_LIBRARY_PATH` elements).
    pub cwd: PathBuf,
}

/// The default directories for a machine (Debian multiarch first).
fn defaults(machine: u16) -> Vec<&'static str> {
    let triple = match machine {
        62 => Some("x86_64-linux-gnu"),
        183 => Some("aarch64-linux-gnu"),
        _ => None,
    };
    let mut dirs = Vec::new();
    if triple == Some("x86_64-linux-gnu") {
        dirs.extend(["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"]);
    } else if triple == Some("aarch64-linux-gnu") {
        dirs.extend(["/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"]);
    }
    dirs.extend(["/lib64", "/usr/lib64", "/lib", "/usr/lib"]);
    dirs
}

/// `$ORIGIN` / `${ORIGIN}` expansion against the caller's directory.
fn expand(entry: &str, origin: &Path) -> PathBuf {
    let o = origin.to_string_lossy();
    PathBuf::from(entry.replace("${ORIGIN}", &o).replace("$ORIGIN", &o))
}

impl Search<'_> {
    fn under_sysroot(&self, abs: &Path) -> PathBuf {
        if self.sysroot == Path::new("/") {
            abs.to_path_buf()
        } else {
            self.sysroot.join(abs.strip_prefix("/").unwrap_or(abs))
        }
    }

    /// Resolve `name` as the loader would for `caller`.
    pub fn resolve(&self, name: &str, caller: &ElfInfo) -> Option<Found> {
        let ok = |p: &Path| elf::is_compatible(p, Some(caller.machine));
        if name.contains('/') {
            let p = PathBuf::from(name);
            return ok(&p).then_some(Found {
                path: p,
                rule: Rule::Path,
            });
        }
        let origin = caller.path.parent().unwrap_or(Path::new("/"));
        let in_dirs = |dirs: &[String], rule: Rule| {
            dirs.iter()
                .map(|d| expand(d, origin).join(name))
                .find(|p| ok(p))
                .map(|path| Found { path, rule })
        };
        if caller.runpath.is_empty()
            && let Some(f) = in_dirs(&caller.rpath, Rule::Rpath)
        {
            return Some(f);
        }
        for dir in &self.ld_library_path {
            let candidate = match dir {
                SearchDir::Real(d) if d.as_os_str().is_empty() => self.cwd.join(name),
                SearchDir::Real(d) => d.join(name),
                SearchDir::Virtual { path, entries } => match entries.get(name) {
                    // The link will point at this file; the loader opens
                    // it through the link's path.
                    Some(target) if ok(target) => {
                        return Some(Found {
                            path: path.join(name),
                            rule: Rule::LdLibraryPath,
                        });
                    }
                    _ => continue,
                },
            };
            if ok(&candidate) {
                return Some(Found {
                    path: candidate,
                    rule: Rule::LdLibraryPath,
                });
            }
        }
        if let Some(f) = in_dirs(&caller.runpath, Rule::Runpath) {
            return Some(f);
        }
        if let Some(p) = self.cache.and_then(|c| c.lookup(name, caller.machine)) {
            let p = self.under_sysroot(p);
            if ok(&p) {
                return Some(Found {
                    path: p,
                    rule: Rule::LdSoCache,
                });
            }
        }
        defaults(caller.machine)
            .into_iter()
            .map(|d| self.under_sysroot(Path::new(d)).join(name))
            .find(|p| ok(p))
            .map(|path| Found {
                path,
                rule: Rule::DefaultDir,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(out: &Path, soname: &str, extra: &[&str]) {
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        let src = out.with_extension("c");
        std::fs::write(&src, "int f(void) { return 0; }\n").unwrap();
        let ok = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(out)
            .arg(&src)
            .arg(format!("-Wl,-soname,{soname}"))
            .args(extra)
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }

    fn search(ld: &[&Path]) -> Search<'static> {
        Search {
            ld_library_path: ld
                .iter()
                .map(|p| SearchDir::Real(p.to_path_buf()))
                .collect(),
            cache: None,
            sysroot: Path::new("/nonexistent-sysroot"),
            cwd: PathBuf::from("/nonexistent-cwd"),
        }
    }

    /// glibc's order: RPATH before LD_LIBRARY_PATH, LD_LIBRARY_PATH before
    /// RUNPATH, and RPATH ignored when RUNPATH is present; `$ORIGIN` is the
    /// object's directory.
    #[test]
    fn rpath_ld_library_path_runpath_order() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        cc(&d.join("origin/libdep.so.1"), "libdep.so.1", &[]);
        cc(&d.join("ld/libdep.so.1"), "libdep.so.1", &[]);
        cc(
            &d.join("pkg/lib/librp.so"),
            "librp.so",
            &["-Wl,--disable-new-dtags", "-Wl,-rpath,$ORIGIN/../../origin"],
        );
        cc(
            &d.join("pkg/lib/librun.so"),
            "librun.so",
            &["-Wl,--enable-new-dtags", "-Wl,-rpath,$ORIGIN/../../origin"],
        );
        let rp = elf::read(&d.join("pkg/lib/librp.so")).unwrap();
        let run = elf::read(&d.join("pkg/lib/librun.so")).unwrap();
        assert_eq!(rp.rpath, vec!["$ORIGIN/../../origin"]);
        assert!(rp.runpath.is_empty());
        assert_eq!(run.runpath, vec!["$ORIGIN/../../origin"]);
        let ld = d.join("ld");
        let with_ld = search(&[&ld]);
        let f = with_ld.resolve("libdep.so.1", &rp).unwrap();
        assert_eq!(
            (f.rule, f.path.starts_with(d.join("pkg/lib/../../origin"))),
            (Rule::Rpath, true)
        );
        let f = with_ld.resolve("libdep.so.1", &run).unwrap();
        assert_eq!(
            (f.rule, f.path),
            (Rule::LdLibraryPath, ld.join("libdep.so.1"))
        );
        let f = search(&[]).resolve("libdep.so.1", &run).unwrap();
        assert_eq!(f.rule, Rule::Runpath);
        assert_eq!(search(&[]).resolve("libnothere.so.7", &run), None);
    }

    #[test]
    fn wrong_files_are_skipped_like_the_loader_does() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        cc(&d.join("good/libx.so.1"), "libx.so.1", &[]);
        std::fs::create_dir_all(d.join("bad")).unwrap();
        std::fs::write(d.join("bad/libx.so.1"), "not an ELF").unwrap();
        cc(&d.join("caller/libc.so"), "libcaller.so", &[]);
        let caller = elf::read(&d.join("caller/libc.so")).unwrap();
        let f = search(&[&d.join("bad"), &d.join("good")])
            .resolve("libx.so.1", &caller)
            .unwrap();
        assert_eq!(f.path, d.join("good/libx.so.1"));
    }

    #[test]
    fn virtual_link_directory() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        cc(&d.join("env/lib/libcudnn.so.8.9.2"), "libcudnn.so.8", &[]);
        cc(&d.join("caller.so"), "libcaller.so", &[]);
        let caller = elf::read(&d.join("caller.so")).unwrap();
        let s = Search {
            ld_library_path: vec![SearchDir::Virtual {
                path: d.join("env/lib/envhook/cuda"),
                entries: [(
                    "libcudnn.so".to_string(),
                    d.join("env/lib/libcudnn.so.8.9.2"),
                )]
                .into(),
            }],
            ..search(&[])
        };
        let f = s.resolve("libcudnn.so", &caller).unwrap();
        assert_eq!(
            (f.rule, f.path),
            (
                Rule::LdLibraryPath,
                d.join("env/lib/envhook/cuda/libcudnn.so")
            )
        );
    }
}
