//! Prints what each page shows of its kind, as the decider reads it: one tab-separated row per
//! page (its file, the kind it declares, then every value of `PageEvidence` in order, under a
//! header row), for `scripts/learn-page-kinds.py`:
//! `cargo run --release --example page_evidence -- PAGE... > evidence.tsv`

use std::io::Read;
use std::process::ExitCode;

use ppl_filter::decide::PageEvidence;
use ppl_filter::learn::kind_evidence;

fn main() -> ExitCode {
    println!("page\tdeclared\t{}", PageEvidence::NAMES.join("\t"));
    for path in std::env::args().skip(1) {
        let bytes = match std::fs::read(&path).and_then(gunzip) {
            Ok(bytes) => bytes,
            Err(e) => {
                eprintln!("page_evidence: {path}: {e}");
                return ExitCode::from(2);
            }
        };
        let (declared, evidence) = kind_evidence(&bytes);
        let values: Vec<String> = evidence.values().iter().map(|v| v.to_string()).collect();
        println!("{path}\t{}\t{}", declared.name(), values.join("\t"));
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
