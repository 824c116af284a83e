//! Evidence about one block for the learned decision (`--method combined`).
//!
//! [`measure`] scores a segmented block's sentences under the general language model (filling
//! each sentence's perplexity, as the perplexity method does) and under the boilerplate model,
//! and describes the block's shape: words, stopwords, digits, capitals, punctuation, link
//! density, element kind, position, and what the enclosing elements' tags, classes and ids
//! suggest. Everything is computed from the block alone, so it runs on
//! the workers; what needs the rest of the document (neighbours, repeated text) is added in
//! order by [`crate::classify::Decider`].

use std::collections::HashSet;

use crate::block::{Block, BlockKind, ContainerHints};
use crate::eval::baseline::Stopwords;
use crate::lm::model::LanguageModel;

/// How many values [`Evidence`] holds: those of the block itself, then those of the document.
pub const LOCAL: usize = DOCUMENT + DOCUMENT_VALUES;

/// Index of the "same text seen earlier in this document" value, set by [`DocumentContext`].
pub const REPEATED: usize = 18;

/// Index of the words of prose blocks seen so far in the document (log), set by [`DocumentContext`].
pub const PROSE_SO_FAR: usize = 24;

/// Index of the blocks since the last prose block (log), set by [`DocumentContext`].
pub const SINCE_PROSE: usize = 25;

/// Index of the "a block is here" value: 1 for a block, 0 for the padding beyond a document's edge.
pub const PRESENT: usize = 26;

/// Index of the first of the values only the whole document shows, set by
/// [`crate::document::annotate`].
pub const DOCUMENT: usize = 28;

/// How many values only the whole document shows.
pub const DOCUMENT_VALUES: usize = 16;

/// Names of the values [`measure`] and [`DocumentContext`] set, in order.
const BLOCK_NAMES: [&str; DOCUMENT] = [
    "ln_words",
    "mean_word_chars",
    "stopword_share",
    "digit_share",
    "capitalised_share",
    "punctuation_share",
    "link_density",
    "heading",
    "list_item",
    "table_cell",
    "form",
    "preformatted",
    "ends_like_sentence",
    "ln_sentences",
    "general_log2_prob",
    "boilerplate_log2_prob",
    "log_likelihood_ratio",
    "ln_position",
    "repeated",
    "separator_share",
    "in_navigation",
    "in_periphery",
    "in_content",
    "in_comments",
    "ln_prose_words_so_far",
    "ln_blocks_since_prose",
    "present",
    "letter_share",
];

/// Names of the values [`crate::document::annotate`] sets, in order, from [`DOCUMENT`] on.
pub const DOCUMENT_NAMES: [&str; DOCUMENT_VALUES] = [
    "ln_document_prose",
    "main_share",
    "in_main",
    "beside_main",
    "ln_blocks_before_main",
    "ln_blocks_after_main",
    "container_prose_share",
    "cluster_prose_share",
    "container_link_density",
    "ln_container_blocks",
    "relative_position",
    "general_vs_document",
    "log_likelihood_ratio_vs_document",
    "stopword_share_vs_document",
    "ln_main_prose",
    "comment_share",
];

/// Names of the [`Evidence`] values, in order (for `--features` dumps and the classifier file):
/// [`BLOCK_NAMES`], then [`DOCUMENT_NAMES`].
pub const NAMES: [&str; LOCAL] = {
    let mut names = [""; LOCAL];
    let mut i = 0;
    while i < LOCAL {
        names[i] = if i < DOCUMENT {
            BLOCK_NAMES[i]
        } else {
            DOCUMENT_NAMES[i - DOCUMENT]
        };
        i += 1;
    }
    names
};

/// The local evidence about a block (see [`NAMES`]); all zeros for padding.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evidence(pub [f32; LOCAL]);

impl Default for Evidence {
    fn default() -> Evidence {
        Evidence([0.0; LOCAL])
    }
}

