//! A peer of bench/peers/extract.py, for the Rust extractors: cleans every page of a directory,
//! page by page from the raw bytes, with each tool's default settings.
//!
//!     peer-rust-extract INPUT_DIR OUT_DIR [TOOL ...]
//!
//! TOOL is `rs-trafilatura` or `dom-smoothie` (default: both). Pages are INPUT_DIR/ID.html or
//! ID.html.gz (gzipped ones are decompressed), taken in sorted order; each is decoded as UTF-8
//! (invalid bytes replaced by U+FFFD) and the tool's plain text is written to OUT_DIR/TOOL/ID.txt:
//! `rs_trafilatura::extract(html)` and its `content_text`, or dom_smoothie's
//! `Readability::new(html, None, None)`, `.parse()` and the article's `text_content`. A page a
//! tool fails on (an error or a panic) gets an empty file and a line on stderr, and the run goes
//! on. Each tool's page count, time and failures end its run on stderr.
use std::any::Any;
use std::fs;
use std::io::Read;
use std::panic;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use dom_smoothie::Readability;
use flate2::read::GzDecoder;

const TOOLS: [&str; 2] = ["rs-trafilatura", "dom-smoothie"];

/// The plain text `tool` extracts from `html`.
fn extract(tool: &str, html: &str) -> Result<String, String> {
    match tool {
        "rs-trafilatura" => rs_trafilatura::extract(html)
            .map(|r| r.content_text)
            .map_err(|e| e.to_string()),
        _ => Readability::new(html, None, None)
            .and_then(|mut r| r.parse())
            .map(|a| a.text_content.to_string())
            .map_err(|e| e.to_string()),
    }
}

/// The bytes of a page, decompressed if its name ends in `.gz`.
fn read_page(path: &Path) -> Result<Vec<u8>, String> {
    let raw = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut page = Vec::new();
        GzDecoder::new(raw.as_slice())
            .read_to_end(&mut page)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(page)
    } else {
        Ok(raw)
    }
}

/// The message a panic carried, for its page's line on stderr.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("?");
    format!("panicked: {message}")
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input_dir, out_dir, tools @ ..] = args.as_slice() else {
        return Err("usage: peer-rust-extract INPUT_DIR OUT_DIR [TOOL ...]".into());
    };
    let tools: Vec<&str> = if tools.is_empty() {
        TOOLS.to_vec()
    } else {
        tools.iter().map(String::as_str).collect()
    };
    if let Some(bad) = tools.iter().find(|t| !TOOLS.contains(t)) {
        return Err(format!("unknown tool {bad:?} (expected one of {TOOLS:?})"));
    }
    let mut pages: Vec<(String, PathBuf)> = fs::read_dir(input_dir)
        .map_err(|e| format!("{input_dir}: {e}"))?
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_name()?.to_str()?;
            let id = name
                .strip_suffix(".html.gz")
                .or_else(|| name.strip_suffix(".html"))?;
            Some((id.to_string(), path.clone()))
        })
        .collect();
    pages.sort();

    // A tool's panic is reported as that page's failure, not by the default hook.
    panic::set_hook(Box::new(|_| {}));
    for tool in tools {
        let dir = Path::new(out_dir).join(tool);
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let (start, mut failed) = (Instant::now(), 0);
        for (id, path) in &pages {
            let page = read_page(path)?;
            let html = String::from_utf8_lossy(&page);
            let text = panic::catch_unwind(|| extract(tool, &html))
                .unwrap_or_else(|payload| Err(panic_message(payload.as_ref())))
                .unwrap_or_else(|e| {
                    eprintln!("{tool}: {id}: {e}");
                    failed += 1;
                    String::new()
                });
            let out = dir.join(format!("{id}.txt"));
            fs::write(&out, text).map_err(|e| format!("{}: {e}", out.display()))?;
        }
        eprintln!(
            "{tool}: {} pages in {:.1} s, {failed} failed",
            pages.len(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peer-rust-extract: {e}");
            ExitCode::from(2)
        }
    }
}
