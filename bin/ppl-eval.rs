//! `ppl-eval`: parses the command line and hands each mode to `ppl_filter::eval`.
//! Exit codes: 0 success, 2 any error. Everything written to standard output goes through
//! [`write_stdout`]: a write error is one line on stderr and exit 2; a closed pipe
//! (`ppl-eval score … | head -1`) ends the run quietly with exit 0, as `ppl-filter` does.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::{CommandFactory, Parser};
use ppl_filter::cli::eval::{BaselineArgs, CompareArgs, EvalArgs, EvalCommand, ScoreArgs};
use ppl_filter::eval::compare::{self, Cleaner};
use ppl_filter::eval::score_dirs;
use ppl_filter::lm::model::embedded;
use ppl_filter::pipeline::Options;

fn main() -> ExitCode {
    let args = match EvalArgs::try_parse() {
        Ok(args) => args,
        // A usage error: clap's message on stderr, exit 2.
        Err(error) if error.use_stderr() => error.exit(),
        // `--help`, `--version`: clap's text on stdout, which clap's own `exit` would report
        // as written even on a full device.
        Err(error) => {
            let written = error.print().and_then(|()| io::stdout().flush());
            return finish(closed_pipe_is_success(written));
        }
    };
    let result = match (args.generate, args.command) {
        (Some(what), _) => {
            let mut out = io::stdout().lock();
            let written =
                ppl_filter::cli::generate(what, ppl_filter::cli::eval::command(), &mut out)
                    .and_then(|()| out.flush());
            closed_pipe_is_success(written)
        }
        (None, Some(EvalCommand::Score(score_args))) => score(score_args),
        (None, Some(EvalCommand::Baseline(baseline_args))) => baseline(baseline_args),
        (None, Some(EvalCommand::Compare(compare_args))) => compare(compare_args),
        (None, None) => {
            let _ = EvalArgs::command().print_help();
            Err(anyhow::anyhow!("a subcommand is required"))
        }
    };
    finish(result)
}

/// The exit status of a run: 0, or 2 after one line on stderr saying why.
fn finish(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            say(&ppl_filter::one_line(error.as_ref()));
            ExitCode::from(2)
        }
    }
}

/// `ppl-eval score`: the CleanEval measures for a directory of cleaned files.
fn score(args: ScoreArgs) -> anyhow::Result<()> {
    let summary = score_dirs(&args.cleaned_dir, &args.gold_dir)?;
    if let Some(path) = &args.tsv {
        summary.save_tsv(path)?;
    }
    if let Some(path) = &args.json {
        summary.save_json(path)?;
    }
    write_stdout(&summary.to_table())
}

/// `ppl-eval baseline`: the jusText-style cleaner over a directory of pages.
fn baseline(args: BaselineArgs) -> anyhow::Result<()> {
    let options = Options::with_method(ppl_filter::decide::Method::Perplexity);
    let (seconds, bytes, pages) = compare::clean_dir(
        Cleaner::Baseline,
        &args.input_dir,
        &args.out_dir,
        embedded(),
        &options,
    )?;
    say(&format!(
        "{pages} pages, {:.1} MB in {seconds:.2} s",
        bytes as f64 / 1e6
    ));
    Ok(())
}

/// `ppl-eval compare`: every method side by side.
fn compare(args: CompareArgs) -> anyhow::Result<()> {
    let model = ppl_filter::lm::load_model(args.model.as_deref())?;
    let options = Options::with_decision(args.policy.decide()?);
    let work_dir = args.work_dir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("ppl-eval-compare-{}", std::process::id()))
    });
    let results = compare::compare(&args.input_dir, &args.gold_dir, &work_dir, model, &options)?;
    let text = format!(
        "{}\n{} pages; outputs in {}\n",
        compare::table(&results),
        results.first().map_or(0, |r| r.pages),
        work_dir.display()
    );
    write_stdout(&text)
}

/// Writes `text` to standard output and flushes it (`print!` would panic on a full device).
fn write_stdout(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    closed_pipe_is_success(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
}

/// One line `ppl-eval: …` on stderr; a stderr that cannot be written is ignored (`eprintln!`
/// would panic).
fn say(line: &str) {
    let _ = writeln!(io::stderr(), "ppl-eval: {line}");
}

/// A write's result at the edge: a closed pipe means the reader has what it wanted (success);
/// any other write error is the run's error.
fn closed_pipe_is_success(written: io::Result<()>) -> anyhow::Result<()> {
    match written {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e).context("cannot write output"),
        _ => Ok(()),
    }
}
