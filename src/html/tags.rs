//! The tags this stage reacts to: the tag table ([`TAGS`], what each tag does to the text
//! stream), the lookups of a tag name in it, and what an element's tag and attributes suggest
//! about the text inside it ([`BlockAttributes`]).

use std::sync::OnceLock;

use lol_html::html_content::Element;

use crate::block::{ContainerHints, MarkKind};

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
    /// `<link>`, `<meta>`, a CleanEval `<text>` wrapper: what the page says about itself (its
    /// canonical URL, author, date...); transparent to the text.
    Page,
    /// Inline code, a subscript or a superscript: its text is marked ([`Tag::mark`]).
    Mark,
    /// A MathML `<annotation>`: a formula's TeX, when its encoding says so.
    TeX,
}

/// How the HTML tokenizer reads an element's content (the specification's content models, as
/// lol_html follows them): as markup, or as text up to the element's end tag, or as text to
/// the end. The stream splitter ([`crate::source::pages`]) follows the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextModel {
    /// Markup: tags, comments and text.
    Markup,
    /// Raw text or RCDATA, up to the end tag of the element named (in lower case).
    Raw(&'static str),
    /// `<plaintext>`: text to the end of the page.
    Plaintext,
}

/// The elements whose content is raw text (`script`, `style`, …) or RCDATA (`title`,
/// `textarea`). `noscript` is raw text as a browser that runs scripts reads it, as lol_html
/// does.
const RAW_TEXT: [&str; 9] = [
    "script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "title", "textarea",
];

impl TextModel {
    /// The content model of the HTML element named `name` (in any case).
    pub fn of(name: &[u8]) -> TextModel {
        if name.eq_ignore_ascii_case(b"plaintext") {
            return TextModel::Plaintext;
        }
        RAW_TEXT
            .into_iter()
            .find(|raw| name.eq_ignore_ascii_case(raw.as_bytes()))
            .map_or(TextModel::Markup, TextModel::Raw)
    }
}

/// Declares [`Tag`], one variant a tag, and [`TAGS`], each tag's name and role by its number.
macro_rules! tags {
    ($($tag:ident = $name:literal => $role:ident,)*) => {
        /// A tag this stage reacts to (all others are inline and transparent); the stack of open
        /// elements holds these, not names.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub(super) enum Tag {
            $(
                #[doc = concat!("`<", $name, ">`")]
                $tag,
            )*
        }

        impl Tag {
            /// Every tag, in the order of [`TAGS`].
            pub(super) const ALL: &[Tag] = &[$(Tag::$tag,)*];
        }

        /// Every tag's name and what it does to the text stream, by [`Tag`] number.
        pub(super) const TAGS: &[(&str, Role)] = &[$(($name, Role::$role),)*];
    };
}

