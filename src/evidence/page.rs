//! What a whole page shows of its kind ([`PageEvidence`]): the shape of its text, its repeated
//! records, its prices, what it declares and its URL. Read by the page-kind model
//! ([`super::tell_kind`]) when the page does not declare its kind, or declares one the model
//! may overrule.

use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::document::{prose_bytes, Analysis};
use super::url::kind_of_url;
use crate::block::split_url;
use crate::block::{
    Block, BlockKind, ContainerHints, PageEvidence, PageInfo, PageKind, SchemaTypes,
};

/// A block of at most this many words counts as short (a button, a badge, a menu item).
const SHORT_WORDS: usize = 3;

/// A block with at least this share of its text in links is a link (a teaser, a menu item).
const LINKED: f64 = 0.8;

/// The evidence of the page whose measured blocks (in order, observed in document order) are
/// `blocks`, with what it declares in `page` and its document `analysis`.
pub fn page_evidence(blocks: &[Block], page: &PageInfo, analysis: &Analysis) -> PageEvidence {
    let mut evidence = PageEvidence::default();
    text_evidence(&mut evidence, blocks);
    structure_evidence(&mut evidence, analysis);
    declared_evidence(&mut evidence, page);
    url_evidence(&mut evidence, page);
    evidence
}

/// Fills in what the page's text shows: how much there is, how much is prose or in links,
/// and the shares of its blocks and text of each kind, with prices, or in each kind of
/// container.
fn text_evidence(e: &mut PageEvidence, blocks: &[Block]) {
    let count = blocks.len().max(1) as f32;
    let text: usize = blocks.iter().map(|b| b.text.len()).sum();
    let share_of_text = |keep: &dyn Fn(&Block) -> bool| {
        let bytes: usize = blocks
            .iter()
            .filter(|b| keep(b))
            .map(|b| b.text.len())
            .sum();
        bytes as f32 / text.max(1) as f32
    };
    let share_of_blocks =
        |keep: &dyn Fn(&Block) -> bool| blocks.iter().filter(|b| keep(b)).count() as f32 / count;
    let links: usize = blocks.iter().map(|b| b.link_bytes.min(b.text.len())).sum();
    let prose: f64 = blocks.iter().map(prose_bytes).sum();
    let prices = blocks.iter().filter(|b| holds_price(&b.text)).count();
    e.ln_blocks = (blocks.len() as f32).ln_1p();
    e.ln_text_bytes = (text as f32).ln_1p();
    e.ln_prose_bytes = (prose as f32).ln_1p();
    e.link_density = links as f32 / text.max(1) as f32;
    let headings = blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Heading)
        .count();
    let linked_headings = blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Heading && b.link_density() >= LINKED)
        .count();
    e.heading_share = headings as f32 / count;
    e.ln_headings = (headings as f32).ln_1p();
    e.linked_heading_share = linked_headings as f32 / headings.max(1) as f32;
    e.ln_linked_headings = (linked_headings as f32).ln_1p();
    let teasers = blocks
        .iter()
        .filter(|b| b.words() >= 4 && b.link_density() >= LINKED)
        .count();
    e.teaser_share = teasers as f32 / count;
    e.ln_teasers = (teasers as f32).ln_1p();
    let mut stories: Vec<u32> = blocks.iter().filter_map(|b| b.story).collect();
    stories.sort_unstable();
    stories.dedup();
    e.ln_stories = (stories.len() as f32).ln_1p();
    let longest = blocks.iter().map(prose_bytes).fold(0.0, f64::max);
    e.ln_longest_prose = (longest as f32).ln_1p();
    e.link_list_share =
        share_of_text(&|b| b.kind == BlockKind::ListItem && b.link_density() >= LINKED);
    e.list_item_share = share_of_text(&|b| b.kind == BlockKind::ListItem);
    e.table_cell_share = share_of_text(&|b| b.kind == BlockKind::TableCell);
    e.form_share = share_of_text(&|b| b.kind == BlockKind::Form);
    e.preformatted_share = share_of_text(&|b| b.kind == BlockKind::Preformatted);
    e.prose_block_share = share_of_blocks(&|b| prose_bytes(b) > 0.0);
    e.short_block_share = share_of_blocks(&|b| b.words() <= SHORT_WORDS);
    e.price_share = prices as f32 / count;
    e.ln_prices = (prices as f32).ln_1p();
    e.repeated_share = share_of_blocks(&|b| b.evidence.repeated > 0.0);
    e.navigation_share = share_of_text(&|b| b.hints.has(ContainerHints::NAVIGATION));
    e.periphery_share = share_of_text(&|b| b.hints.has(ContainerHints::PERIPHERY));
    e.content_share = share_of_text(&|b| b.hints.has(ContainerHints::CONTENT));
    e.collapsed_share = share_of_text(&|b| b.hints.has(ContainerHints::COLLAPSED));
}

