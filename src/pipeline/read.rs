//! The reader: every input in order, cut into documents (a whole input, a page of a stream, a
//! WARC response, a JSONL line) and numbered batches of blocks.

use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;

use super::document::{read_document, DocumentKind, Findings, OutputClosed};
use super::{Batch, InputFormat, Observer, Options, Problem, Severity, Summary, Trouble};
use super::{BATCH_BLOCKS, BATCH_TEXT_BYTES};
use crate::block::{Block, PageInfo};
use crate::sink::DocumentMeta;
use crate::source::jsonl::{parse_line_bytes, JsonlError, JsonlLines};
use crate::source::pages::Pages;
use crate::source::spool::{Spool, SpoolReader};
use crate::source::warc::{http_response_parts, WarcReader};
use crate::source::Input;

/// Hands a batch on; an error stops the reading.
pub(super) type SendBatch<'a> = dyn FnMut(Batch) -> Result<(), OutputClosed> + 'a;

/// Hands a whole document on to be cleaned elsewhere ([`super::parallel`]); an error stops the
/// reading.
pub(super) type HandDocument<'a> = dyn FnMut(Handed) -> Result<(), OutputClosed> + 'a;

/// A document read whole, to be cleaned on another thread as [`Reader::document`] cleans one.
pub(super) struct Handed {
    /// What problems call it.
    pub name: String,
    /// Where it came from.
    pub meta: DocumentMeta,
    /// Its bytes (and the read error that ended them, if one did); `None`: no content, as a
    /// JSONL line passed through has; `Err`: why it could not be read.
    pub content: Result<Option<HeldBytes>, String>,
    /// How its bytes are read.
    pub kind: DocumentKind,
    /// Its input was found while walking a directory.
    pub found: bool,
}

/// A document's bytes as they were read (the first [`HELD_BYTES`] in memory, the rest in a
/// temporary file), and the error that ended the reading, if one did: read back ([`Read`])
/// they give the same bytes and then the same error.
pub(super) struct HeldBytes {
    bytes: Option<SpoolReader>,
    error: Option<std::io::Error>,
}

/// A document's bytes held in memory while it waits for a thread; the rest waits on disk.
const HELD_BYTES: usize = 256 << 10;

