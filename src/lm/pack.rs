//! The packed form of a model file, in which the embedded model is committed and shipped:
//! the same bytes rearranged so that a general compressor can see their structure, then
//! deflated. `build.rs` unpacks it (this file is compiled into the build script too, so it
//! uses only `std` and `flate2`); [`pack`] and [`unpack`] are exact inverses.
//!
//! A model file's tables are sorted fingerprints interleaved with value codes, which deflate
//! barely shrinks (14.0 MB → 13.6 MB for the English model). Packed, each table becomes
//! streams of one kind of byte: bucket sizes, the low and high bytes of the differences
//! between successive fingerprints in a bucket, probability codes and backoff codes.
//!
//! ```text
//! "PPLP"  u32 stream count S, then S × (u64 raw length, u64 deflated length, deflated bytes)
//! stream 0: the model's bytes up to its first table (preamble, header, codebooks), verbatim
//! per table: bucket sizes (LEB128), one stream per fingerprint-delta byte, probability
//! codes, backoff codes (orders that have them)
//! ```

use std::io::{self, Read, Write};

const MAGIC: &[u8; 4] = b"PPLP";
/// Largest unpacked stream accepted (a model is far smaller): corrupt lengths fail, not allocate.
const MAX_STREAM: u64 = 1 << 30;

/// One table's layout, read from the model header.
struct Layout {
    entries: usize,
    bucket_bits: u32,
    has_backoff: bool,
    fp_bytes: usize,
}

fn invalid(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.to_string())
}

fn u32_at(bytes: &[u8], at: usize) -> io::Result<u32> {
    let b = bytes
        .get(at..at + 4)
        .ok_or_else(|| invalid("model header cut short"))?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The tables' layouts and where the first table starts (the end of the header).
fn layouts(model: &[u8]) -> io::Result<(Vec<Layout>, usize)> {
    let version = model
        .get(4)
        .copied()
        .ok_or_else(|| invalid("model cut short"))?;
    let order = model
        .get(24)
        .copied()
        .ok_or_else(|| invalid("model cut short"))? as usize;
    let texts = u32_at(model, 40)? as usize + u32_at(model, 44)? as usize;
    let mut at = 48 + texts;
    let mut tables = Vec::with_capacity(order);
    for _ in 0..order.min(8) {
        let entries = u32_at(model, at)? as usize;
        let bucket_bits = *model
            .get(at + 4)
            .ok_or_else(|| invalid("model cut short"))? as u32;
        let has_backoff = model.get(at + 5) == Some(&1);
        let width = *model
            .get(at + 6)
            .ok_or_else(|| invalid("model cut short"))?;
        let fp_bytes = if version == 1 { 4 } else { width as usize };
        if bucket_bits > 24 || !matches!(fp_bytes, 2 | 4) {
            return Err(invalid("model table descriptor out of range"));
        }
        at += 8 + 1024 * (1 + usize::from(has_backoff));
        tables.push(Layout {
            entries,
            bucket_bits,
            has_backoff,
            fp_bytes,
        });
    }
    Ok((tables, at))
}

fn deflate(bytes: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes)?;
    let packed = encoder.finish()?;
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(&(packed.len() as u64).to_le_bytes());
    out.extend_from_slice(&packed);
    Ok(())
}

