//! Unversioned names are bound to a major. A build that dlopens
//! `libcudnn.so` or `libcublas.so` (Paddle 2.x, and every build that
//! expects a system or conda toolkit) was made against one major of each;
//! the loader hands it whatever file answers that name. A cuDNN 8 build
//! given cuDNN 9 calls legacy functions cuDNN 9 no longer exports, a CUDA
//! 11 build given cuBLAS 12 another ABI. So a name that reaches another
//! major, or that the environment can answer only with another major, is
//! judged here, and the fix is the build's own major, never a link.

use std::path::{Path, PathBuf};

use super::Outcome;
use crate::inventory::needs::name_major;
use crate::machine::loader::Objects;
use crate::machine::resolve::Found;
use crate::rules::Facts;

/// A name that reaches, or can only reach, another major.
#[derive(Debug, Clone, PartialEq)]
pub struct Wrong {
    /// The soname the build needs (`libcudnn.so.8`).
    pub want: String,
    /// The soname it gets or the environment has (`libcudnn.so.9`).
    pub have: String,
    /// The file the loader takes; `None` where it finds nothing and the
    /// environment has only the other major.
    pub path: Option<PathBuf>,
}

/// `outcome` for an unversioned name bound to `want`: another major
/// reached (with the hook where it is found so, else without), or only
/// another major in the environment where nothing is found, is
/// [`Outcome::OtherMajor`]; a `-dev` name missing beside the right major
/// names that major's file.
pub(super) fn bound(
    f: &Facts,
    objects: &mut Objects,
    want: &str,
    (with_hook, without_hook): (&Option<Found>, &Option<Found>),
    outcome: Outcome,
) -> Outcome {
    let Some(want_major) = name_major(want) else {
        return outcome;
    };
    if let Some(found) = with_hook.as_ref().or(without_hook.as_ref()) {
        return match major_of(objects, &found.path) {
            Some((soname, major)) if major != want_major => Outcome::OtherMajor(Wrong {
                want: want.to_string(),
                have: soname,
                path: Some(found.path.clone()),
            }),
            _ => outcome,
        };
    }
    let stem = want.split(".so").next().unwrap_or(want);
    let mut have: Vec<&str> = f.inv.versioned_names(stem).collect();
    have.sort_by_key(|n| n.len());
    match outcome {
        Outcome::DevMissing(_) | Outcome::Missing => {
            match have.iter().find(|n| name_major(n) == Some(want_major)) {
                Some(right) if matches!(outcome, Outcome::DevMissing(_)) => {
                    Outcome::DevMissing(right.to_string())
                }
                Some(_) => outcome,
                None => match have.first() {
                    Some(other) => Outcome::OtherMajor(Wrong {
                        want: want.to_string(),
                        have: other.to_string(),
                        path: None,
                    }),
                    None => outcome,
                },
            }
        }
        other => other,
    }
}

/// The soname of the library at `path` and its major
/// ([`crate::inventory::needs::major_name`]).
fn major_of(objects: &mut Objects, path: &Path) -> Option<(String, String)> {
    let soname = objects.get(path).and_then(|i| i.soname.as_deref());
    let name = crate::inventory::needs::major_name(soname, path)?;
    let major = name_major(&name)?.to_string();
    Some((name, major))
}
