//! Pages in one stream: where one page ends and the next begins (`cat *.html | ppl-filter`).
//!
//! The stream is read once, as an HTML tokenizer reads it (`scan.rs` says how, and where a page
//! can begin): every byte is looked at a bounded number of times, whatever the input. A page
//! that holds another document pasted in (a post's HTML, an inline SVG's doctype, a script
//! before the doctype) stays one page; a page cut off before its end (inside a comment, a
//! quoted value, a script) ends where the next page plainly begins, and [`Pages::cut`] says
//! where it was cut off. No byte of the stream is lost, the separators (NUL and form-feed
//! runs) aside, and a page that holds nothing but white space between two separators is left
//! out.
//!
//! Memory: one buffer of the read size, and while the scan tells whether a document inside a
//! page is another page, the bytes it holds back, at most `max_held` (past that, it is taken
//! for the next page).

mod scan;

use std::io::{self, Read};

pub use scan::Cut;
use scan::{Scanner, Window, LOOKAHEAD};

/// A stream cut into pages: [`Pages::next_page`] gives each in turn, as a reader of its bytes.
pub struct Pages<R> {
    inner: R,
    /// The stream's bytes from offset `base`, `len` of them read.
    buf: Vec<u8>,
    base: u64,
    len: usize,
    read_size: usize,
    max_held: u64,
    /// The next byte the page's reader gives.
    start: u64,
    scanner: Scanner,
    /// The stream has ended, or failed (the error is given once, by the page's reader).
    eof: bool,
    error: Option<io::Error>,
    /// A page has been given.
    begun: bool,
}

impl<R: Read> Pages<R> {
    /// The pages of `inner`, read `read_size` bytes at a time, holding back at most
    /// `max_held` bytes while telling whether a document is a page of its own.
    pub fn new(inner: R, read_size: usize, max_held: usize) -> Pages<R> {
        let read_size = read_size.max(4 * LOOKAHEAD);
        Pages {
            inner,
            buf: vec![0; read_size],
            base: 0,
            len: 0,
            read_size,
            max_held: max_held as u64,
            start: 0,
            scanner: Scanner::new(),
            eof: false,
            error: None,
            begun: false,
        }
    }

