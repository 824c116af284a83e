//! Gradient-boosted shallow decision trees for a binary decision: the model and its training.
//!
//! Written here rather than taken from a crate because it is small (a forest is a list of
//! depth-limited trees over `f32` inputs) and the maintained crates either pull a runtime
//! (lightgbm, xgboost bindings) or lack sample weights and a stable, serialisable model.
//! Training is the textbook second-order method (XGBoost's): logistic loss, gradients and
//! Hessians per example, splits chosen on histograms of quantile bins, Newton leaf values
//! shrunk by a learning rate. It is deterministic: no sampling, ties broken by feature order.

use serde::{Deserialize, Serialize};

/// One node of a tree: a split (`feature` < `threshold` goes `left`) or a leaf (`feature` is
/// `LEAF`, the value is `value`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// The input compared at a split; [`LEAF`] for a leaf.
    pub feature: u16,
    /// A split's threshold: inputs below it go left.
    pub threshold: f32,
    /// A split's left child (index into the tree).
    pub left: u16,
    /// A split's right child (index into the tree).
    pub right: u16,
    /// A leaf's value (log-odds).
    pub value: f32,
}

/// `Node::feature` of a leaf.
pub const LEAF: u16 = u16::MAX;

impl Node {
    /// A leaf worth `value`.
    pub fn leaf(value: f32) -> Node {
        Node {
            feature: LEAF,
            threshold: 0.0,
            left: 0,
            right: 0,
            value,
        }
    }

    /// A split: a row whose `feature` is below `threshold` goes to node `left`, any other
    /// (NaN included) to node `right`.
    pub fn split(feature: u16, threshold: f32, left: u16, right: u16) -> Node {
        Node {
            feature,
            threshold,
            left,
            right,
            value: 0.0,
        }
    }
}

/// A forest: log-odds = `base` + the sum of every tree's leaf.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Forest {
    /// Log-odds before any tree.
    pub base: f32,
    /// Each tree's nodes; node 0 is the root.
    pub trees: Vec<Vec<Node>>,
}

impl Forest {
    /// The log-odds of `x`.
    pub fn log_odds(&self, x: &[f32]) -> f32 {
        self.base
            + self
                .trees
                .iter()
                .map(|tree| leaf_value(tree, x))
                .sum::<f32>()
    }

    /// Whether the forest passes [`Forest::validate`].
    pub fn is_valid(&self, inputs: usize) -> bool {
        self.validate(inputs).is_ok()
    }

    /// Checks, in time linear in the nodes, that the forest is safe to lay out and evaluate:
    /// every split names an input below `inputs`; every tree is a proper tree (each child index
    /// is in the tree and after its parent, and every node but the root is the child of exactly
    /// one split, so evaluation ends and the layout visits each node once); no tree is deeper
    /// than [`MAX_DEPTH`]; every number is finite and the log-odds cannot overflow; and the
    /// padded layout of [`CompiledForest`] stays within [`MAX_LAYOUT_LEAVES`] leaves or
    /// [`LAYOUT_LEAVES_PER_NODE`] per node. The error is one line.
    pub fn validate(&self, inputs: usize) -> Result<(), String> {
        if !self.base.is_finite() {
            return Err("the base log-odds is not finite".into());
        }
        // Largest |log-odds| the forest can produce, in f64 so the bound itself cannot overflow.
        let mut bound = f64::from(self.base.abs());
        let (mut nodes, mut depth) = (0usize, 0usize);
        for (t, tree) in self.trees.iter().enumerate() {
            if tree.is_empty() {
                return Err(format!("tree {t} has no nodes"));
            }
            let mut reached = vec![false; tree.len()];
            let mut largest_leaf = 0f32;
            for (i, n) in tree.iter().enumerate() {
                if !n.threshold.is_finite() || !n.value.is_finite() {
                    return Err(format!(
                        "tree {t} node {i} holds a number that is not finite"
                    ));
                }
                if n.feature == LEAF {
                    largest_leaf = largest_leaf.max(n.value.abs());
                    continue;
                }
                if usize::from(n.feature) >= inputs {
                    return Err(format!(
                        "tree {t} node {i} splits on input {}, this build has {inputs}",
                        n.feature
                    ));
                }
                for child in [usize::from(n.left), usize::from(n.right)] {
                    if child <= i || child >= tree.len() {
                        return Err(format!(
                            "tree {t} node {i} has child {child}, not after it in the tree"
                        ));
                    }
                    if std::mem::replace(&mut reached[child], true) {
                        return Err(format!(
                            "tree {t} node {child} has two parents (not a tree)"
                        ));
                    }
                }
            }
            if let Some(i) = reached.iter().skip(1).position(|&r| !r) {
                return Err(format!(
                    "tree {t} node {} is not reached from the root",
                    i + 1
                ));
            }
            let this_depth = tree_depth(tree);
            if this_depth > MAX_DEPTH {
                return Err(format!("tree {t} is deeper than {MAX_DEPTH}"));
            }
            depth = depth.max(this_depth);
            nodes += tree.len();
            bound += f64::from(largest_leaf);
        }
        if bound > MAX_LOG_ODDS {
            return Err("the trees' values add up beyond any usable log-odds".into());
        }
        let leaves = self.trees.len().saturating_mul(1usize << depth);
        if leaves > MAX_LAYOUT_LEAVES.max(nodes.saturating_mul(LAYOUT_LEAVES_PER_NODE)) {
            return Err(format!(
                "{} trees padded to depth {depth} would need {leaves} leaves in memory",
                self.trees.len()
            ));
        }
        Ok(())
    }
}

