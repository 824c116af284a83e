//! Training: counts word n-grams in text files (plain or gzip), estimates an
//! interpolated modified Kneser–Ney model with count pruning, and writes the
//! binary model (see [`crate::lm::format`]).
//!
//! # Pipeline
//!
//! 1. **Read** each input line by line (`.gz` files through `MultiGzDecoder`;
//!    invalid UTF-8 is replaced). A line is a paragraph; with
//!    [`TrainOptions::split_sentences`] it is cut into sentences by
//!    [`split_sentences`], the splitter that cuts pages into the sentences
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

use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::lm::format::{DEFAULT_FINGERPRINT_BYTES, MAX_ORDER};
use crate::lm::tokenize::{fmix64, tokenize_with, TokenHasher, DEFAULT_HASH_SEED};
use crate::lm::write::{write_model, Entry, ModelSpec};
use crate::segment::split_sentences;

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

/// Whether [`train`] draws a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// No progress output.
    Hidden,
    /// A bar of input bytes read on stderr, only if stderr is a terminal.
    Stderr,
}

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
    /// Something else is wrong, said in words. `ppl-filter learn` reports a model it trained
    /// that does not load this way; nothing in training returns it.
    #[error("invalid training option: {0}")]
    InvalidOption(String),
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
    progress: Progress,
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

// ---------------------------------------------------------------------------
// Counting

/// Id of `<s>` in the vocabulary.
const BOS: u32 = 0;
/// Id of `</s>` in the vocabulary.
const EOS: u32 = 1;

/// Hasher for keys that are already hashes or small integer tuples (fixed, no random state).
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(buf));
        }
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(26) ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    #[inline]
    fn finish(&self) -> u64 {
        fmix64(self.0)
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<MixHasher>>;

/// An n-gram of vocabulary ids, left-aligned; unused slots are 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Gram([u32; MAX_ORDER]);

impl Hash for Gram {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(u64::from(self.0[0]) | u64::from(self.0[1]) << 32);
        state.write_u64(u64::from(self.0[2]) | u64::from(self.0[3]) << 32);
    }
}

impl Gram {
    fn from_ids(ids: &[u32]) -> Gram {
        let mut g = [0u32; MAX_ORDER];
        g[..ids.len()].copy_from_slice(ids);
        Gram(g)
    }
    /// The first n-1 ids of an n-gram.
    fn prefix(self, n: usize) -> Gram {
        let mut g = self.0;
        g[n - 1] = 0;
        Gram(g)
    }
    /// The last n-1 ids of an n-gram.
    fn suffix(self, n: usize) -> Gram {
        let mut g = [0u32; MAX_ORDER];
        g[..n - 1].copy_from_slice(&self.0[1..n]);
        Gram(g)
    }
}

/// Raw counts after reading the corpus.
struct Counts {
    /// Token hash of each id.
    hashes: Vec<u64>,
    /// Raw unigram count of each id.
    unigram: Vec<u64>,
    /// Raw counts per order 2..=N (index 0 = bigrams), sorted by gram.
    grams: Vec<Vec<(Gram, u32)>>,
}

/// Reader that advances a progress bar by the bytes it reads.
struct ProgressReader<R> {
    inner: R,
    bar: indicatif::ProgressBar,
}

impl<R: Read> Read for ProgressReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }
}

fn open_input(path: &Path, bar: &indicatif::ProgressBar) -> std::io::Result<Box<dyn BufRead>> {
    let file = File::open(path)?;
    let counted = ProgressReader {
        inner: file,
        bar: bar.clone(),
    };
    let gz = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    Ok(if gz {
        Box::new(BufReader::with_capacity(
            1 << 20,
            flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 16, counted)),
        ))
    } else {
        Box::new(BufReader::with_capacity(1 << 20, counted))
    })
}

