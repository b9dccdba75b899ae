//! What an inventory derives from its packages once read: the claims of
//! each CUDA component's version, the framework builds, and the library
//! directories a hook would expose.

use std::path::{Path, PathBuf};

use super::builds::{self, BuildInfo, Variant};
use super::{
    Claim, DirHolds, FrameworkBuild, Installer, Inventory, LibStatus, LibraryDir, Package, Stack,
};
use crate::data::catalog::{CATALOG, Framework, Role};
use crate::paths;

/// The claims a package makes: which of the inventory's lists each goes
/// to, with the version it claims (a `cudatoolkit` claims a CUDA runtime
/// and a cuBLAS).
pub(super) fn claims_of(pkg: &Package) -> Vec<(Stack, String)> {
    match (pkg.role, pkg.component.as_deref()) {
        (Role::CudaToolkit, _) => vec![
            (Stack::Cuda, major_minor(&pkg.version)),
            (Stack::Cublas, pkg.version.clone()),
        ],
        (Role::CudaVersion, _) => vec![(Stack::Cuda, major_minor(&pkg.version))],
        // The runtime library's version is the toolkit's (12.6.77 ->
        // 12.6); `-dev` packages only add the unversioned symlink.
        (Role::CudaLibrary, Some("cudart")) if !pkg.name.contains("-dev") => {
            vec![(Stack::Cuda, major_minor(&pkg.version))]
        }
        (Role::CudaLibrary, Some("cublas")) if !pkg.name.contains("-dev") => {
            vec![(Stack::Cublas, pkg.version.clone())]
        }
        (Role::Cudnn, _) if !pkg.name.contains("-dev") => {
            vec![(Stack::Cudnn, pkg.version.clone())]
        }
        (Role::Nccl, _) => vec![(Stack::Nccl, pkg.version.clone())],
        _ => Vec::new(),
    }
}

impl Inventory {
    pub(super) fn derive_claims(&mut self) {
        for pkg in &self.packages {
            for (stack, version) in claims_of(pkg) {
                let claim = Claim {
                    version,
                    installer: pkg.installer,
                    package: pkg.name.clone(),
                    package_version: pkg.version.clone(),
                };
                match stack {
                    Stack::Cuda => self.cuda.push(claim),
                    Stack::Cudnn => self.cudnn.push(claim),
                    Stack::Nccl => self.nccl.push(claim),
                    Stack::Cublas => self.cublas.push(claim),
                }
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

    pub(super) fn derive_frameworks(&mut self, sites: &[PathBuf]) {
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
                fix_pins: pkg.fix_pins.clone(),
                alt_pins: pkg.alt_pins.clone(),
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

    /// A distribution that loads the object for the CUDA of the framework
    /// it runs on (bitsandbytes on torch) is a build for that CUDA: a CPU
    /// build under a CPU framework, unknown where the framework's CUDA is.
    pub(super) fn derive_picked(&mut self) {
        let builds: Vec<(Framework, Variant)> = self
            .frameworks
            .iter()
            .map(|fw| (fw.framework, fw.build.variant.clone()))
            .collect();
        for fw in self.frameworks.iter_mut() {
            let Some(row) = CATALOG.picked_library(&fw.package) else {
                continue;
            };
            let Some((_, variant)) = builds.iter().find(|(f, _)| *f == row.framework) else {
                continue;
            };
            let evidence = match variant {
                Variant::Cuda { cuda: Some(c), .. } => format!(
                    "it loads {} for the {} build's CUDA {c}",
                    row.files_for(c).join(" or "),
                    row.framework.display_name()
                ),
                _ => format!(
                    "it loads its object for the {} build",
                    row.framework.display_name()
                ),
            };
            let variant = match variant {
                Variant::Cuda { cuda, .. } => Variant::Cuda {
                    cuda: cuda.clone(),
                    cudnn: None,
                },
                other => other.clone(),
            };
            fw.build = BuildInfo::new(variant, evidence);
        }
    }

    pub(super) fn derive_library_dirs(&mut self) {
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

/// `12.6.77` -> `12.6`; `12.6` stays; `12` stays.
fn major_minor(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

fn canonical(path: &Path) -> PathBuf {
    crate::paths::real_path(path).unwrap_or_else(|_| path.to_path_buf())
}
