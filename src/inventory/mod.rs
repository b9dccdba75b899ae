//! The GPU-stack inventory of one environment: which CUDA runtime, cuDNN,
//! NCCL, cuBLAS and framework builds it holds, where their libraries are on
//! disk, and what is broken about them.
//!
//! Built from the conda records and pip distributions named in the
//! catalogue ([`crate::data::catalog`]), never from the whole environment, and
//! checked against the disk: every shared library a record lists is looked
//! up (without being read), so a half-removed package shows up as a broken
//! install rather than as a `cannot open shared object file` at import.

pub mod builds;
mod consistency;
pub mod pins;
pub mod pip;
pub mod pyconst;
pub mod records;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::data::catalog::{CATALOG, Framework, Role};
use crate::error::{Error, Result};
use crate::finding::{Problem, Severity};
use crate::paths;
use builds::{BuildInfo, Variant};
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

/// Identifies the JSON document (`envhook show --json`); bumped on any
/// incompatible change.
pub const SCHEMA: &str = "envhook.inventory/1";

/// Who installed a package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Installer {
    /// A conda-meta record.
    Conda,
    /// A pip (or uv) dist-info directory.
    Pip,
}

impl Installer {
    /// Lower-case label.
    pub fn label(self) -> &'static str {
        match self {
            Installer::Conda => "conda",
            Installer::Pip => "pip",
        }
    }
}

/// What was found at a library path the package lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LibStatus {
    /// Present (a file, or a symlink that resolves to one).
    Ok,
    /// Nothing there.
    Missing,
    /// A symlink whose target does not exist.
    DanglingSymlink,
    /// A symlink that leads back to itself.
    SymlinkLoop,
    /// There, but not a file (a directory) or not readable.
    Unusable,
}

impl LibStatus {
    fn describe(self) -> &'static str {
        match self {
            LibStatus::Ok => "present",
            LibStatus::Missing => "missing",
            LibStatus::DanglingSymlink => "a symlink to nothing",
            LibStatus::SymlinkLoop => "a symlink loop",
            LibStatus::Unusable => "not a readable file",
        }
    }
}

/// One shared library a package lists.
#[derive(Debug, Clone, Serialize)]
pub struct Library {
    /// Absolute path as listed.
    #[serde(serialize_with = "paths::serialize")]
    pub path: PathBuf,
    /// The component it belongs to (`cudart`, `cudnn`, ...), when known.
    pub component: Option<String>,
    /// What is on disk there.
    pub status: LibStatus,
    /// The file a symlink resolves to.
    #[serde(serialize_with = "paths::serialize_opt")]
    pub resolves_to: Option<PathBuf>,
    /// The size the pip RECORD that lists it gives (`None` for conda
    /// records and sizes RECORD does not give).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_size: Option<u64>,
}

/// One package of interest.
#[derive(Debug, Clone, Serialize)]
pub struct Package {
    /// conda name or normalised pip name.
    pub name: String,
    /// Version as installed.
    pub version: String,
    /// conda build string.
    pub build: Option<String>,
    /// conda or pip.
    pub installer: Installer,
    /// The record file or dist-info directory.
    #[serde(serialize_with = "paths::serialize")]
    pub metadata: PathBuf,
    /// What it contributes.
    pub role: Role,
    /// The component, for CUDA libraries.
    pub component: Option<String>,
    /// The framework, for frameworks.
    pub framework: Option<Framework>,
    /// The CUDA major of a pip `-cuNN` distribution.
    pub cuda_major: Option<u32>,
    /// The shared libraries it lists.
    pub libraries: Vec<Library>,
    /// What a framework's pip distribution requires of the CUDA stack
    /// (`Requires-Dist`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pins: Vec<pins::Pin>,
}

impl Package {
    fn label(&self) -> String {
        format!(
            "{} {} ({})",
            self.name,
            self.version,
            self.installer.label()
        )
    }
}

/// A version of a stack component and the package that supplies it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Claim {
    /// The component's version (`X.Y` for CUDA).
    pub version: String,
    /// conda or pip.
    pub installer: Installer,
    /// The supplying package.
    pub package: String,
    /// That package's own version.
    pub package_version: String,
}

