//! One document: bytes → UTF-8 ([`crate::decode`]) → blocks ([`crate::html`] or
//! [`crate::plain`]: a page whose text starts with no markup is plain text), handed on as they
//! are cut.

use std::io::{self, Read};

use std::sync::Arc;

use super::{InputFormat, Options, Trouble};
use crate::block::{Block, BlockKind, ContainerHints, PageInfo};
use crate::decode::{DecodeError, EncodingSource, Markup, Utf8Decoder};
use crate::html::{BlockParser, HtmlSettings};
use crate::plain::TextBlocks;
use crate::source::sniff::{has_markup, MARKUP_HEAD_BYTES};

/// The output is gone (the writer stopped, for example after `| head`): reading stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OutputClosed;

/// How one document's bytes are read: as HTML or plain text, and in which encoding (`None`:
/// detected). A WARC response's HTTP header or a JSONL field may set them per document.
#[derive(Clone, Copy, Debug)]
pub(super) struct DocumentKind {
    pub format: InputFormat,
    pub encoding: Option<&'static encoding_rs::Encoding>,
    /// HTML whose text starts with no markup is read as plain text
    /// ([`super::ReadSettings::text_without_markup`]).
    pub text_without_markup: bool,
}

impl DocumentKind {
    /// The run's own format and encoding (a whole input).
    pub fn of(options: &Options) -> DocumentKind {
        DocumentKind {
            format: options.read.input_format,
            encoding: options.read.encoding,
            text_without_markup: options.read.text_without_markup,
        }
    }

    /// A record's (a WARC response's, a JSONL field's) `format` and encoding, which its
    /// record says.
    pub fn of_record(
        format: InputFormat,
        encoding: Option<&'static encoding_rs::Encoding>,
    ) -> DocumentKind {
        DocumentKind {
            format,
            encoding,
            text_without_markup: false,
        }
    }
}

/// What reading one document found besides its blocks.
#[derive(Debug, Default)]
pub(super) struct Findings {
    /// Problems, in the order they were met (the caller names the input).
    pub problems: Vec<Trouble>,
    /// What the page said about itself.
    pub page: PageInfo,
    /// Bytes read (after gzip).
    pub bytes: u64,
}

impl Findings {
    fn problem(&mut self, trouble: Trouble) {
        self.problems.push(trouble);
    }
}

/// Cuts one document's decoded text into blocks: the HTML parser or the plain-text splitter.
enum Cutter {
    Html {
        parser: Box<BlockParser>,
        /// The parser gave up: the rest of the text is dropped.
        failed: bool,
    },
    Text(Box<TextBlocks>),
    /// A page whose first [`MARKUP_HEAD_BYTES`] of text are held to tell whether it holds
    /// markup ([`has_markup`]): HTML or plain text.
    Undecided {
        head: String,
        settings: HtmlSettings,
    },
}

impl Cutter {
    fn new(kind: DocumentKind, options: &Options) -> (Markup, Cutter) {
        match kind.format {
            InputFormat::Text => (Markup::Text, Cutter::text(&options.html)),
            // Decoded as HTML all the same: a page without markup has no `<meta charset>`.
            _ if kind.text_without_markup => (
                Markup::Html,
                Cutter::Undecided {
                    head: String::new(),
                    settings: options.html.clone(),
                },
            ),
            _ => (Markup::Html, Cutter::html(&options.html)),
        }
    }

    fn text(settings: &HtmlSettings) -> Cutter {
        Cutter::Text(Box::new(TextBlocks::new(settings.max_block_bytes)))
    }

    fn html(settings: &HtmlSettings) -> Cutter {
        Cutter::Html {
            parser: Box::new(BlockParser::new(settings.clone())),
            failed: false,
        }
    }

    /// An undecided page's cutter, told from its `head` (the start of its text, or all of it
    /// at its end), which is then fed to it.
    fn decide(&mut self, blocks: &mut Vec<Block>, findings: &mut Findings) {
        let Cutter::Undecided { head, settings } = self else {
            return;
        };
        let head = std::mem::take(head);
        let start = &head.as_bytes()[..head.len().min(MARKUP_HEAD_BYTES)];
        *self = match has_markup(start) {
            true => Cutter::html(settings),
            false => Cutter::text(settings),
        };
        self.feed(&head, blocks, findings);
    }

