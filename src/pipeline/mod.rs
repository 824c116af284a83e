//! Workers, ordering and back-pressure: runs documents through every stage and writes them.
//!
//! One reader thread reads each input in fixed-size chunks (a whole input, or each WARC
//! response or JSONL line, is one document), decodes, parses and cuts blocks,
//! and sends them in numbered batches on a bounded channel to `threads` workers, which split
//! sentences, score, decide and render. A writer restores the batches' order before writing.
//! Both channels are bounded, so a slow consumer stalls the reader instead of growing memory;
//! the reorder buffer holds at most the batches in flight. With one thread everything runs
//! inline, in the same order, through the same functions: output is byte-identical for any
//! thread count and any read size (tested). A run of many documents (several whole inputs,
//! WARC responses, JSONL lines) instead cleans a document per thread from start to end
//! (`parallel.rs`), which leaves no stage to one thread.
//!
//! Files, in the order data flows: `read.rs` (inputs to documents and batches), `document.rs`
//! (one document's bytes to blocks), the workers' part here (`process`: sentences and
//! evidence), `write.rs` (the decision, rendering and the sink, in order); `options.rs` and
//! `problem.rs` hold what a run is told and what it reports; `request.rs` is what every door asks
//! for (options by name, defaults and refusals), `pages.rs` cleans pages held in memory, `parallel.rs` cleans a document per thread, and `pool.rs` spreads whole items over
//! threads.

mod document;
mod job;
mod options;
pub mod pages;
mod parallel;
mod pool;
mod problem;
mod read;
mod request;
mod write;

use std::io;
use std::sync::Arc;

use crossbeam_channel::bounded;

pub use crate::decide::DecideSettings;
pub use crate::decode::{encoding_for_label, DecodeError};
pub use crate::html::{HtmlError, HtmlSettings};
pub use crate::sink::render::{Layout, OutputFormat, OutputMode, RenderSettings};
pub use crate::source::InputFormat;
pub use job::{Job, Output, OutputDir, PageWriter};
pub use options::{Options, ReadSettings};
pub use pool::{default_threads, map_in_order};
pub use problem::{Observer, Problem, Severity, Trouble};
pub use request::read::value as option_value;
pub use request::{Decision, OptionName, Request, RequestError, FAVORS, FORMATS, KINDS, METHODS};

use crate::block::{Block, PageInfo};
use crate::evidence;
use crate::lm::model::LanguageModel;
use crate::segment;
use crate::sink::{DocumentMeta, Sink};
use crate::source::Input;
use document::{read_document, DocumentKind, Findings, OutputClosed};
use read::read_inputs;
use write::{finish, write_in_order, Writer};

/// Counts over a whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Documents read (inputs, WARC responses, JSONL lines).
    pub documents: u64,
    /// Sentences decided.
    pub sentences: u64,
    /// Sentences kept.
    pub kept: u64,
    /// Problems that skipped an input or part of one.
    pub warnings: u64,
    /// Inputs that could not be read.
    pub errors: u64,
    /// WARC responses not cleaned: a status other than 2xx, or not HTML ([`ReadSettings::all_responses`]).
    pub records_skipped: u64,
    /// Files found while walking a directory that are not text: skipped without a warning.
    pub binary_skipped: u64,
    /// Bytes read (after gzip) from the documents.
    pub bytes: u64,
    /// Inputs and documents that were not cleaned: an input that could not be opened, a
    /// document that is not text.
    pub not_cleaned: u64,
    /// The output was closed early (for example by `| head`); the run stopped quietly.
    pub output_closed: bool,
    /// Documents left out because their text is not in the language asked for
    /// (`--target-language`; counted by [`crate::sink::language_filter::LanguageFilter`], around the run).
    pub other_language: u64,
}

impl Summary {
    /// Adds the counts of another run (of the next inputs).
    pub fn add(&mut self, other: &Summary) {
        self.documents += other.documents;
        self.sentences += other.sentences;
        self.kept += other.kept;
        self.warnings += other.warnings;
        self.errors += other.errors;
        self.records_skipped += other.records_skipped;
        self.binary_skipped += other.binary_skipped;
        self.other_language += other.other_language;
        self.bytes += other.bytes;
        self.not_cleaned += other.not_cleaned;
        self.output_closed |= other.output_closed;
    }
}

