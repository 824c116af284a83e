//! What a run tells the person at the terminal: problems as one line each on stderr (control
//! characters escaped), and a progress bar when stderr is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ppl_filter::pipeline::{Observer, Problem};
use ppl_filter::printable;
use ppl_filter::source::InputFormat;

/// Prints problems as one line each on stderr and drives the progress bar.
pub struct Reporter {
    bar: Option<ProgressBar>,
    /// Count documents (WARC records, JSONL lines) rather than inputs.
    per_document: bool,
}

impl Reporter {
    /// A bar over several inputs, or a counter of records for WARC and JSONL, unless `quiet`
    /// (indicatif draws only when stderr is a terminal).
    pub fn new(inputs: usize, kind: InputFormat, quiet: bool) -> Reporter {
        let per_document = matches!(kind, InputFormat::Warc | InputFormat::Jsonl);
        let bar = (!quiet && (per_document || inputs > 1)).then(|| {
            let (length, template) = if per_document {
                (None, "{spinner} {pos} records, {per_sec}")
            } else {
                (
                    Some(inputs as u64),
                    "{bar:40} {pos}/{len} documents, {per_sec}, {eta} left",
                )
            };
            let bar = ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            bar
        });
        Reporter { bar, per_document }
    }

    /// Clears the bar.
    pub fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Reporter {
    fn problem(&self, problem: &Problem) {
        // A name or URL from a list, a page or a redirect may hold escape sequences: shown inert.
        let print = || {
            let input = printable(&problem.input);
            eprintln!("ppl-filter: {input}: {}", printable(&problem.message()));
        };
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    fn input_read(&self, _index: usize) {
        if let (Some(bar), false) = (&self.bar, self.per_document) {
            bar.inc(1);
        }
    }

    fn document_read(&self, _index: usize) {
        if let (Some(bar), true) = (&self.bar, self.per_document) {
            bar.inc(1);
        }
    }
}
