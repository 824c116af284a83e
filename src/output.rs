//! What is written for a scored block: the kept sentences (default), every sentence with the
//! dropped ones marked (`--format mark`), or a perplexity per sentence (`--format scores`);
//! optionally with CleanEval's `<p>`/`<h>`/`<l>` block markers or as Markdown. [`Layout`] names
//! them all, as every interface takes them.

use std::io::Write;
use std::ops::Range;

use crate::block::{Block, BlockKind, Mark, MarkKind};

/// Which text is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OutputMode {
    /// Kept sentences only, one block per line.
    #[default]
    Clean,
    /// Every sentence; dropped ones wrapped as `<ppl score="…">…</ppl>`.
    Mark,
    /// `perplexity<TAB>sentence` for every sentence.
    Scores,
}

/// How blocks are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// One block per line.
    #[default]
    Plain,
    /// One block per line, prefixed with `<p>`, `<h>` or `<l>` as in CleanEval gold.
    CleanEval,
    /// Markdown: `## ` headings, `- ` list items, fenced preformatted text, every block a
    /// paragraph of its own (followed by an empty line).
    Markdown,
}

/// What is written, named the same on the command line (`--format`), in Python (`format=`) and
/// in the web API (`"format"`).
// The variants' doc comments are `--format`'s help, which prints CleanEval's markers as they are.
#[allow(rustdoc::invalid_html_tags)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Layout {
    /// The kept text, one block per line (`plain` is another name for it).
    #[default]
    #[cfg_attr(feature = "cli", value(alias = "plain"))]
    Text,
    /// Markdown: headings, list items, code blocks and paragraphs from the block kinds.
    Markdown,
    /// One block per line, prefixed with <p>, <h> or <l> as in CleanEval gold.
    #[cfg_attr(feature = "cli", value(name = "cleaneval"))]
    CleanEval,
    /// Every sentence, the dropped ones wrapped as <ppl score="…">…</ppl> (`--mark`).
    Mark,
    /// `perplexity<TAB>sentence` for every sentence (`--scores`).
    Scores,
    /// One JSON object per document and line: source, url, title, lang, kind of page, text,
    /// counts (for every input kind; `jsonl` is another name for it).
    #[cfg_attr(feature = "cli", value(alias = "jsonl"))]
    Json,
}

impl Layout {
    /// Every layout, in the order the help lists them.
    pub const ALL: [Layout; 6] = [
        Layout::Text,
        Layout::Markdown,
        Layout::CleanEval,
        Layout::Mark,
        Layout::Scores,
        Layout::Json,
    ];

    /// The layout's name.
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Text => "text",
            Layout::Json => "json",
            Layout::Markdown => "markdown",
            Layout::CleanEval => "cleaneval",
            Layout::Mark => "mark",
            Layout::Scores => "scores",
        }
    }

    /// The layout of this name, or of an older name (`plain`, `jsonl`).
    pub fn of_name(name: &str) -> Option<Layout> {
        match name {
            "plain" => Some(Layout::Text),
            "jsonl" => Some(Layout::Json),
            _ => Layout::ALL.into_iter().find(|layout| layout.name() == name),
        }
    }

    /// Which text is written.
    pub fn mode(self) -> OutputMode {
        match self {
            Layout::Mark => OutputMode::Mark,
            Layout::Scores => OutputMode::Scores,
            _ => OutputMode::Clean,
        }
    }

    /// How a document's blocks are laid out (a JSON object's text is laid out as text).
    pub fn format(self) -> OutputFormat {
        match self {
            Layout::CleanEval => OutputFormat::CleanEval,
            Layout::Markdown => OutputFormat::Markdown,
            _ => OutputFormat::Plain,
        }
    }
}

/// What is written for each document: the rendering stage's settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderSettings {
    /// The kept text, everything marked, or scores.
    pub mode: OutputMode,
    /// Plain, with CleanEval markers, or as Markdown.
    pub format: OutputFormat,
    /// Measure every sentence's perplexity, also where the decision does not need it: set when
    /// the output reports perplexities other than through [`RenderSettings::mode`] (a record's
    /// mean perplexity; see `pipeline::Options::every_perplexity`).
    pub report_perplexity: bool,
}

