//! Bytes to UTF-8: picks a page's character encoding and transcodes the stream as it arrives.
//!
//! The encoding is chosen once per document, from the first [`SNIFF_BYTES`] bytes, in this order:
//! a byte-order mark (unambiguous, so it wins, as in the WHATWG decode algorithm), an explicit
//! override (`--encoding`), a `<meta charset>` (or `http-equiv` content) declaration (but
//! UTF-8 when the bytes are UTF-8 and the declaration names a legacy encoding: such a page
//! was saved as UTF-8 under an old template), a statistical guess by chardetng, and
//! windows-1252 as the last resort.
//! The sniffing window is the only buffering this stage does; after it, bytes are transcoded
//! chunk by chunk with encoding_rs, so memory never grows with the input. A window that holds
//! NULs or many control bytes is binary data, not a page, and refused; for UTF-16, whose ASCII
//! characters are half NULs, that test runs on the decoded text instead (where the unpaired
//! surrogates of random bytes show as U+FFFD).

use encoding_rs::{CoderResult, Decoder, Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252};

/// How many bytes are buffered to choose the encoding before any text is passed on.
pub const SNIFF_BYTES: usize = 16 * 1024;

/// How far into a page a `<meta charset>` declaration is looked for.
const META_SCAN_BYTES: usize = 4096;

/// Where the chosen encoding came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodingSource {
    /// `--encoding` on the command line.
    Override,
    /// A byte-order mark.
    Bom,
    /// A `<meta>` declaration in the page.
    Meta,
    /// UTF-8, against the legacy encoding a `<meta>` declares: the bytes are UTF-8 (valid,
    /// and not all ASCII), which no legacy encoding's text is but by chance.
    Utf8OverMeta {
        /// The encoding the page declares.
        declared: &'static Encoding,
    },
    /// chardetng's guess from the bytes.
    Sniffed,
}

/// What went wrong with a document's bytes.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    /// The input looks like binary data, not text.
    #[error("binary data, not text (skipped)")]
    Binary,
}

/// Whether to look for `<meta charset>` (HTML) or not (plain text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Markup {
    /// HTML: a `<meta charset>` may say the encoding.
    Html,
    /// Plain text.
    Text,
}

/// A streaming transcoder from a document's bytes to UTF-8.
pub struct Utf8Decoder {
    override_encoding: Option<&'static Encoding>,
    markup: Markup,
    sniff_buffer: Vec<u8>,
    decoder: Option<Decoder>,
    encoding: Option<(&'static Encoding, EncodingSource)>,
    had_replacements: bool,
    bytes_seen: u64,
}

impl Utf8Decoder {
    /// A decoder for one document; `override_encoding` skips detection.
    pub fn new(override_encoding: Option<&'static Encoding>, markup: Markup) -> Utf8Decoder {
        Utf8Decoder {
            override_encoding,
            markup,
            sniff_buffer: Vec::new(),
            decoder: None,
            encoding: None,
            had_replacements: false,
            bytes_seen: 0,
        }
    }

    /// Feeds the next chunk of bytes, appending whatever text is ready to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut String) -> Result<(), DecodeError> {
        self.bytes_seen += bytes.len() as u64;
        if self.decoder.is_none() {
            let room = SNIFF_BYTES - self.sniff_buffer.len();
            let (head, rest) = bytes.split_at(room.min(bytes.len()));
            self.sniff_buffer.extend_from_slice(head);
            if self.sniff_buffer.len() < SNIFF_BYTES {
                return Ok(());
            }
            // The stream may go on past the buffer: the guess must not take its end for the end.
            self.start(false, out)?;
            self.decode(rest, false, out);
            return Ok(());
        }
        self.decode(bytes, false, out);
        Ok(())
    }

    /// Ends the document, flushing what is buffered.
    pub fn finish(&mut self, out: &mut String) -> Result<(), DecodeError> {
        if self.decoder.is_none() {
            self.start(true, out)?;
        }
        self.decode(&[], true, out);
        Ok(())
    }

    /// The encoding in use and where it came from, once chosen.
    pub fn encoding(&self) -> Option<(&'static Encoding, EncodingSource)> {
        self.encoding
    }

    /// True when some bytes were invalid in the chosen encoding and replaced by U+FFFD.
    pub fn had_replacements(&self) -> bool {
        self.had_replacements
    }

    /// True when the encoding was declared (override, BOM or meta) rather than guessed.
    pub fn encoding_declared(&self) -> bool {
        matches!(
            self.encoding,
            Some((_, EncodingSource::Override | EncodingSource::Bom | EncodingSource::Meta))
        )
    }

