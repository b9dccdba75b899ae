//! Reading the records: the catalogue's conda packages from conda-meta,
//! its pip distributions from each site-packages, each into a [`Package`]
//! with its libraries; what cannot be read is a finding of that package's.

use std::path::{Path, PathBuf};

use super::pip::{DistInfo, DistInfoEntry};
use super::records::{MetaEntry, Record};
use super::{
    Installer, Inventory, Library, Package, builds, consumers, library, pins, pip, records,
};
use crate::data::catalog::{CATALOG, Framework, PackageRow, Role};
use crate::error::{Error, Result};
use crate::finding::{Cmd, Code, Fix, Problem, Severity};
use records::MetaIndex;

/// The catalogue row a CUDA build without one of its own is read as.
static OTHER_FRAMEWORK: std::sync::LazyLock<crate::data::catalog::PackageRow> =
    std::sync::LazyLock::new(|| crate::data::catalog::PackageRow {
        name: String::new(),
        role: Role::Framework,
        lib: None,
        framework: Some(Framework::Other),
        source: "named as a CUDA build (inventory::builds::named_as_cuda_build)".into(),
    });

impl Inventory {
    pub(super) fn read_conda(&mut self, prefix: &Path, meta: &MetaIndex) -> Result<()> {
        let mut seen: Vec<&str> = Vec::new();
        for entry in &meta.entries {
            let Some(row) = CATALOG.conda(&entry.name) else {
                continue;
            };
            if seen.contains(&entry.name.as_str()) {
                self.problems.push(duplicate_record(prefix, entry));
            }
            seen.push(&entry.name);
            let record = match records::read_record(&entry.path) {
                Ok(record) => record,
                Err(e @ Error::RecordTooLarge { .. }) => {
                    self.problems.push(record_too_large(&e, prefix, entry));
                    continue;
                }
                Err(e) => return Err(e),
            };
            self.add_conda(prefix, entry, row, record);
        }
        Ok(())
    }

    /// One conda record read: the package, and what is odd about its record.
    fn add_conda(&mut self, prefix: &Path, entry: &MetaEntry, row: &PackageRow, record: Record) {
        self.stats.records_parsed += 1;
        // conda normalises names to lower case; so did rattler here.
        if record.name.to_ascii_lowercase() != entry.name {
            self.problems.push(Problem {
                severity: Severity::Warning,
                code: Code::RecordNameMismatch,
                message: format!(
                    "the record is named {} but describes package {}",
                    entry.name, record.name
                ),
                fix: Some(Fix::Choose {
                    advice: format!(
                        "remove the stray record, or reinstall {} so conda writes its record again",
                        record.name
                    ),
                    commands: vec![
                        Cmd::new("rm --").path(&entry.path),
                        conda_reinstall(prefix, &record.name),
                    ],
                }),
                path: Some(entry.path.clone()),
                source: None,
            });
        }
        if self.platform.is_none() && record.subdir != "noarch" && !record.subdir.is_empty() {
            self.platform = Some(record.subdir.clone());
        }
        if record.libraries_listed > record.libraries.len() {
            self.problems.push(truncated(
                &entry.name,
                "record",
                record.libraries_listed,
                record.libraries.len(),
                &entry.path,
                conda_reinstall(prefix, &entry.name),
            ));
        }
        let libraries = record
            .libraries
            .iter()
            .map(|rel| library(prefix.join(rel)))
            .collect();
        self.packages.push(Package {
            name: entry.name.clone(),
            version: record.version,
            build: Some(record.build),
            installer: Installer::Conda,
            metadata: entry.path.clone(),
            role: row.role,
            component: row.lib.clone(),
            framework: row.framework,
            cuda_major: None,
            libraries,
            pins: Vec::new(),
            fix_pins: Vec::new(),
            alt_pins: Vec::new(),
            requirements: Vec::new(),
            depends: Vec::new(),
        });
    }

