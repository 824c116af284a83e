//! Match masks for the bit-parallel Levenshtein and LCS kernels: the pattern (vertical
//! sequence) as one 64-bit mask per (symbol, 64-row block), the text mapped to symbols.
//!
//! Only symbols found on both sides get masks (others never match). Masks are stored dense
//! (`symbols × blocks` words) when that is small, else sparse (one entry per non-zero
//! word, at most one per pattern token) and expanded into a scratch column on demand, so
//! memory stays O(m + blocks) on pathological inputs.

use std::collections::{HashMap, HashSet};

/// Symbol of a text token that matches no pattern token.
pub(crate) const ABSENT: u32 = u32::MAX;

/// Above this many words (16 MiB) the masks are stored sparse.
const DENSE_LIMIT: usize = 1 << 21;

enum Storage {
    /// `peq[c * blocks + k]`.
    Dense(Vec<u64>),
    /// Entries of symbol c are `entries[start[c]..start[c + 1]]`, as (block, mask).
    Sparse {
        start: Vec<usize>,
        entries: Vec<(u32, u64)>,
    },
}

/// Per-symbol match masks of a pattern; see the module doc.
pub(crate) struct Masks {
    /// Number of 64-bit blocks, ⌈m/64⌉.
    pub blocks: usize,
    storage: Storage,
    /// All-zero column (absent symbols), or the expanded column of `last` when sparse.
    column: Vec<u64>,
    last: u32,
}

impl Masks {
    /// Encodes `pattern` and maps `text` onto its symbols ([`ABSENT`] when unmatched).
    pub fn new(pattern: &[u32], text: &[u32]) -> (Masks, Vec<u32>) {
        let (ids, text_syms, symbols) = symbols(pattern, text);
        let blocks = pattern.len().div_ceil(64);
        let storage = if symbols.saturating_mul(blocks) <= DENSE_LIMIT {
            let mut peq = vec![0u64; symbols * blocks];
            for (i, &c) in ids.iter().enumerate() {
                if c != ABSENT {
                    peq[c as usize * blocks + i / 64] |= 1u64 << (i % 64);
                }
            }
            Storage::Dense(peq)
        } else {
            // Counting sort of (symbol, block) entries; positions come in increasing order,
            // so each symbol's entries are sorted by block and merge within a block.
            let mut start = vec![0usize; symbols + 1];
            for &c in ids.iter().filter(|&&c| c != ABSENT) {
                start[c as usize + 1] += 1;
            }
            for s in 0..symbols {
                start[s + 1] += start[s];
            }
            let mut fill = start.clone();
            let mut entries = vec![(0u32, 0u64); start[symbols]];
            for (i, &c) in ids.iter().enumerate() {
                if c == ABSENT {
                    continue;
                }
                let (c, b) = (c as usize, (i / 64) as u32);
                let bit = 1u64 << (i % 64);
                if fill[c] > start[c] && entries[fill[c] - 1].0 == b {
                    entries[fill[c] - 1].1 |= bit;
                } else {
                    entries[fill[c]] = (b, bit);
                    fill[c] += 1;
                }
            }
            // Drop the unused tail of each symbol's range by compacting.
            let mut compact = Vec::with_capacity(entries.len());
            let mut new_start = vec![0usize; symbols + 1];
            for c in 0..symbols {
                compact.extend_from_slice(&entries[start[c]..fill[c]]);
                new_start[c + 1] = compact.len();
            }
            Storage::Sparse {
                start: new_start,
                entries: compact,
            }
        };
        let masks = Masks {
            blocks,
            storage,
            column: vec![0u64; blocks],
            last: ABSENT,
        };
        (masks, text_syms)
    }

