//! What the handlers share while a document is parsed ([`State`]): the stack of open block
//! elements and the HTML rules that close them implicitly, the gathering of text into blocks
//! (entities decoded, white space collapsed, long blocks cut in several), the page title (and a
//! title that lost its end tag), and what a restart of lol_html replays. Every text handler
//! looks at each chunk of text once: nothing grows and is searched again as a document goes on.

use lol_html::html_content::{TextChunk, TextType};

use super::inline::Inline;
use super::json_ld::{json_ld_types, MAX_JSON_LD_BYTES};
use super::open::Stack;
use super::tags::Opening;
use super::tags::{tag_id_ascii, Role, Tag};
use super::{last_sentence_end, soft_cut_start, word_piece};
use super::{max_open_elements, BlockParser, HtmlSettings};
use crate::block::{byline_people, Block, BlockKind, ContainerHints, MarkKind, PageInfo};

/// Raw text of one text node held before its entities are decoded; longer nodes are decoded in pieces.
const MAX_PENDING_RAW: usize = 16 * 1024;

/// Everything the lol_html handlers share while a document is parsed, in parts: the stack of
/// open block elements, the text run of the block being filled, the title, what a restart of
/// lol_html replays, the inner parser of raw text that is HTML, and the text dropped.
pub(super) struct State {
    /// What the page says about itself (title, canonical link, CleanEval wrapper).
    pub(super) page: PageInfo,
    pub(super) settings: HtmlSettings,
    /// Open block elements, innermost last, with the structure they give.
    pub(super) stack: Stack,
    /// The block's inline code and formulas, and a formula being read.
    pub(super) inline: Inline,
    /// The text of the block being filled.
    pub(super) run: Run,
    /// The page's `<title>` being read.
    pub(super) title: Title,
    /// The piece of HTML being parsed, and what a restart of lol_html replays.
    pub(super) replay: Replay,
    /// The inner parser of raw text that is HTML to readers.
    nest: Nest,
    /// Text being dropped: a skipped element's, a ruby annotation's, a screen reader's.
    pub(super) skip: Skip,
    /// The number the next block element gets.
    next_number: u32,
    pub(super) link_depth: u32,
    /// Blocks finished and not yet taken by the caller.
    pub(super) done: Vec<Block>,
    /// Inside a `<script type="application/ld+json">`: its text so far, up to
    /// [`MAX_JSON_LD_BYTES`], read for schema.org types at its end.
    json_ld: Option<String>,
    /// The raw text of the byline being read ([`PageInfo::byline`]), up to
    /// [`MAX_BYLINE_BYTES`], until its element ends.
    pub(super) byline: Option<String>,
}

/// The text of the block being filled ([`State::run`]), and of the text node being read.
#[derive(Default)]
pub(super) struct Run {
    /// Raw (entity-encoded) text of the current text node not yet decoded.
    pending_raw: String,
    pending_in_link: bool,
    /// The block being filled.
    text: String,
    link_bytes: usize,
    /// The block is cut at its bound (its text goes on in the next block).
    truncated: bool,
    /// The last sentence end in the block's last bytes ([`soft_cut_start`]), where it is cut
    /// if it grows past its bound.
    last_end: Option<SentenceEnd>,
    pending_space: bool,
    /// A tag (start or end) came since the last text appended.
    pub(super) at_element_edge: bool,
    /// The kind fixed by the element the block's text started in.
    next_index: u32,
}

/// The page's `<title>` being read ([`State::title`]).
#[derive(Default)]
pub(super) struct Title {
    /// Inside the `<title>`.
    pub(super) inside: bool,
    /// Raw text of the current `<title>`, while it may still turn out to have lost its end tag
    /// (then it is parsed as the start of the page), and of a title for good: up to
    /// [`MAX_TITLE_HELD_BYTES`] and a text chunk more.
    raw: String,
    /// A `<` was seen in the current title's raw text (each chunk is looked at once).
    markup: bool,
    /// The current title grew past [`MAX_TITLE_HELD_BYTES`] with no `<` in it: its text is no
    /// longer held (but for the page's title). Markup in it later still makes it a title that
    /// lost its end tag, and the page is parsed from that chunk on.
    settled: bool,
}

/// The piece of HTML being parsed, and what a restart of lol_html replays ([`State::replay`]).
pub(super) struct Replay {
    /// A copy of the piece of HTML being parsed, so element handlers can read tag names from the
    /// source instead of having lol_html allocate them.
    pub(super) input: Vec<u8>,
    /// Source offset of `input`'s first byte in the current lol_html parser (its source locations
    /// count from the start of what that parser was given, replayed tags included).
    pub(super) input_start: usize,
    /// Elements on lol_html's stack: start tags of elements that can have content, less the
    /// end-tag handlers run (every such element gets one).
    pub(super) open: usize,
    /// [`max_open_elements`] for the settings.
    pub(super) max_open: usize,
    /// Source offset where the replayed start tags end: elements before it are replays.
    pub(super) replay_end: usize,
    /// Source offset of the start tag before which the current parser is to be replaced.
    pub(super) restart_at: Option<usize>,
}

/// The inner parser for raw text that is HTML to readers ([`State::nest`]; it does not nest
/// another):
/// - a title whose end tag is missing or broken: the HTML parser takes the rest of the page
///   for its text, while libxml2 and the browsers before HTML5 showed the page. A title
///   longer than [`MAX_TITLE_BYTES`] with markup in it is taken for one;
/// - a `<noscript>` (`in_noscript`): lol_html reads its content as raw text, as a browser
///   running scripts does, while crawlers, readers without scripts and some sites' whole
///   content (a forum's posts) see it as HTML.
struct Nest {
    /// The inner parser, while one runs.
    parser: Option<Box<BlockParser>>,
    /// The number of the first element of `parser` in this document.
    base: u32,
    /// Inside a `<noscript>` that was not skipped: its raw text goes to `parser`.
    in_noscript: bool,
    /// False in a nested parser, and once one failed in this document.
    allowed: bool,
}

/// Text being dropped ([`State::skip`]).
pub(super) struct Skip {
    /// Elements open inside a skipped one (0: nothing is skipped).
    pub(super) depth: u32,
    /// The element that took `depth` from 0 (replayed if lol_html is restarted inside it).
    pub(super) outer: Tag,
    /// Inside a ruby annotation (`<rt>`, `<rp>`) of the current block: its text is dropped.
    pub(super) in_annotation: bool,
    /// Inside an element only screen readers read ([`super::tags::is_screen_reader_text`]),
    /// when the settings drop such text: its text is dropped up to its end tag, or until the
    /// block around it ends without one (lol_html does not report the end of an element closed
    /// implicitly).
    unread: Option<Unread>,
    /// The number of the next element whose text is dropped so, told to its end tag.
    next_unread: u32,
}

/// A byline is at most this long ([`PageInfo::byline`]): a longer element is an author's box
/// or a biography.
const MAX_BYLINE_BYTES: usize = 200;

/// A `<title>` longer than this, with a `<` in it, has lost its end tag ([`State::nest`]).
const MAX_TITLE_BYTES: usize = 1024;

/// A `<title>` whose raw text grows past this with no `<` in it is no longer held to be parsed
/// as the start of the page: its text so far is the title's, whatever follows.
const MAX_TITLE_HELD_BYTES: usize = 64 * 1024;

/// An open element whose text only screen readers read ([`Skip::unread`]).
#[derive(Clone, Copy, Debug)]
struct Unread {
    /// Its number, which its end tag's handler carries.
    number: u32,
    /// The length of the stack of blocks once it opened: a shorter stack has closed it (or the
    /// block around it).
    depth: usize,
}

