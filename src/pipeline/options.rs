//! What decides how documents are cleaned and written: [`Options`], the settings of each stage
//! in turn, each declared by its stage: reading ([`ReadSettings`], here, where inputs are read),
//! the HTML parser ([`HtmlSettings`]), the decision ([`DecideSettings`]) and the rendering
//! ([`RenderSettings`]).

use crate::decide::{self, Choices, DecideSettings, Method, Policy};
use crate::html::HtmlSettings;
use crate::sink::render::{Layout, OutputMode, RenderSettings};
use crate::source::InputFormat;

/// Everything that decides how documents are cleaned and written, stage by stage.
#[derive(Clone, Debug)]
pub struct Options {
    /// How inputs are read and cut into documents.
    pub read: ReadSettings,
    /// The HTML stage's limits and choices.
    pub html: HtmlSettings,
    /// How blocks are kept or dropped.
    pub decide: DecideSettings,
    /// What is written for each document.
    pub render: RenderSettings,
    /// Scoring workers; 1 runs everything on the calling thread.
    pub threads: usize,
}

/// How inputs are read and cut into documents.
#[derive(Clone, Debug)]
pub struct ReadSettings {
    /// What the inputs hold.
    pub input_format: InputFormat,
    /// Skip encoding detection and decode every input with this encoding.
    pub encoding: Option<&'static encoding_rs::Encoding>,
    /// Bytes read from an input at a time.
    pub read_size: usize,
    /// JSONL: the field cleaned (HTML, or plain text when it is named `text`).
    pub jsonl_field: String,
    /// JSONL: drop lines that cannot be parsed instead of passing them through.
    pub skip_bad_lines: bool,
    /// Largest WARC record or JSONL line read: a larger record is skipped, a larger line passed
    /// through unchanged (or skipped with `skip_bad_lines`), and either reported. It also bounds
    /// the bytes the stream splitter holds back while it tells a document pasted into a page from
    /// the next page ([`crate::source::pages`]); past it, the document is taken for the next page.
    pub max_record_bytes: usize,
    /// WARC: clean every response, not only 2xx HTML ones (other payloads as plain text).
    pub all_responses: bool,
    /// Pages (a whole input read as HTML): one whose text holds no markup in its first 4 KiB
    /// ([`crate::source::sniff::has_markup`]) is read as plain text (as `InputFormat::Text`), so
    /// its blank lines separate paragraphs. Set unless the inputs were said to be HTML.
    pub text_without_markup: bool,
    /// Pages: a stream (standard input, a pipe) is read as one document rather than cut into
    /// its pages ([`crate::source::pages`]).
    pub one_document: bool,
}

impl Default for ReadSettings {
    fn default() -> ReadSettings {
        ReadSettings {
            input_format: InputFormat::Html,
            encoding: None,
            read_size: 64 * 1024,
            jsonl_field: "html".to_string(),
            skip_bad_lines: false,
            max_record_bytes: 16 * 1024 * 1024,
            all_responses: false,
            text_without_markup: true,
            one_document: false,
        }
    }
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
        Options::with_decision(DecideSettings {
            method,
            policy: Policy::default(),
            choices: Choices::default(),
        })
    }

    /// The defaults with the given decision, the HTML stage reading pages as its method does
    /// ([`Options::set_method`]).
    pub fn with_decision(decide: DecideSettings) -> Options {
        let html = HtmlSettings {
            as_seen: reads_as_seen(&decide.method),
            ..HtmlSettings::default()
        };
        Options {
            read: ReadSettings::default(),
            html,
            decide,
            render: RenderSettings::default(),
            threads: 1,
        }
    }

    /// Pages read as the combined method reads them (as readers see them,
    /// [`HtmlSettings::as_seen`]), with no classifier loaded: to learn from them, where the
    /// decision plays no part in reading them (the embedded classifier may hold other evidence
    /// than this build's: its successor is what is being learned).
    pub fn reading_only() -> Options {
        let mut options = Options::with_method(Method::Perplexity);
        options.html.as_seen = true;
        options
    }

    /// Decides with `method`, the HTML stage reading pages as that method does: as readers see
    /// them for the combined one ([`HtmlSettings::as_seen`]), as it always read them for the
    /// perplexity method.
    pub fn set_method(&mut self, method: Method) {
        self.html.as_seen = reads_as_seen(&method);
        self.decide.method = method;
    }

    /// These options writing in `layout` ([`RenderSettings::of`]).
    pub fn with_layout(self, layout: Layout) -> Options {
        Options {
            render: RenderSettings::of(layout),
            ..self
        }
    }

    /// Whether every sentence's perplexity must be measured: it is written (scores, marked
    /// sentences, a record's mean perplexity) or a perplexity threshold applies. Otherwise the
    /// combined method measures only the sentences its evidence needs.
    pub fn every_perplexity(&self) -> bool {
        self.render.report_perplexity
            || self.render.mode != OutputMode::Clean
            || self.decide.policy.max_perplexity.is_some()
    }
}

/// Whether pages are read as readers see them ([`HtmlSettings::as_seen`]) for `method`.
fn reads_as_seen(method: &Method) -> bool {
    !matches!(method, Method::Perplexity)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_perplexity_method_reads_pages_as_it_always_did() {
        let mut options = Options::default();
        assert!(options.html.as_seen);
        options.set_method(Method::Perplexity);
        assert!(!options.html.as_seen);
        assert!(!Options::with_method(Method::Perplexity).html.as_seen);
        options.set_method(Method::Combined(decide::embedded()));
        assert!(options.html.as_seen);
    }
}
