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
    /// The main program's `DT_RPATH` (conda's `python`: `$ORIGIN/../lib`),
    /// searched for a caller without `DT_RUNPATH` after the caller's own.
    MainRpath,
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
            Rule::MainRpath => "the executable's RPATH",
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
    /// The main program's `DT_RPATH`, `$ORIGIN` expanded (empty where it
    /// has none, or has a `DT_RUNPATH`, which makes glibc ignore it).
    pub main_rpath: Vec<PathBuf>,
}

/// The directories of the main program's `DT_RPATH` (`$ORIGIN` its real
/// directory, as the kernel names the executable), as glibc searches them
/// for a caller without `DT_RUNPATH`: none where the program has a
/// `DT_RUNPATH` or cannot be read.
pub fn main_rpath(program: &Path) -> Vec<PathBuf> {
    let Ok(real) = std::fs::canonicalize(program) else {
        return Vec::new();
    };
    let Ok(info) = elf::read(&real) else {
        return Vec::new();
    };
    if !info.runpath.is_empty() {
        return Vec::new();
    }
    let origin = real.parent().unwrap_or(Path::new("/"));
    info.rpath.iter().map(|d| expand(d, origin)).collect()
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
    /// The file a link of a simulated directory (one `envhook install`
    /// has not written yet) will point at, where `found` came through one:
    /// what a report names rather than a link that does not exist.
    pub fn simulated_target(&self, found: Option<&Found>) -> Option<PathBuf> {
        let found = found?;
        self.ld_library_path.iter().find_map(|dir| match dir {
            SearchDir::Virtual { path, entries } if found.path.parent() == Some(path) => {
                let name = found.path.file_name()?.to_str()?;
                entries.get(name).cloned()
            }
            _ => None,
        })
    }

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
        // glibc's _dl_map_object: a caller without DT_RUNPATH searches its
        // DT_RPATH, then the main program's (unless the caller is it).
        if caller.runpath.is_empty() {
            if let Some(f) = in_dirs(&caller.rpath, Rule::Rpath) {
                return Some(f);
            }
            if let Some(path) = self.main_rpath.iter().map(|d| d.join(name)).find(|p| ok(p)) {
                return Some(Found {
                    path,
                    rule: Rule::MainRpath,
                });
            }
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
            main_rpath: Vec::new(),
        }
    }

    /// A `cc`-built program that dlopens its argument; exit 0 when glibc
    /// loads it (and its DT_NEEDED), 1 when not.
    fn program(out: &Path, dtags: &str) {
        let src = out.with_extension("c");
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        std::fs::write(
            &src,
            "#include <dlfcn.h>\nint main(int c, char **v) { return dlopen(v[1], RTLD_NOW) ? 0 : 1; }\n",
        )
        .unwrap();
        let ok = std::process::Command::new("cc")
            .arg("-o")
            .arg(out)
            .arg(&src)
            .args([dtags, "-Wl,-rpath,$ORIGIN/../lib", "-ldl"])
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }

    /// glibc searches the main program's DT_RPATH for a caller without
    /// DT_RUNPATH (conda's python, `$ORIGIN/../lib`, finds a plugin's
    /// dependency in the environment's lib/ without LD_LIBRARY_PATH); not
    /// for a caller with DT_RUNPATH, and not a main program's DT_RUNPATH.
    /// envhook's answer is held to what glibc does with the same files.
    #[test]
    fn the_main_programs_rpath_as_glibc_searches_it() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("env");
        cc(&d.join("lib/libdep.so.1"), "libdep.so.1", &[]);
        let dep = d.join("lib/libdep.so.1");
        let plugin = |name: &str, dtags: &[&str]| {
            let out = d.join("plugins").join(name);
            let mut extra = vec!["-Wl,--no-as-needed", dep.to_str().unwrap()];
            extra.extend(dtags);
            cc(&out, name, &extra);
            out
        };
        let plain = plugin("libplain.so", &[]);
        let runpath = plugin(
            "librunpath.so",
            &["-Wl,--enable-new-dtags", "-Wl,-rpath,/nowhere"],
        );
        program(&d.join("bin/rpath"), "-Wl,--disable-new-dtags");
        program(&d.join("bin/runpath"), "-Wl,--enable-new-dtags");
        // The dependency is named by soname alone (cc linked it by path:
        // the soname is what DT_NEEDED holds).
        assert_eq!(elf::read(&plain).unwrap().needed[0], "libdep.so.1");
        let glibc = |prog: &str, object: &Path| {
            std::process::Command::new(d.join("bin").join(prog))
                .arg(object)
                .env_remove("LD_LIBRARY_PATH")
                .status()
                .unwrap()
                .success()
        };
        for prog in ["rpath", "runpath"] {
            let s = Search {
                main_rpath: main_rpath(&d.join("bin").join(prog)),
                ..search(&[])
            };
            for object in [&plain, &runpath] {
                let caller = elf::read(object).unwrap();
                let found = s.resolve("libdep.so.1", &caller);
                assert_eq!(
                    found
                        .as_ref()
                        .map(|f| (f.rule, f.path.canonicalize().unwrap())),
                    glibc(prog, object).then(|| (Rule::MainRpath, dep.canonicalize().unwrap())),
                    "{prog} loading {}",
                    object.display()
                );
            }
        }
        // The one case glibc loads.
        assert!(glibc("rpath", &plain));
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
