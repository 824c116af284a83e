//! Where cleaned documents go: one stream with a separator between documents (stdout), one
//! file per input under an output directory that mirrors the input tree (`--output-dir`), or
//! records: JSONL lines with the cleaned field written back, JSONL objects or WARC
//! `conversion` records for WARC responses. Record sinks hold one document's text at a time.
//!
//! Write errors are returned as they are (a closed pipe stays [`io::ErrorKind::BrokenPipe`],
//! which the pipeline takes as a quiet end); what was written before an error stays written.
//! A document is written out only once it ends: [`DirSink`] writes it to a hidden temporary
//! file and renames that to its final name in [`Sink::end`], and record sinks write its record
//! then, so a run that fails or is interrupted leaves no truncated document that looks finished.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::block::{PageInfo, PageKind};
use crate::io::jsonl::{json_object, push_json_string_content, Extra, JsonRecord, PassedLine};
use crate::io::language::Language;
use crate::io::spool::{Spool, HELD_BYTES};
use crate::io::warc::{Source, WarcWriter};

/// A JSON string, or `null`.
fn optional(value: Option<&str>) -> Extra<'_> {
    value.map_or(Extra::Null, Extra::Str)
}

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
    /// No more output: flush everything.
    fn finish(&mut self) -> io::Result<()>;
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

/// One file per document: `dir/<name of document i>`, directories created as needed.
///
/// Outputs are atomic: a document is written to a hidden temporary file next to its final
/// name, `.<name>.<process id>.partial`, which is renamed to the final name when the document
/// ends ([`Sink::end`]). On a write error the temporary file is removed and the error returned;
/// a document begun and never ended (the run failed, or the sink was dropped) is removed too.
/// A process killed by a signal can leave a `.partial` file behind, never a truncated file
/// under a final name. A final name that exists already is replaced when the document ends.
pub struct DirSink {
    dir: PathBuf,
    names: Vec<PathBuf>,
    current: Option<PartialFile>,
}

/// A file written under a hidden temporary name next to its final path (`temp_path`): it
/// takes its final name only when [`PartialFile::commit`]ted, and is removed when dropped
/// before that (a failed or interrupted run leaves no truncated file that looks finished).
pub struct PartialFile {
    path: PathBuf,
    temp: PathBuf,
    file: Option<BufWriter<File>>,
}

impl PartialFile {
    /// Creates the temporary file for `path`, and `path`'s directories as needed.
    pub fn create(path: &Path) -> io::Result<PartialFile> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| with_path(parent, e))?;
        }
        let temp = temp_path(path);
        let file = File::create(&temp).map_err(|e| with_path(path, e))?;
        Ok(PartialFile {
            path: path.to_path_buf(),
            temp,
            file: Some(BufWriter::new(file)),
        })
    }

    /// Flushes and closes the temporary file and gives it its final name (replacing a file of
    /// that name); on an error the temporary file is removed.
    pub fn commit(mut self) -> io::Result<()> {
        let Some(file) = self.file.take() else {
            return Ok(());
        };
        let file = file
            .into_inner()
            .map_err(|e| with_path(&self.path, e.into_error()))?;
        drop(file);
        std::fs::rename(&self.temp, &self.path).map_err(|e| with_path(&self.path, e))?;
        // Renamed: nothing is left to remove when `self` drops.
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Write for PartialFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(file) => file.write(bytes).map_err(|e| with_path(&self.path, e)),
            None => Err(io::Error::other("file already closed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(file) => file.flush().map_err(|e| with_path(&self.path, e)),
            None => Ok(()),
        }
    }
}

impl Drop for PartialFile {
    /// Not committed: the temporary file is closed, unflushed, and removed.
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            drop(file.into_parts());
        }
        if !self.temp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

impl DirSink {
    /// A sink writing document `i` to `dir/names[i]`.
    pub fn new(dir: &Path, names: Vec<PathBuf>) -> DirSink {
        DirSink {
            dir: dir.to_path_buf(),
            names,
            current: None,
        }
    }

    /// Removes the document being written, if one was begun and not ended.
    fn discard(&mut self) {
        self.current = None;
    }
}