struct Counter {
    order: usize,
    cap: usize,
    hasher: TokenHasher,
    ids: FastMap<u64, u32>,
    hashes: Vec<u64>,
    unigram: Vec<u64>,
    maps: Vec<FastMap<Gram, u32>>,
    lossy_prunings: Vec<u32>,
    sentence: Vec<u32>,
}

impl Counter {
    fn new(opts: &TrainOptions) -> Counter {
        let hasher = TokenHasher::new(opts.seed);
        let mut ids = FastMap::default();
        ids.insert(hasher.bos, BOS);
        ids.insert(hasher.eos, EOS);
        Counter {
            order: opts.order,
            cap: opts.max_ngrams_in_memory,
            hashes: vec![hasher.bos, hasher.eos],
            hasher,
            ids,
            unigram: vec![0, 0],
            maps: (2..=opts.order).map(|_| FastMap::default()).collect(),
            lossy_prunings: vec![0; opts.order],
            sentence: Vec::new(),
        }
    }

    /// Counts one sentence, and adds it and its tokens to `stats` unless it has none.
    fn add_sentence(&mut self, text: &str, stats: &mut TrainStats) {
        let tokens = self.count_sentence(text);
        if tokens > 0 {
            stats.sentences += 1;
            stats.tokens += tokens;
        }
    }

    /// Counts the n-grams of one sentence; returns its token count.
    fn count_sentence(&mut self, text: &str) -> u64 {
        let mut sentence = std::mem::take(&mut self.sentence);
        sentence.clear();
        sentence.push(BOS);
        let (ids, hashes, unigram) = (&mut self.ids, &mut self.hashes, &mut self.unigram);
        tokenize_with(&self.hasher, text, |token| {
            let next = hashes.len() as u32;
            let id = *ids.entry(token.hash).or_insert_with(|| {
                hashes.push(token.hash);
                unigram.push(0);
                next
            });
            sentence.push(id);
        });
        let tokens = sentence.len() as u64 - 1;
        if tokens == 0 {
            self.sentence = sentence;
            return 0;
        }
        sentence.push(EOS);
        self.unigram[BOS as usize] += 1;
        for i in 1..sentence.len() {
            self.unigram[sentence[i] as usize] += 1;
            for n in 2..=self.order.min(i + 1) {
                let gram = Gram::from_ids(&sentence[i + 1 - n..=i]);
                let map = &mut self.maps[n - 2];
                *map.entry(gram).or_insert(0) += 1;
                if map.len() > self.cap {
                    prune_lossy(map, self.cap);
                    self.lossy_prunings[n - 1] += 1;
                }
            }
        }
        self.sentence = sentence;
        tokens
    }
}

/// Drops low counts until the map holds at most 3/4 of `cap` entries.
fn prune_lossy(map: &mut FastMap<Gram, u32>, cap: usize) {
    let mut threshold = 1;
    loop {
        map.retain(|_, count| *count > threshold);
        if map.len() <= cap / 4 * 3 {
            break;
        }
        threshold += 1;
    }
}

fn count_inputs(
    inputs: &[PathBuf],
    opts: &TrainOptions,
    progress: Progress,
    stats: &mut TrainStats,
) -> Result<Counts, TrainError> {
    let total: u64 = inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let bar = if progress == Progress::Stderr && std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "counting {bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta} {msg}",
        ) {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut counter = Counter::new(opts);
    let mut line = Vec::new();
    let mut sentences = Vec::new();
    for path in inputs {
        let io_err = |source| TrainError::Io {
            path: path.clone(),
            source,
        };
        bar.set_message(
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        let mut reader = open_input(path, &bar).map_err(io_err)?;
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line).map_err(io_err)?;
            if n == 0 {
                break;
            }
            stats.lines += 1;
            let text = match std::str::from_utf8(&line) {
                Ok(s) => std::borrow::Cow::Borrowed(s),
                Err(_) => {
                    stats.invalid_utf8_lines += 1;
                    String::from_utf8_lossy(&line)
                }
            };
            if opts.split_sentences {
                sentences.clear();
                split_sentences(&text, &mut sentences);
                for sentence in &sentences {
                    counter.add_sentence(&text[sentence.range()], stats);
                }
            } else {
                counter.add_sentence(&text, stats);
            }
        }
    }
    stats.input_bytes = bar.position();
    bar.finish_and_clear();
    Ok(counter.into_counts(stats))
}

