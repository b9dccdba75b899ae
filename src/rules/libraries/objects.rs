//! Which objects of a framework build its import loads: the catalogue's
//! core libraries, or, of a distribution that ships one object per CUDA
//! release, the one it picks; and each object's ELF facts.

use std::path::{Path, PathBuf};

use super::super::{Facts, finding};
use crate::data::catalog::{CATALOG, Framework};
use crate::finding::{Code, Problem, Severity};
use crate::inventory::builds::Variant;
use crate::inventory::{FrameworkBuild, LibStatus};
use crate::machine::elf::{self, ElfInfo};

/// The CUDA-using objects of a framework build: the catalogue's core
/// libraries in the framework's own package and in the packages that carry
/// its CUDA objects (JAX's `jax-cuda12-pjrt`), catalogue order first.
pub(in crate::rules) fn objects(f: &Facts, fw: &FrameworkBuild) -> Vec<PathBuf> {
    let mut found: Vec<(usize, PathBuf)> = f
        .inv
        .packages
        .iter()
        .filter(|p| p.framework == Some(fw.framework) && p.installer == fw.installer)
        // A package without data of its own: all its objects, its own only.
        .filter(|p| fw.framework != Framework::Other || p.name == fw.package)
        .flat_map(|p| p.libraries.iter())
        .filter(|l| l.status == LibStatus::Ok)
        .filter(|l| picked(f, fw, &l.path))
        .filter_map(|l| {
            let name = l.path.file_name()?.to_str()?;
            let rank = match fw.framework {
                Framework::Other => 0,
                known => CATALOG.core_library_rank(known, name)?,
            };
            Some((rank, l.path.clone()))
        })
        .collect();
    found.sort();
    found.dedup_by(|a, b| a.1 == b.1);
    found.into_iter().map(|(_, p)| p).collect()
}

/// The framework `fw` runs on, imported before it (bitsandbytes imports
/// torch): its libraries are in the process first.
pub(super) fn host(fw: &FrameworkBuild) -> Option<Framework> {
    CATALOG.picked_library(&fw.package).map(|row| row.framework)
}

/// Whether `object` is one `fw` loads: of a distribution that loads the
/// object for its framework's CUDA (bitsandbytes), only that one, or the
/// one its variable names instead ([`overridden`]).
fn picked(f: &Facts, fw: &FrameworkBuild, object: &Path) -> bool {
    let Some(row) = CATALOG.picked_library(&fw.package) else {
        return true;
    };
    let name = object.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if let Some((_, digits)) = overridden(f, fw) {
        return row.files_with(digits).iter().any(|f| f == name);
    }
    let Variant::Cuda {
        cuda: Some(cuda), ..
    } = &fw.build.variant
    else {
        return false;
    };
    row.files_for(cuda).iter().any(|f| f == name)
}

/// For a distribution that picks its object by its framework's CUDA, the
/// variable that overrides the pick and its value, where this process
/// sets it to another CUDA's digits than the framework's
/// (`BNB_CUDA_VERSION=118` under torch for CUDA 12.4).
pub(super) fn overridden<'f>(f: &'f Facts, fw: &FrameworkBuild) -> Option<(&'static str, &'f str)> {
    let row = CATALOG.picked_library(&fw.package)?;
    let var = row.digits_from.as_deref()?;
    let digits = f.ctx.var(var)?.to_str()?;
    let own = match &fw.build.variant {
        Variant::Cuda {
            cuda: Some(cuda), ..
        } => row.files_for(cuda),
        _ => Vec::new(),
    };
    (own != row.files_with(digits)).then_some((var, digits))
}

/// An object's ELF facts; an object that cannot be parsed still dlopens
/// its names, which are then resolved as from an object without RPATH.
pub(super) fn read_object(object: &Path, findings: &mut Vec<Problem>) -> (ElfInfo, bool) {
    match elf::read(object) {
        Ok(info) => {
            if info.search_elements_dropped > 0 {
                findings.push(finding(
                    Severity::Info,
                    Code::ElfSearchPathCut,
                    format!(
                        "{}: {} of its RPATH/RUNPATH elements lie past the first {} (or 64 KiB) \
                         envhook keeps; a library found only past them is reported as not found",
                        object.display(),
                        info.search_elements_dropped,
                        elf::MAX_SEARCH_ELEMENTS
                    ),
                    None,
                ));
            }
            (info, true)
        }
        Err(e) => {
            findings.push(finding(
                Severity::Info,
                Code::ElfUnreadable,
                format!(
                    "{}: {e}; its DT_NEEDED libraries are not resolved",
                    object.display()
                ),
                None,
            ));
            let blank = ElfInfo {
                path: object.to_path_buf(),
                soname: None,
                needed: Vec::new(),
                rpath: Vec::new(),
                runpath: Vec::new(),
                search_elements_dropped: 0,
                machine: 62,
                bytes_read: 0,
            };
            (blank, false)
        }
    }
}
