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
//! holds in any language and script. [`rescue`] uses it too: when the classifier keeps nothing
//! of substance of a document that holds a run of real prose, the best such run is kept.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::block::{Block, BlockKind, ContainerHints, Evidence, PageKind};

/// A block is prose for this module with at least this many bytes of text outside links...
const PROSE_BYTES: usize = 80;

/// ...and at most this share of its text in links.
const PROSE_LINK_DENSITY: f64 = 0.3;

/// How many containers, innermost first, the "cluster" and "record" values look at.
const CLUSTER_LEVELS: usize = 3;

/// A block is part of a repeated record when one of its [`CLUSTER_LEVELS`] innermost elements
/// has at least this many siblings holding text (itself included).
const RECORD_SIBLINGS: u32 = 4;

/// The text outside links a prose block brings to its containers (0 for other blocks).
pub(super) fn prose_bytes(block: &Block) -> f64 {
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
fn main_prose_bytes(block: &Block) -> f64 {
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

/// A rescued run holds at least this much prose (bytes outside links, about 100 words), and is
/// rescued only when what the classifier kept holds less than that...
const RESCUE_MIN_PROSE: f64 = 500.0;

/// ...and less than this share of the run.
const RESCUE_BELOW_SHARE: f64 = 0.2;

/// When `keep` (one label per block) holds nothing of substance while the blocks hold a run of
/// real prose, keeps that run's prose blocks and headings. The run is the stretch of blocks
/// with the most prose once the text of the blocks between its prose is taken off (half of it
/// counts against), found in one pass (Kadane).
pub fn rescue(blocks: &[Block], keep: &mut [bool]) {
    let value = |b: &Block| {
        let own = main_prose_bytes(b);
        if own > 0.0 {
            own
        } else {
            -(b.text.len() as f64) / 2.0
        }
    };
    let (mut best, mut best_range) = (0.0, 0..0);
    let (mut sum, mut start) = (0.0, 0);
    for (i, block) in blocks.iter().enumerate() {
        if sum <= 0.0 {
            sum = 0.0;
            start = i;
        }
        sum += value(block);
        if sum > best {
            best = sum;
            best_range = start..i + 1;
        }
    }
    let run_prose: f64 = blocks[best_range.clone()]
        .iter()
        .map(main_prose_bytes)
        .sum();
    if run_prose < RESCUE_MIN_PROSE {
        return;
    }
    let kept: f64 = blocks
        .iter()
        .zip(keep.iter())
        .filter(|(_, &k)| k)
        .map(|(b, _)| b.text.len().saturating_sub(b.link_bytes) as f64)
        .sum();
    if kept >= RESCUE_BELOW_SHARE * run_prose || kept >= RESCUE_MIN_PROSE {
        return;
    }
    for i in best_range {
        if main_prose_bytes(&blocks[i]) > 0.0 || blocks[i].kind == BlockKind::Heading {
            keep[i] = true;
        }
    }
}

/// The cards of a page of cards ([`keep_cards`]) are the children of one element, at least
/// [`RECORD_SIBLINGS`] of them, holding this many bytes of text each on average (a menu's items
/// hold a word or two)...
const CARD_MEAN_BYTES: f64 = 40.0;

/// ...and at least this share of the page's text...
const CARDS_MIN_SHARE: f64 = 0.2;

/// ...and this many times the text of its main run of prose: a news page told a listing keeps
/// its article, not its teasers.
const CARDS_OVER_PROSE: f64 = 8.0;

/// What a card may not be under: a menu, the page's periphery, a dialog not shown.
const NOT_CARDS: u8 = ContainerHints::NAVIGATION | ContainerHints::PERIPHERY | ContainerHints::HIDDEN;

/// Keeps the cards of a listing, which its gold keeps whole (a title that is a link, a line of
/// text, a date): every block of two words or more, but captions and asides, under the element
/// whose children (four or more, holding [`CARD_MEAN_BYTES`] each on average) hold the most
/// text outside menus, when they hold enough of the page ([`CARDS_MIN_SHARE`], and
/// [`CARDS_OVER_PROSE`] times `article_prose`, the main run's prose). The classifier, which
/// sees each card's links and few words, keeps too few of them.
pub fn keep_cards(blocks: &[Block], keep: &mut [bool], article_prose: f64) {
    // Each element's children holding text, and the text under them.
    let mut parents: FxHashMap<u32, (FxHashSet<u32>, f64)> = FxHashMap::default();
    let mut total = 0.0;
    for block in blocks.iter().filter(|b| !b.hints.has(NOT_CARDS)) {
        let text = block.text.len() as f64;
        total += text;
        for pair in block.containers.windows(2) {
            let (children, under) = parents.entry(pair[0]).or_default();
            children.insert(pair[1]);
            *under += text;
        }
    }
    let cards = parents
        .iter()
        .filter(|(_, (children, text))| {
            children.len() >= RECORD_SIBLINGS as usize
                && *text / children.len() as f64 >= CARD_MEAN_BYTES
        })
        .map(|(&parent, &(_, text))| (parent, text))
        // The most text; of two alike, the element that came first.
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
    let Some((parent, text)) = cards else { return };
    if text < CARDS_MIN_SHARE * total || text < CARDS_OVER_PROSE * article_prose {
        return;
    }
    for (block, keep) in blocks.iter().zip(keep.iter_mut()) {
        if block.containers.contains(&parent)
            && block.words() >= 2
            && !block.hints.has(NOT_CARDS | ContainerHints::ASIDE)
        {
            *keep = true;
        }
    }
}

/// A forum's post ([`keep_posts`]) holds at least this many bytes of text outside links (a
/// line such as "I have my answer: 72 posts. That's how long.")...
const POST_MIN_BYTES: usize = 40;

/// Keeps a forum thread's posts, which are its content: every block of [`POST_MIN_BYTES`] or
/// more outside links, mostly outside links, in a repeated record ([`RECORD_SIBLINGS`]) and not
/// under a menu, the page's periphery, a dialog not shown or an aside. The classifier drops
/// some posts (a third of a vBulletin thread's words), and [`keep_comments`] brings back only
/// those under an element named like a comment thread, which `post_message_…` is not.
pub fn keep_posts(blocks: &[Block], keep: &mut [bool], analysis: &Analysis) {
    for ((block, keep), &siblings) in blocks
        .iter()
        .zip(keep.iter_mut())
        .zip(&analysis.page.record_siblings)
    {
        if siblings >= RECORD_SIBLINGS
            && block.text.len().saturating_sub(block.link_bytes) >= POST_MIN_BYTES
            && block.link_density() <= PROSE_LINK_DENSITY
            && !block.hints.has(NOT_CARDS | ContainerHints::ASIDE)
        {
            *keep = true;
        }
    }
}

/// Keeps the prose blocks of readers' comments: under an element named like a comment thread
/// ([`ContainerHints::COMMENTS`]) and mostly outside links.
pub fn keep_comments(blocks: &[Block], keep: &mut [bool]) {
    for (block, keep) in blocks.iter().zip(keep.iter_mut()) {
        if block.hints.has(ContainerHints::COMMENTS)
            && !block.hints.has(ContainerHints::HIDDEN)
            && prose_bytes(block) > 0.0
        {
            *keep = true;
        }
    }
}

/// Drops the blocks the combined method never keeps, whatever the classifier said: dialogs not
/// shown when the page opens ([`ContainerHints::HIDDEN`]), which a reader does not see as part
/// of the page, and captions and asides ([`ContainerHints::ASIDE`]), which no gold set here
/// counts as the page's text. First of the rules after the labels, so that [`keep_comments`]
/// and the last resort against an empty page never bring a dialog back ([`rescue`] may keep a
/// caption that sits in the run of prose it restores). Also a block that is nothing but an
/// image's address (a shop's thumbnails listed as text), or one label written over and over
/// with nothing between ("WATERPROOFWATERPROOF": a badge or a button for each picture, which
/// the page shows one at a time), which no reader reads as text.
pub fn drop_never_kept(blocks: &[Block], keep: &mut [bool]) {
    for (block, keep) in blocks.iter().zip(keep.iter_mut()) {
        if *keep
            && (block
                .hints
                .has(ContainerHints::HIDDEN | ContainerHints::ASIDE)
                || is_image_address(&block.text)
                || is_repeated_label(&block.text))
        {
            *keep = false;
        }
    }
}

/// The file name endings of pictures.
const IMAGE_ENDINGS: [&str; 7] = [".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif", ".svg"];

/// Whether `text` is one web address of a picture and nothing else.
fn is_image_address(text: &str) -> bool {
    let text = text.trim();
    let path = text.split(['?', '#']).next().unwrap_or_default();
    (text.starts_with("https://") || text.starts_with("http://"))
        && !text.contains(char::is_whitespace)
        && IMAGE_ENDINGS.iter().any(|e| {
            path.len() > e.len()
                && path
                    .get(path.len() - e.len()..)
                    .is_some_and(|end| end.eq_ignore_ascii_case(e))
        })
}

/// A label written again and again ([`is_repeated_label`]) is at most this long...
const REPEATED_LABEL_MAX_BYTES: usize = 400;

/// ...and its label this long at least (shorter, it may be a word: "couscous", "bonbon").
const REPEATED_LABEL_MIN_BYTES: usize = 5;

/// Whether `text` is one label of a few letters written twice or more with nothing between
/// ("Zoom on imageZoom on image").
fn is_repeated_label(text: &str) -> bool {
    let bytes = text.as_bytes();
    let n = bytes.len();
    if !(2 * REPEATED_LABEL_MIN_BYTES..=REPEATED_LABEL_MAX_BYTES).contains(&n) {
        return false;
    }
    // Every copy of the label starts as the first does: no second start, no label written
    // over (most texts end here, without trying each length).
    let head = &bytes[..REPEATED_LABEL_MIN_BYTES];
    let Some(second) = memchr::memmem::find(&bytes[REPEATED_LABEL_MIN_BYTES..], head) else {
        return false;
    };
    (REPEATED_LABEL_MIN_BYTES + second..=n / 2).any(|unit| {
        n.is_multiple_of(unit)
            && text.is_char_boundary(unit)
            && bytes.chunks_exact(unit).all(|chunk| chunk == &bytes[..unit])
    })
}

/// The separators between a page title's headline and its site's name ("Headline | Site").
const TITLE_SEPARATORS: [&str; 7] = [" | ", " - ", " – ", " — ", " :: ", " · ", " » "];

/// A headline holds at most this many words.
const HEADLINE_MAX_WORDS: usize = 40;

/// The words of `text`, lowercase, each run of letters and digits one word: what headlines
/// are compared by (a title's `&#039;` and a heading's `’` are the same headline).
fn words_of(text: &str) -> String {
    word_chars(text).collect()
}

/// The words of `text` as headlines and copies are compared by: each run of letters and
/// digits one word (as written; [`words_of`] and [`word_runs`] lowercase them).
fn alphanumeric_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// The characters of [`words_of`], one at a time (a block is compared with the headlines
/// without making its words).
fn word_chars(text: &str) -> impl Iterator<Item = char> + '_ {
    alphanumeric_words(text)
        .enumerate()
        .flat_map(|(i, word)| {
            (i > 0)
                .then_some(' ')
                .into_iter()
                .chain(word.chars().flat_map(char::to_lowercase))
        })
}

/// The headlines a page's title may name (`words_of` each): the title itself, and what lies
/// before or after each separator in it ("Headline | Section | Site", "Site – Headline"). Made
/// once a page for both [`keep_headline`] and [`drop_repeated_headline`].
pub struct Headlines {
    names: Vec<String>,
    /// The length of the shortest one.
    shortest: usize,
}

impl Headlines {
    /// The headlines `titles` name (the page's `<title>`, the title it declares for sharing).
    pub fn of<'a>(titles: impl IntoIterator<Item = &'a str>) -> Headlines {
        let mut names = Vec::new();
        for title in titles {
            names.push(words_of(title));
            for sep in TITLE_SEPARATORS {
                for (at, _) in title.match_indices(sep) {
                    names.push(words_of(&title[..at]));
                    names.push(words_of(&title[at + sep.len()..]));
                }
            }
        }
        names.retain(|h| !h.is_empty());
        let shortest = names.iter().map(String::len).min().unwrap_or(usize::MAX);
        Headlines { names, shortest }
    }

    /// Whether the block's text is one of the headlines.
    fn name(&self, block: &Block) -> bool {
        self.named(block).is_some()
    }

    /// The headline the block's text is (compared by `words_of`; a block's words are never
    /// longer than its text, so a text shorter than every headline is none).
    fn named(&self, block: &Block) -> Option<&str> {
        if block.text.len() < self.shortest || block.words() > HEADLINE_MAX_WORDS {
            return None;
        }
        self.names
            .iter()
            .find(|name| name.chars().eq(word_chars(&block.text)))
            .map(String::as_str)
    }
}

