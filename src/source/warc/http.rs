//! The block of a WARC `response` record as an HTTP response: [`http_response_parts`] splits
//! it into status, Content-Type, charset and body (undoing `Transfer-Encoding: chunked`);
//! [`HttpParts::body_reader`] undoes the body's Content-Encoding as it is read, and
//! [`HttpParts::is_html`] tells whether the body is HTML. A body that could not be decoded whole
//! (a chunked body damaged, a compressed body that decodes past [`MAX_DECODED_BODY_BYTES`]) gives
//! its text up to there, then a read error ([`BodyError`]), so that the cut is said.

use std::borrow::Cow;
use std::io::{self, Read};

/// Bound on a decoded `Content-Encoding: gzip|deflate|br` HTTP body (64 MiB): the text is cut
/// there and the cut reported ([`BodyError::TooLarge`]).
pub const MAX_DECODED_BODY_BYTES: u64 = 64 << 20;

/// How far back from [`MAX_DECODED_BODY_BYTES`] a cut body is ended at a tag's end or a line's.
const CUT_WINDOW: usize = 64 << 10;

/// Why an HTTP body was not decoded whole. [`HttpParts::body_reader`] gives the text up to the
/// damage or the cut, then this as an [`io::Error`] of kind [`io::ErrorKind::InvalidData`]
/// (find it with `get_ref()` and `downcast_ref`). One line when displayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// The body decodes to more than [`MAX_DECODED_BODY_BYTES`]: its text is cut there (at the
    /// end of the last tag or line within 64 KiB of the limit, when there is one).
    #[error("decoded body cut at {} MiB (its {coding} Content-Encoding decodes to more)", MAX_DECODED_BODY_BYTES >> 20)]
    TooLarge {
        /// The Content-Encoding (`gzip`, `deflate`, `br`).
        coding: &'static str,
    },
    /// A `Transfer-Encoding: chunked` body is damaged: the chunks before the damage are kept.
    #[error("chunked body {0}")]
    Chunked(ChunkDamage),
}

/// What is wrong with a `Transfer-Encoding: chunked` body.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChunkDamage {
    /// It ends after a whole chunk, without the last (zero-size) chunk: maybe cut short.
    #[error("ends without its last (zero-size) chunk: maybe cut short")]
    NoLastChunk,
    /// A chunk-size line that is not a hexadecimal number (shown, at most 24 bytes).
    #[error("has a chunk size that is not a hexadecimal number ({0:?})")]
    BadSize(String),
    /// It ends inside a chunk.
    #[error("ends inside a chunk ({missing} of its {size} bytes missing)")]
    CutInChunk {
        /// The chunk's size.
        size: u64,
        /// How many of its bytes are missing.
        missing: u64,
    },
    /// A chunk is not followed by a line end (its size is wrong).
    #[error("has a chunk not followed by a line end (its size is wrong)")]
    NoLineEnd,
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
    /// The body as sent, de-chunked (up to the damage when [`HttpParts::chunk_damage`] says
    /// so) but still compressed as [`HttpParts::coding`] says: [`HttpParts::body_reader`]
    /// decodes it as it is read.
    pub body: Cow<'a, [u8]>,
    /// The body's `Content-Encoding`.
    pub coding: BodyCoding,
    /// What was wrong with a `Transfer-Encoding: chunked` body, if anything:
    /// [`HttpParts::body_reader`] reports it after the text.
    pub chunk_damage: Option<ChunkDamage>,
}

