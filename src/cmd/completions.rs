//! Shell completion: `envhook completions SHELL` prints the registration
//! script, and the shells call envhook back (`COMPLETE=SHELL envhook -- ...`,
//! clap_complete's dynamic engine) for candidates, so environment names and
//! GPU names come from this machine and this build's data, not from a
//! script generated once.

use std::io::Write;

use clap_complete::env::EnvCompleter;

use crate::cli::{CompletionShell, CompletionsArgs};
use crate::discovery::Context;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;

/// The variable the registration scripts set when they ask for candidates.
pub const VAR: &str = "COMPLETE";

/// Run `completions`: the registration script for one shell.
pub fn run(args: &CompletionsArgs, out: &mut impl Write) -> Result<ExitStatus> {
    let shell: &dyn EnvCompleter = match args.shell {
        CompletionShell::Bash => &clap_complete::env::Bash,
        CompletionShell::Zsh => &clap_complete::env::Zsh,
        CompletionShell::Fish => &clap_complete::env::Fish,
        CompletionShell::Powershell => &clap_complete::env::Powershell,
        CompletionShell::Elvish => &clap_complete::env::Elvish,
    };
    let completer = args.completer.clone().unwrap_or_else(completer);
    if args.shell == CompletionShell::Bash {
        // clap_complete 4.6.12's bash registration quotes the completer
        // twice and inserts candidates unquoted; envhook's own speaks the
        // same protocol (see hooks/completion.bash).
        out.write_all(crate::activation::shell::bash_completion(&completer).as_bytes())
            .map_err(Error::Output)?;
        return Ok(ExitStatus::Success);
    }
    shell
        .write_registration(VAR, "envhook", "envhook", &completer, out)
        .map_err(Error::Output)?;
    if args.shell == CompletionShell::Zsh {
        // Installed as `_envhook` in a directory on `fpath`, the file is
        // the body of the completion function compinit autoloads: it then
        // only defines the real one and registers it, and the first Tab
        // completes nothing. Completing right away in that case (and only
        // then) makes the first Tab work; `source <(...)` is unaffected.
        writeln!(
            out,
            "if [[ ${{zsh_eval_context[-1]}} == loadautofunc ]]; then \
             _clap_dynamic_completer_envhook \"$@\"; fi"
        )
        .map_err(Error::Output)?;
    }
    Ok(ExitStatus::Success)
}

/// What the script calls for candidates: `envhook` when that is this
/// binary on `PATH` (the script then survives upgrades and moves), else
/// this binary's absolute path (`cargo run`, a build directory).
fn completer() -> String {
    let me = std::env::current_exe().ok();
    let on_path = Context::from_process().which("envhook");
    match (me, on_path) {
        (Some(me), Some(found))
            if fs_err::canonicalize(&found).ok() == fs_err::canonicalize(&me).ok() =>
        {
            "envhook".into()
        }
        (Some(me), _) => me.to_string_lossy().into_owned(),
        (None, _) => "envhook".into(),
    }
}
