//! Writing and removing envhook's files in an environment, safely:
//!
//! * every path is reached through [`confined`] handles: nothing is written
//!   through a symbolic link below the prefix, and what envhook creates
//!   belongs to the environment's owner, with explicit modes;
//! * only what carries envhook's mark is replaced or removed: hook files
//!   that begin with [`shell::OWNER_MARK`], link directories holding
//!   [`DIR_MARK`], the `lib/envhook/cuda` link when it points at one of
//!   them. Anything else at those paths is a conflict: `install` writes
//!   nothing and says so, `uninstall` leaves it and says so;
//! * one writer at a time ([`lock`]); what to change is surveyed under the
//!   lock, so concurrent runs each see what the previous one left;
//! * files are written to a temporary file in the same directory, synced,
//!   and renamed over the old one; the link directory is built under a
//!   temporary name, marked first, and renamed into place when complete,
//!   then published by atomically replacing the `lib/envhook/cuda` link. A
//!   killed run leaves only temporary names, which the next run removes.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::activation::confined::{self, Dir, Entry, Prefix};
use crate::activation::lock;
use crate::activation::plan::{HookFile, Plan};
use crate::activation::shell::{self, Phase};
use crate::activation::spec::Isolation;
use crate::activation::stamp;
use crate::activation::takeover;
use crate::activation::venv;
use crate::error::{Conflict, Error, Result};
use crate::paths;

/// Marks a link directory as envhook's, so only those are ever removed.
const DIR_MARK: &str = ".envhook-owned";

/// Everything envhook owns under `lib/`.
const ISOLATION_ROOT: &str = "lib/envhook";

/// The link the hooks put on `LD_LIBRARY_PATH`, in [`ISOLATION_ROOT`].
const LINK: &str = "cuda";

/// What a run changes, found (under the lock) before anything is written;
/// `--dry-run` prints it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Changes {
    /// Files and directories written (or, with `--dry-run`, to be written).
    #[serde(serialize_with = "paths::serialize_vec")]
    pub write: Vec<PathBuf>,
    /// envhook's own files that are no longer needed.
    #[serde(serialize_with = "paths::serialize_vec")]
    pub remove: Vec<PathBuf>,
    /// Leftovers of interrupted runs (temporary files, unpublished link
    /// directories).
    #[serde(serialize_with = "paths::serialize_vec")]
    pub clean: Vec<PathBuf>,
    /// Hand-written hooks moved aside (`--replace-handwritten`), by the
    /// paths they had.
    #[serde(serialize_with = "paths::serialize_vec")]
    pub move_aside: Vec<PathBuf>,
    /// Hand-written hooks moved back to these paths (`uninstall`).
    #[serde(serialize_with = "paths::serialize_vec")]
    pub restore: Vec<PathBuf>,
    /// A venv's activation scripts that get envhook's block (`install`).
    #[serde(serialize_with = "paths::serialize_vec")]
    pub wire: Vec<PathBuf>,
    /// A venv's activation scripts that lose it.
    #[serde(serialize_with = "paths::serialize_vec")]
    pub unwire: Vec<PathBuf>,
    /// The new texts of those scripts.
    #[serde(skip)]
    pub edits: Vec<venv::Edit>,
    /// Paths envhook would have to replace or remove that are not its own.
    pub conflicts: Vec<Conflict>,
    /// How long the run waited for another envhook writing to the
    /// environment.
    #[serde(skip)]
    pub waited: Option<Duration>,
}

impl Changes {
    /// Whether the run changes nothing.
    pub fn is_empty(&self) -> bool {
        self.write.is_empty()
            && self.remove.is_empty()
            && self.clean.is_empty()
            && self.move_aside.is_empty()
            && self.restore.is_empty()
            && self.edits.is_empty()
    }

    /// Every path the run cleans, writes or removes, in that order.
    pub fn touched(self) -> Vec<PathBuf> {
        self.clean
            .into_iter()
            .chain(self.write)
            .chain(self.remove)
            .chain(self.wire)
            .chain(self.unwire)
            .collect()
    }
}

