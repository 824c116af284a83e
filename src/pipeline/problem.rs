//! What goes wrong with one input ([`Problem`], typed as a [`Trouble`]) and who hears of it
//! ([`Observer`]).

use std::io;
use std::sync::Arc;

use encoding_rs::Encoding;

use crate::errors::io_message;
use crate::html::HtmlError;
use crate::source::jsonl::JsonlError;
use crate::source::warc::WarcError;

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

/// What went wrong with an input, or part of one, with its cause; displayed, it is the
/// one-line message. Each kind has one [`Severity`] ([`Trouble::severity`]).
#[derive(Clone, Debug, thiserror::Error)]
pub enum Trouble {
    /// The input cannot be opened.
    #[error("cannot open: {}", io_message(.0))]
    Open(#[source] Arc<io::Error>),
    /// Reading failed part-way (damaged compressed data, a failing device); what was read is
    /// kept.
    #[error("read error: {}; text up to here was kept", io_message(.0))]
    Read(#[source] Arc<io::Error>),
    /// Reading a JSONL input's lines failed; the lines before were cleaned.
    #[error("read error: {}", io_message(.0))]
    ReadLines(#[source] Arc<io::Error>),
    /// The bytes are not text.
    #[error("binary data, not text: skipped")]
    Binary,
    /// The HTML parser gave up part-way; the text before was kept.
    #[error("{0}; text up to here was kept")]
    ParserGaveUp(#[source] Arc<HtmlError>),
    /// The HTML parser refused the end of the page.
    #[error("{0}")]
    ParserAtEnd(#[source] Arc<HtmlError>),
    /// The input holds no byte.
    #[error("empty input")]
    Empty,
    /// Bytes invalid in the input's encoding were replaced by U+FFFD.
    #[error(
        "bytes invalid in its {}encoding {} were replaced by U+FFFD",
        if *.declared { "declared " } else { "" },
        .encoding.name()
    )]
    Replaced {
        /// The encoding the input was decoded with.
        encoding: &'static Encoding,
        /// Whether the page declared it (BOM, HTTP header or `<meta>`).
        declared: bool,
    },
    /// The page declares a legacy encoding in a `<meta>` tag but its bytes are UTF-8: read as
    /// UTF-8.
    #[error("declares the encoding {} but its bytes are UTF-8: read as UTF-8", .0.name())]
    Utf8OverMeta(&'static Encoding),
    /// A WARC record could not be read (the reader went on at the next one).
    #[error("{0}")]
    Warc(#[source] Arc<WarcError>),
    /// A WARC response record whose payload is not an HTTP response.
    #[error("record {0}: not an HTTP response")]
    NotHttp(String),
    /// A JSONL line that is not an object with the field, or too long to be read (longer than
    /// `max_record_bytes`), passed through unchanged or skipped.
    #[error("{error} ({})", if *.skipped { "skipped" } else { "passed through" })]
    BadLine {
        /// Why.
        #[source]
        error: JsonlError,
        /// Skipped (`--skip-bad-lines`) rather than passed through.
        skipped: bool,
    },
    /// JSONL lines in a row without the field: one message for them all, naming the fields
    /// the lines do have when no line of the input has it.
    #[error("{}", missing_field_message(.field, *.first, *.count, *.every_line, .fields, *.skipped))]
    FieldMissing {
        /// The field looked for (`--field`).
        field: String,
        /// The first line without it (1-based).
        first: u64,
        /// How many lines in a row lack it.
        count: u64,
        /// No line of the input has it.
        every_line: bool,
        /// String fields of the first line without it.
        fields: Vec<String>,
        /// Skipped (`--skip-bad-lines`) rather than passed through.
        skipped: bool,
    },
    /// A JSONL line too long to be read, skipped (`--skip-bad-lines`).
    #[error("{0} (skipped)")]
    LineSkipped(#[source] JsonlError),
    /// A directory that cannot be read.
    #[error("cannot read: {0}")]
    Unreadable(String),
    /// An input larger than `--max-filesize`: skipped.
    #[error("{size} bytes, larger than --max-filesize ({max}): skipped")]
    TooLarge {
        /// Its size.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// A URL whose page was not fetched (`-u`, `-i`), and why.
    #[error("not fetched: {0}")]
    NotFetched(String),
    /// The input was cut short (a bound reached, or its data ended early); the text before the
    /// cut was kept.
    #[error("{0}; text up to the cut was kept")]
    Cut(String),
    /// A block (a paragraph, a code block, a table's cell) longer than `--max-block-bytes` was
    /// cut into blocks of at most that many bytes; no text was dropped.
    #[error("a block longer than --max-block-bytes ({0} bytes) was cut into blocks of that size")]
    BlockCut(usize),
    /// Standard input seems to list files rather than hold a page.
    #[error("every line names a file: cleaned as a page all the same (to clean the files it lists, use --files-from -)")]
    ListsFiles,
    /// A directory that holds no file to clean (`with_glob`: none that --glob chooses).
    #[error("{}", if *.with_glob { "no file in this directory matches --glob" } else { "no file to clean in this directory" })]
    NoFileInDirectory {
        /// Whether --glob was given.
        with_glob: bool,
    },
}

/// The message of [`Trouble::FieldMissing`].
fn missing_field_message(
    field: &str,
    first: u64,
    count: u64,
    every_line: bool,
    fields: &[String],
    skipped: bool,
) -> String {
    let fate = if skipped { "skipped" } else { "passed through" };
    let lines = if count == 1 { "line" } else { "lines" };
    if every_line {
        let named = match fields {
            [] => String::new(),
            fields => format!(
                "; its lines have the text fields {}",
                fields
                    .iter()
                    .map(|f| format!("\"{f}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!("no line has the field \"{field}\" ({count} {lines} {fate}, uncleaned{named}): name the field to clean with --field")
    } else if count == 1 {
        format!("line {first}: no field \"{field}\" ({fate})")
    } else {
        let last = first + count - 1;
        format!("lines {first}-{last}: no field \"{field}\" ({count} lines {fate})")
    }
}

impl Trouble {
    /// How bad it is.
    pub fn severity(&self) -> Severity {
        match self {
            Trouble::Empty
            | Trouble::Replaced { .. }
            | Trouble::Utf8OverMeta(_)
            | Trouble::BlockCut(_)
            | Trouble::ListsFiles => Severity::Note,
            // Damaged compressed data is damaged input; a failing read is an error.
            Trouble::Read(e) => match e.kind() {
                io::ErrorKind::InvalidData
                | io::ErrorKind::InvalidInput
                | io::ErrorKind::UnexpectedEof => Severity::Warning,
                _ => Severity::Error,
            },
            Trouble::Open(_) | Trouble::ReadLines(_) | Trouble::Unreadable(_) => Severity::Error,
            Trouble::Binary
            | Trouble::ParserGaveUp(_)
            | Trouble::ParserAtEnd(_)
            | Trouble::Warc(_)
            | Trouble::NotHttp(_)
            | Trouble::BadLine { .. }
            | Trouble::FieldMissing { .. }
            | Trouble::LineSkipped(_)
            | Trouble::NoFileInDirectory { .. }
            | Trouble::TooLarge { .. }
            | Trouble::NotFetched(_)
            | Trouble::Cut(_) => Severity::Warning,
        }
    }
}

/// A problem with one input, reported as one line naming the input.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The input (a file, `<stdin>`, a WARC record, a JSONL line).
    pub input: String,
    /// How bad it is ([`Trouble::severity`]).
    pub severity: Severity,
    /// What happened.
    pub trouble: Trouble,
}

impl Problem {
    /// A problem with `input`.
    pub fn new(input: impl Into<String>, trouble: Trouble) -> Problem {
        Problem {
            input: input.into(),
            severity: trouble.severity(),
            trouble,
        }
    }

    /// What happened, as one line.
    pub fn message(&self) -> String {
        self.trouble.to_string()
    }
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
