//! Workers, ordering and back-pressure: runs documents through every stage and writes them.
//!
//! One reader thread reads each input in fixed-size chunks, decodes, parses and cuts blocks,
//! and sends them in numbered batches on a bounded channel to `threads` workers, which split
//! sentences, score, decide and render. A writer restores the batches' order before writing.
//! Both channels are bounded, so a slow consumer stalls the reader instead of growing memory;
//! the reorder buffer holds at most the batches in flight. With one thread everything runs
//! inline, in the same order, through the same functions: output is byte-identical for any
//! thread count and any read size (tested).

use std::collections::BTreeMap;
use std::io::{self, Read};

use crossbeam_channel::bounded;

use crate::block::Block;
use crate::classify::{self, Policy};
use crate::decode::{DecodeError, Markup, Utf8Decoder};
use crate::html::{BlockParser, HtmlSettings};
use crate::io::sink::Sink;
use crate::io::Input;
use crate::lm::model::LanguageModel;
use crate::output::{render_block, OutputFormat, OutputMode};
use crate::plain::TextBlocks;
use crate::segment;

/// What the inputs hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InputFormat {
    /// HTML pages.
    #[default]
    Html,
    /// Plain text, paragraphs separated by blank lines.
    Text,
}

/// Everything that decides how documents are cleaned and written.
#[derive(Clone, Debug)]
pub struct Options {
    pub input_format: InputFormat,
    /// Skip encoding detection and decode every input with this encoding.
    pub encoding: Option<&'static encoding_rs::Encoding>,
    pub html: HtmlSettings,
    pub policy: Policy,
    pub mode: OutputMode,
    pub format: OutputFormat,
    /// Scoring workers; 1 runs everything on the calling thread.
    pub threads: usize,
    /// Bytes read from an input at a time.
    pub read_size: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            input_format: InputFormat::Html,
            encoding: None,
            html: HtmlSettings::default(),
            policy: Policy::default(),
            mode: OutputMode::Clean,
            format: OutputFormat::Plain,
            threads: 1,
            read_size: 64 * 1024,
        }
    }
}

/// How bad a problem with one input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The input was cleaned, but something in it was damaged, skipped or empty (exit code 1).
    Warning,
    /// The input could not be read (exit code 2).
    Error,
}

/// A problem with one input, reported as one line naming the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub input: String,
    pub severity: Severity,
    pub message: String,
}

/// Told what happens during a run: problems as they occur, and each input once it is read.
pub trait Observer: Sync {
    /// A problem with one input.
    fn problem(&self, problem: &Problem);
    /// Input `index` has been read to its end (or given up on).
    fn document_read(&self, _index: usize) {}
}

impl<F: Fn(&Problem) + Sync> Observer for F {
    fn problem(&self, problem: &Problem) {
        self(problem)
    }
}

/// Counts over a whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub documents: u64,
    pub sentences: u64,
    pub kept: u64,
    pub warnings: u64,
    pub errors: u64,
    /// The output was closed early (for example by `| head`); the run stopped quietly.
    pub output_closed: bool,
}

/// Blocks in flight are sent in batches of about this many bytes of text.
const BATCH_TEXT_BYTES: usize = 32 * 1024;

/// A numbered batch of blocks of one document.
struct Job {
    seq: u64,
    /// Index of the document among the inputs.
    doc: u64,
    /// The first batch of its document (the separator goes before it).
    first_of_doc: bool,
    blocks: Vec<Block>,
}

/// A rendered batch.
struct Rendered {
    seq: u64,
    /// The document it belongs to, when it is that document's first batch.
    starts_document: Option<usize>,
    bytes: Vec<u8>,
    sentences: u64,
    kept: u64,
}