/// Fills in the page's structure, as its document `analysis` found it: its main container,
/// its comments and its repeated records.
fn structure_evidence(e: &mut PageEvidence, analysis: &Analysis) {
    e.main_share = analysis.main_share();
    e.ln_main_prose = (analysis.article_prose() as f32).ln_1p();
    e.comment_share = analysis.comment_share();
    e.record_share = analysis.record_share();
    e.ln_most_siblings = (analysis.most_siblings() as f32).ln_1p();
}

/// Fills in what the page declares of itself: its schema.org types and its Open Graph type.
fn declared_evidence(e: &mut PageEvidence, page: &PageInfo) {
    let schema = |bits: u8| flag(page.schema.has(bits));
    e.schema_article = schema(SchemaTypes::ARTICLE);
    e.schema_tech_article = schema(SchemaTypes::TECH_ARTICLE);
    e.schema_forum = schema(SchemaTypes::FORUM);
    e.schema_comment = schema(SchemaTypes::COMMENT);
    e.schema_product = schema(SchemaTypes::PRODUCT);
    e.schema_offer = schema(SchemaTypes::OFFER);
    e.schema_list = schema(SchemaTypes::LIST);
    let og = page
        .og_type
        .as_deref()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    e.og_article = flag(og == "article");
    e.og_website = flag(og == "website");
    e.og_product = flag(og == "product" || og == "product.group");
    e.og_other = flag(
        !og.is_empty()
            && !matches!(
                og.as_str(),
                "article" | "website" | "product" | "product.group"
            ),
    );
}

/// Fills in what the page's URL (canonical or Open Graph) says of its kind, all zeros when it
/// names none.
fn url_evidence(e: &mut PageEvidence, page: &PageInfo) {
    let url = page.url().map(Url::of).unwrap_or_default();
    e.has_url = flag(url.present);
    e.url_home = flag(url.present && url.segments == 0);
    e.ln_path_segments = (url.segments as f32).ln_1p();
    e.ln_slug_words = (url.slug_words as f32).ln_1p();
    e.url_number = flag(url.number);
    e.url_query = flag(url.query);
    e.url_forum = flag(url.kind == PageKind::Forum);
    e.url_documentation = flag(url.kind == PageKind::Documentation);
    e.url_collection = flag(url.kind == PageKind::Collection);
    e.url_product_word = flag(url.words & PRODUCT_WORD != 0);
    e.url_listing_word = flag(url.words & LISTING_WORD != 0);
    e.url_article_word = flag(url.words & ARTICLE_WORD != 0);
    e.url_service_word = flag(url.words & SERVICE_WORD != 0);
}

/// 1 when `on`, else 0.
fn flag(on: bool) -> f32 {
    f32::from(u8::from(on))
}

/// Whether `text` holds a price: a currency sign or code next to a digit (`$12`, `12,99 €`,
/// `EUR 5`).
fn holds_price(text: &str) -> bool {
    const SIGNS: [char; 7] = ['$', '€', '£', '¥', '₹', '₽', '₩'];
    let digit_near = |at: usize, len: usize| {
        let before = text[..at].trim_end().chars().next_back();
        let after = text[at + len..].trim_start().chars().next();
        before.is_some_and(|c| c.is_ascii_digit()) || after.is_some_and(|c| c.is_ascii_digit())
    };
    let bytes = text.as_bytes();
    if !bytes.iter().any(u8::is_ascii_digit) {
        return false;
    }
    // The signs' first bytes: `$`, 0xC2 (`£`, `¥`) and 0xE2 (`€`, `₹`, `₽`, `₩`), never inside
    // a character.
    memchr::memchr3_iter(b'$', 0xC2, 0xE2, bytes).any(|at| {
        text[at..]
            .chars()
            .next()
            .is_some_and(|c| SIGNS.contains(&c) && digit_near(at, c.len_utf8()))
    }) || codes().iter().any(|code| {
        code.find_iter(bytes)
            .any(|at| digit_near(at, code.needle().len()))
    })
}

/// The searchers of the currency codes a price may be written with, made once.
fn codes() -> &'static [Finder<'static>] {
    static CODES: LazyLock<Vec<Finder<'static>>> = LazyLock::new(|| {
        ["USD", "EUR", "GBP", "CHF", "AUD"]
            .iter()
            .map(|code| Finder::new(code.as_bytes()))
            .collect()
    });
    &CODES
}

