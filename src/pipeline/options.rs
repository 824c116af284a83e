//! What decides how documents are cleaned and written: [`Options`].

use crate::decide::{self, Choices, Method, Policy};
use crate::html::HtmlSettings;
use crate::io::InputFormat;
use crate::output::{Layout, OutputFormat, OutputMode};

/// Everything that decides how documents are cleaned and written.
#[derive(Clone, Debug)]
pub struct Options {
    /// What the inputs hold.
    pub input_format: InputFormat,
    /// Skip encoding detection and decode every input with this encoding.
    pub encoding: Option<&'static encoding_rs::Encoding>,
    /// The HTML stage's limits and choices.
    pub html: HtmlSettings,
    /// The decision: perplexity threshold or the learned classifier.
    pub method: Method,
    /// Thresholds of the perplexity method (the perplexity threshold applies to both).
    pub policy: Policy,
    /// What is written: the kept text, everything marked, or scores.
    pub mode: OutputMode,
    /// How the text is written: plain, with CleanEval markers, or as Markdown.
    pub format: OutputFormat,
    /// Scoring workers; 1 runs everything on the calling thread.
    pub threads: usize,
    /// Bytes read from an input at a time.
    pub read_size: usize,
    /// JSONL: the field cleaned (HTML, or plain text when it is named `text`).
    pub jsonl_field: String,
    /// JSONL: drop lines that cannot be parsed instead of passing them through.
    pub skip_bad_lines: bool,
    /// Largest WARC record or JSONL line read; a larger one is skipped and reported.
    pub max_record_bytes: usize,
    /// WARC: clean every response, not only 2xx HTML ones (other payloads as plain text).
    pub all_responses: bool,
    /// The combined method's leaning, comments and document bound ([`Decider`]).
    pub choices: Choices,
    /// Measure every sentence's perplexity, also where the decision does not need it: set when
    /// the output reports perplexities other than through [`Options::mode`] (a record's mean
    /// perplexity). See [`Options::every_perplexity`].
    pub report_perplexity: bool,
}

impl Default for Options {
    /// The defaults, with the combined method and the embedded classifier.
    fn default() -> Options {
        Options::with_method(Method::Combined(decide::embedded()))
    }
}

impl Options {
    /// The defaults with the given decision method.
    pub fn with_method(method: Method) -> Options {
        Options {
            input_format: InputFormat::Html,
            encoding: None,
            html: HtmlSettings::default(),
            method,
            policy: Policy::default(),
            mode: OutputMode::Clean,
            format: OutputFormat::Plain,
            threads: 1,
            read_size: 64 * 1024,
            jsonl_field: "html".to_string(),
            skip_bad_lines: false,
            max_record_bytes: 16 * 1024 * 1024,
            all_responses: false,
            choices: Choices::default(),
            report_perplexity: false,
        }
    }

    /// These options writing in `layout` (a JSON object's text is written as text: the sink
    /// makes the object).
    pub fn with_layout(self, layout: Layout) -> Options {
        Options {
            mode: layout.mode(),
            format: layout.format(),
            ..self
        }
    }

    /// Whether every sentence's perplexity must be measured: it is written (scores, marked
    /// sentences, a record's mean perplexity) or a perplexity threshold applies. Otherwise the
    /// combined method measures only the sentences its evidence needs.
    pub fn every_perplexity(&self) -> bool {
        self.report_perplexity
            || self.mode != OutputMode::Clean
            || self.policy.max_perplexity.is_some()
    }
}
