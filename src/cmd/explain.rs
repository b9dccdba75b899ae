//! `envhook explain "<error text>"` (or the text on standard input): what
//! an error message means in this environment, with the one fix.

use std::io::{IsTerminal, Read, Write};

use crate::cli::ExplainArgs;
use crate::discovery::Context;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::explain;
use crate::explain::answer::Verdict;

/// A pasted traceback is a few kilobytes; more is not an error message.
const MAX_MESSAGE: u64 = 1 << 20;

/// Run `explain`.
pub fn run(args: &ExplainArgs, ctx: &Context, out: &mut impl Write) -> Result<ExitStatus> {
    // A message pasted without quotes arrives as words: joined again,
    // its line breaks lost (the shell took them), its words kept.
    let message = match &args.message[..] {
        [] => None,
        [dash] if dash == "-" => None,
        words => Some(words.join(" ")),
    };
    let message = match message {
        Some(m) => m,
        None => {
            if std::io::stdin().is_terminal() {
                return Err(Error::NoMessage {
                    stdin: "is a terminal",
                });
            }
            // A captured stderr may hold bytes that are not UTF-8 (a
            // progress bar cut mid-character); they do not matter here.
            let mut bytes = Vec::new();
            std::io::stdin()
                .take(MAX_MESSAGE)
                .read_to_end(&mut bytes)
                .map_err(|e| Error::read("standard input", e))?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if text.trim().is_empty() {
                return Err(Error::NoMessage { stdin: "was empty" });
            }
            text
        }
    };
    let (_, mut subject) = super::gather(&args.env, &args.target, ctx)?;
    // A message that names its GPU and capability (torch's "sm_120 is not
    // compatible") is measured against that GPU, as check with --gpu
    // would be, whatever GPU is seen here or given.
    if let Some(s) = explain::capability::stated(&message) {
        s.adopt(&mut subject.machine.driver.gpus);
    }
    let (facts, unsupported) = subject.facts(ctx);
    let report = crate::rules::report(&facts, unsupported);
    let e = explain::explain(&message, &facts, &report);
    if args.json {
        crate::report::json::write(out, &e)?;
    } else {
        explain::render(&e, out).map_err(Error::Output)?;
    }
    Ok(match e.verdict {
        Verdict::Cause => ExitStatus::Findings,
        Verdict::NotEnvironment => ExitStatus::NotEnvironment,
        Verdict::NotHere | Verdict::CannotTell => ExitStatus::Success,
    })
}
