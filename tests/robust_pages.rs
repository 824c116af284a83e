//! Pages that used to crash the filter, cut it short or get it wrong, each made here from its
//! reproducer: long text nodes of multi-byte characters, UTF-8 without a declaration whose
//! sniffing window ends inside a character, UTF-16 without a BOM, NULs and other control
//! characters, pages of very many open elements, 8 MB in one element, blocks over the limit
//! and plain text read as a page.

use std::path::PathBuf;
use std::sync::Mutex;

use encoding_rs::{UTF_16BE, UTF_16LE, UTF_8};
use ppl_filter::decode::{DecodeError, EncodingSource, Markup, Utf8Decoder, SNIFF_BYTES};
use ppl_filter::html::{BlockParser, HtmlError, HtmlSettings};
use ppl_filter::lm;
use ppl_filter::pipeline::{self, InputFormat, Options, Problem};
use ppl_filter::sink::render::OutputMode;
use ppl_filter::sink::StreamSink;
use ppl_filter::source::Input;
use ppl_filter::Block;

use crate::common::{ppl_filter_keeping_all, ppl_filter_within, stderr, stdout, KEEP_ALL};

/// The blocks of a page and the problems reported, read `read_size` bytes at a time.
fn read(page: &[u8], options: &Options) -> (Vec<Block>, Vec<String>) {
    let read = pipeline::read_blocks(page, options);
    (
        read.blocks,
        read.problems.into_iter().map(|p| p.message()).collect(),
    )
}

fn texts(blocks: &[Block]) -> Vec<&str> {
    blocks.iter().map(|b| b.text.as_str()).collect()
}

fn all_text(blocks: &[Block]) -> String {
    texts(blocks).join(" ")
}