/// Largest |log-odds| a valid forest can produce (far beyond any learned one; it keeps every
/// partial sum finite in `f32`, so evaluation never makes an infinity or NaN).
pub const MAX_LOG_ODDS: f64 = 1e30;

/// Leaves the padded layout of a valid forest may always hold (about 40 MB of layout); a
/// larger forest may have up to [`LAYOUT_LEAVES_PER_NODE`] per node, so the layout's memory is
/// a bounded multiple of the forest's (a single deep tree pads every shallow one to its depth).
pub const MAX_LAYOUT_LEAVES: usize = 1 << 22;

/// Padded leaves a valid forest may have per node, beyond [`MAX_LAYOUT_LEAVES`].
pub const LAYOUT_LEAVES_PER_NODE: usize = 64;

/// Deepest tree a forest may hold (evaluation pads every tree to a complete one this deep).
pub const MAX_DEPTH: usize = 10;

/// A forest laid out for fast evaluation: every tree padded to a complete binary tree of the
/// forest's depth, so a tree is walked with `depth` branch-free steps (a leaf reached early is
/// copied to every leaf below it, so any path from it gives its value).
#[derive(Clone, Debug, Default)]
pub struct CompiledForest {
    base: f32,
    depth: usize,
    /// Per tree, `2^depth - 1` splits in breadth-first order.
    features: Vec<u16>,
    thresholds: Vec<f32>,
    /// Per tree, `2^depth` leaf values.
    leaves: Vec<f32>,
}

impl CompiledForest {
    /// Lays out a valid forest (see [`Forest::is_valid`]).
    pub fn new(forest: &Forest) -> CompiledForest {
        let depth = forest
            .trees
            .iter()
            .map(|t| tree_depth(t))
            .max()
            .unwrap_or(0);
        let (splits, leaves) = ((1usize << depth) - 1, 1usize << depth);
        let mut compiled = CompiledForest {
            base: forest.base,
            depth,
            features: vec![0; splits * forest.trees.len()],
            thresholds: vec![f32::INFINITY; splits * forest.trees.len()],
            leaves: vec![0.0; leaves * forest.trees.len()],
        };
        for (t, tree) in forest.trees.iter().enumerate() {
            compiled.place(tree, 0, t, 0, 0);
        }
        compiled
    }

    /// Puts node `at` of `tree` at breadth-first slot `slot` of level `level` of tree `t`.
    fn place(&mut self, tree: &[Node], at: usize, t: usize, level: usize, slot: usize) {
        let node = &tree[at];
        if node.feature == LEAF {
            // Every leaf under this slot gets the value.
            let width = 1usize << (self.depth - level);
            let first = (slot + 1) * width - (1usize << self.depth);
            let start = t * (1usize << self.depth) + first;
            self.leaves[start..start + width].fill(node.value);
            return;
        }
        let i = t * ((1usize << self.depth) - 1) + slot;
        self.features[i] = node.feature;
        self.thresholds[i] = node.threshold;
        self.place(tree, usize::from(node.left), t, level + 1, 2 * slot + 1);
        self.place(tree, usize::from(node.right), t, level + 1, 2 * slot + 2);
    }

