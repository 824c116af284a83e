//! A job: what a cleaning run does, made whole once — the settings of every stage
//! ([`Options`]), the language its documents must be in, and where and how the output is
//! written ([`Output`]) — and the one place that builds the chain of sinks it writes through.
//!
//! [`Job::run`] cleans inputs into the job's output; [`Job::writer`] takes pages one at a time
//! (pages fetched by URL), each a record or a part of one stream; [`super::pages::clean_page`]
//! cleans a page held in memory as the job says. Each builds its chain here: the stream or record
//! writer, behind the language filter when one language is asked for ([`Chain`]), whose left-out
//! documents are taken out of the counts.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use encoding_rs::Encoding;

use super::{run, Observer, Options, Problem, RunError, Summary};
use crate::lm::model::LanguageModel;
use crate::sink::language::Language;
use crate::sink::language_filter::LeftOut;
use crate::sink::{
    DirSink, DocumentMeta, DocumentStats, LanguageFilter, PartialFile, RecordFormat, RecordSink,
    Sink, StreamSink,
};
use crate::source::spool::Spool;
use crate::source::Input;

/// What a cleaning run does: every stage's settings, the language asked for, and the output.
#[derive(Clone, Debug)]
pub struct Job {
    /// The settings of every stage.
    pub options: Options,
    /// Only the documents whose text is in this language are written (`--target-language`).
    pub language: Option<Language>,
    /// Where and how the output is written.
    pub output: Output,
}

/// Where and how a job's output is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Text on one writer, the documents separated by `separator` (an empty line; a NUL byte
    /// with `-0`).
    Stream {
        /// Written between two documents.
        separator: Vec<u8>,
    },
    /// Records on one writer.
    Records(RecordFormat),
    /// A text file per input, under a directory (`--output-dir`).
    Files(OutputDir),
    /// A record file per input, under a directory: WARC or JSONL as the input was (compressed
    /// when its name ends in `.gz`), or JSON lines.
    RecordFiles(OutputDir, RecordFormat),
}

/// The directory outputs are written under, and each input's file in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputDir {
    /// `--output-dir`.
    pub dir: PathBuf,
    /// Each input's file, relative to `dir`, in the inputs' order.
    pub names: Vec<PathBuf>,
}

impl Output {
    /// Text, the documents separated by an empty line, as `ppl-filter` writes them.
    pub fn text() -> Output {
        Output::Stream {
            separator: b"\n".to_vec(),
        }
    }

    /// The records written, if the output is records.
    pub fn records(&self) -> Option<&RecordFormat> {
        match self {
            Output::Records(format) | Output::RecordFiles(_, format) => Some(format),
            Output::Stream { .. } | Output::Files(_) => None,
        }
    }
}

impl Job {
    /// A job writing `output` with `options`, in every language.
    pub fn new(options: Options, output: Output) -> Job {
        Job {
            options,
            language: None,
            output,
        }
    }

    /// Cleans every input in order into the job's output: `out` for a stream or records, the
    /// directory's files otherwise (`out` is then not written to). `observer` hears of
    /// problems as they happen; the counts are of what was written.
    pub fn run<W: Write + Send>(
        &self,
        inputs: &[Input],
        model: &LanguageModel,
        out: W,
        observer: &dyn Observer,
    ) -> Result<Summary, RunError> {
        let options = &self.options;
        match &self.output {
            Output::Stream { separator } => {
                let sink = StreamSink::new(out, separator);
                Ok(self.run_through(inputs, options, model, sink, observer)?.0)
            }
            Output::Records(format) => {
                let sink = RecordSink::new(out, format.clone());
                Ok(self.run_through(inputs, options, model, sink, observer)?.0)
            }
            Output::Files(dir) => {
                let sink = DirSink::new(&dir.dir, dir.names.clone());
                Ok(self.run_through(inputs, options, model, sink, observer)?.0)
            }
            Output::RecordFiles(dir, format) => {
                let mut total = Summary::default();
                for (input, name) in inputs.iter().zip(&dir.names) {
                    let path = dir.dir.join(name);
                    let summary = self.record_file(input, &path, format, model, observer)?;
                    total.add(&summary);
                    if summary.output_closed {
                        break;
                    }
                }
                Ok(total)
            }
        }
    }

