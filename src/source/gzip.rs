//! A gzip reader that survives damage: all members of a multi-member file are decoded in
//! order, and after a corrupt member (bad header, bad deflate data, CRC or length mismatch) or
//! junk between members it resynchronises at the next gzip member (the magic `1f 8b 08` and a
//! header that parses, whose data decodes) instead of stopping.
//!
//! The damage is reported once, as an [`io::Error`] returned by `read` between the data decoded
//! before it and the data decoded after it; reading then goes on. Its inner error is a
//! [`Damage`] (see [`damage`]) whose message names the compressed byte offsets. A member cut by
//! the end of the input is reported with [`io::ErrorKind::UnexpectedEof`], after which the
//! reader ends.
//!
//! Memory is bounded: the compressed bytes of the current member are kept (at most
//! `HISTORY_BYTES` of them, the latest) so that a corrupt member which ran over the start of
//! the next one can be rescanned; output of a member found by rescanning is held back (at most
//! `HOLD_BYTES`) until it proves itself, so a false match of the magic inside damaged data
//! does not leak garbage.

use std::fmt;
use std::io::{self, BufRead, Read};

use flate2::{Decompress, FlushDecompress, Status};

/// The most compressed bytes of the current member kept for rescanning after a failure.
const HISTORY_BYTES: usize = 1 << 20;
/// The most output of a member found by rescanning held back until the member ends intact.
const HOLD_BYTES: usize = 1 << 20;
/// Output produced per step.
const CHUNK: usize = 64 << 10;
/// Bound on a header's file name or comment (a longer one is taken for damage).
const MAX_HEADER_FIELD: usize = 64 << 10;

/// What went wrong at a place in the compressed input, and where decoding resumed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// Compressed offset where the bad member (or the junk) starts.
    pub start: u64,
    /// Compressed offset where the problem was noticed.
    pub at: u64,
    /// What was wrong.
    pub kind: DamageKind,
    /// Compressed offset of the member decoding resumed at; `None` when none was found.
    pub resumed: Option<u64>,
    /// Compressed length of the input, when the damage ran to its end.
    pub end: u64,
    /// Bytes the damaged member had decoded and handed out before the damage was found (they
    /// may be wrong: a CRC mismatch is only found after all of them); 0 for junk.
    pub emitted: u64,
}

/// The kinds of [`Damage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DamageKind {
    /// Bytes that are not a gzip member where the next member should start.
    Junk,
    /// A member that does not decode; the reason.
    Corrupt(&'static str),
    /// A member cut by the end of the input.
    Truncated,
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let start = self.start;
        match (self.kind, self.resumed) {
            (DamageKind::Junk, Some(next)) => write!(
                f,
                "{} bytes at compressed byte {start} are not a gzip member (junk or a damaged header); resumed at the next member, at byte {next}",
                next - start
            ),
            (DamageKind::Junk, None) => write!(
                f,
                "{} bytes at compressed byte {start} are not a gzip member (junk or a damaged header), and no member follows",
                self.end - start
            ),
            (DamageKind::Corrupt(reason), Some(next)) => write!(
                f,
                "damaged gzip member at compressed byte {start} ({reason} at byte {}); resumed at the next member, at byte {next}",
                self.at
            ),
            (DamageKind::Corrupt(reason), None) => write!(
                f,
                "damaged gzip member at compressed byte {start} ({reason} at byte {}); no intact member in the {} bytes after it",
                self.at,
                self.end - start
            ),
            (DamageKind::Truncated, Some(next)) => {
                write!(f, "gzip member at compressed byte {start} is cut short; resumed at the next member, at byte {next}")
            }
            (DamageKind::Truncated, None) => {
                write!(f, "gzip member at compressed byte {start} is truncated (the input ends at byte {})", self.end)
            }
        }
    }
}

impl std::error::Error for Damage {}

impl Damage {
    fn into_io(self) -> io::Error {
        let kind = match (self.kind, self.resumed) {
            (DamageKind::Truncated, None) => io::ErrorKind::UnexpectedEof,
            _ => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, self)
    }
}