/// Cleans every input in order, writing to `out`; `observer` hears of problems as they happen.
pub fn run(
    inputs: &[Input],
    model: &LanguageModel,
    options: &Options,
    out: &mut dyn Sink,
    observer: &dyn Observer,
) -> io::Result<Summary> {
    let mut summary = Summary::default();
    if options.threads <= 1 {
        let mut write_error = None;
        let (warnings, errors) = read_inputs(inputs, options, observer, &mut |job| {
            let rendered = process(job, model, options);
            summary.sentences += rendered.sentences;
            summary.kept += rendered.kept;
            match emit(&rendered, out) {
                Ok(()) => true,
                Err(e) => {
                    write_error = Some(e);
                    false
                }
            }
        });
        summary.documents = inputs.len() as u64;
        summary.warnings = warnings;
        summary.errors = errors;
        return finish(summary, write_error, out);
    }

    let threads = options.threads;
    let (job_tx, job_rx) = bounded::<Job>(threads * 2);
    let (done_tx, done_rx) = bounded::<Rendered>(threads * 2);
    let mut write_error = None;
    let mut counts = (0, 0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let job_rx = job_rx.clone();
            let done_tx = done_tx.clone();
            scope.spawn(move || {
                for job in job_rx {
                    if done_tx.send(process(job, model, options)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(job_rx);
        drop(done_tx);
        let writer = scope.spawn(|| write_in_order(done_rx, out));
        counts = read_inputs(inputs, options, observer, &mut |job| job_tx.send(job).is_ok());
        drop(job_tx);
        match writer.join() {
            Ok(Ok((sentences, kept))) => {
                summary.sentences = sentences;
                summary.kept = kept;
            }
            Ok(Err(e)) => write_error = Some(e),
            Err(_) => write_error = Some(io::Error::other("writer thread panicked")),
        }
    });
    summary.documents = inputs.len() as u64;
    (summary.warnings, summary.errors) = counts;
    finish(summary, write_error, out)
}

/// Writes one rendered batch, starting its document first when it is the document's first.
fn emit(rendered: &Rendered, out: &mut dyn Sink) -> io::Result<()> {
    if let Some(index) = rendered.starts_document {
        out.begin(index)?;
    }
    out.write(&rendered.bytes)
}

/// Flushes the output; a closed pipe ends the run quietly, any other write error is returned.
fn finish(mut summary: Summary, write_error: Option<io::Error>, out: &mut dyn Sink) -> io::Result<Summary> {
    let result = match write_error {
        Some(e) => Err(e),
        None => out.finish(),
    };
    match result {
        Ok(()) => Ok(summary),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            summary.output_closed = true;
            Ok(summary)
        }
        Err(e) => Err(e),
    }
}

/// The writer: receives rendered batches in any order and writes them in sequence.
fn write_in_order(done: crossbeam_channel::Receiver<Rendered>, out: &mut dyn Sink) -> io::Result<(u64, u64)> {
    let mut next = 0u64;
    let mut waiting = BTreeMap::new();
    let (mut sentences, mut kept) = (0, 0);
    for rendered in done {
        waiting.insert(rendered.seq, rendered);
        while let Some(rendered) = waiting.remove(&next) {
            sentences += rendered.sentences;
            kept += rendered.kept;
            emit(&rendered, out)?;
            next += 1;
        }
    }
    Ok((sentences, kept))
}

/// The worker's part: sentences, scores, decisions, rendering.
fn process(job: Job, model: &LanguageModel, options: &Options) -> Rendered {
    let mut bytes = Vec::with_capacity(BATCH_TEXT_BYTES);
    let (mut sentences, mut kept) = (0, 0);
    for mut block in job.blocks {
        segment::segment(&mut block);
        // A block dropped whole needs no scores unless they are printed.
        if options.mode != OutputMode::Clean || options.policy.block_passes(&block) {
            classify::score(&mut block, model);
        }
        options.policy.decide(&mut block);
        sentences += block.sentences.len() as u64;
        kept += block.sentences.iter().filter(|s| s.keep).count() as u64;
        render_block(&block, options.mode, options.format, &mut bytes);
    }
    let starts_document = job.first_of_doc.then_some(job.doc as usize);
    Rendered { seq: job.seq, starts_document, bytes, sentences, kept }
}

/// The reader's part: every input in order, cut into numbered batches handed to `send`
/// (which answers false when the output is gone). Returns (warnings, errors).
fn read_inputs(
    inputs: &[Input],
    options: &Options,
    observer: &dyn Observer,
    send: &mut dyn FnMut(Job) -> bool,
) -> (u64, u64) {
    let mut seq = 0u64;
    let (mut warnings, mut errors) = (0, 0);
    for (doc, input) in inputs.iter().enumerate() {
        let mut batcher = Batcher { seq: &mut seq, doc: doc as u64, first: true, blocks: Vec::new(), text_bytes: 0 };
        let mut problems = Vec::new();
        let name = input.to_string();
        let alive = match input.open() {
            Ok(mut reader) => {
                read_document(&name, &mut reader, options, &mut problems, &mut |blocks| batcher.add(blocks, send))
            }
            Err(e) => {
                let message = format!("cannot open: {}", io_message(&e));
                problems.push(Problem { input: name, severity: Severity::Error, message });
                true
            }
        };
        for problem in &problems {
            match problem.severity {
                Severity::Warning => warnings += 1,
                Severity::Error => errors += 1,
            }
            observer.problem(problem);
        }
        observer.document_read(doc);
        if !alive || !batcher.finish(send) {
            break;
        }
    }
    (warnings, errors)
}

/// Gathers a document's blocks into batches.
struct Batcher<'a> {
    seq: &'a mut u64,
    doc: u64,
    first: bool,
    blocks: Vec<Block>,
    text_bytes: usize,
}

impl Batcher<'_> {
    fn add(&mut self, blocks: &mut Vec<Block>, send: &mut dyn FnMut(Job) -> bool) -> bool {
        for block in blocks.drain(..) {
            self.text_bytes += block.text.len();
            self.blocks.push(block);
            if self.text_bytes >= BATCH_TEXT_BYTES && !self.send(send) {
                return false;
            }
        }
        true
    }

    /// Sends what is gathered; a document always sends at least one (maybe empty) batch.
    fn finish(&mut self, send: &mut dyn FnMut(Job) -> bool) -> bool {
        if self.first || !self.blocks.is_empty() {
            return self.send(send);
        }
        true
    }

    fn send(&mut self, send: &mut dyn FnMut(Job) -> bool) -> bool {
        let job = Job { seq: *self.seq, doc: self.doc, first_of_doc: self.first, blocks: std::mem::take(&mut self.blocks) };
        *self.seq += 1;
        self.first = false;
        self.text_bytes = 0;
        send(job)
    }
}

