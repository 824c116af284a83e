//! The binary model file: its layout (below), the checks a file must pass before it is used,
//! and reading one from a file or stream. Finding an entry in a table is `super::table`,
//! scoring is [`super::model`], writing is [`super::write`].
//!
//! # File format (version 2, all integers and floats little-endian)
//!
//! A model is a backoff n-gram model whose n-grams are identified only by a
//! 64-bit hash key (no words are stored). Token hashes come from
//! [`crate::lm::tokenize`] with the file's seed; the key of an n-gram
//! `w1 … wk` is `k1 = hash(w1)`, `kj = combine(k(j-1), hash(wj))` where
//! `combine(a, b) = fmix64(a · 0x9E3779B97F4A7C15 ⊕ b)` (wrapping multiply,
//! MurmurHash3's finaliser; see [`crate::lm::tokenize::TokenHasher::combine`]).
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
//! this reader interpolates, then searches the entries around that guess).
//! Keys are thus matched on B + 8·F bits; the writer picks B so buckets hold
//! about 64 entries, so a lookup of an absent n-gram matches a wrong entry when
//! one in its bucket has the same fingerprint: ≈ E / 2^(B + 8·F). The writer
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

use std::io::Read;

use crate::lm::bytes::read_f32;
pub use crate::lm::bytes::LEVELS;
pub(crate) use crate::lm::bytes::{
    bucket_of, fingerprint, offsets_len, read_u16, read_u32, read_u64,
};
use crate::lm::table::Table;

/// File magic.
pub const MAGIC: &[u8; 4] = b"PPLM";
/// Format version this build writes; it reads this one and version 1 (32-bit fingerprints).
pub const FORMAT_VERSION: u16 = 2;
/// Fingerprint bytes a trained model gets by default (see the format doc).
pub const DEFAULT_FINGERPRINT_BYTES: u8 = 2;
/// Highest n-gram order the format (and scorer) supports.
pub const MAX_ORDER: usize = 4;
/// Size of the unchecksummed preamble.
pub(crate) const PREAMBLE_LEN: usize = 24;
/// Size of the fixed part of the header after the preamble.
const FIXED_HEADER_LEN: usize = 24;
/// Largest bucket-bits value accepted (keeps offsets arrays ≤ 64 MiB).
pub(crate) const MAX_BUCKET_BITS: u32 = 24;

