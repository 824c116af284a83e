//! Mutation fuzzing of every reader, on stable Rust: proptest picks a seed (a fixture page, a
//! WARC or WARC.gz file, the JSONL fixture, a language model, a classifier) and a list of
//! mutations (bit and byte changes, inserted, deleted, duplicated and spliced ranges, truncation,
//! pathological constructs: huge CJK or emoji text nodes, 70,000 unclosed `<li>`, deep nesting,
//! NUL bytes, huge attributes, `\ud800` escapes, huge Content-Length, `HTTP/1.1 100 Continue`,
//! junk between gzip members, extreme model and classifier values, trees whose nodes share
//! children), and the damaged bytes go to:
//!
//! * the HTML pipeline: `pipeline::run` with one thread and a whole-page read, with two threads
//!   and a random read size, and `pipeline::clean_bytes`, which must all give the same bytes;
//! * `WarcReader` (never panics, ends, every error one line, the same records for any buffer
//!   size) and the WARC pipeline (the same output for one and two threads, any read size);
//! * `JsonlLines` and `parse_line_bytes` (never panic, lines numbered in order, a rewritten line
//!   is JSON with the new value) and the JSONL pipeline (one output line per input line, the
//!   same output for one and two threads);
//! * `Classifier::from_bytes` and `LanguageModel::from_bytes` (never panic, finish, one-line
//!   errors; what loads cleans a page alike with one and two threads), and a model opened with
//!   `LanguageModel::open` whose file is cut while it is mapped.
//!
//! Every property runs in a child process with a time limit (proptest's fork and timeout), so
//! a hang or a crash (SIGBUS, abort) fails the property instead of the whole run.
//!
//! Short by default (`cargo test --release` stays fast); `FUZZ_CASES=N` runs N cases per
//! property (e.g. `FUZZ_CASES=100000` for a long run), `FUZZ_TIMEOUT_MS` sets the time limit per
//! case (default 60000: the slowest cases, 24 MiB pages read a byte at a time, take about 2 s
//! here and far longer on a loaded two-core machine; a hang never ends), `FUZZ_SHRINK_SECONDS` how long a failure is shrunk (default 30), and
//! `FUZZ_SEED_DIRS=dir1:dir2` adds the HTML pages of those directories to the seeds.
//!
//! proptest prints the smallest failing recipe; its bytes are also kept in
//! `target/tmp/fuzz-failures/<property>-failing.<ext>` (an input that crashed or hung the child
//! in `<property>-crashed.<ext>`), and `FUZZ_REPLAY=FILE cargo test --release --test tests
//! fuzz::replay -- --ignored` runs such a file (or one kept by `scripts/fuzz.sh`) through the
//! checks again.

use std::collections::HashSet;
use std::io::{BufReader, Cursor, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use ppl_filter::decide::{Classifier, Method};
use ppl_filter::lm::model::{self, LanguageModel};
use ppl_filter::lm::train::{train_sentences, TrainOptions};
use ppl_filter::pipeline::{self, InputFormat, Options, Problem};
use ppl_filter::sink::render::{Layout, OutputFormat, OutputMode};
use ppl_filter::sink::{RecordFormat, RecordSink, Sink, StreamSink};
use ppl_filter::source::jsonl::{parse_line_bytes, Extra, JsonlLines};
use ppl_filter::source::warc::{http_response_parts, WarcReader};
use ppl_filter::source::{maybe_gunzip, Input};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseError};
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Configuration

/// Cases per property: `FUZZ_CASES`, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs in a child process with a time limit per case; no regression files are written.
fn config(default_cases: u32) -> Config {
    Config {
        cases: cases(default_cases),
        failure_persistence: None,
        timeout: std::env::var("FUZZ_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60_000),
        max_shrink_time: 20_000,
        max_shrink_iters: 2048,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Seeds

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn files_in(dir: &Path, suffixes: &[&str]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| suffixes.iter().any(|s| p.to_string_lossy().ends_with(s)))
        .collect();
    files.sort();
    files
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// Every seed, loaded once.
struct Seeds {
    /// The fixture pages (and `empty.html`), then any pages of `FUZZ_SEED_DIRS`.
    pages: Vec<Vec<u8>>,
    /// Plain WARC streams: the fixtures (the .gz one decompressed) and files built from records.
    warcs: Vec<Vec<u8>>,
    /// The raw `small.warc.gz` (its last member is cut).
    warc_gz: Vec<u8>,
    jsonls: Vec<Vec<u8>>,
    texts: Vec<Vec<u8>>,
    /// Small models trained on the gold text (orders 2, 3 and 4), then the embedded model.
    models: Vec<Vec<u8>>,
    /// Small classifiers over a small model, then `model/en-classifier.bin`.
    classifiers: Vec<Vec<u8>>,
}

fn seeds() -> &'static Seeds {
    static SEEDS: OnceLock<Seeds> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut pages: Vec<Vec<u8>> = files_in(&fixture("fixtures/pages"), &[".html"]).iter().map(|p| read(p)).collect();
        pages.push(read(&fixture("fixtures/empty.html")));
        for dir in std::env::var("FUZZ_SEED_DIRS").unwrap_or_default().split(':').filter(|d| !d.is_empty()) {
            pages.extend(files_in(Path::new(dir), &[".html", ".htm"]).iter().map(|p| read(p)));
        }
        let warc_gz = read(&fixture("fixtures/warc/small.warc.gz"));
        let mut unzipped = Vec::new();
        let _ = MultiGzDecoder::new(&warc_gz[..]).read_to_end(&mut unzipped); // the last member is cut
        let mut warcs = vec![read(&fixture("fixtures/warc/small.warc")), unzipped];
        warcs.push(built_warc(&pages[..pages.len().min(7)]));
        warcs.push(built_warc(&pages[pages.len().min(7) - 2..pages.len().min(7)]));
        let texts: Vec<Vec<u8>> = files_in(&fixture("fixtures/eval/gold"), &[".txt"])
            .iter()
            .chain([fixture("fixtures/gold/news.txt")].iter())
            .map(|p| read(p))
            .collect();
        let mut jsonls = vec![read(&fixture("fixtures/jsonl/pages.jsonl"))];
        jsonls.push(built_jsonl(&pages[..pages.len().min(7)], &texts));
        let sentences: Vec<String> = texts
            .iter()
            .flat_map(|t| String::from_utf8_lossy(t).lines().map(str::to_string).collect::<Vec<_>>())
            .filter(|l| !l.trim().is_empty())
            .collect();
        let mut models: Vec<Vec<u8>> = [2, 3, 4]
            .iter()
            .map(|&order| {
                let options = TrainOptions { order, min_count: 1, ..TrainOptions::default() };
                train_sentences(sentences.iter().map(String::as_str), "fuzz seeds", &options).unwrap().bytes
            })
            .collect();
        let embedded_classifier = read(&fixture("model/en-classifier.bin"));
        let (json, _) = split_classifier(&embedded_classifier).expect("the embedded classifier splits");
        let mut classifiers = Vec::new();
        for (trees, model) in [(1, &models[0]), (3, &models[1]), (10, &models[2])] {
            let mut weights = json.clone();
            if let Some(list) = weights.pointer_mut("/scorer/trees").and_then(Value::as_array_mut) {
                list.truncate(trees);
            }
            classifiers.push(join_classifier(&serde_json::to_vec(&weights).unwrap(), model));
        }
        let mut logistic = json.clone();
        logistic["scorer"] = serde_json::json!({
            "kind": "logistic", "mean": vec![0.5; INPUTS], "scale": vec![1.0; INPUTS],
            "weights": (0..INPUTS).map(|i| 0.01 * ((i % 7) as f64 - 3.0)).collect::<Vec<_>>(), "intercept": 0.25,
        });
        classifiers.push(join_classifier(&serde_json::to_vec(&logistic).unwrap(), &models[0]));
        classifiers.push(embedded_classifier);
        models.push(ppl_filter::lm::model::embedded_bytes().to_vec());
        Seeds { pages, warcs, warc_gz, jsonls, texts, models, classifiers }
    })
}

/// The classifier's input width (`decide::INPUTS`).
const INPUTS: usize = 27 * 5;

/// A WARC of a warcinfo, a request, and one HTML response per page.
fn built_warc(pages: &[Vec<u8>]) -> Vec<u8> {
    let mut out = warc_record(
        "<urn:uuid:fuzz-0>",
        "warcinfo",
        "application/warc-fields",
        b"software: fuzz\r\n",
    );
    out.extend(warc_record(
        "<urn:uuid:fuzz-1>",
        "request",
        "application/http; msgtype=request",
        b"GET / HTTP/1.1\r\n\r\n",
    ));
    for (i, page) in pages.iter().enumerate() {
        let mut block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
        block.extend_from_slice(page);
        out.extend(warc_record(
            &format!("<urn:uuid:fuzz-page-{i}>"),
            "response",
            "application/http; msgtype=response",
            &block,
        ));
    }
    out
}

