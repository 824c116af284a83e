//! Workers, ordering and back-pressure: runs documents through every stage and writes them.
//!
//! One reader thread reads each input in fixed-size chunks (a whole input, or each WARC
//! response or JSONL line, is one document), decodes, parses and cuts blocks,
//! and sends them in numbered batches on a bounded channel to `threads` workers, which split
//! sentences, score, decide and render. A writer restores the batches' order before writing.
//! Both channels are bounded, so a slow consumer stalls the reader instead of growing memory;
//! the reorder buffer holds at most the batches in flight. With one thread everything runs
//! inline, in the same order, through the same functions: output is byte-identical for any
//! thread count and any read size (tested).

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read};
use std::sync::Arc;

use crossbeam_channel::bounded;

use crate::block::{Block, PageInfo};
use crate::classify::{self, Choices, Decider, Method, Policy};
use crate::decode::{DecodeError, Markup, Utf8Decoder};
use crate::features;
use crate::html::{BlockParser, HtmlSettings};
use crate::io::jsonl::{parse_line_bytes, JsonlLines};
use crate::io::sink::{DocumentMeta, DocumentStats, Sink};
use crate::io::warc::{http_response_parts, WarcReader};
use crate::io::{io_message, Input};
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
    /// WARC files: every HTML `response` record is a document.
    Warc,
    /// JSON lines: the string field [`Options::jsonl_field`] of every line is a document.
    Jsonl,
}

/// Everything that decides how documents are cleaned and written.
#[derive(Clone, Debug)]
pub struct Options {
    pub input_format: InputFormat,
    /// Skip encoding detection and decode every input with this encoding.
    pub encoding: Option<&'static encoding_rs::Encoding>,
    pub html: HtmlSettings,
    /// The decision: perplexity threshold or the learned classifier.
    pub method: Method,
    /// Thresholds of the perplexity method (the perplexity threshold applies to both).
    pub policy: Policy,
    pub mode: OutputMode,
    pub format: OutputFormat,
    /// Scoring workers; 1 runs everything on the calling thread.
    pub threads: usize,
    /// Bytes read from an input at a time.
    pub read_size: usize,
    /// JSONL: the field cleaned (HTML, or plain text when it is named `text`).
    pub jsonl_field: String,
    /// JSONL: drop lines that cannot be parsed instead of passing them through.
    pub skip_bad_lines: bool,
    /// Largest WARC record or JSONL line read; a larger one is skipped and reported.
    pub max_record_bytes: usize,
    /// WARC: clean every response, not only 2xx HTML ones (other payloads as plain text).
    pub all_responses: bool,
    /// The combined method's leaning, comments and document bound ([`Decider`]).
    pub choices: Choices,
}

impl Default for Options {
    /// The defaults, with the combined method and the embedded classifier.
    fn default() -> Options {
        Options::with_method(Method::Combined(classify::embedded()))
    }
}

impl Options {
    /// The defaults with the given decision method.
    pub fn with_method(method: Method) -> Options {
        Options {
            input_format: InputFormat::Html,
            encoding: None,
            html: HtmlSettings::default(),
            method,
            policy: Policy::default(),
            mode: OutputMode::Clean,
            format: OutputFormat::Plain,
            threads: 1,
            read_size: 64 * 1024,
            jsonl_field: "html".to_string(),
            skip_bad_lines: false,
            max_record_bytes: 16 * 1024 * 1024,
            all_responses: false,
            choices: Choices::default(),
        }
    }
}

/// How bad a problem with one input is; the exit status follows the worst one of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Worth saying, but the input was cleaned: bytes invalid in its encoding were replaced,
    /// or it was empty (exit code 0).
    Note,
    /// The input, or part of it, was skipped: binary, damaged, truncated, a record or line that
    /// cannot be parsed (exit code 1).
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
    fn input_read(&self, _index: usize) {}
    /// Document `index` (a whole input, a WARC record or a JSONL line) has been read.
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
    /// WARC responses not cleaned: a status other than 2xx, or not HTML ([`Options::all_responses`]).
    pub records_skipped: u64,
    /// The output was closed early (for example by `| head`); the run stopped quietly.
    pub output_closed: bool,
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
        self.output_closed |= other.output_closed;
    }
}

