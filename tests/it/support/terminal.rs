//! A real terminal for tests that need one (completion on Tab, a prompt
//! that asks only on a terminal, a warning that must reach the screen): a
//! command in a private tmux server, keys sent to it, its screen read back.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// One command running in its own tmux server; the server is killed on
/// drop. Each terminal needs a socket of its own: a new session on the
/// socket of a server still shutting down fails.
pub struct Terminal {
    socket: PathBuf,
    /// How long [`Terminal::wait_for`] waits.
    patience: Duration,
}

impl Terminal {
    /// Start `command` (a shell command line) in a 200×50 terminal whose
    /// server listens on `socket`; [`Terminal::wait_for`] waits `patience`
    /// for what it looks for.
    pub fn start(socket: &Path, command: &str, patience: Duration) -> Self {
        let term = Terminal {
            socket: socket.to_path_buf(),
            patience,
        };
        term.tmux(&["new-session", "-d", "-x", "200", "-y", "50", command]);
        term
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("-f")
            .arg("/dev/null")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Send keys, as `tmux send-keys` names them (`"Enter"`, `"Tab"`,
    /// `"C-u"`, or text).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Poll the screen (and its scrollback, wrapped lines joined) until it
    /// shows `want`, within the terminal's patience; the screen then.
    pub fn wait_for(&self, want: &str) -> String {
        self.poll(want, &["capture-pane", "-p", "-J", "-S", "-100"])
    }

    /// [`Terminal::wait_for`], the screen read back with its styles as
    /// SGR sequences (what the program coloured, as tmux drew it), and
    /// 500 lines of scrollback.
    pub fn wait_for_styled(&self, want: &str) -> String {
        self.poll(want, &["capture-pane", "-p", "-e", "-J", "-S", "-500"])
    }

    fn poll(&self, want: &str, capture: &[&str]) -> String {
        let start = Instant::now();
        loop {
            let text = self.tmux(capture);
            if text.contains(want) {
                return text;
            }
            assert!(start.elapsed() < self.patience, "no {want:?} in:\n{text}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}
