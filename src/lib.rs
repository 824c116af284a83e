//! ppl-filter: turns raw web pages into their clean, well-formed text.
//!
//! The modules, in the order data flows through them (each imports only from those after it
//! in this list, and from [`block`], the values every stage passes along):
//!
//! - [`cli`]: both binaries' flags (man pages and completions are generated from them);
//! - [`learn`]: `ppl-filter learn`, the classifier from pages and gold text; [`eval`]:
//!   `ppl-eval`, scoring against gold and the jusText-style baseline;
//! - [`pipeline`]: reader, workers and ordered writer: sources → decode → html → segment →
//!   evidence → decide → sinks, in bounded memory;
//! - [`io`]: sources (files, stdin, gzip, WARC, JSONL, directory walks) and sinks (stream,
//!   `--output-dir`, records);
//! - [`decode`]: bytes to UTF-8; [`html`] (lol_html) and [`plain`]: text to [`Block`]s;
//! - [`segment`]: blocks to [`Sentence`]s;
//! - [`evidence`]: what the decision knows of each block (both language models, shape,
//!   markup, document structure);
//! - [`decide`]: keep or drop, by the perplexity rule or the learned classifier ([`boost`]ed
//!   trees);
//! - [`output`]: what is written for a decided block;
//! - [`lm`]: the n-gram language model (tokenizer, model file, scoring, training);
//!   [`stopwords`]: the stopword lists both [`evidence`] and [`eval`] count.
#![warn(missing_docs)]

pub mod block;
pub mod boost;
pub mod cli;
pub mod decide;
pub mod decode;
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
pub mod stopwords;

pub use block::{Block, BlockKind, Sentence};