impl RenderSettings {
    /// Writing in `layout` (a JSON object's text is written as text: the sink makes the
    /// object). Whether the record a sink makes reports perplexity is the sink's to say
    /// (`io::sink::RecordFormat::reports_perplexity`), so `report_perplexity` is left unset.
    pub fn of(layout: Layout) -> RenderSettings {
        RenderSettings {
            mode: layout.mode(),
            format: layout.format(),
            report_perplexity: false,
        }
    }
}

/// Writes one document's decided blocks, in order, as the settings say ([`Renderer::block`],
/// then [`Renderer::finish`] at the document's end). Text and Markdown write the structure the
/// blocks carry: a data table's cells are held until the table ends and written as its rows
/// (a GitHub table, or a line a row with its cells between tabs), a code block whole with its
/// lines, and in Markdown headings by level, nested and numbered lists, blockquotes, inline code
/// and formulas (`$…$`). The other layouts write a block at a time.
#[derive(Debug, Default)]
pub struct Renderer {
    settings: RenderSettings,
    /// The data table being read: its cells so far, in order.
    table: Vec<Block>,
    /// What the last block written was: a list item's (its item), for tight lists.
    last: Option<Written>,
    /// The list items open, by depth (their element numbers): an item's paragraphs after its
    /// first continue it.
    items: Vec<u32>,
}

/// What the last block written was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    /// A block of the list item numbered so in the document.
    Item(u32),
    /// Any other block.
    Other,
}

impl Renderer {
    /// A renderer for `settings`.
    pub fn new(settings: RenderSettings) -> Renderer {
        Renderer {
            settings,
            ..Renderer::default()
        }
    }

    /// Writes `block` (or holds it, a data table's cell, until its table ends) to `out`.
    pub fn block(&mut self, block: Block, out: &mut Vec<u8>) {
        let structured = self.settings.mode == OutputMode::Clean
            && matches!(
                self.settings.format,
                OutputFormat::Plain | OutputFormat::Markdown
            );
        if !structured {
            return render_block(&block, self.settings, out);
        }
        let table = self.table.first().and_then(|b| b.structure.cell);
        let cell = block.structure.cell.filter(|c| c.data);
        if table.is_some() && cell.map(|c| c.table) != table.map(|c| c.table) {
            self.write_table(out);
        }
        if cell.is_some() {
            return self.table.push(block);
        }
        match self.settings.format {
            OutputFormat::Markdown => self.markdown(&block, out),
            _ => {
                if let Some(text) = kept_text(&block, false) {
                    out.extend_from_slice(text.as_bytes());
                    out.push(b'\n');
                }
            }
        }
    }

