//! The block `envhook install` appends to a venv's own activation script
//! (`bin/activate`, `bin/activate.fish`), which has no activate.d: it
//! sources envhook's activate hook and wraps the venv's `deactivate` so
//! that envhook's deactivate hook runs first (`hooks/venv.sh`,
//! `hooks/venv.fish`). Between two marker lines, the last of which holds a
//! hash of the block, so that `uninstall` removes exactly what was
//! appended, and never a block edited since.

use sha2::{Digest, Sha256};

use super::{Dialect, substitute};

/// The first line of the block (after the line break put before it).
pub const BEGIN: &str = "# >>> envhook >>> written by `envhook install`; `envhook uninstall` \
                         removes this block";

/// The start of the block's last line, before the hash.
const END: &str = "# <<< envhook <<< sha256:";

/// The activation script of a venv that a dialect's block goes into, and
/// the template of the block; `None` for the dialects whose venv scripts
/// envhook does not hook (csh's `deactivate` is an alias, PowerShell's a
/// function in a module scope: neither is wrapped yet).
pub fn script(dialect: Dialect) -> Option<(&'static str, &'static str)> {
    match dialect {
        Dialect::Posix => Some(("activate", include_str!("../../../hooks/venv.sh"))),
        Dialect::Fish => Some(("activate.fish", include_str!("../../../hooks/venv.fish"))),
        Dialect::Powershell | Dialect::Csh => None,
    }
}

/// The bytes appended to the script: a line break (so that a script
/// without a final one keeps its last line, and removing the block gives
/// back exactly what was there), the marked block running `activate` and,
/// from `deactivate`, the `deactivate` hook.
pub fn block(dialect: Dialect, activate: &str, deactivate: &str) -> Option<String> {
    let (_, template) = script(dialect)?;
    let body = substitute(template, |token| {
        Some(match token {
            "ACTIVATE" => dialect.quote(activate),
            "DEACTIVATE" => dialect.quote(deactivate),
            _ => return None,
        })
    });
    let inner = format!("{BEGIN}\n{body}");
    Some(format!("\n{inner}{END}{}\n", digest(&inner)))
}

/// 16 hex digits of the block's SHA-256, up to its last line.
fn digest(inner: &str) -> String {
    Sha256::digest(inner.as_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where a script holds envhook's block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// No block.
    None,
    /// The block as written, at these byte offsets (its leading line break
    /// included, its last line's break included).
    Intact(std::ops::Range<usize>),
    /// A block changed since it was written (its hash does not match, its
    /// last line is gone, or there are two): what to tell the user.
    Edited(&'static str),
}

/// Find envhook's block in a script's text.
pub fn find(text: &str) -> Found {
    let opening = format!("\n{BEGIN}\n");
    let Some(start) = text.find(&opening) else {
        return if text.contains(BEGIN) {
            Found::Edited("its first line is not the one envhook writes")
        } else {
            Found::None
        };
    };
    if text[start + 1..].matches(BEGIN).count() > 1 {
        return Found::Edited("it holds envhook's block twice");
    }
    let inner_start = start + 1;
    let Some(end_at) = text[inner_start..].find(&format!("\n{END}")) else {
        return Found::Edited("its last line (`# <<< envhook <<< sha256:...`) is gone");
    };
    let end_line = inner_start + end_at + 1;
    let inner = &text[inner_start..end_line];
    let rest = &text[end_line + END.len()..];
    let Some(newline) = rest.find('\n') else {
        return Found::Edited("its last line has no line break");
    };
    if rest[..newline] != digest(inner) {
        return Found::Edited("the block was edited since envhook wrote it");
    }
    Found::Intact(start..end_line + END.len() + newline + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_found_where_it_was_appended_and_removing_it_restores_the_text() {
        for original in ["echo hi\n", "echo no final break", ""] {
            let b = block(Dialect::Posix, "/v/a.sh", "/v/d.sh").unwrap();
            let text = format!("{original}{b}");
            let Found::Intact(range) = find(&text) else {
                panic!("{text}")
            };
            let mut back = text.clone();
            back.replace_range(range, "");
            assert_eq!(back, original);
        }
    }

    #[test]
    fn an_edited_block_is_refused() {
        let b = block(Dialect::Fish, "/v/a.fish", "/v/d.fish").unwrap();
        let text = format!("x\n{b}");
        assert!(matches!(
            find(&text.replace("source", "Source")),
            Found::Edited(_)
        ));
        assert!(matches!(find(&format!("{text}{b}")), Found::Edited(_)));
        let cut = text.rfind("# <<<").unwrap();
        assert!(matches!(find(&text[..cut]), Found::Edited(_)));
        assert_eq!(find("x\n"), Found::None);
    }
}
