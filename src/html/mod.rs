//! HTML to blocks: drives lol_html over a UTF-8 stream and cuts its text into [`Block`]s.
//!
//! lol_html never builds a tree, so this stage keeps a small, bounded stack of the block-level
//! elements that are open and applies the HTML rules that close `p`, `li`, `td`, … implicitly.
//! Text is cut into a new block at every block-level start or end tag, and at `br`, `hr` and
//! each line of a `pre`. The text of `script`, `style`, `template`, `svg`, `math`, `select`,
//! `iframe`, `object`, media elements, `textarea`, the page `title` (unless asked for), ruby
//! annotations (`rt`, `rp`) and comments is dropped. The content of a `noscript`, raw text to
//! lol_html, is parsed as HTML by a nested parser, as readers without scripts see it (a forum's
//! posts may be only there). Entities are decoded per text node (lol_html leaves them as they
//! are) and whitespace is collapsed; soft hyphens are dropped and each block is put in Unicode
//! NFC. U+0000 is dropped from text (as the HTML tree builder drops it) and the other C0 control
//! characters count as white space, so no control character but the block separators of the
//! output ever reaches it. The page's declarations are gathered into [`PageInfo`]: its
//! canonical link, Open Graph type and URL, and the schema.org types of its JSON-LD and
//! microdata.
//!
//! Memory is bounded by [`HtmlSettings`]: lol_html's own buffers, the longest block, and the
//! stack depth; nothing here grows with the document. lol_html keeps every element whose end tag
//! it has not seen on a stack charged to `max_parser_memory`, so a page of many unclosed elements
//! (`<li>` after `<li>`, deep nesting) would fill it and end the document. This stage counts those
//! elements and, past a bound derived from `max_parser_memory` (`max_open_elements`), restarts
//! lol_html just before the next start tag with a fresh stack: the open elements this stage
//! tracks (its block stack, the skipped element, the title and link it is in) are replayed to the
//! new parser as bare start tags, so their end tags still count; the others are forgotten. Text
//! keeps flowing, tracked less precisely, and the document is never cut. The decision depends on
//! the content alone: lol_html is fed in pieces that end at fixed stream offsets (`PIECE_BYTES`),
//! whatever the sizes of the pieces given to [`BlockParser::write`].

mod inline;
mod json_ld;
mod mathml;
mod meta;
mod open;
mod rewriter;
mod state;
mod tags;

use std::cell::RefCell;
use std::rc::Rc;

use lol_html::HtmlRewriter;

use crate::block::{Block, PageInfo};
use rewriter::{new_rewriter, Discard};
use state::State;
pub use tags::TextModel;

/// Limits and switches of the HTML stage.
#[derive(Clone, Debug)]
pub struct HtmlSettings {
    /// The longest block: a longer one is cut into several (`last_sentence_end` says where)
    /// and each but the last marked `truncated`; no text is dropped. The command line refuses
    /// less than 256 bytes.
    pub max_block_bytes: usize,
    /// Hard cap on lol_html's own buffers (a tag or attribute longer than this ends the document).
    pub max_parser_memory: usize,
    /// Emit the page `<title>` as a heading block.
    pub keep_title: bool,
    /// Look for the page's byline ([`PageInfo::byline`]): only a record that names the
    /// authors needs it (`--format json`), and the looking costs every start tag a glance.
    pub read_byline: bool,
    /// Read the page as readers see it (the combined method): the text only screen readers
    /// read is left out (an element whose class puts it out of sight, `sr-only`,
    /// `visually-hidden`, `screen-reader-text`…: "(opens in a new window)", "Skip to content",
    /// a form's labels), and the words of two elements that would run together, a lower-case
    /// letter then a capital with nothing between (`Nationale Demo</span><span>Der 9. Juli`,
    /// a name then a date), are set apart as a stylesheet sets them. Off, the page is read as
    /// the perplexity method always read it.
    pub as_seen: bool,
}

