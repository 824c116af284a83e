//! Estimation for [`super::train`]: interpolated modified Kneser–Ney probabilities and backoff
//! weights from the counts, with count pruning, and the model file's entries keyed by n-gram
//! hash (steps 4–5 of the pipeline in [`super`]).

use super::count::{Counts, Gram, BOS};
use super::{TrainOptions, TrainStats};
use crate::lm::tokenize::TokenHasher;
use crate::lm::write::{Entry, ModelSpec};

/// Discounts D1, D2, D3+ for an order, from the count-of-counts t[0..4] = n1..n4
/// (modified KN, Chen & Goodman). Falls back to a single plain-KN discount
/// (or 0.5) where the formula leaves (0, k), as happens on tiny corpora.
fn discounts(t: [u64; 4]) -> [f64; 3] {
    let [n1, n2, n3, n4] = t.map(|x| x as f64);
    let y = n1 / (n1 + 2.0 * n2);
    let d = [
        1.0 - 2.0 * y * n2 / n1,
        2.0 - 3.0 * y * n3 / n2,
        3.0 - 4.0 * y * n4 / n3,
    ];
    let fallback = if y.is_finite() && y > 0.0 && y < 1.0 {
        y
    } else {
        0.5
    };
    let mut out = [0.0; 3];
    for k in 0..3 {
        out[k] = if d[k].is_finite() && d[k] > 0.0 && d[k] < (k + 1) as f64 {
            d[k]
        } else {
            fallback
        };
    }
    out
}

#[inline]
fn discount(d: &[f64; 3], adjusted: u32) -> f64 {
    match adjusted {
        0 => 0.0,
        1 => d[0],
        2 => d[1],
        _ => d[2],
    }
}

fn count_of_counts(adjusted: impl Iterator<Item = u32>) -> [u64; 4] {
    let mut t = [0u64; 4];
    for a in adjusted {
        if (1..=4).contains(&a) {
            t[a as usize - 1] += 1;
        }
    }
    t
}

/// A kept n-gram of order ≥ 2 with its log2 probability and log2 backoff.
#[derive(Clone, Copy, Debug)]
struct Estimate {
    gram: Gram,
    log2_prob: f64,
    log2_backoff: f64,
}

/// The estimated model over vocabulary ids.
pub(super) struct Estimated {
    order: usize,
    hashes: Vec<u64>,
    /// Per id: Some((log2 P, log2 backoff)) if the word is kept.
    unigrams: Vec<Option<(f64, f64)>>,
    /// Orders 2..=N (index 0 = bigrams), sorted by gram.
    higher: Vec<Vec<Estimate>>,
    unk_log2: f64,
}

impl Estimated {
    /// log2 P(ids[n-1] | ids[..n-1]) as the model scores it (backoff over stored entries).
    fn score(&self, ids: &[u32]) -> f64 {
        let n = ids.len();
        let Some(&word) = ids.last() else {
            return self.unk_log2;
        };
        if n == 1 {
            return self
                .unigrams
                .get(word as usize)
                .copied()
                .flatten()
                .map_or(self.unk_log2, |(p, _)| p);
        }
        let table = &self.higher[n - 2];
        let gram = Gram::from_ids(ids);
        if let Ok(i) = table.binary_search_by_key(&gram, |e| e.gram) {
            return table[i].log2_prob;
        }
        self.backoff(&ids[..n - 1]) + self.score(&ids[1..])
    }

    /// log2 backoff weight of the context `ids` (0 if not stored).
    fn backoff(&self, ids: &[u32]) -> f64 {
        if ids.len() == 1 {
            return self
                .unigrams
                .get(ids[0] as usize)
                .copied()
                .flatten()
                .map_or(0.0, |(_, b)| b);
        }
        let table = &self.higher[ids.len() - 2];
        let gram = Gram::from_ids(ids);
        table
            .binary_search_by_key(&gram, |e| e.gram)
            .map_or(0.0, |i| table[i].log2_backoff)
    }
}