/// Carry `plan` out (or, with `dry_run`, only say what it would change).
/// Conflicts stop it before anything is written ([`Error::NotOurs`]).
pub fn install(plan: &Plan, dry_run: bool) -> Result<Changes> {
    let prefix = Prefix::open(&plan.spec.prefix)?;
    let lock = if dry_run {
        None
    } else {
        Some(lock::acquire(&prefix)?)
    };
    let mut changes = survey(&prefix, Some(plan))?;
    changes.waited = lock.as_ref().and_then(|l| l.waited);
    if !changes.conflicts.is_empty() {
        return Err(Error::NotOurs {
            conflicts: changes.conflicts,
        });
    }
    if dry_run {
        return Ok(changes);
    }
    clean(&prefix, &changes.clean)?;
    match &plan.spec.isolation {
        Some(iso) => publish_isolation(&prefix, iso)?,
        None => remove_paths(&prefix, &changes.remove, ISOLATION_ROOT)?,
    }
    let watched = stamp::watched_second(&plan.spec.prefix.join("conda-meta"), &plan.spec.watch);
    // Deactivate hooks first: a shell activating mid-install then finds a
    // deactivate hook at least as new as the activate hook it ran.
    let mut files: Vec<&HookFile> = plan.files.iter().collect();
    files.sort_by_key(|f| f.phase != Phase::Deactivate);
    let dir = |phase: Phase| {
        prefix
            .dir(phase.rel_dir(), true)
            .map(|d| d.expect("created on demand"))
    };
    stamp::write_past_records(
        |phase| dir(phase).map(|d| d.path().to_path_buf()),
        |file| dir(file.phase)?.write_atomic(&file.name(), file.text.as_bytes()),
        &files,
        watched,
    )?;
    for phase in [Phase::Activate, Phase::Deactivate] {
        remove_paths(&prefix, &changes.remove, phase.rel_dir())?;
    }
    // After envhook's hooks are in place: a run killed in between leaves
    // both working, never neither.
    rename_in_hook_dirs(&prefix, &changes.move_aside, |name| {
        (name.to_os_string(), takeover::aside_name(name))
    })?;
    // A venv's scripts last: the block runs the hooks now in place.
    venv::apply(&prefix, &changes.edits)?;
    if let Some(root) = prefix.dir("lib", false)? {
        root.remove_empty_dir("envhook");
    }
    Ok(changes)
}

/// Rename each of `paths` (lying directly in activate.d or deactivate.d)
/// from and to the names `names` gives, never over an existing file.
fn rename_in_hook_dirs(
    prefix: &Prefix,
    paths: &[PathBuf],
    names: impl Fn(&OsStr) -> (OsString, OsString),
) -> Result<()> {
    for phase in [Phase::Activate, Phase::Deactivate] {
        let Some(dir) = prefix.dir(phase.rel_dir(), false)? else {
            continue;
        };
        for path in paths.iter().filter(|p| p.parent() == Some(dir.path())) {
            // A user's file: its name is bytes, whatever they are.
            let (from, to) = names(path.file_name().unwrap_or_default());
            dir.rename_noreplace(&from, &to)?;
        }
    }
    Ok(())
}

/// Remove every envhook file from the environment (with `dry_run`, only
/// say what would go). What is not envhook's stays, listed as conflicts.
pub fn uninstall(prefix_path: &Path, dry_run: bool) -> Result<Changes> {
    let prefix = Prefix::open(prefix_path)?;
    let lock = if dry_run {
        None
    } else {
        Some(lock::acquire(&prefix)?)
    };
    let mut changes = survey(&prefix, None)?;
    changes.waited = lock.as_ref().and_then(|l| l.waited);
    if let Some(lock) = lock {
        // A venv's scripts first: nothing runs hooks that are then gone.
        venv::apply(&prefix, &changes.edits)?;
        clean(&prefix, &changes.clean)?;
        for rel in [
            ISOLATION_ROOT,
            Phase::Activate.rel_dir(),
            Phase::Deactivate.rel_dir(),
        ] {
            remove_paths(&prefix, &changes.remove, rel)?;
        }
        // After envhook's hooks are gone: the user's own come back.
        rename_in_hook_dirs(&prefix, &changes.restore, |name| {
            (takeover::aside_name(name), name.to_os_string())
        })?;
        if let Some(root) = prefix.dir("lib", false)? {
            root.remove_empty_dir("envhook");
        }
        if crate::discovery::is_venv(prefix_path) {
            remove_empty_hook_dirs(&prefix)?;
        }
        // Last: a waiting writer that then takes the lock on the removed
        // file notices and starts over (see `lock`).
        lock.remove_file(&prefix)?;
    }
    Ok(changes)
}

