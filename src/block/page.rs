//! What a page says about itself: [`PageInfo`], gathered by the HTML stage, and the kind of
//! page it holds ([`PageKind`]), which the evidence stage tells from it.

/// What a page says about itself, gathered while it is parsed: its `<title>`, its
/// `<link rel=canonical href>`, its Open Graph type and URL, the schema.org types it declares,
/// and the URL and title of a CleanEval wrapper (`<text id="URL" title="…">`). Each is the first
/// one seen, at most [`PageInfo::MAX_BYTES`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageInfo {
    /// The first `<title>`'s text.
    pub title: Option<String>,
    /// The first `<link rel=canonical>`'s `href`.
    pub canonical_url: Option<String>,
    /// The first `<meta property="og:type">`'s `content`.
    pub og_type: Option<String>,
    /// The first `<meta property="og:url">`'s `content`.
    pub og_url: Option<String>,
    /// The schema.org types declared in JSON-LD and microdata that tell the kind of page.
    pub schema: SchemaTypes,
    /// The `id` of a CleanEval `<text>` wrapper (the page's URL).
    pub wrapper_url: Option<String>,
    /// The `title` of a CleanEval `<text>` wrapper.
    pub wrapper_title: Option<String>,
    /// Who wrote the page, as its `<meta>` tags say (see [`PageInfo::authors`]).
    pub author: Option<String>,
    /// Who wrote the page, as its JSON-LD says (names joined by `; `).
    pub ld_author: Option<String>,
    /// The name of the page's publisher, as its JSON-LD says.
    pub publisher: Option<String>,
    /// The first byline of the page's markup that names someone: the text of an element marked
    /// `rel=author` or `itemprop=author`, or whose class names a byline or an author, outside
    /// menus, the periphery and readers' comments ("By Ann Lee | 3 May").
    pub byline: Option<String>,
    /// When the page was published, as its metadata writes it (see [`PageInfo::published`]).
    pub date: Option<String>,
    /// The name of the site the page belongs to: `og:site_name`, else the publisher JSON-LD
    /// names (see [`PageInfo::site_name`] for the names it falls back on).
    pub sitename: Option<String>,
    /// The name `application-name` gives, or a Twitter site that is not a handle.
    pub app_name: Option<String>,
    /// The title the page declares for sharing: `og:title`, `twitter:title`, else JSON-LD's
    /// `headline` (see [`PageInfo::headline`]).
    pub declared_title: Option<String>,
    /// JSON-LD's first `headline`, which a site may word as its `<h1>` where its `og:title`
    /// words it otherwise: a third name of the headline (`crate::decide`'s `Headlines`).
    pub ld_headline: Option<String>,
    /// The page's own summary of itself.
    pub description: Option<String>,
}

impl PageInfo {
    /// The longest value kept (a longer one is cut at a character boundary).
    pub const MAX_BYTES: usize = 2048;

    /// `value` with its white space collapsed, cut to [`PageInfo::MAX_BYTES`]; `None` if empty.
    /// Every field is made by it. As in a block's text, U+0000 is dropped and the other control
    /// characters (C0, and here DEL and C1 too) count as white space, so none reaches a record.
    pub fn clean(value: &str) -> Option<String> {
        let value = match value.contains('\0') {
            true => std::borrow::Cow::Owned(value.replace('\0', "")),
            false => std::borrow::Cow::Borrowed(value),
        };
        let mut out = String::new();
        let separates = |c: char| c.is_whitespace() || c.is_control();
        for word in value.split(separates).filter(|word| !word.is_empty()) {
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

    /// The page's own URL: the canonical link, else Open Graph's, else the CleanEval wrapper's.
    pub fn url(&self) -> Option<&str> {
        self.canonical_url
            .as_deref()
            .or(self.og_url.as_deref())
            .or(self.wrapper_url.as_deref())
    }

    /// The page's title: `<title>`, else the CleanEval wrapper's.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref().or(self.wrapper_title.as_deref())
    }

    /// The names the page gives its headline: its [`PageInfo::title`], the title it declares
    /// for sharing and JSON-LD's `headline`.
    pub fn titles(&self) -> [Option<&str>; 3] {
        [
            self.title(),
            self.declared_title.as_deref(),
            self.ld_headline.as_deref(),
        ]
    }
}

/// The host of `url` (scheme left off), its path in lowercase without query or fragment, and
/// whether the path has a query.
pub(crate) fn split_url(url: &str) -> (&str, String, bool) {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let query = path.contains('?');
    let path = path.split(['?', '#']).next().unwrap_or("");
    (host, path.to_ascii_lowercase(), query)
}

/// The schema.org types that tell a kind of page, as bits: a page declares them in JSON-LD
/// (`"@type": "Product"`) or in microdata (`itemtype="https://schema.org/Product"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchemaTypes(pub u8);

impl SchemaTypes {
    /// `Article`, `NewsArticle`, `BlogPosting` and the other kinds of news and blog article.
    pub const ARTICLE: u8 = 1;
    /// `TechArticle`, `APIReference`.
    pub const TECH_ARTICLE: u8 = 2;
    /// `DiscussionForumPosting`, `QAPage`.
    pub const FORUM: u8 = 4;
    /// `Comment` in microdata: posts marked up one by one (a JSON-LD `Comment` is not counted:
    /// articles list their readers' comments so).
    pub const COMMENT: u8 = 8;
    /// `Product`.
    pub const PRODUCT: u8 = 16;
    /// `Offer`, `AggregateOffer`.
    pub const OFFER: u8 = 32;
    /// `CollectionPage`, `ItemList`, `SearchResultsPage`.
    pub const LIST: u8 = 64;