impl HeldBytes {
    /// Reads `content` to its end.
    fn read(content: &mut dyn Read) -> HeldBytes {
        let mut spool = Spool::new(HELD_BYTES);
        let mut buffer = vec![0; 64 << 10];
        let mut error = loop {
            match content.read(&mut buffer) {
                Ok(0) => break None,
                Ok(n) => {
                    if let Err(e) = spool.write(&buffer[..n]) {
                        break Some(e);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Some(e),
            }
        };
        let bytes = match spool.into_reader() {
            Ok(bytes) => Some(bytes),
            Err(e) => {
                error.get_or_insert(e);
                None
            }
        };
        HeldBytes { bytes, error }
    }
}

impl Read for HeldBytes {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.bytes.as_mut().map_or(Ok(0), |bytes| bytes.read(buf))? {
            0 => self.error.take().map_or(Ok(0), Err),
            n => Ok(n),
        }
    }
}

/// The reader's part: every input in order, cut into documents and numbered batches handed
/// to `send` (which stops the reading when the output is gone). Returns the reader's counts
/// (documents, problems, records skipped).
pub(super) fn read_inputs(
    inputs: &[Input],
    options: &Options,
    observer: &dyn Observer,
    send: &mut SendBatch,
) -> Summary {
    read_inputs_into(inputs, Reader::new(options, observer, send))
}

/// As [`read_inputs`], but every document is read whole and handed to `hand` instead of being
/// cut into batches here.
pub(super) fn hand_inputs(
    inputs: &[Input],
    options: &Options,
    observer: &dyn Observer,
    hand: &mut HandDocument,
) -> Summary {
    let mut no_batches = |_: Batch| Ok(());
    let mut reader = Reader::new(options, observer, &mut no_batches);
    reader.hand = Some(hand);
    read_inputs_into(inputs, reader)
}

/// Cleans `handed` as [`Reader::document`] would have where it was read, sending its batches
/// to `send`: its counts (but for the document itself, counted where it was read).
pub(super) fn handed_document(
    handed: Handed,
    options: &Options,
    observer: &dyn Observer,
    send: &mut SendBatch,
) -> Summary {
    let mut reader = Reader::new(options, observer, send);
    reader.found = handed.found;
    let _ = match handed.content {
        Ok(Some(mut bytes)) => {
            reader.document(&handed.name, handed.meta, Ok(Some(&mut bytes)), handed.kind)
        }
        Ok(None) => reader.document(&handed.name, handed.meta, Ok(None), handed.kind),
        Err(failure) => reader.document(&handed.name, handed.meta, Err(failure), handed.kind),
    };
    Summary {
        documents: 0,
        ..reader.counts
    }
}

/// Every input in order, read by `reader`.
fn read_inputs_into(inputs: &[Input], mut reader: Reader) -> Summary {
    let options = reader.options;
    let observer = reader.observer;
    for (index, input) in inputs.iter().enumerate() {
        let name = input.to_string();
        reader.found = matches!(input, Input::Found(_));
        if skipped_as_binary(input, options.read.input_format) {
            reader.counts.binary_skipped += 1;
            reader.counts.not_cleaned += 1;
            observer.input_read(index);
            continue;
        }
        let read = match input.open() {
            Err(e) => {
                let trouble = Trouble::Open(Arc::new(e));
                let failure = trouble.to_string();
                reader.report(&name, trouble);
                if matches!(
                    options.read.input_format,
                    InputFormat::Warc | InputFormat::Jsonl
                ) {
                    reader.counts.not_cleaned += 1;
                }
                // A plain input keeps its place in the output even when it cannot be read,
                // as a document that failed (a sink writes no file or ordinary record for it).
                match options.read.input_format {
                    InputFormat::Html | InputFormat::Text => reader.document(
                        &name,
                        DocumentMeta::Input {
                            source: name.clone(),
                        },
                        Err(failure),
                        DocumentKind::of(options),
                    ),
                    InputFormat::Warc | InputFormat::Jsonl => Ok(()),
                }
            }
            Ok(content) if cut_into_pages(input, options) => reader.pages(&name, content),
            Ok(mut content) => match options.read.input_format {
                InputFormat::Html | InputFormat::Text => reader.document(
                    &name,
                    DocumentMeta::Input {
                        source: name.clone(),
                    },
                    Ok(Some(&mut content)),
                    DocumentKind::of(options),
                ),
                InputFormat::Warc => reader.warc(&name, content),
                InputFormat::Jsonl => reader.jsonl(&name, content),
            },
        };
        observer.input_read(index);
        if read.is_err() {
            break;
        }
    }
    reader.counts
}

/// Whether `input` is cut into its pages ([`Pages`]): a stream of HTML, unless each input is
/// to be read as one document.
pub(super) fn cut_into_pages(input: &Input, options: &Options) -> bool {
    matches!(input, Input::Stream(_))
        && options.read.input_format == InputFormat::Html
        && !options.read.one_document
}

/// Whether a file found while walking for WARC or JSONL input is not text, and so skipped
/// quietly as it would be among pages (where decoding tells).
fn skipped_as_binary(input: &Input, format: InputFormat) -> bool {
    use crate::source::sniff;
    matches!(format, InputFormat::Warc | InputFormat::Jsonl)
        && sniff::found_binary(input, &sniff::head(input))
}

/// The reader's state across inputs: batch numbers, document numbers and problem counts.
struct Reader<'a> {
    options: &'a Options,
    observer: &'a dyn Observer,
    send: &'a mut SendBatch<'a>,
    /// Set: documents are read whole and handed here instead of cut into batches.
    hand: Option<&'a mut HandDocument<'a>>,
    seq: u64,
    /// Documents, problems and records skipped so far (the writer counts sentences).
    counts: Summary,
    /// The input being read was found while walking a directory: if it is not text, it is
    /// skipped quietly (a record of it that is not text is still reported).
    found: bool,
}

impl<'a> Reader<'a> {
    fn new(options: &'a Options, observer: &'a dyn Observer, send: &'a mut SendBatch<'a>) -> Self {
        Reader {
            options,
            observer,
            send,
            hand: None,
            seq: 0,
            counts: Summary::default(),
            found: false,
        }
    }

    fn report(&mut self, input: &str, trouble: Trouble) {
        let problem = Problem::new(input, trouble);
        match problem.severity {
            Severity::Note => {}
            Severity::Warning => self.counts.warnings += 1,
            Severity::Error => self.counts.errors += 1,
        }
        self.observer.problem(&problem);
    }

