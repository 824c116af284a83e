//! A loaded language model, [`LanguageModel`]: sentence scoring (log2 probability,
//! perplexity) over a model file's bytes, read in place; and the embedded English model,
//! [`embedded()`]. The file format and its validation are [`super::format`], lookups in one
//! order's table `super::table`, writing [`super::write`]; the items most callers need
//! from those are re-exported here.
//!
//! Scoring speed: a lookup may miss the cache in a table of many megabytes, and in its
//! bucket offsets; and whether an n-gram is stored is a coin toss no branch predictor learns.
//! [`LanguageModel::log2_prob`] therefore buffers up to `SCORE_CHUNK` token hashes on the
//! stack and scores them in passes: all their n-gram keys (prefetching the buckets'
//! offsets), then all their buckets (prefetching the records), then the scores, so the
//! misses of one word's lookups overlap the others'; and a lookup searches its bucket without
//! branches on the data (`super::table`).
//! The prefetch hint (`_mm_prefetch`, x86-64 only, in `super::table`) is the
//! language model's only `unsafe`; it cannot change results.

use std::fmt::Write as _;
use std::fs::File;
use std::path::Path;
use std::sync::OnceLock;

use crate::lm::format::{parse, Layout, MAX_ORDER};
use crate::lm::table::{Bucket, Table};
use crate::lm::tokenize::{tokenize_with, Token, TokenHasher, TokenKind};

pub(crate) use crate::lm::format::read_model;
pub use crate::lm::format::ModelError;
pub use crate::lm::write::narrow_fingerprints;

/// Tokens buffered and scored together by [`LanguageModel::log2_prob`]: most sentences at
/// once; more would lengthen the buffer that is cleared for every sentence.
const SCORE_CHUNK: usize = 16;

/// Where the model bytes live. A model file is read into memory, not mapped: a mapped file
/// truncated by another process while in use would kill this one with SIGBUS.
enum Storage {
    Static(&'static [u8]),
    Owned(Vec<u8>),
}

impl Storage {
    #[inline]
    fn bytes(&self) -> &[u8] {
        match self {
            Storage::Static(b) => b,
            Storage::Owned(v) => v,
        }
    }
}

/// A loaded n-gram language model (backoff form, hashed keys, quantised values).
pub struct LanguageModel {
    storage: Storage,
    hasher: TokenHasher,
    /// Where everything lies in the bytes, as validation found it.
    layout: Layout,
}

impl std::fmt::Debug for LanguageModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LanguageModel")
            .field("order", &self.layout.order)
            .field("counts", &self.counts())
            .field("bytes", &self.bytes().len())
            .finish()
    }
}

/// Result of looking a key up in a table, cached between scoring steps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lookup {
    NotDone,
    Absent,
    Found(usize),
}

/// The n-grams that end in one word: their keys (index j = order j+1), their buckets in the
/// order-(j+1) tables once read, and how many orders there are (`len`, at most the model's).
#[derive(Clone, Copy, Default)]
struct Ngrams {
    keys: [u64; MAX_ORDER],
    buckets: [Bucket; MAX_ORDER],
    len: usize,
}

/// Scoring state: the n-grams of the last word (the next word's context) and, where already
/// done, their lookups.
struct History {
    last: Ngrams,
    lookups: [Lookup; MAX_ORDER],
}

impl LanguageModel {
    fn from_storage(storage: Storage) -> Result<LanguageModel, ModelError> {
        let layout = parse(storage.bytes())?;
        Ok(LanguageModel {
            hasher: TokenHasher::new(layout.seed),
            storage,
            layout,
        })
    }

    /// Reads the model file at `path` into memory and validates it. Memory grows with the
    /// bytes read, never with a recorded length, so a damaged length or an endless file (a
    /// device, a pipe) cannot exhaust it. Changing the file afterwards cannot affect the model.
    pub fn open(path: &Path) -> Result<LanguageModel, ModelError> {
        let mut file = File::open(path)?;
        let metadata = file.metadata()?;
        let size = metadata.is_file().then_some(metadata.len());
        LanguageModel::from_bytes(read_model(&mut file, size)?)
    }

