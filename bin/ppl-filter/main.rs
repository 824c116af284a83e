//! `ppl-filter`: parses the command line and hands each mode to the library, one file per mode:
//! `clean.rs` (the main job, its flags made a plan by `plan.rs`), `train.rs`, `learn.rs`, `perplexity.rs`, `serve.rs` (the web
//! demo); `report.rs` prints problems and progress on stderr; `urls.rs` reads the URLs to fetch. Errors reach here typed, with
//! their causes, and are printed as one line. Exit codes: 0 success, 1 some inputs
//! damaged/empty/binary, 2 an error (see `--help`).

mod clean;
mod learn;
mod perplexity;
mod plan;
mod report;
#[cfg(feature = "serve")]
mod serve;
mod train;
mod urls;

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context;
use ppl_filter::cli::filter::{Command, FilterArgs};
use ppl_filter::cli::Generate;
use ppl_filter::one_line;

fn main() -> ExitCode {
    let args = match FilterArgs::parse_checked() {
        Ok(args) => args,
        // A usage error: clap's message on stderr, exit 2.
        Err(error) if error.use_stderr() => error.exit(),
        // `--help`, `--version`: clap's text on stdout, which clap's own `exit` would report as
        // written even on a full device.
        Err(error) => return exit_code(written(error.print().and_then(|()| io::stdout().flush()))),
    };
    let global = args.global;
    let result = match (args.generate, args.command) {
        (Some(what), _) => generate(what),
        (None, Some(Command::Train(train_args))) => train::run(train_args, &global),
        (None, Some(Command::Perplexity(args))) => perplexity::run(args, &global),
        (None, Some(Command::Learn(learn_args))) => learn::run(learn_args, &global),
        #[cfg(feature = "serve")]
        (None, Some(Command::Serve(serve_args))) => serve::run(serve_args, &global),
        (None, None) => clean::run(args.clean, &global),
    };
    exit_code(result)
}

/// The run's exit code; an error is printed as one line, with its causes, and exits 2.
fn exit_code(result: anyhow::Result<ExitCode>) -> ExitCode {
    result.unwrap_or_else(|error| {
        eprintln!("ppl-filter: {}", one_line(error.as_ref()));
        ExitCode::from(2)
    })
}

/// The end of a run that wrote to standard output: a write that failed is an error, unless the
/// reader closed the pipe (`| head`), which ends the run quietly.
fn written(result: io::Result<()>) -> anyhow::Result<ExitCode> {
    match result {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e).context("cannot write output"),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// `--generate`: the man page, a completion script or the embedded model's file (a closed pipe
/// ends it quietly, as it does a cleaning run).
fn generate(what: Generate) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    let result = ppl_filter::cli::generate(what, ppl_filter::cli::filter::command(), &mut out);
    written(result.and_then(|()| out.flush()))
}
