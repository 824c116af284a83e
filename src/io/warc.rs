//! WARC input and output: a streaming, bounded reader of WARC/1.0 and WARC/1.1 records, the
//! HTTP-response helpers that turn a `response` record into an HTML body and its charset, and a
//! writer of deterministic `conversion` (and `warcinfo`) records.
//!
//! The reader never holds more than one record's block (`max_record_bytes`, larger records are
//! skipped by their Content-Length) and never panics: damaged input becomes [`WarcError`] values,
//! after which it resynchronises at the next `WARC/` version line, also one glued to the end of
//! a line cut short, or one inside the block of a record whose Content-Length is wrong (the
//! block not followed by `\r\n\r\n`, or running past the end of the input), so that the
//! record after a damaged one is not lost. Gzip (`.warc.gz`, one member per record or one for
//! the whole file) is the caller's business: wrap the input in `io::gzip::GzipReader` (see
//! `io::maybe_gunzip`, which resumes at the next member after a damaged one) and a `BufReader`;
//! its damage reports become [`WarcError::Damaged`] and reading goes on.

use std::borrow::Cow;
use std::io::{self, BufRead, Read, Write};

use flate2::write::GzEncoder;
use thiserror::Error;
use xxhash_rust::xxh3::Xxh3;

use super::gzip;

/// Default bound on one record's block (`--max-record-bytes`): 16 MiB.
pub const DEFAULT_MAX_RECORD_BYTES: u64 = 16 << 20;
/// Bound on a record's header section; a longer one is malformed.
const MAX_HEADER_BYTES: usize = 64 << 10;
/// Bound on a decompressed `Content-Encoding: gzip|deflate` HTTP body.
pub const MAX_DECODED_BODY_BYTES: u64 = 64 << 20;
/// WARC-Date written when the source record has none (output must be reproducible).
pub const FALLBACK_DATE: &str = "1970-01-01T00:00:00Z";

/// Why a record could not be returned. Every variant is one line when displayed.
#[derive(Debug, Error)]
pub enum WarcError {
    /// The input ended inside this record (headers or block); the reader then ends.
    #[error("record {record_id}: truncated (input ended inside the record)")]
    Truncated { record_id: String },
    /// The block is larger than `max_record_bytes`; it was skipped and reading goes on.
    #[error("record {record_id}: {length} bytes is more than the limit of {limit}; skipped")]
    TooLarge {
        record_id: String,
        length: u64,
        limit: u64,
    },
    /// Not a well-formed record at this offset (of the decompressed stream); the reader skips
    /// to the next `WARC/` line.
    #[error("byte {offset}: malformed WARC record{}: {reason}", fmt_id(.record_id))]
    Malformed {
        offset: u64,
        record_id: Option<String>,
        reason: String,
    },
    /// Reading failed (other than a plain early end); the reader then ends.
    #[error("read error{}: {source}", fmt_id(.record_id))]
    Io {
        record_id: Option<String>,
        source: io::Error,
    },
    /// The decompressor skipped damaged input (its message names the compressed byte offsets),
    /// inside this record when there is one (the record is lost); reading goes on.
    #[error("{source}{}", fmt_lost(.record_id))]
    Damaged {
        record_id: Option<String>,
        source: io::Error,
    },
}

fn fmt_id(id: &Option<String>) -> String {
    id.as_ref()
        .map(|id| format!(" in record {id}"))
        .unwrap_or_default()
}

fn fmt_lost(id: &Option<String>) -> String {
    id.as_ref()
        .map(|id| format!("; record {id}, cut by it, is skipped"))
        .unwrap_or_default()
}

/// One WARC record, its block read whole (bounded by `max_record_bytes`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarcRecord {
    /// The version line without its line ending, e.g. `WARC/1.1`.
    pub version: String,
    /// Every header in input order, continuation lines folded into their value (one space).
    pub headers: Vec<(String, String)>,
    /// `WARC-Type`, lower-cased (`response`, `request`, `warcinfo`, …); empty when absent.
    pub record_type: String,
    /// `WARC-Record-ID` as written, angle brackets included; empty when absent.
    pub record_id: String,
    /// `WARC-Target-URI`, if any.
    pub target_uri: Option<String>,
    /// The record's own `Content-Type` (e.g. `application/http; msgtype=response`).
    pub content_type: Option<String>,
    /// `WARC-Date`, if any.
    pub date: Option<String>,
    /// The record block (for a `response`, the HTTP status line, headers and body).
    pub payload: Vec<u8>,
}

impl WarcRecord {
    /// The first header named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A `response` record holding an HTTP response (the kind whose HTML we clean).
    pub fn is_http_response(&self) -> bool {
        self.record_type == "response"
            && self.content_type.as_deref().is_some_and(|ct| {
                let ct = ct.to_ascii_lowercase();
                mime_essence(&ct) == "application/http"
                    && ct.split(';').skip(1).all(|p| {
                        !p.trim().starts_with("msgtype=") || p.trim() == "msgtype=response"
                    })
            })
    }
}

/// Streaming reader: one record per [`WarcReader::next_record`] call.
pub struct WarcReader<R: BufRead> {
    inner: R,
    max_record_bytes: u64,
    /// Bytes consumed so far (of the decompressed stream), for error messages.
    offset: u64,
    /// Bytes given back after looking ahead (a record found inside a damaged one), read before
    /// `inner`; at most about one record's block.
    pushback: Vec<u8>,
    pushback_pos: usize,
    /// A read error met while looking past a record that was returned whole; reported next.
    deferred: Option<io::Error>,
    done: bool,
}

enum Line {
    Eof,
    /// A line longer than the limit, consumed whole: its length and its last bytes.
    TooLong {
        len: u64,
        tail: Vec<u8>,
    },
    Text(Vec<u8>),
}

/// How skipping the part of a block beyond `max_record_bytes` ended.
enum Skip {
    /// The whole block was skipped; its last bytes (too close to its end to tell whether a
    /// record starts there).
    Done(Vec<u8>),
    /// The input ended inside it.
    Eof,
    /// A record starts inside it, at this offset; reading goes on there.
    Found(u64),
}

/// Bytes kept of a too-long line (to find a version line glued to its end).
const LINE_TAIL: usize = 32;
/// Bytes needed after the start of a version line to tell whether it is one (see
/// [`find_version_line`]).
const VERSION_LOOKAHEAD: usize = 128;

impl<R: BufRead> WarcReader<R> {
    /// A reader with the default `max_record_bytes`.
    pub fn new(inner: R) -> Self {
        WarcReader {
            inner,
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
            offset: 0,
            pushback: Vec::new(),
            pushback_pos: 0,
            deferred: None,
            done: false,
        }
    }

    /// Sets the bound on one record's block; larger records yield [`WarcError::TooLarge`].
    pub fn with_max_record_bytes(mut self, max: u64) -> Self {
        self.max_record_bytes = max;
        self
    }

