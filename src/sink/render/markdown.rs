//! Markdown ([`Markdown`]): headings by level, nested and numbered tight lists, blockquotes,
//! fenced code with its language, GitHub tables, inline code, `$…$` and `$$…$$`, a blank line
//! between blocks (none between two items of a list).

use super::{kept_text, Style};
use crate::block::{Block, BlockKind, ContainerHints, MarkKind};

/// What Markdown knows of the blocks written before.
#[derive(Debug, Default)]
pub(super) struct Markdown {
    /// The last block written: a list item's (its item number), or another.
    last: Option<Option<u32>>,
    /// The list items open, by depth (their element numbers): an item's paragraphs after its
    /// first continue it.
    items: Vec<u32>,
}

impl Markdown {
    /// Writes a block.
    pub(super) fn block(&mut self, block: &Block, out: &mut Vec<u8>) {
        let Some(text) = kept_text(block, Style::Markdown) else {
            return;
        };
        let structure = &block.structure;
        let item = structure.list.filter(|_| block.kind != BlockKind::Heading);
        // An item's block after its first continues it, under its marker.
        let continued = item.is_some_and(|list| {
            self.items.get(usize::from(list.depth.max(1)) - 1) == Some(&list.item)
        });
        let new_item = item.is_some() && !continued;
        if self.last.is_some() && !(new_item && matches!(self.last, Some(Some(_)))) {
            out.push(b'\n');
        }
        let quote = "> ".repeat(usize::from(structure.quotes));
        let mut indent = String::new();
        let mut first = quote.clone();
        match item {
            Some(list) => {
                let depth = usize::from(list.depth.max(1));
                self.items.truncate(depth - 1);
                self.items.push(list.item);
                indent = "    ".repeat(depth - 1);
                first.push_str(&indent);
                indent.push_str("    ");
                match (continued, list.number) {
                    (true, _) => first.push_str("    "),
                    (false, Some(n)) => first.push_str(&format!("{n}. ")),
                    (false, None) => first.push_str("- "),
                }
            }
            None => self.items.clear(),
        }
        if block.hints.has(ContainerHints::TITLE) {
            first.push_str("# ");
        } else if block.kind == BlockKind::Heading {
            first.push_str(&"#".repeat(usize::from(structure.heading.clamp(1, 6))));
            first.push(' ');
        }
        let rest = format!("{quote}{indent}");
        let mut line = |i: usize, line: &str| {
            out.extend_from_slice(if i == 0 { &first } else { &rest }.as_bytes());
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        };
        match &structure.code {
            Some(code) if block.kind == BlockKind::Preformatted => {
                let fence = fence_for(&text);
                line(0, &format!("{fence}{}", code.language));
                for code_line in text.lines() {
                    line(1, code_line);
                }
                line(1, &fence);
            }
            _ => {
                // Text that would read as Markdown syntax at the start of a line is escaped.
                let escape = item.is_none()
                    && block.kind != BlockKind::Heading
                    && !starts_with_mark(block)
                    && text.starts_with(['#', '-', '+', '*', '>', '|', '`', '=']);
                line(0, &format!("{}{text}", if escape { "\\" } else { "" }));
            }
        }
        self.last = Some(item.map(|list| list.item));
    }

    /// Writes a data table's rows as a GitHub table, the first row its header.
    pub(super) fn table(&mut self, rows: &[Vec<String>], out: &mut Vec<u8>) {
        if self.last.is_some() {
            out.push(b'\n');
        }
        for (i, row) in rows.iter().enumerate() {
            let cells: Vec<String> = row
                .iter()
                .map(|c| c.replace('\n', " ").replace('|', "\\|"))
                .collect();
            out.extend_from_slice(format!("| {} |\n", cells.join(" | ")).as_bytes());
            if i == 0 {
                let rule = vec!["---"; row.len()].join(" | ");
                out.extend_from_slice(format!("| {rule} |\n").as_bytes());
            }
        }
        self.last = Some(None);
        self.items.clear();
    }
}

/// Appends a marked span as Markdown writes it.
pub(super) fn push_mark(out: &mut String, kind: MarkKind, inner: &str) {
    match kind {
        MarkKind::Code => {
            let ticks = if inner.contains('`') { "``" } else { "`" };
            out.push_str(&format!("{ticks}{inner}{ticks}"));
        }
        MarkKind::Formula => out.push_str(&format!("${inner}$")),
        MarkKind::DisplayFormula => out.push_str(&format!("$${inner}$$")),
        MarkKind::Sub => out.push_str(&format!("<sub>{inner}</sub>")),
        // A note's number (`[2]`) as Markdown writes a footnote's.
        MarkKind::Sup => match inner.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
            Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric()) => {
                out.push_str(&format!("[^{n}]"));
            }
            _ => out.push_str(&format!("<sup>{inner}</sup>")),
        },
    }
}

/// Whether the first text written of `block` is a marked span's (inline code, a formula),
/// which Markdown writes with its own syntax.
fn starts_with_mark(block: &Block) -> bool {
    let first = block
        .sentences
        .iter()
        .find(|s| s.keep)
        .map(|s| s.range().start);
    first.is_some_and(|at| block.structure.marks.iter().any(|m| m.start as usize == at))
}

/// A code fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}
