//! The jusText-style baseline: keeps or drops whole blocks by length, stopword density and link
//! density, then revises short and near-good blocks from their neighbours.
//!
//! A re-implementation of the published algorithm (J. Pomikálek, "Removing boilerplate and
//! duplicate content from web corpora", PhD thesis, Masaryk University, 2011, ch. 3) that follows
//! the reference implementation jusText 3.0.2 (`justext/core.py`: `classify_paragraphs`,
//! `revise_paragraph_classification`, `_get_neighbour`) step by step, including its quirks. It
//! owns no HTML parser: it classifies the [`Block`]s of the project's HTML stage, and
//! `Stopwords::english` is the project's own list (`crate::stopwords`).
//!
//! Fed jusText's own paragraphs and stoplist, [`classify_detailed`] gives jusText's classes for
//! every block of the CleanEval tune pages. Known differences come from the inputs: link density
//! is link bytes / text bytes here (jusText: characters, counted on text nodes before trimming),
//! and the blocks come from the project's HTML stage rather than jusText's lxml segmentation.

use crate::block::{Block, BlockKind};
use crate::stopwords::Stopwords;

/// jusText's parameters, with its defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct JustextParams {
    /// Blocks shorter than this many characters are `short` (default 70).
    pub length_low: usize,
    /// Blocks longer than this with high stopword density are `good` (default 200).
    pub length_high: usize,
    /// Below this stopword density a block is `bad` (default 0.30).
    pub stopwords_low: f64,
    /// At or above this stopword density a block is `good` or `neargood` (default 0.32).
    pub stopwords_high: f64,
    /// Above this link density a block is `bad` (default 0.2).
    pub max_link_density: f64,
    /// How many characters of text after a heading may come before the good block that
    /// rescues it (default 200).
    pub max_heading_distance: usize,
    /// Treat headings as ordinary blocks (default false).
    pub no_headings: bool,
}

impl Default for JustextParams {
    fn default() -> Self {
        JustextParams {
            length_low: 70,
            length_high: 200,
            stopwords_low: 0.30,
            stopwords_high: 0.32,
            max_link_density: 0.2,
            max_heading_distance: 200,
            no_headings: false,
        }
    }
}

/// A block's class in jusText's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Boilerplate.
    Bad,
    /// Too short to judge on its own: decided by its neighbours.
    Short,
    /// Looks like text but is not long enough: good unless both neighbours are bad.
    NearGood,
    /// Content.
    Good,
}

/// The classification of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Classified {
    /// The context-free class (jusText's `cf_class`).
    pub cf_class: Class,
    /// The final class after the context-sensitive revision (jusText's `class_type`): only
    /// [`Class::Good`] or [`Class::Bad`].
    pub class: Class,
    /// Whether the block counts as a heading (a [`BlockKind::Heading`] and not `no_headings`).
    pub heading: bool,
}

impl Classified {
    /// Whether the block is kept.
    pub fn keep(&self) -> bool {
        self.class == Class::Good
    }
}

/// Characters of `text` once trimmed and each whitespace run counted as one, i.e.
/// `len(paragraph.text)` in jusText, which normalises whitespace before measuring.
fn normalized_len(text: &str) -> usize {
    let mut len = 0;
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = len > 0;
        } else {
            len += 1 + usize::from(pending_space);
            pending_space = false;
        }
    }
    len
}

/// Context-free classification of one block (jusText's `classify_paragraphs`).
fn classify_free(
    block: &Block,
    length: usize,
    stopwords: &Stopwords,
    params: &JustextParams,
) -> Class {
    if block.link_density() > params.max_link_density {
        return Class::Bad;
    }
    if block.text.contains('\u{a9}') || block.text.contains("&copy") {
        return Class::Bad;
    }
    // jusText also marks text under a `select` element bad, but its cleaner removes `select`
    // (with `input`, `button`, `textarea`) beforehand, so the rule never fires there.
    if length < params.length_low {
        return if block.link_bytes > 0 {
            Class::Bad
        } else {
            Class::Short
        };
    }
    let (stop, words) = stopwords.count(&block.text);
    let density = if words == 0 {
        0.0
    } else {
        stop as f64 / words as f64
    };
    if density >= params.stopwords_high {
        if length > params.length_high {
            Class::Good
        } else {
            Class::NearGood
        }
    } else if density >= params.stopwords_low {
        Class::NearGood
    } else {
        Class::Bad
    }
}

/// The class of the nearest block before (`forward == false`) or after `i` that is good or
/// bad, or near-good unless `ignore_neargood`; bad past either end (jusText's `_get_neighbour`).
fn neighbour(classes: &[Class], i: usize, ignore_neargood: bool, forward: bool) -> Class {
    let found = |c: &&Class| {
        matches!(c, Class::Good | Class::Bad) || (!ignore_neargood && **c == Class::NearGood)
    };
    let hit = if forward {
        classes
            .get(i + 1..)
            .and_then(|rest| rest.iter().find(found))
    } else {
        classes[..i.min(classes.len())].iter().rev().find(found)
    };
    hit.copied().unwrap_or(Class::Bad)
}

