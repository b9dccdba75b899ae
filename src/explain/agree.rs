//! What `check` already concluded about a library a message names, so
//! that explain says the same and gives the same command (#29): a
//! TensorFlow 2.16 installed without its `[and-cuda]` extra has no cuBLAS,
//! and check's `library-not-found` installs the whole stack TensorFlow
//! pins, where a fix for the one library named would leave the next
//! `dlopen` failing.

use crate::finding::{Code, Problem, Severity};
use crate::inventory::FrameworkBuild;
use crate::rules::Report;

/// The codes under which check reports a library the loader cannot reach
/// for a framework (the tally's findings), most decisive first.
const REACH: &[Code] = &[
    Code::LibraryNotFound,
    Code::NeedsHook,
    Code::MissingDevSymlink,
    Code::CudaMismatch,
    Code::CudnnMismatch,
    Code::NoCudnn,
    Code::NoCudaRuntime,
];

/// Whether `message` names `name` as a word of its own (`libcublas.so.12`
/// but not inside `libcublas.so.12.3`).
fn names(message: &str, name: &str) -> bool {
    message.match_indices(name).any(|(i, _)| {
        let rest = &message[i + name.len()..];
        let before = message[..i].chars().next_back();
        // A longer name goes on with a letter, a digit, or a dot and a digit.
        let longer = rest.starts_with(|c: char| c.is_ascii_alphanumeric())
            || rest
                .strip_prefix('.')
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
        !longer && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// check's note that `name` is a library only some of a framework's code
/// loads (TensorRT for TF-TRT, NVVM for numba's compiler), with its fix:
/// the advice check gives, never a guessed install.
pub fn optional<'r>(report: &'r Report, name: &str) -> Option<&'r Problem> {
    report.findings.iter().find(|p| {
        p.code == Code::OptionalLibraryMissing && p.fix.is_some() && names(&p.message, name)
    })
}

/// check's finding that the unversioned `name` reaches, or can only reach,
/// another major than the framework asking for it was built for.
pub fn other_major<'r>(report: &'r Report, name: &str) -> Option<&'r Problem> {
    report
        .findings
        .iter()
        .find(|p| p.code == Code::LibraryOtherMajor && names(&p.message, name))
}

/// check's finding that `name` does not reach a framework here, with its
/// fix: the one explain repeats.
pub fn finding<'r>(report: &'r Report, name: &str) -> Option<&'r Problem> {
    REACH.iter().find_map(|code| {
        report.findings.iter().find(|p| {
            p.code == *code
                && p.severity >= Severity::Warning
                && p.fix.is_some()
                && names(&p.message, name)
        })
    })
}

/// The extra `fw` was installed without whose wheels ship `component`
/// (TensorFlow's `and-cuda`): why the library is missing, in the words of
/// pip.
pub fn missing_extra(fw: &FrameworkBuild, component: &str) -> Option<String> {
    let wheel = |dist: &str| {
        crate::data::catalog::CATALOG
            .pip(dist)
            .is_some_and(|(row, _)| {
                row.lib.as_deref() == Some(component)
                    || (component == "cudnn" && row.role == crate::data::catalog::Role::Cudnn)
            })
    };
    fw.fix_pins
        .iter()
        .find(|p| p.extra.is_some() && wheel(&p.name))
        .and_then(|p| p.extra.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_a_word_of_its_own() {
        assert!(names(
            "loads libcublas.so.12, libcufft.so.11",
            "libcublas.so.12"
        ));
        assert!(names("loads libcublas.so.12", "libcublas.so.12"));
        assert!(!names("loads libcublas.so.12.3.4", "libcublas.so.12"));
        assert!(!names("loads libcublasLt.so.12", "libcublas"));
        assert!(names("\"libcudart.so.12: cannot open\"", "libcudart.so.12"));
    }
}
