//! Which WARC responses are cleaned (2xx HTML; the rest with --all-responses), brotli bodies,
//! bodies cut at the decoded-size limit and damaged chunked bodies (said, exit status 1), and the
//! records written (warcinfo first and dated with the run, block digests, one gzip member per
//! record).

use std::io::{Read, Write};

use crate::common::{ppl_filter, ppl_filter_dated, stderr, stdout};

fn response(n: usize, uri: &str, status: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut http = format!("HTTP/1.1 {status}\r\n");
    for (name, value) in headers {
        http.push_str(&format!("{name}: {value}\r\n"));
    }
    let mut block = format!("{http}\r\n").into_bytes();
    block.extend_from_slice(body);
    let mut record = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{n:012}>\r\n\
         WARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    record.extend(block);
    record.extend_from_slice(b"\r\n\r\n");
    record
}

fn page(word: &str) -> Vec<u8> {
    format!("<html><body><article><p>{word} The committee met on Tuesday and approved the plan for the new library, which will open next spring.</p></article></body></html>").into_bytes()
}

fn crawl() -> Vec<u8> {
    let mut brotli_body = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut brotli_body, 4096, 5, 22);
        std::io::Write::write_all(&mut writer, &page("Brotli.")).unwrap();
    }
    let html = [("Content-Type", "text/html")];
    [
        response(1, "http://e.com/ok", "200 OK", &html, &page("Fine.")),
        response(
            2,
            "http://e.com/404",
            "404 Not Found",
            &html,
            &page("Missing."),
        ),
        response(
            3,
            "http://e.com/301",
            "301 Moved Permanently",
            &html,
            &page("Moved."),
        ),
        response(
            4,
            "http://e.com/br",
            "200 OK",
            &[("Content-Type", "text/html"), ("Content-Encoding", "br")],
            &brotli_body,
        ),
        response(
            5,
            "http://e.com/notes.txt",
            "200 OK",
            &[("Content-Type", "text/plain")],
            b"Plain notes about the library opening next spring.",
        ),
        response(
            6,
            "http://e.com/dot.png",
            "200 OK",
            &[("Content-Type", "image/png")],
            b"\x89PNG\r\n\x1a\n\x00\x00",
        ),
    ]
    .concat()
}

fn uris(warc: &str) -> Vec<&str> {
    warc.lines()
        .filter_map(|l| l.strip_prefix("WARC-Target-URI: "))
        .collect()
}

#[test]
fn only_2xx_html_responses_are_cleaned_and_brotli_is_decoded() {
    let out = ppl_filter(&[], &crawl());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let warc = stdout(&out);
    assert_eq!(uris(&warc), ["http://e.com/ok", "http://e.com/br"]);
    assert!(warc.contains("Brotli. The committee met"), "{warc}");
    assert!(!warc.contains("Missing.") && !warc.contains("Moved."));
    assert!(
        stderr(&out).contains("4 WARC responses skipped"),
        "{}",
        stderr(&out)
    );
    let all = ppl_filter(&["--all-responses"], &crawl());
    let warc = stdout(&all);
    assert_eq!(
        uris(&warc),
        [
            "http://e.com/ok",
            "http://e.com/404",
            "http://e.com/301",
            "http://e.com/br",
            "http://e.com/notes.txt",
        ]
    );
    // The PNG is read, found binary and skipped: it gets no record.
    assert!(!warc.contains("dot.png"), "{warc}");
    assert!(stderr(&all).contains("binary data"), "{}", stderr(&all));
    assert!(warc.contains("Plain notes about the library"));
    assert_eq!(
        all.status.code(),
        Some(1),
        "the PNG is binary: skipped, {}",
        stderr(&all)
    );
}