/// Keeps the page's headline: the last block before the main run (or, without one, before
/// the first block kept) that is one of the `headlines` its titles name, shown, and mostly
/// outside links but for a heading (a blog's links to the post itself), unless the first block
/// kept is one already. Articles' gold keeps the headline, and the classifier, which sees it
/// among the menus above the text, dropped it on 53 of the 118 shared Fundus pages.
pub fn keep_headline(blocks: &[Block], keep: &mut [bool], headlines: Option<&Headlines>) {
    let Some(headlines) = headlines else { return };
    let first_main = blocks.iter().position(|b| b.evidence.in_main > 0.0);
    let first_kept = keep.iter().position(|&k| k);
    let Some(before) = first_main.or(first_kept) else {
        return;
    };
    // A headline the classifier kept opens the text already.
    if first_kept.is_some_and(|i| i <= before && headlines.name(&blocks[i])) {
        return;
    }
    let headline = (0..before).rev().find(|&i| {
        let b = &blocks[i];
        (b.link_density() <= PROSE_LINK_DENSITY || b.kind == BlockKind::Heading)
            && !b.hints.has(ContainerHints::HIDDEN | ContainerHints::TITLE)
            && headlines.name(b)
    });
    if let Some(i) = headline {
        keep[i] = true;
    }
}