/// A place where the block being filled may be cut: the space after a sentence.
#[derive(Clone, Copy, Debug)]
struct SentenceEnd {
    /// The space's byte offset in the block's text.
    at: usize,
    /// Bytes of link text before it.
    links_before: usize,
    /// Bytes of link text up to and including it.
    links_through: usize,
}

impl State {
    pub(super) fn new(settings: HtmlSettings) -> State {
        let settings_memory = settings.max_parser_memory;
        State {
            settings,
            stack: Stack::default(),
            inline: Inline::default(),
            run: Run::default(),
            title: Title::default(),
            replay: Replay {
                input: Vec::new(),
                input_start: 0,
                open: 0,
                max_open: max_open_elements(settings_memory),
                replay_end: 0,
                restart_at: None,
            },
            nest: Nest {
                parser: None,
                base: 0,
                in_noscript: false,
                allowed: true,
            },
            skip: Skip {
                depth: 0,
                outer: Tag::P,
                in_annotation: false,
                unread: None,
                next_unread: 0,
            },
            next_number: 0,
            link_depth: 0,
            done: Vec::new(),
            page: PageInfo::default(),
            json_ld: None,
            byline: None,
        }
    }

    /// The kind of text written now, from the innermost element that decides it.
    fn current_kind(&self) -> BlockKind {
        for id in self.stack.iter().rev().map(|open| open.tag) {
            match id {
                _ if id.is_heading() => return BlockKind::Heading,
                Tag::Li | Tag::Dt | Tag::Dd => return BlockKind::ListItem,
                Tag::Td | Tag::Th => return BlockKind::TableCell,
                Tag::Pre => return BlockKind::Preformatted,
                Tag::Form | Tag::Fieldset | Tag::Legend | Tag::Label | Tag::Option => {
                    return BlockKind::Form
                }
                Tag::P
                | Tag::Blockquote
                | Tag::Caption
                | Tag::Figcaption
                | Tag::Address
                | Tag::Summary => return BlockKind::Paragraph,
                _ => {}
            }
        }
        BlockKind::Paragraph
    }

    /// The place in the stack of the innermost open element that `is`.
    fn innermost(&self, is: impl Fn(Tag) -> bool) -> Option<usize> {
        self.stack.innermost(is)
    }

    /// Ends the current block, if it holds any text.
    pub(super) fn flush_block(&mut self) {
        self.decode_pending(true);
        self.run.pending_space = false;
        self.skip.in_annotation = false;
        if self.run.text.is_empty() {
            self.run.truncated = false;
            return;
        }
        let kind = if self.title.inside {
            BlockKind::Heading
        } else {
            self.current_kind()
        };
        if kind == BlockKind::Preformatted {
            // A code block's text: its lines, without the blank ones around them.
            let trimmed = self.run.text.trim_end().trim_start_matches(['\n', '\r']);
            if trimmed.is_empty() {
                self.run.text.clear();
                self.inline.clear();
                self.run.truncated = false;
                return;
            }
            let start = self.run.text.len() - self.run.text.trim_start_matches(['\n', '\r']).len();
            self.run.text.truncate(start + trimmed.len());
            self.run.text.drain(..start);
        }
        // An exact-size copy: `self.run.text` keeps its capacity for the next block, so no block
        // grows by reallocation. Composing may shorten it, so the link text is bounded by it.
        let text = nfc(&self.run.text);
        let mut structure = self.stack.structure();
        structure.marks = self.inline.take_marks(text.len(), text.len() == self.run.text.len());
        let block = Block {
            index: self.run.next_index,
            kind,
            link_bytes: std::mem::take(&mut self.run.link_bytes).min(text.len()),
            text,
            truncated: std::mem::take(&mut self.run.truncated),
            sentences: Vec::new(),
            evidence: Default::default(),
            hints: if self.title.inside {
                ContainerHints(ContainerHints::TITLE)
            } else {
                self.open_hints()
            },
            containers: self.stack.numbers(),
            story: self
                .innermost(|id| id == Tag::Article)
                .map(|at| self.stack.number(at)),
            top_heading: self
                .innermost(Tag::is_heading)
                .is_some_and(|at| self.stack.tag(at) == Tag::H1),
            structure,
        };
        self.run.text.clear();
        self.run.last_end = None;
        self.run.next_index = self.run.next_index.saturating_add(1);
        self.done.push(block);
    }

    /// Decodes the held raw text into the block; with `all == false` a possible entity at the end is kept back.
    fn decode_pending(&mut self, all: bool) {
        if self.run.pending_raw.is_empty() {
            return;
        }
        let cut = if all {
            self.run.pending_raw.len()
        } else {
            // An entity is at most 32 bytes long: keep back a trailing '&' run that may be unfinished.
            let tail_start =
                floor_char_boundary(&self.run.pending_raw, self.run.pending_raw.len().saturating_sub(40));
            match self.run.pending_raw[tail_start..].rfind('&') {
                Some(amp) => tail_start + amp,
                None => self.run.pending_raw.len(),
            }
        };
        let cut = floor_char_boundary(&self.run.pending_raw, cut);
        // Taken out (not copied) so it can be read while `self` changes; its buffer is put back.
        let mut raw = std::mem::take(&mut self.run.pending_raw);
        let in_link = self.run.pending_in_link;
        self.decode_str(&raw[..cut], in_link);
        debug_assert!(self.run.pending_raw.is_empty());
        raw.drain(..cut);
        self.run.pending_raw = raw;
    }

    /// Decodes the entities of `raw` (a whole number of them) into the block.
    fn decode_str(&mut self, raw: &str, in_link: bool) {
        // Borrows the text unchanged when it holds no '&' (htmlize scans for it with memchr).
        let decoded = htmlize::unescape(raw);
        // U+0000 is dropped as the HTML tree builder drops it; a soft hyphen (U+00AD, `&shy;`)
        // only marks where a word may break, and readers do not see it.
        if memchr::memchr(0, decoded.as_bytes()).is_some()
            || memchr::memmem::find(decoded.as_bytes(), "\u{AD}".as_bytes()).is_some()
        {
            let without: String = decoded
                .chars()
                .filter(|&c| c != '\0' && c != '\u{AD}')
                .collect();
            self.append_decoded(&without, in_link);
        } else {
            self.append_decoded(&decoded, in_link);
        }
    }

    /// Appends decoded text with whitespace collapsed, or as it is in a `<pre>`.
    fn append_decoded(&mut self, decoded: &str, in_link: bool) {
        if self.stack.contains(Tag::Pre) {
            self.append_code(decoded, in_link);
        } else {
            self.append_words(decoded, in_link);
        }
    }

    /// Appends the text of a code block as it is: its line breaks and indentation kept (a
    /// carriage return dropped, another control character a space). A block that would grow
    /// past its bound is cut after its last whole line (a line longer than a block, in pieces).
    fn append_code(&mut self, decoded: &str, in_link: bool) {
        for piece in decoded.split_inclusive('\n') {
            let piece: std::borrow::Cow<'_, str> =
                if piece.bytes().any(|b| b < 0x20 && b != b'\n' && b != b'\t') {
                    piece
                        .chars()
                        .filter(|&c| c != '\r')
                        .map(|c| if c.is_control() && c != '\n' && c != '\t' { ' ' } else { c })
                        .collect::<String>()
                        .into()
                } else {
                    piece.into()
                };
            let mut rest: &str = &piece;
            while self.run.text.len() + rest.len() > self.settings.max_block_bytes {
                if self.run.text.is_empty() {
                    let cut = word_piece(rest, self.settings.max_block_bytes);
                    self.push_code(&rest[..cut], in_link);
                    rest = &rest[cut..];
                }
                self.run.truncated = true;
                self.flush_block_keep_pending();
            }
            self.push_code(rest, in_link);
        }
    }