/// The temporary name of `path` while it is written: hidden, in the same directory (so that
/// renaming it is atomic), unique to this process and plainly unfinished. A long file name is
/// shortened so that the temporary name stays within the usual 255-byte limit.
fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default();
    let mut temp = OsString::from(".");
    if name.len() <= 200 {
        temp.push(name);
    } else {
        let lossy = name.to_string_lossy();
        let mut cut = 200;
        while !lossy.is_char_boundary(cut) {
            cut -= 1;
        }
        temp.push(&lossy[..cut]);
    }
    temp.push(format!(".{}.partial", std::process::id()));
    path.with_file_name(temp)
}

impl Sink for DirSink {
    fn begin(&mut self, index: usize, _meta: &DocumentMeta) -> io::Result<()> {
        // A document that never ended is incomplete: it gets no file.
        self.discard();
        let name = self
            .names
            .get(index)
            .cloned()
            .unwrap_or_else(|| PathBuf::from(format!("{index}.txt")));
        self.current = Some(PartialFile::create(&self.dir.join(name))?);
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        let Some(partial) = &mut self.current else {
            return Ok(());
        };
        if let Err(e) = partial.write_all(bytes) {
            self.discard();
            return Err(e);
        }
        Ok(())
    }

    fn end(&mut self, stats: &DocumentStats) -> io::Result<()> {
        match self.current.take() {
            // A document that was not cleaned gets no file that would look finished.
            Some(partial) if stats.failure.is_none() => partial.commit(),
            _ => Ok(()),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        self.discard();
        Ok(())
    }
}

/// What a record sink writes for each document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordFormat {
    /// JSONL input: the line again, its field replaced by the cleaned text.
    JsonlRewrite {
        /// Also add `sentences_kept`, `sentences_dropped` and `mean_perplexity`.
        add_scores: bool,
    },
    /// Any input: one JSON object per document (`--format json`): source, url, title, lang,
    /// kind, text, counts, mean perplexity, and the WARC record id of a response.
    JsonlObjects,
    /// WARC input: one `conversion` record per response.
    Warc,
}

impl RecordFormat {
    /// Whether each record says its kept sentences' mean perplexity (so every sentence must be
    /// measured: `RenderSettings::report_perplexity`).
    pub fn reports_perplexity(self) -> bool {
        matches!(
            self,
            RecordFormat::JsonlObjects | RecordFormat::JsonlRewrite { add_scores: true }
        )
    }
}

/// Writes each document as one record, holding its text until the document ends; what a
/// record is depends on the kind of record ([`RecordFormat`]), one writer each.
pub struct RecordSink<W: Write + Send> {
    /// The current document: where it came from, and its text so far.
    meta: Option<DocumentMeta>,
    text: Spool,
    records: RecordWriter<W>,
}

/// The writer of each kind of record.
enum RecordWriter<W: Write + Send> {
    /// WARC `conversion` records.
    Warc(WarcRecords<W>),
    /// JSONL lines written back.
    Jsonl(JsonlRecords<W>),
    /// A JSON object per document.
    Json(JsonRecords<W>),
}

impl<W: Write + Send> RecordSink<W> {
    /// A sink writing records of `format` to `out`.
    pub fn new(out: W, format: RecordFormat) -> RecordSink<W> {
        RecordSink::of(match format {
            RecordFormat::Warc => RecordWriter::Warc(WarcRecords::new(WarcWriter::new(out))),
            RecordFormat::JsonlRewrite { add_scores } => RecordWriter::Jsonl(JsonlRecords {
                out,
                output_field: None,
                add_scores,
            }),
            RecordFormat::JsonlObjects => RecordWriter::Json(JsonRecords { out, url: None }),
        })
    }

    /// As [`RecordSink::new`], WARC records each written as its own gzip member (`.warc.gz`,
    /// as WARC readers and indexers expect); other formats are unaffected.
    pub fn with_gzip_members(out: W, format: RecordFormat) -> RecordSink<W> {
        match format {
            RecordFormat::Warc => {
                let out = WarcWriter::new_gzip(out, flate2::Compression::default());
                RecordSink::of(RecordWriter::Warc(WarcRecords::new(out)))
            }
            _ => RecordSink::new(out, format),
        }
    }

    fn of(records: RecordWriter<W>) -> RecordSink<W> {
        RecordSink {
            meta: None,
            text: Spool::new(HELD_BYTES),
            records,
        }
    }

