//! The combined method's classifier ([`Classifier`]): the boilerplate language model and the
//! learned weights, the classifier input of a block and its neighbours, and the decision over
//! one document's blocks. Its file format is in `file.rs`.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use super::rules::{self, Headlines, Sight};
use super::viterbi::viterbi;
use super::Choices;
use crate::block::{Block, Evidence, PageKind, EVIDENCE_VALUES};
use crate::boost::{CompiledForest, Forest, LANES};
use crate::evidence::{Analysis, KindModel};
use crate::lm::model::LanguageModel;

/// What the decision knows of a document as a whole.
pub struct PageView<'a> {
    /// What only the whole document shows, made of its blocks.
    pub analysis: &'a Analysis,
    /// The kind it is decided as (`--kind`, else told by `crate::evidence::tell_kind`): the
    /// classifier's evidence. It learned the kinds pages declare (`ppl-filter learn`), which
    /// a page of no known kind and a declared article may not say: told, a news page that
    /// declares nothing is decided as the articles that do.
    pub kind: PageKind,
    /// The page's `<title>`, the title it declares for sharing (`og:title` and such) and
    /// JSON-LD's `headline`, which name its headline.
    pub titles: [Option<&'a str>; 3],
}

/// Blocks on each side whose evidence enters a block's decision.
pub const CONTEXT_RADIUS: usize = 2;

/// Length of the classifier's input: the evidence of the block and of its neighbours.
pub const INPUTS: usize = EVIDENCE_VALUES * (2 * CONTEXT_RADIUS + 1);

/// What turns a block's classifier input into log-odds of keeping it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scorer {
    /// Logistic regression over standardised inputs.
    Logistic(Logistic),
    /// Gradient-boosted shallow trees.
    Trees(Forest),
}

/// A logistic regression over standardised inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Logistic {
    /// Mean of every input over the training blocks.
    pub mean: Vec<f32>,
    /// Standard deviation of every input (1 where it was 0).
    pub scale: Vec<f32>,
    /// Weights over the standardised inputs.
    pub weights: Vec<f32>,
    /// Log-odds at the mean input.
    pub intercept: f32,
}

impl Logistic {
    /// Log-odds for the classifier input `x`.
    pub fn log_odds(&self, x: &[f32; INPUTS]) -> f32 {
        let Logistic {
            mean,
            scale,
            weights,
            intercept,
        } = self;
        let mut z = *intercept;
        for i in 0..INPUTS {
            z += weights[i] * (x[i] - mean[i]) / scale[i];
        }
        if z.is_nan() {
            // Extreme (finite) parameters overflowed into ∞ − ∞: in f64 the terms stay
            // finite, so the sum is at worst ±∞ in f32, which the decision handles.
            let term = |i: usize| {
                f64::from(weights[i]) * (f64::from(x[i]) - f64::from(mean[i])) / f64::from(scale[i])
            };
            z = (f64::from(*intercept) + (0..INPUTS).map(term).sum::<f64>()) as f32;
        }
        z
    }

    /// Why the parameters cannot be used, if they cannot: a size that is not this build's, a
    /// value that is not finite, a scale that is not positive.
    pub fn check(&self) -> Result<(), String> {
        let vectors = [
            ("mean", &self.mean),
            ("scale", &self.scale),
            ("weights", &self.weights),
        ];
        for (name, v) in vectors {
            if v.len() != INPUTS {
                return Err(format!(
                    "{name} has {} values, this build needs {INPUTS}",
                    v.len()
                ));
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(format!("{name} holds a value that is not finite"));
            }
        }
        if self.scale.iter().any(|&s| s <= 0.0) {
            return Err("a scale is not positive".into());
        }
        if !self.intercept.is_finite() {
            return Err("the intercept is not finite".into());
        }
        Ok(())
    }
}

/// The learned parameters of the combined method (the JSON part of a classifier file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// What turns the evidence into log-odds.
    pub scorer: Scorer,
    /// Log-odds subtracted before the decision (0 keeps a block when P(keep) > 0.5).
    pub threshold: f32,
    /// log P(next label | label) between neighbouring blocks, `[from][to]`, 0 = drop, 1 = keep.
    pub transition: [[f32; 2]; 2],
    /// Weight of the transitions against the classifier (0: no smoothing).
    pub smoothing: f32,
    /// How the parameters were made.
    pub provenance: String,
    /// The names of the evidence values the classifier was learned on
    /// ([`Evidence::NAMES`], in order; empty in files made before they were recorded): a
    /// file learned on other evidence is refused rather than misread.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
    /// The page-kind model that tells the kind of a page that declares none when this
    /// classifier decides (a cross-validation fold carries one that never saw its held-out
    /// pages); `None`: the embedded one (`KindModel::embedded`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_kinds: Option<KindModel>,
}

