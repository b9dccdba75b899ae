//! The loader as it runs in one process, not one name at a time: an object
//! loaded by path or by name pulls in its `DT_NEEDED` libraries breadth
//! first (glibc's `_dl_map_object_deps`), a name whose soname is already
//! loaded is not searched again (`_dl_map_object` matches loaded objects
//! first), and each dependency is searched from the object that needs it:
//! its own RPATH or RUNPATH, never the one of the object that loaded it by
//! path.
//!
//! That is how a library loaded by absolute path (JAX's preloading,
//! cuda-pathfinder) can still take its own dependencies from elsewhere: the
//! wheel's `libcublas.so.13` has `RUNPATH $ORIGIN`, which `LD_LIBRARY_PATH`
//! precedes, so a `module load cuda` hands it the system's
//! `libcublasLt.so.13` unless that is already loaded.
//!
//! Only the names `follow` accepts are followed (the CUDA stack): the
//! closure of a 1 GB framework object costs one dynamic-section read per
//! library, each read once per check ([`Objects`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::elf::{self, ElfInfo};
use super::resolve::{Found, Rule, Search};

/// The dynamic-linking facts of every object a check reads, each read
/// once: frameworks share their CUDA libraries.
#[derive(Default)]
pub struct Objects {
    read: HashMap<PathBuf, Option<ElfInfo>>,
}

impl Objects {
    /// The facts of `path` (`None`: not a readable ELF).
    pub fn get(&mut self, path: &Path) -> Option<&ElfInfo> {
        self.read
            .entry(path.to_path_buf())
            .or_insert_with(|| elf::read(path).ok())
            .as_ref()
    }
}

/// One dependency of a loaded library, as the loader settles it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dependency {
    /// The library that needs it.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub needed_by: PathBuf,
    /// The name in its `DT_NEEDED`.
    pub name: String,
    /// Where it comes from: a copy already loaded (its path, rule
    /// `loaded`), or the search's answer; `None`: nowhere.
    pub found: Option<Found>,
}

/// One process's loaded objects, in load order.
pub struct Process<'a> {
    search: &'a Search<'a>,
    follow: &'a dyn Fn(&str) -> bool,
    /// Soname (or file name) -> the file loaded under it.
    loaded: Vec<(String, PathBuf)>,
    /// Every file loaded, in load order, with or without a name to be
    /// matched by (a Python extension module has no soname).
    files: Vec<PathBuf>,
}

impl<'a> Process<'a> {
    /// A process that searches with `search` and follows the dependencies
    /// whose names `follow` accepts.
    pub fn new(search: &'a Search<'a>, follow: &'a dyn Fn(&str) -> bool) -> Self {
        Process {
            search,
            follow,
            loaded: Vec::new(),
            files: Vec::new(),
        }
    }

