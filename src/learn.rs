//! Learning the combined method from cleaned pages (`ppl-filter learn INPUT_DIR GOLD_DIR`).
//!
//! 1. Every page is cut into blocks and sentences exactly as the filter does.
//! 2. Labels: the page's words are aligned to its gold text (a longest common subsequence, as
//!    `ppl-eval` scores); a block is "keep" when most of its words align.
//! 3. The boilerplate model: a word bigram model of the sentences of "drop" blocks (NCleaner's
//!    differential "dirty" model: the raw pages minus what is in their cleaned version). The
//!    evidence of each training page is measured under a boilerplate model trained *without*
//!    that page (cross-fitting in `CROSS_FIT` parts), so the classifier does not learn to trust
//!    a model that has seen the page; the model written to the file is trained on all pages.
//! 4. Boosted shallow trees ([`crate::boost`]) or an L2-regularised logistic regression (Newton's
//!    method) over the evidence of each block and its neighbours, examples weighted by their
//!    words; the Viterbi transition log probabilities are the label bigram frequencies.

use std::path::{Path, PathBuf};

use crate::block::Block;
use crate::boost::{self, BoostOptions};
use crate::classify::{context_input, Classifier, Scorer, Weights, INPUTS};
use crate::eval::{lcs, normalize};
use crate::features::{self, DocumentContext, Evidence};
use crate::lm::model::LanguageModel;
use crate::lm::train::{train_sentences, TrainError, TrainOptions};
use crate::pipeline::{self, Options};
use crate::segment;

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
    /// Viterbi look-ahead in blocks.
    pub lag: usize,
    /// Boilerplate model: n-grams seen fewer times are pruned.
    pub min_count: u32,
    /// Which classifier is fitted.
    pub learner: Learner,
    /// Settings of the boosted trees.
    pub boost: BoostOptions,
}

/// The classifiers `learn` can fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
            lag: 4,
            min_count: 1,
            learner: Learner::Trees,
            boost: BoostOptions::default(),
        }
    }
}

/// Why learning failed.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    /// A file or directory could not be read.
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// No input page has a gold file.
    #[error("no page in {0} has a gold file of the same name (N.html ↔ N.txt)")]
    NoPairs(PathBuf),
    /// Every block of every page aligns to its gold text: there is nothing to learn from.
    #[error("no boilerplate to learn from: every block of the pages aligns to their gold text")]
    NoBoilerplate,
    /// The input directory could not be listed.
    #[error(transparent)]
    List(#[from] crate::eval::EvalError),
    /// The boilerplate model could not be trained.
    #[error("boilerplate model: {0}")]
    Train(#[from] TrainError),
    /// The learned classifier does not fit a classifier file.
    #[error("the learned classifier: {0}")]
    Classifier(#[from] crate::classify::ClassifierError),
}

/// One training page: its blocks (segmented) and their labels.
pub struct Page {
    /// The input file's stem (`N` of `N.html`).
    pub name: String,
    pub blocks: Vec<Block>,
    /// Share of each block's words that align to the gold text.
    pub aligned: Vec<f32>,
}

impl Page {
    /// Cuts `html` into blocks as the filter would and labels them against `gold`.
    pub fn new(name: String, html: &[u8], gold: &[u8], options: &Options) -> Page {
        let (mut blocks, _) = pipeline::read_blocks(html, options);
        for block in &mut blocks {
            segment::segment(block);
        }
        let aligned = aligned_shares(&blocks, &normalize::decode(gold));
        Page { name, blocks, aligned }
    }

    fn keep(&self, i: usize) -> bool {
        self.aligned[i] >= 0.5
    }
}

/// Share of each block's words (as `ppl-eval` tokenises them) that a longest common
/// subsequence of the page's words and the gold's words matches.
pub fn aligned_shares(blocks: &[Block], gold: &str) -> Vec<f32> {
    let gold_words = normalize::text_view(&normalize::tokenize(gold));
    let mut owner = Vec::new();
    let mut page_words = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        for word in normalize::text_view(&normalize::tokenize(&block.text)) {
            page_words.push(word);
            owner.push(i);
        }
    }
    let mut matched = vec![0usize; blocks.len()];
    let mut total = vec![0usize; blocks.len()];
    for &i in &owner {
        total[i] += 1;
    }
    for op in lcs::align(&page_words, &gold_words) {
        if let similar::DiffOp::Equal { old_index, len, .. } = op {
            for &i in &owner[old_index..old_index + len] {
                matched[i] += 1;
            }
        }
    }
    matched.iter().zip(&total).map(|(&m, &t)| if t == 0 { 0.0 } else { m as f32 / t as f32 }).collect()
}

/// Reads every `N.html` of `input_dir` that has a `N.txt` in `gold_dir`, in name order.
pub fn read_pages(input_dir: &Path, gold_dir: &Path, options: &Options) -> Result<Vec<Page>, LearnError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LearnError::Io { path, source }
    };
    let names = crate::eval::compare::html_pages(input_dir)?;
    let mut pages = Vec::new();
    for path in names {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        let gold_path = gold_dir.join(format!("{stem}.txt"));
        if !gold_path.is_file() {
            continue;
        }
        let html = std::fs::read(&path).map_err(io_err(&path))?;
        let gold = std::fs::read(&gold_path).map_err(io_err(&gold_path))?;
        pages.push(Page::new(stem, &html, &gold, options));
    }
    if pages.is_empty() {
        return Err(LearnError::NoPairs(input_dir.to_path_buf()));
    }
    Ok(pages)
}

