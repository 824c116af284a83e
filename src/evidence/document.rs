//! Evidence only the whole document shows, and the rule that never leaves an article empty.
//!
//! The combined method's decider holds a document's measured blocks (up to
//! `--max-document-bytes`; a longer document is decided in pieces of that size) and, before it
//! classifies any of them, [`annotate`] adds what a block alone cannot tell:
//!
//! - where the page's **main run of prose** lies: every prose block gives its text to its
//!   container, half to the container's parent and a third or less further up (readability's
//!   candidate scoring); the container with the most is the main one. A block learns whether
//!   it sits in it or beside it (in its parent), how many blocks lie between it and the main
//!   run, and how much of the page's prose the main container holds (one long article, or a
//!   portal of many small texts);
//! - how much of the page's prose sits under the block's own container and the few above it
//!   (boilerpipe's and readability's "largest text cluster"), and how link-heavy and how
//!   crowded that container is (teaser lists, menus);
//! - the block's language-model scores and stopword share **relative to the page's own**, so a
//!   page in a language the English models find strange is not judged strange throughout;
//! - **repeated records**: how many elements holding text sit beside the block's own under one
//!   parent (the cards of a grid, the posts of a thread, the items of a menu), and how much of
//!   the page such records hold;
//! - the **kind of page** it declares ([`PageKind`]), so that one classifier learns that cards
//!   are content on a listing and teasers are not on an article.
//!
//! Prose here is judged without words or models: enough text outside links, so the same rule
//! holds in any language and script. The rules after the labels (`crate::decide`'s) judge
//! prose, the main run and repeated records by the same measures ([`prose_bytes`],
//! [`main_prose_bytes`], [`RECORD_SIBLINGS`], [`Analysis::record_siblings`]).

use rustc_hash::FxHashMap;

use crate::block::{Block, ContainerHints, Evidence, PageKind};

/// A block is prose for this module with at least this many bytes of text outside links...
const PROSE_BYTES: usize = 80;

/// ...and at most this share of its text in links.
pub const PROSE_LINK_DENSITY: f64 = 0.3;

/// How many containers, innermost first, the "cluster" and "record" values look at.
const CLUSTER_LEVELS: usize = 3;

/// A block is part of a repeated record when one of its [`CLUSTER_LEVELS`] innermost elements
/// has at least this many siblings holding text (itself included).
pub const RECORD_SIBLINGS: u32 = 4;

/// The text outside links a prose block brings to its containers (0 for other blocks).
pub fn prose_bytes(block: &Block) -> f64 {
    let own = block.text.len().saturating_sub(block.link_bytes) as f64;
    if own >= PROSE_BYTES as f64 && block.link_density() <= PROSE_LINK_DENSITY {
        own
    } else {
        0.0
    }
}

/// [`prose_bytes`] of a block that may be part of the main run: readers' comments, menus,
/// sidebars and dialogs not shown may hold much prose, but never the main run (readability
/// weighs such class names down for the same reason).
pub fn main_prose_bytes(block: &Block) -> f64 {
    if block.hints.has(
        ContainerHints::NAVIGATION
            | ContainerHints::PERIPHERY
            | ContainerHints::COMMENTS
            | ContainerHints::HIDDEN,
    ) {
        0.0
    } else {
        prose_bytes(block)
    }
}

/// What the blocks under one element add up to.
#[derive(Clone, Copy, Debug, Default)]
struct Container {
    /// [`prose_bytes`] of the blocks under it.
    prose: f64,
    /// Text bytes and link bytes of the blocks under it.
    text: f64,
    links: f64,
    blocks: u32,
    /// Readability's candidate score: prose of its children, half of its grandchildren's...
    score: f64,
    /// The element around it, if it is not outermost.
    parent: Option<u32>,
    /// Elements holding text directly under it.
    children: u32,
}

/// The containers of a document's blocks and the main one among them.
struct Structure {
    /// By element number (FxHash: a hash of element numbers needs no protection from attack,
    /// and SipHash was a tenth of the combined method's decision).
    containers: FxHashMap<u32, Container>,
    /// All the prose of the document.
    prose: f64,
    /// The container with the highest candidate score, if any block has prose.
    main: Option<u32>,
    /// The container around `main`, if any.
    main_parent: Option<u32>,
}

