//! A framework release's own check, when its CUDA backend starts, of the
//! libraries it loads against the versions its build was made with
//! (`[[start_check]]` rows): JAX 0.4.17-0.4.25 with a monolithic CUDA
//! jaxlib refuses a CUDA runtime, cuDNN, cuFFT, cuSOLVER, CUPTI (and from
//! 0.4.21 cuBLAS, cuSPARSE) older than the build's, each at its own
//! precision ("Found CUDA version 12010, but JAX was built against version
//! 12020, which is newer"), and runs on the CPU. The check runs only where
//! the module it reads is installed, told from the environment itself.

use super::{Facts, finding, sourced};
use crate::data::catalog::Role;
use crate::data::matrix::{FrameworkRow, StartCheck, leading, major, older_at};
use crate::finding::{Cmd, Code, Fix, Problem, Severity};
use crate::inventory::needs::{release_of, tag_of};
use crate::inventory::{FrameworkBuild, Installer};

/// The order JAX's `_check_cuda_versions` runs its comparisons in: the
/// first that fails is the message a user sees.
const ORDER: &[&str] = &[
    "cudart", "cudnn", "cufft", "cusolver", "cupti", "cublas", "cusparse",
];

/// One library older than a build was made with, as the check sees it.
#[derive(Debug, Clone)]
pub struct Older {
    /// The catalogue component (`cudart`).
    pub component: &'static str,
    /// The environment's version of it (`12.1`, `11.0.2.54`).
    pub have: String,
    /// The package that supplies it, its version and installer.
    pub package: String,
    pub package_version: String,
    pub installer: Installer,
    /// The build's version, and how many parts the check compares.
    pub built: String,
    pub parts: usize,
}

/// A build the check refuses to start, with every library it would trip on.
#[derive(Debug, Clone)]
pub struct Refusal<'a> {
    /// The build whose versions are compared (`jaxlib 0.4.23+cuda12.cudnn89`).
    pub build: &'a FrameworkBuild,
    /// The release whose code checks (`jax 0.4.23`).
    pub checker: String,
    pub row: &'a StartCheck,
    pub older: Vec<Older>,
}

/// Every build the environment's start-up checks refuse.
pub fn refusals<'a>(f: &'a Facts) -> Vec<Refusal<'a>> {
    let mut out = Vec::new();
    for row in &f.matrix.start_check {
        let Some(checker) = f.inv.distributions.get(&row.distribution) else {
            continue;
        };
        if !row.matches(checker) || !module_installed(f, &row.module) {
            continue;
        }
        for fw in f.inv.frameworks.iter().filter(|fw| fw.package == row.build) {
            let Some(built) =
                f.matrix
                    .framework(fw.framework, &release_of(&fw.version), &tag_of(fw))
            else {
                continue;
            };
            let older = older_libraries(f, row, built);
            if !older.is_empty() {
                out.push(Refusal {
                    build: fw,
                    checker: format!("{} {checker}", row.distribution),
                    row,
                    older,
                });
            }
        }
    }
    out
}

/// The start-check rule over [`refusals`]: one error per refused build,
/// with the one command that installs every library it trips on at the
/// build's version.
pub fn check(f: &Facts, refused: &[Refusal]) -> Vec<Problem> {
    refused
        .iter()
        .map(|r| {
            let p = finding(
                Severity::Error,
                Code::RefusedAtStart,
                message(r),
                Some(fix(f, &r.older)),
            );
            sourced(p, &r.row.source, crate::data::matrix::Confidence::Verified)
        })
        .collect()
}

/// Whether the module the check reads is installed in a site-packages
/// directory: `DIR/NAME.py`, `DIR/NAME.so` or `DIR/NAME.<tag>.so`.
fn module_installed(f: &Facts, module: &str) -> bool {
    let module = std::path::Path::new(module);
    let (Some(dir), Some(name)) = (module.parent(), module.file_name()) else {
        return false;
    };
    let name = name.to_string_lossy();
    f.inv.sites.iter().any(|site| {
        let mut found = false;
        let _ = crate::paths::for_each_entry(&site.join(dir), |entry, _| {
            let entry = entry.to_string_lossy();
            found |= entry.strip_prefix(name.as_ref()).is_some_and(|rest| {
                rest == ".py" || (rest.starts_with('.') && rest.ends_with(".so"))
            });
        });
        found
    })
}

/// The libraries the environment holds older than the build's, in the
/// check's order, each compared where the row compares it and the build's
/// row gives its version.
fn older_libraries(f: &Facts, row: &StartCheck, built: &FrameworkRow) -> Vec<Older> {
    let mut out = Vec::new();
    for &component in ORDER {
        let Some(&parts) = row.compares.get(component) else {
            continue;
        };
        let built_version = match component {
            "cudart" => Some(built.cuda.as_str()),
            "cudnn" => built.cudnn.as_deref(),
            other => built.libraries.get(other).map(String::as_str),
        };
        let Some(built_version) = built_version else {
            continue;
        };
        let Some(have) = copy_of(f, component, built_version) else {
            continue;
        };
        if older_at(&have.have, built_version, parts) {
            out.push(Older {
                built: built_version.to_string(),
                parts,
                ..have
            });
        }
    }
    out
}