    /// Bytes consumed so far (of the decompressed stream).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The next record, an error about one record (reading goes on unless it was truncation or
    /// an I/O error), or `None` at the end.
    pub fn next_record(&mut self) -> Option<Result<WarcRecord, WarcError>> {
        if self.done {
            return None;
        }
        let result = self.read_record();
        if matches!(
            result,
            None | Some(Err(WarcError::Truncated { .. } | WarcError::Io { .. }))
        ) {
            self.done = true;
        }
        result
    }

    fn read_record(&mut self) -> Option<Result<WarcRecord, WarcError>> {
        if let Some(e) = self.deferred.take() {
            return Some(Err(self.boundary_error(e)));
        }
        // Find the version line: blank lines between records are normal, anything else is
        // garbage reported once and skipped. A version line glued to the end of garbage (a
        // record cut short) starts the next record.
        let start = self.offset;
        let mut garbage = 0u64;
        let version = loop {
            let line = match self.read_line(MAX_HEADER_BYTES) {
                Err(e) => return Some(Err(self.boundary_error(e))),
                Ok(Line::Eof) => {
                    if garbage > 0 {
                        return Some(Err(self.malformed(
                            start,
                            None,
                            format!("{garbage} bytes of trailing garbage"),
                        )));
                    }
                    return None;
                }
                Ok(Line::TooLong { len, tail }) => {
                    let Some(i) = glued_version(&tail) else {
                        garbage += len;
                        continue;
                    };
                    self.unread(&tail[i..]);
                    garbage += len - (tail.len() - i) as u64;
                    return Some(Err(self.not_a_record(start, garbage)));
                }
                Ok(Line::Text(line)) => line,
            };
            if let Some(i) = glued_version(&line) {
                self.unread(&line[i..]);
                if garbage == 0 && line[..i].iter().all(|b| b.is_ascii_whitespace()) {
                    continue;
                }
                return Some(Err(self.not_a_record(start, garbage + i as u64)));
            }
            if line.starts_with(b"WARC/") {
                if garbage > 0 {
                    self.unread(&line);
                    return Some(Err(self.not_a_record(start, garbage)));
                }
                break line;
            }
            if !trim_eol(&line).iter().all(|b| b.is_ascii_whitespace()) {
                garbage += line.len() as u64;
            }
        };
        let record_start = self.offset - version.len() as u64;
        let version = String::from_utf8_lossy(trim_eol(&version))
            .trim_end()
            .to_string();

        // Headers up to the blank line. A version line glued to the end of a header line may be
        // the next record's, the header cut short: `glued` remembers where it starts in `raw`
        // (the header lines as read) and how many headers came before it, to go back to it if
        // the record turns out damaged.
        let mut headers: Vec<(String, String)> = Vec::new();
        let mut raw: Vec<u8> = Vec::new();
        let mut glued: Option<(usize, usize)> = None;
        loop {
            let line = match self.read_line(MAX_HEADER_BYTES) {
                Err(e) => return Some(Err(self.record_error(find_id(&headers), e))),
                Ok(Line::Eof) => {
                    if let Some(at) = glued {
                        return Some(Err(self.back_to_glued(
                            record_start,
                            &headers,
                            &raw,
                            at,
                            &[],
                        )));
                    }
                    return Some(Err(truncated(&headers)));
                }
                Ok(Line::TooLong { len, tail }) => {
                    if let Some(i) = glued_version(&tail) {
                        self.unread(&tail[i..]);
                    }
                    let reason = format!(
                        "header line of {len} bytes, longer than the limit of {MAX_HEADER_BYTES}"
                    );
                    return Some(Err(self.malformed(record_start, find_id(&headers), reason)));
                }
                Ok(Line::Text(line)) => line,
            };
            if !line.ends_with(b"\n") {
                // The input ended inside this line.
                if let Some(at) = glued {
                    return Some(Err(self.back_to_glued(
                        record_start,
                        &headers,
                        &raw,
                        at,
                        &[&line],
                    )));
                }
                return Some(Err(truncated(&headers)));
            }
            if raw.len() + line.len() > MAX_HEADER_BYTES {
                let id = find_id(&headers);
                let reason =
                    format!("header section longer than the limit of {MAX_HEADER_BYTES} bytes");
                return Some(Err(self.malformed(record_start, id, reason)));
            }
            raw.extend_from_slice(&line);
            let content = trim_eol(&line);
            if content.is_empty() {
                break;
            }
            if line.starts_with(b"WARC/") {
                // A record without its blank line or block: report it and restart here.
                let id = find_id(&headers);
                self.unread(&line);
                return Some(Err(self.malformed(
                    record_start,
                    id,
                    "header section not ended by a blank line".into(),
                )));
            }
            let glue = glued_version(&line);
            let glue_at = |headers: &Vec<(String, String)>| {
                glue.map(|i| (raw.len() - line.len() + i, headers.len()))
            };
            let text = String::from_utf8_lossy(content);
            if content[0] == b' ' || content[0] == b'\t' {
                if let Some((_, value)) = headers.last_mut() {
                    value.push(' ');
                    value.push_str(text.trim());
                }
                glued = glued.or(glue_at(&headers));
                continue;
            }
            match text.split_once(':') {
                Some((name, value)) if glue.map_or(true, |i| content[..i].contains(&b':')) => {
                    headers.push((name.trim().to_string(), value.trim().to_string()));
                    glued = glued.or(glue_at(&headers));
                }
                _ => {
                    let id = find_id(&headers);
                    if let Some(i) = glue {
                        // Cut inside the line, and the next record follows.
                        self.unread(&line[i..]);
                        let reason = format!(
                            "header line cut short by the next record, at byte {}",
                            self.offset
                        );
                        return Some(Err(self.malformed(record_start, id, reason)));
                    }
                    if let Some(at) = glued {
                        return Some(Err(self.back_to_glued(
                            record_start,
                            &headers,
                            &raw,
                            at,
                            &[],
                        )));
                    }
                    return Some(Err(self.malformed(
                        record_start,
                        id,
                        format!("header line without a colon: {:.60}", text),
                    )));
                }
            }
        }
        // A header name both before and after a glued version line: two records' headers.
        if let Some((at, before)) = glued {
            let (first, second) = headers.split_at(before);
            if second.iter().any(|(name, _)| {
                first
                    .iter()
                    .any(|(other, _)| other.eq_ignore_ascii_case(name))
            }) {
                return Some(Err(self.back_to_glued(
                    record_start,
                    &headers,
                    &raw,
                    (at, before),
                    &[],
                )));
            }
        }

        let get = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let record_id = get("WARC-Record-ID").unwrap_or_default();
        let id = Some(record_id.clone()).filter(|s| !s.is_empty());
        let length = match get("Content-Length").map(|v| v.parse::<u64>()) {
            Some(Ok(n)) => n,
            _ => {
                if let Some(at) = glued {
                    return Some(Err(self.back_to_glued(
                        record_start,
                        &headers,
                        &raw,
                        at,
                        &[],
                    )));
                }
                return Some(Err(self.malformed(
                    record_start,
                    id,
                    "missing or bad Content-Length".into(),
                )));
            }
        };
        let display_id = if record_id.is_empty() {
            "(no WARC-Record-ID)".to_string()
        } else {
            record_id.clone()
        };

        // The block, at most `max_record_bytes` of it kept. Grown as bytes arrive, so a lying
        // Content-Length costs no memory up front.
        let limit = self.max_record_bytes;
        let mut payload = Vec::with_capacity(length.min(limit).min(1 << 20) as usize);
        let whole = match self.read_block(&mut payload, length.min(limit)) {
            Ok(whole) => whole,
            Err(e) => return Some(Err(self.record_error(id, e))),
        };
        if !whole {
            // The input ended inside the block: a record found in what arrived is read next.
            if let Some(at) = glued {
                return Some(Err(self.back_to_glued(
                    record_start,
                    &headers,
                    &raw,
                    at,
                    &[&payload],
                )));
            }
            if let Some(i) = find_version_line(&payload, payload.len()) {
                self.unread(&payload[i..]);
                let reason = format!(
                    "truncated: its Content-Length of {length} runs past the end of the input; the next record starts inside its block, at byte {}",
                    self.offset
                );
                return Some(Err(self.malformed(record_start, id, reason)));
            }
            return Some(Err(WarcError::Truncated {
                record_id: display_id,
            }));
        }
        if length > limit {
            // Too large to keep: skipped, unless a record starts inside it (the Content-Length
            // is wrong), which is then read next.
            let rest = length - limit;
            return match self.skip_scanning(rest, payload) {
                Err(e) => Some(Err(self.record_error(id, e))),
                Ok(Skip::Found(at)) => {
                    let reason = format!(
                        "its Content-Length of {length} is more than the limit of {limit}, and a record starts inside its block, at byte {at}; skipped to there"
                    );
                    Some(Err(self.malformed(record_start, id, reason)))
                }
                Ok(Skip::Eof) => Some(Err(WarcError::Truncated {
                    record_id: display_id,
                })),
                Ok(Skip::Done(tail)) => match self.read_trailer() {
                    Err(e) => Some(Err(self.record_error(id, e))),
                    Ok((_, true)) => Some(Err(WarcError::TooLarge {
                        record_id: display_id,
                        length,
                        limit,
                    })),
                    Ok((trailer, false)) => {
                        self.unread(&trailer);
                        let reason = match self.resync_inside(&tail) {
                            Some(at) => format!(
                                "its Content-Length of {length} is more than the limit of {limit}, and wrong: the next record starts at byte {at}, at the end of its block"
                            ),
                            None => format!(
                                "{length} bytes is more than the limit of {limit}; skipped, but no \\r\\n\\r\\n follows (wrong Content-Length?)"
                            ),
                        };
                        Some(Err(self.malformed(record_start, id, reason)))
                    }
                },
            };
        }

        // The block must be followed by "\r\n\r\n"; otherwise its Content-Length is wrong and
        // the next record may start inside it. When it is, but no record follows, the
        // Content-Length may still be wrong (too large, ending on another record's blank line):
        // then a record found inside the block is read next.
        match self.read_trailer() {
            Err(e) => return Some(Err(self.record_error(id, e))),
            Ok((_, true)) => {
                let follows = match self.record_follows() {
                    Ok(follows) => follows,
                    Err(e) => return Some(Err(self.record_error(id, e))),
                };
                if !follows {
                    if let Some(at) = self.resync_inside(&payload) {
                        let reason = format!(
                            "its Content-Length of {length} is wrong: the next record starts inside its block, at byte {at}"
                        );
                        return Some(Err(self.malformed(record_start, id, reason)));
                    }
                }
            }
            Ok((trailer, false)) => {
                self.unread(&trailer);
                if let Some(at) = glued {
                    return Some(Err(self.back_to_glued(
                        record_start,
                        &headers,
                        &raw,
                        at,
                        &[&payload],
                    )));
                }
                let reason = match self.resync_inside(&payload) {
                    Some(at) => {
                        format!(
                            "block not followed by \\r\\n\\r\\n: its Content-Length of {length} is wrong, the next record starts inside it, at byte {at}"
                        )
                    }
                    None => format!(
                        "block not followed by \\r\\n\\r\\n at byte {} (wrong Content-Length {length}?); skipped to the next record",
                        self.offset
                    ),
                };
                return Some(Err(self.malformed(record_start, id, reason)));
            }
        }

        let record_type = get("WARC-Type").unwrap_or_default().to_ascii_lowercase();
        Some(Ok(WarcRecord {
            version,
            record_type,
            record_id,
            target_uri: get("WARC-Target-URI"),
            content_type: get("Content-Type"),
            date: get("WARC-Date"),
            headers,
            payload,
        }))
    }