    /// Appends a piece of a code block's text as it is.
    fn push_code(&mut self, piece: &str, in_link: bool) {
        self.run.text.push_str(piece);
        if in_link {
            self.run.link_bytes += piece.len();
        }
        self.run.pending_space = false;
    }

    /// Appends the words of `text`; any run of white space (`char::is_whitespace`, and C0
    /// controls: [`SPACE_CLASS`]) becomes one pending space. Runs of words that are already
    /// separated by single spaces are copied whole.
    fn append_words(&mut self, text: &str, in_link: bool) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let n = space_len(text, i);
            if n > 0 {
                self.run.pending_space = true;
                i += n;
                continue;
            }
            let start = i;
            if self.run.at_element_edge {
                self.run.at_element_edge = false;
                if !self.run.pending_space && self.words_run_together(&text[i..]) {
                    self.run.pending_space = true;
                }
            }
            loop {
                // Byte steps are fine: UTF-8 continuation bytes never start white space.
                i = skip_plain_bytes(bytes, i);
                while i < bytes.len() && space_len(text, i) == 0 {
                    i += 1;
                    i = skip_plain_bytes(bytes, i);
                }
                if bytes.get(i) == Some(&b' ') && i + 1 < bytes.len() && space_len(text, i + 1) == 0
                {
                    i += 1;
                    continue;
                }
                break;
            }
            self.push_run(&text[start..i], in_link);
        }
    }

    /// Whether `next`, the text after a tag, would run into the block's last word as readers
    /// never see it ([`HtmlSettings::as_seen`]): a lower-case letter then a capital; not in
    /// `<pre>`.
    fn words_run_together(&self, next: &str) -> bool {
        self.settings.as_seen
            && self.run.text.chars().next_back().is_some_and(char::is_lowercase)
            && next.chars().next().is_some_and(char::is_uppercase)
            && !self.stack.contains(Tag::Pre)
    }

    /// Appends `run`, words separated by single spaces (and the pending space before it); when it
    /// does not fit, word by word, so the block is cut where [`Self::push_word`] cuts it.
    fn push_run(&mut self, run: &str, in_link: bool) {
        match self.room_for(run) {
            Some(space) => self.append(run, space, in_link),
            None => {
                for (j, word) in run.split(' ').enumerate() {
                    if j > 0 {
                        self.run.pending_space = true;
                    }
                    self.push_word(word, in_link);
                }
            }
        }
    }

    /// Appends one word (and the pending space before it); when the block is full, it is cut
    /// first ([`Self::cut_block`]), and a word longer than a block is cut in pieces.
    fn push_word(&mut self, mut word: &str, in_link: bool) {
        loop {
            if let Some(space) = self.room_for(word) {
                self.append(word, space, in_link);
                return;
            }
            if self.run.text.is_empty() {
                let piece = word_piece(word, self.settings.max_block_bytes);
                self.append(&word[..piece], 0, in_link);
                word = &word[piece..];
                if word.is_empty() {
                    return;
                }
            }
            self.cut_block();
        }
    }

    /// Ends the block being filled because it is full, marked `truncated`: after its last
    /// sentence end if one is in its last bytes (the words after it begin the next block),
    /// else as it is. Nothing is dropped.
    fn cut_block(&mut self) {
        self.run.truncated = true;
        let pending_space = self.run.pending_space;
        let carried = match self.run.last_end.take() {
            Some(end) => {
                let tail = self.run.text[end.at + 1..].to_owned();
                let tail_links = self.run.link_bytes.saturating_sub(end.links_through);
                self.run.text.truncate(end.at);
                self.run.link_bytes = end.links_before;
                Some((tail, tail_links))
            }
            None => None,
        };
        self.flush_block_keep_pending();
        if let Some((tail, tail_links)) = carried {
            self.run.text.push_str(&tail);
            self.run.link_bytes = tail_links.min(tail.len());
        }
        self.run.pending_space = pending_space;
    }

    /// The bytes of pending space (0 or 1) before `piece`, if both fit in the block.
    fn room_for(&self, piece: &str) -> Option<usize> {
        let space = usize::from(self.run.pending_space && !self.run.text.is_empty());
        (self.run.text.len() + space + piece.len() <= self.settings.max_block_bytes).then_some(space)
    }

    /// Appends `space` (0 or 1) bytes of space and `piece`, counting them as link text if
    /// `in_link`; notes the last sentence end among them when they reach the block's last bytes.
    fn append(&mut self, piece: &str, space: usize, in_link: bool) {
        let start = self.run.text.len();
        let links_before = self.run.link_bytes;
        if space == 1 {
            self.run.text.push(' ');
        }
        self.inline.text_at(self.run.text.len());
        self.run.text.push_str(piece);
        if in_link {
            self.run.link_bytes += piece.len() + space;
        }
        self.run.pending_space = false;
        let soft = soft_cut_start(self.settings.max_block_bytes);
        if self.run.text.len() > soft {
            if let Some(at) = last_sentence_end(&self.run.text, start.max(soft)) {
                let links = if in_link { at - start } else { 0 };
                self.run.last_end = Some(SentenceEnd {
                    at,
                    links_before: links_before + links,
                    links_through: links_before + links + usize::from(in_link),
                });
            }
        }
    }

    /// Like [`flush_block`] but from inside decoding, where the pending raw text is already taken.
    fn flush_block_keep_pending(&mut self) {
        let pending = std::mem::take(&mut self.run.pending_raw);
        self.flush_block();
        self.run.pending_raw = pending;
    }

    /// The [`tag_id`](super::tags::tag_id) of the start tag at stream bytes `at`, read from the
    /// source: `None` when the tag is not all in the current piece or its name is not plain ASCII
    /// letters and digits (then lol_html's `tag_name()` decides). lol_html ends a tag name at
    /// ASCII white space, `/` or `>` and lower-cases it, as done here.
    pub(super) fn tag_id_from_source(&self, at: std::ops::Range<usize>) -> Option<Option<Tag>> {
        let rest = self.tag_source(at)?.strip_prefix(b"<")?;
        let len = rest
            .iter()
            .position(|&b| matches!(b, b' ' | b'\n' | b'\r' | b'\t' | 0x0c | b'/' | b'>'))?;
        let name = &rest[..len];
        if name.is_empty() || !name.iter().all(u8::is_ascii_alphanumeric) {
            return None;
        }
        Some(tag_id_ascii(name))
    }

    /// The source of the start tag at `at` (source offsets), when it is all in the current
    /// piece.
    fn tag_source(&self, at: std::ops::Range<usize>) -> Option<&[u8]> {
        let start = at.start.checked_sub(self.replay.input_start)?;
        self.replay.input.get(start..at.end.checked_sub(self.replay.input_start)?)
    }

    /// Whether the start tag at `at` may mark a byline: its source holds `uth`, `uto`, `ute`
    /// (`author`, `autor`, `auteur`) or `byl` in any case. A quick look at the bytes before
    /// [`super::tags::is_byline`] reads lol_html's attributes (which allocates); true when
    /// the source is not at hand.
    pub(super) fn may_be_byline(&self, at: std::ops::Range<usize>) -> bool {
        let Some(tag) = self.tag_source(at) else {
            return true;
        };
        // A tag is short: one pass over its bytes, lower-cased, three at a time.
        tag.windows(3).any(|w| {
            let w = [w[0] | 0x20, w[1] | 0x20, w[2] | 0x20];
            matches!(&w, b"uth" | b"uto" | b"ute" | b"byl")
        })
    }

    /// Whether the start tag at `at` may mark text only screen readers read: a quick look at
    /// its source before lol_html's attributes are read (which allocates). True when the source
    /// is not at hand, or when a `class` value in it (any `class=` after a space, a `/` or a
    /// quote, in any case, even one inside another attribute's value; its value up to its
    /// quote, or to a space or `>` when unquoted) is such a class
    /// ([`super::tags::is_screen_reader_text`]); so never false where lol_html's value (as
    /// written: entities are not decoded) is one.
    pub(super) fn may_be_screen_reader_text(&self, at: std::ops::Range<usize>) -> bool {
        let Some(tag) = self.tag_source(at) else {
            return true;
        };
        memchr::memchr_iter(b'=', tag).any(|equals| {
            let name = tag[..equals].trim_ascii_end();
            let is_class = name.len() > b"class".len()
                && name[name.len() - b"class".len()..].eq_ignore_ascii_case(b"class")
                && matches!(
                    name[name.len() - b"class".len() - 1],
                    b' ' | b'\t' | b'\n' | b'\x0c' | b'\r' | b'/' | b'"' | b'\''
                );
            if !is_class {
                return false;
            }
            let value = tag[equals + 1..].trim_ascii_start();
            let (value, quote) = match value.first() {
                Some(&quote @ (b'"' | b'\'')) => (&value[1..], Some(quote)),
                _ => (value, None),
            };
            let end = value
                .iter()
                .position(|&b| match quote {
                    Some(quote) => b == quote,
                    None => b.is_ascii_whitespace() || b == b'>',
                })
                .unwrap_or(value.len());
            super::tags::is_screen_reader_text(&value[..end])
        })
    }

    /// Whether the start tag at `at` may be of an element drawn beside the text (line numbers,
    /// a formula's visual copy): none such is open, and its source names one of their classes
    /// or, in a code block or at a table cell, has a class, a style or `aria-hidden` (true when
    /// the source is not at hand).
    pub(super) fn may_be_drawn_beside_text(&self, at: std::ops::Range<usize>) -> bool {
        if self.skip.unread.is_some() || self.skip.depth > 0 {
            return false;
        }
        let Some(tag) = self.tag_source(at) else {
            return true;
        };
        // Each is a `<span>`, a `<div>`, a `<td>` or a `<p>` (or, in a code block, any element).
        let in_code = self.in_code_block();
        let first = tag.get(1).map(u8::to_ascii_lowercase);
        if !in_code && !matches!(first, Some(b's' | b'd' | b't' | b'p')) {
            return false;
        }
        static NAMES: std::sync::OnceLock<[memchr::memmem::Finder<'static>; 7]> =
            std::sync::OnceLock::new();
        let names = NAMES.get_or_init(|| {
            [
                &b"katex-html"[..],
                b"MathJax",
                b"data-math",
                b"data-tex",
                b"data-latex",
                b"hurmet-tex",
                b"mw-editsection",
            ]
            .map(memchr::memmem::Finder::new)
        });
        if names.iter().any(|name| name.find(tag).is_some()) {
            return true;
        }
        let in_code = in_code || tag.get(1..3).is_some_and(|n| n.eq_ignore_ascii_case(b"td"));
        // A class, a style or `aria-hidden`: some attribute, whose `=` is there.
        in_code && memchr::memchr(b'=', tag).is_some()
    }

    /// Whether a start tag is looked at for text only screen readers read: the settings drop
    /// such text, and no such element is open already.
    pub(super) fn watches_screen_reader_text(&self) -> bool {
        self.settings.as_seen && self.skip.unread.is_none()
    }

    /// At the start of an element whose text only screen readers read, after its block (if it
    /// is one) was opened: its text is dropped until [`State::end_unread`] with the number
    /// returned, or until the stack of blocks is shorter than now.
    pub(super) fn start_unread(&mut self) -> u32 {
        let number = self.skip.next_unread;
        self.skip.next_unread = self.skip.next_unread.wrapping_add(1);
        self.skip.unread = Some(Unread {
            number,
            depth: self.stack.len(),
        });
        number
    }

    /// At the end tag of the element [`State::start_unread`] numbered `number`.
    pub(super) fn end_unread(&mut self, number: u32) {
        if self.skip.unread.is_some_and(|u| u.number == number) {
            self.skip.unread = None;
        }
    }

    fn text_allowed(&self) -> bool {
        self.skip.depth == 0 && !self.skip.in_annotation && self.skip.unread.is_none()
    }

    pub(super) fn on_text(&mut self, chunk: &TextChunk) {
        if let Some(formula) = &mut self.inline.formula {
            if matches!(chunk.text_type(), TextType::Data | TextType::ScriptData) {
                formula.push(chunk.as_str());
            }
            return;
        }
        if chunk.text_type() == TextType::RCData
            && self.title.inside
            && self.on_title_text(chunk.as_str())
        {
            return;
        }
        if let (TextType::ScriptData, Some(json)) = (chunk.text_type(), &mut self.json_ld) {
            let room = MAX_JSON_LD_BYTES.saturating_sub(json.len());
            let text = chunk.as_str();
            json.push_str(&text[..floor_char_boundary(text, room)]);
            return;
        }
        if chunk.text_type() == TextType::RawText && self.nest.in_noscript {
            if self.nest.parser.is_some() {
                self.parse_nested(chunk.as_str());
            }
            return;
        }
        let allowed = match chunk.text_type() {
            TextType::Data | TextType::CDataSection => self.text_allowed() && !self.title.inside,
            TextType::RCData => self.title.inside && self.settings.keep_title,
            _ => false,
        };
        if allowed {
            let in_link = self.link_depth > 0;
            if in_link != self.run.pending_in_link {
                self.decode_pending(true);
                self.run.pending_in_link = in_link;
            }
            // Held even when the node may be whole: lol_html sends a text node's content with
            // `last_in_text_node() == false`, then an empty last chunk.
            self.run.pending_raw.push_str(chunk.as_str());
            if let Some(byline) = &mut self.byline {
                let text = chunk.as_str();
                let room = (MAX_BYLINE_BYTES + 1).saturating_sub(byline.len());
                byline.push_str(&text[..floor_char_boundary(text, room)]);
            }
            if self.run.pending_raw.len() > MAX_PENDING_RAW {
                self.decode_pending(false);
            }
        }
        if chunk.last_in_text_node() {
            self.decode_pending(true);
        }
    }

    /// Watches a title's raw text for a missing end tag; true when `raw` went to the parser of
    /// a broken title ([`State::nest`]). Each chunk is looked at once, and at most
    /// [`MAX_TITLE_HELD_BYTES`] of the title (and a chunk) are held.
    fn on_title_text(&mut self, raw: &str) -> bool {
        if self.nest.parser.is_none() {
            if !self.nest.allowed {
                return false;
            }
            if !self.title.settled {
                self.title.raw.push_str(raw);
            }
            self.title.markup |= memchr::memchr(b'<', raw.as_bytes()).is_some();
            let long = self.title.settled || self.title.raw.len() > MAX_TITLE_BYTES;
            if !long || !self.title.markup {
                self.title.settled = self.title.raw.len() > MAX_TITLE_HELD_BYTES;
                return false;
            }
            if self.title.settled {
                // Too long to be held: its text so far stays the title's (a heading, with
                // --title), and the page starts with this chunk.
                self.flush_block();
            } else {
                // What was held of it as a heading (with --title) goes, and its text so far is
                // the start of the page.
                self.run.pending_raw.clear();
                self.run.text.clear();
                self.run.link_bytes = 0;
                self.run.last_end = None;
            }
            self.start_nested();
            let held = std::mem::take(&mut self.title.raw);
            self.parse_nested(if self.title.settled { raw } else { &held });
        } else {
            self.parse_nested(raw);
        }
        true
    }

    /// Starts the inner parser ([`State::nest`]), its elements numbered from the next one here.
    fn start_nested(&mut self) {
        let settings = HtmlSettings {
            keep_title: false,
            ..self.settings.clone()
        };
        let inner = BlockParser::new(settings);
        inner.state.borrow_mut().nest.allowed = false;
        self.nest.parser = Some(Box::new(inner));
        self.nest.base = self.next_number;
    }

    /// Gives `raw` to the inner parser, taking its blocks as this document's; when it fails,
    /// the guess was wrong (its text does not parse as a page either): the rest of a title is
    /// a title again, as without the guess, the rest of a `<noscript>` is dropped, and no other
    /// is tried in this document.
    fn parse_nested(&mut self, raw: &str) {
        let inner = self.nest.parser.as_mut().expect("a nested parser");
        let mut blocks = Vec::new();
        let result = inner.write(raw, &mut blocks);
        // The page's element numbers go on after the ones the inner parser gave.
        let elements = inner.state.borrow().next_number;
        self.next_number = self.nest.base.saturating_add(elements);
        self.adopt(blocks);
        if result.is_err() {
            self.nest.parser = None;
            self.nest.allowed = false;
        }
    }

    /// Ends the inner parser, if any, taking its last blocks and the schema.org types it met.
    fn end_nested(&mut self) {
        if let Some(inner) = self.nest.parser.take() {
            let mut blocks = Vec::new();
            let (result, page) = inner.end_page(&mut blocks);
            if result.is_err() {
                self.nest.allowed = false;
            }
            self.page.schema.0 |= page.schema.0;
            self.adopt(blocks);
        }
    }

    /// At a `<noscript>` start tag: its raw text will be parsed as HTML, unless it sits where
    /// text is dropped or a nested parser may not start (then it is skipped, as `Role::Skip`
    /// elements are). True when it will be parsed.
    pub(super) fn start_noscript(&mut self) -> bool {
        if self.text_allowed() && !self.title.inside && !self.nest.in_noscript && self.nest.allowed {
            self.flush_block();
            self.start_nested();
            self.nest.in_noscript = true;
        }
        self.nest.in_noscript
    }

    /// At a `<noscript>` end tag (or the document's end inside one).
    pub(super) fn end_noscript(&mut self) {
        if self.nest.in_noscript {
            self.end_nested();
            self.nest.in_noscript = false;
        }
    }

    /// At the start of an element whose text is dropped (`Role::Skip`, or a `<noscript>` that
    /// is not parsed): [`State::end_role`] ends it.
    pub(super) fn start_skip(&mut self, id: Tag) {
        if self.skip.depth == 0 {
            self.skip.outer = id;
        }
        self.skip.depth += 1;
    }

    /// At the end of a skipped element or a `<noscript>` (parsed or skipped).
    pub(super) fn end_role(&mut self, role: Role) {
        match role {
            Role::NoScript if self.nest.in_noscript => self.end_noscript(),
            Role::Skip | Role::NoScript => {
                self.skip.depth = self.skip.depth.saturating_sub(1);
                if self.skip.depth == 0 {
                    if let Some(json) = self.json_ld.take() {
                        self.page.schema.0 |= json_ld_types(&json);
                        super::meta::fill_from_json_ld(&mut self.page, &json);
                    }
                }
            }
            _ => {}
        }
    }

    /// At a `<script type="application/ld+json">` outside any skipped element: its text is
    /// read for the schema.org types the page declares.
    pub(super) fn start_json_ld(&mut self) {
        self.json_ld = Some(String::new());
    }

    /// Takes blocks of the inner parser as this document's: numbered after the blocks so far,
    /// inside the elements open here.
    fn adopt(&mut self, blocks: Vec<Block>) {
        for mut block in blocks {
            block.index = self.run.next_index;
            self.run.next_index = self.run.next_index.saturating_add(1);
            let inner = std::mem::take(&mut block.containers);
            let base = self.nest.base;
            block.containers = self
                .stack
                .iter()
                .map(|open| open.number)
                .chain(inner.into_iter().map(|n| base.saturating_add(n)))
                .collect();
            block.hints = ContainerHints(block.hints.0 | self.open_hints().0);
            let structure = &mut block.structure;
            for number in structure
                .cell
                .iter_mut()
                .flat_map(|cell| [&mut cell.table, &mut cell.number])
                .chain(
                    structure
                        .list
                        .iter_mut()
                        .flat_map(|list| [&mut list.list, &mut list.item]),
                )
                .chain(structure.caption_of.iter_mut())
            {
                *number = base.saturating_add(*number);
            }
            self.done.push(block);
        }
    }

    /// What the open block elements suggest, all together.
    fn open_hints(&self) -> ContainerHints {
        ContainerHints(self.stack.hints())
    }

    /// Whether an element starting now may be the page's byline: it is looked for
    /// ([`HtmlSettings::read_byline`]), none was found yet nor is being read, and the element
    /// is in no menu, periphery, comment or hidden part.
    pub(super) fn may_start_byline(&self) -> bool {
        const ELSEWHERE: u8 = ContainerHints::NAVIGATION
            | ContainerHints::PERIPHERY
            | ContainerHints::COMMENTS
            | ContainerHints::HIDDEN;
        self.settings.read_byline
            && self.page.byline.is_none()
            && self.byline.is_none()
            && self.skip.depth == 0
            && !self.open_hints().has(ELSEWHERE)
    }

    /// At the end of the byline's element: its text is the page's byline when it is short and
    /// names someone ([`byline_people`]); else the next one may be.
    pub(super) fn end_byline(&mut self) {
        let Some(raw) = self.byline.take() else {
            return;
        };
        let text = PageInfo::clean(&super::meta::decoded(&raw));
        self.page.byline = text.filter(|text| {
            raw.len() <= MAX_BYLINE_BYTES && !byline_people(text).is_empty()
        });
    }

    /// At the end of a title (its end tag or the document's end): ends the parser of a broken one.
    pub(super) fn end_title(&mut self) {
        if self.nest.in_noscript {
            return;
        }
        if self.page.title.is_none() && self.nest.parser.is_none() {
            self.page.title = PageInfo::clean(&super::meta::decoded(&self.title.raw));
        }
        self.title.raw.clear();
        self.title.markup = false;
        self.title.settled = false;
        self.end_nested();
    }

    /// At the start of inline code, a subscript or a superscript (not in a code block, whose
    /// text is all code).
    pub(super) fn start_mark(&mut self, kind: MarkKind) {
        if !self.in_code_block() {
            self.decode_pending(true);
            self.inline.open(kind);
        }
    }

    /// At the end of inline code, a subscript or a superscript.
    pub(super) fn end_mark(&mut self, kind: MarkKind) {
        self.decode_pending(true);
        self.inline.close(kind, self.run.text.len());
    }

    /// Whether a formula starting now is read: its text would be the block's.
    pub(super) fn may_read_formula(&self) -> bool {
        self.text_allowed() && !self.title.inside && self.inline.formula.is_none()
    }

    /// At the end of an element a formula may be read from: the formula read from it goes
    /// into the text as its TeX, marked.
    pub(super) fn end_formula(&mut self, element: Tag) {
        if self
            .inline
            .formula
            .as_ref()
            .is_none_or(|formula| formula.element != element)
        {
            return;
        }
        let formula = self.inline.formula.take().expect("a formula");
        let display = formula.display;
        if let Some(tex) = formula.tex() {
            self.push_formula(&tex, display);
        }
    }

    /// Appends a formula's TeX to the block's text, marked as one (shown on its own when
    /// `display`).
    pub(super) fn push_formula(&mut self, tex: &str, display: bool) {
        let kind = match display {
            true => MarkKind::DisplayFormula,
            false => MarkKind::Formula,
        };
        let tex = tex.trim();
        if tex.is_empty() || !self.may_read_formula() {
            return;
        }
        let tex = &tex[..floor_char_boundary(tex, super::inline::MAX_FORMULA_BYTES)];
        self.decode_pending(true);
        self.run.at_element_edge = false;
        self.inline.open(kind);
        self.append_words(tex, self.link_depth > 0);
        self.end_mark(kind);
    }

    pub(super) fn on_block_start(&mut self, id: Tag, hints: u8, opening: Opening) {
        if self.in_code_block() {
            // A line of a code block written as an element (Expressive Code's `<div>`s).
            self.code_line_break();
        } else {
            self.flush_block();
        }
        self.close_implied_by(id);
        self.stack.push(id, hints, self.next_number, opening);
        self.next_number = self.next_number.saturating_add(1);
    }

    pub(super) fn on_block_end(&mut self, id: Tag) {
        if id != Tag::Pre && self.in_code_block() {
            self.code_line_break();
        } else {
            self.flush_block();
        }
        if let Some(pos) = self.innermost(|open| open == id) {
            self.truncate_stack(pos);
        }
    }

    /// Inside a `<pre>`: a block element there is a line of the code block, not a block.
    pub(super) fn in_code_block(&self) -> bool {
        self.stack.contains(Tag::Pre)
    }

    /// Ends the code block's line, unless it has just ended.
    fn code_line_break(&mut self) {
        self.decode_pending(true);
        if !self.run.text.is_empty() && !self.run.text.ends_with('\n') {
            self.push_code("\n", false);
        }
    }

    /// Gets ready for a new lol_html parser, returning the start tags to give it first: the
    /// innermost tracked block elements (as many as leave half of [`max_open_elements`] free),
    /// then the skipped element, the title and the link the text is in. Their handlers count them
    /// and run their end tags as the originals' would; what they did at the start is kept here.
    pub(super) fn replay_for_restart(&mut self) -> String {
        let skip = self.skip.depth > 0;
        let (title, link) = (self.title.inside, self.link_depth > 0);
        let room = (self.replay.max_open / 2)
            .saturating_sub(usize::from(skip) + usize::from(title) + usize::from(link));
        let skipped = self.stack.len() - room.min(self.stack.len());
        let names = self
            .stack
            .iter()
            .skip(skipped)
            .map(|open| open.tag.name())
            .chain(skip.then(|| self.skip.outer.name()))
            .chain(title.then_some("title"))
            .chain(link.then_some("a"));
        let mut tags = String::new();
        for name in names {
            tags.push('<');
            tags.push_str(name);
            tags.push('>');
        }
        if skip {
            // Only the outermost skipped element is replayed: its end tag ends the skipping.
            self.skip.depth = 1;
        }
        // Not replayed: the rest of an element only screen readers read is read.
        self.skip.unread = None;
        self.replay.open = 0;
        self.replay.input.clear();
        self.replay.input_start = tags.len();
        self.replay.replay_end = tags.len();
        self.replay.restart_at = None;
        tags
    }

    /// Closes the open elements from `pos` on.
    fn truncate_stack(&mut self, pos: usize) {
        if self.skip.unread.is_some_and(|u| pos < u.depth) {
            self.skip.unread = None;
        }
        self.stack.truncate(pos);
    }

    /// Pops the elements a new start tag closes implicitly, as the HTML parser would.
    fn close_implied_by(&mut self, tag: Tag) {
        const HEADINGS: &[Tag] = &[Tag::H1, Tag::H2, Tag::H3, Tag::H4, Tag::H5, Tag::H6];
        let (targets, barriers): (&[Tag], &[Tag]) = match tag {
            Tag::Li => (
                &[Tag::Li],
                &[Tag::Ul, Tag::Ol, Tag::Menu, Tag::Dir, Tag::Table],
            ),
            Tag::Dt | Tag::Dd => (&[Tag::Dt, Tag::Dd], &[Tag::Dl, Tag::Table]),
            Tag::Td | Tag::Th => (&[Tag::Td, Tag::Th], &[Tag::Tr, Tag::Table]),
            Tag::Tr => (&[Tag::Tr], &[Tag::Table]),
            Tag::Thead | Tag::Tbody | Tag::Tfoot => {
                (&[Tag::Thead, Tag::Tbody, Tag::Tfoot], &[Tag::Table])
            }
            Tag::Option => (&[Tag::Option], &[Tag::Select, Tag::Datalist]),
            _ if tag.is_heading() => (HEADINGS, &[]),
            _ => (&[], &[]),
        };
        // Any block start closes an open `p` directly above it.
        if self.stack.last() == Some(Tag::P) {
            self.truncate_stack(self.stack.len() - 1);
        }
        if targets.is_empty() {
            return;
        }
        if tag.is_heading() {
            if self.stack.last().is_some_and(|top| top.is_heading()) {
                self.truncate_stack(self.stack.len() - 1);
            }
            return;
        }
        for pos in (0..self.stack.len()).rev() {
            let open = self.stack.tag(pos);
            if targets.contains(&open) {
                self.truncate_stack(pos);
                return;
            }
            if barriers.contains(&open) {
                return;
            }
        }
    }
}

