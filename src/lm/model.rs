//! The binary language-model file: its layout, the zero-parse loader, lookups
//! and sentence scoring, and the writer used by training.
//!
//! # File format (version 2, all integers and floats little-endian)
//!
//! A model is a backoff n-gram model whose n-grams are identified only by a
//! 64-bit hash key (no words are stored). Token hashes come from
//! [`crate::lm::tokenize`] with the file's seed; the key of an n-gram
//! `w1 … wk` is `k1 = hash(w1)`, `kj = combine(k(j-1), hash(wj))` where
//! `combine(a, b) = fmix64(a · 0x9E3779B97F4A7C15 ⊕ b)` (wrapping multiply,
//! MurmurHash3's finaliser; see [`TokenHasher::combine`]).
//!
//! ```text
//! preamble (24 bytes, not checksummed)
//!    0  4  magic "PPLM"
//!    4  2  u16 format version (1)
//!    6  2  reserved, 0
//!    8  8  u64 total file length in bytes
//!   16  4  u32 crc32 (IEEE, crc32fast) of bytes [24, total length)
//!   20  4  reserved, 0
//! header (checksummed)
//!   24  1  u8 order N (1..=4)
//!   25  3  reserved, 0
//!   28  4  f32 log2 P(<unk>): probability of a word not in the unigram table
//!   32  8  u64 token hash seed
//!   40  4  u32 credit length C  (UTF-8 text: data source / licence credit)
//!   44  4  u32 provenance length P (UTF-8 text: how the model was trained)
//!   48  C  credit, then P bytes provenance
//!   then N table descriptors, for orders 1..=N:
//!       4  u32 entry count E
//!       1  u8  bucket bits B (0..=24)
//!       1  u8  has backoff (1 for orders < N, else 0)
//!       1  u8  fingerprint bytes F: 2 or 4 (version 1: 0, meaning 4)
//!       1  reserved, 0
//!    1024  256 × f32 probability codebook (log2 P)
//!    1024  256 × f32 backoff codebook (log2 backoff weight), only if has backoff
//! body (checksummed): for orders 1..=N, one table each:
//!   (2^B + 1) × u32  bucket offsets: bucket b holds entries [off[b], off[b+1])
//!   E records of R = F + 1 (+ 1 with backoff) bytes, sorted by (bucket, fingerprint):
//!       F-byte fingerprint = low 8·F bits of the key
//!       u8  probability: index into the probability codebook
//!       u8  backoff: index into the backoff codebook (only if has backoff)
//! ```
//!
//! An n-gram's bucket is the top B bits of its key; inside the bucket its
//! entry is found by searching the sorted fingerprints (any search works;
//! this reader interpolates, then scans). Keys are thus matched on B + 8·F
//! bits; the writer picks B so buckets hold about 64 entries, so a lookup of
//! an absent n-gram matches a wrong entry with probability ≈ 2^(−8·F) per
//! fingerprint compared (one or two): ≈ E / 2^(B + 8·F) overall. The writer
//! gives unigrams F = 4 and the higher orders F = 2 by default (the English
//! bigrams: ≈ 5·10⁻⁴ per absent bigram, in exchange for 4.5 MB; measured in
//! `model/README.md`). A record holds an entry's
//! fingerprint and values together, so a lookup touches the small offsets
//! array (mostly cached) and usually one line of records.
//!
//! Quantisation: each table has two 256-entry codebooks (KenLM-style
//! binning: values sorted, cut into 256 equal-population bins, each bin
//! represented by its mean). Backoff codebook entry 0 is exactly 0.0 (no
//! backoff). The probability of an order-k entry is the *interpolated*
//! Kneser–Ney log2 probability of its last word given the others; the
//! backoff of an entry is the log2 weight applied when it is the context of a
//! longer n-gram that is not stored (see [`crate::lm`] for the scoring rule).
//! The unigram table also holds `<s>` (for its backoff; its probability is
//! never used).
//!
//! Loading validates the preamble, the checksum, the header and all sizes,
//! and checks the bucket offsets are monotonic; lookups then read the bytes
//! in place with `from_le_bytes`, so a model is ready without parsing.
//!
//! Scoring speed: almost every lookup is a cache miss into a table of many
//! megabytes. [`LanguageModel::log2_prob`] therefore buffers up to 64 token
//! hashes on the stack, computes their n-gram keys, and prefetches each
//! token's records a few tokens ahead of scoring it, so the misses overlap.
//! The prefetch hint (`_mm_prefetch`, x86-64 only) is this module's only
//! `unsafe`; it cannot change results.

use std::fmt::Write as _;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

use crate::lm::tokenize::{tokenize_with, Token, TokenHasher, TokenKind};

/// File magic.
pub const MAGIC: &[u8; 4] = b"PPLM";
/// Format version this build writes; it reads this one and version 1 (32-bit fingerprints).
pub const FORMAT_VERSION: u16 = 2;
/// Fingerprint bytes a trained model gets by default (see the format doc).
pub const DEFAULT_FINGERPRINT_BYTES: u8 = 2;
/// Highest n-gram order the format (and scorer) supports.
pub const MAX_ORDER: usize = 4;
/// Quantisation levels per codebook.
pub const LEVELS: usize = 256;
/// Tokens buffered per chunk in [`LanguageModel::log2_prob`].
const SCORE_CHUNK: usize = 64;
/// How many tokens ahead table lines are prefetched.
const PREFETCH_DISTANCE: usize = 4;
/// Size of the unchecksummed preamble.
const PREAMBLE_LEN: usize = 24;
/// Size of the fixed part of the header after the preamble.
const FIXED_HEADER_LEN: usize = 24;
/// Largest bucket-bits value accepted (keeps offsets arrays ≤ 64 MiB).
const MAX_BUCKET_BITS: u32 = 24;
/// Target mean number of entries per bucket (small offsets arrays stay in cache;
/// interpolation keeps the scan inside a bucket short).
const TARGET_BUCKET_LEN: usize = 64;

/// Why a model could not be loaded. Messages are one line; callers prefix the path.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Reading the file failed.
    #[error("cannot read model: {0}")]
    Io(#[from] std::io::Error),
    /// Fewer bytes than the fixed preamble.
    #[error("not a model file: {len} bytes is shorter than the {min}-byte preamble")]
    TooShort { len: usize, min: usize },
    /// Fewer bytes than the length recorded in the preamble.
    #[error("model file is truncated: {actual} of {expected} bytes present")]
    Truncated { expected: u64, actual: u64 },
    /// The magic bytes are not `PPLM`.
    #[error("not a ppl-filter language model (bad magic bytes)")]
    BadMagic,
    /// A format version this build cannot read.
    #[error("unsupported model format version {found} (this build reads version {supported})")]
    UnsupportedVersion { found: u16, supported: u16 },
    /// The body checksum does not match.
    #[error("model checksum mismatch (stored {stored:08x}, computed {computed:08x}): the file is corrupt")]
    Checksum { stored: u32, computed: u32 },
    /// Sizes or values in the header are inconsistent.
    #[error("corrupt model: {0}")]
    Corrupt(String),
}

