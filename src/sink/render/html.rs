//! Markup ([`Markup`]): the main content as clean, minimal elements, for those who render or
//! parse it again, in a vocabulary of tags ([`Vocabulary`]). HTML's ([`HtmlTags`]) is
//! `<h1>`–`<h6>`, `<p>`, nested `<ul>`/`<ol>` with their `<li>`, `<table>` with its header
//! row in `<thead>`, `<pre><code class="language-…">`, `<blockquote>`, inline `<code>`, `<sub>`,
//! `<sup>`, and formulas as TeX in `<span class="math inline">\(…\)</span>` (or `display`,
//! `\[…\]`), as pandoc writes them. Text is escaped; no attribute of the page is kept.

use std::borrow::Cow;
use std::marker::PhantomData;

use super::{kept_text, Style};
use crate::block::{Block, BlockKind, ContainerHints, MarkKind};

/// The tags a markup writes: each the opening and the closing of one kind of element.
pub(super) trait Vocabulary {
    /// Around each document's content, if anything.
    const DOCUMENT: Option<(&'static str, &'static str)> = None;
    /// A paragraph.
    const PARAGRAPH: (&'static str, &'static str);
    /// A blockquote.
    const QUOTE: (&'static str, &'static str);
    /// A list item.
    const ITEM: (&'static str, &'static str);
    /// A list's opening: ordered from `start` (`Some`), or not.
    fn list(start: Option<u32>) -> String;
    /// A list's closing.
    fn list_end(ordered: bool) -> &'static str;
    /// A heading of this level (1 to 6).
    fn heading(level: u8) -> (String, String);
    /// A code block, in the language named (empty: none).
    fn code(language: &str) -> (String, String);
    /// A data table's rows (the cells' text escaped already), the first its header.
    fn table(rows: &[Vec<String>], out: &mut String);
    /// Appends a marked span (its text not escaped yet).
    fn mark(out: &mut String, kind: MarkKind, inner: &str);
    /// `text` escaped.
    fn escape(text: &str) -> Cow<'_, str>;
    /// How blocks' text and marks are written in this vocabulary.
    const STYLE: Style = Style::Markup {
        escape: Self::escape,
        mark: Self::mark,
    };
}

/// The list, and the item open in it, of a level that was skipped ([`Markup::block`]).
const SKIPPED: u32 = u32::MAX;

/// What a markup knows of the blocks written before: the lists open, and whether the
/// document's element is.
#[derive(Debug)]
pub(super) struct Markup<V> {
    /// The lists open, outermost first: each list's element number, whether it is ordered, and
    /// its item open (0 for none yet).
    lists: Vec<(u32, bool, u32)>,
    /// The document's element ([`Vocabulary::DOCUMENT`]) is open.
    open: bool,
    vocabulary: PhantomData<V>,
}

impl<V> Default for Markup<V> {
    fn default() -> Self {
        Markup {
            lists: Vec::new(),
            open: false,
            vocabulary: PhantomData,
        }
    }
}

impl<V: Vocabulary> Markup<V> {
    /// Writes a block.
    pub(super) fn block(&mut self, block: &Block, out: &mut Vec<u8>) {
        let Some(text) = kept_text(block, V::STYLE) else {
            return;
        };
        self.start(out);
        let structure = &block.structure;
        let item = structure.list.filter(|_| block.kind != BlockKind::Heading);
        let mut html = String::new();
        match item {
            Some(list) => {
                let depth = usize::from(list.depth.max(1));
                // A list whose level was skipped is the list of the first item found at it.
                if let Some(skipped) = self.lists.get_mut(depth - 1).filter(|l| l.0 == SKIPPED) {
                    skipped.0 = list.list;
                }
                self.close_lists(depth, Some(list.list), out);
                while self.lists.len() < depth {
                    // The list of this item. A level skipped (its item's own text dropped) is
                    // an unordered list with an item open, so that every list is in an item.
                    let own = self.lists.len() + 1 == depth;
                    let start = list.number.filter(|_| own);
                    html.push_str(&V::list(start));
                    if !own {
                        html.push_str(V::ITEM.0);
                    }
                    match own {
                        true => self.lists.push((list.list, start.is_some(), 0)),
                        false => self.lists.push((SKIPPED, false, SKIPPED)),
                    }
                }
                let open = self.lists.last_mut().expect("a list");
                if open.2 != list.item {
                    if open.2 != 0 {
                        html.push_str(V::ITEM.1);
                        html.push('\n');
                    }
                    html.push_str(V::ITEM.0);
                    open.2 = list.item;
                } else {
                    html.push('\n');
                }
            }
            None => self.close_lists(0, None, out),
        }
        let quotes = usize::from(structure.quotes);
        html.push_str(&V::QUOTE.0.repeat(quotes));
        let (open, close) = match (&structure.code, block.kind) {
            (Some(code), BlockKind::Preformatted) => V::code(&code.language),
            _ if block.hints.has(ContainerHints::TITLE) => V::heading(1),
            (_, BlockKind::Heading) => V::heading(structure.heading.clamp(1, 6)),
            _ if item.is_some() => (String::new(), String::new()),
            _ => (V::PARAGRAPH.0.into(), V::PARAGRAPH.1.into()),
        };
        html.push_str(&open);
        html.push_str(&text);
        html.push_str(&close);
        html.push_str(&V::QUOTE.1.repeat(quotes));
        if item.is_none() {
            html.push('\n');
        }
        out.extend_from_slice(html.as_bytes());
    }

