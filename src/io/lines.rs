//! Reading one line with a bound on its length: the one line reader of every line-based input,
//! the header lines of WARC records (`warc/read.rs`) and the lines of JSONL files (`jsonl.rs`).
//!
//! A line longer than its bound is still consumed whole, so that reading goes on at the next
//! line, but its bytes are not kept: only its length and, when asked for, its last few bytes
//! (where the WARC reader looks for a record glued to the end of a line cut short). Memory stays
//! bounded whatever the input.

use std::io::{self, BufRead};

/// One line read by [`read_line`].
#[derive(Debug)]
pub(crate) struct Line {
    /// The line, its line ending included; of a line longer than the bound, only its last
    /// bytes (see [`read_line`]).
    pub bytes: Vec<u8>,
    /// The line's length in bytes, its line ending included.
    pub len: u64,
    /// Whether `len` is more than the bound (and `bytes` holds only the line's last bytes).
    pub too_long: bool,
    /// The line ending's length: 2 for `\r\n`, 1 for `\n`, 0 when the input ended first.
    pub ending: u64,
}

/// Reads one line of `input` (up to and including its `\n`, or to the end of the input):
/// `None` at the end of the input.
///
/// A line of more than `limit` bytes (its line ending included) is consumed whole but not
/// kept: [`Line::bytes`] then holds only its last bytes, at most `2 * tail` of them (`tail` of
/// 0 keeps nothing), and may also hold some that arrived before it went over the bound.
/// Reads interrupted by a signal are tried again; on any other read error, the part of the line
/// read so far is lost.
pub(crate) fn read_line<R: BufRead + ?Sized>(
    input: &mut R,
    limit: u64,
    tail: usize,
) -> io::Result<Option<Line>> {
    let mut bytes = Vec::new();
    let mut len = 0u64;
    // The last byte consumed, to tell a `\r\n` split between two reads.
    let mut last = None;
    loop {
        let buf = super::fill_buf_retrying(input)?;
        if buf.is_empty() {
            let line = Line {
                bytes,
                len,
                too_long: len > limit,
                ending: 0,
            };
            return Ok((len > 0).then_some(line));
        }
        let (take, found) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let before_newline = if take >= 2 { Some(buf[take - 2]) } else { last };
        last = Some(buf[take - 1]);
        len += take as u64;
        let too_long = len > limit;
        // Of a line too long, only its last bytes are kept.
        let keep = if too_long {
            take.saturating_sub(tail)
        } else {
            0
        };
        bytes.extend_from_slice(&buf[keep..take]);
        input.consume(take);
        if too_long && bytes.len() > 2 * tail {
            bytes.drain(..bytes.len() - tail);
        }
        if found {
            let ending = if before_newline == Some(b'\r') { 2 } else { 1 };
            return Ok(Some(Line {
                bytes,
                len,
                too_long,
                ending,
            }));
        }
    }
}