/// What a byte can start, for [`space_len`]: 0 not white space, 1 ASCII white space (the ASCII
/// characters for which `char::is_whitespace` holds, and the other C0 controls but NUL, which
/// count as white space here), 2 the lead byte of a character that may be (U+0085, U+00A0: C2;
/// U+1680: E1; U+2000–U+205F: E2; U+3000: E3). NUL is dropped before ([`State::decode_str`]).
static SPACE_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut control = 1;
    while control < 0x20 {
        table[control] = 1;
        control += 1;
    }
    table[b' ' as usize] = 1;
    table[b'\t' as usize] = 1;
    table[b'\n' as usize] = 1;
    table[0x0b] = 1;
    table[0x0c] = 1;
    table[b'\r' as usize] = 1;
    table[0xc2] = 2;
    table[0xe1] = 2;
    table[0xe2] = 2;
    table[0xe3] = 2;
    table
};

/// The first byte from `i` on that is not printable ASCII (above the space), eight bytes at a
/// time: such bytes never start white space, so a word's letters are passed over quickly (or
/// the end of `bytes`, when the rest is shorter than eight).
#[inline]
fn skip_plain_bytes(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    while let Some(eight) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        // The high bit of each byte below 0x21 (the first one exactly: a borrow only runs up
        // from a byte below it), or of a byte that is not ASCII.
        let stops = (x.wrapping_sub(0x21 * ONES) & !x | x) & (0x80 * ONES);
        if stops != 0 {
            return i + (stops.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

/// Length of the white-space character starting at byte `i` of `text`, or 0 if there is none.
#[inline]
fn space_len(text: &str, i: usize) -> usize {
    match SPACE_CLASS[text.as_bytes()[i] as usize] {
        0 => 0,
        1 => 1,
        _ => match text[i..].chars().next() {
            Some(c) if c.is_whitespace() => c.len_utf8(),
            _ => 0,
        },
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `text` in Unicode normalization form C (composed), as readers see it and as most gold text
/// and models hold it: `e` and a combining acute become `é`. Checked quickly first: nearly
/// every block is already in NFC and is only copied.
fn nfc(text: &str) -> String {
    use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};
    if text.is_ascii() || is_nfc_quick(text.chars()) == IsNormalized::Yes {
        text.to_owned()
    } else {
        text.nfc().collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn plain_bytes_are_skipped_up_to_the_first_that_may_start_white_space() {
        for text in [
            "",
            "word",
            "eight by",
            "abcdefgh ijk",
            "abcdefghijklmno\tp",
            "abcdefghijk\u{a0}x",
            "!~abcdefghijklmnop",
            "abcdefgh\x01",
            "\x7fabcdefghijklmnopqrs z",
        ] {
            let bytes = text.as_bytes();
            for start in 0..=bytes.len() {
                let stop = skip_plain_bytes(bytes, start);
                let first = (start..bytes.len())
                    .find(|&i| !(0x21..0x80).contains(&bytes[i]))
                    .unwrap_or(bytes.len());
                // Never past the first such byte; short of it only in the last eight bytes.
                assert!(stop <= first && stop >= start, "{text:?} from {start}");
                assert!(
                    stop == first || bytes.len() - stop < 8,
                    "{text:?} from {start}"
                );
            }
        }
    }

    use super::*;
    use crate::html::blocks_from_str;
    use crate::html::tests::{blocks, texts};

    #[test]
    fn title_on_request() {
        let settings = HtmlSettings {
            keep_title: true,
            ..HtmlSettings::default()
        };
        let got = blocks_from_str("<title>A &amp; B</title><p>x</p>", &settings).unwrap();
        assert_eq!(got[0].text, "A & B");
        assert_eq!(got[0].kind, BlockKind::Heading);
    }

    #[test]
    fn a_title_without_its_end_tag_does_not_swallow_the_page() {
        let script = "var x = '<b>'; ".repeat(80);
        let body = "<div id=main><p>First paragraph.</p><p>Second &amp; last.</p></div>";
        for broken in ["", "</titlevalue=\"x\" -->"] {
            for keep_title in [false, true] {
                let html = format!("<html><head><title>Page {broken}<script>{script}</script></head><body>{body}</body></html>");
                let settings = HtmlSettings {
                    keep_title,
                    ..HtmlSettings::default()
                };
                let got: Vec<String> = blocks_from_str(&html, &settings)
                    .unwrap()
                    .into_iter()
                    .map(|b| b.text)
                    .collect();
                // The title's own words are the start of the page's text then, as in libxml2.
                assert_eq!(
                    got,
                    ["Page", "First paragraph.", "Second & last."],
                    "{broken:?}, keep_title {keep_title}"
                );
            }
        }
        // A long title with no markup in it is a title, and one with its end tag is too.
        let long = "word ".repeat(300);
        let html = format!("<title>{long}</title><p>x</p>");
        assert_eq!(texts(&html), ["x"]);
        let html = format!("<title>{}</title><p>x</p>", "a &lt; b ".repeat(200));
        assert_eq!(texts(&html), ["x"]);
    }

    #[test]
    fn noscript_content_is_read_as_html_where_text_counts() {
        // A forum whose posts are only in `<noscript>`, as Discourse serves them.
        let html = "<div id=main><noscript><div class=post><p>First &amp; post.</p>\
                    <p>Second post</p></div></noscript><p>After</p></div>";
        assert_eq!(texts(html), ["First & post.", "Second post", "After"]);
        // Its blocks sit inside the elements open around it, after the blocks before it.
        let got = blocks_from_str(html, &HtmlSettings::default()).unwrap();
        assert!(got.windows(2).all(|w| w[0].index < w[1].index));
        assert_eq!(got[0].containers[0], got[2].containers[0]);
        // Unclosed, it ends with the page; inside an `<svg>` or a `<script>` it is dropped.
        assert_eq!(texts("<p>a</p><noscript><p>b</p>"), ["a", "b"]);
        assert_eq!(
            texts("<p>a</p><svg><noscript><p>b</p></noscript></svg><p>c</p>"),
            ["a", "c"]
        );
        // A `<noscript>` written inside one is text of the first, as lol_html reads it.
        assert_eq!(
            texts("<noscript><p>b<noscript>c</noscript></p><p>d</p>"),
            ["b", "d"]
        );
    }

    #[test]
    fn shadow_roots_and_foreign_objects_are_read_as_browsers_show_them() {
        // A declarative shadow root is shown in its host; another template is not.
        assert_eq!(
            texts("<div><template shadowrootmode=open><p>shown</p></template></div>\
                   <template><p>inert</p></template><p>after</p>"),
            ["shown", "after"]
        );
        // A drawing's HTML is read; its labels, a self-closing object and a drawing inside
        // another skipped element are not.
        assert_eq!(
            texts("<svg><text>label</text><foreignObject/><text>label</text>\
                   <foreignObject><p>in <b>it</b></p><svg><foreignObject><p>deeper</p>\
                   </foreignObject><text>label</text></svg></foreignObject>\
                   <g><text>label</text></g></svg><p>after</p>"),
            ["in it", "deeper", "after"]
        );
        assert_eq!(
            texts("<object><svg><foreignObject><p>no</p></foreignObject></svg></object>\
                   <p>after</p>"),
            ["after"]
        );
    }

    #[test]
    fn blocks_know_their_containers() {
        let html = "<body><div><p>one</p><ul><li>two</li></ul></div><p>three</p></body>";
        let got: Vec<(String, Vec<u32>)> = blocks_from_str(html, &HtmlSettings::default())
            .unwrap()
            .into_iter()
            .map(|b| (b.text, b.containers))
            .collect();
        let (one, two, three) = (&got[0].1, &got[1].1, &got[2].1);
        assert_eq!(
            got.iter().map(|g| g.0.as_str()).collect::<Vec<_>>(),
            ["one", "two", "three"]
        );
        // `one` and `two` share the div; `two` is deeper; `three` is outside the div.
        assert_eq!(one.len() + 1, two.len());
        assert_eq!(one[..one.len() - 1], two[..one.len() - 1]);
        assert_ne!(one.last(), two[..two.len() - 1].last());
        assert!(!three.contains(&one[one.len() - 2]));
        assert!(
            two.windows(2).all(|w| w[0] < w[1]),
            "numbered in document order"
        );
    }

    #[test]
    fn words_of_two_elements_are_not_run_together() {
        let read = |html: &str, as_seen: bool| {
            let settings = HtmlSettings {
                as_seen,
                ..HtmlSettings::default()
            };
            let blocks = crate::html::blocks_from_str(html, &settings).unwrap();
            blocks.into_iter().map(|b| b.text).collect::<Vec<_>>()
        };
        let html = "<h1><span>Nationale Demo</span><span>Der 9. Juli naht</span></h1>\
                    <p><a>Lawrence Ulrich</a><time>Mar 7</time> H<sub>2</sub>O \
                    <b>T</b>he state<i>ment</i></p><pre><b>new</b><i>Todo</i></pre>";
        assert_eq!(
            read(html, true),
            [
                "Nationale Demo Der 9. Juli naht",
                "Lawrence Ulrich Mar 7 H2O The statement",
                "newTodo"
            ]
        );
        assert_eq!(read(html, false)[0], "Nationale DemoDer 9. Juli naht");
    }

    #[test]
    fn decodes_entities_and_collapses_whitespace() {
        assert_eq!(
            texts(
                "<p>  Fish &amp; chips\n\t&eacute;t&#233; &#x263A; &nbsp; &copy 2008 &bogus; </p>"
            ),
            ["Fish & chips été ☺ © 2008 &bogus;"]
        );
    }

    #[test]
    fn text_is_as_readers_see_it_composed_without_soft_hyphens() {
        assert_eq!(
            texts("<p>Donau&shy;dampf\u{AD}schiff cafe\u{301} Ame\u{301}lie</p>"),
            ["Donaudampfschiff café Amélie"]
        );
        // A combining mark in a text node of its own still composes with the letter before it.
        assert_eq!(texts("<p>cafe<b>\u{301}</b> au lait</p>"), ["café au lait"]);
        // Link text shortened by composing is never counted longer than the block.
        let got = blocks_from_str("<p><a href=/>e\u{301}</a></p>", &HtmlSettings::default());
        let block = &got.unwrap()[0];
        assert_eq!((block.text.as_str(), block.link_bytes), ("é", "é".len()));
    }

    #[test]
    fn kinds_follow_the_innermost_element() {
        let got = blocks("<h2>Head</h2><ul><li>item<li>next</ul><table><tr><td>cell<td><p>para</table><pre>a  b\nc</pre>");
        assert_eq!(
            got,
            vec![
                (BlockKind::Heading, "Head".to_string()),
                (BlockKind::ListItem, "item".to_string()),
                (BlockKind::ListItem, "next".to_string()),
                (BlockKind::TableCell, "cell".to_string()),
                (BlockKind::Paragraph, "para".to_string()),
                // A code block is one block, its lines and spaces kept.
                (BlockKind::Preformatted, "a  b\nc".to_string()),
            ]
        );
    }

    #[test]
    fn implicit_closes_keep_the_stack_small() {
        let html = "<ul>".to_string() + &"<li>x".repeat(10_000) + "</ul><p>after";
        let mut parser = BlockParser::new(HtmlSettings::default());
        let mut out = Vec::new();
        parser.write(&html, &mut out).unwrap();
        assert!(parser.state.borrow().stack.len() <= 3);
        parser.end(&mut out).unwrap();
        assert_eq!(out.last().unwrap().kind, BlockKind::Paragraph);
    }

    #[test]
    fn link_text_is_counted() {
        let got = blocks_from_str(
            "<p>Read <a href=/x>the full story</a> now</p><div><a>Home</a> <a>About</a></div>",
            &HtmlSettings::default(),
        )
        .unwrap();
        assert_eq!(got[0].text, "Read the full story now");
        assert_eq!(got[0].link_bytes, " the full story".len());
        assert_eq!(got[1].text, "Home About");
        assert!(got[1].link_density() > 0.85);
    }

    /// Blocks of `html` with blocks of at most `max` bytes: (text, truncated, link bytes).
    fn cut(html: &str, max: usize) -> Vec<(String, bool, usize)> {
        let settings = HtmlSettings {
            max_block_bytes: max,
            ..HtmlSettings::default()
        };
        let got = blocks_from_str(html, &settings).unwrap();
        got.into_iter()
            .map(|b| (b.text, b.truncated, b.link_bytes))
            .collect()
    }

    #[test]
    fn long_blocks_are_cut_in_several_and_nothing_is_lost() {
        let block = |text: &str, truncated, links| (text.to_string(), truncated, links);
        // No sentence end near the bound: between two words.
        assert_eq!(
            cut("<p>aaaa bbbb cccc dddd eeee ffff</p><p>next</p>", 20),
            [
                block("aaaa bbbb cccc dddd", true, 0),
                block("eeee ffff", false, 0),
                block("next", false, 0)
            ]
        );
        // After the sentence that ends in the block's last quarter, its link text counted
        // where it goes.
        assert_eq!(
            cut(
                "<p>Aaaa bbbb cccc dddd eeee ffff. <a href=/>Gggg hhhh</a> iiii.</p>",
                40
            ),
            [
                block("Aaaa bbbb cccc dddd eeee ffff.", true, 0),
                block("Gggg hhhh iiii.", false, "Gggg hhhh".len())
            ]
        );
        // A word longer than a block, in pieces of whole characters.
        assert_eq!(
            cut("<p>ab abcdefghijklmnopqrstuvwxyz €€€€</p>", 10),
            [
                block("ab", true, 0),
                block("abcdefghij", true, 0),
                block("klmnopqrst", true, 0),
                block("uvwxyz", true, 0),
                block("€€€", true, 0),
                block("€", false, 0)
            ]
        );
    }

    #[test]
    fn huge_text_node_stays_bounded_and_whole() {
        let settings = HtmlSettings {
            max_block_bytes: 1000,
            ..HtmlSettings::default()
        };
        let mut parser = BlockParser::new(settings);
        let mut out = Vec::new();
        parser.write("<p>", &mut out).unwrap();
        let piece = "word &amp; ".repeat(1000);
        for _ in 0..100 {
            parser.write(&piece, &mut out).unwrap();
            let s = parser.state.borrow();
            assert!(s.run.text.len() <= 1000 && s.run.pending_raw.len() <= MAX_PENDING_RAW + piece.len());
        }
        parser.end(&mut out).unwrap();
        assert!(out.len() > 100 && out.iter().all(|b| b.text.len() <= 1000));
        assert!(out[..out.len() - 1].iter().all(|b| b.truncated));
        let all: Vec<&str> = out.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(all.join(" "), "word & ".repeat(100_000).trim_end());
    }

    #[test]
    fn a_long_title_is_read_once_and_held_bounded() {
        let mut parser = BlockParser::new(HtmlSettings::default());
        let mut out = Vec::new();
        parser.write("<title>A long title ", &mut out).unwrap();
        let words = "and its words ".repeat(1000);
        for _ in 0..100 {
            parser.write(&words, &mut out).unwrap();
            let held = parser.state.borrow().title.raw.len();
            assert!(held <= MAX_TITLE_HELD_BYTES + 2 * super::super::PIECE_BYTES);
        }
        parser.write("</title>", &mut out).unwrap();
        let (result, page) = parser.end_page(&mut out);
        assert!(result.is_ok() && out.is_empty());
        let title = page.title.unwrap_or_default();
        assert!(title.starts_with("A long title and its words"), "{title:?}");
        // Markup after that much of a title: it lost its end tag, and the page is read from the
        // chunk that holds the markup on (the text before stays the title's).
        let mut parser = BlockParser::new(HtmlSettings::default());
        parser.write("<title>A long title ", &mut out).unwrap();
        for _ in 0..100 {
            parser.write(&words, &mut out).unwrap();
        }
        parser.write("<b>bold</b><p>After.</p>", &mut out).unwrap();
        let (result, page) = parser.end_page(&mut out);
        assert!(result.is_ok());
        assert_eq!(page.title, None);
        let texts: Vec<&str> = out.iter().map(|b| b.text.as_str()).collect();
        assert!(
            texts.len() == 2 && texts[0].ends_with("bold") && texts[1] == "After.",
            "{texts:?}"
        );
        assert!(texts[0].len() <= 2 * super::super::PIECE_BYTES);
    }
}
