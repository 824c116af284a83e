//! A fetched body decoded, within a bound: its content codings (`gzip`, `x-gzip`, `deflate`
//! zlib-wrapped or raw, `br`) taken off, and then any gzip it still is (a `.html.gz` served as
//! it is, a page gzipped twice) inflated as the pipeline would inflate it — by
//! [`crate::source::maybe_gunzip`], so that the page handed on is never one the pipeline would
//! inflate again without a bound. At most `max_bytes` of the decoded page are kept, and the
//! deadline covers decoding as it covers reading.

use std::io::{self, BufRead, BufReader, Read};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use flate2::{Decompress, FlushDecompress, Status};

use super::http::Body;
use super::{Cut, FetchError};

/// Content codings taken off one page at most (`Content-Encoding: gzip, gzip, …`).
const MAX_CODINGS: usize = 4;
/// Layers of gzip found by their magic bytes that are inflated; a page still gzip after them
/// is cut there (empty).
const MAX_GZIP_LAYERS: usize = 4;
/// Bytes decoded per step.
const STEP: usize = 64 * 1024;
/// The most bytes of a body read after its compressed stream ended, to find how the body
/// ends.
const MAX_AFTER_END: u64 = 64 * 1024;

/// A content coding this fetcher decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Coding {
    /// `gzip`, `x-gzip`.
    Gzip,
    /// `deflate`: zlib-wrapped, or raw deflate as some servers send it.
    Deflate,
    /// `br`.
    Brotli,
}

/// The codings `names` (in the order they were applied; `identity` is none), or the first
/// that is not decoded.
pub(super) fn codings(names: &[String]) -> Result<Vec<Coding>, FetchError> {
    let mut codings = Vec::new();
    for name in names {
        let coding = match name.as_str() {
            "identity" | "" => continue,
            "gzip" | "x-gzip" => Coding::Gzip,
            "deflate" => Coding::Deflate,
            "br" => Coding::Brotli,
            other => return Err(FetchError::Encoding(super::shown(other))),
        };
        codings.push(coding);
    }
    if codings.len() > MAX_CODINGS {
        return Err(FetchError::Encoding(format!(
            "{} codings, more than {MAX_CODINGS}",
            codings.len()
        )));
    }
    Ok(codings)
}

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
    let mut reader: Box<dyn BufRead + Send> =
        Box::new(BufReader::with_capacity(STEP, body.clone()));
    for coding in codings.iter().rev() {
        reader = match coding {
            Coding::Gzip => Box::new(BufReader::with_capacity(
                STEP,
                crate::source::gzip::GzipReader::new(reader),
            )),
            Coding::Deflate => Box::new(BufReader::with_capacity(STEP, Inflate::new(reader))),
            Coding::Brotli => Box::new(BufReader::with_capacity(
                STEP,
                brotli::Decompressor::new(reader, STEP),
            )),
        };
    }
    let mut page = Vec::new();
    let mut failure = None;
    let mut cut = None;
    match gunzipped(reader) {
        Ok(mut reader) => {
            let mut buf = vec![0; STEP];
            loop {
                if Instant::now() >= deadline {
                    cut = Some(Cut::TimedOut);
                    break;
                }
                match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        let room = usize::try_from(max_bytes)
                            .unwrap_or(usize::MAX)
                            .saturating_sub(page.len());
                        page.extend_from_slice(&buf[..n.min(room)]);
                        if n > room {
                            cut = Some(Cut::TooLarge { max: max_bytes });
                            break;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
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

/// A deflate stream decoded, zlib-wrapped (told by its two-byte header) or raw; an end of the
/// input before the stream's end is an error, not a silent end.
struct Inflate<R> {
    inner: R,
    state: Decompress,
    /// Whether the wrapping was looked at.
    started: bool,
    /// The stream's end was decoded.
    ended: bool,
}

impl<R: BufRead> Inflate<R> {
    fn new(inner: R) -> Inflate<R> {
        Inflate {
            inner,
            state: Decompress::new(false),
            started: false,
            ended: false,
        }
    }
}

impl<R: BufRead> Read for Inflate<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.ended || buf.is_empty() {
            return Ok(0);
        }
        loop {
            let input = crate::source::fill_buf_retrying(&mut self.inner)?;
            if !self.started {
                self.started = true;
                let zlib = input.len() >= 2
                    && input[0] & 0x0f == 8
                    && input[0] >> 4 <= 7
                    && (u16::from(input[0]) << 8 | u16::from(input[1])) % 31 == 0;
                self.state = Decompress::new(zlib);
            }
            let eof = input.is_empty();
            let (in_before, out_before) = (self.state.total_in(), self.state.total_out());
            let status = self
                .state
                .decompress(input, buf, FlushDecompress::None)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            let used = (self.state.total_in() - in_before) as usize;
            let made = (self.state.total_out() - out_before) as usize;
            self.inner.consume(used);
            if status == Status::StreamEnd {
                self.ended = true;
                return Ok(made);
            }
            if made > 0 {
                return Ok(made);
            }
            if eof {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the deflate stream is cut",
                ));
            }
            if used == 0 && status == Status::BufError {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the deflate stream does not decode",
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn inflate(bytes: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        Inflate::new(bytes).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn deflate_is_read_zlib_wrapped_or_raw_and_a_cut_stream_is_an_error() {
        let text = b"<p>hello hello hello</p>".repeat(100);
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        zlib.write_all(&text).unwrap();
        let zlib = zlib.finish().unwrap();
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        raw.write_all(&text).unwrap();
        let raw = raw.finish().unwrap();
        assert_eq!(inflate(&zlib).unwrap(), text);
        assert_eq!(inflate(&raw).unwrap(), text);
        for cut in [&zlib[..zlib.len() - 6], &raw[..raw.len() / 2], &[][..]] {
            let error = inflate(cut).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
        }
        assert!(inflate(b"\xff\xff\xff\xff junk").is_err());
    }

    #[test]
    fn the_codings_decoded_are_named_and_others_refused() {
        let names = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            codings(&names(&["x-gzip", "identity", "br", "deflate"])).unwrap(),
            [Coding::Gzip, Coding::Brotli, Coding::Deflate]
        );
        let error = codings(&names(&["gzip", "zstd"])).unwrap_err();
        assert!(matches!(error, FetchError::Encoding(_)), "{error}");
        assert!(codings(&names(&["gzip"; 5])).is_err());
    }

    #[test]
    fn gzip_is_recognised_as_the_pipeline_recognises_it() {
        assert!(looks_gzip(b"\x1f\x8b\x08\x00\x00\x00\x00\x00"));
        assert!(!looks_gzip(b"<html><body>"));
        assert!(!looks_gzip(b""));
    }
}
