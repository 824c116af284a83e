//! HTML to blocks: drives lol_html over a UTF-8 stream and cuts its text into [`Block`]s.
//!
//! lol_html never builds a tree, so this stage keeps a small, bounded stack of the block-level
//! elements that are open and applies the HTML rules that close `p`, `li`, `td`, … implicitly.
//! Text is cut into a new block at every block-level start or end tag, and at `br`, `hr` and
//! each line of a `pre`. The text of `script`, `style`, `noscript`, `template`, `svg`, `math`,
//! `select`, `iframe`, `object`, media elements, `textarea`, the page `title` (unless asked for)
//! and comments is dropped. Entities are decoded per text node (lol_html leaves them as they are)
//! and whitespace is collapsed. U+0000 is dropped from text (as the HTML tree builder drops it)
//! and the other C0 control characters count as white space, so no control character but the
//! block separators of the output ever reaches it.
//!
//! Memory is bounded by [`HtmlSettings`]: lol_html's own buffers, the longest block, and the
//! stack depth; nothing here grows with the document. lol_html keeps every element whose end tag
//! it has not seen on a stack charged to `max_parser_memory`, so a page of many unclosed elements
//! (`<li>` after `<li>`, deep nesting) would fill it and end the document. This stage counts those
//! elements and, past a bound derived from `max_parser_memory` ([`max_open_elements`]), restarts
//! lol_html just before the next start tag with a fresh stack: the open elements this stage
//! tracks (its block stack, the skipped element, the title and link it is in) are replayed to the
//! new parser as bare start tags, so their end tags still count; the others are forgotten. Text
//! keeps flowing, tracked less precisely, and the document is never cut. The decision depends on
//! the content alone: lol_html is fed in pieces that end at fixed stream offsets ([`PIECE_BYTES`]),
//! whatever the sizes of the pieces given to [`BlockParser::write`].

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::OnceLock;

use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{ElementContentHandlers, HtmlRewriter, MemorySettings, Selector, Settings};

use crate::block::{Block, BlockKind, ContainerHints, PageInfo};

/// Limits and switches of the HTML stage.
#[derive(Clone, Debug)]
pub struct HtmlSettings {
    /// Text of one block past this many bytes is dropped and the block marked `truncated`.
    pub max_block_bytes: usize,
    /// Hard cap on lol_html's own buffers (a tag or attribute longer than this ends the document).
    pub max_parser_memory: usize,
    /// Emit the page `<title>` as a heading block.
    pub keep_title: bool,
    /// Also gather the page's canonical link and CleanEval wrapper ([`PageInfo`]; the title is
    /// gathered always): two more selectors for lol_html to match, so only when asked.
    pub page_links: bool,
}

impl Default for HtmlSettings {
    fn default() -> HtmlSettings {
        HtmlSettings {
            max_block_bytes: 64 * 1024,
            max_parser_memory: 8 * 1024 * 1024,
            keep_title: false,
            page_links: false,
        }
    }
}

/// An HTML parse that cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    /// A single tag needed more memory than `max_parser_memory`.
    #[error("a tag is larger than the parser memory limit ({0} bytes); the rest of the document was skipped")]
    MemoryLimit(usize),
    /// Anything else lol_html refused.
    #[error("HTML parser error: {0}")]
    Parser(#[source] lol_html::errors::RewritingError),
    /// lol_html asked to go on from a point outside the piece it was given.
    #[error("HTML parser error: restart point outside the parsed piece")]
    RestartOutsidePiece,
}

/// The most block elements kept open at once; deeper nesting is treated as flat.
const MAX_STACK_DEPTH: usize = 256;

/// Raw text of one text node held before its entities are decoded; longer nodes are decoded in pieces.
const MAX_PENDING_RAW: usize = 16 * 1024;

/// lol_html is given the document in pieces that end at multiples of this many bytes of the
/// stream (fewer for a small memory limit: [`piece_bytes`]), so what it sees, and where this
/// stage restarts it, do not depend on the caller's pieces.
const PIECE_BYTES: usize = 16 * 1024;

/// The size of the pieces lol_html is given: [`PIECE_BYTES`], or a quarter of a smaller memory
/// limit (lol_html appends a piece to the unfinished tag it buffers, within the limit).
fn piece_bytes(max_parser_memory: usize) -> usize {
    (max_parser_memory / 4).clamp(256, PIECE_BYTES)
}

/// What lol_html 3.0 charges to its memory limit for each element on its stack of open elements
/// (one `StackItem`, about 128 bytes; the stack grows by doubling).
const LOL_OPEN_ELEMENT_BYTES: usize = 128;

/// The fewest open elements a restart waits for, however small the memory limit.
const MIN_OPEN_ELEMENTS: usize = 8;

/// How many open elements lol_html may hold before it is restarted: its stack then takes at most
/// a quarter of `max_parser_memory` (a power of two of items, with room for the few elements
/// pushed before the restart point comes), leaving the rest for the tags it buffers.
fn max_open_elements(max_parser_memory: usize) -> usize {
    let items = max_parser_memory / 4 / LOL_OPEN_ELEMENT_BYTES;
    match items.checked_next_power_of_two() {
        Some(p) if p == items => p,
        Some(p) => p / 2,
        None => usize::MAX / 2 + 1,
    }
    .saturating_sub(4)
    .max(MIN_OPEN_ELEMENTS)
}

/// The error a handler returns to stop lol_html where [`State::restart_at`] says.
#[derive(Debug)]
struct Restart;

impl std::fmt::Display for Restart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("restart the parser")
    }
}

impl std::error::Error for Restart {}

/// What a tag does to the text stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// A block-level element: a boundary at its start and end, pushed on the stack.
    Block,
    /// A void element that only cuts the text (`br`, `hr`).
    Break,
    /// An element whose text is dropped.
    Skip,
    /// `<a>`: text inside counts as link text.
    Link,
    /// `<title>`.
    Title,
}

