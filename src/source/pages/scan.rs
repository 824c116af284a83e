//! The splitter's scanner: a stream of pages read as an HTML tokenizer reads it, each byte
//! looked at a bounded number of times, saying where each page ends ([`End`]).
//!
//! It follows what the tokenizer follows (comments, bogus comments, doctypes, tags and their
//! attribute values, quoted or not and spaced or not, the raw text and RCDATA elements,
//! `<plaintext>`, CDATA sections in SVG and MathML) and, of the page's tree, only what tells
//! where a page can begin: whether the page has begun its document (an element that is not a
//! head's: a doctype after text or a head's `<script>` or `<meta>` is the same page's), its
//! body's content, how many `<html>` elements are open, the CleanEval wrapper, SVG and MathML.
//!
//! Where a page can begin:
//! - once the page has closed its `<body>` or `<html>` (nothing but white space, comments and
//!   the `</html>` after it):
//!   at a doctype, an `<html>` tag, an `<?xml` declaration, a byte-order mark;
//! - in a page that has no `<html>` element: at an HTML doctype;
//! - in a page whose `<html>` is open: an HTML doctype (in any state: a page cut off inside a
//!   comment, a quoted value or a script) or an `<html>` tag (in text, a tag or a script) may be
//!   another document pasted into this one, as pages do, or the next page after this one was cut
//!   off. The scanner reads on as if it were a new page, holding its bytes back, and tells by how
//!   that page ends ([`Tentative`]): a page that closes its `<html>` and is followed by the end of
//!   the stream or another page's start was a page; one followed by more of this page's markup
//!   after its `</html>`, or that meets this page's markup (a second `<body>` before its content or
//!   after a `</head>` in its body, an `</html>` after its end, a `</head>` or `</body>` it never
//!   opened, the end tag of the script it began in), was pasted in, and the bytes are read again as
//!   this page's. Documents pasted one after another are told together, up to [`CHAIN_BYTES`]; a
//!   document that may begin inside a tentative page is tried in it the same way, up to [`NESTED`]
//!   deep (pages cut off one after another);
//! - at a run of NUL and form-feed bytes followed by markup or the end, outside an open
//!   `<html>` or CleanEval wrapper (the run is dropped);
//! - at a UTF-16 byte-order mark followed by markup, in any state: a UTF-16 page then runs
//!   until another byte-order mark or an 8-bit page's start.
//!
//! A page of CleanEval, wrapped whole in a `<text id=URL>` element (its first element), ends
//! with that element: a doctype inside the wrapper belongs to the page.

use std::collections::VecDeque;
use std::fmt;

use memchr::{memchr, memchr2, memchr3};

use crate::html::TextModel;
use crate::source::sniff::MARKUP_HEAD_BYTES;

/// The bytes after a `<` that tell what it opens (`<!doctype html` and the byte after it).
pub(super) const LOOKAHEAD: usize = 16;

/// Where a page ends and the next begins, as offsets in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct End {
    /// The page's last byte is before this one.
    pub end: u64,
    /// The next page's first byte (past a separator run).
    pub next: u64,
    /// How the page was cut off before its end, if it was.
    pub cut: Option<Cut>,
}

impl End {
    /// A page that ends where the next begins, at `offset`.
    fn at(offset: u64, cut: Option<Cut>) -> End {
        End {
            end: offset,
            next: offset,
            cut,
        }
    }
}

/// Where in its markup a page stood when the next page began: it was cut off there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// In its text or between tags, before closing its `<html>` (or CleanEval wrapper).
    Open,
    /// Inside a tag.
    Tag,
    /// Inside a quoted attribute value.
    Quoted,
    /// Inside a comment.
    Comment,
    /// Inside a doctype or another `<!…>` or `<?…>` declaration.
    Declaration,
    /// Inside a CDATA section.
    Cdata,
    /// Inside the raw text of this element (`script`, `style`, `textarea`, …).
    Raw(&'static str),
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cut::Open => f.write_str("ends before closing its </html>"),
            Cut::Tag => f.write_str("cut off inside a tag"),
            Cut::Quoted => f.write_str("cut off inside a quoted attribute value"),
            Cut::Comment => f.write_str("cut off inside a comment"),
            Cut::Declaration => f.write_str("cut off inside a <!...> declaration"),
            Cut::Cdata => f.write_str("cut off inside a CDATA section"),
            Cut::Raw(name) => write!(f, "cut off inside <{name}>"),
        }
    }
}

/// Where the scan stands in the markup: the tokenizer's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// A page's first bytes: white space, then a byte-order mark or markup.
    Start,
    /// Text, between tags.
    Text,
    /// Inside a tag, after `<` (its name is read as an attribute's: it holds no `=` or quote).
    Tag(Tag),
    /// Inside a quoted attribute value of a tag.
    Quoted(u8, Then),
    /// Inside a comment, until `-->` or `--!>`.
    Comment,
    /// Inside a doctype, a bogus comment (`<!…>`, `<?…>`, `</ …>`), until `>`.
    Declaration,
    /// Inside a CDATA section of SVG or MathML, until `]]>`.
    Cdata,
    /// Inside the raw text (or RCDATA) of an element, until its end tag.
    Raw(&'static str),
    /// After `<plaintext>`: text to the end (or to the next page's plain start).
    Plaintext,
    /// A page in UTF-16, until a byte-order mark or an 8-bit page's start.
    Utf16,
    /// A run of NUL, form-feed and white-space bytes in text, from this offset: the page's
    /// end if markup or the end follows it, else the page's own.
    Separators(u64),
}