fn corrupt(msg: impl Into<String>) -> ModelError {
    ModelError::Corrupt(msg.into())
}

/// Where the model bytes live. A model file is read into memory, not mapped: a mapped file
/// truncated by another process while in use would kill this one with SIGBUS.
enum Storage {
    Static(&'static [u8]),
    Owned(Vec<u8>),
}

/// Location and quantisation of one order's table inside the model bytes.
#[derive(Clone, Debug)]
struct Table {
    entries: usize,
    bucket_bits: u32,
    offsets_at: usize,
    records_at: usize,
    /// Bytes per record: fingerprint, probability code, backoff code if any.
    record_len: usize,
    /// Bytes of a fingerprint: 2 or 4.
    fp_bytes: usize,
    has_backoff: bool,
    prob_codebook: [f32; LEVELS],
    backoff_codebook: [f32; LEVELS],
}

/// A loaded n-gram language model (backoff form, hashed keys, quantised values).
pub struct LanguageModel {
    storage: Storage,
    order: usize,
    hasher: TokenHasher,
    unk_log2: f64,
    credit: std::ops::Range<usize>,
    provenance: std::ops::Range<usize>,
    tables: Vec<Table>,
}

impl std::fmt::Debug for LanguageModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LanguageModel")
            .field("order", &self.order)
            .field("counts", &self.counts())
            .field("bytes", &self.bytes().len())
            .finish()
    }
}

#[inline]
fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Some(u64::from_le_bytes(a))
}

fn read_f32(bytes: &[u8], at: usize) -> Option<f32> {
    read_u32(bytes, at).map(f32::from_bits)
}

/// Bytes of the bucket-offset array for `bits`.
fn offsets_len(bits: u32) -> usize {
    ((1usize << bits) + 1) * 4
}

/// Result of validating a model's bytes: everything but the storage.
struct Parsed {
    order: usize,
    seed: u64,
    unk_log2: f64,
    credit: std::ops::Range<usize>,
    provenance: std::ops::Range<usize>,
    tables: Vec<Table>,
}