impl Counter {
    /// The finished counts, sorted, with the counting statistics filled in.
    fn into_counts(mut self, stats: &mut TrainStats) -> Counts {
        stats.vocabulary = self.hashes.len();
        stats.lossy_prunings = self.lossy_prunings.clone();
        stats.counted = vec![self.hashes.len()];
        let mut grams = Vec::with_capacity(self.maps.len());
        for map in std::mem::take(&mut self.maps) {
            stats.counted.push(map.len());
            let mut v: Vec<(Gram, u32)> = map.into_iter().collect();
            v.sort_unstable_by_key(|&(g, _)| g);
            grams.push(v);
        }
        Counts {
            hashes: self.hashes,
            unigram: self.unigram,
            grams,
        }
    }
}

// ---------------------------------------------------------------------------
// Estimation

/// Discounts D1, D2, D3+ for an order, from the count-of-counts t[0..4] = n1..n4
/// (modified KN, Chen & Goodman). Falls back to a single plain-KN discount
/// (or 0.5) where the formula leaves (0, k), as happens on tiny corpora.
fn discounts(t: [u64; 4]) -> [f64; 3] {
    let [n1, n2, n3, n4] = t.map(|x| x as f64);
    let y = n1 / (n1 + 2.0 * n2);
    let d = [
        1.0 - 2.0 * y * n2 / n1,
        2.0 - 3.0 * y * n3 / n2,
        3.0 - 4.0 * y * n4 / n3,
    ];
    let fallback = if y.is_finite() && y > 0.0 && y < 1.0 {
        y
    } else {
        0.5
    };
    let mut out = [0.0; 3];
    for k in 0..3 {
        out[k] = if d[k].is_finite() && d[k] > 0.0 && d[k] < (k + 1) as f64 {
            d[k]
        } else {
            fallback
        };
    }
    out
}

#[inline]
fn discount(d: &[f64; 3], adjusted: u32) -> f64 {
    match adjusted {
        0 => 0.0,
        1 => d[0],
        2 => d[1],
        _ => d[2],
    }
}

fn count_of_counts(adjusted: impl Iterator<Item = u32>) -> [u64; 4] {
    let mut t = [0u64; 4];
    for a in adjusted {
        if (1..=4).contains(&a) {
            t[a as usize - 1] += 1;
        }
    }
    t
}

/// A kept n-gram of order ≥ 2 with its log2 probability and log2 backoff.
#[derive(Clone, Copy, Debug)]
struct Estimate {
    gram: Gram,
    log2_prob: f64,
    log2_backoff: f64,
}

/// The estimated model over vocabulary ids.
struct Estimated {
    order: usize,
    hashes: Vec<u64>,
    /// Per id: Some((log2 P, log2 backoff)) if the word is kept.
    unigrams: Vec<Option<(f64, f64)>>,
    /// Orders 2..=N (index 0 = bigrams), sorted by gram.
    higher: Vec<Vec<Estimate>>,
    unk_log2: f64,
}

impl Estimated {
    /// log2 P(ids[n-1] | ids[..n-1]) as the model scores it (backoff over stored entries).
    fn score(&self, ids: &[u32]) -> f64 {
        let n = ids.len();
        let Some(&word) = ids.last() else {
            return self.unk_log2;
        };
        if n == 1 {
            return self
                .unigrams
                .get(word as usize)
                .copied()
                .flatten()
                .map_or(self.unk_log2, |(p, _)| p);
        }
        let table = &self.higher[n - 2];
        let gram = Gram::from_ids(ids);
        if let Ok(i) = table.binary_search_by_key(&gram, |e| e.gram) {
            return table[i].log2_prob;
        }
        self.backoff(&ids[..n - 1]) + self.score(&ids[1..])
    }

