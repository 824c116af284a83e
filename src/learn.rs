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
//! 4. Boosted shallow trees ([`crate::boost`]) or an L2-regularised logistic regression (Newton's
//!    method) over the evidence of each block and its neighbours, examples weighted by their
//!    words times their set's factor ([`SetBalance`], [`LearnOptions::set_weights`]); the
//!    Viterbi transition log probabilities are the label bigram frequencies.

use std::path::{Path, PathBuf};

use crate::block::{Block, Evidence};
use crate::boost::{self, BoostOptions};
use crate::decide::{context_input, Classifier, Scorer, Weights, INPUTS};
use crate::eval::{lcs, normalize};
use crate::evidence::{self, DocumentContext};
use crate::lm::model::{LanguageModel, ModelError};
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
    /// Boilerplate model: n-grams seen fewer times are pruned.
    pub min_count: u32,
    /// Which classifier is fitted.
    pub learner: Learner,
    /// Settings of the boosted trees.
    pub boost: BoostOptions,
    /// How the sets' examples are weighed against each other before `set_weights` apply.
    pub set_balance: SetBalance,
    /// Factor on the example weights of each set (indexed like [`Page::set`]; a set beyond the
    /// end weighs 1).
    pub set_weights: Vec<f64>,
}

/// How the example weights of several training sets compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetBalance {
    /// Every set's examples add up to the same total weight, whatever its size (then each is
    /// multiplied by its set weight).
    Equal,
    /// Examples keep their own weight (words): a set counts as much as it has words.
    Natural,
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
            min_count: 1,
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

/// How a gold file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoldFormat {
    /// CleanEval: a `URL: …` first line, then blocks that start with `<p>`, `<h>` or `<l>`.
    /// Words are taken as `ppl-eval` takes them (lines starting with `URL` dropped, markers
    /// split out and ignored).
    CleanEval,
    /// Plain text, one block per line, no markers and no URL line: every line is text (even
    /// one that starts with "URL"). Words are the white-space-separated tokens.
    Plain,
}

impl GoldFormat {
    /// CleanEval when the first non-blank line starts with `URL` or any line starts with a
    /// `<p>`, `<h>` or `<l>` marker (after white space, any case); plain text otherwise.
    pub fn detect(gold: &str) -> GoldFormat {
        let mut lines = gold
            .lines()
            .map(|l| l.trim_start_matches(|c: char| c.is_whitespace() || c < '\u{20}'));
        let starts_with_marker = |l: &str| {
            let b = l.as_bytes();
            b.len() >= 3
                && b[0] == b'<'
                && b[2] == b'>'
                && matches!(b[1].to_ascii_lowercase(), b'p' | b'h' | b'l')
        };
        if lines
            .clone()
            .find(|l| !l.is_empty())
            .is_some_and(|l| l.starts_with("URL"))
            || lines.any(starts_with_marker)
        {
            GoldFormat::CleanEval
        } else {
            GoldFormat::Plain
        }
    }

    /// The words of `text` (gold or a page's block) as the alignment compares them.
    pub fn words(self, text: &str) -> Vec<&str> {
        match self {
            GoldFormat::CleanEval => normalize::text_view(&normalize::tokenize(text)),
            GoldFormat::Plain => text
                .split(|c: char| c.is_whitespace() || c < '\u{20}')
                .filter(|w| !w.is_empty())
                .collect(),
        }
    }
}

/// One training set: a directory of pages, one of their gold text, and a weight.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingSet {
    /// Pages, `N.html`.
    pub input_dir: PathBuf,
    /// Their gold text, `N.txt`.
    pub gold_dir: PathBuf,
    /// Factor on the weight of the set's examples (after [`SetBalance`]).
    pub weight: f64,
}