/// Blocks in flight are sent in batches of about this many bytes of text…
const BATCH_TEXT_BYTES: usize = 32 * 1024;
/// …or of at most this many blocks (each block costs a few hundred bytes besides its text).
const BATCH_BLOCKS: usize = 256;
/// The most batches in flight between the reader and the writer, whatever the thread count:
/// with batches bounded by text and blocks, this bounds the pipeline's memory.
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
    Threads { threads: usize, source: io::Error },
}

/// A numbered batch of blocks of one document.
struct Job {
    seq: u64,
    /// On a document's first batch: the document's index and what it is.
    begins: Option<(usize, Arc<DocumentMeta>)>,
    /// The document's last batch.
    ends: bool,
    /// On the last batch: what the page said about itself.
    page: Option<Box<PageInfo>>,
    blocks: Vec<Block>,
}

/// A batch whose blocks are segmented and scored, waiting for the decision.
type Scored = Job;

/// Cleans every input in order, writing to `out`; `observer` hears of problems as they happen.
///
/// With several threads, at most [`MAX_BATCHES_IN_FLIGHT`] batches (or `2 × threads + 2`, if
/// fewer) are between the reader and the writer at any time: a token is taken before a batch is
/// sent and given back once it is written, so memory does not grow with the thread count.
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
        let counts = read_inputs(inputs, options, observer, &mut |job| match writer
            .emit(process(job, model, options))
        {
            Ok(()) => true,
            Err(e) => {
                write_error = Some(e);
                false
            }
        });
        (summary.sentences, summary.kept) = writer.totals;
        summary.add(&counts);
        return finish(summary, write_error, out);
    }

    let threads = options.threads.min(MAX_THREADS);
    let in_flight = (2 * threads + 2).min(MAX_BATCHES_IN_FLIGHT);
    let (job_tx, job_rx) = bounded::<Job>(in_flight);
    let (done_tx, done_rx) = bounded::<Scored>(in_flight);
    let (token_tx, token_rx) = bounded::<()>(in_flight);
    for _ in 0..in_flight {
        token_tx
            .send(())
            .expect("the token channel has room for every token");
    }
    let mut write_error = None;
    let mut counts = Summary::default();
    let started = std::thread::scope(|scope| {
        for _ in 0..threads {
            let job_rx = job_rx.clone();
            let done_tx = done_tx.clone();
            let worker = std::thread::Builder::new()
                .name("ppl-worker".into())
                .spawn_scoped(scope, move || {
                    for job in job_rx {
                        if done_tx.send(process(job, model, options)).is_err() {
                            break;
                        }
                    }
                });
            // Workers already started end when the job channel closes on return.
            if let Err(source) = worker {
                return Err(RunError::Threads { threads, source });
            }
        }
        drop(job_rx);
        drop(done_tx);
        let writer = std::thread::Builder::new()
            .name("ppl-writer".into())
            .spawn_scoped(scope, || {
                write_in_order(done_rx, token_tx, Writer::new(options, &mut *out))
            })
            .map_err(|source| RunError::Threads { threads, source })?;
        counts = read_inputs(inputs, options, observer, &mut |job| {
            // No token: the writer has stopped (the output is gone).
            token_rx.recv().is_ok() && job_tx.send(job).is_ok()
        });
        drop(job_tx);
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

/// The ordered end of the pipeline: decides, renders and writes each document's blocks,
/// telling the sink where documents begin and end.
struct Writer<'a> {
    options: &'a Options,
    out: &'a mut dyn Sink,
    decider: Decider<'a>,
    /// The current document's counts.
    document: DocumentStats,
    /// (sentences, kept) over the run.
    totals: (u64, u64),
    bytes: Vec<u8>,
}

impl<'a> Writer<'a> {
    fn new(options: &'a Options, out: &'a mut dyn Sink) -> Writer<'a> {
        let decider = Decider::new(&options.method, options.policy, options.choices);
        Writer {
            options,
            out,
            decider,
            document: DocumentStats::default(),
            totals: (0, 0),
            bytes: Vec::new(),
        }
    }

    /// Decides, renders and writes one scored batch (some blocks may wait for the next).
    fn emit(&mut self, scored: Scored) -> io::Result<()> {
        if let Some((index, meta)) = &scored.begins {
            self.out.begin(*index, meta)?;
            self.document = DocumentStats::default();
        }
        let Writer {
            options,
            decider,
            document,
            totals,
            bytes,
            ..
        } = self;
        bytes.clear();
        let mut render = |block: Block| {
            let sentences = block.sentences.len() as u64;
            document.sentences += sentences;
            totals.0 += sentences;
            for sentence in block.sentences.iter().filter(|s| s.keep) {
                document.kept += 1;
                totals.1 += 1;
                document.kept_perplexity_sum += f64::from(sentence.perplexity);
            }
            render_block(&block, options.mode, options.format, bytes);
        };
        for block in scored.blocks {
            decider.push(block, &mut render);
        }
        if scored.ends {
            decider.finish(&mut render);
        }
        self.out.write(&self.bytes)?;
        if scored.ends {
            if let Some(page) = scored.page {
                self.document.page = *page;
            }
            self.out.end(&self.document)?;
        }
        Ok(())
    }
}