    /// The log-odds of `x` (the same as [`Forest::log_odds`]).
    pub fn log_odds(&self, x: &[f32]) -> f32 {
        let columns: Vec<[f32; LANES]> = x.iter().map(|&v| [v; LANES]).collect();
        self.log_odds_of_lanes(&columns)[0]
    }

    /// The log-odds of [`LANES`] inputs at once, given by input: `columns[i][k]` is input `i`
    /// of the `k`-th (each lane's result is [`CompiledForest::log_odds`] of its input).
    ///
    /// Forests up to 4 deep (the embedded one is 4) are evaluated split by split for all lanes
    /// (`CompiledForest::sum_shallow`), deeper ones path by path.
    pub fn log_odds_of_lanes(&self, columns: &[[f32; LANES]]) -> [f32; LANES] {
        match self.depth {
            1 => self.sum_shallow::<1, 1, 2>(columns),
            2 => self.sum_shallow::<2, 3, 4>(columns),
            3 => self.sum_shallow::<3, 7, 8>(columns),
            4 => self.sum_shallow::<4, 15, 16>(columns),
            _ => self.sum_walked(columns),
        }
    }

    /// For each split of a tree 4 deep, in breadth-first order, the leaves under its left and
    /// under its right child, one bit a leaf from the left. A shallower tree's splits are the
    /// first ones in the same order, and each of its leaves the bits of the `2^(4 - depth)`
    /// leaves below it.
    const SIDES: [(u32, u32); 15] = {
        let mut sides = [(0, 0); 15];
        let mut n: usize = 0;
        while n < 15 {
            // Level and place in it of split n; its subtree's leaves in a tree 4 deep.
            let level = (n + 1).ilog2();
            let place = n + 1 - (1 << level);
            let width = 16 >> (level + 1);
            let left = ((1u32 << width) - 1) << (2 * place * width);
            sides[n] = (left, left << width);
            n += 1;
        }
        sides
    };

    /// [`CompiledForest::log_odds_of_lanes`] of a forest `DEPTH` deep (1 to 4), with `SPLITS`
    /// splits and `LEAVES` leaves a tree: every split of a tree is compared for four lanes at
    /// once, one input's column against one threshold, and takes away from each lane the
    /// leaves on the side it does not go (a few vector instructions, no load waiting on
    /// another); the one leaf left is each lane's.
    fn sum_shallow<const DEPTH: usize, const SPLITS: usize, const LEAVES: usize>(
        &self,
        columns: &[[f32; LANES]],
    ) -> [f32; LANES] {
        let mut z = [self.base; LANES];
        let trees = self
            .features
            .chunks_exact(SPLITS)
            .zip(self.thresholds.chunks_exact(SPLITS))
            .zip(self.leaves.chunks_exact(LEAVES));
        for ((features, thresholds), values) in trees {
            // Four lanes at a time: a split's comparisons fill one SSE register.
            for half in 0..LANES / 4 {
                // Each lane's leaves still reachable ([`CompiledForest::SIDES`]). The splits
                // off a lane's path only take away leaves already off it, so one stays.
                let mut reachable = [0xffff_u32; 4];
                for n in 0..SPLITS {
                    let column = &columns[usize::from(features[n])][4 * half..4 * half + 4];
                    let (left, right) = Self::SIDES[n];
                    for k in 0..4 {
                        let goes = 0u32.wrapping_sub(goes_right(column[k], thresholds[n]));
                        reachable[k] &= !((goes & left) | (!goes & right));
                    }
                }
                for k in 0..4 {
                    let leaf = reachable[k].trailing_zeros() >> (4 - DEPTH);
                    z[4 * half + k] += values[leaf as usize % LEAVES];
                }
            }
        }
        z
    }

