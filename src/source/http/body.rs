//! An HTTP body with its framing taken off (RFC 9112, section 6): [`Body`] reads the bytes a
//! Content-Length announces, the data of a chunked body, or everything up to the input's end,
//! and ends with a [`BodyCut`] when the body did not end as its framing said it would. The
//! data that came before the cut is read first, so that a page cut short is kept and said to
//! be cut.
//!
//! Chunk sizes are read as RFC 9112 writes them (any number of leading zeros, white space
//! before `;`, extensions and trailers ignored), lines end with CRLF or LF, and a last chunk
//! whose size line lacks its line end is the last chunk. A size line is read up to
//! [`MAX_CHUNK_LINE`] bytes (the rest of a longer one is dropped), so a body from a socket
//! is bounded as one held in memory is.

use std::io::{self, BufRead, Read};

/// The most bytes of a chunk-size line kept (its extensions past them are dropped unread).
pub const MAX_CHUNK_LINE: usize = 4096;

/// How a body's end is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// `Content-Length`: this many bytes.
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// Until the input ends (a connection closed, a record's block).
    Close,
}

/// Why a body did not end as its framing said it would; the [`io::Error`] a [`Body`] ends
/// with holds it (kind [`io::ErrorKind::InvalidData`]; find it with [`cut_of`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BodyCut {
    /// The input ended before the bytes its Content-Length announced had come.
    #[error("ends after {got} of the {announced} bytes its Content-Length announced")]
    Short {
        /// The bytes that came.
        got: u64,
        /// The bytes announced.
        announced: u64,
    },
    /// A chunked body is damaged: the chunks before the damage were read.
    #[error("chunked body {0}")]
    Chunked(ChunkDamage),
}

/// What is wrong with a `Transfer-Encoding: chunked` body.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChunkDamage {
    /// It ends after a whole chunk, without the last (zero-size) chunk: maybe cut short.
    #[error("ends without its last (zero-size) chunk: maybe cut short")]
    NoLastChunk,
    /// A chunk-size line that is not a hexadecimal number (shown, at most 24 bytes).
    #[error("has a chunk size that is not a hexadecimal number ({0:?})")]
    BadSize(String),
    /// It ends inside a chunk.
    #[error("ends inside a chunk ({missing} of its {size} bytes missing)")]
    CutInChunk {
        /// The chunk's size.
        size: u64,
        /// How many of its bytes are missing.
        missing: u64,
    },
    /// A chunk is not followed by a line end (its size is wrong).
    #[error("has a chunk not followed by a line end (its size is wrong)")]
    NoLineEnd,
}

/// The [`BodyCut`] an error returned by a [`Body`] (or a decoder reading one) holds, if any.
pub fn cut_of(e: &io::Error) -> Option<&BodyCut> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<BodyCut>())
}

/// Where the reading of a body is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// This many bytes are left of the Content-Length announced (the second number).
    Length(u64, u64),
    /// Until the input ends.
    Close,
    /// At a chunk-size line.
    Size,
    /// Inside a chunk of this size, this many bytes left of it.
    Data(u64, u64),
    /// After a chunk's data, at its line end.
    DataEnd,
    /// Done: the body ended, as framed or not.
    Done,
}

/// A body read from `R` with its framing taken off: it reads as the bytes of the page, then
/// ends, or ends with an error when it did not end as framed (a [`BodyCut`], or the input's
/// own error). It reads as ended after an error.
pub struct Body<R> {
    source: R,
    state: State,
}

impl<R: BufRead> Body<R> {
    /// The body `source` holds, framed as `framing` says.
    pub fn new(source: R, framing: Framing) -> Self {
        let state = match framing {
            Framing::Length(n) => State::Length(n, n),
            Framing::Chunked => State::Size,
            Framing::Close => State::Close,
        };
        Body { source, state }
    }

