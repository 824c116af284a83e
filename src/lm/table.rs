//! One order's table inside the model bytes: where it lies, and finding an entry in it
//! (the layout is documented in [`super::format`]). Lookups read the bytes in place.

use crate::lm::bytes::{bucket_of, fingerprint, read_u32, LEVELS};

/// Location and quantisation of one order's table inside the model bytes.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    /// Number of entries (records).
    pub(crate) entries: usize,
    /// B: a key's bucket is its top B bits; there are 2^B buckets.
    pub(crate) bucket_bits: u32,
    /// Where the 2^B + 1 bucket offsets start.
    pub(crate) offsets_at: usize,
    /// Where the records start.
    pub(crate) records_at: usize,
    /// Bytes per record: fingerprint, probability code, backoff code if any.
    pub(crate) record_len: usize,
    /// Bytes of a fingerprint: 2 or 4.
    pub(crate) fp_bytes: usize,
    /// Whether records hold a backoff code (every order but the highest).
    pub(crate) has_backoff: bool,
    /// log2 probability of each probability code.
    pub(crate) prob_codebook: [f32; LEVELS],
    /// log2 backoff weight of each backoff code (all 0.0 without backoff).
    pub(crate) backoff_codebook: [f32; LEVELS],
}

impl Table {
    /// Index of the entry with `key`, if stored.
    ///
    /// Fingerprints are uniform and sorted within a bucket, so the entry's
    /// position is first estimated by interpolation, then found by a short
    /// linear scan (a few records, usually one cache line).
    #[inline]
    pub(crate) fn find(&self, bytes: &[u8], key: u64) -> Option<usize> {
        let (lo, hi) = self.bucket_bounds(bytes, key)?;
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
    pub(crate) fn prefetch(&self, bytes: &[u8], key: u64) {
        let Some((lo, hi)) = self.bucket_bounds(bytes, key) else {
            return;
        };
        let spread = hi.saturating_sub(lo) as u64 * self.fingerprint(key) as u64;
        let guess = lo + (spread >> (8 * self.fp_bytes)) as usize;
        prefetch_line(bytes, self.records_at + self.record_len * guess);
    }

    /// Asks the CPU to start loading the bucket offsets `prefetch(key)` and `find(key)` read.
    #[inline]
    pub(crate) fn prefetch_offsets(&self, bytes: &[u8], key: u64) {
        prefetch_line(bytes, self.offset_at(key));
    }

    /// Where the offset of the bucket of `key` lies in the bytes.
    #[inline]
    fn offset_at(&self, key: u64) -> usize {
        self.offsets_at + 4 * bucket_of(key, self.bucket_bits)
    }

    /// The entries `[lo, hi)` of the bucket of `key`, as its offsets say (unchecked).
    #[inline]
    fn bucket_bounds(&self, bytes: &[u8], key: u64) -> Option<(usize, usize)> {
        let at = self.offset_at(key);
        let lo = read_u32(bytes, at)? as usize;
        let hi = read_u32(bytes, at + 4)? as usize;
        Some((lo, hi))
    }

    /// The fingerprint of `key` at this table's width.
    #[inline]
    fn fingerprint(&self, key: u64) -> u32 {
        fingerprint(key, self.fp_bytes)
    }

    /// log2 probability of an entry.
    #[inline]
    pub(crate) fn prob(&self, bytes: &[u8], index: usize) -> f64 {
        let level = bytes
            .get(self.records_at + self.record_len * index + self.fp_bytes)
            .copied()
            .unwrap_or(0);
        self.prob_codebook[level as usize] as f64
    }

    /// log2 backoff of an entry (0.0 for the highest order, which has none).
    #[inline]
    pub(crate) fn backoff(&self, bytes: &[u8], index: usize) -> f64 {
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
#[allow(unsafe_code)] // The one prefetch the crate's lints allow (Cargo.toml).
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