    /// Opens the document's element, if the vocabulary has one and it is not open yet.
    fn start(&mut self, out: &mut Vec<u8>) {
        if let (Some((open, _)), false) = (V::DOCUMENT, self.open) {
            out.extend_from_slice(open.as_bytes());
            out.push(b'\n');
            self.open = true;
        }
    }

    /// Closes the lists deeper than `depth`, and the list at `depth` when it is not `list`.
    fn close_lists(&mut self, depth: usize, list: Option<u32>, out: &mut Vec<u8>) {
        while self.lists.len() > depth
            || (self.lists.len() == depth && depth > 0 && self.lists.last().map(|l| l.0) != list)
        {
            let (_, ordered, _) = self.lists.pop().expect("a list");
            out.extend_from_slice(V::ITEM.1.as_bytes());
            out.extend_from_slice(V::list_end(ordered).as_bytes());
            out.push(b'\n');
        }
    }

    /// Writes a data table's rows, the first its header.
    pub(super) fn table(&mut self, rows: &[Vec<String>], out: &mut Vec<u8>) {
        self.start(out);
        self.close_lists(0, None, out);
        let mut table = String::new();
        V::table(rows, &mut table);
        out.extend_from_slice(table.as_bytes());
    }

    /// The document ends: the lists open are closed, then the document's element.
    pub(super) fn finish(&mut self, out: &mut Vec<u8>) {
        self.close_lists(0, None, out);
        if let (Some((_, close)), true) = (V::DOCUMENT, self.open) {
            out.extend_from_slice(close.as_bytes());
            out.push(b'\n');
        }
        *self = Markup::default();
    }
}

/// HTML's tags.
#[derive(Debug)]
pub(super) struct HtmlTags;

impl Vocabulary for HtmlTags {
    const PARAGRAPH: (&'static str, &'static str) = ("<p>", "</p>");
    const QUOTE: (&'static str, &'static str) = ("<blockquote>", "</blockquote>");
    const ITEM: (&'static str, &'static str) = ("<li>", "</li>");

    fn list(start: Option<u32>) -> String {
        match start {
            Some(1) => "<ol>".into(),
            Some(n) => format!("<ol start=\"{n}\">"),
            None => "<ul>".into(),
        }
    }

    fn list_end(ordered: bool) -> &'static str {
        if ordered {
            "</ol>"
        } else {
            "</ul>"
        }
    }

    fn heading(level: u8) -> (String, String) {
        (format!("<h{level}>"), format!("</h{level}>"))
    }

    fn code(language: &str) -> (String, String) {
        let open = match language {
            "" => "<pre><code>".to_string(),
            language => format!("<pre><code class=\"language-{}\">", escape(language)),
        };
        (open, "</code></pre>".to_string())
    }

    fn table(rows: &[Vec<String>], html: &mut String) {
        html.push_str("<table>\n");
        for (i, row) in rows.iter().enumerate() {
            let cell = if i == 0 { "th" } else { "td" };
            if i == 0 {
                html.push_str("<thead>");
            } else if i == 1 {
                html.push_str("<tbody>\n");
            }
            html.push_str("<tr>");
            for text in row {
                html.push_str(&format!("<{cell}>{text}</{cell}>"));
            }
            html.push_str("</tr>");
            html.push_str(if i == 0 { "</thead>\n" } else { "\n" });
        }
        if rows.len() > 1 {
            html.push_str("</tbody>\n");
        }
        html.push_str("</table>\n");
    }

    fn mark(out: &mut String, kind: MarkKind, inner: &str) {
        push_mark(out, kind, inner);
    }

    fn escape(text: &str) -> Cow<'_, str> {
        escape(text)
    }
}

/// Appends a marked span (its text not escaped yet) as HTML writes it.
fn push_mark(out: &mut String, kind: MarkKind, inner: &str) {
    let inner = escape(inner);
    match kind {
        MarkKind::Code => out.push_str(&format!("<code>{inner}</code>")),
        MarkKind::Formula => {
            out.push_str(&format!("<span class=\"math inline\">\\({inner}\\)</span>"))
        }
        MarkKind::DisplayFormula => {
            out.push_str(&format!(
                "<span class=\"math display\">\\[{inner}\\]</span>"
            ));
        }
        MarkKind::Sub => out.push_str(&format!("<sub>{inner}</sub>")),
        MarkKind::Sup => out.push_str(&format!("<sup>{inner}</sup>")),
    }
}

/// `text` with `&`, `<`, `>` and `"` escaped.
pub(super) fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"']) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            c => escaped.push(c),
        }
    }
    Cow::Owned(escaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `page`'s blocks, every sentence kept, written by HTML's markup.
    fn html(page: &str) -> String {
        let mut markup = Markup::<HtmlTags>::default();
        let mut out = Vec::new();
        for mut block in crate::html::blocks_from_str(page, &Default::default()).unwrap() {
            crate::segment::segment(&mut block);
            markup.block(&block, &mut out);
        }
        markup.finish(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_list_is_in_an_item_when_an_items_own_text_is_missing() {
        let page = "<ul><li><ul><li>Inner</li></ul></li><li>Outer</li></ul><p>After.</p>";
        assert_eq!(
            html(page),
            "<ul><li><ul><li>Inner</li></ul>\n</li>\n<li>Outer</li></ul>\n<p>After.</p>\n"
        );
        let numbered = "<ol start=3><li>Three</li><li>Four<ol><li>Inner</li></ol></li></ol>";
        assert_eq!(
            html(numbered),
            "<ol start=\"3\"><li>Three</li>\n<li>Four<ol><li>Inner</li></ol>\n</li></ol>\n"
        );
    }
}
