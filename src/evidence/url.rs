//! The kind of page a URL suggests by its host and path alone: a forum's thread, documentation,
//! a shop's collection, or a site's home page. The page-kind rules ([`super::kind`]) and the
//! page evidence ([`super::page`]) both read it.

use crate::block::{split_url, PageKind};

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
pub(super) fn kind_of_url(url: &str) -> PageKind {
    let (host, path, _) = split_url(url);
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
