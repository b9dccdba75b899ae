//! The names a framework's objects ask the loader for: what they need
//! (`DT_NEEDED`) and what the data says they load by name at run time
//! (`[[dlopen]]` rows), each with the object that asks.

use std::path::PathBuf;

use super::Searches;
use crate::data::catalog::CATALOG;
use crate::data::matrix::major;
use crate::inventory::{FrameworkBuild, Installer};
use crate::machine::elf::ElfInfo;
use crate::machine::resolve::Search;
use crate::rules::Facts;
use crate::rules::needs::{needs, release_of};

/// A `[[dlopen]]` row's `object` for loading code compiled into each of
/// the framework's objects.
const ANY_OBJECT: &str = "*";

/// One name an object asks for.
pub(super) struct Asked {
    pub(super) name: String,
    /// `needed` or `dlopen`.
    pub(super) kind: &'static str,
    /// The file the framework's Python code loads by path before the
    /// dlopen by name, when it does and the file is there.
    pub(super) preloaded: Option<PathBuf>,
}

/// The CUDA-stack names object `i` of `infos` needs, and the names the
/// framework loads by name at run time from it: `[[dlopen]]` rows naming
/// it, rows naming none for the framework's first object, and, of rows
/// whose loading code is in every object (`object = "*"`), the names this
/// is the first object to find (else the first object's).
pub(super) fn names(
    f: &Facts,
    fw: &FrameworkBuild,
    infos: &[&ElfInfo],
    i: usize,
    searches: &Searches,
) -> Vec<Asked> {
    let info = infos[i];
    let first = i == 0;
    // The object that finds it through its own RUNPATH (or the value as it
    // is) first, the hook's directories second.
    let owner = |name: &str| {
        let finds = |search: &Search| infos.iter().position(|o| search.resolve(name, o).is_some());
        finds(&searches.without)
            .or_else(|| finds(&searches.with))
            .unwrap_or(0)
    };
    let mut names: Vec<Asked> = info
        .needed
        .iter()
        .filter(|n| CATALOG.library_component(n).is_some())
        .map(|n| Asked {
            name: n.clone(),
            kind: "needed",
            preloaded: None,
        })
        .collect();
    let file = info.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let pip = fw.build.pip_cuda_libraries.unwrap_or(false);
    // The build's own CUDA and cuDNN name what it loads (TSL and ONNX
    // Runtime build `lib<name>.so.<version>` from them).
    let (cuda, cudnn) = needs(fw, f.matrix).map_or((None, None), |n| (n.cuda, n.cudnn));
    let cuda_major = cuda.as_deref().and_then(major);
    let rows = f
        .matrix
        .dlopen(fw.framework, &release_of(&fw.version), pip, cuda_major);
    for row in rows {
        let here = match row.object.as_deref() {
            Some(ANY_OBJECT) => true,
            Some(object) => object == file,
            None => first,
        };
        if !here {
            continue;
        }
        for name in f
            .matrix
            .dlopen_names(row, cuda.as_deref(), cudnn.as_deref())
        {
            if names.iter().any(|a| a.name == name)
                || (row.object.as_deref() == Some(ANY_OBJECT) && owner(&name) != i)
            {
                continue;
            }
            let preloaded = row
                .preloaded_from_wheels
                .then(|| wheel_copy(f, &name))
                .flatten();
            names.push(Asked {
                name,
                kind: "dlopen",
                preloaded,
            });
        }
    }
    names
}

/// The file of this name in a pip `nvidia-*` wheel of the environment
/// (`site-packages/nvidia/<component>/lib/`).
fn wheel_copy(f: &Facts, name: &str) -> Option<PathBuf> {
    f.inv
        .libraries_named(name)
        .find(|(p, l)| {
            p.installer == Installer::Pip && l.path.components().any(|c| c.as_os_str() == "nvidia")
        })
        .map(|(_, l)| l.path.clone())
}