/// Scores `block`'s sentences under both models (setting each sentence's perplexity under
/// `general`) and fills its evidence.
pub fn measure(block: &mut Block, general: &LanguageModel, boilerplate: &LanguageModel) {
    let (mut general_sum, mut boilerplate_sum, mut predictions) = (0.0, 0.0, 0u32);
    let Block {
        text, sentences, ..
    } = block;
    for sentence in sentences.iter_mut() {
        let text = &text[sentence.range()];
        let [(log2_prob, n), (boilerplate_log2_prob, _)] =
            general.log2_prob_pair(boilerplate, text);
        sentence.perplexity = (-(log2_prob / f64::from(n))).exp2() as f32;
        general_sum += log2_prob;
        boilerplate_sum += boilerplate_log2_prob;
        predictions += n;
    }
    let per_prediction = |sum: f64| {
        if predictions == 0 {
            0.0
        } else {
            (sum / f64::from(predictions)) as f32
        }
    };
    let shape = Shape::of(&block.text);
    let words = shape.words.max(1) as f32;
    let chars = shape.chars.max(1) as f32;
    let kind = |k: BlockKind| f32::from(u8::from(block.kind == k));
    let hint = |bit: u8| f32::from(u8::from(block.hints.has(bit)));
    let general = per_prediction(general_sum);
    let boilerplate = per_prediction(boilerplate_sum);
    let own: [f32; DOCUMENT] = [
        (shape.words as f32).ln_1p(),
        (shape.chars as f32 / words).min(20.0),
        shape.stopwords as f32 / words,
        shape.digits as f32 / chars,
        shape.capitalised as f32 / words,
        shape.punctuation as f32 / chars,
        block.link_density() as f32,
        kind(BlockKind::Heading),
        kind(BlockKind::ListItem),
        kind(BlockKind::TableCell),
        kind(BlockKind::Form),
        kind(BlockKind::Preformatted),
        f32::from(u8::from(ends_like_sentence(&block.text))),
        (block.sentences.len() as f32).ln_1p(),
        general,
        boilerplate,
        general - boilerplate,
        (block.index as f32).ln_1p(),
        0.0,
        shape.separators as f32 / words,
        hint(ContainerHints::NAVIGATION),
        hint(ContainerHints::PERIPHERY),
        hint(ContainerHints::CONTENT),
        hint(ContainerHints::COMMENTS),
        0.0,
        0.0,
        1.0,
        shape.letters as f32 / chars,
    ];
    // The document values are set later, by `crate::document::annotate`.
    let mut values = [0.0; LOCAL];
    values[..DOCUMENT].copy_from_slice(&own);
    block.evidence = Evidence(values);
}

/// The most distinct block texts remembered per document for the "repeated" evidence.
const MAX_REMEMBERED_TEXTS: usize = 4096;

/// A block counts as prose for [`DocumentContext`] with at least this many words...
const PROSE_WORDS: usize = 20;

/// ...and at most this share of link text.
const PROSE_LINK_DENSITY: f64 = 0.3;

/// The evidence that depends on the blocks before a block in its document: whether its text
/// already occurred, how much prose came before it and how long ago. Fed every block of a
/// document in order (by the decider when filtering, by `learn` when training), it keeps a
/// bounded set of text hashes and two counters.
#[derive(Debug, Default)]
pub struct DocumentContext {
    seen: HashSet<u64>,
    prose_words: usize,
    since_prose: usize,
}

impl DocumentContext {
    /// Fills the document-order values of a measured block's evidence.
    pub fn observe(&mut self, block: &mut Block) {
        let hash = xxhash_rust::xxh3::xxh3_64(block.text.as_bytes());
        let repeated = !block.text.is_empty() && !self.seen.insert(hash);
        if self.seen.len() > MAX_REMEMBERED_TEXTS {
            self.seen.remove(&hash);
        }
        let values = &mut block.evidence.0;
        values[REPEATED] = f32::from(u8::from(repeated));
        values[PROSE_SO_FAR] = (self.prose_words as f32).ln_1p();
        values[SINCE_PROSE] = (self.since_prose as f32).ln_1p();
        let words = block.words();
        if words >= PROSE_WORDS && block.link_density() <= PROSE_LINK_DENSITY {
            self.prose_words += words;
            self.since_prose = 0;
        } else {
            self.since_prose += 1;
        }
    }

    /// Forgets everything, for the next document.
    pub fn clear(&mut self) {
        self.seen.clear();
        self.prose_words = 0;
        self.since_prose = 0;
    }
}

/// Character and word counts of a block's text.
#[derive(Debug, Default, PartialEq)]
struct Shape {
    words: usize,
    /// Non-space characters.
    chars: usize,
    digits: usize,
    punctuation: usize,
    /// Words starting with an upper-case letter.
    capitalised: usize,
    /// Words made of punctuation alone (`|`, `»`, `-`, `·`): menu separators.
    separators: usize,
    /// Words in the English stopword list, as jusText counts them.
    stopwords: usize,
    /// Letters of any script (language-independent evidence of prose).
    letters: usize,
}

impl Shape {
    fn of(text: &str) -> Shape {
        let mut shape = Shape::default();
        let (stopwords, mut lower) = (Stopwords::english(), String::new());
        // Words are separated by single spaces (see `Block::words`).
        for word in text.split(' ').filter(|w| !w.is_empty()) {
            shape.words += 1;
            shape.stopwords += usize::from(stopwords.contains_word(word, &mut lower));
            if word.is_ascii() {
                shape.add_ascii_word(word.as_bytes());
            } else {
                shape.add_word(word);
            }
        }
        shape
    }

