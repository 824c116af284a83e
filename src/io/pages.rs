//! Pages in one stream: where one page ends and the next begins (`cat *.html | ppl-filter`),
//! found by following the markup only as far as the rule needs, with memchr, not by parsing.
//!
//! The rule. A new page begins
//! - at a `<!DOCTYPE` (in any case) once the page has opened an element;
//! - at an `<html` start tag or an `<?xml` declaration once the page has closed `</html>`;
//! - after a NUL or form-feed byte followed by markup (`<`, past whitespace) or the end, which
//!   is dropped; unless it stands inside the page's open `<html>` element (or CleanEval
//!   wrapper), where it is the page's own (a page break of a converted document, junk after the
//!   markup), as it is before anything else (binary data is not cut into pieces).
//!
//! A page of CleanEval, wrapped whole in a `<text id=URL>` element (its first element), ends
//! with that element instead: the next page begins at the next `<text`, `<!DOCTYPE`, `<html`
//! or `<?xml` after it (a doctype inside the wrapper belongs to the page; one cut off before its
//! `</text>` runs on into the next, since SVG's `<text>` elements look the same).
//!
//! Comments, the insides of tags (quoted attribute values) and the raw text of `<script>`,
//! `<style>`, `<textarea>`, `<title>` and `<xmp>` are passed over: a page that quotes another's
//! markup there is not cut. A page with no `</html>` (cut off) ends where the next one declares
//! its doctype; no byte of the stream is lost, and a page holding nothing but whitespace
//! between two separators is left out. A stream that begins with a UTF-16 byte-order mark
//! (whose NUL bytes are text) is one page.
//!
//! Memory: one buffer of the read size, whatever the pages' lengths.

use std::io::{self, Read};

use memchr::{memchr, memchr3, memmem};

/// The elements whose content is raw text, in which markup is not markup.
const RAW_TEXT: [&[u8]; 5] = [b"script", b"style", b"textarea", b"title", b"xmp"];

/// The bytes a `<` needs after it to tell what it opens (`<!doctype`, `<textarea`).
const LOOKAHEAD: usize = 10;

