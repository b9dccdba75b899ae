//! Colour for people reading a terminal: whether stdout and stderr get
//! ANSI styles, decided once by `main`, and the few styles envhook uses
//! (severity words, finding codes, fix lines).
//!
//! The decision is anstream's, the crate clap itself prints with, so
//! clap's help and envhook's reports agree: `--color always|never` wins;
//! under `auto`, `NO_COLOR` (set and non-empty) turns colour off,
//! `CLICOLOR_FORCE` on, and otherwise a stream is coloured when it is a
//! terminal. Renderers ask [`stdout`] and emit styles only when it says
//! yes, rather than writing styles and stripping them afterwards: a
//! stripper would also eat an escape byte that belongs to a path.

use std::sync::atomic::{AtomicBool, Ordering};

use anstyle::{AnsiColor, Color, Style};

static STDOUT: AtomicBool = AtomicBool::new(false);
static STDERR: AtomicBool = AtomicBool::new(false);

/// Decide, for the rest of the process, from the command line's choice:
/// anstream's global choice (which clap's own help and errors follow
/// too), then each stream's answer under it.
pub fn choose(choice: anstream::ColorChoice) {
    choice.write_global();
    let on = |c| !matches!(c, anstream::ColorChoice::Never);
    STDOUT.store(
        on(anstream::AutoStream::choice(&std::io::stdout())),
        Ordering::Relaxed,
    );
    STDERR.store(
        on(anstream::AutoStream::choice(&std::io::stderr())),
        Ordering::Relaxed,
    );
}

/// Whether what goes to stdout is styled.
pub fn stdout() -> bool {
    STDOUT.load(Ordering::Relaxed)
}

/// Whether what goes to stderr is styled.
pub fn stderr() -> bool {
    STDERR.load(Ordering::Relaxed)
}

/// `error`: bold red, as clap's own `error:`.
pub const ERROR: Style = Style::new()
    .bold()
    .fg_color(Some(Color::Ansi(AnsiColor::Red)));
/// `warning`: bold yellow, as clap's and cargo's.
pub const WARNING: Style = Style::new()
    .bold()
    .fg_color(Some(Color::Ansi(AnsiColor::Yellow)));
/// `info` and `note`: bold cyan, quieter than a warning.
pub const NOTE: Style = Style::new()
    .bold()
    .fg_color(Some(Color::Ansi(AnsiColor::Cyan)));
/// A finding's code (`needs-hook`): bold, the word to look up.
pub const CODE: Style = Style::new().bold();
/// A fix line (`fix:` and the command): green, the line to act on.
pub const FIX: Style = Style::new().fg_color(Some(Color::Ansi(AnsiColor::Green)));

/// `text` in `style` when `on`, else as it is.
pub fn paint(on: bool, style: Style, text: &str) -> String {
    if on {
        format!("{}{text}{}", style.render(), style.render_reset())
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_is_the_text_and_on_wraps_it_in_sgr() {
        assert_eq!(paint(false, ERROR, "error"), "error");
        assert_eq!(
            paint(true, ERROR, "error"),
            "\u{1b}[1m\u{1b}[31merror\u{1b}[0m"
        );
    }
}