    /// [`CompiledForest::log_odds_of_lanes`] of a forest of any depth: each lane walks its
    /// path down each tree (the lanes' walks interleaved level by level, so their chains of
    /// dependent loads overlap).
    fn sum_walked(&self, columns: &[[f32; LANES]]) -> [f32; LANES] {
        let (splits, leaves) = ((1usize << self.depth) - 1, 1usize << self.depth);
        let trees = self.leaves.len() / leaves;
        let mut z = [self.base; LANES];
        for t in 0..trees {
            let features = &self.features[t * splits..(t + 1) * splits];
            let thresholds = &self.thresholds[t * splits..(t + 1) * splits];
            let mut slots = [0usize; LANES];
            for _ in 0..self.depth {
                for (k, slot) in slots.iter_mut().enumerate() {
                    let x = columns[usize::from(features[*slot])][k];
                    *slot = 2 * *slot + 1 + goes_right(x, thresholds[*slot]) as usize;
                }
            }
            let values = &self.leaves[t * leaves..(t + 1) * leaves];
            for (z, slot) in z.iter_mut().zip(slots) {
                *z += values[slot - splits];
            }
        }
        z
    }
}

/// Inputs [`CompiledForest::log_odds_of_lanes`] takes at once.
pub const LANES: usize = 8;

/// Whether input `x` goes right at a split of `threshold`: it is not below it (NaN too), as
/// in `leaf_value`.
#[inline(always)]
fn goes_right(x: f32, threshold: f32) -> u32 {
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    u32::from(!(x < threshold))
}

/// Depth of a tree (a lone leaf: 0), in one pass from the last node back: every child comes
/// after its parent, so its depth is known when the parent's is computed. A split whose
/// children are not after it in the tree gets depth `usize::MAX` (such a tree is invalid).
fn tree_depth(tree: &[Node]) -> usize {
    let mut depths = vec![0usize; tree.len()];
    for i in (0..tree.len()).rev() {
        let node = &tree[i];
        if node.feature != LEAF {
            let (left, right) = (usize::from(node.left), usize::from(node.right));
            depths[i] = match (depths.get(left), depths.get(right)) {
                (Some(&l), Some(&r)) if left > i && right > i => l.max(r).saturating_add(1),
                _ => usize::MAX,
            };
        }
    }
    depths.first().copied().unwrap_or(0)
}

/// The value of the leaf `x` falls into.
fn leaf_value(tree: &[Node], x: &[f32]) -> f32 {
    let mut at = 0usize;
    loop {
        let node = &tree[at];
        if node.feature == LEAF {
            return node.value;
        }
        // NaN goes right, like any value not below the threshold.
        at = usize::from(if x[usize::from(node.feature)] < node.threshold {
            node.left
        } else {
            node.right
        });
    }
}

/// Settings of `train`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoostOptions {
    /// How many trees are grown.
    pub trees: usize,
    /// The depth of each tree.
    pub depth: usize,
    /// Shrinkage applied to each tree's leaves.
    pub learning_rate: f64,
    /// L2 penalty on leaf values.
    pub lambda: f64,
    /// Smallest sum of Hessians in a child.
    pub min_child_weight: f64,
    /// Most quantile bins per input.
    pub bins: usize,
    /// Threads searching a split (the forest is the same for any number).
    pub threads: usize,
}

impl Default for BoostOptions {
    fn default() -> BoostOptions {
        BoostOptions {
            trees: 200,
            depth: 3,
            learning_rate: 0.1,
            lambda: 1.0,
            min_child_weight: 1.0,
            bins: 32,
            threads: 1,
        }
    }
}

