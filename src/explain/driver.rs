//! The answer for a library that comes with the NVIDIA driver
//! (`libcuda.so.1`): never an environment's, so where the machine has it
//! the message came from elsewhere, and where it has none, that is the
//! cause.

use super::answer::{Answer, Verdict};
use super::clues::KnownMessage;
use crate::finding::{Cmd, Fix};
use crate::machine::resolve::Found;
use crate::rules::Facts;
use crate::rules::libraries::resolve_one;

/// The driver's library by the name programs load it with.
const SONAME: &str = "libcuda.so.1";

/// A library that comes with the NVIDIA driver (`libcuda.so.1`), from
/// where [`super::library::answer`] found it. `known` are the message's
/// known rows (triton's has a fix of its own).
pub(super) fn answer(f: &Facts, known: &[KnownMessage], mut a: Answer) -> Answer {
    let name = a.clue.name().unwrap_or_default().to_string();
    // The unversioned libcuda.so is only the development link: where it is
    // missing and the driver's libcuda.so.1 is here, that link is what is
    // missing, not the driver.
    if name == "libcuda.so"
        && a.without_hook.is_none()
        && a.with_hook.is_none()
        && let (_, Some(driver), _) = resolve_one(f, SONAME)
    {
        return without_link(a, known, &driver);
    }
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

/// The driver's libcuda.so.1 is here, its unversioned libcuda.so is not.
/// Triton's `libcuda_dirs()` (what torch.compile runs) reads
/// `/sbin/ldconfig -p`, and LD_LIBRARY_PATH only where the cache lists
/// none, for libcuda.so (triton 2.x, python/triton/common/build.py) or
/// libcuda.so.1 (triton 3.x, backends/nvidia/driver.py); its own
/// TRITON_LIBCUDA_PATH skips that search, and triton 3.1 links its
/// launcher with -lcuda, which needs the unversioned link there.
fn without_link(mut a: Answer, known: &[KnownMessage], driver: &Found) -> Answer {
    let dir = driver.path.parent().unwrap_or(&driver.path);
    let link = dir.join("libcuda.so");
    let ln = Cmd::new("sudo ln -s libcuda.so.1").path(link);
    a.verdict = Verdict::Cause;
    a.diagnosis = format!(
        "the driver's {SONAME} is here ({}, {}); what is missing is only libcuda.so, the \
         unversioned link the driver's development files add, which is never an environment's",
        driver.path.display(),
        driver.rule.label()
    );
    if !known
        .iter()
        .any(|k| k.kind == super::clues::MessageKind::TritonLibcuda)
    {
        a.fix = Some(Fix::Command(ln));
        return a;
    }
    let export = Cmd::new("export TRITON_LIBCUDA_PATH=").glued_path(dir);
    a.diagnosis.push_str(&format!(
        ". Triton searches for the driver in the loader cache (`/sbin/ldconfig -p`), and in \
         LD_LIBRARY_PATH only where the cache lists none; TRITON_LIBCUDA_PATH, its own setting, \
         names the directory instead: {}",
        dir.display()
    ));
    a.fix = Some(Fix::Choose {
        advice: "point triton at the driver's directory; where triton also links with -lcuda \
                 (triton 2.x, and 3.1), that directory needs the unversioned link too"
            .to_string(),
        commands: vec![export, ln],
    });
    a
}