/// Checks the magic bytes and version of the preamble; returns the recorded total length.
fn parse_preamble(bytes: &[u8]) -> Result<u64, ModelError> {
    if bytes.len() < PREAMBLE_LEN {
        if bytes.len() >= 4 && &bytes[..4] != MAGIC {
            return Err(ModelError::BadMagic);
        }
        return Err(ModelError::TooShort {
            len: bytes.len(),
            min: PREAMBLE_LEN,
        });
    }
    if &bytes[..4] != MAGIC {
        return Err(ModelError::BadMagic);
    }
    let version = read_u16(bytes, 4).unwrap_or(0);
    if !(1..=FORMAT_VERSION).contains(&version) {
        return Err(ModelError::UnsupportedVersion {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    Ok(read_u64(bytes, 8).unwrap_or(0))
}

/// Checks that a model of `actual` bytes has the recorded `total` length.
fn check_length(total: u64, actual: u64) -> Result<(), ModelError> {
    if actual < total {
        return Err(ModelError::Truncated {
            expected: total,
            actual,
        });
    }
    if actual > total {
        return Err(corrupt(format!(
            "{} bytes after the recorded end of the model",
            actual - total
        )));
    }
    Ok(())
}

/// Reads one model's bytes from `reader`, for [`LanguageModel::from_bytes`]: the preamble,
/// then the rest of the length it records. `size`, if known (a regular file), is how many
/// bytes `reader` holds: a recorded length that does not match it is refused before anything
/// more is read, and the buffer is allocated once. Otherwise the buffer grows only with the
/// bytes actually read, so an endless stream (a device, a pipe) or a damaged length costs at
/// most what the stream holds up to the recorded length, and a stream that does not start
/// with the magic bytes is refused after 24 bytes.
pub(crate) fn read_model(reader: &mut dyn Read, size: Option<u64>) -> Result<Vec<u8>, ModelError> {
    let mut bytes = Vec::with_capacity(PREAMBLE_LEN);
    (&mut *reader)
        .take(PREAMBLE_LEN as u64)
        .read_to_end(&mut bytes)?;
    if bytes.len() < PREAMBLE_LEN {
        // Too short to hold a model: `from_bytes` says why.
        return Ok(bytes);
    }
    let total = parse_preamble(&bytes)?;
    let rest = total.saturating_sub(PREAMBLE_LEN as u64);
    if let Some(size) = size {
        check_length(total, size)?;
        let rest = usize::try_from(rest)
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
        bytes
            .try_reserve_exact(rest)
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
    }
    // One byte more than recorded, to notice a stream that goes on.
    (&mut *reader)
        .take(rest.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > total {
        return Err(corrupt("more bytes follow the recorded end of the model"));
    }
    Ok(bytes)
}

fn parse(bytes: &[u8]) -> Result<Parsed, ModelError> {
    let total = parse_preamble(bytes)?;
    let version = read_u16(bytes, 4).unwrap_or(0);
    check_length(total, bytes.len() as u64)?;
    if total < (PREAMBLE_LEN + FIXED_HEADER_LEN) as u64 {
        return Err(corrupt("recorded length is shorter than the header"));
    }
    let stored = read_u32(bytes, 16).unwrap_or(0);
    let computed = crc32fast::hash(&bytes[PREAMBLE_LEN..]);
    if stored != computed {
        return Err(ModelError::Checksum { stored, computed });
    }

    let short = || corrupt("header runs past the end of the file");
    let order = bytes[24] as usize;
    if order == 0 || order > MAX_ORDER {
        return Err(corrupt(format!("order {order} is outside 1..={MAX_ORDER}")));
    }
    let unk_log2 = read_f32(bytes, 28).ok_or_else(short)?;
    if !unk_log2.is_finite() || unk_log2 > 0.0 {
        return Err(corrupt("log2 P(<unk>) is not a finite value ≤ 0"));
    }
    let seed = read_u64(bytes, 32).ok_or_else(short)?;
    let credit_len = read_u32(bytes, 40).ok_or_else(short)? as usize;
    let provenance_len = read_u32(bytes, 44).ok_or_else(short)? as usize;
    let mut at = PREAMBLE_LEN + FIXED_HEADER_LEN;
    let credit = at..at.checked_add(credit_len).ok_or_else(short)?;
    let provenance = credit.end..credit.end.checked_add(provenance_len).ok_or_else(short)?;
    if provenance.end > bytes.len() {
        return Err(short());
    }
    if std::str::from_utf8(&bytes[credit.clone()]).is_err()
        || std::str::from_utf8(&bytes[provenance.clone()]).is_err()
    {
        return Err(corrupt("credit or provenance text is not UTF-8"));
    }
    at = provenance.end;

    // Table descriptors.
    let mut descriptors = Vec::with_capacity(order);
    for n in 1..=order {
        let entries = read_u32(bytes, at).ok_or_else(short)? as usize;
        let bucket_bits = *bytes.get(at + 4).ok_or_else(short)? as u32;
        let has_backoff = *bytes.get(at + 5).ok_or_else(short)?;
        // Version 1 has no width byte (0, reserved): its fingerprints are 4 bytes.
        let fp_bytes = match (version, *bytes.get(at + 6).ok_or_else(short)?) {
            (1, 0) => 4,
            (2, width @ (2 | 4)) => width as usize,
            (_, width) => {
                return Err(corrupt(format!(
                    "order-{n} table has {width}-byte fingerprints (2 or 4 in version 2, 4 in version 1)"
                )))
            }
        };
        at += 8;
        if bucket_bits > MAX_BUCKET_BITS {
            return Err(corrupt(format!(
                "order-{n} table has {bucket_bits} bucket bits (max {MAX_BUCKET_BITS})"
            )));
        }
        if has_backoff != u8::from(n < order) {
            return Err(corrupt(format!(
                "order-{n} table backoff flag is {has_backoff}"
            )));
        }
        let mut prob_codebook = [0f32; LEVELS];
        let mut backoff_codebook = [0f32; LEVELS];
        for (i, v) in prob_codebook.iter_mut().enumerate() {
            *v = read_f32(bytes, at + 4 * i).ok_or_else(short)?;
        }
        at += 4 * LEVELS;
        if has_backoff == 1 {
            for (i, v) in backoff_codebook.iter_mut().enumerate() {
                *v = read_f32(bytes, at + 4 * i).ok_or_else(short)?;
            }
            at += 4 * LEVELS;
        }
        if prob_codebook
            .iter()
            .chain(&backoff_codebook)
            .any(|v| !v.is_finite())
        {
            return Err(corrupt(format!(
                "order-{n} codebook holds a non-finite value"
            )));
        }
        descriptors.push((
            entries,
            bucket_bits,
            has_backoff == 1,
            fp_bytes,
            prob_codebook,
            backoff_codebook,
        ));
    }

    // Body: compute each table's arrays and check they exactly fill the file.
    let mut tables = Vec::with_capacity(order);
    for (n, (entries, bucket_bits, has_backoff, fp_bytes, prob_codebook, backoff_codebook)) in
        descriptors.into_iter().enumerate()
    {
        let offsets_at = at;
        let records_at = offsets_at + offsets_len(bucket_bits);
        let record_len = fp_bytes + 1 + usize::from(has_backoff);
        let end = records_at
            .checked_add(entries.checked_mul(record_len).ok_or_else(short)?)
            .ok_or_else(short)?;
        if end > bytes.len() {
            return Err(corrupt(format!(
                "order-{} table runs past the end of the file",
                n + 1
            )));
        }
        // Bucket offsets must start at 0, never decrease, and end at the entry count.
        let buckets = 1usize << bucket_bits;
        let mut prev = 0u32;
        if read_u32(bytes, offsets_at) != Some(0) {
            return Err(corrupt(format!(
                "order-{} bucket offsets do not start at 0",
                n + 1
            )));
        }
        for chunk in bytes[offsets_at..offsets_at + 4 * (buckets + 1)].chunks_exact(4) {
            let v = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            if v < prev {
                return Err(corrupt(format!("order-{} bucket offsets decrease", n + 1)));
            }
            prev = v;
        }
        if prev as usize != entries {
            return Err(corrupt(format!(
                "order-{} bucket offsets end at {prev}, not at {entries} entries",
                n + 1
            )));
        }
        tables.push(Table {
            entries,
            bucket_bits,
            offsets_at,
            records_at,
            record_len,
            fp_bytes,
            has_backoff,
            prob_codebook,
            backoff_codebook,
        });
        at = end;
    }
    if at != bytes.len() {
        return Err(corrupt(format!(
            "{} unaccounted bytes after the last table",
            bytes.len() - at
        )));
    }
    Ok(Parsed {
        order,
        seed,
        unk_log2: unk_log2 as f64,
        credit,
        provenance,
        tables,
    })
}

impl Table {
    /// Index of the entry with `key`, if stored.
    ///
    /// Fingerprints are uniform and sorted within a bucket, so the entry's
    /// position is first estimated by interpolation, then found by a short
    /// linear scan (a few records, usually one cache line).
    #[inline]
    fn find(&self, bytes: &[u8], key: u64) -> Option<usize> {
        let bucket = if self.bucket_bits == 0 {
            0
        } else {
            (key >> (64 - self.bucket_bits)) as usize
        };
        let at = self.offsets_at + 4 * bucket;
        let lo = read_u32(bytes, at)? as usize;
        let hi = read_u32(bytes, at + 4)? as usize;
        if hi <= lo || hi > self.entries {
            return None;
        }
        let records = bytes
            .get(self.records_at + self.record_len * lo..self.records_at + self.record_len * hi)?;
        let fp = self.fingerprint(key);
        let fp_at = |i: usize| -> u32 {
            // One bounds check for the bytes (`i < len` keeps it in range).
            let at = self.record_len * i;
            match self.fp_bytes {
                2 => u16::from_le_bytes([records[at], records[at + 1]]) as u32,
                _ => u32::from_le_bytes(records[at..at + 4].try_into().expect("a 4-byte slice")),
            }
        };
        let len = hi - lo;
        let mut i = ((len as u64 * fp as u64) >> (8 * self.fp_bytes)) as usize;
        let mut v = fp_at(i);
        if v < fp {
            while v < fp {
                i += 1;
                if i == len {
                    return None;
                }
                v = fp_at(i);
            }
        } else {
            while v > fp {
                if i == 0 {
                    return None;
                }
                i -= 1;
                v = fp_at(i);
            }
        }
        (v == fp).then_some(lo + i)
    }

    /// Asks the CPU to start loading the record `find(key)` will read first.
    #[inline]
    fn prefetch(&self, bytes: &[u8], key: u64) {
        let bucket = if self.bucket_bits == 0 {
            0
        } else {
            (key >> (64 - self.bucket_bits)) as usize
        };
        let at = self.offsets_at + 4 * bucket;
        let (Some(lo), Some(hi)) = (read_u32(bytes, at), read_u32(bytes, at + 4)) else {
            return;
        };
        let spread = hi.saturating_sub(lo) as u64 * self.fingerprint(key) as u64;
        let guess = lo as usize + (spread >> (8 * self.fp_bytes)) as usize;
        prefetch_line(bytes, self.records_at + self.record_len * guess);
    }

    /// The fingerprint of `key` at this table's width: its low 16 or 32 bits.
    #[inline]
    fn fingerprint(&self, key: u64) -> u32 {
        match self.fp_bytes {
            2 => key as u16 as u32,
            _ => key as u32,
        }
    }

    #[inline]
    fn prob(&self, bytes: &[u8], index: usize) -> f64 {
        let level = bytes
            .get(self.records_at + self.record_len * index + self.fp_bytes)
            .copied()
            .unwrap_or(0);
        self.prob_codebook[level as usize] as f64
    }

    /// log2 backoff of an entry (0.0 for the highest order, which has none).
    #[inline]
    fn backoff(&self, bytes: &[u8], index: usize) -> f64 {
        if !self.has_backoff {
            return 0.0;
        }
        let level = bytes
            .get(self.records_at + self.record_len * index + self.fp_bytes + 1)
            .copied()
            .unwrap_or(0);
        self.backoff_codebook[level as usize] as f64
    }
}

/// Hints the CPU to load the cache line holding `bytes[at]` (if in bounds).
/// Only a hint: it cannot fault and does not change any result.
#[inline(always)]
fn prefetch_line(bytes: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(byte) = bytes.get(at) {
        // SAFETY: `_mm_prefetch` is a cache hint on a valid, in-bounds address;
        // it never faults or writes, and SSE is part of the x86_64 baseline.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (byte as *const u8).cast::<i8>(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, at);
}

/// Result of looking a key up in a table, cached between scoring steps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lookup {
    NotDone,
    Absent,
    Found(usize),
}

/// Scoring state: keys of the last tokens (index j = key of the last j+1
/// tokens) and, where already done, their lookup in the order-(j+1) table.
struct History {
    keys: [u64; MAX_ORDER],
    lookups: [Lookup; MAX_ORDER],
    len: usize,
}

impl LanguageModel {
    fn from_storage(storage: Storage) -> Result<LanguageModel, ModelError> {
        let parsed = {
            let bytes: &[u8] = match &storage {
                Storage::Static(b) => b,
                Storage::Owned(v) => v,
            };
            parse(bytes)?
        };
        Ok(LanguageModel {
            storage,
            order: parsed.order,
            hasher: TokenHasher::new(parsed.seed),
            unk_log2: parsed.unk_log2,
            credit: parsed.credit,
            provenance: parsed.provenance,
            tables: parsed.tables,
        })
    }

    /// Reads the model file at `path` into memory and validates it. Memory grows with the
    /// bytes read, never with a recorded length, so a damaged length or an endless file (a
    /// device, a pipe) cannot exhaust it. Changing the file afterwards cannot affect the model.
    pub fn open(path: &Path) -> Result<LanguageModel, ModelError> {
        let mut file = File::open(path)?;
        let metadata = file.metadata()?;
        let size = metadata.is_file().then_some(metadata.len());
        LanguageModel::from_bytes(read_model(&mut file, size)?)
    }

    /// Validates and wraps model bytes held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<LanguageModel, ModelError> {
        LanguageModel::from_storage(Storage::Owned(bytes))
    }

    /// Validates and wraps model bytes with static lifetime (e.g. `include_bytes!`).
    pub fn from_static(bytes: &'static [u8]) -> Result<LanguageModel, ModelError> {
        LanguageModel::from_storage(Storage::Static(bytes))
    }

    #[inline]
    fn bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Static(b) => b,
            Storage::Owned(v) => v,
        }
    }

    /// The n-gram order N.
    pub fn order(&self) -> usize {
        self.order
    }

    /// Number of stored n-grams for orders 1..=N (index 0 = unigrams, including `<s>`).
    pub fn counts(&self) -> Vec<usize> {
        self.tables.iter().map(|t| t.entries).collect()
    }

    /// Total number of stored n-grams over all orders.
    pub fn len(&self) -> usize {
        self.tables.iter().map(|t| t.entries).sum()
    }

    /// True if the model stores no n-grams at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size of the model file in bytes.
    pub fn size_bytes(&self) -> usize {
        self.bytes().len()
    }

    /// Credit / licence text of the training data.
    pub fn credit(&self) -> &str {
        std::str::from_utf8(&self.bytes()[self.credit.clone()]).unwrap_or("")
    }

    /// How the model was trained (options, inputs).
    pub fn provenance(&self) -> &str {
        std::str::from_utf8(&self.bytes()[self.provenance.clone()]).unwrap_or("")
    }

    /// log2 probability given to a word that is not in the vocabulary.
    pub fn unknown_log2_prob(&self) -> f64 {
        self.unk_log2
    }

    /// Token hasher with this model's seed.
    pub fn hasher(&self) -> &TokenHasher {
        &self.hasher
    }

    fn new_history(&self) -> History {
        let mut keys = [0u64; MAX_ORDER];
        keys[0] = self.hasher.bos;
        History {
            keys,
            lookups: [Lookup::NotDone; MAX_ORDER],
            len: usize::from(self.order > 1),
        }
    }

    /// Keys of the n-grams (orders 1..=n) that end in `word` after the
    /// context `keys[..len]`; returns them and n. Index j = order j+1.
    #[inline]
    fn next_keys(
        &self,
        context: &[u64; MAX_ORDER],
        len: usize,
        word: u64,
    ) -> ([u64; MAX_ORDER], usize) {
        let max_n = (len + 1).min(self.order);
        let mut keys = [0u64; MAX_ORDER];
        keys[0] = word;
        for (key, &c) in keys[1..max_n].iter_mut().zip(context) {
            *key = self.hasher.combine(c, word);
        }
        (keys, max_n)
    }

    /// log2 P(w | history) by backoff, where `keys[..max_n]` come from
    /// [`Self::next_keys`] for w; then pushes w onto the history.
    #[inline]
    fn score_keys(
        &self,
        bytes: &[u8],
        hist: &mut History,
        keys: &[u64; MAX_ORDER],
        max_n: usize,
    ) -> f64 {
        let mut lookups = [Lookup::NotDone; MAX_ORDER];
        let mut backoff = 0.0;
        let mut prob = self.unk_log2;
        for j in (0..max_n).rev() {
            let table = &self.tables[j];
            if let Some(index) = table.find(bytes, keys[j]) {
                lookups[j] = Lookup::Found(index);
                prob = table.prob(bytes, index);
                break;
            }
            lookups[j] = Lookup::Absent;
            if j > 0 {
                // Back off: add the backoff weight of the context (cached from the previous step if looked up).
                let context = &self.tables[j - 1];
                let found = match hist.lookups[j - 1] {
                    Lookup::NotDone => context.find(bytes, hist.keys[j - 1]),
                    Lookup::Absent => None,
                    Lookup::Found(index) => Some(index),
                };
                if let Some(index) = found {
                    backoff += context.backoff(bytes, index);
                }
            }
        }
        // Whole fixed-size arrays are copied (a few moves, where a `..keep` slice copy is a
        // memcpy call); entries from `keep` on are never read.
        hist.keys = *keys;
        hist.lookups = lookups;
        hist.len = max_n.min(self.order - 1);
        prob + backoff
    }

    /// Scores one word (no prefetching).
    fn score_next(&self, bytes: &[u8], hist: &mut History, word: u64) -> f64 {
        let (keys, max_n) = self.next_keys(&hist.keys, hist.len, word);
        self.score_keys(bytes, hist, &keys, max_n)
    }

    /// Scores `words` in order. The n-gram keys of each word are computed
    /// [`PREFETCH_DISTANCE`] words before it is scored, and its table lines
    /// prefetched then: lookups are cache misses, and this overlaps them
    /// (about 2× faster). The keys wait in a small ring, not a chunk-sized array.
    fn score_chunk(&self, bytes: &[u8], hist: &mut History, words: &[u64]) -> f64 {
        const RING: usize = 8;
        const _: () = assert!(RING > PREFETCH_DISTANCE);
        let mut ring = [([0u64; MAX_ORDER], 0usize); RING];
        let (mut context, mut len) = (hist.keys, hist.len);
        let mut ahead = 0;
        let mut sum = 0.0;
        for i in 0..words.len() {
            while ahead < words.len() && ahead <= i + PREFETCH_DISTANCE {
                let (keys, n) = self.next_keys(&context, len, words[ahead]);
                for (table, &key) in self.tables.iter().zip(&keys[..n]) {
                    table.prefetch(bytes, key);
                }
                // Entries of `context` from `len` on are never read.
                (context, len) = (keys, n.min(self.order - 1));
                ring[ahead % RING] = (keys, n);
                ahead += 1;
            }
            let (keys, n) = &ring[i % RING];
            sum += self.score_keys(bytes, hist, keys, *n);
        }
        sum
    }

    /// Sum of log2 P(wᵢ | history) over the tokens of `sentence` plus `</s>`,
    /// and the number of predictions N (tokens + 1). History starts at `<s>`.
    /// Allocates nothing: tokens are buffered in fixed chunks on the stack.
    pub fn log2_prob(&self, sentence: &str) -> (f64, u32) {
        let (bytes, mut hist, mut sum) = (self.bytes(), self.new_history(), 0.0);
        let n = self.token_chunks(sentence, |chunk| {
            sum += self.score_chunk(bytes, &mut hist, chunk)
        });
        (sum, n)
    }

    /// [`Self::log2_prob`] of `sentence` under this model and under `other`, tokenizing once
    /// when both use the same token hash seed (the sums are the same as from two calls).
    pub fn log2_prob_pair(&self, other: &LanguageModel, sentence: &str) -> [(f64, u32); 2] {
        if self.hasher.seed() != other.hasher.seed() {
            return [self.log2_prob(sentence), other.log2_prob(sentence)];
        }
        let (bytes, mut hist, mut sum) = (self.bytes(), self.new_history(), 0.0);
        let (other_bytes, mut other_hist, mut other_sum) =
            (other.bytes(), other.new_history(), 0.0);
        let n = self.token_chunks(sentence, |chunk| {
            sum += self.score_chunk(bytes, &mut hist, chunk);
            other_sum += other.score_chunk(other_bytes, &mut other_hist, chunk);
        });
        [(sum, n), (other_sum, n)]
    }

    /// Hands the token hashes of `sentence`, then `</s>`, to `score` in chunks of at most
    /// `SCORE_CHUNK`; returns how many there were.
    fn token_chunks(&self, sentence: &str, mut score: impl FnMut(&[u64])) -> u32 {
        let mut chunk = [0u64; SCORE_CHUNK];
        let (mut len, mut n) = (0, 0u32);
        tokenize_with(&self.hasher, sentence, |token| {
            chunk[len] = token.hash;
            len += 1;
            if len == SCORE_CHUNK {
                score(&chunk);
                n += len as u32;
                len = 0;
            }
        });
        chunk[len] = self.hasher.eos;
        len += 1;
        score(&chunk[..len]);
        n + len as u32
    }

    /// Perplexity 2^(−(1/N)·Σ log2 P(wᵢ | history)) of `sentence` (N counts `</s>`).
    pub fn perplexity(&self, sentence: &str) -> f64 {
        let (sum, n) = self.log2_prob(sentence);
        (-(sum / n as f64)).exp2()
    }

    /// Calls `f` with every token of `sentence` and its log2 probability,
    /// ending with the `</s>` prediction (for debugging and explanations).
    pub fn for_each_token_log2_prob<'a>(
        &self,
        sentence: &'a str,
        mut f: impl FnMut(Token<'a>, f64),
    ) {
        let bytes = self.bytes();
        let mut hist = self.new_history();
        tokenize_with(&self.hasher, sentence, |token| {
            let p = self.score_next(bytes, &mut hist, token.hash);
            f(token, p);
        });
        let p = self.score_next(bytes, &mut hist, self.hasher.eos);
        f(
            Token {
                hash: self.hasher.eos,
                kind: TokenKind::SentenceEnd,
                text: "</s>",
            },
            p,
        );
    }
}

/// The default English model's file, unpacked from `model/en.pack` by `build.rs`.
pub fn embedded_bytes() -> &'static [u8] {
    include_bytes!(concat!(env!("OUT_DIR"), "/en.bin"))
}