/// Blocks in flight are sent in batches of about this many bytes of text…
const BATCH_TEXT_BYTES: usize = 32 * 1024;
/// …or of at most this many blocks (each block costs a few hundred bytes besides its text).
const BATCH_BLOCKS: usize = 256;
/// The batches in flight between the reader and the writer, whatever the thread count: with
/// batches bounded by text and blocks, this bounds the pipeline's memory (a few MB). It is
/// also what lets the reader and the workers go on while the writer decides a whole document
/// (up to `--max-document-bytes` of blocks at once): with 6 batches in flight rather than 32,
/// `-j2` took about 15 % more wall time on a stream of CleanEval pages.
const MAX_BATCHES_IN_FLIGHT: usize = 32;
/// The most scoring threads a run may ask for.
pub const MAX_THREADS: usize = 256;

/// Why a run stopped before every input was cleaned.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Writing the output failed (a closed pipe is not an error: see [`Summary::output_closed`]).
    #[error("cannot write output: {0}")]
    Output(#[source] io::Error),
    /// The operating system refused a worker thread.
    #[error("cannot start {threads} worker threads: {source}")]
    Threads {
        /// The threads asked for.
        threads: usize,
        /// Why.
        source: io::Error,
    },
}

/// A numbered batch of blocks of one document.
struct Batch {
    seq: u64,
    /// On a document's first batch: the document's index and what it is.
    begins: Option<(usize, Arc<DocumentMeta>)>,
    /// The document's last batch.
    ends: bool,
    /// On the last batch: what the page said about itself.
    page: Option<Box<PageInfo>>,
    /// On the last batch: why the document was not cleaned (it could not be opened, or is not
    /// text), if it was not.
    failure: Option<String>,
    blocks: Vec<Block>,
}

/// Cleans every input in order, writing to `out`; `observer` hears of problems as they happen.
///
/// With several threads, at most `MAX_BATCHES_IN_FLIGHT` batches are between the reader and
/// the writer at any time: a token is taken before a batch is sent and given back once it is
/// written, so memory does not grow with the thread count.
pub fn run(
    inputs: &[Input],
    model: &LanguageModel,
    options: &Options,
    out: &mut dyn Sink,
    observer: &dyn Observer,
) -> Result<Summary, RunError> {
    let mut summary = Summary::default();
    if options.threads <= 1 {
        let mut writer = Writer::new(options, out);
        let mut write_error = None;
        let counts = read_inputs(inputs, options, observer, &mut |batch| match writer
            .emit(process(batch, model, options))
        {
            Ok(()) => Ok(()),
            Err(e) => {
                write_error = Some(e);
                Err(OutputClosed)
            }
        });
        (summary.sentences, summary.kept) = writer.totals;
        summary.add(&counts);
        return finish(summary, write_error, out);
    }
    if parallel::in_parallel(inputs, options) {
        return parallel::run_in_parallel(inputs, model, options, out, observer);
    }

    let threads = options.threads.min(MAX_THREADS);
    let (batch_tx, batch_rx) = bounded::<Batch>(MAX_BATCHES_IN_FLIGHT);
    let (done_tx, done_rx) = bounded::<Batch>(MAX_BATCHES_IN_FLIGHT);
    let (token_tx, token_rx) = bounded::<()>(MAX_BATCHES_IN_FLIGHT);
    for _ in 0..MAX_BATCHES_IN_FLIGHT {
        token_tx
            .send(())
            .expect("the token channel has room for every token");
    }
    let mut write_error = None;
    let mut counts = Summary::default();
    let started = std::thread::scope(|scope| {
        for _ in 0..threads {
            let batch_rx = batch_rx.clone();
            let done_tx = done_tx.clone();
            let worker = std::thread::Builder::new()
                .name("ppl-worker".into())
                .spawn_scoped(scope, move || {
                    for batch in batch_rx {
                        if done_tx.send(process(batch, model, options)).is_err() {
                            break;
                        }
                    }
                });
            // Workers already started end when the batch channel closes on return.
            if let Err(source) = worker {
                return Err(RunError::Threads { threads, source });
            }
        }
        drop(batch_rx);
        drop(done_tx);
        let writer = std::thread::Builder::new()
            .name("ppl-writer".into())
            .spawn_scoped(scope, || {
                write_in_order(done_rx, token_tx, Writer::new(options, &mut *out))
            })
            .map_err(|source| RunError::Threads { threads, source })?;
        counts = read_inputs(inputs, options, observer, &mut |batch| {
            // No token: the writer has stopped (the output is gone).
            token_rx.recv().map_err(|_| OutputClosed)?;
            batch_tx.send(batch).map_err(|_| OutputClosed)
        });
        drop(batch_tx);
        match writer.join() {
            Ok(Ok((sentences, kept))) => {
                summary.sentences = sentences;
                summary.kept = kept;
            }
            Ok(Err(e)) => write_error = Some(e),
            Err(_) => write_error = Some(io::Error::other("writer thread panicked")),
        }
        Ok(())
    });
    started?;
    summary.add(&counts);
    finish(summary, write_error, out)
}