/// A page's text decoded by a [`Utf8Decoder`] fed `chunk` bytes at a time.
fn decode(
    bytes: &[u8],
    encoding: Option<&'static encoding_rs::Encoding>,
    chunk: usize,
) -> (Result<String, DecodeError>, Utf8Decoder) {
    let mut decoder = Utf8Decoder::new(encoding, Markup::Html);
    let mut text = String::new();
    for piece in bytes.chunks(chunk) {
        if let Err(e) = decoder.push(piece, &mut text) {
            return (Err(e), decoder);
        }
    }
    let result = decoder.finish(&mut text).map(|()| text);
    (result, decoder)
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

/// Bytes that are no text: a simple xorshift stream, the same every run.
fn garbage(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

// 1. A text node over 16 KiB of 3- and 4-byte characters panicked where its undecoded tail was
//    cut 40 bytes before its end, inside a character.

#[test]
fn long_text_nodes_of_multibyte_characters_do_not_panic() {
    for (unit, count) in [
        ("中", 100_000),
        ("—", 60_000),
        ("😀", 50_000),
        ("a—", 30_000),
        ("é&amp;中", 20_000),
    ] {
        let page = format!("<p>{}</p><p>after</p>", unit.repeat(count));
        for read_size in [1 << 20, 4093] {
            let mut options = Options::default();
            options.read.read_size = read_size;
            let (blocks, problems) = read(page.as_bytes(), &options);
            // Said once: a block was cut at the limit.
            assert_eq!(problems.len(), 1, "{unit}: {problems:?}");
            assert!(
                problems[0].contains("--max-block-bytes"),
                "{unit}: {problems:?}"
            );
            // One word longer than a block: cut in pieces of whole characters, all kept.
            let want = unit.replace("&amp;", "&");
            let (after, pieces) = blocks.split_last().unwrap();
            assert!(pieces.len() > 1 && pieces[0].truncated, "{unit}");
            assert!(pieces[0].text.len() > 16 * 1024, "{unit}");
            let whole: String = pieces.iter().map(|b| b.text.as_str()).collect();
            assert_eq!(whole, want.repeat(count), "{unit}");
            assert_eq!(after.text, "after");
        }
    }
}

#[test]
fn an_ascii_page_read_as_utf16_does_not_panic() {
    // Pairs of ASCII bytes read as UTF-16 are CJK and other 3-byte characters.
    let page = format!("<p>{}</p>", "plain ascii words ".repeat(5000));
    for encoding in [UTF_16LE, UTF_16BE] {
        let mut options = Options::default();
        options.read.encoding = Some(encoding);
        let (blocks, problems) = read(page.as_bytes(), &options);
        assert!(
            !blocks.is_empty() && problems.iter().all(|p| !p.contains("binary")),
            "{problems:?}"
        );
    }
}

// 2. UTF-8 without a BOM or a <meta charset>, longer than the sniffing window: the window cut
//    inside a character made chardetng rule UTF-8 out (a CJK page came out as windows-874).

#[test]
fn undeclared_utf8_is_sniffed_as_utf8_wherever_the_window_ends() {
    for sample in [
        "中文的网页内容，没有声明编码。",
        "Русский текст без объявления кодировки. ",
        "Ελληνικό κείμενο χωρίς δήλωση. ",
        "emoji 😀🎉 text ",
    ] {
        let body = sample.repeat(2 * SNIFF_BYTES / sample.len() + 1);
        let longest = sample.chars().map(char::len_utf8).max().unwrap();
        for pad in 0..longest {
            let page = format!("<html><body><p>{}{body}</p></body></html>", "x".repeat(pad));
            for chunk in [page.len(), 1000, 7] {
                let (text, decoder) = decode(page.as_bytes(), None, chunk);
                assert_eq!(text.unwrap(), page, "{sample:?} pad {pad} chunk {chunk}");
                assert_eq!(
                    decoder.encoding(),
                    Some((UTF_8, EncodingSource::Sniffed)),
                    "{sample:?} pad {pad}"
                );
                assert!(!decoder.had_replacements());
            }
        }
    }
}

#[test]
fn the_cjk_reproducer_comes_out_as_written() {
    let page = format!("<p>{}\n", "中".repeat(100_000));
    let (blocks, problems) = read(page.as_bytes(), &Options::default());
    assert!(
        problems.iter().all(|p| p.contains("--max-block-bytes")),
        "{problems:?}"
    );
    assert!(blocks[0].text.starts_with("中中中") && blocks[0].text.chars().all(|c| c == '中'));
}

// 3. UTF-16 without a BOM, declared by --encoding or by a WARC response's charset, was refused
//    as binary for the NULs of its ASCII characters.

#[test]
fn declared_utf16_without_bom_is_text() {
    let html = "<html><body><p>A page in UTF-16 with no byte-order mark: naïve café, 東京.</p></body></html>";
    for (encoding, big_endian) in [(UTF_16LE, false), (UTF_16BE, true)] {
        let bytes = utf16(html, big_endian);
        for chunk in [bytes.len(), 3] {
            let (text, decoder) = decode(&bytes, Some(encoding), chunk);
            assert_eq!(text.unwrap(), html);
            assert_eq!(
                decoder.encoding(),
                Some((encoding, EncodingSource::Override))
            );
        }
        let mut options = Options::default();
        options.read.encoding = Some(encoding);
        let (blocks, problems) = read(&bytes, &options);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            texts(&blocks),
            ["A page in UTF-16 with no byte-order mark: naïve café, 東京."]
        );
    }
}

#[test]
fn long_utf16_page_with_bom_or_declared_is_text() {
    let html = format!(
        "<p>{}</p>",
        "Some English text in a long UTF-16 page. ".repeat(1000)
    );
    let mut with_bom = vec![0xff, 0xfe];
    with_bom.extend(utf16(&html, false));
    let (text, _) = decode(&with_bom, None, 1000);
    assert_eq!(text.unwrap(), html);
    let (text, _) = decode(&with_bom[2..], Some(UTF_16LE), 1000);
    assert_eq!(text.unwrap(), html);
}

#[test]
fn binary_garbage_is_still_refused() {
    let bytes = garbage(40_000);
    for encoding in [None, Some(UTF_16LE), Some(UTF_16BE)] {
        for chunk in [bytes.len(), 4096] {
            assert_eq!(
                decode(&bytes, encoding, chunk).0,
                Err(DecodeError::Binary),
                "{encoding:?}"
            );
        }
        let short = &bytes[..3000];
        assert_eq!(
            decode(short, encoding, 100).0,
            Err(DecodeError::Binary),
            "{encoding:?}"
        );
    }
}

/// A temporary file removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8]) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("ppl-filter-robust-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs the whole pipeline on files: the output (documents separated by `separator`) and the
/// problems' messages.
fn run(files: &[&TempFile], options: &Options, separator: &[u8]) -> (Vec<u8>, Vec<String>) {
    let inputs: Vec<Input> = files.iter().map(|f| Input::File(f.0.clone())).collect();
    let mut sink = StreamSink::new(Vec::new(), separator);
    let problems = Mutex::new(Vec::new());
    let observe = |p: &Problem| problems.lock().unwrap().push(p.message());
    pipeline::run(&inputs, lm::model::embedded(), options, &mut sink, &observe).unwrap();
    (sink.into_inner(), problems.into_inner().unwrap())
}

#[test]
fn warc_response_in_utf16le_is_read() {
    let html =
        "<html><body><p>The museum opens a new wing for modern art this spring.</p></body></html>";
    let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-16le\r\n\r\n".to_vec();
    http.extend(utf16(html, false));
    let mut warc = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Date: 2024-05-03T12:00:00Z\r\n\
         WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000003>\r\n\
         WARC-Target-URI: http://example.com/\r\nContent-Type: application/http; msgtype=response\r\n\
         Content-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    warc.extend(http);
    warc.extend_from_slice(b"\r\n\r\n");
    let file = TempFile::new("utf16.warc", &warc);
    let mut options = Options::default();
    options.read.input_format = InputFormat::Warc;
    options.render.mode = OutputMode::Mark;
    options.threads = 1;
    let (out, problems) = run(&[&file], &options, b"\n");
    assert!(problems.is_empty(), "{problems:?}");
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("The museum opens a new wing for modern art this spring."),
        "{out}"
    );
}