/// Drops every kept copy of the first kept headline (one of the `headlines` the page's titles
/// name): a hidden copy, a sharing widget's, a sticky header's (other repeats:
/// [`drop_repeats`]). Another headline, the `<title>`'s beside `og:title`'s, is no copy.
pub fn drop_repeated_headline(blocks: &[Block], keep: &mut [bool], headlines: Option<&Headlines>) {
    let Some(headlines) = headlines else { return };
    let mut first = None;
    for (block, keep) in blocks.iter().zip(keep.iter_mut()) {
        if !*keep {
            continue;
        }
        if let Some(words) = headlines.named(block) {
            match &first {
                None => first = Some(words),
                Some(first) => *keep = words != *first,
            }
        }
    }
}

/// A story follows the page's own ([`drop_other_stories`]) after this many bytes of the own
/// story's text kept...
const OWN_STORY_MIN_BYTES: usize = 500;

/// Drops the stories that follow the page's own on an endless page (a news site that loads the
/// next story below the first): after the headline (the first `<h1>` its titles name) and
/// [`OWN_STORY_MIN_BYTES`] of its story's text kept, every block of another `<article>` that
/// has an `<h1>` of its own which the titles do not name. Only an `<h1>` marks a story (an
/// article's sections have lesser headings, or `<h1>`s inside its own body, which may sit in
/// an `<article>` apart from its headline: its text comes before any other story's). Not on a
/// listing or a collection, whose stories are its content.
pub fn drop_other_stories(
    blocks: &[Block],
    keep: &mut [bool],
    headlines: Option<&Headlines>,
    kind: PageKind,
) {
    let Some(headlines) = headlines else { return };
    if matches!(kind, PageKind::Listing | PageKind::Collection) {
        return;
    }
    let Some(first) = blocks
        .iter()
        .position(|b| b.top_heading && headlines.name(b))
    else {
        return;
    };
    let own = blocks[first].story;
    let mut own_bytes = 0;
    let mut others = FxHashSet::default();
    for (block, &kept) in blocks.iter().zip(keep.iter()).skip(first + 1) {
        if block.story == own {
            own_bytes += if kept { block.text.len() } else { 0 };
        } else if block.top_heading
            && own_bytes >= OWN_STORY_MIN_BYTES
            && !headlines.name(block)
        {
            others.extend(block.story);
        }
    }
    if others.is_empty() {
        return;
    }
    for (block, keep) in blocks.iter().zip(keep.iter_mut()) {
        if block.story.is_some_and(|story| others.contains(&story)) {
            *keep = false;
        }
    }
}