    /// JSONL input: write the cleaned text to field `name` (added, or replaced if the line
    /// has it) and leave the field read as it was; `None` (or the field read) replaces it.
    /// Other records have no field to choose.
    pub fn output_field(mut self, name: Option<String>) -> Self {
        if let RecordWriter::Jsonl(records) = &mut self.records {
            records.output_field = name;
        }
        self
    }

    /// JSON objects: `url` is the URL of every whole input (`--url`, ahead of the page's own
    /// canonical link). Other records say no URL of their own.
    pub fn url(mut self, url: Option<String>) -> Self {
        if let RecordWriter::Json(records) = &mut self.records {
            records.url = url;
        }
        self
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        match self.records {
            RecordWriter::Warc(records) => records.out.into_inner(),
            RecordWriter::Jsonl(records) => records.out,
            RecordWriter::Json(records) => records.out,
        }
    }
}

impl<W: Write + Send> Sink for RecordSink<W> {
    fn begin(&mut self, _index: usize, meta: &DocumentMeta) -> io::Result<()> {
        self.meta = Some(meta.clone());
        self.text.clear();
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.text.write(bytes)
    }

    fn end(&mut self, stats: &DocumentStats) -> io::Result<()> {
        let Some(meta) = self.meta.take() else {
            return Ok(());
        };
        let text = &mut self.text;
        match &mut self.records {
            RecordWriter::Warc(records) => records.end(&meta, text, stats),
            RecordWriter::Jsonl(records) => records.end(&meta, text, stats),
            RecordWriter::Json(records) => records.end(&meta, text, stats),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        match &mut self.records {
            RecordWriter::Warc(records) => records.finish(),
            RecordWriter::Jsonl(records) => records.out.flush(),
            RecordWriter::Json(records) => records.out.flush(),
        }
    }
}

/// A record writer's answer to a document it cannot write: record output is made of records of
/// its own kind (or, for JSON objects, of anything), so this is a defect of the caller, said
/// rather than passed over.
fn not_a_record_of(kind: &str, meta: &DocumentMeta) -> io::Error {
    let what = match meta {
        DocumentMeta::Input { .. } => "a whole input",
        DocumentMeta::WarcResponse { .. } => "a WARC response",
        DocumentMeta::JsonlLine(_) | DocumentMeta::Passthrough(_) => "a JSONL line",
    };
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{kind} output cannot hold {what}"),
    )
}

/// WARC input written back as WARC: a `warcinfo` record, then a `conversion` record for each
/// response cleaned, referring to it.
struct WarcRecords<W: Write + Send> {
    out: WarcWriter<W>,
    /// The `warcinfo` record that opens the output has been written.
    warcinfo_written: bool,
}

impl<W: Write + Send> WarcRecords<W> {
    fn new(out: WarcWriter<W>) -> WarcRecords<W> {
        WarcRecords {
            out,
            warcinfo_written: false,
        }
    }

    /// WARC output starts with a `warcinfo` record saying what wrote it and what it holds.
    fn warcinfo(&mut self) -> io::Result<()> {
        if self.warcinfo_written {
            return Ok(());
        }
        self.warcinfo_written = true;
        let software = concat!("ppl-filter/", env!("CARGO_PKG_VERSION"));
        self.out.write_warcinfo(
            None,
            &[
                ("software", software),
                ("format", "WARC File Format 1.1"),
                (
                    "conformsTo",
                    "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
                ),
                (
                    "description",
                    "The clean text of the HTML responses of the input: one conversion record per response, referring to it",
                ),
            ],
        )?;
        Ok(())
    }

    /// The `conversion` record of a response that was cleaned.
    fn end(
        &mut self,
        meta: &DocumentMeta,
        text: &mut Spool,
        stats: &DocumentStats,
    ) -> io::Result<()> {
        let DocumentMeta::WarcResponse {
            record_id,
            target_uri,
            date,
            ..
        } = meta
        else {
            return Err(not_a_record_of("WARC", meta));
        };
        // A response that was not cleaned (not text) gets no conversion record.
        if stats.failure.is_some() {
            return Ok(());
        }
        self.warcinfo()?;
        let source = Source {
            refers_to: record_id,
            target_uri: target_uri.as_deref(),
            date: date.as_deref(),
        };
        let len = text.trimmed_len();
        self.out
            .write_conversion_from(source, len, &mut |each| text.each_chunk(each))?;
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        // A WARC output without records is still a WARC file: its warcinfo record.
        self.warcinfo()?;
        self.out.flush()
    }
}