// 4. NULs in a page's text reached the output (with `-0`, two documents gave three NULs).

#[test]
fn nul_and_control_characters_never_reach_the_text() {
    // Enough text around that the NULs do not make the page look binary.
    let filler = "<p>Words around the controls, enough of them.</p>".repeat(20);
    let page = format!("{filler}<p>nu\0ll te\x01xt&#1;here &#0;x</p><pre>a\x02b\0c\nd</pre><title>t\0i</title>{filler}");
    let (blocks, problems) = read(page.as_bytes(), &Options::default());
    assert!(problems.is_empty(), "{problems:?}");
    let blocks = &blocks[20..blocks.len() - 20];
    let text = all_text(blocks);
    // A code block keeps its line breaks, and no other control.
    assert!(!text.chars().any(|c| c < ' ' && c != '\n'), "{text:?}");
    assert_eq!(texts(blocks), ["null te xt here \u{fffd}x", "a bc\nd"]);
    let mut text_input = Options::default();
    text_input.read.input_format = InputFormat::Text;
    let (blocks, _) = read(
        format!(
            "one\0two\x03three\n\0\n\nfour\n\n{}",
            "filler words. ".repeat(30)
        )
        .as_bytes(),
        &text_input,
    );
    let blocks = &blocks[..2];
    assert_eq!(texts(blocks), ["onetwo three", "four"]);
}