    /// How many bytes were fed in so far.
    pub fn bytes_seen(&self) -> u64 {
        self.bytes_seen
    }

    /// Chooses the encoding from the sniff buffer and decodes the buffer; `whole` when the
    /// buffer holds the whole document.
    ///
    /// The binary test runs on the raw bytes, except for UTF-16 (chosen by a BOM or declared),
    /// whose ASCII characters are half NULs: there it runs on the decoded text.
    fn start(&mut self, whole: bool, out: &mut String) -> Result<(), DecodeError> {
        let buffer = std::mem::take(&mut self.sniff_buffer);
        let (encoding, source, bom_len) =
            choose_encoding(&buffer, self.override_encoding, self.markup, whole);
        let utf16 = encoding == UTF_16LE || encoding == UTF_16BE;
        if source != EncodingSource::Bom && !utf16 && looks_binary(&buffer) {
            return Err(DecodeError::Binary);
        }
        self.encoding = Some((encoding, source));
        self.decoder = Some(encoding.new_decoder_without_bom_handling());
        let mark = out.len();
        self.decode(&buffer[bom_len..], false, out);
        if utf16 && looks_binary_text(&out[mark..]) {
            out.truncate(mark);
            self.encoding = None;
            self.decoder = None;
            self.had_replacements = false;
            return Err(DecodeError::Binary);
        }
        Ok(())
    }

    fn decode(&mut self, mut bytes: &[u8], last: bool, out: &mut String) {
        let Some(decoder) = self.decoder.as_mut() else {
            return;
        };
        loop {
            let need = decoder
                .max_utf8_buffer_length(bytes.len())
                .unwrap_or(bytes.len() * 3 + 16);
            out.reserve(need);
            let (result, read, replaced) = decoder.decode_to_string(bytes, out, last);
            self.had_replacements |= replaced;
            bytes = &bytes[read..];
            if result == CoderResult::InputEmpty {
                break;
            }
        }
    }
}

/// Picks the encoding for a document from its first bytes; returns the BOM length to skip too.
/// `whole` says that `head` is the whole document; otherwise it may end inside a character,
/// which must not count against an encoding (chardetng would rule UTF-8 out for a cut sequence).
pub fn choose_encoding(
    head: &[u8],
    override_encoding: Option<&'static Encoding>,
    markup: Markup,
    whole: bool,
) -> (&'static Encoding, EncodingSource, usize) {
    if let Some((encoding, bom_len)) = Encoding::for_bom(head) {
        return (encoding, EncodingSource::Bom, bom_len);
    }
    if let Some(encoding) = override_encoding {
        return (encoding, EncodingSource::Override, 0);
    }
    if markup == Markup::Html {
        if let Some(encoding) = meta_charset(&head[..head.len().min(META_SCAN_BYTES)]) {
            if encoding != UTF_8 && is_utf8_text(head, whole) {
                return (UTF_8, EncodingSource::Utf8OverMeta { declared: encoding }, 0);
            }
            return (encoding, EncodingSource::Meta, 0);
        }
    }
    // chardetng answers UTF-8 whenever the bytes are UTF-8 (ASCII too: its UTF-8 candidate is
    // ruled out only by a malformed sequence), so such a window skips its 27 candidates.
    let guess = if utf8_prefix(head, whole).is_some() {
        UTF_8
    } else {
        statistical_guess(head, whole)
    };
    (
        if guess == UTF_8 || guess.is_ascii_compatible() {
            guess
        } else {
            WINDOWS_1252
        },
        EncodingSource::Sniffed,
        0,
    )
}

/// chardetng's guess from `head` (UTF-8 allowed, ISO-2022-JP not).
fn statistical_guess(head: &[u8], whole: bool) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(head, whole);
    detector.guess(None, chardetng::Utf8Detection::Allow)
}

/// The bytes of `head` that are UTF-8, if all are: all of `head`, or all but a character cut
/// at its end when it is not the whole document.
fn utf8_prefix(head: &[u8], whole: bool) -> Option<&[u8]> {
    match std::str::from_utf8(head) {
        Ok(text) => Some(text.as_bytes()),
        Err(e) if !whole && e.error_len().is_none() => Some(&head[..e.valid_up_to()]),
        Err(_) => None,
    }
}

/// Whether `head` is UTF-8 with some characters beyond ASCII: valid, but for a character cut
/// at its end when it is not the whole document.
fn is_utf8_text(head: &[u8], whole: bool) -> bool {
    utf8_prefix(head, whole).is_some_and(|valid| !valid.is_ascii())
}

