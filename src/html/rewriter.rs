//! The lol_html side: [`new_rewriter`] builds a parser whose handlers feed a [`State`], and the
//! handlers themselves: every start tag is counted and looked up, known elements act on the
//! state at their start and end tags, and a [`Restart`] stops lol_html when too many elements
//! are open.

use std::cell::RefCell;
use std::rc::Rc;

use lol_html::html_content::{Element, TextChunk};
use lol_html::{ElementContentHandlers, HtmlRewriter, MemorySettings, Selector, Settings};

use super::meta;
use super::state::State;
use super::inline::Formula;
use super::mathml::MathAttributes;
use super::tags::{
    code_language, is_byline, is_drawn_beside_text, is_screen_reader_text, tag_id, BlockAttributes,
    Role, Tag,
};
use crate::block::{PageInfo, SchemaTypes};

/// The error a handler returns to stop lol_html where [`Replay::restart_at`](super::state::Replay::restart_at) says.
#[derive(Debug)]
struct Restart;

impl std::fmt::Display for Restart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("restart the parser")
    }
}

impl std::error::Error for Restart {}

/// The sink for lol_html's rewritten output, which this stage does not need.
pub(super) type Discard = fn(&[u8]);

/// A lol_html parser whose handlers feed `state`.
pub(super) fn new_rewriter(
    state: &Rc<RefCell<State>>,
    memory: usize,
) -> HtmlRewriter<'static, Discard> {
    let mut lol_settings = Settings::new()
        .with_memory_settings(MemorySettings::new().with_max_allowed_memory_usage(memory))
        .with_strict(false);
    // One handler for every element: matching 75 type selectors in lol_html's selector VM
    // costs more than reading the tag name and looking it up.
    let element_state = Rc::clone(state);
    lol_settings = lol_settings.append_element_content_handler((
        std::borrow::Cow::Owned("*".parse::<Selector>().expect("`*` is a valid selector")),
        ElementContentHandlers::default()
            .element(move |el: &mut Element<'_, '_>| on_start_tag(&element_state, el)),
    ));
    let text_state = Rc::clone(state);
    let settings = lol_settings.append_document_content_handler(
        lol_html::DocumentContentHandlers::default().text(move |chunk: &mut TextChunk| {
            text_state.borrow_mut().on_text(chunk);
            Ok(())
        }),
    );
    let discard: Discard = |_| {};
    HtmlRewriter::new(settings, discard)
}

/// Every start tag: counts the elements lol_html keeps open, asks for a restart before this tag
/// when they are too many, and hands known elements to [`on_element`].
fn on_start_tag(state: &Rc<RefCell<State>>, el: &mut Element<'_, '_>) -> lol_html::HandlerResult {
    let at = el.source_location().bytes();
    let known = {
        let mut s = state.borrow_mut();
        s.run.at_element_edge = true;
        if at.start < s.replay.replay_end {
            None
        } else if s.replay.open >= s.replay.max_open && at.start >= s.replay.input_start {
            // lol_html stops here; the parser is replaced and given the source from this tag on.
            s.replay.restart_at = Some(at.start);
            return Err(Box::new(Restart));
        } else {
            if el.can_have_content() {
                s.replay.open += 1;
            }
            Some(s.tag_id_from_source(at.clone()))
        }
    };
    let Some(known) = known else {
        return on_replayed_element(state, el);
    };
    watch_for_byline(state, el, at.clone())?;
    let known = known.unwrap_or_else(|| tag_id(&el.tag_name()));
    if known != Some(Tag::Math) {
        on_math_element(state, el)?;
    }
    match known {
        Some(Tag::Img) => on_image(state, el),
        Some(Tag::ForeignObject) => on_foreign_object(state, el)?,
        // A declarative shadow root is shown in its host, as a `<div>` of it would be.
        Some(Tag::Template) if is_shadow_root(el) => on_element(state, el, Tag::Div)?,
        Some(id) => on_element(state, el, id)?,
        None if is_custom_link(el) => on_element(state, el, Tag::A)?,
        None => count_end_tag(state, el)?,
    }
    watch_for_screen_reader_text(state, el, at.clone())?;
    watch_for_drawn_text(state, el, at)
}

/// Whether a `<template>` is a declarative shadow root (`shadowrootmode`, or the older
/// `shadowroot`), whose content browsers show in its host element.
fn is_shadow_root(el: &Element<'_, '_>) -> bool {
    el.has_attribute("shadowrootmode") || el.has_attribute("shadowroot")
}