/// Kneser–Ney's adjusted counts of every order: continuation counts (how many distinct words
/// come before an n-gram), except for the highest order and for n-grams that start with `<s>`,
/// which keep their raw counts.
struct Adjusted {
    /// Per id (0 for `<s>`).
    unigrams: Vec<u32>,
    /// Orders 2..=N (index 0 = bigrams), parallel to the counts' grams.
    higher: Vec<Vec<u32>>,
}

impl Adjusted {
    fn of(unigram: &[u64], grams: &[Vec<(Gram, u32)>], vocab: usize, order: usize) -> Adjusted {
        let mut unigrams: Vec<u32> = vec![0; vocab];
        if order == 1 {
            for (id, &c) in unigram.iter().enumerate() {
                unigrams[id] = c.min(u64::from(u32::MAX)) as u32;
            }
        } else {
            for &(g, _) in &grams[0] {
                unigrams[g.0[1] as usize] += 1;
            }
        }
        unigrams[BOS as usize] = 0;
        let mut higher: Vec<Vec<u32>> = Vec::with_capacity(grams.len());
        for n in 2..=order {
            let own = &grams[n - 2];
            if n == order {
                higher.push(own.iter().map(|&(_, c)| c).collect());
            } else {
                higher.push(continuation_counts(own, &grams[n - 1], n));
            }
        }
        Adjusted { unigrams, higher }
    }

    /// Discounts D1, D2, D3+ per order (index 0 = unigrams).
    fn discounts(&self, order: usize) -> Vec<[f64; 3]> {
        let mut d: Vec<[f64; 3]> = Vec::with_capacity(order);
        d.push(discounts(count_of_counts(self.unigrams.iter().copied())));
        for a in &self.higher {
            d.push(discounts(count_of_counts(a.iter().copied())));
        }
        d
    }
}

/// Adjusted counts of the order-`n` grams `own`: how many distinct (x g) exist among the
/// order-(n+1) grams `upper`, or the raw count for a gram that starts with `<s>`.
fn continuation_counts(own: &[(Gram, u32)], upper: &[(Gram, u32)], n: usize) -> Vec<u32> {
    let mut suffixes: Vec<Gram> = upper.iter().map(|&(g, _)| g.suffix(n + 1)).collect();
    suffixes.sort_unstable();
    let mut a = Vec::with_capacity(own.len());
    let mut j = 0;
    for &(g, raw) in own {
        while j < suffixes.len() && suffixes[j] < g {
            j += 1;
        }
        let start = j;
        while j < suffixes.len() && suffixes[j] == g {
            j += 1;
        }
        a.push(if g.0[0] == BOS {
            raw
        } else {
            (j - start) as u32
        });
    }
    a
}

/// Which n-grams the model keeps: those counted often enough, and every context of a kept one.
struct Kept {
    /// Per id.
    unigrams: Vec<bool>,
    /// Orders 2..=N (index 0 = bigrams), parallel to the counts' grams.
    higher: Vec<Vec<bool>>,
}

impl Kept {
    fn of(
        unigram: &[u64],
        grams: &[Vec<(Gram, u32)>],
        adjusted: &Adjusted,
        opts: &TrainOptions,
    ) -> Kept {
        let order = opts.order;
        let mut higher: Vec<Vec<bool>> = grams
            .iter()
            .zip(&adjusted.higher)
            .map(|(g, a)| {
                g.iter()
                    .zip(a)
                    .map(|(&(_, raw), &adj)| raw >= opts.min_count && adj > 0)
                    .collect()
            })
            .collect();
        keep_contexts(&mut higher, grams, order);
        let mut unigrams: Vec<bool> = (0..adjusted.unigrams.len())
            .map(|id| {
                id != BOS as usize
                    && adjusted.unigrams[id] > 0
                    && unigram[id] >= u64::from(opts.min_unigram_count)
            })
            .collect();
        if order >= 2 {
            unigrams[BOS as usize] = true;
            for (i, &(g, _)) in grams[0].iter().enumerate() {
                if higher[0][i] {
                    unigrams[g.0[0] as usize] = true;
                }
            }
        }
        Kept { unigrams, higher }
    }
}

