//! Training: counts word n-grams in text files (plain or gzip), estimates an
//! interpolated modified Kneser–Ney model with count pruning, and writes the
//! binary model (see [`crate::lm::format`]).
//!
//! This file holds the options, statistics and entry points ([`train`],
//! [`train_sentences`]); counting (steps 1–3 below) is `train/count.rs`,
//! estimation (steps 4–5) `train/estimate.rs`.
//!
//! # Pipeline
//!
//! 1. **Read** each input line by line (`.gz` files through `MultiGzDecoder`;
//!    invalid UTF-8 is replaced). A line is a paragraph; with
//!    [`TrainOptions::split_sentences`] it is cut into sentences by
//!    `crate::segment::split_sentences`, the splitter that cuts pages into the sentences
//!    the model scores, so the model is trained on sentences like those it
//!    scores; otherwise each line is one sentence.
//! 2. **Count**: tokens are hashed by the tokenizer and mapped to dense
//!    `u32` ids in first-seen order (deterministic for a given input order).
//!    Each sentence is `<s> w1 … wk </s>`; every n-gram of orders 2..=N that
//!    ends on a predicted token is counted in one hash map per order
//!    (unigram counts live in the vocabulary). N-grams at the sentence start
//!    are shorter (`<s> w1` is a bigram even in a trigram model), as in KenLM.
//! 3. **Bounded memory**: if an order's map grows past
//!    [`TrainOptions::max_ngrams_in_memory`], it is pruned lossy-counting
//!    style: entries with count ≤ t are dropped for t = 1, 2, … until at most
//!    3/4 of the cap remain. Counts of n-grams that survive are then lower
//!    bounds (by at most the thresholds used), rare n-grams are forgotten,
//!    and the continuation counts below are computed from what survived. The
//!    number of such prunings is reported; with the default cap the English
//!    corpus is counted exactly. The vocabulary map is not capped (it grows
//!    with the number of distinct tokens: 0.4 M for the 44 M-token English corpus).
//! 4. **Estimate** (as KenLM `lmplz` does): adjusted counts are raw counts
//!    for the highest order and for n-grams starting with `<s>`, and
//!    continuation counts N1+(· g) (the number of distinct words seen before
//!    g) otherwise. Discounts D1, D2, D3+ per order come from the
//!    count-of-counts of the adjusted counts (Chen & Goodman); pruning
//!    happens after that, so discounts and continuation counts use all
//!    counted n-grams. N-grams of order ≥ 2 with raw count < `min_count` are
//!    pruned unless they are the context of a kept longer n-gram; unigrams
//!    with raw count < `min_unigram_count` likewise. For a context h with
//!    total adjusted count S(h):
//!    `P(w|h) = (a(hw) − D(a(hw)))/S(h) + γ(h)·P(w|h')` for kept hw, where
//!    `γ(h) = (Σ_kept D(a) + Σ_pruned a)/S(h)` — the mass of pruned n-grams
//!    goes to the backoff, so each conditional distribution still sums to 1 —
//!    and `P(w|h')` is the lower order as the model will score it (stored or
//!    backed off). The backoff weight of h is γ(h). Unigrams interpolate with
//!    a uniform distribution over the kept vocabulary plus `<unk>`:
//!    `P(w) = (a(w) − D(a(w)))/S + γ/|V|`, `P(<unk>) = γ/|V|`.
//! 5. **Write**: n-grams are keyed by the hash of their tokens and written
//!    in sorted order, so the output bytes depend only on the inputs (and
//!    their order) and the options.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::lm::format::{DEFAULT_FINGERPRINT_BYTES, MAX_ORDER};
use crate::lm::tokenize::DEFAULT_HASH_SEED;
use crate::lm::write::write_model;

use count::{count_inputs, Counter, Counts};
use estimate::{estimate, to_model_spec};

mod count;
mod estimate;

/// Options for [`train`].
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// n-gram order N (1..=4; 2 and 3 are the intended ones).
    pub order: usize,
    /// n-grams of order ≥ 2 seen fewer times are pruned (1 keeps all).
    pub min_count: u32,
    /// Words seen fewer times are left out of the vocabulary and scored as `<unk>` (1 keeps all).
    pub min_unigram_count: u32,
    /// Cap on distinct n-grams held per order while counting (lossy pruning
    /// beyond it). A counted n-gram costs 21 bytes per hash-map slot, and the
    /// map's slots grow in powers of two: the default 60 M means at most
    /// 2.8 GB per order (the English corpus needs 6.5 M bigrams, 20 M trigrams).
    pub max_ngrams_in_memory: usize,
    /// Split each input line into sentences (otherwise a line is one sentence).
    pub split_sentences: bool,
    /// Token hash seed written to the model.
    pub seed: u64,
    /// Credit / licence text of the training data, stored in the model header.
    pub credit: String,
    /// Bytes of each stored n-gram fingerprint: 2 (smaller, the default) or 4.
    pub fingerprint_bytes: u8,
}