/// Fits a forest to rows `x` (all of one length), labels `y` and example weights `w`.
pub fn train(x: &[Vec<f32>], y: &[bool], w: &[f64], opts: &BoostOptions) -> Forest {
    let n = x.len();
    let inputs = x.first().map_or(0, Vec::len);
    if n == 0 {
        return Forest::default();
    }
    let cuts: Vec<Vec<f32>> = (0..inputs)
        .map(|j| quantile_cuts(x.iter().map(|r| r[j]), opts.bins.min(256)))
        .collect();
    // bin[i * inputs + j]: number of cuts of input j at or below x[i][j]; NaN (not measured)
    // is above every cut, as evaluation sends it right at every split.
    let bin: Vec<u8> = x
        .iter()
        .flat_map(|row| {
            row.iter().zip(&cuts).map(|(&v, c)| {
                if v.is_nan() {
                    c.len() as u8
                } else {
                    c.partition_point(|&t| t <= v) as u8
                }
            })
        })
        .collect();
    let width = cuts.iter().map(Vec::len).max().unwrap_or(0) + 1;
    let total_w: f64 = w.iter().sum::<f64>().max(1e-12);
    let positive: f64 = y.iter().zip(w).filter(|(&l, _)| l).map(|(_, &w)| w).sum();
    let prior = (positive / total_w).clamp(1e-6, 1.0 - 1e-6);
    let base = (prior / (1.0 - prior)).ln();
    let mut z = vec![base; n];
    let mut forest = Forest {
        base: base as f32,
        trees: Vec::with_capacity(opts.trees),
    };
    let (mut g, mut h) = (vec![0.0; n], vec![0.0; n]);
    for _ in 0..opts.trees {
        for i in 0..n {
            let p = 1.0 / (1.0 + (-z[i]).exp());
            g[i] = w[i] * (p - f64::from(u8::from(y[i])));
            h[i] = w[i] * (p * (1.0 - p)).max(1e-12);
        }
        let mut tree = Vec::new();
        let rows: Vec<u32> = (0..n as u32).collect();
        let grower = Grower {
            bin: &bin,
            inputs,
            cuts: &cuts,
            width,
            g: &g,
            h: &h,
            opts,
        };
        grower.grow(rows, 0, &mut tree);
        for (zi, row) in z.iter_mut().zip(x) {
            *zi += f64::from(leaf_value(&tree, row));
        }
        forest.trees.push(tree);
    }
    forest
}

/// Up to `bins - 1` distinct cut points at quantiles of `values` (NaN ignored).
fn quantile_cuts(values: impl Iterator<Item = f32>, bins: usize) -> Vec<f32> {
    let mut v: Vec<f32> = values.filter(|x| !x.is_nan()).collect();
    v.sort_by(f32::total_cmp);
    let mut cuts = Vec::new();
    for k in 1..bins {
        let Some(&q) = v.get(k * v.len() / bins) else {
            break;
        };
        if cuts.last().is_none_or(|&last| q > last) && v.first().is_some_and(|&first| q > first) {
            cuts.push(q);
        }
    }
    cuts
}

struct Grower<'a> {
    bin: &'a [u8],
    inputs: usize,
    cuts: &'a [Vec<f32>],
    /// Cells of one input's histogram: its most cuts plus one.
    width: usize,
    g: &'a [f64],
    h: &'a [f64],
    opts: &'a BoostOptions,
}

/// Rows times inputs below which a split is searched on one thread (a thread costs more than
/// the search).
const PARALLEL_WORK: usize = 1 << 18;