impl Structure {
    fn of(blocks: &[Block]) -> Structure {
        let mut containers: FxHashMap<u32, Container> = FxHashMap::default();
        let mut prose = 0.0;
        for block in blocks {
            let own = prose_bytes(block);
            prose += own;
            let candidate = main_prose_bytes(block);
            for (level, &number) in block.containers.iter().rev().enumerate() {
                let depth = block.containers.len() - 1 - level;
                let c = containers.entry(number).or_insert_with(|| Container {
                    parent: depth.checked_sub(1).map(|up| block.containers[up]),
                    ..Container::default()
                });
                c.prose += own;
                c.text += block.text.len() as f64;
                c.links += block.link_bytes.min(block.text.len()) as f64;
                c.blocks += 1;
                // readability: the parent gets it all, the grandparent half, then level × 3.
                c.score += candidate
                    / if level < 2 {
                        (level + 1) as f64
                    } else {
                        (level * 3) as f64
                    };
            }
        }
        let parents: Vec<u32> = containers.values().filter_map(|c| c.parent).collect();
        for parent in parents {
            if let Some(p) = containers.get_mut(&parent) {
                p.children += 1;
            }
        }
        // The highest score; ties go to the element that comes first, whatever the map's order.
        let main = containers
            .iter()
            .filter(|(_, c)| c.score > 0.0)
            .max_by(|(m, a), (n, b)| a.score.total_cmp(&b.score).then(n.cmp(m)))
            .map(|(&m, _)| m);
        let main_parent = main.and_then(|m| containers[&m].parent);
        Structure {
            containers,
            prose,
            main,
            main_parent,
        }
    }

    fn in_main(&self, block: &Block) -> bool {
        self.main.is_some_and(|m| block.containers.contains(&m))
    }

    /// Elements holding text under the parent of `container` (itself included); 0 for an
    /// outermost one.
    fn siblings(&self, container: u32) -> u32 {
        self.containers[&container]
            .parent
            .map_or(0, |p| self.containers[&p].children)
    }

    /// The most [`Structure::siblings`] among the block's [`CLUSTER_LEVELS`] innermost elements.
    fn record_siblings(&self, block: &Block) -> u32 {
        block
            .containers
            .iter()
            .rev()
            .take(CLUSTER_LEVELS)
            .map(|&n| self.siblings(n))
            .max()
            .unwrap_or(0)
    }
}

/// What the whole document (or piece) holds, for [`annotate`] to relate each block to.
struct Page {
    /// The first and the last block in the main run, if any.
    first_main: Option<usize>,
    last_main: Option<usize>,
    /// All the prose of the document, at least 1 (to divide by).
    total: f64,
    /// The prose under the main container.
    main_prose: f64,
    /// The prose of the main run itself (no comments, menus or sidebars).
    article: f64,
    /// The prose of readers' comments.
    comments: f64,
    /// [`Structure::record_siblings`] of each block.
    record_siblings: Vec<u32>,
    /// The share of the text that lies in repeated records.
    record_share: f32,
    /// [`language_means`] of the blocks.
    means: [f32; 3],
    /// The index of the last block, at least 1 (to divide positions by).
    last: f32,
}

impl Page {
    fn of(blocks: &[Block], structure: &Structure) -> Page {
        let main_blocks: Vec<usize> = (0..blocks.len())
            .filter(|&i| structure.in_main(&blocks[i]))
            .collect();
        let (first_main, last_main) = (main_blocks.first().copied(), main_blocks.last().copied());
        let total = structure.prose.max(1.0);
        let main_prose = structure
            .main
            .map_or(0.0, |m| structure.containers[&m].prose);
        let article: f64 = main_blocks
            .iter()
            .map(|&i| main_prose_bytes(&blocks[i]))
            .sum();
        let comments: f64 = blocks
            .iter()
            .filter(|b| b.hints.has(ContainerHints::COMMENTS))
            .map(prose_bytes)
            .sum();
        let record_siblings: Vec<u32> = blocks
            .iter()
            .map(|b| structure.record_siblings(b))
            .collect();
        let text: usize = blocks.iter().map(|b| b.text.len()).sum();
        let records: usize = blocks
            .iter()
            .zip(&record_siblings)
            .filter(|(_, &siblings)| siblings >= RECORD_SIBLINGS)
            .map(|(b, _)| b.text.len())
            .sum();
        Page {
            first_main,
            last_main,
            total,
            main_prose,
            article,
            comments,
            record_siblings,
            record_share: records as f32 / text.max(1) as f32,
            means: language_means(blocks),
            last: blocks.len().saturating_sub(1).max(1) as f32,
        }
    }
}