/// Classifies every block with jusText's algorithm: context-free classes, then the
/// context-sensitive revision. One entry per block, in order.
pub fn classify_detailed(
    blocks: &[Block],
    stopwords: &Stopwords,
    params: &JustextParams,
) -> Vec<Classified> {
    let lengths: Vec<usize> = blocks.iter().map(|b| normalized_len(&b.text)).collect();
    let heading: Vec<bool> = blocks
        .iter()
        .map(|b| !params.no_headings && b.kind == BlockKind::Heading)
        .collect();
    let cf: Vec<Class> = blocks
        .iter()
        .zip(&lengths)
        .map(|(b, &len)| classify_free(b, len, stopwords, params))
        .collect();
    let mut class = cf.clone();

    // jusText 3.0.2 first tries to promote short headings shortly before a good block to
    // near-good, but that loop reads the classes of later blocks before it has copied them
    // from the context-free ones, so it never matches: nothing to do here, faithfully.

    // Short blocks: from the nearest good/bad neighbours, all decided on the same snapshot.
    let mut revised = class.clone();
    for i in 0..class.len() {
        if class[i] != Class::Short {
            continue;
        }
        let prev = neighbour(&class, i, true, false);
        let next = neighbour(&class, i, true, true);
        revised[i] = match (prev, next) {
            (Class::Good, Class::Good) => Class::Good,
            (Class::Bad, Class::Bad) => Class::Bad,
            _ if (prev == Class::Bad && neighbour(&class, i, false, false) == Class::NearGood)
                || (next == Class::Bad && neighbour(&class, i, false, true) == Class::NearGood) =>
            {
                Class::Good
            }
            _ => Class::Bad,
        };
    }
    class = revised;

    // Near-good blocks: bad only between two bad ones; updated in place, in order.
    for i in 0..class.len() {
        if class[i] != Class::NearGood {
            continue;
        }
        let prev = neighbour(&class, i, true, false);
        let next = neighbour(&class, i, true, true);
        class[i] = if prev == Class::Bad && next == Class::Bad {
            Class::Bad
        } else {
            Class::Good
        };
    }

    // Headings that were not bad on their own and come shortly before a good block.
    for i in 0..class.len() {
        if !(heading[i] && class[i] == Class::Bad && cf[i] != Class::Bad) {
            continue;
        }
        let mut distance = 0;
        for j in i + 1..class.len() {
            if distance > params.max_heading_distance {
                break;
            }
            if class[j] == Class::Good {
                class[i] = Class::Good;
                break;
            }
            distance += lengths[j];
        }
    }

    cf.iter()
        .zip(&class)
        .zip(&heading)
        .map(|((&cf_class, &class), &heading)| Classified {
            cf_class,
            class,
            heading,
        })
        .collect()
}

/// Whether each block is kept by jusText's algorithm (see [`classify_detailed`]).
pub fn classify(blocks: &[Block], stopwords: &Stopwords, params: &JustextParams) -> Vec<bool> {
    classify_detailed(blocks, stopwords, params)
        .iter()
        .map(Classified::keep)
        .collect()
}

