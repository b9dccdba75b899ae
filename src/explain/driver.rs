//! The answer for a library that comes with the NVIDIA driver
//! (`libcuda.so.1`): never an environment's, so where the machine has it
//! the message came from elsewhere, and where it has none, that is the
//! cause.

use super::answer::{Answer, Verdict};

/// A library that comes with the NVIDIA driver (`libcuda.so.1`), from
/// where [`super::answer::answer`] found it.
pub(super) fn answer(mut a: Answer) -> Answer {
    let name = a.clue.name().unwrap_or_default().to_string();
    let (with_hook, without_hook) = (&a.with_hook, &a.without_hook);
    a.diagnosis = format!(
        "{name} comes with the NVIDIA driver, never from an environment; {}",
        match (with_hook, without_hook) {
            (_, Some(found)) | (Some(found), None) => format!(
                "this machine has it ({}): the error came from another machine or container",
                found.path.display()
            ),
            (None, None) => "this machine has none where the loader looks: no driver, or a \
                             container run without the NVIDIA container toolkit"
                .to_string(),
        }
    );
    a.verdict = if without_hook.is_some() {
        Verdict::NotHere
    } else {
        Verdict::Cause
    };
    a
}