/// Word-weighted means of the blocks' general log2 probability, log-likelihood ratio and
/// stopword share (zeros when they hold no words).
fn language_means(blocks: &[Block]) -> [f32; 3] {
    let mut sums = [0.0f64; 3];
    let mut weight = 0.0f64;
    for block in blocks {
        let e = &block.evidence;
        let w = f64::from(e.ln_words.exp_m1());
        weight += w;
        let values = [
            e.general_log2_prob,
            e.log_likelihood_ratio,
            e.stopword_share,
        ];
        for (sum, value) in sums.iter_mut().zip(values) {
            *sum += w * f64::from(value);
        }
    }
    sums.map(|s| {
        if weight > 0.0 {
            (s / weight) as f32
        } else {
            0.0
        }
    })
}

/// What only the whole document (or a piece of a long one) shows, worked out once from its
/// measured blocks for both the page's kind ([`super::page_evidence`]) and each block's document
/// evidence ([`Analysis::annotate`]).
pub struct Analysis {
    structure: Structure,
    page: Page,
}

impl Analysis {
    /// The analysis of `blocks`, one document's, measured ([`super::measure`]) and in order.
    pub fn of(blocks: &[Block]) -> Analysis {
        let structure = Structure::of(blocks);
        let page = Page::of(blocks, &structure);
        Analysis { structure, page }
    }

    /// Fills the document values of the evidence of `blocks` (those the analysis was made of),
    /// on a page of the given kind.
    pub fn annotate(&self, blocks: &mut [Block], kind: PageKind) {
        for (i, block) in blocks.iter_mut().enumerate() {
            annotate_block(block, i, &self.structure, &self.page, kind);
        }
    }

    /// The share of the document's prose in its main container.
    pub fn main_share(&self) -> f32 {
        (self.page.main_prose / self.page.total) as f32
    }

    /// Bytes of prose in the main run itself.
    pub fn article_prose(&self) -> f64 {
        self.page.article
    }

    /// For each block, how many elements holding text sit beside its record under one parent
    /// (0 for a block in no repeated record).
    pub fn record_siblings(&self) -> &[u32] {
        &self.page.record_siblings
    }

    /// The share of the document's prose in readers' comments.
    pub fn comment_share(&self) -> f32 {
        (self.page.comments / self.page.total) as f32
    }

    /// The share of the document's text in repeated records.
    pub fn record_share(&self) -> f32 {
        self.page.record_share
    }

    /// The most elements holding text under one parent.
    pub fn most_siblings(&self) -> u32 {
        self.structure
            .containers
            .values()
            .map(|c| c.children)
            .max()
            .unwrap_or(0)
    }
}

/// Fills the document values of the evidence of `blocks`, one document (or one piece of a long
/// one) of the given kind, measured ([`super::measure`]) and in order.
pub fn annotate(blocks: &mut [Block], kind: PageKind) {
    Analysis::of(blocks).annotate(blocks, kind);
}

/// Fills the document values of the evidence of `block`, the `i`th of the page.
fn annotate_block(block: &mut Block, i: usize, structure: &Structure, page: &Page, kind: PageKind) {
    let in_main = structure.in_main(block);
    let beside = !in_main
        && structure
            .main_parent
            .is_some_and(|p| block.containers.contains(&p));
    let container = block
        .containers
        .last()
        .map(|n| structure.containers[n])
        .unwrap_or_default();
    let cluster = block
        .containers
        .iter()
        .rev()
        .take(CLUSTER_LEVELS)
        .map(|n| structure.containers[n].prose)
        .fold(0.0, f64::max);
    let siblings = block
        .containers
        .last()
        .map_or(0, |&n| structure.siblings(n));
    let before = page.first_main.filter(|&f| i < f).map_or(0, |f| f - i);
    let after = page.last_main.filter(|&l| i > l).map_or(0, |l| i - l);
    let total = page.total;
    let e = &mut block.evidence;
    e.ln_document_prose = (structure.prose as f32).ln_1p();
    e.main_share = (page.main_prose / total) as f32;
    e.in_main = f32::from(u8::from(in_main));
    e.beside_main = f32::from(u8::from(beside));
    e.ln_blocks_before_main = (before as f32).ln_1p();
    e.ln_blocks_after_main = (after as f32).ln_1p();
    e.container_prose_share = (container.prose / total) as f32;
    e.cluster_prose_share = (cluster / total) as f32;
    e.container_link_density = if container.text > 0.0 {
        (container.links / container.text) as f32
    } else {
        0.0
    };
    e.ln_container_blocks = (container.blocks as f32).ln_1p();
    e.ln_siblings = (siblings as f32).ln_1p();
    e.ln_record_siblings = (page.record_siblings[i] as f32).ln_1p();
    e.relative_position = i as f32 / page.last;
    e.general_vs_document = e.general_log2_prob - page.means[0];
    e.log_likelihood_ratio_vs_document = e.log_likelihood_ratio - page.means[1];
    e.stopword_share_vs_document = e.stopword_share - page.means[2];
    e.ln_main_prose = (page.article as f32).ln_1p();
    e.comment_share = (page.comments / total) as f32;
    e.record_share = page.record_share;
    set_page_kind(e, kind);
}