/// Why a model could not be loaded. Messages are one line; callers prefix the path.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Reading the file failed.
    #[error("cannot read model: {0}")]
    Io(#[from] std::io::Error),
    /// Fewer bytes than the fixed preamble.
    #[error("not a model file: {len} bytes is shorter than the {min}-byte preamble")]
    TooShort {
        /// Bytes present.
        len: usize,
        /// Bytes of the preamble.
        min: usize,
    },
    /// Fewer bytes than the length recorded in the preamble.
    #[error("model file is truncated: {actual} of {expected} bytes present")]
    Truncated {
        /// The length recorded in the preamble.
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// The magic bytes are not `PPLM`.
    #[error("not a ppl-filter language model (bad magic bytes)")]
    BadMagic,
    /// A format version this build cannot read.
    #[error("unsupported model format version {found} (this build reads version {supported})")]
    UnsupportedVersion {
        /// The version in the file.
        found: u16,
        /// The newest version this build reads.
        supported: u16,
    },
    /// The body checksum does not match.
    #[error("model checksum mismatch (stored {stored:08x}, computed {computed:08x}): the file is corrupt")]
    Checksum {
        /// The checksum recorded in the preamble.
        stored: u32,
        /// The checksum of the bytes present.
        computed: u32,
    },
    /// The file holds more bytes than the length recorded in its preamble.
    #[error("corrupt model: {extra} bytes after the recorded end of the model")]
    TrailingBytes {
        /// Bytes beyond the recorded length.
        extra: u64,
    },
    /// A stream of unknown length goes on past the length recorded in its preamble.
    #[error("corrupt model: more bytes follow the recorded end of the model")]
    StreamGoesOn,
    /// The recorded length leaves no room for the fixed header.
    #[error("corrupt model: recorded length is shorter than the header")]
    LengthShorterThanHeader,
    /// The header (texts, table descriptors, codebooks) runs past the end of the file.
    #[error("corrupt model: header runs past the end of the file")]
    HeaderPastEnd,
    /// The n-gram order is 0 or above [`MAX_ORDER`].
    #[error("corrupt model: order {order} is outside 1..={}", MAX_ORDER)]
    BadOrder {
        /// The order in the header.
        order: usize,
    },
    /// log2 P(`<unk>`) is NaN, infinite or positive.
    #[error("corrupt model: log2 P(<unk>) is not a finite value ≤ 0")]
    BadUnknownLog2Prob {
        /// The value in the header.
        value: f32,
    },
    /// The credit or the provenance text is not UTF-8.
    #[error("corrupt model: credit or provenance text is not UTF-8")]
    TextNotUtf8(#[source] std::str::Utf8Error),
    /// A table's fingerprint width is not one its format version allows.
    #[error("corrupt model: order-{order} table has {width}-byte fingerprints (2 or 4 in version 2, 4 in version 1)")]
    BadFingerprintWidth {
        /// The table's n-gram order.
        order: usize,
        /// The width in its descriptor.
        width: u8,
    },
    /// A table has more bucket bits than `MAX_BUCKET_BITS`.
    #[error(
        "corrupt model: order-{order} table has {bits} bucket bits (max {})",
        MAX_BUCKET_BITS
    )]
    TooManyBucketBits {
        /// The table's n-gram order.
        order: usize,
        /// The bucket bits in its descriptor.
        bits: u32,
    },
    /// A table's backoff flag is not 1 for the orders below N and 0 for order N.
    #[error("corrupt model: order-{order} table backoff flag is {flag}")]
    BadBackoffFlag {
        /// The table's n-gram order.
        order: usize,
        /// The flag in its descriptor.
        flag: u8,
    },
    /// A codebook holds NaN or an infinity.
    #[error("corrupt model: order-{order} codebook holds a non-finite value")]
    NonFiniteCodebook {
        /// The table's n-gram order.
        order: usize,
    },
    /// A table's offsets and records run past the end of the file.
    #[error("corrupt model: order-{order} table runs past the end of the file")]
    TablePastEnd {
        /// The table's n-gram order.
        order: usize,
    },
    /// A table's first bucket offset is not 0.
    #[error("corrupt model: order-{order} bucket offsets do not start at 0")]
    OffsetsDoNotStartAtZero {
        /// The table's n-gram order.
        order: usize,
    },
    /// A table's bucket offsets decrease somewhere.
    #[error("corrupt model: order-{order} bucket offsets decrease")]
    OffsetsDecrease {
        /// The table's n-gram order.
        order: usize,
    },
    /// A table's last bucket offset is not its entry count.
    #[error("corrupt model: order-{order} bucket offsets end at {end}, not at {entries} entries")]
    OffsetsEndElsewhere {
        /// The table's n-gram order.
        order: usize,
        /// The last offset.
        end: u32,
        /// The entry count in the table's descriptor.
        entries: usize,
    },
    /// Bytes are left between the end of the last table and the end of the file.
    #[error("corrupt model: {extra} unaccounted bytes after the last table")]
    UnaccountedBytes {
        /// The bytes left.
        extra: usize,
    },
}

/// What validating a model's bytes found: everything a loaded model needs but the bytes.
#[derive(Debug)]
pub(crate) struct Layout {
    /// The n-gram order N.
    pub(crate) order: usize,
    /// The token hash seed.
    pub(crate) seed: u64,
    /// log2 P(`<unk>`).
    pub(crate) unk_log2: f64,
    /// Where the credit text lies.
    pub(crate) credit: std::ops::Range<usize>,
    /// Where the provenance text lies.
    pub(crate) provenance: std::ops::Range<usize>,
    /// The tables of orders 1..=N.
    pub(crate) tables: Vec<Table>,
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
        return Err(ModelError::TrailingBytes {
            extra: actual - total,
        });
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
        return Err(ModelError::StreamGoesOn);
    }
    Ok(bytes)
}

/// Checks the preamble, the recorded length (against the bytes present and the fixed header)
/// and the checksum; returns the format version.
fn check_preamble(bytes: &[u8]) -> Result<u16, ModelError> {
    let total = parse_preamble(bytes)?;
    let version = read_u16(bytes, 4).unwrap_or(0);
    check_length(total, bytes.len() as u64)?;
    if total < (PREAMBLE_LEN + FIXED_HEADER_LEN) as u64 {
        return Err(ModelError::LengthShorterThanHeader);
    }
    let stored = read_u32(bytes, 16).unwrap_or(0);
    let computed = crc32fast::hash(&bytes[PREAMBLE_LEN..]);
    if stored != computed {
        return Err(ModelError::Checksum { stored, computed });
    }
    Ok(version)
}

