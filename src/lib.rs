//! ppl-filter: turns raw web pages into their clean, well-formed text.
//!
//! A page flows through the stages sources ([`io`]) → [`decode`] → [`html`] (or [`plain`]) →
//! [`segment`] → [`evidence`] → [`decide`] → [`output`] → sinks ([`io`]), wired by
//! [`pipeline`] (reader, workers and ordered writer, in bounded memory). Imports run one way,
//! from the top of this list down: [`cli`] (both binaries' flags) and `serve` (the web demo,
//! `ppl-filter serve`, behind the default feature `serve`) → [`learn`] (the classifier
//! from pages and gold) → [`eval`] (`ppl-eval`) → [`pipeline`] → [`io`], [`decode`], [`html`],
//! [`plain`], [`output`] → [`decide`] (with [`boost`]ed trees) → [`evidence`] → [`lm`] (the
//! n-gram language model) → [`segment`] → [`stopwords`] and [`block`], the values every stage
//! passes along. The guide's "Layout" (GUIDE.md) draws the same.
#![warn(missing_docs)]

pub mod block;
pub mod boost;
#[cfg(feature = "cli")]
pub mod cli;
pub mod decide;
pub mod decode;
pub mod errors;
pub mod eval;
pub mod evidence;
pub mod html;
pub mod io;
pub mod learn;
pub mod lm;
pub mod output;
pub mod pipeline;
pub mod plain;
pub mod segment;
#[cfg(feature = "serve")]
pub mod serve;
pub mod stopwords;

pub use block::{Block, BlockKind, Sentence};