    /// The bit of a type's name (`NewsArticle`, or a URL or prefixed name ending in it), 0 for
    /// a type that does not tell a kind of page.
    pub fn of_name(name: &str) -> u8 {
        let name = name.trim();
        let name = name.rsplit(['/', ':', '#']).next().unwrap_or(name);
        match name {
            "Article"
            | "NewsArticle"
            | "BlogPosting"
            | "ReportageNewsArticle"
            | "OpinionNewsArticle"
            | "AnalysisNewsArticle"
            | "LiveBlogPosting"
            | "ScholarlyArticle" => Self::ARTICLE,
            "TechArticle" | "APIReference" => Self::TECH_ARTICLE,
            "DiscussionForumPosting" | "QAPage" => Self::FORUM,
            "Comment" => Self::COMMENT,
            "Product" | "ProductGroup" => Self::PRODUCT,
            "Offer" | "AggregateOffer" => Self::OFFER,
            "CollectionPage" | "ItemList" | "SearchResultsPage" => Self::LIST,
            _ => 0,
        }
    }

    /// True when any of `bits` is set.
    pub fn has(self, bits: u8) -> bool {
        self.0 & bits != 0
    }

    /// A product on sale: a `Product` with an `Offer`.
    pub fn product_on_sale(self) -> bool {
        self.has(Self::PRODUCT) && self.has(Self::OFFER)
    }
}

/// The kind of page a document holds, which sets what its main content is: the post on an
/// article, every post on a forum, the cards on a listing or a collection, every section on a
/// service page. Told from what the page declares (`crate::evidence::page_kind`), else from
/// what the whole page shows (`crate::evidence::tell_kind`), or given with `--kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PageKind {
    /// A news story, blog post, guide or review.
    Article,
    /// A forum thread or a question with its answers.
    Forum,
    /// One product: name, description, specifications, price.
    Product,
    /// A grid of products or items (a shop's category).
    Collection,
    /// A list of entries or cards (a blog's index, search results, events).
    Listing,
    /// Documentation: text and code.
    Documentation,
    /// A company's or a service's page: every section counts.
    Service,
    /// None of these could be told.
    #[default]
    Other,
}

impl PageKind {
    /// Every kind, in the order of their names in `--kind`'s help.
    pub const ALL: [PageKind; 8] = [
        PageKind::Article,
        PageKind::Forum,
        PageKind::Product,
        PageKind::Collection,
        PageKind::Listing,
        PageKind::Documentation,
        PageKind::Service,
        PageKind::Other,
    ];

    /// The kind's name, as `--kind` takes it and `--format json` writes it.
    pub const fn name(self) -> &'static str {
        match self {
            PageKind::Article => "article",
            PageKind::Forum => "forum",
            PageKind::Product => "product",
            PageKind::Collection => "collection",
            PageKind::Listing => "listing",
            PageKind::Documentation => "documentation",
            PageKind::Service => "service",
            PageKind::Other => "other",
        }
    }

    /// The kind of a name ([`PageKind::name`]).
    pub fn of_name(name: &str) -> Option<PageKind> {
        PageKind::ALL.into_iter().find(|k| k.name() == name)
    }
}
