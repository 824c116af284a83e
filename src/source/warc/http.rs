//! The block of a WARC `response` record as an HTTP response: [`http_response_parts`] splits
//! it into status, Content-Type, charset and body, its head read leniently (LF line ends,
//! interim answers, a body stored de-chunked under a `chunked` header);
//! [`HttpParts::body_reader`] decodes the body as it is read, by [`crate::source::http`] as
//! a fetched page's is, and [`HttpParts::is_html`] tells whether the body is HTML. A body that
//! could not be decoded whole (a chunked body damaged, a compressed body that decodes past
//! [`MAX_DECODED_BODY_BYTES`]) gives its text up to there, then a read error (holding a
//! [`BodyCut`] or a [`TooLarge`]), so that the cut is said.

use std::borrow::Cow;
use std::io::{self, Read};

use crate::source::http::{
    charset_param, codings, dechunked, decoder, is_html, looks_like_html, mime_essence,
    starts_like_chunked, BodyCut, Capped, ChunkDamage, Coding, TooLarge,
};

/// Bound on a decoded `Content-Encoding: gzip|deflate|br` HTTP body (64 MiB): the text is cut
/// there and the cut reported ([`TooLarge`]).
pub const MAX_DECODED_BODY_BYTES: u64 = 64 << 20;

/// An HTTP response split into what the cleaner needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpParts<'a> {
    /// Status code (0 when the status line has none that parses).
    pub status: u16,
    /// `Content-Type` header value as sent.
    pub content_type: Option<String>,
    /// Its `charset` parameter, lower-cased, quotes removed.
    pub charset: Option<String>,
    /// A `Content-Encoding` that is not decoded (the body left encoded), lower-cased.
    pub unhandled_encoding: Option<String>,
    /// The body as sent, de-chunked (up to the damage when [`HttpParts::chunk_damage`] says
    /// so) but still compressed as [`HttpParts::codings`] say: [`HttpParts::body_reader`]
    /// decodes it as it is read.
    pub body: Cow<'a, [u8]>,
    /// The body's content codings, in the order they were applied.
    pub codings: Vec<Coding>,
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
    /// last two, a [`TooLarge`] or a [`BodyCut`]).
    pub fn body_reader(&self) -> Box<dyn Read + Send + '_> {
        let body = &self.body[..];
        let decoded: Box<dyn Read + Send + '_> = match self.codings.first() {
            None => Box::new(body),
            Some(first) => Box::new(Capped::new(
                decoder(Box::new(body), &self.codings),
                MAX_DECODED_BODY_BYTES,
                first.name(),
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
    // Archivers that store the body de-chunked may keep the header: its first line tells.
    if transfer.split(',').any(|t| t.trim() == "chunked") && starts_like_chunked(raw) {
        let (data, damage) = dechunked(raw);
        body = Cow::Owned(data);
        chunk_damage = damage;
    }
    let (codings, unhandled_encoding) = match codings(encoding.split(',')) {
        Ok(codings) => (codings, None),
        Err(_) => (Vec::new(), Some(encoding)),
    };
    Some(HttpParts {
        status,
        content_type,
        charset,
        unhandled_encoding,
        body,
        codings,
        chunk_damage,
    })
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

/// A de-chunked body's decoded text, then the chunked encoding's damage as an error (in place
/// of a decoder's error, which the damage most likely caused; not of a [`TooLarge`]).
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
                BodyCut::Chunked(damage),
            )),
            None => error.map_or(Ok(0), Err),
        }
    }
}

/// Whether `e` is a body cut at [`MAX_DECODED_BODY_BYTES`].
fn is_cut(e: &io::Error) -> bool {
    TooLarge::of(e).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    use flate2::write::GzEncoder;
    use std::io::Write;

    #[test]
    fn http_helpers() {
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
        assert_eq!(parts.codings, [Coding::Brotli]);
        assert_eq!(&parts.decoded_body().unwrap()[..], b"<p>brotli</p>");
        let zstd = http_response_parts(b"HTTP/1.1 200 OK\r\nContent-Encoding: zstd\r\n\r\nxx");
        assert_eq!(zstd.unwrap().unhandled_encoding.as_deref(), Some("zstd"));
    }

    /// What a body read ends with: a framing's cut or the decoded body's.
    #[derive(Clone, Debug, PartialEq, Eq)]
    enum Said {
        Cut(BodyCut),
        TooLarge(TooLarge),
    }

    /// Reads `reader` to its end or first error: the bytes, and what the error says.
    fn read_out(mut reader: impl Read) -> (Vec<u8>, Option<Said>) {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 8192];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => {
                    assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
                    let said = match (crate::source::http::cut_of(&e), TooLarge::of(&e)) {
                        (Some(cut), _) => Said::Cut(cut.clone()),
                        (_, Some(large)) => Said::TooLarge(large.clone()),
                        _ => panic!("{e}"),
                    };
                    return (out, Some(said));
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
        let large = TooLarge {
            limit: MAX_DECODED_BODY_BYTES,
            coding: "br",
        };
        assert_eq!(error, Some(Said::TooLarge(large.clone())));
        assert_eq!(
            large.to_string(),
            "decoded body cut at 64 MiB (its br Content-Encoding decodes to more)"
        );
    }

    /// De-chunks `raw` as the body of a response saying `Transfer-Encoding: chunked`: the body,
    /// what was wrong, and the body read through `body_reader` with the error it ends with.
    fn chunked(raw: &[u8]) -> (Vec<u8>, Option<ChunkDamage>, Option<Said>) {
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
    fn said(damage: &Option<ChunkDamage>) -> Option<Said> {
        damage.clone().map(|d| Said::Cut(BodyCut::Chunked(d)))
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
                (Vec::new(), Some(damage.clone()), said(&Some(damage)))
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
            BodyCut::Chunked(ChunkDamage::BadSize("zz".into())).to_string(),
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
            said(&Some(ChunkDamage::CutInChunk {
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