tags! {
    P = "p" => Block,
    Div = "div" => Block,
    Li = "li" => Block,
    Ul = "ul" => Block,
    Ol = "ol" => Block,
    Dl = "dl" => Block,
    Dt = "dt" => Block,
    Dd = "dd" => Block,
    H1 = "h1" => Block,
    H2 = "h2" => Block,
    H3 = "h3" => Block,
    H4 = "h4" => Block,
    H5 = "h5" => Block,
    H6 = "h6" => Block,
    Table = "table" => Block,
    Caption = "caption" => Block,
    Thead = "thead" => Block,
    Tbody = "tbody" => Block,
    Tfoot = "tfoot" => Block,
    Tr = "tr" => Block,
    Td = "td" => Block,
    Th = "th" => Block,
    Pre = "pre" => Block,
    Blockquote = "blockquote" => Block,
    Section = "section" => Block,
    Article = "article" => Block,
    Header = "header" => Block,
    Footer = "footer" => Block,
    Nav = "nav" => Block,
    Aside = "aside" => Block,
    Main = "main" => Block,
    Form = "form" => Block,
    Fieldset = "fieldset" => Block,
    Legend = "legend" => Block,
    Label = "label" => Block,
    Address = "address" => Block,
    Center = "center" => Block,
    Figure = "figure" => Block,
    Figcaption = "figcaption" => Block,
    Details = "details" => Block,
    Summary = "summary" => Block,
    Dialog = "dialog" => Block,
    Menu = "menu" => Block,
    Dir = "dir" => Block,
    Hgroup = "hgroup" => Block,
    Body = "body" => Block,
    Html = "html" => Block,
    Frameset = "frameset" => Block,
    Option = "option" => Block,
    Br = "br" => Break,
    Hr = "hr" => Break,
    Script = "script" => Skip,
    Style = "style" => Skip,
    Noscript = "noscript" => NoScript,
    Rt = "rt" => Annotation,
    Rp = "rp" => Annotation,
    Template = "template" => Skip,
    Svg = "svg" => Skip,
    ForeignObject = "foreignobject" => Block,
    Math = "math" => Skip,
    Select = "select" => Skip,
    Iframe = "iframe" => Skip,
    Object = "object" => Skip,
    Applet = "applet" => Skip,
    Audio = "audio" => Skip,
    Video = "video" => Skip,
    Canvas = "canvas" => Skip,
    Datalist = "datalist" => Skip,
    Textarea = "textarea" => Skip,
    Noframes = "noframes" => Skip,
    A = "a" => Link,
    Title = "title" => Title,
    HeadLink = "link" => Page,
    Meta = "meta" => Page,
    Text = "text" => Page,
    Time = "time" => Page,
    Code = "code" => Mark,
    Kbd = "kbd" => Mark,
    Samp = "samp" => Mark,
    Tt = "tt" => Mark,
    Sub = "sub" => Mark,
    Sup = "sup" => Mark,
    MathAnnotation = "annotation" => TeX,
    Img = "img" => Page,
}

impl Tag {
    /// The tag's (lower-case) name.
    pub(super) fn name(self) -> &'static str {
        TAGS[self as usize].0
    }

    /// What the tag does to the text stream.
    pub(super) fn role(self) -> Role {
        TAGS[self as usize].1
    }

    /// What the text of a [`Role::Mark`] element is.
    pub(super) fn mark(self) -> MarkKind {
        match self {
            Tag::Sub => MarkKind::Sub,
            Tag::Sup => MarkKind::Sup,
            _ => MarkKind::Code,
        }
    }

    /// `<h1>` to `<h6>`.
    pub(super) fn is_heading(self) -> bool {
        matches!(
            self,
            Tag::H1 | Tag::H2 | Tag::H3 | Tag::H4 | Tag::H5 | Tag::H6
        )
    }
}