    /// Adds the character counts of a word.
    fn add_word(&mut self, word: &str) {
        let mut alphanumeric = false;
        for (i, c) in word.chars().enumerate() {
            self.chars += 1;
            if c.is_numeric() {
                self.digits += 1;
                alphanumeric = true;
            } else if c.is_alphabetic() {
                alphanumeric = true;
                self.letters += 1;
                if i == 0 && c.is_uppercase() {
                    self.capitalised += 1;
                }
            } else {
                self.punctuation += 1;
            }
        }
        self.separators += usize::from(!alphanumeric);
    }

    /// [`Shape::add_word`] for an ASCII word, with byte tests.
    fn add_ascii_word(&mut self, word: &[u8]) {
        self.chars += word.len();
        let digits = word.iter().filter(|b| b.is_ascii_digit()).count();
        let letters = word.iter().filter(|b| b.is_ascii_alphabetic()).count();
        self.digits += digits;
        self.letters += letters;
        self.punctuation += word.len() - digits - letters;
        self.capitalised += usize::from(word.first().is_some_and(u8::is_ascii_uppercase));
        self.separators += usize::from(digits + letters == 0);
    }
}

/// Whether the text ends like prose: `.`, `!`, `?` or `:`, maybe followed by closing quotes or brackets.
fn ends_like_sentence(text: &str) -> bool {
    let end = text.trim_end_matches(['"', '\'', ')', '\u{201d}', '\u{2019}', ']']);
    end.ends_with(['.', '!', '?', ':'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lm::model::embedded;
    use crate::segment;

    fn measured(kind: BlockKind, text: &str, link_bytes: usize) -> Evidence {
        let mut block = Block::new(3, kind, text);
        block.link_bytes = link_bytes;
        segment::segment(&mut block);
        measure(&mut block, embedded(), embedded());
        assert!(block.sentences.iter().all(|s| s.perplexity.is_finite()));
        block.evidence
    }

    #[test]
    fn prose_and_menus_look_different() {
        let prose = measured(
            BlockKind::Paragraph,
            "The committee approved the new budget for the school year. It takes effect in May.",
            0,
        );
        let menu = measured(BlockKind::ListItem, "Home | About us | Contact | 2024", 20);
        let v = |e: &Evidence, name: &str| e.0[NAMES.iter().position(|n| *n == name).unwrap()];
        assert!(v(&prose, "stopword_share") > v(&menu, "stopword_share"));
        assert!(v(&prose, "general_log2_prob") > v(&menu, "general_log2_prob"));
        assert_eq!(v(&prose, "ends_like_sentence"), 1.0);
        assert_eq!(v(&menu, "ends_like_sentence"), 0.0);
        assert_eq!(v(&menu, "list_item"), 1.0);
        assert!(v(&menu, "separator_share") > 0.3);
        assert!(v(&menu, "digit_share") > 0.0);
        assert!((v(&menu, "link_density") - 20.0 / 32.0).abs() < 1e-6);
        // The same model twice: no evidence either way.
        assert_eq!(v(&prose, "log_likelihood_ratio"), 0.0);
        assert_eq!(prose.0[PRESENT], 1.0);
        assert_eq!(prose.0[REPEATED], 0.0);
    }

    #[test]
    fn ascii_words_are_counted_as_characters_are() {
        for word in ["Home", "|", "2024", "x86-64", "U.S.", "", "a1!", "ZZ", "--"] {
            let (mut by_char, mut by_byte) = (Shape::default(), Shape::default());
            by_char.add_word(word);
            by_byte.add_ascii_word(word.as_bytes());
            assert_eq!(by_char, by_byte, "{word}");
        }
    }

    #[test]
    fn an_empty_block_gives_finite_values() {
        let e = measured(BlockKind::Paragraph, "", 0);
        assert!(e.0.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn document_context_counts_prose_before_and_repeats() {
        let prose = "word ".repeat(25);
        let mut blocks: Vec<Block> = ["Menu", prose.trim(), "Menu", "Footer"]
            .iter()
            .enumerate()
            .map(|(i, t)| Block::new(i as u32, BlockKind::Paragraph, *t))
            .collect();
        let mut document = DocumentContext::default();
        for block in &mut blocks {
            document.observe(block);
        }
        let values = |i: usize, at: usize| blocks[i].evidence.0[at];
        assert_eq!(
            [
                values(0, REPEATED),
                values(1, REPEATED),
                values(2, REPEATED),
                values(3, REPEATED)
            ],
            [0.0, 0.0, 1.0, 0.0]
        );
        assert_eq!(values(1, PROSE_SO_FAR), 0.0);
        assert_eq!(values(2, PROSE_SO_FAR), 25f32.ln_1p());
        assert_eq!(
            [
                values(1, SINCE_PROSE),
                values(2, SINCE_PROSE),
                values(3, SINCE_PROSE)
            ],
            [1f32.ln_1p(), 0.0, 1f32.ln_1p()]
        );
        document.clear();
        let mut again = blocks[2].clone();
        document.observe(&mut again);
        assert_eq!(again.evidence.0[REPEATED], 0.0);
    }
}
