//! Reading WARC records: [`WarcReader`] returns one record at a time, never holds more than
//! one record's block (`max_record_bytes`; larger records are skipped by their Content-Length)
//! and never panics: damaged input becomes [`WarcError`] values, after which it resynchronises
//! at the next `WARC/` version line, also one glued to the end of a line cut short, or one
//! inside the block of a record whose Content-Length is wrong (the block not followed by
//! `\r\n\r\n`, or running past the end of the input), so that the record after a damaged one
//! is not lost.

use std::io::{self, BufRead};

use super::input::Input;
use super::record::{WarcError, WarcRecord};
use crate::source::{gzip, lines};

/// Default bound on one record's block (`--max-record-bytes`): 16 MiB.
const DEFAULT_MAX_RECORD_BYTES: u64 = 16 << 20;
/// Bound on a record's header section; a longer one is malformed.
const MAX_HEADER_BYTES: usize = 64 << 10;

/// Streaming reader: an [`Iterator`] of records, each read when it is asked for: a record, an
/// error about one record (reading goes on unless it was truncation or an I/O error), or `None`
/// at the end.
pub struct WarcReader<R: BufRead> {
    input: Input<R>,
    max_record_bytes: u64,
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

/// A record's header section as read.
struct Head {
    /// Where the record starts (its version line).
    start: u64,
    /// Every header in input order, continuation lines folded into their value.
    headers: Vec<(String, String)>,
    /// The header lines as read.
    raw: Vec<u8>,
    /// A version line glued to the end of a header line, maybe the next record's (the header
    /// cut short): where it starts in `raw` and how many headers came before it, to go back
    /// to it if the record turns out damaged.
    glued: Option<(usize, usize)>,
}

impl Head {
    /// The first header named `name` (ASCII case-insensitive).
    fn get(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    }

    /// The WARC-Record-ID read so far, for error messages.
    fn id(&self) -> Option<String> {
        find_id(&self.headers)
    }

    /// Remembers the first glued version line: at `at` in `raw`, after the headers so far.
    fn note_glued(&mut self, at: Option<usize>) {
        if self.glued.is_none() {
            self.glued = at.map(|at| (at, self.headers.len()));
        }
    }