/// `model` (a model file) in packed form.
pub fn pack(model: &[u8]) -> io::Result<Vec<u8>> {
    let (tables, header_end) = layouts(model)?;
    let header = model
        .get(..header_end)
        .ok_or_else(|| invalid("model cut short"))?;
    let mut streams: Vec<Vec<u8>> = vec![header.to_vec()];
    let mut at = header_end;
    for table in &tables {
        let buckets = 1usize << table.bucket_bits;
        let record_len = table.fp_bytes + 1 + usize::from(table.has_backoff);
        let records_at = at + 4 * (buckets + 1);
        let mut sizes = Vec::new();
        let mut planes = vec![Vec::with_capacity(table.entries); table.fp_bytes];
        let (mut probs, mut backoffs) = (Vec::new(), Vec::new());
        for b in 0..buckets {
            let (lo, hi) = (
                u32_at(model, at + 4 * b)? as usize,
                u32_at(model, at + 4 * b + 4)? as usize,
            );
            leb128(
                hi.checked_sub(lo)
                    .ok_or_else(|| invalid("bucket offsets decrease"))? as u64,
                &mut sizes,
            );
            let mut previous = 0u32;
            for i in lo..hi {
                let record = model
                    .get(records_at + record_len * i..records_at + record_len * (i + 1))
                    .ok_or_else(|| invalid("model table cut short"))?;
                let mut fp = [0u8; 4];
                fp[..table.fp_bytes].copy_from_slice(&record[..table.fp_bytes]);
                let fp = u32::from_le_bytes(fp);
                let delta = fp.wrapping_sub(previous).to_le_bytes();
                previous = fp;
                for (plane, byte) in planes.iter_mut().zip(delta) {
                    plane.push(byte);
                }
                probs.push(record[table.fp_bytes]);
                if table.has_backoff {
                    backoffs.push(record[table.fp_bytes + 1]);
                }
            }
        }
        streams.push(sizes);
        streams.extend(planes);
        streams.push(probs);
        if table.has_backoff {
            streams.push(backoffs);
        }
        at = records_at + record_len * table.entries;
    }
    if at != model.len() {
        return Err(invalid("model tables do not fill the file"));
    }
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(streams.len() as u32).to_le_bytes());
    for stream in &streams {
        deflate(stream, &mut out)?;
    }
    Ok(out)
}

/// The streams that `packed` holds, each inflated.
fn read_streams(packed: &[u8]) -> io::Result<Vec<Vec<u8>>> {
    let rest = packed
        .strip_prefix(MAGIC)
        .ok_or_else(|| invalid("not a packed model"))?;
    let count = u32_at(rest, 0)? as usize;
    let mut rest = &rest[4..];
    let mut streams = Vec::with_capacity(count.min(64));
    for _ in 0..count {
        let length = |at: usize| -> io::Result<u64> {
            let b = rest
                .get(at..at + 8)
                .ok_or_else(|| invalid("packed model cut short"))?;
            Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
        };
        let (raw, deflated) = (length(0)?, length(8)?);
        if raw > MAX_STREAM || deflated > rest.len() as u64 - 16 {
            return Err(invalid("packed model stream length out of range"));
        }
        let body = &rest[16..16 + deflated as usize];
        let mut stream = Vec::with_capacity(raw as usize);
        flate2::read::DeflateDecoder::new(body)
            .take(raw)
            .read_to_end(&mut stream)?;
        if stream.len() as u64 != raw {
            return Err(invalid("packed model stream shorter than recorded"));
        }
        streams.push(stream);
        rest = &rest[16 + deflated as usize..];
    }
    Ok(streams)
}

/// The next stream.
fn next_stream(streams: &mut std::vec::IntoIter<Vec<u8>>) -> io::Result<Vec<u8>> {
    streams
        .next()
        .ok_or_else(|| invalid("packed model has too few streams"))
}

/// One table's streams.
struct TableStreams {
    /// Bucket sizes (LEB128).
    sizes: Vec<u8>,
    /// One per fingerprint-delta byte, lowest first.
    planes: Vec<Vec<u8>>,
    /// Probability codes.
    probs: Vec<u8>,
    /// Backoff codes (empty if the table has none).
    backoffs: Vec<u8>,
}

impl TableStreams {
    /// Takes the streams of a table laid out as `table`.
    fn take(table: &Layout, streams: &mut std::vec::IntoIter<Vec<u8>>) -> io::Result<Self> {
        let sizes = next_stream(streams)?;
        let planes: Vec<Vec<u8>> = (0..table.fp_bytes)
            .map(|_| next_stream(streams))
            .collect::<io::Result<_>>()?;
        let probs = next_stream(streams)?;
        let backoffs = if table.has_backoff {
            next_stream(streams)?
        } else {
            Vec::new()
        };
        Ok(TableStreams {
            sizes,
            planes,
            probs,
            backoffs,
        })
    }
}