#[test]
fn nul_separated_output_has_one_nul_per_document_boundary() {
    let filler = "<p>The page goes on with ordinary words and sentences.</p>".repeat(10);
    let first = TempFile::new(
        "nul1.html",
        format!("<p>The first page has a NUL\0 in its text.</p>{filler}").as_bytes(),
    );
    let second = TempFile::new(
        "nul2.html",
        format!("<p>The second\0 page too, a\0few of them.</p>{filler}").as_bytes(),
    );
    let mut options = Options::default();
    options.render.mode = OutputMode::Mark;
    options.threads = 1;
    let (out, _) = run(&[&first, &second], &options, b"\0");
    assert_eq!(
        out.iter().filter(|&&b| b == 0).count(),
        1,
        "{}",
        String::from_utf8_lossy(&out)
    );
    let mut plain = options;
    plain.read.input_format = InputFormat::Text;
    let (out, _) = run(&[&first, &second], &plain, b"\0");
    assert_eq!(
        out.iter().filter(|&&b| b == 0).count(),
        1,
        "{}",
        String::from_utf8_lossy(&out)
    );
}

// 5. Many open elements (unclosed or deeply nested) filled lol_html's stack, charged to the
//    parser memory limit, and the rest of the document was skipped.

fn unclosed_items(n: usize) -> String {
    "<li>item ".repeat(n) + "\n"
}

fn nested(tag: &str, n: usize, text: &str) -> String {
    format!(
        "{}{text}{}<p>after all",
        format!("<{tag}>").repeat(n),
        format!("</{tag}>").repeat(n)
    )
}

fn assert_all_read(blocks: &[Block], problems: &[String], words: &[&str]) {
    assert!(problems.is_empty(), "{problems:?}");
    let text = all_text(blocks);
    let got: Vec<&str> = text.split(' ').collect();
    assert_eq!(got.len(), words.len());
    assert!(
        got == words,
        "{:?} … {:?}",
        &got[..got.len().min(5)],
        &got[got.len().saturating_sub(5)..]
    );
}

#[test]
fn many_unclosed_items_are_all_read() {
    let page = unclosed_items(70_000);
    let (blocks, problems) = read(page.as_bytes(), &Options::default());
    assert_all_read(&blocks, &problems, &["item"; 70_000]);
    assert_eq!(blocks.len(), 70_000);
}

#[test]
fn a_million_nested_divs_are_read() {
    let page = nested("div", 1_000_000, "deep text");
    let (blocks, problems) = read(page.as_bytes(), &Options::default());
    assert_all_read(&blocks, &problems, &["deep", "text", "after", "all"]);
}

#[test]
fn deeply_nested_tables_are_read() {
    let page = "<table>".repeat(300_000) + "cell text here\n";
    let (blocks, problems) = read(page.as_bytes(), &Options::default());
    assert_all_read(&blocks, &problems, &["cell", "text", "here"]);
    let page = nested("table", 300_000, "cell");
    let (blocks, problems) = read(page.as_bytes(), &Options::default());
    assert_all_read(&blocks, &problems, &["cell", "after", "all"]);
}

#[test]
fn nesting_inside_skipped_elements_stays_skipped_and_ends() {
    let page = format!(
        "<p>before</p><svg>{}<text>vector</text></svg><p>after</p>",
        "<g>".repeat(100_000)
    );
    let (blocks, problems) = read(page.as_bytes(), &Options::default());
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(texts(&blocks), ["before", "after"]);
}

#[test]
fn a_small_parser_memory_limit_restarts_often_and_reads_everything() {
    let html = HtmlSettings {
        max_parser_memory: 16 * 1024,
        ..HtmlSettings::default()
    };
    let options = Options {
        html,
        ..Options::default()
    };
    let (blocks, problems) = read(unclosed_items(70_000).as_bytes(), &options);
    assert_all_read(&blocks, &problems, &["item"; 70_000]);
    let (blocks, problems) = read(nested("div", 100_000, "deep").as_bytes(), &options);
    assert_all_read(&blocks, &problems, &["deep", "after", "all"]);
}

