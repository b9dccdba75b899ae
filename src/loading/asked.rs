//! How a framework reaches its CUDA libraries, as steps in the order its
//! import runs them: libraries its Python code loads by path from the
//! `nvidia-*` wheels (torch's preloader) or through cuda-pathfinder (CuPy
//! 14, numba-cuda), then its objects with what they need (`DT_NEEDED`),
//! then what the data says they load by name at run time (`[[dlopen]]`
//! rows, from the object whose code calls dlopen), each name a framework
//! asks for with the object that asks.

use std::path::PathBuf;

use super::Facts;
use super::Via;
use crate::data::catalog::CATALOG;
use crate::data::matrix::{By, DlopenRow, major};
use crate::inventory::needs::{loading_rows, needs};
use crate::inventory::{FrameworkBuild, Installer};
use crate::machine::elf::ElfInfo;

/// One name an object asks for.
pub struct Asked {
    /// Which of the framework's objects asks.
    pub object: usize,
    pub name: String,
    /// `needed`, `dlopen` or `pathfinder`.
    pub kind: Via,
    /// Without it the framework runs on the CPU.
    pub falls_back_to_cpu: bool,
    /// What the framework loses without it, where it runs without it (the
    /// row's `optional`).
    pub loses: Option<String>,
    /// What fails without it, where the framework needs it for nearly
    /// every operation (a row's `required`), whichever way it is reached.
    pub required: Option<String>,
    /// The directory the framework tries by path when the loader finds
    /// nothing (the row's `then_dir`).
    pub then_dir: Option<String>,
    /// For an unversioned name, the soname of the build's own major it
    /// must reach ([`crate::inventory::needs::bound_soname`]).
    pub bound: Option<String>,
}

/// One step of a framework's import.
pub enum Step {
    /// A file loaded by absolute path (a wheel's copy, preloaded).
    Path(PathBuf),
    /// A library (stem) loaded through cuda-pathfinder; the index of its
    /// [`Asked`], when it is one.
    Pathfinder { stem: String, asked: Option<usize> },
    /// One of the framework's objects, with its closure.
    Object(usize),
    /// `dlopen` by name from an object; the index of its [`Asked`].
    Open { caller: usize, asked: usize },
}

/// A framework's import, as steps, and the names it asks for.
pub struct Plan {
    pub steps: Vec<Step>,
    pub asked: Vec<Asked>,
    /// The CUDA major the build was made for, if known.
    pub cuda_major: Option<u32>,
}

/// The plan of one framework build whose objects are `infos` (catalogue
/// order: the first is the one loaded first).
pub fn plan(f: &Facts, fw: &FrameworkBuild, infos: &[&ElfInfo]) -> Plan {
    // The build's own CUDA and cuDNN name what it loads (TSL and ONNX
    // Runtime build `lib<name>.so.<version>` from them).
    let (cuda, cudnn) = needs(fw, f.matrix).map_or((None, None), |n| (n.cuda, n.cudnn));
    let rows = loading_rows(fw, f.matrix, cuda.as_deref());
    let mut plan = Plan {
        steps: Vec::new(),
        asked: Vec::new(),
        cuda_major: cuda.as_deref().and_then(major),
    };
    for row in &rows {
        match row.by {
            By::Preload => plan.preload(f, row),
            By::Pathfinder => plan.pathfinder(f, row, infos, cuda.as_deref()),
            By::Name => {}
        }
    }
    plan.objects(infos);
    for row in rows.iter().filter(|r| r.by == By::Name) {
        plan.by_name(f, row, infos, (cuda.as_deref(), cudnn.as_deref()));
    }
    // A library the framework needs for nearly everything is so whatever
    // asks for it: CuPy's cuBLAS is a module's DT_NEEDED, no row's name.
    for a in &mut plan.asked {
        a.required = rows
            .iter()
            .find_map(|r| r.requires(&a.name))
            .map(str::to_string);
    }
    plan
}

impl Plan {
    /// Whether the import asks for any CUDA library: a name, a file by
    /// path, one through cuda-pathfinder.
    pub fn asks(&self) -> bool {
        !self.asked.is_empty()
            || self
                .steps
                .iter()
                .any(|s| matches!(s, Step::Path(_) | Step::Pathfinder { .. }))
    }

    /// A row's libraries, by path from their wheels (torch's
    /// `_preload_cuda_deps`).
    fn preload(&mut self, f: &Facts, row: &DlopenRow) {
        for stem in &row.libraries {
            self.steps
                .extend(wheel_copy(f, &format!("{stem}.so.")).map(Step::Path));
        }
    }

