//! `~/.conda/environments.txt`: one prefix per line, written by conda and
//! mamba on every `create`. Real files start with blank lines, use CRLF,
//! carry Windows paths when a home directory is shared, and keep entries for
//! environments that were deleted by hand (`rm -rf`).

use std::io;
use std::path::{Path, PathBuf};

/// One meaningful line.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// An absolute path for this system.
    Env(PathBuf),
    /// A path for another OS (`C:\...` on Unix), kept to be reported.
    Foreign(String),
}

/// Read the file; `Ok(None)` when it does not exist.
pub fn read(path: &Path) -> io::Result<Option<Vec<Line>>> {
    match crate::paths::read_regular(path, crate::paths::MAX_TEXT) {
        Ok(bytes) => Ok(Some(parse(&String::from_utf8_lossy(&bytes)))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Parse the contents: blank lines and comments skipped, CR stripped.
pub fn parse(text: &str) -> Vec<Line> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let p = PathBuf::from(l);
            if p.is_absolute() {
                Line::Env(p)
            } else {
                Line::Foreign(l.to_string())
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerates_real_world_files() {
        let text = "\r\n/home/u/miniconda3\r\n\n  /home/u/miniconda3/envs/paddle  \nC:\\Users\\user\\anaconda3\\envs\\x\n# note\n";
        assert_eq!(
            parse(text),
            vec![
                Line::Env("/home/u/miniconda3".into()),
                Line::Env("/home/u/miniconda3/envs/paddle".into()),
                Line::Foreign("C:\\Users\\user\\anaconda3\\envs\\x".into()),
            ]
        );
    }
}
