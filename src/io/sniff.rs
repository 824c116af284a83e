//! What an input holds, told from its first bytes rather than its name: a WARC file starts
//! with `WARC/1.`, a JSON Lines file with a JSON object; anything else is a page (HTML or
//! text). Gzip is looked through. Standard input can be read only once, so its first bytes are
//! kept and handed back when it is opened for cleaning ([`crate::io::Input::open`]).

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::io::{maybe_gunzip, Input};

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

/// How many (compressed) bytes are read to tell.
const HEAD_BYTES: usize = 4096;

/// The first bytes of standard input, read to sniff it and not yet handed back.
static STDIN_HEAD: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// Whether every line of standard input's first bytes names an existing file (`ls | ppl-filter`).
static STDIN_LISTS_FILES: AtomicBool = AtomicBool::new(false);

/// Whether [`sniff`] found that standard input lists existing files, one per line, as
/// `--files-from -` expects, rather than holding a page.
pub fn stdin_lists_files() -> bool {
    STDIN_LISTS_FILES.load(Ordering::Relaxed)
}

/// The bytes [`sniff`] read from standard input, which its reader must return first.
pub(crate) fn take_stdin_head() -> Vec<u8> {
    std::mem::take(&mut *STDIN_HEAD.lock().unwrap_or_else(|e| e.into_inner()))
}

/// What `input` holds, from its first bytes (gzip looked through). An input that cannot be
/// opened is [`Content::Other`]: the error is reported when it is opened for cleaning.
pub fn sniff(input: &Input) -> Content {
    let mut head = Vec::with_capacity(HEAD_BYTES);
    match input {
        Input::Stdin => {
            let mut stash = STDIN_HEAD.lock().unwrap_or_else(|e| e.into_inner());
            // Read once; a second sniff of standard input looks at the same bytes.
            if stash.is_empty() {
                let _ = read_head(io::stdin().lock(), &mut stash);
                STDIN_LISTS_FILES.store(lists_files(&stash), Ordering::Relaxed);
            }
            head.extend_from_slice(&stash);
        }
        Input::File(path) => match std::fs::File::open(path) {
            Ok(file) => {
                let _ = read_head(file, &mut head);
            }
            Err(_) => return Content::Other,
        },
        Input::Memory { bytes, .. } => {
            head.extend_from_slice(&bytes[..bytes.len().min(HEAD_BYTES)])
        }
    }
    content(&unzipped_head(head))
}

/// What `input` holds by [`sniff`], or by its name (`*.warc[.gz]`, `*.jsonl[.gz]`) when its
/// first bytes do not tell (an empty or damaged file).
pub fn sniff_or_name(input: &Input) -> Content {
    match sniff(input) {
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

/// Up to [`HEAD_BYTES`] of `reader`, whatever the size of the reads that bring them.
fn read_head(reader: impl Read, head: &mut Vec<u8>) -> io::Result<usize> {
    reader.take(HEAD_BYTES as u64).read_to_end(head)
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