/// A tag being read: where in its attributes, whether its last byte was `/`, and what its `>`
/// leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tag {
    attribute: Attribute,
    slash: bool,
    then: Then,
}

/// Where a tag's reading stands among its attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attribute {
    /// Between attributes, or in a name.
    Name,
    /// After `=`, before the value (white space may come between).
    Equals,
    /// In an unquoted value.
    Unquoted,
}

/// What a start tag's `>` leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Then {
    /// The element's content, read as its content model says.
    Content(TextModel),
    /// Foreign content (`<svg>`, `<math>`), unless the tag closes itself.
    Foreign,
}

/// What an end tag, and the start tag of an element of markup, lead to.
const MARKUP: Then = Then::Content(TextModel::Markup);

/// How far a page has come.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    /// Nothing yet but white space, comments, doctypes and the elements of a head.
    #[default]
    Prologue,
    /// The page has begun its document.
    Open,
    /// The page has closed its `<html>` (or wrapper); white space and comments may follow.
    Closed,
    /// After closing, the page went on with elements of a head (scripts a server appends
    /// after `</html>`): a document after them may be the next page or pasted into this one.
    Trailing,
}

/// What the scan knows of a page's tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Markup {
    phase: Phase,
    /// `<html>` elements open, and whether there was one.
    html: u32,
    had_html: bool,
    /// The page is wrapped whole in a CleanEval `<text>` element; `<text>` elements open.
    wrapped: bool,
    wrapper: u32,
    /// SVG and MathML elements open.
    foreign: u32,
    /// The page has opened its `<head>`, its `<body>` (outside documents pasted into it).
    head: bool,
    body: bool,
    /// A document pasted into the page has opened its `<body>`: a `</head>` after it is the
    /// page's, and closes the pasted document, left open.
    pasted_body: bool,
    /// The page has begun its body's content: an element that is not a head's, nor `<body>`.
    in_body: bool,
    /// The page has shown markup (a tag, a comment, a declaration), and how many bytes of
    /// text it held before any.
    marked: bool,
    plain: u64,
    /// A `</head>` came after the page's `<body>` (outside a document pasted into it).
    late_head_end: bool,
}

impl Markup {
    /// Whether the page has closed its `<html>` (or wrapper).
    fn closed(&self) -> bool {
        matches!(self.phase, Phase::Closed | Phase::Trailing)
    }

    /// Whether a run of separators here may end the page (outside an open `<html>` or
    /// wrapper: inside, a page break of a converted document or junk is the page's own).
    fn may_end_at_separators(&self) -> bool {
        self.html == 0 && self.wrapper == 0
    }

    /// Whether the page has an open document that another may be pasted into, or follow:
    /// at a doctype, once it has opened its `<html>`.
    fn holds_documents(&self) -> bool {
        // A document right after `<body>`, before any of its content, is the body's (a page
        // cut off just there is rare).
        self.may_be_cut() && (!self.body || self.in_body)
    }

    /// Whether the page has an open document that may have been cut off inside a comment, a
    /// tag, a value or raw text, at a doctype (or `<html>` tag) there: once it has opened
    /// its `<html>` (a body's first script is cut off as often as any).
    fn may_be_cut(&self) -> bool {
        self.had_html && !self.wrapped && self.phase != Phase::Prologue
    }

    /// Whether the page so far is plain text, long enough to be read as plain text
    /// ([`MARKUP_HEAD_BYTES`] with no markup): an HTML page after it is another document,
    /// not tags of the text.
    fn is_plain_text(&self) -> bool {
        !self.marked && self.plain >= MARKUP_HEAD_BYTES as u64
    }

    /// Whether an `<html>` tag may begin another document: once the page has begun its body
    /// (before, it is the same page's, as a browser reads it: old pages give one `<html>` for
    /// each version of Internet Explorer).
    fn holds_html_tags(&self) -> bool {
        self.holds_documents() && self.in_body
    }
}

/// How many bytes of tentative pages, each closed and followed by another's start, are taken
/// for pages: documents pasted one after another into a page are smaller (e-mails, forum
/// signatures), pages after a cut-off page larger.
const CHAIN_BYTES: u64 = 128 * 1024;

/// The elements of a head: before any other, a doctype after them is the same page's.
const HEAD: [&str; 9] = [
    "head", "meta", "link", "script", "style", "title", "base", "noscript", "template",
];

/// The start tags that close SVG and MathML content in a browser (a page that never closes
/// its `<svg>` does not keep the rest of it foreign).
const BREAKS_OUT: [&str; 16] = [
    "body",
    "div",
    "p",
    "table",
    "ul",
    "ol",
    "li",
    "pre",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "head",
];

