//! What is written for a scored block: the kept sentences (default), every sentence with the
//! dropped ones marked (`--format mark`), or a perplexity per sentence (`--format scores`);
//! optionally with CleanEval's `<p>`/`<h>`/`<l>` block markers, as Markdown, HTML or XML.
//! [`Layout`] names them all, as every interface takes them.
//!
//! Adding a format touches two files: its [`Layout`] here (its name, extension and writer)
//! and its writer's file (a markup is a `Vocabulary` (`html.rs`) of tags, as `xml.rs` is);
//! `scripts/generate-docs.sh` writes it into the man page, the completions and Python's stub.

mod html;
mod markdown;
mod xml;

use std::borrow::Cow;
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
    /// Markdown: headings by level, lists, tables, fenced code, inline code and formulas.
    Markdown,
    /// Clean, minimal HTML: headings, paragraphs, lists, tables, `pre`/`code`, blockquotes and
    /// formulas.
    Html,
    /// XML in trafilatura's element names.
    Xml,
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
    /// Markdown: headings by level, lists, GitHub tables, fenced code, inline code, $formulas$.
    Markdown,
    /// The main content as clean, minimal HTML (headings, paragraphs, lists, tables, pre/code,
    /// blockquotes, formulas), to render or parse again.
    Html,
    /// The main content as XML in trafilatura's element names (doc, main, head, p, list, item,
    /// table, row, cell, code, quote, hi), TeX formulas as TEI's formula.
    Xml,
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
    pub const ALL: [Layout; 8] = [
        Layout::Text,
        Layout::Markdown,
        Layout::Html,
        Layout::Xml,
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
            Layout::Html => "html",
            Layout::Xml => "xml",
            Layout::CleanEval => "cleaneval",
            Layout::Mark => "mark",
            Layout::Scores => "scores",
        }
    }

    /// The extension of a file written in this layout (`--output-dir`).
    pub const fn extension(self) -> &'static str {
        match self {
            Layout::Json => "jsonl",
            Layout::Markdown => "md",
            Layout::Html => "html",
            Layout::Xml => "xml",
            _ => "txt",
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
            Layout::Html => OutputFormat::Html,
            Layout::Xml => OutputFormat::Xml,
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
/// then [`Renderer::finish`] at the document's end). Text, Markdown and HTML write the structure
/// the blocks carry: a data table's cells are held until the table ends and written as its rows
/// (a line a row with its cells between tabs, a GitHub table, a `<table>`), a code block whole
/// with its lines, and in Markdown and HTML headings by level, nested and numbered lists,
/// blockquotes, inline code and formulas (`markdown.rs`, `html.rs`). The other layouts write a
/// block at a time.
#[derive(Debug, Default)]
pub struct Renderer {
    settings: RenderSettings,
    /// The data table being read: its cells so far, in order.
    table: Vec<Block>,
    /// The writer of the format, with what it knows of the blocks before.
    writer: Writer,
}

/// The writer of each format that writes structure.
#[derive(Debug, Default)]
enum Writer {
    /// A block a line, a table row a line.
    #[default]
    Text,
    /// Markdown.
    Markdown(markdown::Markdown),
    /// HTML.
    Html(html::Markup<html::HtmlTags>),
    /// XML.
    Xml(html::Markup<xml::XmlTags>),
}

/// How a block's text and marked spans are written.
#[derive(Clone, Copy, Debug)]
enum Style {
    /// As the text they are.
    Plain,
    /// As Markdown writes them.
    Markdown,
    /// As a markup's elements ([`html::Vocabulary`]), the text escaped.
    Markup {
        /// Escapes text.
        escape: for<'a> fn(&'a str) -> Cow<'a, str>,
        /// Appends a marked span.
        mark: fn(&mut String, MarkKind, &str),
    },
}