/// A page whose every part a restart could disturb: lists of links, unclosed items and cells,
/// classes that hint at navigation, a `pre`, inline elements.
fn busy_page(items: usize) -> String {
    let mut page = String::from("<html><body><div class=nav><ul>");
    for i in 0..items {
        page += &format!("<li><a href=/{i}>link {i}</a> and <span><b>text {i}</b>");
        if i % 7 == 0 {
            page += "</ul></div><div id=main><p>A paragraph <a href=x>with a link";
            page += "<table><tr><td>cell<td>other</table><pre>one\ntwo</pre></a> ends.</p></div><div class=nav><ul>";
        }
    }
    page + "</ul></div><footer><p>Footer text</footer></body></html>"
}

/// What a block tells later stages.
fn summary(blocks: &[Block]) -> Vec<(String, ppl_filter::BlockKind, usize, u8)> {
    blocks
        .iter()
        .map(|b| (b.text.clone(), b.kind, b.link_bytes, b.hints.0))
        .collect()
}

#[test]
fn restarts_keep_the_tracked_elements() {
    // Few unclosed elements at a time: with a small memory limit the parser restarts often,
    // and the blocks are still those of one uninterrupted parse.
    let page = busy_page(3000);
    let (reference, problems) = read(page.as_bytes(), &Options::default());
    assert!(problems.is_empty(), "{problems:?}");
    for memory in [8 * 1024, 64 * 1024] {
        let html = HtmlSettings {
            max_parser_memory: memory,
            ..HtmlSettings::default()
        };
        let (blocks, problems) = read(
            page.as_bytes(),
            &Options {
                html,
                ..Options::default()
            },
        );
        assert!(problems.is_empty(), "{memory}: {problems:?}");
        assert!(summary(&blocks) == summary(&reference), "{memory}");
    }
}

#[test]
fn restarts_do_not_depend_on_the_read_size() {
    let pages = [
        unclosed_items(20_000),
        nested("div", 30_000, "deep"),
        busy_page(2000),
    ];
    let html = HtmlSettings {
        max_parser_memory: 32 * 1024,
        ..HtmlSettings::default()
    };
    for page in &pages {
        let with_read_size = |read_size| {
            let mut options = Options {
                html: html.clone(),
                ..Options::default()
            };
            options.read.read_size = read_size;
            options
        };
        let whole = read(page.as_bytes(), &with_read_size(1 << 20));
        for read_size in [1, 3, 1000, 16 * 1024 + 1] {
            let chunked = read(page.as_bytes(), &with_read_size(read_size));
            assert!(
                summary(&chunked.0) == summary(&whole.0) && chunked.1 == whole.1,
                "read size {read_size}"
            );
        }
        // Straight into the parser, in pieces of every size around the piece boundary.
        for step in [5, 4096, 16 * 1024 - 1, 16 * 1024 + 3] {
            let mut parser = BlockParser::new(html.clone());
            let mut blocks = Vec::new();
            let mut rest = page.as_str();
            while !rest.is_empty() {
                let mut cut = step.min(rest.len());
                while !rest.is_char_boundary(cut) {
                    cut += 1;
                }
                parser.write(&rest[..cut], &mut blocks).unwrap();
                rest = &rest[cut..];
            }
            parser.end(&mut blocks).unwrap();
            assert!(summary(&blocks) == summary(&whole.0), "step {step}");
        }
    }
}

#[test]
fn a_huge_tag_still_ends_the_document() {
    let page = format!(
        "<p>before</p><div data-x=\"{}\">after</div>",
        "a".repeat(20 << 20)
    );
    let (blocks, problems) = read(page.as_bytes(), &Options::default());
    assert_eq!(texts(&blocks), ["before"]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("parser memory limit"), "{problems:?}");
    let mut parser = BlockParser::new(HtmlSettings::default());
    let mut blocks = Vec::new();
    let result = parser.write(&page, &mut blocks);
    assert!(
        matches!(result, Err(HtmlError::MemoryLimit(_))),
        "{result:?}"
    );
}