/// Appends the bucket offsets that the bucket `sizes` (LEB128) of a table of `bucket_bits`
/// give to `model`; returns each bucket's size.
fn unpack_offsets(model: &mut Vec<u8>, sizes: &[u8], bucket_bits: u32) -> io::Result<Vec<usize>> {
    let mut sizes = sizes;
    let buckets = 1usize << bucket_bits;
    let mut counts = Vec::with_capacity(buckets);
    let mut offset = 0u32;
    model.extend_from_slice(&offset.to_le_bytes());
    for _ in 0..buckets {
        let size = read_leb128(&mut sizes)?;
        offset =
            u32::try_from(offset as u64 + size).map_err(|_| invalid("bucket sizes overflow"))?;
        model.extend_from_slice(&offset.to_le_bytes());
        counts.push(size as usize);
    }
    Ok(counts)
}

/// Appends the table laid out as `table` to `model`, from its `streams`.
fn unpack_table(model: &mut Vec<u8>, table: &Layout, streams: &TableStreams) -> io::Result<()> {
    let counts = unpack_offsets(model, &streams.sizes, table.bucket_bits)?;
    // The last offset (each one was checked to fit in a u32).
    let entries: usize = counts.iter().sum();
    let TableStreams {
        planes,
        probs,
        backoffs,
        ..
    } = streams;
    if planes.iter().any(|p| p.len() != entries)
        || probs.len() != entries
        || (table.has_backoff && backoffs.len() != entries)
    {
        return Err(invalid("packed model streams disagree on the entry count"));
    }
    let mut i = 0;
    for count in counts {
        let mut previous = 0u32;
        for _ in 0..count {
            let mut delta = [0u8; 4];
            for (byte, plane) in delta.iter_mut().zip(planes) {
                *byte = plane[i];
            }
            let fp = previous.wrapping_add(u32::from_le_bytes(delta));
            previous = fp;
            model.extend_from_slice(&fp.to_le_bytes()[..table.fp_bytes]);
            model.push(probs[i]);
            if table.has_backoff {
                model.push(backoffs[i]);
            }
            i += 1;
        }
    }
    Ok(())
}

/// The model file that `packed` holds.
pub fn unpack(packed: &[u8]) -> io::Result<Vec<u8>> {
    let mut streams = read_streams(packed)?.into_iter();
    let mut model = next_stream(&mut streams)?;
    let (tables, _) = layouts(&model)?;
    for table in &tables {
        let table_streams = TableStreams::take(table, &mut streams)?;
        unpack_table(&mut model, table, &table_streams)?;
    }
    Ok(model)
}

fn leb128(mut value: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn read_leb128(bytes: &mut &[u8]) -> io::Result<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes
            .split_first()
            .ok_or_else(|| invalid("bucket sizes cut short"))?;
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(invalid("bucket size too long"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lm::model::{embedded_bytes, narrow_fingerprints, LanguageModel};

    #[test]
    fn unpack_inverts_pack() {
        let model = embedded_bytes();
        let packed = pack(model).unwrap();
        assert!(
            packed.len() < model.len() * 9 / 10,
            "{} of {}",
            packed.len(),
            model.len()
        );
        assert_eq!(unpack(&packed).unwrap(), model);
    }

    #[test]
    fn damaged_packs_are_errors_not_panics() {
        let packed = pack(embedded_bytes()).unwrap();
        for cut in [0, 3, 8, 30, packed.len() / 2, packed.len() - 1] {
            assert!(unpack(&packed[..cut]).is_err(), "cut at {cut}");
        }
        for at in [4, 9, 16, 40, 1000, packed.len() - 10] {
            let mut bad = packed.clone();
            bad[at] ^= 0x55;
            // Either detected here, or the model it unpacks to fails its checksum.
            if let Ok(model) = unpack(&bad) {
                assert!(LanguageModel::from_bytes(model).is_err(), "flip at {at}");
            }
        }
        assert!(pack(b"PPLM").is_err());
    }

    #[test]
    fn narrowing_an_already_narrow_model_changes_nothing() {
        let model = embedded_bytes();
        assert_eq!(narrow_fingerprints(model).unwrap(), model);
    }
}
