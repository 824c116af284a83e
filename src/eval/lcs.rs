//! Longest common subsequence of two token sequences: the alignment behind word P/R/F.
//!
//! Scoring only needs the LCS length (true positives = LCS, false positives = cleaned − LCS,
//! false negatives = gold − LCS), so [`lcs_len`] computes it exactly with the bit-parallel
//! algorithm of Allison–Dix / Crochemore et al. / Hyyrö (`V' = (V + (V & M)) | (V & !M)`,
//! multi-word add with carry), O(n·m/64) and independent of how different the pages are.
//! [`align`] gives the alignment itself (for diagnostics) with `similar`'s
//! `Algorithm::RawMyers` and no deadline: Myers' O((n+m)·D) search without the
//! heuristics of `Algorithm::Myers`, which yields a shortest insert/delete script, i.e. a
//! true LCS. Tests check both against the O(n·m) DP of [`lcs_len_dp`].

use super::bits::{Masks, ABSENT};
use super::lev::trim_common;

/// Exact length of the longest common subsequence of two token-id sequences.
pub fn lcs_len(a: &[u32], b: &[u32]) -> usize {
    let before = a.len();
    let (a, b) = trim_common(a, b);
    // trim_common removes equal prefix and suffix: those are all part of some LCS.
    let trimmed = before - a.len();
    if a.is_empty() || b.is_empty() {
        return trimmed;
    }
    // Longer side as the pattern: fewer columns, less per-column overhead.
    trimmed
        + if a.len() >= b.len() {
            lcs_len_bitparallel(a, b)
        } else {
            lcs_len_bitparallel(b, a)
        }
}

/// Bit-parallel LCS length; `a` is encoded in the bit vectors, `b` is scanned.
pub fn lcs_len_bitparallel(a: &[u32], b: &[u32]) -> usize {
    let m = a.len();
    if m == 0 || b.is_empty() {
        return 0;
    }
    let (mut masks, text) = Masks::new(a, b);
    lcs_kernel(&mut masks, &text, m)
}

/// LCS length of the encoded pattern (length `m` ≥ 1) and `text`.
pub(crate) fn lcs_kernel(masks: &mut Masks, text: &[u32], m: usize) -> usize {
    let mut v = vec![!0u64; masks.blocks];
    for &t in text {
        if t == ABSENT {
            continue;
        }
        let mut carry = false;
        for (vk, &mk) in v.iter_mut().zip(masks.get(t)) {
            let u = *vk & mk;
            let (s1, c1) = vk.overflowing_add(u);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            carry = c1 || c2;
            *vk = s2 | (*vk & !mk);
        }
    }
    let full = m / 64;
    let mut zeros: usize = v[..full].iter().map(|w| w.count_zeros() as usize).sum();
    let rem = m % 64;
    if rem > 0 {
        let mask = (1u64 << rem) - 1;
        zeros += (!v[full] & mask).count_ones() as usize;
    }
    zeros
}

/// Plain O(n·m) DP for the LCS length (reference implementation).
pub fn lcs_len_dp<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// A true-LCS alignment of `cleaned` (old) against `gold` (new) as `similar` diff ops:
/// `Equal` = true positives, `Delete` = false positives, `Insert` = false negatives.
pub fn align<T: Eq + std::hash::Hash>(cleaned: &[T], gold: &[T]) -> Vec<similar::DiffOp> {
    similar::capture_diff_slices(similar::Algorithm::RawMyers, cleaned, gold)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn equal_count(ops: &[similar::DiffOp]) -> usize {
        ops.iter()
            .map(|op| match *op {
                similar::DiffOp::Equal { len, .. } => len,
                _ => 0,
            })
            .sum()
    }

    #[test]
    fn hand_examples() {
        // ABCBDAB / BDCABA: LCS 4 (e.g. BCBA).
        let a: Vec<u32> = "ABCBDAB".bytes().map(u32::from).collect();
        let b: Vec<u32> = "BDCABA".bytes().map(u32::from).collect();
        assert_eq!(lcs_len(&a, &b), 4);
        assert_eq!(lcs_len_bitparallel(&a, &b), 4);
        assert_eq!(lcs_len(&[], &b), 0);
        assert_eq!(equal_count(&align(&a, &b)), 4);
    }

    #[test]
    fn crosses_blocks() {
        let a: Vec<u32> = (0..500).map(|i| i % 37).collect();
        let b: Vec<u32> = (0..450).map(|i| (i * 7) % 41).collect();
        assert_eq!(lcs_len(&a, &b), lcs_len_dp(&a, &b));
        assert_eq!(lcs_len(&b, &a), lcs_len_dp(&a, &b));
        let big = |s: &[u32]| -> Vec<u32> { s.iter().map(|x| x * 10_000_000 + 3).collect() };
        assert_eq!(lcs_len_bitparallel(&big(&a), &big(&b)), lcs_len_dp(&a, &b));
        let (mut masks, text) = crate::eval::bits::sparse(&a, &b);
        assert_eq!(lcs_kernel(&mut masks, &text, a.len()), lcs_len_dp(&a, &b));
    }

    fn seq(alpha: u32, max: usize) -> impl Strategy<Value = Vec<u32>> {
        prop::collection::vec(0..alpha, 0..max)
    }

    proptest! {
        #[test]
        fn bitparallel_equals_dp(a in seq(5, 250), b in seq(5, 250)) {
            let l = lcs_len_dp(&a, &b);
            prop_assert_eq!(lcs_len(&a, &b), l);
            prop_assert_eq!(lcs_len_bitparallel(&b, &a), l);
            prop_assert_eq!(equal_count(&align(&a, &b)), l);
            if !a.is_empty() {
                let (mut masks, text) = crate::eval::bits::sparse(&a, &b);
                prop_assert_eq!(lcs_kernel(&mut masks, &text, a.len()), l);
            }
        }

        #[test]
        fn large_alphabet_equals_dp(a in seq(300, 300), b in seq(300, 300)) {
            let l = lcs_len_dp(&a, &b);
            prop_assert_eq!(lcs_len(&a, &b), l);
            prop_assert_eq!(equal_count(&align(&a, &b)), l);
        }
    }
}