/// The default English model compiled into the binary (validated on first use).
pub fn embedded() -> &'static LanguageModel {
    static EMBEDDED: OnceLock<LanguageModel> = OnceLock::new();
    EMBEDDED.get_or_init(|| match LanguageModel::from_static(embedded_bytes()) {
        Ok(model) => model,
        // The embedded file is checked by a unit test; failing here is a build bug.
        Err(e) => panic!("embedded language model (model/en.pack) is invalid: {e}"),
    })
}

/// One n-gram entry to write: hash key, log2 probability, log2 backoff (0 if none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// n-gram key (see the module doc).
    pub key: u64,
    /// Interpolated log2 probability of the last word given the others.
    pub log2_prob: f64,
    /// log2 backoff weight of this n-gram as a context (0.0 = none).
    pub log2_backoff: f64,
}

/// Everything needed to write a model file.
#[derive(Clone, Debug)]
pub struct ModelSpec {
    /// Token hash seed.
    pub seed: u64,
    /// log2 P(`<unk>`).
    pub unk_log2: f64,
    /// Credit / licence text.
    pub credit: String,
    /// Provenance text (training options).
    pub provenance: String,
    /// Entries per order, index 0 = unigrams. Keys must be distinct within an order.
    pub tables: Vec<Vec<Entry>>,
    /// Bytes of each stored fingerprint of the orders above 1: 2
    /// ([`DEFAULT_FINGERPRINT_BYTES`]) or 4. Unigrams keep 4: an unknown word matching a
    /// stored one by chance would change its score the most, and their table is small.
    pub fingerprint_bytes: u8,
}