impl Weights {
    /// The evidence names this build's classifiers are learned on.
    pub fn evidence_names() -> Vec<String> {
        Evidence::NAMES.iter().map(|n| n.to_string()).collect()
    }
}

/// The combined method's model: the boilerplate language model and the learned weights
/// (read and written by `file.rs`).
pub struct Classifier {
    /// Word n-gram model of boilerplate text (trained on what did not align to gold).
    pub boilerplate: LanguageModel,
    /// Everything else.
    pub weights: Weights,
    /// The trees of `weights`, laid out for evaluation.
    compiled: CompiledForest,
}

impl std::fmt::Debug for Classifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Classifier")
            .field("weights", &self.weights.provenance)
            .finish_non_exhaustive()
    }
}

impl Classifier {
    pub(super) fn new(boilerplate: LanguageModel, weights: Weights) -> Classifier {
        let compiled = match &weights.scorer {
            Scorer::Trees(forest) => CompiledForest::new(forest),
            Scorer::Logistic(_) => CompiledForest::default(),
        };
        Classifier {
            boilerplate,
            weights,
            compiled,
        }
    }

    /// The model that tells the kind of a page that declares none: the one learned with the
    /// classifier, else the embedded one.
    pub fn page_kinds(&self) -> &KindModel {
        self.weights
            .page_kinds
            .as_ref()
            .unwrap_or_else(|| KindModel::embedded())
    }

    /// The log-odds of keeping each block, plus `shift`, from every block's
    /// [`evidence_values`]: the same as [`Classifier::log_odds`] of each block's
    /// [`context_input`], taken [`LANES`] blocks at a time.
    fn log_odds_of_blocks(&self, evidence: &[[f32; EVIDENCE_VALUES]], shift: f32) -> Vec<f64> {
        let mut all = Vec::with_capacity(evidence.len());
        let mut columns = [[0.0; LANES]; INPUTS];
        for first in (0..evidence.len()).step_by(LANES) {
            // Past the last block, the last block again (its results are not kept).
            let lane_block = |k: usize| (first + k).min(evidence.len() - 1);
            let log_odds = match &self.weights.scorer {
                Scorer::Logistic(logistic) => std::array::from_fn::<_, LANES, _>(|k| {
                    logistic.log_odds(&context_input(evidence, lane_block(k)))
                }),
                Scorer::Trees(_) => {
                    // The inputs by column, written straight from the rows.
                    for k in 0..LANES {
                        for (at, row) in context_rows(evidence, lane_block(k)) {
                            let inputs = &mut columns[at..at + EVIDENCE_VALUES];
                            match row {
                                Some(row) => {
                                    for (column, &value) in inputs.iter_mut().zip(row) {
                                        column[k] = value;
                                    }
                                }
                                None => inputs.iter_mut().for_each(|column| column[k] = 0.0),
                            }
                        }
                    }
                    self.compiled.log_odds_of_lanes(&columns)
                }
            };
            let blocks = LANES.min(evidence.len() - first);
            all.extend(log_odds[..blocks].iter().map(|&z| f64::from(z + shift)));
        }
        all
    }

    /// P(keep)'s log-odds for the classifier input `x` (before the threshold).
    pub fn log_odds(&self, x: &[f32; INPUTS]) -> f32 {
        match &self.weights.scorer {
            Scorer::Logistic(logistic) => logistic.log_odds(x),
            Scorer::Trees(_) => self.compiled.log_odds(x),
        }
    }
}

/// The default classifier compiled into the binary, learned on CleanEval `tune`.
pub fn embedded() -> Arc<Classifier> {
    static BYTES: &[u8] = include_bytes!("../../model/en-classifier.bin");
    static EMBEDDED: OnceLock<Arc<Classifier>> = OnceLock::new();
    EMBEDDED
        .get_or_init(|| match Classifier::from_static(BYTES) {
            Ok(c) => Arc::new(c),
            // Checked by a unit test; failing here is a build bug.
            Err(e) => panic!("embedded classifier model/en-classifier.bin is invalid: {e}"),
        })
        .clone()
}

