//! Which copies of the environment's libraries its frameworks load: every
//! file each framework's import takes, with envhook's hook and without it,
//! by the loader or by the framework's own scheme (preloads by path,
//! cuda-pathfinder, dlopen by name, the closure of each). Computed once by
//! the import runs ([`crate::rules::libraries::check`]) and handed to the rules that judge
//! one copy of a library (its GPU code, its CUDA against the driver, a
//! release NVIDIA names as broken): a cuDNN wheel that nothing loads has
//! no kernels to miss, beside an ONNX Runtime built for CUDA 11 that asks
//! for `libcudnn.so.8`.
//!
//! Where no framework's import asks for a CUDA library (an environment of
//! CUDA libraries only, a toolkit for compiling; or frameworks whose
//! objects envhook cannot read, or that name none), the user's own
//! programs are what load them, or envhook cannot tell what does: every
//! copy counts as loaded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::data::catalog::Role;
use crate::data::matrix::major;
use crate::inventory::{Claim, Installer, Inventory, Package, Stack};

/// The files the frameworks' imports load.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    imports: Vec<Import>,
    /// Each file on disk -> the imports (indices) that load it.
    takers: HashMap<PathBuf, Vec<usize>>,
}

/// One framework build's import, with the hook and without.
#[derive(Debug, Clone)]
struct Import {
    /// `package version`, as findings name builds.
    framework: String,
    /// Whether it asks for a CUDA library at all (a name, a file by path,
    /// one through cuda-pathfinder): one that asks for none says nothing
    /// of which copies are loaded.
    asks: bool,
    /// Each file as the loader found it, and the file it is on disk.
    files: Vec<(PathBuf, PathBuf)>,
}

/// Who loads the copy a claim stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Use<'a> {
    /// These framework builds load it; none named where no framework's
    /// import asks for a CUDA library, and every copy counts.
    Loaded(Vec<&'a str>),
    /// No framework loads it. `instead`: a file of the same name that one
    /// does load, which this copy could stand in for under another search
    /// order.
    Unused {
        /// The file a build loads under one of the copy's names.
        instead: Option<Instead<'a>>,
    },
}

/// A file a framework build loads under the name of a copy it does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instead<'a> {
    /// The build (`package version`).
    pub framework: &'a str,
    /// The name (`libcudnn.so.9`).
    pub name: &'a str,
    /// The file on disk.
    pub file: &'a Path,
}

impl Loaded {
    /// Record the files one framework build's import loads (`asks`: it
    /// asks for some CUDA library); `found` is each as the loader found
    /// it, `on_disk` the file that is.
    pub fn record(
        &mut self,
        (framework, asks): (String, bool),
        found: &[PathBuf],
        on_disk: impl Fn(&Path) -> PathBuf,
    ) {
        let at = match self.imports.iter().position(|i| i.framework == framework) {
            Some(at) => at,
            None => {
                self.imports.push(Import {
                    framework,
                    asks: false,
                    files: Vec::new(),
                });
                self.imports.len() - 1
            }
        };
        let import = &mut self.imports[at];
        import.asks |= asks;
        for path in found {
            let real = on_disk(path);
            // Once per file: the run with the hook and the one without
            // load most files alike.
            let takers = self.takers.entry(real.clone()).or_default();
            if !takers.contains(&at) {
                takers.push(at);
                import.files.push((path.clone(), real));
            }
        }
    }

    /// Whether some framework's import asks for a CUDA library, so that
    /// what the imports load tells which copies are loaded: without one,
    /// every copy counts.
    pub fn known(&self) -> bool {
        self.imports.iter().any(|i| i.asks)
    }

    /// The builds whose import loads the file `real` (a real path).
    fn takers(&self, real: &Path) -> impl Iterator<Item = &str> {
        self.takers
            .get(real)
            .into_iter()
            .flatten()
            .map(|&at| self.imports[at].framework.as_str())
    }

    /// Who loads the copy `claim` stands for: a file of one of its
    /// suppliers. A supplier without files of its own (conda's
    /// `cuda-version`, pip's `cuda-toolkit`, which only pin the CUDA line)
    /// is loaded where a library of that line is.
    pub fn claim<'a>(&'a self, inv: &Inventory, stack: Stack, claim: &Claim) -> Use<'a> {
        if !self.known() {
            return Use::Loaded(Vec::new());
        }
        let suppliers: Vec<&Package> = inv.suppliers(stack, claim).collect();
        let markers = suppliers.iter().all(|p| p.libraries.is_empty());
        let line: Vec<&Package> = if markers && stack == Stack::Cuda {
            inv.packages.iter().filter(|p| of_line(p, claim)).collect()
        } else {
            suppliers
        };
        let mut by: Vec<&str> = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        for lib in line.iter().flat_map(|p| &p.libraries) {
            let real = crate::paths::real_path(&lib.path).unwrap_or_else(|_| lib.path.clone());
            for fw in self.takers(&real) {
                if !by.contains(&fw) {
                    by.push(fw);
                }
            }
            names.extend(lib.path.file_name().and_then(|n| n.to_str()));
        }
        if !by.is_empty() {
            return Use::Loaded(by);
        }
        let instead = self.imports.iter().find_map(|i| {
            i.files.iter().find_map(|(found, real)| {
                let name = found.file_name()?.to_str()?;
                names.contains(&name).then_some(Instead {
                    framework: &i.framework,
                    name,
                    file: real,
                })
            })
        });
        Use::Unused { instead }
    }

    /// Whether the copy `claim` stands for is loaded (by a framework, or,
    /// with none, by the user's own programs).
    pub fn loads(&self, inv: &Inventory, stack: Stack, claim: &Claim) -> bool {
        matches!(self.claim(inv, stack, claim), Use::Loaded(_))
    }

    /// Whether the framework build `framework` (`package version`) loads
    /// the copy `claim` stands for.
    pub fn loads_for(&self, inv: &Inventory, stack: Stack, claim: &Claim, framework: &str) -> bool {
        match self.claim(inv, stack, claim) {
            Use::Loaded(by) => by.contains(&framework),
            Use::Unused { .. } => false,
        }
    }
}

/// Whether a package carries a library of the CUDA line a version marker
/// pins: its installer's CUDA libraries (conda's `cuda-version` pins them
/// all), of the marker's major for pip, whose wheels of several majors sit
/// side by side.
fn of_line(p: &Package, claim: &Claim) -> bool {
    p.installer == claim.installer
        && matches!(p.role, Role::CudaToolkit | Role::CudaLibrary)
        && (p.installer == Installer::Conda
            || p.cuda_major.or_else(|| major(&p.version)) == major(&claim.version))
}
