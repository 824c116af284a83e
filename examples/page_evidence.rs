//! Prints what each page shows of its kind, as the decider reads it: one tab-separated row per
//! page (its file, the kind it declares, then every value of `PageEvidence` in order, under a
//! header row), for `scripts/learn-page-kinds.py`:
//! `cargo run --release --example page_evidence -- PAGE... > evidence.tsv`

use std::io::Read;
use std::process::ExitCode;
use std::sync::Arc;

use ppl_filter::block::{PageEvidence, PageInfo, PageKind};
use ppl_filter::evidence::{page_evidence, page_kind, Analysis};
use ppl_filter::pipeline::pages::{decided_blocks, Page};
use ppl_filter::pipeline::{read_blocks, Options};

fn main() -> ExitCode {
    let model = ppl_filter::lm::model::embedded();
    // Every page decided as one of no known kind: the page-kind model plays no part.
    let mut options = Options::default();
    options.decide.choices.kind = Some(PageKind::Other);
    println!("page\tdeclared\t{}", PageEvidence::NAMES.join("\t"));
    for path in std::env::args().skip(1) {
        let bytes: Arc<[u8]> = match std::fs::read(&path).and_then(gunzip) {
            Ok(bytes) => bytes.into(),
            Err(e) => {
                eprintln!("page_evidence: {path}: {e}");
                return ExitCode::from(2);
            }
        };
        let info: PageInfo = read_blocks(&bytes, &options).info;
        let page = Page {
            name: path.clone(),
            bytes,
            url: None,
            encoding: None,
        };
        // The blocks as the decider holds them: measured, observed in order.
        let (blocks, _) = decided_blocks(&page, model, &options);
        let evidence = page_evidence(&blocks, &info, &Analysis::of(&blocks));
        let values: Vec<String> = evidence.values().iter().map(|v| v.to_string()).collect();
        println!("{path}\t{}\t{}", page_kind(&info).name(), values.join("\t"));
    }
    ExitCode::SUCCESS
}

/// The bytes of a gzip file inflated (the shared sets' pages are `.html.gz`), others as they are.
fn gunzip(bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut out)?;
    Ok(out)
}