/// The block source for one document.
enum Blocks {
    Html(Box<BlockParser>),
    Text(TextBlocks),
}

/// Reads one document, handing its blocks to `emit` as they are finished. Returns false when
/// `emit` says the output is gone. Problems are collected, not fatal: what was read is kept.
fn read_document(
    name: &str,
    reader: &mut dyn Read,
    options: &Options,
    problems: &mut Vec<Problem>,
    emit: &mut dyn FnMut(&mut Vec<Block>) -> bool,
) -> bool {
    let mut problem = |severity, message: String| problems.push(Problem { input: name.to_string(), severity, message });
    let markup = match options.input_format {
        InputFormat::Html => Markup::Html,
        InputFormat::Text => Markup::Text,
    };
    let mut decoder = Utf8Decoder::new(options.encoding, markup);
    let mut source = match options.input_format {
        InputFormat::Html => Blocks::Html(Box::new(BlockParser::new(options.html.clone()))),
        InputFormat::Text => Blocks::Text(TextBlocks::new(options.html.max_block_bytes)),
    };
    let mut buffer = vec![0u8; options.read_size.max(1)];
    let mut text = String::new();
    let mut blocks = Vec::new();
    let mut parse_failed = false;
    let mut binary = false;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                problem(Severity::Error, format!("read error: {}; text up to here was kept", io_message(&e)));
                break;
            }
        };
        if let Err(DecodeError::Binary) = decoder.push(&buffer[..n], &mut text) {
            binary = true;
            break;
        }
        if !feed(&mut source, &text, &mut blocks, &mut parse_failed, &mut problem) {
            // The parser gave up; keep draining nothing more from this input.
            break;
        }
        text.clear();
        if !blocks.is_empty() && !emit(&mut blocks) {
            return false;
        }
    }
    if !binary && decoder.finish(&mut text) == Err(DecodeError::Binary) {
        binary = true;
    }
    if binary {
        problem(Severity::Warning, "binary data, not text: skipped".to_string());
        return true;
    }
    if !parse_failed {
        feed(&mut source, &text, &mut blocks, &mut parse_failed, &mut problem);
    }
    match source {
        Blocks::Html(parser) => {
            if let Err(e) = parser.end(&mut blocks) {
                if !parse_failed {
                    problem(Severity::Warning, e.to_string());
                }
            }
        }
        Blocks::Text(splitter) => splitter.end(&mut blocks),
    }
    if decoder.bytes_seen() == 0 {
        problem(Severity::Warning, "empty input".to_string());
    } else if decoder.had_replacements() {
        let (encoding, _) = decoder.encoding().unwrap_or((encoding_rs::UTF_8, crate::decode::EncodingSource::Sniffed));
        let declared = if decoder.encoding_declared() { "declared " } else { "" };
        problem(
            Severity::Warning,
            format!("bytes invalid in its {declared}encoding {} were replaced by U+FFFD", encoding.name()),
        );
    }
    blocks.is_empty() || emit(&mut blocks)
}

/// Feeds decoded text to the block source; false once the HTML parser has given up.
fn feed(
    source: &mut Blocks,
    text: &str,
    blocks: &mut Vec<Block>,
    failed: &mut bool,
    problem: &mut dyn FnMut(Severity, String),
) -> bool {
    match source {
        Blocks::Html(parser) => {
            if let Err(e) = parser.write(text, blocks) {
                *failed = true;
                problem(Severity::Warning, format!("{e}; text up to here was kept"));
                return false;
            }
        }
        Blocks::Text(splitter) => splitter.write(text, blocks),
    }
    true
}

/// An I/O error's message without Rust's "(os error N)" suffix.
fn io_message(e: &io::Error) -> String {
    let message = e.to_string();
    match message.find(" (os error") {
        Some(cut) => message[..cut].to_string(),
        None => message,
    }
}

/// Reads one in-memory page into blocks exactly as [`run`] would (no sentences yet).
pub fn read_blocks(page: &[u8], options: &Options) -> (Vec<Block>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut blocks = Vec::new();
    read_document("<memory>", &mut &page[..], options, &mut problems, &mut |more| {
        blocks.append(more);
        true
    });
    (blocks, problems)
}

/// Cleans one in-memory page exactly as [`run`] would: for tests and tools that hold pages whole.
pub fn clean_bytes(page: &[u8], model: &LanguageModel, options: &Options) -> (Vec<u8>, Vec<Problem>) {
    let (blocks, problems) = read_blocks(page, options);
    let rendered = process(Job { seq: 0, doc: 0, first_of_doc: true, blocks }, model, options);
    (rendered.bytes, problems)
}