    /// Hands a document whose bytes are held on, to be cleaned elsewhere (`hand`).
    fn hand_on(
        &mut self,
        name: &str,
        meta: DocumentMeta,
        content: Result<Option<HeldBytes>, String>,
        kind: DocumentKind,
    ) -> Result<(), OutputClosed> {
        self.counts.documents += 1;
        let hand = self
            .hand
            .as_mut()
            .expect("a reader that hands documents on");
        hand(Handed {
            name: name.to_string(),
            meta,
            content,
            kind,
            found: self.found,
        })
    }

    /// One document: its blocks (none without `content`) in batches, the last marked, read as
    /// `kind` says (a JSONL `text` field is plain text; a WARC response's HTTP charset is its
    /// encoding). A document that could not be read (`Err`: why) or is not text is marked
    /// failed on its last batch, so that sinks write no ordinary output for it.
    fn document(
        &mut self,
        name: &str,
        meta: DocumentMeta,
        content: Result<Option<&mut dyn Read>, String>,
        kind: DocumentKind,
    ) -> Result<(), OutputClosed> {
        if self.hand.is_some() {
            let content = content.map(|content| content.map(HeldBytes::read));
            return self.hand_on(name, meta, content, kind);
        }
        let index = self.counts.documents as usize;
        self.counts.documents += 1;
        // A whole file found while walking (not a record of one) is skipped quietly if binary.
        let quiet_binary = self.found && matches!(meta, DocumentMeta::Input { .. });
        let mut batcher = Batcher {
            seq: &mut self.seq,
            begins: Some((index, Arc::new(meta))),
            blocks: Vec::new(),
            text_bytes: 0,
        };
        let mut findings = Findings::default();
        let send = &mut *self.send;
        let (read, mut failure) = match content {
            Ok(Some(content)) => {
                let read = read_document(content, self.options, kind, &mut findings, &mut |b| {
                    batcher.add(b, send)
                });
                (read, None)
            }
            Ok(None) => (Ok(()), None),
            Err(failure) => (Ok(()), Some(failure)),
        };
        if let Some(binary) = findings
            .problems
            .iter()
            .find(|t| matches!(t, Trouble::Binary))
        {
            failure = Some(binary.to_string());
        }
        self.counts.not_cleaned += u64::from(failure.is_some());
        let page = std::mem::take(&mut findings.page);
        let sent = read.and_then(|()| batcher.finish(send, page, failure));
        self.counts.bytes += findings.bytes;
        for trouble in findings.problems {
            if quiet_binary && matches!(trouble, Trouble::Binary) {
                self.counts.binary_skipped += 1;
                continue;
            }
            self.report(name, trouble);
        }
        self.observer.document_read(index);
        sent
    }

    /// `content`, buffered; `None`, reported as a note like an empty page, when it holds no byte.
    fn non_empty(
        &mut self,
        name: &str,
        content: Box<dyn Read + Send>,
    ) -> Option<BufReader<Box<dyn Read + Send>>> {
        let mut content = BufReader::new(content);
        if content.fill_buf().is_ok_and(|head| head.is_empty()) {
            self.report(name, Trouble::Empty);
            return None;
        }
        Some(content)
    }

    /// Every page of a stream is a document ([`Pages`]), named as the stream and, from the
    /// second on, by its number; a page cut off before the next began is reported.
    fn pages(&mut self, name: &str, content: Box<dyn Read + Send>) -> Result<(), OutputClosed> {
        let read = &self.options.read;
        let mut pages = Pages::new(content, read.read_size, read.max_record_bytes);
        let mut number = 0;
        while let Some(mut page) = pages.next_page() {
            number += 1;
            let page_name = match number {
                1 => name.to_string(),
                n => format!("{name}: page {n}"),
            };
            let meta = DocumentMeta::Input {
                source: name.to_string(),
            };
            let kind = DocumentKind::of(self.options);
            self.document(&page_name, meta, Ok(Some(&mut page)), kind)?;
            if let Some(cut) = pages.cut() {
                let trouble = Trouble::Cut(format!("{cut} where the next page begins"));
                self.report(&page_name, trouble);
            }
        }
        Ok(())
    }