/// Everything a run would touch, classified. `plan` is `None` for an
/// uninstall (nothing kept).
fn survey(prefix: &Prefix, plan: Option<&Plan>) -> Result<Changes> {
    let mut changes = Changes::default();
    // The lock file, which a dry run does not open: a planted link there
    // stops the real run, so the dry run says so too.
    if let Some(meta) = prefix.dir(lock::lock_dir(prefix), false)? {
        match meta.entry(lock::LOCK_NAME)? {
            Entry::Link(target) => {
                return Err(Error::PlantedLink {
                    link: meta.join(lock::LOCK_NAME),
                    target,
                });
            }
            Entry::Missing | Entry::File => {}
            other => changes.conflicts.push(Conflict {
                path: meta.join(lock::LOCK_NAME),
                what: format!("{}, where envhook keeps its lock file", other.describe()),
            }),
        }
    }
    for phase in [Phase::Activate, Phase::Deactivate] {
        let keep: Vec<&HookFile> = plan
            .map(|p| p.files.iter().filter(|f| f.phase == phase).collect())
            .unwrap_or_default();
        survey_hooks(prefix, phase, &keep, &mut changes)?;
        match plan {
            Some(plan) => survey_take_over(prefix, phase, &plan.take_over, &mut changes)?,
            None => survey_restore(prefix, phase, &mut changes)?,
        }
    }
    survey_isolation(
        prefix,
        plan.and_then(|p| p.spec.isolation.as_ref()),
        &mut changes,
    )?;
    if crate::discovery::is_venv(prefix.path()) {
        survey_venv(prefix, plan, &mut changes)?;
    }
    Ok(changes)
}

/// A venv's activation scripts: the block into those of the dialects
/// planned, out of the others (all of them for an uninstall).
fn survey_venv(prefix: &Prefix, plan: Option<&Plan>, changes: &mut Changes) -> Result<()> {
    let wiring = match plan {
        Some(plan) => {
            let dialects: Vec<_> = plan.files.iter().map(|f| f.dialect).collect();
            venv::wire(prefix, &dialects)?
        }
        None => venv::unwire(prefix)?,
    };
    changes.conflicts.extend(wiring.conflicts);
    for edit in &wiring.edits {
        let appended = plan.is_some()
            && String::from_utf8_lossy(&edit.text).contains(crate::activation::shell::venv::BEGIN);
        if appended {
            changes.wire.push(edit.path.clone());
        } else {
            changes.unwire.push(edit.path.clone());
        }
    }
    changes.edits = wiring.edits;
    Ok(())
}

/// A venv's `etc/conda/activate.d` and `deactivate.d`, then `etc/conda`
/// and `etc`, where envhook made them and left them empty.
fn remove_empty_hook_dirs(prefix: &Prefix) -> Result<()> {
    if let Some(conda) = prefix.dir("etc/conda", false)? {
        for phase in [Phase::Activate, Phase::Deactivate] {
            conda.remove_empty_dir(phase.dir_name());
        }
    }
    if let Some(etc) = prefix.dir("etc", false)? {
        etc.remove_empty_dir("conda");
    }
    prefix.root()?.remove_empty_dir("etc");
    Ok(())
}

/// Whether a regular file begins with envhook's mark.
fn is_marked(dir: &Dir<'_>, name: &str) -> bool {
    dir.read_head(name, shell::OWNER_MARK.len())
        .is_some_and(|head| head == shell::OWNER_MARK.as_bytes())
}

/// A temporary name left by a killed run: a file that is empty or marked
/// (a temporary hook), a link (a link swap), or a directory that is empty
/// or marked (a link directory being built).
fn is_leftover(dir: &Dir<'_>, name: &str) -> Result<bool> {
    if !confined::is_temporary(name) {
        return Ok(false);
    }
    Ok(match dir.entry(name)? {
        Entry::File => dir.read_head(name, 1).is_some_and(|h| h.is_empty()) || is_marked(dir, name),
        Entry::Link(_) => true,
        Entry::Dir => match dir.subdir(name, false)? {
            Some(sub) => {
                let names = sub.names()?;
                names.is_empty() || names.iter().any(|n| n == DIR_MARK)
            }
            None => false,
        },
        Entry::Missing | Entry::Special => false,
    })
}

