//! The keep/drop decision for each sentence, by one of two methods.
//!
//! * `perplexity` ([`Policy`]): PyPlexity's rule (drop a sentence whose perplexity is above a
//!   threshold) plus one structural rule that PyPlexity lacks: a block whose text is mostly link
//!   text (menus, tag clouds, "related articles") is dropped whole.
//! * `combined` ([`Classifier`]): boosted shallow trees (or a logistic regression) over the
//!   evidence of a block and of its neighbours ([`crate::features`]: perplexity under the general
//!   and the boilerplate model, their ratio, shape, markup hints and position), optionally
//!   and of the whole document ([`crate::document`]), optionally followed by a two-state Viterbi
//!   pass that smooths the keep/drop labels between neighbouring blocks, and the rescue of an
//!   article left empty. A kept block's sentences still obey the perplexity threshold.
//!
//! Both run in document order through a [`Decider`]: the perplexity method decides each block
//! as it comes, the combined method holds a document (or a piece of a long one) bounded by
//! `max_document_bytes`.

use std::io::Read;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use crate::block::{Block, ContainerHints};
use crate::boost::{CompiledForest, Forest};
use crate::features::{DocumentContext, Evidence, LOCAL, PRESENT};
use crate::lm::model::{read_model, LanguageModel, ModelError};

/// Default perplexity threshold, calibrated on CleanEval `tune` by `scripts/calibrate.sh`.
pub const DEFAULT_MAX_PERPLEXITY: f32 = 3_000_000.0;

/// Default link-density limit, calibrated with the threshold.
pub const DEFAULT_MAX_LINK_DENSITY: f32 = 0.4;

/// The thresholds of the keep/drop rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    /// Sentences with a higher perplexity are dropped; `None`: the method's default
    /// ([`DEFAULT_MAX_PERPLEXITY`] for the perplexity method, none for the combined one, whose
    /// classifier weighs perplexity with the rest of the evidence: a threshold on English
    /// perplexity would empty pages in other languages).
    pub max_perplexity: Option<f32>,
    /// Blocks with a higher share of link text are dropped whole.
    pub max_link_density: f32,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            max_perplexity: None,
            max_link_density: DEFAULT_MAX_LINK_DENSITY,
        }
    }
}

/// Which way the combined method leans when a block is in doubt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Favor {
    /// One balanced decision for CleanEval-style pages and articles alike.
    #[default]
    Balanced,
    /// Keep less: only what is clearly main content.
    Precision,
    /// Keep more: anything that may be main content.
    Recall,
}

impl Favor {
    /// Log-odds added to every block's score before the decision.
    fn shift(self) -> f32 {
        match self {
            Favor::Balanced => 0.0,
            Favor::Precision => -FAVOR_SHIFT,
            Favor::Recall => FAVOR_SHIFT,
        }
    }
}

/// How far `--favor-precision` and `--favor-recall` move the decision, in log-odds (their
/// cross-validated effect is in the README, "Accuracy").
pub const FAVOR_SHIFT: f32 = 1.0;

/// The combined method's settings besides the classifier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choices {
    pub favor: Favor,
    /// Keep readers' comments (prose blocks under an element named like a comment thread),
    /// which the default drops like the Dragnet gold does.
    pub comments: bool,
    /// A document is decided whole up to this size ([`Decider`]).
    pub max_document_bytes: usize,
}

impl Default for Choices {
    fn default() -> Choices {
        Choices {
            favor: Favor::Balanced,
            comments: false,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
        }
    }
}

/// Why a [`Policy`] threshold is unusable (NaN would silently drop everything).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum PolicyError {
    /// The perplexity threshold is not a finite number above 0.
    #[error("perplexity threshold {0} is not a finite number above 0")]
    MaxPerplexity(f32),
    /// The link-density limit is not a share from 0 to 1.
    #[error("link density limit {0} is not a share from 0 to 1")]
    MaxLinkDensity(f32),
}

/// Scores every sentence of the block under `model`.
pub fn score(block: &mut Block, model: &LanguageModel) {
    let Block {
        text, sentences, ..
    } = block;
    for sentence in sentences.iter_mut() {
        sentence.perplexity = model.perplexity(&text[sentence.range()]) as f32;
    }
}

impl Policy {
    /// A policy with these thresholds, if both are usable (see [`Policy::validate`]).
    pub fn new(max_perplexity: f32, max_link_density: f32) -> Result<Policy, PolicyError> {
        let policy = Policy {
            max_perplexity: Some(max_perplexity),
            max_link_density,
        };
        policy.validate().map(|()| policy)
    }

    /// Checks the perplexity threshold is finite and above 0 and the link-density limit is
    /// in [0, 1] (a NaN in either would drop every sentence without a word).
    pub fn validate(&self) -> Result<(), PolicyError> {
        if let Some(max_perplexity) = self.max_perplexity {
            Policy::check_max_perplexity(max_perplexity)?;
        }
        Policy::check_max_link_density(self.max_link_density)?;
        Ok(())
    }