    /// Validates and wraps model bytes held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<LanguageModel, ModelError> {
        LanguageModel::from_storage(Storage::Owned(bytes))
    }

    /// Validates and wraps model bytes with static lifetime (e.g. `include_bytes!`).
    pub fn from_static(bytes: &'static [u8]) -> Result<LanguageModel, ModelError> {
        LanguageModel::from_storage(Storage::Static(bytes))
    }

    #[inline]
    fn bytes(&self) -> &[u8] {
        self.storage.bytes()
    }

    /// The n-gram order N.
    pub fn order(&self) -> usize {
        self.layout.order
    }

    /// Number of stored n-grams for orders 1..=N (index 0 = unigrams, including `<s>`).
    pub fn counts(&self) -> Vec<usize> {
        self.layout.tables.iter().map(|t| t.entries).collect()
    }

    /// Total number of stored n-grams over all orders.
    pub fn len(&self) -> usize {
        self.layout.tables.iter().map(|t| t.entries).sum()
    }

    /// True if the model stores no n-grams at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size of the model file in bytes.
    pub fn size_bytes(&self) -> usize {
        self.bytes().len()
    }

    /// Credit / licence text of the training data.
    pub fn credit(&self) -> &str {
        std::str::from_utf8(&self.bytes()[self.layout.credit.clone()]).unwrap_or("")
    }

    /// How the model was trained (options, inputs).
    pub fn provenance(&self) -> &str {
        std::str::from_utf8(&self.bytes()[self.layout.provenance.clone()]).unwrap_or("")
    }

    /// log2 probability given to a word that is not in the vocabulary.
    pub fn unknown_log2_prob(&self) -> f64 {
        self.layout.unk_log2
    }

    /// Token hasher with this model's seed.
    pub fn hasher(&self) -> &TokenHasher {
        &self.hasher
    }

    fn new_history(&self) -> History {
        let mut last = Ngrams {
            len: 1,
            ..Ngrams::default()
        };
        last.keys[0] = self.hasher.bos;
        last.buckets[0] = self.layout.tables[0].bucket(self.bytes(), last.keys[0]);
        History {
            last,
            lookups: [Lookup::NotDone; MAX_ORDER],
        }
    }

    /// Scores one word.
    fn score_next(&self, bytes: &[u8], hist: &mut History, word: u64) -> f64 {
        self.score_chunk(bytes, hist, &[word])
    }

    /// Scores `words` in order, continuing `hist`: [`Self::score_words`] for this model's order.
    fn score_chunk(&self, bytes: &[u8], hist: &mut History, words: &[u64]) -> f64 {
        match self.layout.order {
            1 => self.score_words::<1>(bytes, hist, words),
            2 => self.score_words::<2>(bytes, hist, words),
            3 => self.score_words::<3>(bytes, hist, words),
            _ => self.score_words::<MAX_ORDER>(bytes, hist, words),
        }
    }

    /// Scores up to `SCORE_CHUNK` `words` of a model of order `N`, in three passes so that
    /// the cache misses of one word's lookups overlap those of the others: every word's n-gram
    /// keys, prefetching their buckets' offsets; then the buckets, prefetching the records each
    /// lookup will read first; then the scores, by the backoff rule.
    #[inline(always)]
    fn score_words<const N: usize>(&self, bytes: &[u8], hist: &mut History, words: &[u64]) -> f64 {
        let tables: &[Table; N] = self.layout.tables[..N]
            .try_into()
            .expect("a model of order N has N tables");
        let mut chunk = [Ngrams::default(); SCORE_CHUNK];
        let chunk = &mut chunk[..words.len()];
        let mut context = &hist.last;
        for (ngrams, &word) in chunk.iter_mut().zip(words) {
            let n = (context.len + 1).min(N);
            ngrams.keys[0] = word;
            for j in 1..n {
                ngrams.keys[j] = self.hasher.combine(context.keys[j - 1], word);
            }
            ngrams.len = n;
            for (table, &key) in tables.iter().zip(&ngrams.keys[..n]) {
                table.prefetch_offsets(bytes, key);
            }
            context = ngrams;
        }
        for ngrams in chunk.iter_mut() {
            for (j, table) in tables.iter().enumerate().take(ngrams.len) {
                ngrams.buckets[j] = table.bucket(bytes, ngrams.keys[j]);
                table.prefetch(bytes, ngrams.keys[j], ngrams.buckets[j]);
            }
        }
        let (mut sum, mut last_lookups) = (0.0, hist.lookups);
        for (i, ngrams) in chunk.iter().enumerate() {
            let last = i.checked_sub(1).map_or(&hist.last, |i| &chunk[i]);
            let mut lookups = [Lookup::NotDone; MAX_ORDER];
            let mut backoff = 0.0;
            let mut prob = self.layout.unk_log2;
            for j in (0..ngrams.len).rev() {
                let table = &tables[j];
                if let Some(index) = table.find_in(bytes, ngrams.keys[j], ngrams.buckets[j]) {
                    lookups[j] = Lookup::Found(index);
                    prob = table.prob(bytes, index);
                    break;
                }
                lookups[j] = Lookup::Absent;
                if j > 0 {
                    // Back off: add the context's backoff weight (its lookup is the last word's,
                    // if that was done).
                    let context = &tables[j - 1];
                    let found = match last_lookups[j - 1] {
                        Lookup::NotDone => {
                            context.find_in(bytes, last.keys[j - 1], last.buckets[j - 1])
                        }
                        Lookup::Absent => None,
                        Lookup::Found(index) => Some(index),
                    };
                    if let Some(index) = found {
                        backoff += context.backoff(bytes, index);
                    }
                }
            }
            last_lookups = lookups;
            sum += prob + backoff;
        }
        if let Some(last) = chunk.last() {
            hist.last = *last;
            hist.lookups = last_lookups;
        }
        sum
    }

    /// Sum of log2 P(wᵢ | history) over the tokens of `sentence` plus `</s>`,
    /// and the number of predictions N (tokens + 1). History starts at `<s>`.
    /// Allocates nothing: tokens are buffered in fixed chunks on the stack.
    pub fn log2_prob(&self, sentence: &str) -> (f64, u32) {
        let (bytes, mut hist, mut sum) = (self.bytes(), self.new_history(), 0.0);
        let n = self.token_chunks(sentence, |chunk| {
            sum += self.score_chunk(bytes, &mut hist, chunk)
        });
        (sum, n)
    }

    /// [`Self::log2_prob`] of `sentence` under this model and under `other`, tokenizing once
    /// when both use the same token hash seed (the sums are the same as from two calls).
    pub fn log2_prob_pair(&self, other: &LanguageModel, sentence: &str) -> [(f64, u32); 2] {
        if self.hasher.seed() != other.hasher.seed() {
            return [self.log2_prob(sentence), other.log2_prob(sentence)];
        }
        let (bytes, mut hist, mut sum) = (self.bytes(), self.new_history(), 0.0);
        let (other_bytes, mut other_hist, mut other_sum) =
            (other.bytes(), other.new_history(), 0.0);
        let n = self.token_chunks(sentence, |chunk| {
            sum += self.score_chunk(bytes, &mut hist, chunk);
            other_sum += other.score_chunk(other_bytes, &mut other_hist, chunk);
        });
        [(sum, n), (other_sum, n)]
    }

    /// Hands the token hashes of `sentence`, then `</s>`, to `score` in chunks of at most
    /// `SCORE_CHUNK`; returns how many there were.
    fn token_chunks(&self, sentence: &str, mut score: impl FnMut(&[u64])) -> u32 {
        let mut chunk = [0u64; SCORE_CHUNK];
        let (mut len, mut n) = (0, 0u32);
        tokenize_with(&self.hasher, sentence, |token| {
            chunk[len] = token.hash;
            len += 1;
            if len == SCORE_CHUNK {
                score(&chunk);
                n += len as u32;
                len = 0;
            }
        });
        chunk[len] = self.hasher.eos;
        len += 1;
        score(&chunk[..len]);
        n + len as u32
    }

    /// Perplexity 2^(−(1/N)·Σ log2 P(wᵢ | history)) of `sentence` (N counts `</s>`).
    pub fn perplexity(&self, sentence: &str) -> f64 {
        let (sum, n) = self.log2_prob(sentence);
        perplexity(sum, n)
    }

    /// Calls `f` with every token of `sentence` and its log2 probability,
    /// ending with the `</s>` prediction (for debugging and explanations).
    pub fn for_each_token_log2_prob<'a>(
        &self,
        sentence: &'a str,
        mut f: impl FnMut(Token<'a>, f64),
    ) {
        let bytes = self.bytes();
        let mut hist = self.new_history();
        tokenize_with(&self.hasher, sentence, |token| {
            let p = self.score_next(bytes, &mut hist, token.hash);
            f(token, p);
        });
        let p = self.score_next(bytes, &mut hist, self.hasher.eos);
        f(
            Token {
                hash: self.hasher.eos,
                kind: TokenKind::SentenceEnd,
                text: "</s>",
            },
            p,
        );
    }
}

