//! A fetched body decoded, within a bound: its content codings taken off by
//! [`crate::source::http::decoder`] (as a WARC record's are), and then any gzip it still is
//! (a `.html.gz` served as it is, a page gzipped twice) inflated as the pipeline would
//! inflate it — by [`crate::source::maybe_gunzip`], so that the page handed on is never one
//! the pipeline would inflate again without a bound. At most `max_bytes` of the decoded page
//! are kept ([`crate::source::http::Capped`]), and the deadline covers decoding as it covers
//! reading.

use std::io::{self, BufRead, BufReader, Read};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::http::Body;
use super::Cut;
use crate::source::http::{decoder, Capped, Coding, TooLarge};

/// Layers of gzip found by their magic bytes that are inflated; a page still gzip after them
/// is cut there (empty).
const MAX_GZIP_LAYERS: usize = 4;
/// Bytes decoded per step.
const STEP: usize = 64 * 1024;
/// The most bytes of a body read after its compressed stream ended, to find how the body
/// ends.
const MAX_AFTER_END: u64 = 64 * 1024;

/// The page `body` holds once `codings` are taken off and any gzip left is inflated: at most
/// `max_bytes` of it, read and decoded before `deadline`, and why it was cut, if it was.
pub(super) fn read_decoded(
    body: Body,
    codings: &[Coding],
    max_bytes: u64,
    deadline: Instant,
) -> (Vec<u8>, Option<Cut>) {
    let end = body.end();
    let body = Shared(Arc::new(Mutex::new(body)));
    let reader = decoder(
        Box::new(BufReader::with_capacity(STEP, body.clone())),
        codings,
    );
    let coding = codings.first().map_or("identity", |c| c.name());
    let mut page = Vec::new();
    let mut failure = None;
    let mut cut = None;
    match gunzipped(reader) {
        Ok(reader) => {
            let mut reader = Capped::new(reader, max_bytes, coding);
            let mut buf = vec![0; STEP];
            loop {
                if Instant::now() >= deadline {
                    cut = Some(Cut::TimedOut);
                    break;
                }
                match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => page.extend_from_slice(&buf[..n]),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if TooLarge::of(&e).is_some() => {
                        cut = Some(Cut::TooLarge { max: max_bytes });
                        break;
                    }
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
            }
        }
        Err(e) => failure = Some(e),
    }
    // A compressed stream that ended before its body did: the rest of the body is read (a
    // little of it), so that a body cut after the stream's end is said to be cut too.
    if cut.is_none() && failure.is_none() {
        let mut rest = body.take(MAX_AFTER_END);
        let _ = io::copy(&mut rest, &mut io::sink());
    }
    // What the body said of its end comes before what a decoder made of it: a decoder that
    // meets a body's cut says its data is damaged.
    let body_cut = end.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let cut = cut
        .or(body_cut)
        .or_else(|| failure.map(|e| Cut::Damaged(crate::errors::io_message(&e))));
    (page, cut)
}

/// A body shared between the decoders that read it and [`read_decoded`], which reads what
/// they leave.
#[derive(Clone)]
struct Shared(Arc<Mutex<Body>>);

impl Read for Shared {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).read(buf)
    }
}

/// `reader` with every layer of gzip inflated that its bytes start with (as
/// [`crate::source::maybe_gunzip`] tells it), at most [`MAX_GZIP_LAYERS`].
fn gunzipped(mut reader: Box<dyn BufRead + Send>) -> io::Result<Box<dyn BufRead + Send>> {
    for _ in 0..MAX_GZIP_LAYERS {
        let mut layer = BufReader::with_capacity(STEP, crate::source::maybe_gunzip(reader)?);
        let head = crate::source::fill_buf_retrying(&mut layer)?;
        let again = looks_gzip(head);
        reader = Box::new(layer);
        if !again {
            return Ok(reader);
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidData,
        format!("gzip inside gzip more than {MAX_GZIP_LAYERS} times"),
    ))
}

/// Whether [`crate::source::maybe_gunzip`] would inflate bytes that start with `head`.
fn looks_gzip(head: &[u8]) -> bool {
    let mut probe = Vec::new();
    let reader = Box::new(io::Cursor::new(head[..head.len().min(8)].to_vec()));
    let Ok(mut inflated) = crate::source::maybe_gunzip(reader) else {
        return false;
    };
    // A passed-through head reads back as it was; an inflated one does not.
    match inflated.read_to_end(&mut probe) {
        Ok(_) => probe != head[..head.len().min(8)],
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_is_recognised_as_the_pipeline_recognises_it() {
        assert!(looks_gzip(b"\x1f\x8b\x08\x00\x00\x00\x00\x00"));
        assert!(!looks_gzip(b"<html><body>"));
        assert!(!looks_gzip(b""));
    }
}