/// Sets the kind-of-page values of `e`: 1 for `kind`, 0 for the others.
fn set_page_kind(e: &mut Evidence, kind: PageKind) {
    let is = |k: PageKind| f32::from(u8::from(kind == k));
    e.kind_article = is(PageKind::Article);
    e.kind_forum = is(PageKind::Forum);
    e.kind_product = is(PageKind::Product);
    e.kind_collection = is(PageKind::Collection);
    e.kind_listing = is(PageKind::Listing);
    e.kind_documentation = is(PageKind::Documentation);
    e.kind_service = is(PageKind::Service);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::fixtures::{block, page};
    use crate::block::Evidence;

    fn value(block: &Block, name: &str) -> f32 {
        let at = Evidence::NAMES.iter().position(|n| *n == name).unwrap();
        block.evidence.values()[at]
    }

    #[test]
    fn the_main_container_is_where_the_prose_is() {
        let mut blocks = page();
        annotate(&mut blocks, PageKind::Other);
        let in_main: Vec<f32> = blocks.iter().map(|b| value(b, "in_main")).collect();
        assert_eq!(in_main, [0.0, 0.0, 1.0, 1.0, 1.0, 0.0]);
        assert_eq!(
            value(&blocks[0], "beside_main"),
            1.0,
            "body holds the article"
        );
        assert_eq!(value(&blocks[0], "ln_blocks_before_main"), 2f32.ln_1p());
        assert_eq!(value(&blocks[5], "ln_blocks_after_main"), 1f32.ln_1p());
        assert_eq!(value(&blocks[3], "main_share"), 1.0);
        assert_eq!(value(&blocks[3], "container_prose_share"), 1.0);
        assert_eq!(value(&blocks[0], "container_prose_share"), 0.0);
        assert_eq!(value(&blocks[5], "container_link_density"), 1.0);
        assert_eq!(value(&blocks[5], "relative_position"), 1.0);
    }

    #[test]
    fn repeated_records_and_the_kind_are_seen() {
        // body(0) > grid(1) > five cards(2..7), each a heading and a line; body > p(8).
        let mut blocks = Vec::new();
        for card in 0..5u32 {
            let at = 2 * card;
            blocks.push(block(at, &[0, 1, 2 + card], "A card's heading", 0));
            blocks.push(block(at + 1, &[0, 1, 2 + card], "What the card says.", 0));
        }
        blocks.push(block(10, &[0, 8], "A paragraph of its own below.", 0));
        annotate(&mut blocks, PageKind::Listing);
        assert_eq!(value(&blocks[0], "ln_siblings"), 5f32.ln_1p());
        assert_eq!(value(&blocks[0], "ln_record_siblings"), 5f32.ln_1p());
        // body holds two elements with text: the grid and the paragraph.
        assert_eq!(value(&blocks[10], "ln_siblings"), 2f32.ln_1p());
        let text: usize = blocks.iter().map(|b| b.text.len()).sum();
        let cards = text - blocks[10].text.len();
        assert_eq!(
            value(&blocks[10], "record_share"),
            cards as f32 / text as f32
        );
        assert_eq!(value(&blocks[3], "kind_listing"), 1.0);
        assert_eq!(value(&blocks[3], "kind_article"), 0.0);
        // Fewer than four siblings are no records.
        let mut pair = blocks[..4].to_vec();
        annotate(&mut pair, PageKind::Other);
        assert_eq!(value(&pair[0], "record_share"), 0.0);
        assert_eq!(value(&pair[0], "kind_listing"), 0.0);
    }

    #[test]
    fn values_are_relative_to_the_page() {
        let mut blocks = page();
        for (i, b) in blocks.iter_mut().enumerate() {
            b.evidence.ln_words = 1f32.ln_1p();
            b.evidence.general_log2_prob = -(i as f32);
        }
        annotate(&mut blocks, PageKind::Other);
        let relative: Vec<f32> = blocks
            .iter()
            .map(|b| value(b, "general_vs_document"))
            .collect();
        assert_eq!(relative, [2.5, 1.5, 0.5, -0.5, -1.5, -2.5]);
    }

    #[test]
    fn plain_text_and_empty_documents_are_fine() {
        let mut blocks = vec![block(0, &[], "A line of plain text.", 0)];
        annotate(&mut blocks, PageKind::Other);
        assert!(blocks[0].evidence.values().iter().all(|v| v.is_finite()));
        annotate(&mut [], PageKind::Other);
    }

}