/// How many tentative pages may stand one inside another: a page cut off, then the next one
/// cut off too, and so on (each level reads a byte once more, so the scan stays linear).
const NESTED: usize = 4;

/// A page that may begin where the current one is open, read on as if it did; and the pages
/// that follow it, each begun where the one before closed (documents pasted one after
/// another are told together).
#[derive(Clone, Debug)]
struct Tentative {
    /// Where it begins: bytes from here are held back.
    from: u64,
    /// Where the pages after it begin.
    chain: Vec<u64>,
    /// The current page's state at `from`, to read its bytes again as its own.
    mode: Mode,
    page: Markup,
    /// How the current page was cut off, if the new page is one.
    cut: Option<Cut>,
}

/// What an event in the markup did to the scan.
enum Next {
    /// The scan goes on in this state.
    Go(Then),
    /// The scan's place changed (a page ended, a page was begun or read again): go on from it.
    Moved,
}

/// The scanner: where it stands, what it knows of the page, and the pages' ends it found.
#[derive(Debug)]
pub(super) struct Scanner {
    /// Bytes before this offset are scanned.
    at: u64,
    mode: Mode,
    page: Markup,
    /// The tentative pages, each begun inside the one before (the first inside the current
    /// page), at most [`NESTED`].
    tentative: Vec<Tentative>,
    /// A page read again after a tentative one: no page is tried before this offset.
    spent: u64,
    /// The ends found and not yet taken.
    pub(super) ends: VecDeque<End>,
}

/// The bytes the scan has: `buf` is the stream from offset `base`, and `eof` says whether the
/// stream ends after it.
#[derive(Clone, Copy)]
pub(super) struct Window<'a> {
    pub buf: &'a [u8],
    pub base: u64,
    pub eof: bool,
}

impl Window<'_> {
    fn end(&self) -> u64 {
        self.base + self.buf.len() as u64
    }

    /// The bytes from offset `at`.
    fn from(&self, at: u64) -> &[u8] {
        &self.buf[(at - self.base) as usize..]
    }

    /// Whether the bytes from `at` are enough to tell what `n` bytes say (or all there are).
    fn has(&self, at: u64, n: usize) -> bool {
        self.eof || self.from(at).len() >= n
    }
}

/// Whether `b` is part of a separator run.
fn blank(b: u8) -> bool {
    b == 0 || b == 0x0C || b.is_ascii_whitespace()
}

impl Scanner {
    /// A scanner at the stream's start.
    pub(super) fn new() -> Scanner {
        Scanner {
            at: 0,
            mode: Mode::Start,
            page: Markup::default(),
            tentative: Vec::new(),
            spent: 0,
            ends: VecDeque::new(),
        }
    }

    /// Bytes before this offset belong to the pages they were scanned in (later ones may be
    /// held back while the scan tells whose they are).
    pub(super) fn released(&self) -> u64 {
        let mut released = self.at;
        if let Some(tentative) = self.tentative.first() {
            released = released.min(tentative.from);
        }
        if let Mode::Separators(from) = self.mode {
            released = released.min(from);
        }
        released
    }

    /// Bytes scanned and held back.
    pub(super) fn held(&self) -> u64 {
        self.at - self.released()
    }

    /// Scans on through `window` as far as its bytes tell: `true` when it moved on or found an
    /// end.
    pub(super) fn scan(&mut self, window: Window<'_>) -> bool {
        let before = (self.at, self.ends.len());
        while self.at < window.end() && self.step(window) {}
        if self.at == window.end() && window.eof {
            while self.at_the_end(window.end()) && self.at < window.end() {
                while self.at < window.end() && self.step(window) {}
            }
        }
        (self.at, self.ends.len()) != before
    }

    /// Holds back no more: a tentative page is a page, a separator run is the page's own.
    pub(super) fn stop_holding(&mut self) {
        if !self.tentative.is_empty() {
            self.confirm();
        } else if let Mode::Separators(_) = self.mode {
            self.mode = Mode::Text;
        }
    }

    /// At the end of the stream: a separator run ends the page, a tentative page that closed
    /// (or came after others that did) is a page and one that did not is read again as the
    /// current page's. `true` when the scan's place changed.
    fn at_the_end(&mut self, end: u64) -> bool {
        if let Mode::Separators(from) = self.mode {
            self.page_ends(from, end);
            return true;
        }
        let Some(last) = self.tentative.last() else {
            return false;
        };
        // After pages that closed one after another, the last may end open (many do).
        if self.page.closed() || !last.chain.is_empty() {
            self.confirm();
        } else {
            self.read_again();
        }
        true
    }