    /// The record's header was cut and the next record glued to it: gives back the bytes from
    /// the glued version line on (`raw[at..]`, then `after`, the bytes read after the header
    /// lines) so that the next record is read from there.
    fn back_to_glued(
        &mut self,
        record_start: u64,
        headers: &[(String, String)],
        raw: &[u8],
        (at, before): (usize, usize),
        after: &[&[u8]],
    ) -> WarcError {
        for bytes in after.iter().rev() {
            self.unread(bytes);
        }
        self.unread(&raw[at..]);
        let reason = format!(
            "header cut short: the next record starts inside a header line, at byte {}",
            self.offset
        );
        self.malformed(record_start, find_id(&headers[..before]), reason)
    }

    /// Reads up to `want` bytes of the block into `payload`: true when all arrived, false when
    /// the input ended first.
    fn read_block(&mut self, payload: &mut Vec<u8>, want: u64) -> io::Result<bool> {
        while (payload.len() as u64) < want {
            let buf = match self.fill() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(false);
            }
            let take = buf.len().min((want - payload.len() as u64) as usize);
            payload.extend_from_slice(&buf[..take]);
            self.consume(take);
        }
        Ok(true)
    }

    /// Skips the `rest` of a block whose first part (already read) is `window`, watching for a
    /// version line inside it (a wrong Content-Length); memory stays bounded by the window.
    fn skip_scanning(&mut self, mut rest: u64, mut window: Vec<u8>) -> io::Result<Skip> {
        let mut eof = false;
        loop {
            let decided = if eof {
                window.len()
            } else {
                window.len().saturating_sub(VERSION_LOOKAHEAD)
            };
            if let Some(i) = find_version_line(&window, decided) {
                self.unread(&window[i..]);
                return Ok(Skip::Found(self.offset));
            }
            if eof {
                return Ok(Skip::Eof);
            }
            if rest == 0 {
                return Ok(Skip::Done(window.split_off(decided)));
            }
            // Keep the undecided end; the rest is dropped (and the first, large window freed).
            window = window.split_off(decided);
            let buf = match self.fill() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => &[][..],
                Err(e) => return Err(e),
            };
            let take = buf.len().min(usize::try_from(rest).unwrap_or(usize::MAX));
            window.extend_from_slice(&buf[..take]);
            eof = take == 0;
            self.consume(take);
            rest -= take as u64;
        }
    }

    /// After a block that is not followed by what should follow it: finds a version line
    /// starting inside `consumed` (the last bytes read), looking ahead as far as needed to tell,
    /// and gives back the bytes from it on. Its offset, or `None` (nothing given back). A read
    /// error while looking ahead is reported next.
    fn resync_inside(&mut self, consumed: &[u8]) -> Option<u64> {
        let mut ahead = Vec::new();
        if let Err(e) = self.read_block(&mut ahead, VERSION_LOOKAHEAD as u64) {
            self.deferred = Some(e);
        }
        let mut buf = Vec::with_capacity(consumed.len() + ahead.len());
        buf.extend_from_slice(consumed);
        buf.extend_from_slice(&ahead);
        let found = find_version_line(&buf, consumed.len());
        self.unread(&ahead);
        let i = found?;
        self.unread(&consumed[i..]);
        Some(self.offset)
    }

    /// The line breaks after a block: up to four `\r`/`\n` bytes, consumed. True when they
    /// hold the required blank line (`\r\n\r\n`, or `\n\n` from sloppy writers) or the input
    /// ends there.
    fn read_trailer(&mut self) -> io::Result<(Vec<u8>, bool)> {
        let mut trailer = Vec::with_capacity(4);
        while trailer.len() < 4 && trailer.iter().filter(|&&b| b == b'\n').count() < 2 {
            let buf = match self.fill() {
                Ok(buf) => buf,
                Err(e) if !spoils_record(&e) => {
                    // The block arrived whole: the record stands, the error is reported next.
                    self.deferred = Some(e);
                    return Ok((trailer, true));
                }
                Err(e) => return Err(e),
            };
            match buf.first() {
                None => return Ok((trailer, true)),
                Some(&b) if b == b'\r' || b == b'\n' => {
                    trailer.push(b);
                    self.consume(1);
                }
                Some(_) => break,
            }
        }
        let ok = trailer.iter().filter(|&&b| b == b'\n').count() >= 2;
        Ok((trailer, ok))
    }

    /// Whether what follows a record's `\r\n\r\n` could be the next record (or the end of the
    /// input). A read error here is reported next, unless it spoils the record.
    fn record_follows(&mut self) -> io::Result<bool> {
        match self.fill() {
            Ok(buf) => Ok(buf
                .first()
                .map_or(true, |b| matches!(b, b'W' | b'\r' | b'\n'))),
            Err(e) if spoils_record(&e) => Err(e),
            Err(e) => {
                self.deferred = Some(e);
                Ok(true)
            }
        }
    }

    /// A read error between records.
    fn boundary_error(&self, e: io::Error) -> WarcError {
        if gzip::damage(&e).is_some() {
            WarcError::Damaged {
                record_id: None,
                source: e,
            }
        } else {
            WarcError::Io {
                record_id: None,
                source: e,
            }
        }
    }

    /// A read error inside a record: damage skipped by the decompressor (the record is lost,
    /// reading goes on), an early end (truncation), or an I/O error.
    fn record_error(&self, record_id: Option<String>, e: io::Error) -> WarcError {
        if gzip::is_resumable(&e) {
            WarcError::Damaged {
                record_id,
                source: e,
            }
        } else if e.kind() == io::ErrorKind::UnexpectedEof {
            WarcError::Truncated {
                record_id: record_id.unwrap_or_else(|| "(no WARC-Record-ID)".into()),
            }
        } else {
            WarcError::Io {
                record_id,
                source: e,
            }
        }
    }

    fn malformed(&self, offset: u64, record_id: Option<String>, reason: String) -> WarcError {
        WarcError::Malformed {
            offset,
            record_id,
            reason,
        }
    }

    fn not_a_record(&self, offset: u64, garbage: u64) -> WarcError {
        self.malformed(
            offset,
            None,
            format!("{garbage} bytes that are not a record"),
        )
    }

    /// The next bytes: given-back ones first, then the input's.
    fn fill(&mut self) -> io::Result<&[u8]> {
        if self.pushback_pos < self.pushback.len() {
            return Ok(&self.pushback[self.pushback_pos..]);
        }
        super::fill_buf_retrying(&mut self.inner)
    }

    fn consume(&mut self, n: usize) {
        if self.pushback_pos < self.pushback.len() {
            self.pushback_pos += n;
            if self.pushback_pos >= self.pushback.len() {
                self.pushback = Vec::new();
                self.pushback_pos = 0;
            }
        } else {
            self.inner.consume(n);
        }
        self.offset += n as u64;
    }

    /// Gives back `bytes`, the last ones consumed, to be read again.
    fn unread(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        if self.pushback_pos >= n
            && self.pushback[self.pushback_pos - n..self.pushback_pos] == *bytes
        {
            self.pushback_pos -= n;
        } else {
            let mut pushback = Vec::with_capacity(n + self.pushback.len() - self.pushback_pos);
            pushback.extend_from_slice(bytes);
            pushback.extend_from_slice(&self.pushback[self.pushback_pos..]);
            self.pushback = pushback;
            self.pushback_pos = 0;
        }
        self.offset -= n as u64;
    }

    /// One line including its `\n` (none at the end of input), at most `limit` bytes; a longer
    /// one is consumed whole and returned as its length and last bytes.
    fn read_line(&mut self, limit: usize) -> io::Result<Line> {
        let mut line = Vec::new();
        let mut len = 0u64;
        loop {
            let buf = self.fill()?;
            let too_long = len > limit as u64;
            if buf.is_empty() {
                return Ok(if too_long {
                    Line::TooLong { len, tail: line }
                } else if line.is_empty() {
                    Line::Eof
                } else {
                    Line::Text(line)
                });
            }
            let (take, found) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            len += take as u64;
            let too_long = len > limit as u64;
            // Of a line too long, only its last bytes are kept.
            let keep = if too_long {
                take.saturating_sub(LINE_TAIL)
            } else {
                0
            };
            line.extend_from_slice(&buf[keep..take]);
            self.consume(take);
            if too_long && line.len() > 2 * LINE_TAIL {
                line.drain(..line.len() - LINE_TAIL);
            }
            if found {
                return Ok(if too_long {
                    Line::TooLong { len, tail: line }
                } else {
                    Line::Text(line)
                });
            }
        }
    }
}