/// Reads a list of training sets: one `INPUT_DIR GOLD_DIR [WEIGHT]` per line, separated by
/// white space (so the paths cannot contain any); blank lines and `#` comments are skipped;
/// relative paths are taken from the list file's directory. A missing weight is 1.
pub fn read_set_list(path: &Path) -> Result<Vec<TrainingSet>, LearnError> {
    let text = std::fs::read_to_string(path).map_err(|source| LearnError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let base = path.parent().unwrap_or(Path::new(""));
    let mut sets = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default();
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let bad = |message: String| LearnError::SetList {
            path: path.to_path_buf(),
            line: n + 1,
            message,
        };
        if !(2..=3).contains(&fields.len()) {
            return Err(bad(format!(
                "expected INPUT_DIR GOLD_DIR [WEIGHT], found {} fields",
                fields.len()
            )));
        }
        let weight = match fields.get(2) {
            Some(w) => w
                .parse::<f64>()
                .map_err(|_| bad(format!("weight {w:?} is not a number")))?,
            None => 1.0,
        };
        sets.push(TrainingSet {
            input_dir: base.join(fields[0]),
            gold_dir: base.join(fields[1]),
            weight,
        });
    }
    Ok(sets)
}

/// One training page: its blocks (segmented) and their labels.
pub struct Page {
    /// The input file's stem (`N` of `N.html`).
    pub name: String,
    /// Index of the training set the page comes from.
    pub set: usize,
    /// The page's blocks, measured.
    pub blocks: Vec<Block>,
    /// Share of each block's words that align to the gold text.
    pub aligned: Vec<f32>,
    /// How the gold file was written.
    pub gold_format: GoldFormat,
}

impl Page {
    /// Cuts `html` into blocks as the filter would and labels them against `gold`, written
    /// in `format` (`None`: detected).
    pub fn new(
        name: String,
        html: &[u8],
        gold: &[u8],
        format: Option<GoldFormat>,
        options: &Options,
    ) -> Page {
        let (mut blocks, _) = pipeline::read_blocks(html, options);
        for block in &mut blocks {
            segment::segment(block);
        }
        let gold = normalize::decode(gold);
        let gold_format = format.unwrap_or_else(|| GoldFormat::detect(&gold));
        let aligned = aligned_shares(&blocks, &gold, gold_format);
        Page {
            name,
            set: 0,
            blocks,
            aligned,
            gold_format,
        }
    }

    fn keep(&self, i: usize) -> bool {
        self.aligned[i] >= 0.5
    }
}

/// Share of each block's words that a longest common subsequence of the page's words and
/// the gold's words matches, both read as `format` reads them.
pub fn aligned_shares(blocks: &[Block], gold: &str, format: GoldFormat) -> Vec<f32> {
    let gold_words = format.words(gold);
    let mut owner = Vec::new();
    let mut page_words = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        for word in format.words(&block.text) {
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
    matched
        .iter()
        .zip(&total)
        .map(|(&m, &t)| if t == 0 { 0.0 } else { m as f32 / t as f32 })
        .collect()
}

/// Reads every `N.html` of `input_dir` that has a `N.txt` in `gold_dir`, in name order (gold
/// written in `format`; `None`: detected per file).
pub fn read_pages(
    input_dir: &Path,
    gold_dir: &Path,
    format: Option<GoldFormat>,
    options: &Options,
) -> Result<Vec<Page>, LearnError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LearnError::Io { path, source }
    };
    let names = crate::io::html_pages(input_dir).map_err(|source| LearnError::Io {
        path: input_dir.to_path_buf(),
        source,
    })?;
    let mut pages = Vec::new();
    for path in names {
        let stem = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let gold_path = gold_dir.join(format!("{stem}.txt"));
        if !gold_path.is_file() {
            continue;
        }
        let html = std::fs::read(&path).map_err(io_err(&path))?;
        let gold = std::fs::read(&gold_path).map_err(io_err(&gold_path))?;
        pages.push(Page::new(stem, &html, &gold, format, options));
    }
    if pages.is_empty() {
        return Err(LearnError::NoPairs(input_dir.to_path_buf()));
    }
    Ok(pages)
}

