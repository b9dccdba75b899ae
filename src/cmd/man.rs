//! `envhook man`: one page to stdout, or every page into a directory.

use std::io::Write;

use crate::cli::ManArgs;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;

/// Run `man`; `root` is the clap command as the binary uses it.
pub fn run(args: &ManArgs, root: clap::Command, out: &mut impl Write) -> Result<ExitStatus> {
    let pages = crate::manual::pages(root);
    if let Some(dir) = &args.dir {
        // std's error, not fs_err's: Error::write names the path once.
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        for (name, cmd) in &pages {
            let path = dir.join(format!("{name}.1"));
            let mut text = Vec::new();
            crate::manual::render(name, cmd, &mut text).map_err(Error::Output)?;
            // Never through a planted link, never into a FIFO.
            super::output::replace_file(&path, &text)?;
            writeln!(out, "{}", path.display()).map_err(Error::Output)?;
        }
        return Ok(ExitStatus::Success);
    }
    let want = match &args.page {
        None => "envhook".to_string(),
        Some(p) if p == "envhook" => p.clone(),
        Some(p) => format!("envhook-{}", p.trim_start_matches("envhook-")),
    };
    let Some((name, cmd)) = pages.iter().find(|(n, _)| *n == want) else {
        return Err(Error::UnknownManPage {
            page: args.page.clone().unwrap_or_default(),
            known: pages
                .iter()
                .filter_map(|(n, _)| n.strip_prefix("envhook-").map(str::to_string))
                .collect(),
        });
    };
    crate::manual::render(name, cmd, out).map_err(Error::Output)?;
    Ok(ExitStatus::Success)
}
