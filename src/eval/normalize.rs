//! Normalisation shared by gold and cleaned files: byte decoding, URL-line removal,
//! control characters, and word tokenisation with CleanEval's `<p>`/`<h>`/`<l>` markers
//! split out as tokens of their own.
//!
//! Rules (both sides): decode as UTF-8, else windows-1252; drop one leading BOM; delete
//! every line matching `^\s*URL.*$`; control characters U+0000–U+001F become spaces;
//! split on Unicode whitespace (`char::is_whitespace`) into case-sensitive tokens.
//!
//! Markers: `<p>`, `<h>`, `<l>` in any case are found anywhere, even glued to words, and
//! act like `" <p> "` (Evert's cleaneval.py does the same with `\n<p> `): `<p>Hello` gives
//! `<p>` `Hello`, and `end.<h>Next` gives `end.` `<h>` `Next`. Marker tokens are lowercased
//! so `<P>` matches `<p>`. The "text" view is the "tags" view with marker tokens removed,
//! so a marker between two glued words separates them there too.

use std::borrow::Cow;

/// The three CleanEval segment markers, lowercase, as they appear in token sequences.
pub const MARKERS: [&str; 3] = ["<p>", "<h>", "<l>"];

/// Decodes file bytes: UTF-8 when valid, otherwise windows-1252 (bytes undefined there map
/// to U+0080–U+009F, as encoding_rs does); one leading BOM is dropped, both as UTF-8 bytes
/// before decoding (so a BOM does not turn into `ï»¿` when the rest is not UTF-8) and as
/// U+FEFF after.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text: Cow<'_, str> = match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            encoding_rs::WINDOWS_1252
                .decode_without_bom_handling(bytes)
                .0
        }
    };
    match text {
        Cow::Borrowed(s) => Cow::Borrowed(s.strip_prefix('\u{FEFF}').unwrap_or(s)),
        Cow::Owned(s) => match s.strip_prefix('\u{FEFF}') {
            Some(rest) => Cow::Owned(rest.to_owned()),
            None => Cow::Owned(s),
        },
    }
}

/// Whitespace as Python's `\s` sees it in a `str`: Unicode whitespace plus U+001C–U+001F.
fn is_regex_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1C}'..='\u{1F}').contains(&c)
}

/// True when the line matches `^\s*URL.*$` (the gold's `URL: …` header and alike).
pub fn is_url_line(line: &str) -> bool {
    line.trim_start_matches(is_regex_space).starts_with("URL")
}

/// Separators: whitespace and control characters (which become spaces first).
fn is_separator(c: char) -> bool {
    c.is_whitespace() || c < '\u{20}'
}

/// Returns the lowercase marker if `bytes` starts with `<p>`, `<h>` or `<l>` (any case).
fn marker_at(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [b'<', c, b'>', ..] => match c.to_ascii_lowercase() {
            b'p' => Some(MARKERS[0]),
            b'h' => Some(MARKERS[1]),
            b'l' => Some(MARKERS[2]),
            _ => None,
        },
        _ => None,
    }
}

/// True for the lowercase marker tokens produced by [`tokenize`].
pub fn is_marker(token: &str) -> bool {
    MARKERS.contains(&token)
}

/// Tokenises decoded text into the "tags" view: words and lowercase marker tokens, in
/// order, with URL lines removed. Words borrow from `text`.
pub fn tokenize(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.split('\n') {
        if is_url_line(line) {
            continue;
        }
        tokenize_line(line, &mut out);
    }
    out
}

fn tokenize_line<'a>(line: &'a str, out: &mut Vec<&'a str>) {
    let bytes = line.as_bytes();
    let mut start: Option<usize> = None;
    let mut iter = line.char_indices();
    while let Some((i, c)) = iter.next() {
        if c == '<' {
            if let Some(m) = marker_at(&bytes[i..]) {
                if let Some(s) = start.take() {
                    out.push(&line[s..i]);
                }
                out.push(m);
                // Skip the two remaining ASCII bytes of the marker.
                iter.next();
                iter.next();
                continue;
            }
        }
        if is_separator(c) {
            if let Some(s) = start.take() {
                out.push(&line[s..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(&line[s..]);
    }
}

/// The "text" view: the tags view without marker tokens.
pub fn text_view<'a>(tags: &[&'a str]) -> Vec<&'a str> {
    tags.iter().copied().filter(|t| !is_marker(t)).collect()
}

/// The marker tokens alone, in order.
pub fn marker_view<'a>(tags: &[&'a str]) -> Vec<&'a str> {
    tags.iter().copied().filter(|t| is_marker(t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_and_bom() {
        assert_eq!(decode(b"\xEF\xBB\xBFcaf\xC3\xA9"), "café");
        assert_eq!(decode(b"plain"), "plain");
        // BOM before windows-1252 bytes: dropped, the rest decoded as windows-1252.
        assert_eq!(decode(b"\xEF\xBB\xBFcaf\xE9"), "café");
    }

    #[test]
    fn windows_1252_fallback() {
        // 0x93/0x94 are curly quotes, 0xE9 is é, 0x81 is undefined -> U+0081.
        assert_eq!(
            decode(b"\x93caf\xE9\x94 \x81"),
            "\u{201C}café\u{201D} \u{81}"
        );
    }

    #[test]
    fn url_lines_removed() {
        let t = "URL: http://x\n  URL foo bar\nkeep URL\n\tURLs\nend";
        assert_eq!(tokenize(t), vec!["keep", "URL", "end"]);
        assert!(!is_url_line("<p> URL: x"));
        assert!(is_url_line("\u{A0}\u{1F}URL"));
    }

    #[test]
    fn controls_become_spaces() {
        assert_eq!(
            tokenize("a\u{0}b\u{1F}c\td\u{7F}e"),
            vec!["a", "b", "c", "d\u{7F}e"]
        );
        assert_eq!(
            tokenize("a\u{A0}b\u{3000}c\u{85}d"),
            vec!["a", "b", "c", "d"]
        );
    }

    #[test]
    fn markers_split_and_lowercased() {
        let t = "<P>Hello world.<h>Next<L> x <q> <p";
        assert_eq!(
            tokenize(t),
            vec!["<p>", "Hello", "world.", "<h>", "Next", "<l>", "x", "<q>", "<p"]
        );
        let tags = tokenize("<p>a<p>b");
        assert_eq!(text_view(&tags), vec!["a", "b"]);
        assert_eq!(marker_view(&tags), vec!["<p>", "<p>"]);
    }

    #[test]
    fn crlf_and_empty() {
        assert!(tokenize("").is_empty());
        assert!(tokenize("URL: x\r\n\r\n").is_empty());
        assert_eq!(tokenize("a\r\nb"), vec!["a", "b"]);
    }
}