/// The values of each block's [`Evidence`] in classifier order, for [`context_input`]: made once
/// per block rather than once for every input a block enters.
pub fn evidence_values(blocks: &[Block]) -> Vec<[f32; EVIDENCE_VALUES]> {
    blocks.iter().map(|b| b.evidence.values()).collect()
}

/// The classifier input's layout, its one definition: the evidence rows of the blocks from
/// [`CONTEXT_RADIUS`] before `at` to as many after, each with the index of its first input
/// (`None` outside the slice: those inputs are padding, 0.0).
fn context_rows(
    evidence: &[[f32; EVIDENCE_VALUES]],
    at: usize,
) -> impl Iterator<Item = (usize, Option<&[f32; EVIDENCE_VALUES]>)> {
    (-(CONTEXT_RADIUS as isize)..=CONTEXT_RADIUS as isize)
        .enumerate()
        .map(move |(slot, offset)| {
            let row = at.checked_add_signed(offset).and_then(|i| evidence.get(i));
            (slot * EVIDENCE_VALUES, row)
        })
}

/// The classifier input of the block at `at`, from every block's [`evidence_values`] (padding
/// outside the slice).
pub fn context_input(evidence: &[[f32; EVIDENCE_VALUES]], at: usize) -> [f32; INPUTS] {
    let mut x = [0.0; INPUTS];
    for (first, row) in context_rows(evidence, at) {
        if let Some(row) = row {
            x[first..first + EVIDENCE_VALUES].copy_from_slice(row);
        }
    }
    x
}

impl Classifier {
    /// Keep or drop for each block of one document (measured, in order, with the evidence of
    /// `DocumentContext`): document evidence is added, each block is scored with its
    /// neighbours, the labels are smoothed by an exact Viterbi pass (when `smoothing` is on),
    /// and the rules after the labels apply (`rules::RULES`, in order); `page` says what the
    /// whole page is, and `choices` may lean the decision either way and keep comments.
    pub fn decide(&self, blocks: &mut [Block], page: &PageView, choices: &Choices) -> Vec<bool> {
        page.analysis.annotate(blocks, page.kind);
        let evidence = evidence_values(blocks);
        let w = &self.weights;
        let shift = choices.shift() - w.threshold;
        let log_odds = self.log_odds_of_blocks(&evidence, shift);
        let mut keep = if w.smoothing == 0.0 {
            log_odds.iter().map(|&z| z > 0.0).collect()
        } else {
            viterbi(&log_odds, &w.transition, f64::from(w.smoothing))
        };
        let mut titles = page.titles.iter().flatten().copied().peekable();
        let headlines = titles.peek().is_some().then(|| Headlines::of(titles));
        let sight = Sight {
            blocks,
            analysis: page.analysis,
            kind: page.kind,
            comments: choices.comments,
            log_odds: &log_odds,
            headlines: headlines.as_ref(),
        };
        rules::apply(&sight, &mut keep);
        keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::BlockKind;

    #[test]
    fn blocks_taken_lanes_at_a_time_score_as_each_block_alone() {
        // The trees read the inputs by column, written from the evidence rows; each block's
        // log-odds must be those of its own input, for any number of blocks (lanes left over,
        // padding at both ends).
        let classifier = embedded();
        let value = |i: usize, v: usize| ((i * 31 + v * 17) % 23) as f32 / 7.0 - 1.0;
        for blocks in 0..=2 * LANES + 1 {
            let evidence: Vec<[f32; EVIDENCE_VALUES]> = (0..blocks)
                .map(|i| std::array::from_fn(|v| value(i, v)))
                .collect();
            let together = classifier.log_odds_of_blocks(&evidence, 0.5);
            assert_eq!(together.len(), blocks);
            for (i, &z) in together.iter().enumerate() {
                let alone = classifier.log_odds(&context_input(&evidence, i)) + 0.5;
                assert_eq!(z, f64::from(alone), "block {i} of {blocks}");
            }
        }
    }

    #[test]
    fn the_classifier_reads_the_kind_the_page_is_decided_as() {
        let mut blocks = vec![Block::new(0, BlockKind::Paragraph, "A story told.")];
        let analysis = Analysis::of(&blocks);
        for (kind, article) in [(PageKind::Article, 1.0), (PageKind::Other, 0.0)] {
            let page = PageView {
                analysis: &analysis,
                kind,
                titles: [None, None, None],
            };
            embedded().decide(&mut blocks, &page, &Choices::default());
            assert_eq!(blocks[0].evidence.kind_article, article, "{kind:?}");
        }
    }
}