    /// The next page (the rest of the current one is passed over), or `None` after the last.
    /// The first page is given even when the stream is empty, so that it is told of.
    pub fn next_page(&mut self) -> Option<Page<'_, R>> {
        if self.begun {
            self.pass_over_page();
            let end = self.scanner.ends.pop_front()?;
            self.start = end.next;
            // A page holding nothing (separators at the end of the stream) is left out; a
            // read error is given by the page's reader, as a page that failed.
            if self.scanner.ends.is_empty() && self.error.is_none() && self.at_the_end() {
                return None;
            }
        }
        self.begun = true;
        Some(Page { pages: self })
    }

    /// How the page just given was cut off before its end, if the next page began there (the
    /// rest of the page is passed over to find its end).
    pub fn cut(&mut self) -> Option<Cut> {
        self.pass_over_page();
        self.scanner.ends.front().and_then(|end| end.cut)
    }

    /// Passes over the rest of the current page where it lies, not copied out.
    fn pass_over_page(&mut self) {
        while let Ok(n @ 1..) = self.available() {
            self.start += n as u64;
        }
    }

    /// Whether the stream holds no byte from `start` on.
    fn at_the_end(&mut self) -> bool {
        while self.start >= self.end() && !self.eof {
            self.make_room();
            self.fill();
        }
        self.start >= self.end() && self.eof
    }

    /// The offset after the last byte read.
    fn end(&self) -> u64 {
        self.base + self.len as u64
    }

    /// Makes room for more bytes when the buffer is full: drops the bytes already given, or
    /// grows it (only while the scan holds bytes back, so by at most `max_held`).
    fn make_room(&mut self) {
        if self.len < self.buf.len() {
            return;
        }
        let given = (self.start - self.base) as usize;
        if given > 0 {
            self.buf.copy_within(given..self.len, 0);
            self.len -= given;
            self.base = self.start;
        } else {
            self.buf.resize(self.len + self.len.max(self.read_size), 0);
        }
    }

    /// Reads more bytes after `end`; `false` at the end of the stream (or an error, kept).
    fn fill(&mut self) -> bool {
        if self.eof {
            return false;
        }
        loop {
            match self.inner.read(&mut self.buf[self.len..]) {
                Ok(0) => {
                    self.eof = true;
                    return false;
                }
                Ok(n) => {
                    self.len += n;
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
        let from = (self.start - self.base) as usize;
        out[..n].copy_from_slice(&self.buf[from..from + n]);
        self.start += n as u64;
        Ok(n)
    }

    /// How many of the current page's bytes from `start` are scanned and in the buffer,
    /// scanning and reading on as needed: 0 at the page's end.
    fn available(&mut self) -> io::Result<usize> {
        loop {
            let limit = match self.scanner.ends.front() {
                Some(end) => end.end,
                None => self.scanner.released(),
            };
            if self.start < limit {
                return Ok((limit - self.start) as usize);
            }
            if !self.scanner.ends.is_empty() {
                return Ok(0);
            }
            let window = Window {
                buf: &self.buf[..self.len],
                base: self.base,
                eof: self.eof,
            };
            if self.scanner.scan(window) {
                continue;
            }
            if self.scanner.held() > self.max_held {
                self.scanner.stop_holding();
                continue;
            }
            if self.eof {
                return match self.error.take() {
                    Some(error) => Err(error),
                    None => Ok(0),
                };
            }
            // The scan needs more bytes.
            self.make_room();
            self.fill();
        }
    }
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

    /// The pages of `stream` and how each was cut off, read `read_size` bytes at a time and
    /// `chunk` bytes a read.
    fn read_pages(stream: &[u8], read_size: usize, chunk: usize) -> Vec<(Vec<u8>, Option<Cut>)> {
        let mut pages = Pages::new(Chunked(stream, chunk), read_size, 1 << 20);
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
            all.push((bytes, pages.cut()));
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

    /// The pages of `stream` and their cuts, the same whatever the buffer and the reads' sizes.
    fn split_bytes(stream: &[u8]) -> Vec<(Vec<u8>, Option<Cut>)> {
        let whole = read_pages(stream, 4096, 4096);
        for (read_size, chunk) in [(40, 1), (40, 7), (64, 3), (100, 100)] {
            assert_eq!(
                read_pages(stream, read_size, chunk),
                whole,
                "{read_size} {chunk}"
            );
        }
        whole
    }

    /// The pages of `stream` (UTF-8) and how each was cut off.
    fn split_with_cuts(stream: &[u8]) -> Vec<(String, Option<Cut>)> {
        split_bytes(stream)
            .into_iter()
            .map(|(bytes, cut)| (String::from_utf8(bytes).unwrap(), cut))
            .collect()
    }

    /// The pages of `stream`.
    fn split(stream: &str) -> Vec<String> {
        split_with_cuts(stream.as_bytes())
            .into_iter()
            .map(|(page, _)| page)
            .collect()
    }

    #[test]
    fn a_page_begins_at_a_doctype_or_at_html_after_the_last_html_closed() {
        let a = "<!DOCTYPE html><html><body><p>One.</p></body></html>\n";
        let b = "<!doctype html>\n<html><p>Two.</p></html>";
        let c = "<HTML lang=en><p>Three.</p></HTML>\n";
        assert_eq!(split(&format!("{a}{b}{c}")), [a, b, c]);
        // Without a doctype or a closed </html>, there is no end to find: one page.
        let bare = "<p>One.</p><p>Two.</p>";
        assert_eq!(split(&format!("{bare}{bare}")), [format!("{bare}{bare}")]);
        // A doctype after an XML declaration opens the same page.
        let xhtml = "<?xml version='1.0'?><!DOCTYPE html><!-- made --><html><p>X.</p></html>";
        assert_eq!(split(&format!("{xhtml}{xhtml}")), [xhtml, xhtml]);
        // After </body>, only the </html> is left of a page.
        let body = "<!DOCTYPE html><html><body><p>B.</p></body>\n";
        assert_eq!(split(&format!("{body}{a}")), [body, a]);
    }

    #[test]
    fn a_page_cut_off_ends_where_the_next_plainly_begins_and_says_where_it_was_cut() {
        let next = "<!DOCTYPE html>\n<html><head><title>N</title></head><body><p>Next.</p></body></html>\n";
        let after = "<!DOCTYPE html><html><body><p>After.</p></body></html>";
        for (cut, inside) in [
            ("<html><body><p>Cut off in the mid", Cut::Open),
            ("<!DOCTYPE html><body><p>No html tag, cut", Cut::Open),
            ("<html><body><p>x</p><!-- a comment cut", Cut::Comment),
            ("<html><body><p>x</p><p title=\"a value cut", Cut::Quoted),
            ("<html><body><p>x</p><p class=x", Cut::Tag),
            ("<html><head><script>if (a < b) { w('", Cut::Raw("script")),
            ("<html><head><style>p { color:", Cut::Raw("style")),
            ("<html><body><textarea>text", Cut::Raw("textarea")),
        ] {
            assert_eq!(
                split_with_cuts(format!("{cut}{next}{after}").as_bytes()),
                [
                    (cut.to_string(), Some(inside)),
                    (next.to_string(), None),
                    (after.to_string(), None)
                ],
                "{cut}"
            );
        }
        // `<!-->` and `--!>` end comments.
        let empty = "<html><body><!--><p>x</p><!-- y --!></body></html>";
        assert_eq!(split(&format!("{empty}{next}")), [empty, next]);
    }

    #[test]
    fn pages_after_a_cut_are_pages_though_cut_off_too_or_messy() {
        let cut = "<!DOCTYPE html><html><body><p>Cut off in the mid";
        let also = "<!DOCTYPE html><html><body><p>x</p><p title=\"cut too";
        let whole = "<!DOCTYPE html><html><body><p>Whole.</p></body></html>\n";
        let open = "<!DOCTYPE html><html><body><p>Never closed.</p>";
        // Pages cut off one after another, then whole ones, the last left open.
        assert_eq!(
            split_with_cuts(format!("{cut}{also}{whole}{whole}{open}").as_bytes()),
            [
                (cut.to_string(), Some(Cut::Open)),
                (also.to_string(), Some(Cut::Quoted)),
                (whole.to_string(), None),
                (whole.to_string(), None),
                (open.to_string(), None)
            ]
        );
        // After a cut, a page with markup after its </body>, stray end tags after its
        // </html>, a <body> among its content, a <head> in its body or no <html> tag is a
        // page still.
        for messy in [
            "<!DOCTYPE html><html><body><p>a</p></body><iframe></iframe></html>\n",
            "<!DOCTYPE html><html><body><p>a</p></body></html></section></div></main>\n",
            "<!DOCTYPE html><html><body><p>a</p><p><body></p></body></html>\n",
            "<!DOCTYPE html><html><body><div></div><head></head><p>a</p></body></html>\n",
            "<!DOCTYPE html><head></head><body><p>No html tag.</p></body></html>\n",
        ] {
            assert_eq!(
                split(&format!("{cut}{messy}{whole}")),
                [cut, messy, whole],
                "{messy}"
            );
        }
        // A page cut off in a script ends at an `<html>` tag too, while a page quoted in a
        // script (it meets the script's end tag) is the script's.
        let script = "<!DOCTYPE html><html><body><p>x</p><script>var a = '";
        let bare = "<html lang=en><body><p>Bare.</p></body></html>";
        assert_eq!(
            split_with_cuts(format!("{script}{bare}").as_bytes()),
            [
                (script.to_string(), Some(Cut::Raw("script"))),
                (bare.to_string(), None)
            ]
        );
        let quoted = format!("{script}{bare}';</script><p>y</p></body></html>");
        assert_eq!(split(&quoted), [quoted.as_str()]);
    }

    #[test]
    fn plain_text_long_enough_to_be_read_as_text_ends_where_a_page_begins() {
        let page = "<!DOCTYPE html><html><body><p>A page.</p></body></html>\n";
        let bare = "<html><body><p>A bare page.</p></body></html>";
        let long = "A line of plain text, no markup in it.\n".repeat(120);
        assert_eq!(
            split(&format!("{long}{page}{bare}")),
            [long.as_str(), page, bare]
        );
        assert_eq!(split(&format!("{long}{bare}")), [long.as_str(), bare]);
        // Shorter, the text is read with the page as HTML (its markup is in the head told).
        let short = &long[..200];
        assert_eq!(split(&format!("{short}{page}")), [format!("{short}{page}")]);
        // Text after markup, however long, is the page's.
        let marked = format!("<b>Bold.</b>{long}{bare}");
        assert_eq!(split(&marked), [marked.as_str()]);
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
    fn documents_pasted_into_a_page_are_the_page_s() {
        let pages = [
            // An inline SVG's doctype (the everyday issue's page).
            "<p>An empty svg <svg><!DOCTYPE svg><rect/></svg> follows here.</p><p>And a second.</p>",
            "<!DOCTYPE html><html><body><p>Icon <?xml version=\"1.0\"?><!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\"><svg></svg></p></body></html>",
            // A script or a charset before the doctype.
            "<!DOCTYPE html><script>var a = 1;</script><!DOCTYPE html><html><body><p>T.</p></body></html>",
            "<meta charset=\"windows-1252\"><!DOCTYPE html><html><body><p>M.</p></body></html>",
            // One <html> a version of Internet Explorer.
            "<!DOCTYPE html><!--[if IE 7]><html class=ie7><![endif]--><!--[if gt IE 8]><!--><html class=x><!--<![endif]--><html lang=en><head></head><body><p>IE.</p></body></html>",
            // A whole document in a post, and one right after the body opens.
            "<!DOCTYPE html><html><body><div class=post><!DOCTYPE html><html><body><p>Pasted.</p></body></html></div><p>After.</p></body></html>",
            "<!DOCTYPE html><html><head></head><body> <!DOCTYPE html><html><body><p>All.</p></body></html>",
            // Documents pasted one after another, then more of the page.
            "<!DOCTYPE html><html><body><div><!DOCTYPE html><html><p>1</p></html>\n<!DOCTYPE html><html><p>2</p></html>\n<!DOCTYPE html><html><p>3</p></html></div></body></html>",
            // A document left open in the head, and the page's own head and body after it.
            "<!DOCTYPE html><html><head><style>p{}</style><!DOCTYPE html><html><head></head><body><p>x</p></head><body><p>Page.</p></body></html>",
            // `<html>` tags in paragraphs.
            "<html><body><p><html><b>One</b></html></p><p><html><b>Two</b></html></p></body></html>",
            // A page closed, a script, then a document pasted after it, then a stray </html>.
            "<html><body><p>A.</p></body></html><script>x()</script><!DOCTYPE html><html><body><p>B.</p></body></html></html>",
        ];
        for page in pages {
            assert_eq!(split(page), [page], "{page}");
            if page.ends_with("</html>") {
                assert_eq!(split(&format!("{page}{page}")), [page, page], "{page}");
            }
        }
    }

    #[test]
    fn markup_quoted_in_scripts_comments_and_attributes_does_not_cut() {
        let page = "<!DOCTYPE html><html><head><script>w.document.write('<!DOCTYPE html><html>');\
                    if (a </scripts) {}</script><style>p::after{content:'</html><html>'}</style>\
                    </head><body><!-- <!DOCTYPE html> --><iframe srcdoc=\"<!DOCTYPE html><p>in</p>\">\
                    </iframe><textarea></html><html></textarea><p title = 'a > b'>Text.</p>\
                    <svg><![CDATA[ </html> ]]></svg><noscript></html></noscript></body></html>";
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
        // Long runs are passed over once (a run rescanned for each of its bytes took minutes).
        let runs = format!(
            "<html><body>{}</body></html>",
            "\x0c".repeat(60_000).repeat(20)
        );
        assert_eq!(split(&runs), [runs.as_str()]);
        let runs = format!("<p>a</p>{}<p>b</p>", "\0".repeat(200_000));
        assert_eq!(split(&runs), ["<p>a</p>", "<p>b</p>"]);
    }

    #[test]
    fn a_utf16_page_after_an_8_bit_page_is_a_page_and_the_next_too() {
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(
                "<html><p>Sixteen \0 <!DOCTYPE html></p></html>\n"
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes),
            )
            .collect();
        let a = b"<!DOCTYPE html><html><p>A.</p>".to_vec();
        let b = b"<!DOCTYPE html><html><p>B.</p></html>".to_vec();
        let stream = [a.clone(), utf16.clone(), b.clone()].concat();
        let pages: Vec<Vec<u8>> = split_bytes(&stream)
            .into_iter()
            .map(|(page, _)| page)
            .collect();
        assert_eq!(pages, [a, utf16, b]);
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
        assert_eq!(split_bytes(&stream), [(stream, None)]);
    }

    #[test]
    fn a_page_left_half_read_is_passed_over() {
        let stream = "<!DOCTYPE html><p>One, a long page.</p><!DOCTYPE html><p>Two.</p>";
        let mut pages = Pages::new(stream.as_bytes(), 64, 1 << 20);
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
        let mut pages = Pages::new(Failing(3), 64, 1 << 20);
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