/// Trains the boilerplate model on the sentences of the drop blocks of `pages`.
pub fn train_boilerplate<'a>(pages: impl Iterator<Item = &'a Page>, opts: &LearnOptions) -> Result<Vec<u8>, TrainError> {
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
    let train = TrainOptions { order: 2, min_count: opts.min_count, ..TrainOptions::default() };
    let source = format!("sentences of the blocks of {count} cleaned pages that do not align to their gold text");
    Ok(train_sentences(sentences, &source, &train)?.bytes)
}

/// Learns a classifier from labelled pages; returns the classifier file's bytes.
pub fn learn(pages: &mut [Page], general: &LanguageModel, opts: &LearnOptions) -> Result<Vec<u8>, LearnError> {
    let model = train_boilerplate(pages.iter(), opts).map_err(|e| match e {
        TrainError::EmptyCorpus => LearnError::NoBoilerplate,
        other => other.into(),
    })?;
    let load = |bytes| LanguageModel::from_bytes(bytes).map_err(|e| TrainError::InvalidOption(e.to_string()));
    // Evidence of each page under a boilerplate model that has not seen it (or, when the other
    // pages hold no boilerplate at all, the model of every page).
    for part in 0..CROSS_FIT.min(pages.len()) {
        let held_out = |i: usize| i % CROSS_FIT == part;
        let others = pages.iter().enumerate().filter(|&(i, _)| !held_out(i)).map(|(_, p)| p);
        let boilerplate = match train_boilerplate(others, opts) {
            Ok(bytes) => load(bytes)?,
            Err(TrainError::EmptyCorpus) => load(model.clone())?,
            Err(e) => return Err(e.into()),
        };
        for (_, page) in pages.iter_mut().enumerate().filter(|&(i, _)| held_out(i)) {
            measure_page(page, general, &boilerplate);
        }
    }
    let examples = examples(pages);
    let (scorer, description) = match opts.learner {
        Learner::Logistic => {
            let (mean, scale) = standardisation(&examples);
            let (weights, intercept) = fit_logistic(&examples, &mean, &scale, opts.l2);
            (Scorer::Logistic { mean, scale, weights, intercept }, format!("logistic regression, l2 {}", opts.l2))
        }
        Learner::Trees => {
            let x: Vec<Vec<f32>> = examples.iter().map(|e| e.x.to_vec()).collect();
            let y: Vec<bool> = examples.iter().map(|e| e.keep).collect();
            let mean_weight = examples.iter().map(|e| e.weight).sum::<f64>() / examples.len().max(1) as f64;
            let w: Vec<f64> = examples.iter().map(|e| e.weight / mean_weight.max(1e-12)).collect();
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
        lag: opts.lag,
        provenance: format!(
            "ppl-filter learn: {} pages, {} blocks; {description}; threshold {}, smoothing {}, lag {}",
            pages.len(),
            examples.len(),
            opts.threshold,
            opts.smoothing,
            opts.lag
        ),
    };
    Ok(Classifier::to_bytes(&weights, &model)?)
}

/// Measures every block of a page and fills the document-order evidence the decider adds.
fn measure_page(page: &mut Page, general: &LanguageModel, boilerplate: &LanguageModel) {
    let mut document = DocumentContext::default();
    for block in &mut page.blocks {
        features::measure(block, general, boilerplate);
        document.observe(block);
    }
}

/// One training example: classifier input, label, weight.
pub struct Example {
    pub x: [f32; INPUTS],
    pub keep: bool,
    pub weight: f64,
}

/// The examples of measured pages: one per block with words, weighted by its words.
pub fn examples(pages: &[Page]) -> Vec<Example> {
    let mut out = Vec::new();
    for page in pages {
        let evidence: Vec<Evidence> = page.blocks.iter().map(|b| b.evidence).collect();
        for (i, block) in page.blocks.iter().enumerate() {
            let words = block.words();
            if words == 0 {
                continue;
            }
            out.push(Example { x: context_input(&evidence, i), keep: page.keep(i), weight: words as f64 });
        }
    }
    out
}

fn standardisation(examples: &[Example]) -> (Vec<f32>, Vec<f32>) {
    let n = examples.len().max(1) as f64;
    let mut mean = vec![0.0f64; INPUTS];
    let mut square = vec![0.0f64; INPUTS];
    for e in examples {
        for (j, &v) in e.x.iter().enumerate() {
            mean[j] += f64::from(v) / n;
            square[j] += f64::from(v) * f64::from(v) / n;
        }
    }
    let scale = mean
        .iter()
        .zip(&square)
        .map(|(m, s)| {
            let sd = (s - m * m).max(0.0).sqrt();
            if sd > 1e-6 { sd as f32 } else { 1.0 }
        })
        .collect();
    (mean.iter().map(|&m| m as f32).collect(), scale)
}

/// Weighted, L2-regularised logistic regression by Newton's method on standardised inputs.
/// Returns (weights, intercept).
fn fit_logistic(examples: &[Example], mean: &[f32], scale: &[f32], l2: f64) -> (Vec<f32>, f32) {
    let d = INPUTS + 1; // last coefficient: intercept (not penalised)
    let total: f64 = examples.iter().map(|e| e.weight).sum::<f64>().max(1e-9);
    let norm = examples.len() as f64 / total;
    let rows: Vec<(Vec<f64>, f64, f64)> = examples
        .iter()
        .map(|e| {
            let mut x: Vec<f64> = (0..INPUTS).map(|j| f64::from((e.x[j] - mean[j]) / scale[j])).collect();
            x.push(1.0);
            (x, f64::from(u8::from(e.keep)), e.weight * norm)
        })
        .collect();
    let mut beta = vec![0.0f64; d];
    for _ in 0..25 {
        let mut gradient = vec![0.0; d];
        let mut hessian = vec![0.0; d * d];
        for (x, y, w) in &rows {
            let z: f64 = x.iter().zip(&beta).map(|(a, b)| a * b).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            let g = w * (p - y);
            let h = w * (p * (1.0 - p)).max(1e-9);
            for j in 0..d {
                gradient[j] += g * x[j];
                let hx = h * x[j];
                for k in 0..=j {
                    hessian[j * d + k] += hx * x[k];
                }
            }
        }
        for j in 0..d {
            for k in 0..j {
                hessian[k * d + j] = hessian[j * d + k];
            }
            if j < INPUTS {
                gradient[j] += l2 * beta[j];
                hessian[j * d + j] += l2;
            } else {
                hessian[j * d + j] += 1e-9;
            }
        }
        let step = solve_cholesky(&hessian, &gradient, d);
        let mut largest: f64 = 0.0;
        for (b, s) in beta.iter_mut().zip(&step) {
            *b -= s;
            largest = largest.max(s.abs());
        }
        if largest < 1e-7 {
            break;
        }
    }
    let intercept = beta.pop().unwrap_or(0.0) as f32;
    (beta.iter().map(|&b| b as f32).collect(), intercept)
}

/// Solves `a x = b` for a symmetric positive definite `a` (n × n, row-major).
fn solve_cholesky(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut sum = a[i * n + j];
            for k in 0..j {
                sum -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = if i == j { sum.max(1e-12).sqrt() } else { sum / l[j * n + j] };
        }
    }
    let mut y = vec![0.0; n];
    for i in 0..n {
        let sum: f64 = (0..i).map(|k| l[i * n + k] * y[k]).sum();
        y[i] = (b[i] - sum) / l[i * n + i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let sum: f64 = (i + 1..n).map(|k| l[k * n + i] * x[k]).sum();
        x[i] = (y[i] - sum) / l[i * n + i];
    }
    x
}

/// log P(label of the next block | label of this block), with add-one smoothing.
fn transitions(pages: &[Page]) -> [[f32; 2]; 2] {
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
    use crate::block::BlockKind;

    #[test]
    fn blocks_are_labelled_by_the_words_that_align_to_gold() {
        let blocks = vec![
            Block::new(0, BlockKind::ListItem, "Home About Contact"),
            Block::new(1, BlockKind::Paragraph, "The council met on Monday to vote."),
            Block::new(2, BlockKind::Paragraph, "Copyright 2007 the council"),
        ];
        let gold = "URL: http://x\n<p> The council met on Monday to vote.\n";
        let shares = aligned_shares(&blocks, gold);
        assert_eq!(shares[0], 0.0);
        assert_eq!(shares[1], 1.0);
        assert!(shares[2] < 0.5);
    }

    #[test]
    fn cholesky_solves_a_small_system() {
        let a = [4.0, 2.0, 2.0, 3.0];
        let x = solve_cholesky(&a, &[2.0, 1.0], 2);
        assert!((4.0 * x[0] + 2.0 * x[1] - 2.0).abs() < 1e-12);
        assert!((2.0 * x[0] + 3.0 * x[1] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn logistic_regression_separates_a_separable_feature() {
        let mut examples = Vec::new();
        for i in 0..200 {
            let mut x = [0.0; INPUTS];
            x[0] = i as f32 / 100.0;
            examples.push(Example { x, keep: i >= 100, weight: 1.0 });
        }
        let (mean, scale) = standardisation(&examples);
        let (w, b) = fit_logistic(&examples, &mean, &scale, 1.0);
        let z = |v: f32| b + w[0] * (v - mean[0]) / scale[0];
        assert!(z(1.9) > 2.0 && z(0.1) < -2.0);
    }
}