impl Default for TrainOptions {
    fn default() -> TrainOptions {
        TrainOptions {
            order: 2,
            min_count: 2,
            min_unigram_count: 1,
            max_ngrams_in_memory: 60_000_000,
            split_sentences: true,
            seed: DEFAULT_HASH_SEED,
            credit: String::new(),
            fingerprint_bytes: DEFAULT_FINGERPRINT_BYTES,
        }
    }
}

/// What [`train`] tells of its progress while it counts its inputs, for a progress bar (the
/// command line draws one). Every method does nothing unless overridden; `()` shows nothing.
pub trait Progress {
    /// Counting starts, over input files of `total_bytes` bytes on disk.
    fn start(&self, _total_bytes: u64) {}
    /// Counting moves on to the file `path`.
    fn file(&self, _path: &Path) {}
    /// `bytes` more bytes of the input files were read (as stored: compressed for `.gz`).
    fn read(&self, _bytes: u64) {}
    /// Counting is over.
    fn finish(&self) {}
}

impl Progress for () {}

/// Why training failed.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// An input could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The input file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The n-gram order is outside 1..=[`MAX_ORDER`].
    #[error(
        "invalid training option: order must be 1..={}, not {order}",
        MAX_ORDER
    )]
    BadOrder {
        /// The order asked for.
        order: usize,
    },
    /// [`TrainOptions::min_count`] or [`TrainOptions::min_unigram_count`] is 0.
    #[error("invalid training option: minimum counts must be at least 1")]
    ZeroMinCount,
    /// [`TrainOptions::max_ngrams_in_memory`] is below [`MIN_NGRAMS_IN_MEMORY`].
    #[error(
        "invalid training option: max_ngrams_in_memory must be at least {}",
        MIN_NGRAMS_IN_MEMORY
    )]
    TooFewNgramsInMemory {
        /// The cap asked for.
        max_ngrams_in_memory: usize,
    },
    /// The inputs hold no tokens.
    #[error("the training inputs contain no text")]
    EmptyCorpus,
}

/// Numbers describing a training run.
#[derive(Clone, Debug, Default)]
pub struct TrainStats {
    /// Input bytes read (compressed size for `.gz`).
    pub input_bytes: u64,
    /// Lines read.
    pub lines: u64,
    /// Sentences counted.
    pub sentences: u64,
    /// Tokens counted (without `<s>`/`</s>`).
    pub tokens: u64,
    /// Lines that were not valid UTF-8 (decoded lossily).
    pub invalid_utf8_lines: u64,
    /// Distinct tokens seen (plus `<s>`, `</s>`).
    pub vocabulary: usize,
    /// Distinct n-grams counted per order (index 0 = unigrams).
    pub counted: Vec<usize>,
    /// Lossy prunings of the counting maps per order.
    pub lossy_prunings: Vec<u32>,
    /// Discounts (D1, D2, D3+) per order.
    pub discounts: Vec<[f64; 3]>,
    /// Entries written per order.
    pub entries: Vec<usize>,
    /// Entries lost to bucket+fingerprint collisions per order.
    pub fingerprint_collisions: Vec<usize>,
    /// Bytes per order's table in the file.
    pub table_bytes: Vec<usize>,
    /// Mean absolute log2 quantisation error per order.
    pub mean_quantisation_error: Vec<f64>,
    /// log2 P(`<unk>`).
    pub unk_log2: f64,
    /// Model file size in bytes.
    pub model_bytes: usize,
    /// Time spent reading and counting.
    pub counting_time: Duration,
    /// Time spent estimating and writing.
    pub estimation_time: Duration,
}

