//! What a page says about itself beyond its title: who wrote it, when, on which site, and its
//! summary, from `<meta>` tags (Open Graph, Dublin Core, plain names, microdata) and from
//! JSON-LD. A field keeps the first value found; JSON-LD only fills the fields the tags left
//! empty (it comes later in most pages, and the tags are what most sites fill), but for its
//! authors and publisher, kept apart (`PageInfo::authors` joins them with the tags' author).

use crate::block::PageInfo;

/// A field of [`PageInfo`] a `<meta>` tag can fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    OgType,
    OgUrl,
    Author,
    Date,
    Sitename,
    AppName,
    Title,
    Description,
}

/// The field a `<meta>` tag's `property`, `name` or `itemprop` (lower-cased) names.
fn field_of(key: &str) -> Option<Field> {
    Some(match key {
        "og:type" => Field::OgType,
        "og:url" => Field::OgUrl,
        "author" | "article:author" | "dc.creator" | "dcterms.creator" | "byl"
        | "parsely-author" | "sailthru.author" | "citation_author" => Field::Author,
        "article:published_time"
        | "og:published_time"
        | "datepublished"
        | "date"
        | "dc.date"
        | "dc.date.issued"
        | "dcterms.date"
        | "dcterms.issued"
        | "pubdate"
        | "publish-date"
        | "publish_date"
        | "parsely-pub-date"
        | "sailthru.date"
        | "citation_publication_date" => Field::Date,
        "og:site_name" => Field::Sitename,
        "application-name" | "twitter:site" => Field::AppName,
        "og:title" | "twitter:title" => Field::Title,
        "description"
        | "og:description"
        | "twitter:description"
        | "dc.description"
        | "dcterms.description" => Field::Description,
        _ => return None,
    })
}

/// Sets the field named by a `<meta>` tag's `key`, the value of its attribute `attribute`
/// (`property`, `name` or `itemprop`), to `content` (taken only when needed), unless it has a
/// value already. True when the key names a field. Open Graph's type and URL are read, as
/// they always were (the kind of page is learned from them), from `property` alone, exactly
/// `og:type` and `og:url`.
pub(super) fn set_from_meta(
    page: &mut PageInfo,
    attribute: &str,
    key: &str,
    content: impl FnOnce() -> Option<String>,
) -> bool {
    let field = match field_of(&key.trim().to_ascii_lowercase()) {
        Some(Field::OgType | Field::OgUrl)
            if attribute != "property" || !matches!(key, "og:type" | "og:url") =>
        {
            None
        }
        field => field,
    };
    let Some(field) = field else {
        return false;
    };
    let slot = match field {
        Field::OgType => &mut page.og_type,
        Field::OgUrl => &mut page.og_url,
        Field::Author => &mut page.author,
        Field::Date => &mut page.date,
        Field::Sitename => &mut page.sitename,
        Field::AppName => &mut page.app_name,
        Field::Title => &mut page.declared_title,
        Field::Description => &mut page.description,
    };
    if slot.is_none() {
        let value = content().and_then(|v| PageInfo::clean(&v));
        // An author is a name, never a link or an address (a profile's URL, an e-mail); a
        // site's name is never a handle (`@example`): a later tag may give what is wanted.
        *slot = value.filter(|v| match field {
            Field::Author => is_name(v),
            Field::AppName => !v.starts_with('@'),
            _ => true,
        });
    }
    true
}

/// Whether an author's `value` is a name: not a URL, a bare host or an e-mail address.
fn is_name(value: &str) -> bool {
    let one_word = !value.contains(' ');
    !(value.contains("://")
        || value.starts_with("www.")
        || one_word && value.contains('@') && value.contains('.')
        || one_word && value.contains('/'))
}

/// A metadata value with its character references decoded, as the HTML standard reads an
/// attribute's value; decoded a second time when that leaves references (a site that escaped
/// the value twice: `Tom &amp;amp; Jerry`, `&amp;hellip;`), so no record carries one.
pub(super) fn decoded(raw: &str) -> std::borrow::Cow<'_, str> {
    let once = htmlize::unescape_attribute(raw);
    if once.contains('&') && once != raw {
        let twice = htmlize::unescape_attribute(once.as_ref()).into_owned();
        return std::borrow::Cow::Owned(twice);
    }
    once
}