/// The [`Tag`] of a (lower-case) tag name, if this stage reacts to it.
pub(super) fn tag_id(name: &str) -> Option<Tag> {
    static SORTED: OnceLock<Vec<(&'static str, Tag)>> = OnceLock::new();
    let sorted = SORTED.get_or_init(|| {
        let mut names: Vec<(&'static str, Tag)> =
            Tag::ALL.iter().map(|&tag| (tag.name(), tag)).collect();
        names.sort_unstable_by_key(|&(name, _)| name);
        names
    });
    sorted
        .binary_search_by(|&(n, _)| n.cmp(name))
        .ok()
        .map(|i| sorted[i].1)
}

/// [`tag_id`] of an ASCII name in any case, without allocating: names of up to 16 bytes are
/// packed into a `u128` key (longer ones are not in [`TAGS`]).
pub(super) fn tag_id_ascii(name: &[u8]) -> Option<Tag> {
    fn key(name: &[u8]) -> Option<u128> {
        let mut buf = [0u8; 16];
        buf.get_mut(..name.len())?.copy_from_slice(name);
        buf.make_ascii_lowercase();
        Some(u128::from_le_bytes(buf))
    }
    static SORTED: OnceLock<Vec<(u128, Tag)>> = OnceLock::new();
    let sorted = SORTED.get_or_init(|| {
        let mut keys: Vec<(u128, Tag)> = Tag::ALL
            .iter()
            .map(|&tag| {
                (
                    key(tag.name().as_bytes()).expect("tag names are short"),
                    tag,
                )
            })
            .collect();
        keys.sort_unstable_by_key(|&(key, _)| key);
        keys
    });
    let key = key(name)?;
    sorted
        .binary_search_by(|&(k, _)| k.cmp(&key))
        .ok()
        .map(|i| sorted[i].1)
}

/// Parts of a class name (between `-`, `_` and the like) that name a byline or an author.
const BYLINE_PARTS: [&str; 8] = [
    "byline", "byl", "author", "authors", "authorname", "autor", "autoren", "auteur",
];

/// Parts of a class name that make an author's class something else: the author's box,
/// picture, biography or title, a list of authors, a comment's author.
const NOT_BYLINE_PARTS: [&str; 17] = [
    "bio", "box", "avatar", "image", "img", "photo", "pic", "about", "description", "desc",
    "title", "social", "follow", "more", "list", "comment", "reply",
];

/// Whether an element that can have content is marked as a byline or its author: `rel` or
/// `itemprop` `author`, or a class name with a part naming a byline or an author
/// ([`BYLINE_PARTS`]: `byline`, `author-name`, `c-byline__author`) and none that makes it
/// something else ([`NOT_BYLINE_PARTS`]: `author-bio`, `comment-author`).
pub(super) fn is_byline(el: &Element<'_, '_>) -> bool {
    let has_word = |name: &str, word: &str| {
        el.get_attribute(name)
            .is_some_and(|v| v.split_ascii_whitespace().any(|w| w.eq_ignore_ascii_case(word)))
    };
    if has_word("rel", "author") || has_word("itemprop", "author") {
        return true;
    }
    el.get_attribute("class").is_some_and(|class| {
        class.split_ascii_whitespace().any(|name| {
            let name = name.to_ascii_lowercase();
            let parts: Vec<&str> = name
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|p| !p.is_empty())
                .collect();
            parts.iter().any(|p| BYLINE_PARTS.contains(p))
                && !parts.iter().any(|p| NOT_BYLINE_PARTS.contains(p))
        })
    })
}

/// Whether a `class` value marks text that only screen readers read: a name such as `sr-only`,
/// `visually-hidden`, `screen-reader-text`, `u-hiddenVisually`, `element-invisible`,
/// `show-for-sr` or `vh` (in any case and with any separators, with a site's prefix or suffix:
/// `usa-sr-only`, `go-vh`, `visually-hidden-focusable`). The conventional CSS puts such an
/// element out of sight ("(opens in a new window)", "Skip to content", a form's labels). Not
/// such a name: one with a condition (`md:sr-only`, `sr-only-mobile`), its opposite
/// (`not-sr-only`), or Drupal's `field--label-visually_hidden` (a field whose label is hidden).
pub(super) fn is_screen_reader_text(class: &[u8]) -> bool {
    const MARKS: &[&[u8]] = &[
        b"sronly",
        b"visuallyhidden",
        b"hiddenvisually",
        b"screenreader",
        b"elementinvisible",
        b"showforsr",
    ];
    // A quick look first (each part found by memchr's SIMD search): most classes hold none of
    // `nly`, `ally`, `eader`, `isible`, `how`, `vh` (`srOnly`, `visually`, `reader`,
    // `invisible`, `show-for-sr`, `go-vh`).
    static PARTS: OnceLock<Vec<memchr::memmem::Finder<'static>>> = OnceLock::new();
    let parts = PARTS.get_or_init(|| {
        [&b"nly"[..], b"ally", b"eader", b"isible", b"how", b"vh"]
            .into_iter()
            .map(memchr::memmem::Finder::new)
            .collect()
    });
    let may_be = parts.iter().any(|part| part.find(class).is_some());
    if !may_be {
        return false;
    }
    let contains = |letters: &[u8], part: &[u8]| memchr::memmem::find(letters, part).is_some();
    class.split(u8::is_ascii_whitespace).any(|name| {
        // A name's letters and digits, lowercase, up to a bound no such name reaches.
        let mut letters = [0u8; 48];
        let mut len = 0;
        for &b in name.iter().filter(|b| b.is_ascii_alphanumeric()) {
            if len == letters.len() {
                break;
            }
            letters[len] = b.to_ascii_lowercase();
            len += 1;
        }
        let letters = &letters[..len];
        let vh = name.len() >= 2
            && name[name.len() - 2..].eq_ignore_ascii_case(b"vh")
            && !name[..name.len() - 2]
                .last()
                .is_some_and(u8::is_ascii_alphanumeric);
        let conditional = name.contains(&b':')
            || letters.starts_with(b"not")
            || letters.ends_with(b"mobile")
            || contains(letters, b"fieldlabel");
        !conditional && (vh || MARKS.iter().any(|mark| contains(letters, mark)))
    })
}

/// The attributes of a block element that say something about its text, read in one pass
/// over the element's attributes (looking each name up would scan them, and allocate, once a
/// name). As in lol_html's `get_attribute`, the first of two attributes of one name counts.
#[derive(Default)]
pub(super) struct BlockAttributes {
    class: Option<String>,
    id: Option<String>,
    role: Option<String>,
    style: Option<String>,
    itemprop: Option<String>,
    /// schema.org types (`itemtype`): what the element holds.
    pub(super) itemtype: Option<String>,
    aria_modal: Option<String>,
    aria_hidden: Option<String>,
    hidden: bool,
    open: bool,
    /// `<ol start>`, `<td colspan>`, `<td rowspan>`, `data-lang`: what a list, a cell or a
    /// code block opens.
    start: Option<String>,
    colspan: Option<String>,
    rowspan: Option<String>,
    data_lang: Option<String>,
}

/// What a start tag says of the structure it opens: an `<ol>`'s `start`, a cell's `colspan`,
/// a code block's language.
#[derive(Clone, Debug, Default)]
pub(super) struct Opening {
    /// `<ol start>`.
    pub(super) start: Option<u32>,
    /// `<td colspan>`, `<th colspan>`.
    pub(super) span: Option<u32>,
    /// `<td rowspan>`, `<th rowspan>`.
    pub(super) rows: Option<u32>,
    /// The language a `<pre>`'s classes name.
    pub(super) language: Option<String>,
}

impl BlockAttributes {
    /// Reads the attributes of `el`.
    pub(super) fn of(el: &Element<'_, '_>) -> BlockAttributes {
        let mut found = BlockAttributes::default();
        for attribute in el.attributes() {
            let slot = match attribute.name().as_str() {
                "class" => &mut found.class,
                "id" => &mut found.id,
                "role" => &mut found.role,
                "style" => &mut found.style,
                "itemprop" => &mut found.itemprop,
                "itemtype" => &mut found.itemtype,
                "aria-modal" => &mut found.aria_modal,
                "aria-hidden" => &mut found.aria_hidden,
                "start" => &mut found.start,
                "colspan" => &mut found.colspan,
                "rowspan" => &mut found.rowspan,
                "data-lang" | "data-language" => &mut found.data_lang,
                "hidden" => {
                    found.hidden = true;
                    continue;
                }
                "open" => {
                    found.open = true;
                    continue;
                }
                _ => continue,
            };
            if slot.is_none() {
                *slot = Some(attribute.value());
            }
        }
        found
    }

    /// What these attributes say of the structure `tag` opens: a list's first number, a cell's
    /// columns and rows, a code block's language.
    pub(super) fn opening(&self, tag: Tag) -> Opening {
        let number = |value: &Option<String>| value.as_deref().and_then(|v| v.trim().parse().ok());
        Opening {
            start: (tag == Tag::Ol).then(|| number(&self.start)).flatten(),
            span: matches!(tag, Tag::Td | Tag::Th)
                .then(|| number(&self.colspan))
                .flatten(),
            rows: matches!(tag, Tag::Td | Tag::Th)
                .then(|| number(&self.rowspan))
                .flatten(),
            // GitHub names a code block's language on the `<div>` around its `<pre>`.
            language: matches!(tag, Tag::Pre | Tag::Div)
                .then(|| code_language(self.class.as_deref(), self.data_lang.as_deref()))
                .flatten(),
        }
    }

    /// What the element's tag name and these attributes suggest about the text inside it, on
    /// a page that has declared a `product` before it or not.
    pub(super) fn container_hints(&self, tag: Tag, product: bool) -> u8 {
        let mut hints = match tag {
            Tag::Nav => ContainerHints::NAVIGATION,
            Tag::Footer => ContainerHints::PERIPHERY,
            Tag::Aside => ContainerHints::PERIPHERY | ContainerHints::ASIDE,
            Tag::Article | Tag::Main => ContainerHints::CONTENT,
            Tag::Figcaption => ContainerHints::ASIDE,
            Tag::Dialog if !self.open => ContainerHints::HIDDEN,
            _ => 0,
        };
        let mut names = 0;
        for value in [&self.class, &self.id].into_iter().flatten() {
            names |= ContainerHints::of_names(value);
            // A product's reviews are its readers' comments (an article's "review" is its text).
            if product && ContainerHints::names_word_starting(value, "review") {
                names |= ContainerHints::COMMENTS;
            }
        }
        // A comment word on the page itself or on an article or main element names the page's
        // state (`has-comments`, `comments-open`, `not-showing-comments`), not a thread: the
        // article or the whole page would be taken for readers' comments. A thread is an
        // element of its own, inside them (a comment that is an `<article>` sits in one).
        if matches!(tag, Tag::Html | Tag::Body | Tag::Article | Tag::Main) {
            names &= !ContainerHints::COMMENTS;
        }
        hints |= names;
        // ARIA landmarks and schema.org's article body say the same in a standard way.
        if let Some(role) = &self.role {
            hints |= ContainerHints::of_role(role);
        }
        let is_true = |value: &Option<String>| {
            value
                .as_deref()
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        };
        if is_true(&self.aria_modal) {
            hints |= ContainerHints::HIDDEN;
        }
        let style = self.style.as_deref().map_or(StyleHides::No, StyleHides::of);
        if self.hidden || is_true(&self.aria_hidden) || style != StyleHides::No {
            hints |= ContainerHints::COLLAPSED;
        }
        if style == StyleHides::ForGood {
            hints |= ContainerHints::HIDDEN;
        }
        if self.itemprop.as_deref().is_some_and(|v| {
            v.split_ascii_whitespace()
                .any(|w| w.eq_ignore_ascii_case("articleBody"))
        }) {
            hints |= ContainerHints::CONTENT;
        }
        hints
    }
}

/// Whether a `style` attribute hides its element, in any case and spacing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum StyleHides {
    /// It does not.
    No,
    /// Until a script shows it: `display: none` or `visibility: hidden`.
    UntilShown,
    /// Whatever a script or a style sheet says: `display: none !important`.
    ForGood,
}