/// A repeat holds at least this many words (shorter ones, "Reply" or "Read more", are the
/// classifier's to judge).
const REPEAT_MIN_WORDS: usize = 3;

/// Drops every kept block outside the main run whose text was kept before on the page: a
/// consent placeholder shown for each embed, a caption's credit under every picture, a teaser
/// or a box shown twice. Not on the pages made of cards and sections (documentation, service
/// pages, listings, collections), where the same features repeat on each card by design, and
/// never in the main run, which may give a text twice (a page printed twice: CleanEval's gold
/// keeps both). Dropping every repeat of three words or more cost the CleanEval pages 0.4 Lev;
/// as here, Fundus gains 0.4 Lev and WCXB 0.003 F1 for CleanEval's 0.04 Lev (cross-validated).
pub fn drop_repeats(blocks: &[Block], keep: &mut [bool], kind: PageKind) {
    if matches!(
        kind,
        PageKind::Documentation | PageKind::Service | PageKind::Listing | PageKind::Collection
    ) {
        return;
    }
    let mut kept = FxHashSet::default();
    for (block, keep) in blocks.iter().zip(keep.iter_mut()) {
        if *keep && block.words() >= REPEAT_MIN_WORDS && !kept.insert(block.text.as_str()) {
            *keep = block.evidence.in_main > 0.0;
        }
    }
}