    /// Whether a header name comes both before and after a glued version line: two records'
    /// headers.
    fn holds_two_records(&self) -> bool {
        self.glued.is_some_and(|(_, before)| {
            let (first, second) = self.headers.split_at(before);
            second.iter().any(|(name, _)| {
                first
                    .iter()
                    .any(|(other, _)| other.eq_ignore_ascii_case(name))
            })
        })
    }
}

/// A record whose headers were read, as the checks on its block know it.
struct Pending {
    /// Where the record starts (its version line).
    start: u64,
    /// Its WARC-Record-ID, if it has one.
    id: Option<String>,
    /// Its Content-Length.
    length: u64,
}

impl Pending {
    /// The WARC-Record-ID as an error shows it.
    fn display_id(self) -> String {
        self.id.unwrap_or_else(|| "(no WARC-Record-ID)".into())
    }
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
            input: Input::new(inner),
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
            deferred: None,
            done: false,
        }
    }

    /// Sets the bound on one record's block; larger records yield [`WarcError::TooLarge`].
    pub fn with_max_record_bytes(mut self, max: u64) -> Self {
        self.max_record_bytes = max;
        self
    }

    /// The next record, an error about one record (reading goes on unless it was truncation or
    /// an I/O error), or `None` at the end.
    fn next_record(&mut self) -> Option<Result<WarcRecord, WarcError>> {
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
        Some(match self.next_version_line()? {
            Ok(version_line) => self.read_rest(version_line),
            Err(e) => Err(e),
        })
    }

    /// Finds the next version line: blank lines between records are normal, anything else is
    /// garbage reported once and skipped. A version line glued to the end of garbage (a record
    /// cut short) starts the next record. `None` at the end of the input.
    fn next_version_line(&mut self) -> Option<Result<Vec<u8>, WarcError>> {
        let start = self.input.offset();
        let mut garbage = 0u64;
        loop {
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
                return Some(Ok(line));
            }
            if !trim_eol(&line).iter().all(|b| b.is_ascii_whitespace()) {
                garbage += line.len() as u64;
            }
        }
    }

    /// The rest of the record whose version line (just read) is `version_line`: its headers,
    /// its block and the blank line after it.
    fn read_rest(&mut self, version_line: Vec<u8>) -> Result<WarcRecord, WarcError> {
        let record_start = self.input.offset() - version_line.len() as u64;
        let version = String::from_utf8_lossy(trim_eol(&version_line))
            .trim_end()
            .to_string();
        let head = self.read_head(record_start)?;
        let record_id = head.get("WARC-Record-ID").unwrap_or_default();
        let id = Some(record_id.clone()).filter(|s| !s.is_empty());
        let length = match head.get("Content-Length").map(|v| v.parse::<u64>()) {
            Some(Ok(n)) => n,
            _ => {
                return Err(self.back_to_glued(&head, &[]).unwrap_or_else(|| {
                    let reason = "missing or bad Content-Length".into();
                    self.malformed(record_start, id, reason)
                }))
            }
        };
        let record = Pending {
            start: record_start,
            id,
            length,
        };

        // The block, at most `max_record_bytes` of it kept. Grown as bytes arrive, so a lying
        // Content-Length costs no memory up front.
        let limit = self.max_record_bytes;
        let mut payload = Vec::with_capacity(length.min(limit).min(1 << 20) as usize);
        let whole = match self.read_block(&mut payload, length.min(limit)) {
            Ok(whole) => whole,
            Err(e) => return Err(self.record_error(record.id, e)),
        };
        if !whole {
            return Err(self.cut_block(&head, &payload, record));
        }
        if length > limit {
            return Err(self.skip_too_large(payload, record));
        }
        self.check_trailer(&head, &payload, record)?;

        let record_type = head
            .get("WARC-Type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        Ok(WarcRecord {
            version,
            record_type,
            record_id,
            target_uri: head.get("WARC-Target-URI"),
            content_type: head.get("Content-Type"),
            date: head.get("WARC-Date"),
            headers: head.headers,
            payload,
        })
    }

    /// The error about a record whose block (`payload`, as much as arrived) the input ended
    /// inside: a record found in what arrived is read next.
    fn cut_block(&mut self, head: &Head, payload: &[u8], record: Pending) -> WarcError {
        if let Some(e) = self.back_to_glued(head, &[payload]) {
            return e;
        }
        if let Some(i) = find_version_line(payload, payload.len()) {
            self.unread(&payload[i..]);
            let length = record.length;
            let reason = format!(
                "truncated: its Content-Length of {length} runs past the end of the input; the next record starts inside its block, at byte {}",
                self.input.offset()
            );
            return self.malformed(record.start, record.id, reason);
        }
        WarcError::Truncated {
            record_id: record.display_id(),
        }
    }

    /// The error about a record whose block is larger than `max_record_bytes` (`payload`, its
    /// first part, read): the rest is skipped, unless a record starts inside it (the
    /// Content-Length is wrong), which is then read next.
    fn skip_too_large(&mut self, payload: Vec<u8>, record: Pending) -> WarcError {
        let (length, limit) = (record.length, self.max_record_bytes);
        match self.skip_scanning(length - limit, payload) {
            Err(e) => self.record_error(record.id, e),
            Ok(Skip::Found(at)) => {
                let reason = format!(
                    "its Content-Length of {length} is more than the limit of {limit}, and a record starts inside its block, at byte {at}; skipped to there"
                );
                self.malformed(record.start, record.id, reason)
            }
            Ok(Skip::Eof) => WarcError::Truncated {
                record_id: record.display_id(),
            },
            Ok(Skip::Done(tail)) => match self.read_trailer() {
                Err(e) => self.record_error(record.id, e),
                Ok((_, true)) => WarcError::TooLarge {
                    record_id: record.display_id(),
                    length,
                    limit,
                },
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
                    self.malformed(record.start, record.id, reason)
                }
            },
        }
    }

    /// Checks what follows a record's whole block (`payload`). It must be "\r\n\r\n";
    /// otherwise its Content-Length is wrong and the next record may start inside it. When it
    /// is, but no record follows, the Content-Length may still be wrong (too large, ending on
    /// another record's blank line): then a record found inside the block is read next.
    fn check_trailer(
        &mut self,
        head: &Head,
        payload: &[u8],
        record: Pending,
    ) -> Result<(), WarcError> {
        let length = record.length;
        match self.read_trailer() {
            Err(e) => Err(self.record_error(record.id, e)),
            Ok((_, true)) => {
                let follows = match self.record_follows() {
                    Ok(follows) => follows,
                    Err(e) => return Err(self.record_error(record.id, e)),
                };
                if !follows {
                    if let Some(at) = self.resync_inside(payload) {
                        let reason = format!(
                            "its Content-Length of {length} is wrong: the next record starts inside its block, at byte {at}"
                        );
                        return Err(self.malformed(record.start, record.id, reason));
                    }
                }
                Ok(())
            }
            Ok((trailer, false)) => {
                self.unread(&trailer);
                if let Some(e) = self.back_to_glued(head, &[payload]) {
                    return Err(e);
                }
                let reason = match self.resync_inside(payload) {
                    Some(at) => {
                        format!(
                            "block not followed by \\r\\n\\r\\n: its Content-Length of {length} is wrong, the next record starts inside it, at byte {at}"
                        )
                    }
                    None => format!(
                        "block not followed by \\r\\n\\r\\n at byte {} (wrong Content-Length {length}?); skipped to the next record",
                        self.input.offset()
                    ),
                };
                Err(self.malformed(record.start, record.id, reason))
            }
        }
    }

    /// The header lines of the record starting at `record_start`, up to the blank line after
    /// them (consumed).
    fn read_head(&mut self, record_start: u64) -> Result<Head, WarcError> {
        let mut head = Head {
            start: record_start,
            headers: Vec::new(),
            raw: Vec::new(),
            glued: None,
        };
        loop {
            let line = self.read_head_line(&head)?;
            head.raw.extend_from_slice(&line);
            if trim_eol(&line).is_empty() {
                break;
            }
            if line.starts_with(b"WARC/") {
                // A record without its blank line or block: report it and restart here.
                self.unread(&line);
                let reason = "header section not ended by a blank line".into();
                return Err(self.malformed(record_start, head.id(), reason));
            }
            self.add_header(&mut head, &line)?;
        }
        if head.holds_two_records() {
            if let Some(e) = self.back_to_glued(&head, &[]) {
                return Err(e);
            }
        }
        Ok(head)
    }

    /// The next whole header line of `head` (not yet added to `head.raw`), if it ends and keeps
    /// the header section within its limit.
    fn read_head_line(&mut self, head: &Head) -> Result<Vec<u8>, WarcError> {
        let line = match self.read_line(MAX_HEADER_BYTES) {
            Err(e) => return Err(self.record_error(head.id(), e)),
            Ok(Line::Eof) => {
                let truncated = truncated(&head.headers);
                return Err(self.back_to_glued(head, &[]).unwrap_or(truncated));
            }
            Ok(Line::TooLong { len, tail }) => {
                if let Some(i) = glued_version(&tail) {
                    self.unread(&tail[i..]);
                }
                let reason = format!(
                    "header line of {len} bytes, longer than the limit of {MAX_HEADER_BYTES}"
                );
                return Err(self.malformed(head.start, head.id(), reason));
            }
            Ok(Line::Text(line)) => line,
        };
        if !line.ends_with(b"\n") {
            // The input ended inside this line.
            let truncated = truncated(&head.headers);
            return Err(self.back_to_glued(head, &[&line]).unwrap_or(truncated));
        }
        if head.raw.len() + line.len() > MAX_HEADER_BYTES {
            let reason =
                format!("header section longer than the limit of {MAX_HEADER_BYTES} bytes");
            return Err(self.malformed(head.start, head.id(), reason));
        }
        Ok(line)
    }

    /// Adds the header that `line` (not blank, just added to `head.raw`) holds to `head`: a
    /// continuation of the last header's value, or a new header. A line without a colon is an
    /// error, as is one cut short by the next record (read next).
    fn add_header(&mut self, head: &mut Head, line: &[u8]) -> Result<(), WarcError> {
        let content = trim_eol(line);
        let glue = glued_version(line);
        // Where the glued version line starts in `head.raw`.
        let glue_at = glue.map(|i| head.raw.len() - line.len() + i);
        let text = String::from_utf8_lossy(content);
        if content[0] == b' ' || content[0] == b'\t' {
            if let Some((_, value)) = head.headers.last_mut() {
                value.push(' ');
                value.push_str(text.trim());
            }
            head.note_glued(glue_at);
            return Ok(());
        }
        match text.split_once(':') {
            Some((name, value)) if glue.is_none_or(|i| content[..i].contains(&b':')) => {
                let header = (name.trim().to_string(), value.trim().to_string());
                head.headers.push(header);
                head.note_glued(glue_at);
                Ok(())
            }
            _ => {
                let id = head.id();
                if let Some(i) = glue {
                    // Cut inside the line, and the next record follows.
                    self.unread(&line[i..]);
                    let reason = format!(
                        "header line cut short by the next record, at byte {}",
                        self.input.offset()
                    );
                    return Err(self.malformed(head.start, id, reason));
                }
                Err(self.back_to_glued(head, &[]).unwrap_or_else(|| {
                    let reason = format!("header line without a colon: {:.60}", text);
                    self.malformed(head.start, id, reason)
                }))
            }
        }
    }

    /// When the record's header was cut and the next record glued to it (`head.glued`): gives
    /// back the bytes from the glued version line on (those of `head.raw`, then `after`, the
    /// bytes read after the header lines) so that the next record is read from there, and
    /// returns the error that says so. `None` (nothing given back) when nothing was glued.
    fn back_to_glued(&mut self, head: &Head, after: &[&[u8]]) -> Option<WarcError> {
        let (at, before) = head.glued?;
        for bytes in after.iter().rev() {
            self.unread(bytes);
        }
        self.unread(&head.raw[at..]);
        let reason = format!(
            "header cut short: the next record starts inside a header line, at byte {}",
            self.input.offset()
        );
        Some(self.malformed(head.start, find_id(&head.headers[..before]), reason))
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
                return Ok(Skip::Found(self.input.offset()));
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
        Some(self.input.offset())
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
                .is_none_or(|b| matches!(b, b'W' | b'\r' | b'\n'))),
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
        self.input.fill()
    }

    fn consume(&mut self, n: usize) {
        self.input.consume(n);
    }

    /// Gives back `bytes`, the last ones consumed, to be read again.
    fn unread(&mut self, bytes: &[u8]) {
        self.input.unread(bytes);
    }

    /// One line including its `\n` (none at the end of input), at most `limit` bytes; a longer
    /// one is consumed whole and returned as its length and last bytes.
    fn read_line(&mut self, limit: usize) -> io::Result<Line> {
        Ok(
            match lines::read_line(&mut self.input, limit as u64, LINE_TAIL)? {
                None => Line::Eof,
                Some(line) if line.too_long => Line::TooLong {
                    len: line.len,
                    tail: line.bytes,
                },
                Some(line) => Line::Text(line.bytes),
            },
        )
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::http::is_html;
    use crate::source::warc::http_response_parts;
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
