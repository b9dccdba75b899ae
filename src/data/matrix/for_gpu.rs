//! What the matrix says runs on a given GPU, for fixes that must fit it:
//! the cuDNN releases with kernels for it, and the framework builds whose
//! CUDA, cuDNN and architecture range reach it. A fix that installs a
//! library or a build is checked here before it is printed (issue #28:
//! the cuDNN 9 fix that pulled 9.28 onto a V100).

use rattler_conda_version::Version;

use super::{FrameworkRow, Matrix, row_supports_cc, spec, upper_bound, version};
use crate::data::arch::{self, Cc, Kind, Variant};
use crate::data::catalog::Framework;

impl Matrix {
    /// The cap that keeps cuDNN to releases with kernels for `cc`, when a
    /// newer release dropped it: `<9.11` for Maxwell, Pascal and Volta.
    /// `None` when the newest release still lists it, or nothing is known.
    pub fn cudnn_cap_for_cc(&self, cc: &str) -> Option<String> {
        let newest = self
            .cudnn
            .iter()
            .filter_map(|r| Some((spec(&r.versions).ok().and_then(|s| upper_bound(&s))?, r)))
            .max_by(|a, b| (&a.0.0, a.0.1).cmp(&(&b.0.0, b.0.1)))?
            .1;
        (row_supports_cc(newest, cc) == Some(false))
            .then(|| self.cudnn_keeping_cc(cc))
            .flatten()
    }

    /// The first cuDNN release with kernels for `cc` when the release
    /// before it is known to have none (`9.7` for Blackwell: 9.6 was built
    /// for CUDA before 12.8). `None` where older releases record no
    /// capabilities (an A100's floor is not in the data, and not needed).
    pub fn cudnn_floor_for_cc(&self, cc: &str) -> Option<String> {
        let first = self.cudnn_first_for_cc(cc)?;
        let at = version(&first)?;
        let before = self
            .cudnn
            .iter()
            .filter_map(|r| Some((upper_bound(&spec(&r.versions).ok()?)?, r)))
            .filter(|((top, inclusive), _)| if *inclusive { *top < at } else { *top <= at })
            .max_by(|a, b| (&a.0.0, a.0.1).cmp(&(&b.0.0, b.0.1)))?
            .1;
        let low = before
            .versions
            .strip_prefix(">=")?
            .split(',')
            .next()?
            .trim();
        let none = row_supports_cc(before, cc) == Some(false)
            || self.cudnn_predates_arch(low, cc).is_some();
        none.then_some(first)
    }

    /// Whether a build row has code for a `cc` GPU: its CUDA can target
    /// the GPU ([`Matrix::cuda_supports_cc`]), its architecture range
    /// holds it (a top of the same major runs on newer minors), and its
    /// cuDNN, where the row records one, has kernels for it. `None` when
    /// the data cannot say.
    pub fn row_runs_on(&self, row: &FrameworkRow, cc: &str) -> Option<bool> {
        let device = Cc::parse(cc)?;
        let (targets, _) = self.cuda_supports_cc(&row.cuda, cc)?;
        if !targets {
            return Some(false);
        }
        if row
            .min_cc
            .as_deref()
            .and_then(Cc::parse)
            .is_some_and(|min| device < min)
        {
            return Some(false);
        }
        if row
            .max_cc
            .as_deref()
            .and_then(Cc::parse)
            .is_some_and(|max| {
                device > max && !arch::runs(Kind::Sass, Variant::Generic, max, device)
            })
        {
            return Some(false);
        }
        if let Some(cudnn) = row.cudnn.as_deref().filter(|c| c.contains('.'))
            && (self.cudnn_predates_arch(cudnn, cc).is_some()
                || self.cudnn_supports_cc(cudnn, cc).is_some_and(|(ok, _)| !ok))
        {
            return Some(false);
        }
        Some(true)
    }

    /// The CUDA releases with code for a `cc` GPU: from the oldest first
    /// toolkit of an architecture whose cubins run there, to the newest
    /// last toolkit of one (`None`: still targeted). `12.8`..`None` for a
    /// B300, `9.0`..`12.9` for a V100.
    pub fn cuda_for_cc(&self, cc: &str) -> Option<(String, Option<String>)> {
        let rows = self.reaching(cc);
        let first = rows
            .iter()
            .filter_map(|a| Some((version(&a.first_ctk)?, &a.first_ctk)))
            .min_by(|a, b| a.0.cmp(&b.0))?
            .1
            .clone();
        let last = if rows.iter().any(|a| a.last_ctk.is_empty()) {
            None
        } else {
            rows.iter()
                .filter_map(|a| Some((version(&a.last_ctk)?, &a.last_ctk)))
                .max_by(|a, b| a.0.cmp(&b.0))
                .map(|(_, l)| l.clone())
        };
        Some((first, last))
    }

    /// A framework's build rows, newest release first (then newest CUDA).
    pub fn builds_newest_first(&self, fw: Framework) -> Vec<&FrameworkRow> {
        let mut rows: Vec<&FrameworkRow> = self
            .framework
            .iter()
            .filter(|r| r.framework == fw)
            .collect();
        rows.sort_by(|a, b| {
            (release_top(b), version(&b.cuda)).cmp(&(release_top(a), version(&a.cuda)))
        });
        rows
    }
}

/// The newest release a build row covers, and whether it is included.
pub fn release_top(row: &FrameworkRow) -> Option<(Version, bool)> {
    upper_bound(&spec(&row.release).ok()?)
}
