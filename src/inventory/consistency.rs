//! What an inventory checks of itself once read: every listed library
//! looked up on disk (metadata only), and the combinations that are
//! problems whatever the machine (two CUDA runtimes, a framework from both
//! conda and pip, a cuDNN metapackage without its libraries, ...).

use std::io;
use std::path::{Path, PathBuf};

use std::collections::BTreeSet;

use super::{Installer, Inventory, LibStatus, Library, Package};
use crate::data::catalog::{Framework, Role};
use crate::finding::{Cmd, Code, Fix, Problem, Severity};

impl Inventory {
    /// Look every listed library up on disk (metadata only).
    pub(super) fn check_libraries(&mut self) {
        // A directory holding many of the listed libraries (a toolkit's
        // lib/) is listed once rather than stat'ed file by file.
        let mut by_dir: std::collections::HashMap<&Path, Vec<&Path>> = Default::default();
        for lib in self.packages.iter().flat_map(|p| &p.libraries) {
            if let Some(dir) = lib.path.parent() {
                by_dir.entry(dir).or_default().push(&lib.path);
            }
        }
        for (dir, paths) in by_dir.iter().filter(|(_, paths)| paths.len() >= LIST_FROM) {
            crate::paths::learn_directory(dir, paths);
        }
        for pkg in &mut self.packages {
            for lib in &mut pkg.libraries {
                (lib.status, lib.resolves_to) = check_on_disk(&lib.path);
                self.stats.libraries_checked += 1;
            }
            let broken: Vec<&Library> = pkg
                .libraries
                .iter()
                .filter(|l| l.status != LibStatus::Ok)
                .collect();
            if let Some(first) = broken.first() {
                let hint = match pkg.installer {
                    Installer::Conda => super::read::conda_reinstall(
                        &self.prefix,
                        &format!("{}={}", pkg.name, pkg.version),
                    ),
                    Installer::Pip => super::read::pip_reinstall(
                        &self.prefix,
                        &format!("{}=={}", pkg.name, pkg.version),
                    ),
                };
                self.problems.push(Problem {
                    severity: Severity::Error,
                    code: Code::BrokenInstall,
                    message: format!(
                        "{}: {} of {} listed libraries are broken; {} is {}",
                        pkg.label(),
                        broken.len(),
                        pkg.libraries.len(),
                        first.path.display(),
                        first.status.describe()
                    ),
                    fix: Some(Fix::Command(hint)),
                    path: Some(pkg.metadata.clone()),
                    source: None,
                });
            }
        }
    }

    /// The combinations that are problems whatever the machine.
    pub(super) fn check_consistency(&mut self) {
        self.check_runtimes();
        self.check_cudnn_metapackage();
        self.check_framework_twice();
        self.check_driver_stub();
    }