/// The default English model's file, unpacked from `model/en.pack` by `build.rs`.
pub fn embedded_bytes() -> &'static [u8] {
    // A `static`, not an expression: the bytes of an `include_bytes!` expression are copied into
    // every codegen unit that inlines the function, which put the model twice in the binary.
    static BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/en.bin"));
    BYTES
}

/// The default English model compiled into the binary (validated on first use).
pub fn embedded() -> &'static LanguageModel {
    static EMBEDDED: OnceLock<LanguageModel> = OnceLock::new();
    EMBEDDED.get_or_init(|| match LanguageModel::from_static(embedded_bytes()) {
        Ok(model) => model,
        // The embedded file is checked by a unit test; failing here is a build bug.
        Err(e) => panic!("embedded language model (model/en.pack) is invalid: {e}"),
    })
}

/// Human-readable one-paragraph summary of a model (sizes per order, credit).
pub fn describe(model: &LanguageModel) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "order {} model, {} bytes; entries per order:",
        model.order(),
        model.size_bytes()
    );
    for (n, c) in model.counts().iter().enumerate() {
        let _ = write!(s, " {}-grams {}", n + 1, c);
    }
    s
}

/// The perplexity of `predictions` predictions whose log2 probabilities sum to `log2_prob`:
/// 2^(−log2_prob / predictions). The one formula, for a sentence ([`LanguageModel::perplexity`])
/// and for the evidence stage, which sums the log probabilities itself.
pub fn perplexity(log2_prob: f64, predictions: u32) -> f64 {
    (-(log2_prob / f64::from(predictions))).exp2()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lm::write::tests::tiny_model_bytes;

    #[test]
    fn pair_scoring_equals_two_calls_whatever_the_seeds() {
        use crate::lm::train::{train_sentences, TrainOptions};
        let text =
            "Home | About us | Contact. The committee approved the new budget for the school year.";
        let small = |seed| {
            let opts = TrainOptions {
                min_count: 1,
                seed,
                ..TrainOptions::default()
            };
            let trained =
                train_sentences(["home about us", "the budget was approved"], "test", &opts)
                    .unwrap();
            LanguageModel::from_bytes(trained.bytes).unwrap()
        };
        let general = embedded();
        for other in [small(general.hasher().seed()), small(7)] {
            let pair = general.log2_prob_pair(&other, text);
            assert_eq!(pair, [general.log2_prob(text), other.log2_prob(text)]);
        }
    }

    #[test]
    fn tiny_model_round_trip_and_scoring() {
        let model = LanguageModel::from_bytes(tiny_model_bytes()).expect("valid");
        assert_eq!(model.order(), 2);
        assert_eq!(model.counts(), vec![4, 3]);
        assert_eq!(model.credit(), "test credit");
        assert_eq!(model.provenance(), "hand-made");
        // <s> a b </s>: all bigrams stored.
        let (sum, n) = model.log2_prob("A b");
        assert_eq!(n, 3);
        assert!((sum - (-0.25 - 0.5 - 0.75)).abs() < 1e-6, "{sum}");
        // <s> b: backoff(<s>) + P(b); b a: backoff(b)=0 + P(a); a </s>: backoff(a) + P(</s>).
        let (sum, _) = model.log2_prob("b a");
        assert!(
            (sum - (-1.0 - 2.0 + -1.5 + -0.5 - 2.5)).abs() < 1e-6,
            "{sum}"
        );
        // Unknown word: backoff(<s>) + unk, then </s> after an unknown context = P(</s>).
        let (sum, _) = model.log2_prob("zzz");
        assert!((sum - (-1.0 - 20.0 - 2.5)).abs() < 1e-5, "{sum}");
        let ppl = model.perplexity("a b");
        assert!((ppl - 2f64.powf(1.5 / 3.0)).abs() < 1e-6);
        // Empty sentence: just </s> after <s>.
        assert_eq!(model.log2_prob("").1, 1);
        let mut seen = Vec::new();
        model.for_each_token_log2_prob("a b", |t, p| seen.push((t.text, p)));
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[2].0, "</s>");
    }

    #[test]
    fn model_is_shareable_between_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<LanguageModel>();
    }

    #[test]
    fn chunked_scoring_matches_token_by_token() {
        let model = embedded();
        let long = "the cat sat on the mat , and then it slept . ".repeat(20);
        for sentence in [
            "",
            "Hello",
            "The committee approved the new budget.",
            long.as_str(),
        ] {
            let (sum, n) = model.log2_prob(sentence);
            let mut by_token = 0.0;
            let mut count = 0;
            model.for_each_token_log2_prob(sentence, |_, p| {
                by_token += p;
                count += 1;
            });
            assert_eq!(n, count);
            assert!(
                (sum - by_token).abs() < 1e-9,
                "{sentence:?}: {sum} vs {by_token}"
            );
        }
    }

    #[test]
    fn embedded_model_loads() {
        let model = embedded();
        assert!(model.order() >= 1);
        assert!(!model.is_empty());
        assert!(model.credit().contains("Wikipedia"));
        assert!(model
            .perplexity("The committee approved the new budget.")
            .is_finite());
    }

    #[test]
    fn an_opened_model_is_unaffected_by_later_changes_to_its_file() {
        // A memory-mapped file cut short while in use killed the process with SIGBUS.
        let dir =
            std::env::temp_dir().join(format!("ppl-filter-model-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tiny.bin");
        let bytes = tiny_model_bytes();
        std::fs::write(&path, &bytes).unwrap();
        let model = LanguageModel::open(&path).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(30)
            .unwrap();
        let expected = LanguageModel::from_bytes(bytes.clone()).unwrap();
        assert_eq!(model.log2_prob("a b zzz"), expected.log2_prob("a b zzz"));
        assert_eq!(model.credit(), "test credit");
        assert!(matches!(
            LanguageModel::open(&path),
            Err(ModelError::Truncated { actual: 30, .. })
        ));
        std::fs::write(&path, [&bytes[..], b"more"].concat()).unwrap();
        let err = LanguageModel::open(&path).unwrap_err().to_string();
        assert_eq!(
            err,
            "corrupt model: 4 bytes after the recorded end of the model"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