fn warc_record(id: &str, kind: &str, content_type: &str, block: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: {id}\r\nWARC-Date: 2024-05-01T12:00:00Z\r\n\
         WARC-Target-URI: http://example.com/{kind}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// One JSONL line per page (`html`) and per text (`text`).
fn built_jsonl(pages: &[Vec<u8>], texts: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        let line = serde_json::json!({"id": i, "html": String::from_utf8_lossy(page), "n": 1.5});
        out.extend(serde_json::to_vec(&line).unwrap());
        out.push(b'\n');
    }
    for text in texts {
        let line =
            serde_json::json!({"text": String::from_utf8_lossy(text), "meta": {"a": [1, 2]}});
        out.extend(serde_json::to_vec(&line).unwrap());
        out.push(b'\n');
    }
    out
}

/// (weights JSON, model bytes) of a well-formed classifier file.
fn split_classifier(bytes: &[u8]) -> Option<(Value, &[u8])> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let len: usize = std::str::from_utf8(&bytes[..end])
        .ok()?
        .strip_prefix("PPLC 1 ")?
        .parse()
        .ok()?;
    let json = serde_json::from_slice(bytes.get(end + 1..end + 1 + len)?).ok()?;
    Some((json, &bytes[end + 1 + len..]))
}

fn join_classifier(json: &[u8], model: &[u8]) -> Vec<u8> {
    let mut out = format!("PPLC 1 {}\n", json.len()).into_bytes();
    out.extend_from_slice(json);
    out.extend_from_slice(model);
    out
}

// ---------------------------------------------------------------------------------------------
// Mutations

/// Markup worth inserting into HTML (and into the HTML inside WARC and JSONL).
const HTML_TOKENS: &[&[u8]] = &[
    b"<",
    b">",
    b"</",
    b"<p>",
    b"</p>",
    b"<div>",
    b"</div>",
    b"<li>",
    b"<br>",
    b"<pre>",
    b"</pre>",
    b"<table>",
    b"<td>",
    b"<tr>",
    b"<a href='/x'>",
    b"</a>",
    b"<script>",
    b"</script>",
    b"<style>",
    b"<!--",
    b"-->",
    b"<![CDATA[",
    b"<title>",
    b"<h1>",
    b"<nav>",
    b"<textarea>",
    b"<plaintext>",
    b"<svg>",
    b"<template>",
    b"&amp;",
    b"&",
    b"&#",
    b"&#x",
    b"&#0;",
    b"&#xD800;",
    b"&#x10FFFF;",
    b"&#1114112;",
    b"&nbsp;",
    b"&notin",
    b"\0",
    b"\r",
    b"\r\n",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xc3",
    b"\xe4\xb8",
    b"\xe2\x80\xa8",
    b"\xcc\x81",
    b"\xf0\x9f\x98\x80",
    b". ",
    b"... ",
    b"Mr. ",
    b"http://x.y/z.html ",
    b"3.14 ",
    b"<meta charset=utf-16>",
    b"<meta charset=shift_jis>",
    b"<meta charset=x-user-defined>",
    b"<meta charset=replacement>",
    b"<text id=1 title=t>",
    b"<div class='nav footer' id='content'>",
];

const WARC_TOKENS: &[&[u8]] = &[
    b"WARC/1.1\r\n",
    b"WARC/1.0\r\n",
    b"WARC/",
    b"\r\n",
    b"\n",
    b"\r\n\r\n",
    b"Content-Length: ",
    b"Content-Length: 99999999999999999999\r\n",
    b"Content-Length: 18446744073709551615\r\n",
    b"Content-Length: -1\r\n",
    b"WARC-Type: response\r\n",
    b"Content-Type: application/http; msgtype=response\r\n",
    b"HTTP/1.1 200 OK\r\n",
    b"HTTP/1.1 100 Continue\r\n\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"Content-Encoding: gzip\r\n",
    b"Content-Encoding: deflate\r\n",
    b"Content-Type: text/html; charset=utf-16\r\n",
    b"\x1f\x8b\x08\0",
    b": ",
    b" continued\r\n",
    b"ffffffffffffffff\r\n",
    b"0\r\n\r\n",
    b"\0",
    b"<p>",
];

const JSONL_TOKENS: &[&[u8]] = &[
    b"\\ud800",
    b"\\udc00",
    b"\\udbff\\udfff",
    b"\\ud800\\u0041",
    b"\\u0000",
    b"\\",
    b"\"",
    b"\n",
    b"\r\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"1e999999",
    b"-0",
    b"null",
    b"\"html\":",
    b"\"text\":",
    b"\xff",
    b"\xed\xa0\x80",
    b"\0",
    b"\xef\xbb\xbf",
    b"\\n",
    b"<li>",
    b"<p>",
];

const MODEL_TOKENS: &[&[u8]] = &[
    b"PPLM",
    b"\x01\0",
    b"\0\0\0\0\0\0\0\0",
    b"\xff\xff\xff\xff\xff\xff\xff\xff",
    b"\0\0\x80\x7f",
];

const CLASSIFIER_TOKENS: &[&[u8]] = &[
    b"PPLC 1 ", b"\n", b"{", b"}", b"[", b"]", b",", b":", b"\"", b"1e39", b"-", b"65535",
];

/// One generic change to a byte string. Positions are `Index`es, scaled to the current length.
#[derive(Clone, Debug)]
enum Op {
    FlipBit(Index, u8),
    SetByte(Index, u8),
    Insert(Index, Vec<u8>),
    /// Insert a token of the kind's dictionary, this many times.
    Token(Index, Index, u32),
    Delete(Index, u32),
    /// Copy (from, len) to `to`, this many times.
    Duplicate(Index, u32, Index, u32),
    /// Insert (seed, from, len) of any seed.
    Splice(Index, Index, Index, u32),
    Truncate(Index),
    Construct(Index, Construct),
}

/// Pathological markup, each with a size chosen from a few.
#[derive(Clone, Debug)]
enum Construct {
    HugeText {
        chars: Index,
        size: Index,
        separator: Index,
    },
    Unclosed {
        tag: Index,
        size: Index,
        text: Index,
    },
    Nested {
        kind: Index,
        size: Index,
        closed: bool,
    },
    Nul {
        size: Index,
        between_words: bool,
    },
    HugeAttribute {
        size: Index,
    },
    HugeMarkup {
        kind: Index,
        size: Index,
    },
    TextShape {
        kind: Index,
        size: Index,
    },
    Encoding {
        kind: Index,
    },
}

fn len_strategy() -> impl Strategy<Value = u32> {
    prop_oneof![6 => 1u32..64, 3 => 1u32..4096, 1 => 1u32..2_000_000]
}

fn times_strategy() -> impl Strategy<Value = u32> {
    prop_oneof![4 => Just(1u32), 1 => Just(10u32), 1 => Just(1000u32), 1 => Just(10_000u32)]
}

fn construct_strategy() -> impl Strategy<Value = Construct> {
    prop_oneof![
        (any::<Index>(), any::<Index>(), any::<Index>()).prop_map(|(chars, size, separator)| {
            Construct::HugeText {
                chars,
                size,
                separator,
            }
        }),
        (any::<Index>(), any::<Index>(), any::<Index>())
            .prop_map(|(tag, size, text)| Construct::Unclosed { tag, size, text }),
        (any::<Index>(), any::<Index>(), any::<bool>())
            .prop_map(|(kind, size, closed)| Construct::Nested { kind, size, closed }),
        (any::<Index>(), any::<bool>()).prop_map(|(size, between_words)| Construct::Nul {
            size,
            between_words
        }),
        any::<Index>().prop_map(|size| Construct::HugeAttribute { size }),
        (any::<Index>(), any::<Index>())
            .prop_map(|(kind, size)| Construct::HugeMarkup { kind, size }),
        (any::<Index>(), any::<Index>())
            .prop_map(|(kind, size)| Construct::TextShape { kind, size }),
        any::<Index>().prop_map(|kind| Construct::Encoding { kind }),
    ]
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (any::<Index>(), 0u8..8).prop_map(|(at, bit)| Op::FlipBit(at, bit)),
        3 => (any::<Index>(), any::<u8>()).prop_map(|(at, byte)| Op::SetByte(at, byte)),
        2 => (any::<Index>(), vec(any::<u8>(), 1..16)).prop_map(|(at, bytes)| Op::Insert(at, bytes)),
        4 => (any::<Index>(), any::<Index>(), times_strategy()).prop_map(|(at, token, times)| Op::Token(at, token, times)),
        2 => (any::<Index>(), len_strategy()).prop_map(|(at, len)| Op::Delete(at, len)),
        2 => (any::<Index>(), len_strategy(), any::<Index>(), prop_oneof![Just(1u32), Just(2u32), Just(50u32)])
            .prop_map(|(from, len, to, times)| Op::Duplicate(from, len, to, times)),
        2 => (any::<Index>(), any::<Index>(), any::<Index>(), len_strategy())
            .prop_map(|(at, seed, from, len)| Op::Splice(at, seed, from, len)),
        1 => any::<Index>().prop_map(Op::Truncate),
        3 => (any::<Index>(), construct_strategy()).prop_map(|(at, c)| Op::Construct(at, c)),
    ]
}