/// Pruning of orders 2..N, top-down so that contexts of kept n-grams are kept: the prefix of a
/// kept (n+1)-gram is kept, and a kept (n+1)-gram whose prefix is absent (possible only after
/// lossy pruning) is dropped.
fn keep_contexts(keep: &mut [Vec<bool>], grams: &[Vec<(Gram, u32)>], order: usize) {
    for n in (2..order).rev() {
        let (lower, upper) = keep.split_at_mut(n - 1);
        let keep_n = &mut lower[n - 2];
        let keep_up = &mut upper[0];
        let (grams_n, grams_up) = (&grams[n - 2], &grams[n - 1]);
        let mut j = 0;
        for (i, &(g, _)) in grams_up.iter().enumerate() {
            if !keep_up[i] {
                continue;
            }
            let p = g.prefix(n + 1);
            while j < grams_n.len() && grams_n[j].0 < p {
                j += 1;
            }
            if j < grams_n.len() && grams_n[j].0 == p {
                keep_n[j] = true;
            } else {
                keep_up[i] = false;
            }
        }
    }
}

/// One order's estimates, from [`Estimated::estimate_order`].
struct OrderEstimate {
    /// The kept n-grams, sorted by gram, with log2 backoff 0 for now.
    kept: Vec<Estimate>,
    /// Each context (an (n-1)-gram) with counts, and its log2 backoff weight (log2 gamma).
    backoffs: Vec<(Gram, f64)>,
}

impl Estimated {
    /// The model with its unigrams only: each kept word's discounted continuation count,
    /// interpolated with an even share, among the kept words and `<unk>`, of the mass left
    /// over (the discounts and the pruned words' counts).
    fn with_unigrams(
        order: usize,
        hashes: Vec<u64>,
        adjusted: &[u32],
        keep: &[bool],
        d1: [f64; 3],
    ) -> Estimated {
        let vocab = hashes.len();
        let total: f64 = adjusted.iter().map(|&a| a as f64).sum();
        let mut left = 0.0;
        let mut kept_words = 0usize;
        for id in 0..vocab {
            if id == BOS as usize {
                continue;
            }
            let a = adjusted[id];
            if keep[id] {
                kept_words += 1;
                left += discount(&d1, a);
            } else {
                left += a as f64;
            }
        }
        let gamma = if total > 0.0 { left / total } else { 1.0 };
        let uniform = gamma / (kept_words + 1) as f64;
        let unk_log2 = uniform.log2();
        let mut unigrams: Vec<Option<(f64, f64)>> = vec![None; vocab];
        for id in 0..vocab {
            if keep[id] {
                let a = adjusted[id];
                let p = if id == BOS as usize {
                    uniform
                } else {
                    (a as f64 - discount(&d1, a)) / total.max(1.0) + uniform
                };
                unigrams[id] = Some((p.log2(), 0.0));
            }
        }
        Estimated {
            order,
            hashes,
            unigrams,
            higher: Vec::new(),
            unk_log2,
        }
    }

    /// Estimates order `n` (its `grams`, their `adjusted` counts, which to `keep`, its
    /// discounts `d`) with the finished lower orders: interpolated probabilities of the kept
    /// n-grams and the backoff weight of each context.
    fn estimate_order(
        &self,
        n: usize,
        grams: &[(Gram, u32)],
        adjusted: &[u32],
        keep: &[bool],
        d: [f64; 3],
    ) -> OrderEstimate {
        let mut kept: Vec<Estimate> = Vec::new();
        let mut backoffs: Vec<(Gram, f64)> = Vec::new();
        let mut start = 0;
        while start < grams.len() {
            let context = grams[start].0.prefix(n);
            let mut end = start;
            let (mut sum, mut left) = (0.0, 0.0);
            while end < grams.len() && grams[end].0.prefix(n) == context {
                let a = adjusted[end];
                sum += a as f64;
                left += if keep[end] { discount(&d, a) } else { a as f64 };
                end += 1;
            }
            if sum > 0.0 {
                let gamma = left / sum;
                for i in start..end {
                    if !keep[i] {
                        continue;
                    }
                    let g = grams[i].0;
                    let lower = self.score(&g.0[1..n]).exp2();
                    let p = (adjusted[i] as f64 - discount(&d, adjusted[i])) / sum + gamma * lower;
                    kept.push(Estimate {
                        gram: g,
                        log2_prob: p.log2(),
                        log2_backoff: 0.0,
                    });
                }
                backoffs.push((context, gamma.log2()));
            }
            start = end;
        }
        OrderEstimate { kept, backoffs }
    }