/// Finds a charset declared in a `<meta>` tag, as the HTML prescan does (simplified: the first
/// `<meta` tag holding `charset=` wins). UTF-16 labels mean UTF-8 here, per the HTML standard.
pub fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let finder = memchr::memmem::Finder::new(b"<meta");
    let lower: Vec<u8> = head.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = finder.find(&lower[from..]) {
        let tag_start = from + pos;
        let tag_end =
            memchr::memchr(b'>', &lower[tag_start..]).map_or(lower.len(), |e| tag_start + e);
        let tag = &lower[tag_start..tag_end];
        if let Some(c) = memchr::memmem::find(tag, b"charset") {
            let mut rest = &tag[c + 7..];
            rest = trim_start(rest);
            if let Some(r) = rest.strip_prefix(b"=") {
                let r = trim_start(r);
                let r = r
                    .strip_prefix(b"\"")
                    .or_else(|| r.strip_prefix(b"'"))
                    .unwrap_or(r);
                let end = r
                    .iter()
                    .position(|&b| {
                        matches!(
                            b,
                            b'"' | b'\'' | b';' | b' ' | b'\t' | b'\n' | b'\r' | b'/' | b'>'
                        )
                    })
                    .unwrap_or(r.len());
                if let Some(encoding) = Encoding::for_label(&r[..end]) {
                    return Some(
                        if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
                            UTF_8
                        } else if encoding == encoding_rs::X_USER_DEFINED {
                            WINDOWS_1252
                        } else {
                            encoding
                        },
                    );
                }
            }
        }
        from = tag_end.max(tag_start + 1);
        if from >= lower.len() {
            break;
        }
    }
    None
}

fn trim_start(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if first.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    s
}

/// Whether a document whose first bytes are `head` is refused as binary: the test
/// [`Utf8Decoder`] applies (on the raw bytes, on the decoded text for UTF-16), run on `head`.
pub fn is_binary(head: &[u8]) -> bool {
    let mut decoder = Utf8Decoder::new(None, Markup::Html);
    let mut text = String::new();
    decoder.push(head, &mut text) == Err(DecodeError::Binary)
        || decoder.finish(&mut text) == Err(DecodeError::Binary)
}

/// True when the bytes hold NULs or many other control bytes: a binary file, not a page.
fn looks_binary(head: &[u8]) -> bool {
    if head.is_empty() {
        return false;
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b))
        .count();
    let nuls = memchr::memchr_iter(0, head).count();
    nuls * 100 > head.len() || controls * 20 > head.len()
}

/// [`looks_binary`] for decoded text, counted in characters, where a byte stream that is not
/// text also shows as many U+FFFD (in UTF-16: the unpaired surrogates of random bytes, about 3%).
fn looks_binary_text(text: &str) -> bool {
    let (mut chars, mut nuls, mut controls, mut replaced) = (0usize, 0usize, 0usize, 0usize);
    for c in text.chars() {
        chars += 1;
        match c {
            '\0' => nuls += 1,
            '\t' | '\n' | '\r' | '\u{c}' | '\u{1b}' => {}
            c if c < ' ' => controls += 1,
            '\u{fffd}' => replaced += 1,
            _ => {}
        }
    }
    nuls * 100 > chars || (controls + nuls) * 20 > chars || replaced * 100 > chars
}