/// Every tag this stage reacts to; all others are inline and transparent.
const TAGS: &[(&str, Role)] = &[
    ("p", Role::Block),
    ("div", Role::Block),
    ("li", Role::Block),
    ("ul", Role::Block),
    ("ol", Role::Block),
    ("dl", Role::Block),
    ("dt", Role::Block),
    ("dd", Role::Block),
    ("h1", Role::Block),
    ("h2", Role::Block),
    ("h3", Role::Block),
    ("h4", Role::Block),
    ("h5", Role::Block),
    ("h6", Role::Block),
    ("table", Role::Block),
    ("caption", Role::Block),
    ("thead", Role::Block),
    ("tbody", Role::Block),
    ("tfoot", Role::Block),
    ("tr", Role::Block),
    ("td", Role::Block),
    ("th", Role::Block),
    ("pre", Role::Block),
    ("blockquote", Role::Block),
    ("section", Role::Block),
    ("article", Role::Block),
    ("header", Role::Block),
    ("footer", Role::Block),
    ("nav", Role::Block),
    ("aside", Role::Block),
    ("main", Role::Block),
    ("form", Role::Block),
    ("fieldset", Role::Block),
    ("legend", Role::Block),
    ("label", Role::Block),
    ("address", Role::Block),
    ("center", Role::Block),
    ("figure", Role::Block),
    ("figcaption", Role::Block),
    ("details", Role::Block),
    ("summary", Role::Block),
    ("dialog", Role::Block),
    ("menu", Role::Block),
    ("dir", Role::Block),
    ("hgroup", Role::Block),
    ("body", Role::Block),
    ("html", Role::Block),
    ("frameset", Role::Block),
    ("option", Role::Block),
    ("br", Role::Break),
    ("hr", Role::Break),
    ("script", Role::Skip),
    ("style", Role::Skip),
    ("noscript", Role::Skip),
    ("template", Role::Skip),
    ("svg", Role::Skip),
    ("math", Role::Skip),
    ("select", Role::Skip),
    ("iframe", Role::Skip),
    ("object", Role::Skip),
    ("applet", Role::Skip),
    ("audio", Role::Skip),
    ("video", Role::Skip),
    ("canvas", Role::Skip),
    ("datalist", Role::Skip),
    ("textarea", Role::Skip),
    ("noframes", Role::Skip),
    ("a", Role::Link),
    ("title", Role::Title),
];

/// Index of a tag in [`TAGS`]; the stack holds these, not strings.
type TagId = u8;

fn tag_name(id: TagId) -> &'static str {
    TAGS[id as usize].0
}

fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Everything the lol_html handlers share while a document is parsed.
struct State {
    /// What the page says about itself (title, canonical link, CleanEval wrapper).
    page: PageInfo,
    settings: HtmlSettings,
    /// Open block elements, innermost last.
    stack: Vec<TagId>,
    /// What each open block element's tag, class and id suggest ([`ContainerHints`] bits),
    /// parallel to `stack`.
    hints: Vec<u8>,
    /// The number of each open block element in the document ([`Block::containers`]), parallel
    /// to `stack`.
    numbers: Vec<u32>,
    /// The number the next block element gets.
    next_number: u32,
    skip_depth: u32,
    /// The element that took `skip_depth` from 0 (replayed if lol_html is restarted inside it).
    skip_outer: TagId,
    link_depth: u32,
    in_title: bool,
    /// Raw (entity-encoded) text of the current text node not yet decoded.
    pending_raw: String,
    pending_in_link: bool,
    /// The block being filled.
    text: String,
    link_bytes: usize,
    truncated: bool,
    pending_space: bool,
    /// The kind fixed by the element the block's text started in.
    next_index: u32,
    /// Blocks finished and not yet taken by the caller.
    done: Vec<Block>,
    /// A copy of the piece of HTML being parsed, so element handlers can read tag names from the
    /// source instead of having lol_html allocate them.
    input: Vec<u8>,
    /// Source offset of `input`'s first byte in the current lol_html parser (its source locations
    /// count from the start of what that parser was given, replayed tags included).
    input_start: usize,
    /// Elements on lol_html's stack: start tags of elements that can have content, less the
    /// end-tag handlers run (every such element gets one).
    open: usize,
    /// [`max_open_elements`] for the settings.
    max_open: usize,
    /// Source offset where the replayed start tags end: elements before it are replays.
    replay_end: usize,
    /// Source offset of the start tag before which the current parser is to be replaced.
    restart_at: Option<usize>,
    /// Raw text of the current `<title>`, up to [`MAX_TITLE_BYTES`] and a text chunk more.
    title_raw: String,
    /// A title whose end tag is missing or broken: the HTML parser takes the rest of the page
    /// for its text, while libxml2 and the browsers before HTML5 showed the page. A title longer
    /// than [`MAX_TITLE_BYTES`] with markup in it is taken for one, and its text is parsed as
    /// HTML by this inner parser (which does not nest another).
    broken_title: Option<Box<BlockParser>>,
    /// The number of the first element of `broken_title` in this document.
    broken_title_base: u32,
    /// False in the parser of a broken title, and once one failed in this document.
    may_nest: bool,
}

/// A `<title>` longer than this, with a `<` in it, has lost its end tag ([`State::broken_title`]).
const MAX_TITLE_BYTES: usize = 1024;

