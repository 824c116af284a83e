//! What an input holds, told from its first bytes rather than its name: a WARC file starts
//! with `WARC/1.`, a JSON Lines file with a JSON object; anything else is a page, read as HTML,
//! or as plain text when the start of its text holds no markup ([`has_markup`]). Gzip is looked
//! through. Standard input and pipes can be read only once, so their first
//! bytes are kept by the input and handed back when it is opened for cleaning
//! ([`crate::source::Input::head`]).

use std::io::{self, Read};

use crate::source::{maybe_gunzip, Input, InputFormat};

/// How many bytes of a page's decoded text [`has_markup`] looks at.
pub const MARKUP_HEAD_BYTES: usize = 4096;

/// Whether the start of a page's decoded text (`head`, its first [`MARKUP_HEAD_BYTES`] or all
/// of it) holds markup: a `<` that begins a tag (`<p`, `</`), a comment or doctype (`<!`) or a
/// processing instruction (`<?`), or ends the head. A page with none is plain text: read as
/// HTML, its blank lines would separate nothing and its entities be decoded.
pub fn has_markup(head: &[u8]) -> bool {
    memchr::memchr_iter(b'<', head).any(|at| match head.get(at + 1) {
        Some(&next) => next.is_ascii_alphabetic() || matches!(next, b'/' | b'!' | b'?'),
        None => true,
    })
}

/// What the first bytes of an input show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// A WARC record header.
    Warc,
    /// A JSON object on the first line.
    Jsonl,
    /// Neither: a page, some text, binary data or nothing at all.
    Other,
}

/// Inputs of two kinds in one run, which writes one kind.
#[derive(Debug, thiserror::Error)]
#[error("{first} but {second}: clean each kind in its own run, choose files with --glob, or say what they all hold with --input")]
pub struct MixedInputs {
    /// The first input and its kind (`a.warc holds WARC`).
    pub first: String,
    /// The first input of another kind, and its kind.
    pub second: String,
}

/// How many (compressed) bytes are read to tell.
const HEAD_BYTES: usize = 4096;

/// Whether standard input's first bytes list existing files, one per line, as
/// `--files-from -` expects, rather than hold a page (`ls | ppl-filter`). Only standard
/// input is looked at (its head is kept for cleaning, see [`Input::head`]).
pub fn stdin_lists_files(input: &Input) -> bool {
    input.is_stdin() && input.head(HEAD_BYTES).is_ok_and(|head| lists_files(&head))
}

/// What the inputs hold, told from each one's first bytes, else from its name
/// ([`content_or_name`]): WARC, JSON lines, or else pages (HTML). A file found while walking
/// that is not text is skipped when cleaned ([`found_binary`]) and tells nothing.
pub fn kind_of_inputs<'a>(
    inputs: impl IntoIterator<Item = &'a Input>,
) -> Result<InputFormat, MixedInputs> {
    let mut first: Option<(&Input, InputFormat)> = None;
    for input in inputs {
        let head = head(input);
        let kind = match content_or_name(input, &head) {
            Content::Warc => InputFormat::Warc,
            Content::Jsonl => InputFormat::Jsonl,
            Content::Other if found_binary(input, &head) => continue,
            Content::Other => InputFormat::Html,
        };
        match first {
            None => first = Some((input, kind)),
            Some((other, first_kind)) if first_kind != kind => {
                let name = |kind: InputFormat| format!("{kind:?}").to_uppercase();
                return Err(MixedInputs {
                    first: format!("{other} holds {}", name(first_kind)),
                    second: format!("{input} holds {}", name(kind)),
                });
            }
            Some(_) => {}
        }
    }
    Ok(first.map_or(InputFormat::Html, |(_, kind)| kind))
}

/// Whether `input`, whose first bytes are `head`, is a file found while walking a directory
/// that holds neither text nor records: it is skipped quietly, as a directory's other files.
pub fn found_binary(input: &Input, head: &[u8]) -> bool {
    matches!(input, Input::Found(_))
        && content(head) == Content::Other
        && crate::decode::is_binary(head)
}

/// What `input` holds, from its first bytes (gzip looked through). An input that cannot be
/// opened is [`Content::Other`]: the error is reported when it is opened for cleaning.
pub fn sniff(input: &Input) -> Content {
    content(&head(input))
}

/// The first bytes of `input` (up to 4 KiB read, gzip looked through), empty when it cannot
/// be opened.
pub fn head(input: &Input) -> Vec<u8> {
    input
        .head(HEAD_BYTES)
        .map(unzipped_head)
        .unwrap_or_default()
}

/// What `input` holds by [`sniff`], or by its name (`*.warc[.gz]`, `*.jsonl[.gz]`) when its
/// first bytes do not tell (an empty or damaged file).
pub fn sniff_or_name(input: &Input) -> Content {
    content_or_name(input, &head(input))
}

