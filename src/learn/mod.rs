//! Learning the combined method from cleaned pages (`ppl-filter learn INPUT_DIR GOLD_DIR`, or
//! several sets of them with `--set` / `--sets`).
//!
//! 1. Every page is cut into blocks and sentences exactly as the filter does.
//! 2. Labels: the page's words are aligned to its gold text (a longest common subsequence, as
//!    `ppl-eval` scores); a block is "keep" when most of its words align. Gold is CleanEval text
//!    (`URL:` line, `<p>`/`<h>`/`<l>` markers) or plain text (one block per line), told apart
//!    per file ([`GoldFormat::detect`]).
//! 3. The boilerplate model: a word bigram model of the sentences of "drop" blocks (NCleaner's
//!    differential "dirty" model: the raw pages minus what is in their cleaned version). The
//!    evidence of each training page is measured under a boilerplate model trained *without*
//!    that page (cross-fitting in `CROSS_FIT` parts), so the classifier does not learn to trust
//!    a model that has seen the page; the model written to the file is trained on all pages.
//! 4. Boosted shallow trees (`crate::boost`) or an L2-regularised logistic regression (Newton's
//!    method) over the evidence of each block and its neighbours, examples weighted by their
//!    words times their set's factor ([`SetBalance`], [`LearnOptions::set_weights`]); the
//!    Viterbi transition log probabilities are the label bigram frequencies.

//!
//! Files: `sets.rs` (sets, gold formats, pages and their labels), `logistic.rs` (the
//! logistic-regression learner); the rest is here.

mod kinds;
mod logistic;
mod sets;

use std::path::PathBuf;

pub use crate::boost::BoostOptions;
pub use kinds::kind_evidence;
pub use sets::{
    aligned_shares, read_pages, read_set_list, read_sets, GoldFormat, LabelledPage, TrainingSet,
};

use crate::boost;
use crate::decide::{
    context_input, evidence_values, Classifier, Logistic, Scorer, Weights, INPUTS,
};
use crate::evidence::{self, DocumentContext};
use crate::lm::model::{LanguageModel, ModelError};
use crate::lm::train::{train_sentences, TrainError, TrainOptions};

use logistic::{fit_logistic, standardisation};

/// Cross-fitting parts for the boilerplate evidence of the training pages.
const CROSS_FIT: usize = 5;

/// Settings of [`learn`].
#[derive(Clone, Debug)]
pub struct LearnOptions {
    /// L2 penalty on the (standardised) weights.
    pub l2: f64,
    /// Log-odds threshold written to the classifier.
    pub threshold: f32,
    /// Weight of the Viterbi transitions (0: no smoothing).
    pub smoothing: f32,
    /// Boilerplate model: n-grams seen fewer times are pruned.
    pub min_count: u32,
    /// Boilerplate model: words seen fewer times are left out of its vocabulary.
    pub min_unigram_count: u32,
    /// Which classifier is fitted.
    pub learner: Learner,
    /// Settings of the boosted trees.
    pub boost: BoostOptions,
    /// How the sets' examples are weighed against each other before `set_weights` apply.
    pub set_balance: SetBalance,
    /// Factor on the example weights of each set (indexed like [`LabelledPage::set`]; a set beyond the
    /// end weighs 1).
    pub set_weights: Vec<f64>,
}

/// How the example weights of several training sets compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum SetBalance {
    /// Every set's examples add up to the same total weight, whatever its size (then each is
    /// multiplied by its set weight).
    Equal,
    /// Examples keep their own weight (words): a set counts as much as it has words.
    Natural,
}

/// The classifiers `learn` can fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Learner {
    /// L2-regularised logistic regression.
    Logistic,
    /// Gradient-boosted shallow trees.
    Trees,
}

