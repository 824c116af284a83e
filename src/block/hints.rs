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
    /// `aria-modal="true"`), a `<dialog>` without `open`, or an ARIA `alert` (the message a
    /// form or a script shows when something happens: "We couldn't find that order"), or
    /// styled `display: none !important` (which no script or style sheet overrides: data
    /// for search engines, such as a reviews widget's "bvseo_sdk, dw_cartridge…"). Never
    /// main content: the combined method drops it (a cookie notice, a privacy policy or a
    /// sign-up form shown on demand, an error message waiting for its error).
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
    /// ASCII letter or digit and at camelCase humps) is matched by its beginning, ignoring case,
    /// against [`name_prefixes`].
    pub fn of_names(value: &str) -> u8 {
        let mut bits = 0;
        for word in name_words(value) {
            for &(prefix, bit) in name_prefixes(word[0].to_ascii_lowercase()) {
                if starts_with_ignoring_case(word, prefix) {
                    bits |= bit;
                }
            }
        }
        bits
    }

    /// Whether a word of a `class` or `id` value (split as [`ContainerHints::of_names`] splits
    /// them) begins with `prefix`, ignoring case.
    pub fn names_word_starting(value: &str, prefix: &str) -> bool {
        name_words(value).any(|word| starts_with_ignoring_case(word, prefix))
    }

    /// The bits suggested by an ARIA `role` value: `navigation`, `menu`, `menubar`, `banner`,
    /// `contentinfo`, `complementary`, `main`, `article`, `dialog`, `alertdialog`, `alert`.
    pub fn of_role(value: &str) -> u8 {
        value.split_ascii_whitespace().fold(0, |bits, role| {
            bits | match role.to_ascii_lowercase().as_str() {
                "navigation" | "menu" | "menubar" => ContainerHints::NAVIGATION,
                "banner" | "contentinfo" | "complementary" => ContainerHints::PERIPHERY,
                "main" | "article" => ContainerHints::CONTENT,
                "dialog" | "alertdialog" | "alert" => ContainerHints::HIDDEN,
                _ => 0,
            }
        })
    }

    /// Whether any of `bits` is set.
    pub fn has(self, bits: u8) -> bool {
        self.0 & bits != 0
    }
}

/// The words of a `class` or `id` value, none empty: split at anything not an ASCII letter or
/// digit and at camelCase humps.
fn name_words(value: &str) -> impl Iterator<Item = &[u8]> {
    let bytes = value.as_bytes();
    let mut start = 0;
    (0..=bytes.len()).filter_map(move |i| {
        // A word ends before a non-alphanumeric byte, at the end, or at a camelCase hump.
        let ends = i == bytes.len()
            || !bytes[i].is_ascii_alphanumeric()
            || (i > start && bytes[i].is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase());
        if !ends {
            return None;
        }
        let word = &bytes[start..i];
        start = if i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
            i
        } else {
            i + 1
        };
        (!word.is_empty()).then_some(word)
    })
}

fn starts_with_ignoring_case(word: &[u8], prefix: &str) -> bool {
    word.len() >= prefix.len() && word[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// The beginnings of `class` and `id` words that suggest what a container holds, and what each
/// suggests, by the word's first letter (lowercase): the class of an element styled by a
/// utility CSS framework holds dozens of words, most beginning with a letter no prefix does.
fn name_prefixes(first: u8) -> &'static [(&'static str, u8)] {
    use ContainerHints as H;
    match first {
        b'a' => &[("article", H::CONTENT)],
        b'b' => &[("breadcrumb", H::NAVIGATION), ("banner", H::PERIPHERY)],
        b'c' => &[("content", H::CONTENT), ("comment", H::COMMENTS)],
        b'd' => &[("disqus", H::COMMENTS), ("discuss", H::COMMENTS)],
        b'e' => &[("entry", H::CONTENT)],
        b'f' => &[("footer", H::PERIPHERY)],
        b'm' => &[("menu", H::NAVIGATION), ("main", H::CONTENT)],
        b'n' => &[("nav", H::NAVIGATION)],
        b'p' => &[("promo", H::PERIPHERY), ("post", H::CONTENT)],
        b'r' => &[
            ("related", H::PERIPHERY),
            ("reply", H::COMMENTS),
            ("replies", H::COMMENTS),
            ("respond", H::COMMENTS),
        ],
        b's' => &[
            ("side", H::PERIPHERY),
            ("sponsor", H::PERIPHERY),
            ("share", H::PERIPHERY),
            ("social", H::PERIPHERY),
            ("story", H::CONTENT),
        ],
        b't' => &[
            ("toolbar", H::NAVIGATION),
            ("topbar", H::NAVIGATION),
            ("talkback", H::COMMENTS),
        ],
        b'w' => &[("widget", H::PERIPHERY)],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::ContainerHints as H;

    #[test]
    fn aria_roles_name_landmarks_and_what_is_not_shown() {
        assert_eq!(H::of_role("navigation"), H::NAVIGATION);
        assert_eq!(H::of_role("Main"), H::CONTENT);
        assert_eq!(H::of_role("alert"), H::HIDDEN);
        assert_eq!(H::of_role("presentation dialog"), H::HIDDEN);
        assert_eq!(H::of_role("status"), 0);
    }

    #[test]
    fn class_and_id_words_are_matched_by_their_beginnings() {
        let cases = [
            ("mainNav", H::CONTENT | H::NAVIGATION),
            ("Sidebar-Widget", H::PERIPHERY),
            ("commentList reply2", H::COMMENTS),
            ("REPLIES", H::COMMENTS),
            ("post_content story", H::CONTENT),
            ("site-footer social-share", H::PERIPHERY),
            ("topbar breadcrumbs", H::NAVIGATION),
            ("flex items-center px-4 xnav", 0),
            ("", 0),
            ("  --  ", 0),
        ];
        for (value, bits) in cases {
            assert_eq!(H::of_names(value), bits, "{value:?}");
        }
    }
}
