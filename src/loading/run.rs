//! One framework's import, run in a simulated process: the plan's steps in
//! order ([`super::asked::plan`]), each load pulling in its closure, so
//! that a name is answered by a copy loaded earlier when there is one, as
//! in the real process.

use std::path::PathBuf;

use super::Via;
use super::asked::{Plan, Step};
use super::pathfinder::Pathfinder;
use crate::data::catalog::CATALOG;
use crate::machine::elf::ElfInfo;
use crate::machine::loader::{Dependency, Objects, Process};
use crate::machine::resolve::{Found, Rule, Search};

/// What one run settled.
pub struct Run {
    /// Each asked name's answer (`None`: nothing the data can say, such
    /// as a cuda-pathfinder release no row covers; `Some(None)`: not
    /// found).
    pub found: Vec<Option<Option<Found>>>,
    /// Every dependency of a loaded CUDA library, as the loader settled it
    /// (those of the framework's own objects are asked names).
    pub deps: Vec<Dependency>,
    /// Every file the import loaded: its objects, what they need, what it
    /// loads by path or by name, and their closures.
    pub files: Vec<PathBuf>,
}

/// Whether the closure follows a name: the CUDA stack's libraries.
fn cuda(name: &str) -> bool {
    CATALOG.library_component(name).is_some()
}

/// Run `plan` for the framework objects `paths` (their facts `infos`)
/// with `search` as the loader's, in a process where `host` is loaded
/// already: the files the framework it runs on loaded (bitsandbytes
/// imports torch first, whose libraries then answer its names).
pub fn run(
    plan: &Plan,
    (paths, infos): (&[PathBuf], &[&ElfInfo]),
    search: &Search,
    objects: &mut Objects,
    pathfinder: &Pathfinder,
    host: &[PathBuf],
) -> Run {
    let follow: &dyn Fn(&str) -> bool = &cuda;
    let mut process = Process::new(search, follow);
    for file in host {
        // The host's own edges are its run's, not this one's.
        let _ = process.load_file(file, objects);
    }
    let mut found: Vec<Option<Option<Found>>> = vec![None; plan.asked.len()];
    let mut deps = Vec::new();
    for step in &plan.steps {
        match step {
            Step::Path(path) => deps.extend(process.load_file(path, objects)),
            Step::Pathfinder { stem, asked } => {
                let answer = pathfinder.load(stem, &mut process, objects, &mut deps);
                if let Some(k) = asked {
                    found[*k] = answer;
                }
            }
            Step::Object(i) => {
                let own = process.load(&paths[*i], None, objects);
                for (k, a) in plan.asked.iter().enumerate() {
                    if a.object != *i || a.kind != Via::Needed {
                        continue;
                    }
                    // Its own edge, or (an object loaded before as
                    // another's dependency) the copy loaded under the name.
                    let answer = own
                        .iter()
                        .find(|d| d.needed_by == paths[*i] && d.name == a.name)
                        .map(|d| d.found.clone())
                        .unwrap_or_else(|| {
                            process.loaded(&a.name).map(|p| Found {
                                path: p.to_path_buf(),
                                rule: Rule::Loaded,
                            })
                        });
                    found[k] = Some(answer);
                }
                deps.extend(own);
            }
            Step::Open { caller, asked } => {
                let a = &plan.asked[*asked];
                let (mut answer, more) = process.open(&a.name, infos[*caller], objects);
                deps.extend(more);
                // The framework's own next try: the name in its directory,
                // by path (Paddle's /usr/local/cuda/lib64/libcudnn.so).
                if answer.is_none()
                    && let Some(dir) = &a.then_dir
                {
                    // A name with a slash: the loader's own answer for a
                    // path (a loadable ELF for the caller's machine).
                    let path = search
                        .sysroot
                        .join(dir.trim_start_matches('/'))
                        .join(&a.name);
                    let tried = path
                        .to_str()
                        .and_then(|p| search.resolve(p, infos[*caller]));
                    if let Some(f) = tried {
                        deps.extend(process.load(&f.path, Some(&a.name), objects));
                        answer = Some(f);
                    }
                }
                found[*asked] = Some(answer);
            }
        }
    }
    // The objects' own edges are the names asked.
    deps.retain(|d| !paths.contains(&d.needed_by));
    let files = process.files().to_vec();
    Run { found, deps, files }
}
