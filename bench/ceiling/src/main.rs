//! lol-ceiling: the fastest any lol_html-based HTML-to-text stage can go on this machine.
//!
//! Reads standard input in 64 KiB chunks and feeds lol_html's `HtmlRewriter` with a single
//! document-level text handler that only counts the bytes of text it is given; the rewritten
//! output goes to a sink that discards it. Prints the text byte count to stderr at the end.
//! Non-strict mode, as ppl-filter uses, so ambiguous markup never aborts the run.

use std::cell::Cell;
use std::io::{self, Read};
use std::process::ExitCode;
use std::rc::Rc;

use lol_html::html_content::TextChunk;
use lol_html::{DocumentContentHandlers, HtmlRewriter, Settings};

fn main() -> ExitCode {
    let text_bytes = Rc::new(Cell::new(0u64));
    let counter = Rc::clone(&text_bytes);
    let settings = Settings::new().with_strict(false).append_document_content_handler(
        DocumentContentHandlers::default().text(move |chunk: &mut TextChunk| {
            counter.set(counter.get() + chunk.as_str().len() as u64);
            Ok(())
        }),
    );
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});

    let mut stdin = io::stdin().lock();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut html_bytes = 0u64;
    loop {
        let n = match stdin.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("lol-ceiling: read error: {e}");
                return ExitCode::from(2);
            }
        };
        html_bytes += n as u64;
        if let Err(e) = rewriter.write(&buffer[..n]) {
            eprintln!("lol-ceiling: {e}");
            return ExitCode::from(2);
        }
    }
    if let Err(e) = rewriter.end() {
        eprintln!("lol-ceiling: {e}");
        return ExitCode::from(2);
    }
    eprintln!("lol-ceiling: {} bytes of HTML, {} bytes of text", html_bytes, text_bytes.get());
    ExitCode::SUCCESS
}