impl State {
    fn new(settings: HtmlSettings) -> State {
        let settings_memory = settings.max_parser_memory;
        State {
            settings,
            stack: Vec::new(),
            hints: Vec::new(),
            numbers: Vec::new(),
            next_number: 0,
            skip_depth: 0,
            skip_outer: 0,
            link_depth: 0,
            in_title: false,
            pending_raw: String::new(),
            pending_in_link: false,
            text: String::new(),
            link_bytes: 0,
            truncated: false,
            pending_space: false,
            next_index: 0,
            done: Vec::new(),
            input: Vec::new(),
            input_start: 0,
            open: 0,
            max_open: max_open_elements(settings_memory),
            replay_end: 0,
            restart_at: None,
            title_raw: String::new(),
            page: PageInfo::default(),
            broken_title: None,
            broken_title_base: 0,
            may_nest: true,
        }
    }

    /// The kind of text written now, from the innermost element that decides it.
    fn current_kind(&self) -> BlockKind {
        for &id in self.stack.iter().rev() {
            match tag_name(id) {
                name if is_heading(name) => return BlockKind::Heading,
                "li" | "dt" | "dd" => return BlockKind::ListItem,
                "td" | "th" => return BlockKind::TableCell,
                "pre" => return BlockKind::Preformatted,
                "form" | "fieldset" | "legend" | "label" | "option" => return BlockKind::Form,
                "p" | "blockquote" | "caption" | "figcaption" | "address" | "summary" => {
                    return BlockKind::Paragraph
                }
                _ => {}
            }
        }
        BlockKind::Paragraph
    }

    /// Ends the current block, if it holds any text.
    fn flush_block(&mut self) {
        self.decode_pending(true);
        self.pending_space = false;
        if self.text.is_empty() {
            self.truncated = false;
            return;
        }
        let kind = if self.in_title {
            BlockKind::Heading
        } else {
            self.current_kind()
        };
        let block = Block {
            index: self.next_index,
            kind,
            // An exact-size copy: `self.text` keeps its capacity for the next block, so no block
            // grows by reallocation.
            text: self.text.as_str().to_owned(),
            link_bytes: std::mem::take(&mut self.link_bytes),
            truncated: std::mem::take(&mut self.truncated),
            sentences: Vec::new(),
            evidence: Default::default(),
            hints: if self.in_title {
                ContainerHints(ContainerHints::TITLE)
            } else {
                self.open_hints()
            },
            containers: self.numbers.clone(),
        };
        self.text.clear();
        self.next_index = self.next_index.saturating_add(1);
        self.done.push(block);
    }

    /// Decodes the held raw text into the block; with `all == false` a possible entity at the end is kept back.
    fn decode_pending(&mut self, all: bool) {
        if self.pending_raw.is_empty() {
            return;
        }
        let cut = if all {
            self.pending_raw.len()
        } else {
            // An entity is at most 32 bytes long: keep back a trailing '&' run that may be unfinished.
            let tail_start =
                floor_char_boundary(&self.pending_raw, self.pending_raw.len().saturating_sub(40));
            match self.pending_raw[tail_start..].rfind('&') {
                Some(amp) => tail_start + amp,
                None => self.pending_raw.len(),
            }
        };
        let cut = floor_char_boundary(&self.pending_raw, cut);
        // Taken out (not copied) so it can be read while `self` changes; its buffer is put back.
        let mut raw = std::mem::take(&mut self.pending_raw);
        let in_link = self.pending_in_link;
        self.decode_str(&raw[..cut], in_link);
        debug_assert!(self.pending_raw.is_empty());
        raw.drain(..cut);
        self.pending_raw = raw;
    }

    /// Decodes the entities of `raw` (a whole number of them) into the block.
    fn decode_str(&mut self, raw: &str, in_link: bool) {
        // Borrows the text unchanged when it holds no '&' (htmlize scans for it with memchr).
        let decoded = htmlize::unescape(raw);
        if memchr::memchr(0, decoded.as_bytes()).is_some() {
            let without_nul = decoded.replace('\0', "");
            self.append_decoded(&without_nul, in_link);
        } else {
            self.append_decoded(&decoded, in_link);
        }
    }

    /// Appends decoded text with whitespace collapsed; a newline in `pre` starts a new block.
    fn append_decoded(&mut self, decoded: &str, in_link: bool) {
        let preformatted = memchr::memchr(b'\n', decoded.as_bytes()).is_some()
            && self.stack.iter().any(|&id| tag_name(id) == "pre");
        if !preformatted {
            self.append_words(decoded, in_link);
            return;
        }
        for (i, line) in decoded.split('\n').enumerate() {
            if i > 0 {
                self.flush_block_keep_pending();
            }
            self.append_words(line, in_link);
        }
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
                self.pending_space = true;
                i += n;
                continue;
            }
            let start = i;
            loop {
                // Byte steps are fine: UTF-8 continuation bytes never start white space.
                while i < bytes.len() && space_len(text, i) == 0 {
                    i += 1;
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

    /// Appends `run`, words separated by single spaces (and the pending space before it); when it
    /// does not fit, word by word, so the block is cut after the same word as [`Self::push_word`] does.
    fn push_run(&mut self, run: &str, in_link: bool) {
        if self.truncated {
            return;
        }
        match self.room_for(run) {
            Some(space) => self.append(run, space, in_link),
            None => {
                for (j, word) in run.split(' ').enumerate() {
                    if j > 0 {
                        self.pending_space = true;
                    }
                    self.push_word(word, in_link);
                }
            }
        }
    }

    /// Appends one word (and the pending space before it), unless the block is full.
    fn push_word(&mut self, word: &str, in_link: bool) {
        if self.truncated {
            return;
        }
        match self.room_for(word) {
            Some(space) => self.append(word, space, in_link),
            None => self.truncated = true,
        }
    }

    /// The bytes of pending space (0 or 1) before `piece`, if both fit in the block.
    fn room_for(&self, piece: &str) -> Option<usize> {
        let space = usize::from(self.pending_space && !self.text.is_empty());
        (self.text.len() + space + piece.len() <= self.settings.max_block_bytes).then_some(space)
    }

    /// Appends `space` (0 or 1) bytes of space and `piece`, counting them as link text if `in_link`.
    fn append(&mut self, piece: &str, space: usize, in_link: bool) {
        if space == 1 {
            self.text.push(' ');
        }
        self.text.push_str(piece);
        if in_link {
            self.link_bytes += piece.len() + space;
        }
        self.pending_space = false;
    }

    /// Like [`flush_block`] but from inside decoding, where the pending raw text is already taken.
    fn flush_block_keep_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending_raw);
        self.flush_block();
        self.pending_raw = pending;
    }

