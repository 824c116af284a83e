//! The WARC reader's input: a [`BufRead`] that can take back bytes it handed out
//! ([`Input::unread`]), to read them again after looking ahead (a record found inside a damaged
//! one), and that counts the bytes consumed, for error messages.

use std::io::{self, BufRead, Read};

/// `inner` with bytes given back read first, and a count of the bytes consumed.
pub(super) struct Input<R: BufRead> {
    inner: R,
    /// Bytes consumed so far (of the decompressed stream), minus those given back.
    offset: u64,
    /// Bytes given back, read before `inner`; at most about one record's block.
    pushback: Vec<u8>,
    /// How much of `pushback` was read again.
    pushback_pos: usize,
}

impl<R: BufRead> Input<R> {
    /// `inner`, nothing consumed yet.
    pub(super) fn new(inner: R) -> Self {
        Input {
            inner,
            offset: 0,
            pushback: Vec::new(),
            pushback_pos: 0,
        }
    }

    /// Bytes consumed so far (of the decompressed stream).
    pub(super) fn offset(&self) -> u64 {
        self.offset
    }

    /// The next bytes ([`BufRead::fill_buf`], tried again when a signal interrupts it).
    pub(super) fn fill(&mut self) -> io::Result<&[u8]> {
        crate::source::fill_buf_retrying(self)
    }

    /// Gives back `bytes`, the last ones consumed, to be read again.
    pub(super) fn unread(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        if self.pushback_pos >= n
            && self.pushback[self.pushback_pos - n..self.pushback_pos] == *bytes
        {
            self.pushback_pos -= n;
        } else {
            let mut pushback = Vec::with_capacity(n + self.pushback.len() - self.pushback_pos);
            pushback.extend_from_slice(bytes);
            pushback.extend_from_slice(&self.pushback[self.pushback_pos..]);
            self.pushback = pushback;
            self.pushback_pos = 0;
        }
        self.offset -= n as u64;
    }
}

impl<R: BufRead> Read for Input<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Input<R> {
    /// Given-back bytes first, then the input's.
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pushback_pos < self.pushback.len() {
            return Ok(&self.pushback[self.pushback_pos..]);
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        if self.pushback_pos < self.pushback.len() {
            self.pushback_pos += n;
            if self.pushback_pos >= self.pushback.len() {
                self.pushback = Vec::new();
                self.pushback_pos = 0;
            }
        } else {
            self.inner.consume(n);
        }
        self.offset += n as u64;
    }
}
