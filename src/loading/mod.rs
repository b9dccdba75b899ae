//! The loader simulation: what each framework's import asks the dynamic
//! loader for, in the order it asks ([`asked`]), what the loader (and
//! cuda-pathfinder, [`pathfinder`]) finds for each ask with and without
//! envhook's hook ([`run`]), and which copies of a library that loads
//! ([`loaded`]), through the two searches of [`searches`], and the
//! symbols the libraries lack from what binds ([`symbols`]). Data only,
//! from the facts below; the rules a floor up turn it into findings.

pub mod asked;
pub mod loaded;
pub mod pathfinder;
pub mod run;
pub mod searches;
pub mod symbols;

use serde::Serialize;

use crate::activation::spec::HookSpec;
use crate::activation::status::InstalledHooks;
use crate::data::matrix::Matrix;
use crate::discovery::Context;
use crate::inventory::Inventory;
use crate::machine::Machine;

/// Everything the simulation and the rules look at, gathered once
/// (`rules::facts` builds it).
pub struct Facts<'a> {
    /// The environment.
    pub inv: &'a Inventory,
    /// The compatibility data.
    pub matrix: &'a Matrix,
    /// The driver, GPUs and loader cache.
    pub machine: &'a Machine,
    /// Environment variables and the sysroot.
    pub ctx: &'a Context,
    /// What envhook's isolating hook would expose (`None`: nothing to
    /// expose, or a prefix no hook can carry).
    pub spec: Option<HookSpec>,
    /// What the installed hooks record.
    pub installed: Option<InstalledHooks>,
}

/// How a library is asked for: the loader simulation's vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// A framework object's DT_NEEDED entry.
    Needed,
    /// Loaded by name at run time (dlopen).
    Dlopen,
    /// Loaded through cuda-pathfinder.
    Pathfinder,
    /// A DT_NEEDED entry of a library the framework loads.
    Dependency,
}

impl Via {
    /// The name JSON and check's list print.
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Needed => "needed",
            Via::Dlopen => "dlopen",
            Via::Pathfinder => "pathfinder",
            Via::Dependency => "dependency",
        }
    }
}

impl std::fmt::Display for Via {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// As `as_str` spells it: the one spelling, for JSON too.
impl Serialize for Via {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
