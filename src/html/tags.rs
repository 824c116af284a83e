//! The tags this stage reacts to: the tag table ([`TAGS`], what each tag does to the text
//! stream), the lookups of a tag name in it, and what an element's tag and attributes suggest
//! about the text inside it ([`container_hints`]).

use std::sync::OnceLock;

use lol_html::html_content::Element;

use crate::block::ContainerHints;

/// What a tag does to the text stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// A block-level element: a boundary at its start and end, pushed on the stack.
    Block,
    /// A void element that only cuts the text (`br`, `hr`).
    Break,
    /// An element whose text is dropped.
    Skip,
    /// `<a>`: text inside counts as link text.
    Link,
    /// `<title>`.
    Title,
    /// `<noscript>`: its raw text is parsed as HTML by a nested parser.
    NoScript,
    /// `<rt>`, `<rp>`: a ruby annotation (furigana) or its fallback parenthesis, shown above
    /// the base text, not in it: dropped up to its end tag or the block's end.
    Annotation,
}

/// Every tag this stage reacts to; all others are inline and transparent.
pub(super) const TAGS: &[(&str, Role)] = &[
    ("p", Role::Block),
    ("div", Role::Block),
    ("li", Role::Block),
    ("ul", Role::Block),
    ("ol", Role::Block),
    ("dl", Role::Block),
    ("dt", Role::Block),
    ("dd", Role::Block),
    ("h1", Role::Block),
    ("h2", Role::Block),
    ("h3", Role::Block),
    ("h4", Role::Block),
    ("h5", Role::Block),
    ("h6", Role::Block),
    ("table", Role::Block),
    ("caption", Role::Block),
    ("thead", Role::Block),
    ("tbody", Role::Block),
    ("tfoot", Role::Block),
    ("tr", Role::Block),
    ("td", Role::Block),
    ("th", Role::Block),
    ("pre", Role::Block),
    ("blockquote", Role::Block),
    ("section", Role::Block),
    ("article", Role::Block),
    ("header", Role::Block),
    ("footer", Role::Block),
    ("nav", Role::Block),
    ("aside", Role::Block),
    ("main", Role::Block),
    ("form", Role::Block),
    ("fieldset", Role::Block),
    ("legend", Role::Block),
    ("label", Role::Block),
    ("address", Role::Block),
    ("center", Role::Block),
    ("figure", Role::Block),
    ("figcaption", Role::Block),
    ("details", Role::Block),
    ("summary", Role::Block),
    ("dialog", Role::Block),
    ("menu", Role::Block),
    ("dir", Role::Block),
    ("hgroup", Role::Block),
    ("body", Role::Block),
    ("html", Role::Block),
    ("frameset", Role::Block),
    ("option", Role::Block),
    ("br", Role::Break),
    ("hr", Role::Break),
    ("script", Role::Skip),
    ("style", Role::Skip),
    ("noscript", Role::NoScript),
    ("rt", Role::Annotation),
    ("rp", Role::Annotation),
    ("template", Role::Skip),
    ("svg", Role::Skip),
    ("math", Role::Skip),
    ("select", Role::Skip),
    ("iframe", Role::Skip),
    ("object", Role::Skip),
    ("applet", Role::Skip),
    ("audio", Role::Skip),
    ("video", Role::Skip),
    ("canvas", Role::Skip),
    ("datalist", Role::Skip),
    ("textarea", Role::Skip),
    ("noframes", Role::Skip),
    ("a", Role::Link),
    ("title", Role::Title),
];

/// Index of a tag in [`TAGS`]; the stack holds these, not strings.
pub(super) type TagId = u8;

pub(super) fn tag_name(id: TagId) -> &'static str {
    TAGS[id as usize].0
}

