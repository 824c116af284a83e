//! An HTTP response's body, read one way for every input that holds one (a WARC `response`
//! record, a page fetched from a server):
//!
//! - `body.rs`: its framing taken off ([`Body`]: a Content-Length, chunks, or the input's end),
//!   and why it did not end as framed ([`BodyCut`], [`ChunkDamage`]);
//! - `coding.rs`: its content codings taken off as it is read ([`codings`], [`decoder`]) and
//!   what they decode cut at a bound ([`Capped`], [`TooLarge`]);
//! - here: what a `Content-Type` says of it ([`charset_param`], [`looks_like_html`]).
//!
//! How a response's head is read is its source's business: an archive's is read leniently
//! from memory (`source/warc/http.rs`), a server's by `httparse` from the socket
//! (`fetch/http.rs`).

mod body;
mod coding;

pub use body::{cut_of, dechunked, starts_like_chunked, Body, BodyCut, ChunkDamage, Framing};
pub use coding::{codings, decoder, Capped, Coding, CodingError, TooLarge, MAX_CODINGS};

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

    #[test]
    fn content_types_say_the_charset_and_whether_the_body_is_html() {
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
        assert!(looks_like_html(
            b"\xef\xbb\xbf <?xml version=\"1.0\"?>\n<html>"
        ));
        assert!(looks_like_html(b"<!-- a comment -->"));
        assert!(!looks_like_html(b"plain text <p>"));
        assert!(!looks_like_html(b"<pre>"));
    }
}