    pub(super) fn read_pip(&mut self, sites: &[PathBuf]) -> Result<()> {
        let scanned = sites
            .iter()
            .map(|site| Ok((site, pip::scan(site)?)))
            .collect::<Result<Vec<_>>>()?;
        // Every distribution, by the name and version its directory
        // gives: what a framework's extras are told from.
        let installed: pins::Installed = scanned
            .iter()
            .flat_map(|(_, entries)| entries)
            .map(|e| (e.name.clone(), e.version.clone()))
            .collect();
        let frameworks = consumers::installed_frameworks(&installed);
        for (site, entries) in &scanned {
            self.stats.dist_infos_total += entries.len();
            let python = python_of(site);
            let mut seen: Vec<String> = Vec::new();
            for entry in entries {
                let consumer;
                let (row, cuda_major) = match CATALOG.pip(&entry.name) {
                    Some((row, major)) => (row, major),
                    // A CUDA build envhook has no data for is still
                    // checked, from its own objects (rules::libraries).
                    None if builds::named_as_cuda_build(&entry.name) => (
                        &*OTHER_FRAMEWORK,
                        builds::cuda_major_in_name(&entry.name).and_then(|m| m.parse().ok()),
                    ),
                    // Built on a framework's C++ API: checked against the
                    // release installed (rules::extensions).
                    None => match consumers::framework_of(
                        entry,
                        python.as_deref(),
                        &installed,
                        &frameworks,
                    ) {
                        Some(framework) => {
                            consumer = PackageRow {
                                name: entry.name.clone(),
                                role: Role::FrameworkExtension,
                                lib: None,
                                framework: Some(framework),
                                source: "found by its requirements or DT_NEEDED \
                                         (inventory::consumers)"
                                    .into(),
                            };
                            (&consumer, None)
                        }
                        None => continue,
                    },
                };
                if seen.contains(&entry.name) {
                    let fix = pip_reinstall(&self.prefix, &entry.name);
                    self.problems.push(duplicate_dist_info(entry, fix));
                }
                seen.push(entry.name.clone());
                // A broken dist-info (no METADATA: an interrupted install or
                // a hand-made copy) is one package envhook cannot judge, not
                // a reason to judge none.
                match pip::read(entry) {
                    Ok(dist) => self.add_pip(site, entry, (row, cuda_major), dist, &installed),
                    Err(e) => {
                        let fix = pip_reinstall(&self.prefix, &entry.name);
                        self.problems.push(dist_info_unreadable(&e, entry, fix));
                    }
                }
            }
        }
        self.distributions = installed;
        Ok(())
    }

    /// One dist-info read: the package, unless conda's record already
    /// describes it.
    fn add_pip(
        &mut self,
        site: &Path,
        entry: &DistInfoEntry,
        (row, cuda_major): (&PackageRow, Option<u32>),
        dist: DistInfo,
        installed: &pins::Installed,
    ) {
        self.stats.dist_infos_read += 1;
        // conda-forge python packages carry a dist-info written by
        // conda; the conda record already describes them.
        if dist.installer.as_deref() == Some("conda") {
            return;
        }
        // Paddle's conda channel pip-installs the wheel inside its
        // conda package: same name, same files, one package.
        if row.role == Role::Framework
            && self
                .packages
                .iter()
                .any(|p| p.installer == Installer::Conda && p.name == entry.name)
        {
            return;
        }
        if dist.libraries_listed > dist.libraries.len() {
            self.problems.push(truncated(
                &entry.name,
                "RECORD",
                dist.libraries_listed,
                dist.libraries.len(),
                &entry.dir.join("RECORD"),
                pip_reinstall(&self.prefix, &entry.name),
            ));
        }
        let libraries = dist
            .libraries
            .into_iter()
            .map(|(path, size)| Library {
                recorded_size: size,
                ..library(path)
            })
            .collect();
        let (pins, requirements, depends) = requirements(row, &dist.requires, site, installed);
        self.packages.push(Package {
            name: entry.name.clone(),
            version: dist.version,
            build: None,
            installer: Installer::Pip,
            metadata: entry.dir.clone(),
            role: row.role,
            component: row.lib.clone(),
            framework: row.framework,
            cuda_major,
            libraries,
            pins: pins.held,
            fix_pins: pins.for_fixes,
            alt_pins: pins.alternatives,
            requirements,
            depends,
        });
    }
}