/// The [`Damage`] an error from a [`GzipReader`] reports, if it is one.
pub fn damage(e: &io::Error) -> Option<&Damage> {
    e.get_ref().and_then(|inner| inner.downcast_ref::<Damage>())
}

/// True for an error after which the reader that returned it goes on (damage it skipped).
pub fn is_resumable(e: &io::Error) -> bool {
    damage(e).is_some() && e.kind() != io::ErrorKind::UnexpectedEof
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Where a member should start (beginning of input, or after an intact member).
    Boundary,
    Header,
    Body,
    Trailer,
    /// Looking for the magic after damage.
    Scan,
    Done,
}

enum Step {
    /// Something changed; go on.
    Progress,
    /// The current member (or would-be member) failed.
    Fail(DamageKind),
}

/// Decodes a gzip stream of any number of members, resynchronising after damage.
pub struct GzipReader<R: BufRead> {
    inner: R,
    /// Compressed offset of `inner`'s next byte.
    inner_off: u64,
    /// Compressed bytes given back for rescanning, read before `inner`.
    pending: Vec<u8>,
    pending_pos: usize,
    pending_off: u64,
    /// Compressed bytes of the current member (the latest `HISTORY_BYTES` at least).
    history: Vec<u8>,
    history_off: u64,
    member_start: u64,
    /// True when the member started at a boundary (so a bad header there is junk).
    at_boundary: bool,
    state: State,
    inflate: Decompress,
    crc: crc32fast::Hasher,
    size: u32,
    /// Output of the current member handed out (not held back).
    member_out: u64,
    /// Decoded bytes ready to be read.
    out: Vec<u8>,
    out_pos: usize,
    /// Output of a member found by rescanning, not yet released.
    held: Vec<u8>,
    holding: bool,
    /// Damage found and not yet reported (reported before the next output, or at the end).
    damage: Option<Damage>,
    /// Damage to return from the next `read`.
    report: Option<Damage>,
}

impl<R: BufRead> GzipReader<R> {
    /// A reader of the gzip stream `inner` (which should start with a member).
    pub fn new(inner: R) -> Self {
        GzipReader {
            inner,
            inner_off: 0,
            pending: Vec::new(),
            pending_pos: 0,
            pending_off: 0,
            history: Vec::new(),
            history_off: 0,
            member_start: 0,
            at_boundary: true,
            state: State::Boundary,
            inflate: Decompress::new(false),
            crc: crc32fast::Hasher::new(),
            size: 0,
            member_out: 0,
            out: Vec::new(),
            out_pos: 0,
            held: Vec::new(),
            holding: false,
            damage: None,
            report: None,
        }
    }

    /// Compressed offset of the next input byte.
    fn pos(&self) -> u64 {
        if self.pending_pos < self.pending.len() {
            self.pending_off + self.pending_pos as u64
        } else {
            self.inner_off
        }
    }

    /// The next compressed bytes (empty at the end of input).
    fn input(&mut self) -> io::Result<&[u8]> {
        if self.pending_pos < self.pending.len() {
            return Ok(&self.pending[self.pending_pos..]);
        }
        super::fill_buf_retrying(&mut self.inner)
    }

    /// Consumes `n` input bytes, recording them in the history when `record`.
    fn consume(&mut self, n: usize, record: bool) {
        if self.pending_pos < self.pending.len() {
            if record {
                self.history
                    .extend_from_slice(&self.pending[self.pending_pos..self.pending_pos + n]);
            }
            self.pending_pos += n;
            if self.pending_pos == self.pending.len() {
                self.pending = Vec::new();
                self.pending_pos = 0;
            }
        } else {
            if record {
                if let Ok(buf) = self.inner.fill_buf() {
                    self.history.extend_from_slice(&buf[..n]);
                }
            }
            self.inner.consume(n);
            self.inner_off += n as u64;
        }
        if self.history.len() > 2 * HISTORY_BYTES {
            let drop = self.history.len() - HISTORY_BYTES;
            self.history.drain(..drop);
            self.history_off += drop as u64;
        }
    }

