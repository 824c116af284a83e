//! The kind of page a document holds ([`PageKind`]), told from what the page declares about
//! itself: schema.org types in JSON-LD and microdata, its Open Graph type, and the path of its
//! URL (canonical or Open Graph). The rules were chosen on the WCXB development pages, where
//! they tell 98 of 112 forum threads, 83 of 113 product pages, 25 of 113 collections and 37 of
//! 162 service pages (11, 16, 9 and 20 pages of other kinds taken for them); a page that
//! declares nothing is [`PageKind::Other`], decided as before kinds were told.

use crate::block::{PageInfo, PageKind, SchemaTypes};

/// The kind of page `page` declares, in this order: a forum's types or posts marked up as
/// comments; Open Graph's `product.group` (a collection) or `product`, or a product with an
/// offer; an article's types; documentation's; a list's; a URL of a forum; Open Graph's
/// `article`; a URL of documentation, of a shop's collection, or of a site's home page (a
/// service: what the site offers, section by section).
pub fn page_kind(page: &PageInfo) -> PageKind {
    let schema = page.schema;
    let og = page.og_type.as_deref().unwrap_or("").trim();
    if schema.has(SchemaTypes::FORUM | SchemaTypes::COMMENT) {
        return PageKind::Forum;
    }
    if og.eq_ignore_ascii_case("product.group") {
        return PageKind::Collection;
    }
    if og.eq_ignore_ascii_case("product")
        || (schema.has(SchemaTypes::PRODUCT) && schema.has(SchemaTypes::OFFER))
    {
        return PageKind::Product;
    }
    if schema.has(SchemaTypes::ARTICLE) {
        return PageKind::Article;
    }
    if schema.has(SchemaTypes::TECH_ARTICLE) {
        return PageKind::Documentation;
    }
    if schema.has(SchemaTypes::LIST) {
        return PageKind::Listing;
    }
    // Forum software (XenForo, Discourse) calls a thread an article in Open Graph.
    let by_url = page.url().map_or(PageKind::Other, kind_of_url);
    if by_url == PageKind::Forum {
        return by_url;
    }
    if og.eq_ignore_ascii_case("article") {
        return PageKind::Article;
    }
    by_url
}

/// Path segments (between slashes, not the last) of a forum's threads.
const FORUM_SEGMENTS: &[&str] = &[
    "t",
    "forum",
    "forums",
    "thread",
    "threads",
    "topic",
    "topics",
    "questions",
    "discussion",
    "discussions",
    "community",
    "board",
    "boards",
    "r",
];
/// Scripts of the classic forum software.
const FORUM_SCRIPTS: &[&str] = &["viewtopic.php", "showthread.php"];
/// First labels of a forum's host name.
const FORUM_HOSTS: &[&str] = &[
    "forum",
    "forums",
    "community",
    "discuss",
    "discourse",
    "answers",
];
/// Path segments (not the last) of documentation.
const DOC_SEGMENTS: &[&str] = &[
    "docs",
    "doc",
    "documentation",
    "reference",
    "api",
    "manual",
    "guide",
    "guides",
    "learn",
    "developer",
    "handbook",
    "tutorial",
];
/// First labels of a documentation site's host name.
const DOC_HOSTS: &[&str] = &[
    "docs",
    "developer",
    "developers",
    "learn",
    "help",
    "support",
];

/// Path segments (not the last) of a shop's collections of products (Shopify's, WooCommerce's,
/// Magento's and BigCommerce's names).
const COLLECTION_SEGMENTS: &[&str] = &[
    "collections",
    "collection",
    "product-category",
    "category",
    "categories",
    "catalog",
    "shop",
];