impl std::fmt::Display for TrainStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "read {} lines, {} sentences, {} tokens ({} input bytes; {} lines with invalid UTF-8)",
            self.lines, self.sentences, self.tokens, self.input_bytes, self.invalid_utf8_lines
        )?;
        writeln!(
            f,
            "vocabulary {} types; log2 P(<unk>) = {:.2}",
            self.vocabulary, self.unk_log2
        )?;
        for n in 0..self.entries.len() {
            writeln!(
                f,
                "order {}: counted {}, kept {}, {} bytes, D = {:.3}/{:.3}/{:.3}, quantisation error {:.4} bits, {} fingerprint collisions, {} lossy prunings",
                n + 1,
                self.counted.get(n).copied().unwrap_or(0),
                self.entries[n],
                self.table_bytes.get(n).copied().unwrap_or(0),
                self.discounts.get(n).map_or(0.0, |d| d[0]),
                self.discounts.get(n).map_or(0.0, |d| d[1]),
                self.discounts.get(n).map_or(0.0, |d| d[2]),
                self.mean_quantisation_error.get(n).copied().unwrap_or(0.0),
                self.fingerprint_collisions.get(n).copied().unwrap_or(0),
                self.lossy_prunings.get(n).copied().unwrap_or(0),
            )?;
        }
        write!(
            f,
            "model {} bytes; counting {:.1} s, estimation {:.1} s",
            self.model_bytes,
            self.counting_time.as_secs_f64(),
            self.estimation_time.as_secs_f64()
        )
    }
}

/// A trained model: the file bytes and statistics.
#[derive(Clone, Debug)]
pub struct TrainedModel {
    /// The model file (load with [`crate::lm::LanguageModel::from_bytes`] or write to disk).
    pub bytes: Vec<u8>,
    /// What happened.
    pub stats: TrainStats,
}

/// Trains a model on `inputs` (plain text or `.gz`, one paragraph per line).
pub fn train(
    inputs: &[PathBuf],
    opts: &TrainOptions,
    progress: &dyn Progress,
) -> Result<TrainedModel, TrainError> {
    check_options(opts)?;
    let started = Instant::now();
    let mut stats = TrainStats::default();
    let counts = count_inputs(inputs, opts, progress, &mut stats)?;
    stats.counting_time = started.elapsed();
    let provenance = |stats: &TrainStats| provenance_text(inputs, opts, stats);
    finish_training(counts, opts, stats, provenance)
}

/// Trains a model on sentences held in memory (each one is a sentence; no splitting), as
/// `ppl-filter learn` does for its boilerplate model. `source` names them in the provenance.
pub fn train_sentences<'a>(
    sentences: impl IntoIterator<Item = &'a str>,
    source: &str,
    opts: &TrainOptions,
) -> Result<TrainedModel, TrainError> {
    check_options(opts)?;
    let started = Instant::now();
    let mut stats = TrainStats::default();
    let mut counter = Counter::new(opts);
    for sentence in sentences {
        stats.input_bytes += sentence.len() as u64;
        stats.lines += 1;
        counter.add_sentence(sentence, &mut stats);
    }
    let counts = counter.into_counts(&mut stats);
    stats.counting_time = started.elapsed();
    let provenance = |stats: &TrainStats| {
        format!(
            "ppl-filter learn: interpolated modified Kneser-Ney, order {}, min_count {}; {source}; {} sentences, {} tokens",
            opts.order, opts.min_count, stats.sentences, stats.tokens
        )
    };
    finish_training(counts, opts, stats, provenance)
}

/// The smallest [`TrainOptions::max_ngrams_in_memory`] accepted.
pub const MIN_NGRAMS_IN_MEMORY: usize = 1000;

fn check_options(opts: &TrainOptions) -> Result<(), TrainError> {
    if !(1..=MAX_ORDER).contains(&opts.order) {
        return Err(TrainError::BadOrder { order: opts.order });
    }
    if opts.min_count == 0 || opts.min_unigram_count == 0 {
        return Err(TrainError::ZeroMinCount);
    }
    if opts.max_ngrams_in_memory < MIN_NGRAMS_IN_MEMORY {
        return Err(TrainError::TooFewNgramsInMemory {
            max_ngrams_in_memory: opts.max_ngrams_in_memory,
        });
    }
    Ok(())
}

/// Estimates and writes the model from finished counts.
fn finish_training(
    counts: Counts,
    opts: &TrainOptions,
    mut stats: TrainStats,
    provenance: impl FnOnce(&TrainStats) -> String,
) -> Result<TrainedModel, TrainError> {
    if stats.tokens == 0 {
        return Err(TrainError::EmptyCorpus);
    }
    let estimating = Instant::now();
    let estimated = estimate(counts, opts, &mut stats);
    let spec = to_model_spec(&estimated, opts, provenance(&stats));
    let (bytes, write_stats) = write_model(&spec);
    stats.entries = write_stats.entries;
    stats.fingerprint_collisions = write_stats.fingerprint_collisions;
    stats.table_bytes = write_stats.table_bytes;
    stats.mean_quantisation_error = write_stats.mean_quantisation_error;
    stats.model_bytes = bytes.len();
    stats.estimation_time = estimating.elapsed();
    Ok(TrainedModel { bytes, stats })
}

