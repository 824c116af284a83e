//! `ppl-eval`: parses the command line and hands each mode to `ppl_filter::eval`.
//! Exit codes: 0 success, 2 any error.

use std::io;
use std::process::ExitCode;

use anyhow::Context;
use clap::{CommandFactory, Parser};
use ppl_filter::cli::eval::{BaselineArgs, CompareArgs, EvalArgs, EvalCommand, ScoreArgs};
use ppl_filter::eval::compare::{self, Method};
use ppl_filter::eval::score_dirs;
use ppl_filter::lm::model::embedded;
use ppl_filter::pipeline::Options;

fn main() -> ExitCode {
    let args = EvalArgs::parse();
    let result = match (args.generate, args.command) {
        (Some(what), _) => {
            ppl_filter::cli::generate(what, ppl_filter::cli::eval::command(), &mut io::stdout())
                .context("cannot write output")
        }
        (None, Some(EvalCommand::Score(score_args))) => score(score_args),
        (None, Some(EvalCommand::Baseline(baseline_args))) => baseline(baseline_args),
        (None, Some(EvalCommand::Compare(compare_args))) => compare(compare_args),
        (None, None) => {
            let _ = EvalArgs::command().print_help();
            Err(anyhow::anyhow!("a subcommand is required"))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ppl-eval: {}", ppl_filter::cli::one_line(error.as_ref()));
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
    print!("{}", summary.to_table());
    Ok(())
}

/// `ppl-eval baseline`: the jusText-style cleaner over a directory of pages.
fn baseline(args: BaselineArgs) -> anyhow::Result<()> {
    let options = Options::with_method(ppl_filter::decide::Method::Perplexity);
    let (seconds, bytes, pages) = compare::clean_dir(
        Method::Baseline,
        &args.input_dir,
        &args.out_dir,
        embedded(),
        &options,
    )?;
    eprintln!(
        "ppl-eval: {pages} pages, {:.1} MB in {seconds:.2} s",
        bytes as f64 / 1e6
    );
    Ok(())
}

/// `ppl-eval compare`: every method side by side.
fn compare(args: CompareArgs) -> anyhow::Result<()> {
    let model = ppl_filter::lm::load_model(args.model.as_deref())?;
    let options = Options {
        policy: args.policy.policy(),
        choices: args.policy.choices(),
        ..Options::with_method(args.policy.method()?)
    };
    let work_dir = args.work_dir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("ppl-eval-compare-{}", std::process::id()))
    });
    let results = compare::compare(&args.input_dir, &args.gold_dir, &work_dir, model, &options)?;
    print!("{}", compare::table(&results));
    println!(
        "\n{} pages; outputs in {}",
        results.first().map_or(0, |r| r.pages),
        work_dir.display()
    );
    Ok(())
}