/// The kept blocks, one a line, each prefixed with `<h>` (headings) or `<p>` and no space, as in
/// the CleanEval gold files. Line breaks inside a block become spaces; text is not escaped.
pub fn render(blocks: &[Block], keep: &[bool]) -> String {
    let mut out = String::new();
    for (block, _) in blocks.iter().zip(keep).filter(|(_, &k)| k) {
        out.push_str(if block.kind == BlockKind::Heading {
            "<h>"
        } else {
            "<p>"
        });
        let text = block.text.trim();
        if text.contains(['\n', '\r']) {
            out.extend(
                text.chars()
                    .map(|c| if c == '\n' || c == '\r' { ' ' } else { c }),
            );
        } else {
            out.push_str(text);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARTICLE: &str = "The committee said on Tuesday that it would not be able to finish the \
        report before the end of the year, because many of the people who were asked to give \
        evidence had not yet replied to its letters, and it was not clear when they would do so.";
    const ARTICLE2: &str =
        "It was one of the first times that the city had seen such a crowd, and \
        most of those who were there said that they would come back again in the spring when the \
        weather was better and the new season had started.";

    fn block(i: u32, kind: BlockKind, text: &str) -> Block {
        Block::new(i, kind, text)
    }

    fn link(i: u32, text: &str) -> Block {
        let mut b = Block::new(i, BlockKind::ListItem, text);
        b.link_bytes = text.len();
        b
    }

    fn run(blocks: &[Block]) -> Vec<bool> {
        classify(blocks, Stopwords::english(), &JustextParams::default())
    }

    #[test]
    fn menu_dropped_article_kept() {
        let blocks = vec![
            link(0, "Home"),
            link(1, "News"),
            link(2, "Contact us"),
            block(3, BlockKind::Paragraph, ARTICLE),
            block(4, BlockKind::Paragraph, ARTICLE2),
            link(5, "Privacy policy"),
        ];
        assert_eq!(run(&blocks), [false, false, false, true, true, false]);
        let detail = classify_detailed(&blocks, Stopwords::english(), &JustextParams::default());
        assert_eq!(detail[0].cf_class, Class::Bad);
        assert_eq!(detail[3].cf_class, Class::Good);
    }

    #[test]
    fn short_between_good_becomes_good() {
        let blocks = vec![
            block(0, BlockKind::Paragraph, ARTICLE),
            block(1, BlockKind::Paragraph, "Photo: the river."),
            block(2, BlockKind::Paragraph, ARTICLE2),
        ];
        let detail = classify_detailed(&blocks, Stopwords::english(), &JustextParams::default());
        assert_eq!(detail[1].cf_class, Class::Short);
        assert_eq!(run(&blocks), [true, true, true]);
        // Between bad and good it stays bad (no near-good next to it).
        let blocks = vec![
            link(0, "Home page of the site and more"),
            blocks[1].clone(),
            blocks[2].clone(),
        ];
        assert_eq!(run(&blocks), [false, false, true]);
    }

    #[test]
    fn heading_before_good_text_kept() {
        let blocks = vec![
            link(0, "Home"),
            block(1, BlockKind::Heading, "Council delays the report"),
            block(2, BlockKind::Paragraph, ARTICLE),
        ];
        assert_eq!(run(&blocks), [false, true, true]);
        let out = render(&blocks, &run(&blocks));
        assert_eq!(out, format!("<h>Council delays the report\n<p>{ARTICLE}\n"));
        // Without heading handling it is a short block between bad and good: dropped.
        let params = JustextParams {
            no_headings: true,
            ..JustextParams::default()
        };
        assert_eq!(
            classify(&blocks, Stopwords::english(), &params),
            [false, false, true]
        );
        // Too far from the good text: dropped.
        let far = vec![
            blocks[1].clone(),
            link(1, &"x".repeat(250)),
            block(2, BlockKind::Paragraph, ARTICLE),
        ];
        assert_eq!(run(&far), [false, false, true]);
    }

    #[test]
    fn max_link_density() {
        let mut b = block(0, BlockKind::Paragraph, ARTICLE);
        b.link_bytes = ARTICLE.len() / 4; // 0.25
        assert_eq!(run(std::slice::from_ref(&b)), [false]);
        let params = JustextParams {
            max_link_density: 0.3,
            ..JustextParams::default()
        };
        assert_eq!(
            classify(std::slice::from_ref(&b), Stopwords::english(), &params),
            [true]
        );
    }

    #[test]
    fn neargood_and_copyright() {
        // Near-good (under length_high) between bad neighbours is dropped, next to good kept.
        let near = "It was said that they would be there in the morning, and so they were.";
        assert!(normalized_len(near) >= 70 && normalized_len(near) <= 200);
        let blocks = vec![
            link(0, "Home"),
            block(1, BlockKind::Paragraph, near),
            link(2, "About"),
        ];
        let detail = classify_detailed(&blocks, Stopwords::english(), &JustextParams::default());
        assert_eq!(detail[1].cf_class, Class::NearGood);
        assert_eq!(run(&blocks), [false, false, false]);
        let blocks = vec![
            block(0, BlockKind::Paragraph, ARTICLE),
            block(1, BlockKind::Paragraph, near),
        ];
        assert_eq!(run(&blocks), [true, true]);
        let c = format!("{ARTICLE} \u{a9} 2008");
        assert_eq!(run(&[block(0, BlockKind::Paragraph, &c)]), [false]);
    }

    #[test]
    fn lengths_are_normalised_chars() {
        assert_eq!(normalized_len("  a \n\t b  é "), 5);
        assert_eq!(normalized_len(""), 0);
    }

    #[test]
    fn never_panics_on_odd_input() {
        let blocks = vec![
            Block::default(),
            block(1, BlockKind::Heading, " "),
            link(2, ""),
        ];
        assert_eq!(run(&blocks).len(), 3);
        assert!(run(&[]).is_empty());
        let mut b = block(0, BlockKind::Preformatted, "a\nb");
        b.link_bytes = 99;
        assert_eq!(render(&[b.clone()], &[true]), "<p>a b\n");
        assert_eq!(render(&[b], &[]), "");
    }
}