    /// The [`tag_id`] of the start tag at stream bytes `at`, read from the source: `None` when
    /// the tag is not all in the current piece or its name is not plain ASCII letters and digits
    /// (then lol_html's `tag_name()` decides). lol_html ends a tag name at ASCII white space,
    /// `/` or `>` and lower-cases it, as done here.
    fn tag_id_from_source(&self, at: std::ops::Range<usize>) -> Option<Option<TagId>> {
        let start = at.start.checked_sub(self.input_start)?;
        let tag = self
            .input
            .get(start..at.end.checked_sub(self.input_start)?)?;
        let rest = tag.strip_prefix(b"<")?;
        let len = rest
            .iter()
            .position(|&b| matches!(b, b' ' | b'\n' | b'\r' | b'\t' | 0x0c | b'/' | b'>'))?;
        let name = &rest[..len];
        if name.is_empty() || !name.iter().all(u8::is_ascii_alphanumeric) {
            return None;
        }
        Some(tag_id_ascii(name))
    }

    fn text_allowed(&self) -> bool {
        self.skip_depth == 0
    }

    fn on_text(&mut self, chunk: &TextChunk) {
        if chunk.text_type() == TextType::RCData
            && self.in_title
            && self.on_title_text(chunk.as_str())
        {
            return;
        }
        let allowed = match chunk.text_type() {
            TextType::Data | TextType::CDataSection => self.text_allowed() && !self.in_title,
            TextType::RCData => self.in_title && self.settings.keep_title,
            _ => false,
        };
        if allowed {
            let in_link = self.link_depth > 0;
            if in_link != self.pending_in_link {
                self.decode_pending(true);
                self.pending_in_link = in_link;
            }
            // Held even when the node may be whole: lol_html sends a text node's content with
            // `last_in_text_node() == false`, then an empty last chunk.
            self.pending_raw.push_str(chunk.as_str());
            if self.pending_raw.len() > MAX_PENDING_RAW {
                self.decode_pending(false);
            }
        }
        if chunk.last_in_text_node() {
            self.decode_pending(true);
        }
    }

    /// Watches a title's raw text for a missing end tag; true when `raw` went to the parser of
    /// a broken title ([`State::broken_title`]).
    fn on_title_text(&mut self, raw: &str) -> bool {
        if self.broken_title.is_none() {
            if !self.may_nest {
                return false;
            }
            self.title_raw.push_str(raw);
            if self.title_raw.len() <= MAX_TITLE_BYTES || !self.title_raw.contains('<') {
                return false;
            }
            // Not a title: what was held of it as a heading (with --title) goes, and its text so
            // far is the start of the page.
            self.pending_raw.clear();
            self.text.clear();
            self.link_bytes = 0;
            let settings = HtmlSettings {
                keep_title: false,
                ..self.settings.clone()
            };
            let inner = BlockParser::new(settings);
            inner.state.borrow_mut().may_nest = false;
            self.broken_title = Some(Box::new(inner));
            self.broken_title_base = self.next_number;
            let held = std::mem::take(&mut self.title_raw);
            self.parse_broken_title(&held);
        } else {
            self.parse_broken_title(raw);
        }
        true
    }

    /// Gives `raw` to the parser of a broken title, taking its blocks as this document's; when
    /// it fails, the guess was wrong (its text does not parse as a page either): the rest of
    /// the title is a title again, as without the guess, and no other is tried here.
    fn parse_broken_title(&mut self, raw: &str) {
        let inner = self.broken_title.as_mut().expect("a broken title");
        let mut blocks = Vec::new();
        let result = inner.write(raw, &mut blocks);
        // The page's element numbers go on after the ones the inner parser gave.
        let elements = inner.state.borrow().next_number;
        self.next_number = self.broken_title_base.saturating_add(elements);
        self.adopt(blocks);
        if result.is_err() {
            self.broken_title = None;
            self.may_nest = false;
        }
    }

    /// Takes blocks of the parser of a broken title as this document's: numbered after the
    /// blocks so far, inside the elements open here.
    fn adopt(&mut self, blocks: Vec<Block>) {
        for mut block in blocks {
            block.index = self.next_index;
            self.next_index = self.next_index.saturating_add(1);
            let inner = std::mem::take(&mut block.containers);
            let base = self.broken_title_base;
            block.containers = self
                .numbers
                .iter()
                .copied()
                .chain(inner.into_iter().map(|n| base.saturating_add(n)))
                .collect();
            block.hints = ContainerHints(block.hints.0 | self.open_hints().0);
            self.done.push(block);
        }
    }

    /// What the open block elements suggest, all together.
    fn open_hints(&self) -> ContainerHints {
        ContainerHints(self.hints.iter().fold(0, |all, &h| all | h))
    }

    /// At the end of a title (its end tag or the document's end): ends the parser of a broken one.
    fn end_title(&mut self) {
        if self.page.title.is_none() && self.broken_title.is_none() {
            self.page.title = PageInfo::clean(&htmlize::unescape(&self.title_raw));
        }
        self.title_raw.clear();
        if let Some(inner) = self.broken_title.take() {
            let mut blocks = Vec::new();
            if inner.end(&mut blocks).is_err() {
                self.may_nest = false;
            }
            self.adopt(blocks);
        }
    }

