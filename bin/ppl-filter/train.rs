//! `ppl-filter train`: a model file from plain text.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
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
    let bar = Bar(if global.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
    });
    let trained = ppl_filter::lm::train::train(&args.corpus, &options, &bar)?;
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

/// The bar of input bytes counted, on stderr when it is a terminal (indicatif draws nothing
/// elsewhere).
struct Bar(ProgressBar);

impl Progress for Bar {
    fn start(&self, total_bytes: u64) {
        self.0.set_length(total_bytes);
        if let Ok(style) = ProgressStyle::with_template(
            "counting {bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta} {msg}",
        ) {
            self.0.set_style(style);
        }
    }

    fn file(&self, path: &Path) {
        let name = path.file_name().unwrap_or_default();
        self.0.set_message(name.to_string_lossy().into_owned());
    }

    fn read(&self, bytes: u64) {
        self.0.inc(bytes);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}