impl<R: BufRead> Iterator for WarcReader<R> {
    type Item = Result<WarcRecord, WarcError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record()
    }
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Where a version line (`WARC/1.x` and its line end) glued to the end of other bytes starts in
/// `line`: a record cut short and the next one after it.
fn glued_version(line: &[u8]) -> Option<usize> {
    let body = trim_eol(line);
    if body.len() == line.len() {
        return None;
    }
    let digits = body.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let rest = &body[..body.len() - digits];
    (digits > 0 && rest.len() > 7 && rest.ends_with(b"WARC/1.")).then(|| rest.len() - 7)
}

/// The first `WARC/1.x` version line in `buf` starting before `before` (at a line start or
/// glued to other bytes) followed by what looks like a header name and its colon. A candidate
/// that `buf` ends too soon to check is taken.
fn find_version_line(buf: &[u8], before: usize) -> Option<usize> {
    memchr::memmem::find_iter(buf, b"WARC/1.")
        .take_while(|&i| i < before)
        .find(|&i| {
            let rest = &buf[i + 7..];
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            let rest = &rest[digits..];
            let rest = match rest {
                [] => return true,
                [b'\r'] => return digits > 0,
                [b'\r', b'\n', rest @ ..] | [b'\n', rest @ ..] if digits > 0 => rest,
                _ => return false,
            };
            let name = rest
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-' || **b == b'_')
                .count();
            match rest.get(name) {
                None => name <= 64,
                Some(b':') => (1..=64).contains(&name),
                Some(_) => false,
            }
        })
}