/// Reads the pages of every set in turn ([`read_pages`]), each marked with its set's index.
pub fn read_sets(
    sets: &[TrainingSet],
    format: Option<GoldFormat>,
    options: &Options,
) -> Result<Vec<Page>, LearnError> {
    let mut pages = Vec::new();
    for (k, set) in sets.iter().enumerate() {
        let mut set_pages = read_pages(&set.input_dir, &set.gold_dir, format, options)?;
        for page in &mut set_pages {
            page.set = k;
        }
        pages.append(&mut set_pages);
    }
    Ok(pages)
}

/// Trains the boilerplate model on the sentences of the drop blocks of `pages`.
pub fn train_boilerplate<'a>(
    pages: impl Iterator<Item = &'a Page>,
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
        ..TrainOptions::default()
    };
    let source = format!(
        "sentences of the blocks of {count} cleaned pages that do not align to their gold text"
    );
    Ok(train_sentences(sentences, &source, &train)?.bytes)
}

/// Learns a classifier from labelled pages; returns the classifier file's bytes.
pub fn learn(
    pages: &mut [Page],
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
                Scorer::Logistic {
                    mean,
                    scale,
                    weights,
                    intercept,
                },
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
    };
    Ok(Classifier::to_bytes(&weights, &model)?)
}

/// Measures every block of a page and fills the document evidence the decider adds (the
/// page is one piece: training pages are far below `--max-document-bytes`).
fn measure_page(page: &mut Page, general: &LanguageModel, boilerplate: &LanguageModel) {
    let mut document = DocumentContext::default();
    for block in &mut page.blocks {
        evidence::measure(block, general, boilerplate);
        document.observe(block);
    }
    crate::evidence::annotate(&mut page.blocks);
}