    /// Two CUDA runtimes of one line.
    fn check_runtimes(&mut self) {
        // Two CUDA runtimes: which one a framework gets depends on RPATHs
        // and LD_LIBRARY_PATH order, the classic source of
        // "CUDA driver version is insufficient" in a mixed env.
        // A pip `cuda-toolkit` metapackage installs only its extras: beside
        // a runtime wheel of its major it is that runtime's line, not a
        // second runtime (envhook's own fixes add `cuda-toolkit[cublas]`
        // to an environment whose runtime came from elsewhere).
        let metapackage = |c: &super::Claim| {
            c.installer == Installer::Pip
                && self.packages.iter().any(|p| {
                    p.name == c.package && p.installer == c.installer && p.role == Role::CudaVersion
                })
        };
        let cuda_major = |c: &super::Claim| crate::data::matrix::major(&c.version);
        let runtimes: Vec<&super::Claim> = self
            .cuda
            .iter()
            .filter(|c| {
                !metapackage(c)
                    || !self
                        .cuda
                        .iter()
                        .any(|o| !metapackage(o) && cuda_major(o) == cuda_major(c))
            })
            .collect();
        // Runtimes of different majors have different sonames, and pip's
        // wheels of different majors different directories: the loader
        // cannot take one for the other, and the files two wheels share or
        // the sonames two lines both provide are findings of their own
        // (rules::wheels). Two runtimes of one major, or a conda and a pip
        // line (one lib/ exposing everything), are the ambiguity.
        let versions: BTreeSet<&str> = runtimes.iter().map(|c| c.version.as_str()).collect();
        let majors: BTreeSet<Option<u32>> = runtimes.iter().map(|c| cuda_major(c)).collect();
        let installers: BTreeSet<&str> = runtimes.iter().map(|c| c.installer.label()).collect();
        if versions.len() > 1 && (majors.len() < versions.len() || installers.len() > 1) {
            let list: Vec<String> = runtimes
                .iter()
                .map(|c| {
                    format!(
                        "{} from {} {} ({})",
                        c.version,
                        c.package,
                        c.package_version,
                        c.installer.label()
                    )
                })
                .collect();
            self.problems.push(Problem {
                severity: Severity::Warning,
                code: Code::MixedCudaRuntimes,
                message: format!(
                    "the environment holds more than one CUDA runtime: {}",
                    list.join(", ")
                ),
                fix: Some(Fix::Choose {
                    advice: "keep one CUDA line: remove the conda CUDA packages when the \
                             frameworks use pip's nvidia-* wheels, or the wheels when they use \
                             conda's"
                        .into(),
                    commands: remove_each(
                        &self.prefix,
                        runtimes.iter().map(|c| (c.installer, c.package.as_str())),
                    ),
                }),
                path: None,
                source: None,
            });
        }
    }

    /// A cuDNN metapackage without its libraries.
    fn check_cudnn_metapackage(&mut self) {
        // cuDNN 9.8+ on conda-forge: `cudnn` is a metapackage; without
        // `libcudnn` there are no libraries at all.
        let cudnn_pkgs: Vec<&Package> = self
            .packages
            .iter()
            .filter(|p| p.role == Role::Cudnn)
            .collect();
        if !cudnn_pkgs.is_empty() && cudnn_pkgs.iter().all(|p| p.libraries.is_empty()) {
            let names: Vec<String> = cudnn_pkgs.iter().map(|p| p.label()).collect();
            self.problems.push(Problem {
                severity: Severity::Error,
                code: Code::CudnnWithoutLibraries,
                message: format!("{} installed, but no cuDNN library is", names.join(", ")),
                fix: Some(Fix::Command(
                    Cmd::new("conda install -p")
                        .path(&self.prefix)
                        .raw("-c conda-forge")
                        .args(["libcudnn", "libcudnn-dev"]),
                )),
                path: cudnn_pkgs.first().map(|p| p.metadata.clone()),
                source: None,
            });
        }
    }

    /// The same framework from conda and from pip.
    fn check_framework_twice(&mut self) {
        // The same framework from conda and from pip: whichever pip wrote
        // last shadows the other's Python files but not its libraries.
        let mut by_framework: Vec<(Framework, Installer)> = self
            .frameworks
            .iter()
            .map(|f| (f.framework, f.installer))
            .collect();
        by_framework.sort();
        by_framework.dedup();
        for window in by_framework.windows(2) {
            if window[0].0 == window[1].0 {
                let fw = window[0].0;
                let pkgs: Vec<String> = self
                    .frameworks
                    .iter()
                    .filter(|f| f.framework == fw)
                    .map(|f| format!("{} {} ({})", f.package, f.version, f.installer.label()))
                    .collect();
                self.problems.push(Problem {
                    severity: Severity::Warning,
                    code: Code::FrameworkFromCondaAndPip,
                    message: format!(
                        "{} is installed twice: {}",
                        fw.display_name(),
                        pkgs.join(" and ")
                    ),
                    fix: Some(twice_fix(&self.prefix, &self.frameworks, fw)),
                    path: None,
                    source: None,
                });
            }
        }
    }

