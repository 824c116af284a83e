//! Evaluation of cleaned text against CleanEval gold files (`ppl-eval score`): file
//! decoding and tokenisation, exact word-level Levenshtein and LCS alignments, word and
//! marker precision/recall/F, and the summary written as a table, TSV and JSON.
//!
//! Entry points: [`score_pair`] for one page pair, [`score_dirs`] for a directory pair.
//!
//! Rules in brief (details in each module): [`normalize`] decodes, drops URL lines and
//! control characters and splits words, with `<p>`/`<h>`/`<l>` split out as lowercase
//! tokens even when glued to words; the "text" view drops them, the "tags" view keeps
//! them. [`lev`] gives the exact word Levenshtein distance, [`lcs`] the exact LCS length
//! (bit-parallel; true positives = LCS). Marker P/R/F aligns the marker sequences alone.
//! Edge cases of P/R/F are in [`prf`]; aggregation in [`score`]; output formats in
//! [`report`].

pub mod baseline;
mod bits;
pub mod compare;
pub mod lcs;
pub mod lev;
pub mod normalize;
pub mod prf;
pub mod report;
pub mod score;

use std::path::PathBuf;

pub use prf::{Counts, Prf};
pub use score::{score_dirs, score_pair, score_tokens, Averages, PageEntry, PageScore, Scores};

/// Errors of the scorer; each names the path involved and prints on one line.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The gold directory is absent or unreadable.
    #[error("gold directory {}: {source}", path.display())]
    GoldDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The cleaned directory is absent, unreadable or not a directory.
    #[error("cleaned directory {}: {source}", path.display())]
    CleanedDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The gold directory holds no `*.txt` file.
    #[error("gold directory {}: no *.txt files", .0.display())]
    NoGold(PathBuf),
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An output file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The system refused a scoring thread.
    #[error("cannot start the scoring threads: {0}")]
    Threads(std::io::Error),
}
