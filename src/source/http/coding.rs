//! An HTTP body's content codings taken off as it is read, within a bound: [`codings`] reads
//! a `Content-Encoding` (or transfer-coding) list, [`decoder`] stacks the decoders over the
//! body (`gzip` and `x-gzip` by [`GzipReader`], `deflate` zlib-wrapped or raw as servers send
//! it, `br`), and [`Capped`] cuts what they decode at a bound, at a tag's or a line's end.

use std::io::{self, BufRead, BufReader, Read};

use flate2::{Decompress, FlushDecompress, Status};

use crate::source::gzip::GzipReader;

/// Content codings taken off one body at most (`Content-Encoding: gzip, gzip, …`).
pub const MAX_CODINGS: usize = 4;
/// Bytes decoded per step.
const STEP: usize = 64 * 1024;
/// How far back from its bound a cut body is ended at a tag's end or a line's.
pub(crate) const CUT_WINDOW: usize = 64 << 10;

/// A content coding this reader decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    /// `gzip`, `x-gzip`: one or more gzip members.
    Gzip,
    /// `deflate`: zlib-wrapped (RFC 1950) as the standard says, or raw as some servers send it.
    Deflate,
    /// `br`: Brotli (RFC 7932).
    Brotli,
}

impl Coding {
    /// The coding's name as a header writes it.
    pub fn name(self) -> &'static str {
        match self {
            Coding::Gzip => "gzip",
            Coding::Deflate => "deflate",
            Coding::Brotli => "br",
        }
    }
}

/// Why a list of codings is not decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodingError {
    /// A coding this reader does not decode (`zstd`, `compress`), as named.
    #[error("{0}")]
    Unknown(String),
    /// More codings than [`MAX_CODINGS`].
    #[error("{0} codings, more than {MAX_CODINGS}")]
    TooMany(usize),
}

/// The codings `names` say (in the order they were applied; `identity`, `none` and empty
/// names are none; case and parameters such as `;q=1` ignored), or why they are not decoded.
pub fn codings<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Vec<Coding>, CodingError> {
    let mut codings = Vec::new();
    for name in names {
        let name = name.split(';').next().unwrap_or_default().trim();
        let coding = match name.to_ascii_lowercase().as_str() {
            "identity" | "none" | "" => continue,
            "gzip" | "x-gzip" => Coding::Gzip,
            "deflate" => Coding::Deflate,
            "br" => Coding::Brotli,
            _ => return Err(CodingError::Unknown(name.to_string())),
        };
        codings.push(coding);
    }
    if codings.len() > MAX_CODINGS {
        return Err(CodingError::TooMany(codings.len()));
    }
    Ok(codings)
}

/// `body` with `codings` (in the order they were applied) taken off as it is read. A
/// decoder that meets damaged or cut data ends with an error after the text it decoded.
pub fn decoder<'a>(
    mut body: Box<dyn BufRead + Send + 'a>,
    codings: &[Coding],
) -> Box<dyn BufRead + Send + 'a> {
    for coding in codings.iter().rev() {
        body = match coding {
            Coding::Gzip => Box::new(BufReader::with_capacity(STEP, GzipReader::new(body))),
            Coding::Deflate => Box::new(BufReader::with_capacity(STEP, Inflate::new(body))),
            Coding::Brotli => Box::new(BufReader::with_capacity(
                STEP,
                brotli::Decompressor::new(body, STEP),
            )),
        };
    }
    body
}

/// A decoded body cut at its bound; the [`io::Error`] a [`Capped`] reader ends with holds it
/// (kind [`io::ErrorKind::InvalidData`]). One line when displayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("decoded body cut at {} (its {coding} Content-Encoding decodes to more)", shown_size(*limit))]
pub struct TooLarge {
    /// The bound.
    pub limit: u64,
    /// The coding taken off first (`gzip`, `deflate`, `br`), or `identity`.
    pub coding: &'static str,
}

impl TooLarge {
    /// The [`TooLarge`] an error holds, if any.
    pub fn of(e: &io::Error) -> Option<&TooLarge> {
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<TooLarge>())
    }
}

/// `64 MiB`, or `1000 bytes` for a bound that is not a whole number of MiB.
fn shown_size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// A decoder's output, at most its limit: past that, the text is cut (at the end of the last
/// tag or line within the last 64 KiB before the limit, when there is one), then
/// [`TooLarge`] is returned. Holds at most `CUT_WINDOW` bytes.
pub struct Capped<R: Read> {
    inner: R,
    cut: TooLarge,
    /// The last window's length (`CUT_WINDOW`, or the limit when it is smaller).
    window: usize,
    /// Bytes handed out before the last window.
    passed: u64,
    /// The last window once read: its bytes, how many were handed out, and the error that
    /// follows them (the cut, or the decoder's).
    tail: Option<(Vec<u8>, usize, Option<io::Error>)>,
}

impl<R: Read> Capped<R> {
    /// `inner`, at most `limit` bytes of it; `coding` names what decodes it in the cut's
    /// message.
    pub fn new(inner: R, limit: u64, coding: &'static str) -> Self {
        Capped {
            inner,
            cut: TooLarge { limit, coding },
            window: usize::try_from(limit).unwrap_or(usize::MAX).min(CUT_WINDOW),
            passed: 0,
            tail: None,
        }
    }