/// Looks up an encoding by its WHATWG label (`utf-8`, `latin1`, `shift_jis`, …).
pub fn encoding_for_label(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label(label.trim().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(bytes: &[u8], chunk: usize) -> (String, Utf8Decoder) {
        let mut d = Utf8Decoder::new(None, Markup::Html);
        let mut out = String::new();
        for piece in bytes.chunks(chunk.max(1)) {
            d.push(piece, &mut out).unwrap();
        }
        d.finish(&mut out).unwrap();
        (out, d)
    }

    #[test]
    fn bom_wins() {
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend_from_slice("<meta charset=latin1>caf\u{e9}".as_bytes());
        let (text, d) = decode_all(&bytes, 3);
        assert_eq!(text, "<meta charset=latin1>café");
        assert_eq!(d.encoding().unwrap(), (UTF_8, EncodingSource::Bom));
    }

    #[test]
    fn utf16_with_bom() {
        let mut bytes = vec![0xFF, 0xFE];
        for u in "<p>hé</p>".encode_utf16() {
            bytes.extend_from_slice(&u.to_le_bytes());
        }
        let (text, _) = decode_all(&bytes, 5);
        assert_eq!(text, "<p>hé</p>");
    }

    #[test]
    fn meta_charset_is_honoured() {
        let bytes = b"<html><head><meta http-equiv=Content-Type content=\"text/html; charset=windows-1251\"></head><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>";
        let (text, d) = decode_all(bytes, 7);
        assert!(text.contains("Привет"), "{text}");
        assert_eq!(d.encoding().unwrap().1, EncodingSource::Meta);
    }

    #[test]
    fn utf8_bytes_win_over_a_legacy_meta_charset() {
        let page = "<meta charset=windows-1252><p>Café, naïve — “quoted”</p>";
        let (text, decoder) = decode_all(page.as_bytes(), 7);
        assert_eq!(text, page);
        assert_eq!(
            decoder.encoding(),
            Some((UTF_8, EncodingSource::Utf8OverMeta { declared: WINDOWS_1252 }))
        );
        assert!(!decoder.encoding_declared());
        // Latin-1 bytes, and ASCII, keep what they declare.
        let latin1 = b"<meta charset=iso-8859-1><p>Caf\xe9</p>";
        let (text, decoder) = decode_all(latin1, 7);
        assert_eq!(text, "<meta charset=iso-8859-1><p>Café</p>");
        assert_eq!(decoder.encoding(), Some((WINDOWS_1252, EncodingSource::Meta)));
        let (_, decoder) = decode_all(b"<meta charset=iso-8859-1><p>Cafe</p>", 7);
        assert_eq!(decoder.encoding(), Some((WINDOWS_1252, EncodingSource::Meta)));
    }

    #[test]
    fn meta_charset_variants() {
        assert_eq!(meta_charset(b"<META CHARSET='UTF-8'>"), Some(UTF_8));
        assert_eq!(meta_charset(b"<meta charset=\"utf-16\">"), Some(UTF_8));
        assert_eq!(
            meta_charset(b"<meta name=x><meta charset = iso-8859-1 >"),
            Some(WINDOWS_1252)
        );
        assert_eq!(meta_charset(b"<meta charset=bogus>"), None);
        assert_eq!(meta_charset(b"<p>charset=utf-8</p>"), None);
    }

    #[test]
    fn the_utf8_shortcut_answers_as_chardetng_does() {
        let cases: [(&[u8], bool); 7] = [
            (b"<p>plain ASCII</p>", true),
            ("<p>Café crème</p>".as_bytes(), true),
            (b"<p>cut \xc3", false),
            (b"<p>cut \xc3", true),
            (b"<p>Caf\xe9 cr\xe8me</p>", true),
            (b"<p>\xd0\xbf\xd1\x80\xd0\xb8 \xff</p>", true),
            (b"", true),
        ];
        for (head, whole) in cases {
            let expected = statistical_guess(head, whole);
            let (chosen, source, _) = choose_encoding(head, None, Markup::Html, whole);
            assert_eq!(source, EncodingSource::Sniffed);
            assert_eq!(chosen, expected, "{:?} (whole: {whole})", String::from_utf8_lossy(head));
        }
    }

    #[test]
    fn sniffs_windows_1252_without_declaration() {
        let (text, d) = decode_all(
            b"<p>Caf\xe9 cr\xe8me br\xfbl\xe9e, na\xefve fa\xe7ade.</p>",
            4,
        );
        assert!(text.contains("Café crème"), "{text}");
        assert_eq!(d.encoding().unwrap().1, EncodingSource::Sniffed);
    }

    #[test]
    fn invalid_utf8_in_declared_utf8_is_replaced_and_reported() {
        let (text, d) = decode_all(b"<meta charset=utf-8><p>bad \xff byte</p>", 2);
        assert!(text.contains("bad \u{fffd} byte"));
        assert!(d.had_replacements() && d.encoding_declared());
    }

    #[test]
    fn binary_is_refused() {
        let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 256) as u8).collect();
        let mut d = Utf8Decoder::new(None, Markup::Html);
        let mut out = String::new();
        d.push(&bytes, &mut out).unwrap();
        assert_eq!(d.finish(&mut out), Err(DecodeError::Binary));
    }

    #[test]
    fn chunking_does_not_change_text() {
        let page = "<meta charset=utf-8><p>naïve — “quoted” 東京</p>".repeat(2000);
        let (whole, _) = decode_all(page.as_bytes(), page.len());
        for chunk in [1, 2, 3, 17, 4096, SNIFF_BYTES + 1] {
            assert_eq!(decode_all(page.as_bytes(), chunk).0, whole, "chunk {chunk}");
        }
    }

    #[test]
    fn empty_input_is_empty_text() {
        let (text, d) = decode_all(b"", 1);
        assert!(text.is_empty());
        assert_eq!(d.bytes_seen(), 0);
    }
}