/// A forum, documentation, a collection or a home page (a service) by the host and path of
/// `url`, else [`PageKind::Other`].
fn kind_of_url(url: &str) -> PageKind {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let path = path
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let first_label = host.to_ascii_lowercase();
    let first_label = first_label.strip_prefix("www.").unwrap_or(&first_label);
    let first_label = first_label.split('.').next().unwrap_or("");
    let segments: Vec<&str> = path.split('/').collect();
    // Every segment but the last is a directory.
    let directories = &segments[..segments.len().saturating_sub(1)];
    let last = segments.last().copied().unwrap_or("");
    if directories.iter().any(|s| FORUM_SEGMENTS.contains(s))
        || FORUM_SCRIPTS.contains(&last)
        || FORUM_HOSTS.contains(&first_label)
    {
        PageKind::Forum
    } else if directories.iter().any(|s| DOC_SEGMENTS.contains(s))
        || DOC_HOSTS.contains(&first_label)
    {
        PageKind::Documentation
    } else if directories.iter().any(|s| COLLECTION_SEGMENTS.contains(s)) {
        PageKind::Collection
    } else if url.contains("://") && path.trim_matches('/').is_empty() {
        // A site's home page: most present what the site offers, section by section.
        PageKind::Service
    } else {
        PageKind::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(schema: u8, og_type: Option<&str>, url: Option<&str>) -> PageInfo {
        PageInfo {
            schema: SchemaTypes(schema),
            og_type: og_type.map(str::to_string),
            canonical_url: url.map(str::to_string),
            ..PageInfo::default()
        }
    }

    #[test]
    fn declared_types_tell_the_kind_in_order() {
        assert_eq!(page_kind(&PageInfo::default()), PageKind::Other);
        let forum = SchemaTypes::FORUM | SchemaTypes::ARTICLE;
        assert_eq!(
            page_kind(&page(forum, Some("article"), None)),
            PageKind::Forum
        );
        assert_eq!(
            page_kind(&page(SchemaTypes::COMMENT, None, None)),
            PageKind::Forum
        );
        assert_eq!(
            page_kind(&page(0, Some("product.group"), None)),
            PageKind::Collection
        );
        assert_eq!(
            page_kind(&page(0, Some(" Product"), None)),
            PageKind::Product
        );
        let offer = SchemaTypes::PRODUCT | SchemaTypes::OFFER | SchemaTypes::ARTICLE;
        assert_eq!(page_kind(&page(offer, None, None)), PageKind::Product);
        // A product named in passing (a review's subject) does not make a product page.
        let review = SchemaTypes::PRODUCT | SchemaTypes::ARTICLE;
        assert_eq!(page_kind(&page(review, None, None)), PageKind::Article);
        assert_eq!(
            page_kind(&page(SchemaTypes::TECH_ARTICLE, None, None)),
            PageKind::Documentation
        );
        assert_eq!(
            page_kind(&page(SchemaTypes::LIST, Some("article"), None)),
            PageKind::Listing
        );
        assert_eq!(
            page_kind(&page(0, Some("article"), None)),
            PageKind::Article
        );
        assert_eq!(page_kind(&page(0, Some("website"), None)), PageKind::Other);
    }

    #[test]
    fn urls_tell_forums_documentation_collections_and_home_pages() {
        let kind = |url| page_kind(&page(0, None, Some(url)));
        assert_eq!(
            kind("https://community.openai.com/t/some-thread/12345"),
            PageKind::Forum
        );
        assert_eq!(
            kind("https://example.org/forum/viewtopic.php?t=9"),
            PageKind::Forum
        );
        assert_eq!(
            kind("https://example.org/viewtopic.php?t=9"),
            PageKind::Forum
        );
        assert_eq!(
            kind("https://www.reddit.com/r/rust/comments/x/y/"),
            PageKind::Forum
        );
        assert_eq!(kind("https://forums.example.com/"), PageKind::Forum);
        assert_eq!(kind("https://docs.rs/lol_html"), PageKind::Documentation);
        assert_eq!(
            kind("https://example.org/docs/intro"),
            PageKind::Documentation
        );
        // A last segment is a page's own name, not a section.
        assert_eq!(kind("https://example.org/blog/the-forum"), PageKind::Other);
        assert_eq!(kind("https://example.org/docs"), PageKind::Other);
        assert_eq!(
            kind("https://shop.example/collections/socks/wool"),
            PageKind::Collection
        );
        assert_eq!(kind("https://example.org/"), PageKind::Service);
        assert_eq!(kind("https://example.org"), PageKind::Service);
        assert_eq!(kind("https://example.org/category"), PageKind::Other);
        assert_eq!(kind("not a url"), PageKind::Other);
        assert_eq!(kind(""), PageKind::Other);
    }
}