/// The worker's part: sentences and scores (and, for the combined method, the evidence).
fn process(mut batch: Batch, model: &LanguageModel, options: &Options) -> Batch {
    for block in &mut batch.blocks {
        segment::segment(block);
        match options.decide.method.classifier() {
            Some(classifier) => evidence::measure(
                block,
                model,
                &classifier.boilerplate,
                options.every_perplexity(),
            ),
            // A block dropped whole needs no scores unless they are printed.
            None if options.render.mode != OutputMode::Clean
                || options.decide.policy.block_passes(block) =>
            {
                evidence::score(block, model)
            }
            None => {}
        }
    }
    batch
}

/// The workers' part for a whole document's blocks at once, as one batch (`page`: what the
/// document said about itself, when it has been read to its end).
fn process_whole(
    blocks: Vec<Block>,
    page: Option<PageInfo>,
    model: &LanguageModel,
    options: &Options,
) -> Batch {
    let batch = Batch {
        seq: 0,
        begins: None,
        ends: true,
        page: page.map(Box::new),
        failure: None,
        blocks,
    };
    process(batch, model, options)
}

/// One in-memory page read into blocks ([`read_blocks`]).
#[derive(Debug, Default)]
pub struct ReadPage {
    /// The page's blocks, in order (no sentences yet).
    pub blocks: Vec<Block>,
    /// What the page said about itself (title, declared kind).
    pub info: PageInfo,
    /// What went wrong on the way, named `<memory>`.
    pub problems: Vec<Problem>,
}

/// Reads one in-memory page into blocks exactly as [`run`] would (no sentences yet).
pub fn read_blocks(page: &[u8], options: &Options) -> ReadPage {
    let mut findings = Findings::default();
    let mut blocks = Vec::new();
    let read = read_document(
        &mut &page[..],
        options,
        DocumentKind::of(options),
        &mut findings,
        &mut |more| {
            blocks.append(more);
            Ok(())
        },
    );
    debug_assert_eq!(read, Ok(()), "nothing closes a vector");
    let problems = findings
        .problems
        .into_iter()
        .map(|trouble| Problem::new("<memory>", trouble))
        .collect();
    ReadPage {
        blocks,
        info: findings.page,
        problems,
    }
}

