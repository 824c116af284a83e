//! The block of a WARC `response` record as an HTTP response: [`http_response_parts`] splits
//! it into status, Content-Type, charset and body; [`HttpParts::body_reader`] undoes the body's
//! Content-Encoding as it is read, and [`HttpParts::is_html`] tells whether the body is HTML.

use std::borrow::Cow;
use std::io::{self, Read};

/// Bound on a decompressed `Content-Encoding: gzip|deflate` HTTP body.
pub(crate) const MAX_DECODED_BODY_BYTES: u64 = 64 << 20;

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
    /// body that inflates to a lot is never held whole), at most `MAX_DECODED_BODY_BYTES` (64 MiB).
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
}
