//! `ppl-filter train`: a model file from plain text.

use std::process::ExitCode;

use anyhow::{bail, Context};
use ppl_filter::cli::filter::{GlobalArgs, TrainArgs};
use ppl_filter::lm::train::{Progress, TrainOptions};

/// Trains a model on the corpus files and writes it to `--output`.
pub fn run(args: TrainArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    if global.model.is_some() {
        bail!("--model does not apply to train, which makes a model (name it with --output)");
    }
    let options = TrainOptions {
        order: usize::from(args.order),
        min_count: args.min_count,
        min_unigram_count: args.min_unigram_count,
        max_ngrams_in_memory: args.max_ngrams_in_memory,
        credit: args.credit.unwrap_or_default(),
        ..TrainOptions::default()
    };
    let progress = if global.quiet {
        Progress::Hidden
    } else {
        Progress::Stderr
    };
    let trained = ppl_filter::lm::train::train(&args.corpus, &options, progress)?;
    std::fs::write(&args.output, &trained.bytes)
        .with_context(|| args.output.display().to_string())?;
    if !global.quiet {
        eprintln!(
            "ppl-filter: wrote {}: {}",
            args.output.display(),
            trained.stats
        );
    }
    Ok(ExitCode::SUCCESS)
}