/// The fixed part of the header and where the texts after it lie.
struct Header {
    order: usize,
    seed: u64,
    unk_log2: f32,
    credit: std::ops::Range<usize>,
    provenance: std::ops::Range<usize>,
}

/// Reads and checks the fixed header and the texts after it, in bytes whose preamble
/// [`check_preamble`] accepted.
fn parse_header(bytes: &[u8]) -> Result<Header, ModelError> {
    let short = || ModelError::HeaderPastEnd;
    let order = bytes[24] as usize;
    if order == 0 || order > MAX_ORDER {
        return Err(ModelError::BadOrder { order });
    }
    let unk_log2 = read_f32(bytes, 28).ok_or_else(short)?;
    if !unk_log2.is_finite() || unk_log2 > 0.0 {
        return Err(ModelError::BadUnknownLog2Prob { value: unk_log2 });
    }
    let seed = read_u64(bytes, 32).ok_or_else(short)?;
    let credit_len = read_u32(bytes, 40).ok_or_else(short)? as usize;
    let provenance_len = read_u32(bytes, 44).ok_or_else(short)? as usize;
    let at = PREAMBLE_LEN + FIXED_HEADER_LEN;
    let credit = at..at.checked_add(credit_len).ok_or_else(short)?;
    let provenance = credit.end..credit.end.checked_add(provenance_len).ok_or_else(short)?;
    if provenance.end > bytes.len() {
        return Err(short());
    }
    std::str::from_utf8(&bytes[credit.clone()]).map_err(ModelError::TextNotUtf8)?;
    std::str::from_utf8(&bytes[provenance.clone()]).map_err(ModelError::TextNotUtf8)?;
    Ok(Header {
        order,
        seed,
        unk_log2,
        credit,
        provenance,
    })
}

/// A table's descriptor and codebooks, as read from the header.
struct Descriptor {
    entries: usize,
    bucket_bits: u32,
    has_backoff: bool,
    fp_bytes: usize,
    prob_codebook: [f32; LEVELS],
    backoff_codebook: [f32; LEVELS],
}

/// Reads and checks the descriptor and codebooks of the order-`n` table (of `order`, in a file
/// of format `version`) at `*at`, and moves `*at` past them.
fn parse_descriptor(
    bytes: &[u8],
    at: &mut usize,
    n: usize,
    order: usize,
    version: u16,
) -> Result<Descriptor, ModelError> {
    let short = || ModelError::HeaderPastEnd;
    let entries = read_u32(bytes, *at).ok_or_else(short)? as usize;
    let bucket_bits = *bytes.get(*at + 4).ok_or_else(short)? as u32;
    let has_backoff = *bytes.get(*at + 5).ok_or_else(short)?;
    // Version 1 has no width byte (0, reserved): its fingerprints are 4 bytes.
    let fp_bytes = match (version, *bytes.get(*at + 6).ok_or_else(short)?) {
        (1, 0) => 4,
        (2, width @ (2 | 4)) => width as usize,
        (_, width) => return Err(ModelError::BadFingerprintWidth { order: n, width }),
    };
    *at += 8;
    if bucket_bits > MAX_BUCKET_BITS {
        return Err(ModelError::TooManyBucketBits {
            order: n,
            bits: bucket_bits,
        });
    }
    if has_backoff != u8::from(n < order) {
        return Err(ModelError::BadBackoffFlag {
            order: n,
            flag: has_backoff,
        });
    }
    let prob_codebook = read_codebook(bytes, at)?;
    let backoff_codebook = if has_backoff == 1 {
        read_codebook(bytes, at)?
    } else {
        [0f32; LEVELS]
    };
    if prob_codebook
        .iter()
        .chain(&backoff_codebook)
        .any(|v| !v.is_finite())
    {
        return Err(ModelError::NonFiniteCodebook { order: n });
    }
    Ok(Descriptor {
        entries,
        bucket_bits,
        has_backoff: has_backoff == 1,
        fp_bytes,
        prob_codebook,
        backoff_codebook,
    })
}

/// Reads the codebook at `*at` and moves `*at` past it.
fn read_codebook(bytes: &[u8], at: &mut usize) -> Result<[f32; LEVELS], ModelError> {
    let mut codebook = [0f32; LEVELS];
    for (i, v) in codebook.iter_mut().enumerate() {
        *v = read_f32(bytes, *at + 4 * i).ok_or(ModelError::HeaderPastEnd)?;
    }
    *at += 4 * LEVELS;
    Ok(codebook)
}