impl Grower<'_> {
    /// Appends the subtree for `rows` to `tree`; returns its root's index.
    fn grow(&self, rows: Vec<u32>, depth: usize, tree: &mut Vec<Node>) -> u16 {
        let (gs, hs) = rows.iter().fold((0.0, 0.0), |(a, b), &i| {
            (a + self.g[i as usize], b + self.h[i as usize])
        });
        let at = tree.len();
        let leaf_value = (-gs / (hs + self.opts.lambda) * self.opts.learning_rate) as f32;
        tree.push(Node::leaf(leaf_value));
        if depth >= self.opts.depth || tree.len() > usize::from(u16::MAX) - 4 {
            return at as u16;
        }
        let Some((feature, cut)) = self.best_split(&rows, gs, hs) else {
            return at as u16;
        };
        let (left, right): (Vec<u32>, Vec<u32>) = rows
            .iter()
            .partition(|&&i| usize::from(self.bin[i as usize * self.inputs + feature]) <= cut);
        drop(rows);
        let l = self.grow(left, depth + 1, tree);
        let r = self.grow(right, depth + 1, tree);
        // Values below cuts[cut] have bins ≤ cut: the split is x < cuts[cut].
        tree[at] = Node::split(feature as u16, self.cuts[feature][cut], l, r);
        at as u16
    }

    /// The (input, bin) split with the largest gain, if any gains. The inputs are cut into
    /// contiguous ranges searched on up to `opts.threads` threads; each range keeps its first
    /// best and the ranges are compared in order, so the answer is the sequential one.
    fn best_split(&self, rows: &[u32], gs: f64, hs: f64) -> Option<(usize, usize)> {
        let threads = if rows.len() * self.inputs < PARALLEL_WORK {
            1
        } else {
            self.opts.threads.clamp(1, self.inputs.max(1))
        };
        let chunk = self.inputs.div_ceil(threads).max(1);
        let ranges: Vec<(usize, usize)> = (0..self.inputs)
            .step_by(chunk)
            .map(|lo| (lo, (lo + chunk).min(self.inputs)))
            .collect();
        let bests: Vec<Option<(f64, usize, usize)>> = if ranges.len() < 2 {
            ranges
                .iter()
                .map(|&r| self.best_split_of(rows, gs, hs, r))
                .collect()
        } else {
            // A range whose thread the system refuses is searched on this one.
            std::thread::scope(|scope| {
                let search = move |r| self.best_split_of(rows, gs, hs, r);
                let handles: Vec<_> = ranges
                    .iter()
                    .map(|&r| {
                        std::thread::Builder::new()
                            .spawn_scoped(scope, move || search(r))
                            .map_err(|_| r)
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| match h {
                        Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
                        Err(r) => search(r),
                    })
                    .collect()
            })
        };
        bests
            .into_iter()
            .flatten()
            .fold(None, |best: Option<(f64, usize, usize)>, b| {
                if best.is_none_or(|(g, _, _)| b.0 > g) {
                    Some(b)
                } else {
                    best
                }
            })
            .map(|(_, j, cut)| (j, cut))
    }

    /// The best split on inputs `lo..hi`: (gain, input, bin), the first of equal gains. The
    /// histograms of all these inputs are filled in one pass over the rows (each row's bins
    /// are adjacent in memory), in row order, so every sum is added in the same order as one
    /// input at a time would add it.
    fn best_split_of(
        &self,
        rows: &[u32],
        gs: f64,
        hs: f64,
        (lo, hi): (usize, usize),
    ) -> Option<(f64, usize, usize)> {
        let lambda = self.opts.lambda;
        let parent = gs * gs / (hs + lambda);
        let width = self.width;
        let mut hist = vec![(0.0f64, 0.0f64); (hi - lo) * width];
        for &i in rows {
            let i = i as usize;
            let (g, h) = (self.g[i], self.h[i]);
            let row = &self.bin[i * self.inputs + lo..i * self.inputs + hi];
            for (cells, &b) in hist.chunks_exact_mut(width).zip(row) {
                let cell = &mut cells[usize::from(b)];
                cell.0 += g;
                cell.1 += h;
            }
        }
        let mut best: Option<(f64, usize, usize)> = None;
        for (j, cells) in (lo..hi).zip(hist.chunks_exact(width)) {
            let cuts = self.cuts[j].len();
            let (mut gl, mut hl) = (0.0, 0.0);
            for (cut, &(gb, hb)) in cells[..cuts].iter().enumerate() {
                gl += gb;
                hl += hb;
                let (gr, hr) = (gs - gl, hs - hl);
                if hl < self.opts.min_child_weight || hr < self.opts.min_child_weight {
                    continue;
                }
                let gain = gl * gl / (hl + lambda) + gr * gr / (hr + lambda) - parent;
                if gain > 1e-9 && best.is_none_or(|(b, _, _)| gain > b) {
                    best = Some((gain, j, cut));
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forest_is_the_same_for_any_number_of_threads() {
        // Enough rows × inputs for the search to use threads; inputs 0 and 20 are copies, so
        // their splits tie across the threads' ranges and the first input must win.
        let mut state = 7u64;
        let mut next = move || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for _ in 0..12_000 {
            let mut row: Vec<f32> = (0..30).map(|_| next()).collect();
            row[20] = row[0];
            if row[5] < 0.1 {
                row[5] = f32::NAN;
            }
            y.push(row[0] + 0.5 * row[1] * row[2] > 0.6 + 0.2 * next());
            x.push(row);
        }
        let w: Vec<f64> = (0..x.len()).map(|i| 1.0 + (i % 3) as f64).collect();
        let forest = |threads| {
            let options = BoostOptions {
                trees: 8,
                depth: 4,
                threads,
                ..BoostOptions::default()
            };
            train(&x, &y, &w, &options)
        };
        let one = forest(1);
        assert!(one.trees.iter().flatten().any(|n| n.feature == 0));
        assert!(one.trees.iter().flatten().all(|n| n.feature != 20));
        for threads in [2, 3, 7] {
            assert_eq!(forest(threads), one, "{threads} threads");
        }
    }

    #[test]
    fn learns_an_interaction_a_linear_model_cannot() {
        // keep = (a > 0.5 and b > 0.5) or a < 0.2
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..20 {
            for k in 0..20 {
                let (a, b) = (i as f32 / 19.0, k as f32 / 19.0);
                x.push(vec![a, b]);
                y.push((a > 0.5 && b > 0.5) || a < 0.2);
            }
        }
        let w = vec![1.0; x.len()];
        let options = BoostOptions {
            trees: 50,
            depth: 2,
            ..BoostOptions::default()
        };
        let forest = train(&x, &y, &w, &options);
        assert!(forest.is_valid(2));
        let right = x
            .iter()
            .zip(&y)
            .filter(|(r, &l)| (forest.log_odds(r) > 0.0) == l)
            .count();
        assert!(right as f64 / x.len() as f64 > 0.95, "{right}");
        let compiled = CompiledForest::new(&forest);
        for row in &x {
            assert!((compiled.log_odds(row) - forest.log_odds(row)).abs() < 1e-5);
        }
        assert!(
            (compiled.log_odds(&[f32::NAN, 0.3]) - forest.log_odds(&[f32::NAN, 0.3])).abs() < 1e-5
        );
        // Deterministic.
        assert_eq!(forest, train(&x, &y, &w, &options));
    }

    /// A tree grown at random, with leaves at every level down to `depth`.
    fn random_tree(next: &mut impl FnMut() -> u32, depth: usize, tree: &mut Vec<Node>) -> u16 {
        let at = tree.len();
        if depth == 0 || next().is_multiple_of(4) {
            tree.push(Node::leaf((next() % 1000) as f32 / 100.0 - 5.0));
        } else {
            tree.push(Node::leaf(0.0));
            let (feature, threshold) = ((next() % 5) as u16, (next() % 100) as f32 / 100.0);
            let left = random_tree(next, depth - 1, tree);
            let right = random_tree(next, depth - 1, tree);
            tree[at] = Node::split(feature, threshold, left, right);
        }
        at as u16
    }

    #[test]
    fn lanes_of_shallow_and_deep_forests_give_each_input_its_log_odds() {
        let mut state = 0x2545_f491_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        for depth in 0..=7 {
            let trees = (0..20)
                .map(|_| {
                    let mut tree = Vec::new();
                    random_tree(&mut next, depth, &mut tree);
                    tree
                })
                .collect();
            let forest = Forest { base: 0.25, trees };
            assert!(forest.is_valid(5));
            let compiled = CompiledForest::new(&forest);
            for _ in 0..50 {
                let rows: Vec<Vec<f32>> = (0..LANES)
                    .map(|_| {
                        (0..5)
                            .map(|_| match next() % 10 {
                                0 => f32::NAN,
                                r => (r as f32 + (next() % 100) as f32) / 110.0,
                            })
                            .collect()
                    })
                    .collect();
                let columns: Vec<[f32; LANES]> = (0..5)
                    .map(|i| std::array::from_fn(|k| rows[k][i]))
                    .collect();
                let lanes = compiled.log_odds_of_lanes(&columns);
                for (row, &z) in rows.iter().zip(&lanes) {
                    assert!((z - forest.log_odds(row)).abs() < 1e-4, "depth {depth}");
                    assert_eq!(z.to_bits(), compiled.log_odds(row).to_bits());
                }
            }
        }
    }

    #[test]
    fn values_not_measured_are_learned_where_evaluation_sends_them() {
        // NaN (not measured) is kept, the lowest values too; the rest are dropped. Learning
        // must put NaN on the side a split sends it to (right, above every cut).
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..40 {
            x.push(vec![i as f32]);
            y.push(i < 5);
            x.push(vec![f32::NAN]);
            y.push(true);
        }
        let w = vec![1.0; x.len()];
        let options = BoostOptions {
            trees: 20,
            depth: 2,
            ..BoostOptions::default()
        };
        let forest = train(&x, &y, &w, &options);
        assert!(forest.log_odds(&[f32::NAN]) > 1.0);
        assert!(forest.log_odds(&[30.0]) < -1.0);
        assert!(forest.log_odds(&[1.0]) > 0.0);
    }

    #[test]
    fn invalid_forests_are_caught() {
        let leaf = Node::leaf(1.0);
        let split = Node::split(3, 0.5, 1, 2);
        let good = Forest {
            base: 0.0,
            trees: vec![vec![split, leaf, leaf]],
        };
        assert!(good.is_valid(4));
        assert!(!good.is_valid(3));
        let cycle = Forest {
            base: 0.0,
            trees: vec![vec![Node { left: 0, ..split }, leaf, leaf]],
        };
        assert!(!cycle.is_valid(4));
        let unreached = Forest {
            base: 0.0,
            trees: vec![vec![split, leaf, leaf, leaf]],
        };
        assert!(!unreached.is_valid(4));
        let shared = Forest {
            base: 0.0,
            trees: vec![vec![Node { right: 1, ..split }, leaf, leaf]],
        };
        assert!(!shared.is_valid(4));
        assert!(!Forest {
            base: 0.0,
            trees: vec![vec![]]
        }
        .is_valid(4));
        // Every number finite, and their sum too.
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            assert!(!Forest {
                base: bad,
                ..good.clone()
            }
            .is_valid(4));
            assert!(!Forest {
                base: 0.0,
                trees: vec![vec![
                    Node {
                        threshold: bad,
                        ..split
                    },
                    leaf,
                    leaf
                ]]
            }
            .is_valid(4));
            assert!(!Forest {
                base: 0.0,
                trees: vec![vec![split, Node { value: bad, ..leaf }, leaf]]
            }
            .is_valid(4));
        }
        let huge = Node {
            value: f32::MAX,
            ..leaf
        };
        assert!(!Forest {
            base: 0.0,
            trees: vec![vec![huge]; 3]
        }
        .is_valid(4));
        assert!(Forest {
            base: 0.0,
            trees: vec![
                vec![Node {
                    value: 1e20,
                    ..leaf
                }];
                3
            ]
        }
        .is_valid(4));
    }

    /// A chain of `n` splits whose two children are both the next node (a DAG of depth `n`).
    fn dag(n: u16, distinct: bool) -> Vec<Node> {
        let mut tree: Vec<Node> = (0..n)
            .map(|i| Node::split(0, 0.5, i + 1, if distinct { i + 2 } else { i + 1 }))
            .collect();
        tree.push(Node::leaf(1.0));
        tree.push(Node::leaf(1.0));
        tree
    }

    #[test]
    fn shared_children_are_refused_in_linear_time() {
        // 2^45 paths through 47 nodes: the old recursive depth never finished.
        let started = std::time::Instant::now();
        for distinct in [false, true] {
            for n in [45, 60_000] {
                let forest = Forest {
                    base: 0.0,
                    trees: vec![dag(n, distinct)],
                };
                let err = forest.validate(1).unwrap_err();
                assert!(err.contains("two parents"), "{err}");
                assert!(tree_depth(&forest.trees[0]) >= usize::from(n) / 2);
            }
        }
        // A guard against the exponential walk (which never ends), not a measure of speed.
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn depth_and_layout_are_bounded() {
        // A complete tree of depth d, in the grower's order (each split before its subtrees).
        fn complete(depth: usize, tree: &mut Vec<Node>) -> u16 {
            let at = tree.len();
            tree.push(Node::leaf(0.5));
            if depth > 0 {
                let left = complete(depth - 1, tree);
                let right = complete(depth - 1, tree);
                tree[at] = Node::split(0, 0.5, left, right);
            }
            at as u16
        }
        let tree = |depth| {
            let mut t = Vec::new();
            complete(depth, &mut t);
            t
        };
        assert_eq!(tree_depth(&tree(MAX_DEPTH)), MAX_DEPTH);
        assert!(Forest {
            base: 0.0,
            trees: vec![tree(MAX_DEPTH)]
        }
        .is_valid(1));
        let err = Forest {
            base: 0.0,
            trees: vec![tree(MAX_DEPTH + 1)],
        }
        .validate(1)
        .unwrap_err();
        assert!(err.contains("deeper"), "{err}");
        // One deep tree pads many one-leaf trees to its depth: refused once that is too big.
        let leaf = Node::leaf(0.5);
        let mut trees = vec![tree(MAX_DEPTH)];
        trees.resize(MAX_LAYOUT_LEAVES >> MAX_DEPTH, vec![leaf]);
        assert!(Forest {
            base: 0.0,
            trees: trees.clone()
        }
        .is_valid(1));
        trees.push(vec![leaf]);
        let err = Forest { base: 0.0, trees }.validate(1).unwrap_err();
        assert!(err.contains("leaves in memory"), "{err}");
    }
}