/// Where the scan stands in the markup.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// Text, between tags.
    #[default]
    Text,
    /// Inside a tag, after its name; then the raw text of this element, if it is one.
    Tag(Option<&'static [u8]>),
    /// Inside a quoted attribute value of a tag.
    Quoted(u8, Option<&'static [u8]>),
    /// Inside a comment.
    Comment,
    /// Inside the raw text of an element, until its end tag.
    Raw(&'static [u8]),
}

/// What the scan knows of a page's markup so far.
#[derive(Debug, Default)]
struct Markup {
    state: State,
    /// The page has opened an element.
    opened: bool,
    /// The page has closed `</html>` (or its CleanEval wrapper).
    closed: bool,
    /// The page's first element is `<text>`: it is a page of CleanEval, wrapped in a `<text>`
    /// element; `depth` counts the `<text>` elements open.
    wrapped: bool,
    depth: u32,
    /// An `<html>` element is open.
    html_open: bool,
}

/// A stream cut into pages: [`Pages::next_page`] gives each in turn, as a reader of its bytes.
pub struct Pages<R> {
    inner: R,
    buf: Vec<u8>,
    /// The next byte the page's reader gives.
    start: usize,
    /// The end of the bytes read into `buf`.
    end: usize,
    /// Bytes before this one are scanned: they belong to the page.
    scanned: usize,
    /// Where the page ends, once found, and where the next begins.
    boundary: Option<(usize, usize)>,
    /// What the scan knows of the current page's markup.
    page: Markup,
    /// The stream has ended, or failed (the error is given once, by the page's reader).
    eof: bool,
    error: Option<io::Error>,
    /// The byte before the buffer's first, once the buffer has been compacted.
    before: u8,
    /// The stream is one page (UTF-16).
    whole: bool,
    /// A page has been given.
    begun: bool,
}

impl<R: Read> Pages<R> {
    /// The pages of `inner`, read `read_size` bytes at a time.
    pub fn new(inner: R, read_size: usize) -> Pages<R> {
        Pages {
            inner,
            buf: vec![0; read_size.max(4 * LOOKAHEAD)],
            start: 0,
            end: 0,
            scanned: 0,
            boundary: None,
            page: Markup::default(),
            eof: false,
            error: None,
            before: 0,
            whole: false,
            begun: false,
        }
    }

    /// The next page (the rest of the current one is passed over), or `None` after the last.
    /// The first page is given even when the stream is empty, so that it is told of.
    pub fn next_page(&mut self) -> Option<Page<'_, R>> {
        if self.begun {
            // The rest of the current page is passed over where it lies, not copied out.
            while let Ok(n @ 1..) = self.available() {
                self.start += n;
            }
            let (_, next) = self.boundary.take()?;
            self.start = next;
            if !self.skip_blank() {
                return None;
            }
        } else {
            self.begun = true;
            while self.end < 2 && self.fill() {}
            self.whole = self.buf[..self.end].starts_with(&[0xFF, 0xFE])
                || self.buf[..self.end].starts_with(&[0xFE, 0xFF]);
        }
        self.scanned = self.start;
        self.page = Markup::default();
        Some(Page { pages: self })
    }

    /// Passes over the whitespace and separators before the next page (pages that hold only
    /// whitespace are left out); `false` when no page is left.
    fn skip_blank(&mut self) -> bool {
        loop {
            while self.start < self.end {
                match self.buf[self.start] {
                    0 => self.start += 1,
                    byte if byte.is_ascii_whitespace() => self.start += 1,
                    _ => return true,
                }
            }
            self.compact();
            if !self.fill() {
                // A read error is given by the page's reader, as a page that failed.
                return self.error.is_some();
            }
        }
    }

    /// Moves the bytes not yet given to the front of the buffer.
    fn compact(&mut self) {
        if self.start == 0 {
            return;
        }
        self.before = self.buf[self.start - 1];
        self.buf.copy_within(self.start..self.end, 0);
        let shift = self.start;
        self.end -= shift;
        self.scanned -= shift;
        if let Some((end, next)) = &mut self.boundary {
            *end -= shift;
            *next -= shift;
        }
        self.start = 0;
    }

    /// Reads more bytes after `end`; `false` at the end of the stream (or an error, kept).
    fn fill(&mut self) -> bool {
        if self.eof || self.end == self.buf.len() {
            return false;
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return false;
                }
                Ok(n) => {
                    self.end += n;
                    return true;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.error = Some(e);
                    self.eof = true;
                    return false;
                }
            }
        }
    }

    /// The current page's next bytes into `out`: 0 at its end.
    fn page_read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.available()?.min(out.len());
        out[..n].copy_from_slice(&self.buf[self.start..self.start + n]);
        self.start += n;
        Ok(n)
    }

    /// How many of the current page's bytes from `start` are scanned and in the buffer,
    /// scanning and reading on as needed: 0 at the page's end.
    fn available(&mut self) -> io::Result<usize> {
        loop {
            let limit = self.boundary.map_or(self.scanned, |(end, _)| end);
            if self.start < limit {
                return Ok(limit - self.start);
            }
            if self.boundary.is_some() {
                return Ok(0);
            }
            if self.scan() {
                continue;
            }
            // The scan needs more bytes.
            self.compact();
            if self.fill() {
                continue;
            }
            if let Some(error) = self.error.take() {
                return Err(error);
            }
            // At the end of the stream the scan needs no more bytes, and what it cannot place
            // belongs to the page. (A full buffer cannot stop the scan: it needs fewer bytes.)
            if self.scan() {
                continue;
            }
            if self.scanned < self.end {
                self.scanned = self.end;
                continue;
            }
            return Ok(0);
        }
    }

    /// Scans on from `scanned`: `true` when it moved on or found the page's end, `false` when
    /// it needs more bytes than the buffer holds.
    fn scan(&mut self) -> bool {
        let from = self.scanned;
        if self.whole {
            self.scanned = self.end;
            return self.end > from;
        }
        while self.boundary.is_none() && self.scanned < self.end {
            let before = self.scanned;
            self.step();
            if self.scanned == before && self.boundary.is_none() {
                break;
            }
        }
        self.scanned > from || self.boundary.is_some()
    }

    /// One step of the scan from `scanned`, in the current state; it stays put when it needs
    /// more bytes.
    fn step(&mut self) {
        let at = self.scanned;
        let rest = &self.buf[at..self.end];
        match self.page.state {
            State::Text => match memchr3(b'<', 0, 0x0C, rest) {
                None => self.scanned = self.end,
                Some(i) if rest[i] != b'<' => self.separator(at + i),
                Some(i) => {
                    self.scanned = at + i;
                    // Stays put until the `<` has the bytes after it that tell what it opens.
                    if rest.len() - i >= LOOKAHEAD || self.eof {
                        self.open(at + i);
                    }
                }
            },
            State::Tag(raw) => match memchr3(b'>', b'"', b'\'', rest) {
                None => self.scanned = self.end,
                Some(i) if rest[i] == b'>' => {
                    self.scanned = at + i + 1;
                    self.page.state = raw.map_or(State::Text, State::Raw);
                }
                Some(i) => {
                    let previous = match at + i {
                        0 => self.before,
                        k => self.buf[k - 1],
                    };
                    let value = previous == b'=';
                    if value {
                        self.page.state = State::Quoted(rest[i], raw);
                    }
                    self.scanned = at + i + 1;
                }
            },
            State::Quoted(quote, raw) => match memchr(quote, rest) {
                None => self.scanned = self.end,
                Some(i) => {
                    self.scanned = at + i + 1;
                    self.page.state = State::Tag(raw);
                }
            },
            State::Comment => match memmem::find(rest, b"-->") {
                None => self.scanned = at.max(self.end.saturating_sub(2)),
                Some(i) => {
                    self.scanned = at + i + 3;
                    self.page.state = State::Text;
                }
            },
            State::Raw(name) => {
                let mut from = 0;
                loop {
                    match memmem::find(&rest[from..], b"</") {
                        None => {
                            self.scanned = at + from.max(rest.len().saturating_sub(LOOKAHEAD));
                            return;
                        }
                        Some(i) => {
                            let tag = &rest[from + i + 2..];
                            if tag.len() < name.len() + 1 && !self.eof {
                                self.scanned = at + from + i;
                                return;
                            }
                            if names(tag, name) {
                                self.scanned = at + from + i;
                                self.page.state = State::Text;
                                return;
                            }
                            from += i + 2;
                        }
                    }
                }
            }
        }
    }

    /// The NUL or form feed at `at`: it ends the page when what follows it, past whitespace
    /// and more separators, is a page of markup or the end, outside an element that holds the
    /// page; otherwise (binary data, text, inside `<html>`) it is the page's own. It stays put
    /// when it needs more bytes to tell.
    fn separator(&mut self, at: usize) {
        let next = self.buf[at + 1..self.end]
            .iter()
            .find(|b| !b.is_ascii_whitespace() && **b != 0);
        if next.is_none() && !self.eof {
            self.scanned = at;
            return;
        }
        let separates = next.is_none_or(|&b| b == b'<');
        if self.page.html_open || self.page.depth > 0 || !separates {
            self.scanned = at + 1;
        } else {
            self.boundary = Some((at, at + 1));
            self.scanned = at;
        }
    }

    /// What the `<` at `at` opens: a page's end, a comment, a tag.
    fn open(&mut self, at: usize) {
        let rest = &self.buf[at + 1..self.end];
        if self.page.closed && starts_with_ignoring_case(rest, b"?xml") {
            self.boundary = Some((at, at));
        } else if rest.starts_with(b"!--") {
            self.page.state = State::Comment;
            self.scanned = at + 4;
        } else if starts_with_ignoring_case(rest, b"!doctype") {
            if self.page.opened && (!self.page.wrapped || self.page.closed) {
                self.boundary = Some((at, at));
            } else {
                self.page.state = State::Tag(None);
                self.scanned = at + 1;
            }
        } else if rest.first() == Some(&b'/') && rest.get(1).is_some_and(u8::is_ascii_alphabetic) {
            if names(&rest[1..], b"html") {
                self.page.html_open = false;
                self.page.closed |= !self.page.wrapped;
            } else if self.page.wrapped && names(&rest[1..], b"text") {
                self.page.depth = self.page.depth.saturating_sub(1);
                self.page.closed |= self.page.depth == 0;
            }
            self.page.state = State::Tag(None);
            self.scanned = at + 2;
        } else if rest.first().is_some_and(u8::is_ascii_alphabetic) {
            let text = names(rest, b"text");
            if self.page.closed && (names(rest, b"html") || self.page.wrapped && text) {
                self.boundary = Some((at, at));
                return;
            }
            if !self.page.opened && text {
                self.page.wrapped = true;
            }
            if self.page.wrapped && text {
                self.page.depth += 1;
            }
            self.page.html_open |= names(rest, b"html");
            self.page.opened = true;
            let raw = RAW_TEXT.into_iter().find(|name| names(rest, name));
            self.page.state = State::Tag(raw);
            self.scanned = at + 1;
        } else {
            self.scanned = at + 1;
        }
    }
}

