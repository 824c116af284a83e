//! Exact word-level Levenshtein distance (insert, delete, substitute: cost 1 each) over
//! token-id sequences.
//!
//! Common prefix and suffix are stripped first (safe for unit costs). Then: when the ids
//! of both remainders fit in 256 symbols, triple_accel's SIMD `levenshtein_exp` runs on
//! bytes (exponential search on the band width: exact, since a band of width k contains
//! every path of cost ≤ k); otherwise Myers' bit-vector algorithm (Myers 1999, blocked
//! form, global distance as in Hyyrö 2003) over all ⌈m/64⌉ blocks, O(n·m/64), exact.
//! [`levenshtein_dp`] is the plain O(n·m) reference used by the tests.

use std::collections::HashMap;

use super::bits::Masks;

/// Exact Levenshtein distance between two token-id sequences.
pub fn levenshtein(a: &[u32], b: &[u32]) -> usize {
    let (a, b) = trim_common(a, b);
    if a.is_empty() || b.is_empty() {
        return a.len().max(b.len());
    }
    match to_bytes(a, b) {
        Some((x, y)) => triple_accel::levenshtein::levenshtein_exp(&x, &y) as usize,
        // Longer side as the pattern: fewer columns, less per-column overhead.
        None if a.len() >= b.len() => levenshtein_bitvector(a, b),
        None => levenshtein_bitvector(b, a),
    }
}

/// Strips the common prefix and suffix of two sequences.
pub(crate) fn trim_common<'a>(a: &'a [u32], b: &'a [u32]) -> (&'a [u32], &'a [u32]) {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (&a[..a.len() - suf], &b[..b.len() - suf])
}

/// Maps both sequences to bytes when they use at most 256 distinct ids.
fn to_bytes(a: &[u32], b: &[u32]) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut map: HashMap<u32, u8> = HashMap::new();
    let mut conv = |s: &[u32]| -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(s.len());
        for &t in s {
            let next = map.len();
            let v = match map.get(&t) {
                Some(&v) => v,
                None if next < 256 => {
                    map.insert(t, next as u8);
                    next as u8
                }
                None => return None,
            };
            out.push(v);
        }
        Some(out)
    };
    let x = conv(a)?;
    let y = conv(b)?;
    Some((x, y))
}

/// Myers' blocked bit-vector edit distance, global alignment. `a` is the vertical pattern.
pub fn levenshtein_bitvector(a: &[u32], b: &[u32]) -> usize {
    let m = a.len();
    if m == 0 || b.is_empty() {
        return m.max(b.len());
    }
    let (mut masks, text) = Masks::new(a, b);
    myers_kernel(&mut masks, &text, m)
}

/// Global edit distance of the encoded pattern (length `m` ≥ 1) against `text`.
pub(crate) fn myers_kernel(masks: &mut Masks, text: &[u32], m: usize) -> usize {
    let blocks = masks.blocks;
    let mut pv = vec![!0u64; blocks];
    let mut mv = vec![0u64; blocks];
    let last_shift = ((m - 1) % 64) as u32;
    let mut score = m as i64;
    for &t in text {
        let eqs = masks.get(t);
        // Top row D[0][j] = j: a horizontal +1 enters block 0.
        let (mut hp, mut hn) = (1u64, 0u64);
        for k in 0..blocks - 1 {
            (hp, hn) = myers_step(&mut pv[k], &mut mv[k], eqs[k], hp, hn, 63);
        }
        let k = blocks - 1;
        (hp, hn) = myers_step(&mut pv[k], &mut mv[k], eqs[k], hp, hn, last_shift);
        // (hp, hn) is now the horizontal delta of the last row (row m).
        score += hp as i64 - hn as i64;
    }
    score.max(0) as usize
}

/// One column step of one 64-row block (Myers 1999, blocked form). `hp`/`hn` (0 or 1)
/// are the horizontal +1/−1 delta entering the block's top row; returns the delta at
/// row `out_bit` of the block.
#[inline(always)]
fn myers_step(pv: &mut u64, mv: &mut u64, e: u64, hp: u64, hn: u64, out_bit: u32) -> (u64, u64) {
    let (p, m) = (*pv, *mv);
    let xv = e | m;
    let eq = e | hn;
    let xh = ((eq & p).wrapping_add(p) ^ p) | eq;
    let ph = m | !(xh | p);
    let mh = p & xh;
    let out = ((ph >> out_bit) & 1, (mh >> out_bit) & 1);
    let ph = (ph << 1) | hp;
    let mh = (mh << 1) | hn;
    *pv = mh | !(xv | ph);
    *mv = ph & xv;
    out
}