    /// Sets the log2 backoff of each (already estimated) order n-1 entry that is one of the
    /// contexts in `backoffs` (sorted by gram).
    fn attach_backoffs(&mut self, n: usize, backoffs: Vec<(Gram, f64)>) {
        if n == 2 {
            for (context, b) in backoffs {
                if let Some(Some(entry)) = self.unigrams.get_mut(context.0[0] as usize) {
                    entry.1 = b;
                }
            }
        } else {
            let lower = &mut self.higher[n - 3];
            let mut j = 0;
            for (context, b) in backoffs {
                while j < lower.len() && lower[j].gram < context {
                    j += 1;
                }
                if j < lower.len() && lower[j].gram == context {
                    lower[j].log2_backoff = b;
                }
            }
        }
    }
}

/// Estimates the model from the counts: adjusted counts, discounts and pruning, then the
/// unigrams and the higher orders, bottom-up.
pub(super) fn estimate(counts: Counts, opts: &TrainOptions, stats: &mut TrainStats) -> Estimated {
    let order = opts.order;
    let Counts {
        hashes,
        unigram,
        grams,
    } = counts;
    let adjusted = Adjusted::of(&unigram, &grams, hashes.len(), order);
    let d = adjusted.discounts(order);
    stats.discounts = d.clone();
    let keep = Kept::of(&unigram, &grams, &adjusted, opts);
    let mut est = Estimated::with_unigrams(order, hashes, &adjusted.unigrams, &keep.unigrams, d[0]);
    // Higher orders, bottom-up: probabilities use the finished lower orders;
    // each context's gamma becomes the backoff of its lower-order entry.
    for n in 2..=order {
        let OrderEstimate { kept, backoffs } = est.estimate_order(
            n,
            &grams[n - 2],
            &adjusted.higher[n - 2],
            &keep.higher[n - 2],
            d[n - 1],
        );
        est.attach_backoffs(n, backoffs);
        est.higher.push(kept);
    }
    stats.unk_log2 = est.unk_log2;
    est
}