impl StyleHides {
    /// How `style`, the attribute's value, hides its element: the most any declaration does.
    fn of(style: &str) -> StyleHides {
        declarations(style)
            .map(|(property, value, important)| {
                let is = |p: &str, v: &str| {
                    property.eq_ignore_ascii_case(p) && value.eq_ignore_ascii_case(v)
                };
                match is("display", "none") {
                    true if important => StyleHides::ForGood,
                    true => StyleHides::UntilShown,
                    false if is("visibility", "hidden") => StyleHides::UntilShown,
                    false => StyleHides::No,
                }
            })
            .max()
            .unwrap_or(StyleHides::No)
    }
}

/// The declarations of a `style` attribute: property and value, trimmed, and whether it is
/// `!important` (in any case and spacing).
fn declarations(style: &str) -> impl Iterator<Item = (&str, &str, bool)> {
    style.split(';').filter_map(|declaration| {
        let (property, value) = declaration.split_once(':')?;
        let value = value.trim();
        Some(match value.rsplit_once('!') {
            Some((rest, flag)) if flag.trim_start().eq_ignore_ascii_case("important") => {
                (property.trim(), rest.trim_end(), true)
            }
            _ => (property.trim(), value, false),
        })
    })
}

/// The language a code block's `data-lang` or classes name (`language-rust`, `lang-py`,
/// GitHub's `highlight-source-js`, SyntaxHighlighter's `brush: ruby`), in lower case.
pub(super) fn code_language(class: Option<&str>, data_lang: Option<&str>) -> Option<String> {
    let named = |name: &str| {
        let name = name.trim().to_ascii_lowercase();
        let plain = !name.is_empty()
            && name.len() <= 32
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"+#-_.".contains(&b));
        plain.then_some(name)
    };
    if let Some(language) = data_lang.and_then(named) {
        return Some(language);
    }
    let class = class?;
    let mut words = class.split_ascii_whitespace();
    while let Some(word) = words.next() {
        if word.eq_ignore_ascii_case("brush:") {
            return words.next().and_then(|w| named(w.trim_end_matches(';')));
        }
        for prefix in ["language-", "lang-", "highlight-source-", "brush:"] {
            let Some(start) = word.get(..prefix.len()) else {
                continue;
            };
            if start.eq_ignore_ascii_case(prefix) {
                return named(word[prefix.len()..].trim_end_matches(';'));
            }
        }
    }
    None
}