/// Whether a read error met just after a record's block means the record itself is not to be
/// trusted: the decompressor found damaged the member whose data it handed out last, the one
/// holding the record (a CRC or length mismatch is only seen after all its data), rather than
/// junk or a damaged member after it, the input ending, or an I/O error (reported, the record
/// kept).
fn spoils_record(e: &io::Error) -> bool {
    gzip::is_resumable(e) && gzip::damage(e).is_some_and(|d| d.emitted > 0)
}

fn find_id(headers: &[(String, String)]) -> Option<String> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("WARC-Record-ID"))
        .map(|(_, v)| v.clone())
}

fn truncated(headers: &[(String, String)]) -> WarcError {
    WarcError::Truncated {
        record_id: find_id(headers).unwrap_or_else(|| "(no WARC-Record-ID)".into()),
    }
}

/// An HTTP response split into what the cleaner needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpParts<'a> {
    /// Status code (0 when the status line has none that parses).
    pub status: u16,
    /// `Content-Type` header value as sent.
    pub content_type: Option<String>,
    /// Its `charset` parameter, lower-cased, quotes removed.
    pub charset: Option<String>,
    /// `Content-Encoding` other than identity/gzip/deflate/br (body left encoded), lower-cased.
    pub unhandled_encoding: Option<String>,
    /// The body as sent, de-chunked but still compressed as [`HttpParts::coding`] says:
    /// [`HttpParts::body_reader`] decodes it as it is read.
    pub body: Cow<'a, [u8]>,
    /// The body's `Content-Encoding`.
    pub coding: BodyCoding,
}

impl HttpParts<'_> {
    /// Whether the body is HTML: by its Content-Type ([`is_html`]) when it has one, otherwise
    /// (none, or an empty one) by how the body starts ([`looks_like_html`]).
    pub fn is_html(&self) -> bool {
        match self.content_type.as_deref().map(mime_essence) {
            Some(essence) if !essence.is_empty() => is_html(essence),
            _ => {
                let mut head = Vec::with_capacity(4096);
                let _ = self.body_reader().take(4096).read_to_end(&mut head);
                looks_like_html(&head)
            }
        }
    }

    /// The decoded body, streamed: gunzipped or inflated as it is read (so a small compressed
    /// body that inflates to a lot is never held whole), at most [`MAX_DECODED_BODY_BYTES`].
    /// A body damaged part-way gives its text up to the damage, then a read error.
    pub fn body_reader(&self) -> Box<dyn Read + '_> {
        let body = &self.body[..];
        match self.coding {
            BodyCoding::Identity => Box::new(body),
            BodyCoding::Gzip => {
                Box::new(flate2::read::MultiGzDecoder::new(body).take(MAX_DECODED_BODY_BYTES))
            }
            BodyCoding::Zlib => {
                Box::new(flate2::read::ZlibDecoder::new(body).take(MAX_DECODED_BODY_BYTES))
            }
            BodyCoding::Deflate => {
                Box::new(flate2::read::DeflateDecoder::new(body).take(MAX_DECODED_BODY_BYTES))
            }
            BodyCoding::Brotli => {
                Box::new(brotli::Decompressor::new(body, 64 * 1024).take(MAX_DECODED_BODY_BYTES))
            }
        }
    }

    /// The whole decoded body (tests and small tools; the pipeline streams [`HttpParts::body_reader`]).
    pub fn decoded_body(&self) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        self.body_reader().read_to_end(&mut out)?;
        Ok(out)
    }
}

/// Splits the block of a `response` record (`HTTP/1.x 200 OK`, headers, blank line, body).
/// Interim `1xx` responses (`HTTP/1.1 100 Continue`) before the final one are skipped.
/// `None` when it does not start with an HTTP status line or has no end of headers.
pub fn http_response_parts(mut payload: &[u8]) -> Option<HttpParts<'_>> {
    let (head_end, body_start, status) = loop {
        if !payload.starts_with(b"HTTP/") {
            return None;
        }
        let (head_end, body_start) = find_header_end(payload)?;
        let status_line = &payload[..memchr::memchr(b'\n', payload)
            .unwrap_or(head_end)
            .min(head_end)];
        let status_line = String::from_utf8_lossy(status_line);
        let status: u16 = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let next = &payload[body_start..];
        let next_start = next
            .iter()
            .position(|b| *b != b'\r' && *b != b'\n')
            .unwrap_or(next.len());
        if (100..200).contains(&status) && next[next_start..].starts_with(b"HTTP/") {
            payload = &next[next_start..];
            continue;
        }
        break (head_end, body_start, status);
    };
    let head = String::from_utf8_lossy(&payload[..head_end]);
    let lines = head.split('\n').map(|l| l.trim_end_matches('\r')).skip(1);
    let (mut content_type, mut transfer, mut encoding) = (None, String::new(), String::new());
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim());
        if name.eq_ignore_ascii_case("content-type") && content_type.is_none() {
            content_type = Some(value.to_string());
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            transfer = value.to_ascii_lowercase();
        } else if name.eq_ignore_ascii_case("content-encoding") {
            encoding = value.to_ascii_lowercase();
        }
    }
    let charset = content_type.as_deref().and_then(charset_param);
    let raw = &payload[body_start..];
    let mut body: Cow<'_, [u8]> = Cow::Borrowed(raw);
    if transfer.split(',').any(|t| t.trim() == "chunked") {
        if let Some(dechunked) = dechunk(raw) {
            body = Cow::Owned(dechunked);
        }
    }
    let (coding, unhandled_encoding) = match encoding.as_str() {
        "" | "identity" | "none" => (BodyCoding::Identity, None),
        "gzip" | "x-gzip" => (BodyCoding::Gzip, None),
        // Servers send either zlib-wrapped or raw deflate under this name.
        "deflate" if is_zlib_header(&body) => (BodyCoding::Zlib, None),
        "deflate" => (BodyCoding::Deflate, None),
        "br" => (BodyCoding::Brotli, None),
        other => (BodyCoding::Identity, Some(other.to_string())),
    };
    Some(HttpParts {
        status,
        content_type,
        charset,
        unhandled_encoding,
        body,
        coding,
    })
}

