//! A peer of bench/run.sh: dom_smoothie's Readability over the pages of the benchmark stream.
//!
//!     peer-dom-smoothie --lengths FILE < stream.html > text
//!
//! FILE holds the byte length of each page of the stream, one integer per line, in stream
//! order. Each page is cut from standard input, decoded as UTF-8 (invalid bytes replaced by
//! U+FFFD), given to `Readability::new(html, None, None)` and `.parse()`, and the article's
//! `text_content` is written to standard output followed by a newline. A page it fails on
//! writes nothing (a line on stderr; a panic counts as a failure) and the run goes
//! on. Bytes after the last page are ignored.
use std::io::{self, BufWriter, Read, Write};
use std::panic;
use std::process::ExitCode;

use dom_smoothie::Readability;

fn run() -> Result<(usize, usize), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = match args.as_slice() {
        [flag, path] if flag == "--lengths" => path,
        _ => return Err("usage: peer-dom-smoothie --lengths FILE < stream".into()),
    };
    let lengths: Vec<usize> = std::fs::read_to_string(path)
        .map_err(|e| format!("{path}: {e}"))?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.trim().parse().map_err(|e| format!("{path}: {l:?}: {e}")))
        .collect::<Result<_, _>>()?;

    let mut stdin = io::stdin().lock();
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut page = Vec::new();
    let (mut done, mut failed) = (0, 0);
    for (i, &len) in lengths.iter().enumerate() {
        page.clear();
        let got = (&mut stdin)
            .take(len as u64)
            .read_to_end(&mut page)
            .map_err(|e| format!("stdin: {e}"))?;
        if got < len {
            return Err(format!(
                "stdin ends inside page {} ({got} of {len} bytes)",
                i + 1
            ));
        }
        let html = String::from_utf8_lossy(&page);
        // A panic inside the library counts as a failed page, like an error.
        let parsed = panic::catch_unwind(|| {
            Readability::new(html.as_ref(), None, None)
                .and_then(|mut r| r.parse())
                .map_err(|e| e.to_string())
        })
        .unwrap_or_else(|_| Err("panicked".into()));
        match parsed {
            Ok(article) => {
                out.write_all(article.text_content.as_bytes())
                    .map_err(|e| format!("stdout: {e}"))?;
                out.write_all(b"\n").map_err(|e| format!("stdout: {e}"))?;
                done += 1;
            }
            Err(e) => {
                eprintln!("peer-dom-smoothie: page {}: {e}", i + 1);
                failed += 1;
            }
        }
    }
    out.flush().map_err(|e| format!("stdout: {e}"))?;
    Ok((done, failed))
}

fn main() -> ExitCode {
    match run() {
        Ok((done, failed)) => {
            eprintln!("peer-dom-smoothie: {done} pages extracted, {failed} failed");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("peer-dom-smoothie: {e}");
            ExitCode::from(2)
        }
    }
}