/// What a pip distribution's `Requires-Dist` lines say, by its role: a
/// framework's CUDA-stack pins; what an extension requires of what is
/// installed (its framework, the release it was built for where it pins
/// one, and the framework's other extensions: vLLM pins torchvision and
/// xformers); the installed distributions a CUDA library pulled in.
fn requirements(
    row: &PackageRow,
    requires: &[String],
    site: &Path,
    installed: &pins::Installed,
) -> (pins::Pins, Vec<pins::Pin>, Vec<String>) {
    let python = python_of(site);
    let python = python.as_deref();
    let pins = match row.framework {
        Some(_) => pins::parse(requires, python, installed),
        None => pins::Pins::default(),
    };
    let requirements = match row.role {
        Role::FrameworkExtension => {
            let names: Vec<String> = installed.keys().cloned().collect();
            pins::on_distributions(requires, python, installed, &names)
        }
        _ => Vec::new(),
    };
    let depends = match row.role {
        Role::CudaLibrary | Role::Cudnn | Role::Nccl | Role::CudaToolkit | Role::Meta => {
            pins::installed_requirements(requires, python, installed)
        }
        _ => Vec::new(),
    };
    (pins, requirements, depends)
}

/// Two records of one package in conda-meta.
fn duplicate_record(prefix: &Path, entry: &MetaEntry) -> Problem {
    Problem {
        severity: Severity::Warning,
        code: Code::DuplicateRecord,
        message: format!(
            "conda-meta holds more than one record for {} (an interrupted transaction?)",
            entry.name
        ),
        fix: Some(Fix::Command(conda_reinstall(prefix, &entry.name))),
        path: Some(entry.path.clone()),
        source: None,
    }
}

/// A record past [`records::MAX_RECORD_BYTES`], left out of the checks.
fn record_too_large(e: &Error, prefix: &Path, entry: &MetaEntry) -> Problem {
    Problem {
        severity: Severity::Warning,
        code: Code::RecordTooLarge,
        message: format!("{e}: {} is left out of the checks", entry.name),
        fix: Some(Fix::Command(conda_reinstall(prefix, &entry.name))),
        path: Some(entry.path.clone()),
        source: None,
    }
}

/// Two dist-info directories of one distribution.
fn duplicate_dist_info(entry: &DistInfoEntry, reinstall: Cmd) -> Problem {
    Problem {
        severity: Severity::Warning,
        code: Code::DuplicateDistInfo,
        message: format!(
            "{} has more than one dist-info directory (a pip upgrade that was interrupted?)",
            entry.name
        ),
        fix: Some(Fix::Command(reinstall)),
        path: Some(entry.dir.clone()),
        source: None,
    }
}

/// A dist-info that cannot be read, left out of the checks.
fn dist_info_unreadable(e: &Error, entry: &DistInfoEntry, reinstall: Cmd) -> Problem {
    Problem {
        severity: Severity::Warning,
        code: Code::DistInfoUnreadable,
        message: format!("{e}; {} is left out of the checks", entry.name),
        fix: Some(Fix::Command(reinstall)),
        path: Some(entry.dir.clone()),
        source: None,
    }
}

/// The command that has conda reinstall a package, records and files.
pub(super) fn conda_reinstall(prefix: &Path, spec: &str) -> Cmd {
    Cmd::new("conda install -p")
        .path(prefix)
        .raw("--force-reinstall")
        .arg(spec)
}

/// The command that has the environment's pip reinstall a distribution
/// over itself, its dependencies left as they are.
pub(super) fn pip_reinstall(prefix: &Path, spec: &str) -> Cmd {
    Cmd::default()
        .path(prefix.join("bin/python"))
        .raw("-m pip install --force-reinstall --no-deps")
        .arg(spec)
}

/// The Python version of a site-packages directory
/// (`lib/python3.11/site-packages` -> `3.11`), for evaluating markers.
fn python_of(site: &Path) -> Option<String> {
    let dir = site.parent()?.file_name()?.to_str()?;
    let v = dir.strip_prefix("python")?;
    v.split('.')
        .all(|p| p.parse::<u32>().is_ok())
        .then(|| v.to_string())
}

/// A package whose record or RECORD lists more than [`super::MAX_LIBRARIES`]
/// shared libraries: the first are checked, and this says so.
fn truncated(
    name: &str,
    what: &str,
    listed: usize,
    kept: usize,
    path: &Path,
    reinstall: Cmd,
) -> Problem {
    Problem {
        severity: Severity::Warning,
        code: Code::RecordTruncated,
        message: format!(
            "{name}'s {what} lists {listed} shared libraries; the first {kept} are checked"
        ),
        fix: Some(Fix::Command(reinstall)),
        path: Some(path.to_path_buf()),
        source: None,
    }
}