/// How an HTTP body is compressed (`Content-Encoding`), decoded as it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyCoding {
    /// Not compressed, or compressed in a way this reader leaves alone.
    Identity,
    /// `gzip`: one or more gzip members.
    Gzip,
    /// `deflate` with the zlib wrapper (RFC 1950), as the standard says.
    Zlib,
    /// `deflate` without a wrapper, as some servers send it.
    Deflate,
    /// `br`: Brotli (RFC 7932).
    Brotli,
}

/// True when `body` starts with a zlib header (RFC 1950: deflate method, check bits).
fn is_zlib_header(body: &[u8]) -> bool {
    matches!(body, [cmf, flg, ..] if cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0)
}

/// (end of the header lines, start of the body): at `\r\n\r\n`, or `\n\n` from sloppy servers.
fn find_header_end(payload: &[u8]) -> Option<(usize, usize)> {
    let crlf = memchr::memmem::find(payload, b"\r\n\r\n").map(|i| (i, i + 4));
    let lf = memchr::memmem::find(payload, b"\n\n").map(|i| (i, i + 2));
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// Decodes `Transfer-Encoding: chunked`; `None` when the body is not really chunked.
/// A body cut short keeps what arrived.
fn dechunk(mut raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len());
    loop {
        let nl = memchr::memchr(b'\n', raw)?;
        let size_line = String::from_utf8_lossy(&raw[..nl]);
        let size_str = size_line.trim().split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_str, 16).ok()?;
        raw = &raw[nl + 1..];
        if size == 0 {
            return Some(out);
        }
        let take = size.min(raw.len());
        out.extend_from_slice(&raw[..take]);
        raw = &raw[take..];
        if raw.is_empty() {
            return Some(out);
        }
        raw = raw
            .strip_prefix(b"\r\n")
            .or_else(|| raw.strip_prefix(b"\n"))
            .unwrap_or(raw);
    }
}

/// The `charset` parameter of a Content-Type value, lower-cased and unquoted.
pub fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'').trim();
        (!value.is_empty()).then(|| value.to_ascii_lowercase())
    })
}

/// `text/html` or `application/xhtml+xml` (parameters and case ignored).
pub fn is_html(content_type: &str) -> bool {
    let essence = mime_essence(content_type).to_ascii_lowercase();
    essence == "text/html" || essence == "application/xhtml+xml"
}

/// Whether a body with no Content-Type is HTML, by its first bytes (after a byte order mark and
/// white space, and an `<?xml …?>` declaration): a comment, a doctype or one of the common
/// tags that start pages (`<html`, `<head`, `<body`, `<p`, `<div`, …), in any case, followed by
/// white space, `>` or `/`.
pub fn looks_like_html(body: &[u8]) -> bool {
    const TAGS: &[&[u8]] = &[
        b"!doctype html",
        b"html",
        b"head",
        b"body",
        b"script",
        b"iframe",
        b"h1",
        b"h2",
        b"h3",
        b"div",
        b"font",
        b"table",
        b"a",
        b"style",
        b"title",
        b"b",
        b"br",
        b"p",
        b"meta",
        b"link",
        b"span",
        b"center",
        b"form",
        b"img",
        b"ul",
        b"header",
        b"nav",
        b"main",
        b"noscript",
    ];
    let head = &body[..body.len().min(4096)];
    // As ASCII: UTF-16 (told by its byte order mark) keeps every other byte.
    let ascii: Vec<u8> = if let Some(rest) = head.strip_prefix(b"\xff\xfe") {
        rest.iter().step_by(2).copied().collect()
    } else if let Some(rest) = head.strip_prefix(b"\xfe\xff") {
        rest.iter().skip(1).step_by(2).copied().collect()
    } else {
        head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head).to_vec()
    };
    let skip_space = |s: &[u8]| {
        s.iter()
            .position(|b| !b" \t\r\n\x0c".contains(b))
            .unwrap_or(s.len())
    };
    let mut rest = &ascii[skip_space(&ascii)..];
    if rest.len() >= 5 && rest[..5].eq_ignore_ascii_case(b"<?xml") {
        let Some(end) = memchr::memmem::find(rest, b"?>") else {
            return false;
        };
        rest = &rest[end + 2..];
        rest = &rest[skip_space(rest)..];
    }
    if rest.starts_with(b"<!--") {
        return true;
    }
    rest.first() == Some(&b'<')
        && TAGS.iter().any(|tag| {
            rest.len() > tag.len() + 1
                && rest[1..=tag.len()].eq_ignore_ascii_case(tag)
                && b" \t\r\n\x0c>/".contains(&rest[tag.len() + 1])
        })
}

fn mime_essence(content_type: &str) -> &str {
    content_type.split(';').next().unwrap_or("").trim()
}

/// Writes WARC/1.1 records, each optionally as its own gzip member (`.warc.gz`). Record IDs are
/// derived from content and, for conversion records, the record's place among this writer's
/// conversion records, so the same input always gives byte-identical output and IDs are unique
/// even when source records share (or lack) an ID.
pub struct WarcWriter<W: Write> {
    out: W,
    gzip: Option<flate2::Compression>,
    /// Conversion records written so far.
    conversions: u64,
}

impl<W: Write> WarcWriter<W> {
    /// Plain WARC output.
    pub fn new(out: W) -> Self {
        WarcWriter {
            out,
            gzip: None,
            conversions: 0,
        }
    }

    /// The underlying writer, for output that is not a WARC record.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// `.warc.gz` output: one gzip member per record, as WARC readers expect.
    pub fn new_gzip(out: W, level: flate2::Compression) -> Self {
        WarcWriter {
            out,
            gzip: Some(level),
            conversions: 0,
        }
    }