/// An SVG `<foreignObject>` in an `<svg>` (not itself inside another skipped element) shows
/// HTML in the drawing, as browsers render it: the drawing's skip is lifted up to its end
/// tag, and its content read as a `<div>`'s. Anywhere else it is one more element.
fn on_foreign_object(
    state: &Rc<RefCell<State>>,
    el: &mut Element<'_, '_>,
) -> lol_html::HandlerResult {
    let lifted = {
        let mut s = state.borrow_mut();
        let lift = s.skip.depth == 1 && s.skip.outer == Tag::Svg && el.can_have_content();
        if lift {
            s.skip.depth = 0;
        }
        lift
    };
    if !lifted {
        return count_end_tag(state, el);
    }
    on_element(state, el, Tag::Div)?;
    let end_state = Rc::clone(state);
    el.on_end_tag(Box::new(move |_end| {
        end_state.borrow_mut().skip.depth = 1;
        Ok(())
    }))
}

/// Stops reading text at an element drawn beside a code block's or a formula's text (line
/// numbers, a formula's visual copy: [`is_drawn_beside_text`]; in a code block, also what its
/// style or `aria-hidden` keep from being selected or read), up to its end tag; and at an
/// element that gives its formula's TeX in an attribute ([`tex_attribute`]; its content drawn
/// from it), whose TeX goes into the text in its place.
fn watch_for_drawn_text(
    state: &Rc<RefCell<State>>,
    el: &mut Element<'_, '_>,
    at: std::ops::Range<usize>,
) -> lol_html::HandlerResult {
    let in_code = {
        let s = state.borrow();
        if !el.can_have_content() || !s.may_be_drawn_beside_text(at) {
            return Ok(());
        }
        s.in_code_block()
    };
    let tex = tex_attribute(el);
    // MathJax 3's `<mjx-container class="MathJax">` holds the formula's MathML for readers.
    let custom = el.tag_name().contains('-');
    let drawn = tex.is_some()
        || (!custom
            && el
                .get_attribute("class")
                .is_some_and(|class| is_drawn_beside_text(&class)))
        || (in_code
            && (el.get_attribute("aria-hidden").is_some_and(|v| v == "true")
                || el
                    .get_attribute("style")
                    .is_some_and(|style| style.replace(' ', "").contains("user-select:none"))));
    if drawn {
        if let Some(tex) = tex {
            // A paragraph or a division of its own is a formula shown on its own.
            let display = matches!(tag_id(&el.tag_name()), Some(Tag::P | Tag::Div));
            state.borrow_mut().push_formula(&meta::decoded(&tex), display);
        }
        unread_to_end_tag(state, el)?;
    }
    Ok(())
}

/// The TeX an element gives of the formula it draws: `data-math` (KaTeX's auto-render),
/// `data-tex` or `data-latex`, or Temml's and Hurmet's `data-entry` on an element of class
/// `hurmet-tex`.
fn tex_attribute(el: &Element<'_, '_>) -> Option<String> {
    ["data-math", "data-tex", "data-latex"]
        .iter()
        .find_map(|name| el.get_attribute(name))
        .or_else(|| {
            el.get_attribute("class")
                .filter(|class| class.split_ascii_whitespace().any(|c| c == "hurmet-tex"))
                .and_then(|_| el.get_attribute("data-entry"))
        })
}

/// Drops the text of `el` up to its end tag ([`State::start_unread`]).
fn unread_to_end_tag(state: &Rc<RefCell<State>>, el: &mut Element<'_, '_>) -> lol_html::HandlerResult {
    let number = state.borrow_mut().start_unread();
    let end_state = Rc::clone(state);
    el.on_end_tag(Box::new(move |_end| {
        end_state.borrow_mut().end_unread(number);
        Ok(())
    }))
}

