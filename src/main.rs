//! The `envhook` command: parses the command line, runs one verb of
//! [`envhook::cmd`], and turns its result into the exit contract
//! ([`envhook::exit`]). The library (`src/lib.rs`) holds everything else;
//! its crate doc is the map of the house.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use envhook::cli::{Cli, Command};
use envhook::discovery::Context;
use envhook::error::Error;
use envhook::{cmd, data, notice};

/// envhook parses hundreds of small JSON records and path lists per
/// environment on several threads; mimalloc's per-thread free lists cut
/// audit's user CPU by a sixth against glibc's malloc on the realistic
/// fleet (benches/audit-fleet.sh).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // A completion request from the shell (`COMPLETE=bash envhook -- ...`):
    // answer it and exit before anything else runs.
    clap_complete::CompleteEnv::with_factory(Cli::command)
        .var(cmd::completions::VAR)
        .complete();
    // `--version` also names the compatibility data, which lives in the
    // embedded matrix file.
    let version: &'static str = Box::leak(
        format!(
            "{} (matrix {})",
            env!("CARGO_PKG_VERSION"),
            data::matrix::shipped_version()
        )
        .into_boxed_str(),
    );
    // Colour is chosen before clap parses, so that its help follows it.
    envhook::colour::choose(envhook::cli::colour_choice(std::env::args_os()));
    let matches = Cli::command().version(version).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    notice::set_verbosity(if cli.quiet {
        notice::Verbosity::Quiet
    } else if cli.verbose {
        notice::Verbosity::Verbose
    } else {
        notice::Verbosity::Normal
    });
    let ctx = Context::from_process();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(ClosedPipeOk::new(stdout.lock()));
    let result = match &cli.command {
        Command::Show(args) => cmd::show::run(args, &ctx, &mut out),
        Command::Envs(args) => cmd::envs::run(args, &ctx, &mut out),
        Command::Install(args) => cmd::install::run(args, &ctx, &mut out),
        Command::Uninstall(args) => cmd::uninstall::run(args, &ctx, &mut out),
        Command::Check(args) => cmd::check::run(args, &ctx, &mut out),
        Command::Audit(args) => cmd::audit::run(args, &ctx, &mut out),
        Command::Export(args) => cmd::export::run(args, &ctx, &mut out),
        Command::Run(args) => cmd::export::run_command(args, &ctx),
        Command::Completions(args) => cmd::completions::run(args, &mut out),
        Command::Man(args) => cmd::man::run(args, Cli::command().version(version), &mut out),
        Command::Explain(args) => cmd::explain::run(args, &ctx, &mut out),
        Command::Demo(args) => cmd::demo::run(args, &mut out),
    };
    let result = result.and_then(|status| out.flush().map(|()| status).map_err(Error::Output));
    match result {
        Ok(status) => status.into(),
        Err(e) => {
            drop(out);
            report_error(&e);
            std::process::ExitCode::from(e.exit_code())
        }
    }
}

/// Standard output where a reader that went away (`envhook audit | head`)
/// is not an error: once a write fails with `EPIPE`, the rest is dropped,
/// and the command finishes and exits with the status its work earned,
/// whatever the output format.
struct ClosedPipeOk<W> {
    inner: W,
    closed: bool,
}

impl<W> ClosedPipeOk<W> {
    fn new(inner: W) -> Self {
        ClosedPipeOk {
            inner,
            closed: false,
        }
    }
}

impl<W: Write> Write for ClosedPipeOk<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }
}

/// Print an error and its hint to stderr.
fn report_error(e: &Error) {
    let mut err = io::stderr().lock();
    // The same prefix as clap's usage errors, so every error reads alike.
    let label = envhook::colour::paint(envhook::colour::stderr(), envhook::colour::ERROR, "error");
    let _ = writeln!(err, "{label}: {e}");
    if let Some(hint) = e.hint() {
        let _ = writeln!(err, "  hint: {}", hint.replace('\n', "\n  "));
    }
}
