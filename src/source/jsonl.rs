//! JSONL input and output: one JSON object per line, as in datatrove / Hugging Face pipelines.
//!
//! [`parse_line_bytes`] finds one string field of an object (e.g. `html` or `text`) and
//! remembers where every value sits in the line; [`JsonRecord::with_field`] writes the line back
//! with only that value replaced (and score fields set or appended), every other byte untouched,
//! so numbers such as `1.50` or `1e3` and nested objects survive exactly. [`JsonlLines`] reads
//! lines with a bound on their length (with the line reader of `source/lines.rs`), or keeps a line
//! past the bound in a [`PassedLine`] to be passed through unchanged, in bounded memory;
//! [`json_object`] builds the JSONL record written for a WARC input.
//!
//! Escapes of unpaired UTF-16 surrogates such as `\ud800`, which Python's `json.dumps` writes for
//! strings that are not valid Unicode and serde_json rejects, are read as U+FFFD in the cleaned
//! field and in keys; elsewhere in the line they stay as written.

use std::fmt::Write as _;
use std::io::{self, BufRead, Write};
use std::ops::Range;
use std::sync::{Arc, Mutex};

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use thiserror::Error;

use super::lines;
use crate::source::spool::{Spool, SpoolReader};

/// Why a line could not be used. Every variant names the line (1-based) and is one line long.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum JsonlError {
    /// Nothing but white space.
    #[error("line {line}: empty line")]
    Blank {
        /// The line (1-based).
        line: u64,
    },
    /// Longer than the line limit: `length` bytes without the line ending (its bytes were
    /// counted, not kept).
    #[error("line {line}: {length} bytes, longer than the {limit}-byte limit")]
    TooLong {
        /// The line (1-based).
        line: u64,
        /// The bound on a line's length.
        limit: usize,
        /// The line's length, without its line ending.
        length: u64,
    },
    /// Not UTF-8: the first invalid byte is at `column` (1-based).
    #[error("line {line}: not valid UTF-8 (column {column})")]
    NotUtf8 {
        /// The line (1-based).
        line: u64,
        /// Where the first invalid byte is (1-based).
        column: usize,
    },
    /// Not JSON at all.
    #[error("line {line}: invalid JSON: {message}")]
    Invalid {
        /// The line (1-based).
        line: u64,
        /// serde_json's message and the column.
        message: String,
    },
    /// JSON, but not an object.
    #[error("line {line}: not a JSON object")]
    NotObject {
        /// The line (1-based).
        line: u64,
    },
    /// The object lacks the field.
    #[error("line {line}: no field \"{field}\"")]
    MissingField {
        /// The line (1-based).
        line: u64,
        /// The field looked for.
        field: String,
    },
    /// The field is there but not a string.
    #[error("line {line}: field \"{field}\" is {kind}, not a string")]
    NotString {
        /// The line (1-based).
        line: u64,
        /// The field looked for.
        field: String,
        /// What it is instead: `a number`, `an object`, `null`…
        kind: &'static str,
    },
}

impl JsonlError {
    /// The line the error is about (1-based).
    pub fn line(&self) -> u64 {
        match self {
            JsonlError::Blank { line }
            | JsonlError::TooLong { line, .. }
            | JsonlError::NotUtf8 { line, .. }
            | JsonlError::Invalid { line, .. }
            | JsonlError::NotObject { line }
            | JsonlError::MissingField { line, .. }
            | JsonlError::NotString { line, .. } => *line,
        }
    }
}

/// A parsed line: the original text, the decoded field and where every value sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonRecord {
    /// Shared by the record's clones (a long line is held once while it is cleaned and
    /// written).
    line: Arc<str>,
    field: String,
    value: String,
    field_span: Range<usize>,
    /// (decoded key, byte range of its value) in order; duplicates kept.
    entries: Vec<(String, Range<usize>)>,
    /// Byte offset of the object's closing `}`.
    close: usize,
}

/// A value for a field added by [`JsonRecord::with_field`] or [`json_object`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Extra<'a> {
    /// A JSON string.
    Str(&'a str),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// Written as serde_json writes floats (shortest round-trip form); NaN and ±∞ as `null`.
    Float(f64),
    /// `null`.
    Null,
}

impl Extra<'_> {
    fn write_json(&self, out: &mut String) {
        match *self {
            Extra::Str(s) => push_json_string(out, s),
            Extra::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Extra::UInt(n) => {
                let _ = write!(out, "{n}");
            }
            Extra::Float(x) => {
                out.push_str(&serde_json::to_string(&x).unwrap_or_else(|_| "null".into()))
            }
            Extra::Null => out.push_str("null"),
        }
    }
}

