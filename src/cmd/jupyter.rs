//! The Jupyter kernelspecs `install --jupyter` sets the library path in,
//! and `uninstall` puts back ([`crate::activation::kernelspec`]): the
//! calls and the lines they print, for `install` and `uninstall`.

use std::io::Write;
use std::path::Path;

use crate::activation::confined::Prefix;
use crate::activation::kernelspec::{self, Change, Verb};
use crate::activation::spec::HookSpec;
use crate::discovery::Context;
use crate::error::{Error, Result};

/// What setting `spec`'s directories in the prefix's kernelspecs
/// changes: every one with `add`, else those envhook set before. Found
/// before `install` writes anything, so a kernel.json edited by hand stops
/// it there.
pub fn plan(spec: &HookSpec, add: bool) -> Result<Planned> {
    let prefix = Prefix::open(&spec.prefix)?;
    let dirs: Vec<String> = spec.dirs.iter().map(|d| d.display().to_string()).collect();
    let dirs = dirs.join(":");
    let changes = kernelspec::plan(&prefix, Some(&dirs), add)?;
    Ok(Planned { dirs, add, changes })
}

/// The kernelspecs' changes, planned.
pub struct Planned {
    dirs: String,
    add: bool,
    changes: Vec<Change>,
}

/// Carry `planned` out (unless `dry_run`) and say so; with `--jupyter`,
/// also name the kernelspecs outside the prefix that run its python
/// without the directories.
pub fn apply(
    spec: &HookSpec,
    planned: Planned,
    dry_run: bool,
    ctx: &Context,
    out: &mut dyn Write,
) -> Result<()> {
    let Planned { dirs, add, changes } = planned;
    if !dry_run {
        kernelspec::apply(&Prefix::open(&spec.prefix)?, &changes)?;
    }
    print(out, &changes, dry_run).map_err(Error::Output)?;
    if !add {
        return Ok(());
    }
    if changes.is_empty() && !has_kernels(&spec.prefix) {
        writeln!(
            out,
            "  note         no kernelspec in {} (`python -m ipykernel install --sys-prefix` \
             writes one)",
            spec.prefix.join(kernelspec::KERNELS).display()
        )
        .map_err(Error::Output)?;
    }
    for o in kernelspec::outside(&spec.prefix, &dirs, ctx) {
        writeln!(
            out,
            "  note         {} starts this environment's python but lies outside it, where \
             envhook does not write: add to its \"env\": {}",
            o.path.display(),
            o.member
        )
        .map_err(Error::Output)?;
    }
    Ok(())
}

/// Put back every kernelspec envhook set the path in; whether there was
/// one. Refuses (before anything is written) where one was edited since.
pub fn uninstall(prefix: &Path, dry_run: bool, out: &mut dyn Write) -> Result<bool> {
    let prefix = Prefix::open(prefix)?;
    let changes = kernelspec::plan(&prefix, None, false)?;
    if !dry_run {
        kernelspec::apply(&prefix, &changes)?;
    }
    print(out, &changes, dry_run).map_err(Error::Output)?;
    Ok(!changes.is_empty())
}

/// Whether the prefix has a kernelspec directory.
fn has_kernels(prefix: &Path) -> bool {
    !crate::paths::dir_entries(&prefix.join(kernelspec::KERNELS)).is_empty()
}

fn print(out: &mut dyn Write, changes: &[Change], dry_run: bool) -> std::io::Result<()> {
    for c in changes {
        let (done, dry) = match c.verb {
            Verb::Add => ("set", "would set"),
            Verb::Update => ("updated", "would update"),
            Verb::Restore => ("restored", "would restore"),
            Verb::Forget => ("forgot", "would forget"),
        };
        let verb = if dry_run { dry } else { done };
        write!(out, "  {verb:<12} {}", c.path.display())?;
        match c.verb {
            Verb::Forget => writeln!(
                out,
                " (rewritten without envhook's LD_LIBRARY_PATH: left as it is, its record removed)"
            )?,
            Verb::Restore => writeln!(out)?,
            _ => writeln!(out, " (its env's LD_LIBRARY_PATH)")?,
        }
    }
    Ok(())
}