/// Statistics from [`write_model`].
#[derive(Clone, Debug, Default)]
pub struct WriteStats {
    /// Entries written per order.
    pub entries: Vec<usize>,
    /// Entries dropped because their bucket + fingerprint collided with another's.
    pub fingerprint_collisions: Vec<usize>,
    /// Bytes per order's table (offsets + fingerprints + values).
    pub table_bytes: Vec<usize>,
    /// Mean absolute quantisation error of log2 probabilities per order.
    pub mean_quantisation_error: Vec<f64>,
}

/// Bucket bits for `entries` entries (mean bucket size ≈ [`TARGET_BUCKET_LEN`]).
fn bucket_bits_for(entries: usize) -> u32 {
    let mut bits = 0;
    while bits < MAX_BUCKET_BITS && (entries >> bits) > TARGET_BUCKET_LEN {
        bits += 1;
    }
    bits
}

/// Equal-population codebook of `LEVELS` means over `values` (sorted copy).
/// With `reserve_zero`, level 0 is exactly 0.0 and exact zeros map to it.
fn build_codebook(values: &[f64], reserve_zero: bool) -> [f32; LEVELS] {
    let mut sorted: Vec<f64> = values
        .iter()
        .copied()
        .filter(|v| !(reserve_zero && *v == 0.0))
        .collect();
    sorted.sort_by(f64::total_cmp);
    let first = usize::from(reserve_zero);
    let levels = LEVELS - first;
    let mut book = [0f32; LEVELS];
    if sorted.is_empty() {
        return book;
    }
    for level in 0..levels {
        let lo = sorted.len() * level / levels;
        let hi = (sorted.len() * (level + 1) / levels)
            .max(lo + 1)
            .min(sorted.len());
        let lo = lo.min(hi - 1);
        let mean = sorted[lo..hi].iter().sum::<f64>() / (hi - lo) as f64;
        book[first + level] = mean as f32;
    }
    // Keep the codebook sorted (ties are harmless) so nearest-level search works.
    book[first..].sort_by(f32::total_cmp);
    book
}