    /// `max_perplexity` if it is a usable perplexity threshold (finite, above 0).
    pub fn check_max_perplexity(max_perplexity: f32) -> Result<f32, PolicyError> {
        if max_perplexity.is_finite() && max_perplexity > 0.0 {
            Ok(max_perplexity)
        } else {
            Err(PolicyError::MaxPerplexity(max_perplexity))
        }
    }

    /// `max_link_density` if it is a usable link-density limit (from 0 to 1).
    pub fn check_max_link_density(max_link_density: f32) -> Result<f32, PolicyError> {
        if (0.0..=1.0).contains(&max_link_density) {
            Ok(max_link_density)
        } else {
            Err(PolicyError::MaxLinkDensity(max_link_density))
        }
    }

    /// Whether the block survives the link-density rule (its sentences may still be dropped).
    pub fn block_passes(&self, block: &Block) -> bool {
        block.link_density() as f32 <= self.max_link_density
    }

    /// Sets `keep` on every sentence of a scored block.
    pub fn decide(&self, block: &mut Block) {
        let block_ok = self.block_passes(block);
        let max_perplexity = self.max_perplexity.unwrap_or(DEFAULT_MAX_PERPLEXITY);
        for sentence in &mut block.sentences {
            sentence.keep = block_ok && sentence.perplexity <= max_perplexity;
        }
    }
}

/// Which decision is made.
#[derive(Clone, Debug)]
pub enum Method {
    /// Perplexity threshold plus the link-density rule ([`Policy`]).
    Perplexity,
    /// The learned classifier with context smoothing.
    Combined(Arc<Classifier>),
}

impl Method {
    /// The classifier, for the combined method.
    pub fn classifier(&self) -> Option<&Classifier> {
        match self {
            Method::Perplexity => None,
            Method::Combined(c) => Some(c),
        }
    }
}

/// Blocks on each side whose evidence enters a block's decision.
pub const CONTEXT_RADIUS: usize = 2;

/// Length of the classifier's input: the evidence of the block and of its neighbours.
pub const INPUTS: usize = LOCAL * (2 * CONTEXT_RADIUS + 1);

/// What turns a block's classifier input into log-odds of keeping it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scorer {
    /// Logistic regression over standardised inputs.
    Logistic {
        /// Mean of every input over the training blocks.
        mean: Vec<f32>,
        /// Standard deviation of every input (1 where it was 0).
        scale: Vec<f32>,
        /// Weights over the standardised inputs.
        weights: Vec<f32>,
        intercept: f32,
    },
    /// Gradient-boosted shallow trees.
    Trees(Forest),
}

/// The learned parameters of the combined method (the JSON part of a classifier file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    pub scorer: Scorer,
    /// Log-odds subtracted before the decision (0 keeps a block when P(keep) > 0.5).
    pub threshold: f32,
    /// log P(next label | label) between neighbouring blocks, `[from][to]`, 0 = drop, 1 = keep.
    pub transition: [[f32; 2]; 2],
    /// Weight of the transitions against the classifier (0: no smoothing).
    pub smoothing: f32,
    /// How the parameters were made.
    pub provenance: String,
}

