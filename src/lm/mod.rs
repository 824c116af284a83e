//! Word n-gram language model: tokenizer, binary model file, scoring and
//! training. Sentences are scored by perplexity; boilerplate ("Home | About
//! us | Contact") scores high, running prose low.
//!
//! * [`tokenize`] — allocation-free tokenizer that hashes tokens straight
//!   from the text (lower-cased; `<num>`, `<url>`, `<email>` classes).
//!   Sentences, for training as for scoring, come from
//!   `crate::segment::split_sentences`.
//! * [`mod@format`] — the binary model file: its layout (documented there), its
//!   validation, reading one from a file or stream, [`ModelError`].
//! * `table` (private) — finding an n-gram's entry in one order's table.
//! * [`model`] — the loaded model [`LanguageModel`] (zero-parse: it reads the
//!   validated bytes in place), sentence scoring, and the embedded default
//!   model [`embedded()`].
//! * [`mod@write`] — writing a model file (quantisation, bucketing, checksum).
//! * [`mod@train`] — counting and Kneser–Ney estimation ([`train::train`]).
//! * [`pack`] — the packed form in which the embedded model is shipped.
//!
//! # Why Kneser–Ney
//!
//! Interpolated modified Kneser–Ney (Chen & Goodman 1998) is the most
//! accurate classic n-gram smoothing, and two of its properties matter here:
//!
//! * **Pruned counts.** To fit in a small file, bigrams seen fewer than
//!   `min_count` times are dropped. KN's lower-order distribution is built
//!   from *continuation counts* (in how many distinct contexts a word
//!   occurs), computed before pruning, so a dropped bigram falls back to a
//!   unigram probability that reflects how freely the word combines, not
//!   how frequent it is ("Francisco" is frequent but only after "San").
//!   The mass of pruned n-grams is moved into the context's backoff weight,
//!   so every conditional distribution still sums to one.
//! * **Short, odd sentences.** Web-page sentences are short and full of
//!   novel word pairs; their score is dominated by backed-off predictions,
//!   which is exactly where KN's continuation unigrams beat frequency-based
//!   (Katz / Witten–Bell) backoff.
//!
//! # How a sentence is scored
//!
//! The sentence is tokenized and wrapped as `<s> w1 … wk </s>`. Each word
//! after `<s>` (including `</s>`) is predicted from the previous N−1 tokens
//! (fewer at the start), by the standard backoff rule over the stored,
//! quantised values:
//!
//! ```text
//! log2 P(w | h) = log2 p(h w)                    if the n-gram h w is stored
//!               = log2 bow(h) + log2 P(w | h')   otherwise (h' = h minus its first word;
//!                                                bow(h) = 1 if h is not stored)
//! log2 P(w)     = log2 p(w)                      if w is in the unigram table
//!               = log2 P(<unk>)                  otherwise
//! ```
//!
//! So an **unseen word** after a context v costs `log2 bow(v) + log2 P(<unk>)`,
//! where `P(<unk>) = γ/|V|` is the share of the unigram level's
//! interpolation mass (KN discounts plus any pruned words) that each of the
//! |V| vocabulary entries and `<unk>` receive — about the probability of a
//! word seen once. An **unseen bigram** of known words `v w` costs
//! `log2 bow(v) + log2 p(w)`, the context's left-over mass times w's
//! continuation probability. The word after an unknown word is predicted by
//! its unigram probability (the unknown word has no backoff entry).
//!
//! Perplexity is `2^(−(1/N)·Σ log2 P(wᵢ | history))`, with N the number of
//! predictions (tokens + 1 for `</s>`). [`LanguageModel::log2_prob`] returns the
//! sum and N separately so callers can combine sentences.

mod bytes;
pub mod format;
pub mod model;
pub mod pack;
mod table;
pub mod tokenize;
pub mod train;
pub mod write;

pub use model::{embedded, LanguageModel, ModelError};
pub use tokenize::{for_each_token, token_hashes, Token, TokenKind};
pub use train::{train, Progress, TrainError, TrainOptions, TrainStats, TrainedModel};

/// Credit line for the default English model's training data (CC BY-SA 3.0).
pub const WIKIPEDIA_CREDIT: &str = "Contains text from English Wikipedia (https://en.wikipedia.org/), by Wikipedia contributors, licensed under CC BY-SA 3.0 (https://creativecommons.org/licenses/by-sa/3.0/); extracted from a May 2015 dump and modified (markup, headings, short lines and duplicates removed). The n-gram statistics in this model are a derived work of that text, also licensed under CC BY-SA 3.0.";

/// A model file that cannot be used: the file, and why.
#[derive(Debug, thiserror::Error)]
#[error("{}", path.display())]
pub struct LoadError {
    /// The file.
    pub path: std::path::PathBuf,
    /// Why it cannot be used.
    #[source]
    pub source: ModelError,
}

/// The model in the file at `path`, or the embedded one. A model loaded from a file lives for
/// the rest of the process, as the embedded one does.
pub fn load_model(path: Option<&std::path::Path>) -> Result<&'static LanguageModel, LoadError> {
    match path {
        None => Ok(embedded()),
        Some(path) => LanguageModel::open(path)
            .map(|model| &*Box::leak(Box::new(model)))
            .map_err(|source| LoadError {
                path: path.to_path_buf(),
                source,
            }),
    }
}
