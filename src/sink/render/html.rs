//! HTML ([`Html`]): the main content as clean, minimal HTML for those who render or parse it
//! again: `<h1>`–`<h6>`, `<p>`, nested `<ul>`/`<ol>` with their `<li>`, `<table>` with its
//! header row in `<thead>`, `<pre><code class="language-…">`, `<blockquote>`, inline `<code>`,
//! `<sub>`, `<sup>`, and formulas as TeX in `<span class="math inline">\(…\)</span>` (or
//! `display`, `\[…\]`), as pandoc writes them. Text is escaped; no attribute of the page is kept.

use std::borrow::Cow;

use super::{kept_text, Style};
use crate::block::{Block, BlockKind, ContainerHints, MarkKind};

/// What HTML knows of the blocks written before: the lists open.
#[derive(Debug, Default)]
pub(super) struct Html {
    /// The lists open, outermost first: each list's element number, whether it is ordered, and
    /// its item open (0 for none yet).
    lists: Vec<(u32, bool, u32)>,
}

impl Html {
    /// Writes a block.
    pub(super) fn block(&mut self, block: &Block, out: &mut Vec<u8>) {
        let Some(text) = kept_text(block, Style::Html) else {
            return;
        };
        let structure = &block.structure;
        let item = structure.list.filter(|_| block.kind != BlockKind::Heading);
        let mut html = String::new();
        match item {
            Some(list) => {
                let depth = usize::from(list.depth.max(1));
                self.close_lists(depth, Some(list.list), out);
                while self.lists.len() < depth {
                    // The list of this item (a level skipped is a bare `<ul>`).
                    let own = self.lists.len() + 1 == depth;
                    let ordered = own && list.number.is_some();
                    match list.number.filter(|_| own) {
                        Some(1) => html.push_str("<ol>"),
                        Some(n) => html.push_str(&format!("<ol start=\"{n}\">")),
                        None => html.push_str("<ul>"),
                    }
                    self.lists.push((list.list, ordered, 0));
                }
                let open = self.lists.last_mut().expect("a list");
                if open.2 != list.item {
                    if open.2 != 0 {
                        html.push_str("</li>\n");
                    }
                    html.push_str("<li>");
                    open.2 = list.item;
                } else {
                    html.push('\n');
                }
            }
            None => self.close_lists(0, None, out),
        }
        let quotes = usize::from(structure.quotes);
        html.push_str(&"<blockquote>".repeat(quotes));
        let (open, close) = match (&structure.code, block.kind) {
            (Some(code), BlockKind::Preformatted) if code.language.is_empty() => {
                ("<pre><code>".to_string(), "</code></pre>".to_string())
            }
            (Some(code), BlockKind::Preformatted) => (
                format!("<pre><code class=\"language-{}\">", escape(&code.language)),
                "</code></pre>".to_string(),
            ),
            _ if block.hints.has(ContainerHints::TITLE) => ("<h1>".into(), "</h1>".into()),
            (_, BlockKind::Heading) => {
                let level = structure.heading.clamp(1, 6);
                (format!("<h{level}>"), format!("</h{level}>"))
            }
            _ if item.is_some() => (String::new(), String::new()),
            _ => ("<p>".into(), "</p>".into()),
        };
        html.push_str(&open);
        html.push_str(&text);
        html.push_str(&close);
        html.push_str(&"</blockquote>".repeat(quotes));
        if item.is_none() {
            html.push('\n');
        }
        out.extend_from_slice(html.as_bytes());
    }

    /// Closes the lists deeper than `depth`, and the list at `depth` when it is not `list`.
    fn close_lists(&mut self, depth: usize, list: Option<u32>, out: &mut Vec<u8>) {
        while self.lists.len() > depth
            || (self.lists.len() == depth && depth > 0 && self.lists.last().map(|l| l.0) != list)
        {
            let (_, ordered, _) = self.lists.pop().expect("a list");
            out.extend_from_slice(if ordered {
                b"</li></ol>\n"
            } else {
                b"</li></ul>\n"
            });
        }
    }

    /// Writes a data table's rows, the first in `<thead>`.
    pub(super) fn table(&mut self, rows: &[Vec<String>], out: &mut Vec<u8>) {
        self.close_lists(0, None, out);
        let mut html = String::from("<table>\n");
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
        out.extend_from_slice(html.as_bytes());
    }

    /// The document ends: the lists open are closed.
    pub(super) fn finish(&mut self, out: &mut Vec<u8>) {
        self.close_lists(0, None, out);
    }
}

/// Appends a marked span (its text escaped already) as HTML writes it.
pub(super) fn push_mark(out: &mut String, kind: MarkKind, inner: &str) {
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