    /// Reads the last window (up to the limit) and looks one byte past it.
    fn read_tail(&mut self) -> (Vec<u8>, Option<io::Error>) {
        let mut window = vec![0u8; self.window];
        let mut filled = 0;
        while filled < self.window {
            match self.inner.read(&mut window[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    window.truncate(filled);
                    return (window, Some(e));
                }
            }
        }
        window.truncate(filled);
        if filled < self.window {
            return (window, None);
        }
        let mut probe = [0u8; 1];
        loop {
            match self.inner.read(&mut probe) {
                Ok(0) => return (window, None),
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return (window, Some(e)),
            }
        }
        if let Some(end) = window.iter().rposition(|b| matches!(b, b'>' | b'\n')) {
            window.truncate(end + 1);
        }
        let cut = io::Error::new(io::ErrorKind::InvalidData, self.cut.clone());
        (window, Some(cut))
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let before_window = self.cut.limit - self.window as u64 - self.passed;
        if self.tail.is_none() && before_window > 0 {
            let most = buf
                .len()
                .min(usize::try_from(before_window).unwrap_or(usize::MAX));
            let n = self.inner.read(&mut buf[..most])?;
            self.passed += n as u64;
            return Ok(n);
        }
        if self.tail.is_none() {
            let (window, end) = self.read_tail();
            self.tail = Some((window, 0, end));
        }
        let Some((window, handed, end)) = self.tail.as_mut() else {
            return Ok(0);
        };
        if *handed < window.len() {
            let n = buf.len().min(window.len() - *handed);
            buf[..n].copy_from_slice(&window[*handed..*handed + n]);
            *handed += n;
            return Ok(n);
        }
        match end.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
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
        assert_eq!(
            codings(["x-gzip", "identity", "BR", "deflate;q=1", " none "]).unwrap(),
            [Coding::Gzip, Coding::Brotli, Coding::Deflate]
        );
        assert_eq!(
            codings(["gzip", "zstd"]),
            Err(CodingError::Unknown("zstd".into()))
        );
        assert_eq!(codings(["gzip"; 5]), Err(CodingError::TooMany(5)));
    }

    #[test]
    fn stacked_codings_are_taken_off_in_the_order_they_were_applied() {
        let text = b"<p>twice encoded</p>".repeat(50);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&text).unwrap();
        let mut br = Vec::new();
        {
            let mut w = brotli::CompressorWriter::new(&mut br, 4096, 5, 22);
            w.write_all(&gz.finish().unwrap()).unwrap();
        }
        let mut out = Vec::new();
        decoder(Box::new(&br[..]), &[Coding::Gzip, Coding::Brotli])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, text);
    }

    /// Reads `reader`, `read_size` bytes at a time, to its end or first error: the bytes, and
    /// the error's [`TooLarge`].
    fn read_out(mut reader: impl Read, read_size: usize) -> (Vec<u8>, Option<TooLarge>) {
        let mut out = Vec::new();
        let mut buf = vec![0u8; read_size];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => return (out, Some(TooLarge::of(&e).expect("a cut").clone())),
            }
        }
    }

    #[test]
    fn a_body_cut_at_the_limit_ends_after_a_tag_or_line_and_one_just_at_it_is_whole() {
        let limit = 3 * CUT_WINDOW;
        let unit = b"<p>The river runs past the mill.</p>";
        let page = |len: usize| unit.iter().copied().cycle().take(len).collect::<Vec<u8>>();
        let cut = Some(TooLarge {
            limit: limit as u64,
            coding: "gzip",
        });
        for read_size in [1, 7, 8192, 1 << 20] {
            let capped =
                |bytes: &[u8]| read_out(Capped::new(bytes, limit as u64, "gzip"), read_size);
            let (out, error) = capped(&page(limit + 1));
            assert_eq!(error, cut, "read size {read_size}");
            assert!(
                out.len() <= limit && out.len() > limit - unit.len(),
                "{}",
                out.len()
            );
            assert!(out.ends_with(b">") && out[..] == page(out.len())[..]);
            // No tag or line end near the limit: cut at it.
            let mut long = page(limit - CUT_WINDOW);
            long.extend(vec![b'a'; CUT_WINDOW + 1]);
            let (out, error) = capped(&long);
            assert_eq!((out.len(), &error), (limit, &cut));
            // A line end is a place to cut too.
            let mut lines = page(limit - 100);
            lines.extend(b"\nand more text");
            lines.extend(vec![b'a'; 200]);
            let (out, error) = capped(&lines);
            assert_eq!((out.len(), &error), (limit - 99, &cut));
            // Exactly at the limit, or less: whole, nothing said.
            for len in [
                limit,
                limit - 1,
                limit - CUT_WINDOW,
                limit - CUT_WINDOW + 1,
                10,
            ] {
                assert_eq!(capped(&page(len)), (page(len), None), "{len}");
            }
        }
    }

    #[test]
    fn a_limit_smaller_than_the_window_is_kept_exactly() {
        let page = b"abcdefghij".repeat(10);
        let (out, error) = read_out(Capped::new(&page[..], 25, "br"), 4);
        assert_eq!(out, &page[..25]);
        assert_eq!(
            error.unwrap().to_string(),
            "decoded body cut at 25 bytes (its br Content-Encoding decodes to more)"
        );
        assert_eq!(
            read_out(Capped::new(&page[..], 100, "br"), 4),
            (page.clone(), None)
        );
    }
}