    /// Cuts `text` into `blocks` (nothing once the HTML parser has given up).
    fn feed(&mut self, text: &str, blocks: &mut Vec<Block>, findings: &mut Findings) {
        match self {
            Cutter::Undecided { head, .. } => {
                head.push_str(text);
                if head.len() >= MARKUP_HEAD_BYTES {
                    self.decide(blocks, findings);
                }
            }
            Cutter::Html { failed: true, .. } => {}
            Cutter::Html { parser, failed } => {
                if let Err(e) = parser.write(text, blocks) {
                    *failed = true;
                    findings.problem(Trouble::ParserGaveUp(Arc::new(e)));
                }
            }
            Cutter::Text(splitter) => splitter.write(text, blocks),
        }
    }

    /// Cuts what is left at the document's end.
    fn end(mut self, blocks: &mut Vec<Block>, findings: &mut Findings) {
        self.decide(blocks, findings);
        match self {
            Cutter::Html { parser, failed } => {
                let (result, page) = parser.end_page(blocks);
                findings.page = page;
                if let (Err(e), false) = (result, failed) {
                    findings.problem(Trouble::ParserAtEnd(Arc::new(e)));
                }
            }
            Cutter::Text(splitter) => splitter.end(blocks),
            // Decided above.
            Cutter::Undecided { .. } => {}
        }
    }
}

/// Reads one document, handing its blocks to `emit` as they are cut. Problems are collected
/// in `findings`, not fatal: what was read is kept. Stops early only when `emit` says the
/// output is gone.
pub(super) fn read_document(
    reader: &mut dyn Read,
    options: &Options,
    kind: DocumentKind,
    findings: &mut Findings,
    emit: &mut dyn FnMut(&mut Vec<Block>) -> Result<(), OutputClosed>,
) -> Result<(), OutputClosed> {
    let (markup, mut cutter) = Cutter::new(kind, options);
    let mut decoder = Utf8Decoder::new(kind.encoding, markup);
    let mut buffer = vec![0u8; options.read.read_size.max(1)];
    let mut text = String::new();
    let mut blocks = Vec::new();
    let mut binary = false;
    let mut shown = Shown::default();
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                findings.problem(Trouble::Read(Arc::new(e)));
                break;
            }
        };
        if let Err(DecodeError::Binary) = decoder.push(&buffer[..n], &mut text) {
            binary = true;
            break;
        }
        // Once the parser has given up, the rest is still read and decoded (and dropped), so
        // that what is reported about the input does not depend on where a read ended.
        cutter.feed(&text, &mut blocks, findings);
        text.clear();
        if !blocks.is_empty() {
            shown.see(&blocks);
            emit(&mut blocks)?;
        }
    }
    findings.bytes = decoder.bytes_seen();
    if binary || decoder.finish(&mut text) == Err(DecodeError::Binary) {
        findings.problem(Trouble::Binary);
        return Ok(());
    }
    cutter.feed(&text, &mut blocks, findings);
    cutter.end(&mut blocks, findings);
    shown.see(&blocks);
    if options.html.as_seen {
        shown.describe_if_bare(&findings.page, &mut blocks);
    }
    if shown.cut {
        findings.problem(Trouble::BlockCut(options.html.max_block_bytes));
    }
    if let Some((_, EncodingSource::Utf8OverMeta { declared })) = decoder.encoding() {
        findings.problem(Trouble::Utf8OverMeta(declared));
    }
    if decoder.bytes_seen() == 0 {
        findings.problem(Trouble::Empty);
    } else if decoder.had_replacements() {
        let (encoding, _) = decoder
            .encoding()
            .unwrap_or((encoding_rs::UTF_8, EncodingSource::Sniffed));
        findings.problem(Trouble::Replaced {
            encoding,
            declared: decoder.encoding_declared(),
        });
    }
    if blocks.is_empty() {
        Ok(())
    } else {
        emit(&mut blocks)
    }
}