    /// log2 backoff weight of the context `ids` (0 if not stored).
    fn backoff(&self, ids: &[u32]) -> f64 {
        if ids.len() == 1 {
            return self
                .unigrams
                .get(ids[0] as usize)
                .copied()
                .flatten()
                .map_or(0.0, |(_, b)| b);
        }
        let table = &self.higher[ids.len() - 2];
        let gram = Gram::from_ids(ids);
        table
            .binary_search_by_key(&gram, |e| e.gram)
            .map_or(0.0, |i| table[i].log2_backoff)
    }
}

fn estimate(counts: Counts, opts: &TrainOptions, stats: &mut TrainStats) -> Estimated {
    let order = opts.order;
    let vocab = counts.hashes.len();
    let grams = counts.grams;

    // Adjusted counts, per order. Unigrams indexed by id; higher orders parallel to `grams`.
    let mut adjusted_uni: Vec<u32> = vec![0; vocab];
    if order == 1 {
        for (id, &c) in counts.unigram.iter().enumerate() {
            adjusted_uni[id] = c.min(u64::from(u32::MAX)) as u32;
        }
    } else {
        for &(g, _) in &grams[0] {
            adjusted_uni[g.0[1] as usize] += 1;
        }
    }
    adjusted_uni[BOS as usize] = 0;
    let mut adjusted: Vec<Vec<u32>> = Vec::with_capacity(grams.len());
    for n in 2..=order {
        let own = &grams[n - 2];
        if n == order {
            adjusted.push(own.iter().map(|&(_, c)| c).collect());
            continue;
        }
        // Continuation counts: how many distinct (x g) exist at order n+1.
        let mut suffixes: Vec<Gram> = grams[n - 1].iter().map(|&(g, _)| g.suffix(n + 1)).collect();
        suffixes.sort_unstable();
        let mut a = Vec::with_capacity(own.len());
        let mut j = 0;
        for &(g, raw) in own {
            while j < suffixes.len() && suffixes[j] < g {
                j += 1;
            }
            let start = j;
            while j < suffixes.len() && suffixes[j] == g {
                j += 1;
            }
            a.push(if g.0[0] == BOS {
                raw
            } else {
                (j - start) as u32
            });
        }
        adjusted.push(a);
    }

    // Discounts per order.
    let mut d: Vec<[f64; 3]> = Vec::with_capacity(order);
    d.push(discounts(count_of_counts(adjusted_uni.iter().copied())));
    for a in &adjusted {
        d.push(discounts(count_of_counts(a.iter().copied())));
    }
    stats.discounts = d.clone();

    // Pruning, top-down so that contexts of kept n-grams are kept.
    let mut keep: Vec<Vec<bool>> = grams
        .iter()
        .zip(&adjusted)
        .map(|(g, a)| {
            g.iter()
                .zip(a)
                .map(|(&(_, raw), &adj)| raw >= opts.min_count && adj > 0)
                .collect()
        })
        .collect();
    for n in (2..order).rev() {
        // Kept (n+1)-grams whose prefix is absent (possible only after lossy pruning) are dropped.
        let (lower, upper) = keep.split_at_mut(n - 1);
        let keep_n = &mut lower[n - 2];
        let keep_up = &mut upper[0];
        let (grams_n, grams_up) = (&grams[n - 2], &grams[n - 1]);
        let mut j = 0;
        for (i, &(g, _)) in grams_up.iter().enumerate() {
            if !keep_up[i] {
                continue;
            }
            let p = g.prefix(n + 1);
            while j < grams_n.len() && grams_n[j].0 < p {
                j += 1;
            }
            if j < grams_n.len() && grams_n[j].0 == p {
                keep_n[j] = true;
            } else {
                keep_up[i] = false;
            }
        }
    }
    let mut keep_uni: Vec<bool> = (0..vocab)
        .map(|id| {
            id != BOS as usize
                && adjusted_uni[id] > 0
                && counts.unigram[id] >= u64::from(opts.min_unigram_count)
        })
        .collect();
    if order >= 2 {
        keep_uni[BOS as usize] = true;
        for (i, &(g, _)) in grams[0].iter().enumerate() {
            if keep[0][i] {
                keep_uni[g.0[0] as usize] = true;
            }
        }
    }

    // Unigrams.
    let d1 = d[0];
    let total: f64 = adjusted_uni.iter().map(|&a| a as f64).sum();
    let mut left = 0.0;
    let mut kept_words = 0usize;
    for id in 0..vocab {
        if id == BOS as usize {
            continue;
        }
        let a = adjusted_uni[id];
        if keep_uni[id] {
            kept_words += 1;
            left += discount(&d1, a);
        } else {
            left += a as f64;
        }
    }
    let gamma = if total > 0.0 { left / total } else { 1.0 };
    let uniform = gamma / (kept_words + 1) as f64;
    let unk_log2 = uniform.log2();
    let mut unigrams: Vec<Option<(f64, f64)>> = vec![None; vocab];
    for id in 0..vocab {
        if keep_uni[id] {
            let a = adjusted_uni[id];
            let p = if id == BOS as usize {
                uniform
            } else {
                (a as f64 - discount(&d1, a)) / total.max(1.0) + uniform
            };
            unigrams[id] = Some((p.log2(), 0.0));
        }
    }
    let mut est = Estimated {
        order,
        hashes: counts.hashes,
        unigrams,
        higher: Vec::new(),
        unk_log2,
    };

    // Higher orders, bottom-up: probabilities use the finished lower orders;
    // each context's gamma becomes the backoff of its lower-order entry.
    for n in 2..=order {
        let g_n = &grams[n - 2];
        let a_n = &adjusted[n - 2];
        let keep_n = &keep[n - 2];
        let dn = d[n - 1];
        let mut kept: Vec<Estimate> = Vec::new();
        let mut backoffs: Vec<(Gram, f64)> = Vec::new();
        let mut start = 0;
        while start < g_n.len() {
            let context = g_n[start].0.prefix(n);
            let mut end = start;
            let (mut sum, mut left) = (0.0, 0.0);
            while end < g_n.len() && g_n[end].0.prefix(n) == context {
                let a = a_n[end];
                sum += a as f64;
                left += if keep_n[end] {
                    discount(&dn, a)
                } else {
                    a as f64
                };
                end += 1;
            }
            if sum > 0.0 {
                let gamma = left / sum;
                for i in start..end {
                    if !keep_n[i] {
                        continue;
                    }
                    let g = g_n[i].0;
                    let lower = est.score(&g.0[1..n]).exp2();
                    let p = (a_n[i] as f64 - discount(&dn, a_n[i])) / sum + gamma * lower;
                    kept.push(Estimate {
                        gram: g,
                        log2_prob: p.log2(),
                        log2_backoff: 0.0,
                    });
                }
                backoffs.push((context, gamma.log2()));
            }
            start = end;
        }
        // Attach backoffs to the (already estimated) order n-1 entries.
        if n == 2 {
            for (context, b) in backoffs {
                if let Some(Some(entry)) = est.unigrams.get_mut(context.0[0] as usize) {
                    entry.1 = b;
                }
            }
        } else {
            let lower = &mut est.higher[n - 3];
            let mut j = 0;
            for (context, b) in backoffs {
                while j < lower.len() && lower[j].gram < context {
                    j += 1;
                }
                if j < lower.len() && lower[j].gram == context {
                    lower[j].log2_backoff = b;
                }
            }
        }
        est.higher.push(kept);
    }
    stats.unk_log2 = unk_log2;
    est
}