    /// A `warcinfo` record (`application/warc-fields`) with these fields; returns its ID.
    pub fn write_warcinfo(
        &mut self,
        filename: Option<&str>,
        fields: &[(&str, &str)],
    ) -> io::Result<String> {
        let mut block = String::new();
        for (name, value) in fields {
            block.push_str(&format!(
                "{}: {}\r\n",
                clean_header(name),
                clean_header(value)
            ));
        }
        let id = record_id(&["warcinfo", filename.unwrap_or(""), &block]);
        let mut headers = vec![
            ("WARC-Type", "warcinfo".to_string()),
            ("WARC-Record-ID", id.clone()),
        ];
        headers.push(("WARC-Date", FALLBACK_DATE.to_string()));
        if let Some(name) = filename {
            headers.push(("WARC-Filename", clean_header(name)));
        }
        headers.push(("Content-Type", "application/warc-fields".to_string()));
        self.write_record(&headers, block.as_bytes())?;
        Ok(id)
    }

    /// A `conversion` record holding `text` (UTF-8 plain text) for the record `refers_to`
    /// (its WARC-Record-ID, angle brackets included; empty when the source has none, and then
    /// no `WARC-Refers-To` is written: the target URI, if any, still names the source). `date`
    /// is the source's WARC-Date ([`FALLBACK_DATE`] when `None`). Returns the new record's ID,
    /// derived from `refers_to`, the record's number in this writer and `text`.
    pub fn write_conversion(
        &mut self,
        refers_to: &str,
        target_uri: Option<&str>,
        date: Option<&str>,
        text: &str,
    ) -> io::Result<String> {
        self.conversions += 1;
        let id = record_id(&["conversion", refers_to, &self.conversions.to_string(), text]);
        let mut headers = vec![
            ("WARC-Type", "conversion".to_string()),
            ("WARC-Record-ID", id.clone()),
            ("WARC-Date", clean_header(date.unwrap_or(FALLBACK_DATE))),
        ];
        let refers_to = clean_header(refers_to);
        if !refers_to.is_empty() {
            headers.push(("WARC-Refers-To", refers_to));
        }
        if let Some(uri) = target_uri {
            headers.push(("WARC-Target-URI", clean_header(uri)));
        }
        headers.push(("Content-Type", "text/plain; charset=utf-8".to_string()));
        self.write_record(&headers, text.as_bytes())?;
        Ok(id)
    }

    fn write_record(&mut self, headers: &[(&str, String)], block: &[u8]) -> io::Result<()> {
        let mut record = Vec::with_capacity(block.len() + 512);
        record.extend_from_slice(b"WARC/1.1\r\n");
        for (name, value) in headers {
            record.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
        }
        record.extend_from_slice(
            format!("WARC-Block-Digest: {}\r\n", block_digest(block)).as_bytes(),
        );
        record.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
        record.extend_from_slice(block);
        record.extend_from_slice(b"\r\n\r\n");
        match self.gzip {
            None => self.out.write_all(&record),
            Some(level) => {
                let mut enc = GzEncoder::new(&mut self.out, level);
                enc.write_all(&record)?;
                enc.finish().map(|_| ())
            }
        }
    }

    /// Flushes the output.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The output, e.g. to flush or finish it.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// `sha1:` and the base32 SHA-1 of `block`, as warcio and Heritrix write `WARC-Block-Digest`.
fn block_digest(block: &[u8]) -> String {
    use sha1::Digest;
    let sha1 = sha1::Sha1::digest(block);
    format!("sha1:{}", data_encoding::BASE32.encode(&sha1))
}

/// Header values may not hold line breaks or other controls; they become spaces.
fn clean_header(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// `<urn:uuid:…>`: a version-8 UUID from the xxh3-128 of the parts (NUL-separated).
fn record_id(parts: &[&str]) -> String {
    let mut hasher = Xxh3::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update(&[0]);
    }
    let mut b = hasher.digest128().to_be_bytes();
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::bufread::MultiGzDecoder;
    use std::io::{BufReader, Cursor};

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/fixtures/warc/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("fixture")
    }

    fn read_all<R: BufRead>(reader: WarcReader<R>) -> Vec<Result<WarcRecord, WarcError>> {
        reader.collect()
    }

    fn check_small(results: Vec<Result<WarcRecord, WarcError>>) {
        let summary: Vec<String> = results
            .iter()
            .map(|r| match r {
                Ok(rec) => format!("{} {}", rec.record_type, rec.record_id),
                Err(e) => format!("error: {e}"),
            })
            .collect();
        assert_eq!(
            summary,
            [
                "warcinfo <urn:uuid:00000000-0000-4000-8000-000000000001>",
                "request <urn:uuid:00000000-0000-4000-8000-000000000002>",
                "response <urn:uuid:00000000-0000-4000-8000-000000000003>",
                "response <urn:uuid:00000000-0000-4000-8000-000000000004>",
                "response <urn:uuid:00000000-0000-4000-8000-000000000005>",
                "error: record <urn:uuid:00000000-0000-4000-8000-000000000006>: truncated (input ended inside the record)",
            ]
        );
        let html = results[2].as_ref().unwrap();
        assert!(html.is_http_response());
        assert_eq!(
            html.target_uri.as_deref(),
            Some("http://example.com/caf%C3%A9")
        );
        let parts = http_response_parts(&html.payload).unwrap();
        assert_eq!(parts.status, 200);
        assert!(is_html(parts.content_type.as_deref().unwrap()));
        assert_eq!(parts.charset.as_deref(), Some("iso-8859-1"));
        assert!(
            parts
                .decoded_body()
                .unwrap()
                .windows(4)
                .any(|w| w == b"caf\xe9"),
            "latin-1 bytes kept as they are"
        );
        let png = http_response_parts(&results[3].as_ref().unwrap().payload).unwrap();
        assert!(!is_html(png.content_type.as_deref().unwrap()));
        let chunked = http_response_parts(&results[4].as_ref().unwrap().payload).unwrap();
        assert_eq!(
            &chunked.decoded_body().unwrap()[..],
            b"<html><body><p>Chunked page.</p></body></html>"
        );
        assert_eq!(chunked.charset, None);
        assert!(!results[1].as_ref().unwrap().is_http_response());
    }

    #[test]
    fn reads_small_warc() {
        check_small(read_all(WarcReader::new(Cursor::new(fixture(
            "small.warc",
        )))));
    }

    #[test]
    fn reads_small_warc_gz_with_cut_last_member() {
        let gz = fixture("small.warc.gz");
        check_small(read_all(WarcReader::new(BufReader::new(
            MultiGzDecoder::new(Cursor::new(gz)),
        ))));
    }

