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

/// Where one key's entry may lie in a table: entries `[lo, hi)` (its bucket), as the table's
/// offsets say. Read once a key and kept, so finding the entry does not read the offsets again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Bucket {
    lo: u32,
    hi: u32,
}

/// Entries of a bucket searched around the interpolated position before the whole bucket is.
const WINDOW: usize = 16;

impl Table {
    /// The bucket of `key` (empty if the offsets cannot be read, which validation rules out).
    #[inline]
    pub(crate) fn bucket(&self, bytes: &[u8], key: u64) -> Bucket {
        let at = self.offset_at(key);
        match (read_u32(bytes, at), read_u32(bytes, at + 4)) {
            (Some(lo), Some(hi)) if lo <= hi => Bucket { lo, hi },
            _ => Bucket::default(),
        }
    }

    /// Index of the entry with `key` in its `bucket` ([`Self::bucket`]), if stored.
    ///
    /// Fingerprints are uniform and sorted within a bucket (and distinct: the writer drops
    /// the rest), so the entry's position is first estimated by interpolation; a binary search
    /// without branches over the [`WINDOW`] entries around it finds the entry, and only when
    /// the window's ends show the key would lie outside it is the whole bucket searched.
    #[inline(always)]
    pub(crate) fn find_in(&self, bytes: &[u8], key: u64, bucket: Bucket) -> Option<usize> {
        match (self.fp_bytes, self.record_len) {
            (2, 3) => self.search::<2, 3>(bytes, key, bucket),
            (2, 4) => self.search::<2, 4>(bytes, key, bucket),
            (4, 5) => self.search::<4, 5>(bytes, key, bucket),
            (4, 6) => self.search::<4, 6>(bytes, key, bucket),
            _ => None, // no other record layout passes validation
        }
    }