/// Builds the file contents: hash keys for every kept n-gram.
fn to_model_spec(est: &Estimated, opts: &TrainOptions, provenance: String) -> ModelSpec {
    let hasher = TokenHasher::new(opts.seed);
    let key_of = |ids: &[u32]| -> u64 {
        let mut key = est.hashes[ids[0] as usize];
        for &id in &ids[1..] {
            key = hasher.combine(key, est.hashes[id as usize]);
        }
        key
    };
    let mut tables = Vec::with_capacity(est.order);
    let unigrams: Vec<Entry> = est
        .unigrams
        .iter()
        .enumerate()
        .filter_map(|(id, v)| {
            v.map(|(log2_prob, log2_backoff)| Entry {
                key: est.hashes[id],
                log2_prob,
                log2_backoff,
            })
        })
        .collect();
    tables.push(unigrams);
    for (i, table) in est.higher.iter().enumerate() {
        let n = i + 2;
        tables.push(
            table
                .iter()
                .map(|e| Entry {
                    key: key_of(&e.gram.0[..n]),
                    log2_prob: e.log2_prob,
                    log2_backoff: e.log2_backoff,
                })
                .collect(),
        );
    }
    ModelSpec {
        seed: opts.seed,
        unk_log2: est.unk_log2,
        credit: opts.credit.clone(),
        provenance,
        tables,
        fingerprint_bytes: opts.fingerprint_bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lm::model::LanguageModel;

    const CORPUS: &str = "The cat sat on the mat. The dog sat on the log.\n\
        A cat and a dog met on the mat! The cat ran away.\n\
        The dog sat down. The cat sat down. The mat was red.\n\
        Dogs and cats are pets. The log was old. A dog is a pet.\n";

    fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ppl-lm-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(name);
        std::fs::write(&path, contents).expect("write temp file");
        path
    }

    fn opts(order: usize, min_count: u32) -> TrainOptions {
        TrainOptions {
            order,
            min_count,
            credit: "test".into(),
            ..TrainOptions::default()
        }
    }

    fn estimated(order: usize, min_count: u32, text: &str) -> Estimated {
        let path = temp_file(&format!("est-{order}-{min_count}.txt"), text.as_bytes());
        let o = opts(order, min_count);
        let mut stats = TrainStats::default();
        let counts = count_inputs(&[path], &o, Progress::Hidden, &mut stats).expect("count");
        estimate(counts, &o, &mut stats)
    }

    /// Σ_w P(w | context) over the vocabulary (without <s>) plus <unk> must be 1.
    fn assert_normalised(est: &Estimated, context: &[u32]) {
        let mut ids = context.to_vec();
        ids.push(0);
        let mut total = 0.0;
        for w in 1..est.hashes.len() as u32 {
            *ids.last_mut().expect("non-empty") = w;
            // Words outside the vocabulary are scored as <unk>; count <unk> once below.
            if est.unigrams[w as usize].is_some() {
                total += est.score(&ids).exp2();
            }
        }
        let unk = est.backoff_chain(context) + est.unk_log2;
        total += unk.exp2();
        assert!(
            (total - 1.0).abs() < 1e-9,
            "context {context:?}: sum {total}"
        );
    }

    impl Estimated {
        /// Sum of backoffs from `context` down to the empty context (score of <unk>).
        fn backoff_chain(&self, context: &[u32]) -> f64 {
            (0..context.len())
                .map(|s| self.backoff(&context[s..]))
                .sum()
        }
    }

    #[test]
    fn distributions_sum_to_one() {
        for (order, min_count) in [(1, 1), (2, 1), (2, 2), (3, 1), (3, 2)] {
            let est = estimated(order, min_count, CORPUS);
            assert_normalised(&est, &[]);
            if order >= 2 {
                for ctx in 0..est.hashes.len() as u32 {
                    if ctx != EOS {
                        assert_normalised(&est, &[ctx]);
                    }
                }
            }
            if order >= 3 {
                for e in &est.higher[0] {
                    if e.gram.0[1] != EOS {
                        assert_normalised(&est, &e.gram.0[..2]);
                    }
                }
            }
        }
    }

    #[test]
    fn unigrams_use_continuation_counts() {
        // "francisco" is frequent but only ever follows "san"; "the" is rarer
        // but follows many words: Kneser-Ney must rank "the" above "francisco".
        let mut text = "San Francisco\n".repeat(10);
        for w in ["one", "two", "three", "four", "five"] {
            text.push_str(&format!("{w} the\n"));
        }
        let path = temp_file("kn.txt", text.as_bytes());
        let o = opts(2, 1);
        let mut stats = TrainStats::default();
        let counts = count_inputs(&[path], &o, Progress::Hidden, &mut stats).expect("count");
        let h = TokenHasher::standard();
        let id_of = |w: &str| {
            counts
                .hashes
                .iter()
                .position(|&x| x == h.hash_str(w))
                .expect("in vocabulary") as u32
        };
        let (francisco, the, san) = (id_of("francisco"), id_of("the"), id_of("san"));
        assert!(counts.unigram[francisco as usize] > counts.unigram[the as usize]);
        let est = estimate(counts, &o, &mut stats);
        assert!(est.score(&[the]) > est.score(&[francisco]));
        // But after "san", "francisco" is near certain.
        assert!(est.score(&[san, francisco]) > -0.5);
    }

    #[test]
    fn trained_model_scores_sensibly() {
        let path = temp_file("corpus.txt", CORPUS.as_bytes());
        let trained = train(&[path], &opts(2, 1), Progress::Hidden).expect("train");
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
        let a = train(std::slice::from_ref(&plain), &o, Progress::Hidden)
            .expect("train")
            .bytes;
        let b = train(&[plain], &o, Progress::Hidden).expect("train").bytes;
        let c = train(&[gz], &o, Progress::Hidden).expect("train").bytes;
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
        let trained = train(&[path], &o, Progress::Hidden).expect("train");
        assert!(trained.stats.lossy_prunings.iter().any(|&p| p > 0));
        let model = LanguageModel::from_bytes(trained.bytes).expect("load");
        assert!(model.perplexity("The cat sat.").is_finite());
    }

    #[test]
    fn bad_options_and_missing_files() {
        let err = train(&[], &opts(9, 1), Progress::Hidden).unwrap_err();
        assert!(matches!(err, TrainError::BadOrder { order: 9 }));
        assert_eq!(
            err.to_string(),
            "invalid training option: order must be 1..=4, not 9"
        );
        let err = train(&[], &opts(2, 0), Progress::Hidden).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid training option: minimum counts must be at least 1"
        );
        let few = TrainOptions {
            max_ngrams_in_memory: 999,
            ..opts(2, 1)
        };
        let err = train(&[], &few, Progress::Hidden).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid training option: max_ngrams_in_memory must be at least 1000"
        );
        let err = train(
            &[PathBuf::from("/nonexistent/x.txt")],
            &opts(2, 1),
            Progress::Hidden,
        )
        .unwrap_err();
        assert!(matches!(err, TrainError::Io { .. }));
        let empty = temp_file("empty.txt", b"\n\n");
        assert!(matches!(
            train(&[empty], &opts(2, 1), Progress::Hidden),
            Err(TrainError::EmptyCorpus)
        ));
    }

    #[test]
    fn discount_formula() {
        let d = discounts([100, 40, 20, 10]);
        assert!(
            d.iter()
                .enumerate()
                .all(|(k, &x)| x > 0.0 && x < (k + 1) as f64),
            "{d:?}"
        );
        assert_eq!(discounts([0, 0, 0, 0]), [0.5, 0.5, 0.5]);
    }
}