/// Builds the file contents: hash keys for every kept n-gram.
pub(super) fn to_model_spec(est: &Estimated, opts: &TrainOptions, provenance: String) -> ModelSpec {
    let hasher = TokenHasher::new(opts.seed);
    let key_of = |ids: &[u32]| -> u64 {
        let mut key = est.hashes[ids[0] as usize];
        for &id in &ids[1..] {
            key = hasher.combine(key, est.hashes[id as usize]);
        }
        key
    };
    let mut tables = Vec::with_capacity(est.order);
    let unigrams: Vec<Entry> = est
        .unigrams
        .iter()
        .enumerate()
        .filter_map(|(id, v)| {
            v.map(|(log2_prob, log2_backoff)| Entry {
                key: est.hashes[id],
                log2_prob,
                log2_backoff,
            })
        })
        .collect();
    tables.push(unigrams);
    for (i, table) in est.higher.iter().enumerate() {
        let n = i + 2;
        tables.push(
            table
                .iter()
                .map(|e| Entry {
                    key: key_of(&e.gram.0[..n]),
                    log2_prob: e.log2_prob,
                    log2_backoff: e.log2_backoff,
                })
                .collect(),
        );
    }
    ModelSpec {
        seed: opts.seed,
        unk_log2: est.unk_log2,
        credit: opts.credit.clone(),
        provenance,
        tables,
        fingerprint_bytes: opts.fingerprint_bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::super::count::{count_inputs, EOS};
    use super::super::tests::{opts, temp_file, CORPUS};
    use super::super::TrainStats;
    use super::*;

    fn estimated(order: usize, min_count: u32, text: &str) -> Estimated {
        let path = temp_file(&format!("est-{order}-{min_count}.txt"), text.as_bytes());
        let o = opts(order, min_count);
        let mut stats = TrainStats::default();
        let counts = count_inputs(&[path], &o, &(), &mut stats).expect("count");
        estimate(counts, &o, &mut stats)
    }

    /// Σ_w P(w | context) over the vocabulary (without <s>) plus <unk> must be 1.
    fn assert_normalised(est: &Estimated, context: &[u32]) {
        let mut ids = context.to_vec();
        ids.push(0);
        let mut total = 0.0;
        for w in 1..est.hashes.len() as u32 {
            *ids.last_mut().expect("non-empty") = w;
            // Words outside the vocabulary are scored as <unk>; count <unk> once below.
            if est.unigrams[w as usize].is_some() {
                total += est.score(&ids).exp2();
            }
        }
        let unk = est.backoff_chain(context) + est.unk_log2;
        total += unk.exp2();
        assert!(
            (total - 1.0).abs() < 1e-9,
            "context {context:?}: sum {total}"
        );
    }

    impl Estimated {
        /// Sum of backoffs from `context` down to the empty context (score of <unk>).
        fn backoff_chain(&self, context: &[u32]) -> f64 {
            (0..context.len())
                .map(|s| self.backoff(&context[s..]))
                .sum()
        }
    }

    #[test]
    fn distributions_sum_to_one() {
        for (order, min_count) in [(1, 1), (2, 1), (2, 2), (3, 1), (3, 2)] {
            let est = estimated(order, min_count, CORPUS);
            assert_normalised(&est, &[]);
            if order >= 2 {
                for ctx in 0..est.hashes.len() as u32 {
                    if ctx != EOS {
                        assert_normalised(&est, &[ctx]);
                    }
                }
            }
            if order >= 3 {
                for e in &est.higher[0] {
                    if e.gram.0[1] != EOS {
                        assert_normalised(&est, &e.gram.0[..2]);
                    }
                }
            }
        }
    }

    #[test]
    fn unigrams_use_continuation_counts() {
        // "francisco" is frequent but only ever follows "san"; "the" is rarer
        // but follows many words: Kneser-Ney must rank "the" above "francisco".
        let mut text = "San Francisco\n".repeat(10);
        for w in ["one", "two", "three", "four", "five"] {
            text.push_str(&format!("{w} the\n"));
        }
        let path = temp_file("kn.txt", text.as_bytes());
        let o = opts(2, 1);
        let mut stats = TrainStats::default();
        let counts = count_inputs(&[path], &o, &(), &mut stats).expect("count");
        let h = TokenHasher::standard();
        let id_of = |w: &str| {
            counts
                .hashes
                .iter()
                .position(|&x| x == h.hash_str(w))
                .expect("in vocabulary") as u32
        };
        let (francisco, the, san) = (id_of("francisco"), id_of("the"), id_of("san"));
        assert!(counts.unigram[francisco as usize] > counts.unigram[the as usize]);
        let est = estimate(counts, &o, &mut stats);
        assert!(est.score(&[the]) > est.score(&[francisco]));
        // But after "san", "francisco" is near certain.
        assert!(est.score(&[san, francisco]) > -0.5);
    }

    #[test]
    fn discount_formula() {
        let d = discounts([100, 40, 20, 10]);
        assert!(
            d.iter()
                .enumerate()
                .all(|(k, &x)| x > 0.0 && x < (k + 1) as f64),
            "{d:?}"
        );
        assert_eq!(discounts([0, 0, 0, 0]), [0.5, 0.5, 0.5]);
    }
}