    /// The document ends: writes what is held, and is ready for the next.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        self.write_table(out);
        self.last = None;
        self.items.clear();
    }

    /// Writes a Markdown block: a blank line before it (none between two items of a list).
    fn markdown(&mut self, block: &Block, out: &mut Vec<u8>) {
        let Some(text) = kept_text(block, true) else {
            return;
        };
        let structure = &block.structure;
        let item = structure.list.filter(|_| block.kind != BlockKind::Heading);
        // An item's block after its first continues it, under its marker.
        let continued = item.is_some_and(|list| {
            self.items.get(usize::from(list.depth.max(1)) - 1) == Some(&list.item)
        });
        let written = item.map_or(Written::Other, |list| Written::Item(list.item));
        let new_item = item.is_some() && !continued;
        if self.last.is_some() && !(new_item && matches!(self.last, Some(Written::Item(_)))) {
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
                if continued {
                    first.push_str("    ");
                } else {
                    match list.number {
                        Some(n) => first.push_str(&format!("{n}. ")),
                        None => first.push_str("- "),
                    }
                }
            }
            None => self.items.clear(),
        }
        let rest = format!("{quote}{indent}");
        if block.hints.has(crate::block::ContainerHints::TITLE) {
            first.push_str("# ");
        } else if block.kind == BlockKind::Heading {
            first.push_str(&"#".repeat(usize::from(structure.heading.clamp(1, 6))));
            first.push(' ');
        }
        let lines: Vec<String> = match &structure.code {
            Some(code) if block.kind == BlockKind::Preformatted => {
                let fence = fence_for(&text);
                let mut lines = vec![format!("{fence}{}", code.language)];
                lines.extend(text.lines().map(str::to_string));
                lines.push(fence);
                lines
            }
            _ => {
                // Text that would read as Markdown syntax at the start of a line is escaped.
                let escape = item.is_none()
                    && block.kind != BlockKind::Heading
                    && text.starts_with(['#', '-', '+', '*', '>', '|', '`', '=']);
                vec![format!("{}{text}", if escape { "\\" } else { "" })]
            }
        };
        for (i, line) in lines.iter().enumerate() {
            out.extend_from_slice(if i == 0 { &first } else { &rest }.as_bytes());
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        self.last = Some(written);
    }

    /// Writes the data table held, if any: its rows, the header first.
    fn write_table(&mut self, out: &mut Vec<u8>) {
        let cells = std::mem::take(&mut self.table);
        let mut rows: Vec<(u32, Vec<String>)> = Vec::new();
        let mut last_cell = None;
        for block in &cells {
            let Some(cell) = block.structure.cell else {
                continue;
            };
            let text = kept_text(block, self.settings.format == OutputFormat::Markdown)
                .unwrap_or_default();
            if rows.last().is_none_or(|(row, _)| *row != cell.row) {
                rows.push((cell.row, Vec::new()));
            }
            let row = &mut rows.last_mut().expect("a row").1;
            if last_cell == Some(cell.number) {
                // A cell's second line (after a `<br>`).
                if let Some(last) = row.last_mut() {
                    last.push(' ');
                    last.push_str(&text);
                }
                continue;
            }
            last_cell = Some(cell.number);
            while row.len() < cell.column as usize {
                row.push(String::new());
            }
            row.push(text);
            for _ in 1..cell.span {
                row.push(String::new());
            }
        }
        if rows.iter().all(|(_, row)| row.iter().all(String::is_empty)) {
            return;
        }
        let columns = rows.iter().map(|(_, row)| row.len()).max().unwrap_or(0);
        let markdown = self.settings.format == OutputFormat::Markdown;
        if markdown && self.last.is_some() {
            out.push(b'\n');
        }
        for (i, (_, row)) in rows.iter().enumerate() {
            let mut cells: Vec<String> = row.clone();
            cells.resize(columns, String::new());
            if markdown {
                let cells: Vec<String> = cells.iter().map(|c| markdown_cell(c)).collect();
                out.extend_from_slice(format!("| {} |\n", cells.join(" | ")).as_bytes());
                if i == 0 {
                    let rule = vec!["---"; columns].join(" | ");
                    out.extend_from_slice(format!("| {rule} |\n").as_bytes());
                }
            } else {
                let line = cells.iter().map(|c| c.replace(['\t', '\n'], " ")).collect::<Vec<_>>();
                out.extend_from_slice(line.join("\t").trim_end().as_bytes());
                out.push(b'\n');
            }
        }
        self.last = Some(Written::Other);
        self.items.clear();
    }
}

/// A table cell's text as a GitHub table cell holds it: `|` escaped, on one line.
fn markdown_cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}

/// A code fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    let longest = text
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// The text of `block` that is written: a code block whole when any of it is kept, else its
/// kept sentences, separated by a space; with `marked`, its inline code and formulas as
/// Markdown writes them. `None` when nothing is kept.
fn kept_text(block: &Block, marked: bool) -> Option<String> {
    let kept = block.sentences.iter().filter(|s| s.keep);
    if block.kind == BlockKind::Preformatted {
        return block.sentences.iter().any(|s| s.keep).then(|| block.text.clone());
    }
    let mut text = String::new();
    for sentence in kept {
        if !text.is_empty() {
            text.push(' ');
        }
        let range = sentence.range();
        match marked {
            true => push_marked(&mut text, &block.text, range, &block.structure.marks),
            false => text.push_str(&block.text[range]),
        }
    }
    (!text.is_empty()).then_some(text)
}

