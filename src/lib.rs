//! ppl-filter: turns raw web pages into their clean, well-formed text.
//!
//! A page flows through the stages sources ([`io`]) → [`decode`] → [`html`] (or [`plain`]) →
//! [`segment`] → [`evidence`] → [`decide`] → [`output`] → sinks ([`io`]), wired by
//! [`pipeline`] (reader, workers and ordered writer, in bounded memory). Imports run one way,
//! from the top of this list down: `cli` (both binaries' flags, behind the default feature
//! `cli`) and `serve` (the web demo, `ppl-filter serve`, behind the default feature `serve`) →
//! [`errors`] (every error, and how it is printed) → [`learn`] (the classifier from pages and
//! gold) → [`eval`] (`ppl-eval`) → [`pipeline`] → [`io`], [`decode`], [`html`],
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

// The short way in, for a program that cleans pages: a page or many held in memory
// (`clean_page`, `clean_pages`, with options named as `Named` names them), or inputs streamed into
// a sink (`run`); the rest of the modules are the stages, for who builds on one.
pub use block::{Block, BlockKind, Sentence};
pub use decide::{Classifier, Favor, Method, MethodKind};
pub use lm::{load_model, LanguageModel};
pub use output::Layout;
pub use pipeline::pages::{clean_page, clean_pages, Cleaned, Named, Page, PageOptions};
pub use pipeline::{run, InputFormat, Options, Summary};
