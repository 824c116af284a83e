//! Which WARC responses are cleaned (2xx HTML; the rest with --all-responses), brotli bodies,
//! and the records written (warcinfo first, block digests, one gzip member per record).

mod common;

use std::io::Read;

use common::{ppl_filter, stderr, stdout};

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
    let out = ppl_filter(&["-q", "--compress"], &crawl());
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
    assert_eq!(text, stdout(&ppl_filter(&["-q"], &crawl())));
    let refused = ppl_filter(&["--compress", "--format", "jsonl"], &crawl());
    assert_eq!(refused.status.code(), Some(2));
}