/// Why a classifier file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ClassifierError {
    /// Reading the file failed.
    #[error("cannot read classifier: {0}")]
    Io(#[from] std::io::Error),
    /// The file does not start with the classifier header.
    #[error("not a ppl-filter classifier (bad header)")]
    BadHeader,
    /// The file ends early.
    #[error("classifier file is truncated")]
    Truncated,
    /// The parameters are malformed or do not fit this build.
    #[error("corrupt classifier: {0}")]
    Corrupt(String),
    /// The embedded boilerplate model is unusable.
    #[error("classifier's boilerplate model: {0}")]
    Model(#[from] ModelError),
}

/// First line of a classifier file, before the JSON length.
const HEADER: &str = "PPLC 1 ";

/// The combined method's model: the boilerplate language model and the learned weights.
///
/// File format: `PPLC 1 <n>\n`, then `n` bytes of JSON ([`Weights`]), then the boilerplate
/// model in the language-model format (`PPLM`, checksummed).
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
    /// Reads and validates a classifier file.
    ///
    /// The header line, the parameters and the model are read in turn, each only up to the
    /// length recorded before it, and a regular file's recorded lengths are checked against
    /// its size before anything is read: memory grows with the bytes actually present, never
    /// with a recorded length, so a damaged header or an endless stream (a device, a pipe)
    /// cannot exhaust it.
    pub fn open(path: &Path) -> Result<Classifier, ClassifierError> {
        let mut file = std::fs::File::open(path)?;
        let metadata = file.metadata()?;
        let size = metadata.is_file().then_some(metadata.len());
        let mut head = Vec::with_capacity(HEADER_LINE_MAX);
        (&mut file)
            .take(HEADER_LINE_MAX as u64)
            .read_to_end(&mut head)?;
        let (start, len) = parse_header(&head)?;
        // Bytes after the header line, if known; the parameters must leave room for a model.
        let rest = size.map(|size| size.saturating_sub(start as u64));
        if rest.is_some_and(|rest| len >= rest) {
            return Err(ClassifierError::Truncated);
        }
        let mut reader = (&head[start..]).chain(file);
        let mut json = Vec::new();
        if rest.is_some() {
            // `len` is below the file's size here.
            json.try_reserve_exact(len as usize)
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
        }
        (&mut reader).take(len).read_to_end(&mut json)?;
        if (json.len() as u64) < len {
            return Err(ClassifierError::Truncated);
        }
        let weights = parse_weights(&json)?;
        drop(json);
        let model = read_model(&mut reader, rest.map(|rest| rest - len))?;
        if model.is_empty() {
            return Err(ClassifierError::Truncated);
        }
        Ok(Classifier::new(LanguageModel::from_bytes(model)?, weights))
    }

    /// Validates and parses classifier bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Classifier, ClassifierError> {
        let (weights, model) = split_file(bytes)?;
        Ok(Classifier::new(
            LanguageModel::from_bytes(model.to_vec())?,
            weights,
        ))
    }

    /// Validates and wraps classifier bytes with static lifetime (the embedded one).
    pub fn from_static(bytes: &'static [u8]) -> Result<Classifier, ClassifierError> {
        let (weights, model) = split_file(bytes)?;
        Ok(Classifier::new(LanguageModel::from_static(model)?, weights))
    }

    fn new(boilerplate: LanguageModel, weights: Weights) -> Classifier {
        let compiled = match &weights.scorer {
            Scorer::Trees(forest) => CompiledForest::new(forest),
            Scorer::Logistic { .. } => CompiledForest::default(),
        };
        Classifier {
            boilerplate,
            weights,
            compiled,
        }
    }

    /// The file bytes for `weights` and the boilerplate model's bytes; refused when the
    /// parameters are larger than a classifier file may hold ([`MAX_PARAMETERS_BYTES`]).
    pub fn to_bytes(
        weights: &Weights,
        boilerplate_model: &[u8],
    ) -> Result<Vec<u8>, ClassifierError> {
        let json = serde_json::to_vec(weights).expect("weights serialise");
        if json.len() as u64 > MAX_PARAMETERS_BYTES {
            return Err(ClassifierError::Corrupt(format!(
                "{} bytes of parameters, more than the limit of {MAX_PARAMETERS_BYTES}: fewer or shallower trees",
                json.len()
            )));
        }
        let mut out = format!("{HEADER}{}\n", json.len()).into_bytes();
        out.extend_from_slice(&json);
        out.extend_from_slice(boilerplate_model);
        Ok(out)
    }

    /// P(keep)'s log-odds for the classifier input `x` (before the threshold).
    pub fn log_odds(&self, x: &[f32; INPUTS]) -> f32 {
        match &self.weights.scorer {
            Scorer::Logistic {
                mean,
                scale,
                weights,
                intercept,
            } => {
                let mut z = *intercept;
                for i in 0..INPUTS {
                    z += weights[i] * (x[i] - mean[i]) / scale[i];
                }
                if z.is_nan() {
                    // Extreme (finite) parameters overflowed into ∞ − ∞: in f64 the terms stay
                    // finite, so the sum is at worst ±∞ in f32, which the decision handles.
                    let term = |i: usize| {
                        f64::from(weights[i]) * (f64::from(x[i]) - f64::from(mean[i]))
                            / f64::from(scale[i])
                    };
                    z = (f64::from(*intercept) + (0..INPUTS).map(term).sum::<f64>()) as f32;
                }
                z
            }
            Scorer::Trees(_) => self.compiled.log_odds(x),
        }
    }
}

/// Longest header line (`PPLC 1 <n>` and the newline) looked for.
const HEADER_LINE_MAX: usize = 64;

/// The largest parameter section a classifier file may have (the default classifier's is
/// about 100 KB; 2,000 trees of depth 10 fit): parsing it takes a few times its size.
pub const MAX_PARAMETERS_BYTES: u64 = 64 << 20;

/// Where the parameters start (after the header line) and their recorded length.
fn parse_header(bytes: &[u8]) -> Result<(usize, u64), ClassifierError> {
    let line_end = memchr::memchr(b'\n', &bytes[..bytes.len().min(HEADER_LINE_MAX)])
        .ok_or(ClassifierError::BadHeader)?;
    let line = std::str::from_utf8(&bytes[..line_end]).map_err(|_| ClassifierError::BadHeader)?;
    let len: u64 = line
        .strip_prefix(HEADER)
        .and_then(|n| n.parse().ok())
        .ok_or(ClassifierError::BadHeader)?;
    if len > MAX_PARAMETERS_BYTES {
        return Err(ClassifierError::Corrupt(format!(
            "{len} bytes of parameters, more than the limit of {MAX_PARAMETERS_BYTES}"
        )));
    }
    Ok((line_end + 1, len))
}