impl Default for LearnOptions {
    fn default() -> LearnOptions {
        LearnOptions {
            l2: 1.0,
            threshold: -0.5,
            smoothing: 0.0,
            min_count: 1,
            min_unigram_count: 1,
            learner: Learner::Trees,
            boost: BoostOptions::default(),
            set_balance: SetBalance::Equal,
            set_weights: Vec::new(),
        }
    }
}

/// Why learning failed.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    /// A file or directory could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No input page has a gold file.
    #[error("no page in {0} has a gold file of the same name (N.html ↔ N.txt)")]
    NoPairs(PathBuf),
    /// A set weight is negative or not finite, or every set weighs 0.
    #[error("bad set weight: {0}")]
    SetWeight(String),
    /// A `--sets` list file has a line that is not `INPUT_DIR GOLD_DIR [WEIGHT]`.
    #[error("{path}:{line}: {message}")]
    SetList {
        /// The list file.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// Every block of every page aligns to its gold text: there is nothing to learn from.
    #[error("no boilerplate to learn from: every block of the pages aligns to their gold text")]
    NoBoilerplate,
    /// A model the boilerplate training made does not load.
    #[error("boilerplate model: {0}")]
    Model(#[from] ModelError),
    /// The boilerplate model could not be trained.
    #[error("boilerplate model: {0}")]
    Train(#[from] TrainError),
    /// The learned classifier does not fit a classifier file.
    #[error("the learned classifier: {0}")]
    Classifier(#[from] crate::decide::ClassifierError),
}

/// Trains the boilerplate model on the sentences of the drop blocks of `pages`.
pub fn train_boilerplate<'a>(
    pages: impl Iterator<Item = &'a LabelledPage>,
    opts: &LearnOptions,
) -> Result<Vec<u8>, TrainError> {
    let mut sentences = Vec::new();
    let mut count = 0;
    for page in pages {
        count += 1;
        for (i, block) in page.blocks.iter().enumerate() {
            if !page.keep(i) {
                sentences.extend(block.sentences.iter().map(|s| block.sentence_text(s)));
            }
        }
    }
    let train = TrainOptions {
        order: 2,
        min_count: opts.min_count,
        min_unigram_count: opts.min_unigram_count,
        ..TrainOptions::default()
    };
    let source = format!(
        "sentences of the blocks of {count} cleaned pages that do not align to their gold text"
    );
    Ok(train_sentences(sentences, &source, &train)?.bytes)
}

/// Learns a classifier from labelled pages; returns the classifier file's bytes.
pub fn learn(
    pages: &mut [LabelledPage],
    general: &LanguageModel,
    opts: &LearnOptions,
) -> Result<Vec<u8>, LearnError> {
    check_set_weights(pages, opts)?;
    let model = train_boilerplate(pages.iter(), opts).map_err(|e| match e {
        TrainError::EmptyCorpus => LearnError::NoBoilerplate,
        other => other.into(),
    })?;
    let load = LanguageModel::from_bytes;
    // Evidence of each page under a boilerplate model that has not seen it (or, when the other
    // pages hold no boilerplate at all, the model of every page).
    for part in 0..CROSS_FIT.min(pages.len()) {
        let held_out = |i: usize| i % CROSS_FIT == part;
        let others = pages
            .iter()
            .enumerate()
            .filter(|&(i, _)| !held_out(i))
            .map(|(_, p)| p);
        let boilerplate = match train_boilerplate(others, opts) {
            Ok(bytes) => load(bytes)?,
            Err(TrainError::EmptyCorpus) => load(model.clone())?,
            Err(e) => return Err(e.into()),
        };
        for (_, page) in pages.iter_mut().enumerate().filter(|&(i, _)| held_out(i)) {
            measure_page(page, general, &boilerplate);
        }
    }
    let mut examples = examples(pages);
    let factors = set_factors(pages, &examples, opts);
    for e in &mut examples {
        e.weight *= factors[e.set];
    }
    let (scorer, description) = match opts.learner {
        Learner::Logistic => {
            let (mean, scale) = standardisation(&examples);
            let (weights, intercept) = fit_logistic(&examples, &mean, &scale, opts.l2);
            (
                Scorer::Logistic(Logistic {
                    mean,
                    scale,
                    weights,
                    intercept,
                }),
                format!("logistic regression, l2 {}", opts.l2),
            )
        }
        Learner::Trees => {
            let x: Vec<Vec<f32>> = examples.iter().map(|e| e.x.to_vec()).collect();
            let y: Vec<bool> = examples.iter().map(|e| e.keep).collect();
            let mean_weight =
                examples.iter().map(|e| e.weight).sum::<f64>() / examples.len().max(1) as f64;
            let w: Vec<f64> = examples
                .iter()
                .map(|e| e.weight / mean_weight.max(1e-12))
                .collect();
            let b = &opts.boost;
            let description = format!(
                "{} boosted trees of depth {}, learning rate {}, lambda {}",
                b.trees, b.depth, b.learning_rate, b.lambda
            );
            (Scorer::Trees(boost::train(&x, &y, &w, b)), description)
        }
    };
    let weights = Weights {
        scorer,
        threshold: opts.threshold,
        transition: transitions(pages),
        smoothing: opts.smoothing,
        provenance: format!(
            "ppl-filter learn: {} pages, {} blocks{}; {description}; threshold {}, smoothing {}",
            pages.len(),
            examples.len(),
            sets_summary(pages, &factors, opts),
            opts.threshold,
            opts.smoothing
        ),
        evidence: Weights::evidence_names(),
        page_kinds: None,
    };
    Ok(Classifier::to_bytes(&weights, &model)?)
}

/// Measures every block of a page and fills the document evidence the decider adds, with the
/// kind the page declares (the page is one piece: training pages are far below
/// `--max-document-bytes`). The decider reads the kind it tells instead, the page-kind
/// model's where the page declares none: a label a page gives itself is the surer one to
/// learn from, and so measured (docs/measurements.md, "The page-kind model").
fn measure_page(page: &mut LabelledPage, general: &LanguageModel, boilerplate: &LanguageModel) {
    let mut document = DocumentContext::default();
    for block in &mut page.blocks {
        evidence::measure(block, general, boilerplate, false);
        document.observe(block);
    }
    evidence::annotate(&mut page.blocks, evidence::page_kind(&page.info));
}

/// The factor on the example weights of each set (indexed by [`LabelledPage::set`]): its weight,
/// times, with [`SetBalance::Equal`], the ratio that brings its total to the mean total of the
/// sets that have examples.
pub fn set_factors(pages: &[LabelledPage], examples: &[Example], opts: &LearnOptions) -> Vec<f64> {
    let sets = pages.iter().map(|p| p.set + 1).max().unwrap_or(0);
    let weight = |k: usize| opts.set_weights.get(k).copied().unwrap_or(1.0);
    let mut totals = vec![0.0f64; sets];
    for e in examples {
        totals[e.set] += e.weight;
    }
    let present = totals.iter().filter(|&&t| t > 0.0).count().max(1);
    let mean = totals.iter().sum::<f64>() / present as f64;
    (0..sets)
        .map(|k| match opts.set_balance {
            SetBalance::Natural => weight(k),
            SetBalance::Equal if totals[k] > 0.0 => weight(k) * mean / totals[k],
            SetBalance::Equal => 0.0,
        })
        .collect()
}

/// Every set weight is finite and at least 0, and some set of `pages` weighs more than 0.
fn check_set_weights(pages: &[LabelledPage], opts: &LearnOptions) -> Result<(), LearnError> {
    if let Some(w) = opts
        .set_weights
        .iter()
        .find(|w| !w.is_finite() || **w < 0.0)
    {
        return Err(LearnError::SetWeight(format!(
            "{w} (a weight is a finite number, at least 0)"
        )));
    }
    if !pages.is_empty()
        && pages
            .iter()
            .all(|p| opts.set_weights.get(p.set).is_some_and(|&w| w == 0.0))
    {
        return Err(LearnError::SetWeight("every set weighs 0".into()));
    }
    Ok(())
}

/// ` (sets: 262 pages ×1.31, 242 pages ×0.9)` for several sets, nothing for one.
fn sets_summary(pages: &[LabelledPage], factors: &[f64], opts: &LearnOptions) -> String {
    if factors.len() < 2 {
        return String::new();
    }
    let parts: Vec<String> = factors
        .iter()
        .enumerate()
        .map(|(k, f)| {
            format!(
                "{} pages ×{f:.3}",
                pages.iter().filter(|p| p.set == k).count()
            )
        })
        .collect();
    let balance = match opts.set_balance {
        SetBalance::Equal => "equal",
        SetBalance::Natural => "natural",
    };
    format!(" (sets, {balance} balance: {})", parts.join(", "))
}

/// One training example: classifier input, label, weight, set.
pub struct Example {
    /// The classifier input of the block and its neighbours.
    pub x: [f32; INPUTS],
    /// Whether the block aligns to the gold text.
    pub keep: bool,
    /// How much the example counts (set weights and balance).
    pub weight: f64,
    /// [`LabelledPage::set`] of its page.
    pub set: usize,
}

/// The examples of measured pages: one per block with words, weighted by its words.
pub fn examples(pages: &[LabelledPage]) -> Vec<Example> {
    let mut out = Vec::new();
    for page in pages {
        let evidence = evidence_values(&page.blocks);
        for (i, block) in page.blocks.iter().enumerate() {
            let words = block.words();
            if words == 0 {
                continue;
            }
            out.push(Example {
                x: context_input(&evidence, i),
                keep: page.keep(i),
                weight: words as f64,
                set: page.set,
            });
        }
    }
    out
}

/// log P(label of the next block | label of this block), with add-one smoothing.
fn transitions(pages: &[LabelledPage]) -> [[f32; 2]; 2] {
    let mut counts = [[1.0f64; 2]; 2];
    for page in pages {
        for i in 1..page.blocks.len() {
            counts[usize::from(page.keep(i - 1))][usize::from(page.keep(i))] += 1.0;
        }
    }
    counts.map(|row| {
        let total = row[0] + row[1];
        row.map(|c| (c / total).ln() as f32)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_weigh_equally_or_by_their_words() {
        let page = |set| LabelledPage {
            name: String::new(),
            set,
            blocks: Vec::new(),
            aligned: Vec::new(),
            gold_format: GoldFormat::Plain,
            info: crate::block::PageInfo::default(),
        };
        let pages = [page(0), page(1), page(2)];
        let example = |set, weight| Example {
            x: [0.0; INPUTS],
            keep: true,
            weight,
            set,
        };
        // Set 0 has 300 words, set 1 has 100, set 2 none.
        let examples = [example(0, 100.0), example(0, 200.0), example(1, 100.0)];
        let mut opts = LearnOptions::default();
        assert_eq!(
            set_factors(&pages, &examples, &opts),
            [200.0 / 300.0, 2.0, 0.0]
        );
        opts.set_weights = vec![1.0, 0.5];
        assert_eq!(
            set_factors(&pages, &examples, &opts),
            [200.0 / 300.0, 1.0, 0.0]
        );
        opts.set_balance = SetBalance::Natural;
        assert_eq!(set_factors(&pages, &examples, &opts), [1.0, 0.5, 1.0]);
        assert!(check_set_weights(&pages, &opts).is_ok());
        opts.set_weights = vec![0.0, 0.0, 0.0];
        assert!(check_set_weights(&pages, &opts)
            .unwrap_err()
            .to_string()
            .contains("every set weighs 0"));
        opts.set_weights = vec![1.0, -1.0];
        assert!(check_set_weights(&pages, &opts).is_err());
        opts.set_weights = vec![f64::NAN];
        assert!(check_set_weights(&pages, &opts).is_err());
    }
}