/// An element inside a MathML formula being read: a node of its tree, closed at its end tag.
fn on_math_element(state: &Rc<RefCell<State>>, el: &mut Element<'_, '_>) -> lol_html::HandlerResult {
    {
        let mut s = state.borrow_mut();
        let Some(tree) = s.inline.formula.as_mut().and_then(|f| f.tree.as_mut()) else {
            return Ok(());
        };
        let attribute = |name: &str| el.get_attribute(name).map(|v| v.to_ascii_lowercase());
        let attributes = MathAttributes {
            variant: attribute("mathvariant"),
            line_thickness: attribute("linethickness"),
            open: el.get_attribute("open"),
            close: el.get_attribute("close"),
            column_align: attribute("columnalign"),
        };
        let name = el.tag_name().to_ascii_lowercase();
        tree.open(&name, attributes, !el.can_have_content());
    }
    if !el.can_have_content() {
        return Ok(());
    }
    let end_state = Rc::clone(state);
    el.on_end_tag(Box::new(move |_end| {
        let mut s = end_state.borrow_mut();
        if let Some(tree) = s.inline.formula.as_mut().and_then(|f| f.tree.as_mut()) {
            tree.close();
        }
        Ok(())
    }))
}

/// An image of a formula (a LaTeX service's, by its class or URL, or one whose `alt` is TeX):
/// its TeX, its `alt`, goes into the text.
fn on_image(state: &Rc<RefCell<State>>, el: &Element<'_, '_>) {
    if !state.borrow().may_read_formula() {
        return;
    }
    let alt = el.get_attribute("alt").unwrap_or_default();
    let src = el.get_attribute("src").unwrap_or_default().to_ascii_lowercase();
    let class = el.get_attribute("class").unwrap_or_default().to_ascii_lowercase();
    let service = class.split_ascii_whitespace().any(|c| c == "latex" || c == "tex")
        || ["latex.php", "codecogs.com", "/latex?", "mathtex", "chart?cht=tx"]
            .iter()
            .any(|part| src.contains(part));
    let tex_alt = alt.contains('\\') && alt.bytes().any(|b| b.is_ascii_alphabetic());
    if (service || tex_alt) && !alt.trim().is_empty() {
        let alt = meta::decoded(&alt);
        let display = alt.contains("\\begin{");
        state.borrow_mut().push_formula(&alt, display);
    }
}

/// Stops reading text at an element only screen readers read ([`is_screen_reader_text`]),
/// when the settings drop such text and none is open already, up to its end tag
/// ([`State::start_unread`]); after the element's own handling, so that a block is open.
fn watch_for_screen_reader_text(
    state: &Rc<RefCell<State>>,
    el: &mut Element<'_, '_>,
    at: std::ops::Range<usize>,
) -> lol_html::HandlerResult {
    let may_be = el.can_have_content() && {
        let s = state.borrow();
        s.watches_screen_reader_text() && s.may_be_screen_reader_text(at)
    };
    if may_be
        && el
            .get_attribute("class")
            .is_some_and(|class| is_screen_reader_text(class.as_bytes()))
    {
        unread_to_end_tag(state, el)?;
    }
    Ok(())
}

/// Starts reading an element as the page's byline ([`State::byline`]) when none was found yet
/// and it is marked as one ([`is_byline`]), its source looked at first; its end tag ends it.
fn watch_for_byline(
    state: &Rc<RefCell<State>>,
    el: &mut Element<'_, '_>,
    at: std::ops::Range<usize>,
) -> lol_html::HandlerResult {
    let may_be = {
        let s = state.borrow();
        s.may_start_byline() && s.may_be_byline(at)
    };
    if may_be && el.can_have_content() && is_byline(el) {
        state.borrow_mut().byline = Some(String::new());
        let end_state = Rc::clone(state);
        el.on_end_tag(Box::new(move |_end| {
            end_state.borrow_mut().end_byline();
            Ok(())
        }))?;
    }
    Ok(())
}

/// An element of no known name carrying an `href` (a script's `<dropdown-item href=…>`, a
/// framework's `<nav-link href=…>`) is followed like a link: its text is link text.
fn is_custom_link(el: &Element<'_, '_>) -> bool {
    el.has_attribute("href") && el.tag_name().contains('-')
}