/// Whether `bytes` begin with the tag name `name` (in any case) and the name ends there.
fn names(bytes: &[u8], name: &[u8]) -> bool {
    starts_with_ignoring_case(bytes, name)
        && bytes
            .get(name.len())
            .is_none_or(|&b| b.is_ascii_whitespace() || b == b'>' || b == b'/')
}

/// Whether `bytes` begin with `prefix`, ignoring ASCII case.
fn starts_with_ignoring_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// One page of a stream: its bytes, then the end.
pub struct Page<'a, R> {
    pages: &'a mut Pages<R>,
}

impl<R: Read> Read for Page<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        self.pages.page_read(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pages of `stream`, read `read_size` bytes at a time and `chunk` bytes a read.
    fn pages(stream: &[u8], read_size: usize, chunk: usize) -> Vec<String> {
        let mut pages = Pages::new(Chunked(stream, chunk), read_size);
        let mut all = Vec::new();
        while let Some(mut page) = pages.next_page() {
            let mut bytes = Vec::new();
            let mut part = vec![0; chunk];
            loop {
                let n = page.read(&mut part).unwrap();
                if n == 0 {
                    break;
                }
                bytes.extend_from_slice(&part[..n]);
            }
            all.push(String::from_utf8(bytes).unwrap());
        }
        all
    }

    /// A reader that gives at most `.1` bytes a read.
    struct Chunked<'a>(&'a [u8], usize);

    impl Read for Chunked<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = out.len().min(self.1).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn split(stream: &str) -> Vec<String> {
        let whole = pages(stream.as_bytes(), 4096, 4096);
        // The same pages whatever the buffer and the reads' sizes.
        for (read_size, chunk) in [(40, 1), (40, 7), (64, 3), (100, 100)] {
            assert_eq!(
                pages(stream.as_bytes(), read_size, chunk),
                whole,
                "{read_size} {chunk}"
            );
        }
        whole
    }

    #[test]
    fn a_page_begins_at_a_doctype_or_at_html_after_the_last_html_closed() {
        let a = "<!DOCTYPE html><html><body><p>One.</p></body></html>\n";
        let b = "<!doctype html>\n<html><p>Two.</p></html>";
        let c = "<HTML lang=en><p>Three.</p></HTML>\n";
        assert_eq!(split(&format!("{a}{b}{c}")), [a, b, c]);
        // A page cut off before its end still ends where the next declares its doctype.
        let cut = "<html><body><p>Cut off in the mid";
        assert_eq!(split(&format!("{cut}{b}")), [cut, b]);
        // Without a doctype or a closed </html>, there is no end to find: one page.
        let bare = "<p>One.</p><p>Two.</p>";
        assert_eq!(split(&format!("{bare}{bare}")), [format!("{bare}{bare}")]);
        // A doctype after an XML declaration opens the same page.
        let xhtml = "<?xml version='1.0'?><!DOCTYPE html><!-- made --><html><p>X.</p></html>";
        assert_eq!(split(&format!("{xhtml}{xhtml}")), [xhtml, xhtml]);
    }

    #[test]
    fn a_cleaneval_page_ends_with_its_wrapper() {
        let a = "<text id=\"http://a/\" title=\"A\">\n<!DOCTYPE html><html><p>A.</p>\
                 <svg><text>1</text><text>2</text></svg></html></text>\n";
        let b = "<text id=\"http://b/\">\n<HTML><p>B.</HTML></text>";
        let c = "<text id=\"http://c/\"><p>C.</p></text>";
        assert_eq!(split(&format!("{a}{b}{c}")), [a, b, c]);
    }

    #[test]
    fn markup_quoted_in_scripts_comments_and_attributes_does_not_cut() {
        let page = "<!DOCTYPE html><html><head><script>w.document.write('<!DOCTYPE html><html>');\
                    if (a </scripts) {}</script><style>p::after{content:'</html><html>'}</style>\
                    </head><body><!-- <!DOCTYPE html> --><iframe srcdoc=\"<!DOCTYPE html><p>in</p>\">\
                    </iframe><textarea></html><html></textarea><p title='a > b'>Text.</p></body></html>";
        assert_eq!(
            split(&format!("{page}\n{page}")),
            [format!("{page}\n"), page.to_string()]
        );
    }

    #[test]
    fn nul_and_form_feed_separate_pages_and_blank_pages_are_left_out() {
        let stream = "<p>One.</p>\0<p>Two.</p>\x0c\n\0  \0<p>Three.</p>\0";
        assert_eq!(
            split(stream),
            ["<p>One.</p>", "<p>Two.</p>", "<p>Three.</p>"]
        );
        assert_eq!(split(""), [""], "an empty stream is one empty page");
        assert_eq!(split("\0\0"), [""]);
        // Inside the page's <html> (or CleanEval wrapper) they are the page's.
        let broken = "<html><p>Page\x0cbreak.</p>\0\0</html>";
        let wrapped = "<text id=\"u\"><html><p>W.</p></html>\0\0</text>";
        assert_eq!(split(&format!("{broken}\0{wrapped}")), [broken, wrapped]);
        // Before anything but markup, they are the page's: binary data stays whole.
        let binary = "\x01\x02\0\x7f\0abc\x0cdef\0";
        assert_eq!(split(binary), ["\x01\x02\0\x7f\0abc\x0cdef"]);
    }

    #[test]
    fn a_utf16_stream_is_one_page() {
        let stream: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(
                "<p>a</p>\0<!DOCTYPE html>"
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes),
            )
            .collect();
        let mut pages = Pages::new(&stream[..], 64);
        let mut bytes = Vec::new();
        pages.next_page().unwrap().read_to_end(&mut bytes).unwrap();
        assert_eq!(bytes, stream);
        assert!(pages.next_page().is_none());
    }

    #[test]
    fn a_page_left_half_read_is_passed_over() {
        let stream = "<!DOCTYPE html><p>One, a long page.</p><!DOCTYPE html><p>Two.</p>";
        let mut pages = Pages::new(stream.as_bytes(), 64);
        let mut first = [0; 5];
        pages.next_page().unwrap().read_exact(&mut first).unwrap();
        let mut second = String::new();
        pages
            .next_page()
            .unwrap()
            .read_to_string(&mut second)
            .unwrap();
        assert_eq!(second, "<!DOCTYPE html><p>Two.</p>");
        assert!(pages.next_page().is_none());
    }

    #[test]
    fn a_read_error_ends_the_page_and_the_stream() {
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::other("disk on fire"));
                }
                self.0 -= 1;
                out[..4].copy_from_slice(b"<p>a");
                Ok(4)
            }
        }
        let mut pages = Pages::new(Failing(3), 64);
        let mut bytes = Vec::new();
        let error = pages
            .next_page()
            .unwrap()
            .read_to_end(&mut bytes)
            .unwrap_err();
        assert_eq!(error.to_string(), "disk on fire");
        assert!(pages.next_page().is_none());
    }
}