    /// Every file the process has loaded, in load order.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The file loaded under `name`, if any: the loader compares a name
    /// without a `/` with each loaded object's soname.
    pub fn loaded(&self, name: &str) -> Option<&Path> {
        self.loaded
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.as_path())
    }

    /// `dlopen(name)` from `caller`: a loaded soname first, else the
    /// search from the caller; what it finds is loaded with its closure,
    /// whose dependencies are returned too.
    pub fn open(
        &mut self,
        name: &str,
        caller: &ElfInfo,
        objects: &mut Objects,
    ) -> (Option<Found>, Vec<Dependency>) {
        if let Some(path) = self.loaded(name) {
            let found = Found {
                path: path.to_path_buf(),
                rule: Rule::Loaded,
            };
            return (Some(found), Vec::new());
        }
        let found = self.search.resolve(name, caller);
        let deps = match &found {
            Some(f) => self.load(&f.path, Some(name), objects),
            None => Vec::new(),
        };
        (found, deps)
    }

    /// `dlopen(path)`: the file and its closure; it answers to its file
    /// name as to its soname.
    pub fn load_file(&mut self, path: &Path, objects: &mut Objects) -> Vec<Dependency> {
        let name = path.file_name().and_then(|n| n.to_str());
        self.load(path, name, objects)
    }

    /// Load the object at `path` (already found, or named by path) and its
    /// closure, breadth first; `asked` is the name it was asked for (a
    /// loaded object answers to it as to its soname).
    pub fn load(
        &mut self,
        path: &Path,
        asked: Option<&str>,
        objects: &mut Objects,
    ) -> Vec<Dependency> {
        let mut deps = Vec::new();
        if self.files.iter().any(|p| p == path) {
            return deps;
        }
        let mut queue = vec![path.to_path_buf()];
        self.register(path, asked, objects);
        let mut next = 0;
        while let Some(object) = queue.get(next).cloned() {
            next += 1;
            let Some(info) = objects.get(&object).cloned() else {
                continue;
            };
            // A name listed twice is searched once: the loader's second
            // look finds it loaded, or fails as the first did.
            let mut asked = std::collections::HashSet::new();
            for name in info.needed.iter().filter(|n| (self.follow)(n)) {
                if !asked.insert(name) {
                    continue;
                }
                if let Some(loaded) = self.loaded(name) {
                    deps.push(Dependency {
                        needed_by: object.clone(),
                        name: name.clone(),
                        found: Some(Found {
                            path: loaded.to_path_buf(),
                            rule: Rule::Loaded,
                        }),
                    });
                    continue;
                }
                let found = self.search.resolve(name, &info);
                if let Some(f) = &found {
                    self.register(&f.path, Some(name), objects);
                    queue.push(f.path.clone());
                }
                deps.push(Dependency {
                    needed_by: object.clone(),
                    name: name.clone(),
                    found,
                });
            }
        }
        deps
    }

    /// Record an object as loaded under its soname and the name it was
    /// asked for.
    fn register(&mut self, path: &Path, asked: Option<&str>, objects: &mut Objects) {
        if !self.files.iter().any(|p| p == path) {
            self.files.push(path.to_path_buf());
        }
        let soname = objects.get(path).and_then(|i| i.soname.clone());
        for name in soname.into_iter().chain(asked.map(String::from)) {
            if self.loaded(&name).is_none() {
                self.loaded.push((name, path.to_path_buf()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::resolve::SearchDir;

    fn cc(out: &Path, soname: &str, deps: &[&Path], runpath: Option<&str>) {
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        let src = out.with_extension("c");
        std::fs::write(&src, "int f(void) { return 0; }\n").unwrap();
        let mut cmd = std::process::Command::new("cc");
        cmd.args(["-shared", "-fPIC", "-o"])
            .arg(out)
            .arg(&src)
            .arg(format!("-Wl,-soname,{soname}"))
            .arg("-Wl,--no-as-needed");
        if let Some(r) = runpath {
            cmd.args(["-Wl,--enable-new-dtags", &format!("-Wl,-rpath,{r}")]);
        }
        assert!(cmd.args(deps).status().unwrap().success());
    }

    fn search(ld: &[PathBuf]) -> Search<'static> {
        Search {
            ld_library_path: ld.iter().cloned().map(SearchDir::Real).collect(),
            cache: None,
            sysroot: Path::new("/nonexistent-sysroot"),
            cwd: PathBuf::from("/nonexistent-cwd"),
            main_rpath: Vec::new(),
        }
    }

    /// The wheel's libcublas.so.13 (RUNPATH `$ORIGIN`) loaded by path takes
    /// its libcublasLt.so.13 from LD_LIBRARY_PATH, not from beside it;
    /// once libcublasLt.so.13 is loaded, nothing is searched again.
    #[test]
    fn a_library_loaded_by_path_searches_its_own_dependencies() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let wheel = d.join("site/nvidia/cu13/lib");
        let system = d.join("usr/local/cuda/lib64");
        cc(
            &system.join("libcublasLt.so.13"),
            "libcublasLt.so.13",
            &[],
            None,
        );
        cc(
            &wheel.join("libcublasLt.so.13"),
            "libcublasLt.so.13",
            &[],
            None,
        );
        cc(
            &wheel.join("libcublas.so.13"),
            "libcublas.so.13",
            &[&wheel.join("libcublasLt.so.13")],
            Some("$ORIGIN"),
        );
        let cuda = |n: &str| n.starts_with("libcublas");
        let mut objects = Objects::default();
        let inherited = search(std::slice::from_ref(&system));
        let mut p = Process::new(&inherited, &cuda);
        let deps = p.load(&wheel.join("libcublas.so.13"), None, &mut objects);
        assert_eq!(deps.len(), 1);
        let found = deps[0].found.clone().unwrap();
        assert_eq!(
            (found.rule, found.path),
            (Rule::LdLibraryPath, system.join("libcublasLt.so.13"))
        );
        // Loaded first by path (JAX loads cuBLASLt before cuBLAS where its
        // list says so): the dependency is the loaded copy.
        let mut p = Process::new(&inherited, &cuda);
        p.load(&wheel.join("libcublasLt.so.13"), None, &mut objects);
        let deps = p.load(&wheel.join("libcublas.so.13"), None, &mut objects);
        let found = deps[0].found.clone().unwrap();
        assert_eq!(
            (found.rule, found.path),
            (Rule::Loaded, wheel.join("libcublasLt.so.13"))
        );
        // No LD_LIBRARY_PATH: the RUNPATH finds the copy beside it.
        let clean = search(&[]);
        let mut p = Process::new(&clean, &cuda);
        let deps = p.load(&wheel.join("libcublas.so.13"), None, &mut objects);
        let found = deps[0].found.clone().unwrap();
        assert_eq!(found.rule, Rule::Runpath);
        assert!(found.path.starts_with(&wheel));
        // A dlopen by name of a loaded soname is the loaded copy.
        let caller = objects.get(&wheel.join("libcublas.so.13")).unwrap().clone();
        let (found, deps) = p.open("libcublasLt.so.13", &caller, &mut objects);
        assert_eq!(found.unwrap().rule, Rule::Loaded);
        assert!(deps.is_empty());
    }
}