/// What happens at the start tag of a known element (and, through a handler, at its end tag).
fn on_element(
    state: &Rc<RefCell<State>>,
    el: &mut Element<'_, '_>,
    id: Tag,
) -> lol_html::HandlerResult {
    let role = id.role();
    if role == Role::Page {
        on_page_element(&mut state.borrow_mut().page, el, id);
        return count_end_tag(state, el);
    }
    if role == Role::Title && state.borrow().skip.depth > 0 {
        // An `<svg>`'s `<title/>` names a drawing, not the page, and may be self-closing.
        return count_end_tag(state, el);
    }
    {
        let mut s = state.borrow_mut();
        match role {
            Role::Block => {
                let attributes = BlockAttributes::of(el);
                if let Some(types) = &attributes.itemtype {
                    s.page.schema.0 |= types
                        .split_ascii_whitespace()
                        .fold(0, |bits, name| bits | SchemaTypes::of_name(name));
                }
                // A product on sale, not an article about products.
                let types = s.page.schema;
                let product = types.product_on_sale() && !types.has(SchemaTypes::ARTICLE);
                let hints = attributes.container_hints(id, product);
                s.on_block_start(id, hints, attributes.opening(id));
            }
            Role::Break => s.flush_block(),
            Role::Skip => {
                let script_type = match id {
                    Tag::Script => el.get_attribute("type"),
                    _ => None,
                };
                let script_type = script_type.as_deref().map(str::trim);
                if s.skip.depth == 0
                    && script_type.is_some_and(|t| t.eq_ignore_ascii_case("application/ld+json"))
                {
                    s.start_json_ld();
                }
                if s.may_read_formula() {
                    s.inline.formula = formula_of(el, id, script_type);
                }
                s.start_skip(id);
            }
            Role::Mark if id == Tag::Code && s.in_code_block() => {
                let class = el.get_attribute("class");
                let data_lang = el.get_attribute("data-lang");
                if let Some(language) = code_language(class.as_deref(), data_lang.as_deref()) {
                    s.stack.set_code_language(language);
                }
            }
            Role::Mark => s.start_mark(id.mark()),
            Role::TeX => {
                let tex = el
                    .get_attribute("encoding")
                    .is_some_and(|e| e.to_ascii_lowercase().contains("tex"));
                if let Some(formula) = &mut s.inline.formula {
                    formula.in_tex = tex;
                }
            }
            // An `<a>` inside an unclosed `<a>` closes it, as browsers do.
            Role::Link => s.link_depth = 1,
            Role::Title => {
                s.flush_block();
                s.title.inside = true;
            }
            Role::Annotation => s.skip.in_annotation = true,
            Role::NoScript => {
                if !s.start_noscript() {
                    s.start_skip(id);
                }
            }
            Role::Page => {}
        }
    }
    if !el.can_have_content() {
        state.borrow_mut().end_role(role);
        return Ok(());
    }
    on_end_of(state, el, id)
}

/// The formula `el` holds, if it is one: a MathML `<math>` (its `alttext`, and whether it is
/// shown on its own), or a MathJax `<script type="math/tex">` (`; mode=display` on its own).
fn formula_of(el: &Element<'_, '_>, id: Tag, script_type: Option<&str>) -> Option<Formula> {
    match id {
        Tag::Math => {
            let display = el
                .get_attribute("display")
                .is_some_and(|d| d.trim().eq_ignore_ascii_case("block"));
            Some(Formula::new(id, display, el.get_attribute("alttext")))
        }
        Tag::Script => {
            let kind = script_type?.to_ascii_lowercase();
            kind.starts_with("math/tex")
                .then(|| Formula::new(id, kind.contains("mode=display"), None))
        }
        _ => None,
    }
}

/// What the page says about itself, where a first value is kept: the canonical link, its
/// `<meta>` tags (Open Graph's type and URL, author, date, site name, description: see
/// `html::meta`), its publication's `<time>`, a CleanEval wrapper's URL and title.
fn on_page_element(page: &mut PageInfo, el: &Element<'_, '_>, id: Tag) {
    let value = |name: &str| {
        el.get_attribute(name)
            .and_then(|v| PageInfo::clean(&meta::decoded(&v)))
    };
    match id {
        Tag::HeadLink => {
            let canonical = el
                .get_attribute("rel")
                .is_some_and(|rel| rel.split_ascii_whitespace().any(|t| t == "canonical"));
            if canonical && page.canonical_url.is_none() {
                page.canonical_url = value("href");
            }
        }
        Tag::Meta if el.has_attribute("content") => {
            for key in ["property", "name", "itemprop"] {
                if value(key)
                    .is_some_and(|k| meta::set_from_meta(page, key, &k, || value("content")))
                {
                    break;
                }
            }
        }
        // A `<time datetime>` marked as the publication's (microdata's `datePublished`, a
        // class naming it, HTML 4's `pubdate`), when no tag before it gave a date.
        Tag::Time if page.date.is_none() && el.has_attribute("datetime") => {
            let marked = value("itemprop").is_some_and(|p| p.eq_ignore_ascii_case("datepublished"))
                || value("class").is_some_and(|c| c.to_ascii_lowercase().contains("publish"))
                || el.has_attribute("pubdate");
            if marked {
                page.date = value("datetime");
            }
        }
        Tag::Text if el.has_attribute("id") && page.wrapper_url.is_none() => {
            page.wrapper_url = value("id");
            page.wrapper_title = value("title");
        }
        _ => {}
    }
}