/// Fills the fields still empty from a JSON-LD script's `text`, when it is valid JSON: the
/// first object (in the script's order, `@graph` lists included) that has each of `author`
/// (a name, or an object or list of them, names joined by `; `; an object may be a reference,
/// `{"@id": …}`, to one of the script that has the name), `datePublished`, `publisher`'s
/// name (also the site's, else a `WebSite`'s name) and `description`.
pub(super) fn fill_from_json_ld(page: &mut PageInfo, text: &str) {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text.trim()) else {
        return;
    };
    let mut objects = Vec::new();
    collect_objects(&value, &mut objects, 0);
    let names = |value: &serde_json::Value| names(value, &objects);
    // Character references decoded: many sites escape JSON-LD's strings as they would HTML
    // ("Connolly&#8217;s").
    let first = |get: &dyn Fn(&serde_json::Map<String, serde_json::Value>) -> Option<String>| {
        objects
            .iter()
            .find_map(|o| get(o))
            .and_then(|v| PageInfo::clean(&decoded(&v)))
    };
    if page.ld_author.is_none() {
        page.ld_author = first(&|o| o.get("author").and_then(names));
    }
    if page.ld_headline.is_none() {
        page.ld_headline = first(&|o| o.get("headline").and_then(string));
    }
    if page.declared_title.is_none() {
        page.declared_title.clone_from(&page.ld_headline);
    }
    if page.date.is_none() {
        page.date = first(&|o| o.get("datePublished").and_then(string));
    }
    if page.publisher.is_none() {
        page.publisher = first(&|o| o.get("publisher").and_then(names));
    }
    if page.sitename.is_none() {
        page.sitename = page.publisher.clone().or_else(|| {
            first(&|o| {
                is_type(o, "WebSite")
                    .then(|| o.get("name").and_then(string))
                    .flatten()
            })
        });
    }
    if page.description.is_none() {
        page.description = first(&|o| {
            (!is_type(o, "WebSite") && !is_type(o, "Organization"))
                .then(|| o.get("description").and_then(string))
                .flatten()
        });
    }
}

/// How deep in a JSON-LD document objects are looked for (a page's own description is near
/// the top; deeper are its parts, comments and offers).
const MAX_DEPTH: usize = 2;

