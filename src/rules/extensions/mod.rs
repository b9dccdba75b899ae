//! Extensions built against a framework's own libraries (torchvision,
//! torchaudio against libtorch and libc10) work only with the release they
//! were built against: torch's C++ API has no symbol versions, so another
//! torch fails the load with `undefined symbol: _ZNK5torch8autograd4Node4nameB5cxx11Ev`
//! (torch 2.7 moved to the C++11 ABI; torchvision 0.22 needs it, torch 2.6
//! lacks it). torchvision swallows that error and then fails with
//! "operator torchvision::nms does not exist".
//!
//! Each extension object that needs torch's libraries has its undefined
//! symbols of torch's namespaces (`c10`, `at`, `torch`, `caffe2`) looked up
//! in the installed torch's libraries it names, by their hash tables, as
//! the loader would (`crate::machine::symbols`); what none defines is a
//! finding, and the fix is pip's choice of the extension's release for the
//! torch installed.

use std::cell::Cell;
use std::path::Path;

use super::{Facts, finding};
use crate::data::catalog::{Framework, Role};
use crate::finding::{Fix, Problem, Severity, quoted};
use crate::inventory::{Installer, LibStatus, Package};
use crate::machine::{elf, symbols};

/// The extension rules.
pub fn check(f: &Facts) -> Vec<Problem> {
    let mut out = Vec::new();
    for ext in f.inv.packages.iter().filter(|p| {
        p.role == Role::FrameworkExtension
            && p.installer == Installer::Pip
            && p.framework == Some(Framework::Pytorch)
    }) {
        let Some(torch) = f.inv.packages.iter().find(|p| {
            p.role == Role::Framework
                && p.framework == Some(Framework::Pytorch)
                && p.installer == ext.installer
        }) else {
            continue;
        };
        if let Some(p) = mismatch(f, ext, torch) {
            out.push(p);
        }
    }
    out
}

/// Whether a mangled name is in one of torch's namespaces: `_ZN`, `_ZNK`
/// (and typeinfo, vtable, TLS wrappers `_ZTI`, `_ZTV`, `_ZTS`, `_ZTH`,
/// `_ZTW` of a nested name) followed by `3c10`, `2at`, `5torch` or
/// `6caffe2`.
fn torch_namespace(symbol: &str) -> bool {
    let Some(rest) = symbol.strip_prefix("_Z") else {
        return false;
    };
    let rest = ["TI", "TV", "TS", "TH", "TW"]
        .iter()
        .find_map(|p| rest.strip_prefix(p))
        .unwrap_or(rest);
    let Some(rest) = rest.strip_prefix('N') else {
        return false;
    };
    let rest = rest.trim_start_matches(['K', 'V', 'r']);
    ["3c10", "2at", "5torch", "6caffe2"]
        .iter()
        .any(|ns| rest.starts_with(ns))
}

/// The symbols of torch's namespaces one extension's objects need that the
/// installed torch's libraries do not define, as one finding.
fn mismatch(f: &Facts, ext: &Package, torch: &Package) -> Option<Problem> {
    let count = Cell::new(0);
    // Torch's libraries, each opened once for all the extension's objects
    // (torchaudio has a dozen; libtorch_cpu.so's hash table is 500 kB).
    let torch_libs: Vec<(String, symbols::Tables)> = torch
        .libraries
        .iter()
        .filter(|t| t.status == LibStatus::Ok)
        .filter_map(|t| Some((file_name(&t.path), symbols::open(&t.path, &count).ok()?)))
        .collect();
    let mut missing: Vec<String> = Vec::new();
    let mut objects: Vec<String> = Vec::new();
    for lib in ext.libraries.iter().filter(|l| l.status == LibStatus::Ok) {
        let Ok(info) = elf::read(&lib.path) else {
            continue;
        };
        // The torch libraries it names.
        let providers: Vec<&symbols::Tables> = torch_libs
            .iter()
            .filter(|(name, _)| info.needed.iter().any(|n| n == name))
            .map(|(_, t)| t)
            .collect();
        if providers.is_empty() {
            continue;
        }
        let Ok(tables) = symbols::open(&lib.path, &count) else {
            continue;
        };
        // A malformed symbol table tells nothing either way.
        let Ok(undefined) = tables.undefined(&torch_namespace) else {
            continue;
        };
        let lacking: Vec<String> = undefined
            .into_iter()
            .filter(|s| providers.iter().all(|p| p.defines(s, None) == Some(false)))
            .collect();
        if !lacking.is_empty() {
            objects.push(file_name(&lib.path));
            missing.extend(lacking);
        }
    }
    let first = missing.first()?;
    let more = match missing.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    let release = torch.version.split('+').next().unwrap_or(&torch.version);
    Some(finding(
        Severity::Error,
        "extension-mismatch",
        format!(
            "{} {} ({}) was built against another torch than the installed {} {}: it needs {first}{more}, \
             which torch's libraries do not define, so loading it fails with \"undefined symbol\" for \
             one of them",
            ext.name,
            ext.version,
            objects.join(", "),
            torch.name,
            torch.version
        ),
        // pip picks the extension's release whose own pin is this torch.
        Some(Fix::Command(format!(
            "{} install {} {}",
            super::fixes::pip(&f.inv.prefix),
            quoted(&format!("torch=={release}")),
            quoted(&ext.name)
        ))),
    ))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The symbols torchvision 0.22.0 needs and torch 2.6.0 lacks (PyPI
    /// wheels, `nm -D`), and some it does not check.
    #[test]
    fn torch_namespaces_by_their_mangled_names() {
        for s in [
            "_ZNK5torch8autograd4Node4nameB5cxx11Ev",
            "_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
            "_ZTHN3c104impl26raw_local_dispatch_key_setE",
            "_ZN2at4_ops3add4callERKNS_6TensorES4_RKN3c106ScalarE",
            "_ZTVN5torch8autograd4NodeE",
        ] {
            assert!(torch_namespace(s), "{s}");
        }
        for s in [
            "PyLong_FromLong",
            "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm",
            "_ZN5boost3fooEv",
            "_Z3fooi",
            "_ZN3c1",
        ] {
            assert!(!torch_namespace(s), "{s}");
        }
    }
}