/// Flushes the output; a closed pipe ends the run quietly, any other write error is returned.
fn finish(
    mut summary: Summary,
    write_error: Option<io::Error>,
    out: &mut dyn Sink,
) -> Result<Summary, RunError> {
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
        Err(e) => Err(RunError::Output(e)),
    }
}

/// The writer thread: receives scored batches in any order and writes them in sequence,
/// giving a token back for each batch written.
fn write_in_order(
    done: crossbeam_channel::Receiver<Scored>,
    tokens: crossbeam_channel::Sender<()>,
    mut writer: Writer,
) -> io::Result<(u64, u64)> {
    let mut next = 0u64;
    let mut waiting = BTreeMap::new();
    for scored in done {
        waiting.insert(scored.seq, scored);
        while let Some(scored) = waiting.remove(&next) {
            writer.emit(scored)?;
            next += 1;
            // The reader may have finished and dropped its end: nothing more to hand out then.
            let _ = tokens.try_send(());
        }
    }
    Ok(writer.totals)
}

/// The worker's part: sentences and scores (and, for the combined method, the evidence).
fn process(mut job: Job, model: &LanguageModel, options: &Options) -> Scored {
    for block in &mut job.blocks {
        segment::segment(block);
        match options.method.classifier() {
            Some(classifier) => features::measure(block, model, &classifier.boilerplate),
            // A block dropped whole needs no scores unless they are printed.
            None if options.mode != OutputMode::Clean || options.policy.block_passes(block) => {
                classify::score(block, model)
            }
            None => {}
        }
    }
    job
}

