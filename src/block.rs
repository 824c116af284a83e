//! The two values every stage passes along.
//!
//! The HTML stage cuts a page into [`Block`]s at block-level elements; the segmenter fills each
//! block's [`Sentence`]s as byte ranges into the block's text (nothing is copied or re-parsed);
//! the scorer and the classifier fill in each sentence's perplexity and keep/drop decision; the
//! writer prints what was kept.

use std::ops::Range;

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
    /// `pre`: whitespace was preserved inside lines.
    Preformatted,
    /// Everything else: `p`, `div`, `blockquote`, bare text.
    #[default]
    Paragraph,
}

impl BlockKind {
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
    /// The text: entities decoded, whitespace collapsed to single spaces, trimmed.
    pub text: String,
    /// How many bytes of `text` sat inside `<a href>` links.
    pub link_bytes: usize,
    /// True when the block hit the maximum block length and the rest of its text was dropped.
    pub truncated: bool,
    /// The sentences of `text`, in order, filled by the segmenter.
    pub sentences: Vec<Sentence>,
    /// What the enclosing elements' tags, classes and ids suggest (`nav`, `footer`, `content`…).
    pub hints: ContainerHints,
    /// The enclosing block-level elements, outermost first, each by its number in the document
    /// (the order its start tag came in, from 0): blocks that share a number sit in the same
    /// element. Empty for plain text.
    pub containers: Vec<u32>,
    /// What the combined method knows of the block, filled by [`crate::features::measure`].
    pub evidence: crate::features::Evidence,
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
        } else {
            memchr::memchr_iter(b' ', self.text.as_bytes()).count() + 1
        }
    }

    /// The text of one of this block's sentences.
    pub fn sentence_text(&self, sentence: &Sentence) -> &str {
        &self.text[sentence.range()]
    }
}

/// Bits saying what the elements around a block suggest, from their tag names (`nav`,
/// `footer`, `aside`, `article`, `main`) and words in their `class` and `id` attributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContainerHints(pub u8);

impl ContainerHints {
    /// Navigation: `nav`, or a class/id word starting with nav, menu, breadcrumb, toolbar, topbar.
    pub const NAVIGATION: u8 = 1;
    /// Page periphery: `footer`, `aside`, or footer, sidebar, side, widget, banner, sponsor, promo, share, social, related.
    pub const PERIPHERY: u8 = 2;
    /// Main content: `article`, `main`, or article, content, post, story, entry, main, body, text.
    pub const CONTENT: u8 = 4;
    /// Discussion: comment, disqus, reply, replies, respond, discuss, talkback.
    pub const COMMENTS: u8 = 8;
    /// The page `<title>`, a block only with `--title`: always kept, as asked.
    pub const TITLE: u8 = 16;

    /// The bits suggested by a `class` or `id` value: each word (split at anything not an
    /// ASCII letter or digit and at camelCase humps) is matched by its beginning, ignoring case.
    pub fn of_names(value: &str) -> u8 {
        const PREFIXES: [(&str, u8); 27] = [
            ("nav", ContainerHints::NAVIGATION),
            ("menu", ContainerHints::NAVIGATION),
            ("breadcrumb", ContainerHints::NAVIGATION),
            ("toolbar", ContainerHints::NAVIGATION),
            ("topbar", ContainerHints::NAVIGATION),
            ("footer", ContainerHints::PERIPHERY),
            ("side", ContainerHints::PERIPHERY),
            ("widget", ContainerHints::PERIPHERY),
            ("banner", ContainerHints::PERIPHERY),
            ("sponsor", ContainerHints::PERIPHERY),
            ("promo", ContainerHints::PERIPHERY),
            ("share", ContainerHints::PERIPHERY),
            ("social", ContainerHints::PERIPHERY),
            ("related", ContainerHints::PERIPHERY),
            ("article", ContainerHints::CONTENT),
            ("content", ContainerHints::CONTENT),
            ("post", ContainerHints::CONTENT),
            ("story", ContainerHints::CONTENT),
            ("entry", ContainerHints::CONTENT),
            ("main", ContainerHints::CONTENT),
            ("comment", ContainerHints::COMMENTS),
            ("disqus", ContainerHints::COMMENTS),
            ("reply", ContainerHints::COMMENTS),
            ("replies", ContainerHints::COMMENTS),
            ("respond", ContainerHints::COMMENTS),
            ("discuss", ContainerHints::COMMENTS),
            ("talkback", ContainerHints::COMMENTS),
        ];
        let mut bits = 0;
        let bytes = value.as_bytes();
        let mut start = 0;
        for i in 0..=bytes.len() {
            // A word ends before a non-alphanumeric byte, at the end, or at a camelCase hump.
            let ends = i == bytes.len()
                || !bytes[i].is_ascii_alphanumeric()
                || (i > start
                    && bytes[i].is_ascii_uppercase()
                    && bytes[i - 1].is_ascii_lowercase());
            if !ends {
                continue;
            }
            let word = &bytes[start..i];
            for (prefix, bit) in PREFIXES {
                if word.len() >= prefix.len()
                    && word[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
                {
                    bits |= bit;
                }
            }
            start = if i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i
            } else {
                i + 1
            };
        }
        bits
    }

    /// The bits suggested by an ARIA `role` value: `navigation`, `menu`, `menubar`, `banner`,
    /// `contentinfo`, `complementary`, `main`, `article`.
    pub fn of_role(value: &str) -> u8 {
        value.split_ascii_whitespace().fold(0, |bits, role| {
            bits | match role.to_ascii_lowercase().as_str() {
                "navigation" | "menu" | "menubar" => ContainerHints::NAVIGATION,
                "banner" | "contentinfo" | "complementary" => ContainerHints::PERIPHERY,
                "main" | "article" => ContainerHints::CONTENT,
                _ => 0,
            }
        })
    }

    /// Whether any of `bits` is set.
    pub fn has(self, bits: u8) -> bool {
        self.0 & bits != 0
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

/// What a page says about itself, gathered while it is parsed (for `--format json`): its
/// `<title>`, its `<link rel=canonical href>`, and the URL and title of a CleanEval wrapper
/// (`<text id="URL" title="…">`). Each is the first one seen, at most [`PageInfo::MAX_BYTES`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageInfo {
    pub title: Option<String>,
    pub canonical_url: Option<String>,
    pub wrapper_url: Option<String>,
    pub wrapper_title: Option<String>,
}

impl PageInfo {
    /// The longest value kept (a longer one is cut at a character boundary).
    pub const MAX_BYTES: usize = 2048;

    /// `value` with its white space collapsed, cut to [`PageInfo::MAX_BYTES`]; `None` if empty.
    pub fn clean(value: &str) -> Option<String> {
        let mut out = String::new();
        for word in value.split_whitespace() {
            if out.len() + word.len() + 1 > Self::MAX_BYTES {
                break;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
        (!out.is_empty()).then_some(out)
    }

    /// The page's own URL: the canonical link, else the CleanEval wrapper's.
    pub fn url(&self) -> Option<&str> {
        self.canonical_url
            .as_deref()
            .or(self.wrapper_url.as_deref())
    }

    /// The page's title: `<title>`, else the CleanEval wrapper's.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref().or(self.wrapper_title.as_deref())
    }
}