    fn framed_read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.state {
                State::Done | State::Length(0, _) => return Ok(0),
                State::Length(left, announced) => {
                    let n = read_some(&mut self.source, buf, left)?;
                    if n == 0 {
                        let got = announced - left;
                        return Err(cut(BodyCut::Short { got, announced }));
                    }
                    self.state = State::Length(left - n as u64, announced);
                    return Ok(n);
                }
                State::Close => return read_some(&mut self.source, buf, u64::MAX),
                State::Size => {
                    let (line, whole) = read_line(&mut self.source, MAX_CHUNK_LINE)?;
                    if line.is_empty() && !whole {
                        return Err(damage(ChunkDamage::NoLastChunk));
                    }
                    let Some(size) = chunk_size(&line) else {
                        return Err(damage(ChunkDamage::BadSize(shown(&line))));
                    };
                    // The last chunk: its trailers, if any, are not read.
                    if size == 0 {
                        self.state = State::Done;
                        return Ok(0);
                    }
                    self.state = State::Data(size, size);
                }
                State::Data(size, left) => {
                    let n = read_some(&mut self.source, buf, left)?;
                    if n == 0 {
                        let missing = left;
                        return Err(damage(ChunkDamage::CutInChunk { size, missing }));
                    }
                    let left = left - n as u64;
                    self.state = if left == 0 {
                        State::DataEnd
                    } else {
                        State::Data(size, left)
                    };
                    return Ok(n);
                }
                State::DataEnd => match read_line(&mut self.source, MAX_CHUNK_LINE)? {
                    (line, true) if line.is_empty() => self.state = State::Size,
                    (line, false) if line.is_empty() || line == b"\r" => {
                        return Err(damage(ChunkDamage::NoLastChunk))
                    }
                    _ => return Err(damage(ChunkDamage::NoLineEnd)),
                },
            }
        }
    }
}

impl<R: BufRead> Read for Body<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.framed_read(buf)
            .inspect_err(|_| self.state = State::Done)
    }
}

/// The data of a chunked body held in memory, and what was wrong with its framing, if
/// anything (the chunks before the damage are kept, a chunk cut short keeps what arrived).
pub fn dechunked(raw: &[u8]) -> (Vec<u8>, Option<ChunkDamage>) {
    let mut data = Vec::with_capacity(raw.len());
    let damage = match Body::new(raw, Framing::Chunked).read_to_end(&mut data) {
        Ok(_) => None,
        Err(e) => match cut_of(&e) {
            Some(BodyCut::Chunked(damage)) => Some(damage.clone()),
            // A slice gives no other error, and a chunked body no `Short`.
            _ => Some(ChunkDamage::NoLastChunk),
        },
    };
    (data, damage)
}

/// Whether `raw` starts with a line that is meant as a chunk size: a well-formed one of any
/// length (hexadecimal digits, white space, extensions), or a short one, well-formed or not (`8b`, `zz`, `-1`): 1 to 64
/// printable ASCII characters other than `<` (around spaces), then perhaps `;` and an
/// extension, in at most 80 bytes (the whole body, when it is that short). A page that was
/// stored de-chunked (archivers that store the body so may keep the header) starts otherwise
/// (`<`, white space, a byte order mark, a line of words).
pub fn starts_like_chunked(raw: &[u8]) -> bool {
    let first_line = &raw[..memchr::memchr(b'\n', raw).unwrap_or(raw.len())];
    if is_size_line(first_line) {
        return true;
    }
    let head = &raw[..raw.len().min(82)];
    let line = match memchr::memchr(b'\n', head) {
        Some(nl) => &head[..nl],
        // A body cut inside its first line.
        None if raw.len() <= 80 => raw,
        None => return false,
    };
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let token = size_token(line);
    line.len() <= 80
        && (1..=64).contains(&token.len())
        && token.iter().all(|b| b.is_ascii_graphic() && *b != b'<')
}