/// Index of the codebook level nearest to `value`.
fn quantise(book: &[f32; LEVELS], value: f64, reserve_zero: bool) -> u8 {
    if reserve_zero && value == 0.0 {
        return 0;
    }
    let first = usize::from(reserve_zero);
    let levels = &book[first..];
    let pos = levels.partition_point(|&v| (v as f64) < value);
    let best = if pos == 0 {
        0
    } else if pos >= levels.len() {
        levels.len() - 1
    } else if (levels[pos] as f64 - value).abs() < (value - levels[pos - 1] as f64).abs() {
        pos
    } else {
        pos - 1
    };
    (first + best) as u8
}

/// Serialises a model. Output depends only on `spec` (entries are sorted here).
pub fn write_model(spec: &ModelSpec) -> (Vec<u8>, WriteStats) {
    let order = spec.tables.len();
    assert!(
        (1..=MAX_ORDER).contains(&order),
        "model order must be 1..={MAX_ORDER}"
    );
    let mut stats = WriteStats::default();
    let mut header = Vec::new();
    let mut body = Vec::new();
    header.push(order as u8);
    header.extend_from_slice(&[0, 0, 0]);
    header.extend_from_slice(&(spec.unk_log2 as f32).to_le_bytes());
    header.extend_from_slice(&spec.seed.to_le_bytes());
    header.extend_from_slice(&(spec.credit.len() as u32).to_le_bytes());
    header.extend_from_slice(&(spec.provenance.len() as u32).to_le_bytes());
    header.extend_from_slice(spec.credit.as_bytes());
    header.extend_from_slice(spec.provenance.as_bytes());

    assert!(
        matches!(spec.fingerprint_bytes, 2 | 4),
        "fingerprints are 2 or 4 bytes"
    );
    for (n, entries) in spec.tables.iter().enumerate() {
        let fp_bytes = if n == 0 { 4 } else { spec.fingerprint_bytes };
        let fingerprint = |key: u64| {
            if fp_bytes == 2 {
                key as u16 as u32
            } else {
                key as u32
            }
        };
        let has_backoff = n + 1 < order;
        let bits = bucket_bits_for(entries.len());
        let slot = |key: u64| -> (u64, u32) {
            let bucket = if bits == 0 { 0 } else { key >> (64 - bits) };
            (bucket, fingerprint(key))
        };
        let mut sorted: Vec<Entry> = entries.clone();
        sorted.sort_by(|a, b| slot(a.key).cmp(&slot(b.key)).then(a.key.cmp(&b.key)));
        let before = sorted.len();
        sorted.dedup_by(|later, earlier| slot(later.key) == slot(earlier.key));
        stats.fingerprint_collisions.push(before - sorted.len());
        stats.entries.push(sorted.len());

        let probs: Vec<f64> = sorted.iter().map(|e| e.log2_prob).collect();
        let prob_book = build_codebook(&probs, false);
        let backoffs: Vec<f64> = sorted.iter().map(|e| e.log2_backoff).collect();
        let backoff_book = if has_backoff {
            build_codebook(&backoffs, true)
        } else {
            [0f32; LEVELS]
        };

        header.extend_from_slice(&(sorted.len() as u32).to_le_bytes());
        header.push(bits as u8);
        header.push(u8::from(has_backoff));
        header.extend_from_slice(&[fp_bytes, 0]);
        for v in prob_book {
            header.extend_from_slice(&v.to_le_bytes());
        }
        if has_backoff {
            for v in backoff_book {
                header.extend_from_slice(&v.to_le_bytes());
            }
        }

        let start = body.len();
        let buckets = 1usize << bits;
        let mut next = 0usize;
        for b in 0..=buckets as u64 {
            while next < sorted.len() && slot(sorted[next].key).0 < b {
                next += 1;
            }
            body.extend_from_slice(&(next as u32).to_le_bytes());
        }
        let mut error = 0.0;
        for e in &sorted {
            body.extend_from_slice(&fingerprint(e.key).to_le_bytes()[..usize::from(fp_bytes)]);
            let level = quantise(&prob_book, e.log2_prob, false);
            error += (prob_book[level as usize] as f64 - e.log2_prob).abs();
            body.push(level);
            if has_backoff {
                body.push(quantise(&backoff_book, e.log2_backoff, true));
            }
        }
        stats.mean_quantisation_error.push(if sorted.is_empty() {
            0.0
        } else {
            error / sorted.len() as f64
        });
        stats.table_bytes.push(body.len() - start);
    }

    let total = PREAMBLE_LEN + header.len() + body.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&(total as u64).to_le_bytes());
    out.extend_from_slice(&[0; 8]); // crc + reserved, filled below
    out.extend_from_slice(&header);
    out.extend_from_slice(&body);
    let crc = crc32fast::hash(&out[PREAMBLE_LEN..]);
    out[16..20].copy_from_slice(&crc.to_le_bytes());
    (out, stats)
}