    /// One step of the scan from `at`: `false` when it needs more bytes.
    fn step(&mut self, w: Window<'_>) -> bool {
        let rest = w.from(self.at);
        match self.mode {
            Mode::Start => self.start(w, rest),
            Mode::Text => self.text(w, rest),
            Mode::Tag(tag) => self.tag(w, rest, tag),
            Mode::Quoted(quote, then) => match memchr2(quote, b'<', rest) {
                None => self.skip(rest.len()),
                Some(i) if rest[i] == quote => {
                    self.at += i as u64 + 1;
                    self.mode = Mode::Tag(Tag::reading(then));
                    true
                }
                Some(i) => self.inside(w, i, Cut::Quoted),
            },
            Mode::Comment => self.up_to(w, rest, &[b"-->", b"--!>"], Cut::Comment),
            Mode::Declaration => self.up_to(w, rest, &[b">"], Cut::Declaration),
            Mode::Cdata => self.up_to(w, rest, &[b"]]>"], Cut::Cdata),
            Mode::Raw(name) => self.raw(w, rest, name),
            Mode::Plaintext => match memchr(b'<', rest) {
                None => self.skip(rest.len()),
                Some(i) => self.inside(w, i, Cut::Raw("plaintext")),
            },
            Mode::Utf16 => self.utf16(w, rest),
            Mode::Separators(from) => match rest.iter().position(|&b| !blank(b)) {
                None => self.skip(rest.len()),
                Some(i) if rest[i] == b'<' => {
                    self.page_ends(from, self.at + i as u64);
                    true
                }
                Some(i) => {
                    self.at += i as u64;
                    self.mode = Mode::Text;
                    true
                }
            },
        }
    }

    /// A comment, a declaration or a CDATA section, up to the first of `closes` (which all
    /// begin with the same byte), then text.
    fn up_to(&mut self, w: Window<'_>, rest: &[u8], closes: &[&[u8]], cut: Cut) -> bool {
        let first = closes[0][0];
        match memchr2(first, b'<', rest) {
            None => self.skip(rest.len()),
            Some(i) if rest[i] == first => {
                let at = self.at + i as u64;
                if !w.has(
                    at,
                    closes.iter().map(|close| close.len()).max().unwrap_or(1),
                ) {
                    return self.skip(i);
                }
                match closes.iter().find(|close| rest[i..].starts_with(close)) {
                    Some(close) => {
                        self.at = at + close.len() as u64;
                        self.mode = Mode::Text;
                    }
                    None => self.at = at + 1,
                }
                true
            }
            Some(i) => self.inside(w, i, cut),
        }
    }

    /// The raw text of the element `name`, up to its end tag.
    fn raw(&mut self, w: Window<'_>, rest: &[u8], name: &'static str) -> bool {
        match memchr(b'<', rest) {
            None => self.skip(rest.len()),
            Some(i) => {
                let at = self.at + i as u64;
                if !w.has(at, LOOKAHEAD) {
                    return self.skip(i);
                }
                let tail = &rest[i + 1..];
                if tail.first() == Some(&b'/') && names(&tail[1..], name) {
                    self.at = at + 2;
                    self.mode = Mode::Tag(Tag::reading(MARKUP));
                    true
                } else {
                    self.inside(w, i, Cut::Raw(name))
                }
            }
        }
    }

    /// Moves on `n` bytes: `false` when there were none to move over.
    fn skip(&mut self, n: usize) -> bool {
        self.at += n as u64;
        n > 0
    }

