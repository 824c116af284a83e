//! Sinks: where cleaned documents go, the last room of the pipeline. One stream with a
//! separator between documents ([`StreamSink`], here), one file per input under an output
//! directory that mirrors the input tree ([`DirSink`], `dir.rs`), or records ([`RecordSink`],
//! `records.rs`: JSONL lines written back, JSON objects, WARC `conversion` records written by
//! `warc.rs`), each document's blocks written as a format says by [`render`];
//! [`language_filter`] passes on only the documents in one language, and
//! [`outputs`] checks where the outputs go before anything is written.
//!
//! Write errors are returned as they are (a closed pipe stays [`io::ErrorKind::BrokenPipe`],
//! which the pipeline takes as a quiet end); what was written before an error stays written.
//! A document is written out only once it ends: [`DirSink`] writes it to a hidden temporary
//! file and renames that to its final name in [`Sink::end`], and record sinks write its record
//! then, so a run that fails or is interrupted leaves no truncated document that looks finished.

mod dir;
pub mod language;
pub mod language_filter;
pub mod outputs;
mod records;
pub mod render;
pub mod warc;

use std::io::{self, Write};

use crate::block::{PageInfo, PageKind};
use crate::source::jsonl::{JsonRecord, PassedLine};
use crate::source::spool::Spool;
use language::Told;

pub use dir::{DirSink, PartialFile};
pub use language_filter::LanguageFilter;
pub use records::{RecordFormat, RecordSink};

/// Where a document came from, as far as its sink needs to know.
#[derive(Clone, Debug, PartialEq)]
pub enum DocumentMeta {
    /// A whole input (a file, standard input, bytes held in memory).
    Input {
        /// Its name, as problems name it: the `source` of its JSON object.
        source: String,
    },
    /// An HTML `response` record of a WARC file.
    WarcResponse {
        /// The WARC file's name, as problems name it: the `source` of its JSON object.
        source: String,
        /// Its WARC-Record-ID (empty when it has none).
        record_id: String,
        /// Its WARC-Target-URI, if any.
        target_uri: Option<String>,
        /// Its WARC-Date, if any.
        date: Option<String>,
    },
    /// A JSONL line whose field is cleaned and written back.
    JsonlLine(JsonRecord),
    /// A JSONL line that could not be parsed (or was too long to be), written out as it was read.
    Passthrough(PassedLine),
}

/// Counts over one document's sentences, and what the page said about itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DocumentStats {
    /// Sentences scored.
    pub sentences: u64,
    /// Sentences kept.
    pub kept: u64,
    /// Sum of the kept sentences' perplexities.
    pub kept_perplexity_sum: f64,
    /// What an HTML page says about itself: title, canonical link, CleanEval wrapper, …
    pub page: PageInfo,
    /// The kind of page it was decided as (`None` before its end).
    pub kind: Option<PageKind>,
    /// Why the document was not cleaned (it could not be opened, or is not text), if it was
    /// not: a sink writes no file and no ordinary record for it.
    pub failure: Option<String>,
    /// What its text's language was told to be, once a sink has told it (the
    /// [`LanguageFilter`]), for the sinks after it.
    pub told: Option<Told>,
}

impl DocumentStats {
    /// Mean perplexity of the kept sentences, `None` when none was kept.
    fn mean_kept_perplexity(&self) -> Option<f64> {
        (self.kept > 0).then(|| self.kept_perplexity_sum / self.kept as f64)
    }

    /// Adds another batch's counts.
    pub fn add(&mut self, other: &DocumentStats) {
        self.sentences += other.sentences;
        self.kept += other.kept;
        self.kept_perplexity_sum += other.kept_perplexity_sum;
    }
}

/// Receives the output of documents, in input order.
pub trait Sink: Send {
    /// Document `index` (0-based, in input order) starts; what follows belongs to it.
    fn begin(&mut self, index: usize, meta: &DocumentMeta) -> io::Result<()>;
    /// More output of the current document.
    fn write(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// The current document is complete.
    fn end(&mut self, _stats: &DocumentStats) -> io::Result<()> {
        Ok(())
    }
    /// Document `index`, whole, its output held in `text` by the stage before: a sink that
    /// would hold a document's output itself (the language filter, a record writer) reads it
    /// from there instead, so that a document is spooled once however many sinks hold it; the
    /// others are given it as [`Sink::begin`], [`Sink::write`] and [`Sink::end`] (the default).
    fn held(
        &mut self,
        index: usize,
        meta: &DocumentMeta,
        text: &mut Spool,
        stats: &DocumentStats,
    ) -> io::Result<()> {
        self.begin(index, meta)?;
        text.each_written_chunk(&mut |chunk| self.write(chunk))?;
        self.end(stats)
    }
    /// No more output: flush everything.
    fn finish(&mut self) -> io::Result<()>;
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn begin(&mut self, index: usize, meta: &DocumentMeta) -> io::Result<()> {
        (**self).begin(index, meta)
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        (**self).write(bytes)
    }

    fn end(&mut self, stats: &DocumentStats) -> io::Result<()> {
        (**self).end(stats)
    }

    fn held(
        &mut self,
        index: usize,
        meta: &DocumentMeta,
        text: &mut Spool,
        stats: &DocumentStats,
    ) -> io::Result<()> {
        (**self).held(index, meta, text, stats)
    }

    fn finish(&mut self) -> io::Result<()> {
        (**self).finish()
    }
}

/// All documents on one stream, separated by `separator`.
pub struct StreamSink<W: Write + Send> {
    out: W,
    separator: Vec<u8>,
    /// Whether a document was begun (the next one is preceded by the separator).
    begun: bool,
}

impl<W: Write + Send> StreamSink<W> {
    /// A stream sink writing `separator` between two documents.
    pub fn new(out: W, separator: &[u8]) -> StreamSink<W> {
        StreamSink {
            out,
            separator: separator.to_vec(),
            begun: false,
        }
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write + Send> Sink for StreamSink<W> {
    fn begin(&mut self, _index: usize, _meta: &DocumentMeta) -> io::Result<()> {
        if self.begun {
            self.out.write_all(&self.separator)?;
        }
        self.begun = true;
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_separates_documents() {
        let mut sink = StreamSink::new(Vec::new(), b"\n");
        for (i, text) in ["a\n", "b\n", "c\n"].iter().enumerate() {
            sink.begin(
                i,
                &DocumentMeta::Input {
                    source: String::new(),
                },
            )
            .unwrap();
            sink.write(text.as_bytes()).unwrap();
        }
        sink.finish().unwrap();
        assert_eq!(sink.into_inner(), b"a\n\nb\n\nc\n");
    }
}