    /// A writer of pages handed over one at a time ([`PageWriter::page`]) into `out`: as one
    /// stream, or a record each. The output may not be a directory's files.
    pub fn writer<W: Write + Send>(&self, out: W) -> PageWriter<'_, W> {
        let to = match &self.output {
            Output::Records(format) | Output::RecordFiles(_, format) => To::Records(out, format),
            Output::Stream { separator } => To::Stream(StreamSink::new(out, separator)),
            Output::Files(_) => To::Stream(StreamSink::new(out, b"\n")),
        };
        PageWriter { job: self, to }
    }

    /// `sink` behind the language filter when the job asks for one language.
    pub(super) fn chain<S: Sink>(&self, sink: S) -> Chain<S> {
        match self.language {
            Some(language) => Chain::OneLanguage(Box::new(LanguageFilter::new(sink, language))),
            None => Chain::All(sink),
        }
    }

    /// Cleans `inputs` with `options` into `sink`, through the job's chain; the counts are of
    /// what was written (a document left out keeps none of its sentences).
    fn run_through<S: Sink>(
        &self,
        inputs: &[Input],
        options: &Options,
        model: &LanguageModel,
        sink: S,
        observer: &dyn Observer,
    ) -> Result<(Summary, S), RunError> {
        let mut chain = self.chain(sink);
        let mut summary = run(inputs, model, options, &mut chain, observer)?;
        chain.left_out().take_from(&mut summary);
        Ok((summary, chain.into_inner()))
    }

    /// Cleans one WARC or JSONL input into a file of its own kind at `path` (gzip-compressed
    /// when named `*.gz`), which appears only once complete (written under a temporary name),
    /// and only when something of the input was cleaned.
    fn record_file(
        &self,
        input: &Input,
        path: &Path,
        format: &RecordFormat,
        model: &LanguageModel,
        observer: &dyn Observer,
    ) -> Result<Summary, RunError> {
        let inputs = std::slice::from_ref(input);
        let options = &self.options;
        let file = PartialFile::create(path).map_err(RunError::Output)?;
        let gz = path.extension().is_some_and(|x| x == "gz");
        let (summary, file) = match format {
            RecordFormat::Warc { .. } => {
                let warc = RecordFormat::Warc { gzip_members: gz };
                let sink = RecordSink::new(file, warc);
                let (summary, sink) = self.run_through(inputs, options, model, sink, observer)?;
                (summary, sink.into_inner())
            }
            _ if gz => {
                let gzip = flate2::write::GzEncoder::new(file, flate2::Compression::default());
                let sink = RecordSink::new(gzip, format.clone());
                let (summary, sink) = self.run_through(inputs, options, model, sink, observer)?;
                (
                    summary,
                    sink.into_inner().finish().map_err(RunError::Output)?,
                )
            }
            _ => {
                let sink = RecordSink::new(file, format.clone());
                let (summary, sink) = self.run_through(inputs, options, model, sink, observer)?;
                (summary, sink.into_inner())
            }
        };
        // An input of which nothing was cleaned (it could not be opened, or is not text) leaves
        // no file that would look finished.
        if summary.not_cleaned == 0 || summary.documents > summary.not_cleaned {
            file.commit().map_err(RunError::Output)?;
        }
        Ok(summary)
    }
}

impl LeftOut {
    /// Takes what was left out of a run's counts: they are of what was written.
    fn take_from(self, summary: &mut Summary) {
        summary.other_language += self.documents;
        summary.sentences -= self.sentences;
        summary.kept -= self.kept;
    }
}

/// Pages handed over one at a time, written as one stream or a record each ([`Job::writer`]).
pub struct PageWriter<'a, W: Write + Send> {
    job: &'a Job,
    to: To<'a, W>,
}

/// Where a [`PageWriter`] writes.
enum To<'a, W: Write + Send> {
    /// One stream for all pages (a page left out writes no separator).
    Stream(StreamSink<W>),
    /// A record each, of this format.
    Records(W, &'a RecordFormat),
}