/// A start tag replayed to a new parser ([`State::replay_for_restart`]): its start was handled
/// by the parser before, its end tag does what the original's would have.
fn on_replayed_element(
    state: &Rc<RefCell<State>>,
    el: &mut Element<'_, '_>,
) -> lol_html::HandlerResult {
    if !el.can_have_content() {
        return Ok(());
    }
    state.borrow_mut().replay.open += 1;
    match tag_id(&el.tag_name()) {
        Some(id) => on_end_of(state, el, id),
        None if is_custom_link(el) => on_end_of(state, el, Tag::A),
        None => count_end_tag(state, el),
    }
}

/// Sets what the end tag of a known element that can have content does.
fn on_end_of(
    state: &Rc<RefCell<State>>,
    el: &mut Element<'_, '_>,
    id: Tag,
) -> lol_html::HandlerResult {
    let role = id.role();
    let end_state = Rc::clone(state);
    el.on_end_tag(Box::new(move |_end| {
        let mut s = end_state.borrow_mut();
        s.replay.open = s.replay.open.saturating_sub(1);
        s.run.at_element_edge = true;
        match role {
            Role::Block => s.on_block_end(id),
            Role::Break | Role::Page => {}
            Role::Skip | Role::NoScript => {
                s.end_role(role);
                s.end_formula(id);
            }
            Role::Mark => s.end_mark(id.mark()),
            Role::TeX => {
                if let Some(formula) = &mut s.inline.formula {
                    formula.in_tex = false;
                }
            }
            Role::Annotation => s.skip.in_annotation = false,
            Role::Link => s.link_depth = 0,
            Role::Title => {
                s.flush_block();
                s.end_title();
                s.title.inside = false;
            }
        }
        Ok(())
    }))
}

/// For an element this stage ignores: its end tag (or an enclosing one) only takes it off the
/// count of open elements.
fn count_end_tag(state: &Rc<RefCell<State>>, el: &mut Element<'_, '_>) -> lol_html::HandlerResult {
    if !el.can_have_content() {
        return Ok(());
    }
    let end_state = Rc::clone(state);
    el.on_end_tag(Box::new(move |_end| {
        let mut s = end_state.borrow_mut();
        s.replay.open = s.replay.open.saturating_sub(1);
        s.run.at_element_edge = true;
        Ok(())
    }))
}

#[cfg(test)]
mod tests {
    use crate::block::SchemaTypes;
    use crate::html::tests::texts;

    #[test]
    fn a_custom_element_with_an_href_is_a_link() {
        let link_bytes = |html: &str| {
            let blocks = crate::html::blocks_from_str(html, &Default::default()).unwrap();
            blocks
                .iter()
                .map(|b| (b.link_bytes, b.text.len()))
                .collect::<Vec<_>>()
        };
        let menu = "<div><dropdown-item href=/a>Solid Guitars</dropdown-item> \
                    <dropdown-item href=/b>Bass</dropdown-item> and more</div>";
        assert_eq!(link_bytes(menu), [(18, 27)]);
        // Not a custom element's name, or no href: text.
        assert_eq!(
            link_bytes(&menu.replace("dropdown-item", "item")),
            [(0, 27)]
        );
        assert_eq!(
            link_bytes(&menu.replace(" href=/a", "").replace(" href=/b", "")),
            [(0, 27)]
        );
    }

    #[test]
    fn cuts_at_block_elements_and_br() {
        assert_eq!(
            texts("<div>One <b>bold</b> word<p>Two</p>three<br>four<hr>five</div>"),
            ["One bold word", "Two", "three", "four", "five"]
        );
    }