/// JSONL input written back as JSONL: each line again, the cleaned text in its field (or in
/// `--output-field`), a line that could not be read passed through as it was.
struct JsonlRecords<W: Write + Send> {
    out: W,
    /// The field the cleaned text goes to, when not the one read.
    output_field: Option<String>,
    /// Also add `sentences_kept`, `sentences_dropped` and `mean_perplexity`.
    add_scores: bool,
}

impl<W: Write + Send> JsonlRecords<W> {
    /// The line of a document.
    fn end(
        &mut self,
        meta: &DocumentMeta,
        text: &mut Spool,
        stats: &DocumentStats,
    ) -> io::Result<()> {
        let line = match meta {
            DocumentMeta::Passthrough(line) => {
                line.write_to(&mut self.out)?;
                return self.out.write_all(b"\n");
            }
            DocumentMeta::JsonlLine(record) => {
                // The text of one line, bounded by the line's own bound.
                let text = text.to_string_lossy()?;
                let counts = counts(stats);
                let scores = if self.add_scores { &counts[..] } else { &[] };
                match self.output_field.as_deref() {
                    Some(name) if name != record.field() => {
                        let mut extra = vec![(name, Extra::Str(&text))];
                        extra.extend_from_slice(scores);
                        record.with_extra(&extra)
                    }
                    _ => record.with_field(&text, scores),
                }
            }
            DocumentMeta::Input { .. } | DocumentMeta::WarcResponse { .. } => {
                return Err(not_a_record_of("JSONL", meta));
            }
        };
        self.out.write_all(line.as_bytes())?;
        self.out.write_all(b"\n")
    }
}

/// `--format json`: one JSON object per document, of any input.
struct JsonRecords<W: Write + Send> {
    out: W,
    /// The URL given for every whole input (`--url`).
    url: Option<String>,
}

impl<W: Write + Send> JsonRecords<W> {
    /// The object of a document.
    fn end(
        &mut self,
        meta: &DocumentMeta,
        text: &mut Spool,
        stats: &DocumentStats,
    ) -> io::Result<()> {
        let page_url = stats.page.url();
        let about = match meta {
            // A line that is not a JSON object is no document to describe (it was reported
            // with its line number).
            DocumentMeta::Passthrough(_) => return Ok(()),
            DocumentMeta::Input { source } => About {
                source: Some(source),
                url: self.url.as_deref().or(page_url),
                record_id: None,
            },
            DocumentMeta::JsonlLine(_) => About {
                source: None,
                url: self.url.as_deref().or(page_url),
                record_id: None,
            },
            // A response says its record id (`null`, not `""`, when it has none).
            DocumentMeta::WarcResponse {
                source,
                record_id,
                target_uri,
                ..
            } => About {
                source: Some(source),
                url: target_uri.as_deref().or(page_url),
                record_id: Some(match record_id.trim().is_empty() {
                    true => Extra::Null,
                    false => Extra::Str(record_id),
                }),
            },
        };
        json_object_of(&mut self.out, text, &about, stats)
    }
}

/// What a JSON object says of where its document came from.
struct About<'a> {
    /// The input's name, for a whole input or a WARC file's response.
    source: Option<&'a str>,
    /// `--url`, a response's target URI, or the page's own canonical link.
    url: Option<&'a str>,
    /// A WARC response's record id.
    record_id: Option<Extra<'a>>,
}