fn split_file(bytes: &[u8]) -> Result<(Weights, &[u8]), ClassifierError> {
    let (start, len) = parse_header(bytes)?;
    // Checked: the recorded length may be anything up to u64::MAX.
    let end = usize::try_from(len)
        .ok()
        .and_then(|len| start.checked_add(len))
        .filter(|&end| end <= bytes.len())
        .ok_or(ClassifierError::Truncated)?;
    let weights = parse_weights(&bytes[start..end])?;
    let model = &bytes[end..];
    if model.is_empty() {
        return Err(ClassifierError::Truncated);
    }
    Ok((weights, model))
}

/// Parses and validates the parameters: every number finite, every size and index in range
/// (so evaluation cannot index out of bounds, loop, or make a NaN), the trees proper trees.
fn parse_weights(json: &[u8]) -> Result<Weights, ClassifierError> {
    let weights: Weights =
        serde_json::from_slice(json).map_err(|e| ClassifierError::Corrupt(e.to_string()))?;
    let corrupt = |message: String| Err(ClassifierError::Corrupt(message));
    match &weights.scorer {
        Scorer::Logistic {
            mean,
            scale,
            weights,
            intercept,
        } => {
            for (name, v) in [("mean", mean), ("scale", scale), ("weights", weights)] {
                if v.len() != INPUTS {
                    return corrupt(format!(
                        "{name} has {} values, this build needs {INPUTS}",
                        v.len()
                    ));
                }
                if v.iter().any(|x| !x.is_finite()) {
                    return corrupt(format!("{name} holds a value that is not finite"));
                }
            }
            if scale.iter().any(|&s| s <= 0.0) {
                return corrupt("a scale is not positive".into());
            }
            if !intercept.is_finite() {
                return corrupt("the intercept is not finite".into());
            }
        }
        Scorer::Trees(forest) => {
            if let Err(e) = forest.validate(INPUTS) {
                return corrupt(e);
            }
        }
    }
    if !weights.threshold.is_finite() {
        return corrupt("the decision threshold is not finite".into());
    }
    if !weights.smoothing.is_finite() || weights.transition.iter().flatten().any(|t| !t.is_finite())
    {
        return corrupt("a smoothing weight or transition is not finite".into());
    }
    Ok(weights)
}

/// The default classifier compiled into the binary, learned on CleanEval `tune`.
pub fn embedded() -> Arc<Classifier> {
    static BYTES: &[u8] = include_bytes!("../model/en-classifier.bin");
    static EMBEDDED: OnceLock<Arc<Classifier>> = OnceLock::new();
    EMBEDDED
        .get_or_init(|| match Classifier::from_static(BYTES) {
            Ok(c) => Arc::new(c),
            // Checked by a unit test; failing here is a build bug.
            Err(e) => panic!("embedded classifier model/en-classifier.bin is invalid: {e}"),
        })
        .clone()
}

/// The classifier input of the block at `at` in `evidence` (padding outside the slice).
pub fn context_input(evidence: &[Evidence], at: usize) -> [f32; INPUTS] {
    let mut x = [0.0; INPUTS];
    for (slot, offset) in (-(CONTEXT_RADIUS as isize)..=CONTEXT_RADIUS as isize).enumerate() {
        let Some(e) = at.checked_add_signed(offset).and_then(|i| evidence.get(i)) else {
            continue;
        };
        x[slot * LOCAL..(slot + 1) * LOCAL].copy_from_slice(&e.0);
    }
    x
}

/// What a block costs the decider's buffer besides its text: the block, its sentences and its
/// evidence (counted against `max_document_bytes`).
pub const BLOCK_OVERHEAD_BYTES: usize = 512;

/// Default bound on a document held whole for the combined method's decision (text plus
/// [`BLOCK_OVERHEAD_BYTES`] a block): far above nearly every real page.
pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 4 << 20;

/// Makes the keep/drop decision for one document's blocks, in order.
///
/// [`Decider::push`] takes blocks as they come (segmented and scored) and hands back, through
/// `decided`, every block whose decision is final; [`Decider::finish`] decides the rest at the
/// document's end. The perplexity method decides each block at once. The combined method holds
/// the whole document, up to `max_document_bytes` ([`BLOCK_OVERHEAD_BYTES`] a block plus its
/// text), then decides it at once: document evidence ([`crate::document::annotate`]), the
/// classifier over each block and its neighbours, an exact Viterbi pass over the labels, and
/// the rescue of an article left empty ([`crate::document::rescue`]). A longer document is
/// decided in pieces of that size, each as if it were a document (what came before still
/// counts as text seen earlier).
pub struct Decider<'a> {
    policy: Policy,
    classifier: Option<&'a Classifier>,
    choices: Choices,
    /// What the blocks so far say about the next one.
    document: DocumentContext,
    /// The blocks of the document, or of its current piece, not decided yet.
    held: Vec<Block>,
    held_bytes: usize,
}