fn ops(most: usize) -> impl Strategy<Value = Vec<Op>> {
    vec(op_strategy(), 1..=most)
}

/// A position in `0..=len`.
fn position(at: &Index, len: usize) -> usize {
    at.index(len + 1)
}

/// Applies `ops` to `data`; results are cut at 24 MiB.
fn apply(data: &mut Vec<u8>, ops: &[Op], tokens: &[&[u8]]) {
    for op in ops {
        apply_one(data, op, tokens);
        data.truncate(24 << 20);
    }
}

fn apply_one(data: &mut Vec<u8>, op: &Op, tokens: &[&[u8]]) {
    let n = data.len();
    match op {
        Op::FlipBit(at, bit) if n > 0 => data[at.index(n)] ^= 1 << bit,
        Op::SetByte(at, byte) if n > 0 => data[at.index(n)] = *byte,
        Op::Insert(at, bytes) => {
            let at = position(at, n);
            data.splice(at..at, bytes.iter().copied());
        }
        Op::Token(at, token, times) => {
            let at = position(at, n);
            let token = tokens[token.index(tokens.len())];
            data.splice(at..at, token.repeat(*times as usize));
        }
        Op::Delete(at, len) if n > 0 => {
            let at = at.index(n);
            data.drain(at..(at + *len as usize).min(n));
        }
        Op::Duplicate(from, len, to, times) if n > 0 => {
            let from = from.index(n);
            let piece = data[from..(from + *len as usize).min(n)].repeat(*times as usize);
            let to = position(to, n);
            data.splice(to..to, piece);
        }
        Op::Splice(at, seed, from, len) => {
            let all = seeds();
            let pool: Vec<&Vec<u8>> = all
                .pages
                .iter()
                .chain(&all.warcs)
                .chain(&all.jsonls)
                .chain(&all.texts)
                .collect();
            let other = pool[seed.index(pool.len())];
            if !other.is_empty() {
                let from = from.index(other.len());
                let piece = other[from..(from + *len as usize).min(other.len())].to_vec();
                let at = position(at, n);
                data.splice(at..at, piece);
            }
        }
        Op::Truncate(at) => data.truncate(position(at, n)),
        Op::Construct(at, construct) => {
            let at = position(at, n);
            data.splice(at..at, construct.bytes());
        }
        _ => {}
    }
}

fn pick<'a, T>(items: &'a [T], at: &Index) -> &'a T {
    &items[at.index(items.len())]
}

impl Construct {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Construct::HugeText {
                chars,
                size,
                separator,
            } => huge_text(chars, size, separator),
            Construct::Unclosed { tag, size, text } => unclosed(tag, size, text),
            Construct::Nested { kind, size, closed } => nested(kind, size, *closed),
            Construct::Nul {
                size,
                between_words,
            } => {
                let n = *pick(&[1usize, 10, 1_000, 100_000], size);
                if *between_words {
                    b"w\0".repeat(n)
                } else {
                    vec![0; n]
                }
            }
            Construct::HugeAttribute { size } => {
                let n = *pick(&[1_000usize, 100_000, 1 << 20, (8 << 20) + 10], size);
                let mut out = b"<p class=\"".to_vec();
                out.resize(out.len() + n, b'a');
                out.extend_from_slice(b"\">text</p>");
                out
            }
            Construct::HugeMarkup { kind, size } => huge_markup(kind, size),
            Construct::TextShape { kind, size } => text_shape(kind, size),
            Construct::Encoding { kind } => encoded(kind),
        }
    }
}

/// [`Construct::HugeText`]: one paragraph of a run of the same characters (wide, joined,
/// combining, invisible), with or without a separator between them.
fn huge_text(chars: &Index, size: &Index, separator: &Index) -> Vec<u8> {
    let sizes = [1_000usize, 10_000, 70_000, 100_000, 300_000];
    let chars = pick(
        &[
            "中",
            "文",
            "日本語",
            "한국어",
            "ไทย",
            "😀",
            "👩\u{200d}👩\u{200d}👧",
            "e\u{301}",
            "\u{200f}",
            "\u{a0}",
            "\u{10fffd}",
        ],
        chars,
    );
    let separator = pick(&["", "", " ", "。", ". "], separator);
    let count = pick(&sizes, size) / chars.chars().count();
    format!("<p>{}", format!("{chars}{separator}").repeat(count)).into_bytes()
}

/// [`Construct::Unclosed`]: the same element opened again and again, never closed.
fn unclosed(tag: &Index, size: &Index, text: &Index) -> Vec<u8> {
    let tag = pick(
        &[
            "li", "li", "p", "td", "tr", "dd", "option", "a href=x", "b", "h1",
        ],
        tag,
    );
    let text = pick(&["", "x", "item ", "Word. "], text);
    format!("<{tag}>{text}")
        .repeat(*pick(&[1_000usize, 10_000, 70_000], size))
        .into_bytes()
}

/// [`Construct::Nested`]: elements nested this deep around a line of text, closed or not.
fn nested(kind: &Index, size: &Index, closed: bool) -> Vec<u8> {
    let (open, close) = pick(
        &[
            ("<div>", "</div>"),
            ("<table><tr><td>", "</td></tr></table>"),
            ("<ul><li>", "</li></ul>"),
            ("<b><i>", "</i></b>"),
            ("<blockquote>", "</blockquote>"),
            ("<a href=x>", "</a>"),
            ("<pre>", "</pre>"),
            ("<div><p>", "</p></div>"),
        ],
        kind,
    );
    let depth = *pick(&[100usize, 1_000, 10_000, 100_000], size);
    let mut out = open.repeat(depth) + "Deep text here.";
    if closed {
        out += &close.repeat(depth);
    }
    out.into_bytes()
}

/// [`Construct::HugeMarkup`]: one huge tag, comment, script, title, entity or attribute list.
fn huge_markup(kind: &Index, size: &Index) -> Vec<u8> {
    let n = *pick(&[1_000usize, 100_000, 1 << 20], size);
    match kind.index(6) {
        0 => [b"<".to_vec(), vec![b'x'; n], b">".to_vec()].concat(),
        1 => [b"<!--".to_vec(), vec![b'-'; n]].concat(),
        2 => [b"<script>".to_vec(), b"if(a<b){}".repeat(n / 9)].concat(),
        3 => [b"<title>".to_vec(), b"Title words ".repeat(n / 12)].concat(),
        4 => [b"&".to_vec(), vec![b'a'; n], b";".to_vec()].concat(),
        _ => [b"<p ".to_vec(), b"a=1 ".repeat(n / 4), b">".to_vec()].concat(),
    }
}

/// [`Construct::TextShape`]: one paragraph (or preformatted block) of the same piece of text
/// repeated: one letter, a phrase, short sentences, line breaks, URLs, numbers, entities.
fn text_shape(kind: &Index, size: &Index) -> Vec<u8> {
    let n = *pick(&[1_000usize, 20_000, 100_000], size);
    let (unit, prefix) = *pick(
        &[
            ("a", "<p>"),
            ("and the council said ", "<p>"),
            ("Yes. ", "<p>"),
            ("line<br>", "<p>"),
            ("code line\n", "<pre>"),
            (".", "<p>"),
            ("see http://example.com/a.b.c?d=e. ", "<p>"),
            ("1.2.3.4 ", "<p>"),
            ("line\r", "<pre>"),
            ("Hello мир 世界 عالم. ", "<p>"),
            ("&amp;&lt;&#x1F600;&nbsp;&bogus;", "<p>"),
        ],
        kind,
    );
    format!("{prefix}{}", unit.repeat(n / unit.len())).into_bytes()
}

/// [`Construct::Encoding`]: text in UTF-16 (with a byte order mark), declared in an encoding
/// it is not in, in Shift JIS, in Latin-1, or in no encoding at all.
fn encoded(kind: &Index) -> Vec<u8> {
    match kind.index(7) {
        0 => [
            b"\xff\xfe".to_vec(),
            "<p>Text in UTF-16. 中文</p>"
                .encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect(),
        ]
        .concat(),
        1 => [
            b"\xfe\xff".to_vec(),
            "<p>Text in UTF-16. 中文</p>"
                .encode_utf16()
                .flat_map(u16::to_be_bytes)
                .collect(),
        ]
        .concat(),
        2 => b"<meta charset=utf-16><p>Not really UTF-16.</p>".to_vec(),
        3 => b"<meta charset=shift_jis><p>\x82\xa0\x82\xa2\x82\xa4 \x81</p>".to_vec(),
        4 => (0..10_000u32)
            .map(|i| 0x80 + (i * 37 % 128) as u8)
            .collect(),
        5 => b"<p>\xed\xa0\x80\xed\xbf\xbf".repeat(1000),
        _ => b"<p>caf\xe9 cr\xe8me br\xfbl\xe9e</p>".repeat(100),
    }
}