fn provenance_text(inputs: &[PathBuf], opts: &TrainOptions, stats: &TrainStats) -> String {
    let names: Vec<String> = inputs
        .iter()
        .map(|p| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    format!(
        "ppl-filter train: interpolated modified Kneser-Ney, order {}, min_count {}, min_unigram_count {}, sentence splitting {}; inputs {}; {} sentences, {} tokens",
        opts.order,
        opts.min_count,
        opts.min_unigram_count,
        if opts.split_sentences { "on" } else { "off" },
        names.join(" "),
        stats.sentences,
        stats.tokens
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lm::model::LanguageModel;

    pub(super) const CORPUS: &str = "The cat sat on the mat. The dog sat on the log.\n\
        A cat and a dog met on the mat! The cat ran away.\n\
        The dog sat down. The cat sat down. The mat was red.\n\
        Dogs and cats are pets. The log was old. A dog is a pet.\n";

    pub(super) fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ppl-lm-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(name);
        std::fs::write(&path, contents).expect("write temp file");
        path
    }

    pub(super) fn opts(order: usize, min_count: u32) -> TrainOptions {
        TrainOptions {
            order,
            min_count,
            credit: "test".into(),
            ..TrainOptions::default()
        }
    }

    #[test]
    fn trained_model_scores_sensibly() {
        let path = temp_file("corpus.txt", CORPUS.as_bytes());
        let trained = train(&[path], &opts(2, 1), &()).expect("train");
        let model = LanguageModel::from_bytes(trained.bytes).expect("load");
        assert_eq!(model.order(), 2);
        assert_eq!(model.credit(), "test");
        let good = model.perplexity("The cat sat on the mat.");
        let bad = model.perplexity("mat the on sat cat The.");
        let unknown = model.perplexity("Zebras quantum fiddle.");
        assert!(good < bad, "{good} vs {bad}");
        assert!(good < unknown, "{good} vs {unknown}");
        assert!(model.unknown_log2_prob() < -3.0);
    }

    #[test]
    fn output_is_deterministic_and_gz_equals_plain() {
        use std::io::Write;
        let plain = temp_file("det.txt", CORPUS.as_bytes());
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(CORPUS.as_bytes()).expect("gz");
        let gz = temp_file("det.txt.gz", &enc.finish().expect("gz"));
        let o = opts(3, 1);
        let a = train(std::slice::from_ref(&plain), &o, &())
            .expect("train")
            .bytes;
        let b = train(&[plain], &o, &()).expect("train").bytes;
        let c = train(&[gz], &o, &()).expect("train").bytes;
        assert_eq!(a, b);
        // Same text, different file name in the provenance: compare scores instead.
        let (ma, mc) = (
            LanguageModel::from_bytes(a).expect("a"),
            LanguageModel::from_bytes(c).expect("c"),
        );
        assert_eq!(ma.counts(), mc.counts());
        assert_eq!(ma.log2_prob("The cat sat."), mc.log2_prob("The cat sat."));
    }

    #[test]
    fn lossy_counting_still_yields_a_valid_model() {
        let mut text = String::new();
        for i in 0..3000 {
            text.push_str(&format!(
                "word{i} follows word{} here. The cat sat.\n",
                i * 7 % 1000
            ));
        }
        let path = temp_file("lossy.txt", text.as_bytes());
        let o = TrainOptions {
            max_ngrams_in_memory: 1000,
            order: 3,
            min_count: 1,
            ..TrainOptions::default()
        };
        let trained = train(&[path], &o, &()).expect("train");
        assert!(trained.stats.lossy_prunings.iter().any(|&p| p > 0));
        let model = LanguageModel::from_bytes(trained.bytes).expect("load");
        assert!(model.perplexity("The cat sat.").is_finite());
    }

    #[test]
    fn bad_options_and_missing_files() {
        let err = train(&[], &opts(9, 1), &()).unwrap_err();
        assert!(matches!(err, TrainError::BadOrder { order: 9 }));
        assert_eq!(
            err.to_string(),
            "invalid training option: order must be 1..=4, not 9"
        );
        let err = train(&[], &opts(2, 0), &()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid training option: minimum counts must be at least 1"
        );
        let few = TrainOptions {
            max_ngrams_in_memory: 999,
            ..opts(2, 1)
        };
        let err = train(&[], &few, &()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid training option: max_ngrams_in_memory must be at least 1000"
        );
        let err = train(&[PathBuf::from("/nonexistent/x.txt")], &opts(2, 1), &()).unwrap_err();
        assert!(matches!(err, TrainError::Io { .. }));
        let empty = temp_file("empty.txt", b"\n\n");
        assert!(matches!(
            train(&[empty], &opts(2, 1), &()),
            Err(TrainError::EmptyCorpus)
        ));
    }
}