/// The hook files of one phase: to write (new or replacing a marked file),
/// to remove (marked, not in the new set), leftovers, conflicts.
fn survey_hooks(
    prefix: &Prefix,
    phase: Phase,
    keep: &[&HookFile],
    changes: &mut Changes,
) -> Result<()> {
    let Some(dir) = prefix.dir(phase.rel_dir(), false)? else {
        changes.write.extend(keep.iter().map(|f| f.path.clone()));
        return Ok(());
    };
    for file in keep {
        let name = file.name();
        match dir.entry(&name)? {
            Entry::Missing => {}
            Entry::File if is_marked(&dir, &name) => {}
            other => changes.conflicts.push(Conflict {
                path: dir.join(&name),
                what: format!("{} without envhook's mark", other.describe()),
            }),
        }
        changes.write.push(file.path.clone());
    }
    for name in dir.names()? {
        if is_leftover(&dir, &name)? {
            changes.clean.push(dir.join(&name));
        } else if !keep.iter().any(|f| f.name() == name)
            && dir.entry(&name)? == Entry::File
            && is_marked(&dir, &name)
        {
            changes.remove.push(dir.join(&name));
        }
    }
    Ok(())
}

/// The hand-written hooks of one phase to move aside: each must be a
/// regular file, and its aside name free.
fn survey_take_over(
    prefix: &Prefix,
    phase: Phase,
    take_over: &[PathBuf],
    changes: &mut Changes,
) -> Result<()> {
    let Some(dir) = prefix.dir(phase.rel_dir(), false)? else {
        return Ok(());
    };
    for path in take_over.iter().filter(|p| p.parent() == Some(dir.path())) {
        // A user's file: its name is bytes, whatever they are.
        let name = path.file_name().unwrap_or_default();
        let aside = takeover::aside_name(name);
        match (dir.entry(&name)?, dir.entry(&aside)?) {
            (Entry::File, Entry::Missing) => changes.move_aside.push(path.clone()),
            (Entry::File, other) => changes.conflicts.push(Conflict {
                path: dir.join(&aside),
                what: format!(
                    "{}, where envhook would move {} aside",
                    other.describe(),
                    name.to_string_lossy()
                ),
            }),
            (other, _) => changes.conflicts.push(Conflict {
                path: path.clone(),
                what: format!(
                    "{}; envhook moves only regular files aside",
                    other.describe()
                ),
            }),
        }
    }
    Ok(())
}

/// The moved-aside hand-written hooks of one phase to move back: those
/// whose old name is free (else they stay, listed as conflicts).
fn survey_restore(prefix: &Prefix, phase: Phase, changes: &mut Changes) -> Result<()> {
    let Some(dir) = prefix.dir(phase.rel_dir(), false)? else {
        return Ok(());
    };
    for aside in dir.os_names()? {
        let Some(name) = takeover::original_name(&aside) else {
            continue;
        };
        if dir.entry(&aside)? != Entry::File {
            continue;
        }
        match dir.entry(name)? {
            Entry::Missing => changes.restore.push(dir.join(name)),
            other => changes.conflicts.push(Conflict {
                path: dir.join(&aside),
                what: format!(
                    "the hand-written hook envhook moved aside; {} is now {}, so it stays \
                     where it is",
                    name.to_string_lossy(),
                    other.describe()
                ),
            }),
        }
    }
    Ok(())
}

