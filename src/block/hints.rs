//! What the elements around a block suggest: [`ContainerHints`], set by the HTML stage.

/// Bits saying what the elements around a block suggest, from their tag names (`nav`,
/// `footer`, `aside`, `article`, `main`) and words in their `class` and `id` attributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContainerHints(pub u8);

impl ContainerHints {
    /// Navigation: `nav`, or a class/id word starting with nav, menu, breadcrumb, toolbar, topbar.
    pub const NAVIGATION: u8 = 1;
    /// Page periphery: `footer`, `aside`, or footer, sidebar, side, widget, banner, sponsor, promo, share, social, related.
    pub const PERIPHERY: u8 = 2;
    /// Main content: `article`, `main`, or article, content, post, story, entry, main, body, text.
    pub const CONTENT: u8 = 4;
    /// Discussion: comment, disqus, reply, replies, respond, discuss, talkback.
    pub const COMMENTS: u8 = 8;
    /// The page `<title>`, a block only with `--title`: always kept, as asked.
    pub const TITLE: u8 = 16;
    /// Not shown when the page opens: a modal dialog (ARIA `dialog` or `alertdialog`,
    /// `aria-modal="true"`) or a `<dialog>` without `open`. Never main content: the combined
    /// method drops it (a cookie notice, a privacy policy or a sign-up form shown on demand).
    pub const HIDDEN: u8 = 32;
    /// Hidden until the reader opens it: the `hidden` attribute, `aria-hidden="true"`, or
    /// `display: none` / `visibility: hidden` in the `style` attribute. A tab, an accordion or a
    /// "read more" as often as a pop-up, so only evidence ([`crate::block::Evidence::in_collapsed`]).
    pub const COLLAPSED: u8 = 64;
    /// Set apart from the page's text: an image's caption (`<figcaption>`: what the picture
    /// shows, who took it) or an `<aside>` (HTML's "tangentially related" content: a box of
    /// links, a pull quote, an author's box). The combined method drops it: the gold sets here
    /// keep neither.
    pub const ASIDE: u8 = 128;

    /// The bits suggested by a `class` or `id` value: each word (split at anything not an
    /// ASCII letter or digit and at camelCase humps) is matched by its beginning, ignoring case.
    pub fn of_names(value: &str) -> u8 {
        const PREFIXES: [(&str, u8); 27] = [
            ("nav", ContainerHints::NAVIGATION),
            ("menu", ContainerHints::NAVIGATION),
            ("breadcrumb", ContainerHints::NAVIGATION),
            ("toolbar", ContainerHints::NAVIGATION),
            ("topbar", ContainerHints::NAVIGATION),
            ("footer", ContainerHints::PERIPHERY),
            ("side", ContainerHints::PERIPHERY),
            ("widget", ContainerHints::PERIPHERY),
            ("banner", ContainerHints::PERIPHERY),
            ("sponsor", ContainerHints::PERIPHERY),
            ("promo", ContainerHints::PERIPHERY),
            ("share", ContainerHints::PERIPHERY),
            ("social", ContainerHints::PERIPHERY),
            ("related", ContainerHints::PERIPHERY),
            ("article", ContainerHints::CONTENT),
            ("content", ContainerHints::CONTENT),
            ("post", ContainerHints::CONTENT),
            ("story", ContainerHints::CONTENT),
            ("entry", ContainerHints::CONTENT),
            ("main", ContainerHints::CONTENT),
            ("comment", ContainerHints::COMMENTS),
            ("disqus", ContainerHints::COMMENTS),
            ("reply", ContainerHints::COMMENTS),
            ("replies", ContainerHints::COMMENTS),
            ("respond", ContainerHints::COMMENTS),
            ("discuss", ContainerHints::COMMENTS),
            ("talkback", ContainerHints::COMMENTS),
        ];
        let mut bits = 0;
        let bytes = value.as_bytes();
        let mut start = 0;
        for i in 0..=bytes.len() {
            // A word ends before a non-alphanumeric byte, at the end, or at a camelCase hump.
            let ends = i == bytes.len()
                || !bytes[i].is_ascii_alphanumeric()
                || (i > start
                    && bytes[i].is_ascii_uppercase()
                    && bytes[i - 1].is_ascii_lowercase());
            if !ends {
                continue;
            }
            let word = &bytes[start..i];
            for (prefix, bit) in PREFIXES {
                if word.len() >= prefix.len()
                    && word[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
                {
                    bits |= bit;
                }
            }
            start = if i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i
            } else {
                i + 1
            };
        }
        bits
    }

    /// The bits suggested by an ARIA `role` value: `navigation`, `menu`, `menubar`, `banner`,
    /// `contentinfo`, `complementary`, `main`, `article`, `dialog`, `alertdialog`.
    pub fn of_role(value: &str) -> u8 {
        value.split_ascii_whitespace().fold(0, |bits, role| {
            bits | match role.to_ascii_lowercase().as_str() {
                "navigation" | "menu" | "menubar" => ContainerHints::NAVIGATION,
                "banner" | "contentinfo" | "complementary" => ContainerHints::PERIPHERY,
                "main" | "article" => ContainerHints::CONTENT,
                "dialog" | "alertdialog" => ContainerHints::HIDDEN,
                _ => 0,
            }
        })
    }

    /// Whether any of `bits` is set.
    pub fn has(self, bits: u8) -> bool {
        self.0 & bits != 0
    }
}
