//! Records: JSONL lines with the cleaned field written back, a JSON object per document
//! (`--format json`), or WARC `conversion` records for WARC responses ([`RecordSink`], one writer
//! a [`RecordFormat`]). A record sink holds one document's text at a time, in a [`Spool`].

use std::io::{self, Write};

use super::language::{Language, Told};
use super::warc::{Source, WarcWriter};
use super::{DocumentMeta, DocumentStats, Sink};
use crate::block::PageKind;
use crate::source::jsonl::{json_object, push_json_string_content, Extra};
use crate::source::spool::{Spool, HELD_BYTES};

/// A JSON string, or `null`.
fn optional(value: Option<&str>) -> Extra<'_> {
    value.map_or(Extra::Null, Extra::Str)
}

/// What a record sink writes for each document, each kind with only its own settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordFormat {
    /// JSONL input: the line again, its field replaced by the cleaned text.
    JsonlRewrite {
        /// The field the cleaned text goes to (added, or replaced if the line has it), leaving
        /// the field read as it was (`--output-field`); `None` (or the field read) replaces it.
        output_field: Option<String>,
        /// Also add `sentences_kept`, `sentences_dropped` and `mean_perplexity`.
        add_scores: bool,
    },
    /// Any input: one JSON object per document (`--format json`): source, url, title, lang,
    /// kind, text, counts, mean perplexity, and the WARC record id of a response.
    JsonlObjects {
        /// The URL of every whole input (`--url`, ahead of the page's own canonical link).
        url: Option<String>,
    },
    /// WARC input: one `conversion` record per response.
    Warc {
        /// Each record its own gzip member (`.warc.gz`, as WARC readers and indexers expect).
        gzip_members: bool,
    },
}

impl RecordFormat {
    /// One JSON object per document, with no URL given for whole inputs.
    pub const JSON: RecordFormat = RecordFormat::JsonlObjects { url: None };

    /// This format, its JSON objects saying `url` (when given) as the URL of every whole input.
    pub fn with_url(&self, url: Option<String>) -> RecordFormat {
        match self {
            RecordFormat::JsonlObjects { url: given } => RecordFormat::JsonlObjects {
                url: url.or_else(|| given.clone()),
            },
            other => other.clone(),
        }
    }

    /// Whether each record says its kept sentences' mean perplexity (so every sentence must be
    /// measured: `RenderSettings::report_perplexity`).
    pub fn reports_perplexity(&self) -> bool {
        matches!(
            self,
            RecordFormat::JsonlObjects { .. }
                | RecordFormat::JsonlRewrite {
                    add_scores: true,
                    ..
                }
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

impl<W: Write + Send> RecordWriter<W> {
    /// Writes the record of a document whose text is `text`.
    fn write(
        &mut self,
        meta: &DocumentMeta,
        text: &mut Spool,
        stats: &DocumentStats,
    ) -> io::Result<()> {
        match self {
            RecordWriter::Warc(records) => records.end(meta, text, stats),
            RecordWriter::Jsonl(records) => records.end(meta, text, stats),
            RecordWriter::Json(records) => records.end(meta, text, stats),
        }
    }
}

impl<W: Write + Send> RecordSink<W> {
    /// A sink writing records of `format` to `out`.
    pub fn new(out: W, format: RecordFormat) -> RecordSink<W> {
        let records = match format {
            RecordFormat::Warc { gzip_members } => {
                let out = match gzip_members {
                    true => WarcWriter::new_gzip(out, flate2::Compression::default()),
                    false => WarcWriter::new(out),
                };
                RecordWriter::Warc(WarcRecords::new(out))
            }
            RecordFormat::JsonlRewrite {
                output_field,
                add_scores,
            } => RecordWriter::Jsonl(JsonlRecords {
                out,
                output_field,
                add_scores,
            }),
            RecordFormat::JsonlObjects { url } => RecordWriter::Json(JsonRecords { out, url }),
        };
        RecordSink {
            meta: None,
            text: Spool::new(HELD_BYTES),
            records,
        }
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
        self.records.write(&meta, &mut self.text, stats)
    }

    /// Writes the record of a document held by the stage before, from its spool.
    fn held(
        &mut self,
        _index: usize,
        meta: &DocumentMeta,
        text: &mut Spool,
        stats: &DocumentStats,
    ) -> io::Result<()> {
        self.records.write(meta, text, stats)
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
    let told = stats.told.unwrap_or_else(|| Told::of_spool(text));
    let lang = told.language().map(Language::code);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_objects_and_scored_jsonl_lines_report_the_mean_perplexity() {
        let jsonl = |add_scores| RecordFormat::JsonlRewrite {
            output_field: None,
            add_scores,
        };
        assert!(RecordFormat::JSON.reports_perplexity());
        assert!(jsonl(true).reports_perplexity());
        assert!(!jsonl(false).reports_perplexity());
        assert!(!RecordFormat::Warc {
            gzip_members: false
        }
        .reports_perplexity());
    }
}