/// The factor on the example weights of each set (indexed by [`Page::set`]): its weight,
/// times, with [`SetBalance::Equal`], the ratio that brings its total to the mean total of the
/// sets that have examples.
pub fn set_factors(pages: &[Page], examples: &[Example], opts: &LearnOptions) -> Vec<f64> {
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
fn check_set_weights(pages: &[Page], opts: &LearnOptions) -> Result<(), LearnError> {
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
fn sets_summary(pages: &[Page], factors: &[f64], opts: &LearnOptions) -> String {
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
    /// [`Page::set`] of its page.
    pub set: usize,
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
            if sd > 1e-6 {
                sd as f32
            } else {
                1.0
            }
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
            let mut x: Vec<f64> = (0..INPUTS)
                .map(|j| f64::from((e.x[j] - mean[j]) / scale[j]))
                .collect();
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
            l[i * n + j] = if i == j {
                sum.max(1e-12).sqrt()
            } else {
                sum / l[j * n + j]
            };
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

    /// A page's blocks, numbered in order.
    fn page(blocks: &[(BlockKind, &str)]) -> Vec<Block> {
        let numbered = blocks.iter().enumerate();
        numbered
            .map(|(i, &(kind, text))| Block::new(i as u32, kind, text))
            .collect()
    }

    #[test]
    fn blocks_are_labelled_by_the_words_that_align_to_gold() {
        let blocks = page(&[
            (BlockKind::ListItem, "Home About Contact"),
            (BlockKind::Paragraph, "The council met on Monday to vote."),
            (BlockKind::Paragraph, "Copyright 2007 the council"),
        ]);
        let gold = "URL: http://x\n<p> The council met on Monday to vote.\n";
        assert_eq!(GoldFormat::detect(gold), GoldFormat::CleanEval);
        let shares = aligned_shares(&blocks, gold, GoldFormat::CleanEval);
        assert_eq!(shares[0], 0.0);
        assert_eq!(shares[1], 1.0);
        assert!(shares[2] < 0.5);
    }

    #[test]
    fn plain_text_gold_labels_blocks_too() {
        let blocks = page(&[
            (BlockKind::Heading, "Storm closes the coast road"),
            (BlockKind::ListItem, "Home News Sport Weather"),
            (
                BlockKind::Paragraph,
                "URLs of the detours are on the council's site, officials said.",
            ),
            (BlockKind::Paragraph, "The road will reopen on Friday."),
            (
                BlockKind::Paragraph,
                "Share this article: Facebook Twitter Email",
            ),
            (BlockKind::Paragraph, "Comments (3) Log in to comment"),
        ]);
        // One block per line, no URL line, no markers; a line may wrap two page blocks, and one
        // starting with "URL" is text like any other.
        let gold = "Storm closes the coast road\nURLs of the detours are on the council's site, officials said.\r\nThe road will reopen on Friday.\n";
        assert_eq!(GoldFormat::detect(gold), GoldFormat::Plain);
        let shares = aligned_shares(&blocks, gold, GoldFormat::Plain);
        assert_eq!(shares, [1.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
        // Read as CleanEval, the "URL…" line would vanish from both sides and its block drop.
        assert_eq!(aligned_shares(&blocks, gold, GoldFormat::CleanEval)[2], 0.0);
    }

    #[test]
    fn gold_formats_are_told_apart() {
        for (gold, format) in [
            ("URL: http://x\n", GoldFormat::CleanEval),
            ("\n\n  URL: http://x\n<p> Text\n", GoldFormat::CleanEval),
            ("\n<h>  Title\n\nBody text\n", GoldFormat::CleanEval),
            ("  <P> upper-case marker\n", GoldFormat::CleanEval),
            ("Title\nBody with <p> inside a line\n", GoldFormat::Plain),
            ("Title\nURL of the report below\n", GoldFormat::Plain),
        ] {
            assert_eq!(GoldFormat::detect(gold), format, "{gold:?}");
        }
        assert_eq!(GoldFormat::detect(""), GoldFormat::Plain);
        assert_eq!(
            GoldFormat::Plain.words("a\tb\u{1}c  <p>d"),
            ["a", "b", "c", "<p>d"]
        );
        assert_eq!(GoldFormat::CleanEval.words("URL: x\n<p>a b"), ["a", "b"]);
    }

    #[test]
    fn set_lists_are_read_relative_to_their_file() {
        let dir = std::env::temp_dir().join(format!("ppl-filter-set-list-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let list = dir.join("sets.txt");
        std::fs::write(
            &list,
            "# training sets\n\ntune/input tune/gold\n/abs/in /abs/gold 0.5  # weighted\n",
        )
        .unwrap();
        let sets = read_set_list(&list).unwrap();
        assert_eq!(
            sets,
            [
                TrainingSet {
                    input_dir: dir.join("tune/input"),
                    gold_dir: dir.join("tune/gold"),
                    weight: 1.0
                },
                TrainingSet {
                    input_dir: "/abs/in".into(),
                    gold_dir: "/abs/gold".into(),
                    weight: 0.5
                },
            ]
        );
        for (bad, message) in [
            ("a\n", "found 1 fields"),
            ("a b c d\n", "found 4 fields"),
            ("a b heavy\n", "not a number"),
        ] {
            std::fs::write(&list, format!("# x\n{bad}")).unwrap();
            let err = read_set_list(&list).unwrap_err().to_string();
            assert!(err.contains(":2: ") && err.contains(message), "{err}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sets_weigh_equally_or_by_their_words() {
        let page = |set| Page {
            name: String::new(),
            set,
            blocks: Vec::new(),
            aligned: Vec::new(),
            gold_format: GoldFormat::Plain,
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
            examples.push(Example {
                x,
                keep: i >= 100,
                weight: 1.0,
                set: 0,
            });
        }
        let (mean, scale) = standardisation(&examples);
        let (w, b) = fit_logistic(&examples, &mean, &scale, 1.0);
        let z = |v: f32| b + w[0] * (v - mean[0]) / scale[0];
        assert!(z(1.9) > 2.0 && z(0.1) < -2.0);
    }
}
