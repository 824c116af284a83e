//! The rules after the labels: what the combined method does to a document's labels once
//! the classifier has given them (and the Viterbi pass smoothed them), in the order of
//! [`RULES`], each a [`Rule`] over the same [`Sight`] of the page.
//!
//! They keep what the classifier cannot see as content (an article it dropped whole, a
//! listing's cards, a forum's posts, comments on request, the headline, the likeliest blocks
//! of a page left empty) and drop what no reader reads as the page's text (dialogs not shown,
//! captions, image addresses, repeats, hidden copies, the next story of an endless page). Each
//! is tested alone below.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::block::{Block, BlockKind, ContainerHints, PageKind};
use crate::evidence::{
    main_prose_bytes, prose_bytes, Analysis, PROSE_LINK_DENSITY, RECORD_SIBLINGS,
};

/// What every rule sees of the page: its blocks, what the whole document shows, the kind it
/// is decided as, the choices that bear on the rules, each block's log-odds and the headlines
/// its titles name.
pub struct Sight<'a> {
    /// The document's blocks, measured and annotated, in order.
    pub blocks: &'a [Block],
    /// What only the whole document shows.
    pub analysis: &'a Analysis,
    /// The kind the page is decided as.
    pub kind: PageKind,
    /// Readers' comments are kept (`--comments`, and on a forum).
    pub comments: bool,
    /// Each block's log-odds of being content, as the classifier scored it.
    pub log_odds: &'a [f64],
    /// The headlines the page's titles name, if it has any title.
    pub headlines: Option<&'a Headlines>,
}