/// Whether a name is a link directory's: `cuda-` and 16 hex digits.
fn is_link_dir_name(name: &str) -> bool {
    name.strip_prefix("cuda-")
        .is_some_and(|fp| fp.len() == 16 && fp.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `lib/envhook`: the link and the link directories. With `iso`, the link
/// and `cuda-<fingerprint>` are to be written; without, everything of
/// envhook's there is to be removed.
fn survey_isolation(prefix: &Prefix, iso: Option<&Isolation>, changes: &mut Changes) -> Result<()> {
    let wanted = iso.map(|i| dir_name(&i.dir));
    let Some(root) = prefix.dir(ISOLATION_ROOT, false)? else {
        if let Some(iso) = iso {
            changes.write.extend([iso.dir.clone(), iso.link.clone()]);
        }
        return Ok(());
    };
    let mut has_wanted = false;
    for name in root.names()? {
        let entry = root.entry(&name)?;
        if is_leftover(&root, &name)? {
            changes.clean.push(root.join(&name));
        } else if name == LINK {
            let ours = matches!(&entry, Entry::Link(t) if t.to_str().is_some_and(is_link_dir_name));
            match (ours, iso.is_some()) {
                (true, false) => changes.remove.push(root.join(&name)),
                (true, true) => {}
                (false, _) => changes.conflicts.push(Conflict {
                    path: root.join(&name),
                    what: format!(
                        "{}, where envhook keeps a link to its link directory",
                        entry.describe()
                    ),
                }),
            }
        } else if is_link_dir_name(&name) {
            let sub = match entry {
                Entry::Dir => root.subdir(&name, false)?,
                _ => None,
            };
            let names = match &sub {
                Some(sub) => sub.names()?,
                None => Vec::new(),
            };
            let marked = names.iter().any(|n| n == DIR_MARK);
            let wanted_here = wanted.as_deref() == Some(name.as_str());
            if marked && wanted_here {
                has_wanted = true;
            } else if marked {
                changes.remove.push(root.join(&name));
            } else if wanted_here {
                changes.conflicts.push(Conflict {
                    path: root.join(&name),
                    what: format!("{} without envhook's mark", entry.describe()),
                });
            }
        }
    }
    if let Some(iso) = iso {
        if !has_wanted {
            changes.write.push(iso.dir.clone());
        }
        changes.write.push(iso.link.clone());
    }
    Ok(())
}

fn dir_name(path: &Path) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .expect("link directories have UTF-8 names")
        .to_string()
}

/// Remove the leftovers the survey found.
fn clean(prefix: &Prefix, leftovers: &[PathBuf]) -> Result<()> {
    for rel in [
        ISOLATION_ROOT,
        Phase::Activate.rel_dir(),
        Phase::Deactivate.rel_dir(),
    ] {
        let Some(dir) = prefix.dir(rel, false)? else {
            continue;
        };
        for path in leftovers.iter().filter(|p| p.parent() == Some(dir.path())) {
            let name = dir_name(path);
            match dir.entry(&name)? {
                Entry::Dir => dir.remove_tree(&name, DIR_MARK)?,
                _ => dir.remove_file(&name)?,
            }
        }
    }
    Ok(())
}

/// Remove those of `paths` that lie directly in the directory `rel`.
fn remove_paths(prefix: &Prefix, paths: &[PathBuf], rel: &str) -> Result<()> {
    let Some(dir) = prefix.dir(rel, false)? else {
        return Ok(());
    };
    for path in paths.iter().filter(|p| p.parent() == Some(dir.path())) {
        let name = dir_name(path);
        match dir.entry(&name)? {
            Entry::Dir => dir.remove_tree(&name, DIR_MARK)?,
            _ => dir.remove_file(&name)?,
        }
    }
    Ok(())
}

/// Build the link directory unless a complete one with this fingerprint
/// exists, point `lib/envhook/cuda` at it, then remove older ones.
fn publish_isolation(prefix: &Prefix, iso: &Isolation) -> Result<()> {
    let root = prefix
        .dir(ISOLATION_ROOT, true)?
        .expect("created on demand");
    let name = dir_name(&iso.dir);
    if root.entry(&name)? != Entry::Dir {
        // Relative links, so the environment can be moved or packed.
        let links = iso.entries.iter().map(|entry| {
            let target = pathdiff::diff_paths(&entry.target, &iso.dir)
                .unwrap_or_else(|| entry.target.clone());
            (target, entry.name.as_str())
        });
        let mark: (&str, &[u8]) = (
            DIR_MARK,
            b"written by envhook; removed by `envhook uninstall`\n",
        );
        root.build_link_dir(&name, "build", mark, links)?;
    }
    let tmp = confined::temp_name("link");
    root.symlink(Path::new(&name), &tmp)?;
    root.rename(&tmp, LINK)?;
    for old in root.names()? {
        if is_link_dir_name(&old) && old != name && root.is_marked_dir(&old, DIR_MARK)? {
            root.remove_tree(&old, DIR_MARK)?;
        }
    }
    Ok(())
}