    fn on_block_start(&mut self, id: TagId, hints: u8) {
        self.flush_block();
        self.close_implied_by(tag_name(id));
        if self.stack.len() < MAX_STACK_DEPTH {
            self.stack.push(id);
            self.hints.push(hints);
            self.numbers.push(self.next_number);
        }
        self.next_number = self.next_number.saturating_add(1);
    }

    fn on_block_end(&mut self, id: TagId) {
        self.flush_block();
        if let Some(pos) = self.stack.iter().rposition(|&open| open == id) {
            self.truncate_stack(pos);
        }
    }

    /// Gets ready for a new lol_html parser, returning the start tags to give it first: the
    /// innermost tracked block elements (as many as leave half of [`max_open_elements`] free),
    /// then the skipped element, the title and the link the text is in. Their handlers count them
    /// and run their end tags as the originals' would; what they did at the start is kept here.
    fn replay_for_restart(&mut self) -> String {
        let skip = self.skip_depth > 0;
        let (title, link) = (self.in_title, self.link_depth > 0);
        let room = (self.max_open / 2)
            .saturating_sub(usize::from(skip) + usize::from(title) + usize::from(link));
        let blocks = &self.stack[self.stack.len() - room.min(self.stack.len())..];
        let names = blocks
            .iter()
            .map(|&id| tag_name(id))
            .chain(skip.then(|| tag_name(self.skip_outer)))
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
            self.skip_depth = 1;
        }
        self.open = 0;
        self.input.clear();
        self.input_start = tags.len();
        self.replay_end = tags.len();
        self.restart_at = None;
        tags
    }

    /// Closes the open elements from `pos` on.
    fn truncate_stack(&mut self, pos: usize) {
        self.stack.truncate(pos);
        self.hints.truncate(pos);
        self.numbers.truncate(pos);
    }

    /// Pops the elements a new start tag closes implicitly, as the HTML parser would.
    fn close_implied_by(&mut self, name: &str) {
        let (targets, barriers): (&[&str], &[&str]) = match name {
            "li" => (&["li"], &["ul", "ol", "menu", "dir", "table"]),
            "dt" | "dd" => (&["dt", "dd"], &["dl", "table"]),
            "td" | "th" => (&["td", "th"], &["tr", "table"]),
            "tr" => (&["tr"], &["table"]),
            "thead" | "tbody" | "tfoot" => (&["thead", "tbody", "tfoot"], &["table"]),
            "option" => (&["option"], &["select", "datalist"]),
            n if is_heading(n) => (&["h1", "h2", "h3", "h4", "h5", "h6"], &[]),
            _ => (&[], &[]),
        };
        // Any block start closes an open `p` directly above it.
        if self.stack.last().is_some_and(|&top| tag_name(top) == "p") {
            self.truncate_stack(self.stack.len() - 1);
        }
        if targets.is_empty() {
            return;
        }
        if is_heading(name) {
            if self
                .stack
                .last()
                .is_some_and(|&top| is_heading(tag_name(top)))
            {
                self.truncate_stack(self.stack.len() - 1);
            }
            return;
        }
        for pos in (0..self.stack.len()).rev() {
            let open = tag_name(self.stack[pos]);
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

/// The sink for lol_html's rewritten output, which this stage does not need.
type Discard = fn(&[u8]);

/// A lol_html parser whose handlers feed `state`.
fn new_rewriter(state: &Rc<RefCell<State>>, memory: usize) -> HtmlRewriter<'static, Discard> {
    let mut lol_settings = Settings::new()
        .with_memory_settings(MemorySettings::new().with_max_allowed_memory_usage(memory))
        .with_strict(false);
    // One handler for every element: matching 75 type selectors in lol_html's selector VM
    // costs more than reading the tag name and looking it up.
    let element_state = Rc::clone(state);
    lol_settings = lol_settings.append_element_content_handler((
        std::borrow::Cow::Owned("*".parse::<Selector>().expect("`*` is a valid selector")),
        ElementContentHandlers::default()
            .element(move |el: &mut Element<'_, '_>| on_start_tag(&element_state, el)),
    ));
    // What the page says about itself: the first canonical link, a CleanEval wrapper.
    let page_selectors: &[(&str, [&str; 2])] = if state.borrow().settings.page_links {
        &[
            ("link[rel~=canonical][href]", ["href", ""]),
            ("text[id]", ["id", "title"]),
        ]
    } else {
        &[]
    };
    for &(selector, attributes) in page_selectors {
        let page_state = Rc::clone(state);
        lol_settings = lol_settings.append_element_content_handler((
            std::borrow::Cow::Owned(selector.parse::<Selector>().expect("a valid selector")),
            ElementContentHandlers::default().element(move |el: &mut Element<'_, '_>| {
                let value = |name: &str| el.get_attribute(name).and_then(|v| PageInfo::clean(&v));
                let mut s = page_state.borrow_mut();
                let page = &mut s.page;
                if attributes[1].is_empty() {
                    page.canonical_url = page.canonical_url.take().or_else(|| value(attributes[0]));
                } else if page.wrapper_url.is_none() {
                    page.wrapper_url = value(attributes[0]);
                    page.wrapper_title = value(attributes[1]);
                }
                Ok(())
            }),
        ));
    }
    let text_state = Rc::clone(state);
    let settings = lol_settings.append_document_content_handler(
        lol_html::DocumentContentHandlers::default().text(move |chunk: &mut TextChunk| {
            text_state.borrow_mut().on_text(chunk);
            Ok(())
        }),
    );
    let discard: Discard = |_| {};
    HtmlRewriter::new(settings, discard)
}

/// A streaming HTML-to-blocks parser for one document.
pub struct BlockParser {
    rewriter: HtmlRewriter<'static, Discard>,
    state: Rc<RefCell<State>>,
    failed: bool,
    /// The start of the current piece, not yet given to lol_html.
    piece: Vec<u8>,
    /// The size of a piece ([`piece_bytes`]).
    piece_bytes: usize,
}

impl BlockParser {
    /// A parser for one document.
    pub fn new(settings: HtmlSettings) -> BlockParser {
        let memory = settings.max_parser_memory;
        let state = Rc::new(RefCell::new(State::new(settings)));
        let piece_bytes = piece_bytes(memory);
        BlockParser {
            rewriter: new_rewriter(&state, memory),
            state,
            failed: false,
            piece: Vec::new(),
            piece_bytes,
        }
    }

    /// Parses the next piece of the document, appending the blocks it completes to `out`.
    pub fn write(&mut self, html: &str, out: &mut Vec<Block>) -> Result<(), HtmlError> {
        let mut rest = html.as_bytes();
        let mut result = Ok(());
        while !rest.is_empty() && !self.failed {
            if self.piece.is_empty() && rest.len() >= self.piece_bytes {
                // A whole piece in the caller's text: given to lol_html without a copy here.
                let (piece, tail) = rest.split_at(self.piece_bytes);
                result = self.write_piece(piece);
                rest = tail;
                continue;
            }
            let (head, tail) = rest.split_at(rest.len().min(self.piece_bytes - self.piece.len()));
            self.piece.extend_from_slice(head);
            rest = tail;
            if self.piece.len() == self.piece_bytes {
                let piece = std::mem::take(&mut self.piece);
                result = self.write_piece(&piece);
                self.piece = piece;
                self.piece.clear();
            }
        }
        out.append(&mut self.state.borrow_mut().done);
        result
    }

    /// Ends the document, appending its last blocks to `out`.
    pub fn end(self, out: &mut Vec<Block>) -> Result<(), HtmlError> {
        self.end_page(out).0
    }

    /// [`BlockParser::end`], also giving what the page said about itself.
    pub fn end_page(mut self, out: &mut Vec<Block>) -> (Result<(), HtmlError>, PageInfo) {
        let mut result = Ok(());
        if !self.failed && !self.piece.is_empty() {
            let piece = std::mem::take(&mut self.piece);
            result = self.write_piece(&piece);
        }
        let BlockParser {
            rewriter,
            state,
            failed,
            ..
        } = self;
        let memory = state.borrow().settings.max_parser_memory;
        if !failed {
            result = rewriter.end().map_err(|e| parser_error(e, memory));
        }
        let mut state = state.borrow_mut();
        state.flush_block();
        state.end_title();
        out.append(&mut state.done);
        (result, std::mem::take(&mut state.page))
    }

    /// Gives lol_html one piece (or the start of the last one), replacing the parser as often as
    /// the handlers ask (see [`State::restart_at`]).
    fn write_piece(&mut self, mut bytes: &[u8]) -> Result<(), HtmlError> {
        loop {
            {
                let mut s = self.state.borrow_mut();
                s.input_start += s.input.len();
                s.input.clear();
                s.input.extend_from_slice(bytes);
            }
            let result = self.rewriter.write(bytes);
            let restart_at = self.state.borrow_mut().restart_at.take();
            let rest = match (result, restart_at) {
                (Ok(()), _) => return Ok(()),
                (Err(e), None) => return Err(self.fail(e)),
                (Err(_), Some(at)) => {
                    let input_start = self.state.borrow().input_start;
                    at.checked_sub(input_start)
                        .and_then(|skip| bytes.get(skip..))
                }
            };
            let Some(rest) = rest else {
                // The handler only asks for a point in this piece; nothing else is parsed here.
                self.failed = true;
                return Err(HtmlError::RestartOutsidePiece);
            };
            bytes = rest;
            self.restart()?;
        }
    }

    /// Replaces lol_html by a fresh parser with an empty stack, given the start tags of the
    /// elements this stage still tracks (so their end tags keep working).
    fn restart(&mut self) -> Result<(), HtmlError> {
        let (tags, memory) = {
            let mut s = self.state.borrow_mut();
            (s.replay_for_restart(), s.settings.max_parser_memory)
        };
        self.rewriter = new_rewriter(&self.state, memory);
        match self.rewriter.write(tags.as_bytes()) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Marks the parse as given up, with the error to report.
    fn fail(&mut self, e: lol_html::errors::RewritingError) -> HtmlError {
        self.failed = true;
        parser_error(e, self.state.borrow().settings.max_parser_memory)
    }
}

/// An error of lol_html as this stage reports it.
fn parser_error(e: lol_html::errors::RewritingError, max_parser_memory: usize) -> HtmlError {
    match e {
        lol_html::errors::RewritingError::MemoryLimitExceeded(_) => {
            HtmlError::MemoryLimit(max_parser_memory)
        }
        other => HtmlError::Parser(other),
    }
}
/// The index in [`TAGS`] of a (lower-case) tag name, if this stage reacts to it.
fn tag_id(name: &str) -> Option<TagId> {
    static SORTED: OnceLock<Vec<(&'static str, TagId)>> = OnceLock::new();
    let sorted = SORTED.get_or_init(|| {
        let mut names: Vec<(&'static str, TagId)> = TAGS
            .iter()
            .enumerate()
            .map(|(id, &(name, _))| (name, id as TagId))
            .collect();
        names.sort_unstable();
        names
    });
    sorted
        .binary_search_by(|&(n, _)| n.cmp(name))
        .ok()
        .map(|i| sorted[i].1)
}

/// [`tag_id`] of an ASCII name in any case, without allocating: names of up to 16 bytes are
/// packed into a `u128` key (longer ones are not in [`TAGS`]).
fn tag_id_ascii(name: &[u8]) -> Option<TagId> {
    fn key(name: &[u8]) -> Option<u128> {
        let mut buf = [0u8; 16];
        buf.get_mut(..name.len())?.copy_from_slice(name);
        buf.make_ascii_lowercase();
        Some(u128::from_le_bytes(buf))
    }
    static SORTED: OnceLock<Vec<(u128, TagId)>> = OnceLock::new();
    let sorted = SORTED.get_or_init(|| {
        let mut keys: Vec<(u128, TagId)> = TAGS
            .iter()
            .enumerate()
            .map(|(id, &(name, _))| {
                (
                    key(name.as_bytes()).expect("tag names are short"),
                    id as TagId,
                )
            })
            .collect();
        keys.sort_unstable();
        keys
    });
    let key = key(name)?;
    sorted
        .binary_search_by(|&(k, _)| k.cmp(&key))
        .ok()
        .map(|i| sorted[i].1)
}

/// Every start tag: counts the elements lol_html keeps open, asks for a restart before this tag
/// when they are too many, and hands known elements to [`on_element`].
fn on_start_tag(state: &Rc<RefCell<State>>, el: &mut Element<'_, '_>) -> lol_html::HandlerResult {
    let at = el.source_location().bytes();
    let known = {
        let mut s = state.borrow_mut();
        if at.start < s.replay_end {
            None
        } else if s.open >= s.max_open && at.start >= s.input_start {
            // lol_html stops here; the parser is replaced and given the source from this tag on.
            s.restart_at = Some(at.start);
            return Err(Box::new(Restart));
        } else {
            if el.can_have_content() {
                s.open += 1;
            }
            Some(s.tag_id_from_source(at))
        }
    };
    let Some(known) = known else {
        return on_replayed_element(state, el);
    };
    match known.unwrap_or_else(|| tag_id(&el.tag_name())) {
        Some(id) => on_element(state, el, id),
        None => count_end_tag(state, el),
    }
}

/// What happens at the start tag of a known element (and, through a handler, at its end tag).
fn on_element(
    state: &Rc<RefCell<State>>,
    el: &mut Element<'_, '_>,
    id: TagId,
) -> lol_html::HandlerResult {
    let role = TAGS[id as usize].1;
    {
        let mut s = state.borrow_mut();
        match role {
            Role::Block => s.on_block_start(id, container_hints(el, id)),
            Role::Break => s.flush_block(),
            Role::Skip => {
                if s.skip_depth == 0 {
                    s.skip_outer = id;
                }
                s.skip_depth += 1;
            }
            // An `<a>` inside an unclosed `<a>` closes it, as browsers do.
            Role::Link => s.link_depth = 1,
            Role::Title => {
                s.flush_block();
                s.in_title = true;
            }
        }
    }
    if !el.can_have_content() {
        if role == Role::Skip {
            state.borrow_mut().skip_depth -= 1;
        }
        return Ok(());
    }
    on_end_of(state, el, id)
}

/// A start tag replayed to a new parser ([`State::replay_for_restart`]): its start was handled
/// by the parser before, its end tag does what the original's would have.
fn on_replayed_element(
    state: &Rc<RefCell<State>>,
    el: &mut Element<'_, '_>,
) -> lol_html::HandlerResult {
    if !el.can_have_content() {
        return Ok(());
    }
    state.borrow_mut().open += 1;
    match tag_id(&el.tag_name()) {
        Some(id) => on_end_of(state, el, id),
        None => count_end_tag(state, el),
    }
}

/// Sets what the end tag of a known element that can have content does.
fn on_end_of(
    state: &Rc<RefCell<State>>,
    el: &mut Element<'_, '_>,
    id: TagId,
) -> lol_html::HandlerResult {
    let role = TAGS[id as usize].1;
    let end_state = Rc::clone(state);
    el.on_end_tag(Box::new(move |_end| {
        let mut s = end_state.borrow_mut();
        s.open = s.open.saturating_sub(1);
        match role {
            Role::Block => s.on_block_end(id),
            Role::Break => {}
            Role::Skip => s.skip_depth = s.skip_depth.saturating_sub(1),
            Role::Link => s.link_depth = 0,
            Role::Title => {
                s.flush_block();
                s.end_title();
                s.in_title = false;
            }
        }
        Ok(())
    }))
}

/// For an element this stage ignores: its end tag (or an enclosing one) only takes it off the
/// count of open elements.
fn count_end_tag(state: &Rc<RefCell<State>>, el: &mut Element<'_, '_>) -> lol_html::HandlerResult {
    if !el.can_have_content() {
        return Ok(());
    }
    let end_state = Rc::clone(state);
    el.on_end_tag(Box::new(move |_end| {
        let mut s = end_state.borrow_mut();
        s.open = s.open.saturating_sub(1);
        Ok(())
    }))
}
/// What an element's tag name, `class` and `id` suggest about the text inside it.
fn container_hints(el: &Element<'_, '_>, id: TagId) -> u8 {
    let mut hints = match tag_name(id) {
        "nav" => ContainerHints::NAVIGATION,
        "footer" | "aside" => ContainerHints::PERIPHERY,
        "article" | "main" => ContainerHints::CONTENT,
        _ => 0,
    };
    for attribute in ["class", "id"] {
        if let Some(value) = el.get_attribute(attribute) {
            hints |= ContainerHints::of_names(&value);
        }
    }
    // ARIA landmarks and schema.org's article body say the same in a standard way.
    if let Some(role) = el.get_attribute("role") {
        hints |= ContainerHints::of_role(&role);
    }
    if el.get_attribute("itemprop").is_some_and(|v| {
        v.split_ascii_whitespace()
            .any(|w| w.eq_ignore_ascii_case("articleBody"))
    }) {
        hints |= ContainerHints::CONTENT;
    }
    hints
}

/// Parses a whole in-memory page: a convenience for tests and tools; streams do not need it.
pub fn blocks_from_str(html: &str, settings: &HtmlSettings) -> Result<Vec<Block>, HtmlError> {
    let mut parser = BlockParser::new(settings.clone());
    let mut blocks = Vec::new();
    parser.write(html, &mut blocks)?;
    parser.end(&mut blocks)?;
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(html: &str) -> Vec<(BlockKind, String)> {
        blocks_from_str(html, &HtmlSettings::default())
            .unwrap()
            .into_iter()
            .map(|b| (b.kind, b.text))
            .collect()
    }

    fn texts(html: &str) -> Vec<String> {
        blocks(html).into_iter().map(|(_, t)| t).collect()
    }

    #[test]
    fn every_tag_is_found() {
        assert!(TAGS.len() < 256);
        for (id, (name, _)) in TAGS.iter().enumerate() {
            assert_eq!(tag_id(name), Some(id as TagId), "{name}");
        }
        assert_eq!(tag_id("span"), None);
        for (id, (name, _)) in TAGS.iter().enumerate() {
            assert_eq!(
                tag_id_ascii(name.to_ascii_uppercase().as_bytes()),
                Some(id as TagId),
                "{name}"
            );
        }
        assert_eq!(tag_id_ascii(b"span"), None);
        assert_eq!(tag_id_ascii(b"blockquoteblockquote"), None);
        assert_eq!(tag_id(""), None);
    }

    #[test]
    fn cuts_at_block_elements_and_br() {
        assert_eq!(
            texts("<div>One <b>bold</b> word<p>Two</p>three<br>four<hr>five</div>"),
            ["One bold word", "Two", "three", "four", "five"]
        );
    }

    #[test]
    fn drops_script_style_comments_and_title() {
        let html = "<html><head><title>T</title><style>p{}</style><script>var x='<p>no</p>';</script></head>\
                    <body><!-- hidden --><p>Kept<noscript>gone</noscript></p><svg><text>vector</text></svg></body></html>";
        assert_eq!(texts(html), ["Kept"]);
    }

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
    fn landmark_roles_and_article_body_are_hints() {
        let html = "<div role=navigation><p>Menu</p></div><div itemprop=\"articleBody\"><p>Text.</p></div><div role=complementary><p>Aside</p></div>";
        let hints: Vec<u8> = blocks_from_str(html, &HtmlSettings::default())
            .unwrap()
            .into_iter()
            .map(|b| b.hints.0)
            .collect();
        assert_eq!(
            hints,
            [
                ContainerHints::NAVIGATION,
                ContainerHints::CONTENT,
                ContainerHints::PERIPHERY
            ]
        );
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
                (BlockKind::Preformatted, "a b".to_string()),
                (BlockKind::Preformatted, "c".to_string()),
            ]
        );
    }

    #[test]
    fn container_hints_come_from_tags_classes_and_ids_of_every_enclosing_element() {
        let html = r#"<div id="topNav"><ul class="x"><li>Home</li></ul></div>
            <div class="post-body"><p>Story text.</p><aside>Ads</aside></div>
            <div class="read header"><p>Plain.</p><div id="comments"><p>Nice!</p></div></div>"#;
        let got: Vec<(String, u8)> = blocks_from_str(html, &HtmlSettings::default())
            .unwrap()
            .into_iter()
            .map(|b| (b.text, b.hints.0))
            .collect();
        let want = [
            ("Home", ContainerHints::NAVIGATION),
            ("Story text.", ContainerHints::CONTENT),
            ("Ads", ContainerHints::CONTENT | ContainerHints::PERIPHERY),
            ("Plain.", 0),
            ("Nice!", ContainerHints::COMMENTS),
        ];
        assert_eq!(got, want.map(|(t, h)| (t.to_string(), h)));
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

    #[test]
    fn cleaneval_wrapper_is_transparent() {
        let html = "<text id=\"http://x.org/\" title=\"Page\" encoding=\"utf-8\">\n<html><body><p>Body text.</p></body></html>\n</text>";
        assert_eq!(texts(html), ["Body text."]);
    }

    #[test]
    fn long_blocks_are_cut() {
        let settings = HtmlSettings {
            max_block_bytes: 20,
            ..HtmlSettings::default()
        };
        let got =
            blocks_from_str("<p>aaaa bbbb cccc dddd eeee ffff</p><p>next</p>", &settings).unwrap();
        assert_eq!(got[0].text, "aaaa bbbb cccc dddd");
        assert!(got[0].truncated);
        assert_eq!(got[1].text, "next");
        assert!(!got[1].truncated);
    }

    #[test]
    fn entity_split_across_writes() {
        let mut parser = BlockParser::new(HtmlSettings::default());
        let mut out = Vec::new();
        for piece in ["<p>a &am", "p; b &e", "acute;</p>"] {
            parser.write(piece, &mut out).unwrap();
        }
        parser.end(&mut out).unwrap();
        assert_eq!(out[0].text, "a & b é");
    }

    #[test]
    fn huge_text_node_stays_bounded() {
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
            assert!(s.text.len() <= 1000 && s.pending_raw.len() <= MAX_PENDING_RAW + piece.len());
        }
        parser.end(&mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert!(out[0].truncated);
    }

    #[test]
    fn broken_html_does_not_fail() {
        for html in [
            "<p><div></span></p></p></table><td>x",
            "<a href='x>text",
            "<<<>>>&&&;;",
            "</html>y",
            "<script>never closed",
        ] {
            blocks_from_str(html, &HtmlSettings::default()).unwrap();
        }
    }
}
