//! ppl-filter: turns raw web pages into their clean, well-formed text.
//!
//! A page flows through the stages sources ([`source`]) → `decode` → `html` (or `plain`) →
//! `segment` → `evidence` → [`decide`] → sinks ([`sink`], whose renderers write each format),
//! wired by [`pipeline`] (reader, workers and ordered writer, in bounded memory). Imports run
//! one way, from the top of this list down: `cli` (both binaries' flags, behind the default
//! feature `cli`) and
//! `serve` (the web demo, `ppl-filter serve`, behind the default feature `serve`) → `fetch`
//! (pages fetched by URL, behind the feature `fetch`) → [`learn`] (the classifier from pages
//! and gold) → [`eval`] (`ppl-eval`) → [`pipeline`] → [`sink`] → [`source`], `decode`, `html`,
//! `plain` → [`decide`] (with `boost`ed trees) → `evidence` → [`lm`] (the n-gram
//! language model) → `segment` → `stopwords`, `block` (the values every stage passes along)
//! and `errors` (how an error is printed: [`one_line`]). The guide's "Layout" (GUIDE.md) draws
//! the same.
//!
//! The way in is this page's items (below) and the public modules; the stages' own
//! modules are private, and what the edges need of them is re-exported where it is used
//! ([`pipeline`] the settings of each stage, [`decide`] the evidence it weighs). The crate's
//! own tests and examples reach the stages through the feature `_internals`, which is no API.
//!
//! # Examples
//!
//! Clean one page held in memory, as `ppl-filter page.html` would, with the embedded English
//! model and classifier ([`clean_page`]; what to do is a [`Job`], made from a [`Request`], which
//! Python and the web API fill by name):
//!
//! ```
//! use ppl_filter::{clean_page, lm, Page, Request};
//!
//! let html = "<html><head><title>River plan approved</title></head><body>
//!   <nav><a href='/'>Home</a> | <a href='/news'>News</a> | <a href='/sport'>Sport</a></nav>
//!   <p>The town council voted on Tuesday to approve a plan that will restore the banks of
//!   the river, after two years of public meetings and a long debate about its cost.</p>
//!   <p>Work on the first stretch, near the old mill, is to begin in the spring.</p>
//!   <footer><a href='/privacy'>Privacy</a> | <a href='/contact'>Contact us</a></footer>
//! </body></html>";
//! let job = Request::default().job()?;
//! let page = Page::new("river.html", html.as_bytes());
//! let cleaned = clean_page(&page, lm::embedded(), &job)?;
//! let text = String::from_utf8(cleaned.output)?;
//! assert_eq!(
//!     text,
//!     "The town council voted on Tuesday to approve a plan that will restore the banks of the \
//!      river, after two years of public meetings and a long debate about its cost.\n\
//!      Work on the first stretch, near the old mill, is to begin in the spring.\n"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Read what the page is: its kind (told from what it declares or shows), title, language
//! and the other metadata of its JSON record (`--format json`), and keep it only if it is in
//! one language (`--target-language`):
//!
//! ```
//! use ppl_filter::{clean_page, lm, Layout, Page, Request};
//!
//! let html = "<html><head><title>River plan approved</title>
//!   <meta property='og:type' content='article'>
//!   <meta name='author' content='Ann Smith'></head><body>
//!   <p>The town council voted on Tuesday to approve a plan that will restore the banks of
//!   the river, after two years of public meetings and a long debate about its cost.</p>
//! </body></html>";
//! let page = Page::new("river.html", html.as_bytes());
//! let json = Request { format: Some(Layout::Json), ..Request::default() }.job()?;
//! let cleaned = clean_page(&page, lm::embedded(), &json)?;
//! let record: serde_json::Value = serde_json::from_slice(&cleaned.output)?;
//! assert_eq!(record["kind"], "article");
//! assert_eq!(record["title"], "River plan approved");
//! assert_eq!(record["author"], "Ann Smith");
//! assert_eq!(record["lang"], "eng");
//!
//! // Python's keywords and the web API's JSON keys name the options; serde reads them.
//! let german_only = serde_json::json!({"target_language": "de"});
//! let german_only = Request::of_options(german_only)?.job()?;
//! let cleaned = clean_page(&page, lm::embedded(), &german_only)?;
//! assert!(cleaned.other_language && cleaned.output.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Run a job over many documents as the command line does, streamed in bounded memory on two
//! threads, the output in the inputs' order whatever the thread count ([`Job::run`]; the inputs
//! may as well be files, standard input, WARC or JSONL, and the output records or a directory's
//! files, [`Output`]):
//!
//! ```
//! use std::sync::Arc;
//! use ppl_filter::source::Input;
//! use ppl_filter::pipeline::Problem;
//! use ppl_filter::{lm, Job, Options, Output};
//!
//! let pages = [
//!     "<p>The town council voted on Tuesday to approve a plan to restore the river.</p>",
//!     "<p>The library will open on Sundays from next month, the mayor said on Friday.</p>",
//! ];
//! let inputs: Vec<Input> = pages
//!     .iter()
//!     .enumerate()
//!     .map(|(i, page)| Input::Memory { name: format!("page {i}"), bytes: Arc::from(page.as_bytes()) })
//!     .collect();
//! let options = Options { threads: 2, ..Options::default() };
//! // Documents are separated by an empty line, as `ppl-filter` writes them.
//! let job = Job::new(options, Output::text());
//! let report = |problem: &Problem| eprintln!("{}", problem.message());
//! let mut text = Vec::new();
//! let summary = job.run(&inputs, lm::embedded(), &mut text, &report)?;
//! assert_eq!(summary.documents, 2);
//! let text = String::from_utf8(text)?;
//! assert!(text.starts_with("The town council") && text.contains("\n\nThe library"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

#[cfg(feature = "cli")]
pub mod cli;
pub mod decide;
pub mod eval;
#[cfg(feature = "fetch")]
pub mod fetch;
pub mod learn;
pub mod lm;
pub mod pipeline;
#[cfg(feature = "serve")]
pub mod serve;
pub mod sink;
pub mod source;

/// The stages' modules: private, or public with the feature `_internals` (for this crate's own
/// tests and examples, which reach inside the stages; it is no API).
macro_rules! stages {
    ($($name:ident),* $(,)?) => {
        $(
            #[cfg(feature = "_internals")]
            #[allow(missing_docs)]
            pub mod $name;
            #[cfg(not(feature = "_internals"))]
            mod $name;
        )*
    };
}

stages!(block, boost, decode, errors, evidence, html, plain, segment, stopwords);

// The short way in, for a program that cleans pages: a page or many held in memory
// (`clean_page`, `clean_pages`, with the job a `Request` asks for), or inputs streamed into the
// job's output (`Job::run`); the modules above for who builds on one part.
pub use block::{Block, BlockKind, PageInfo, PageKind, Sentence};
pub use decide::{Classifier, Favor, Method, MethodKind};
pub use errors::{one_line, printable};
pub use lm::{load_model, LanguageModel};
pub use pipeline::pages::{clean_page, clean_pages, Cleaned, Page};
pub use pipeline::{run, Decision, InputFormat, Job, Options, Output, Request, Summary};
pub use sink::render::Layout;
