//! ppl-filter: turns raw web pages into their clean, well-formed text.
//!
//! The pipeline, in order, one module per stage:
//! [`decode`] (bytes to UTF-8) → [`html`] (lol_html stream to [`Block`]s; [`plain`] for text
//! input) → [`segment`] (blocks to [`Sentence`]s) → [`lm`] (n-gram language model: perplexity)
//! → [`features`] (evidence per block for the learned decision) → [`classify`] (keep or drop,
//! with [`boost`]ed trees) → [`output`] (what is written) → [`pipeline`] (workers, order,
//! back-pressure). [`io`] opens inputs; [`eval`] scores cleaned text against gold and holds the
//! jusText-style baseline; [`learn`] trains the combined method's classifier from cleaned
//! pages; [`cli`] defines both binaries' flags.

pub mod block;
pub mod boost;
pub mod classify;
pub mod cli;
pub mod decode;
pub mod document;
pub mod eval;
pub mod features;
pub mod html;
pub mod io;
pub mod learn;
pub mod lm;
pub mod output;
pub mod pipeline;
pub mod plain;
pub mod segment;

pub use block::{Block, BlockKind, Sentence};
