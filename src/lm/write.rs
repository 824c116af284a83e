//! Writing a model file (the format is documented in [`super::format`]): quantising the
//! values into codebooks, bucketing and sorting the entries, and the checksum; also
//! [`narrow_fingerprints`], which rewrites a model with narrower fingerprints.

use crate::lm::format::{
    bucket_of, fingerprint, parse, read_u32, ModelError, FORMAT_VERSION, LEVELS, MAGIC,
    MAX_BUCKET_BITS, MAX_ORDER, PREAMBLE_LEN,
};

/// Target mean number of entries per bucket (small offsets arrays stay in cache;
/// interpolation keeps the scan inside a bucket short).
const TARGET_BUCKET_LEN: usize = 64;

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
    /// ([`crate::lm::format::DEFAULT_FINGERPRINT_BYTES`]) or 4. Unigrams keep 4: an unknown word matching a
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

/// How one order's table is written: its bucket bits, fingerprint width and whether its
/// records hold a backoff code.
#[derive(Clone, Copy)]
struct TableShape {
    bits: u32,
    fp_bytes: u8,
    has_backoff: bool,
}

impl TableShape {
    /// Where an entry with `key` goes: its bucket, then its fingerprint.
    fn slot(self, key: u64) -> (u64, u32) {
        let bucket = bucket_of(key, self.bits) as u64;
        (bucket, fingerprint(key, usize::from(self.fp_bytes)))
    }

    /// `entries` in file order (by bucket and fingerprint), of those that share a slot only
    /// the one with the lowest key.
    fn sorted(self, entries: &[Entry]) -> Vec<Entry> {
        let mut sorted: Vec<Entry> = entries.to_vec();
        sorted.sort_by(|a, b| {
            self.slot(a.key)
                .cmp(&self.slot(b.key))
                .then(a.key.cmp(&b.key))
        });
        sorted.dedup_by(|later, earlier| self.slot(later.key) == self.slot(earlier.key));
        sorted
    }
}

/// The fixed part of the header after the preamble, and the credit and provenance texts.
fn header_start(spec: &ModelSpec) -> Vec<u8> {
    let mut header = Vec::new();
    header.push(spec.tables.len() as u8);
    header.extend_from_slice(&[0, 0, 0]);
    header.extend_from_slice(&(spec.unk_log2 as f32).to_le_bytes());
    header.extend_from_slice(&spec.seed.to_le_bytes());
    header.extend_from_slice(&(spec.credit.len() as u32).to_le_bytes());
    header.extend_from_slice(&(spec.provenance.len() as u32).to_le_bytes());
    header.extend_from_slice(spec.credit.as_bytes());
    header.extend_from_slice(spec.provenance.as_bytes());
    header
}

/// Appends a table's descriptor and codebooks to `header`.
fn write_descriptor(
    header: &mut Vec<u8>,
    shape: TableShape,
    entries: usize,
    prob_book: &[f32; LEVELS],
    backoff_book: &[f32; LEVELS],
) {
    header.extend_from_slice(&(entries as u32).to_le_bytes());
    header.push(shape.bits as u8);
    header.push(u8::from(shape.has_backoff));
    header.extend_from_slice(&[shape.fp_bytes, 0]);
    for v in prob_book {
        header.extend_from_slice(&v.to_le_bytes());
    }
    if shape.has_backoff {
        for v in backoff_book {
            header.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// Appends a table's bucket offsets and records (`sorted`, in file order) to `body`; returns
/// the summed absolute quantisation error of their log2 probabilities.
fn write_records(
    body: &mut Vec<u8>,
    shape: TableShape,
    sorted: &[Entry],
    prob_book: &[f32; LEVELS],
    backoff_book: &[f32; LEVELS],
) -> f64 {
    let buckets = 1usize << shape.bits;
    let mut next = 0usize;
    for b in 0..=buckets as u64 {
        while next < sorted.len() && shape.slot(sorted[next].key).0 < b {
            next += 1;
        }
        body.extend_from_slice(&(next as u32).to_le_bytes());
    }
    let fp_bytes = usize::from(shape.fp_bytes);
    let mut error = 0.0;
    for e in sorted {
        let fp = fingerprint(e.key, fp_bytes);
        body.extend_from_slice(&fp.to_le_bytes()[..fp_bytes]);
        let level = quantise(prob_book, e.log2_prob, false);
        error += (prob_book[level as usize] as f64 - e.log2_prob).abs();
        body.push(level);
        if shape.has_backoff {
            body.push(quantise(backoff_book, e.log2_backoff, true));
        }
    }
    error
}

/// Appends the order-`n` table of `spec` (0 = unigrams): its descriptor and codebooks to
/// `header`, its offsets and records to `body`, and what it holds to `stats`.
fn write_table(
    spec: &ModelSpec,
    n: usize,
    header: &mut Vec<u8>,
    body: &mut Vec<u8>,
    stats: &mut WriteStats,
) {
    let entries = &spec.tables[n];
    let shape = TableShape {
        bits: bucket_bits_for(entries.len()),
        fp_bytes: if n == 0 { 4 } else { spec.fingerprint_bytes },
        has_backoff: n + 1 < spec.tables.len(),
    };
    let sorted = shape.sorted(entries);
    stats
        .fingerprint_collisions
        .push(entries.len() - sorted.len());
    stats.entries.push(sorted.len());

    let probs: Vec<f64> = sorted.iter().map(|e| e.log2_prob).collect();
    let prob_book = build_codebook(&probs, false);
    let backoffs: Vec<f64> = sorted.iter().map(|e| e.log2_backoff).collect();
    let backoff_book = if shape.has_backoff {
        build_codebook(&backoffs, true)
    } else {
        [0f32; LEVELS]
    };
    write_descriptor(header, shape, sorted.len(), &prob_book, &backoff_book);

    let start = body.len();
    let error = write_records(body, shape, &sorted, &prob_book, &backoff_book);
    stats.mean_quantisation_error.push(if sorted.is_empty() {
        0.0
    } else {
        error / sorted.len() as f64
    });
    stats.table_bytes.push(body.len() - start);
}

/// Serialises a model. Output depends only on `spec` (entries are sorted here).
pub fn write_model(spec: &ModelSpec) -> (Vec<u8>, WriteStats) {
    let order = spec.tables.len();
    assert!(
        (1..=MAX_ORDER).contains(&order),
        "model order must be 1..={MAX_ORDER}"
    );
    let mut stats = WriteStats::default();
    let mut header = header_start(spec);
    let mut body = Vec::new();

    assert!(
        matches!(spec.fingerprint_bytes, 2 | 4),
        "fingerprints are 2 or 4 bytes"
    );
    for n in 0..order {
        write_table(spec, n, &mut header, &mut body, &mut stats);
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::lm::tokenize::TokenHasher;

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
            fingerprint_bytes: crate::lm::format::DEFAULT_FINGERPRINT_BYTES,
        };
        write_model(&spec).0
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
}
