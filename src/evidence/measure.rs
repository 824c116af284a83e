//! The evidence a block shows alone, computed on the workers.
//!
//! [`score`] fills each sentence's perplexity under the general language model (all the
//! perplexity method needs); [`measure`] scores the block's first sentences under both the
//! general and the boilerplate model and describes the block's shape: words, stopwords, digits,
//! capitals, punctuation, link density, element kind, position, and what the enclosing
//! elements' tags, classes and ids suggest.

use crate::block::{Block, BlockKind, ContainerHints, Evidence, Sentence};
use crate::lm::model::{perplexity, LanguageModel};
use crate::stopwords::{pack_ascii_word, Stopwords};

/// Scores every sentence of the block under `model` (its perplexity).
pub fn score(block: &mut Block, model: &LanguageModel) {
    score_sentences(&block.text, &mut block.sentences, model);
}

/// Sets the perplexity under `model` of each of `sentences`, ranges of `text`.
fn score_sentences(text: &str, sentences: &mut [Sentence], model: &LanguageModel) {
    for sentence in sentences {
        let (log2_prob, predictions) = model.log2_prob(&text[sentence.range()]);
        sentence.perplexity = perplexity(log2_prob, predictions) as f32;
    }
}

/// How many predictions of each model a block's language-model evidence is measured on: its
/// sentences in order, whole, until at least this many tokens (and ends of sentences) have been
/// scored. The evidence is a per-prediction mean, which a paragraph's first sentence or two
/// estimate well enough for the decision, and the rest of the long paragraphs were over a third
/// of all predictions on CleanEval pages. The classifier is learned on evidence measured the
/// same way. At 16, cross-validated accuracy on the three shared sets is as with every sentence
/// (mean Lev 90.08 against 90.06) and the default method takes about a fifth less CPU time (the
/// guide's speed section, GUIDE.md).
pub const EVIDENCE_PREDICTIONS: u32 = 16;