/// Appends `text[range]` with the marks in it written as Markdown writes them.
fn push_marked(out: &mut String, text: &str, range: Range<usize>, marks: &[Mark]) {
    let mut at = range.start;
    for mark in marks {
        let (start, end) = (mark.start as usize, mark.end as usize);
        let (start, end) = (start.max(range.start), end.min(range.end));
        if start >= end || start < at || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            continue;
        }
        out.push_str(&text[at..start]);
        let inner = &text[start..end];
        match mark.kind {
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
        at = end;
    }
    out.push_str(&text[at..range.end]);
}

/// Appends the rendering of `block` to `out`, on its own.
fn render_block(block: &Block, settings: RenderSettings, out: &mut Vec<u8>) {
    let RenderSettings { mode, format, .. } = settings;
    if mode == OutputMode::Scores {
        for sentence in &block.sentences {
            let _ = writeln!(
                out,
                "{:.1}\t{}",
                sentence.perplexity,
                block.sentence_text(sentence)
            );
        }
        return;
    }
    let mut wrote_any = false;
    for sentence in &block.sentences {
        if !sentence.keep && mode == OutputMode::Clean {
            continue;
        }
        if wrote_any {
            out.push(b' ');
        } else if format == OutputFormat::CleanEval {
            out.extend_from_slice(block.kind.cleaneval_marker().as_bytes());
            out.push(b' ');
        } else if format == OutputFormat::Markdown {
            if block.hints.has(crate::block::ContainerHints::TITLE) {
                out.extend_from_slice(b"# ");
            } else {
                out.extend_from_slice(markdown_opening(block.kind).as_bytes());
            }
            // Text that would read as Markdown syntax at the start of a line is escaped.
            let text = block.sentence_text(sentence);
            if block.kind != BlockKind::Preformatted
                && text.starts_with(['#', '-', '+', '*', '>', '|', '`', '='])
            {
                out.push(b'\\');
            }
        }
        wrote_any = true;
        let text = block.sentence_text(sentence);
        if sentence.keep {
            out.extend_from_slice(text.as_bytes());
        } else {
            let _ = write!(
                out,
                "<ppl score=\"{:.1}\">{}</ppl>",
                sentence.perplexity, text
            );
        }
    }
    if wrote_any {
        out.push(b'\n');
        if format == OutputFormat::Markdown {
            if block.kind == BlockKind::Preformatted {
                out.extend_from_slice(b"```\n");
            }
            out.push(b'\n');
        }
    }
}