    fn next_byte(&mut self) -> io::Result<Option<u8>> {
        let Some(&b) = self.input()?.first() else {
            return Ok(None);
        };
        self.consume(1, true);
        Ok(Some(b))
    }

    fn begin_member(&mut self, at_boundary: bool) {
        self.member_start = self.pos();
        self.history.clear();
        self.history_off = self.member_start;
        self.at_boundary = at_boundary;
        self.member_out = 0;
        self.state = State::Header;
    }

    /// One step of decoding; output goes to `out` (or `held` while holding).
    fn step(&mut self) -> io::Result<()> {
        let outcome = match self.state {
            State::Done => return Ok(()),
            State::Boundary => {
                if self.input()?.is_empty() {
                    self.finish();
                } else {
                    self.begin_member(true);
                }
                Step::Progress
            }
            State::Scan => {
                let buf = self.input()?;
                if buf.is_empty() {
                    self.finish();
                } else {
                    match memchr::memchr(0x1f, buf) {
                        Some(i) => {
                            self.consume(i, false);
                            self.begin_member(false);
                        }
                        None => {
                            let n = buf.len();
                            self.consume(n, false);
                        }
                    }
                }
                Step::Progress
            }
            State::Header => self.header()?,
            State::Body => self.body()?,
            State::Trailer => self.trailer()?,
        };
        if let Step::Fail(kind) = outcome {
            self.fail(kind);
        }
        Ok(())
    }

    fn header(&mut self) -> io::Result<Step> {
        let mut fixed = [0u8; 10];
        for slot in fixed.iter_mut() {
            match self.next_byte()? {
                Some(b) => *slot = b,
                None => return Ok(Step::Fail(self.eof_kind())),
            }
        }
        let not_gzip = if self.at_boundary {
            DamageKind::Junk
        } else {
            DamageKind::Corrupt("bad header")
        };
        if fixed[0] != 0x1f || fixed[1] != 0x8b || fixed[2] != 8 || fixed[3] & 0xe0 != 0 {
            return Ok(Step::Fail(not_gzip));
        }
        let flags = fixed[3];
        if flags & 0x04 != 0 {
            let (Some(lo), Some(hi)) = (self.next_byte()?, self.next_byte()?) else {
                return Ok(Step::Fail(self.eof_kind()));
            };
            for _ in 0..u16::from_le_bytes([lo, hi]) {
                if self.next_byte()?.is_none() {
                    return Ok(Step::Fail(self.eof_kind()));
                }
            }
        }
        for flag in [0x08, 0x10] {
            if flags & flag != 0 {
                let mut n = 0;
                loop {
                    match self.next_byte()? {
                        None => return Ok(Step::Fail(self.eof_kind())),
                        Some(0) => break,
                        Some(_) if n >= MAX_HEADER_FIELD => {
                            return Ok(Step::Fail(DamageKind::Corrupt("bad header")))
                        }
                        Some(_) => n += 1,
                    }
                }
            }
        }
        if flags & 0x02 != 0 && (self.next_byte()?.is_none() || self.next_byte()?.is_none()) {
            return Ok(Step::Fail(self.eof_kind()));
        }
        self.inflate.reset(false);
        self.crc = crc32fast::Hasher::new();
        self.size = 0;
        self.state = State::Body;
        Ok(Step::Progress)
    }