/// Class names of what is not the text of a code block or a formula, but drawn beside it: line
/// numbers (Pygments, Chroma, Rouge, highlight.js, Prism, react-syntax-highlighter,
/// Expressive Code), the visual copies of a formula whose TeX is read (KaTeX's HTML, MathJax
/// 2's output and preview), and MediaWiki's `[edit]` links beside its headings.
pub(super) fn is_drawn_beside_text(class: &str) -> bool {
    const NAMES: [&str; 18] = [
        "mw-editsection",
        "lineno",
        "linenos",
        "linenodiv",
        "lnt",
        "ln",
        "gutter",
        "rouge-gutter",
        "hljs-ln-numbers",
        "hljs-ln-n",
        "line-numbers-rows",
        "linenumber",
        "react-syntax-highlighter-line-number",
        "katex-html",
        "MathJax",
        "MathJax_Display",
        "MathJax_Preview",
        "MathJax_CHTML",
    ];
    class
        .split_ascii_whitespace()
        .any(|name| NAMES.contains(&name))
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
        assert!(TAGS.len() < 256 && Tag::ALL.len() == TAGS.len());
        for (i, &tag) in Tag::ALL.iter().enumerate() {
            assert_eq!(tag as usize, i);
            assert_eq!(tag_id(tag.name()), Some(tag), "{tag:?}");
            let upper = tag.name().to_ascii_uppercase();
            assert_eq!(tag_id_ascii(upper.as_bytes()), Some(tag), "{tag:?}");
        }
        assert_eq!(tag_id("span"), None);
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
    fn hidden_attributes_and_styles_collapse_what_they_hold_and_important_hides_it() {
        let html = r#"<div hidden><p>Tab two</p></div><div aria-hidden="true"><p>Icon</p></div>
            <div style="color: red; DISPLAY : none !important"><p>More</p></div>
            <div style="display:none! IMPORTANT;"><p>Meta</p></div><div style="display:none"><p>Tab</p></div>
            <div style="visibility:hidden"><p>Later</p></div><div aria-hidden="false" style="display: block">
            <p>Shown</p></div><div style="display:nonesuch"><p>Odd</p></div>"#;
        let got = texts_and_hints(html);
        let collapsed = ContainerHints::COLLAPSED;
        let want = [
            ("Tab two", collapsed),
            ("Icon", collapsed),
            // `!important` hides it whatever a script does: never shown.
            ("More", collapsed | ContainerHints::HIDDEN),
            ("Meta", collapsed | ContainerHints::HIDDEN),
            ("Tab", collapsed),
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

    #[test]
    fn a_comment_word_on_the_page_or_its_article_is_no_thread() {
        let html = r#"<body class="single comments-open"><article class="post has-comments">
            <p>Story.</p><ol class="comment-list"><li><article class="comment">
            <p>Nice!</p></article></li></ol></article></body>"#;
        let got = texts_and_hints(html);
        let want = [
            ("Story.", ContainerHints::CONTENT),
            ("Nice!", ContainerHints::CONTENT | ContainerHints::COMMENTS),
        ];
        assert_eq!(got, want.map(|(t, h)| (t.to_string(), h)));
    }
}