    #[test]
    fn too_large_record_is_skipped_and_reading_goes_on() {
        let results = read_all(
            WarcReader::new(Cursor::new(fixture("small.warc"))).with_max_record_bytes(200),
        );
        let kinds: Vec<&str> = results
            .iter()
            .map(|r| match r {
                Ok(_) => "ok",
                Err(WarcError::TooLarge { .. }) => "large",
                Err(WarcError::Truncated { .. }) => "truncated",
                Err(_) => "other",
            })
            .collect();
        assert_eq!(kinds, ["ok", "ok", "large", "ok", "ok", "truncated"]);
        match &results[2] {
            Err(e) => assert!(e
                .to_string()
                .contains("00000000-0000-4000-8000-000000000003")),
            Ok(_) => unreachable!(),
        }
    }

    #[test]
    fn garbage_between_records_is_reported_once_then_skipped() {
        let mut bytes = b"junk line\r\nmore junk\r\n".to_vec();
        bytes.extend(b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <a>\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n");
        bytes.extend(
            b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <b>\r\nContent-Length: x\r\n\r\n",
        );
        bytes.extend(b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <c>\r\n  continued\r\nContent-Length: 0\r\n\r\n\r\n\r\n");
        let results = read_all(WarcReader::new(Cursor::new(bytes)));
        assert_eq!(results.len(), 4);
        assert!(matches!(
            &results[0],
            Err(WarcError::Malformed { offset: 0, .. })
        ));
        assert_eq!(results[1].as_ref().unwrap().payload, b"hi");
        assert!(
            matches!(&results[2], Err(WarcError::Malformed { record_id: Some(id), .. }) if id == "<b>")
        );
        assert_eq!(results[3].as_ref().unwrap().record_id, "<c> continued");
    }

    #[test]
    fn conversion_records_are_deterministic_and_read_back() {
        let write = || {
            let mut w = WarcWriter::new(Vec::new());
            w.write_warcinfo(Some("out.warc"), &[("software", "ppl-filter")])
                .unwrap();
            let id = w
                .write_conversion(
                    "<urn:uuid:x>",
                    Some("http://e.com/\r\nX: y"),
                    Some("2024-01-01T00:00:00Z"),
                    "Clean text.\n",
                )
                .unwrap();
            (id, w.into_inner())
        };
        let (id, bytes) = write();
        assert_eq!(write().1, bytes);
        let recs: Vec<WarcRecord> = WarcReader::new(Cursor::new(&bytes))
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(recs.len(), 2);
        let conv = &recs[1];
        assert_eq!(conv.record_type, "conversion");
        assert_eq!(conv.record_id, id);
        assert_eq!(conv.header("warc-refers-to"), Some("<urn:uuid:x>"));
        assert_eq!(conv.target_uri.as_deref(), Some("http://e.com/  X: y"));
        assert_eq!(conv.payload, b"Clean text.\n");
        assert!(
            id.starts_with("<urn:uuid:") && id.len() == 47 && &id[24..25] == "8",
            "{id}"
        );

        let mut gz = WarcWriter::new_gzip(Vec::new(), flate2::Compression::fast());
        gz.write_conversion("<a>", None, None, "one").unwrap();
        gz.write_conversion("<b>", None, None, "two").unwrap();
        let gz = gz.into_inner();
        let recs: Vec<_> = WarcReader::new(BufReader::new(MultiGzDecoder::new(&gz[..])))
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(
            recs.iter().map(|r| r.payload.clone()).collect::<Vec<_>>(),
            [b"one".to_vec(), b"two".to_vec()]
        );
        assert_eq!(recs[0].date.as_deref(), Some(FALLBACK_DATE));
    }

    #[test]
    fn http_helpers() {
        assert_eq!(
            charset_param("text/html; Charset=\"UTF-8\""),
            Some("utf-8".into())
        );
        assert_eq!(charset_param("text/html;charset="), None);
        assert!(
            is_html("Text/HTML; charset=x")
                && is_html("application/xhtml+xml")
                && !is_html("text/plain")
        );
        assert!(http_response_parts(b"GET / HTTP/1.1\r\n\r\n").is_none());
        assert!(http_response_parts(b"HTTP/1.1 200 OK\r\nContent-Type: text/html").is_none());
        let lf = http_response_parts(b"HTTP/1.0 404 Not Found\nContent-Type: text/html\n\n<p>x")
            .unwrap();
        assert_eq!(
            (lf.status, &lf.decoded_body().unwrap()[..]),
            (404, &b"<p>x"[..])
        );
        let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"<p>zipped</p>").unwrap();
        let mut payload = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
        payload.extend(gz.finish().unwrap());
        assert_eq!(
            &http_response_parts(&payload)
                .unwrap()
                .decoded_body()
                .unwrap()[..],
            b"<p>zipped</p>"
        );
        let mut br = Vec::new();
        {
            let mut w = brotli::CompressorWriter::new(&mut br, 4096, 5, 22);
            w.write_all(b"<p>brotli</p>").unwrap();
        }
        let mut payload = b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n".to_vec();
        payload.extend(br);
        let parts = http_response_parts(&payload).unwrap();
        assert_eq!(parts.coding, BodyCoding::Brotli);
        assert_eq!(&parts.decoded_body().unwrap()[..], b"<p>brotli</p>");
        let zstd = http_response_parts(b"HTTP/1.1 200 OK\r\nContent-Encoding: zstd\r\n\r\nxx");
        assert_eq!(zstd.unwrap().unhandled_encoding.as_deref(), Some("zstd"));
    }

    #[test]
    fn a_brotli_bomb_is_cut_at_the_decoded_limit() {
        // 256 MiB of zeros compress to a few hundred bytes; reading stops at the limit.
        let mut br = Vec::new();
        {
            let mut w = brotli::CompressorWriter::new(&mut br, 1 << 16, 1, 22);
            let zeros = vec![0u8; 1 << 20];
            for _ in 0..256 {
                w.write_all(&zeros).unwrap();
            }
        }
        assert!(br.len() < 64 * 1024, "{}", br.len());
        let mut payload = b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n".to_vec();
        payload.extend(br);
        let parts = http_response_parts(&payload).unwrap();
        let read = std::io::copy(&mut parts.body_reader(), &mut std::io::sink()).unwrap();
        assert_eq!(read, MAX_DECODED_BODY_BYTES);
    }

    mod prop {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

            #[test]
            fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
                let n = WarcReader::new(Cursor::new(&bytes)).with_max_record_bytes(64).take(10_000).count();
                prop_assert!(n < 10_000);
                let _ = http_response_parts(&bytes);
            }

            #[test]
            fn garbled_fixture_never_panics(cuts in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8), len in any::<usize>()) {
                let mut bytes = fixture("small.warc");
                for (at, b) in cuts {
                    let at = at % bytes.len();
                    bytes[at] = b;
                }
                bytes.truncate(len % (bytes.len() + 1));
                let results: Vec<_> = WarcReader::new(Cursor::new(&bytes)).take(10_000).collect();
                prop_assert!(results.len() < 10_000);
                for rec in results.into_iter().flatten() {
                    let _ = http_response_parts(&rec.payload);
                }
            }
        }
    }
}