    fn body(&mut self) -> io::Result<Step> {
        // Fields borrowed one by one: the input may be `pending` or `inner`'s buffer.
        let target = if self.holding {
            &mut self.held
        } else {
            &mut self.out
        };
        target.reserve(CHUNK);
        let input: &[u8] = if self.pending_pos < self.pending.len() {
            &self.pending[self.pending_pos..]
        } else {
            loop {
                match self.inner.fill_buf() {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                    Ok(_) => break,
                }
            }
            self.inner.fill_buf()?
        };
        if input.is_empty() {
            return Ok(Step::Fail(DamageKind::Truncated));
        }
        let (in_before, out_before, len_before) = (
            self.inflate.total_in(),
            self.inflate.total_out(),
            target.len(),
        );
        let status = self
            .inflate
            .decompress_vec(input, target, FlushDecompress::None);
        let consumed = (self.inflate.total_in() - in_before) as usize;
        let produced = (self.inflate.total_out() - out_before) as usize;
        self.crc.update(&target[len_before..]);
        self.size = self.size.wrapping_add(produced as u32);
        if !self.holding {
            self.member_out += produced as u64;
        }
        self.consume(consumed, true);
        match status {
            Err(_) => Ok(Step::Fail(DamageKind::Corrupt("invalid deflate data"))),
            Ok(Status::StreamEnd) => {
                self.state = State::Trailer;
                Ok(Step::Progress)
            }
            Ok(_) if consumed == 0 && produced == 0 => {
                Ok(Step::Fail(DamageKind::Corrupt("invalid deflate data")))
            }
            Ok(_) => {
                if self.holding && self.held.len() >= HOLD_BYTES {
                    self.release();
                }
                Ok(Step::Progress)
            }
        }
    }

    fn trailer(&mut self) -> io::Result<Step> {
        let mut bytes = [0u8; 8];
        for slot in bytes.iter_mut() {
            match self.next_byte()? {
                Some(b) => *slot = b,
                None => return Ok(Step::Fail(DamageKind::Truncated)),
            }
        }
        let crc = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let size = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        let expected = std::mem::replace(&mut self.crc, crc32fast::Hasher::new()).finalize();
        if crc != expected {
            return Ok(Step::Fail(DamageKind::Corrupt("CRC mismatch")));
        }
        if size != self.size {
            return Ok(Step::Fail(DamageKind::Corrupt("length mismatch")));
        }
        if self.holding {
            self.release();
        }
        self.history.clear();
        self.state = State::Boundary;
        Ok(Step::Progress)
    }

    /// The input ended inside a member's header: truncation, or junk when it was at a boundary
    /// and too short to be a member.
    fn eof_kind(&self) -> DamageKind {
        if self.at_boundary && self.pos() - self.member_start < 10 {
            let magic = [0x1f, 0x8b, 0x08];
            let seen = &self.history[..self.history.len().min(3)];
            if self.history_off != self.member_start || !magic.starts_with(seen) {
                return DamageKind::Junk;
            }
        }
        DamageKind::Truncated
    }

    /// The member at `member_start` failed: drop what it held back, note the damage (unless
    /// already rescanning) and rescan from the byte after its start.
    fn fail(&mut self, kind: DamageKind) {
        self.held.clear();
        if self.damage.is_none() && !self.holding {
            let at = self.pos();
            let emitted = self.member_out;
            self.damage = Some(Damage {
                start: self.member_start,
                at,
                kind,
                resumed: None,
                end: at,
                emitted,
            });
        }
        self.holding = true;
        let restart = (self.member_start + 1)
            .max(self.history_off)
            .min(self.pos());
        let keep = self
            .history
            .get(restart.saturating_sub(self.history_off) as usize..)
            .unwrap_or(&[]);
        if self.pending_pos < self.pending.len() && restart >= self.pending_off {
            // Everything this member read came from `pending`, so it is still there.
            self.pending_pos = (restart - self.pending_off) as usize;
        } else {
            let mut pending = keep.to_vec();
            pending.extend_from_slice(self.pending.get(self.pending_pos..).unwrap_or(&[]));
            self.pending = pending;
            self.pending_pos = 0;
            self.pending_off = restart;
        }
        self.history.clear();
        self.state = State::Scan;
    }

    /// The held-back member proved itself: its output (and, first, the damage) can go out.
    fn release(&mut self) {
        self.holding = false;
        if let Some(mut damage) = self.damage.take() {
            damage.resumed = Some(self.member_start);
            self.report = Some(damage);
        }
        self.out = std::mem::take(&mut self.held);
        self.out_pos = 0;
    }

    fn finish(&mut self) {
        self.state = State::Done;
        self.holding = false;
        self.held = Vec::new();
        if let Some(mut damage) = self.damage.take() {
            damage.end = self.pos();
            self.report = Some(damage);
        }
    }
}