    /// A row's libraries through cuda-pathfinder. A library an object
    /// needs is loaded before that object is imported, and the object's
    /// own DT_NEEDED is then the name asked; one no object needs (NVRTC,
    /// linked at run time; all of numba-cuda's) is asked of pathfinder,
    /// under the soname the build's CUDA gives it when pathfinder knows
    /// that one. A library no row of the environment's pathfinder covers
    /// is left out.
    fn pathfinder(&mut self, f: &Facts, row: &DlopenRow, infos: &[&ElfInfo], cuda: Option<&str>) {
        let release = f.inv.distributions.get("cuda-pathfinder");
        for stem in &row.libraries {
            let Some(pf) = release.and_then(|v| f.matrix.pathfinder(stem, v)) else {
                continue;
            };
            let prefix = format!("{stem}.so.");
            let needed = infos
                .iter()
                .any(|i| i.needed.iter().any(|n| n.starts_with(&prefix)));
            let asked = (!needed).then(|| {
                let name = cuda
                    .and_then(|c| f.matrix.soname(stem, c))
                    .filter(|b| pf.sonames.contains(b))
                    .unwrap_or_else(|| pf.sonames[0].clone());
                self.ask(0, name, Via::Pathfinder, row)
            });
            self.steps.push(Step::Pathfinder {
                stem: stem.clone(),
                asked,
            });
        }
    }

    /// Each object, with the CUDA-stack names it needs.
    fn objects(&mut self, infos: &[&ElfInfo]) {
        for (i, info) in infos.iter().enumerate() {
            for name in info
                .needed
                .iter()
                .filter(|n| CATALOG.library_component(n).is_some())
            {
                self.asked.push(Asked {
                    object: i,
                    name: name.clone(),
                    kind: Via::Needed,
                    falls_back_to_cpu: false,
                    loses: None,
                    required: None,
                    then_dir: None,
                    bound: None,
                });
            }
            self.steps.push(Step::Object(i));
        }
    }

    /// A row's names, by dlopen from the object whose code calls it.
    fn by_name(
        &mut self,
        f: &Facts,
        row: &DlopenRow,
        infos: &[&ElfInfo],
        (cuda, cudnn): (Option<&str>, Option<&str>),
    ) {
        let Some(caller) = caller(row, infos) else {
            return;
        };
        for name in f.matrix.dlopen_names(row, cuda, cudnn) {
            if self
                .asked
                .iter()
                .any(|a| a.object == caller && a.name == name)
            {
                continue;
            }
            // JAX's plugin loads each by path from its wheel first; the
            // dlopen by name then finds the loaded copy.
            if row.preloaded_from_wheels
                && let Some(path) = wheel_copy(f, &name)
            {
                self.steps.push(Step::Path(path));
            }
            let bound = crate::inventory::needs::bound_soname(f.matrix, &name, (cuda, cudnn));
            let asked = self.ask(caller, name, Via::Dlopen, row);
            self.asked[asked].bound = bound;
            self.steps.push(Step::Open { caller, asked });
        }
    }

    fn ask(&mut self, object: usize, name: String, kind: Via, row: &DlopenRow) -> usize {
        self.asked.push(Asked {
            object,
            name: name.clone(),
            kind,
            falls_back_to_cpu: row.falls_back_to_cpu,
            loses: row.loses(&name).map(str::to_string),
            required: None,
            then_dir: row.then_dir.get(&name).cloned(),
            bound: None,
        });
        self.asked.len() - 1
    }
}

/// The object whose code calls dlopen for a row: the one it names (none
/// of the framework's objects has that name: the row does not apply), or
/// the framework's first.
fn caller(row: &DlopenRow, infos: &[&ElfInfo]) -> Option<usize> {
    match row.object.as_deref() {
        None => (!infos.is_empty()).then_some(0),
        Some(object) => infos
            .iter()
            .position(|i| i.path.file_name().is_some_and(|n| n == object)),
    }
}

/// The file of the environment's pip `nvidia-*` wheels
/// (`site-packages/nvidia/<component>/lib/`) named `name`, or, for a name
/// ending in `.so.`, the first whose name starts so and ends in a digit
/// (torch's glob `libcublas.so.*[0-9]`).
fn wheel_copy(f: &Facts, name: &str) -> Option<PathBuf> {
    f.inv
        .packages
        .iter()
        .filter(|p| p.installer == Installer::Pip)
        .flat_map(|p| p.libraries.iter())
        .filter(|l| l.status == crate::inventory::LibStatus::Ok)
        .filter(|l| l.path.components().any(|c| c.as_os_str() == "nvidia"))
        .find(|l| {
            let Some(file) = l.path.file_name().and_then(|n| n.to_str()) else {
                return false;
            };
            match name.strip_suffix('.') {
                Some(_) => file.starts_with(name) && file.ends_with(|c: char| c.is_ascii_digit()),
                None => file == name,
            }
        })
        .map(|l| l.path.clone())
}