/// The objects of `value`, itself and those of its `@graph` or of a top-level list.
fn collect_objects<'a>(
    value: &'a serde_json::Value,
    out: &mut Vec<&'a serde_json::Map<String, serde_json::Value>>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        serde_json::Value::Array(items) => {
            for item in items {
                collect_objects(item, out, depth + 1);
            }
        }
        serde_json::Value::Object(object) => {
            out.push(object);
            if let Some(graph) = object.get("@graph") {
                collect_objects(graph, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Whether an object's `@type` is `name` (or a list holding it).
fn is_type(object: &serde_json::Map<String, serde_json::Value>, name: &str) -> bool {
    match object.get("@type") {
        Some(serde_json::Value::String(t)) => t == name,
        Some(serde_json::Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some(name)),
        _ => false,
    }
}

/// A string value.
fn string(value: &serde_json::Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

/// A JSON-LD object.
type Object = serde_json::Map<String, serde_json::Value>;

/// A name: a string, an object's `name` (or the `name` of the object of `objects` its `@id`
/// refers to), or a list of them joined by `; `.
fn names(value: &serde_json::Value, objects: &[&Object]) -> Option<String> {
    let by_id = |id: &str| {
        objects
            .iter()
            .find(|o| o.get("@id").and_then(serde_json::Value::as_str) == Some(id))
    };
    let name = |v: &serde_json::Value| {
        match v {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Object(o) => o
                .get("name")
                .or_else(|| by_id(o.get("@id")?.as_str()?)?.get("name"))
                .and_then(string),
            _ => None,
        }
        .filter(|name| is_name(name.trim()))
    };
    match value {
        serde_json::Value::Array(items) => {
            let all: Vec<String> = items.iter().filter_map(name).collect();
            (!all.is_empty()).then(|| all.join("; "))
        }
        other => name(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_tags_fill_each_field_once_whatever_their_case() {
        let mut page = PageInfo::default();
        for (key, value) in [
            ("Author", "Ada Lovelace"),
            ("author", "Someone Else"),
            ("article:published_time", "2025-03-01T10:00:00Z"),
            ("og:site_name", "The  Daily\nExample"),
            ("description", "  A summary. "),
            ("viewport", "width=device-width"),
        ] {
            set_from_meta(&mut page, "name", key, || Some(value.to_string()));
        }
        assert_eq!(page.author.as_deref(), Some("Ada Lovelace"));
        assert_eq!(page.date.as_deref(), Some("2025-03-01T10:00:00Z"));
        assert_eq!(page.sitename.as_deref(), Some("The Daily Example"));
        assert_eq!(page.description.as_deref(), Some("A summary."));
        assert!(!set_from_meta(&mut page, "name", "viewport", || None));
        // Open Graph's type: from `property`, exactly.
        for (attribute, key) in [
            ("name", "og:type"),
            ("property", "OG:TYPE"),
            ("property", " og:type"),
        ] {
            assert!(!set_from_meta(&mut page, attribute, key, || Some(
                "x".into()
            )));
        }
        assert!(set_from_meta(&mut page, "property", "og:type", || Some(
            "article".into()
        )));
        assert_eq!(page.og_type.as_deref(), Some("article"));
    }

    #[test]
    fn no_field_keeps_a_control_character() {
        let html = "<text id=\"http://e.com/\x01x\" title=\"Wrapper\x02 title\">\
            <title>A\x01title\x7fwith\u{9f}controls\0 here</title>\
            <meta name=author content=\"Ann\x1b Walker\">\
            <meta property=og:site_name content=\"Site\x0b\x0c\x1f name\">\
            <meta name=description content=\"One\u{85}two\u{80}three\">\
            <script type=application/ld+json>{\"datePublished\": \"2024\\u0007-01-01\"}</script>\
            <p>Text.</p></text>";
        let mut parser = crate::html::BlockParser::new(Default::default());
        let mut blocks = Vec::new();
        parser.write(html, &mut blocks).unwrap();
        let (result, page) = parser.end_page(&mut blocks);
        assert!(result.is_ok());
        let fields = [
            (&page.title, "A title with controls here"),
            (&page.wrapper_title, "Wrapper title"),
            (&page.wrapper_url, "http://e.com/ x"),
            (&page.author, "Ann Walker"),
            (&page.sitename, "Site name"),
            (&page.description, "One two three"),
            (&page.date, "2024 -01-01"),
        ];
        for (field, want) in fields {
            assert_eq!(field.as_deref(), Some(want));
        }
        assert_eq!(
            PageInfo::clean("\0\u{1}\t\u{7f}\u{9f}\u{a0} \0"),
            None,
            "nothing but controls and white space"
        );
    }

    #[test]
    fn values_are_decoded_once_or_twice_if_escaped_twice() {
        for (raw, want) in [
            ("Tom &amp; Jerry&#039;s", "Tom & Jerry's"),
            ("Tom &amp;amp; Jerry", "Tom & Jerry"),
            ("Wait&amp;hellip;", "Wait…"),
            ("AT&T &copy 2024", "AT&T © 2024"),
            ("plain", "plain"),
        ] {
            assert_eq!(decoded(raw), want, "{raw}");
        }
    }

    #[test]
    fn json_ld_fills_only_what_the_tags_left_empty() {
        let mut page = PageInfo {
            description: Some("From the tags.".into()),
            declared_title: Some("From og:title".into()),
            ..PageInfo::default()
        };
        let script = r#"{"@context":"https://schema.org","@graph":[
            {"@type":"WebSite","name":"Example News","description":"The site."},
            {"@type":"NewsArticle","headline":"H","description":"From JSON-LD.",
             "author":[{"@type":"Person","name":"Ann"},{"name":"Bo &amp; Co"}],
             "datePublished":"2024-12-24","publisher":{"@type":"Organization","name":"Example Media"}}]}"#;
        fill_from_json_ld(&mut page, script);
        assert_eq!(page.ld_author.as_deref(), Some("Ann; Bo & Co"));
        assert_eq!(page.date.as_deref(), Some("2024-12-24"));
        assert_eq!(page.sitename.as_deref(), Some("Example Media"));
        assert_eq!(page.publisher.as_deref(), Some("Example Media"));
        assert_eq!(page.description.as_deref(), Some("From the tags."));
        // Its headline names the page's headline beside `og:title`.
        assert_eq!(page.declared_title.as_deref(), Some("From og:title"));
        assert_eq!(page.ld_headline.as_deref(), Some("H"));
        // A website's name when no publisher is named; broken JSON changes nothing.
        let mut page = PageInfo::default();
        fill_from_json_ld(&mut page, r#"[{"@type":"WebSite","name":"Site"}]"#);
        assert_eq!(page.sitename.as_deref(), Some("Site"));
        fill_from_json_ld(&mut page, r#"{"author": "X",,}"#);
        assert_eq!(page.ld_author, None);
    }

    #[test]
    fn a_json_ld_author_may_be_a_reference_to_a_person() {
        let mut page = PageInfo::default();
        let script = r#"{"@graph":[
            {"@type":"NewsArticle","author":{"@id":"https://e.com/#/person/1"}},
            {"@type":"Person","@id":"https://e.com/#/person/1","name":"Paul Serran"}]}"#;
        fill_from_json_ld(&mut page, script);
        assert_eq!(page.ld_author.as_deref(), Some("Paul Serran"));
    }
}
