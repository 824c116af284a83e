//! `ppl-eval compare`: cleans the same pages with several methods, scores each against the
//! gold and reports accuracy and throughput side by side (the table in GUIDE.md).
//!
//! Methods: no cleaning (every block the HTML stage extracts), the jusText-style
//! [`baseline`], and ppl-filter with each decision method: `perplexity`
//! (threshold and link density from the given options) and `combined` (the options' classifier,
//! or the embedded one when the options ask for the perplexity method). Each method
//! runs in this process on one thread, page by page; the time counted is cleaning only
//! (reading the files and scoring are outside the clock).

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use crate::decide;
use crate::eval::baseline::{self, JustextParams};
use crate::eval::{score_dirs, EvalError, Scores};
use crate::lm::model::LanguageModel;
use crate::pipeline::{clean_bytes, read_blocks, Options};
use crate::stopwords::Stopwords;

/// A cleaner compared: none, the baseline, or ppl-filter with one of its methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cleaner {
    /// All extracted text, nothing removed.
    NoCleaning,
    /// The jusText-style baseline.
    Baseline,
    /// ppl-filter `--method perplexity` with the thresholds given to [`compare`].
    PplFilterPerplexity,
    /// ppl-filter `--method combined` with the classifier given to [`compare`].
    PplFilterCombined,
}

impl Cleaner {
    /// Every method, in table order.
    pub const ALL: [Cleaner; 4] = [
        Cleaner::NoCleaning,
        Cleaner::Baseline,
        Cleaner::PplFilterPerplexity,
        Cleaner::PplFilterCombined,
    ];

    /// The row label.
    pub fn name(self) -> &'static str {
        match self {
            Cleaner::NoCleaning => "no cleaning",
            Cleaner::Baseline => "jusText-style baseline",
            Cleaner::PplFilterPerplexity => "ppl-filter --method perplexity",
            Cleaner::PplFilterCombined => "ppl-filter --method combined",
        }
    }
}

/// One method's scores and speed.
#[derive(Debug)]
pub struct MethodResult {
    /// The method.
    pub method: Cleaner,
    /// Its scores against the gold.
    pub summary: Scores,
    /// Seconds spent cleaning.
    pub seconds: f64,
    /// Bytes of HTML cleaned.
    pub bytes: u64,
    /// Pages cleaned.
    pub pages: usize,
}

impl MethodResult {
    /// Megabytes (10^6 bytes) of HTML cleaned per second.
    pub fn mb_per_second(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.seconds.max(1e-9)
    }
}

/// Cleans every page of `input_dir` with `method`, writing `out_dir/N.txt`; returns (seconds spent cleaning, bytes of HTML, pages).
pub fn clean_dir(
    method: Cleaner,
    input_dir: &Path,
    out_dir: &Path,
    model: &LanguageModel,
    options: &Options,
) -> Result<(f64, u64, usize), EvalError> {
    let pages = crate::source::html_pages(input_dir).map_err(|source| EvalError::Read {
        path: input_dir.to_path_buf(),
        source,
    })?;
    std::fs::create_dir_all(out_dir).map_err(|source| EvalError::Write {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let stopwords = Stopwords::english();
    let params = JustextParams::default();
    let mut options = options.clone();
    match (method, &options.decide.method) {
        (Cleaner::PplFilterPerplexity, _) => options.set_method(decide::Method::Perplexity),
        (Cleaner::PplFilterCombined, decide::Method::Perplexity) => {
            options.set_method(decide::Method::Combined(decide::embedded()));
        }
        _ => {}
    }
    let options = &options;
    let (mut seconds, mut bytes) = (0.0, 0u64);
    for page in &pages {
        let html = crate::source::read_page(page).map_err(|source| EvalError::Read {
            path: page.clone(),
            source,
        })?;
        let started = Instant::now();
        let text: Vec<u8> = match method {
            Cleaner::NoCleaning => read_blocks(&html, options)
                .blocks
                .iter()
                .flat_map(|b| b.text.bytes().chain(Some(b'\n')))
                .collect(),
            Cleaner::Baseline => {
                let blocks = read_blocks(&html, options).blocks;
                let keep = baseline::classify(&blocks, stopwords, &params);
                baseline::render(&blocks, &keep).into_bytes()
            }
            Cleaner::PplFilterPerplexity | Cleaner::PplFilterCombined => {
                clean_bytes(&html, model, options).0
            }
        };
        seconds += started.elapsed().as_secs_f64();
        bytes += html.len() as u64;
        let name = crate::source::page_stem(page).unwrap_or_default();
        let path = out_dir.join(format!("{name}.txt"));
        std::fs::write(&path, text).map_err(|source| EvalError::Write { path, source })?;
    }
    Ok((seconds, bytes, pages.len()))
}

/// Runs every method over `input_dir`, scoring against `gold_dir`. Outputs go to
/// `work_dir/<method>/N.txt` (kept, so they can be inspected or scored again).
pub fn compare(
    input_dir: &Path,
    gold_dir: &Path,
    work_dir: &Path,
    model: &LanguageModel,
    options: &Options,
) -> Result<Vec<MethodResult>, EvalError> {
    let mut results = Vec::new();
    for method in Cleaner::ALL {
        let out_dir = work_dir.join(method.name().replace(" --method ", "-").replace(' ', "-"));
        let (seconds, bytes, pages) = clean_dir(method, input_dir, &out_dir, model, options)?;
        let summary = score_dirs(&out_dir, gold_dir)?;
        results.push(MethodResult {
            method,
            summary,
            seconds,
            bytes,
            pages,
        });
    }
    Ok(results)
}

/// The side-by-side table (Markdown).
pub fn table(results: &[MethodResult]) -> String {
    let mut out = String::from(
        "| method | Lev macro | Lev micro | word P | word R | word F micro | word F macro | MB/s (1 thread) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in results {
        let s = &r.summary;
        let _ = writeln!(
            out,
            "| {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1} |",
            r.method.name(),
            s.lev_macro,
            s.lev_micro,
            s.text.micro.p,
            s.text.micro.r,
            s.text.micro.f,
            s.text.macro_.f,
            r.mb_per_second()
        );
    }
    out
}
