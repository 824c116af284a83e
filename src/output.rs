//! What is written for a scored block: the kept sentences (default), every sentence with the
//! dropped ones marked (`--format mark`), or a perplexity per sentence (`--format scores`);
//! optionally with CleanEval's `<p>`/`<h>`/`<l>` block markers or as Markdown. [`Layout`] names
//! them all, as every interface takes them.

use std::io::Write;

use crate::block::{Block, BlockKind};

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

/// Appends the rendering of `block` to `out`.
pub fn render_block(block: &Block, settings: RenderSettings, out: &mut Vec<u8>) {
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
}