pub(super) fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// The index in [`TAGS`] of a (lower-case) tag name, if this stage reacts to it.
pub(super) fn tag_id(name: &str) -> Option<TagId> {
    static SORTED: OnceLock<Vec<(&'static str, TagId)>> = OnceLock::new();
    let sorted = SORTED.get_or_init(|| {
        let mut names: Vec<(&'static str, TagId)> = TAGS
            .iter()
            .enumerate()
            .map(|(id, &(name, _))| (name, id as TagId))
            .collect();
        names.sort_unstable();
        names
    });
    sorted
        .binary_search_by(|&(n, _)| n.cmp(name))
        .ok()
        .map(|i| sorted[i].1)
}

/// [`tag_id`] of an ASCII name in any case, without allocating: names of up to 16 bytes are
/// packed into a `u128` key (longer ones are not in [`TAGS`]).
pub(super) fn tag_id_ascii(name: &[u8]) -> Option<TagId> {
    fn key(name: &[u8]) -> Option<u128> {
        let mut buf = [0u8; 16];
        buf.get_mut(..name.len())?.copy_from_slice(name);
        buf.make_ascii_lowercase();
        Some(u128::from_le_bytes(buf))
    }
    static SORTED: OnceLock<Vec<(u128, TagId)>> = OnceLock::new();
    let sorted = SORTED.get_or_init(|| {
        let mut keys: Vec<(u128, TagId)> = TAGS
            .iter()
            .enumerate()
            .map(|(id, &(name, _))| {
                (
                    key(name.as_bytes()).expect("tag names are short"),
                    id as TagId,
                )
            })
            .collect();
        keys.sort_unstable();
        keys
    });
    let key = key(name)?;
    sorted
        .binary_search_by(|&(k, _)| k.cmp(&key))
        .ok()
        .map(|i| sorted[i].1)
}

/// What an element's tag name, `class` and `id` suggest about the text inside it.
pub(super) fn container_hints(el: &Element<'_, '_>, id: TagId) -> u8 {
    let mut hints = match tag_name(id) {
        "nav" => ContainerHints::NAVIGATION,
        "footer" => ContainerHints::PERIPHERY,
        "aside" => ContainerHints::PERIPHERY | ContainerHints::ASIDE,
        "article" | "main" => ContainerHints::CONTENT,
        "figcaption" => ContainerHints::ASIDE,
        "dialog" if !el.has_attribute("open") => ContainerHints::HIDDEN,
        _ => 0,
    };
    for attribute in ["class", "id"] {
        if let Some(value) = el.get_attribute(attribute) {
            hints |= ContainerHints::of_names(&value);
        }
    }
    // ARIA landmarks and schema.org's article body say the same in a standard way.
    if let Some(role) = el.get_attribute("role") {
        hints |= ContainerHints::of_role(&role);
    }
    let is_true = |name: &str| {
        el.get_attribute(name)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    };
    if is_true("aria-modal") {
        hints |= ContainerHints::HIDDEN;
    }
    if el.has_attribute("hidden")
        || is_true("aria-hidden")
        || el.get_attribute("style").is_some_and(|s| hides(&s))
    {
        hints |= ContainerHints::COLLAPSED;
    }
    if el.get_attribute("itemprop").is_some_and(|v| {
        v.split_ascii_whitespace()
            .any(|w| w.eq_ignore_ascii_case("articleBody"))
    }) {
        hints |= ContainerHints::CONTENT;
    }
    hints
}

/// Whether a `style` attribute hides its element: `display: none` or `visibility: hidden`,
/// in any case and spacing.
fn hides(style: &str) -> bool {
    style.split(';').any(|declaration| {
        let Some((property, value)) = declaration.split_once(':') else {
            return false;
        };
        let (property, value) = (property.trim(), value.trim());
        let value = value.trim_end_matches("!important").trim_end();
        (property.eq_ignore_ascii_case("display") && value.eq_ignore_ascii_case("none"))
            || (property.eq_ignore_ascii_case("visibility") && value.eq_ignore_ascii_case("hidden"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::{blocks_from_str, HtmlSettings};

    /// Each block's text and hints.
    fn texts_and_hints(html: &str) -> Vec<(String, u8)> {
        blocks_from_str(html, &HtmlSettings::default())
            .unwrap()
            .into_iter()
            .map(|b| (b.text, b.hints.0))
            .collect()
    }

    #[test]
    fn every_tag_is_found() {
        assert!(TAGS.len() < 256);
        for (id, (name, _)) in TAGS.iter().enumerate() {
            assert_eq!(tag_id(name), Some(id as TagId), "{name}");
        }
        assert_eq!(tag_id("span"), None);
        for (id, (name, _)) in TAGS.iter().enumerate() {
            assert_eq!(
                tag_id_ascii(name.to_ascii_uppercase().as_bytes()),
                Some(id as TagId),
                "{name}"
            );
        }
        assert_eq!(tag_id_ascii(b"span"), None);
        assert_eq!(tag_id_ascii(b"blockquoteblockquote"), None);
        assert_eq!(tag_id(""), None);
    }

    #[test]
    fn landmark_roles_and_article_body_are_hints() {
        let html = "<div role=navigation><p>Menu</p></div><div itemprop=\"articleBody\"><p>Text.</p></div><div role=complementary><p>Aside</p></div>";
        let hints: Vec<u8> = blocks_from_str(html, &HtmlSettings::default())
            .unwrap()
            .into_iter()
            .map(|b| b.hints.0)
            .collect();
        assert_eq!(
            hints,
            [
                ContainerHints::NAVIGATION,
                ContainerHints::CONTENT,
                ContainerHints::PERIPHERY
            ]
        );
    }

    #[test]
    fn modal_dialogs_are_hidden_and_an_open_dialog_is_not() {
        let html = r#"<div role="dialog"><p>Privacy policy</p></div>
            <div aria-modal="true"><p>Sign up</p></div><dialog><p>Cookies</p></dialog>
            <dialog open><p>Shown</p></dialog><div aria-modal="false"><p>Plain</p></div>"#;
        let got = texts_and_hints(html);
        let hidden = ContainerHints::HIDDEN;
        let want = [
            ("Privacy policy", hidden),
            ("Sign up", hidden),
            ("Cookies", hidden),
            ("Shown", 0),
            ("Plain", 0),
        ];
        assert_eq!(got, want.map(|(t, h)| (t.to_string(), h)));
    }

    #[test]
    fn captions_and_asides_are_set_apart_and_the_rest_of_a_figure_is_not() {
        let html = "<figure><p>A chart</p><figcaption>The flood in 2024. Photo: AP</figcaption>\
            </figure><p>After</p><aside><p>Read also</p></aside>";
        let got = texts_and_hints(html);
        let want = [
            ("A chart", 0),
            ("The flood in 2024. Photo: AP", ContainerHints::ASIDE),
            ("After", 0),
            (
                "Read also",
                ContainerHints::PERIPHERY | ContainerHints::ASIDE,
            ),
        ];
        assert_eq!(got, want.map(|(t, h)| (t.to_string(), h)));
    }

    #[test]
    fn hidden_attributes_and_styles_collapse_what_they_hold() {
        let html = r#"<div hidden><p>Tab two</p></div><div aria-hidden="true"><p>Icon</p></div>
            <div style="color: red; DISPLAY : none !important"><p>More</p></div>
            <div style="visibility:hidden"><p>Later</p></div><div aria-hidden="false" style="display: block">
            <p>Shown</p></div><div style="display:nonesuch"><p>Odd</p></div>"#;
        let got = texts_and_hints(html);
        let collapsed = ContainerHints::COLLAPSED;
        let want = [
            ("Tab two", collapsed),
            ("Icon", collapsed),
            ("More", collapsed),
            ("Later", collapsed),
            ("Shown", 0),
            ("Odd", 0),
        ];
        assert_eq!(got, want.map(|(t, h)| (t.to_string(), h)));
    }

    #[test]
    fn container_hints_come_from_tags_classes_and_ids_of_every_enclosing_element() {
        let html = r#"<div id="topNav"><ul class="x"><li>Home</li></ul></div>
            <div class="post-body"><p>Story text.</p><aside>Ads</aside></div>
            <div class="read header"><p>Plain.</p><div id="comments"><p>Nice!</p></div></div>"#;
        let got = texts_and_hints(html);
        let want = [
            ("Home", ContainerHints::NAVIGATION),
            ("Story text.", ContainerHints::CONTENT),
            (
                "Ads",
                ContainerHints::CONTENT | ContainerHints::PERIPHERY | ContainerHints::ASIDE,
            ),
            ("Plain.", 0),
            ("Nice!", ContainerHints::COMMENTS),
        ];
        assert_eq!(got, want.map(|(t, h)| (t.to_string(), h)));
    }
}