/// Words of path segments that name a kind of page ([`Url::words`]).
const PRODUCT_WORD: u8 = 1;
const LISTING_WORD: u8 = 2;
const ARTICLE_WORD: u8 = 4;
const SERVICE_WORD: u8 = 8;

/// The kind of page a path segment names, if any ([`Url::words`]).
fn segment_word(segment: &str) -> u8 {
    match segment {
        "product" | "products" | "p" | "item" | "items" | "dp" => PRODUCT_WORD,
        "tag" | "tags" | "category" | "categories" | "search" | "archive" | "archives" | "page"
        | "events" | "jobs" | "list" | "directory" => LISTING_WORD,
        "blog" | "news" | "article" | "articles" | "post" | "posts" | "story" | "stories" => {
            ARTICLE_WORD
        }
        "services" | "service" | "pricing" | "features" | "solutions" | "about" | "contact"
        | "plans" | "company" => SERVICE_WORD,
        _ => 0,
    }
}

/// What a page's URL says of its kind.
#[derive(Default)]
struct Url {
    present: bool,
    /// Non-empty path segments.
    segments: usize,
    /// Words of the last one, split at `-` and `_`.
    slug_words: usize,
    /// A segment is a number of four digits or more (a year, an id).
    number: bool,
    query: bool,
    /// The kind its host and path tell by the rules ([`kind_of_url`]).
    kind: PageKind,
    /// The kinds its segments name ([`segment_word`]).
    words: u8,
}

impl Url {
    fn of(url: &str) -> Url {
        let (_, path, query) = split_url(url);
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let last = segments.last().copied().unwrap_or("");
        let last = last.rsplit_once('.').map_or(last, |(stem, _)| stem);
        Url {
            present: true,
            segments: segments.len(),
            slug_words: last.split(['-', '_']).filter(|w| !w.is_empty()).count(),
            number: segments
                .iter()
                .any(|s| s.len() >= 4 && s.bytes().all(|b| b.is_ascii_digit())),
            query,
            kind: kind_of_url(url),
            words: segments.iter().fold(0, |words, s| words | segment_word(s)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_are_a_currency_beside_a_number() {
        for price in ["$12.99", "12,99 €", "Price: £ 5", "EUR 20", "from 300USD"] {
            assert!(holds_price(price), "{price}");
        }
        for not in ["US$ and €", "Save money", "EURO 2024 final", "$"] {
            assert!(!holds_price(not), "{not}");
        }
    }

    #[test]
    fn the_url_tells_its_shape() {
        let url = Url::of("https://shop.example/products/blue-wool-socks-2024?ref=x");
        assert_eq!((url.segments, url.slug_words), (2, 4));
        assert!(url.query && !url.number);
        assert_eq!(url.words, PRODUCT_WORD);
        let home = Url::of("https://example.org/");
        assert_eq!(home.segments, 0);
        assert_eq!(home.kind, PageKind::Service);
        let news = Url::of("https://news.example/2025/03/story.html");
        assert!(news.number);
        assert_eq!(news.slug_words, 1);
    }

    #[test]
    fn a_page_of_cards_with_prices_shows_them() {
        let mut blocks = Vec::new();
        for card in 0..6u32 {
            let mut name = Block::new(2 * card, BlockKind::Heading, "Wool socks");
            name.containers = vec![0, 1, 2 + card];
            let mut price = Block::new(2 * card + 1, BlockKind::Paragraph, "$12.00");
            price.containers = vec![0, 1, 2 + card];
            blocks.extend([name, price]);
        }
        let page = PageInfo {
            og_type: Some("website".into()),
            canonical_url: Some("https://shop.example/collections/socks".into()),
            ..PageInfo::default()
        };
        let analysis = Analysis::of(&blocks);
        let e = page_evidence(&blocks, &page, &analysis);
        assert_eq!(e.price_share, 0.5);
        assert_eq!(e.heading_share, 0.5);
        assert_eq!(e.record_share, 1.0);
        assert_eq!((e.og_website, e.og_article), (1.0, 0.0));
        assert_eq!((e.has_url, e.url_collection, e.url_home), (1.0, 1.0, 0.0));
        assert!(e.values().iter().all(|v| v.is_finite()));
        let empty = page_evidence(&[], &PageInfo::default(), &Analysis::of(&[]));
        assert!(empty.values().iter().all(|v| v.is_finite()));
    }
}