/// How many words a page's body showed (counted up to [`Shown::FEW`]), and the number of its
/// next block.
#[derive(Default)]
struct Shown {
    words: usize,
    next_index: u32,
    /// A block was cut at the block limit.
    cut: bool,
}

impl Shown {
    /// Fewer words than this, and the body is a frame drawn by script (a forum or shop whose
    /// markup holds a few words of its menu at most). On the shared pages every body that
    /// shows fewer than 40 words has a gold text of 195 to 1,839 words; a forum drawn by
    /// script shows 5, while a weather box framed before a news story shows 13 and its
    /// description is the station's tagline, not the story.
    const FEW: usize = 10;

    fn see(&mut self, blocks: &[Block]) {
        if let Some(last) = blocks.last() {
            self.next_index = last.index.saturating_add(1);
        }
        self.cut |= blocks.iter().any(|b| b.truncated);
        for b in blocks {
            if self.words >= Self::FEW {
                return;
            }
            if !b.hints.has(ContainerHints::TITLE) {
                self.words += b
                    .text
                    .split_whitespace()
                    .filter(|w| w.chars().any(char::is_alphanumeric))
                    .count();
            }
        }
    }

    /// A page whose body shows fewer than [`Shown::FEW`] words is also given the summary it
    /// gives of itself, its description, when it has one, as a last block: when the page is
    /// read as readers see it ([`crate::html::HtmlSettings::as_seen`]: the combined method, and
    /// `learn`, which reads its pages as the combined method does), whose decision takes it as
    /// any other block.
    fn describe_if_bare(&self, page: &PageInfo, blocks: &mut Vec<Block>) {
        if let (true, Some(description)) = (self.words < Self::FEW, &page.description) {
            blocks.push(Block::new(
                self.next_index,
                BlockKind::Paragraph,
                description.clone(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::Method;

    /// Reads `bytes` as one HTML document, `read_size` bytes at a time: its blocks' texts, its
    /// problems' messages, and how many times blocks were handed on.
    fn read(bytes: &[u8], read_size: usize) -> (Vec<String>, Vec<String>, usize) {
        read_with(bytes, read_size, Options::with_method(Method::Perplexity))
    }

    /// [`read`] with `options`.
    fn read_with(
        bytes: &[u8],
        read_size: usize,
        mut options: Options,
    ) -> (Vec<String>, Vec<String>, usize) {
        options.read.read_size = read_size;
        let mut findings = Findings::default();
        let (mut texts, mut emits) = (Vec::new(), 0);
        let read = read_document(
            &mut &bytes[..],
            &options,
            DocumentKind::of(&options),
            &mut findings,
            &mut |blocks| {
                emits += 1;
                texts.extend(blocks.drain(..).map(|b| b.text));
                Ok(())
            },
        );
        assert_eq!(read, Ok(()));
        let problems = findings.problems.iter().map(|t| t.to_string()).collect();
        (texts, problems, emits)
    }

    #[test]
    fn a_page_whose_body_shows_few_words_is_given_its_description_for_the_combined_method() {
        let described = "<html><head><meta name=description content='Howdy, I am new to \
            astronomy and want my first telescope.'></head><body><section id=main> \
            </section><form><input value=Log></form></body></html>";
        let summary = "Howdy, I am new to astronomy and want my first telescope.";
        for read_size in [1, 7, 1 << 16] {
            let (texts, _, _) = read_with(described.as_bytes(), read_size, Options::default());
            assert_eq!(texts, [summary], "read size {read_size}");
        }
        // Not with the perplexity method; but when the page is read as the combined method
        // reads it with no classifier, as `learn` reads its pages.
        assert!(read(described.as_bytes(), 64).0.is_empty());
        let learning = Options::reading_only();
        assert_eq!(read_with(described.as_bytes(), 64, learning).0, [summary]);
        // After the few words the body shows, not when it shows ten.
        let few = described.replace("</section>", "Loading</section>");
        let (texts, _, _) = read_with(few.as_bytes(), 64, Options::default());
        assert_eq!(texts, ["Loading", summary]);
        let words = ["word"; Shown::FEW].join(" ");
        let shown = described.replace("</section>", &format!("{words}</section>"));
        let (texts, _, _) = read_with(shown.as_bytes(), 64, Options::default());
        assert_eq!(texts, [words]);
    }

    #[test]
    fn a_block_cut_at_the_block_limit_is_said_once_and_its_text_kept() {
        let code = "let x = y;\n".repeat(20_000);
        let page = format!("<pre>{code}</pre><p>{}</p>", "word ".repeat(20_000));
        let (texts, problems, _) = read(page.as_bytes(), 1 << 16);
        assert!(texts.len() > 2, "{}", texts.len());
        assert_eq!(
            problems,
            ["a block longer than --max-block-bytes (65536 bytes) was cut into blocks of that size"]
        );
        assert_eq!(texts.concat().matches("let x = y;").count(), 20_000);
    }

    #[test]
    fn blocks_come_as_they_are_cut_and_the_same_for_any_read_size() {
        let page = b"<p>One paragraph here.</p><p>Another one there.</p><div>A third.</div>";
        let (whole, problems, _) = read(page, 1 << 16);
        assert_eq!(
            whole,
            ["One paragraph here.", "Another one there.", "A third."]
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(read(page, 1).0, whole);
        // A page longer than the parser's pieces is handed on piece by piece.
        let long: String = (0..3000)
            .map(|i| format!("<p>Paragraph {i}.</p>"))
            .collect();
        let (all, _, emits) = read(long.as_bytes(), 997);
        assert_eq!(all.len(), 3000);
        assert_eq!(all[2999], "Paragraph 2999.");
        assert!(emits > 1, "blocks are handed on before the end");
    }

    #[test]
    fn a_page_with_no_markup_is_read_as_plain_text_alike_for_any_read_size() {
        let text = "First paragraph, its first line\nand its second.\n\nSecond &amp; last.\n";
        let paragraphs = [
            "First paragraph, its first line and its second.",
            "Second &amp; last.",
        ];
        for read_size in [1, 7, 1 << 16] {
            assert_eq!(read(text.as_bytes(), read_size).0, paragraphs);
        }
        // Longer than what is looked at to tell, in any pieces.
        let long = format!("{}\n\n", "A line of words.\n".repeat(40)).repeat(20);
        let whole = read(long.as_bytes(), 1 << 16).0;
        assert_eq!(whole.len(), 20);
        assert_eq!(read(long.as_bytes(), 1).0, whole);
        assert_eq!(read(long.as_bytes(), 4095).0, whole);
        // Markup in its first 4 KiB: HTML, where blank lines separate nothing.
        let one = "First paragraph, its first line and its second. Second & last.";
        assert_eq!(read(format!("{text}<br>").as_bytes(), 64).0, [one]);
        // Inputs said to be HTML are read as HTML.
        let mut options = Options::with_method(Method::Perplexity);
        options.read.text_without_markup = false;
        assert_eq!(read_with(text.as_bytes(), 64, options).0, [one]);
    }

    #[test]
    fn empty_binary_and_badly_encoded_inputs_are_reported() {
        assert_eq!(read(b"", 64).1, ["empty input"]);
        let (texts, problems, _) = read(b"\x00\x01\x02\x03PNG\x00\x00\x00binary", 64);
        assert!(texts.is_empty());
        assert_eq!(problems, ["binary data, not text: skipped"]);
        let (texts, problems, _) = read(b"<meta charset=utf-8><p>caf\xe9</p>", 64);
        assert_eq!(texts, ["caf\u{fffd}"]);
        assert_eq!(
            problems,
            ["bytes invalid in its declared encoding UTF-8 were replaced by U+FFFD"]
        );
    }

    #[test]
    fn a_closed_output_stops_the_reading() {
        let page = "<p>block</p>".repeat(100);
        let mut options = Options::with_method(Method::Perplexity);
        options.read.read_size = 16;
        let mut calls = 0;
        let read = read_document(
            &mut page.as_bytes(),
            &options,
            DocumentKind::of(&options),
            &mut Findings::default(),
            &mut |_| {
                calls += 1;
                Err(OutputClosed)
            },
        );
        assert_eq!(read, Err(OutputClosed));
        assert_eq!(calls, 1);
    }
}