/// `s` escaped as the inside of a JSON string (no quotes): a long text can be written piece
/// by piece.
pub fn push_json_string_content(out: &mut String, s: &str) {
    let mut quoted = String::with_capacity(s.len() + 2);
    push_json_string(&mut quoted, s);
    out.push_str(&quoted[1..quoted.len() - 1]);
}

fn push_json_string(out: &mut String, s: &str) {
    // Serialising a &str cannot fail; the fallback keeps this panic-free all the same.
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()));
}

impl JsonRecord {
    /// The field's decoded string value (JSON escapes resolved); empty once
    /// [`JsonRecord::take_value`] took it.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The field's decoded string value, taken out of the record (which keeps its line, to
    /// be written again): a long value is then held once, by whoever cleans it.
    pub fn take_value(&mut self) -> String {
        std::mem::take(&mut self.value)
    }

    /// The field's name.
    pub fn field(&self) -> &str {
        &self.field
    }

    /// The line as read (line ending and a leading BOM removed).
    pub fn original(&self) -> &str {
        &self.line
    }

    /// The line with the field's value replaced by `new_value` and each `extra` field set: in
    /// place when the object already has it (so re-running does not duplicate keys), appended
    /// before the closing `}` otherwise. Every other byte is as read. No line ending.
    pub fn with_field(&self, new_value: &str, extra: &[(&str, Extra<'_>)]) -> String {
        self.edited(Some(new_value), extra)
    }

    /// The line with each `extra` field set as [`JsonRecord::with_field`] sets them, the field
    /// read left as it was (`--output-field`: the cleaned text goes to a field of its own).
    pub fn with_extra(&self, extra: &[(&str, Extra<'_>)]) -> String {
        self.edited(None, extra)
    }

    fn edited(&self, new_value: Option<&str>, extra: &[(&str, Extra<'_>)]) -> String {
        let mut edits: Vec<(Range<usize>, String)> = Vec::with_capacity(1 + extra.len());
        if let Some(new_value) = new_value {
            let mut new = String::with_capacity(new_value.len() + 2);
            push_json_string(&mut new, new_value);
            edits.push((self.field_span.clone(), new));
        }
        let mut appended = String::new();
        for (i, (key, value)) in extra.iter().enumerate() {
            if (new_value.is_some() && *key == self.field)
                || extra[..i].iter().any(|(k, _)| k == key)
            {
                continue;
            }
            let mut json = String::new();
            value.write_json(&mut json);
            match self.entries.iter().rev().find(|(k, _)| k == key) {
                Some((_, span)) => edits.push((span.clone(), json)),
                None => {
                    if !(self.entries.is_empty() && appended.is_empty()) {
                        appended.push(',');
                    }
                    push_json_string(&mut appended, key);
                    appended.push(':');
                    appended.push_str(&json);
                }
            }
        }
        edits.push((self.close..self.close, appended));
        edits.sort_by_key(|(span, _)| span.start);

        let added: usize = edits.iter().map(|(_, text)| text.len()).sum();
        let mut out = String::with_capacity(self.line.len() + added);
        let mut at = 0;
        for (span, text) in edits {
            out.push_str(self.line.get(at..span.start).unwrap_or(""));
            out.push_str(&text);
            at = span.end;
        }
        out.push_str(self.line.get(at..).unwrap_or(""));
        out
    }
}

/// [`parse_line_bytes`] for a line known to be UTF-8.
fn parse_line(line: &str, line_no: u64, field: &str) -> Result<JsonRecord, JsonlError> {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    let trimmed = line.trim_start();
    if trimmed.trim_end().is_empty() {
        return Err(JsonlError::Blank { line: line_no });
    }
    if !trimmed.starts_with('{') {
        return Err(match serde_json::from_str::<&RawValue>(line) {
            Ok(_) => JsonlError::NotObject { line: line_no },
            Err(e) => invalid(line_no, &e, 0),
        });
    }
    let mut de = serde_json::Deserializer::from_str(line);
    let entries = Entries::deserialize(&mut de)
        .and_then(|e| de.end().map(|()| e))
        .map_err(|e| invalid(line_no, &e, 0))?;

    // RawValue borrows from `line`; its offset is a pointer difference, checked anyway.
    let base = line.as_ptr() as usize;
    let span_of = |raw: &RawValue| {
        let text = raw.get();
        let start = (text.as_ptr() as usize).checked_sub(base);
        start
            .map(|s| s..s + text.len())
            .filter(|r| line.get(r.clone()) == Some(text))
            .ok_or_else(|| JsonlError::Invalid {
                line: line_no,
                message: "value outside the line".into(),
            })
    };
    let mut spans = Vec::with_capacity(entries.0.len());
    for (key, raw) in entries.0 {
        let key_span = span_of(key)?;
        let key = decode_string(key.get()).map_err(|e| invalid(line_no, &e, key_span.start))?;
        spans.push((key, span_of(raw)?));
    }
    let close = line.trim_end().len().saturating_sub(1);

    let Some((_, span)) = spans.iter().rev().find(|(k, _)| k == field) else {
        return Err(JsonlError::MissingField {
            line: line_no,
            field: field.to_string(),
        });
    };
    let raw = line.get(span.clone()).unwrap_or("");
    if !raw.starts_with('"') {
        let kind = match raw.as_bytes().first() {
            Some(b'{') => "an object",
            Some(b'[') => "an array",
            Some(b't' | b'f') => "a boolean",
            Some(b'n') => "null",
            _ => "a number",
        };
        return Err(JsonlError::NotString {
            line: line_no,
            field: field.to_string(),
            kind,
        });
    }
    let value = decode_string(raw).map_err(|e| invalid(line_no, &e, span.start))?;
    Ok(JsonRecord {
        field_span: span.clone(),
        line: Arc::from(line),
        field: field.to_string(),
        value,
        entries: spans,
        close,
    })
}

/// Parses one line (its `\n` / `\r\n` and a leading BOM are ignored; it must be UTF-8, which
/// the caller need not check first) and finds `field`, which must be a string. `line_no`
/// (1-based) goes into errors. Duplicate keys: the last one counts, as in serde_json and
/// Python's `json`.
pub fn parse_line_bytes(line: &[u8], line_no: u64, field: &str) -> Result<JsonRecord, JsonlError> {
    match std::str::from_utf8(line) {
        Ok(text) => parse_line(text, line_no, field),
        Err(e) => Err(JsonlError::NotUtf8 {
            line: line_no,
            column: e.valid_up_to() + 1,
        }),
    }
}

/// The names of the fields of the JSON object `line` whose values are strings (at most
/// `most`), sorted by name: the fields a `--field` could name.
pub fn string_fields(line: &[u8], most: usize) -> Vec<String> {
    let Ok(object) = serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(line)
    else {
        return Vec::new();
    };
    object
        .into_iter()
        .filter(|(_, value)| value.is_string())
        .map(|(key, _)| key)
        .take(most)
        .collect()
}

/// serde_json's message without its " at line 1 column N" suffix, plus the column in the line
/// (`offset`: where the text serde_json read starts in the line).
fn invalid(line_no: u64, e: &serde_json::Error, offset: usize) -> JsonlError {
    let full = e.to_string();
    let message = match full.rfind(" at line ") {
        Some(i) => format!(
            "{} (column {})",
            &full[..i],
            e.column().saturating_add(offset)
        ),
        None => full,
    };
    JsonlError::Invalid {
        line: line_no,
        message,
    }
}

/// Decodes a JSON string literal (quotes included), reading an escape of an unpaired UTF-16
/// surrogate (`\ud800` not followed by `\udc00`…`\udfff`, or a lone `\udc00`) as U+FFFD.
fn decode_string(raw: &str) -> Result<String, serde_json::Error> {
    match serde_json::from_str(raw) {
        Err(e) => match replace_lone_surrogates(raw) {
            Some(fixed) => serde_json::from_str(&fixed),
            None => Err(e),
        },
        decoded => decoded,
    }
}

/// `raw` with each escape of an unpaired surrogate replaced by `\ufffd`; `None` when there is
/// none. Only real escapes count: in `\\ud800` the backslash is itself escaped.
fn replace_lone_surrogates(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out: Option<String> = None;
    // `raw[..copied]` is in `out` already.
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = bytes.get(at..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        let escape = at + found;
        if bytes.get(escape + 1) != Some(&b'u') {
            // `\\`, `\"`, `\n`…: two bytes.
            at = escape + 2;
            continue;
        }
        let Some(unit) = hex4(bytes, escape + 2) else {
            at = escape + 2;
            continue;
        };
        at = escape + 6;
        if !(0xD800..0xE000).contains(&unit) {
            continue;
        }
        let low = bytes.get(at..at + 2) == Some(b"\\u")
            && hex4(bytes, at + 2).is_some_and(|u| (0xDC00..0xE000).contains(&u));
        if unit < 0xDC00 && low {
            at += 6;
            continue;
        }
        // Every byte of an escape is ASCII, so these are character boundaries.
        let text = out.get_or_insert_with(|| String::with_capacity(raw.len()));
        text.push_str(raw.get(copied..escape).unwrap_or(""));
        text.push_str("\\ufffd");
        copied = at;
    }
    let mut text = out?;
    text.push_str(raw.get(copied..).unwrap_or(""));
    Some(text)
}

/// The four hex digits at `at`, if there are four.
fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0u16, |n, &b| {
        Some(n << 4 | (b as char).to_digit(16)? as u16)
    })
}

/// The object's entries in order, keys and values left as raw JSON text borrowed from the line.
struct Entries<'a>(Vec<(&'a RawValue, &'a RawValue)>);

impl<'de> Deserialize<'de> for Entries<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<&'de RawValue, &'de RawValue>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor)
    }
}

/// One JSON object of `fields` in order (no line ending).
pub fn json_object(fields: &[(&str, Extra<'_>)]) -> String {
    let mut out = String::with_capacity(256);
    out.push('{');
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_string(&mut out, key);
        out.push(':');
        value.write_json(&mut out);
    }
    out.push('}');
    out
}

/// A line number (1-based) and the line's bytes, or why they were not kept.
pub type NumberedLine = (u64, Result<Vec<u8>, JsonlError>);

/// Bytes of a line past the bound held in memory; the rest waits in a temporary file.
const PASSED_HELD_BYTES: usize = 64 << 10;

/// A JSONL line written out as it was read (its line ending removed): a line that is not an
/// object with the field, or one longer than the bound ([`JsonlLines::keeping_long_lines`]),
/// whose first bytes are then held in memory and the rest in a temporary file, read back once,
/// when it is written ([`PassedLine::write_to`]).
#[derive(Clone)]
pub struct PassedLine(Passed);

/// What a [`PassedLine`] holds.
#[derive(Clone)]
enum Passed {
    /// The line's bytes.
    Bytes(Arc<[u8]>),
    /// A long line's bytes and their length, to be read once.
    Spooled(Arc<Mutex<Option<SpoolReader>>>, u64),
}

impl PassedLine {
    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        match &self.0 {
            Passed::Bytes(bytes) => bytes.len() as u64,
            Passed::Spooled(_, len) => *len,
        }
    }

    /// Whether it is an empty line.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Copies its bytes to `out`, a chunk at a time. A long line's bytes can be read once: its
    /// copies share them, and the second write is an error.
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        match &self.0 {
            Passed::Bytes(bytes) => out.write_all(bytes),
            Passed::Spooled(reader, _) => {
                let taken = reader.lock().map_or(None, |mut reader| reader.take());
                let mut reader = taken.ok_or_else(|| {
                    io::Error::other("a long JSONL line passed through was written twice")
                })?;
                io::copy(&mut reader, out).map(drop)
            }
        }
    }
}