/// What `input`, whose first bytes are `head` ([`head`]), holds by [`content`], or by its
/// name when they do not tell.
pub fn content_or_name(input: &Input, head: &[u8]) -> Content {
    match content(head) {
        Content::Other => {
            let name = input.to_string();
            let named = |suffixes: [&str; 2]| suffixes.iter().any(|s| name.ends_with(s));
            if named([".warc", ".warc.gz"]) {
                Content::Warc
            } else if named([".jsonl", ".jsonl.gz"]) {
                Content::Jsonl
            } else {
                Content::Other
            }
        }
        content => content,
    }
}

/// `head` decompressed as far as it goes when it is gzip, else as it is.
fn unzipped_head(head: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::new();
    if let Ok(reader) = maybe_gunzip(Box::new(io::Cursor::new(head))) {
        // A cut member ends in an error after what could be inflated: that part is enough.
        let _ = reader.take(HEAD_BYTES as u64).read_to_end(&mut out);
    }
    out
}

/// Whether `head` is a short list of existing paths, one per line.
fn lists_files(head: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(head) else {
        return false;
    };
    // A head cut at HEAD_BYTES ends inside a line: judge the whole lines only.
    let whole = match text.len() < HEAD_BYTES {
        true => text,
        false => text.rsplit_once('\n').map_or("", |(lines, _)| lines),
    };
    let mut lines = whole
        .lines()
        .filter(|line| !line.trim().is_empty())
        .peekable();
    lines.peek().is_some() && lines.all(|line| std::path::Path::new(line).exists())
}

/// What a (decompressed) head shows.
pub fn content(head: &[u8]) -> Content {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if head.starts_with(b"WARC/") {
        return Content::Warc;
    }
    let mut rest = head.iter().skip_while(|b| b.is_ascii_whitespace());
    if rest.next() != Some(&b'{') {
        return Content::Other;
    }
    // `{"` or `{}`: JSON, which no page starts with. When the first line is whole within the
    // head it must also parse as an object.
    if !matches!(rest.find(|b| !b.is_ascii_whitespace()), Some(b'"' | b'}')) {
        return Content::Other;
    }
    match memchr::memchr(b'\n', head) {
        Some(end) => match serde_json::from_slice::<serde_json::Value>(&head[..end]) {
            Ok(value) if value.is_object() => Content::Jsonl,
            _ => Content::Other,
        },
        None => Content::Jsonl,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn heads_are_told_apart() {
        assert_eq!(
            content(b"WARC/1.0\r\nWARC-Type: warcinfo\r\n"),
            Content::Warc
        );
        assert_eq!(content(b"\xEF\xBB\xBFWARC/1.1\r\n"), Content::Warc);
        assert_eq!(content(b"{\"html\": \"<p>x</p>\"}\n{}"), Content::Jsonl);
        assert_eq!(
            content(b"  {\"url\": \"http://e.com/\", \"html\": \"<p>"),
            Content::Jsonl
        );
        assert_eq!(content(b"{}\n"), Content::Jsonl);
        for other in [
            &b"<!DOCTYPE html><p>WARC/1.0</p>"[..],
            b"{{ template }}\n<p>x</p>",
            b"{\"broken\": \n",
            b"[1, 2]\n",
            b"",
            b"\x00\x01binary",
        ] {
            assert_eq!(content(other), Content::Other, "{other:?}");
        }
    }

    #[test]
    fn markup_is_a_tag_an_end_tag_a_comment_or_a_doctype() {
        for html in [
            &b"<!DOCTYPE html>"[..],
            b"Some text, then <p>a paragraph",
            b"</div> left over",
            b"<!-- a comment -->",
            b"<?xml version=\"1.0\"?>",
            b"cut at a <",
        ] {
            assert!(has_markup(html), "{}", String::from_utf8_lossy(html));
        }
        for text in [
            &b""[..],
            b"Plain words.\n\nA second paragraph.",
            b"if a < b and b > c then a < c",
            b"x <= 3, <3, <- arrows, << shifts, <=> and 1<2",
            b"Fish &amp; chips",
        ] {
            assert!(!has_markup(text), "{}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn lists_of_existing_files_are_recognised() {
        let this = file!();
        assert!(lists_files(format!("{this}\n\n{this}\n").as_bytes()));
        assert!(!lists_files(format!("{this}\nno/such/file\n").as_bytes()));
        assert!(!lists_files(b"<p>text</p>\n"));
        assert!(!lists_files(b""));
    }

    #[test]
    fn files_are_sniffed_through_gzip() {
        let dir = std::env::temp_dir().join(format!("ppl-sniff-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder
            .write_all(b"WARC/1.0\r\nWARC-Type: response\r\n")
            .unwrap();
        let gz = dir.join("crawl.bin");
        std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
        assert_eq!(sniff(&Input::File(gz)), Content::Warc);
        let named_wrongly = dir.join("pages.html");
        std::fs::write(&named_wrongly, b"{\"html\": \"<p>x</p>\"}\n").unwrap();
        assert_eq!(sniff(&Input::File(named_wrongly)), Content::Jsonl);
        assert_eq!(sniff(&Input::File(dir.join("missing"))), Content::Other);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