/// Plain O(n·m) dynamic-programming Levenshtein distance (reference implementation).
pub fn levenshtein_dp<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0usize; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(x != y);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hand_examples() {
        assert_eq!(levenshtein(&[], &[]), 0);
        assert_eq!(levenshtein(&[1, 2, 3], &[]), 3);
        // kitten -> sitting: 3
        let a: Vec<u32> = "kitten".bytes().map(u32::from).collect();
        let b: Vec<u32> = "sitting".bytes().map(u32::from).collect();
        assert_eq!(levenshtein(&a, &b), 3);
        assert_eq!(levenshtein_bitvector(&a, &b), 3);
    }

    #[test]
    fn long_sequences_cross_blocks() {
        // 300 distinct ids forces the bit-vector path; 200 ids every other one deleted.
        let a: Vec<u32> = (0..300).collect();
        let b: Vec<u32> = (0..300).filter(|x| x % 3 != 0).chain(1000..1010).collect();
        assert_eq!(levenshtein(&a, &b), levenshtein_dp(&a, &b));
        assert_eq!(levenshtein(&b, &a), levenshtein_dp(&a, &b));
        // Sparse ids take the hash-map path of Masks::new; sparse storage as well.
        let (mut masks, text) = crate::eval::bits::sparse(&a, &b);
        assert_eq!(
            myers_kernel(&mut masks, &text, a.len()),
            levenshtein_dp(&a, &b)
        );
        let big = |s: &[u32]| -> Vec<u32> { s.iter().map(|x| x * 1_000_000 + 7).collect() };
        assert_eq!(
            levenshtein_bitvector(&big(&a), &big(&b)),
            levenshtein_dp(&a, &b)
        );
    }

    #[test]
    fn triple_accel_long_inputs() {
        // Small alphabets (byte path) with distances beyond the 8-bit SIMD range.
        let mut x = 12345u64;
        let mut rnd = |alpha: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % alpha) as u32
        };
        for (n, m, alpha) in [
            (3000, 2000, 200),
            (1500, 1600, 4),
            (700, 90, 250),
            (5000, 4900, 2),
        ] {
            let a: Vec<u32> = (0..n).map(|_| rnd(alpha)).collect();
            let mut b: Vec<u32> = a.iter().copied().filter(|_| rnd(10) > 2).collect();
            b.truncate(m);
            for i in 0..b.len() / 7 {
                b[i * 7] = rnd(alpha);
            }
            let d = levenshtein_dp(&a, &b);
            assert_eq!(levenshtein(&a, &b), d, "n {n} m {m} alphabet {alpha}");
            assert_eq!(levenshtein_bitvector(&a, &b), d);
        }
    }

    fn seq(alpha: u32, max: usize) -> impl Strategy<Value = Vec<u32>> {
        prop::collection::vec(0..alpha, 0..max)
    }

    proptest! {
        #[test]
        fn bitvector_equals_dp(a in seq(6, 200), b in seq(6, 200)) {
            let d = levenshtein_dp(&a, &b);
            prop_assert_eq!(levenshtein_bitvector(&a, &b), d);
            prop_assert_eq!(levenshtein_bitvector(&b, &a), d);
            prop_assert_eq!(levenshtein(&a, &b), d);
            if !a.is_empty() {
                let (mut masks, text) = crate::eval::bits::sparse(&a, &b);
                prop_assert_eq!(myers_kernel(&mut masks, &text, a.len()), d);
            }
        }

        #[test]
        fn large_alphabet_equals_dp(a in seq(400, 300), b in seq(400, 300)) {
            let d = levenshtein_dp(&a, &b);
            prop_assert_eq!(levenshtein(&a, &b), d);
            prop_assert_eq!(levenshtein_bitvector(&a, &b), d);
        }

        #[test]
        fn near_copies_equal_dp(a in seq(50, 400), edits in prop::collection::vec((0usize..400, 0u32..60), 0..20)) {
            let mut b = a.clone();
            for (pos, v) in edits {
                let p = if b.is_empty() { 0 } else { pos % (b.len() + 1) };
                match v % 3 {
                    0 => b.insert(p, v),
                    1 if p < b.len() => { b.remove(p); }
                    _ if p < b.len() => b[p] = v,
                    _ => {}
                }
            }
            let d = levenshtein_dp(&a, &b);
            prop_assert_eq!(levenshtein(&a, &b), d);
            prop_assert_eq!(levenshtein_bitvector(&a, &b), d);
        }
    }
}