/// The reader's part: every input in order, cut into documents and numbered batches handed
/// to `send` (which answers false when the output is gone). Returns the reader's counts
/// (documents, problems, records skipped).
fn read_inputs(
    inputs: &[Input],
    options: &Options,
    observer: &dyn Observer,
    send: &mut dyn FnMut(Job) -> bool,
) -> Summary {
    let mut reader = Reader {
        options,
        observer,
        send,
        seq: 0,
        counts: Summary::default(),
    };
    for (index, input) in inputs.iter().enumerate() {
        let name = input.to_string();
        let alive = match input.open() {
            Err(e) => {
                reader.report(
                    &name,
                    Severity::Error,
                    format!("cannot open: {}", io_message(&e)),
                );
                // A plain input keeps its place in the output even when it cannot be read.
                !matches!(options.input_format, InputFormat::Html | InputFormat::Text)
                    || reader.document(&name, DocumentMeta::Input, None, None)
            }
            Ok(mut content) => match options.input_format {
                InputFormat::Html | InputFormat::Text => {
                    reader.document(&name, DocumentMeta::Input, Some(&mut content), None)
                }
                InputFormat::Warc => reader.warc(&name, content),
                InputFormat::Jsonl => reader.jsonl(&name, content),
            },
        };
        observer.input_read(index);
        if !alive {
            break;
        }
    }
    reader.counts
}

/// The reader's state across inputs: batch numbers, document numbers and problem counts.
struct Reader<'a> {
    options: &'a Options,
    observer: &'a dyn Observer,
    send: &'a mut dyn FnMut(Job) -> bool,
    seq: u64,
    /// Documents, problems and records skipped so far (the writer counts sentences).
    counts: Summary,
}