    /// The driver's link-time stub, installed (an info: envhook never
    /// exposes it).
    fn check_driver_stub(&mut self) {
        let stubs: Vec<&Package> = self
            .packages
            .iter()
            .filter(|p| p.role == Role::DriverStub)
            .collect();
        if let Some(first) = stubs.first() {
            let names: Vec<String> = stubs.iter().map(|p| p.label()).collect();
            self.problems.push(Problem {
                severity: Severity::Info,
                code: Code::DriverStub,
                message: format!(
                    "{} provide{} lib/stubs/libcuda.so, a link-time stub of the driver; it must never be \
                     on a library path, and envhook never puts it there",
                    names.join(", "),
                    if stubs.len() == 1 { "s" } else { "" }
                ),
                fix: None,
                path: Some(first.metadata.clone()),
                source: None,
            });
        }
    }
}

/// Listed libraries in one directory from which listing it beats one
/// `lstat` each (a listing returns about a thousand entries per call).
const LIST_FROM: usize = 8;

/// What is at a listed library path, from metadata alone.
fn check_on_disk(path: &Path) -> (LibStatus, Option<PathBuf>) {
    match crate::paths::file_type(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => (LibStatus::Missing, None),
        Err(_) => (LibStatus::Unusable, None),
        Ok(m) if m.is_symlink() => match crate::paths::real_path(path) {
            // The resolution looked at the real file already.
            Ok(real) if crate::paths::file_type(&real).is_ok_and(|m| m.is_file()) => {
                (LibStatus::Ok, Some(real))
            }
            Ok(_) => (LibStatus::Unusable, None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => (LibStatus::DanglingSymlink, None),
            Err(e) if is_loop(&e) => (LibStatus::SymlinkLoop, None),
            Err(_) => (LibStatus::Unusable, None),
        },
        Ok(m) if m.is_file() => (LibStatus::Ok, None),
        Ok(_) => (LibStatus::Unusable, None),
    }
}

/// ELOOP, "too many levels of symbolic links". `ErrorKind::FilesystemLoop`
/// is still unstable, so the errno is compared (Linux 40, BSDs/macOS 62).
fn is_loop(e: &io::Error) -> bool {
    const ELOOP: i32 = if cfg!(any(target_os = "macos", target_os = "freebsd")) {
        62
    } else {
        40
    };
    e.raw_os_error() == Some(ELOOP)
}

/// The commands that remove `packages` (each with the installer that put
/// it there), one per installer: conda's without the packages that depend
/// on them (`--force`), which are the ones to keep.
fn remove_each<'a>(
    prefix: &Path,
    packages: impl Iterator<Item = (Installer, &'a str)>,
) -> Vec<Cmd> {
    let (mut conda, mut pip): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    for (installer, name) in packages {
        let list = match installer {
            Installer::Conda => &mut conda,
            Installer::Pip => &mut pip,
        };
        if !list.contains(&name) {
            list.push(name);
        }
    }
    let mut out = Vec::new();
    if !conda.is_empty() {
        out.push(
            Cmd::new("conda remove -p")
                .path(prefix)
                .raw("--force")
                .args(conda),
        );
    }
    if !pip.is_empty() {
        out.push(
            Cmd::default()
                .path(prefix.join("bin/python"))
                .raw("-m pip uninstall -y")
                .args(pip),
        );
    }
    out
}

/// The fix for a framework installed by conda and by pip: either goes.
fn twice_fix(prefix: &Path, frameworks: &[super::FrameworkBuild], fw: Framework) -> Fix {
    let twice = frameworks.iter().filter(|f| f.framework == fw);
    Fix::Choose {
        advice: format!(
            "keep one {}: remove pip's (the first) or conda's (the second)",
            fw.display_name()
        ),
        commands: remove_each(prefix, twice.map(|f| (f.installer, f.package.as_str())))
            .into_iter()
            .rev()
            .collect(),
    }
}