    /// The masks of symbol `c` for all blocks (all zero for [`ABSENT`]).
    #[inline]
    pub fn get(&mut self, c: u32) -> &[u64] {
        match &self.storage {
            Storage::Dense(peq) => {
                if c == ABSENT {
                    &self.column
                } else {
                    let s = c as usize * self.blocks;
                    &peq[s..s + self.blocks]
                }
            }
            Storage::Sparse { start, entries } => {
                if c != self.last {
                    if self.last != ABSENT {
                        let l = self.last as usize;
                        for &(b, _) in &entries[start[l]..start[l + 1]] {
                            self.column[b as usize] = 0;
                        }
                    }
                    if c != ABSENT {
                        let s = c as usize;
                        for &(b, m) in &entries[start[s]..start[s + 1]] {
                            self.column[b as usize] = m;
                        }
                    }
                    self.last = c;
                }
                &self.column
            }
        }
    }
}

/// Symbols 0..k for ids on both sides; returns (pattern symbols, text symbols, k).
fn symbols(pattern: &[u32], text: &[u32]) -> (Vec<u32>, Vec<u32>, usize) {
    let max_id = pattern.iter().chain(text).copied().max().unwrap_or(0) as usize;
    let mut k = 0u32;
    if max_id <= 8 * (pattern.len() + text.len()) + 4096 {
        // Dense ids (the normal case, ids from interning): lookup tables.
        const UNSEEN: u32 = ABSENT - 1;
        let mut table = vec![ABSENT; max_id + 1];
        for &t in text {
            table[t as usize] = UNSEEN;
        }
        let ids = pattern
            .iter()
            .map(|&t| {
                let slot = &mut table[t as usize];
                if *slot == UNSEEN {
                    *slot = k;
                    k += 1;
                }
                *slot
            })
            .collect();
        let text_syms = text
            .iter()
            .map(|&t| match table[t as usize] {
                UNSEEN => ABSENT,
                s => s,
            })
            .collect();
        (ids, text_syms, k as usize)
    } else {
        let in_text: HashSet<u32> = text.iter().copied().collect();
        let mut map: HashMap<u32, u32> = HashMap::new();
        let ids = pattern
            .iter()
            .map(|t| {
                if !in_text.contains(t) {
                    return ABSENT;
                }
                *map.entry(*t).or_insert_with(|| {
                    k += 1;
                    k - 1
                })
            })
            .collect();
        let text_syms = text
            .iter()
            .map(|t| map.get(t).copied().unwrap_or(ABSENT))
            .collect();
        (ids, text_syms, k as usize)
    }
}

/// Forces the sparse storage (tests only).
#[cfg(test)]
pub(crate) fn sparse(pattern: &[u32], text: &[u32]) -> (Masks, Vec<u32>) {
    let (mut m, t) = Masks::new(pattern, text);
    if let Storage::Dense(peq) = &m.storage {
        let blocks = m.blocks;
        let symbols = peq.len().checked_div(blocks).unwrap_or(0);
        let mut start = vec![0usize; symbols + 1];
        let mut entries = Vec::new();
        for c in 0..symbols {
            for b in 0..blocks {
                let w = peq[c * blocks + b];
                if w != 0 {
                    entries.push((b as u32, w));
                }
            }
            start[c + 1] = entries.len();
        }
        m.storage = Storage::Sparse { start, entries };
    }
    (m, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_agree() {
        let pattern: Vec<u32> = (0..700).map(|i| (i * 13) % 97).collect();
        let text: Vec<u32> = (0..300).map(|i| (i * 7) % 120).collect();
        let (mut d, td) = Masks::new(&pattern, &text);
        let (mut s, ts) = sparse(&pattern, &text);
        assert_eq!(td, ts);
        for &c in td.iter().chain([ABSENT, 0, 3, ABSENT].iter()) {
            assert_eq!(d.get(c).to_vec(), s.get(c).to_vec());
        }
    }

    #[test]
    fn unmatched_symbols_get_no_masks() {
        let (mut m, t) = Masks::new(&[5, 6, 5], &[6, 9]);
        assert_eq!(t, vec![0, ABSENT]);
        assert_eq!(m.get(0), &[0b010]);
        assert_eq!(m.get(ABSENT), &[0]);
    }
}
