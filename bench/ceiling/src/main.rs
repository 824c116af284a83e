//! lol-ceiling: the fastest any lol_html-based HTML-to-text stage can go on this machine.
//!
//! Reads standard input in 64 KiB chunks and feeds lol_html's `HtmlRewriter` with a single
//! document-level text handler that only counts the bytes of text it is given; the rewritten
//! output goes to a sink that discards it. Prints the text byte count to stderr at the end.
//! Non-strict mode, as ppl-filter uses, so ambiguous markup never aborts the run.
//!
//! With `--elements` it also registers what any element-aware lol_html stage needs and
//! nothing more: a handler on every element (`*`) that counts it and, for elements that can
//! have content, an end-tag handler that counts the end. It measures what lol_html's element
//! mode alone costs, before any work of the caller's.

use std::borrow::Cow;
use std::cell::Cell;
use std::io::{self, Read};
use std::process::ExitCode;
use std::rc::Rc;

use lol_html::html_content::{Element, TextChunk};
use lol_html::{DocumentContentHandlers, ElementContentHandlers, HtmlRewriter, Selector, Settings};

fn main() -> ExitCode {
    let text_bytes = Rc::new(Cell::new(0u64));
    let counter = Rc::clone(&text_bytes);
    let elements = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--elements") => true,
        Some(other) => {
            eprintln!("lol-ceiling: unknown argument {other} (usage: lol-ceiling [--elements] < HTML)");
            return ExitCode::from(2);
        }
    };
    let mut settings = Settings::new().with_strict(false).append_document_content_handler(
        DocumentContentHandlers::default().text(move |chunk: &mut TextChunk| {
            counter.set(counter.get() + chunk.as_str().len() as u64);
            Ok(())
        }),
    );
    let element_count = Rc::new(Cell::new(0u64));
    if elements {
        let starts = Rc::clone(&element_count);
        let selector = "*".parse::<Selector>().expect("`*` is a valid selector");
        settings = settings.append_element_content_handler((
            Cow::Owned(selector),
            ElementContentHandlers::default().element(move |el: &mut Element<'_, '_>| {
                starts.set(starts.get() + 1);
                if el.can_have_content() {
                    let ends = Rc::clone(&starts);
                    el.on_end_tag(Box::new(move |_end| {
                        ends.set(ends.get() + 1);
                        Ok(())
                    }))?;
                }
                Ok(())
            }),
        ));
    }
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
    if elements {
        eprintln!("lol-ceiling: {} element starts and ends", element_count.get());
    }
    ExitCode::SUCCESS
}
