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
mod consumers;
mod derive;
pub mod needs;
pub mod pins;
pub mod pip;
pub mod pyconst;
mod read;
pub mod records;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::data::catalog::{CATALOG, Framework, Role};
use crate::error::Result;
use crate::finding::Problem;
use crate::paths;
use builds::BuildInfo;
use records::MetaIndex;

/// Identifies the JSON document (`envhook show --json`); bumped on any
/// incompatible change.
pub const SCHEMA: &str = "envhook.inventory/2";

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
    /// Pins of extras it was not installed with, which fixes follow.
    #[serde(skip)]
    pub fix_pins: Vec<pins::Pin>,
    /// Pins of extras that stand in for each other, none installed.
    #[serde(skip)]
    pub alt_pins: Vec<pins::Pin>,
    /// What an extension requires of the distributions installed: its
    /// framework (xformers 0.0.28.post3: `torch==2.5.1`, the release it was
    /// built for) and the framework's other extensions (vLLM 0.7.3:
    /// `torchvision==0.20.1`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requirements: Vec<pins::Pin>,
    /// The installed distributions a pip CUDA library's `Requires-Dist`
    /// names (nvidia-cudnn-cu13: `nvidia-cublas`), normalised: what pip
    /// pulled in with it, which goes with it when its CUDA line does.
    #[serde(skip)]
    pub depends: Vec<String>,
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

/// Which of the inventory's claim lists: the components whose versions
/// the rules judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stack {
    /// The CUDA runtime ([`Inventory::cuda`]).
    Cuda,
    /// [`Inventory::cudnn`].
    Cudnn,
    /// [`Inventory::nccl`].
    Nccl,
    /// [`Inventory::cublas`].
    Cublas,
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
    /// Pins of extras it was not installed with, which fixes follow.
    #[serde(skip)]
    pub fix_pins: Vec<pins::Pin>,
    /// Pins of extras that stand in for each other, none installed.
    #[serde(skip)]
    pub alt_pins: Vec<pins::Pin>,
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
    /// The site-packages directories (where cuda-pathfinder and the
    /// frameworks' preloaders look for the `nvidia-*` wheels).
    #[serde(skip)]
    pub sites: Vec<PathBuf>,
    /// Every pip distribution, by normalised name, with its version.
    #[serde(skip)]
    pub distributions: pins::Installed,
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

    /// The claims of one list.
    pub fn claims(&self, stack: Stack) -> &[Claim] {
        match stack {
            Stack::Cuda => &self.cuda,
            Stack::Cudnn => &self.cudnn,
            Stack::Nccl => &self.nccl,
            Stack::Cublas => &self.cublas,
        }
    }

    /// The packages that supply `claim` of `stack`: one claim stands for
    /// every package of its installer that claims the same version (the
    /// `cudnn` metapackage and `libcudnn`; `cuda-version` and
    /// `cuda-cudart`).
    pub fn suppliers<'a>(
        &'a self,
        stack: Stack,
        claim: &'a Claim,
    ) -> impl Iterator<Item = &'a Package> + 'a {
        self.packages.iter().filter(move |p| {
            p.installer == claim.installer
                && derive::claims_of(p)
                    .iter()
                    .any(|(s, v)| *s == stack && *v == claim.version)
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
            sites: Vec::new(),
            distributions: pins::Installed::new(),
        };
        inv.read_conda(prefix, &meta)?;
        let sites = pip::site_packages(prefix, &meta);
        inv.read_pip(&sites)?;
        inv.sites = sites.clone();
        inv.check_libraries();
        inv.derive_claims();
        inv.derive_frameworks(&sites);
        inv.derive_picked();
        inv.derive_library_dirs();
        inv.check_consistency();
        inv.problems.sort_by_key(|p| std::cmp::Reverse(p.severity));
        Ok(inv)
    }
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

/// The longest version envhook accepts from a file: real ones are short
/// (`12.8.4.1`, `2.1.2+cu121`); a longer one is malformed, and is never
/// echoed whole into a report.
pub const MAX_VERSION: usize = 256;

/// `text` as a message may quote it: at most 80 bytes (on a character
/// boundary) and how long it was, so that a hostile file cannot fill a
/// report.
pub fn clip(text: &str) -> String {
    const KEEP: usize = 80;
    if text.len() <= KEEP {
        return text.to_string();
    }
    format!(
        "{}... ({} bytes)",
        &text[..floor_char_boundary(text, KEEP)],
        text.len()
    )
}

/// The largest char boundary in `s` at or below `max`.
pub(crate) fn floor_char_boundary(s: &str, max: usize) -> usize {
    if s.len() <= max {
        return s.len();
    }
    (0..=max)
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0)
}