impl<W: Write + Send> PageWriter<'_, W> {
    /// Cleans `page` as a file holding it is cleaned, read in its own encoding when it has
    /// one; its record says the page's URL.
    pub fn page(
        &mut self,
        page: &Page,
        model: &LanguageModel,
        observer: &dyn Observer,
    ) -> Result<Summary, RunError> {
        let input = [page.input()];
        let options = page.options(&self.job.options);
        let mut record;
        let sink: &mut dyn Sink = match &mut self.to {
            To::Stream(sink) => sink,
            To::Records(out, format) => {
                record = RecordSink::new(out, format.with_url(page.url.clone()));
                &mut record
            }
        };
        Ok(self
            .job
            .run_through(&input, &options, model, sink, observer)?
            .0)
    }

    /// Says why the page `problem` names could not be had (a URL not fetched, `url`): with
    /// records, a record with its `source`, `url` and `error`; with text, nothing. True when
    /// the output was closed (`| head`).
    pub fn failure(&mut self, problem: &Problem, url: &str) -> Result<bool, RunError> {
        let To::Records(out, format) = &mut self.to else {
            return Ok(false);
        };
        let mut sink = RecordSink::new(&mut *out, format.with_url(Some(url.to_string())));
        let failed = DocumentStats {
            failure: Some(problem.message()),
            ..DocumentStats::default()
        };
        let meta = DocumentMeta::Input {
            source: problem.input.clone(),
        };
        let written = sink.begin(0, &meta).and_then(|()| sink.end(&failed));
        closed_or(written)
    }

    /// Flushes what was written. True when the output was closed (`| head`).
    pub fn finish(mut self) -> Result<bool, RunError> {
        let flushed = match &mut self.to {
            To::Stream(sink) => sink.finish(),
            To::Records(out, _) => out.flush(),
        };
        closed_or(flushed)
    }
}

/// True for an output closed (`| head`), false for one written; any other error is the run's.
fn closed_or(written: io::Result<()>) -> Result<bool, RunError> {
    match written {
        Ok(()) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(true),
        Err(e) => Err(RunError::Output(e)),
    }
}

/// A job's sink behind the language filter, when it asks for one language.
pub(super) enum Chain<S: Sink> {
    /// Every document is written.
    All(S),
    /// Only the documents in one language.
    OneLanguage(Box<LanguageFilter<S>>),
}

impl<S: Sink> Chain<S> {
    /// What the language filter left out so far.
    pub(super) fn left_out(&self) -> LeftOut {
        match self {
            Chain::All(_) => LeftOut::default(),
            Chain::OneLanguage(filter) => filter.left_out(),
        }
    }

    /// The sink at the end of the chain.
    pub(super) fn into_inner(self) -> S {
        match self {
            Chain::All(sink) => sink,
            Chain::OneLanguage(filter) => (*filter).into_inner(),
        }
    }

    /// The first sink of the chain.
    fn first(&mut self) -> &mut dyn Sink {
        match self {
            Chain::All(sink) => sink,
            Chain::OneLanguage(filter) => &mut **filter,
        }
    }
}

impl<S: Sink> Sink for Chain<S> {
    fn begin(&mut self, index: usize, meta: &DocumentMeta) -> io::Result<()> {
        self.first().begin(index, meta)
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.first().write(bytes)
    }

    fn end(&mut self, stats: &DocumentStats) -> io::Result<()> {
        self.first().end(stats)
    }

    fn held(
        &mut self,
        index: usize,
        meta: &DocumentMeta,
        text: &mut Spool,
        stats: &DocumentStats,
    ) -> io::Result<()> {
        self.first().held(index, meta, text, stats)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.first().finish()
    }
}

/// One page held in memory.
#[derive(Clone, Debug)]
pub struct Page {
    /// What problems call it (`<page>`, `document 3`); the `source` of a JSON object.
    pub name: String,
    /// The page's bytes, in any encoding `ppl-filter` reads (gzip looked through).
    pub bytes: Arc<[u8]>,
    /// The page's URL, for the `url` of a JSON object (`--url`).
    pub url: Option<String>,
    /// Read the bytes in this encoding rather than the one the options give or the page
    /// declares: a page a program already holds as text (a Python `str`) is UTF-8 whatever its
    /// `<meta charset>` says.
    pub encoding: Option<&'static Encoding>,
}

impl Page {
    /// A page named `name` (in problems, and as the `source` of its JSON object) holding
    /// `bytes`, with no URL, its encoding sniffed as a file's is.
    pub fn new(name: impl Into<String>, bytes: impl Into<Arc<[u8]>>) -> Page {
        Page {
            name: name.into(),
            bytes: bytes.into(),
            url: None,
            encoding: None,
        }
    }

    /// The page as an input, named as the page is.
    pub(super) fn input(&self) -> Input {
        Input::Memory {
            name: self.name.clone(),
            bytes: Arc::clone(&self.bytes),
        }
    }

    /// A page's options: the run's, with the page's own encoding if it has one.
    pub(super) fn options(&self, options: &Options) -> Options {
        let mut options = options.clone();
        options.read.encoding = self.encoding.or(options.read.encoding);
        options
    }
}
