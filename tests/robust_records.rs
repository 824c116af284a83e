//! Regressions from fuzzing the record inputs and outputs: JSONL lines with unpaired surrogate
//! escapes, over-long and odd lines, atomic `--output-dir` files, record ids in JSONL objects
//! and write errors passed up unchanged. Every input is generated here.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use proptest::prelude::Strategy;

use ppl_filter::sink::{
    DirSink, DocumentMeta, DocumentStats, RecordFormat, RecordSink, Sink, StreamSink,
};
use ppl_filter::source::jsonl::{parse_line_bytes, Extra, JsonlError, JsonlLines};

use crate::common::*;

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("ppl-robust-records-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir` (hidden ones included), sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Sentences the perplexity method keeps at `-t 1e9`, `n` paragraphs of them.
fn paragraphs(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!("The committee approved the new budget for the school year, item {i}.\n\n")
        })
        .collect()
}

// Row 14: lone surrogate escapes.

/// A JSONL line as Python's `json.dumps` writes it for strings holding unpaired surrogates
/// (`json.dumps({"id": 7, "html": "<p>…\ud800…</p>", "meta": "\udc00"})`).
fn python_line() -> String {
    let html = r#"<p>Caf\u00e9 \ud800 menu: the committee approved the new budget \ud83d\ude00 for the school year \\ud800.</p>"#;
    format!(r#"{{"id": 7, "html": "{html}", "meta": "\udc00", "n": 1.50}}"#)
}

#[test]
fn lone_surrogate_escapes_are_parsed_as_replacement_characters() {
    let line = python_line();
    let record = parse_line_bytes(line.as_bytes(), 1, "html").unwrap();
    assert_eq!(
        record.value(),
        "<p>Caf\u{e9} \u{fffd} menu: the committee approved the new budget \u{1f600} for the school year \\ud800.</p>"
    );
    let out = record.with_field("clean", &[("sentences_kept", Extra::UInt(1))]);
    assert_eq!(
        out,
        r#"{"id": 7, "html": "clean", "meta": "\udc00", "n": 1.50,"sentences_kept":1}"#
    );

    // Every combination of a high and a low escape, with and without an escaped backslash.
    for (json, want) in [
        (r#""\ud800""#, "\u{fffd}"),
        (r#""\udbff\udfff""#, "\u{10ffff}"),
        (r#""\udfff\udbff""#, "\u{fffd}\u{fffd}"),
        (r#""\ud800\ud800\udc00""#, "\u{fffd}\u{10000}"),
        (r#""\\ud800""#, "\\ud800"),
        (r#""\\\ud800""#, "\\\u{fffd}"),
        (r#""\\\\ud800""#, "\\\\ud800"),
        (r#""x\ud800\n\udc00y""#, "x\u{fffd}\n\u{fffd}y"),
        (r#""\ud800""#, "\u{fffd}"),
        (r#""\uD83D\uDE00""#, "\u{1f600}"),
    ] {
        let line = format!(r#"{{"f":{json}}}"#);
        let record =
            parse_line_bytes(line.as_bytes(), 1, "f").unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(record.value(), want, "{line}");
    }
}

/// What a JSON string decodes to when every escape is a UTF-16 code unit and an unpaired
/// surrogate reads as U+FFFD: the reference for any mix of escapes.
fn utf16_lossy(json: &str) -> String {
    let mut units = Vec::new();
    let mut chars = json.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            units.extend(c.encode_utf16(&mut [0; 2]).iter());
            continue;
        }
        let unit = match chars.next() {
            Some('u') => {
                u16::from_str_radix(&chars.by_ref().take(4).collect::<String>(), 16).unwrap()
            }
            Some('n') => 10,
            Some(c) => c as u16,
            None => unreachable!(),
        };
        units.push(unit);
    }
    String::from_utf16_lossy(&units)
}

proptest::proptest! {
    #[test]
    fn any_mix_of_escapes_decodes_like_utf16_lossy(parts in proptest::collection::vec(proptest::prop_oneof![
        proptest::char::any().prop_filter("plain", |c| !matches!(c, '"' | '\\' | '\0'..='\x1f')).prop_map(String::from),
        proptest::sample::select(vec!["\\\\", "\\\"", "\\n", "\\/", "\\\\u"]).prop_map(String::from),
        (0xd780u32..0xe020).prop_map(|u| format!("\\u{u:04x}")),
        (0xd800u32..0xe000).prop_map(|u| format!("\\u{u:04X}")),
        proptest::num::u16::ANY.prop_map(|u| format!("\\u{u:04x}")),
    ], 0..12)) {
        let json: String = parts.concat();
        // Every line made here is JSON (checked all the same).
        let line = format!("{{\"f\":\"{json}\"}}");
        if serde_json::from_str::<&serde_json::value::RawValue>(&line).is_ok() {
            let record = parse_line_bytes(line.as_bytes(), 1, "f").unwrap();
            proptest::prop_assert_eq!(record.value(), utf16_lossy(&json), "{}", line);
        }
    }
}

#[test]
fn lone_surrogate_lines_are_cleaned_not_passed_through() {
    let line = python_line();
    let input = format!("{line}\n{{\"id\": 8, \"html\": \"<p>Plain page.</p>\"}}\n");
    let out = ppl_filter(
        &[&KEEP_ALL[..], &["--input", "jsonl", "-j", "1"]].concat(),
        input.as_bytes(),
    );
    let err = stderr(&out);
    assert!(!err.contains("line 1"), "{err}");
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_ne!(lines[0], line, "cleaned, not passed through");
    assert!(
        !lines[0].contains("<p>") && lines[0].contains("committee approved"),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].contains('\u{fffd}') && lines[0].contains('\u{1f600}'),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].starts_with(r#"{"id": 7, "html": ""#),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].ends_with(r#"", "meta": "\udc00", "n": 1.50}"#),
        "{}",
        lines[0]
    );
}

// Row 15: the line reader and its messages.

/// `len` bytes of `fill` without holding them: a stream as long as a real over-long line.
struct Repeat {
    fill: u8,
    left: u64,
}

impl Read for Repeat {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        buf[..n].fill(self.fill);
        self.left -= n as u64;
        Ok(n)
    }
}

#[test]
fn an_over_long_line_reports_its_real_length() {
    let ten_mb = 10 * 1024 * 1024;
    let input = io::Cursor::new(b"{\"t\":\"a\"}\n".to_vec())
        .chain(Repeat {
            fill: b'x',
            left: ten_mb,
        })
        .chain(io::Cursor::new(b"\r\n{\"t\":\"b\"}".to_vec()));
    let lines: Vec<_> = JsonlLines::new(io::BufReader::new(input), 65536)
        .map(|l| l.unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    let error = lines[1].1.as_ref().unwrap_err();
    assert_eq!(
        *error,
        JsonlError::TooLong {
            line: 2,
            limit: 65536,
            length: ten_mb
        }
    );
    assert_eq!(
        error.to_string(),
        "line 2: 10485760 bytes, longer than the 65536-byte limit"
    );
    assert_eq!(lines[2], (3, Ok(b"{\"t\":\"b\"}".to_vec())));
}

#[test]
fn an_over_long_line_is_passed_through_unchanged_with_a_true_message() {
    let limit = 16 * 1024 * 1024;
    let long = format!("{{\"html\": \"{}\"}}", "x".repeat(limit + 1000));
    let input =
        format!("{{\"html\": \"<p>One.</p>\"}}\n{long}\r\n{{\"html\": \"<p>Three.</p>\"}}\n");
    let length = long.len();
    let message = |fate: &str| {
        format!("ppl-filter: <stdin>: line 2: {length} bytes, longer than the {limit}-byte limit ({fate})\n")
    };
    for threads in ["1", "2"] {
        let args = [&KEEP_ALL[..], &["--input", "jsonl", "-j", threads]].concat();
        let out = ppl_filter(&args, input.as_bytes());
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(stderr(&out), message("passed through"));
        // Line for line: the long line as it was read.
        let lines: Vec<&[u8]> = out.stdout.split(|&b| b == b'\n').collect();
        assert_eq!(lines.len(), 4, "three lines and the end");
        assert_eq!(lines[1], long.as_bytes());
        assert_eq!(lines[2], br#"{"html": "Three."}"#);
    }
    let args = [&KEEP_ALL[..], &["--input", "jsonl", "--skip-bad-lines"]].concat();
    let out = ppl_filter(&args, input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), message("skipped"));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
}

#[test]
fn max_record_bytes_bounds_jsonl_lines_and_warc_records() {
    let page = |i: usize| format!("<p>Paragraph {i} of the page, long enough to be a line.</p>");
    let lines: Vec<String> = (0..4)
        .map(|i| format!("{{\"html\": \"{}\"}}", page(i).repeat(1 + 20 * (i % 2))))
        .collect();
    let input = lines.join("\n") + "\n";
    let args = [
        &KEEP_ALL[..],
        &["--input", "jsonl", "--max-record-bytes", "500"],
    ]
    .concat();
    let out = ppl_filter(&args, input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let written: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(written.len(), 4);
    assert_eq!(
        (written[1], written[3]),
        (lines[1].as_str(), lines[3].as_str())
    );
    assert!(written[0].contains("Paragraph 0 of the page") && !written[0].contains("<p>"));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.contains("line 2: ") && err.contains("longer than the 500-byte limit (passed through)")
    );
    // A WARC record past it is skipped and said.
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{}",
        page(1).repeat(20)
    );
    let warc = format!("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n", http.len());
    let out = ppl_filter(
        &["--format", "json", "--max-record-bytes", "500"],
        warc.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let out = ppl_filter(&["--format", "json"], warc.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Lines that are not a JSON object, each beside the warning it gets (naming its line), and
/// the input holding them between good lines (the good line `n` has id `n`).
type OddLines = ([(&'static [u8], &'static str); 6], Vec<u8>);

/// Six odd lines, each after a good line (ending in `\r\n` or `\n`), and the input of them all.
fn odd_lines() -> OddLines {
    let good = |n: u32| {
        format!("{{\"id\":{n},\"html\":\"<p>The committee approved the new budget.</p>\"}}")
    };
    let odd: [(&[u8], &str); 6] = [
        (b"", "line 2: empty line"),
        (b" \t ", "line 4: empty line"),
        (
            b"{\"id\":5,\"html\":\"<p>a\x00b</p>\"}",
            "line 6: invalid JSON: control character",
        ),
        (
            b"{\"id\":7,\x00\"html\":\"x\"}",
            "line 8: invalid JSON: key must be a string",
        ),
        (
            b"{\"id\":9,\"html\":\"caf\xe9\"}",
            "line 10: not valid UTF-8 (column 20)",
        ),
        (
            b"{\"id\":11,\"html\":\"<p>cut here",
            "line 12: invalid JSON: EOF while parsing a string",
        ),
    ];
    let mut input = Vec::new();
    for (i, (line, _)) in odd.iter().enumerate() {
        input.extend_from_slice(good(2 * i as u32 + 1).as_bytes());
        input.extend_from_slice(if i % 2 == 0 { b"\r\n" } else { b"\n" });
        input.extend_from_slice(line);
        if i + 1 < odd.len() {
            input.push(b'\n');
        }
    }
    (odd, input)
}

/// Cleans the [`odd_lines`] (skipping them with `--skip-bad-lines` if `skip`), checking that
/// each gets one warning naming its line and that every line written ends with a newline;
/// returns the lines written.
fn clean_odd_lines(skip: bool) -> Vec<Vec<u8>> {
    let (odd, input) = odd_lines();
    let args = [
        &KEEP_ALL[..],
        &["--input", "jsonl"],
        if skip { &["--skip-bad-lines"][..] } else { &[] },
    ]
    .concat();
    let out = ppl_filter(&args, &input);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let messages: Vec<&str> = err.lines().collect();
    assert_eq!(messages.len(), odd.len(), "{err}");
    let action = if skip {
        "(skipped)"
    } else {
        "(passed through)"
    };
    for (message, (_, want)) in messages.iter().zip(&odd) {
        assert!(
            message.starts_with(&format!("ppl-filter: <stdin>: {want}")),
            "{message}"
        );
        assert!(message.ends_with(action), "{message}");
    }
    let mut lines: Vec<Vec<u8>> = out
        .stdout
        .split(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    assert_eq!(
        lines.last().map(Vec::as_slice),
        Some(&b""[..]),
        "every line ends with a newline"
    );
    lines.pop();
    lines
}

/// Checks that the good lines among the `lines` written (every line if the odd ones were
/// `skipped`, else every other one) are cleaned, in order.
fn assert_good_lines_cleaned(lines: &[Vec<u8>], skipped: bool) {
    for (i, line) in lines
        .iter()
        .enumerate()
        .filter(|(i, _)| skipped || i % 2 == 0)
    {
        let line = std::str::from_utf8(line).unwrap();
        let id = if skipped { 2 * i + 1 } else { i + 1 };
        assert_eq!(
            line,
            format!("{{\"id\":{id},\"html\":\"The committee approved the new budget.\"}}")
        );
    }
}

/// Odd lines: each is a clear one-line warning naming the line, and the line is passed through
/// as read; good lines around them are cleaned.
#[test]
fn odd_lines_are_reported_on_one_line_and_passed_through() {
    let (odd, _) = odd_lines();
    let lines = clean_odd_lines(false);
    assert_eq!(lines.len(), 2 * odd.len());
    for (i, (line, _)) in odd.iter().enumerate() {
        assert_eq!(
            lines[2 * i + 1],
            *line,
            "line {} passes through byte for byte",
            2 * i + 2
        );
    }
    assert_good_lines_cleaned(&lines, false);
}

/// Odd lines with `--skip-bad-lines`: each is a clear one-line warning naming the line, and the
/// line is dropped; good lines around them are cleaned.
#[test]
fn odd_lines_are_reported_on_one_line_and_skipped() {
    let (odd, _) = odd_lines();
    let lines = clean_odd_lines(true);
    assert_eq!(lines.len(), odd.len());
    assert_good_lines_cleaned(&lines, true);
}

// Row 11: atomic output files.

#[test]
fn dir_sink_writes_a_document_under_its_name_only_once_complete() {
    let dir = scratch("atomic");
    let names = vec![
        PathBuf::from("a.txt"),
        PathBuf::from("sub/b.txt"),
        PathBuf::from("c.txt"),
    ];
    std::fs::write(dir.join("c.txt"), b"from an earlier run").unwrap();
    let mut sink = DirSink::new(&dir, names.clone());
    sink.begin(
        0,
        &DocumentMeta::Input {
            source: String::new(),
        },
    )
    .unwrap();
    sink.write(b"first").unwrap();
    let partial: Vec<String> = listing(&dir)
        .into_iter()
        .filter(|n| n.starts_with(".a.txt."))
        .collect();
    assert_eq!(partial.len(), 1, "{:?}", listing(&dir));
    assert!(partial[0].ends_with(".partial") && !dir.join("a.txt").exists());
    sink.end(&DocumentStats::default()).unwrap();
    sink.begin(
        1,
        &DocumentMeta::Input {
            source: String::new(),
        },
    )
    .unwrap();
    sink.write(b"second").unwrap();
    sink.end(&DocumentStats::default()).unwrap();
    // The third never ends: the run stops (dropping the sink) in the middle of it.
    sink.begin(
        2,
        &DocumentMeta::Input {
            source: String::new(),
        },
    )
    .unwrap();
    sink.write(&vec![b'x'; 100_000]).unwrap();
    drop(sink);
    assert_eq!(listing(&dir), ["a.txt", "c.txt", "sub"]);
    assert_eq!(listing(&dir.join("sub")), ["b.txt"]);
    assert_eq!(std::fs::read(dir.join("a.txt")).unwrap(), b"first");
    assert_eq!(
        std::fs::read(dir.join("c.txt")).unwrap(),
        b"from an earlier run",
        "not truncated"
    );

    // `finish` also drops a document that was begun and not ended.
    let mut sink = DirSink::new(&dir, names);
    sink.begin(
        2,
        &DocumentMeta::Input {
            source: String::new(),
        },
    )
    .unwrap();
    sink.write(b"unfinished").unwrap();
    sink.finish().unwrap();
    assert_eq!(listing(&dir), ["a.txt", "c.txt", "sub"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dir_sink_error_removes_the_temporary_file_and_keeps_finished_ones() {
    let dir = scratch("rename-error");
    // The second name is taken by a directory that is not empty: renaming onto it fails.
    std::fs::create_dir_all(dir.join("b.txt/inside")).unwrap();
    let mut sink = DirSink::new(&dir, vec![PathBuf::from("a.txt"), PathBuf::from("b.txt")]);
    sink.begin(
        0,
        &DocumentMeta::Input {
            source: String::new(),
        },
    )
    .unwrap();
    sink.write(b"done").unwrap();
    sink.end(&DocumentStats::default()).unwrap();
    sink.begin(
        1,
        &DocumentMeta::Input {
            source: String::new(),
        },
    )
    .unwrap();
    sink.write(b"lost").unwrap();
    let error = sink.end(&DocumentStats::default()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(&dir.join("b.txt").display().to_string()),
        "{error}"
    );
    assert_eq!(listing(&dir), ["a.txt", "b.txt"]);
    assert_eq!(std::fs::read(dir.join("a.txt")).unwrap(), b"done");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `ppl-filter -o DIR` under a file size limit: with SIGXFSZ ignored the write fails like on a
/// full disk (an error, exit 2, no file for the document); with SIGXFSZ the process is killed
/// (like SIGINT or SIGTERM) and only a hidden `.partial` file may be left.
#[test]
fn output_dir_leaves_no_truncated_file_on_a_write_error_or_a_kill() {
    let dir = scratch("size-limit");
    let inputs = dir.join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    std::fs::write(inputs.join("a.txt"), paragraphs(2)).unwrap();
    std::fs::write(inputs.join("b.txt"), paragraphs(4000)).unwrap();
    for ignore in [true, false] {
        let out_dir = dir.join(if ignore { "out-error" } else { "out-killed" });
        // dash counts 512-byte blocks, bash 1024-byte ones: either way far below b.txt's size.
        let trap = if ignore { "trap '' XFSZ;" } else { "" };
        let script = format!("{trap} ulimit -f 64; exec \"$0\" \"$@\"");
        let out = Command::new("sh")
            .args(["-c", &script, env!("CARGO_BIN_EXE_ppl-filter")])
            .args(KEEP_ALL)
            .args(["--input", "text", "-j", "1", "-q", "-o"])
            .arg(&out_dir)
            .arg(&inputs)
            .output()
            .unwrap();
        let err = stderr(&out);
        if ignore {
            assert_eq!(out.status.code(), Some(2), "{err}");
            assert!(
                err.contains("cannot write output") && err.contains("b.txt"),
                "{err}"
            );
            assert_eq!(listing(&out_dir), ["a.txt"]);
        } else {
            assert_eq!(out.status.code(), None, "killed by SIGXFSZ: {err}");
            let left = listing(&out_dir);
            assert_eq!(left.len(), 2, "{left:?}");
            assert!(
                left[0].starts_with(".b.txt.") && left[0].ends_with(".partial"),
                "{left:?}"
            );
            assert_eq!(left[1], "a.txt");
        }
        let a = std::fs::read_to_string(out_dir.join("a.txt")).unwrap();
        assert!(a.contains("item 0.") && a.contains("item 1."), "{a}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

// Row 13: record ids in JSONL objects.

fn response(record_id: &str) -> DocumentMeta {
    DocumentMeta::WarcResponse {
        source: "crawl.warc".to_string(),
        record_id: record_id.to_string(),
        target_uri: Some("http://example.com/".to_string()),
        date: None,
    }
}

#[test]
fn jsonl_objects_write_a_missing_record_id_as_null() {
    let mut sink = RecordSink::new(Vec::new(), RecordFormat::JSON);
    for (i, id) in ["<urn:uuid:1>", "", "  ", "<urn:uuid:1>"]
        .iter()
        .enumerate()
    {
        sink.begin(i, &response(id)).unwrap();
        sink.write(b"Some text.\n").unwrap();
        // More kept than counted must not underflow.
        sink.end(&DocumentStats {
            sentences: 1,
            kept: 2,
            kept_perplexity_sum: 3.0,
            ..DocumentStats::default()
        })
        .unwrap();
    }
    sink.finish().unwrap();
    let out = String::from_utf8(sink.into_inner()).unwrap();
    let objects: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<&serde_json::Value> = objects.iter().map(|o| &o["warc_record_id"]).collect();
    let (id, null) = (serde_json::json!("<urn:uuid:1>"), serde_json::Value::Null);
    assert_eq!(
        ids,
        [&id, &null, &null, &id],
        "an id missing or blank is null; a repeated one is kept"
    );
    assert!(
        objects
            .iter()
            .all(|o| o["sentences_dropped"] == 0 && o["text"] == "Some text."),
        "{out}"
    );
}

#[test]
fn warc_response_without_a_record_id_gets_a_null_id() {
    let body = "<html><body><p>The committee approved the new budget for the school year.</p></body></html>";
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{body}");
    let warc = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
        http.len()
    );
    let out = ppl_filter(
        &[&KEEP_ALL[..], &["--input", "warc", "--format", "jsonl"]].concat(),
        warc.as_bytes(),
    );
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let objects: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objects.len(), 1, "{text}{}", stderr(&out));
    assert_eq!(
        objects[0]["warc_record_id"],
        serde_json::Value::Null,
        "{text}"
    );
    assert_eq!(objects[0]["url"], "http://example.com/");
}

// Write errors: passed up unchanged, and nothing written before them lost.

/// Takes `room` bytes, then fails every write with `kind`.
struct Failing {
    written: Vec<u8>,
    room: usize,
    kind: io::ErrorKind,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written.len() >= self.room {
            return Err(io::Error::from(self.kind));
        }
        let n = buf.len().min(self.room - self.written.len());
        self.written.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        if self.written.len() >= self.room {
            return Err(io::Error::from(self.kind));
        }
        Ok(())
    }
}

fn failing(room: usize, kind: io::ErrorKind) -> Failing {
    Failing {
        written: Vec::new(),
        room,
        kind,
    }
}

#[test]
fn sinks_pass_broken_pipe_up_unchanged() {
    let stats = DocumentStats {
        sentences: 2,
        kept: 1,
        kept_perplexity_sum: 10.0,
        ..DocumentStats::default()
    };
    let mut stream = StreamSink::new(failing(3, io::ErrorKind::BrokenPipe), b"\n");
    stream
        .begin(
            0,
            &DocumentMeta::Input {
                source: String::new(),
            },
        )
        .unwrap();
    assert_eq!(
        stream.write(b"abcdef").unwrap_err().kind(),
        io::ErrorKind::BrokenPipe
    );
    assert_eq!(
        stream.into_inner().written,
        b"abc",
        "what went out before the error stays"
    );

    let line = parse_line_bytes(br#"{"html":"<p>x</p>"}"#, 1, "html").unwrap();
    let cases = [
        (
            RecordFormat::JsonlRewrite {
                output_field: None,
                add_scores: true,
            },
            DocumentMeta::JsonlLine(line),
        ),
        (
            RecordFormat::JsonlRewrite {
                output_field: None,
                add_scores: false,
            },
            DocumentMeta::Passthrough(b"not json".to_vec().into()),
        ),
        (RecordFormat::JSON, response("<urn:uuid:2>")),
        (
            RecordFormat::Warc {
                gzip_members: false,
            },
            response("<urn:uuid:2>"),
        ),
    ];
    for (format, meta) in cases {
        for kind in [io::ErrorKind::BrokenPipe, io::ErrorKind::Other] {
            let mut sink = RecordSink::new(failing(0, kind), format.clone());
            sink.begin(0, &meta).unwrap();
            sink.write(b"Text.\n").unwrap();
            assert_eq!(sink.end(&stats).unwrap_err().kind(), kind, "{format:?}");
        }
        // Records ended before the error are out in full.
        let mut whole = RecordSink::new(Vec::new(), format.clone());
        whole.begin(0, &meta).unwrap();
        whole.write(b"Text.\n").unwrap();
        whole.end(&stats).unwrap();
        let one = whole.into_inner();
        let mut sink = RecordSink::new(
            failing(one.len() + 1, io::ErrorKind::BrokenPipe),
            format.clone(),
        );
        let mut result = Ok(());
        for i in 0..2 {
            sink.begin(i, &meta).unwrap();
            sink.write(b"Text.\n").unwrap();
            result = sink.end(&stats);
        }
        assert_eq!(result.unwrap_err().kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(
            sink.into_inner().written[..one.len()],
            one[..],
            "{format:?}"
        );
    }
}

#[test]
fn a_closed_output_pipe_ends_jsonl_output_quietly() {
    let line = |i| format!("{{\"id\":{i},\"text\":\"The budget was approved.\"}}\n");
    let input: String = (0..20_000).map(line).collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ppl-filter"))
        .args(
            [
                &KEEP_ALL[..],
                &["--input", "jsonl", "--field", "text", "-q"],
            ]
            .concat(),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The read end is closed now.
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(&first, b"{\"id\":0,\"t");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}