/// A framework build.
#[derive(Debug, Clone, Serialize)]
pub struct FrameworkBuild {
    /// Which framework.
    pub framework: Framework,
    /// The package that carries it.
    pub package: String,
    /// Its version.
    pub version: String,
    /// conda or pip.
    pub installer: Installer,
    /// What it was built for, and how that is known.
    pub build: BuildInfo,
    /// What its pip distribution requires of the CUDA stack.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pins: Vec<pins::Pin>,
}

/// How a library directory holds its libraries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DirHolds {
    /// Real files only.
    Files,
    /// Only symlinks (to files elsewhere, e.g. CUDA 12's `lib/` -> `targets/`).
    Symlinks,
    /// Both.
    Mixed,
}

/// A directory holding CUDA-stack libraries of this environment.
#[derive(Debug, Clone, Serialize)]
pub struct LibraryDir {
    /// The directory.
    #[serde(serialize_with = "paths::serialize")]
    pub path: PathBuf,
    /// Components found there.
    pub components: BTreeSet<String>,
    /// Packages whose libraries are there.
    pub packages: BTreeSet<String>,
    /// Who installed them.
    pub installer: Installer,
    /// Files, symlinks or both.
    pub holds: DirHolds,
}

/// How much was read to build the inventory; the point is that
/// `records_parsed` stays small however large the environment.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    /// `conda-meta/*.json` files present.
    pub records_total: usize,
    /// Records opened and parsed.
    pub records_parsed: usize,
    /// dist-info directories present.
    pub dist_infos_total: usize,
    /// dist-info directories read.
    pub dist_infos_read: usize,
    /// Library paths checked on disk.
    pub libraries_checked: usize,
}

/// The most shared libraries kept of one package (its conda record's
/// `files`, its pip RECORD). Real packages list a few hundred at most
/// (torch about 100, the CUDA packages under 50); one listing a million
/// would otherwise cost an allocation and a `stat` each. More are counted
/// and reported (`record-truncated`), not kept.
pub const MAX_LIBRARIES: usize = 10_000;

/// The inventory of one environment.
#[derive(Debug, Clone, Serialize)]
pub struct Inventory {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The environment's prefix.
    #[serde(serialize_with = "paths::serialize")]
    pub prefix: PathBuf,
    /// conda subdir of the records read (`linux-64`, `win-64`, ...).
    pub platform: Option<String>,
    /// CUDA runtime versions, one claim per supplying package.
    pub cuda: Vec<Claim>,
    /// cuDNN.
    pub cudnn: Vec<Claim>,
    /// NCCL.
    pub nccl: Vec<Claim>,
    /// cuBLAS.
    pub cublas: Vec<Claim>,
    /// Framework builds.
    pub frameworks: Vec<FrameworkBuild>,
    /// Directories holding the stack's libraries, conda first.
    pub library_dirs: Vec<LibraryDir>,
    /// Every package of interest.
    pub packages: Vec<Package>,
    /// What is wrong.
    pub problems: Vec<Problem>,
    /// What was read.
    pub stats: Stats,
}