    /// [`Self::find_in`] for `FP`-byte fingerprints in `REC`-byte records.
    #[inline(always)]
    fn search<const FP: usize, const REC: usize>(
        &self,
        bytes: &[u8],
        key: u64,
        bucket: Bucket,
    ) -> Option<usize> {
        let (lo, hi) = (bucket.lo as usize, bucket.hi as usize);
        let records = bytes.get(self.records_at + REC * lo..self.records_at + REC * hi)?;
        let len = hi - lo;
        let fp = fingerprint(key, FP);
        let fp_at = |i: usize| -> u32 {
            // One bounds check: the slice's length is known.
            let stored = &records[REC * i..REC * i + FP];
            if FP == 2 {
                u32::from(u16::from_le_bytes([stored[0], stored[1]]))
            } else {
                u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]])
            }
        };
        // The last entry at or below `fp` among `size` entries from `base` (or `base`).
        let last_not_above = |mut base: usize, mut size: usize| {
            while size > 1 {
                let half = size / 2;
                let mid = base + half;
                base = if fp_at(mid) <= fp { mid } else { base };
                size -= half;
            }
            base
        };
        if len <= WINDOW {
            if len == 0 {
                return None;
            }
            let at = last_not_above(0, len);
            return (fp_at(at) == fp).then_some(lo + at);
        }
        let start = self.window_start(len, fp);
        let at = last_not_above(start, WINDOW);
        if fp_at(at) == fp {
            return Some(lo + at);
        }
        // Absent from the window: absent from the bucket when the window brackets `fp`.
        let end = start + WINDOW;
        if (start == 0 || fp_at(start) < fp) && (end == len || fp_at(end - 1) > fp) {
            return None;
        }
        let at = last_not_above(0, len);
        (fp_at(at) == fp).then_some(lo + at)
    }

    /// The first entry of the window searched for `fp` in a bucket of `len` > [`WINDOW`]
    /// entries: centred on the interpolated position, inside the bucket.
    #[inline]
    fn window_start(&self, len: usize, fp: u32) -> usize {
        let guess = ((len as u64 * u64::from(fp)) >> (8 * self.fp_bytes)) as usize;
        guess.saturating_sub(WINDOW / 2).min(len - WINDOW)
    }

    /// Asks the CPU to start loading the records `find_in(key, bucket)` will read first.
    #[inline]
    pub(crate) fn prefetch(&self, bytes: &[u8], key: u64, bucket: Bucket) {
        let (lo, len) = (bucket.lo as usize, (bucket.hi - bucket.lo) as usize);
        if len == 0 {
            return;
        }
        let start = if len <= WINDOW {
            0
        } else {
            self.window_start(len, self.fingerprint(key))
        };
        let first = self.records_at + self.record_len * (lo + start);
        prefetch_line(bytes, first);
        prefetch_line(bytes, first + self.record_len * WINDOW.min(len) - 1);
    }

    /// Asks the CPU to start loading the bucket offsets [`Self::bucket`] reads for `key`.
    #[inline]
    pub(crate) fn prefetch_offsets(&self, bytes: &[u8], key: u64) {
        prefetch_line(bytes, self.offset_at(key));
    }

    /// Where the offset of the bucket of `key` lies in the bytes.
    #[inline]
    fn offset_at(&self, key: u64) -> usize {
        self.offsets_at + 4 * bucket_of(key, self.bucket_bits)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lm::format::parse;
    use crate::lm::tokenize::fmix64;
    use crate::lm::write::{write_model, Entry, ModelSpec};

    /// The index of `key`'s entry found by reading every record of its bucket in turn.
    fn scan(table: &Table, bytes: &[u8], key: u64) -> Option<usize> {
        let Bucket { lo, hi } = table.bucket(bytes, key);
        let fp = table.fingerprint(key);
        (lo as usize..hi as usize).find(|&i| {
            let at = table.records_at + table.record_len * i;
            let stored = u32::from_le_bytes([
                bytes[at],
                bytes[at + 1],
                if table.fp_bytes == 4 {
                    bytes[at + 2]
                } else {
                    0
                },
                if table.fp_bytes == 4 {
                    bytes[at + 3]
                } else {
                    0
                },
            ]);
            stored == fp
        })
    }

    #[test]
    fn the_search_finds_what_a_scan_of_the_bucket_finds() {
        // Tables of three orders (every record layout: fingerprints of 2 and 4 bytes, with and
        // without backoff), large ones whose buckets are longer than the window and small
        // ones (a single bucket of a few entries); looked up: every stored key, and as many
        // keys that are not stored, a few of which match a stored fingerprint by chance.
        for (entries, fingerprint_bytes) in [(30_000, 2), (30_000, 4), (7, 2), (0, 2)] {
            let keys = |order: u64| (0..entries).map(move |i| fmix64(order << 32 | i));
            let table = |order| {
                keys(order)
                    .map(|key| Entry {
                        key,
                        log2_prob: -((key % 100) as f64),
                        log2_backoff: -((key % 7) as f64),
                    })
                    .collect::<Vec<_>>()
            };
            let spec = ModelSpec {
                seed: 1,
                unk_log2: -20.0,
                credit: String::new(),
                provenance: String::new(),
                tables: vec![table(1), table(2), table(3)],
                fingerprint_bytes,
            };
            let bytes = write_model(&spec).0;
            let layout = parse(&bytes).expect("a valid model");
            for (order, table) in (1..).zip(&layout.tables) {
                let absent = (0..entries).map(|i| fmix64(0xABCD << 40 | order << 32 | i));
                let (mut found, mut chance) = (0, 0);
                for (key, stored) in keys(order)
                    .map(|k| (k, true))
                    .chain(absent.map(|k| (k, false)))
                {
                    let got = table.find_in(&bytes, key, table.bucket(&bytes, key));
                    assert_eq!(got, scan(table, &bytes, key), "order {order}, key {key:#x}");
                    found += usize::from(stored && got.is_some());
                    chance += usize::from(!stored && got.is_some());
                }
                // The writer drops an entry whose fingerprint another in its bucket has.
                assert!(
                    found + 2 * entries as usize / 100 >= entries as usize,
                    "{found}"
                );
                if entries > 1000 && fingerprint_bytes == 2 && order > 1 {
                    assert!(
                        chance > 0,
                        "no absent key matched by chance: the test tests less"
                    );
                }
            }
        }
    }
}