impl Reader<'_> {
    fn report(&mut self, input: &str, severity: Severity, message: String) {
        match severity {
            Severity::Note => {}
            Severity::Warning => self.counts.warnings += 1,
            Severity::Error => self.counts.errors += 1,
        }
        self.observer.problem(&Problem {
            input: input.to_string(),
            severity,
            message,
        });
    }

    /// One document: its blocks (none without `content`) in batches, the last marked.
    /// `overrides` replaces the options' input format and encoding for this document (a JSONL
    /// `text` field is plain text; a WARC response's HTTP charset is its encoding).
    fn document(
        &mut self,
        name: &str,
        meta: DocumentMeta,
        content: Option<&mut dyn Read>,
        overrides: Option<(InputFormat, Option<&'static encoding_rs::Encoding>)>,
    ) -> bool {
        let index = self.counts.documents as usize;
        self.counts.documents += 1;
        let (format, encoding) =
            overrides.unwrap_or((self.options.input_format, self.options.encoding));
        let mut batcher = Batcher {
            seq: &mut self.seq,
            begins: Some((index, Arc::new(meta))),
            blocks: Vec::new(),
            text_bytes: 0,
        };
        let mut problems = Vec::new();
        let mut page = PageInfo::default();
        let send = &mut *self.send;
        let alive = match content {
            Some(content) => read_document(
                name,
                content,
                self.options,
                format,
                encoding,
                (&mut problems, &mut page),
                &mut |blocks| batcher.add(blocks, send),
            ),
            None => true,
        };
        let alive = alive && batcher.finish(send, page);
        for problem in problems {
            self.report(&problem.input, problem.severity, problem.message);
        }
        self.observer.document_read(index);
        alive
    }

    /// `content`, buffered; `None`, reported as a note like an empty page, when it holds no byte.
    fn non_empty(
        &mut self,
        name: &str,
        content: Box<dyn Read + Send>,
    ) -> Option<BufReader<Box<dyn Read + Send>>> {
        let mut content = BufReader::new(content);
        if content.fill_buf().is_ok_and(|head| head.is_empty()) {
            self.report(name, Severity::Note, "empty input".to_string());
            return None;
        }
        Some(content)
    }

    /// Every HTML response of a WARC file is a document; its HTTP charset is its encoding.
    fn warc(&mut self, name: &str, content: Box<dyn Read + Send>) -> bool {
        let Some(content) = self.non_empty(name, content) else {
            return true;
        };
        let records =
            WarcReader::new(content).with_max_record_bytes(self.options.max_record_bytes as u64);
        for record in records {
            let record = match record {
                Ok(record) => record,
                Err(e) => {
                    self.report(name, Severity::Warning, e.to_string());
                    continue;
                }
            };
            if !record.is_http_response() {
                continue;
            }
            let Some(http) = http_response_parts(&record.payload) else {
                self.report(
                    name,
                    Severity::Warning,
                    format!("record {}: not an HTTP response", record.record_id),
                );
                continue;
            };
            let html = http.is_html();
            let wanted = (200..300).contains(&http.status) && html;
            if !wanted && !self.options.all_responses {
                self.counts.records_skipped += 1;
                continue;
            }
            let charset = || {
                http.charset
                    .as_deref()
                    .and_then(crate::decode::encoding_for_label)
            };
            let encoding = self.options.encoding.or_else(charset);
            let meta = DocumentMeta::WarcResponse {
                record_id: record.record_id.clone(),
                target_uri: record.target_uri.clone(),
                date: record.date.clone(),
            };
            let document_name = format!("{name}: record {}", record.record_id);
            if !self.document(
                &document_name,
                meta,
                Some(&mut http.body_reader()),
                Some((
                    if html {
                        InputFormat::Html
                    } else {
                        InputFormat::Text
                    },
                    encoding,
                )),
            ) {
                return false;
            }
        }
        true
    }

    /// Every line of a JSONL file is a document: its field cleaned, or the line passed through
    /// (or skipped) when it cannot be parsed.
    fn jsonl(&mut self, name: &str, content: Box<dyn Read + Send>) -> bool {
        let field = self.options.jsonl_field.as_str();
        let format = if field == "text" {
            InputFormat::Text
        } else {
            InputFormat::Html
        };
        let Some(content) = self.non_empty(name, content) else {
            return true;
        };
        let mut lines = JsonlLines::new(content, self.options.max_record_bytes);
        while let Some(line) = lines.next_line() {
            let (number, bytes) = match line {
                Ok(line) => line,
                Err(e) => {
                    self.report(
                        name,
                        Severity::Error,
                        format!("read error: {}", io_message(&e)),
                    );
                    return true;
                }
            };
            let parsed = bytes.map(|bytes| (parse_line_bytes(&bytes, number, field), bytes));
            let alive = match parsed {
                Ok((Ok(record), _)) => {
                    let value = record.value().to_string();
                    let document_name = format!("{name}: line {number}");
                    let meta = DocumentMeta::JsonlLine(record);
                    self.document(
                        &document_name,
                        meta,
                        Some(&mut value.as_bytes()),
                        Some((format, Some(encoding_rs::UTF_8))),
                    )
                }
                Ok((Err(e), bytes)) => {
                    let action = if self.options.skip_bad_lines {
                        "skipped"
                    } else {
                        "passed through"
                    };
                    self.report(name, Severity::Warning, format!("{e} ({action})"));
                    self.options.skip_bad_lines
                        || self.document(name, DocumentMeta::Passthrough(bytes), None, None)
                }
                Err(e) => {
                    self.report(name, Severity::Warning, format!("{e} (skipped)"));
                    true
                }
            };
            if !alive {
                return false;
            }
        }
        true
    }
}

/// Gathers a document's blocks into batches.
struct Batcher<'a> {
    seq: &'a mut u64,
    /// Set until the first batch is sent.
    begins: Option<(usize, Arc<DocumentMeta>)>,
    blocks: Vec<Block>,
    text_bytes: usize,
}

impl Batcher<'_> {
    fn add(&mut self, blocks: &mut Vec<Block>, send: &mut dyn FnMut(Job) -> bool) -> bool {
        for block in blocks.drain(..) {
            self.text_bytes += block.text.len();
            self.blocks.push(block);
            let full = self.text_bytes >= BATCH_TEXT_BYTES || self.blocks.len() >= BATCH_BLOCKS;
            if full && !self.send(send, None) {
                return false;
            }
        }
        true
    }

    /// Sends the last batch (maybe empty: every document ends with one), with `page`.
    fn finish(&mut self, send: &mut dyn FnMut(Job) -> bool, page: PageInfo) -> bool {
        self.send(send, Some(Box::new(page)))
    }

    fn send(&mut self, send: &mut dyn FnMut(Job) -> bool, page: Option<Box<PageInfo>>) -> bool {
        let job = Job {
            seq: *self.seq,
            begins: self.begins.take(),
            ends: page.is_some(),
            page,
            blocks: std::mem::take(&mut self.blocks),
        };
        *self.seq += 1;
        self.text_bytes = 0;
        send(job)
    }
}