    /// Every HTML response of a WARC file is a document; its HTTP charset is its encoding.
    fn warc(&mut self, name: &str, content: Box<dyn Read + Send>) -> Result<(), OutputClosed> {
        let Some(content) = self.non_empty(name, content) else {
            return Ok(());
        };
        let records = WarcReader::new(content)
            .with_max_record_bytes(self.options.read.max_record_bytes as u64);
        for record in records {
            let record = match record {
                Ok(record) => record,
                Err(e) => {
                    self.report(name, Trouble::Warc(Arc::new(e)));
                    continue;
                }
            };
            if !record.is_http_response() {
                continue;
            }
            let Some(http) = http_response_parts(&record.payload) else {
                self.report(name, Trouble::NotHttp(record.record_id.clone()));
                continue;
            };
            let html = http.is_html();
            let wanted = (200..300).contains(&http.status) && html;
            if !wanted && !self.options.read.all_responses {
                self.counts.records_skipped += 1;
                continue;
            }
            let charset = || {
                http.charset
                    .as_deref()
                    .and_then(crate::decode::encoding_for_label)
            };
            let encoding = self.options.read.encoding.or_else(charset);
            let meta = DocumentMeta::WarcResponse {
                source: name.to_string(),
                record_id: record.record_id.clone(),
                target_uri: record.target_uri.clone(),
                date: record.date.clone(),
            };
            let document_name = format!("{name}: record {}", record.record_id);
            let format = if html {
                InputFormat::Html
            } else {
                InputFormat::Text
            };
            self.document(
                &document_name,
                meta,
                Ok(Some(&mut http.body_reader())),
                DocumentKind::of_record(format, encoding),
            )?;
        }
        Ok(())
    }

    /// Every line of a JSONL file is a document: its field cleaned, or the line passed through
    /// (or skipped) when it cannot be parsed.
    fn jsonl(&mut self, name: &str, content: Box<dyn Read + Send>) -> Result<(), OutputClosed> {
        let field = self.options.read.jsonl_field.as_str();
        let format = if field == "text" {
            InputFormat::Text
        } else {
            InputFormat::Html
        };
        let Some(content) = self.non_empty(name, content) else {
            return Ok(());
        };
        let mut lines = JsonlLines::new(content, self.options.read.max_record_bytes);
        if !self.options.read.skip_bad_lines {
            // Passed through as they are, so that the output stays line for line.
            lines = lines.keeping_long_lines();
        }
        let mut missing = MissingField::default();
        while let Some(line) = lines.next_line() {
            let (number, bytes) = match line {
                Ok(line) => line,
                Err(e) => {
                    self.report_missing(name, &mut missing, false);
                    self.report(name, Trouble::ReadLines(Arc::new(e)));
                    return Ok(());
                }
            };
            let parsed = bytes.map(|bytes| (parse_line_bytes(&bytes, number, field), bytes));
            if let Ok((Err(JsonlError::MissingField { line, .. }), bytes)) = &parsed {
                missing.add(*line, bytes);
            } else {
                self.report_missing(name, &mut missing, false);
            }
            match parsed {
                Ok((Err(JsonlError::MissingField { .. }), bytes)) => {
                    if !self.options.read.skip_bad_lines {
                        let kind = DocumentKind::of(self.options);
                        let line = DocumentMeta::Passthrough(bytes.into());
                        self.document(name, line, Ok(None), kind)?;
                    }
                }
                Ok((Ok(mut record), bytes)) => {
                    // The record holds the line: its bytes go at once (a long line is then
                    // held once while it waits to be cleaned).
                    drop(bytes);
                    missing.found = true;
                    let value = record.take_value();
                    let document_name = format!("{name}: line {number}");
                    let meta = DocumentMeta::JsonlLine(record);
                    let kind = DocumentKind::of_record(format, Some(encoding_rs::UTF_8));
                    if self.hand.is_some() {
                        // Held (and the value let go) before it waits for room in flight.
                        let held = HeldBytes::read(&mut value.as_bytes());
                        drop(value);
                        self.hand_on(&document_name, meta, Ok(Some(held)), kind)?;
                    } else {
                        self.document(&document_name, meta, Ok(Some(&mut value.as_bytes())), kind)?;
                    }
                }
                Ok((Err(error), bytes)) => {
                    let skipped = self.options.read.skip_bad_lines;
                    self.report(name, Trouble::BadLine { error, skipped });
                    if !self.options.read.skip_bad_lines {
                        let kind = DocumentKind::of(self.options);
                        let line = DocumentMeta::Passthrough(bytes.into());
                        self.document(name, line, Ok(None), kind)?;
                    }
                }
                // Too long to be read: passed through as it is, unless bad lines are skipped.
                Err(error) => match lines.long_line() {
                    Some(line) => {
                        let skipped = false;
                        self.report(name, Trouble::BadLine { error, skipped });
                        let kind = DocumentKind::of(self.options);
                        let line = DocumentMeta::Passthrough(line);
                        self.document(name, line, Ok(None), kind)?;
                    }
                    None => self.report(name, Trouble::LineSkipped(error)),
                },
            }
        }
        let every_line = !missing.found;
        self.report_missing(name, &mut missing, every_line);
        Ok(())
    }

