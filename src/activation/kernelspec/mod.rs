//! The environment's Jupyter kernelspecs, given its library path: a
//! kernel is started by jupyter_client from its kernel.json (`argv` and an
//! `env` map), never activated, so envhook sets `LD_LIBRARY_PATH` in that
//! map ([`json`] edits the text) and keeps, beside it, a record of the
//! file as it was ([`RECORD`]) from which `uninstall` puts it back byte
//! for byte.
//!
//! Only kernelspecs inside the prefix are written
//! (`PREFIX/share/jupyter/kernels/*/kernel.json`: `ipykernel install
//! --sys-prefix` or `--prefix`, conda's ipykernel package), through
//! [`confined`] handles like every other write; one this environment's
//! python runs that lies outside it (`ipykernel install --user`) is only
//! reported, with the member to add ([`outside`]). A kernel.json changed
//! since envhook wrote it, where envhook's value is no longer what it set,
//! is refused, before anything is written; one rewritten without envhook's
//! value (`ipykernel install` again) is the user's new file.
//!
//! [`confined`]: crate::activation::confined

pub mod json;

use std::path::{Path, PathBuf};

use crate::activation::confined::{Dir, Entry, Prefix};
use crate::activation::lock;
use crate::activation::shell::OWNER_MARK;
use crate::discovery::Context;
use crate::error::{Error, Result};

/// Where a prefix's kernelspecs are.
pub const KERNELS: &str = "share/jupyter/kernels";

/// The kernelspec file.
const KERNEL_JSON: &str = "kernel.json";

/// The record beside it: [`OWNER_MARK`], the value envhook set, then the
/// file as it was. Jupyter reads only kernel.json and the logos of a
/// kernelspec directory.
pub const RECORD: &str = "kernel.json.envhook";

/// The most of a kernel.json envhook reads (ipykernel's are under 1 KiB).
const MAX: usize = 1 << 20;

/// What happens to one kernelspec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// envhook's value added.
    Add,
    /// envhook's value replaced by the current one.
    Update,
    /// The file put back as it was.
    Restore,
    /// The record dropped: the file was rewritten without envhook's value.
    Forget,
}

/// One kernelspec's change.
#[derive(Debug, Clone)]
pub struct Change {
    /// Its kernel.json.
    pub path: PathBuf,
    /// What is done.
    pub verb: Verb,
    /// kernel.json's new text (none: left as it is).
    text: Option<Vec<u8>>,
    /// The record's new text (none: removed).
    record: Option<Vec<u8>>,
}

/// A kernel.json and its record, read.
struct Found {
    path: PathBuf,
    text: String,
    /// The value envhook set and the file as it was.
    record: Option<(String, String)>,
}

/// What each kernelspec of the prefix needs so that its `env` holds
/// `dirs` (joined with `:`); with `add`, also those envhook never wrote
/// to, else only those it did. `None` for `dirs`: every one put back.
pub fn plan(prefix: &Prefix, dirs: Option<&str>, add: bool) -> Result<Vec<Change>> {
    let mut out = Vec::new();
    for found in scan(prefix)? {
        let change = match (&found.record, dirs) {
            (None, None) => None,
            (None, Some(_)) if !add => None,
            (None, Some(d)) => fresh(&found, &found.text, d, Verb::Add)?,
            (Some(rec), d) => recorded(&found, rec, d)?,
        };
        out.extend(change);
    }
    Ok(out)
}

/// `text` (the file as the user has it) with `dirs` added.
fn fresh(found: &Found, text: &str, dirs: &str, verb: Verb) -> Result<Option<Change>> {
    let refuse = |why| Error::Kernelspec {
        path: found.path.clone(),
        why,
    };
    let own = match json::current(text).map_err(refuse)? {
        json::Current::Set(v) => Some(v),
        _ => None,
    };
    let value = json::value(dirs, own.as_deref());
    let new = json::with_value(text, &value).map_err(refuse)?;
    // Nothing to add to a file the user gave the value already.
    if new == text && found.record.is_none() {
        return Ok(None);
    }
    if new == found.text && found.record.as_ref().is_some_and(|(v, _)| *v == value) {
        return Ok(None);
    }
    Ok(Some(Change {
        path: found.path.clone(),
        verb,
        text: Some(new.into_bytes()),
        record: Some(record(&value, text).into_bytes()),
    }))
}