#[test]
fn output_opens_with_warcinfo_and_every_record_has_a_digest() {
    let warc = stdout(&ppl_filter(&["-q"], &crawl()));
    assert!(
        warc.starts_with("WARC/1.1\r\nWARC-Type: warcinfo\r\n"),
        "{warc}"
    );
    assert!(warc.contains("software: ppl-filter/"));
    let records = warc.matches("WARC/1.1\r\n").count();
    assert_eq!(records, 3);
    assert_eq!(warc.matches("WARC-Block-Digest: sha1:").count(), records);
    // An input without a response to clean still gives a WARC file: its warcinfo record.
    let empty = stdout(&ppl_filter(
        &["-q", "--input", "warc"],
        b"WARC/1.1\r\nWARC-Type: request\r\nContent-Length: 0\r\n\r\n\r\n\r\n",
    ));
    assert_eq!(empty.matches("WARC-Type: warcinfo").count(), 1);
}

#[test]
fn compressed_output_is_one_gzip_member_per_record() {
    let out = ppl_filter_dated(&["-q", "--compress"], &crawl());
    let gz = out.stdout;
    let mut members = 0;
    let mut rest = &gz[..];
    let mut text = String::new();
    while !rest.is_empty() {
        let mut decoder = flate2::bufread::GzDecoder::new(rest);
        let mut member = String::new();
        decoder.read_to_string(&mut member).unwrap();
        assert!(
            member.starts_with("WARC/1.1\r\n"),
            "member {members} is one record"
        );
        assert_eq!(member.matches("WARC/1.1\r\n").count(), 1);
        text.push_str(&member);
        rest = decoder.into_inner();
        members += 1;
    }
    assert_eq!(members, 3);
    assert_eq!(text, stdout(&ppl_filter_dated(&["-q"], &crawl())));
    let refused = ppl_filter(&["--compress", "--format", "jsonl"], &crawl());
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn warcinfo_is_dated_with_the_run_or_source_date_epoch() {
    let dated = stdout(&ppl_filter_dated(&["-q"], &crawl()));
    let warcinfo = &dated[..dated.find("\r\n\r\n").unwrap()];
    assert!(
        warcinfo.contains("\r\nWARC-Date: 2024-05-01T12:00:00Z\r\n"),
        "{warcinfo}"
    );
    // Source records without a date: their conversion records take the run's date too.
    assert_eq!(dated.matches("WARC-Date: 2024-05-01T12:00:00Z").count(), 3);
    assert!(!dated.contains("1970-01-01"), "{dated}");
    // Without it: now, a date of this run.
    let before = ppl_filter::sink::warc::run_date().to_string();
    let now = stdout(&ppl_filter(&["-q"], &crawl()));
    let date = now
        .lines()
        .find_map(|l| l.strip_prefix("WARC-Date: "))
        .unwrap();
    assert!(
        date.len() == 20 && date.ends_with('Z') && before.as_str() <= date,
        "{date} (the test started at {before})"
    );
}

/// A gzipped HTML body of `len` bytes: a paragraph, white space (quick to clean), then paragraphs
/// from 256 KiB before the 64 MiB limit on.
fn gzipped_page(len: usize) -> Vec<u8> {
    let unit = b"<p>The mill by the river ground flour for the whole valley every autumn.</p>\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let head = b"<html><body><p>An opening paragraph on the history of the mill.</p>";
    gz.write_all(head).unwrap();
    let filler =
        b"                                                               \n".repeat(1 << 14);
    let mut left = (64 << 20) - (256 << 10) - head.len();
    while left > 0 {
        let n = left.min(filler.len());
        gz.write_all(&filler[..n]).unwrap();
        left -= n;
    }
    let mut left = len - (64 << 20) + (256 << 10);
    while left > 0 {
        let n = left.min(unit.len());
        gz.write_all(&unit[..n]).unwrap();
        left -= n;
    }
    gz.finish().unwrap()
}

#[test]
fn a_body_that_decodes_past_the_limit_is_cut_after_a_tag_and_said() {
    let gzip = [("Content-Type", "text/html"), ("Content-Encoding", "gzip")];
    let body = gzipped_page((64 << 20) + 100_000);
    let input = [
        response(1, "http://e.com/big", "200 OK", &gzip, &body),
        response(2, "http://e.com/ok", "200 OK", &gzip[..1], &page("Fine.")),
    ]
    .concat();
    let out = ppl_filter_dated(&["--format", "jsonl", "--input", "warc"], &input);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let said = "ppl-filter: <stdin>: record <urn:uuid:00000000-0000-4000-8000-000000000001>: read error: decoded body cut at 64 MiB (its gzip Content-Encoding decodes to more); text up to here was kept\n";
    assert!(err.starts_with(said), "{err}");
    assert_eq!(err.matches("decoded body cut").count(), 1, "{err}");
    let json = stdout(&out);
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(lines.len(), 2, "both records are written");
    assert!(
        lines[0].contains("An opening paragraph") && lines[0].contains("The mill by the river")
    );
    assert!(
        !json.contains("</") && !json.contains("<p"),
        "no piece of a tag as text"
    );
    assert!(lines[1].contains("Fine. The committee met"));
}

#[test]
fn damaged_chunked_bodies_keep_the_chunks_before_and_say_so_once() {
    let chunked = [
        ("Content-Type", "text/html"),
        ("Transfer-Encoding", "chunked"),
    ];
    let chunk = |text: &str| format!("{:x}\r\n{text}\r\n", text.len());
    let first =
        "<html><body><p>First part of the story about the river and the mill in the valley.</p>";
    let second =
        "<p>Second part: the miller bought a new stone for the mill that autumn.</p></body></html>";
    let bodies = [
        // No last chunk.
        format!("{}{}", chunk(first), chunk(second)),
        // A size that is not hexadecimal, then more.
        format!("{}zz\r\n{second}\r\n0\r\n\r\n", chunk(first)),
        // A size larger than what follows (its data cut short).
        format!("{}8b\r\n{second}", chunk(first)),
        // Well-formed, with an extension and a trailer: nothing to say.
        format!(
            "{};ext=1\r\n{first}\r\n0\r\nX-Trailer: t\r\n\r\n",
            &chunk(first)[..2]
        ),
    ];
    let input: Vec<u8> = bodies
        .iter()
        .enumerate()
        .flat_map(|(i, b)| response(i + 1, "http://e.com/", "200 OK", &chunked, b.as_bytes()))
        .collect();
    let out = ppl_filter_dated(&["--format", "jsonl", "--input", "warc"], &input);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let problems: Vec<&str> = err.lines().filter(|l| l.contains("chunked body")).collect();
    assert_eq!(problems, [
        "ppl-filter: <stdin>: record <urn:uuid:00000000-0000-4000-8000-000000000001>: read error: chunked body ends without its last (zero-size) chunk: maybe cut short; text up to here was kept",
        "ppl-filter: <stdin>: record <urn:uuid:00000000-0000-4000-8000-000000000002>: read error: chunked body has a chunk size that is not a hexadecimal number (\"zz\"); text up to here was kept",
        "ppl-filter: <stdin>: record <urn:uuid:00000000-0000-4000-8000-000000000003>: read error: chunked body ends inside a chunk (50 of its 139 bytes missing); text up to here was kept",
    ], "{err}");
    let json = stdout(&out);
    let texts: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let text = |i: usize| texts[i]["text"].as_str().unwrap().to_string();
    assert_eq!(texts.len(), 4, "{json}");
    for i in [0, 2] {
        assert!(
            text(i).contains("First part") && text(i).contains("Second part"),
            "{}",
            text(i)
        );
    }
    assert!(
        text(1).contains("First part") && !text(1).contains("Second part"),
        "{}",
        text(1)
    );
    assert!(text(3).contains("First part"), "{}", text(3));
    for i in 0..4 {
        for size_line in ["8b", "zz", "ext", "X-Trailer", "\n56\n", "\n0\n"] {
            assert!(!text(i).contains(size_line), "{size_line:?} in {}", text(i));
        }
    }
}