/// The environment's copy of `component` of the build's major (another
/// major's has another soname: not what the build loads), the pip wheel's
/// first: `(version, package, package version, installer)`.
fn copy_of(f: &Facts, component: &'static str, built: &str) -> Option<Older> {
    let want = major(built);
    let mut copies: Vec<Older> = Vec::new();
    let claims = match component {
        "cudart" => &f.inv.cuda,
        "cudnn" => &f.inv.cudnn,
        _ => &Vec::new(),
    };
    for c in claims {
        copies.push(Older {
            component,
            have: c.version.clone(),
            package: c.package.clone(),
            package_version: c.package_version.clone(),
            installer: c.installer,
            built: String::new(),
            parts: 0,
        });
    }
    if claims.is_empty() {
        for p in f.inv.packages.iter().filter(|p| {
            p.role == Role::CudaLibrary
                && p.component.as_deref() == Some(component)
                && !p.name.contains("-dev")
        }) {
            copies.push(Older {
                component,
                have: p.version.clone(),
                package: p.name.clone(),
                package_version: p.version.clone(),
                installer: p.installer,
                built: String::new(),
                parts: 0,
            });
        }
    }
    copies.retain(|c| major(&c.have) == want);
    copies.sort_by_key(|c| c.installer != Installer::Pip);
    copies.into_iter().next()
}

/// The number JAX prints for a version of `component` (`12.1` -> 12010
/// for the CUDA runtime, `8.9.4` -> 8904 for cuDNN 8); `None` for CUPTI,
/// whose API number is no version.
fn jax_number(component: &str, v: &str) -> Option<u64> {
    let n: Vec<u64> = v
        .split('.')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let part = |i: usize| n.get(i).copied().unwrap_or(0);
    match component {
        "cudart" => Some(part(0) * 1000 + part(1) * 10),
        "cublas" => Some(part(0) * 10000 + part(1) * 100 + part(2)),
        "cudnn" if part(0) >= 9 => Some(part(0) * 10000 + part(1) * 100 + part(2)),
        "cudnn" | "cufft" | "cusolver" | "cusparse" => {
            Some(part(0) * 1000 + part(1) * 100 + part(2))
        }
        _ => None,
    }
}

/// The name JAX's message gives a component.
fn jax_name(component: &str) -> &str {
    match component {
        "cudart" => "CUDA",
        "cudnn" => "cuDNN",
        "cufft" => "cuFFT",
        "cusolver" => "cuSOLVER",
        "cupti" => "cuPTI",
        "cublas" => "cuBLAS",
        "cusparse" => "cuSPARSE",
        other => other,
    }
}

/// The message the check raises for the first library it trips on.
pub fn expected_message(o: &Older) -> String {
    let number =
        |v: &str| jax_number(o.component, v).map_or_else(|| "...".to_string(), |n| n.to_string());
    format!(
        "Found {} version {}, but JAX was built against version {}, which is newer",
        jax_name(o.component),
        number(&o.have),
        number(&o.built)
    )
}

fn message(r: &Refusal) -> String {
    let list = |f: &dyn Fn(&Older) -> String| r.older.iter().map(f).collect::<Vec<_>>().join(", ");
    let built = list(&|o| format!("{} {}", jax_name(o.component), leading(&o.built, o.parts)));
    let have = list(&|o| {
        format!(
            "{} {} ({} {})",
            jax_name(o.component),
            o.have,
            o.package,
            o.package_version
        )
    });
    format!(
        "{} {} was built against {built}; this environment has the older {have}, which {} refuses \
         when its CUDA backend starts (\"{}\"{}): {}",
        r.build.package,
        r.build.version,
        r.checker,
        expected_message(&r.older[0]),
        if r.older.len() > 1 {
            ", the first it meets"
        } else {
            ""
        },
        r.row.refuses
    )
}

/// One command that installs each library at the build's version (its
/// parts the check compares: `==12.2.*`, the build's CUDA 12.2 runtime,
/// whose driver needs are the build's own), from where the environment
/// has it: its pip wheel, or its conda package (`=12.2`, conda's prefix
/// match).
pub fn fix(f: &Facts, older: &[Older]) -> Fix {
    let mut commands = Vec::new();
    let pip: Vec<String> = older
        .iter()
        .filter(|o| o.installer == Installer::Pip)
        .map(|o| format!("{}=={}.*", o.package, leading(&o.built, o.parts)))
        .collect();
    if !pip.is_empty() {
        commands.push(super::fixes::pip(&f.inv.prefix).raw("install").args(pip));
    }
    let conda: Vec<String> = older
        .iter()
        .filter(|o| o.installer == Installer::Conda)
        .map(|o| format!("{}={}", o.package, leading(&o.built, o.parts)))
        .collect();
    if !conda.is_empty() {
        commands.push(
            Cmd::new("conda install -p")
                .path(&f.inv.prefix)
                .raw("-c conda-forge")
                .args(conda),
        );
    }
    Fix::Command(Cmd::all(commands))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_as_jax_prints_them() {
        assert_eq!(jax_number("cudart", "12.1"), Some(12010));
        assert_eq!(jax_number("cudart", "12.2"), Some(12020));
        assert_eq!(jax_number("cudnn", "8.9.4"), Some(8904));
        assert_eq!(jax_number("cudnn", "9.1.1.17"), Some(90101));
        assert_eq!(jax_number("cufft", "11.0.8.103"), Some(11008));
        assert_eq!(jax_number("cusolver", "11.5.2"), Some(11502));
        assert_eq!(jax_number("cusparse", "12.1.2.141"), Some(12102));
        assert_eq!(jax_number("cublas", "12.2.5.6"), Some(120205));
        assert_eq!(jax_number("cupti", "12.2.142"), None);
        assert_eq!(jax_number("cudart", "twelve"), None);
    }
}
