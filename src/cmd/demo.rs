//! `envhook demo`: lay out the demo installation (`crate::demo`) in a
//! directory envhook owns, replacing an earlier demo and nothing else.
//!
//! DIR is opened once, its last component without following a link
//! (`O_NOFOLLOW`, however it is spelled: `L/` and `L/.` are the link `L`),
//! and everything is written relative to that handle
//! ([`crate::demo::tree`]): a link swapped in for DIR, or anywhere below
//! it, while the demo is written makes the run fail, never write
//! elsewhere. DIR's parents are made when missing, and links among them
//! are followed (that path is the user's choice). A DIR whose path holds a
//! line break is refused: `environments.txt` is one path a line.
//!
//! Run as root in a directory someone else owns (DIR, or DIR's parent
//! where envhook makes DIR: `sudo envhook demo /home/alice/demo`), the
//! demo is laid out for that owner: once written, everything envhook made
//! there is given to the directory's owner (uid and gid), as `install`
//! gives what it makes in an environment to the environment's owner, so
//! the owner can use, replace and remove the demo without root. Only what
//! envhook made changes hands (never a file someone else put or linked
//! there), and each directory only after its contents, while no one else
//! can change them.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::cli::DemoArgs;
use crate::demo::tree::Tree;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::finding::{quoted, quoted_path};

/// Run `demo`.
pub fn run(args: &DemoArgs, out: &mut impl Write) -> Result<ExitStatus> {
    let given = std::path::absolute(&args.dir).map_err(|e| Error::write(&args.dir, e))?;
    // Without trailing slashes and `.`s: the name of the last component.
    let dir: PathBuf = given.components().collect();
    if dir.as_os_str().as_bytes().contains(&b'\n') {
        return Err(Error::DemoPath {
            path: dir,
            why: "its path holds a line break, which would split the demo's environments.txt",
        });
    }
    let (tree, owner) = open(&dir)?;
    clear(&tree)?;
    let (root, home) = crate::demo::object()
        .and_then(|lib| {
            tree.write(crate::demo::MARKER, MARKER_TEXT)?;
            let laid_out = crate::demo::lay_out(&tree, lib)?;
            if let Some((uid, gid)) = owner {
                tree.give(uid, gid)?;
            }
            Ok(laid_out)
        })
        .map_err(|source| Error::Demo { source })?;
    let envs = root.join("envs");
    let mut line = |text: String| writeln!(out, "{text}").map_err(Error::Output);
    line(format!("demo installation written to {}", dir.display()))?;
    line(format!(
        "  {}  (base; envs: {})",
        root.display(),
        crate::demo::ENVIRONMENTS.join(", ")
    ))?;
    // Quoted as fix lines are, so they paste as they read whatever DIR
    // holds (a space, a quote, `$(...)`).
    line("try:".into())?;
    line(format!(
        "  envhook show -p {}",
        quoted_path(&envs.join("paddle"))
    ))?;
    let home = quoted(&home.to_string_lossy());
    line(format!("  HOME={home} envhook envs"))?;
    line(format!("  HOME={home} envhook audit"))?;
    Ok(ExitStatus::Success)
}

/// What the marker file says to whoever opens it.
const MARKER_TEXT: &str =
    "written by `envhook demo`, which replaces this directory when run again\n";

/// Open DIR (made when missing) without following a link, and whom what
/// envhook makes there is for: as root, the owner of DIR, or of its parent
/// where envhook made DIR, when that is not root; else no one else.
fn open(dir: &Path) -> Result<(Tree, Option<(u32, u32)>)> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Err(Error::DemoPath {
            path: dir.to_path_buf(),
            why: "it does not end in a directory's name",
        });
    };
    let parent = Tree::create(parent).map_err(|source| Error::Demo { source })?;
    let (tree, made) = parent.open_dir(name).map_err(|e| refusal(dir, e))?;
    if !rustix::process::geteuid().is_root() {
        return Ok((tree, None));
    }
    let whose = if made { &parent } else { &tree };
    let owner = whose.owner().map_err(|source| Error::Demo { source })?;
    Ok((tree, (owner.0 != 0).then_some(owner)))
}

/// Why DIR could not be opened as a directory: a link (not followed),
/// something else, or an I/O error.
fn refusal(dir: &Path, e: std::io::Error) -> Error {
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_symlink() => not_a_demo(dir, "a symbolic link (not followed)"),
        Ok(meta) if !meta.is_dir() => not_a_demo(dir, "not a directory"),
        _ => Error::Demo { source: e },
    }
}

/// Make DIR an empty directory envhook may fill: empty an earlier demo
/// (its marker is a regular file), without following a link below it.
/// Anything else there is not envhook's to remove.
fn clear(tree: &Tree) -> Result<()> {
    let dir = tree.path();
    let marker = tree.kind(crate::demo::MARKER.as_ref());
    if marker.is_ok_and(|k| k == Some(rustix::fs::FileType::RegularFile)) {
        return tree
            .clear(crate::demo::MARKER)
            .map_err(|source| Error::Demo { source });
    }
    match tree
        .names()
        .map_err(|source| Error::Demo { source })?
        .is_empty()
    {
        true => Ok(()),
        false => Err(not_a_demo(
            dir,
            "a directory that is not empty and no earlier demo",
        )),
    }
}

/// `dir` is `what`, where a demo would go.
fn not_a_demo(dir: &Path, what: &'static str) -> Error {
    Error::NotADemo {
        path: dir.to_path_buf(),
        what,
        marker: crate::demo::MARKER,
    }
}