/// What opens a block of `kind` in Markdown.
fn markdown_opening(kind: BlockKind) -> &'static str {
    match kind {
        BlockKind::Heading => "## ",
        BlockKind::ListItem => "- ",
        BlockKind::Preformatted => "```\n",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::{BlockKind, Sentence};

    #[test]
    fn every_layout_is_found_by_its_name_and_the_older_names_too() {
        for layout in Layout::ALL {
            assert_eq!(Layout::of_name(layout.name()), Some(layout));
        }
        assert_eq!(Layout::of_name("plain"), Some(Layout::Text));
        assert_eq!(Layout::of_name("jsonl"), Some(Layout::Json));
        assert_eq!(Layout::of_name("html"), None);
        assert_eq!(Layout::Mark.mode(), OutputMode::Mark);
        assert_eq!(Layout::CleanEval.format(), OutputFormat::CleanEval);
    }

    /// The command line's names are the library's ([`Layout::name`]).
    #[cfg(feature = "cli")]
    #[test]
    fn the_command_line_names_each_layout_as_the_library_does() {
        use clap::ValueEnum;
        for layout in Layout::ALL {
            let value = layout.to_possible_value().expect("listed");
            assert_eq!(value.get_name(), layout.name());
        }
    }

    fn block() -> Block {
        let mut b = Block::new(0, BlockKind::Heading, "Good one. Bad one.");
        b.sentences = vec![
            Sentence {
                perplexity: 10.0,
                keep: true,
                ..Sentence::new(0..9)
            },
            Sentence {
                perplexity: 9000.0,
                keep: false,
                ..Sentence::new(10..18)
            },
        ];
        b
    }

    fn render(mode: OutputMode, format: OutputFormat) -> String {
        let mut out = Vec::new();
        render_block(
            &block(),
            RenderSettings {
                mode,
                format,
                report_perplexity: false,
            },
            &mut out,
        );
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn modes_and_formats() {
        for (mode, format, expected) in [
            (OutputMode::Clean, OutputFormat::Plain, "Good one.\n"),
            (
                OutputMode::Clean,
                OutputFormat::CleanEval,
                "<h> Good one.\n",
            ),
            (
                OutputMode::Mark,
                OutputFormat::Plain,
                "Good one. <ppl score=\"9000.0\">Bad one.</ppl>\n",
            ),
            (
                OutputMode::Scores,
                OutputFormat::Plain,
                "10.0\tGood one.\n9000.0\tBad one.\n",
            ),
        ] {
            assert_eq!(render(mode, format), expected, "{mode:?} {format:?}");
        }
    }

    #[test]
    fn markdown_marks_headings_lists_and_code_and_escapes_the_rest() {
        assert_eq!(
            render(OutputMode::Clean, OutputFormat::Markdown),
            "## Good one.\n\n"
        );
        let render_as = |kind, text: &str| {
            let mut b = Block::new(0, kind, text);
            b.sentences = vec![Sentence {
                keep: true,
                ..Sentence::new(0..text.len())
            }];
            let mut out = Vec::new();
            render_block(&b, RenderSettings::of(Layout::Markdown), &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(render_as(BlockKind::ListItem, "Milk."), "- Milk.\n\n");
        assert_eq!(
            render_as(BlockKind::Preformatted, "let x = 1;"),
            "```\nlet x = 1;\n```\n\n"
        );
        assert_eq!(
            render_as(BlockKind::Paragraph, "# not a heading"),
            "\\# not a heading\n\n"
        );
        assert_eq!(
            render_as(BlockKind::Paragraph, "Plain text."),
            "Plain text.\n\n"
        );
    }

    #[test]
    fn a_block_with_nothing_kept_writes_nothing() {
        let mut b = block();
        b.sentences[0].keep = false;
        let mut out = Vec::new();
        render_block(&b, RenderSettings::of(Layout::CleanEval), &mut out);
        assert!(out.is_empty());
    }

    /// Renders `html`'s blocks, every sentence kept and every table of data, in `layout`.
    fn rendered(html: &str, layout: Layout) -> String {
        let mut blocks = crate::html::blocks_from_str(html, &Default::default()).unwrap();
        let mut renderer = Renderer::new(RenderSettings::of(layout));
        let mut out = Vec::new();
        for mut block in blocks.drain(..) {
            crate::segment::segment(&mut block);
            if let Some(cell) = &mut block.structure.cell {
                cell.data = true;
            }
            renderer.block(block, &mut out);
        }
        renderer.finish(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn markdown_writes_nested_numbered_tight_lists_and_tables() {
        let list = "<p>Steps:</p><ol><li>One</li><li>Two<ul><li>Inner</li></ul><p>More of two.</p></li></ol><p>After.</p>";
        assert_eq!(
            rendered(list, Layout::Markdown),
            "Steps:\n\n1. One\n2. Two\n    - Inner\n\n    More of two.\n\nAfter.\n"
        );
        let table = "<table><tr><th>a|b</th><th>c</th></tr><tr><td>1</td></tr><tr><td colspan=2>wide</td></tr></table>";
        assert_eq!(
            rendered(table, Layout::Markdown),
            "| a\\|b | c |\n| --- | --- |\n| 1 |  |\n| wide |  |\n"
        );
        assert_eq!(rendered(table, Layout::Text), "a|b\tc\n1\nwide\n");
        let code = "<pre><code class=language-md>```\n  indented</code></pre>";
        assert_eq!(rendered(code, Layout::Markdown), "````md\n```\n  indented\n````\n");
        let quoted = "<blockquote><p>Said so.</p></blockquote><h3>Three</h3>";
        assert_eq!(rendered(quoted, Layout::Markdown), "> Said so.\n\n### Three\n");
    }
}