impl From<Vec<u8>> for PassedLine {
    fn from(bytes: Vec<u8>) -> PassedLine {
        PassedLine(Passed::Bytes(bytes.into()))
    }
}

impl std::fmt::Debug for PassedLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Passed::Bytes(bytes) => write!(f, "PassedLine({:?})", String::from_utf8_lossy(bytes)),
            Passed::Spooled(_, len) => write!(f, "PassedLine({len} bytes spooled)"),
        }
    }
}

/// The same bytes, or the same spooled line.
impl PartialEq for PassedLine {
    fn eq(&self, other: &PassedLine) -> bool {
        match (&self.0, &other.0) {
            (Passed::Bytes(a), Passed::Bytes(b)) => a == b,
            (Passed::Spooled(a, _), Passed::Spooled(b, _)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// Numbered lines of a JSONL stream, each at most `max_line_bytes` long (a longer one is
/// consumed, its length counted, and reported as [`JsonlError::TooLong`], kept only when asked
/// for: [`JsonlLines::keeping_long_lines`]; memory stays bounded). Line endings (`\n` or
/// `\r\n`) are removed; any other byte, a NUL or one that is not UTF-8 included, is left for
/// [`parse_line_bytes`] to judge. Lines are numbered from 1.
pub struct JsonlLines<R: BufRead> {
    inner: R,
    max_line_bytes: usize,
    line_no: u64,
    /// Lines too long are kept, to be passed through.
    keep_long_lines: bool,
    /// The last line too long, when kept.
    long_line: Option<PassedLine>,
}

impl<R: BufRead> JsonlLines<R> {
    /// Lines of `inner`, at most `max_line_bytes` each.
    pub fn new(inner: R, max_line_bytes: usize) -> Self {
        JsonlLines {
            inner,
            max_line_bytes,
            line_no: 0,
            keep_long_lines: false,
            long_line: None,
        }
    }

    /// Keeps each line longer than the bound (still reported as [`JsonlError::TooLong`]) to be
    /// passed through ([`JsonlLines::long_line`]): up to the bound in memory, the rest spooled
    /// to a temporary file past `PASSED_HELD_BYTES`.
    pub fn keeping_long_lines(mut self) -> Self {
        self.keep_long_lines = true;
        self
    }

    /// The line the last [`JsonlError::TooLong`] was about, when long lines are kept (taken:
    /// `None` the second time).
    pub fn long_line(&mut self) -> Option<PassedLine> {
        self.long_line.take()
    }

    /// The next line: `Ok((line_no, Ok(bytes)))`, `Ok((line_no, Err(TooLong)))`, `Err` on a
    /// read error (the line read so far is dropped), `None` at the end. A last line without
    /// `\n` counts as a line.
    pub fn next_line(&mut self) -> Option<io::Result<NumberedLine>> {
        self.long_line = None;
        if self.keep_long_lines {
            return self.next_kept_line().transpose();
        }
        // Two bytes more than the limit for the line ending, which does not count.
        let bound = (self.max_line_bytes as u64).saturating_add(2);
        let line = match lines::read_line(&mut self.inner, bound, 0) {
            Ok(line) => line?,
            Err(e) => return Some(Err(e)),
        };
        self.line_no += 1;
        let n = self.line_no;
        let length = line.len - line.ending;
        if length > self.max_line_bytes as u64 {
            let too_long = JsonlError::TooLong {
                line: n,
                limit: self.max_line_bytes,
                length,
            };
            return Some(Ok((n, Err(too_long))));
        }
        let mut bytes = line.bytes;
        bytes.truncate(bytes.len() - line.ending as usize);
        Some(Ok((n, Ok(bytes))))
    }

    /// [`JsonlLines::next_line`] keeping a line too long: read into memory up to the bound,
    /// then into a [`Spool`].
    fn next_kept_line(&mut self) -> io::Result<Option<NumberedLine>> {
        // Two bytes more than the limit for the line ending, which does not count.
        let bound = self.max_line_bytes.saturating_add(2);
        let mut line = KeptLine::default();
        let mut len = 0u64;
        let mut found = false;
        while !found {
            let buf = super::fill_buf_retrying(&mut self.inner)?;
            if buf.is_empty() {
                break;
            }
            let take = memchr::memchr(b'\n', buf).map_or(buf.len(), |i| i + 1);
            found = buf[take - 1] == b'\n';
            len += take as u64;
            line.push(&buf[..take - usize::from(found)], found, bound)?;
            self.inner.consume(take);
        }
        if len == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        let n = self.line_no;
        let (passed, length) = line.finish()?;
        if length <= self.max_line_bytes as u64 {
            return Ok(Some((n, Ok(passed.unwrap_or_default()))));
        }
        self.long_line = Some(match passed {
            Ok(bytes) => PassedLine::from(bytes),
            Err(spooled) => spooled,
        });
        let too_long = JsonlError::TooLong {
            line: n,
            limit: self.max_line_bytes,
            length,
        };
        Ok(Some((n, Err(too_long))))
    }
}

/// A line being read by [`JsonlLines::next_kept_line`], its line ending left out: in memory up
/// to the bound, then spooled.
#[derive(Default)]
struct KeptLine {
    bytes: Vec<u8>,
    spool: Option<Spool>,
    /// Bytes written to the spool.
    spooled: u64,
    /// A `\r` that ended what was read, held back: it may begin the line ending.
    held_cr: bool,
    /// The line ended with a `\n` (not with the input).
    ended: bool,
}

impl KeptLine {
    /// Adds the next bytes read, `chunk` (its `\n` left out when `ends`: the line ends there),
    /// spooling the line once it is longer than `bound`.
    fn push(&mut self, chunk: &[u8], ends: bool, bound: usize) -> io::Result<()> {
        self.ended |= ends;
        if self.spool.is_none() {
            self.bytes.extend_from_slice(chunk);
            if ends || self.bytes.len() <= bound {
                return Ok(());
            }
            let bytes = std::mem::take(&mut self.bytes);
            self.spool = Some(Spool::new(PASSED_HELD_BYTES));
            return self.push(&bytes, false, bound);
        }
        let (body, cr) = match chunk.split_last() {
            Some((b'\r', body)) => (body, true),
            _ => (chunk, false),
        };
        // A `\r` held from before is the line's when more than its `\n` follows.
        if self.held_cr && !(ends && chunk.is_empty()) {
            self.spool_write(b"\r")?;
        }
        self.spool_write(body)?;
        // One that ends the chunk is the line ending's when the line ends here.
        self.held_cr = cr && !ends;
        Ok(())
    }

    fn spool_write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(spool) = &mut self.spool {
            spool.write(bytes)?;
            self.spooled += bytes.len() as u64;
        }
        Ok(())
    }

    /// The line (`Ok`: in memory, `Err`: spooled) and its length without its ending.
    fn finish(mut self) -> io::Result<(Result<Vec<u8>, PassedLine>, u64)> {
        if self.spool.is_none() {
            // In memory, the `\n` left out: a `\r` before it is the ending's too.
            if self.ended && self.bytes.last() == Some(&b'\r') {
                self.bytes.pop();
            }
            let length = self.bytes.len() as u64;
            return Ok((Ok(self.bytes), length));
        }
        if self.held_cr {
            // The input ended after it: the line's own.
            self.spool_write(b"\r")?;
        }
        let length = self.spooled;
        let reader = self.spool.take().map(Spool::into_reader).transpose()?;
        let passed = PassedLine(Passed::Spooled(Arc::new(Mutex::new(reader)), length));
        Ok((Err(passed), length))
    }
}

impl<R: BufRead> Iterator for JsonlLines<R> {
    type Item = io::Result<NumberedLine>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_line()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn fixture() -> Vec<u8> {
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/jsonl/pages.jsonl"
        ))
        .expect("fixture")
    }

    #[test]
    fn fixture_counts_and_untouched_fields() {
        let lines: Vec<_> = JsonlLines::new(Cursor::new(fixture()), 1 << 20)
            .map(|l| l.unwrap())
            .collect();
        assert_eq!(lines.len(), 5);
        let mut good = Vec::new();
        let mut bad = Vec::new();
        for (n, bytes) in &lines {
            match parse_line_bytes(bytes.as_ref().unwrap(), *n, "html") {
                Ok(rec) => good.push((*n, rec)),
                Err(e) => bad.push(e),
            }
        }
        assert_eq!(good.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [1, 2, 5]);
        assert!(
            matches!(&bad[0], JsonlError::Invalid { line: 3, .. }),
            "{:?}",
            bad[0]
        );
        assert_eq!(
            bad[1],
            JsonlError::MissingField {
                line: 4,
                field: "html".into()
            }
        );
        assert_eq!(bad[1].to_string(), "line 4: no field \"html\"");
        assert!(!bad[0].to_string().contains('\n'));

        let (_, first) = &good[0];
        let value = first.value();
        let home = "<html><body><nav><a href=\"/\">Home</a>";
        assert!(value.starts_with(home), "{value}");
        let out = first.with_field(
            "Clean.",
            &[
                ("mean_perplexity", Extra::Float(1234.5)),
                ("sentences_kept", Extra::UInt(1)),
            ],
        );
        let original = first.original();
        // Undo the edits: what is left is the original, byte for byte.
        let restored = out
            .replace("\"Clean.\"", &original[first.field_span.clone()])
            .replace(",\"mean_perplexity\":1234.5,\"sentences_kept\":1}", "}");
        assert_eq!(restored, original);
        assert!(
            out.contains("\"score\": 1.50") && out.contains("1e3"),
            "{out}"
        );

        // JSON-escaped HTML is decoded; the rewritten value is escaped again.
        let (_, second) = &good[1];
        let value = second.value();
        let decoded = "caf\u{e9} &amp; \"quotes\"</p>\n<nav>";
        assert!(value.contains(decoded), "{value}");
        let v: serde_json::Value =
            serde_json::from_str(&second.with_field("a \"b\"\n", &[])).unwrap();
        assert_eq!(v["html"], "a \"b\"\n");
    }

    #[test]
    fn existing_score_fields_are_replaced_not_duplicated() {
        let rec = parse_line("{\"text\": \"x\", \"ppl\": 3, \"n\": [1,2]}\r\n", 7, "text").unwrap();
        let out = rec.with_field(
            "y",
            &[
                ("ppl", Extra::Float(f64::NAN)),
                ("kept", Extra::Int(-2)),
                ("text", Extra::Null),
            ],
        );
        assert_eq!(
            out,
            "{\"text\": \"y\", \"ppl\": null, \"n\": [1,2],\"kept\":-2}"
        );
        let empty = parse_line("{\"t\":\"\"} ", 1, "t").unwrap();
        assert_eq!(
            empty.with_field("z", &[("a", Extra::Str("é")), ("b", Extra::UInt(1))]),
            "{\"t\":\"z\",\"a\":\"é\",\"b\":1} "
        );
    }

    #[test]
    fn error_kinds() {
        let e = |s: &str| parse_line(s, 9, "text").unwrap_err();
        assert_eq!(e("   "), JsonlError::Blank { line: 9 });
        assert_eq!(e("[1, 2]"), JsonlError::NotObject { line: 9 });
        assert_eq!(
            e("{\"text\": 3}"),
            JsonlError::NotString {
                line: 9,
                field: "text".into(),
                kind: "a number"
            }
        );
        assert_eq!(
            e("{\"text\": {\"a\": 1}}").to_string(),
            "line 9: field \"text\" is an object, not a string"
        );
        assert!(matches!(
            e("{\"text\": \"a\"} x"),
            JsonlError::Invalid { .. }
        ));
        assert!(matches!(
            e("{\"text\": \"a\",}"),
            JsonlError::Invalid { .. }
        ));
        assert!(matches!(e("nope"), JsonlError::Invalid { .. }));
        let not_utf8 = parse_line_bytes(b"{\"text\": \"\xff\"}", 2, "text").unwrap_err();
        assert_eq!(
            not_utf8,
            JsonlError::NotUtf8 {
                line: 2,
                column: 11
            }
        );
        assert_eq!(not_utf8.to_string(), "line 2: not valid UTF-8 (column 11)");
        assert_eq!(
            parse_line("\u{feff}{\"text\":\"a\",\"text\":\"b\"}", 1, "text")
                .unwrap()
                .value(),
            "b"
        );
    }

    #[test]
    fn long_lines_are_reported_and_skipped() {
        let input = b"{\"a\":\"x\"}\n0123456789012345678901234567890\r\n{}\n\nlast".to_vec();
        let got: Vec<_> = JsonlLines::new(Cursor::new(input), 12)
            .map(|l| l.unwrap())
            .collect();
        let show: Vec<String> = got
            .iter()
            .map(|(n, l)| {
                format!(
                    "{n}:{}",
                    l.as_ref()
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .unwrap_or_else(|e| e.to_string())
                )
            })
            .collect();
        assert_eq!(
            show,
            [
                "1:{\"a\":\"x\"}",
                "2:line 2: 31 bytes, longer than the 12-byte limit",
                "3:{}",
                "4:",
                "5:last"
            ]
        );
    }

    #[test]
    fn long_lines_report_their_real_length() {
        // Cut at every position of the line ending across the reader's buffer.
        for capacity in [1, 2, 3, 7, 64] {
            let input =
                b"0123456789\r\n01234567890123\r\n0123456789012\n\r\n\r0123456789012345".to_vec();
            let reader = io::BufReader::with_capacity(capacity, Cursor::new(input));
            let got: Vec<_> = JsonlLines::new(reader, 12)
                .map(|l| l.unwrap().1.map_err(|e| e.to_string()))
                .collect();
            assert_eq!(
                got,
                [
                    Ok(b"0123456789".to_vec()),
                    Err("line 2: 14 bytes, longer than the 12-byte limit".into()),
                    Err("line 3: 13 bytes, longer than the 12-byte limit".into()),
                    Ok(Vec::new()),
                    Err("line 5: 17 bytes, longer than the 12-byte limit".into()),
                ],
                "capacity {capacity}"
            );
        }
    }

    #[test]
    fn long_lines_are_kept_whole_to_be_passed_through() {
        let long = |n: usize| (0..n).map(|i| b'a' + (i % 26) as u8).collect::<Vec<u8>>();
        // Past the bound in memory, past it spooled, with a \r in the line and at its end.
        let lines: Vec<Vec<u8>> = vec![
            b"{}".to_vec(),
            long(13),
            [long(200_000), b"\r".to_vec(), long(7)].concat(),
            [long(70_000), b"\rz".to_vec()].concat(),
            b"short".to_vec(),
            long(30),
        ];
        for capacity in [1, 2, 3, 64, 8192] {
            for ending in ["\n", "\r\n"] {
                let mut input = lines.join(ending.as_bytes());
                input.extend_from_slice(b"\r");
                let reader = io::BufReader::with_capacity(capacity, Cursor::new(input));
                let mut read = JsonlLines::new(reader, 12).keeping_long_lines();
                let mut got = Vec::new();
                while let Some(line) = read.next_line() {
                    let (n, line) = line.unwrap();
                    match line {
                        Ok(bytes) => got.push((n, bytes, None)),
                        Err(e) => {
                            let passed = read.long_line().expect("kept");
                            let mut bytes = Vec::new();
                            passed.write_to(&mut bytes).unwrap();
                            assert_eq!(passed.len(), bytes.len() as u64);
                            // A line spooled (longer than the bound and its ending) is read
                            // once: its copies share it.
                            let again = passed.clone().write_to(&mut Vec::new());
                            assert_eq!(again.is_err(), passed.len() > 14);
                            got.push((n, bytes, Some(e.to_string())));
                        }
                    }
                }
                let mut want = lines.clone();
                // The last line ends with the input: its \r is its own.
                want[5].push(b'\r');
                assert_eq!(got.len(), want.len(), "capacity {capacity}");
                for (i, ((n, bytes, error), want)) in got.iter().zip(&want).enumerate() {
                    assert_eq!((*n, bytes), ((i + 1) as u64, want), "capacity {capacity}");
                    let too_long = format!(
                        "line {n}: {} bytes, longer than the 12-byte limit",
                        want.len()
                    );
                    assert_eq!(error.as_ref(), (want.len() > 12).then_some(&too_long));
                }
            }
        }
    }

    #[test]
    fn unpaired_surrogate_escapes_read_as_replacement_characters() {
        let value = |line: &str| parse_line(line, 1, "t").map(|r| r.value().to_string());
        assert_eq!(value(r#"{"t": "a\ud800b"}"#).unwrap(), "a\u{fffd}b");
        assert_eq!(
            value(r#"{"t": "\udc00\uD800"}"#).unwrap(),
            "\u{fffd}\u{fffd}"
        );
        assert_eq!(
            value(r#"{"t": "\ud800\ud83d\ude00\ud800\n"}"#).unwrap(),
            "\u{fffd}\u{1f600}\u{fffd}\n"
        );
        assert_eq!(
            value(r#"{"t": "\\ud800 \\\ud800"}"#).unwrap(),
            "\\ud800 \\\u{fffd}"
        );
        assert_eq!(
            value(r#"{"t": "\ud800\u0041\ud800\\udc00"}"#).unwrap(),
            "\u{fffd}A\u{fffd}\\udc00"
        );
        // A key with one is read the same way; other values keep theirs as written.
        let rec = parse_line(r#"{"k\udfff": "\ud800", "t": "x"}"#, 1, "k\u{fffd}").unwrap();
        assert_eq!(rec.value(), "\u{fffd}");
        let out = rec.with_field("y", &[("t", Extra::Str("z"))]);
        assert_eq!(out, r#"{"k\udfff": "y", "t": "z"}"#);
        let other = parse_line(r#"{"a": "\ud800", "t": "x"}"#, 1, "t").unwrap();
        assert_eq!(
            other.with_field("\u{fffd}", &[]),
            "{\"a\": \"\\ud800\", \"t\": \"\u{fffd}\"}"
        );
        // Still errors: a broken escape, and a key that is not a string.
        assert!(matches!(
            value(r#"{"t": "\ud80"}"#),
            Err(JsonlError::Invalid { .. })
        ));
        assert!(matches!(
            value(r#"{1: "a"}"#),
            Err(JsonlError::Invalid { .. })
        ));
    }

    #[test]
    fn json_objects_escape_and_write_null() {
        let line = json_object(&[
            ("url", Extra::Str("http://e.com/")),
            ("text", Extra::Str("Text \"q\"\n")),
            ("sentences_kept", Extra::UInt(3)),
            ("mean_perplexity", Extra::Float(250.0)),
            ("title", Extra::Null),
        ]);
        assert_eq!(line, "{\"url\":\"http://e.com/\",\"text\":\"Text \\\"q\\\"\\n\",\"sentences_kept\":3,\"mean_perplexity\":250.0,\"title\":null}");
        assert_eq!(json_object(&[]), "{}");
    }

    mod prop {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

            #[test]
            fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256), field in "[a-z]{0,4}") {
                if let Ok(rec) = parse_line_bytes(&bytes, 1, &field) {
                    let _ = rec.with_field("x", &[("y", Extra::Int(1))]);
                }
                let _ = JsonlLines::new(Cursor::new(&bytes), 16).count();
            }

            #[test]
            fn garbled_lines_never_panic_and_rewrites_stay_valid(line in 0usize..5, cuts in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4), new in ".{0,20}") {
                let text = fixture();
                let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
                let mut bytes = lines[line % lines.len()].to_vec();
                for (at, b) in cuts {
                    if !bytes.is_empty() {
                        let at = at % bytes.len();
                        bytes[at] = b;
                    }
                }
                if let Ok(rec) = parse_line_bytes(&bytes, 1, "html") {
                    let out = rec.with_field(&new, &[("mean_perplexity", Extra::Float(1.5)), ("score", Extra::Null)]);
                    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
                    prop_assert_eq!(v["html"].as_str(), Some(new.as_str()));
                    prop_assert_eq!(v["mean_perplexity"].as_f64(), Some(1.5));
                }
            }
        }
    }
}