/// A kernelspec envhook wrote to: refreshed (`dirs`) or put back.
fn recorded(found: &Found, rec: &(String, String), dirs: Option<&str>) -> Result<Option<Change>> {
    let (set, original) = rec;
    let ours = json::with_value(original, set).ok();
    if ours.as_deref() == Some(found.text.as_str()) {
        return match dirs {
            Some(d) => fresh(found, original, d, Verb::Update),
            None => Ok(Some(Change {
                path: found.path.clone(),
                verb: Verb::Restore,
                text: Some(original.clone().into_bytes()),
                record: None,
            })),
        };
    }
    match json::current(&found.text) {
        // Rewritten without envhook's value: the user's file now.
        Ok(json::Current::NoEnv | json::Current::Unset) => match dirs {
            Some(d) => fresh(found, &found.text, d, Verb::Add),
            None => Ok(Some(Change {
                path: found.path.clone(),
                verb: Verb::Forget,
                text: None,
                record: None,
            })),
        },
        _ => Err(Error::Kernelspec {
            path: found.path.clone(),
            why: "it changed since envhook set its LD_LIBRARY_PATH",
        }),
    }
}

/// The record's text.
fn record(value: &str, original: &str) -> String {
    format!(
        "{OWNER_MARK} -- kernel.json as it was before envhook set LD_LIBRARY_PATH in its env; \
         `envhook uninstall` puts it back\n# set: {}\n{original}",
        json::string(value)
    )
}

/// A record's value and original text, or `None` if it is not one.
fn parse_record(text: &str) -> Option<(String, String)> {
    let rest = text.strip_prefix(OWNER_MARK)?.split_once('\n')?.1;
    let (set, original) = rest.strip_prefix("# set: ")?.split_once('\n')?;
    Some((serde_json::from_str(set).ok()?, original.to_string()))
}

/// Every kernelspec directory of the prefix holding a kernel.json that is
/// UTF-8 text, with its record where there is one. Anything else there is
/// not envhook's to touch, and is skipped.
fn scan(prefix: &Prefix) -> Result<Vec<Found>> {
    let Some(kernels) = dir_at(prefix, KERNELS)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for name in kernels.names()? {
        if kernels.entry(&name)? != Entry::Dir {
            continue;
        }
        let Some(dir) = kernels.subdir(&name, false)? else {
            continue;
        };
        if dir.file_mode(KERNEL_JSON)?.is_none() {
            continue;
        }
        let read = |n| {
            dir.read_head(n, MAX)
                .and_then(|b| String::from_utf8(b).ok())
        };
        let Some(text) = read(KERNEL_JSON) else {
            continue;
        };
        let record = match dir.entry(RECORD)? {
            Entry::Missing => None,
            Entry::File => Some(read(RECORD).and_then(|t| parse_record(&t)).ok_or(
                Error::Kernelspec {
                    path: dir.join(RECORD),
                    why: "it is not the record envhook writes",
                },
            )?),
            other => {
                return Err(Error::NotOurs {
                    conflicts: vec![crate::error::Conflict {
                        path: dir.join(RECORD),
                        what: format!("{}, where envhook keeps its record", other.describe()),
                    }],
                });
            }
        };
        out.push(Found {
            path: dir.join(KERNEL_JSON),
            text,
            record,
        });
    }
    Ok(out)
}

/// The directory at `rel`, or none (a missing component, or one that is
/// not a real directory: nothing of envhook's can be below it).
fn dir_at<'p>(prefix: &'p Prefix, rel: &str) -> Result<Option<Dir<'p>>> {
    let mut dir = prefix.root()?;
    for name in rel.split('/') {
        if dir.entry(name)? != Entry::Dir {
            return Ok(None);
        }
        match dir.subdir(name, false)? {
            Some(next) => dir = next,
            None => return Ok(None),
        }
    }
    Ok(Some(dir))
}

