//! What each consumer of a framework's C++ API lacks from the release
//! installed: its objects' undefined symbols in the framework's namespaces
//! (torch's `c10::`, `at::`), looked up, by the hash tables, in the
//! framework's libraries the loader would bind them to (those the object
//! names and, breadth first, those they name: the object's local scope),
//! and the requirements it places on the framework that the release
//! installed does not meet. Data only; [`super`] turns it into findings
//! and `explain` answers from the same.
//!
//! Each framework library is opened once for every consumer (torch's
//! libtorch_cpu.so has a 500 kB hash table; torchaudio a dozen objects).

use std::cell::Cell;
use std::collections::HashMap;
use std::path::Path;

use crate::data::catalog::{CATALOG, FrameworkAbiRow, Role};
use crate::inventory::pins::Pin;
use crate::inventory::{Installer, LibStatus, Package};
use crate::machine::{elf, symbols};
use crate::rules::Facts;

/// One consumer and what it lacks.
#[derive(Debug)]
pub struct Gap<'a> {
    /// The consumer (xformers).
    pub consumer: &'a Package,
    /// The framework release installed (torch 2.6.0).
    pub framework: &'a Package,
    /// Its objects that lack symbols, by file name.
    pub objects: Vec<String>,
    /// The symbols they need that the framework's libraries do not
    /// define, mangled, in the order found.
    pub missing: Vec<String>,
    /// How many of its objects link the framework.
    pub linking: usize,
    /// Its requirements on the framework and the framework's other
    /// extensions that the versions installed do not meet, each with the
    /// version installed (`torch==2.5.1` with `2.6.0`).
    pub broken_pins: Vec<(&'a Pin, &'a str)>,
}

impl Gap<'_> {
    /// Whether there is anything to say.
    pub fn any(&self) -> bool {
        !self.missing.is_empty() || !self.broken_pins.is_empty()
    }

    /// Its broken requirement on the framework itself: the release it was
    /// built for.
    pub fn built_for(&self) -> Option<&Pin> {
        self.broken_pins
            .iter()
            .map(|(pin, _)| *pin)
            .find(|pin| pin.name == self.framework.name)
    }
}

/// One framework library, opened.
struct Provider<'c> {
    tables: symbols::Tables<'c>,
    /// Its DT_NEEDED.
    needed: Vec<String>,
}

/// The gaps of every consumer of a framework's C++ API in the
/// environment, nothing for those that lack nothing.
pub fn gaps<'a>(f: &Facts<'a>) -> Vec<Gap<'a>> {
    let count = Cell::new(0);
    let mut opened: HashMap<&Path, Option<Provider>> = HashMap::new();
    let mut out = Vec::new();
    for consumer in f
        .inv
        .packages
        .iter()
        .filter(|p| p.role == Role::FrameworkExtension && p.installer == Installer::Pip)
    {
        let Some(abi) = consumer.framework.and_then(|fw| CATALOG.framework_abi(fw)) else {
            continue;
        };
        let Some(framework) = framework_for(f, consumer, abi) else {
            continue;
        };
        let libraries: HashMap<String, &Path> = framework
            .libraries
            .iter()
            .filter(|l| l.status == LibStatus::Ok)
            .filter_map(|l| Some((file_name(&l.path)?, l.path.as_path())))
            .filter(|(name, _)| abi.is_library(name))
            .collect();
        let mut gap = Gap {
            consumer,
            framework,
            objects: Vec::new(),
            missing: Vec::new(),
            linking: 0,
            broken_pins: broken_pins(f, consumer, framework),
        };
        for object in consumer
            .libraries
            .iter()
            .filter(|l| l.status == LibStatus::Ok)
        {
            let lacking = lacking(&object.path, abi, &libraries, &mut opened, &count);
            if let Some(lacking) = lacking {
                gap.linking += 1;
                if !lacking.is_empty() {
                    gap.objects.extend(file_name(&object.path));
                    gap.missing.extend(lacking);
                }
            }
        }
        if gap.any() {
            out.push(gap);
        }
    }
    out
}

/// The framework release a consumer runs with: the framework's build of
/// the same installer (pip's torch for a pip extension).
fn framework_for<'a>(
    f: &Facts<'a>,
    consumer: &Package,
    abi: &FrameworkAbiRow,
) -> Option<&'a Package> {
    f.inv.packages.iter().find(|p| {
        p.role == Role::Framework
            && p.framework == Some(abi.framework)
            && p.installer == consumer.installer
            && abi.distributions.contains(&p.name)
    })
}

/// The consumer's requirements on the framework and its other extensions
/// that the versions installed do not meet.
fn broken_pins<'a>(
    f: &Facts<'a>,
    consumer: &'a Package,
    framework: &Package,
) -> Vec<(&'a Pin, &'a str)> {
    let installed = |name: &str| {
        f.inv.packages.iter().find(|p| {
            p.name == name
                && p.installer == consumer.installer
                && (p.name == framework.name
                    || (p.role == Role::FrameworkExtension && p.framework == framework.framework))
        })
    };
    consumer
        .requirements
        .iter()
        .filter_map(|pin| {
            let p = installed(&pin.name)?;
            (pin.allows(&p.version) == Some(false)).then_some((pin, p.version.as_str()))
        })
        .collect()
}

/// The symbols of the framework's namespaces one object needs that the
/// framework libraries in its scope do not define; `None` when it links
/// none of them (or cannot be read: it tells nothing either way).
fn lacking<'p, 'c>(
    object: &Path,
    abi: &FrameworkAbiRow,
    libraries: &HashMap<String, &'p Path>,
    opened: &mut HashMap<&'p Path, Option<Provider<'c>>>,
    count: &'c Cell<u64>,
) -> Option<Vec<String>> {
    let info = elf::read(object).ok()?;
    let scope = scope(&info.needed, libraries, opened, count);
    if scope.is_empty() {
        return None;
    }
    let tables = symbols::open(object, count).ok()?;
    // A malformed symbol table tells nothing either way.
    let undefined = tables.undefined(&|s: &str| abi.owns_symbol(s)).ok()?;
    Some(
        undefined
            .into_iter()
            .filter(|s| {
                scope.iter().all(|p| {
                    opened[p]
                        .as_ref()
                        .is_none_or(|p| p.tables.defines(s, None) == Some(false))
                })
            })
            .collect(),
    )
}

/// The framework libraries in an object's local scope, breadth first from
/// its DT_NEEDED, each opened once for all objects.
fn scope<'p, 'c>(
    needed: &[String],
    libraries: &HashMap<String, &'p Path>,
    opened: &mut HashMap<&'p Path, Option<Provider<'c>>>,
    count: &'c Cell<u64>,
) -> Vec<&'p Path> {
    let mut queue: Vec<String> = needed.to_vec();
    let mut scope: Vec<&'p Path> = Vec::new();
    let mut i = 0;
    while let Some(name) = queue.get(i).cloned() {
        i += 1;
        let Some(&path) = libraries.get(&name) else {
            continue;
        };
        if scope.contains(&path) {
            continue;
        }
        scope.push(path);
        let provider = opened.entry(path).or_insert_with(|| {
            Some(Provider {
                needed: elf::read(path).ok()?.needed,
                tables: symbols::open(path, count).ok()?,
            })
        });
        if let Some(p) = provider {
            let new: Vec<String> = p
                .needed
                .iter()
                .filter(|n| libraries.contains_key(*n) && !queue.contains(n))
                .cloned()
                .collect();
            queue.extend(new);
        }
    }
    scope
}

fn file_name(path: &Path) -> Option<String> {
    Some(path.file_name()?.to_string_lossy().into_owned())
}