    #[test]
    fn drops_script_style_comments_and_title() {
        let html = "<html><head><title>T</title><style>p{}</style><script>var x='<p>no</p>';</script></head>\
                    <body><!-- hidden --><p>Kept</p><svg><title>Icon</title><text>vector</text></svg></body></html>";
        assert_eq!(texts(html), ["Kept"]);
    }

    #[test]
    fn an_svg_title_is_neither_the_page_title_nor_a_trap() {
        for svg in [
            "<svg><title/><path/></svg>",
            "<svg><title>Logo</title></svg>",
        ] {
            let html = format!("<p>Before</p>{svg}<p>After</p>");
            assert_eq!(texts(&html), ["Before", "After"], "{svg}");
            let mut parser = crate::html::BlockParser::new(Default::default());
            let mut blocks = Vec::new();
            parser.write(&html, &mut blocks).unwrap();
            let (result, page) = parser.end_page(&mut blocks);
            assert!(result.is_ok());
            assert_eq!(page.title, None, "{svg}");
        }
    }

    #[test]
    fn a_products_reviews_are_its_readers_comments() {
        let hints = |types: &str| {
            let html = format!(
                r#"<script type="application/ld+json">{{"@type": [{types}]}}</script>
                <div class="product-reviews"><p>Great</p></div><p class="reviewed">Text</p>"#
            );
            let blocks = crate::html::blocks_from_str(&html, &Default::default()).unwrap();
            blocks.iter().map(|b| b.hints.0).collect::<Vec<_>>()
        };
        let comments = crate::block::ContainerHints::COMMENTS;
        assert_eq!(hints(r#""Product", "Offer""#), [comments, comments]);
        // Not a product on sale, or an article about products: a review is its text.
        for types in [r#""Product""#, r#""Product", "Offer", "NewsArticle""#, r#""Offer""#] {
            assert_eq!(hints(types), [0, 0], "{types}");
        }
    }

    #[test]
    fn a_block_knows_its_story_and_whether_it_is_a_top_heading() {
        let html = "<h1>Site</h1><main><article><h1>One <b>story</b></h1><p>Text</p>\
            <section><h2>Part</h2></section></article><article><h1>Next</h1></article></main>";
        let blocks = crate::html::blocks_from_str(html, &Default::default()).unwrap();
        let got: Vec<(&str, Option<u32>, bool)> = blocks
            .iter()
            .map(|b| (b.text.as_str(), b.story, b.top_heading))
            .collect();
        let first = blocks[1].story.expect("in an <article>");
        let next = blocks[4].story.expect("in an <article>");
        assert_ne!(first, next);
        assert_eq!(
            got,
            [
                ("Site", None, true),
                ("One story", Some(first), true),
                ("Text", Some(first), false),
                ("Part", Some(first), false),
                ("Next", Some(next), true),
            ]
        );
    }

    #[test]
    fn text_only_screen_readers_read_is_dropped_unless_asked_for() {
        let blocks = |html: &str, as_seen: bool| {
            let settings = crate::html::HtmlSettings {
                as_seen,
                ..Default::default()
            };
            let blocks = crate::html::blocks_from_str(html, &settings).unwrap();
            blocks.into_iter().map(|b| b.text).collect::<Vec<_>>()
        };
        let cases: [(&str, &[&str]); 7] = [
            (
                r#"<p>Tesla used <a href="/x">cells<span class="go-vh">(opens in a new window)</span></a> then.</p>"#,
                &["Tesla used cells then."],
            ),
            (
                r#"<h2 class="screen-reader-text">Post navigation</h2><p>Next <span class="sr-only">post:</span></p>"#,
                &["Next"],
            ),
            // Nested, and another after the first ends.
            (
                r#"<p>A<span class="sr-only">b<span class="visually-hidden">c</span>d</span>e<span class="sr-only">f</span>g</p>"#,
                &["Aeg"],
            ),
            // Closed with the block around it (no end tag reported): the next block is read.
            (
                r#"<div><p>One<span class="sr-only">hidden</div><p>Two</p>"#,
                &["One", "Two"],
            ),
            // A condition, a field whose label is hidden, a height: shown.
            (
                r#"<p class="md:sr-only">A</p><div class="field--label-visually_hidden"><p>B</p></div><p class="min-vh-100 h-100vh">C</p>"#,
                &["A", "B", "C"],
            ),
            (r#"<p class="⚙vh">D</p><p class="vh⚙">E</p>"#, &["E"]),
            // The class as lol_html reads it, whatever the source's spelling.
            (
                r#"<p>A<span CLASS = "sr-only">b</span><i title="x class=y" class='sr-only'>c</i><b/class=sr-only>d</b><b id="x"class="sr-only">e</b></p>"#,
                &["A"],
            ),
        ];
        for (html, want) in cases {
            assert_eq!(blocks(html, true), want, "{html}");
        }
        assert_eq!(
            blocks(cases[1].0, false),
            ["Post navigation", "Next post:"]
        );
    }

    #[test]
    fn the_first_byline_naming_someone_is_read_when_asked_for() {
        let byline = |html: &str, read_byline: bool| {
            let settings = crate::html::HtmlSettings {
                read_byline,
                ..Default::default()
            };
            let mut parser = crate::html::BlockParser::new(settings);
            let mut blocks = Vec::new();
            parser.write(html, &mut blocks).unwrap();
            parser.end_page(&mut blocks).1.byline
        };
        let cases = [
            (r#"<p>Von <span class="authorname">Eva Kirchner-R&auml;tsch </span></p>"#, Some("Eva Kirchner-Rätsch")),
            (r#"<p>by <a href="/u/1" rel="author">Ann Lee</a> | 3 May</p>"#, Some("Ann Lee")),
            (r#"<div class="c-byline__author">By Ann Lee and Bo Chen</div>"#, Some("By Ann Lee and Bo Chen")),
            (r#"<span itemprop="author"><span itemprop="name">Ann Lee</span></span>"#, Some("Ann Lee")),
            // The first that names no one, a box, a menu's or a comment's author are passed by.
            (r#"<span class="author">amw</span><p class="byline">By Ann Lee</p>"#, Some("By Ann Lee")),
            (r#"<div class="author-bio">Ann Lee</div><nav><a class="author">Bo Chen</a></nav>"#, None),
            (r#"<div class="comment-author">Bo Chen</div>"#, None),
            (r#"<div id="comments"><p class="author">Bo Chen</p></div>"#, None),
            (r#"<script class="byline">Bo Chen</script><p>Ann Lee</p>"#, None),
        ];
        for (html, want) in cases {
            assert_eq!(byline(html, true).as_deref(), want, "{html}");
            assert_eq!(byline(html, false), None, "{html}");
        }
    }

    #[test]
    fn a_page_declares_its_kind_in_json_ld_microdata_and_open_graph() {
        let html = r#"<html><head><meta property="og:type" content="website">
            <meta property="og:url" content="https://example.org/t/thread/1">
            <script type="application/ld+json">{"@type": ["QAPage"]}</script>
            <script>var x = {"@type": "Product"};</script></head>
            <body><div itemscope itemtype="https://schema.org/Comment"><p>Post</p></div>
            <svg><script type="application/ld+json">{"@type": "Offer"}</script></svg>
            <noscript><article itemtype="http://schema.org/NewsArticle"><p>A</p></article></noscript>
            </body></html>"#;
        let mut parser = crate::html::BlockParser::new(Default::default());
        let mut blocks = Vec::new();
        parser.write(html, &mut blocks).unwrap();
        let (result, page) = parser.end_page(&mut blocks);
        assert!(result.is_ok());
        assert_eq!(page.og_type.as_deref(), Some("website"));
        assert_eq!(page.url(), Some("https://example.org/t/thread/1"));
        // Only a JSON-LD script counts, and none inside a skipped element; the microdata of a
        // `<noscript>` counts.
        assert_eq!(
            page.schema.0,
            SchemaTypes::FORUM | SchemaTypes::COMMENT | SchemaTypes::ARTICLE
        );
    }

    #[test]
    fn ruby_annotations_are_not_read_into_the_base_text() {
        assert_eq!(
            texts("<p><ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp>字<rt>ji</rt></ruby>を読む</p>"),
            ["漢字を読む"]
        );
        // An annotation left open ends with its block.
        assert_eq!(
            texts("<p><ruby>漢<rt>kan</ruby></p><p>next</p>"),
            ["漢", "next"]
        );
    }

    #[test]
    fn cleaneval_wrapper_is_transparent() {
        let html = "<text id=\"http://x.org/\" title=\"Page\" encoding=\"utf-8\">\n<html><body><p>Body text.</p></body></html>\n</text>";
        assert_eq!(texts(html), ["Body text."]);
    }
}
