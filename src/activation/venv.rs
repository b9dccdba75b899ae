//! A Python venv's own activation scripts, hooked: a venv has no
//! activate.d, so `install` writes the same hooks a conda environment gets
//! (into `etc/conda/activate.d` and `deactivate.d` of the venv, where
//! `check`, `audit` and `uninstall` read them as they read a conda
//! environment's) and appends to `bin/activate` and `bin/activate.fish`
//! the marked block of [`shell::venv`] that runs them; `uninstall` takes
//! exactly that block out again. Scripts are read and replaced through
//! [`confined`] handles: never through a link, never outside the prefix.
//!
//! [`shell::venv`]: crate::activation::shell::venv
//! [`confined`]: crate::activation::confined

use std::path::{Path, PathBuf};

use crate::activation::confined::{Dir, Entry, Prefix};
use crate::activation::plan::hook_path;
use crate::activation::shell::venv::{self as block, Found};
use crate::activation::shell::{Dialect, Phase};
use crate::error::{Conflict, Error, Result};

/// Where a venv's activation scripts are.
const BIN: &str = "bin";

/// The most of a script envhook reads: venv's and uv's are a few KiB.
const MAX_SCRIPT: usize = 1 << 20;

/// One script to rewrite: its new text, with the mode it had.
#[derive(Debug, Clone)]
pub struct Edit {
    /// The script.
    pub path: PathBuf,
    /// Its new content.
    pub text: Vec<u8>,
    /// Its permission bits, kept.
    pub mode: u32,
}

/// What hooking (or unhooking) a venv's scripts changes.
#[derive(Debug, Clone, Default)]
pub struct Wiring {
    /// The scripts to rewrite.
    pub edits: Vec<Edit>,
    /// Scripts envhook cannot edit (a link, something not a file), for
    /// `install` to refuse on.
    pub conflicts: Vec<Conflict>,
}

/// The block for each of `dialects` (the scripts of the others lose
/// theirs), from the hook files of `prefix`.
pub fn wire(prefix: &Prefix, dialects: &[Dialect]) -> Result<Wiring> {
    survey(prefix, |dialect| {
        dialects
            .contains(&dialect)
            .then(|| block_for(prefix.path(), dialect))
            .flatten()
            .map(|(_, text)| text)
    })
}

/// The script of `dialect` in the venv at `prefix` and the block envhook
/// appends to it, running that venv's hooks; `None` for a dialect whose
/// script is not hooked.
pub fn block_for(prefix: &Path, dialect: Dialect) -> Option<(PathBuf, String)> {
    let (name, _) = block::script(dialect)?;
    let hook = |phase| hook_path(prefix, dialect, phase).display().to_string();
    let text = block::block(dialect, &hook(Phase::Activate), &hook(Phase::Deactivate))?;
    Some((prefix.join(BIN).join(name), text))
}

/// Every script's block removed.
pub fn unwire(prefix: &Prefix) -> Result<Wiring> {
    survey(prefix, |_| None)
}

/// Each hookable script's text with `wanted(dialect)` as its block (or
/// none): the edits where that differs from what is there. A block edited
/// by hand is an error, before anything is written.
fn survey(prefix: &Prefix, wanted: impl Fn(Dialect) -> Option<String>) -> Result<Wiring> {
    let mut out = Wiring::default();
    let Some(bin) = prefix.dir(BIN, false)? else {
        return Ok(out);
    };
    for dialect in [Dialect::Posix, Dialect::Fish] {
        let Some((name, _)) = block::script(dialect) else {
            continue;
        };
        let want = wanted(dialect);
        let (text, mode) = match read(&bin, name)? {
            Ok(found) => found,
            Err(entry) => {
                if want.is_some() && entry != Entry::Missing {
                    out.conflicts.push(Conflict {
                        path: bin.join(name),
                        what: format!(
                            "{}; envhook appends its block only to a regular file",
                            entry.describe()
                        ),
                    });
                }
                continue;
            }
        };
        let mut new = match block::find(&text) {
            Found::None => text.clone(),
            Found::Intact(range) => {
                let mut t = text.clone();
                t.replace_range(range, "");
                t
            }
            Found::Edited(why) => {
                return Err(Error::VenvScript {
                    path: bin.join(name),
                    why,
                });
            }
        };
        new.push_str(want.as_deref().unwrap_or(""));
        if new != text {
            out.edits.push(Edit {
                path: bin.join(name),
                text: new.into_bytes(),
                mode,
            });
        }
    }
    Ok(out)
}

/// A script's text and mode, or what is there instead of a regular file.
fn read(bin: &Dir<'_>, name: &str) -> Result<std::result::Result<(String, u32), Entry>> {
    let Some(mode) = bin.file_mode(name)? else {
        return Ok(Err(bin.entry(name)?));
    };
    let bytes = bin.read_head(name, MAX_SCRIPT + 1).unwrap_or_default();
    if bytes.len() > MAX_SCRIPT {
        return Err(Error::VenvScript {
            path: bin.join(name),
            why: "it is larger than 1 MiB, which no activation script is",
        });
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Ok((text, mode))),
        Err(_) => Err(Error::VenvScript {
            path: bin.join(name),
            why: "it is not UTF-8 text",
        }),
    }
}

/// Rewrite the scripts (atomically, each keeping its mode).
pub fn apply(prefix: &Prefix, edits: &[Edit]) -> Result<()> {
    let Some(bin) = prefix.dir(BIN, false)? else {
        return Ok(());
    };
    for edit in edits {
        let name = edit.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        bin.write_atomic_mode(name, &edit.text, edit.mode)?;
    }
    Ok(())
}

/// Whether a venv's activation runs envhook's hooks: one of its scripts
/// holds the block (for `check`: hook files nothing sources do nothing).
pub fn is_wired(prefix: &Path) -> bool {
    [Dialect::Posix, Dialect::Fish].iter().any(|&d| {
        block::script(d).is_some_and(|(name, _)| {
            crate::paths::read_regular(&prefix.join(BIN).join(name), MAX_SCRIPT as u64).is_ok_and(
                |b| matches!(block::find(&String::from_utf8_lossy(&b)), Found::Intact(_)),
            )
        })
    })
}
