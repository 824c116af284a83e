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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor};

    /// Every line of `input` read through a buffer of `capacity` bytes, as (bytes, len,
    /// too_long, ending).
    fn lines(
        input: &[u8],
        capacity: usize,
        limit: u64,
        tail: usize,
    ) -> Vec<(Vec<u8>, u64, bool, u64)> {
        let mut reader = BufReader::with_capacity(capacity, Cursor::new(input.to_vec()));
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut reader, limit, tail).unwrap() {
            out.push((line.bytes, line.len, line.too_long, line.ending));
        }
        out
    }

    /// A line as [`lines`] gives it: (bytes, len, too_long, ending).
    type Want = (&'static [u8], u64, bool, u64);

    /// `input` read through a buffer of `capacity` bytes gives the lines `want`.
    struct Case {
        input: &'static [u8],
        capacity: usize,
        limit: u64,
        tail: usize,
        want: &'static [Want],
    }

    #[test]
    fn lines_endings_and_bounds() {
        let cases = [
            Case {
                input: b"",
                capacity: 8,
                limit: 10,
                tail: 0,
                want: &[],
            },
            Case {
                input: b"ab\ncd",
                capacity: 8,
                limit: 10,
                tail: 0,
                want: &[(b"ab\n", 3, false, 1), (b"cd", 2, false, 0)],
            },
            // A `\r\n` split between two reads is still one line ending.
            Case {
                input: b"abc\r\nd\n",
                capacity: 4,
                limit: 10,
                tail: 0,
                want: &[(b"abc\r\n", 5, false, 2), (b"d\n", 2, false, 1)],
            },
            // Too long: counted, not kept (tail 0), and the next line is read whole.
            Case {
                input: b"abcdefgh\nx\n",
                capacity: 3,
                limit: 4,
                tail: 0,
                want: &[(b"", 9, true, 1), (b"x\n", 2, false, 1)],
            },
            // Too long: only the last bytes kept.
            Case {
                input: b"0123456789WARC/1.0\n",
                capacity: 64,
                limit: 8,
                tail: 4,
                want: &[(b"1.0\n", 19, true, 1)],
            },
        ];
        for case in cases {
            let want: Vec<_> = case
                .want
                .iter()
                .map(|&(bytes, len, too_long, ending)| (bytes.to_vec(), len, too_long, ending))
                .collect();
            let got = lines(case.input, case.capacity, case.limit, case.tail);
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(case.input));
        }
    }
}
