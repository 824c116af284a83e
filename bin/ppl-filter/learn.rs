//! `ppl-filter learn`: the combined method's classifier from pages and their gold text.

use std::process::ExitCode;

use anyhow::{bail, Context};
use ppl_filter::cli::filter::{GlobalArgs, LearnArgs};
use ppl_filter::learn::BoostOptions;
use ppl_filter::learn::{GoldFormat, LabelledPage, LearnOptions, TrainingSet};
use ppl_filter::pipeline::Options;

/// Fits the combined method's classifier to pages and their gold text, and writes it to
/// `--output`.
pub fn run(args: LearnArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let model = ppl_filter::lm::load_model(global.model.as_deref())?;
    let sets = training_sets(&args)?;
    let options = Options::reading_only();
    let mut pages = ppl_filter::learn::read_sets(&sets, args.gold_format, &options)?;
    let bytes = ppl_filter::learn::learn(&mut pages, model, &learn_options(&args, &sets))?;
    std::fs::write(&args.output, &bytes).with_context(|| args.output.display().to_string())?;
    if !global.quiet {
        eprintln!("{}", summary(&args, &sets, &pages, bytes.len()));
    }
    Ok(ExitCode::SUCCESS)
}

/// The sets: the positional pair, each --set (weighted by --set-weight in that order), then
/// the lines of each --sets file.
fn training_sets(args: &LearnArgs) -> anyhow::Result<Vec<TrainingSet>> {
    let mut sets: Vec<TrainingSet> = args
        .input_dir
        .iter()
        .zip(&args.gold_dir)
        .map(|(i, g)| (i.clone(), g.clone()))
        .chain(
            args.set
                .chunks(2)
                .map(|pair| (pair[0].clone(), pair[1].clone())),
        )
        .map(|(input_dir, gold_dir)| TrainingSet {
            input_dir,
            gold_dir,
            weight: 1.0,
        })
        .collect();
    if args.set_weight.len() > sets.len() {
        bail!(
            "{} --set-weight values for {} sets given on the command line (the sets of a --sets file take their weight from its third column)",
            args.set_weight.len(),
            sets.len()
        );
    }
    for (set, &weight) in sets.iter_mut().zip(&args.set_weight) {
        set.weight = weight;
    }
    for list in &args.sets {
        sets.extend(ppl_filter::learn::read_set_list(list)?);
    }
    if sets.is_empty() {
        bail!("no training set: give INPUT_DIR GOLD_DIR, --set or a non-empty --sets file");
    }
    Ok(sets)
}

/// The learner's settings from the flags, each set weighing its weight.
fn learn_options(args: &LearnArgs, sets: &[TrainingSet]) -> LearnOptions {
    LearnOptions {
        l2: args.l2,
        threshold: args.decision_threshold,
        smoothing: args.smoothing,
        min_count: args.min_count,
        min_unigram_count: args.min_unigram_count,
        learner: args.learner,
        boost: BoostOptions {
            trees: args.trees,
            depth: args.depth,
            learning_rate: args.learning_rate,
            threads: args
                .threads
                .unwrap_or_else(ppl_filter::pipeline::default_threads),
            ..Default::default()
        },
        set_balance: args.set_balance,
        set_weights: sets.iter().map(|s| s.weight).collect(),
    }
}

/// What was written, from how many pages of which sets.
fn summary(args: &LearnArgs, sets: &[TrainingSet], pages: &[LabelledPage], bytes: usize) -> String {
    let mut of_sets = String::new();
    if sets.len() > 1 {
        let parts: Vec<String> = sets
            .iter()
            .enumerate()
            .map(|(k, set)| {
                let of_set = || pages.iter().filter(|p| p.set == k);
                let plain = of_set()
                    .filter(|p| p.gold_format == GoldFormat::Plain)
                    .count();
                format!(
                    "{}: {} pages, {plain} with plain-text gold, weight {}",
                    set.input_dir.display(),
                    of_set().count(),
                    set.weight
                )
            })
            .collect();
        of_sets = format!(" of {} sets ({})", sets.len(), parts.join("; "));
    }
    format!(
        "ppl-filter: wrote {} ({bytes} bytes) from {} pages{of_sets}",
        args.output.display(),
        pages.len()
    )
}