impl Renderer {
    /// A renderer for `settings`.
    pub fn new(settings: RenderSettings) -> Renderer {
        let writer = match (settings.mode, settings.format) {
            (OutputMode::Clean, OutputFormat::Markdown) => Writer::Markdown(Default::default()),
            (OutputMode::Clean, OutputFormat::Html) => Writer::Html(Default::default()),
            (OutputMode::Clean, OutputFormat::Xml) => Writer::Xml(Default::default()),
            _ => Writer::Text,
        };
        Renderer {
            settings,
            table: Vec::new(),
            writer,
        }
    }

    /// Writes `block` (or holds it, a data table's cell, until its table ends) to `out`.
    pub fn block(&mut self, block: Block, out: &mut Vec<u8>) {
        let structured = self.settings.mode == OutputMode::Clean
            && self.settings.format != OutputFormat::CleanEval;
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
        match &mut self.writer {
            Writer::Markdown(markdown) => markdown.block(&block, out),
            Writer::Html(html) => html.block(&block, out),
            Writer::Xml(xml) => xml.block(&block, out),
            // A code block whole, with its lines.
            Writer::Text if block.kind == BlockKind::Preformatted => {
                if let Some(text) = kept_text(&block, Style::Plain) {
                    out.extend_from_slice(text.as_bytes());
                    out.push(b'\n');
                }
            }
            Writer::Text => render_block(&block, self.settings, out),
        }
    }

    /// The document ends: writes what is held, and is ready for the next.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        self.write_table(out);
        match &mut self.writer {
            Writer::Markdown(markdown) => *markdown = Default::default(),
            Writer::Html(html) => html.finish(out),
            Writer::Xml(xml) => xml.finish(out),
            Writer::Text => {}
        }
    }

    /// Writes the data table held, if any: its rows, the header first.
    fn write_table(&mut self, out: &mut Vec<u8>) {
        let cells = std::mem::take(&mut self.table);
        let style = match self.writer {
            Writer::Text => Style::Plain,
            Writer::Markdown(_) => Style::Markdown,
            Writer::Html(_) => <html::HtmlTags as html::Vocabulary>::STYLE,
            Writer::Xml(_) => <xml::XmlTags as html::Vocabulary>::STYLE,
        };
        let rows = rows(&cells, style);
        if rows.iter().all(|row| row.iter().all(String::is_empty)) {
            return;
        }
        match &mut self.writer {
            Writer::Markdown(markdown) => markdown.table(&rows, out),
            Writer::Html(html) => html.table(&rows, out),
            Writer::Xml(xml) => xml.table(&rows, out),
            Writer::Text => {
                for row in &rows {
                    let cells: Vec<String> =
                        row.iter().map(|c| c.replace(['\t', '\n'], " ")).collect();
                    out.extend_from_slice(cells.join("\t").trim_end().as_bytes());
                    out.push(b'\n');
                }
            }
        }
    }
}