/// Whether `line` (its `\n` left out) is a chunk-size line as RFC 9112 writes it: hexadecimal
/// digits (as many leading zeros as the sender likes), white space, then the line's end or `;`
/// and extensions (tokens and quoted strings, however long: no control character but a tab).
fn is_size_line(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let rest = line[digits..].trim_ascii_start();
    digits > 0
        && match rest.split_first() {
            None => true,
            Some((b';', extensions)) => extensions
                .iter()
                .all(|&b| b == b'\t' || (b >= b' ' && b != 0x7f)),
            Some(_) => false,
        }
}

/// A size line's size, before its extensions, white space trimmed.
fn size_token(line: &[u8]) -> &[u8] {
    line.split(|b| *b == b';')
        .next()
        .unwrap_or(line)
        .trim_ascii()
}

/// The size a chunk-size line gives (extensions after `;` ignored); `None` unless it is a
/// hexadecimal number that fits in 64 bits (leading zeros are not counted).
fn chunk_size(line: &[u8]) -> Option<u64> {
    let token = size_token(line);
    if token.is_empty() {
        return None;
    }
    token.iter().try_fold(0u64, |size, b| {
        let digit = char::from(*b).to_digit(16)?;
        size.checked_mul(16)?.checked_add(u64::from(digit))
    })
}

/// A damaged chunk-size line as shown in a message: at most 24 bytes, CR dropped.
fn shown(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut text = String::from_utf8_lossy(&line[..line.len().min(24)]).into_owned();
    if line.len() > 24 {
        text.push('…');
    }
    text
}

fn cut(cut: BodyCut) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, cut)
}

fn damage(damage: ChunkDamage) -> io::Error {
    cut(BodyCut::Chunked(damage))
}

