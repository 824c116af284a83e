//! The stream splitter against "each page as a file": a page piped alone is one page, byte for
//! byte (every page of the shared sets, when `../shared` is there), and a page cut off at any
//! byte of its body loses none of the pages after it.

use std::io::Read;
use std::path::{Path, PathBuf};

use ppl_filter::source::pages::Pages;
use proptest::prelude::*;

/// The pages of `stream`, read 64 KiB at a time.
fn split(stream: &[u8]) -> Vec<Vec<u8>> {
    let mut pages = Pages::new(stream, 64 * 1024, 16 << 20);
    let mut all = Vec::new();
    while let Some(mut page) = pages.next_page() {
        let mut bytes = Vec::new();
        page.read_to_end(&mut bytes).unwrap();
        all.push(bytes);
    }
    all
}

/// The bytes of a page file, gunzipped if it is gzipped.
fn page_bytes(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .unwrap();
        return out;
    }
    bytes
}

/// Every file of the shared sets' `input/` folders.
fn shared_pages() -> Vec<PathBuf> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    let sets = [
        "cleaneval/tune",
        "cleaneval/dev",
        "articles/l3s-gn1",
        "articles/dragnet",
        "wcxb-dev",
        "fundus",
        "structure",
    ];
    let mut pages = Vec::new();
    for set in sets {
        let Ok(entries) = std::fs::read_dir(data.join(set).join("input")) else {
            continue;
        };
        pages.extend(entries.map(|e| e.unwrap().path()));
    }
    pages.sort();
    pages
}

#[test]
fn every_shared_page_piped_alone_is_one_page_with_its_bytes() {
    let pages = shared_pages();
    if pages.is_empty() {
        eprintln!("skipped: ../shared/data is not there");
        return;
    }
    let split_apart: Vec<String> = pages
        .iter()
        .filter(|path| {
            let bytes = page_bytes(path);
            split(&bytes) != [bytes]
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(split_apart.is_empty(), "cut apart: {split_apart:?}");
    assert!(pages.len() > 2000, "{} pages", pages.len());
}

/// The fixture pages with a doctype and a body, and where each body's content begins.
fn fixture_bodies() -> Vec<(Vec<u8>, usize)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pages");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(path).unwrap();
            if !bytes.starts_with(b"<!DOCTYPE html>") {
                return None;
            }
            let body = memchr::memmem::find(&bytes, b"<body")?;
            // Past the body's first element: a document right after `<body>` is the body's.
            let content = body + memchr::memmem::find(&bytes[body..], b"<div")? + 4;
            Some((bytes, content))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A page cut off anywhere in its body, then two whole pages: the whole pages come out
    /// as they are.
    #[test]
    fn a_page_cut_off_loses_no_page_after_it(which in 0usize..16, at in 0.0f64..1.0) {
        let bodies = fixture_bodies();
        let (page, content) = &bodies[which % bodies.len()];
        let cut = content + ((page.len() - content) as f64 * at) as usize;
        let (next, _) = &bodies[(which + 1) % bodies.len()];
        let (last, _) = &bodies[(which + 2) % bodies.len()];
        let stream = [&page[..cut], next, last].concat();
        let pages = split(&stream);
        prop_assert!(pages.len() >= 3, "{} pages", pages.len());
        prop_assert_eq!(&pages[pages.len() - 2], next);
        prop_assert_eq!(&pages[pages.len() - 1], last);
        prop_assert_eq!(pages[..pages.len() - 2].concat(), &page[..cut]);
    }
}