/// A data table's rows, each cell's text in its column (a cell spanning columns leaves the next
/// ones empty), every row as long as the longest.
fn rows(cells: &[Block], style: Style) -> Vec<Vec<String>> {
    let mut rows: Vec<(u32, Vec<String>)> = Vec::new();
    let mut last_cell = None;
    for block in cells {
        let Some(cell) = block.structure.cell else {
            continue;
        };
        let text = kept_text(block, style).unwrap_or_default();
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
    let columns = rows.iter().map(|(_, row)| row.len()).max().unwrap_or(0);
    rows.into_iter()
        .map(|(_, mut row)| {
            row.resize(columns, String::new());
            row
        })
        .collect()
}

/// The text of `block` that is written: a code block whole when any of it is kept, else its
/// kept sentences, separated by a space, their marked spans written in `style`. `None` when
/// nothing is kept.
fn kept_text(block: &Block, style: Style) -> Option<String> {
    if block.kind == BlockKind::Preformatted {
        let kept = block.sentences.iter().any(|s| s.keep);
        return kept.then(|| match style {
            Style::Markup { escape, .. } => escape(&block.text).into_owned(),
            _ => block.text.clone(),
        });
    }
    let mut text = String::new();
    for sentence in block.sentences.iter().filter(|s| s.keep) {
        if !text.is_empty() {
            text.push(' ');
        }
        push_marked(
            &mut text,
            &block.text,
            sentence.range(),
            &block.structure.marks,
            style,
        );
    }
    (!text.is_empty()).then_some(text)
}

/// Appends `text[range]` with the marks in it written in `style`.
fn push_marked(out: &mut String, text: &str, range: Range<usize>, marks: &[Mark], style: Style) {
    let plain = |out: &mut String, piece: &str| match style {
        Style::Markup { escape, .. } => out.push_str(&escape(piece)),
        _ => out.push_str(piece),
    };
    let mut at = range.start;
    for mark in marks.iter().filter(|_| !matches!(style, Style::Plain)) {
        let (start, end) = (mark.start as usize, mark.end as usize);
        let (start, end) = (start.max(range.start), end.min(range.end));
        if start >= end
            || start < at
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            continue;
        }
        plain(out, &text[at..start]);
        let inner = &text[start..end];
        match style {
            Style::Markdown => markdown::push_mark(out, mark.kind, inner),
            Style::Markup { mark: push, .. } => push(out, mark.kind, inner),
            Style::Plain => out.push_str(inner),
        }
        at = end;
    }
    plain(out, &text[at..range.end]);
}

/// Appends the rendering of `block` to `out`, on its own: its kept sentences on a line (with
/// its CleanEval marker), every sentence marked, or their scores. Markdown and HTML are the
/// writers' ([`Renderer`]); in the modes that mark or score every sentence, they write as text.
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
        assert_eq!(Layout::of_name("tei"), None);
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
            rendered(
                "<h2>Good one.</h2><ul><li>Milk.</li></ul>",
                Layout::Markdown
            ),
            "## Good one.\n\n- Milk.\n"
        );
        assert_eq!(
            rendered(
                "<pre>let x = 1;</pre><p># not a heading</p><p>Plain text.</p>",
                Layout::Markdown
            ),
            "```\nlet x = 1;\n```\n\n\\# not a heading\n\nPlain text.\n"
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
    fn xml_writes_each_document_as_a_doc_in_trafilaturas_element_names() {
        let page = "<h2>Setup</h2><p>Run <code>make</code> &amp; wait.</p><ul><li>One</li></ul>\
                    <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>";
        assert_eq!(
            rendered(page, Layout::Xml),
            "<doc>\n<main>\n<head rend=\"h2\">Setup</head>\n\
             <p>Run <hi rend=\"#t\">make</hi> &amp; wait.</p>\n\
             <list rend=\"ul\"><item>One</item></list>\n\
             <table>\n<row span=\"2\"><cell role=\"head\">a</cell><cell role=\"head\">b</cell></row>\n\
             <row span=\"2\"><cell>1</cell><cell>2</cell></row>\n</table>\n</main>\n</doc>\n"
        );
        assert_eq!(Layout::Xml.extension(), "xml");
        // A document with nothing kept is no element at all.
        assert_eq!(rendered("", Layout::Xml), "");
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
        assert_eq!(
            rendered(code, Layout::Markdown),
            "````md\n```\n  indented\n````\n"
        );
        // Inline code at a paragraph's start is no syntax to escape; a `#` is.
        assert_eq!(
            rendered(
                "<p><code>x</code> is set.</p><p># no heading</p>",
                Layout::Markdown
            ),
            "`x` is set.\n\n\\# no heading\n"
        );
        let quoted = "<blockquote><p>Said so.</p></blockquote><h3>Three</h3>";
        assert_eq!(
            rendered(quoted, Layout::Markdown),
            "> Said so.\n\n### Three\n"
        );
    }
}