/// The block source for one document.
enum Blocks {
    Html(Box<BlockParser>),
    Text(Box<TextBlocks>),
}

/// Reads one document, handing its blocks to `emit` as they are finished. Returns false when
/// `emit` says the output is gone. Problems are collected, not fatal: what was read is kept.
fn read_document(
    name: &str,
    reader: &mut dyn Read,
    options: &Options,
    format: InputFormat,
    encoding: Option<&'static encoding_rs::Encoding>,
    (problems, page): (&mut Vec<Problem>, &mut PageInfo),
    emit: &mut dyn FnMut(&mut Vec<Block>) -> bool,
) -> bool {
    let mut problem = |severity, message: String| {
        problems.push(Problem {
            input: name.to_string(),
            severity,
            message,
        })
    };
    let (markup, mut source) = match format {
        InputFormat::Text => (
            Markup::Text,
            Blocks::Text(Box::new(TextBlocks::new(options.html.max_block_bytes))),
        ),
        _ => (
            Markup::Html,
            Blocks::Html(Box::new(BlockParser::new(options.html.clone()))),
        ),
    };
    let mut decoder = Utf8Decoder::new(encoding, markup);
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
                // Damaged compressed data is damaged input (a warning); a failing read is an error.
                let severity = match e.kind() {
                    io::ErrorKind::InvalidData
                    | io::ErrorKind::InvalidInput
                    | io::ErrorKind::UnexpectedEof => Severity::Warning,
                    _ => Severity::Error,
                };
                problem(
                    severity,
                    format!("read error: {}; text up to here was kept", io_message(&e)),
                );
                break;
            }
        };
        if let Err(DecodeError::Binary) = decoder.push(&buffer[..n], &mut text) {
            binary = true;
            break;
        }
        // Once the parser has given up, the rest is still read and decoded (and dropped), so
        // that what is reported about the input does not depend on where a read ended.
        feed(
            &mut source,
            &text,
            &mut blocks,
            &mut parse_failed,
            &mut problem,
        );
        text.clear();
        if !blocks.is_empty() && !emit(&mut blocks) {
            return false;
        }
    }
    if !binary && decoder.finish(&mut text) == Err(DecodeError::Binary) {
        binary = true;
    }
    if binary {
        problem(
            Severity::Warning,
            "binary data, not text: skipped".to_string(),
        );
        return true;
    }
    if !parse_failed {
        feed(
            &mut source,
            &text,
            &mut blocks,
            &mut parse_failed,
            &mut problem,
        );
    }
    match source {
        Blocks::Html(parser) => {
            let (result, info) = parser.end_page(&mut blocks);
            *page = info;
            if let Err(e) = result {
                if !parse_failed {
                    problem(Severity::Warning, e.to_string());
                }
            }
        }
        Blocks::Text(splitter) => (*splitter).end(&mut blocks),
    }
    if decoder.bytes_seen() == 0 {
        problem(Severity::Note, "empty input".to_string());
    } else if decoder.had_replacements() {
        let (encoding, _) = decoder
            .encoding()
            .unwrap_or((encoding_rs::UTF_8, crate::decode::EncodingSource::Sniffed));
        let declared = if decoder.encoding_declared() {
            "declared "
        } else {
            ""
        };
        problem(
            Severity::Note,
            format!(
                "bytes invalid in its {declared}encoding {} were replaced by U+FFFD",
                encoding.name()
            ),
        );
    }
    blocks.is_empty() || emit(&mut blocks)
}