/// `model` with the fingerprints of its orders above 1 cut to their low 16 bits (format
/// version 2; see [`ModelSpec::fingerprint_bytes`]): the same entries, codebooks and value
/// codes, records re-sorted within their bucket; of two entries that then share bucket and
/// fingerprint, the first in the old order is kept. This is
/// how the embedded model was made from its 32-bit version (`examples/narrow_model.rs`).
pub fn narrow_fingerprints(model: &[u8]) -> Result<Vec<u8>, ModelError> {
    let parsed = parse(model)?;
    let mut header = model[..parsed.tables[0].offsets_at].to_vec();
    header[4..6].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    let mut body = Vec::new();
    let mut descriptor = parsed.provenance.end;
    for (n, table) in parsed.tables.iter().enumerate() {
        let width = if n == 0 { table.fp_bytes } else { 2 };
        let buckets = 1usize << table.bucket_bits;
        let mut offsets = vec![0u32];
        let mut records = Vec::new();
        for b in 0..buckets {
            let lo = read_u32(model, table.offsets_at + 4 * b).unwrap_or(0) as usize;
            let hi = read_u32(model, table.offsets_at + 4 * b + 4).unwrap_or(0) as usize;
            let mut bucket: Vec<(&[u8], &[u8])> = (lo..hi)
                .map(|i| {
                    let at = table.records_at + table.record_len * i;
                    (
                        &model[at..at + width],
                        &model[at + table.fp_bytes..at + table.record_len],
                    )
                })
                .collect();
            // Little-endian: compare as numbers. Stable: the first of equal ones stays first.
            bucket.sort_by(|a, b| a.0.iter().rev().cmp(b.0.iter().rev()));
            bucket.dedup_by(|later, earlier| later.0 == earlier.0);
            for (fp, values) in &bucket {
                records.extend_from_slice(fp);
                records.extend_from_slice(values);
            }
            offsets.push(offsets.last().copied().unwrap_or(0) + bucket.len() as u32);
        }
        let entries = *offsets.last().unwrap_or(&0);
        header[descriptor..descriptor + 4].copy_from_slice(&entries.to_le_bytes());
        header[descriptor + 6] = width as u8;
        descriptor += 8 + 4 * LEVELS * (1 + usize::from(table.has_backoff));
        for offset in offsets {
            body.extend_from_slice(&offset.to_le_bytes());
        }
        body.extend_from_slice(&records);
    }
    let mut out = header;
    out.extend_from_slice(&body);
    let total = out.len() as u64;
    out[8..16].copy_from_slice(&total.to_le_bytes());
    let crc = crc32fast::hash(&out[PREAMBLE_LEN..]);
    out[16..20].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// Human-readable one-paragraph summary of a model (sizes per order, credit).
pub fn describe(model: &LanguageModel) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "order {} model, {} bytes; entries per order:",
        model.order(),
        model.size_bytes()
    );
    for (n, c) in model.counts().iter().enumerate() {
        let _ = write!(s, " {}-grams {}", n + 1, c);
    }
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pair_scoring_equals_two_calls_whatever_the_seeds() {
        use crate::lm::train::{train_sentences, TrainOptions};
        let text =
            "Home | About us | Contact. The committee approved the new budget for the school year.";
        let small = |seed| {
            let opts = TrainOptions {
                min_count: 1,
                seed,
                ..TrainOptions::default()
            };
            let trained =
                train_sentences(["home about us", "the budget was approved"], "test", &opts)
                    .unwrap();
            LanguageModel::from_bytes(trained.bytes).unwrap()
        };
        let general = embedded();
        for other in [small(general.hasher().seed()), small(7)] {
            let pair = general.log2_prob_pair(&other, text);
            assert_eq!(pair, [general.log2_prob(text), other.log2_prob(text)]);
        }
    }

    /// A tiny hand-made bigram model over "a b </s>".
    pub(crate) fn tiny_model_bytes() -> Vec<u8> {
        let h = TokenHasher::standard();
        let (a, b, bos, eos) = (h.hash_str("a"), h.hash_str("b"), h.bos, h.eos);
        let uni = vec![
            Entry {
                key: bos,
                log2_prob: -99.0,
                log2_backoff: -1.0,
            },
            Entry {
                key: a,
                log2_prob: -1.5,
                log2_backoff: -0.5,
            },
            Entry {
                key: b,
                log2_prob: -2.0,
                log2_backoff: 0.0,
            },
            Entry {
                key: eos,
                log2_prob: -2.5,
                log2_backoff: 0.0,
            },
        ];
        let bi = vec![
            Entry {
                key: h.combine(bos, a),
                log2_prob: -0.25,
                log2_backoff: 0.0,
            },
            Entry {
                key: h.combine(a, b),
                log2_prob: -0.5,
                log2_backoff: 0.0,
            },
            Entry {
                key: h.combine(b, eos),
                log2_prob: -0.75,
                log2_backoff: 0.0,
            },
        ];
        let spec = ModelSpec {
            seed: h.seed(),
            unk_log2: -20.0,
            credit: "test credit".into(),
            provenance: "hand-made".into(),
            tables: vec![uni, bi],
            fingerprint_bytes: DEFAULT_FINGERPRINT_BYTES,
        };
        write_model(&spec).0
    }

    #[test]
    fn tiny_model_round_trip_and_scoring() {
        let model = LanguageModel::from_bytes(tiny_model_bytes()).expect("valid");
        assert_eq!(model.order(), 2);
        assert_eq!(model.counts(), vec![4, 3]);
        assert_eq!(model.credit(), "test credit");
        assert_eq!(model.provenance(), "hand-made");
        // <s> a b </s>: all bigrams stored.
        let (sum, n) = model.log2_prob("A b");
        assert_eq!(n, 3);
        assert!((sum - (-0.25 - 0.5 - 0.75)).abs() < 1e-6, "{sum}");
        // <s> b: backoff(<s>) + P(b); b a: backoff(b)=0 + P(a); a </s>: backoff(a) + P(</s>).
        let (sum, _) = model.log2_prob("b a");
        assert!(
            (sum - (-1.0 - 2.0 + -1.5 + -0.5 - 2.5)).abs() < 1e-6,
            "{sum}"
        );
        // Unknown word: backoff(<s>) + unk, then </s> after an unknown context = P(</s>).
        let (sum, _) = model.log2_prob("zzz");
        assert!((sum - (-1.0 - 20.0 - 2.5)).abs() < 1e-5, "{sum}");
        let ppl = model.perplexity("a b");
        assert!((ppl - 2f64.powf(1.5 / 3.0)).abs() < 1e-6);
        // Empty sentence: just </s> after <s>.
        assert_eq!(model.log2_prob("").1, 1);
        let mut seen = Vec::new();
        model.for_each_token_log2_prob("a b", |t, p| seen.push((t.text, p)));
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[2].0, "</s>");
    }

    #[test]
    fn model_is_shareable_between_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<LanguageModel>();
    }

    #[test]
    fn chunked_scoring_matches_token_by_token() {
        let model = embedded();
        let long = "the cat sat on the mat , and then it slept . ".repeat(20);
        for sentence in [
            "",
            "Hello",
            "The committee approved the new budget.",
            long.as_str(),
        ] {
            let (sum, n) = model.log2_prob(sentence);
            let mut by_token = 0.0;
            let mut count = 0;
            model.for_each_token_log2_prob(sentence, |_, p| {
                by_token += p;
                count += 1;
            });
            assert_eq!(n, count);
            assert!(
                (sum - by_token).abs() < 1e-9,
                "{sentence:?}: {sum} vs {by_token}"
            );
        }
    }

    #[test]
    fn truncated_file_is_truncated_error() {
        let bytes = tiny_model_bytes();
        let cut = bytes[..bytes.len() - 1].to_vec();
        assert!(matches!(
            LanguageModel::from_bytes(cut),
            Err(ModelError::Truncated { .. })
        ));
        assert!(matches!(
            LanguageModel::from_bytes(bytes[..10].to_vec()),
            Err(ModelError::TooShort { .. })
        ));
    }

    #[test]
    fn flipped_body_byte_is_checksum_error() {
        let mut bytes = tiny_model_bytes();
        let last = bytes.len() - 2;
        bytes[last] ^= 0x40;
        assert!(matches!(
            LanguageModel::from_bytes(bytes),
            Err(ModelError::Checksum { .. })
        ));
    }

    #[test]
    fn bad_magic_and_version() {
        let mut bytes = tiny_model_bytes();
        bytes[0] = b'X';
        assert!(matches!(
            LanguageModel::from_bytes(bytes),
            Err(ModelError::BadMagic)
        ));
        let mut bytes = tiny_model_bytes();
        bytes[4] = 9;
        let err = LanguageModel::from_bytes(bytes).unwrap_err();
        assert!(matches!(
            err,
            ModelError::UnsupportedVersion { found: 9, .. }
        ));
        assert!(!err.to_string().contains('\n'));
    }

    /// Rewrites the checksum so structural checks behind it can be exercised.
    fn reseal(bytes: &mut [u8]) {
        let crc = crc32fast::hash(&bytes[PREAMBLE_LEN..]);
        bytes[16..20].copy_from_slice(&crc.to_le_bytes());
    }

    #[test]
    fn corrupt_sizes_are_reported() {
        let mut bytes = tiny_model_bytes();
        bytes[24] = 7; // order
        reseal(&mut bytes);
        assert!(matches!(
            LanguageModel::from_bytes(bytes),
            Err(ModelError::Corrupt(_))
        ));
        let mut bytes = tiny_model_bytes();
        bytes[40] = 0xff; // credit length
        reseal(&mut bytes);
        assert!(matches!(
            LanguageModel::from_bytes(bytes),
            Err(ModelError::Corrupt(_))
        ));
    }

    #[test]
    fn quantisation_codebook() {
        let values: Vec<f64> = (0..10_000).map(|i| -(i as f64) / 100.0).collect();
        let book = build_codebook(&values, false);
        let err: f64 = values
            .iter()
            .map(|&v| (book[quantise(&book, v, false) as usize] as f64 - v).abs())
            .sum::<f64>()
            / values.len() as f64;
        assert!(err < 0.2, "{err}");
        let book = build_codebook(&[0.0, -1.0, -2.0], true);
        assert_eq!(book[0], 0.0);
        assert_eq!(quantise(&book, 0.0, true), 0);
        assert!((book[quantise(&book, -2.0, true) as usize] + 2.0).abs() < 1e-6);
    }

    #[test]
    fn embedded_model_loads() {
        let model = embedded();
        assert!(model.order() >= 1);
        assert!(!model.is_empty());
        assert!(model.credit().contains("Wikipedia"));
        assert!(model
            .perplexity("The committee approved the new budget.")
            .is_finite());
    }

    #[test]
    fn an_opened_model_is_unaffected_by_later_changes_to_its_file() {
        // A memory-mapped file cut short while in use killed the process with SIGBUS.
        let dir =
            std::env::temp_dir().join(format!("ppl-filter-model-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tiny.bin");
        let bytes = tiny_model_bytes();
        std::fs::write(&path, &bytes).unwrap();
        let model = LanguageModel::open(&path).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(30)
            .unwrap();
        let expected = LanguageModel::from_bytes(bytes.clone()).unwrap();
        assert_eq!(model.log2_prob("a b zzz"), expected.log2_prob("a b zzz"));
        assert_eq!(model.credit(), "test credit");
        assert!(matches!(
            LanguageModel::open(&path),
            Err(ModelError::Truncated { actual: 30, .. })
        ));
        std::fs::write(&path, [&bytes[..], b"more"].concat()).unwrap();
        let err = LanguageModel::open(&path).unwrap_err().to_string();
        assert_eq!(
            err,
            "corrupt model: 4 bytes after the recorded end of the model"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reading_a_stream_is_bounded_by_its_bytes_not_its_recorded_length() {
        let bytes = tiny_model_bytes();
        // A stream of unknown length: as from a regular file.
        let read = read_model(&mut &bytes[..], None).unwrap();
        assert_eq!(read, bytes);
        // Recorded length u64::MAX: the stream's bytes are read, nothing is reserved for the rest.
        let mut huge = bytes.clone();
        huge[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        let read = read_model(&mut &huge[..], None).unwrap();
        assert_eq!(read.len(), huge.len());
        assert!(matches!(
            LanguageModel::from_bytes(read),
            Err(ModelError::Truncated {
                expected: u64::MAX,
                ..
            })
        ));
        // A size known to differ from the record: refused before reading on.
        assert!(matches!(
            read_model(&mut &huge[..], Some(huge.len() as u64)),
            Err(ModelError::Truncated { .. })
        ));
        // A stream that goes on past the record.
        let mut longer = &[&bytes[..], b"x"].concat()[..];
        assert!(matches!(
            read_model(&mut longer, None),
            Err(ModelError::Corrupt(_))
        ));
        // An endless stream without the magic bytes.
        assert!(matches!(
            read_model(&mut std::io::repeat(0), None),
            Err(ModelError::BadMagic)
        ));
        #[cfg(unix)]
        if Path::new("/dev/zero").exists() {
            assert!(matches!(
                LanguageModel::open(Path::new("/dev/zero")),
                Err(ModelError::BadMagic)
            ));
        }
        // Short streams get the same verdict as short byte slices.
        for cut in [0, 3, 4, 23] {
            let read = read_model(&mut &bytes[..cut], None).unwrap();
            assert_eq!(
                LanguageModel::from_bytes(read).unwrap_err().to_string(),
                LanguageModel::from_bytes(bytes[..cut].to_vec())
                    .unwrap_err()
                    .to_string()
            );
        }
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = LanguageModel::from_bytes(bytes);
        }

        #[test]
        fn random_magic_prefixed_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..2000)) {
            let mut bytes = b"PPLM\x01\x00".to_vec();
            bytes.extend_from_slice(&tail);
            if bytes.len() >= 16 {
                let len = bytes.len() as u64;
                bytes[8..16].copy_from_slice(&len.to_le_bytes());
            }
            if bytes.len() >= PREAMBLE_LEN {
                reseal(&mut bytes);
            }
            if let Ok(model) = LanguageModel::from_bytes(bytes) {
                let _ = model.perplexity("a b c");
            }
        }

        #[test]
        fn truncations_and_mutations_never_panic(cut in 0usize..4000, flip in 0usize..4000, value in any::<u8>(), resealed in any::<bool>()) {
            let full = tiny_model_bytes();
            let mut bytes = full.clone();
            if flip < bytes.len() {
                bytes[flip] = value;
            }
            if resealed {
                reseal(&mut bytes);
            }
            let cut = cut.min(bytes.len());
            let truncated = bytes[..cut].to_vec();
            let result = LanguageModel::from_bytes(truncated);
            if cut < full.len() && cut >= PREAMBLE_LEN && flip >= 24 {
                prop_assert!(result.is_err());
            }
            if let Ok(model) = LanguageModel::from_bytes(bytes) {
                let _ = model.perplexity("a b zzz");
            }
        }
    }
}