/// Reads at most `max` bytes (and at most `buf.len()`) from `source`, retrying when a signal
/// interrupts it.
fn read_some(source: &mut impl Read, buf: &mut [u8], max: u64) -> io::Result<usize> {
    let n = buf.len().min(usize::try_from(max).unwrap_or(usize::MAX));
    loop {
        match source.read(&mut buf[..n]) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// A line of `source` without its end (LF, or CRLF), at most `max` bytes of it (the rest of
/// a longer line is read and dropped), and whether it ended (`false`: the input ended first,
/// and the line is what came).
fn read_line(source: &mut impl BufRead, max: usize) -> io::Result<(Vec<u8>, bool)> {
    let mut line = Vec::new();
    loop {
        let buf = crate::source::fill_buf_retrying(source)?;
        if buf.is_empty() {
            return Ok((line, false));
        }
        let (take, end) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        let room = max.saturating_sub(line.len());
        line.extend_from_slice(&buf[..take.min(room)]);
        source.consume(take + usize::from(end));
        if end {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok((line, true));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body `raw` holds under `framing`, read 3 bytes at a time, and how it ended.
    fn body(framing: Framing, raw: &[u8]) -> (Vec<u8>, Option<BodyCut>) {
        let mut body = Body::new(raw, framing);
        let mut out = Vec::new();
        let mut buf = [0; 3];
        loop {
            match body.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => {
                    assert_eq!(body.read(&mut buf).unwrap(), 0, "ended after an error");
                    return (out, cut_of(&e).cloned());
                }
            }
        }
    }

    fn chunk_damage(raw: &[u8]) -> Option<ChunkDamage> {
        match body(Framing::Chunked, raw).1 {
            Some(BodyCut::Chunked(damage)) => Some(damage),
            other => panic!("{raw:?}: {other:?}"),
        }
    }

    #[test]
    fn a_chunked_body_is_read_whole_with_extensions_leading_zeros_and_trailers() {
        let raw = b"3;ext=1\r\nhel\r\n000b\r\nlo world!!!\r\n0\r\nX-T: 1\r\n\r\nafter";
        assert_eq!(
            body(Framing::Chunked, raw),
            (b"hello world!!!".to_vec(), None)
        );
        // The last CRLF missing, or the last size line's end: the last chunk came.
        for raw in [&b"1\r\na\r\n0\r\n"[..], b"1\na\n0\n\n", b"1\r\na\r\n00"] {
            assert_eq!(
                body(Framing::Chunked, raw),
                (b"a".to_vec(), None),
                "{raw:?}"
            );
        }
        assert_eq!(dechunked(raw), (b"hello world!!!".to_vec(), None));
    }

    #[test]
    fn a_chunked_body_cut_before_its_last_chunk_keeps_what_came_and_says_where() {
        let cut_in = |size, missing| Some(ChunkDamage::CutInChunk { size, missing });
        for (raw, damage) in [
            (&b"5\r\nhel"[..], cut_in(5, 2)),
            (b"3\r\nhel\r\n", Some(ChunkDamage::NoLastChunk)),
            (b"3\r\nhel", Some(ChunkDamage::NoLastChunk)),
            (b"3\r\nhel\r", Some(ChunkDamage::NoLastChunk)),
            (b"3\r\nhel\r\n1f", cut_in(31, 31)),
            (b"", Some(ChunkDamage::NoLastChunk)),
            (b"3\r\nhelX\r\n0\r\n\r\n", Some(ChunkDamage::NoLineEnd)),
        ] {
            let (text, _) = body(Framing::Chunked, raw);
            assert_eq!(chunk_damage(raw), damage, "{raw:?}");
            assert!(b"hel".starts_with(&text), "{raw:?}");
        }
        for size in ["zz", "-1", "", "1 2", "0x1f", "10000000000000000"] {
            let raw = format!("{size}\r\nabc\r\n0\r\n\r\n");
            let shown = ChunkDamage::BadSize(size.into());
            assert_eq!(chunk_damage(raw.as_bytes()), Some(shown), "{size}");
        }
        let long = format!("{}\r\n", "z".repeat(30));
        let Some(ChunkDamage::BadSize(shown)) = chunk_damage(long.as_bytes()) else {
            panic!("{long}")
        };
        assert_eq!(shown, format!("{}…", "z".repeat(24)));
    }

    #[test]
    fn a_size_line_longer_than_its_bound_is_read_to_its_end_and_its_size_kept() {
        let raw = format!("3;x={}\r\nabc\r\n0\r\n\r\n", "v".repeat(3 * MAX_CHUNK_LINE));
        assert_eq!(
            body(Framing::Chunked, raw.as_bytes()),
            (b"abc".to_vec(), None)
        );
    }

    #[test]
    fn a_body_short_of_its_content_length_is_cut_and_a_longer_one_read_to_it() {
        let (text, cut) = body(Framing::Length(10), b"abcd");
        assert_eq!(text, b"abcd");
        let short = BodyCut::Short {
            got: 4,
            announced: 10,
        };
        assert_eq!(cut, Some(short.clone()));
        assert_eq!(
            short.to_string(),
            "ends after 4 of the 10 bytes its Content-Length announced"
        );
        assert_eq!(body(Framing::Length(2), b"abcd"), (b"ab".to_vec(), None));
        assert_eq!(body(Framing::Length(0), b"abcd"), (Vec::new(), None));
        assert_eq!(body(Framing::Close, b"abcd"), (b"abcd".to_vec(), None));
    }

    #[test]
    fn a_body_stored_de_chunked_is_told_by_its_first_line() {
        for raw in [
            &b"8b\r\n"[..],
            b"zz\r\n",
            b"-1\r\nx",
            b"1f;a=",
            b"0007 ; x=y\r\n",
        ] {
            assert!(starts_like_chunked(raw), "{raw:?}");
        }
        for raw in [
            &b"<!DOCTYPE html>\r\n<p>Hello</p>"[..],
            b"\r\n<p>Hello</p>",
            b"",
            b"A first line of plain text that is longer than a chunk size\nand more",
        ] {
            assert!(!starts_like_chunked(raw), "{raw:?}");
        }
    }
}