/// Feeds decoded text to the block source (nothing once the HTML parser has given up).
fn feed(
    source: &mut Blocks,
    text: &str,
    blocks: &mut Vec<Block>,
    failed: &mut bool,
    problem: &mut dyn FnMut(Severity, String),
) {
    match source {
        Blocks::Html(parser) => {
            if let Err(e) = parser.write(text, blocks) {
                *failed = true;
                problem(Severity::Warning, format!("{e}; text up to here was kept"));
            }
        }
        Blocks::Text(splitter) => splitter.write(text, blocks),
    }
}

/// Reads one in-memory page into blocks exactly as [`run`] would (no sentences yet).
pub fn read_blocks(page: &[u8], options: &Options) -> (Vec<Block>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut blocks = Vec::new();
    read_document(
        "<memory>",
        &mut &page[..],
        options,
        options.input_format,
        options.encoding,
        (&mut problems, &mut PageInfo::default()),
        &mut |more| {
            blocks.append(more);
            true
        },
    );
    (blocks, problems)
}

/// Cleans one in-memory page exactly as [`run`] would: for tests and tools that hold pages whole.
pub fn clean_bytes(
    page: &[u8],
    model: &LanguageModel,
    options: &Options,
) -> (Vec<u8>, Vec<Problem>) {
    let (blocks, problems) = read_blocks(page, options);
    let scored = process(
        Job {
            seq: 0,
            begins: None,
            ends: true,
            page: None,
            blocks,
        },
        model,
        options,
    );
    let mut sink = crate::io::sink::StreamSink::new(Vec::new(), b"");
    Writer::new(options, &mut sink)
        .emit(scored)
        .expect("writing to memory cannot fail");
    (sink.into_inner(), problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cuts `blocks` into batches as the reader does: their sizes, last batch marked.
    fn batches(blocks: Vec<Block>) -> Vec<(usize, usize, bool)> {
        let mut seq = 0;
        let mut batcher = Batcher {
            seq: &mut seq,
            begins: None,
            blocks: Vec::new(),
            text_bytes: 0,
        };
        let mut sent = Vec::new();
        let mut send = |job: Job| {
            sent.push((
                job.blocks.len(),
                job.blocks.iter().map(|b| b.text.len()).sum(),
                job.ends,
            ));
            true
        };
        assert!(batcher.add(&mut blocks.into_iter().collect(), &mut send));
        assert!(batcher.finish(&mut send, PageInfo::default()));
        sent
    }

    #[test]
    fn batches_are_bounded_by_blocks_and_by_text() {
        let tiny = batches(
            (0..1000)
                .map(|i| Block::new(i, Default::default(), "a"))
                .collect(),
        );
        assert_eq!(
            tiny.iter().map(|b| b.0).collect::<Vec<_>>(),
            [256, 256, 256, 232]
        );
        let long = "word ".repeat(2000);
        let large = batches(
            (0..10)
                .map(|i| Block::new(i, Default::default(), long.clone()))
                .collect(),
        );
        assert!(
            large
                .iter()
                .all(|&(_, text, _)| text < BATCH_TEXT_BYTES + long.len()),
            "{large:?}"
        );
        assert_eq!(large.iter().map(|b| b.0).sum::<usize>(), 10);
        assert_eq!(large.iter().filter(|b| b.2).count(), 1);
        assert!(large.last().unwrap().2);
    }

    #[test]
    fn thread_counts_past_the_limit_are_clamped() {
        // Past the limit the pipeline clamps rather than asking the system for more threads.
        let options = Options {
            threads: MAX_THREADS * 4,
            ..Options::with_method(Method::Perplexity)
        };
        let mut sink = crate::io::sink::StreamSink::new(Vec::new(), b"\n");
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
}