// ---------------------------------------------------------------------------------------------
// Running the pipeline

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A file holding `bytes` under the system temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(bytes: &[u8], suffix: &str) -> TempFile {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("ppl-fuzz-{}-{n}{suffix}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// What a run wrote and the problems it reported (in order).
type Run = (Vec<u8>, Vec<String>);

/// Runs the pipeline over `path` with the given read size and threads, into the sink `format`
/// chooses (a stream for pages, records for WARC and JSONL).
fn run(
    path: &Path,
    model: &LanguageModel,
    options: &Options,
    read_size: usize,
    threads: usize,
    record: Option<RecordFormat>,
) -> Run {
    let mut options = options.clone();
    options.read.read_size = read_size;
    options.threads = threads;
    let problems = Mutex::new(Vec::new());
    let observe = |p: &Problem| {
        problems
            .lock()
            .unwrap()
            .push(format!("{:?} {}: {}", p.severity, p.input, p.message()))
    };
    let inputs = [Input::File(path.to_path_buf())];
    let output = match record {
        Some(format) => {
            let mut sink = RecordSink::new(Vec::new(), format);
            pipeline::run(&inputs, model, &options, &mut sink, &observe).unwrap();
            sink.into_inner()
        }
        None => {
            let mut sink = StreamSink::new(Vec::new(), b"\n");
            pipeline::run(
                &inputs,
                model,
                &options,
                &mut sink as &mut dyn Sink,
                &observe,
            )
            .unwrap();
            sink.into_inner()
        }
    };
    (output, problems.into_inner().unwrap())
}

/// Fails unless two runs are byte-identical (saying where they first differ).
fn same(what: &str, a: &Run, b: &Run) -> Result<(), TestCaseError> {
    if a.0 != b.0 {
        let at =
            a.0.iter()
                .zip(&b.0)
                .position(|(x, y)| x != y)
                .unwrap_or(a.0.len().min(b.0.len()));
        let show = |v: &[u8]| {
            String::from_utf8_lossy(&v[at.saturating_sub(40)..(at + 80).min(v.len())]).into_owned()
        };
        return Err(TestCaseError::fail(format!(
            "{what}: outputs differ ({} and {} bytes; first difference at byte {at}: {:?} vs {:?})",
            a.0.len(),
            b.0.len(),
            show(&a.0),
            show(&b.0)
        )));
    }
    prop_assert_eq!(&a.1, &b.1, "{}: problems reported differ", what);
    Ok(())
}

/// Every problem is one line.
fn one_line_problems(run: &Run) -> Result<(), TestCaseError> {
    for problem in &run.1 {
        prop_assert!(
            !problem.contains('\n'),
            "a problem of more than one line: {:?}",
            problem
        );
    }
    Ok(())
}

/// The same output with one thread reading whole pages, with two threads reading `read_size`
/// bytes at a time, and (for pages) from `clean_bytes`.
fn alike(
    bytes: &[u8],
    suffix: &str,
    model: &LanguageModel,
    options: &Options,
    read_size: usize,
    record: Option<RecordFormat>,
) -> Result<Run, TestCaseError> {
    let file = TempFile::new(bytes, suffix);
    let reference = run(&file.0, model, options, 1 << 20, 1, record.clone());
    one_line_problems(&reference)?;
    let chunked = run(&file.0, model, options, read_size, 2, record.clone());
    same("-j1 whole reads vs -j2 small reads", &reference, &chunked)?;
    if record.is_none() {
        let (clean, problems) = pipeline::clean_bytes(bytes, model, options);
        let text = |p: &[String]| {
            p.iter()
                .map(|p| p.split_once(": ").map_or("", |(_, m)| m).to_string())
                .collect::<Vec<_>>()
        };
        let problems: Vec<String> = problems
            .iter()
            .map(|p| format!("{:?} x: {}", p.severity, p.message()))
            .collect();
        prop_assert!(
            clean == reference.0,
            "clean_bytes differs from pipeline::run ({} vs {} bytes)",
            clean.len(),
            reference.0.len()
        );
        prop_assert_eq!(
            text(&problems),
            text(&reference.1),
            "clean_bytes reports other problems than pipeline::run"
        );
    }
    Ok(reference)
}

// ---------------------------------------------------------------------------------------------
// Keeping failing inputs, bounding shrinking

/// `target/tmp/fuzz-failures/<name>-running-<run>.<ext>` holds the input of the case being run;
/// it becomes `<name>-failing.<ext>` when the case fails (the last one kept is the smallest
/// proptest found) and `<name>-crashed.<ext>` when the child process running it died or was
/// killed for taking too long (a hang). `<run>` is the test process (the children's parent).
///
/// Shrinking a hang costs a time limit per try, and proptest's shrink limits restart in every
/// child it forks, so a property that failed more than `FUZZ_SHRINK_SECONDS` (default 30) ago
/// in this run skips its remaining cases: shrinking ends with what it has found.
struct Attempt {
    running: PathBuf,
    failing: PathBuf,
    failed_at: PathBuf,
    done: bool,
}

fn failures_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-failures")
}

/// Panics print one short line (no backtrace): shrinking a failure panics many times.
fn short_panic_messages() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let cut: String = message.chars().take(300).collect();
            let place = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            eprintln!("panicked at {place}: {cut}");
        }))
    });
}

impl Attempt {
    /// Keeps `bytes` as the running case's input; `None` when the property has been failing
    /// (shrinking) for longer than its budget.
    fn new(name: &str, ext: &str, bytes: &[u8]) -> Option<Attempt> {
        short_panic_messages();
        static STARTED: Mutex<Option<HashSet<String>>> = Mutex::new(None);
        #[cfg(unix)]
        let run = std::os::unix::process::parent_id();
        #[cfg(not(unix))]
        let run = 0;
        let dir = failures_dir();
        let _ = std::fs::create_dir_all(dir.join(".state"));
        let running = dir.join(format!("{name}-running-{run}.{ext}"));
        let failed_at = dir.join(".state").join(format!("{name}-{run}"));
        // A leftover from an earlier child of this property: that child crashed or hung on it.
        if STARTED
            .lock()
            .unwrap()
            .get_or_insert_with(HashSet::new)
            .insert(name.to_string())
            && running.exists()
        {
            let _ = std::fs::rename(&running, dir.join(format!("{name}-crashed.{ext}")));
            mark_failed(&failed_at);
        }
        let budget = std::env::var("FUZZ_SHRINK_SECONDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(30);
        let since = std::fs::metadata(&failed_at)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok());
        if since.is_some_and(|since| since.as_secs() > budget) {
            return None;
        }
        let _ = std::fs::write(&running, bytes);
        Some(Attempt {
            failing: dir.join(format!("{name}-failing.{ext}")),
            running,
            failed_at,
            done: false,
        })
    }

    fn finish<T>(mut self, result: Result<T, TestCaseError>) -> Result<T, TestCaseError> {
        self.done = true;
        match result {
            Ok(v) => {
                let _ = std::fs::remove_file(&self.running);
                Ok(v)
            }
            Err(e) => {
                let _ = std::fs::rename(&self.running, &self.failing);
                mark_failed(&self.failed_at);
                Err(TestCaseError::fail(format!(
                    "{e} (input kept in {})",
                    self.failing.display()
                )))
            }
        }
    }
}

