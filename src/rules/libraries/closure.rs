//! The dependencies of the CUDA libraries a framework loads, and their
//! symbols. A library loaded by path from a wheel still takes its own
//! `DT_NEEDED` libraries from the loader's search, where `LD_LIBRARY_PATH`
//! precedes its `RUNPATH $ORIGIN`: JAX's `libcublas.so.13` from the wheel
//! with a `module load cuda` system `libcublasLt.so.13`. Each dependency
//! is classified like a name the framework asks for (the same findings:
//! missing, found only through the hook, a copy from outside the
//! environment winning), and the versioned symbols each library needs and
//! the provider the loader binds lacks ([`crate::loading::symbols`]) are
//! each a `symbol-missing` finding.

use std::collections::BTreeMap;
use std::path::Path;

use super::tally::Tally;
use super::{Searches, classify};
use crate::finding::{Cmd, Code, Fix, Problem, Severity};
use crate::inventory::{FrameworkBuild, Installer};
pub use crate::loading::symbols::{DependencyCheck, SymbolGap, on_disk, symbol_gaps};
use crate::machine::loader::Dependency;
use crate::rules::libraries::Via;
use crate::rules::{Facts, finding};

/// The dependencies of every framework's libraries, each once.
#[derive(Default)]
pub(super) struct Closure {
    edges: Vec<DependencyCheck>,
}

/// A dependency's key across the two runs: the needing library's file
/// name (the hook's link directory names it too) and the name it needs.
fn key(d: &Dependency) -> (Option<&std::ffi::OsStr>, &str) {
    (d.needed_by.file_name(), d.name.as_str())
}

impl Closure {
    /// The dependencies of one framework's run with and without the hook:
    /// each classified into the framework's tally, each kept once.
    pub(super) fn record(
        &mut self,
        f: &Facts,
        (searches, machine): (&Searches, u16),
        fw: &FrameworkBuild,
        tally: &mut Tally,
        (with, without): (Vec<Dependency>, Vec<Dependency>),
    ) {
        let mut with_by_key: BTreeMap<_, &Dependency> = BTreeMap::new();
        for d in &with {
            with_by_key.entry(key(d)).or_insert(d);
        }
        let mut seen = std::collections::BTreeSet::new();
        for d in &without {
            if !seen.insert(key(d)) {
                continue;
            }
            let with_hook = with_by_key.get(&key(d)).and_then(|w| w.found.clone());
            let outcome = classify(
                f,
                searches,
                &d.name,
                Via::Dependency,
                machine,
                &with_hook,
                &d.found,
            );
            tally.record(
                fw,
                &d.needed_by,
                &d.name,
                Via::Dependency,
                outcome,
                super::tally::Consequence::default(),
            );
            let known = self
                .edges
                .iter()
                .any(|e| e.needed_by.file_name() == d.needed_by.file_name() && e.name == d.name);
            if !known {
                self.edges.push(DependencyCheck {
                    needed_by: d.needed_by.clone(),
                    name: d.name.clone(),
                    with_hook,
                    without_hook: d.found.clone(),
                });
            }
        }
    }

    /// Every dependency, in the order they were loaded.
    pub(super) fn into_edges(self) -> Vec<DependencyCheck> {
        self.edges
    }

    /// The versioned symbols each library needs that the provider the
    /// loader binds lacks, as findings.
    pub(super) fn symbols(&self, f: &Facts, installed: bool) -> Vec<Problem> {
        symbol_gaps(f, &self.edges, installed)
            .iter()
            .map(|gap| missing_symbol(f, gap))
            .collect()
    }
}

/// The package of the environment that owns a library file.
fn owner<'a>(f: &'a Facts, path: &Path) -> Option<&'a crate::inventory::Package> {
    let real = crate::paths::real_path(path).ok();
    f.inv.packages.iter().find(|p| {
        p.libraries.iter().any(|l| {
            l.path == path
                || real.is_some() && crate::paths::real_path(&l.path).ok().as_ref() == real.as_ref()
        })
    })
}

/// One library whose provider lacks symbols it needs: the load fails.
fn missing_symbol(f: &Facts, gap: &SymbolGap) -> Problem {
    let (e, provider, lacking) = (gap.edge, gap.provider, &gap.lacking);
    let consumer = e
        .needed_by
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (symbol, version) = &lacking[0];
    let more = match lacking.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    let inside = provider.path.starts_with(&f.inv.prefix);
    let fix = if gap.hook_fixes {
        crate::rules::fixes::hook_fix(&f.inv.prefix)
    } else if !inside {
        Fix::advice(format!(
            "take {} off LD_LIBRARY_PATH (it holds another release of {})",
            provider.path.parent().unwrap_or(Path::new("/")).display(),
            e.name
        ))
    } else {
        let pip = crate::rules::fixes::pip(&f.inv.prefix);
        // A framework's pin on the provider's wheel is the release to have.
        let pinned = |name: &str| {
            f.inv
                .frameworks
                .iter()
                .flat_map(|fw| fw.pins.iter())
                .find(|pin| pin.name == name)
        };
        // Without a pin, a release at least as new as the one the
        // consumer was built with: the newest.
        match owner(f, &provider.path) {
            Some(p) if p.installer == Installer::Pip => Fix::Command(match pinned(&p.name) {
                Some(pin) => pip.raw("install").arg(&pin.requirement),
                None => pip.raw("install --upgrade").arg(&p.name),
            }),
            Some(p) => Fix::Command(
                Cmd::new("conda update -p")
                    .path(&f.inv.prefix)
                    .raw("-c conda-forge")
                    .arg(&p.name),
            ),
            None => Fix::advice(format!(
                "reinstall {} at the release {consumer} was built with",
                e.name
            )),
        }
    };
    finding(
        Severity::Error,
        Code::SymbolMissing,
        format!(
            "{consumer} ({}) needs {symbol} (version {version}){more} from {}, and the {} the loader \
             takes, {} ({}), does not define it: loading it fails with \"undefined symbol: {symbol}, \
             version {version}\"",
            e.needed_by.parent().unwrap_or(Path::new("/")).display(),
            e.name,
            e.name,
            provider.path.display(),
            provider.rule.label()
        ),
        Some(fix),
    )
}