/// The order-`n` table that `descriptor` lays out from `*at` (its bucket offsets, then its
/// records), checked to lie inside `bytes` with monotonic offsets; moves `*at` past it.
fn parse_table(
    bytes: &[u8],
    at: &mut usize,
    n: usize,
    descriptor: Descriptor,
) -> Result<Table, ModelError> {
    let Descriptor {
        entries,
        bucket_bits,
        has_backoff,
        fp_bytes,
        prob_codebook,
        backoff_codebook,
    } = descriptor;
    let short = || ModelError::HeaderPastEnd;
    let offsets_at = *at;
    let records_at = offsets_at + offsets_len(bucket_bits);
    let record_len = fp_bytes + 1 + usize::from(has_backoff);
    let end = records_at
        .checked_add(entries.checked_mul(record_len).ok_or_else(short)?)
        .ok_or_else(short)?;
    if end > bytes.len() {
        return Err(ModelError::TablePastEnd { order: n });
    }
    check_offsets(bytes, offsets_at, 1usize << bucket_bits, entries, n)?;
    *at = end;
    Ok(Table {
        entries,
        bucket_bits,
        offsets_at,
        records_at,
        record_len,
        fp_bytes,
        has_backoff,
        prob_codebook,
        backoff_codebook,
    })
}

/// Checks that the order-`n` table's `buckets` + 1 offsets at `offsets_at` start at 0, never
/// decrease, and end at its number of `entries`.
fn check_offsets(
    bytes: &[u8],
    offsets_at: usize,
    buckets: usize,
    entries: usize,
    n: usize,
) -> Result<(), ModelError> {
    let mut prev = 0u32;
    if read_u32(bytes, offsets_at) != Some(0) {
        return Err(ModelError::OffsetsDoNotStartAtZero { order: n });
    }
    for chunk in bytes[offsets_at..offsets_at + 4 * (buckets + 1)].chunks_exact(4) {
        let v = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        if v < prev {
            return Err(ModelError::OffsetsDecrease { order: n });
        }
        prev = v;
    }
    if prev as usize != entries {
        return Err(ModelError::OffsetsEndElsewhere {
            order: n,
            end: prev,
            entries,
        });
    }
    Ok(())
}

/// Validates a model's bytes (everything the format doc says, and that the bucket offsets of
/// each table are monotonic) and finds where everything lies in them.
pub(crate) fn parse(bytes: &[u8]) -> Result<Layout, ModelError> {
    let version = check_preamble(bytes)?;
    let header = parse_header(bytes)?;
    let order = header.order;
    let mut at = header.provenance.end;
    let mut descriptors = Vec::with_capacity(order);
    for n in 1..=order {
        descriptors.push(parse_descriptor(bytes, &mut at, n, order, version)?);
    }
    // Body: compute each table's arrays and check they exactly fill the file.
    let mut tables = Vec::with_capacity(order);
    for (i, descriptor) in descriptors.into_iter().enumerate() {
        tables.push(parse_table(bytes, &mut at, i + 1, descriptor)?);
    }
    if at != bytes.len() {
        return Err(ModelError::UnaccountedBytes {
            extra: bytes.len() - at,
        });
    }
    Ok(Layout {
        order,
        seed: header.seed,
        unk_log2: header.unk_log2 as f64,
        credit: header.credit,
        provenance: header.provenance,
        tables,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lm::model::LanguageModel;
    use crate::lm::write::tests::tiny_model_bytes;
    use proptest::prelude::*;
    use std::path::Path;

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
        let err = LanguageModel::from_bytes(bytes).unwrap_err();
        assert!(matches!(err, ModelError::BadOrder { order: 7 }));
        assert_eq!(err.to_string(), "corrupt model: order 7 is outside 1..=4");
        let mut bytes = tiny_model_bytes();
        bytes[40] = 0xff; // credit length
        reseal(&mut bytes);
        let err = LanguageModel::from_bytes(bytes).unwrap_err();
        // The credit now runs over the table descriptors' bytes.
        assert!(matches!(err, ModelError::TextNotUtf8(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            "corrupt model: credit or provenance text is not UTF-8"
        );
        let mut bytes = tiny_model_bytes();
        bytes[43] = 0xff; // credit length
        reseal(&mut bytes);
        let err = LanguageModel::from_bytes(bytes).unwrap_err();
        assert!(matches!(err, ModelError::HeaderPastEnd), "{err:?}");
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
            Err(ModelError::StreamGoesOn)
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