impl Default for HtmlSettings {
    fn default() -> HtmlSettings {
        HtmlSettings {
            max_block_bytes: 64 * 1024,
            max_parser_memory: 8 * 1024 * 1024,
            keep_title: false,
            read_byline: false,
            as_seen: true,
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

/// The most bytes at the end of a full block that are searched for a sentence end to cut it at.
const SOFT_CUT_BYTES: usize = 4096;

/// Where the last bytes of a block of at most `max_block_bytes` begin, in which a block that
/// grows past its bound is cut after a sentence: its last quarter, at most [`SOFT_CUT_BYTES`].
///
/// A block that would grow past its bound is cut so that none of its text is lost: after the
/// last sentence end in those bytes ([`last_sentence_end`]), the words after it going on in the
/// next block; else between two words; and inside a word only when the word alone is longer
/// than a block ([`word_piece`]). The HTML stage and the plain-text splitter ([`crate::plain`])
/// both cut so.
pub(crate) fn soft_cut_start(max_block_bytes: usize) -> usize {
    max_block_bytes - (max_block_bytes / 4).min(SOFT_CUT_BYTES)
}

/// The last space of `text` at or after byte `from` that ends a sentence: right after `.`,
/// `!`, `?`, `…` (or the full-width `。`, `！`, `？`), closing quotes and brackets between them
/// allowed. Each byte from `from` on is looked at about once.
pub(crate) fn last_sentence_end(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let from = from.min(bytes.len());
    let mut end = bytes.len();
    while let Some(space) = memchr::memrchr(b' ', &bytes[from..end]).map(|i| from + i) {
        let before = text[..space].trim_end_matches(['"', '\'', ')', ']', '»', '”', '’']);
        if before.ends_with(['.', '!', '?', '…', '。', '！', '？']) {
            return Some(space);
        }
        end = space;
    }
    None
}

/// How many bytes of `word`, longer than a block, go into a block of `max_block_bytes`: as many
/// whole characters as fit, and at least one.
pub(crate) fn word_piece(word: &str, max_block_bytes: usize) -> usize {
    let mut cut = max_block_bytes.min(word.len());
    while cut > 0 && !word.is_char_boundary(cut) {
        cut -= 1;
    }
    if cut == 0 {
        cut = word.chars().next().map_or(word.len(), char::len_utf8);
    }
    cut
}

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
    #[cfg(any(test, feature = "_internals"))]
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
        state.end_noscript();
        state.end_title();
        out.append(&mut state.done);
        (result, std::mem::take(&mut state.page))
    }

    /// Gives lol_html one piece (or the start of the last one), replacing the parser as often as
    /// the handlers ask (see [`Replay::restart_at`](state::Replay::restart_at)).
    fn write_piece(&mut self, mut bytes: &[u8]) -> Result<(), HtmlError> {
        loop {
            {
                let mut s = self.state.borrow_mut();
                s.replay.input_start += s.replay.input.len();
                s.replay.input.clear();
                s.replay.input.extend_from_slice(bytes);
            }
            let result = self.rewriter.write(bytes);
            let restart_at = self.state.borrow_mut().replay.restart_at.take();
            let rest = match (result, restart_at) {
                (Ok(()), _) => return Ok(()),
                (Err(e), None) => return Err(self.fail(e)),
                (Err(_), Some(at)) => {
                    let input_start = self.state.borrow().replay.input_start;
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

/// Parses a whole in-memory page: a convenience for tests; streams do not need it.
#[cfg(any(test, feature = "_internals"))]
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
    use crate::block::BlockKind;

    pub(super) fn blocks(html: &str) -> Vec<(BlockKind, String)> {
        blocks_from_str(html, &HtmlSettings::default())
            .unwrap()
            .into_iter()
            .map(|b| (b.kind, b.text))
            .collect()
    }

    pub(super) fn texts(html: &str) -> Vec<String> {
        blocks(html).into_iter().map(|(_, t)| t).collect()
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