/// A rule after the labels: it changes some of the labels `keep` (one a block of
/// [`Sight::blocks`]).
pub type Rule = fn(&Sight<'_>, &mut [bool]);

/// The rules, in the order they apply: what is never kept goes first, so that no rule after
/// brings a dialog back; the last resort against an empty page comes after every rule that
/// keeps; the headline is kept before its copies are dropped; repeats and copies are judged
/// last, among what is kept.
pub const RULES: [Rule; 11] = [
    drop_never_kept,
    rescue,
    keep_comments,
    keep_posts,
    keep_cards,
    keep_the_likeliest,
    keep_headline,
    drop_repeated_headline,
    drop_other_stories,
    drop_repeats,
    drop_copies,
];

/// Applies every rule of [`RULES`] to `keep`, in order.
pub fn apply(sight: &Sight<'_>, keep: &mut [bool]) {
    for rule in RULES {
        rule(sight, keep);
    }
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
pub fn rescue(sight: &Sight<'_>, keep: &mut [bool]) {
    let blocks = sight.blocks;
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
const NOT_CARDS: u8 =
    ContainerHints::NAVIGATION | ContainerHints::PERIPHERY | ContainerHints::HIDDEN;

/// Keeps the cards of a listing, which its gold keeps whole (a title that is a link, a line of
/// text, a date): every block of two words or more, but captions and asides, under the element
/// whose children (four or more, holding [`CARD_MEAN_BYTES`] each on average) hold the most
/// text outside menus, when they hold enough of the page ([`CARDS_MIN_SHARE`], and
/// [`CARDS_OVER_PROSE`] times `article_prose`, the main run's prose). The classifier, which
/// sees each card's links and few words, keeps too few of them.
pub fn keep_cards(sight: &Sight<'_>, keep: &mut [bool]) {
    if sight.kind == PageKind::Listing {
        keep_cards_under(sight.blocks, keep, sight.analysis.article_prose());
    }
}

/// [`keep_cards`] with the main run's prose given.
fn keep_cards_under(blocks: &[Block], keep: &mut [bool], article_prose: f64) {
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

/// A page whose every block was dropped, though some hold a sentence's worth of words, keeps
/// those whose log-odds come within this of the likeliest one's...
const LIKELIEST_MARGIN: f64 = 1.0;

/// ...among the blocks of at least this many words...
const LIKELIEST_MIN_WORDS: usize = 5;

/// ...mostly outside links, but on a page of cards.
const LIKELIEST_MAX_LINK_DENSITY: f64 = 0.3;

/// The last resort against an empty page, after [`rescue`] (which needs a run of prose), when
/// nothing is kept: a page of short items (a listing, a course catalogue) keeps its likeliest blocks
/// among those shown; links among them only where they are the page's `cards` (a listing's, a
/// collection's), since elsewhere the likeliest links are a portal's teasers or an error page's
/// menu, and such a page has no main content.
pub fn keep_the_likeliest(sight: &Sight<'_>, keep: &mut [bool]) {
    if keep.contains(&true) {
        return;
    }
    let (blocks, log_odds) = (sight.blocks, sight.log_odds);
    let cards = matches!(sight.kind, PageKind::Listing | PageKind::Collection);
    let eligible = |i: &usize| {
        let b = &blocks[*i];
        b.words() >= LIKELIEST_MIN_WORDS
            && (cards || b.link_density() <= LIKELIEST_MAX_LINK_DENSITY)
            && !b.hints.has(ContainerHints::HIDDEN)
    };
    let Some(best) = (0..blocks.len())
        .filter(eligible)
        .map(|i| log_odds[i])
        .max_by(f64::total_cmp)
    else {
        return;
    };
    for i in (0..blocks.len()).filter(eligible) {
        keep[i] = log_odds[i] >= best - LIKELIEST_MARGIN;
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
pub fn keep_posts(sight: &Sight<'_>, keep: &mut [bool]) {
    if sight.kind != PageKind::Forum {
        return;
    }
    for ((block, keep), &siblings) in sight
        .blocks
        .iter()
        .zip(keep.iter_mut())
        .zip(sight.analysis.record_siblings())
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
pub fn keep_comments(sight: &Sight<'_>, keep: &mut [bool]) {
    if !sight.comments {
        return;
    }
    for (block, keep) in sight.blocks.iter().zip(keep.iter_mut()) {
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
pub fn drop_never_kept(sight: &Sight<'_>, keep: &mut [bool]) {
    for (block, keep) in sight.blocks.iter().zip(keep.iter_mut()) {
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
            && bytes
                .chunks_exact(unit)
                .all(|chunk| chunk == &bytes[..unit])
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
    alphanumeric_words(text).enumerate().flat_map(|(i, word)| {
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
pub fn keep_headline(sight: &Sight<'_>, keep: &mut [bool]) {
    let Some(headlines) = sight.headlines else {
        return;
    };
    let blocks = sight.blocks;
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
pub fn drop_repeated_headline(sight: &Sight<'_>, keep: &mut [bool]) {
    let Some(headlines) = sight.headlines else {
        return;
    };
    let mut first = None;
    for (block, keep) in sight.blocks.iter().zip(keep.iter_mut()) {
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
pub fn drop_other_stories(sight: &Sight<'_>, keep: &mut [bool]) {
    let (blocks, kind) = (sight.blocks, sight.kind);
    let Some(headlines) = sight.headlines else {
        return;
    };
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
        } else if block.top_heading && own_bytes >= OWN_STORY_MIN_BYTES && !headlines.name(block) {
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
pub fn drop_repeats(sight: &Sight<'_>, keep: &mut [bool]) {
    let blocks = sight.blocks;
    if matches!(
        sight.kind,
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
pub fn drop_copies(sight: &Sight<'_>, keep: &mut [bool]) {
    let blocks = sight.blocks;
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
    use crate::block::fixtures::{block, menu, page, push_records, siblings};
    use crate::evidence::annotate;

    /// What the rules see of `blocks`: a page of no known kind, with no title, log-odds or
    /// comments asked for.
    fn sight<'a>(blocks: &'a [Block], analysis: &'a Analysis) -> Sight<'a> {
        Sight {
            blocks,
            analysis,
            kind: PageKind::Other,
            comments: false,
            log_odds: &[],
            headlines: None,
        }
    }

    /// `rule` applied to `keep` over `blocks`, on a page whose titles name `headlines`.
    fn titled(rule: Rule, blocks: &[Block], headlines: Option<&Headlines>, keep: &mut [bool]) {
        let analysis = Analysis::of(blocks);
        rule(
            &Sight {
                headlines,
                ..sight(blocks, &analysis)
            },
            keep,
        );
    }

    #[test]
    fn what_is_never_kept_stays_dropped_whatever_rule_follows() {
        // A dialog not shown stays dropped though comments are asked for, and though nothing
        // else is kept (the last resort).
        let mut blocks = siblings(&["A comment in a dialog that the page does not show at first."]);
        blocks[0].hints = ContainerHints(ContainerHints::COMMENTS | ContainerHints::HIDDEN);
        let analysis = Analysis::of(&blocks);
        let mut keep = vec![true];
        let comments = Sight {
            comments: true,
            log_odds: &[5.0],
            ..sight(&blocks, &analysis)
        };
        apply(&comments, &mut keep);
        assert_eq!(keep, [false]);
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
        let analysis = Analysis::of(&blocks);
        let decided = |kind| {
            let mut keep = vec![true; blocks.len()];
            keep[3] = false;
            drop_repeats(
                &Sight {
                    kind,
                    ..sight(&blocks, &analysis)
                },
                &mut keep,
            );
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
        let analysis = Analysis::of(&blocks);
        let mut keep = vec![true; blocks.len()];
        drop_copies(&sight(&blocks, &analysis), &mut keep);
        // The hidden copy goes; a shown copy and a hidden box of new text stay.
        assert_eq!(keep, [true, true, false, true, true]);
        // A copy of text dropped before is no copy of text kept.
        let mut keep = vec![false, false, true, true, true];
        drop_copies(&sight(&blocks, &analysis), &mut keep);
        assert_eq!(keep, [false, false, true, true, true]);
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
            keep_cards_under(blocks, &mut keep, article_prose);
            keep
        };
        let keep = decided(&blocks, 0.0);
        assert!(keep[..4].iter().all(|k| !k), "menus");
        for card in 0..5 {
            assert_eq!(
                keep[4 + 3 * card..7 + 3 * card],
                [true, true, false],
                "card {card}"
            );
        }
        // A page whose main run holds more than an eighth of the cards' text keeps its article.
        let cards: usize = blocks[4..].iter().map(|b| b.text.len()).sum();
        assert_eq!(
            decided(&blocks, cards as f64 / 7.0),
            vec![false; blocks.len()]
        );
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
            vec![
                (name, 0),
                (date, 0),
                (message, 0),
                (site.clone(), site.len()),
            ]
        });
        let decided = |blocks: &[Block]| {
            let mut keep = vec![false; blocks.len()];
            let analysis = Analysis::of(blocks);
            let forum = Sight {
                kind: PageKind::Forum,
                ..sight(blocks, &analysis)
            };
            keep_posts(&forum, &mut keep);
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
        let analysis = Analysis::of(&blocks);
        let mut keep = vec![false, false, true, true, true, false, false, false];
        keep_comments(&sight(&blocks, &analysis), &mut keep);
        assert_eq!(
            keep,
            [false, false, true, true, true, false, false, false],
            "not asked"
        );
        let asked = Sight {
            comments: true,
            ..sight(&blocks, &analysis)
        };
        keep_comments(&asked, &mut keep);
        assert_eq!(keep, [false, false, true, true, true, false, true, false]);
    }

    #[test]
    fn an_article_the_classifier_dropped_is_rescued() {
        let blocks = page();
        let analysis = Analysis::of(&blocks);
        let mut keep = vec![false; blocks.len()];
        rescue(&sight(&blocks, &analysis), &mut keep);
        assert_eq!(keep, [false, false, true, true, true, false]);
        // Something of substance kept: nothing changes.
        let mut keep = vec![false, false, true, false, false, false];
        rescue(&sight(&blocks, &analysis), &mut keep);
        assert_eq!(keep, [false, false, true, false, false, false]);
        // No run of real prose: nothing is rescued.
        let short: Vec<Block> = blocks[..3].to_vec();
        let mut keep = vec![false; 3];
        rescue(&sight(&short, &Analysis::of(&short)), &mut keep);
        assert_eq!(keep, [false; 3]);
        rescue(&sight(&[], &Analysis::of(&[])), &mut []);
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
        titled(keep_headline, &blocks, title, &mut keep);
        assert_eq!(
            keep,
            [false, false, true, true, true],
            "the copy nearest the story"
        );
        keep[1] = true;
        titled(drop_repeated_headline, &blocks, title, &mut keep);
        // Other text given twice stays twice (a page and its print version).
        assert_eq!(keep, [false, true, false, true, true]);
        // Quotes and case aside, a site's name first; no title or another title: nothing.
        assert_eq!(
            Headlines::of(["Valley Courier – Council backs the coast road plan"]).names[2],
            words_of("council BACKS the coast road plan")
        );
        let mut keep = vec![false, false, false, true, true];
        titled(keep_headline, &blocks, None, &mut keep);
        let weather = Headlines::of(["Weather | The Valley Courier"]);
        titled(keep_headline, &blocks, Some(&weather), &mut keep);
        assert_eq!(keep, [false, false, false, true, true]);
    }

    #[test]
    fn the_title_declared_for_sharing_names_the_headline_too() {
        // The <title> shortens the headline; og:title gives it whole.
        let prose = "The council met on Monday to vote on the plan for the coast road, which has been closed since the storm.";
        let mut blocks = vec![
            block(0, &[0, 1], "Council backs road plan", 0),
            block(
                1,
                &[0, 2],
                "Council backs the coast road plan after a long debate",
                0,
            ),
            block(2, &[0, 3], prose, 0),
            block(3, &[0, 3], prose, 0),
        ];
        annotate(&mut blocks, PageKind::Other);
        let title = "Council backs road plan | The Valley Courier";
        let shared = "Council backs the coast road plan after a long debate";
        let mut keep = vec![false, false, true, true];
        titled(
            keep_headline,
            &blocks,
            Some(&Headlines::of([title])),
            &mut keep,
        );
        assert_eq!(
            keep,
            [true, false, true, true],
            "the <title> alone names block 0"
        );
        let both = Headlines::of([title, shared]);
        let mut keep = vec![false, false, true, true];
        titled(keep_headline, &blocks, Some(&both), &mut keep);
        assert_eq!(
            keep,
            [false, true, true, true],
            "the nearest headline either names"
        );
        // Kept by the classifier already: no second one above it; and two different headlines
        // kept are not copies of each other.
        let mut keep = vec![false, true, true, true];
        titled(keep_headline, &blocks, Some(&both), &mut keep);
        assert_eq!(keep, [false, true, true, true]);
        let mut keep = vec![true, true, true, true];
        titled(drop_repeated_headline, &blocks, Some(&both), &mut keep);
        assert_eq!(keep, [true, true, true, true]);
        // A blog's headline is a link to the post itself: a heading may be one, a paragraph
        // (a menu's item, a teaser) not.
        let linked = blocks[1].text.len();
        blocks[1].link_bytes = linked;
        let mut keep = vec![false, false, true, true];
        titled(keep_headline, &blocks, Some(&both), &mut keep);
        assert_eq!(keep, [true, false, true, true]);
        blocks[1].kind = BlockKind::Heading;
        let mut keep = vec![false, false, true, true];
        titled(keep_headline, &blocks, Some(&both), &mut keep);
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
            let analysis = Analysis::of(blocks);
            let page = Sight {
                kind,
                headlines: Some(&headlines),
                ..sight(blocks, &analysis)
            };
            drop_other_stories(&page, &mut keep);
            keep
        };
        assert_eq!(
            dropped(&blocks, PageKind::Article),
            [true, true, false, false]
        );
        // A listing's stories are its content; without a headline named, nothing is known.
        assert_eq!(dropped(&blocks, PageKind::Listing), [true; 4]);
        let mut keep = vec![true; 4];
        titled(drop_other_stories, &blocks, None, &mut keep);
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

    #[test]
    fn a_page_with_nothing_kept_keeps_its_likeliest_blocks_of_a_few_words() {
        let blocks: Vec<Block> = [
            "Home",
            "Learn to use Photoshop to fix your photos",
            "Contact us",
            "Video basics for beginners and more",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| Block::new(i as u32, BlockKind::Paragraph, *t))
        .collect();
        let likeliest = |blocks: &[Block], log_odds: &[f64], kind| {
            let analysis = Analysis::of(blocks);
            let mut keep = vec![false; blocks.len()];
            let page = Sight {
                kind,
                log_odds,
                ..sight(blocks, &analysis)
            };
            keep_the_likeliest(&page, &mut keep);
            keep
        };
        // "Home" is likeliest but too short; the third block is too short too.
        let article = PageKind::Article;
        let log_odds = [0.5, -1.0, -0.5, -2.5];
        assert_eq!(
            likeliest(&blocks, &log_odds, article),
            [false, true, false, false]
        );
        let log_odds = [0.5, -1.0, -0.5, -1.8];
        assert_eq!(
            likeliest(&blocks, &log_odds, article),
            [false, true, false, true]
        );
        // Links (teasers) are the last resort only on a page of cards.
        let mut teasers = blocks.clone();
        teasers[1].link_bytes = teasers[1].text.len();
        teasers[3].link_bytes = teasers[3].text.len();
        assert_eq!(likeliest(&teasers, &log_odds, article), [false; 4]);
        let listing = likeliest(&teasers, &log_odds, PageKind::Listing);
        assert_eq!(listing, [false, true, false, true]);
        // Nothing of a few words: still nothing; something kept already: no last resort.
        assert_eq!(likeliest(&blocks[..1], &[3.0], article), [false]);
        let analysis = Analysis::of(&blocks);
        let mut keep = vec![true, false, false, false];
        let page = Sight {
            log_odds: &log_odds,
            ..sight(&blocks, &analysis)
        };
        keep_the_likeliest(&page, &mut keep);
        assert_eq!(keep, [true, false, false, false]);
    }
}