impl<R: BufRead> Read for GzipReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(damage) = self.report.take() {
                return Err(damage.into_io());
            }
            if self.out_pos < self.out.len() {
                let n = buf.len().min(self.out.len() - self.out_pos);
                buf[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
                self.out_pos += n;
                if self.out_pos == self.out.len() {
                    self.out.clear();
                    self.out_pos = 0;
                }
                return Ok(n);
            }
            if self.state == State::Done || buf.is_empty() {
                return Ok(0);
            }
            self.step()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::{Cursor, Write};

    fn member(text: &str) -> Vec<u8> {
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(text.as_bytes()).unwrap();
        enc.finish().unwrap()
    }

    /// Reads everything, collecting the text and the errors in order (`Err` as its message).
    fn read_all(bytes: &[u8], read_size: usize) -> Vec<Result<String, String>> {
        let mut reader = GzipReader::new(io::BufReader::with_capacity(7, Cursor::new(bytes)));
        let mut out: Vec<Result<String, String>> = Vec::new();
        let mut buf = vec![0u8; read_size];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let more = String::from_utf8_lossy(&buf[..n]);
                    match out.last_mut() {
                        Some(Ok(text)) => text.push_str(&more),
                        _ => out.push(Ok(more.into_owned())),
                    }
                }
                Err(e) => {
                    let truncated = e.kind() == io::ErrorKind::UnexpectedEof;
                    out.push(Err(format!("{}{e}", if truncated { "EOF: " } else { "" })));
                    assert!(damage(&e).is_some());
                    if truncated {
                        assert_eq!(reader.read(&mut buf).unwrap(), 0);
                        break;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn intact_members_are_read_in_order() {
        let mut bytes = member("one ");
        bytes.extend(member("two "));
        bytes.extend(member(""));
        bytes.extend(member("three"));
        for size in [1, 3, 1000] {
            assert_eq!(read_all(&bytes, size), [Ok("one two three".to_string())]);
        }
    }

    #[test]
    fn junk_between_members_is_reported_and_skipped() {
        let (a, b) = (member("first "), member("second"));
        let mut bytes = a.clone();
        bytes.extend(b"\x1f\x8bjunk\x1f");
        bytes.extend(&b);
        let message = format!(
            "7 bytes at compressed byte {} are not a gzip member (junk or a damaged header); resumed at the next member, at byte {}",
            a.len(),
            a.len() + 7
        );
        assert_eq!(
            read_all(&bytes, 5),
            [Ok("first ".into()), Err(message), Ok("second".into())]
        );
        bytes.extend(b"trailing");
        let last = read_all(&bytes, 5).pop().unwrap().unwrap_err();
        assert!(
            last.contains("8 bytes at compressed byte") && last.contains("and no member follows"),
            "{last}"
        );
    }

    #[test]
    fn corrupt_member_is_reported_and_the_next_one_read() {
        let members: Vec<Vec<u8>> = (0..5)
            .map(|i| member(&format!("member {i} {}\n", "text ".repeat(40))))
            .collect();
        let starts: Vec<usize> = members
            .iter()
            .scan(0, |at, m| Some(std::mem::replace(at, *at + m.len())))
            .collect();
        for spot in [0, 3, 12, 30] {
            let mut bytes = members.concat();
            let at = starts[2] + spot;
            bytes[at] ^= 0x55;
            let results = read_all(&bytes, 64);
            let err = results.iter().find_map(|r| r.clone().err()).unwrap();
            assert!(
                err.contains(&format!("at compressed byte {}", starts[2])),
                "{err}"
            );
            assert!(
                err.contains(&format!("next member, at byte {}", starts[3])),
                "{err}"
            );
            let text: String = results.iter().filter_map(|r| r.clone().ok()).collect();
            for i in [0, 1, 3, 4] {
                assert!(text.contains(&format!("member {i} ")), "{i}: {results:?}");
            }
        }
        // A CRC mismatch: the data came out whole, then the damage is reported.
        let mut bytes = members.concat();
        bytes[starts[3] - 8] ^= 1;
        let results = read_all(&bytes, 64);
        assert_eq!(results.len(), 3, "{results:?}");
        assert!(results[1].as_ref().unwrap_err().contains("CRC mismatch"));
    }

    #[test]
    fn cut_member_at_the_end_is_truncation() {
        let mut bytes = member("whole ");
        let cut = member(&(0..300).map(|i| format!("{i} ")).collect::<String>());
        bytes.extend(&cut[..cut.len() / 2]);
        let results = read_all(&bytes, 100);
        let last = results.last().unwrap().as_ref().unwrap_err();
        assert!(
            last.starts_with("EOF: gzip member at compressed byte ")
                && last.contains("is truncated"),
            "{last}"
        );
        assert!(
            results[0].as_ref().unwrap().starts_with("whole 0 1 2 3"),
            "{results:?}"
        );
        // Cut inside the header too.
        let mut bytes = member("whole");
        let start = bytes.len();
        bytes.extend(&cut[..5]);
        let message = format!(
            "EOF: gzip member at compressed byte {start} is truncated (the input ends at byte {})",
            start + 5
        );
        assert_eq!(read_all(&bytes, 100), [Ok("whole".into()), Err(message)]);
    }

    #[test]
    fn a_member_cut_short_and_followed_by_others_is_skipped() {
        let cut = member(&"cut member ".repeat(50));
        let mut bytes = member("before ");
        let start = bytes.len();
        bytes.extend(&cut[..cut.len() / 2]);
        let next = bytes.len();
        bytes.extend(member("after"));
        let results = read_all(&bytes, 100);
        let text: String = results.iter().filter_map(|r| r.clone().ok()).collect();
        assert!(
            text.starts_with("before ") && text.ends_with("after"),
            "{results:?}"
        );
        let err = results.iter().find_map(|r| r.clone().err()).unwrap();
        assert!(
            err.contains(&format!("compressed byte {start}"))
                && err.contains(&format!("byte {next}")),
            "{err}"
        );
    }

    mod prop {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

            /// Garbled members (bytes overwritten, the end cut) and random bytes after a magic:
            /// no panic, an end, and bounded output.
            #[test]
            fn garbled_gzip_never_panics(
                edits in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>()), 0..8),
                cut in any::<proptest::sample::Index>(),
                noise in proptest::collection::vec(any::<u8>(), 0..512),
            ) {
                let mut bytes: Vec<u8> = (0..4).flat_map(|i| member(&format!("member {i} ").repeat(30))).collect();
                for (at, b) in edits {
                    let at = at.index(bytes.len());
                    bytes[at] = b;
                }
                bytes.truncate(cut.index(bytes.len() + 1));
                for input in [bytes, [&[0x1f, 0x8b, 0x08][..], &noise].concat()] {
                    let mut reader = GzipReader::new(io::BufReader::with_capacity(16, Cursor::new(&input)));
                    let (mut out, mut errors) = (0usize, 0usize);
                    let mut buf = [0u8; 100];
                    loop {
                        match reader.read(&mut buf) {
                            Ok(0) => break,
                            Ok(n) => out += n,
                            Err(e) => {
                                errors += 1;
                                prop_assert!(damage(&e).is_some());
                                if !is_resumable(&e) {
                                    prop_assert_eq!(reader.read(&mut buf).unwrap(), 0);
                                    break;
                                }
                            }
                        }
                        prop_assert!(errors < 100 && out < 1 << 20);
                    }
                }
            }
        }
    }

    #[test]
    fn false_magic_in_junk_is_skipped_quietly() {
        // Junk holding a gzip magic and a plausible header whose data does not decode.
        let mut bytes = member("one ");
        let at = bytes.len();
        bytes.extend(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff\xff junk");
        bytes.extend(member("two"));
        let results = read_all(&bytes, 100);
        assert_eq!(results.len(), 3, "{results:?}");
        assert_eq!(results[0], Ok("one ".into()));
        assert!(results[1]
            .as_ref()
            .unwrap_err()
            .contains(&format!("compressed byte {at}")));
        assert_eq!(results[2], Ok("two".into()));
    }
}