impl Inventory {
    /// The environment's usable library files named `name`, with their
    /// packages.
    pub fn libraries_named<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = (&'a Package, &'a Library)> + 'a {
        self.packages
            .iter()
            .flat_map(|p| p.libraries.iter().map(move |l| (p, l)))
            .filter(move |(_, l)| {
                l.status == LibStatus::Ok && l.path.file_name().is_some_and(|n| n == name)
            })
    }

    /// The file names of `stem.so.*` the environment has, in package order
    /// (`libcudnn.so.9`, `libcudnn.so.9.1.1` for `libcudnn`).
    pub fn versioned_names<'a>(&'a self, stem: &str) -> impl Iterator<Item = &'a str> + 'a {
        let want = format!("{stem}.so.");
        self.packages
            .iter()
            .flat_map(|p| p.libraries.iter())
            .filter(|l| l.status == LibStatus::Ok)
            .filter_map(|l| l.path.file_name()?.to_str())
            .filter(move |n| n.starts_with(&want))
    }

    /// The packages that carry CUDA-stack libraries (not frameworks, not
    /// driver stubs), conda first, and within each the runtime first: the
    /// order in which their libraries should be found.
    pub fn library_packages(&self) -> Vec<&Package> {
        let mut packages: Vec<&Package> = self
            .packages
            .iter()
            .filter(|p| {
                matches!(
                    p.role,
                    Role::CudaToolkit | Role::CudaLibrary | Role::Cudnn | Role::Nccl
                )
            })
            .collect();
        packages.sort_by_key(|p| (p.installer, rank(p)));
        packages
    }

    /// Read the inventory of the environment at `prefix`.
    pub fn read(prefix: &Path) -> Result<Self> {
        let meta = MetaIndex::scan(prefix)?;
        let mut inv = Inventory {
            schema: SCHEMA,
            prefix: prefix.to_path_buf(),
            platform: None,
            cuda: Vec::new(),
            cudnn: Vec::new(),
            nccl: Vec::new(),
            cublas: Vec::new(),
            frameworks: Vec::new(),
            library_dirs: Vec::new(),
            packages: Vec::new(),
            problems: Vec::new(),
            stats: Stats {
                records_total: meta.total,
                ..Stats::default()
            },
        };
        inv.read_conda(prefix, &meta)?;
        let sites = pip::site_packages(prefix, &meta);
        inv.read_pip(&sites)?;
        inv.check_libraries();
        inv.derive_claims();
        inv.derive_frameworks(&sites);
        inv.derive_library_dirs();
        inv.check_consistency();
        inv.problems.sort_by_key(|p| std::cmp::Reverse(p.severity));
        Ok(inv)
    }

    fn read_conda(&mut self, prefix: &Path, meta: &MetaIndex) -> Result<()> {
        let mut seen: Vec<&str> = Vec::new();
        for entry in &meta.entries {
            let Some(row) = CATALOG.conda(&entry.name) else {
                continue;
            };
            if seen.contains(&entry.name.as_str()) {
                self.problems.push(Problem {
                    severity: Severity::Warning,
                    code: "duplicate-record",
                    message: format!(
                        "conda-meta holds more than one record for {} (an interrupted transaction?)",
                        entry.name
                    ),
                    hint: Some(format!(
                        "run `conda install -p {} --force-reinstall {}` so conda rewrites its records",
                        prefix.display(),
                        entry.name
                    )),
                    path: Some(entry.path.clone()),
                    source: None,
                });
            }
            seen.push(&entry.name);
            let record = match records::read_record(&entry.path) {
                Ok(record) => record,
                Err(e @ Error::RecordTooLarge { .. }) => {
                    self.problems.push(Problem {
                        severity: Severity::Warning,
                        code: "record-too-large",
                        message: format!("{e}: {} is left out of the checks", entry.name),
                        hint: Some(format!(
                            "reinstall it so conda rewrites the record: conda install -p {} \
                             --force-reinstall {}",
                            prefix.display(),
                            entry.name
                        )),
                        path: Some(entry.path.clone()),
                        source: None,
                    });
                    continue;
                }
                Err(e) => return Err(e),
            };
            self.stats.records_parsed += 1;
            // conda normalises names to lower case; so did rattler here.
            if record.name.to_ascii_lowercase() != entry.name {
                self.problems.push(Problem {
                    severity: Severity::Warning,
                    code: "record-name-mismatch",
                    message: format!(
                        "the record is named {} but describes package {}",
                        entry.name, record.name
                    ),
                    hint: Some("remove the stray file, or reinstall the package".into()),
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
                    format!(
                        "conda install -p {} --force-reinstall {}",
                        prefix.display(),
                        entry.name
                    ),
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
            });
        }
        Ok(())
    }

    fn read_pip(&mut self, sites: &[PathBuf]) -> Result<()> {
        for site in sites {
            let entries = pip::scan(site)?;
            self.stats.dist_infos_total += entries.len();
            let mut seen: Vec<String> = Vec::new();
            for entry in &entries {
                let (row, cuda_major) = match CATALOG.pip(&entry.name) {
                    Some((row, major)) => (row, major),
                    // A CUDA build envhook has no data for is still
                    // checked, from its own objects (rules::libraries).
                    None if builds::named_as_cuda_build(&entry.name) => (
                        &*OTHER_FRAMEWORK,
                        builds::cuda_major_in_name(&entry.name).and_then(|m| m.parse().ok()),
                    ),
                    None => continue,
                };
                if seen.contains(&entry.name) {
                    self.problems.push(Problem {
                        severity: Severity::Warning,
                        code: "duplicate-dist-info",
                        message: format!(
                            "{} has more than one dist-info directory (a pip upgrade that was interrupted?)",
                            entry.name
                        ),
                        hint: Some(format!(
                            "remove the stale one, or run `pip install --force-reinstall --no-deps {}`",
                            entry.name
                        )),
                        path: Some(entry.dir.clone()),
                        source: None,
                    });
                }
                seen.push(entry.name.clone());
                // A broken dist-info (no METADATA: an interrupted install or
                // a hand-made copy) is one package envhook cannot judge, not
                // a reason to judge none.
                let dist = match pip::read(entry) {
                    Ok(dist) => dist,
                    Err(e) => {
                        self.problems.push(Problem {
                            severity: Severity::Warning,
                            code: "dist-info-unreadable",
                            message: format!("{e}; {} is left out of the checks", entry.name),
                            hint: Some(format!(
                                "reinstall it: `pip install --force-reinstall --no-deps {}`",
                                entry.name
                            )),
                            path: Some(entry.dir.clone()),
                            source: None,
                        });
                        continue;
                    }
                };
                self.stats.dist_infos_read += 1;
                // conda-forge python packages carry a dist-info written by
                // conda; the conda record already describes them.
                if dist.installer.as_deref() == Some("conda") {
                    continue;
                }
                // Paddle's conda channel pip-installs the wheel inside its
                // conda package: same name, same files, one package.
                if row.role == Role::Framework
                    && self
                        .packages
                        .iter()
                        .any(|p| p.installer == Installer::Conda && p.name == entry.name)
                {
                    continue;
                }
                if dist.libraries_listed > dist.libraries.len() {
                    self.problems.push(truncated(
                        &entry.name,
                        "RECORD",
                        dist.libraries_listed,
                        dist.libraries.len(),
                        &entry.dir.join("RECORD"),
                        format!("pip install --force-reinstall --no-deps {}", entry.name),
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
                    pins: if row.framework.is_some() {
                        pins::parse(&dist.requires, python_of(site).as_deref())
                    } else {
                        Vec::new()
                    },
                });
            }
        }
        Ok(())
    }

    fn derive_claims(&mut self) {
        for pkg in &self.packages {
            let claim = |version: String| Claim {
                version,
                installer: pkg.installer,
                package: pkg.name.clone(),
                package_version: pkg.version.clone(),
            };
            match (pkg.role, pkg.component.as_deref()) {
                (Role::CudaToolkit, _) => {
                    self.cuda.push(claim(major_minor(&pkg.version)));
                    self.cublas.push(claim(pkg.version.clone()));
                }
                (Role::CudaVersion, _) => self.cuda.push(claim(major_minor(&pkg.version))),
                // The runtime library's version is the toolkit's (12.6.77 ->
                // 12.6); `-dev` packages only add the unversioned symlink.
                (Role::CudaLibrary, Some("cudart")) if !pkg.name.contains("-dev") => {
                    self.cuda.push(claim(major_minor(&pkg.version)));
                }
                (Role::CudaLibrary, Some("cublas")) if !pkg.name.contains("-dev") => {
                    self.cublas.push(claim(pkg.version.clone()));
                }
                (Role::Cudnn, _) if !pkg.name.contains("-dev") => {
                    self.cudnn.push(claim(pkg.version.clone()))
                }
                (Role::Nccl, _) => self.nccl.push(claim(pkg.version.clone())),
                _ => {}
            }
        }
        // `cudnn` (metapackage) and `libcudnn` claim the same version:
        // keep one claim per installer and version.
        for claims in [
            &mut self.cuda,
            &mut self.cudnn,
            &mut self.nccl,
            &mut self.cublas,
        ] {
            let mut kept: Vec<Claim> = Vec::new();
            for c in claims.drain(..) {
                if !kept
                    .iter()
                    .any(|k| k.installer == c.installer && k.version == c.version)
                {
                    kept.push(c);
                }
            }
            *claims = kept;
        }
    }

    fn derive_frameworks(&mut self, sites: &[PathBuf]) {
        for pkg in &self.packages {
            // A framework's library package is no build of its own.
            let Some(framework) = pkg.framework.filter(|_| pkg.role == Role::Framework) else {
                continue;
            };
            let own_site: Vec<PathBuf> = match pkg.installer {
                Installer::Pip => pkg
                    .metadata
                    .parent()
                    .map(Path::to_path_buf)
                    .into_iter()
                    .collect(),
                Installer::Conda => sites.to_vec(),
            };
            let from_file = own_site
                .iter()
                .find_map(|s| builds::from_build_file(framework, s));
            let build = from_file
                .or_else(|| match pkg.installer {
                    Installer::Pip => builds::from_pip(framework, &pkg.name, &pkg.version),
                    Installer::Conda => pkg.build.as_deref().and_then(builds::from_conda_build),
                })
                .unwrap_or_else(|| {
                    BuildInfo::new(
                        Variant::Unknown,
                        "neither the version nor a build file says",
                    )
                });
            let entry = FrameworkBuild {
                framework,
                package: pkg.name.clone(),
                version: pkg.version.clone(),
                installer: pkg.installer,
                build,
                pins: pkg.pins.clone(),
            };
            // conda splits some frameworks (`pytorch` + `libtorch`,
            // `tensorflow` + `tensorflow-base`): one build, reported once,
            // under the name users install.
            let same = self.frameworks.iter_mut().find(|f| {
                f.framework == entry.framework
                    && (f.framework != Framework::Other || f.package == entry.package)
                    && f.installer == entry.installer
                    && f.version == entry.version
                    && f.build.variant == entry.build.variant
            });
            match same {
                Some(f) if f.package.starts_with("lib") || f.package.ends_with("-base") => {
                    *f = entry
                }
                Some(_) => {}
                None => self.frameworks.push(entry),
            }
        }
    }

    fn derive_library_dirs(&mut self) {
        let mut dirs: Vec<LibraryDir> = Vec::new();
        let mut add = |dir: &Path, component: Option<&str>, pkg: &Package, symlink: bool| {
            let holds = if symlink {
                DirHolds::Symlinks
            } else {
                DirHolds::Files
            };
            if let Some(d) = dirs.iter_mut().find(|d| d.path == dir) {
                if d.holds != holds {
                    d.holds = DirHolds::Mixed;
                }
                d.components.extend(component.map(String::from));
                d.packages.insert(pkg.name.clone());
                return;
            }
            dirs.push(LibraryDir {
                path: dir.to_path_buf(),
                components: component.map(String::from).into_iter().collect(),
                packages: [pkg.name.clone()].into(),
                installer: pkg.installer,
                holds,
            });
        };
        for pkg in self.library_packages() {
            for lib in &pkg.libraries {
                if lib.status != LibStatus::Ok || paths::is_stub(&lib.path) {
                    continue;
                }
                let component = lib
                    .path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| CATALOG.library_component(n))
                    .or(pkg.component.as_deref());
                if let Some(dir) = lib.path.parent() {
                    add(dir, component, pkg, lib.resolves_to.is_some());
                }
                if let Some(real_dir) = lib.resolves_to.as_deref().and_then(Path::parent)
                    && Some(real_dir) != lib.path.parent().map(canonical).as_deref()
                {
                    add(real_dir, component, pkg, false);
                }
            }
        }
        self.library_dirs = dirs;
    }
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

/// Sort order of library packages: runtime first, then the libraries that
/// frameworks link, then the rest.
fn rank(pkg: &Package) -> u8 {
    match (pkg.role, pkg.component.as_deref()) {
        (Role::CudaToolkit, _) | (Role::CudaLibrary, Some("cudart")) => 0,
        (Role::CudaLibrary, Some("cublas")) => 1,
        (Role::Cudnn, _) => 2,
        (Role::Nccl, _) => 3,
        _ => 4,
    }
}

fn library(path: PathBuf) -> Library {
    let component = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| CATALOG.library_component(n))
        .map(String::from);
    Library {
        path,
        component,
        status: LibStatus::Ok,
        resolves_to: None,
        recorded_size: None,
    }
}

/// A package whose record or RECORD lists more than [`MAX_LIBRARIES`]
/// shared libraries: the first are checked, and this says so.
fn truncated(
    name: &str,
    what: &str,
    listed: usize,
    kept: usize,
    path: &Path,
    reinstall: String,
) -> Problem {
    Problem {
        severity: Severity::Warning,
        code: "record-truncated",
        message: format!(
            "{name}'s {what} lists {listed} shared libraries; the first {kept} are checked"
        ),
        hint: Some(format!(
            "no package ships that many; reinstall it: `{reinstall}`"
        )),
        path: Some(path.to_path_buf()),
        source: None,
    }
}

/// `12.6.77` -> `12.6`; `12.6` stays; `12` stays.
fn major_minor(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

fn canonical(path: &Path) -> PathBuf {
    crate::paths::real_path(path).unwrap_or_else(|_| path.to_path_buf())
}