/// A copy ([`drop_copies`]) holds at least this many words...
const COPY_MIN_WORDS: usize = 10;

/// ...and at least this share of its runs of [`COPY_RUN_WORDS`] words came in the blocks kept
/// before it.
const COPY_SHARE: f64 = 0.8;

/// The words of a run that copies are compared by.
const COPY_RUN_WORDS: usize = 4;

/// The runs of [`COPY_RUN_WORDS`] words of `text` (lowercase, each run of letters and digits
/// one word), hashed.
fn word_runs(text: &str) -> Vec<u64> {
    use std::hash::{Hash, Hasher};
    let mut last = [0u64; COPY_RUN_WORDS];
    let mut runs = Vec::new();
    for (n, word) in alphanumeric_words(text).enumerate() {
        let mut hasher = rustc_hash::FxHasher::default();
        for c in word.chars().flat_map(char::to_lowercase) {
            c.hash(&mut hasher);
        }
        last.rotate_left(1);
        last[COPY_RUN_WORDS - 1] = hasher.finish();
        if n + 1 >= COPY_RUN_WORDS {
            let mut run = rustc_hash::FxHasher::default();
            last.hash(&mut run);
            runs.push(run.finish());
        }
    }
    runs
}

/// Drops every kept block hidden until opened ([`ContainerHints::COLLAPSED`]) whose text
/// mostly came in the blocks kept before it: the hidden copy of an article a paywall holds
/// for its subscribers, a "read more" box that gives the paragraphs again. Only hidden ones:
/// dropping every such copy cost CleanEval's pages 0.6 Lev (a page printed twice, whose gold
/// keeps both), where hidden ones alone gain Fundus 0.4 Lev and 0.9 word F and change no other
/// set by 0.01 (cross-validated).
pub fn drop_copies(blocks: &[Block], keep: &mut [bool]) {
    let hidden = |(block, &kept): (&Block, &bool)| {
        kept && block.hints.has(ContainerHints::COLLAPSED) && block.words() >= COPY_MIN_WORDS
    };
    // Most pages keep no hidden text: nothing to compare.
    let Some(last) = blocks.iter().zip(keep.iter()).rposition(hidden) else {
        return;
    };
    let mut seen = FxHashSet::default();
    for i in 0..=last {
        if !keep[i] {
            continue;
        }
        let runs = word_runs(&blocks[i].text);
        if hidden((&blocks[i], &keep[i])) && !runs.is_empty() {
            let old = runs.iter().filter(|r| seen.contains(*r)).count();
            if old as f64 >= COPY_SHARE * runs.len() as f64 {
                keep[i] = false;
                continue;
            }
        }
        seen.extend(runs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::Evidence;

    fn block(index: u32, containers: &[u32], text: &str, link_bytes: usize) -> Block {
        let mut b = Block::new(index, BlockKind::Paragraph, text);
        b.containers = containers.to_vec();
        b.link_bytes = link_bytes;
        b
    }

    /// A menu of the links `items`: body(0) > nav(1) > one link each.
    fn menu(items: &[&str]) -> Vec<Block> {
        items
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut link = block(i as u32, &[0, 1], t, t.len());
                link.hints = ContainerHints(ContainerHints::NAVIGATION);
                link
            })
            .collect()
    }

    /// Appends `count` records to `blocks`: body(0) > parent(2) > record(3 + r), each holding
    /// the blocks `fields(r)` lists, as text and bytes in links.
    fn push_records(
        blocks: &mut Vec<Block>,
        count: u32,
        fields: impl Fn(u32) -> Vec<(String, usize)>,
    ) {
        for r in 0..count {
            for (text, link_bytes) in fields(r) {
                let n = blocks.len() as u32;
                blocks.push(block(n, &[0, 2, 3 + r], &text, link_bytes));
            }
        }
    }

    /// Paragraphs of `texts`, outside links, all under one element.
    fn siblings(texts: &[&str]) -> Vec<Block> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| block(i as u32, &[0], t, 0))
            .collect()
    }

    #[test]
    fn image_addresses_and_labels_written_over_and_over_are_never_text() {
        type Rule = fn(&str) -> bool;
        let cases: [(Rule, &[&str], &[&str]); 2] = [
            (
                is_image_address,
                &[
                    "https://cdn.example.com/images/160x160/TEE_BONE_THUMB.jpg",
                    " http://x.org/a.PNG?w=300 ",
                    "https://x.org/pic.webp#top",
                ],
                &[
                    "https://x.org/page.html",
                    "See https://x.org/a.jpg for the map",
                    "photo.jpg",
                    "https://x.org/a.jpg, https://x.org/b.jpg",
                    "https://x.org/日本",
                    "https://x.org/aé",
                ],
            ),
            (
                is_repeated_label,
                &[
                    "WATERPROOFWATERPROOF",
                    "Zoom on imageZoom on imageZoom on image",
                    "Größe Größe ",
                ],
                &[
                    "couscous",
                    "bonbon",
                    "WATERPROOF",
                    "Zoom on image Zoom on imag",
                    "",
                    "ééééééééééé",
                ],
            ),
        ];
        for (rule, never, text) in cases {
            for t in never {
                assert!(rule(t), "{t}");
            }
            for t in text {
                assert!(!rule(t), "{t}");
            }
        }
    }

    #[test]
    fn repeats_outside_the_main_run_come_out_once_except_on_pages_of_cards() {
        let texts = [
            "External content is not available here",
            "The council voted on Tuesday.",
            "External content is not available here",
            "Yes",
            "Yes",
            "The council voted on Tuesday.",
        ];
        let mut blocks = siblings(&texts);
        // The second block and its copy are in the main run (a text given twice there stays).
        for i in [1, 5] {
            blocks[i].evidence.in_main = 1.0;
        }
        let decided = |kind| {
            let mut keep = vec![true; blocks.len()];
            keep[3] = false;
            drop_repeats(&blocks, &mut keep, kind);
            keep
        };
        assert_eq!(
            decided(PageKind::Article),
            [true, true, false, false, true, true]
        );
        assert_eq!(decided(PageKind::Other), decided(PageKind::Article));
        assert_eq!(
            decided(PageKind::Service),
            [true, true, true, false, true, true]
        );
    }

    #[test]
    fn a_hidden_copy_of_text_kept_before_comes_out_once() {
        let first = "The council met on Monday to vote on the plan for the coast road.";
        let second = "Work on the new sea wall starts in May, officials said on Tuesday.";
        let both = format!("{first} {second}");
        let other = "A hidden box with words of its own that no block before holds.";
        let texts = [first, second, both.as_str(), both.as_str(), other];
        let mut blocks = siblings(&texts);
        for i in [2, 4] {
            blocks[i].hints = ContainerHints(ContainerHints::COLLAPSED);
        }
        let mut keep = vec![true; blocks.len()];
        drop_copies(&blocks, &mut keep);
        // The hidden copy goes; a shown copy and a hidden box of new text stay.
        assert_eq!(keep, [true, true, false, true, true]);
        // A copy of text dropped before is no copy of text kept.
        let mut keep = vec![false, false, true, true, true];
        drop_copies(&blocks, &mut keep);
        assert_eq!(keep, [false, false, true, true, true]);
    }

    fn value(block: &Block, name: &str) -> f32 {
        let at = Evidence::NAMES.iter().position(|n| *n == name).unwrap();
        block.evidence.values()[at]
    }

    /// body(0) > nav(1) > 2 links; body > article(2) > 3 paragraphs; body > aside(3) > teaser.
    fn page() -> Vec<Block> {
        let prose = "The council met on Monday to vote on the plan for the coast road, which has been closed since the storm. \
                     Work on the new sea wall starts in May and should take until the end of the year, officials said.";
        let teaser = "Other news: the mayor opens a new library in the old mill, with a cafe and a reading garden for children.";
        vec![
            block(0, &[0, 1], "Home", 4),
            block(1, &[0, 1], "News", 4),
            block(2, &[0, 2], prose, 0),
            block(3, &[0, 2], prose, 0),
            block(4, &[0, 2], prose, 0),
            block(5, &[0, 3], teaser, teaser.len()),
        ]
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
        rescue(&[], &mut []);
    }

    #[test]
    fn the_cards_of_a_listing_are_kept_but_its_menus() {
        // body(0) > nav(1) > 4 links; body > grid(2) > 5 cards(3..8), each a linked title and
        // a line of text.
        let mut blocks = menu(&["Home", "News", "Shop", "About"]);
        push_records(&mut blocks, 5, |card| {
            let title = format!("Lakeside cabin number {card}");
            let text = format!("Sleeps four, with a boat and a stove; {card} km from the village.");
            vec![(title.clone(), title.len()), (text, 0), ("Book".into(), 4)]
        });
        let decided = |blocks: &[Block], article_prose| {
            let mut keep = vec![false; blocks.len()];
            keep_cards(blocks, &mut keep, article_prose);
            keep
        };
        let keep = decided(&blocks, 0.0);
        assert!(keep[..4].iter().all(|k| !k), "menus");
        for card in 0..5 {
            assert_eq!(keep[4 + 3 * card..7 + 3 * card], [true, true, false], "card {card}");
        }
        // A page whose main run holds more than an eighth of the cards' text keeps its article.
        let cards: usize = blocks[4..].iter().map(|b| b.text.len()).sum();
        assert_eq!(decided(&blocks, cards as f64 / 7.0), vec![false; blocks.len()]);
        // Three cards are no grid.
        blocks.truncate(4 + 3 * 3);
        assert_eq!(decided(&blocks, 0.0), vec![false; blocks.len()]);
    }

    #[test]
    fn a_threads_posts_are_kept_but_its_names_dates_links_and_menus() {
        // body(0) > nav(1) > 4 links; body > thread(2) > 5 posts(3..8), each a name, a date,
        // a message and a link to the poster's site.
        let mut blocks = menu(&["Home", "Forums", "Search", "Members"]);
        push_records(&mut blocks, 5, |post| {
            let message = format!("I have my answer: {post} posts. That's how long.");
            let site = format!("Visit my homepage number {post} for more");
            let (name, date) = ("Ahoatam".into(), "05-06-2005, 05:48 PM".into());
            vec![(name, 0), (date, 0), (message, 0), (site.clone(), site.len())]
        });
        let decided = |blocks: &[Block]| {
            let mut keep = vec![false; blocks.len()];
            keep_posts(blocks, &mut keep, &Analysis::of(blocks));
            keep
        };
        let keep = decided(&blocks);
        assert!(keep[..4].iter().all(|k| !k), "menus");
        for post in 0..5 {
            let at = 4 + 4 * post;
            assert_eq!(keep[at..at + 4], [false, false, true, false], "post {post}");
        }
        // Three posts are no repeated record: the classifier decides alone.
        blocks.truncate(4 + 4 * 3);
        assert_eq!(decided(&blocks), vec![false; blocks.len()]);
    }

    #[test]
    fn comments_are_kept_on_request() {
        let mut blocks = page();
        let comment = "I have walked over that bridge every morning for thirty years and I am glad it will be mended at last.";
        blocks.push(block(6, &[0, 4], comment, 0));
        blocks.push(block(7, &[0, 4], "Reply", 5));
        blocks[6].hints = ContainerHints(ContainerHints::COMMENTS);
        blocks[7].hints = ContainerHints(ContainerHints::COMMENTS);
        let mut keep = vec![false, false, true, true, true, false, false, false];
        keep_comments(&blocks, &mut keep);
        assert_eq!(keep, [false, false, true, true, true, false, true, false]);
    }

    #[test]
    fn an_article_the_classifier_dropped_is_rescued() {
        let blocks = page();
        let mut keep = vec![false; blocks.len()];
        rescue(&blocks, &mut keep);
        assert_eq!(keep, [false, false, true, true, true, false]);
        // Something of substance kept: nothing changes.
        let mut keep = vec![false, false, true, false, false, false];
        rescue(&blocks, &mut keep);
        assert_eq!(keep, [false, false, true, false, false, false]);
        // No run of real prose: nothing is rescued.
        let short: Vec<Block> = blocks[..3].to_vec();
        let mut keep = vec![false; 3];
        rescue(&short, &mut keep);
        assert_eq!(keep, [false; 3]);
    }

    #[test]
    fn the_headline_the_title_names_is_kept_once() {
        // A menu, the headline twice (a share widget's copy), then the story.
        let prose = "The council met on Monday to vote on the plan for the coast road, which has been closed since the storm.";
        let mut blocks = vec![
            block(0, &[0, 1], "Home", 4),
            block(1, &[0, 2], "Council backs the coast road plan", 0),
            block(2, &[0, 2], "Council backs the coast road plan", 0),
            block(3, &[0, 3], prose, 0),
            block(4, &[0, 3], prose, 0),
        ];
        annotate(&mut blocks, PageKind::Other);
        let mut keep = vec![false, false, false, true, true];
        let headlines = Headlines::of(["Council backs the coast road plan | The Valley Courier"]);
        let title = Some(&headlines);
        keep_headline(&blocks, &mut keep, title);
        assert_eq!(
            keep,
            [false, false, true, true, true],
            "the copy nearest the story"
        );
        keep[1] = true;
        drop_repeated_headline(&blocks, &mut keep, title);
        // Other text given twice stays twice (a page and its print version).
        assert_eq!(keep, [false, true, false, true, true]);
        // Quotes and case aside, a site's name first; no title or another title: nothing.
        assert_eq!(
            Headlines::of(["Valley Courier – Council backs the coast road plan"]).names[2],
            words_of("council BACKS the coast road plan")
        );
        let mut keep = vec![false, false, false, true, true];
        keep_headline(&blocks, &mut keep, None);
        let weather = Headlines::of(["Weather | The Valley Courier"]);
        keep_headline(&blocks, &mut keep, Some(&weather));
        assert_eq!(keep, [false, false, false, true, true]);
    }

    #[test]
    fn the_title_declared_for_sharing_names_the_headline_too() {
        // The <title> shortens the headline; og:title gives it whole.
        let prose = "The council met on Monday to vote on the plan for the coast road, which has been closed since the storm.";
        let mut blocks = vec![
            block(0, &[0, 1], "Council backs road plan", 0),
            block(1, &[0, 2], "Council backs the coast road plan after a long debate", 0),
            block(2, &[0, 3], prose, 0),
            block(3, &[0, 3], prose, 0),
        ];
        annotate(&mut blocks, PageKind::Other);
        let title = "Council backs road plan | The Valley Courier";
        let shared = "Council backs the coast road plan after a long debate";
        let mut keep = vec![false, false, true, true];
        keep_headline(&blocks, &mut keep, Some(&Headlines::of([title])));
        assert_eq!(keep, [true, false, true, true], "the <title> alone names block 0");
        let both = Headlines::of([title, shared]);
        let mut keep = vec![false, false, true, true];
        keep_headline(&blocks, &mut keep, Some(&both));
        assert_eq!(keep, [false, true, true, true], "the nearest headline either names");
        // Kept by the classifier already: no second one above it; and two different headlines
        // kept are not copies of each other.
        let mut keep = vec![false, true, true, true];
        keep_headline(&blocks, &mut keep, Some(&both));
        assert_eq!(keep, [false, true, true, true]);
        let mut keep = vec![true, true, true, true];
        drop_repeated_headline(&blocks, &mut keep, Some(&both));
        assert_eq!(keep, [true, true, true, true]);
        // A blog's headline is a link to the post itself: a heading may be one, a paragraph
        // (a menu's item, a teaser) not.
        let linked = blocks[1].text.len();
        blocks[1].link_bytes = linked;
        let mut keep = vec![false, false, true, true];
        keep_headline(&blocks, &mut keep, Some(&both));
        assert_eq!(keep, [true, false, true, true]);
        blocks[1].kind = BlockKind::Heading;
        let mut keep = vec![false, false, true, true];
        keep_headline(&blocks, &mut keep, Some(&both));
        assert_eq!(keep, [false, true, true, true]);
    }

    #[test]
    fn the_next_story_of_an_endless_page_is_dropped() {
        let prose = "The council met on Monday to vote on the plan for the coast road, which has been closed since the storm. The vote was close, and the road will open in the spring if the weather holds. ";
        let story = |index: u32, story: Option<u32>, top: bool, text: &str| {
            let mut b = block(index, &[0], text, 0);
            b.story = story;
            b.top_heading = top;
            b
        };
        // The headline and its story (in no <article>), then the next story in one of its own.
        let blocks = vec![
            story(0, None, true, "Council backs the coast road plan"),
            story(1, None, false, &prose.repeat(3)),
            story(2, Some(7), true, "Solskjaer returns to Manchester"),
            story(3, Some(7), false, prose),
        ];
        let headlines = Headlines::of(["Council backs the coast road plan | The Valley Courier"]);
        let dropped = |blocks: &[Block], kind: PageKind| {
            let mut keep = vec![true; blocks.len()];
            drop_other_stories(blocks, &mut keep, Some(&headlines), kind);
            keep
        };
        assert_eq!(dropped(&blocks, PageKind::Article), [true, true, false, false]);
        // A listing's stories are its content; without a headline named, nothing is known.
        assert_eq!(dropped(&blocks, PageKind::Listing), [true; 4]);
        let mut keep = vec![true; 4];
        drop_other_stories(&blocks, &mut keep, None, PageKind::Article);
        assert_eq!(keep, [true; 4]);
        // An <h1> of the article's own body, in an <article> apart from its headline, comes
        // before any of the story's text: kept.
        let mut body = blocks.clone();
        body[1].story = Some(7);
        assert_eq!(dropped(&body, PageKind::Article), [true; 4]);
        // A lesser heading marks no story.
        let mut section = blocks.clone();
        section[2].top_heading = false;
        assert_eq!(dropped(&section, PageKind::Article), [true; 4]);
    }
}