    /// A page's first bytes: white space passed over, then a UTF-16 byte-order mark or markup.
    fn start(&mut self, w: Window<'_>, rest: &[u8]) -> bool {
        let Some(i) = rest.iter().position(|b| !b.is_ascii_whitespace()) else {
            return self.skip(rest.len());
        };
        let at = self.at + i as u64;
        if !w.has(at, 2) {
            return self.skip(i);
        }
        self.at = at;
        self.mode = match &rest[i..] {
            [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => Mode::Utf16,
            _ => Mode::Text,
        };
        true
    }

    /// Text up to the next `<`, NUL or form feed.
    fn text(&mut self, w: Window<'_>, rest: &[u8]) -> bool {
        let Some(i) = memchr3(b'<', 0, 0x0C, rest) else {
            // The last bytes may begin a byte-order mark before markup: they wait for it.
            let mut n = rest.len();
            if !w.eof {
                n -= rest
                    .iter()
                    .rev()
                    .take(3)
                    .take_while(|&&b| b >= 0xBB)
                    .count();
            }
            return !self.read_text(&rest[..n]) || self.skip(n);
        };
        let at = self.at + i as u64;
        if !w.has(at, LOOKAHEAD) {
            // What the `<` opens waits for its bytes; so do the bytes before it that may be a
            // byte-order mark.
            let n = i.saturating_sub(3);
            return !self.read_text(&rest[..n]) || self.skip(n);
        }
        let tail = &rest[i..];
        let mark = |bom: &[u8]| i >= bom.len() && rest[i - bom.len()..i] == *bom;
        // A UTF-16 page begins at its byte-order mark, whatever stands before it.
        if matches!(tail, [b'<', 0, ..]) && mark(&[0xFF, 0xFE])
            || matches!(tail, [0, b'<', ..]) && mark(&[0xFE, 0xFF])
        {
            self.page_ends(at - 2, at - 2);
            return true;
        }
        // After a closed page, a UTF-8 byte-order mark before markup begins the next page.
        if tail[0] == b'<'
            && self.page.closed()
            && mark(&[0xEF, 0xBB, 0xBF])
            && rest[..i - 3].iter().all(u8::is_ascii_whitespace)
            && self.begins_after_closed(at - 3)
        {
            return true;
        }
        if !self.read_text(&rest[..i]) {
            return true;
        }
        self.at = at;
        if tail[0] == b'<' {
            self.open(w);
            true
        } else {
            self.separators(w)
        }
    }

    /// Text read in the page (before a doctype, it begins no document): after a closed page,
    /// any but white space reopens it. `false` when the scan's place changed.
    fn read_text(&mut self, text: &[u8]) -> bool {
        if !self.page.marked {
            self.page.plain += text.len() as u64;
        }
        if self.page.closed() && !text.iter().all(u8::is_ascii_whitespace) {
            return self.reopen();
        }
        true
    }

    /// Something other than white space or a comment in the page: it has begun its document,
    /// or it goes on after closing it (a tentative page that does so was pasted in).
    fn reopen(&mut self) -> bool {
        // After its `</body>` alone, a page's markup is still its own (a browser puts it in
        // the body: frames and boxes a page's scripts or a saved page add there).
        if self.page.closed() && self.page.html == 0 && !self.tentative.is_empty() {
            self.read_again();
            return false;
        }
        self.page.phase = Phase::Open;
        true
    }

    /// A NUL or form feed at `at`, in text.
    fn separators(&mut self, w: Window<'_>) -> bool {
        let from = self.at;
        if self.page.may_end_at_separators() {
            self.mode = Mode::Separators(from);
            self.at += 1;
            return true;
        }
        // The page's own: the whole run at once.
        let run = w.from(from).iter().take_while(|&&b| blank(b)).count();
        self.skip(run)
    }

    /// What the `<` at `at` opens (its bytes after it are in `w`, or all there are).
    fn open(&mut self, w: Window<'_>) {
        let at = self.at;
        let rest = &w.from(at)[1..];
        let (mode, past) = if let Some(tail) = rest.strip_prefix(b"!--") {
            // `<!-->` and `<!--->` are empty comments.
            match tail {
                [b'>', ..] => (Mode::Text, 5),
                [b'-', b'>', ..] => (Mode::Text, 6),
                _ => (Mode::Comment, 4),
            }
        } else if starts_with_ignoring_case(rest, b"!doctype") {
            if !self.doctype(at, names_html(&rest[8..])) {
                return;
            }
            (Mode::Declaration, 2)
        } else if rest.starts_with(b"![CDATA[") && self.page.foreign > 0 {
            (Mode::Cdata, 9)
        } else if rest.first() == Some(&b'!') {
            (Mode::Declaration, 2)
        } else if rest.first() == Some(&b'?') {
            if self.page.closed()
                && starts_with_ignoring_case(rest, b"?xml")
                && self.begins_after_closed(at)
            {
                return;
            }
            (Mode::Declaration, 2)
        } else if let Some(tail) = rest.strip_prefix(b"/") {
            match tail.first() {
                Some(b) if b.is_ascii_alphabetic() => {
                    if !self.end_tag(tag_name(tail)) {
                        return;
                    }
                    (Mode::Tag(Tag::reading(MARKUP)), 2)
                }
                Some(b'>') => (Mode::Text, 3),
                Some(_) => (Mode::Declaration, 2),
                None => (Mode::Text, 1),
            }
        } else if rest.first().is_some_and(u8::is_ascii_alphabetic) {
            match self.start_tag(at, tag_name(rest)) {
                Next::Go(then) => (Mode::Tag(Tag::reading(then)), 1),
                Next::Moved => return,
            }
        } else {
            (Mode::Text, 1)
        };
        // A `<` that opens nothing is text.
        self.page.marked |= past > 1;
        self.mode = mode;
        self.at = at + past;
    }

    /// A doctype at `at` (`html`: an HTML one): `false` when the scan's place changed.
    fn doctype(&mut self, at: u64, html: bool) -> bool {
        if html && self.ends_plain_text(at) {
            return false;
        }
        match self.page.phase {
            Phase::Prologue => true,
            Phase::Closed | Phase::Trailing => !self.begins_after_closed(at),
            Phase::Open if !html || self.page.wrapped => true,
            Phase::Open if !self.page.had_html && at >= self.spent => {
                self.page_ends(at, at);
                false
            }
            Phase::Open if !self.page.holds_documents() => true,
            Phase::Open => !self.try_page(at, Some(Cut::Open)),
        }
    }

    /// Ends a page of plain text ([`Markup::is_plain_text`]) where an HTML page plainly
    /// begins, at `at`: `true` when it did.
    fn ends_plain_text(&mut self, at: u64) -> bool {
        let ends = self.page.is_plain_text() && at >= self.spent;
        if ends {
            self.page_ends(at, at);
        }
        ends
    }

    /// A start tag named `name` at `at`.
    fn start_tag(&mut self, at: u64, name: &[u8]) -> Next {
        let page = self.page;
        let is = |tag: &str| name.eq_ignore_ascii_case(tag.as_bytes());
        let foreign = page.foreign > 0 && !BREAKS_OUT.iter().any(|tag| is(tag));
        if is("html") && !foreign {
            if self.ends_plain_text(at) {
                return Next::Moved;
            }
            if page.closed() && self.begins_after_closed(at) {
                return Next::Moved;
            }
            let open = page.phase == Phase::Open && page.holds_html_tags();
            if open && self.try_page(at, Some(Cut::Open)) {
                return Next::Moved;
            }
            // Before the body, another `<html>` tag is the same element's (a browser merges
            // their attributes).
            self.page.html += u32::from(page.html == 0 || page.in_body);
            self.page.had_html = true;
            self.page.phase = Phase::Open;
            return Next::Go(MARKUP);
        }
        if is("text") && (page.wrapped || page.phase == Phase::Prologue && !page.had_html) {
            if page.closed() && self.begins_after_closed(at) {
                return Next::Moved;
            }
            self.page.wrapped = true;
            self.page.wrapper += 1;
            self.page.phase = Phase::Open;
            return Next::Go(MARKUP);
        }
        // Another page's body met in a tentative page, outside a document pasted into it,
        // before its body's content or after a `</head>` in it: it was pasted into this one.
        // (Not a `<head>`, which apps write into their body, nor a `<body>` alone among the
        // content, as messy pages have.)
        let pasted =
            is("body") && page.body && (!page.in_body || page.late_head_end) && page.html <= 1;
        if self.judges_tentative(at) && pasted {
            self.read_again();
            return Next::Moved;
        }
        let head = HEAD.iter().any(|tag| is(tag));
        // After a closed page, a `<meta>` is the next page's (its charset before its doctype).
        if is("meta") && page.phase == Phase::Closed && self.begins_after_closed(at) {
            return Next::Moved;
        }
        match page.phase {
            Phase::Closed | Phase::Trailing if head => self.page.phase = Phase::Trailing,
            Phase::Closed | Phase::Trailing if !self.reopen() => return Next::Moved,
            Phase::Prologue if !head => self.page.phase = Phase::Open,
            _ => {}
        }
        // The tags of a document pasted into a tentative page (bytes read again) are not its
        // head's or body's.
        if !self.in_pasted(at) {
            self.page.head |= is("head");
            self.page.body |= is("body") && page.html <= 1;
            self.page.pasted_body |= is("body") && page.html > 1;
            self.page.in_body |= !is("body") && !head;
        }
        if !foreign {
            self.page.foreign = 0;
        }
        Next::Go(if is("svg") || is("math") {
            Then::Foreign
        } else if foreign {
            MARKUP
        } else {
            Then::Content(TextModel::of(name))
        })
    }

    /// An end tag named `name`: `false` when the scan's place changed.
    fn end_tag(&mut self, name: &[u8]) -> bool {
        let is = |tag: &str| name.eq_ignore_ascii_case(tag.as_bytes());
        let html = is("html") && self.page.foreign == 0;
        // After `</body>`, the page's `</html>` is the page's end still; after its end, other
        // end tags close nothing (templates leave a few there), while an `</html>` is another
        // page's end: this one's was pasted into it.
        let closing = if html {
            // (A page that never opened its `<html>` ends with its `</html>` all the same.)
            self.page.html > 0 || !self.page.had_html
        } else {
            self.page.html == 0
        };
        if self.page.closed() && !closing && !self.reopen() {
            return false;
        }
        // A tentative page that closes a `<head>` or `<body>` it never opened was read from
        // the current page's middle (not an `<html>`: a page may leave its start tag out).
        let page = &self.page;
        // So does one that ends the raw text element it was begun in (a page quoted in a
        // script).
        let raw_end = self.page.foreign == 0
            && matches!(self.tentative.last(), Some(Tentative { cut: Some(Cut::Raw(raw)), .. }) if is(raw));
        let stray =
            is("head") && !page.head || is("body") && !page.body && !page.pasted_body || raw_end;
        if stray && self.judges_tentative(self.at) {
            self.read_again();
            return false;
        }
        let pasted = self.in_pasted(self.at);
        let page = &mut self.page;
        if html {
            page.pasted_body = false;
            page.html = page.html.saturating_sub(1);
            if page.html == 0 && !page.wrapped && page.phase == Phase::Open {
                page.phase = Phase::Closed;
            }
        } else if is("head") && page.pasted_body {
            page.pasted_body = false;
            page.html -= 1;
        } else if is("head") && !pasted {
            page.late_head_end |= page.body;
        } else if is("body") && !page.wrapped && page.html <= 1 && page.phase == Phase::Open {
            // Nothing but the `</html>` is left of the page.
            page.phase = Phase::Closed;
        } else if is("text") && page.wrapped {
            page.wrapper = page.wrapper.saturating_sub(1);
            if page.wrapper == 0 {
                page.phase = Phase::Closed;
            }
        } else if is("svg") || is("math") {
            page.foreign = page.foreign.saturating_sub(1);
        }
        true
    }

    /// A tag's attributes, up to its `>`.
    fn tag(&mut self, w: Window<'_>, rest: &[u8], mut tag: Tag) -> bool {
        for (i, &b) in rest.iter().enumerate() {
            match (tag.attribute, b) {
                (_, b'>') => {
                    self.at += i as u64 + 1;
                    self.mode = match tag.then {
                        Then::Content(TextModel::Markup) => Mode::Text,
                        Then::Content(TextModel::Raw(name)) => Mode::Raw(name),
                        Then::Content(TextModel::Plaintext) => Mode::Plaintext,
                        Then::Foreign => {
                            self.page.foreign += u32::from(!tag.slash);
                            Mode::Text
                        }
                    };
                    return true;
                }
                (_, b'<') => {
                    self.mode = Mode::Tag(tag);
                    return self.inside(w, i, Cut::Tag);
                }
                (Attribute::Equals, b'"' | b'\'') => {
                    self.at += i as u64 + 1;
                    self.mode = Mode::Quoted(b, tag.then);
                    return true;
                }
                (Attribute::Equals | Attribute::Name, b) if b.is_ascii_whitespace() => {}
                (Attribute::Equals, _) => tag.attribute = Attribute::Unquoted,
                (Attribute::Unquoted, b) if b.is_ascii_whitespace() => {
                    tag.attribute = Attribute::Name;
                    tag.slash = false;
                }
                (Attribute::Unquoted, _) => {}
                (Attribute::Name, b'=') => tag.attribute = Attribute::Equals,
                (Attribute::Name, b) => tag.slash = b == b'/',
            }
        }
        self.mode = Mode::Tag(tag);
        self.skip(rest.len())
    }

    /// A `<` at `i` of the bytes from `at`, inside a tag, a value, a comment, raw text…: the
    /// next page's plain start (an HTML doctype) if the page was cut off here, else the
    /// page's own.
    fn inside(&mut self, w: Window<'_>, i: usize, cut: Cut) -> bool {
        let at = self.at + i as u64;
        if !w.has(at, LOOKAHEAD) {
            return self.skip(i);
        }
        let rest = &w.from(at)[1..];
        // In a CleanEval wrapper, its end tag ends whatever was left open in it (an
        // `<iframe>` never closed).
        if self.page.wrapped && rest.first() == Some(&b'/') && names(&rest[1..], "text") {
            self.at = at;
            self.mode = Mode::Text;
            self.open(w);
            return true;
        }
        // In a tag, where a `<` has no place, an `<html>` tag begins a page too; so in raw
        // text, where the element's end tag tells a page quoted in a script from one after a
        // page cut off in it (`end_tag`).
        let page_start = starts_with_ignoring_case(rest, b"!doctype") && names_html(&rest[8..])
            || matches!(cut, Cut::Tag | Cut::Raw(_)) && names(rest, "html");
        if page_start && self.page.may_be_cut() {
            self.at = at;
            if self.try_page(at, Some(cut)) {
                return true;
            }
        }
        self.at = at + 1;
        true
    }

    /// A page in UTF-16: it ends at another's byte-order mark or an 8-bit page's start.
    fn utf16(&mut self, w: Window<'_>, rest: &[u8]) -> bool {
        // The byte-order mark the page begins with is its own.
        let from = usize::from(rest.starts_with(&[0xFF, 0xFE]) || rest.starts_with(&[0xFE, 0xFF]));
        let Some(i) = memchr3(b'<', 0xFF, 0xFE, &rest[from..]).map(|i| i + from) else {
            return self.skip(rest.len());
        };
        let at = self.at + i as u64;
        if !w.has(at, LOOKAHEAD) {
            return self.skip(i);
        }
        let tail = &rest[i..];
        let starts = match tail {
            [0xFF, 0xFE, b'<', 0, ..] | [0xFE, 0xFF, 0, b'<', ..] => true,
            [b'<', tail @ ..] => {
                starts_with_ignoring_case(tail, b"!doctype")
                    || names(tail, "html")
                    || starts_with_ignoring_case(tail, b"?xml")
            }
            _ => false,
        };
        if starts {
            self.page_ends(at, at);
        } else {
            self.at = at + 1;
        }
        true
    }

    /// A page may begin at `at` inside the current one, whose `<html>` is open: read on as if
    /// it did, holding its bytes back (`false` where no page is tried: in bytes read again).
    fn try_page(&mut self, at: u64, cut: Option<Cut>) -> bool {
        if at < self.spent {
            return false;
        }
        match self.tentative.last() {
            // In a tentative page, another document is tried inside it: pasted into it, or
            // the next page after it was cut off too (up to NESTED; past that, pasted)…
            Some(tentative) if tentative.chain.is_empty() && self.tentative.len() == NESTED => {
                return false;
            }
            Some(tentative) if tentative.chain.is_empty() => {}
            // … but after pages that closed one after another, the last was cut off: they
            // were pages.
            Some(_) => self.confirm(),
            None => {}
        }
        self.tentative.push(Tentative {
            from: at,
            chain: Vec::new(),
            mode: self.mode,
            page: self.page,
            cut,
        });
        self.page = Markup::default();
        self.mode = Mode::Text;
        self.at = at;
        true
    }

    /// Whether the markup at `at` may tell that the last tentative page was pasted in: not in
    /// bytes read again, which are a document pasted into it (their tags are that document's).
    fn judges_tentative(&self, at: u64) -> bool {
        !self.tentative.is_empty() && !self.in_pasted(at)
    }

    /// Whether `at` is in the bytes of a document pasted into a tentative page, read again.
    fn in_pasted(&self, at: u64) -> bool {
        !self.tentative.is_empty() && at < self.spent
    }

    /// The last tentative page was pasted into the one it began in: its bytes are read again
    /// as that page's, and no page is tried among them.
    fn read_again(&mut self) {
        let tentative = self.tentative.pop().expect("a tentative page");
        self.spent = self.at.max(tentative.from + 1);
        self.at = tentative.from;
        self.mode = tentative.mode;
        self.page = tentative.page;
    }

    /// The tentative pages were pages: the current one was cut off where the first begins,
    /// and each where the next begins inside it.
    fn confirm(&mut self) {
        for tentative in std::mem::take(&mut self.tentative) {
            self.ends.push_back(End::at(tentative.from, tentative.cut));
            let chain = tentative
                .chain
                .into_iter()
                .map(|start| End::at(start, None));
            self.ends.extend(chain);
        }
    }

    /// A page begins at `at`, after the current one closed: `true` when the scan's place
    /// changed. After a tentative page, it may be one more document pasted after it: it is
    /// told with it. After a page's trailing scripts, it is tried as a tentative page; where
    /// no page is tried, it is the page's own.
    fn begins_after_closed(&mut self, at: u64) -> bool {
        if at < self.spent {
            // Bytes read again are the page's own.
            self.page.phase = Phase::Open;
            return false;
        }
        if let Some(tentative) = self.tentative.last_mut() {
            tentative.chain.push(at);
            if at - tentative.from >= CHAIN_BYTES {
                self.confirm();
            }
            self.page = Markup::default();
            self.mode = Mode::Start;
            self.at = at;
        } else if self.page.phase == Phase::Trailing {
            if !self.try_page(at, None) {
                self.page.phase = Phase::Open;
                return false;
            }
        } else {
            self.page_ends(at, at);
        }
        true
    }

    /// The current page ends at `end` and the next begins at `next`; tentative pages before
    /// it were pages.
    fn page_ends(&mut self, end: u64, next: u64) {
        self.confirm();
        let cut = self.cut();
        self.ends.push_back(End { end, next, cut });
        self.page = Markup::default();
        self.mode = Mode::Start;
        self.at = next;
    }

    /// How the current page is cut off if it ends here.
    fn cut(&self) -> Option<Cut> {
        // (A page that opened its `<body>` without an `<html>` tag is open too.)
        let open = self.page.phase == Phase::Open
            && (self.page.had_html || self.page.wrapped || self.page.body);
        match self.mode {
            Mode::Start | Mode::Text | Mode::Separators(_) | Mode::Utf16 => {
                open.then_some(Cut::Open)
            }
            Mode::Plaintext => Some(Cut::Raw("plaintext")),
            Mode::Tag(_) => Some(Cut::Tag),
            Mode::Quoted(..) => Some(Cut::Quoted),
            Mode::Comment => Some(Cut::Comment),
            Mode::Declaration => Some(Cut::Declaration),
            Mode::Cdata => Some(Cut::Cdata),
            Mode::Raw(name) => Some(Cut::Raw(name)),
        }
    }
}

impl Tag {
    /// A tag whose name was just read.
    fn reading(then: Then) -> Tag {
        Tag {
            attribute: Attribute::Name,
            slash: false,
            then,
        }
    }
}

/// The tag name that `bytes` begin with (up to white space, `/` or `>`; at most the
/// lookahead's bytes).
fn tag_name(bytes: &[u8]) -> &[u8] {
    let bytes = &bytes[..bytes.len().min(LOOKAHEAD - 2)];
    let n = bytes
        .iter()
        .position(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
        .unwrap_or(bytes.len());
    &bytes[..n]
}

/// Whether `bytes` begin with the tag name `name` (in any case) and the name ends there.
fn names(bytes: &[u8], name: &str) -> bool {
    starts_with_ignoring_case(bytes, name.as_bytes())
        && bytes
            .get(name.len())
            .is_none_or(|&b| b.is_ascii_whitespace() || b == b'>' || b == b'/')
}

/// Whether the bytes after `<!doctype` name HTML.
fn names_html(bytes: &[u8]) -> bool {
    let name = bytes.iter().position(|b| !b.is_ascii_whitespace());
    name.is_some_and(|i| i > 0 && names(&bytes[i..], "html"))
}

/// Whether `bytes` begin with `prefix`, ignoring ASCII case.
fn starts_with_ignoring_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}