    /// Reports the lines in a row that lacked the field, if any, as one problem.
    fn report_missing(&mut self, name: &str, missing: &mut MissingField, every_line: bool) {
        if missing.count == 0 {
            return;
        }
        let trouble = Trouble::FieldMissing {
            field: self.options.read.jsonl_field.clone(),
            first: missing.first,
            count: missing.count,
            every_line: every_line && missing.first_seen,
            fields: std::mem::take(&mut missing.fields),
            skipped: self.options.read.skip_bad_lines,
        };
        missing.count = 0;
        missing.first_seen = false;
        self.report(name, trouble);
    }
}

/// JSONL lines in a row that lack the field, reported together.
#[derive(Default)]
struct MissingField {
    /// The first of them (1-based).
    first: u64,
    count: u64,
    /// The text fields of the first of them.
    fields: Vec<String>,
    /// The row started at the input's first line with a JSON object.
    first_seen: bool,
    /// A line of the input had the field.
    found: bool,
    /// A line of the input was a JSON object (with or without the field).
    objects: bool,
}

impl MissingField {
    fn add(&mut self, line: u64, bytes: &[u8]) {
        if self.count == 0 {
            self.first = line;
            self.fields = crate::source::jsonl::string_fields(bytes, 8);
            self.first_seen = !self.objects;
        }
        self.objects = true;
        self.count += 1;
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
    /// Takes `blocks` (leaving it empty), sending every batch that fills up.
    fn add(&mut self, blocks: &mut Vec<Block>, send: &mut SendBatch) -> Result<(), OutputClosed> {
        for block in blocks.drain(..) {
            self.text_bytes += block.text.len();
            self.blocks.push(block);
            if self.text_bytes >= BATCH_TEXT_BYTES || self.blocks.len() >= BATCH_BLOCKS {
                self.send(send, None, None)?;
            }
        }
        Ok(())
    }

    /// Sends the last batch (maybe empty: every document ends with one), with `page` and why
    /// the document failed, if it did.
    fn finish(
        &mut self,
        send: &mut SendBatch,
        page: PageInfo,
        failure: Option<String>,
    ) -> Result<(), OutputClosed> {
        self.send(send, Some(Box::new(page)), failure)
    }

    fn send(
        &mut self,
        send: &mut SendBatch,
        page: Option<Box<PageInfo>>,
        failure: Option<String>,
    ) -> Result<(), OutputClosed> {
        let batch = Batch {
            seq: *self.seq,
            begins: self.begins.take(),
            ends: page.is_some(),
            page,
            failure,
            blocks: std::mem::take(&mut self.blocks),
        };
        *self.seq += 1;
        self.text_bytes = 0;
        send(batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives `bytes`, then fails.
    struct Failing<'a>(&'a [u8]);

    impl Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("cut short"));
            }
            self.0.read(buf)
        }
    }

    #[test]
    fn held_bytes_give_the_bytes_read_then_the_error_that_ended_them() {
        let bytes: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        let mut held = HeldBytes::read(&mut Failing(&bytes));
        let mut back = Vec::new();
        let error = held.read_to_end(&mut back).unwrap_err();
        assert_eq!(
            (back.len(), error.to_string()),
            (bytes.len(), "cut short".into())
        );
        assert_eq!(back, bytes, "past the bytes held in memory too");
        assert_eq!(
            held.read(&mut [0; 8]).unwrap(),
            0,
            "the error is given once"
        );
    }

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
        let mut send = |batch: Batch| {
            sent.push((
                batch.blocks.len(),
                batch.blocks.iter().map(|b| b.text.len()).sum(),
                batch.ends,
            ));
            Ok(())
        };
        assert_eq!(
            batcher.add(&mut blocks.into_iter().collect(), &mut send),
            Ok(())
        );
        assert_eq!(batcher.finish(&mut send, PageInfo::default(), None), Ok(()));
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
}