/// Scores `block`'s sentences under both models and fills its evidence. The language-model
/// evidence comes from the first sentences, up to [`EVIDENCE_PREDICTIONS`]; each sentence
/// scored for it gets its perplexity under `general`. With `every_sentence`, the other
/// sentences get theirs too (for output that prints perplexities); without, their perplexity
/// stays NaN (not measured).
pub fn measure(
    block: &mut Block,
    general: &LanguageModel,
    boilerplate: &LanguageModel,
    every_sentence: bool,
) {
    let (mut general_sum, mut boilerplate_sum, mut predictions) = (0.0, 0.0, 0u32);
    let mut measured = 0;
    for sentence in &mut block.sentences {
        if predictions >= EVIDENCE_PREDICTIONS {
            break;
        }
        let [(log2_prob, n), (boilerplate_log2_prob, _)] =
            general.log2_prob_pair(boilerplate, &block.text[sentence.range()]);
        sentence.perplexity = perplexity(log2_prob, n) as f32;
        general_sum += log2_prob;
        boilerplate_sum += boilerplate_log2_prob;
        predictions += n;
        measured += 1;
    }
    if every_sentence {
        score_sentences(&block.text, &mut block.sentences[measured..], general);
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
    // The document-order and whole-document values are set later (`DocumentContext`,
    // `annotate`).
    block.evidence = Evidence {
        ln_words: (shape.words as f32).ln_1p(),
        mean_word_chars: (shape.chars as f32 / words).min(20.0),
        stopword_share: shape.stopwords as f32 / words,
        foreign_stopword_share: shape.foreign_stopwords as f32 / words,
        digit_share: shape.digits as f32 / chars,
        capitalised_share: shape.capitalised as f32 / words,
        punctuation_share: shape.punctuation as f32 / chars,
        link_density: block.link_density() as f32,
        heading: kind(BlockKind::Heading),
        list_item: kind(BlockKind::ListItem),
        table_cell: kind(BlockKind::TableCell),
        form: kind(BlockKind::Form),
        preformatted: kind(BlockKind::Preformatted),
        ends_like_sentence: f32::from(u8::from(ends_like_sentence(&block.text))),
        ln_sentences: (block.sentences.len() as f32).ln_1p(),
        general_log2_prob: general,
        boilerplate_log2_prob: boilerplate,
        log_likelihood_ratio: general - boilerplate,
        ln_position: (block.index as f32).ln_1p(),
        separator_share: shape.separators as f32 / words,
        in_navigation: hint(ContainerHints::NAVIGATION),
        in_periphery: hint(ContainerHints::PERIPHERY),
        in_content: hint(ContainerHints::CONTENT),
        in_comments: hint(ContainerHints::COMMENTS),
        in_collapsed: hint(ContainerHints::COLLAPSED),
        present: 1.0,
        letter_share: shape.letters as f32 / chars,
        ..Evidence::default()
    };
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
    /// Words in the list of other languages' stopwords.
    foreign_stopwords: usize,
    /// Letters of any script (language-independent evidence of prose).
    letters: usize,
}

impl Shape {
    /// The counts of `text`'s words. Never inlined, so a profile shows its share
    /// (`bench/profile.sh`); it is called once a block.
    #[inline(never)]
    fn of(text: &str) -> Shape {
        let mut shape = Shape::default();
        let (stopwords, mut lower) = (Stopwords::english(), String::new());
        let foreign = Stopwords::foreign();
        // Words are separated by single spaces (see `Block::words`). One pass over the bytes
        // finds each word and counts an ASCII word's digits and letters on the way.
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b' ' {
                i += 1;
                continue;
            }
            let start = i;
            let (mut digits, mut letters, mut any) = (0, 0, 0u8);
            // Eight bytes at a time while they last, then byte by byte.
            while let Some(eight) = bytes.get(i..i + 8) {
                let word = WordBytes::of(u64::from_le_bytes(eight.try_into().expect("8 bytes")));
                digits += word.digits;
                letters += word.letters;
                any |= word.any;
                i += word.len;
                if word.len < 8 {
                    break;
                }
            }
            while let Some(&b) = bytes.get(i).filter(|&&b| b != b' ') {
                digits += usize::from(b.is_ascii_digit());
                letters += usize::from(b.is_ascii_alphabetic());
                any |= b;
                i += 1;
            }
            shape.words += 1;
            if any.is_ascii() {
                let len = i - start;
                shape.chars += len;
                shape.digits += digits;
                shape.letters += letters;
                shape.punctuation += len - digits - letters;
                shape.capitalised += usize::from(bytes[start].is_ascii_uppercase());
                shape.separators += usize::from(digits + letters == 0);
                // The lists share no word (a word found in one is not looked up in the other),
                // and every foreign word holds a letter (`scripts/make-stopwords-foreign.sh`).
                let word = pack_ascii_word(text, start..i);
                if stopwords.contains_packed(&word, &mut lower) {
                    shape.stopwords += 1;
                } else if letters > 0 {
                    shape.foreign_stopwords +=
                        usize::from(foreign.contains_packed(&word, &mut lower));
                }
            } else {
                let word = &text[start..i];
                if stopwords.contains_word(word, &mut lower) {
                    shape.stopwords += 1;
                } else {
                    shape.foreign_stopwords += usize::from(foreign.contains_word(word, &mut lower));
                }
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
}

/// What the eight bytes of `x` (in text order, lowest first) hold before the first space: how
/// many bytes that is, their ASCII digits and letters, and their high bits (`any`: a byte that
/// is not ASCII shows there, and the counts are then not to be used).
struct WordBytes {
    len: usize,
    digits: usize,
    letters: usize,
    any: u8,
}

impl WordBytes {
    #[inline]
    fn of(x: u64) -> WordBytes {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x80 * ONES;
        // The high bit of each byte within `lo..=hi`, for bytes below 0x80 (a byte from 0x80
        // may carry into the ones after it; those are then not counted).
        let within = |x: u64, lo: u8, hi: u8| {
            let at_least_lo = x.wrapping_add(u64::from(0x80 - lo) * ONES);
            let above_hi = x.wrapping_add(u64::from(0x7f - hi) * ONES);
            at_least_lo & !above_hi & HIGH
        };
        // The first space exactly: a borrow only runs up from a zero byte.
        let spaced = x ^ (u64::from(b' ') * ONES);
        let spaces = spaced.wrapping_sub(ONES) & !spaced & HIGH;
        let len = (spaces.trailing_zeros() / 8) as usize;
        let word = if len == 8 {
            u64::MAX
        } else {
            (1 << (8 * len)) - 1
        };
        WordBytes {
            len,
            digits: (within(x, b'0', b'9') & word).count_ones() as usize,
            letters: (within(x | (0x20 * ONES), b'a', b'z') & word).count_ones() as usize,
            any: if x & word & HIGH == 0 { 0 } else { 0x80 },
        }
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

    #[test]
    fn eight_bytes_at_a_time_count_as_one_at_a_time() {
        // Every byte value at every position, among letters, digits, spaces and bytes above
        // 0x7f: the word's length, and its counts when it is ASCII.
        let fill = b"aZ9 .\x80\xffq";
        for position in 0..8 {
            for value in 0..=255u8 {
                for f in 0..fill.len() {
                    let mut eight: [u8; 8] = std::array::from_fn(|k| fill[(k + f) % fill.len()]);
                    eight[position] = value;
                    let got = WordBytes::of(u64::from_le_bytes(eight));
                    let len = eight.iter().position(|&b| b == b' ').unwrap_or(8);
                    let word = &eight[..len];
                    assert_eq!(got.len, len, "{eight:?}");
                    assert_eq!(got.any.is_ascii(), word.is_ascii(), "{eight:?}");
                    if word.is_ascii() {
                        let digits = word.iter().filter(|b| b.is_ascii_digit()).count();
                        let letters = word.iter().filter(|b| b.is_ascii_alphabetic()).count();
                        assert_eq!((got.digits, got.letters), (digits, letters), "{eight:?}");
                    }
                }
            }
        }
    }
    use crate::lm::model::embedded;
    use crate::segment;

    fn measured(kind: BlockKind, text: &str, link_bytes: usize) -> Evidence {
        let mut block = Block::new(3, kind, text);
        block.link_bytes = link_bytes;
        segment::segment(&mut block);
        measure(&mut block, embedded(), embedded(), true);
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
        assert!(prose.stopword_share > menu.stopword_share);
        assert!(prose.general_log2_prob > menu.general_log2_prob);
        assert_eq!(prose.ends_like_sentence, 1.0);
        assert_eq!(menu.ends_like_sentence, 0.0);
        assert_eq!(menu.list_item, 1.0);
        assert!(menu.separator_share > 0.3);
        assert!(menu.digit_share > 0.0);
        assert!((menu.link_density - 20.0 / 32.0).abs() < 1e-6);
        // The same model twice: no evidence either way.
        assert_eq!(prose.log_likelihood_ratio, 0.0);
        assert_eq!(prose.present, 1.0);
        assert_eq!(prose.repeated, 0.0);
    }

    #[test]
    fn prose_in_other_languages_has_their_stopwords_and_menus_do_not() {
        let german = measured(
            BlockKind::Paragraph,
            "Der Rat der Stadt hat am Dienstag einen Plan beschlossen, der die Ufer des Flusses wiederherstellen soll.",
            0,
        );
        let menu = measured(BlockKind::ListItem, "Startseite | Kontakt | Impressum", 0);
        assert!(
            german.foreign_stopword_share > 0.3,
            "{}",
            german.foreign_stopword_share
        );
        assert_eq!(menu.foreign_stopword_share, 0.0);
        assert!(german.foreign_stopword_share > german.stopword_share);
    }

    #[test]
    fn ascii_words_are_counted_as_characters_are() {
        let text = "Home | 2024 x86-64 U.S. a1! ZZ -- The OF été Ünïcode of\u{7f} [the] `a` @b {c}";
        let (stopwords, mut scratch) = (Stopwords::english(), String::new());
        let foreign = Stopwords::foreign();
        let mut expected = Shape::default();
        for word in text.split(' ') {
            expected.words += 1;
            expected.add_word(word);
            expected.stopwords += usize::from(stopwords.contains_word(word, &mut scratch));
            expected.foreign_stopwords += usize::from(foreign.contains_word(word, &mut scratch));
        }
        assert!(expected.stopwords >= 2 && expected.separators >= 2);
        assert!(expected.foreign_stopwords >= 1, "été is French");
        assert_eq!(Shape::of(text), expected);
        assert_eq!(Shape::of(&format!(" {text} ")), expected);
        assert_eq!(Shape::of(""), Shape::default());
    }

    #[test]
    fn the_evidence_comes_from_the_first_sentences_and_every_sentence_adds_only_perplexities() {
        let sentence = "The committee approved the new budget for the coming school year.";
        let text = [sentence; 4].join(" ");
        let measured = |every_sentence| {
            let mut block = Block::new(0, BlockKind::Paragraph, &text);
            segment::segment(&mut block);
            measure(&mut block, embedded(), embedded(), every_sentence);
            block
        };
        let (some, all) = (measured(false), measured(true));
        assert_eq!(some.sentences.len(), 4);
        // 12 tokens and the end: the evidence needs two sentences to reach 16 predictions.
        let scored = |b: &Block| {
            b.sentences
                .iter()
                .filter(|s| s.perplexity.is_finite())
                .count()
        };
        assert_eq!((scored(&some), scored(&all)), (2, 4));
        assert_eq!(some.evidence, all.evidence);
        assert_eq!(some.sentences[..2], all.sentences[..2]);
        // The same sentence four times: one perplexity for all.
        assert!(all
            .sentences
            .iter()
            .all(|s| s.perplexity == all.sentences[0].perplexity));
    }

    #[test]
    fn an_empty_block_gives_finite_values() {
        let e = measured(BlockKind::Paragraph, "", 0);
        assert!(e.values().iter().all(|v| v.is_finite()));
    }
}
