//! The values every stage passes along.
//!
//! The HTML stage cuts a page into [`Block`]s at block-level elements, with what the elements
//! around them suggest ([`ContainerHints`]) and what the page says about itself ([`PageInfo`]);
//! the segmenter fills each block's [`Sentence`]s as byte ranges into the block's text (nothing
//! is copied or re-parsed); the evidence stage fills each sentence's perplexity and the block's
//! [`Evidence`]; the decision sets each sentence's keep/drop; the writer prints what was kept.
//! Nothing here imports a stage: every stage imports these.

mod evidence;
#[cfg(test)]
pub mod fixtures;
mod hints;
mod metadata;
mod page;
mod structure;

use std::ops::Range;

pub use evidence::{Evidence, PageEvidence, EVIDENCE_VALUES, PAGE_EVIDENCE_VALUES};
pub use hints::ContainerHints;
pub(crate) use metadata::byline_people;
pub use page::{PageInfo, PageKind, SchemaTypes};
pub use structure::{Cell, Code, ListItem, Mark, MarkKind, Structure, MAX_SPAN};
pub(crate) use page::split_url;

/// The element a block of text came from, as far as later stages care.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BlockKind {
    /// `h1`–`h6` (and the page `title` with `--title`).
    Heading,
    /// `li`, `dt`, `dd`.
    ListItem,
    /// `td`, `th`.
    TableCell,
    /// Text inside a `form` (labels, buttons, options).
    Form,
    /// `pre`: a code block, its lines and indentation kept (line breaks are `\n`).
    Preformatted,
    /// Everything else: `p`, `div`, `blockquote`, bare text.
    #[default]
    Paragraph,
}

impl BlockKind {
    /// The kind's name where programs read it (the Python package, the web demo's JSON):
    /// `heading`, `list_item`, `table_cell`, `form`, `preformatted` or `paragraph`.
    pub fn name(self) -> &'static str {
        match self {
            BlockKind::Heading => "heading",
            BlockKind::ListItem => "list_item",
            BlockKind::TableCell => "table_cell",
            BlockKind::Form => "form",
            BlockKind::Preformatted => "preformatted",
            BlockKind::Paragraph => "paragraph",
        }
    }

    /// The CleanEval gold marker for this kind: `h`, `l` or `p`.
    pub fn cleaneval_marker(self) -> &'static str {
        match self {
            BlockKind::Heading => "<h>",
            BlockKind::ListItem => "<l>",
            _ => "<p>",
        }
    }
}

/// A run of text between two block-level boundaries of a page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// Position of the block in its document, from 0.
    pub index: u32,
    /// The element kind the text sat in.
    pub kind: BlockKind,
    /// The text: entities decoded, whitespace collapsed to single spaces, trimmed (in a
    /// [`BlockKind::Preformatted`] block, its lines and their indentation kept).
    pub text: String,
    /// How many bytes of `text` sat inside `<a href>` links.
    pub link_bytes: usize,
    /// True when the block hit the maximum block length and was cut there: its text goes on in
    /// the next block.
    pub truncated: bool,
    /// The sentences of `text`, in order, filled by the segmenter.
    pub sentences: Vec<Sentence>,
    /// What the enclosing elements' tags, classes and ids suggest (`nav`, `footer`, `content`…).
    pub hints: ContainerHints,
    /// The enclosing block-level elements, outermost first, each by its number in the document
    /// (the order its start tag came in, from 0): blocks that share a number sit in the same
    /// element. Empty for plain text.
    pub containers: Vec<u32>,
    /// The innermost `<article>` element around the block, by its number in the document (as
    /// in `containers`): the story the block belongs to, where the page marks its stories.
    pub story: Option<u32>,
    /// The block is a top-level heading (`<h1>`): the page's headline, or another story's.
    pub top_heading: bool,
    /// What the page's author structured around the text: heading level, list item, table
    /// cell, code block, inline code and formulas.
    pub structure: Structure,
    /// What the combined method knows of the block, filled by the evidence stage.
    pub evidence: Evidence,
}

impl Block {
    /// A block of the given kind and text, with no links and no sentences yet.
    pub fn new(index: u32, kind: BlockKind, text: impl Into<String>) -> Block {
        Block {
            index,
            kind,
            text: text.into(),
            ..Block::default()
        }
    }

    /// The share of the text's bytes that sat inside links, 0.0 for an empty block.
    pub fn link_density(&self) -> f64 {
        if self.text.is_empty() {
            0.0
        } else {
            self.link_bytes.min(self.text.len()) as f64 / self.text.len() as f64
        }
    }

    /// How many words the text holds. The text's words are separated by single spaces (the
    /// producers collapse every white-space run), so counting spaces is enough.
    pub fn words(&self) -> usize {
        if self.text.is_empty() {
            0
        } else if self.kind == BlockKind::Preformatted {
            // Lines and indentation kept: words are between runs of white space.
            self.text.split_ascii_whitespace().count()
        } else {
            memchr::memchr_iter(b' ', self.text.as_bytes()).count() + 1
        }
    }

    /// The text of one of this block's sentences.
    pub fn sentence_text(&self, sentence: &Sentence) -> &str {
        &self.text[sentence.range()]
    }
}

/// One sentence of a block: a byte range of the block's text plus what the scorer decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sentence {
    /// Byte offset of the first byte in the block's text.
    pub start: u32,
    /// Byte offset one past the last byte.
    pub end: u32,
    /// Perplexity under the language model; NaN until scored.
    pub perplexity: f32,
    /// Whether the sentence is kept in the output.
    pub keep: bool,
}

impl Sentence {
    /// An unscored sentence covering `range` of its block's text.
    pub fn new(range: Range<usize>) -> Sentence {
        Sentence {
            start: range.start as u32,
            end: range.end as u32,
            perplexity: f32::NAN,
            keep: true,
        }
    }

    /// The byte range of the sentence in its block's text.
    pub fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}
