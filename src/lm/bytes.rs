//! The model file's primitive encodings, below the format and the look-ups that read it:
//! little-endian numbers at an offset (`None` past the end), and where a key's entry lies (its
//! bucket) and how it is recognised (its fingerprint).

/// Quantisation levels per codebook.
pub const LEVELS: usize = 256;

/// The little-endian `u16` at `bytes[at..]`, if the bytes are there.
pub(crate) fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    read_array(bytes, at).map(u16::from_le_bytes)
}

/// The little-endian `u32` at `bytes[at..]`, if the bytes are there.
#[inline]
pub(crate) fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    read_array(bytes, at).map(u32::from_le_bytes)
}

/// The little-endian `u64` at `bytes[at..]`, if the bytes are there.
pub(crate) fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    read_array(bytes, at).map(u64::from_le_bytes)
}

/// The little-endian `f32` at `bytes[at..]`, if the bytes are there.
pub(crate) fn read_f32(bytes: &[u8], at: usize) -> Option<f32> {
    read_u32(bytes, at).map(f32::from_bits)
}

/// The `N` bytes at `bytes[at..]`, if they are there.
#[inline]
fn read_array<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// Bytes of the bucket-offset array for `bits`.
pub(crate) fn offsets_len(bits: u32) -> usize {
    ((1usize << bits) + 1) * 4
}

/// The bucket of `key` in a table with `bits` bucket bits: the key's top `bits` bits.
#[inline]
pub(crate) fn bucket_of(key: u64, bits: u32) -> usize {
    // Without a branch: `key >> 64` would overflow, `(key >> 1) >> 63` is 0.
    ((key >> 1) >> (63 - bits.min(63))) as usize
}

/// The fingerprint of `key` in a table with `fp_bytes`-byte fingerprints (2 or 4): the key's
/// low 16 or 32 bits.
#[inline]
pub(crate) fn fingerprint(key: u64, fp_bytes: usize) -> u32 {
    // Without a branch: the low 8·F bits (F = 2 or 4).
    (key as u32) & (u32::MAX >> (32 - 8 * fp_bytes.clamp(2, 4)))
}