// 5. A `<title>` with no `<` in it took quadratic time (its whole text so far was searched again
// at every chunk: 8 MB took seconds, 200 MB never finished), and a block over the 64 KiB limit
// (a huge `<p>`, a plain-text file read as a page) lost the rest of its text without a word.

/// About `bytes` bytes of prose: sentences of words, spaces between them.
fn prose(bytes: usize) -> String {
    let sentence = "The council met on Tuesday and voted for the river plan. ";
    sentence.repeat(bytes / sentence.len() + 1)
}

/// `text` without its white space, to compare what was written with what was read.
fn squeezed(text: &str) -> String {
    text.split_whitespace().collect()
}

#[test]
fn eight_megabytes_in_any_element_are_read_in_linear_time() {
    let words = prose(8 << 20);
    let lines = "a line of words\n".repeat(1 << 19);
    let pages = [
        ("title", format!("<title>{words}</title><p>After.</p>")),
        ("title, markup at its end", format!("<title>{words}<b></title><p>After.</p>")),
        ("p", format!("<p>{words}</p>")),
        ("link", format!("<p><a href=/>{words}</a></p>")),
        ("pre", format!("<pre>{lines}</pre>")),
        ("json-ld", format!("<script type=application/ld+json>{{\"description\": \"{words}\"}}</script><p>After.</p>")),
        ("noscript", format!("<noscript>{words}</noscript><p>After.</p>")),
        ("style", format!("<style>{words}</style><p>After.</p>")),
        ("comment", format!("<!--{}--><p>After.</p>", &words[..6 << 20])),
        ("textarea", format!("<textarea>{words}</textarea><p>After.</p>")),
        ("meta", format!("<meta name=description content=\"{}\"><p>After.</p>", &words[..6 << 20])),
        ("wrapper", format!("<text id=\"u\" title=\"{}\"><p>After.</p></text>", &words[..6 << 20])),
    ];
    // Written to a file, so that a full pipe cannot stall the run.
    let dir = std::env::temp_dir().join(format!("ppl-filter-robust-{}-8mb", std::process::id()));
    let out_dir = dir.to_str().unwrap();
    for (what, page) in &pages {
        for args in [&[][..], &["--title", "--format", "json"]] {
            let args = [&KEEP_ALL[..], &["-o", out_dir], args].concat();
            let limit = std::time::Duration::from_secs(20);
            let out = ppl_filter_within(&args, page.as_bytes(), limit);
            assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

#[test]
fn a_block_over_the_limit_is_cut_into_blocks_and_all_its_text_written() {
    let words = prose(300_000);
    for page in [format!("<p>{words}</p>"), format!("<div><em>{words}</em>")] {
        let out = ppl_filter_keeping_all(&[], page.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.lines().count() >= 5);
        assert!(text.lines().all(|line| line.len() <= 64 * 1024));
        // Each cut comes after a sentence.
        assert!(text.lines().all(|line| line.ends_with("river plan.")));
        assert_eq!(squeezed(&text), squeezed(&words));
    }
}

#[test]
fn a_plain_text_file_is_read_as_text_and_written_whole() {
    // 846 KB of paragraphs separated by blank lines, each of two lines; no markup.
    let paragraph = |i: usize| {
        format!("Paragraph {i} tells of the council and its plan for the river.\nIts second line says that the work will begin in the spring. ")
    };
    let paragraphs: Vec<String> = (0..7000).map(paragraph).collect();
    let text = paragraphs.join("\n\n");
    assert!(text.len() > 846_000);
    let file = TempFile::new("plain.txt", text.as_bytes());
    let path = file.0.to_str().unwrap();
    let out = ppl_filter_keeping_all(&[path], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = stdout(&out);
    let want: Vec<String> = paragraphs
        .iter()
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(written.lines().collect::<Vec<_>>(), want);
    // Read as HTML when said to be, as before: one block, cut in several, nothing lost.
    let out = ppl_filter_keeping_all(&["--input", "html", path], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).lines().count() > 12);
    assert_eq!(squeezed(&stdout(&out)), squeezed(&text));
}