/// Carry `changes` out, under the environment's lock: each kernel.json
/// rewritten atomically with its mode, the record written first (a run
/// killed in between leaves a record of the file as it still is, which
/// the next run reads as a rewritten file) and removed last.
pub fn apply(prefix: &Prefix, changes: &[Change]) -> Result<()> {
    if changes.is_empty() {
        return Ok(());
    }
    let _lock = lock::acquire(prefix)?;
    let Some(kernels) = dir_at(prefix, KERNELS)? else {
        return Ok(());
    };
    for change in changes {
        let name = change
            .path
            .parent()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let Some(dir) = kernels.subdir(name, false)? else {
            continue;
        };
        if let Some(record) = &change.record {
            dir.write_atomic(RECORD, record)?;
        }
        if let Some(text) = &change.text {
            let mode = dir.file_mode(KERNEL_JSON)?.unwrap_or(0o644);
            dir.write_atomic_mode(KERNEL_JSON, text, mode)?;
        }
        if change.record.is_none() {
            dir.remove_file(RECORD)?;
        }
    }
    Ok(())
}

/// The kernelspecs of the prefix in which envhook set the path and which
/// were rewritten since without it (for `check`: kernels started from them
/// do not get it). Unreadable ones are not counted.
pub fn rewritten(prefix: &Path) -> Vec<PathBuf> {
    let Ok(found) = Prefix::open(prefix).and_then(|p| scan(&p)) else {
        return Vec::new();
    };
    found
        .into_iter()
        .filter(|f| f.record.is_some())
        .filter(|f| {
            matches!(
                json::current(&f.text),
                Ok(json::Current::NoEnv | json::Current::Unset)
            )
        })
        .map(|f| f.path)
        .collect()
}

/// A kernelspec outside the prefix whose kernel runs this environment's
/// python, lacking envhook's value: envhook does not write there.
#[derive(Debug, Clone)]
pub struct Outside {
    /// Its kernel.json.
    pub path: PathBuf,
    /// The `env` member it needs, as JSON text.
    pub member: String,
}

/// The kernelspecs Jupyter finds outside the prefix (`JUPYTER_PATH`, the
/// user's data directory, the system's) whose `argv[0]` is inside it and
/// whose `env` lacks `dirs`.
pub fn outside(prefix: &Path, dirs: &str, ctx: &Context) -> Vec<Outside> {
    let mut roots: Vec<PathBuf> = ctx
        .var_os("JUPYTER_PATH")
        .map(|p| std::env::split_paths(p).collect())
        .unwrap_or_default();
    match (
        ctx.var_path("JUPYTER_DATA_DIR"),
        ctx.var_path("XDG_DATA_HOME"),
    ) {
        (Some(d), _) => roots.push(d),
        (None, Some(x)) => roots.push(x.join("jupyter")),
        (None, None) => roots.extend(ctx.home().map(|h| h.join(".local/share/jupyter"))),
    }
    roots.push(ctx.system_path("/usr/local/share/jupyter"));
    roots.push(ctx.system_path("/usr/share/jupyter"));
    let ours = json::value(dirs, None);
    let mut out = Vec::new();
    for root in roots.iter().filter(|r| !r.starts_with(prefix)) {
        for dir in crate::paths::dir_entries(&root.join("kernels")) {
            let path = dir.join(KERNEL_JSON);
            let Ok(bytes) = crate::paths::read_regular(&path, MAX as u64) else {
                continue;
            };
            let Ok(doc) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
                continue;
            };
            let runs_ours = doc["argv"][0]
                .as_str()
                .is_some_and(|a| Path::new(a).starts_with(prefix));
            let has = doc["env"][json::VAR]
                .as_str()
                .is_some_and(|v| v == ours || v.starts_with(&format!("{ours}:")));
            if runs_ours && !has {
                let own = doc["env"][json::VAR].as_str();
                out.push(Outside {
                    path,
                    member: format!(
                        "\"{}\": {}",
                        json::VAR,
                        json::string(&json::value(dirs, own))
                    ),
                });
            }
        }
    }
    out
}