impl<'a> Decider<'a> {
    /// A decider for one document.
    pub fn new(method: &'a Method, policy: Policy, choices: Choices) -> Decider<'a> {
        Decider {
            policy,
            classifier: method.classifier(),
            choices,
            document: DocumentContext::default(),
            held: Vec::new(),
            held_bytes: 0,
        }
    }

    /// Takes the next block of the document.
    pub fn push(&mut self, mut block: Block, decided: &mut dyn FnMut(Block)) {
        let Some(classifier) = self.classifier else {
            self.policy.decide(&mut block);
            keep_title(&mut block);
            return decided(block);
        };
        self.document.observe(&mut block);
        debug_assert_eq!(
            block.evidence.0[PRESENT], 1.0,
            "blocks reach the decider measured"
        );
        self.held_bytes += block.text.len() + BLOCK_OVERHEAD_BYTES;
        self.held.push(block);
        if self.held_bytes > self.choices.max_document_bytes {
            self.decide_held(classifier, decided);
        }
    }

    /// Decides every block still held back; the decider is then ready for a new document.
    pub fn finish(&mut self, decided: &mut dyn FnMut(Block)) {
        if let Some(classifier) = self.classifier {
            self.decide_held(classifier, decided);
        }
        self.document.clear();
    }

    /// Decides the held blocks as one document.
    fn decide_held(&mut self, classifier: &Classifier, decided: &mut dyn FnMut(Block)) {
        let mut blocks = std::mem::take(&mut self.held);
        self.held_bytes = 0;
        let keep = classifier.decide(&mut blocks, &self.choices);
        // No threshold by default: the largest finite one (an infinite or NaN perplexity still
        // drops its sentence).
        let max_perplexity = self.policy.max_perplexity.unwrap_or(f32::MAX);
        for (mut block, keep) in blocks.drain(..).zip(keep) {
            for sentence in &mut block.sentences {
                sentence.keep = keep && sentence.perplexity <= max_perplexity;
            }
            keep_title(&mut block);
            decided(block);
        }
        // The buffer's memory is kept for the next piece.
        self.held = blocks;
    }
}

/// The page title is there because it was asked for (`--title`): whatever the method decided,
/// it is kept.
fn keep_title(block: &mut Block) {
    if block.hints.has(ContainerHints::TITLE) {
        for sentence in &mut block.sentences {
            sentence.keep = true;
        }
    }
}

impl Classifier {
    /// Keep or drop for each block of one document (measured, in order, with the evidence of
    /// [`DocumentContext`]): document evidence is added, each block is scored with its
    /// neighbours, the labels are smoothed by an exact Viterbi pass (when `smoothing` is on),
    /// and an article left empty is rescued; `choices` may lean the decision either way and
    /// keep comments.
    pub fn decide(&self, blocks: &mut [Block], choices: &Choices) -> Vec<bool> {
        crate::document::annotate(blocks);
        let evidence: Vec<Evidence> = blocks.iter().map(|b| b.evidence).collect();
        let w = &self.weights;
        let shift = choices.favor.shift() - w.threshold;
        let log_odds: Vec<f64> = (0..blocks.len())
            .map(|i| f64::from(self.log_odds(&context_input(&evidence, i)) + shift))
            .collect();
        let mut keep = if w.smoothing == 0.0 {
            log_odds.iter().map(|&z| z > 0.0).collect()
        } else {
            viterbi(&log_odds, &w.transition, f64::from(w.smoothing))
        };
        crate::document::rescue(blocks, &mut keep);
        if choices.comments {
            crate::document::keep_comments(blocks, &mut keep);
        }
        keep
    }
}

/// The most likely keep/drop labels of a sequence of blocks: each block's emission is ln σ(z)
/// for keep and ln(1 − σ(z)) for drop, each step adds `smoothing` × the transition's log
/// probability (`transition[from][to]`, 0 = drop, 1 = keep).
fn viterbi(log_odds: &[f64], transition: &[[f32; 2]; 2], smoothing: f64) -> Vec<bool> {
    let emission = |z: f64| [-softplus(z), -softplus(-z)];
    let mut pointers: Vec<[u8; 2]> = Vec::with_capacity(log_odds.len());
    let mut delta = [0.0f64; 2];
    for (i, &z) in log_odds.iter().enumerate() {
        let e = emission(z);
        if i == 0 {
            delta = e;
            pointers.push([0, 0]);
            continue;
        }
        let mut next = [0.0; 2];
        let mut back = [0u8; 2];
        for to in 0..2 {
            let from = |r: usize| delta[r] + smoothing * f64::from(transition[r][to]);
            let best = usize::from(from(1) > from(0));
            back[to] = best as u8;
            next[to] = from(best) + e[to];
        }
        delta = next;
        pointers.push(back);
    }
    let mut labels = vec![false; log_odds.len()];
    let mut state = usize::from(delta[1] > delta[0]);
    for k in (0..log_odds.len()).rev() {
        labels[k] = state == 1;
        state = usize::from(pointers[k][state]);
    }
    labels
}

/// ln(1 + eᶻ) without overflow.
fn softplus(z: f64) -> f64 {
    if z > 30.0 {
        z
    } else {
        z.exp().ln_1p()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::{BlockKind, Sentence};

    fn block(text: &str, link_bytes: usize, ppls: &[f32]) -> Block {
        let mut b = Block::new(0, BlockKind::Paragraph, text);
        b.link_bytes = link_bytes;
        b.sentences = ppls
            .iter()
            .map(|&p| Sentence {
                perplexity: p,
                ..Sentence::new(0..text.len())
            })
            .collect();
        b
    }

    #[test]
    fn drops_sentences_above_the_threshold() {
        let policy = Policy {
            max_perplexity: Some(100.0),
            max_link_density: 0.5,
        };
        let mut b = block("x", 0, &[50.0, 150.0, 100.0]);
        policy.decide(&mut b);
        let keep: Vec<bool> = b.sentences.iter().map(|s| s.keep).collect();
        assert_eq!(keep, [true, false, true]);
    }

    #[test]
    fn drops_link_blocks_whole() {
        let policy = Policy {
            max_perplexity: Some(1e9),
            max_link_density: 0.5,
        };
        let mut menu = block("Home About Contact", 18, &[10.0]);
        policy.decide(&mut menu);
        assert!(!menu.sentences[0].keep);
        let mut prose = block("Read the story here", 4, &[10.0]);
        policy.decide(&mut prose);
        assert!(prose.sentences[0].keep);
    }

    #[test]
    fn nan_perplexity_is_dropped() {
        let mut b = block("x", 0, &[f32::NAN]);
        Policy::default().decide(&mut b);
        assert!(!b.sentences[0].keep);
    }

    fn measured_block(index: u32, text: &str, classifier: &Classifier) -> Block {
        let mut b = Block::new(index, BlockKind::Paragraph, text);
        crate::segment::segment(&mut b);
        crate::features::measure(
            &mut b,
            crate::lm::model::embedded(),
            &classifier.boilerplate,
        );
        b
    }

    /// Decides `texts` as one document's blocks; also returns the most blocks held at once.
    fn decide_with(
        classifier: &Arc<Classifier>,
        texts: &[&str],
        max_document_bytes: usize,
    ) -> (Vec<(String, bool)>, usize) {
        let method = Method::Combined(classifier.clone());
        let choices = Choices {
            max_document_bytes,
            ..Choices::default()
        };
        let mut decider = Decider::new(&method, Policy::default(), choices);
        let mut out = Vec::new();
        let mut held_most = 0;
        for (i, text) in texts.iter().enumerate() {
            decider.push(measured_block(i as u32, text, classifier), &mut |b| {
                out.push(b)
            });
            held_most = held_most.max(i + 1 - out.len());
        }
        decider.finish(&mut |b| out.push(b));
        (
            out.into_iter()
                .map(|b| (b.text.clone(), b.sentences.iter().any(|s| s.keep)))
                .collect(),
            held_most,
        )
    }

    fn decide_all(classifier: &Arc<Classifier>, texts: &[&str]) -> Vec<(String, bool)> {
        decide_with(classifier, texts, DEFAULT_MAX_DOCUMENT_BYTES).0
    }

    #[test]
    fn a_long_document_is_decided_in_bounded_pieces() {
        let classifier = embedded();
        let texts: Vec<String> = (0..40)
            .map(|i| format!("Paragraph {i} of a long page about the river and the mill."))
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (whole, held_whole) = decide_with(&classifier, &refs, DEFAULT_MAX_DOCUMENT_BYTES);
        assert_eq!(held_whole, refs.len(), "a short document is held whole");
        let piece = 5 * (BLOCK_OVERHEAD_BYTES + texts[0].len());
        let (pieces, held_most) = decide_with(&classifier, &refs, piece);
        assert!(held_most <= 6, "held {held_most} blocks");
        assert_eq!(
            pieces.iter().map(|d| &d.0).collect::<Vec<_>>(),
            whole.iter().map(|d| &d.0).collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_embedded_classifier_loads_and_keeps_prose_over_menus() {
        let page = "<html><body><ul class=menu><li><a href=/>Home</a></li><li><a href=/n>News</a></li>\
            <li><a href=/s>Sport</a></li><li><a href=/c>Contact us</a></li></ul><div class=story>\
            <p>The town council voted on Tuesday to approve a plan that will restore the banks of the river and reopen the old footpath between the mill and the bridge.</p>\
            <p>Supporters of the project said that the river had been neglected for decades, and that the new path would bring visitors back to the centre of the town.</p></div>\
            <div class=footer><a href=/p>Privacy policy</a> | <a href=/t>Terms of use</a> | <a href=/r>RSS</a></div></body></html>";
        let options = crate::pipeline::Options::with_method(Method::Combined(embedded()));
        let (out, problems) =
            crate::pipeline::clean_bytes(page.as_bytes(), crate::lm::model::embedded(), &options);
        assert!(problems.is_empty());
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("The town council voted") && text.contains("Supporters of the project"),
            "{text}"
        );
        assert!(
            !text.contains("Home") && !text.contains("Privacy policy"),
            "{text}"
        );
    }

    #[test]
    fn smoothing_changes_nothing_about_order_or_count() {
        let mut bytes = include_bytes!("../model/en-classifier.bin").to_vec();
        let (mut weights, model) = split_file(&bytes).unwrap();
        weights.smoothing = 5.0;
        bytes = Classifier::to_bytes(&weights, model).unwrap();
        let classifier = Arc::new(Classifier::from_bytes(&bytes).unwrap());
        let texts: Vec<String> = (0..20)
            .map(|i| format!("Block number {i} of a page about rivers."))
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let decided = decide_all(&classifier, &refs);
        assert_eq!(
            decided.iter().map(|d| d.0.as_str()).collect::<Vec<_>>(),
            refs
        );
        // Strong smoothing between identical-looking blocks: one label for all.
        assert!(decided.iter().all(|d| d.1 == decided[0].1), "{decided:?}");
    }

    #[test]
    fn viterbi_finds_the_best_path() {
        let odds = [3.0, 2.0, -0.5, 2.5, -3.0, -2.0];
        let sticky = [[-0.1, -3.0], [-3.0, -0.1]];
        assert_eq!(
            viterbi(&odds, &sticky, 0.0),
            [true, true, false, true, false, false]
        );
        // Staying is cheap and switching dear: the weak drop between keeps is kept.
        assert_eq!(
            viterbi(&odds, &sticky, 1.0),
            [true, true, true, true, false, false]
        );
        assert_eq!(viterbi(&[], &sticky, 1.0), Vec::<bool>::new());
    }

    #[test]
    fn damaged_classifier_files_are_errors() {
        let bytes = include_bytes!("../model/en-classifier.bin");
        assert!(matches!(
            Classifier::from_bytes(b"hello"),
            Err(ClassifierError::BadHeader)
        ));
        let header_end = bytes.iter().position(|&b| b == b'\n').unwrap();
        assert!(matches!(
            Classifier::from_bytes(&bytes[..header_end + 10]),
            Err(ClassifierError::Truncated)
        ));
        let cut = bytes.len() - 1000;
        assert!(matches!(
            Classifier::from_bytes(&bytes[..cut]),
            Err(ClassifierError::Model(_))
        ));
        let mut json_broken = bytes.to_vec();
        json_broken[header_end + 1] = b'[';
        assert!(matches!(
            Classifier::from_bytes(&json_broken),
            Err(ClassifierError::Corrupt(_))
        ));
    }

    #[test]
    fn policies_with_unusable_thresholds_are_errors() {
        assert_eq!(Policy::default().validate(), Ok(()));
        assert_eq!(
            Policy::new(5000.0, 1.0),
            Ok(Policy {
                max_perplexity: Some(5000.0),
                max_link_density: 1.0
            })
        );
        assert!(Policy::new(5000.0, 0.0).is_ok());
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -1.0] {
            assert!(
                matches!(Policy::new(bad, 0.4), Err(PolicyError::MaxPerplexity(_))),
                "{bad}"
            );
        }
        for bad in [f32::NAN, f32::INFINITY, -0.1, 1.5] {
            assert!(
                matches!(Policy::new(1e6, bad), Err(PolicyError::MaxLinkDensity(_))),
                "{bad}"
            );
        }
        let err = Policy {
            max_perplexity: Some(f32::NAN),
            ..Policy::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "perplexity threshold NaN is not a finite number above 0"
        );
    }

    /// `json` with the number after the first `key` replaced by `value`.
    fn with_number_after(json: &str, key: &str, value: &str) -> String {
        let start = json.find(key).unwrap() + key.len();
        let end = start + json[start..].find([',', '}']).unwrap();
        format!("{}{value}{}", &json[..start], &json[end..])
    }

    /// The embedded classifier file with its parameters replaced by `json`.
    fn with_json(json: &str) -> Vec<u8> {
        let bytes = include_bytes!("../model/en-classifier.bin");
        let (start, len) = parse_header(bytes).unwrap();
        let mut out = format!("{HEADER}{}\n{json}", json.len()).into_bytes();
        out.extend_from_slice(&bytes[start + len as usize..]);
        out
    }

    #[test]
    fn huge_recorded_lengths_are_errors_not_overflows() {
        let bytes = include_bytes!("../model/en-classifier.bin");
        let (start, _) = parse_header(bytes).unwrap();
        for len in [
            u64::MAX,
            u64::MAX - start as u64,
            u64::MAX / 2,
            bytes.len() as u64,
        ] {
            let mut damaged = format!("{HEADER}{len}\n").into_bytes();
            damaged.extend_from_slice(&bytes[start..]);
            let refused = Classifier::from_bytes(&damaged);
            let over_limit = matches!(&refused, Err(ClassifierError::Corrupt(m)) if m.contains("more than the limit"));
            assert!(
                matches!(refused, Err(ClassifierError::Truncated)) || over_limit,
                "{len}"
            );
        }
        // Too many digits for any length.
        assert!(matches!(
            Classifier::from_bytes(b"PPLC 1 99999999999999999999999\n{}"),
            Err(ClassifierError::BadHeader)
        ));
    }

    #[test]
    fn non_finite_parameters_are_errors() {
        let bytes = include_bytes!("../model/en-classifier.bin");
        let (start, len) = parse_header(bytes).unwrap();
        let json = std::str::from_utf8(&bytes[start..start + len as usize]).unwrap();
        // 1e39 is beyond f32.
        let first_leaf = json.find("\"value\":-").unwrap() + "\"value\":".len();
        let end = first_leaf + json[first_leaf..].find('}').unwrap();
        for damaged in [
            format!("{}1e39{}", &json[..first_leaf], &json[end..]),
            with_number_after(json, "\"threshold\":", "-1e39"),
            with_number_after(json, "\"base\":", "1e39"),
            // The decision threshold: the number just before the transitions.
            {
                let end = json.find(",\"transition\"").unwrap();
                let start = json[..end].rfind(':').unwrap() + 1;
                format!("{}1e39{}", &json[..start], &json[end..])
            },
            json.replace("\"smoothing\":0.0", "\"smoothing\":-1e39"),
        ] {
            assert_ne!(damaged, json);
            // serde_json refuses a number beyond f32 in some fields ("out of range") but
            // turns it into infinity in others (inside the tagged scorer, and `smoothing`).
            let err = Classifier::from_bytes(&with_json(&damaged)).unwrap_err();
            assert!(matches!(err, ClassifierError::Corrupt(_)), "{err}");
            let message = err.to_string();
            assert!(
                message.contains("not finite") || message.contains("out of range"),
                "{message}"
            );
        }
        assert!(Classifier::from_bytes(&with_json(json)).is_ok());
        // A logistic scorer with extreme (finite) parameters never makes a NaN.
        let mut logistic = serde_json::json!({
            "scorer": {"kind": "logistic", "mean": vec![0.0; INPUTS], "scale": vec![1e-45; INPUTS],
                       "weights": vec![3e38; INPUTS], "intercept": 0.0},
            "threshold": 0.0, "transition": [[0.0, 0.0], [0.0, 0.0]], "smoothing": 0.0, "provenance": "test"
        });
        logistic["scorer"]["weights"][1] = serde_json::json!(-3e38);
        let classifier = Classifier::from_bytes(&with_json(&logistic.to_string())).unwrap();
        let mut x = [1.0; INPUTS];
        assert!(!classifier.log_odds(&x).is_nan());
        x[1] = -1.0;
        assert!(!classifier.log_odds(&x).is_nan());
        logistic["scorer"]["mean"][3] = serde_json::json!(1e39);
        assert!(Classifier::from_bytes(&with_json(&logistic.to_string())).is_err());
    }

    #[test]
    fn open_reads_no_more_than_the_file_records() {
        let dir =
            std::env::temp_dir().join(format!("ppl-filter-classify-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bytes = include_bytes!("../model/en-classifier.bin");
        let path = dir.join("c.bin");
        std::fs::write(&path, bytes).unwrap();
        let classifier = Classifier::open(&path).unwrap();
        assert_eq!(classifier.weights, embedded().weights);
        let (start, _) = parse_header(bytes).unwrap();
        let mut huge = format!("{HEADER}{}\n", u64::MAX).into_bytes();
        huge.extend_from_slice(&bytes[start..]);
        let header_end = bytes.iter().position(|&b| b == b'\n').unwrap();
        for (damaged, what) in [
            (huge, "more than the limit"),
            (bytes[..header_end + 10].to_vec(), "truncated"),
            (bytes[..bytes.len() - 1000].to_vec(), "truncated"),
            ([&bytes[..], b"extra"].concat(), "after the recorded end"),
            (Vec::new(), "bad header"),
        ] {
            std::fs::write(&path, &damaged).unwrap();
            let err = Classifier::open(&path).unwrap_err().to_string();
            assert!(err.contains(what), "{what}: {err}");
            // The same verdict as from the bytes.
            assert_eq!(
                err,
                Classifier::from_bytes(&damaged).unwrap_err().to_string()
            );
        }
        #[cfg(unix)]
        for endless in ["/dev/zero", "/dev/urandom"] {
            if Path::new(endless).exists() {
                assert!(matches!(
                    Classifier::open(Path::new(endless)),
                    Err(ClassifierError::BadHeader)
                ));
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
