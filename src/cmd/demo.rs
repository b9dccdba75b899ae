//! `envhook demo`: lay out the demo installation (`crate::demo`) in a
//! directory envhook owns, replacing an earlier demo and nothing else.

use std::io::Write;
use std::path::Path;

use crate::cli::DemoArgs;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;

/// Run `demo`.
pub fn run(args: &DemoArgs, out: &mut impl Write) -> Result<ExitStatus> {
    let dir = std::path::absolute(&args.dir).map_err(|e| Error::write(&args.dir, e))?;
    clear(&dir)?;
    let (root, home) = crate::demo::object()
        .and_then(|lib| {
            fs_err::write(dir.join(crate::demo::MARKER), MARKER_TEXT)?;
            crate::demo::lay_out(&crate::demo::tree::Tree::create(&dir)?, lib)
        })
        .map_err(|e| Error::write(&dir, e))?;
    let envs = root.join("envs");
    let (d, home) = (dir.display(), home.display());
    let mut line = |text: String| writeln!(out, "{text}").map_err(Error::Output);
    line(format!("demo installation written to {d}"))?;
    line(format!(
        "  {}  (base; envs: {})",
        root.display(),
        crate::demo::ENVIRONMENTS.join(", ")
    ))?;
    line("try:".into())?;
    line(format!(
        "  envhook show -p {}",
        envs.join("paddle").display()
    ))?;
    line(format!("  HOME={home} envhook envs"))?;
    line(format!("  HOME={home} envhook audit"))?;
    Ok(ExitStatus::Success)
}

/// What the marker file says to whoever opens it.
const MARKER_TEXT: &str =
    "written by `envhook demo`, which replaces this directory when run again\n";

/// Make `dir` an empty directory envhook may fill: create it, or empty an
/// earlier demo (its marker is a regular file). Anything else there is not
/// envhook's to remove; a symbolic link is not followed.
fn clear(dir: &Path) -> Result<()> {
    let meta = match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return fs_err::create_dir_all(dir).map_err(|e| Error::write(dir, e));
        }
        Err(e) => return Err(Error::read(dir, e)),
        Ok(meta) => meta,
    };
    if meta.is_symlink() {
        return Err(not_a_demo(dir, "a symbolic link (not followed)"));
    }
    if !meta.is_dir() {
        return Err(not_a_demo(dir, "not a directory"));
    }
    let marker = std::fs::symlink_metadata(dir.join(crate::demo::MARKER));
    if marker.is_ok_and(|m| m.is_file()) {
        fs_err::remove_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        return fs_err::create_dir(dir).map_err(|e| Error::write(dir, e));
    }
    let mut entries = fs_err::read_dir(dir).map_err(|e| Error::read(dir, e))?;
    match entries.next() {
        None => Ok(()),
        Some(_) => Err(not_a_demo(
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