/// Cleans one in-memory page exactly as [`run`] would: for tests and tools that hold pages whole.
pub fn clean_bytes(
    page: &[u8],
    model: &LanguageModel,
    options: &Options,
) -> (Vec<u8>, Vec<Problem>) {
    let read = read_blocks(page, options);
    let scored = process_whole(read.blocks, Some(read.info), model, options);
    let mut sink = crate::sink::StreamSink::new(Vec::new(), b"");
    Writer::new(options, &mut sink)
        .emit(scored)
        .expect("writing to memory cannot fail");
    (sink.into_inner(), read.problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::Method;

    #[test]
    fn thread_counts_past_the_limit_are_clamped() {
        // Past the limit the pipeline clamps rather than asking the system for more threads.
        let options = Options {
            threads: MAX_THREADS * 4,
            ..Options::with_method(Method::Perplexity)
        };
        let mut sink = crate::sink::StreamSink::new(Vec::new(), b"\n");
        let summary = run(
            &[],
            crate::lm::model::embedded(),
            &options,
            &mut sink,
            &|_: &Problem| {},
        )
        .unwrap();
        assert_eq!(summary.documents, 0);
    }

    #[test]
    fn the_embedded_classifier_loads_and_keeps_prose_over_menus() {
        let page = "<html><body><ul class=menu><li><a href=/>Home</a></li><li><a href=/n>News</a></li>\
            <li><a href=/s>Sport</a></li><li><a href=/c>Contact us</a></li></ul><div class=story>\
            <p>The town council voted on Tuesday to approve a plan that will restore the banks of the river and reopen the old footpath between the mill and the bridge.</p>\
            <p>Supporters of the project said that the river had been neglected for decades, and that the new path would bring visitors back to the centre of the town.</p></div>\
            <div class=footer><a href=/p>Privacy policy</a> | <a href=/t>Terms of use</a> | <a href=/r>RSS</a></div></body></html>";
        let options = Options::with_method(Method::Combined(crate::decide::embedded()));
        let (out, problems) = clean_bytes(page.as_bytes(), crate::lm::model::embedded(), &options);
        assert!(problems.is_empty());
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("The town council voted") && text.contains("Supporters of the project"),
            "{text}"
        );
        assert!(
            !text.contains("Home") && !text.contains("Privacy policy"),
            "{text}"
        );
    }

    #[test]
    fn a_modal_dialog_is_dropped_however_much_prose_it_holds() {
        let page = |dialog: &str| {
            format!(
                "<html><body><div class=story>\
                <p>The town council voted on Tuesday to approve a plan that will restore the banks of the river and reopen the old footpath between the mill and the bridge.</p>\
                <p>Supporters of the project said that the river had been neglected for decades, and that the new path would bring visitors back to the centre of the town.</p></div>\
                <div {dialog}><p>We process personal information for our legitimate purposes of running our business, complying with the law and keeping our services safe for everyone who uses them.</p>\
                <p>You may ask us at any time which information we hold about you, and you may ask us to correct it or to delete it when it is no longer needed for those purposes.</p></div>\
                </body></html>"
            )
        };
        let options = Options::with_method(Method::Combined(crate::decide::embedded()));
        let clean = |html: String| {
            let (out, _) = clean_bytes(html.as_bytes(), crate::lm::model::embedded(), &options);
            String::from_utf8(out).unwrap()
        };
        // As plain prose beside the story, the policy is kept; in a dialog, never.
        let shown = clean(page("class=policy"));
        assert!(shown.contains("We process personal information"), "{shown}");
        for dialog in ["role=dialog", "aria-modal=true"] {
            let text = clean(page(dialog));
            assert!(text.contains("The town council voted"), "{text}");
            assert!(!text.contains("personal information"), "{dialog}: {text}");
        }
    }

    #[test]
    fn a_caption_or_an_aside_is_dropped_where_the_same_text_as_a_paragraph_is_kept() {
        let caption = "Volunteers from the town planted three hundred young willows along the \
            eastern bank of the river on Saturday, where the footpath will reopen next spring.";
        let page = |open: &str, close: &str| {
            format!(
                "<html><body><div class=story>\
                <p>The town council voted on Tuesday to approve a plan that will restore the banks of the river and reopen the old footpath between the mill and the bridge.</p>\
                {open}{caption}{close}\
                <p>Supporters of the project said that the river had been neglected for decades, and that the new path would bring visitors back to the centre of the town.</p></div>\
                </body></html>"
            )
        };
        let options = Options::with_method(Method::Combined(crate::decide::embedded()));
        let clean = |html: String| {
            let (out, _) = clean_bytes(html.as_bytes(), crate::lm::model::embedded(), &options);
            String::from_utf8(out).unwrap()
        };
        let as_paragraph = clean(page("<p>", "</p>"));
        assert!(
            as_paragraph.contains("Volunteers from the town"),
            "{as_paragraph}"
        );
        let apart = [
            (
                "<figure><img src=willows.jpg><figcaption>",
                "</figcaption></figure>",
            ),
            ("<aside><p>", "</p></aside>"),
        ];
        for (open, close) in apart {
            let text = clean(page(open, close));
            assert!(text.contains("Supporters of the project"), "{text}");
            assert!(!text.contains("Volunteers"), "{open}: {text}");
        }
    }

    #[test]
    fn measuring_every_perplexity_changes_no_decision() {
        let page = include_bytes!("../../fixtures/pages/news.html");
        let options = Options::default();
        let mut every = Options::default();
        every.render.report_perplexity = true;
        assert!(!options.every_perplexity() && every.every_perplexity());
        let model = crate::lm::model::embedded();
        let (some, _) = clean_bytes(page, model, &options);
        let (all, _) = clean_bytes(page, model, &every);
        assert!(!some.is_empty());
        assert_eq!(
            String::from_utf8_lossy(&some),
            String::from_utf8_lossy(&all)
        );
    }
}