impl HttpParts<'_> {
    /// Whether the body is HTML: by its Content-Type (`text/html` or `application/xhtml+xml`) when it has one, otherwise
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
    /// A body damaged part-way, cut at the limit, or whose chunked encoding is damaged
    /// ([`HttpParts::chunk_damage`]) gives its text up to there, then a read error (for the
    /// last two, a [`BodyError`]).
    pub fn body_reader(&self) -> Box<dyn Read + '_> {
        let body = &self.body[..];
        let decoded: Box<dyn Read + '_> = match self.coding {
            BodyCoding::Identity => Box::new(body),
            BodyCoding::Gzip => {
                Box::new(Capped::new(flate2::read::MultiGzDecoder::new(body), "gzip"))
            }
            BodyCoding::Zlib => {
                Box::new(Capped::new(flate2::read::ZlibDecoder::new(body), "deflate"))
            }
            BodyCoding::Deflate => Box::new(Capped::new(
                flate2::read::DeflateDecoder::new(body),
                "deflate",
            )),
            BodyCoding::Brotli => Box::new(Capped::new(
                brotli::Decompressor::new(body, 64 * 1024),
                "br",
            )),
        };
        match &self.chunk_damage {
            None => decoded,
            Some(damage) => Box::new(ThenDamage {
                inner: decoded,
                damage: Some(damage.clone()),
            }),
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
    let mut chunk_damage = None;
    if transfer.split(',').any(|t| t.trim() == "chunked") {
        if let Some((dechunked, damage)) = dechunk(raw) {
            body = Cow::Owned(dechunked);
            chunk_damage = damage;
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
        chunk_damage,
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

/// Decodes `Transfer-Encoding: chunked`: the chunks' data, and what was wrong if the body is
/// damaged (the chunks before the damage are kept, a chunk cut short keeps what arrived; a
/// chunk-size line never becomes text). Sizes with any number of leading zeros, white space
/// before `;`, chunk extensions of any length (`8b;name=value;q="a;b"`) and trailers are
/// read as RFC 9112 writes them (extensions and trailers are ignored); lines end with CRLF or
/// LF. `None` when the body is not chunked at all (archivers
/// that store the body de-chunked may keep the header): its first line is not a would-be
/// chunk size ([`starts_like_chunked`]).
fn dechunk(raw: &[u8]) -> Option<(Vec<u8>, Option<ChunkDamage>)> {
    if !starts_like_chunked(raw) {
        return None;
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut rest = raw;
    let damage = loop {
        if rest.is_empty() {
            break Some(ChunkDamage::NoLastChunk);
        }
        let (line, after) = match memchr::memchr(b'\n', rest) {
            Some(nl) => (&rest[..nl], &rest[nl + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        let Some(size) = chunk_size(line) else {
            break Some(ChunkDamage::BadSize(shown(line)));
        };
        if size == 0 {
            // The last chunk; trailers (header lines) may follow.
            break None;
        }
        rest = after;
        let available = rest.len() as u64;
        if size > available {
            out.extend_from_slice(rest);
            break Some(ChunkDamage::CutInChunk {
                size,
                missing: size - available,
            });
        }
        let (data, next) = rest.split_at(size as usize);
        out.extend_from_slice(data);
        rest = if let Some(next) = next.strip_prefix(b"\r\n") {
            next
        } else if let Some(next) = next.strip_prefix(b"\n") {
            next
        } else if next.is_empty() || next == b"\r" {
            &next[next.len()..]
        } else {
            break Some(ChunkDamage::NoLineEnd);
        };
    };
    Some((out, damage))
}

/// Whether `raw` starts with a line that is meant as a chunk size: a well-formed one of any
/// length ([`is_size_line`]), or a short one, well-formed or not (`8b`, `zz`, `-1`): 1 to 64
/// printable ASCII characters other than `<` (around spaces), then perhaps `;` and an
/// extension, in at most 80 bytes (the whole body, when it is that short). A page that was
/// stored de-chunked starts otherwise (`<`, white space, a byte order mark, a line of words).
fn starts_like_chunked(raw: &[u8]) -> bool {
    let first_line = &raw[..memchr::memchr(b'\n', raw).unwrap_or(raw.len())];
    if is_size_line(first_line) {
        return true;
    }
    let head = &raw[..raw.len().min(82)];
    let line = match memchr::memchr(b'\n', head) {
        Some(nl) => &head[..nl],
        // A body cut inside its first line.
        None if raw.len() <= 80 => raw,
        None => return false,
    };
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let token = line
        .split(|b| *b == b';')
        .next()
        .unwrap_or(line)
        .trim_ascii();
    line.len() <= 80
        && (1..=64).contains(&token.len())
        && token.iter().all(|b| b.is_ascii_graphic() && *b != b'<')
}

/// Whether `line` (its `\n` left out) is a chunk-size line as RFC 9112 writes it: hexadecimal
/// digits (as many leading zeros as the sender likes), white space, then the line's end or `;`
/// and extensions (tokens and quoted strings, however long: no control character but a tab).
fn is_size_line(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let rest = line[digits..].trim_ascii_start();
    digits > 0
        && match rest.split_first() {
            None => true,
            Some((b';', extensions)) => extensions
                .iter()
                .all(|&b| b == b'\t' || (b >= b' ' && b != 0x7f)),
            Some(_) => false,
        }
}

/// The size a chunk-size line gives (extensions after `;` ignored); `None` unless it is a
/// hexadecimal number that fits in 64 bits (leading zeros are not counted).
fn chunk_size(line: &[u8]) -> Option<u64> {
    let token = line
        .split(|b| *b == b';')
        .next()
        .unwrap_or(line)
        .trim_ascii();
    if token.is_empty() {
        return None;
    }
    token.iter().try_fold(0u64, |size, b| {
        let digit = char::from(*b).to_digit(16)?;
        size.checked_mul(16)?.checked_add(u64::from(digit))
    })
}

/// A damaged chunk-size line as shown in a message: at most 24 bytes, CR dropped.
fn shown(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut text = String::from_utf8_lossy(&line[..line.len().min(24)]).into_owned();
    if line.len() > 24 {
        text.push('…');
    }
    text
}

/// A decoder's output, at most its limit ([`MAX_DECODED_BODY_BYTES`]): past that, the text is cut (at the
/// end of the last tag or line within the last [`CUT_WINDOW`] bytes, when there is one), then
/// [`BodyError::TooLarge`] is returned. Holds at most `CUT_WINDOW` bytes.
struct Capped<R: Read> {
    inner: R,
    coding: &'static str,
    /// The limit ([`MAX_DECODED_BODY_BYTES`]; at least `CUT_WINDOW`).
    limit: u64,
    /// Bytes handed out before the last window.
    passed: u64,
    /// The last window once read: its bytes, how many were handed out, and the error that
    /// follows them (the cut, or the decoder's).
    tail: Option<(Vec<u8>, usize, Option<io::Error>)>,
}

impl<R: Read> Capped<R> {
    fn new(inner: R, coding: &'static str) -> Self {
        Self::with_limit(inner, coding, MAX_DECODED_BODY_BYTES)
    }

    fn with_limit(inner: R, coding: &'static str, limit: u64) -> Self {
        Capped {
            inner,
            coding,
            limit: limit.max(CUT_WINDOW as u64),
            passed: 0,
            tail: None,
        }
    }

    /// Reads the last window (up to the limit) and looks one byte past it.
    fn read_tail(&mut self) -> (Vec<u8>, Option<io::Error>) {
        let mut window = vec![0u8; CUT_WINDOW];
        let mut filled = 0;
        while filled < CUT_WINDOW {
            match self.inner.read(&mut window[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    window.truncate(filled);
                    return (window, Some(e));
                }
            }
        }
        window.truncate(filled);
        if filled < CUT_WINDOW {
            return (window, None);
        }
        let mut probe = [0u8; 1];
        loop {
            match self.inner.read(&mut probe) {
                Ok(0) => return (window, None),
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return (window, Some(e)),
            }
        }
        if let Some(end) = window.iter().rposition(|b| matches!(b, b'>' | b'\n')) {
            window.truncate(end + 1);
        }
        let cut = BodyError::TooLarge {
            coding: self.coding,
        };
        (
            window,
            Some(io::Error::new(io::ErrorKind::InvalidData, cut)),
        )
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let before_window = self.limit - CUT_WINDOW as u64 - self.passed;
        if self.tail.is_none() && before_window > 0 {
            let most = buf
                .len()
                .min(usize::try_from(before_window).unwrap_or(usize::MAX));
            let n = self.inner.read(&mut buf[..most])?;
            self.passed += n as u64;
            return Ok(n);
        }
        if self.tail.is_none() {
            let (window, end) = self.read_tail();
            self.tail = Some((window, 0, end));
        }
        let Some((window, handed, end)) = self.tail.as_mut() else {
            return Ok(0);
        };
        if *handed < window.len() {
            let n = buf.len().min(window.len() - *handed);
            buf[..n].copy_from_slice(&window[*handed..*handed + n]);
            *handed += n;
            return Ok(n);
        }
        match end.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

/// A de-chunked body's decoded text, then the chunked encoding's damage as an error (in place
/// of a decoder's error, which the damage most likely caused; not of a [`BodyError::TooLarge`]).
struct ThenDamage<R: Read> {
    inner: R,
    damage: Option<ChunkDamage>,
}

impl<R: Read> Read for ThenDamage<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let error = match self.inner.read(buf) {
            Ok(0) => None,
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Err(e),
            Err(e) if is_cut(&e) => return Err(e),
            Err(e) => Some(e),
        };
        match self.damage.take() {
            Some(damage) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                BodyError::Chunked(damage),
            )),
            None => error.map_or(Ok(0), Err),
        }
    }
}

/// Whether `e` is a body cut at [`MAX_DECODED_BODY_BYTES`].
fn is_cut(e: &io::Error) -> bool {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<BodyError>())
        .is_some_and(|b| matches!(b, BodyError::TooLarge { .. }))
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
pub(crate) fn is_html(content_type: &str) -> bool {
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

pub(crate) fn mime_essence(content_type: &str) -> &str {
    content_type.split(';').next().unwrap_or("").trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    use flate2::write::GzEncoder;
    use std::io::Write;

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

    /// Reads `reader` to its end or first error: the bytes, and the error's [`BodyError`].
    fn read_out(mut reader: impl Read) -> (Vec<u8>, Option<BodyError>) {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 8192];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => {
                    assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
                    let body = e.get_ref().and_then(|i| i.downcast_ref::<BodyError>());
                    return (out, Some(body.expect("a BodyError").clone()));
                }
            }
        }
    }

    #[test]
    fn a_brotli_bomb_is_cut_at_the_decoded_limit_and_says_so() {
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
        let (out, error) = read_out(parts.body_reader());
        // No tag or line end to cut at: every byte up to the limit is kept.
        assert_eq!(out.len() as u64, MAX_DECODED_BODY_BYTES);
        assert_eq!(error, Some(BodyError::TooLarge { coding: "br" }));
        assert_eq!(
            error.unwrap().to_string(),
            "decoded body cut at 64 MiB (its br Content-Encoding decodes to more)"
        );
    }

    #[test]
    fn a_body_cut_at_the_limit_ends_after_a_tag_or_line_and_one_just_at_it_is_whole() {
        let limit = 3 * CUT_WINDOW;
        let unit = b"<p>The river runs past the mill.</p>";
        let page = |len: usize| unit.iter().copied().cycle().take(len).collect::<Vec<u8>>();
        for read_size in [1, 7, 8192, 1 << 20] {
            let capped = |bytes: &[u8]| {
                let reader = Capped::with_limit(bytes, "gzip", limit as u64);
                let mut out = Vec::new();
                let mut buf = vec![0u8; read_size];
                let mut reader = reader;
                loop {
                    match reader.read(&mut buf) {
                        Ok(0) => return (out, None),
                        Ok(n) => out.extend_from_slice(&buf[..n]),
                        Err(e) => {
                            let body = e.get_ref().and_then(|i| i.downcast_ref::<BodyError>());
                            return (out, body.cloned());
                        }
                    }
                }
            };
            let cut = Some(BodyError::TooLarge { coding: "gzip" });
            let (out, error) = capped(&page(limit + 1));
            assert_eq!(error, cut, "read size {read_size}");
            assert!(
                out.len() <= limit && out.len() > limit - unit.len(),
                "{}",
                out.len()
            );
            assert!(out.ends_with(b">") && out[..] == page(out.len())[..]);
            // No tag or line end near the limit: cut at it.
            let mut long = page(limit - CUT_WINDOW);
            long.extend(vec![b'a'; CUT_WINDOW + 1]);
            let (out, error) = capped(&long);
            assert_eq!((out.len(), &error), (limit, &cut));
            // A line end is a place to cut too.
            let mut lines = page(limit - 100);
            lines.extend(b"\nand more text");
            lines.extend(vec![b'a'; 200]);
            let (out, error) = capped(&lines);
            assert_eq!((out.len(), &error), (limit - 99, &cut));
            // Exactly at the limit, or less: whole, nothing said.
            for len in [
                limit,
                limit - 1,
                limit - CUT_WINDOW,
                limit - CUT_WINDOW + 1,
                10,
            ] {
                assert_eq!(capped(&page(len)), (page(len), None), "{len}");
            }
        }
    }

    /// De-chunks `raw` as the body of a response saying `Transfer-Encoding: chunked`: the body,
    /// what was wrong, and the body read through `body_reader` with the error it ends with.
    fn chunked(raw: &[u8]) -> (Vec<u8>, Option<ChunkDamage>, Option<BodyError>) {
        let mut payload = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        payload.extend_from_slice(raw);
        let parts = http_response_parts(&payload).unwrap();
        let (read, error) = read_out(parts.body_reader());
        assert_eq!(read, &parts.body[..]);
        (parts.body.to_vec(), parts.chunk_damage, error)
    }

    #[test]
    fn chunked_bodies_well_formed_with_extensions_and_trailers() {
        let ok = (b"Hello, world.".to_vec(), None, None);
        assert_eq!(chunked(b"7\r\nHello, \r\n6\r\nworld.\r\n0\r\n\r\n"), ok);
        // Extensions, upper-case hex, white space around the size, trailers.
        assert_eq!(
            chunked(b"7;name=val\r\nHello, \r\n6 ; x=\"y;z\"\r\nworld.\r\n0;end\r\nExpires: never\r\nX-Sum: 1\r\n\r\n"),
            ok
        );
        let big = vec![b'a'; 0x8b];
        let mut raw = b"8B\r\n".to_vec();
        raw.extend(&big);
        raw.extend(b"\r\n0\r\n\r\n");
        assert_eq!(chunked(&raw), (big, None, None));
        // LF line ends, and the last chunk without its line end.
        assert_eq!(chunked(b"7\nHello, \n6\nworld.\n0\n\n"), ok);
        assert_eq!(chunked(b"7\r\nHello, \r\n6\nworld.\r\n0"), ok);
        // A chunk holding a line that looks like a size is data.
        assert_eq!(
            chunked(b"4\r\n8b\r\n\r\n0\r\n\r\n"),
            (b"8b\r\n".to_vec(), None, None)
        );
    }

    /// The error a damaged chunked body read through `body_reader` ends with.
    fn said(damage: &Option<ChunkDamage>) -> Option<BodyError> {
        damage.clone().map(BodyError::Chunked)
    }

    #[test]
    fn damaged_chunked_bodies_keep_the_chunks_before_and_never_a_size_line() {
        let no_last = Some(ChunkDamage::NoLastChunk);
        // Ends after a whole chunk (with or without its line end): decoded whole, said.
        for raw in [
            &b"7\r\nHello, \r\n6\r\nworld.\r\n"[..],
            b"7\r\nHello, \r\n6\r\nworld.",
            b"7\r\nHello, \r\n6\r\nworld.\r",
            b"7\nHello, \n6\nworld.\n",
        ] {
            assert_eq!(
                chunked(raw),
                (b"Hello, world.".to_vec(), no_last.clone(), said(&no_last)),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn a_chunk_size_that_is_not_hexadecimal_keeps_the_chunks_before_it() {
        let bad = Some(ChunkDamage::BadSize("zz".into()));
        assert_eq!(
            chunked(b"7\r\nHello, \r\nzz\r\nworld.\r\n0\r\n\r\n"),
            (b"Hello, ".to_vec(), bad.clone(), said(&bad))
        );
        assert_eq!(
            chunked(b"zz\r\n<p>Hello</p>\r\n0\r\n\r\n"),
            (Vec::new(), bad.clone(), said(&bad))
        );
        for (raw, damage) in [
            (
                &b"1f"[..],
                ChunkDamage::CutInChunk {
                    size: 31,
                    missing: 31,
                },
            ),
            (
                b"1f\r",
                ChunkDamage::CutInChunk {
                    size: 31,
                    missing: 31,
                },
            ),
            (
                b"1f;a=",
                ChunkDamage::CutInChunk {
                    size: 31,
                    missing: 31,
                },
            ),
            (b"0x1f", ChunkDamage::BadSize("0x1f".into())),
        ] {
            assert_eq!(
                chunked(raw),
                (
                    Vec::new(),
                    Some(damage.clone()),
                    Some(BodyError::Chunked(damage))
                )
            );
        }
        let (body, damage, _) = chunked(b"-1\r\n<p>x");
        assert_eq!(
            (body, damage),
            (Vec::new(), Some(ChunkDamage::BadSize("-1".into())))
        );
        for (raw, size) in [
            (&b"7\r\nHello, \r\n+6\r\nworld.\r\n0\r\n\r\n"[..], "+6"),
            (b"7\r\nHello, \r\n\r\n6\r\nworld.\r\n0\r\n\r\n", ""),
            (
                b"7\r\nHello, \r\n11111111111111111\r\nx",
                "11111111111111111",
            ),
            (b"7\r\nHello, \r\n6 6\r\nworld.", "6 6"),
        ] {
            let (body, damage, _) = chunked(raw);
            assert_eq!(
                (body, damage),
                (b"Hello, ".to_vec(), Some(ChunkDamage::BadSize(size.into()))),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn a_chunk_size_that_does_not_fit_its_chunk_keeps_what_arrived() {
        // A size larger than what follows: what arrived.
        let cut = Some(ChunkDamage::CutInChunk {
            size: 0x8b,
            missing: 0x8b - 6,
        });
        assert_eq!(
            chunked(b"7\r\nHello, \r\n8b\r\nworld."),
            (b"Hello, world.".to_vec(), cut.clone(), said(&cut))
        );
        let (body, damage, _) = chunked(b"7\r\nHello, \r\n8b");
        assert_eq!(
            (body, damage),
            (
                b"Hello, ".to_vec(),
                Some(ChunkDamage::CutInChunk {
                    size: 0x8b,
                    missing: 0x8b
                })
            )
        );
        // A size smaller than the chunk: the chunk, not the rest.
        let (body, damage, _) = chunked(b"3\r\nHello, \r\n0\r\n\r\n");
        assert_eq!(
            (body, damage),
            (b"Hel".to_vec(), Some(ChunkDamage::NoLineEnd))
        );
        assert_eq!(
            BodyError::Chunked(ChunkDamage::BadSize("zz".into())).to_string(),
            "chunked body has a chunk size that is not a hexadecimal number (\"zz\")"
        );
    }

    #[test]
    fn a_body_stored_de_chunked_is_kept_as_it_is() {
        for raw in [
            &b"<!DOCTYPE html>\r\n<p>Hello</p>"[..],
            b"\r\n<p>Hello</p>",
            b"<p>Hello</p>",
            b"",
            b"A first line of plain text that is longer than a chunk size\nand more",
        ] {
            assert_eq!(chunked(raw), (raw.to_vec(), None, None), "{raw:?}");
        }
    }

    #[test]
    fn a_damaged_chunked_gzip_body_says_the_chunk_damage() {
        let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&b"<p>Zipped and chunked.</p>".repeat(50))
            .unwrap();
        let gz = gz.finish().unwrap();
        let mut payload =
            b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
                .to_vec();
        payload.extend(format!("{:x}\r\n", gz.len()).as_bytes());
        payload.extend(&gz[..gz.len() / 2]);
        let parts = http_response_parts(&payload).unwrap();
        let (_, error) = read_out(parts.body_reader());
        let missing = (gz.len() - gz.len() / 2) as u64;
        assert_eq!(
            error,
            Some(BodyError::Chunked(ChunkDamage::CutInChunk {
                size: gz.len() as u64,
                missing
            }))
        );
    }

    #[test]
    fn chunk_sizes_with_many_leading_zeros_and_long_extensions_are_read() {
        let ok = (b"Hello, world.".to_vec(), None, None);
        let zeros = "0".repeat(100);
        let raw = format!("{zeros}7\r\nHello, \r\n{zeros}6\r\nworld.\r\n{zeros}\r\n\r\n");
        assert_eq!(chunked(raw.as_bytes()), ok);
        let long = format!("name=\"{}\"", "v".repeat(300));
        let raw = format!("7 \t; {long}\r\nHello, \r\n6;{long};b\r\nworld.\r\n0;{long}\r\n\r\n");
        assert_eq!(chunked(raw.as_bytes()), ok);
        // A long first chunk with no line break in it.
        let data = "x".repeat(5000);
        let raw = format!("{:x}\r\n{data}\r\n0\r\n\r\n", data.len());
        assert_eq!(chunked(raw.as_bytes()), (data.into_bytes(), None, None));
        // A long first line that is no chunk size: a page stored de-chunked.
        let words = format!("7 {}\nmore", "words ".repeat(20));
        assert_eq!(chunked(words.as_bytes()), (words.into_bytes(), None, None));
    }

    mod framing {
        use super::*;
        use proptest::prelude::*;

        /// One chunk's framing: leading zeros, upper-case hex, white space before the
        /// extensions, the extensions, and whether its two lines end with LF alone.
        #[derive(Clone, Debug)]
        struct Framing {
            zeros: usize,
            upper: bool,
            space: String,
            extensions: String,
            lf_size: bool,
            lf_data: bool,
        }

        /// A chunk extension as RFC 9112 allows it: `;` and a token, perhaps `=` and a token or
        /// a quoted string (with escapes, `;`, `<` and bytes past ASCII in it), white space
        /// around each, now and then a long one.
        fn extension() -> impl Strategy<Value = String> {
            let token = "[a-zA-Z0-9!#$%&'*+.^_`|~-]{1,12}";
            let quoted = r#""([ \t!#-\[\]-~é;<]|\\["\\a]){0,20}""#;
            let long = "[a-z]{100,400}";
            let value = prop_oneof![
                Just(String::new()),
                token.prop_map(|t| format!("={t}")),
                quoted.prop_map(|q| format!(" = {q}")),
                long.prop_map(|l| format!("={l}"))
            ];
            ("[ \t]{0,2}", token, value)
                .prop_map(|(bws, name, value)| format!("{bws};{bws}{name}{value}"))
        }

        fn framing() -> impl Strategy<Value = Framing> {
            (
                prop_oneof![3 => Just(0usize), 1 => 1usize..100],
                any::<bool>(),
                "[ \t]{0,3}",
                proptest::collection::vec(extension(), 0..3),
                any::<bool>(),
                any::<bool>(),
            )
                .prop_map(|(zeros, upper, space, extensions, lf_size, lf_data)| {
                    let space = if extensions.is_empty() {
                        String::new()
                    } else {
                        space
                    };
                    Framing {
                        zeros,
                        upper,
                        space,
                        extensions: extensions.concat(),
                        lf_size,
                        lf_data,
                    }
                })
        }

        /// `size` framed as `framing` says: its chunk-size line.
        fn size_line(size: usize, framing: &Framing) -> Vec<u8> {
            let hex = if framing.upper {
                format!("{size:X}")
            } else {
                format!("{size:x}")
            };
            let end = if framing.lf_size { "\n" } else { "\r\n" };
            format!(
                "{}{hex}{}{}{end}",
                "0".repeat(framing.zeros),
                framing.space,
                framing.extensions
            )
            .into_bytes()
        }

        fn page() -> impl Strategy<Value = Vec<u8>> {
            prop_oneof![
                proptest::collection::vec(any::<u8>(), 0..2000),
                "[a-z <>/=\"]{0,6000}".prop_map(String::into_bytes),
                "(<p>[0-9a-f;\r\n ]{0,40}</p>\r?\n){0,60}".prop_map(String::into_bytes),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

            /// Any page, cut into chunks of any sizes framed in any valid way, decodes back to
            /// the page: no chunk-size line, extension or trailer ever reaches the text.
            #[test]
            fn any_valid_framing_decodes_back_to_the_page(
                page in page(),
                cuts in proptest::collection::vec((1usize..700, framing()), 0..12),
                last in framing(),
                last_zeros in 1usize..5,
                trailers in proptest::collection::vec("[A-Za-z-]{1,10}: [ -~]{0,30}", 0..3),
                lf_end in any::<bool>(),
            ) {
                let mut raw = Vec::new();
                let mut rest = &page[..];
                let mut cuts = cuts.into_iter().cycle();
                while !rest.is_empty() {
                    let (size, framing) = cuts.next().unwrap_or((rest.len(), last.clone()));
                    let (data, after) = rest.split_at(size.min(rest.len()));
                    raw.extend(size_line(data.len(), &framing));
                    raw.extend_from_slice(data);
                    raw.extend_from_slice(if framing.lf_data { b"\n" } else { b"\r\n" });
                    rest = after;
                }
                let end: &[u8] = if lf_end { b"\n" } else { b"\r\n" };
                raw.extend(size_line(0, &Framing { zeros: last_zeros - 1, ..last.clone() }));
                for trailer in &trailers {
                    raw.extend_from_slice(trailer.as_bytes());
                    raw.extend_from_slice(end);
                }
                raw.extend_from_slice(end);
                let (body, damage, error) = chunked(&raw);
                prop_assert_eq!(damage, None);
                prop_assert_eq!(error, None);
                prop_assert_eq!(body, page);
            }
        }
    }
}