/// Writes the JSON object of one document (source, url, title, author, date, sitename,
/// description, lang, kind, text, counts, and a
/// response's record id), its text streamed from the spool; for a document that was not
/// cleaned, an object with `error` in place of the text and counts.
fn json_object_of(
    out: &mut impl Write,
    text: &mut Spool,
    about: &About<'_>,
    stats: &DocumentStats,
) -> io::Result<()> {
    let record_id = about.record_id.map(|id| ("warc_record_id", id));
    if let Some(failure) = &stats.failure {
        let mut fields = vec![
            ("source", optional(about.source)),
            ("url", optional(about.url)),
            ("error", Extra::Str(failure)),
        ];
        fields.extend(record_id);
        out.write_all(json_object(&fields).as_bytes())?;
        return out.write_all(b"\n");
    }
    // The language of the text's first bytes (all of it unless it is very long).
    let lang = Language::of_spool(text).map(Language::code);
    let published = stats.page.published();
    let before = json_object(&[
        ("source", optional(about.source)),
        ("url", optional(about.url)),
        ("title", optional(stats.page.headline())),
        ("page_title", optional(stats.page.title())),
        ("author", optional(stats.page.authors().as_deref())),
        ("date", optional(published.as_deref())),
        ("sitename", optional(stats.page.site_name())),
        ("description", optional(stats.page.description.as_deref())),
        ("lang", optional(lang)),
        ("kind", optional(stats.kind.map(PageKind::name))),
    ]);
    let mut after_fields = counts(stats).to_vec();
    after_fields.extend(record_id);
    let after = json_object(&after_fields);
    // `{…,"text":"` + the escaped text + `",…}`: the two objects' braces give way.
    out.write_all(&before.as_bytes()[..before.len() - 1])?;
    out.write_all(b",\"text\":\"")?;
    let mut escaped = String::new();
    text.each_str(&mut |piece| {
        escaped.clear();
        push_json_string_content(&mut escaped, piece);
        out.write_all(escaped.as_bytes())
    })?;
    out.write_all(b"\",")?;
    out.write_all(&after.as_bytes()[1..])?;
    out.write_all(b"\n")
}

/// A document's sentence counts and its kept sentences' mean perplexity, as record fields.
fn counts(stats: &DocumentStats) -> [(&'static str, Extra<'static>); 3] {
    let dropped = stats.sentences.saturating_sub(stats.kept);
    [
        ("sentences_kept", Extra::UInt(stats.kept)),
        ("sentences_dropped", Extra::UInt(dropped)),
        (
            "mean_perplexity",
            stats
                .mean_kept_perplexity()
                .map_or(Extra::Null, Extra::Float),
        ),
    ]
}

/// An I/O error whose message names the file.
fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_objects_and_scored_jsonl_lines_report_the_mean_perplexity() {
        assert!(RecordFormat::JsonlObjects.reports_perplexity());
        assert!(RecordFormat::JsonlRewrite { add_scores: true }.reports_perplexity());
        assert!(!RecordFormat::JsonlRewrite { add_scores: false }.reports_perplexity());
        assert!(!RecordFormat::Warc.reports_perplexity());
    }

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

    #[test]
    fn temporary_names_are_hidden_and_short_enough() {
        let temp = temp_path(Path::new("out/sub/page.txt"));
        assert_eq!(
            temp,
            Path::new(&format!("out/sub/.page.txt.{}.partial", std::process::id()))
        );
        let long = "é".repeat(127);
        let temp = temp_path(&Path::new("d").join(&long));
        let name = temp.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with(".\u{e9}") && name.ends_with(".partial") && name.len() <= 255,
            "{name}"
        );
        assert!(temp_path(Path::new(".."))
            .to_string_lossy()
            .ends_with(".partial"));
    }

    #[test]
    fn dir_sink_mirrors_names() {
        let dir = std::env::temp_dir().join(format!("ppl-sink-{}", std::process::id()));
        let mut sink = DirSink::new(&dir, vec![PathBuf::from("x/1.txt"), PathBuf::from("2.txt")]);
        sink.begin(
            0,
            &DocumentMeta::Input {
                source: String::new(),
            },
        )
        .unwrap();
        sink.write(b"one").unwrap();
        assert!(
            !dir.join("x/1.txt").exists(),
            "not under its name before it ends"
        );
        sink.end(&DocumentStats::default()).unwrap();
        sink.begin(
            1,
            &DocumentMeta::Input {
                source: String::new(),
            },
        )
        .unwrap();
        sink.end(&DocumentStats::default()).unwrap();
        sink.begin(
            2,
            &DocumentMeta::Input {
                source: String::new(),
            },
        )
        .unwrap();
        sink.write(b"never ends").unwrap();
        sink.finish().unwrap();
        assert_eq!(std::fs::read(dir.join("x/1.txt")).unwrap(), b"one");
        assert_eq!(std::fs::read(dir.join("2.txt")).unwrap(), b"");
        let mut left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["2.txt", "x"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