fn mark_failed(failed_at: &Path) {
    if !failed_at.exists() {
        let _ = std::fs::write(failed_at, b"");
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if !self.done {
            // A panic unwinds through here.
            let _ = std::fs::rename(&self.running, &self.failing);
            mark_failed(&self.failed_at);
            eprintln!(
                "fuzz: the input that panicked is kept in {}",
                self.failing.display()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Pages

fn check_page(
    page: &[u8],
    mode: OutputMode,
    perplexity_method: bool,
    text: bool,
    read_size: usize,
) -> Result<(), TestCaseError> {
    let mut options = if perplexity_method {
        Options::with_method(Method::Perplexity)
    } else {
        Options::default()
    };
    options.render.mode = mode;
    if text {
        options.read.input_format = InputFormat::Text;
    }
    alike(page, ".html", model::embedded(), &options, read_size, None).map(drop)
}

fn mode_strategy() -> impl Strategy<Value = OutputMode> {
    prop_oneof![
        Just(OutputMode::Clean),
        Just(OutputMode::Mark),
        Just(OutputMode::Scores)
    ]
}

proptest! {
    #![proptest_config(config(64))]

    /// Damaged pages clean without a panic, alike for one and two threads, any read size, and
    /// `clean_bytes`.
    #[test]
    fn pages(seed in any::<Index>(), ops in ops(8), mode in mode_strategy(), perplexity_method in any::<bool>(),
             text in prop::bool::weighted(0.1), read_size in prop_oneof![1usize..64, 64usize..70_000]) {
        let mut page = pick(&seeds().pages, &seed).clone();
        apply(&mut page, &ops, HTML_TOKENS);
        let Some(attempt) = Attempt::new("pages", "html", &page) else { return Ok(()) };
        attempt.finish(check_page(&page, mode, perplexity_method, text, read_size))?;
    }
}

// ---------------------------------------------------------------------------------------------
// WARC

/// How the damaged WARC stream is stored.
#[derive(Clone, Debug)]
enum Framing {
    Plain,
    /// One gzip member for the whole stream.
    Gzip,
    /// One member per record, junk bytes after some of them; then the compressed bytes damaged.
    Members {
        junk: Vec<(Index, Vec<u8>)>,
        damage: Vec<Op>,
    },
}

fn framing_strategy() -> impl Strategy<Value = Framing> {
    let junk = vec(
        (
            any::<Index>(),
            prop_oneof![
                Just(b"JUNK".to_vec()),
                Just(b"\r\n".to_vec()),
                Just(vec![0u8; 100]),
                vec(any::<u8>(), 1..64)
            ],
        ),
        0..3,
    );
    prop_oneof![
        2 => Just(Framing::Plain),
        1 => Just(Framing::Gzip),
        2 => (junk, vec(op_strategy(), 0..3)).prop_map(|(junk, damage)| Framing::Members { junk, damage }),
    ]
}

/// The stream stored as `framing`: (file bytes, gzipped).
fn frame(stream: &[u8], framing: &Framing) -> (Vec<u8>, bool) {
    match framing {
        Framing::Plain => (stream.to_vec(), false),
        Framing::Gzip => (gzip(stream), true),
        Framing::Members { junk, damage } => {
            // A member per record: cut where a line starts with `WARC/`.
            let mut cuts: Vec<usize> = (1..stream.len())
                .filter(|&i| stream[i - 1] == b'\n' && stream[i..].starts_with(b"WARC/"))
                .collect();
            cuts.insert(0, 0);
            cuts.push(stream.len());
            let mut members: Vec<Vec<u8>> =
                cuts.windows(2).map(|w| gzip(&stream[w[0]..w[1]])).collect();
            for (after, bytes) in junk {
                let i = after.index(members.len());
                members[i].extend_from_slice(bytes);
            }
            let mut out = members.concat();
            apply(&mut out, damage, WARC_TOKENS);
            (out, true)
        }
    }
}

/// One line per item the reader returned (a record or an error).
fn read_warc(bytes: &[u8], gzipped: bool, capacity: usize) -> Result<Vec<String>, TestCaseError> {
    let source: Box<dyn std::io::Read + Send> = if gzipped {
        maybe_gunzip(Box::new(Cursor::new(bytes.to_vec()))).unwrap()
    } else {
        Box::new(Cursor::new(bytes.to_vec()))
    };
    let reader =
        WarcReader::new(BufReader::with_capacity(capacity, source)).with_max_record_bytes(1 << 20);
    let mut items = Vec::new();
    // Each item consumes bytes, so a reader that ends returns at most about one per input byte
    // (a gzip stream can expand, hence the generous bound).
    let bound = 64 + bytes.len() * if gzipped { 1100 } else { 2 };
    for item in reader {
        prop_assert!(
            items.len() <= bound,
            "the WARC reader does not end ({} items from {} bytes)",
            items.len(),
            bytes.len()
        );
        match item {
            Ok(record) => {
                if let Some(parts) = http_response_parts(&record.payload) {
                    let _ = (parts.status, parts.charset, parts.body.len());
                }
                items.push(format!(
                    "record {} {} {} bytes",
                    record.record_id,
                    record.record_type,
                    record.payload.len()
                ));
            }
            Err(e) => {
                let message = e.to_string();
                prop_assert!(
                    !message.contains('\n'),
                    "a WARC error of more than one line: {:?}",
                    message
                );
                items.push(format!("error {message}"));
            }
        }
    }
    Ok(items)
}

fn check_warc(
    file: &[u8],
    gzipped: bool,
    capacity: usize,
    read_size: usize,
    jsonl: bool,
    perplexity_method: bool,
) -> Result<(), TestCaseError> {
    let whole = read_warc(file, gzipped, 64 << 10)?;
    let small = read_warc(file, gzipped, capacity)?;
    if !gzipped {
        prop_assert_eq!(
            &whole,
            &small,
            "the WARC reader returns other records with a {}-byte buffer",
            capacity
        );
    }
    let mut options = if perplexity_method {
        Options::with_method(Method::Perplexity)
    } else {
        Options::default()
    };
    options.read.input_format = InputFormat::Warc;
    let format = if jsonl {
        RecordFormat::JSON
    } else {
        RecordFormat::Warc {
            gzip_members: false,
        }
    };
    alike(
        file,
        if gzipped { ".warc.gz" } else { ".warc" },
        model::embedded(),
        &options,
        read_size,
        Some(format),
    )
    .map(drop)
}

proptest! {
    #![proptest_config(config(128))]

    /// Damaged WARC files are read without a panic, to their end, alike for any buffer size,
    /// and cleaned alike with one and two threads.
    #[test]
    fn warc(seed in any::<Index>(), ops in vec(op_strategy(), 0..6), framing in framing_strategy(), raw_gz in prop::bool::weighted(0.1),
            capacity in 1usize..300, read_size in prop_oneof![1usize..64, 64usize..70_000], jsonl in any::<bool>(),
            perplexity_method in any::<bool>()) {
        let (file, gzipped) = if raw_gz {
            let mut file = seeds().warc_gz.clone();
            apply(&mut file, &ops, WARC_TOKENS);
            (file, true)
        } else {
            let mut stream = pick(&seeds().warcs, &seed).clone();
            apply(&mut stream, &ops, WARC_TOKENS);
            frame(&stream, &framing)
        };
        let Some(attempt) = Attempt::new("warc", if gzipped { "warc.gz" } else { "warc" }, &file) else { return Ok(()) };
        attempt.finish(check_warc(&file, gzipped, capacity, read_size, jsonl, perplexity_method))?;
    }
}

// ---------------------------------------------------------------------------------------------
// JSONL

fn read_jsonl(
    bytes: &[u8],
    capacity: usize,
    max_line: usize,
    field: &str,
) -> Result<Vec<String>, TestCaseError> {
    let mut lines = JsonlLines::new(BufReader::with_capacity(capacity, bytes), max_line);
    let mut items = Vec::new();
    let mut expected = 1;
    while let Some(line) = lines.next_line() {
        let (number, line) =
            line.map_err(|e| TestCaseError::fail(format!("reading from memory failed: {e}")))?;
        prop_assert_eq!(number, expected, "JSONL lines are not numbered in order");
        prop_assert!(
            number as usize <= bytes.len() + 1,
            "the JSONL reader does not end"
        );
        expected += 1;
        let line = match line {
            Ok(line) => line,
            Err(e) => {
                prop_assert_eq!(e.line(), number);
                items.push(format!("{number}: {e}"));
                continue;
            }
        };
        match parse_line_bytes(&line, number, field) {
            Ok(record) => {
                let new = "new \"text\"\n\u{2028}\\ \u{0}";
                let extra = [
                    ("sentences_kept", Extra::UInt(3)),
                    ("mean_perplexity", Extra::Float(f64::NAN)),
                ];
                let rewritten = record.with_field(new, &extra);
                // A line serde_json reads as an object (some lines the parser accepts, such as keys
                // with lone surrogate escapes, it does not) is written back as one, with the new
                // value and every other field as it was.
                if let Ok(Value::Object(original)) =
                    serde_json::from_str::<Value>(record.original())
                {
                    let parsed = serde_json::from_str::<Value>(&rewritten);
                    prop_assert!(
                        parsed.is_ok(),
                        "line {}: the rewritten line is not JSON: {:?}",
                        number,
                        rewritten
                    );
                    let parsed = parsed.unwrap();
                    prop_assert_eq!(
                        parsed.get(field).and_then(Value::as_str),
                        Some(new),
                        "line {}: the rewritten field",
                        number
                    );
                    for (key, value) in original
                        .iter()
                        .filter(|(k, _)| *k != field && extra.iter().all(|(e, _)| e != k))
                    {
                        prop_assert_eq!(
                            parsed.get(key),
                            Some(value),
                            "line {}: field {} changed",
                            number,
                            key
                        );
                    }
                }
                items.push(format!("{number}: ok {}", record.value().len()));
            }
            Err(e) => {
                let message = e.to_string();
                prop_assert!(
                    !message.contains('\n'),
                    "a JSONL error of more than one line: {:?}",
                    message
                );
                prop_assert_eq!(e.line(), number);
                items.push(format!("{number}: {message}"));
            }
        }
    }
    Ok(items)
}

fn check_jsonl(
    file: &[u8],
    field: &str,
    capacity: usize,
    max_line: usize,
    read_size: usize,
    add_scores: bool,
) -> Result<(), TestCaseError> {
    let whole = read_jsonl(file, 64 << 10, max_line, field)?;
    let small = read_jsonl(file, capacity, max_line, field)?;
    prop_assert_eq!(
        &whole,
        &small,
        "JSONL lines differ with a {}-byte buffer",
        capacity
    );
    let mut options = Options::default();
    options.read.input_format = InputFormat::Jsonl;
    options.read.jsonl_field = field.to_string();
    let output = alike(
        file,
        ".jsonl",
        model::embedded(),
        &options,
        read_size,
        Some(RecordFormat::JsonlRewrite {
            output_field: None,
            add_scores,
        }),
    )?;
    // Every line is written back (cleaned or as it was, a line longer than the record limit
    // too): one output line per input line.
    let mut lines: Vec<&[u8]> = file.split(|&b| b == b'\n').collect();
    if file.ends_with(b"\n") || file.is_empty() {
        lines.pop();
    }
    let input_lines = lines.len();
    let output_lines = output.0.iter().filter(|&&b| b == b'\n').count();
    prop_assert_eq!(
        input_lines,
        output_lines,
        "JSONL: output lines (passed-through lines included) differ from input lines"
    );
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]

    /// Damaged JSONL is read and parsed without a panic, the same for any buffer size, and
    /// cleaned alike with one and two threads, one output line per input line.
    #[test]
    fn jsonl(seed in any::<Index>(), ops in ops(8), field in prop_oneof![3 => Just("html"), 1 => Just("text"), 1 => Just("body")],
             capacity in 1usize..300, max_line in prop_oneof![Just(16usize << 20), 1usize..400], read_size in 1usize..70_000,
             add_scores in any::<bool>()) {
        let mut file = pick(&seeds().jsonls, &seed).clone();
        apply(&mut file, &ops, JSONL_TOKENS);
        let Some(attempt) = Attempt::new("jsonl", "jsonl", &file) else { return Ok(()) };
        let result = (|| {
            read_jsonl(&file, capacity, max_line, field)?;
            check_jsonl(&file, field, capacity, 16 << 20, read_size, add_scores)
        })();
        attempt.finish(result)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Models

/// Unusual values for model fields.
const F32_VALUES: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    3.4e38,
    -3.4e38,
    1e-45,
    -1e30,
    1e30,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    -100.0,
];
const U32_VALUES: &[u32] = &[
    0,
    1,
    2,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0xffff_fffe,
    1 << 24,
    65_535,
    65_536,
];
const U8_VALUES: &[u8] = &[0, 1, 2, 3, 4, 5, 24, 25, 31, 32, 63, 64, 255];

/// A change to a model file: a field set to an unusual value; a value the loader accepts
/// (a finite codebook entry, a record's fingerprint or quantised value, the seed, the text)
/// changed, so the model still loads and scores with it; or a generic byte change within the
/// header region (a large model's tables are left alone).
#[derive(Clone, Debug)]
enum ModelOp {
    Field {
        field: Index,
        element: Index,
        value: Index,
    },
    Value {
        field: Index,
        element: Index,
        value: Index,
    },
    Bytes(Op),
}

fn model_op_strategy() -> impl Strategy<Value = ModelOp> {
    prop_oneof![
        3 => (any::<Index>(), any::<Index>(), any::<Index>()).prop_map(|(field, element, value)| ModelOp::Field { field, element, value }),
        3 => (any::<Index>(), any::<Index>(), any::<Index>()).prop_map(|(field, element, value)| ModelOp::Value { field, element, value }),
        2 => op_strategy().prop_map(ModelOp::Bytes),
    ]
}

/// Finite values for codebooks and log2 P(<unk>) (positive log-probabilities included).
const FINITE_F32: &[f32] = &[
    0.0, -0.0, 100.0, 3.4e38, -3.4e38, 1e-45, -1e-45, -1e30, -64.0, 1.0,
];

#[derive(Clone, Copy, PartialEq)]
enum FieldKind {
    U8,
    U32,
    U64,
    F32,
    Offsets,
    Records,
}

/// (offset, size, kind) of every field of a well-formed model, as far as its header reads.
fn model_fields(bytes: &[u8]) -> Vec<(usize, usize, FieldKind)> {
    let u32_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
    };
    let mut fields = vec![
        (4, 2, FieldKind::U32),
        (8, 8, FieldKind::U64),
        (16, 4, FieldKind::U32),
        (24, 1, FieldKind::U8),
        (28, 4, FieldKind::F32),
        (32, 8, FieldKind::U64),
        (40, 4, FieldKind::U32),
        (44, 4, FieldKind::U32),
    ];
    let (Some(order), Some(credit), Some(provenance)) = (bytes.get(24), u32_at(40), u32_at(44))
    else {
        return fields;
    };
    let mut at = 48 + credit + provenance;
    let mut tables = Vec::new();
    for _ in 0..(*order).min(4) {
        let (Some(entries), Some(&bits), Some(&backoff)) =
            (u32_at(at), bytes.get(at + 4), bytes.get(at + 5))
        else {
            return fields;
        };
        fields.extend([
            (at, 4, FieldKind::U32),
            (at + 4, 1, FieldKind::U8),
            (at + 5, 1, FieldKind::U8),
        ]);
        at += 8;
        let codebooks = if backoff == 1 { 2 } else { 1 };
        fields.push((at, 1024 * codebooks, FieldKind::F32));
        at += 1024 * codebooks;
        tables.push((entries, bits.min(24), if backoff == 1 { 6 } else { 5 }));
    }
    for (entries, bits, record) in tables {
        let offsets = 4 * ((1usize << bits) + 1);
        fields.push((at, offsets, FieldKind::Offsets));
        at += offsets;
        fields.push((at, entries * record, FieldKind::Records));
        at += entries * record;
    }
    fields
}

/// Where a model's tables start (the end of its header region).
fn model_header_end(bytes: &[u8]) -> usize {
    model_fields(bytes)
        .iter()
        .find(|f| f.2 == FieldKind::Offsets)
        .map_or(bytes.len(), |f| f.0)
}

fn apply_model_ops(data: &mut Vec<u8>, ops: &[ModelOp]) {
    for op in ops {
        match op {
            ModelOp::Field {
                field,
                element,
                value,
            } => {
                let fields = model_fields(data);
                let (at, size, kind) = *pick(&fields, field);
                let (at, bytes) = match kind {
                    FieldKind::U8 => (at, vec![*pick(U8_VALUES, value)]),
                    FieldKind::U32 => (at, pick(U32_VALUES, value).to_le_bytes().to_vec()),
                    FieldKind::U64 => (
                        at,
                        pick(&[0u64, 1, 1 << 63, u64::MAX, 12345], value)
                            .to_le_bytes()
                            .to_vec(),
                    ),
                    FieldKind::F32 => (
                        at + 4 * element.index(size / 4),
                        pick(F32_VALUES, value).to_le_bytes().to_vec(),
                    ),
                    FieldKind::Offsets => (
                        at + 4 * element.index((size / 4).max(1)),
                        pick(U32_VALUES, value).to_le_bytes().to_vec(),
                    ),
                    FieldKind::Records => (
                        at + element.index(size.max(1)),
                        vec![value.index(256) as u8],
                    ),
                };
                if at + bytes.len() <= data.len() {
                    data[at..at + bytes.len()].copy_from_slice(&bytes);
                }
            }
            ModelOp::Value {
                field,
                element,
                value,
            } => {
                let fields: Vec<(usize, usize, FieldKind)> = model_fields(data)
                    .into_iter()
                    .filter(|&(at, _, kind)| {
                        at == 28 || at == 32 || matches!(kind, FieldKind::F32 | FieldKind::Records)
                    })
                    .collect();
                let (at, size, kind) = *pick(&fields, field);
                let (at, bytes) = match kind {
                    FieldKind::Records => (
                        at + element.index(size.max(1)),
                        vec![value.index(256) as u8],
                    ),
                    FieldKind::U64 => (at, (value.index(usize::MAX) as u64).to_le_bytes().to_vec()),
                    _ if at == 28 => (at, (-pick(FINITE_F32, value).abs()).to_le_bytes().to_vec()),
                    _ => (
                        at + 4 * element.index((size / 4).max(1)),
                        pick(FINITE_F32, value).to_le_bytes().to_vec(),
                    ),
                };
                if at + bytes.len() <= data.len() {
                    data[at..at + bytes.len()].copy_from_slice(&bytes);
                }
            }
            ModelOp::Bytes(op) => {
                // Only the header region (and a little after it) of a large model.
                let limit = if data.len() > 1 << 20 {
                    (model_header_end(data) + 4096).min(data.len())
                } else {
                    data.len()
                };
                let mut head = data[..limit].to_vec();
                apply_one(&mut head, op, MODEL_TOKENS);
                data.splice(..limit, head);
            }
        }
    }
}

/// Writes the preamble's total length and checksum so damage reaches the checks behind them.
fn fix_model(data: &mut [u8]) {
    if data.len() >= 24 {
        let total = data.len() as u64;
        data[8..16].copy_from_slice(&total.to_le_bytes());
        let crc = crc32fast::hash(&data[24..]);
        data[16..20].copy_from_slice(&crc.to_le_bytes());
    }
}

const SENTENCES: &[&str] = &[
    "The committee approved the new budget for the school year.",
    "the the the the the the",
    "Zxqv wkrp 12345 !!! ???",
    "",
    "中文 日本語 😀",
    "A very long sentence with many words that goes on and on without any end in sight at all and more and more.",
];

/// A loaded model scores sentences and cleans a page alike with one and two threads.
fn use_model(model: &LanguageModel, page: &[u8], read_size: usize) -> Result<(), TestCaseError> {
    for sentence in SENTENCES {
        let _ = model.perplexity(sentence);
        let _ = model.log2_prob(sentence);
        model.for_each_token_log2_prob(sentence, |_, _| {});
    }
    let _ = (
        model.order(),
        model.counts(),
        model.credit().len(),
        model.provenance().len(),
        model::describe(model),
    );
    for method in [
        Method::Perplexity,
        Method::Combined(ppl_filter::decide::embedded()),
    ] {
        let options = Options::with_method(method).with_layout(Layout::Scores);
        alike(page, ".html", model, &options, read_size, None)?;
    }
    Ok(())
}

fn check_model(bytes: &[u8], page: &[u8], read_size: usize) -> Result<(), TestCaseError> {
    match LanguageModel::from_bytes(bytes.to_vec()) {
        Ok(model) => use_model(&model, page, read_size),
        Err(e) => {
            prop_assert!(
                !e.to_string().contains('\n'),
                "a model error of more than one line: {}",
                e
            );
            Ok(())
        }
    }
}

proptest! {
    #![proptest_config(config(128))]

    /// Damaged models (the checksum usually repaired, so the damage reaches the checks behind
    /// it) load or are refused without a panic, in bounded time; a model that loads works.
    #[test]
    fn models(seed in prop_oneof![4 => 0usize..3, 1 => Just(3usize)], ops in vec(model_op_strategy(), 1..5), repair in prop::bool::weighted(0.75),
              page in any::<Index>(), read_size in 1usize..70_000) {
        let mut bytes = seeds().models[seed].clone();
        apply_model_ops(&mut bytes, &ops);
        if repair {
            fix_model(&mut bytes);
        }
        let page = pick(&seeds().pages[..seeds().pages.len().min(6)], &page).clone();
        let Some(attempt) = Attempt::new("models", "bin", &bytes) else { return Ok(()) };
        attempt.finish(check_model(&bytes, &page, read_size))?;
    }
}

fn check_mapped_model(
    bytes: &[u8],
    cut: usize,
    rewrite: bool,
    page: &[u8],
) -> Result<(), TestCaseError> {
    let file = TempFile::new(bytes, ".bin");
    let model = LanguageModel::open(&file.0)
        .map_err(|e| TestCaseError::fail(format!("an intact model does not open: {e}")))?;
    // Shown only when the property fails: a child that dies after this line died of the cut.
    println!(
        "{}-byte model opened, its file cut to {cut} bytes ({}); using it",
        bytes.len(),
        if rewrite { "rewritten" } else { "truncated" }
    );
    // Cut (or rewrite in place, as `std::fs::write` does) the file while it is in use.
    if rewrite {
        std::fs::write(&file.0, &bytes[..cut]).unwrap();
    } else {
        std::fs::OpenOptions::new()
            .write(true)
            .open(&file.0)
            .unwrap()
            .set_len(cut as u64)
            .unwrap();
    }
    use_model(&model, page, 4096)
}

proptest! {
    #![proptest_config(config(8))]

    /// A model file cut or rewritten while it is open does not crash the process using it.
    #[test]
    fn mapped_model_cut_while_in_use(seed in 0usize..4, cut in any::<Index>(), rewrite in any::<bool>()) {
        let bytes = &seeds().models[seed];
        let cut = *pick(&[0, 24, 4096, bytes.len() / 2, bytes.len() - 1], &cut);
        let page = seeds().pages[seeds().pages.len().min(6) - 2].clone();
        check_mapped_model(bytes, cut, rewrite, &page)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Classifiers

/// A structural change to the classifier's JSON parameters.
#[derive(Clone, Debug)]
enum JsonEdit {
    /// Set one number, string or boolean to an unusual number.
    Leaf(Index, Index),
    /// Replace a tree by a chain of splits whose two children are the same node (or the next two).
    Chain {
        tree: Index,
        length: Index,
        shared: bool,
    },
    /// Add a complete tree this deep.
    Complete(Index),
    ManyTrees(Index),
    NoTrees,
    EmptyTree,
    Logistic {
        inputs: Index,
        values: Vec<Index>,
        scale: Index,
    },
    Lag(Index),
    Transition(Vec<Index>),
    NodeRef {
        tree: Index,
        node: Index,
        field: Index,
        value: Index,
    },
    DropKey(Index),
}

fn json_edit_strategy() -> impl Strategy<Value = JsonEdit> {
    prop_oneof![
        4 => (any::<Index>(), any::<Index>()).prop_map(|(at, v)| JsonEdit::Leaf(at, v)),
        2 => (any::<Index>(), any::<Index>(), prop::bool::weighted(0.8)).prop_map(|(tree, length, shared)| JsonEdit::Chain { tree, length, shared }),
        1 => any::<Index>().prop_map(JsonEdit::Complete),
        1 => any::<Index>().prop_map(JsonEdit::ManyTrees),
        1 => Just(JsonEdit::NoTrees),
        1 => Just(JsonEdit::EmptyTree),
        1 => (any::<Index>(), vec(any::<Index>(), 3), any::<Index>()).prop_map(|(inputs, values, scale)| JsonEdit::Logistic { inputs, values, scale }),
        1 => any::<Index>().prop_map(JsonEdit::Lag),
        1 => vec(any::<Index>(), 5).prop_map(JsonEdit::Transition),
        2 => (any::<Index>(), any::<Index>(), any::<Index>(), any::<Index>()).prop_map(|(tree, node, field, value)| JsonEdit::NodeRef { tree, node, field, value }),
        1 => any::<Index>().prop_map(JsonEdit::DropKey),
    ]
}

fn number(at: &Index) -> Value {
    let numbers = [
        serde_json::json!(0),
        serde_json::json!(-1),
        serde_json::json!(1),
        serde_json::json!(64),
        serde_json::json!(65),
        serde_json::json!(134),
        serde_json::json!(135),
        serde_json::json!(65534),
        serde_json::json!(65535),
        serde_json::json!(65536),
        serde_json::json!(u64::MAX),
        serde_json::json!(i64::MIN),
        serde_json::json!(1e30),
        serde_json::json!(-1e30),
        serde_json::json!(3.4e38),
        serde_json::json!(3.5e38),
        serde_json::json!(-3.5e38),
        serde_json::json!(1e-45),
        serde_json::json!(1e-300),
        serde_json::json!(0.5),
        serde_json::json!(-0.5),
        serde_json::json!(2.5),
        serde_json::json!(10),
        serde_json::json!(3),
        serde_json::json!(-100.0),
    ];
    pick(&numbers, at).clone()
}

fn node(feature: u64, left: usize, right: usize, value: f64) -> Value {
    serde_json::json!({"feature": feature, "threshold": 0.5, "left": left, "right": right, "value": value})
}

fn leaf_paths(value: &Value, path: &mut Vec<String>, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            path.push(k.replace('~', "~0").replace('/', "~1"));
            leaf_paths(v, path, out);
            path.pop();
        }),
        Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| {
            path.push(i.to_string());
            leaf_paths(v, path, out);
            path.pop();
        }),
        _ => out.push(format!("/{}", path.join("/"))),
    }
}

fn trees(json: &mut Value) -> Option<&mut Vec<Value>> {
    json.pointer_mut("/scorer/trees")
        .and_then(Value::as_array_mut)
}

/// [`JsonEdit::Leaf`]: sets one number, string or boolean of `json` to an unusual number.
fn set_leaf(json: &mut Value, at: &Index, v: &Index) {
    let mut paths = Vec::new();
    leaf_paths(json, &mut Vec::new(), &mut paths);
    if !paths.is_empty() {
        let path = pick(&paths, at).clone();
        if let Some(slot) = json.pointer_mut(&path) {
            *slot = number(v);
        }
    }
}

/// [`JsonEdit::Chain`]: replaces a tree (or adds one if there is none) by a chain of splits
/// whose two children are the same node (if `shared`) or the next two.
fn set_chain(json: &mut Value, tree: &Index, length: &Index, shared: bool) {
    let n = *pick(&[5usize, 11, 20, 30, 40, 64, 200], length);
    let mut nodes: Vec<Value> = (0..n)
        .map(|i| {
            node(
                (i % INPUTS) as u64,
                i + 1,
                if shared { i + 1 } else { i + 2 },
                0.0,
            )
        })
        .collect();
    nodes.push(node(65535, 0, 0, 0.1));
    nodes.push(node(65535, 0, 0, -0.1));
    if let Some(trees) = trees(json) {
        if trees.is_empty() {
            trees.push(Value::Array(nodes));
        } else {
            let i = tree.index(trees.len());
            trees[i] = Value::Array(nodes);
        }
    }
}

/// [`JsonEdit::Complete`]: adds a complete tree of one of a few depths.
fn add_complete_tree(json: &mut Value, depth: &Index) {
    let depth = *pick(&[1usize, 5, 10, 11, 12], depth);
    let splits = (1usize << depth) - 1;
    let nodes: Vec<Value> = (0..(1usize << (depth + 1)) - 1)
        .map(|i| {
            if i < splits {
                node((i % INPUTS) as u64, 2 * i + 1, 2 * i + 2, 0.0)
            } else {
                node(65535, 0, 0, 0.01 * (i % 7) as f64 - 0.03)
            }
        })
        .collect();
    if let Some(trees) = trees(json) {
        trees.push(Value::Array(nodes));
    }
}

/// [`JsonEdit::ManyTrees`]: repeats the trees until there are a few hundred or thousand.
fn repeat_trees(json: &mut Value, n: &Index) {
    if let Some(trees) = trees(json) {
        if !trees.is_empty() {
            // At most about 200,000 nodes: a big classifier, not an absurd one.
            let nodes: usize = trees.iter().map(|t| t.as_array().map_or(1, Vec::len)).sum();
            let per_tree = (nodes / trees.len()).max(1);
            let n = (*pick(&[100usize, 1000, 5000], n)).min((200_000 / per_tree).max(1));
            let copy = trees.clone();
            *trees = copy.iter().cycle().take(n).cloned().collect();
        }
    }
}

/// [`JsonEdit::Logistic`]: replaces the scorer by a logistic one with unusual numbers, and
/// perhaps the wrong number of inputs.
fn set_logistic(json: &mut Value, inputs: &Index, values: &[Index], scale: &Index) {
    let n = *pick(&[INPUTS, INPUTS, 0, INPUTS + 1], inputs);
    let scale = pick(&[1.0, 1e-45, 3.4e38, 0.5], scale);
    json["scorer"] = serde_json::json!({
        "kind": "logistic",
        "mean": (0..n).map(|_| number(&values[0])).collect::<Vec<_>>(),
        "scale": vec![*scale; n],
        "weights": (0..n).map(|_| number(&values[1])).collect::<Vec<_>>(),
        "intercept": number(&values[2]),
    });
}

/// [`JsonEdit::NodeRef`]: points a child or the feature of one node of one tree elsewhere (to
/// the start, the end, past the end, or anywhere).
fn set_node_ref(json: &mut Value, tree: &Index, node: &Index, field: &Index, value: &Index) {
    if let Some(trees) = trees(json) {
        if !trees.is_empty() {
            let t = tree.index(trees.len());
            if let Some(nodes) = trees[t].as_array_mut() {
                let len = nodes.len();
                if len > 0 {
                    let field = *pick(&["left", "right", "feature"], field);
                    let value = *pick(
                        &[
                            0,
                            1,
                            len.saturating_sub(1),
                            len,
                            65535,
                            value.index(len + 2),
                        ],
                        value,
                    );
                    if let Some(node) = nodes[node.index(len)].as_object_mut() {
                        node.insert(field.to_string(), serde_json::json!(value));
                    }
                }
            }
        }
    }
}

fn apply_json_edit(json: &mut Value, edit: &JsonEdit) {
    match edit {
        JsonEdit::Leaf(at, v) => set_leaf(json, at, v),
        JsonEdit::Chain {
            tree,
            length,
            shared,
        } => set_chain(json, tree, length, *shared),
        JsonEdit::Complete(depth) => add_complete_tree(json, depth),
        JsonEdit::ManyTrees(n) => repeat_trees(json, n),
        JsonEdit::NoTrees => {
            if let Some(trees) = trees(json) {
                trees.clear();
            }
        }
        JsonEdit::EmptyTree => {
            if let Some(trees) = trees(json) {
                trees.insert(0, Value::Array(Vec::new()));
            }
        }
        JsonEdit::Logistic {
            inputs,
            values,
            scale,
        } => set_logistic(json, inputs, values, scale),
        JsonEdit::Lag(lag) => {
            json["lag"] = pick(
                &[
                    serde_json::json!(0),
                    serde_json::json!(63),
                    serde_json::json!(64),
                    serde_json::json!(65),
                    serde_json::json!(u64::MAX),
                    serde_json::json!(-1),
                ],
                lag,
            )
            .clone()
        }
        JsonEdit::Transition(values) => {
            json["transition"] = serde_json::json!([
                [number(&values[0]), number(&values[1])],
                [number(&values[2]), number(&values[3])]
            ]);
            json["smoothing"] = number(&values[4]);
        }
        JsonEdit::NodeRef {
            tree,
            node,
            field,
            value,
        } => set_node_ref(json, tree, node, field, value),
        JsonEdit::DropKey(key) => {
            if let Some(map) = json.as_object_mut() {
                if !map.is_empty() {
                    let keys: Vec<String> = map.keys().cloned().collect();
                    map.remove(pick(&keys, key));
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
struct ClassifierRecipe {
    seed: Index,
    edits: Vec<JsonEdit>,
    json_ops: Vec<Op>,
    model_ops: Vec<ModelOp>,
    repair_model: bool,
    file_ops: Vec<Op>,
}

/// Mostly none: most byte damage makes a file that is refused at once.
fn few<T: std::fmt::Debug + Clone>(
    element: impl Strategy<Value = T> + 'static,
) -> impl Strategy<Value = Vec<T>> {
    prop_oneof![3 => Just(Vec::new()), 1 => vec(element, 1..3)]
}

fn classifier_strategy() -> impl Strategy<Value = ClassifierRecipe> {
    (
        any::<Index>(),
        vec(json_edit_strategy(), 0..4),
        few(op_strategy()),
        few(model_op_strategy()),
        prop::bool::weighted(0.8),
        few(op_strategy()),
    )
        .prop_map(
            |(seed, edits, json_ops, model_ops, repair_model, file_ops)| ClassifierRecipe {
                seed,
                edits,
                json_ops,
                model_ops,
                repair_model,
                file_ops,
            },
        )
}

impl ClassifierRecipe {
    fn bytes(&self) -> Vec<u8> {
        let seed = pick(&seeds().classifiers, &self.seed);
        let (mut json, model) = split_classifier(seed).expect("seed classifiers are well formed");
        for edit in &self.edits {
            apply_json_edit(&mut json, edit);
        }
        let mut json = serde_json::to_vec(&json).unwrap();
        apply(&mut json, &self.json_ops, CLASSIFIER_TOKENS);
        let mut model = model.to_vec();
        if !self.model_ops.is_empty() {
            apply_model_ops(&mut model, &self.model_ops);
            if self.repair_model {
                fix_model(&mut model);
            }
        }
        let mut file = join_classifier(&json, &model);
        apply(&mut file, &self.file_ops, CLASSIFIER_TOKENS);
        file
    }
}

fn check_classifier(bytes: &[u8], page: &[u8], read_size: usize) -> Result<(), TestCaseError> {
    match Classifier::from_bytes(bytes) {
        Ok(classifier) => {
            let mut options = Options::with_method(Method::Combined(Arc::new(classifier)));
            options.render.mode = OutputMode::Mark;
            options.render.format = OutputFormat::CleanEval;
            alike(page, ".html", model::embedded(), &options, read_size, None).map(drop)
        }
        Err(e) => {
            prop_assert!(
                !e.to_string().contains('\n'),
                "a classifier error of more than one line: {}",
                e
            );
            Ok(())
        }
    }
}

proptest! {
    #![proptest_config(config(128))]

    /// Damaged classifiers load or are refused without a panic, in bounded time; one that loads
    /// cleans a page alike with one and two threads.
    #[test]
    fn classifiers(recipe in classifier_strategy(), page in any::<Index>(), read_size in 1usize..70_000) {
        let bytes = recipe.bytes();
        let page = pick(&seeds().pages[..seeds().pages.len().min(6)], &page).clone();
        let Some(attempt) = Attempt::new("classifiers", "bin", &bytes) else { return Ok(()) };
        attempt.finish(check_classifier(&bytes, &page, read_size))?;
    }
}

// ---------------------------------------------------------------------------------------------
// Replay

/// `FUZZ_REPLAY=FILE[:FILE…]`: runs each file through the checks of its kind (by content and
/// name: model, classifier, WARC, JSONL, else HTML page).
#[test]
#[ignore]
fn replay() {
    let files = std::env::var("FUZZ_REPLAY").expect("set FUZZ_REPLAY=FILE[:FILE...]");
    for path in files.split(':').filter(|p| !p.is_empty()) {
        let bytes = read(Path::new(path));
        let page = seeds().pages[seeds().pages.len().min(6) - 2].clone();
        let result = if bytes.starts_with(b"PPLM") {
            check_model(&bytes, &page, 4096)
        } else if bytes.starts_with(b"PPLC") {
            check_classifier(&bytes, &page, 4096)
        } else if path.contains(".warc") {
            check_warc(&bytes, bytes.starts_with(b"\x1f\x8b"), 7, 4096, true, false)
        } else if path.contains(".jsonl") {
            read_jsonl(&bytes, 7, 16 << 20, "html")
                .and_then(|_| check_jsonl(&bytes, "html", 7, 16 << 20, 4096, false))
        } else {
            [OutputMode::Clean, OutputMode::Mark]
                .iter()
                .try_for_each(|&mode| check_page(&bytes, mode, false, false, 4096))
        };
        if let Err(e) = result {
            panic!("{path}: {e}");
        }
        eprintln!("{path}: passed");
    }
}
