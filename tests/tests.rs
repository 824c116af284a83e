//! The integration tests, as one binary (as ripgrep has them) rather than one per file, each
//! linking the whole library: every file of `tests/` is a module here. `cargo test --test tests`
//! runs them all and `cargo test --test tests MODULE::` the tests of one file, e.g.
//! `cargo test --release --locked --test tests regression::`.

mod common;

mod docs_in_sync;
mod everyday_use;
#[cfg(feature = "fetch")]
mod fetch;
mod formats;
mod fuzz;
mod ppl_eval;
mod ppl_filter;
mod regression;
mod robust_cli;
mod robust_models;
mod robust_pages;
mod robust_records;
mod robust_warc;
#[cfg(feature = "serve")]
mod serve;
mod stream_splitter;
mod streaming;
mod structure;
mod warc_responses;
