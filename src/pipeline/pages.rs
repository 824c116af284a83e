//! Pages that a program holds in memory (the Python package, the web demo): one page or many
//! cleaned, with the options a [`super::Request`] gives, exactly as the command line cleans a file
//! ([`clean_pages`]: each page is an [`Input::Memory`] run through [`run`]), and a page's blocks
//! with their decision and evidence ([`decided_blocks`], or one at a time: [`each_decided_block`]).
//! [`clean_page_within`] cleans a page no further than a bound on its output.

use std::cell::Cell;
use std::io;
use std::ops::ControlFlow;
use std::sync::Mutex;

use super::job::Job;
pub use super::job::Page;
use super::{
    map_in_order, process_whole, read_document, run, DocumentKind, Findings, Observer, Options,
    OutputClosed, Problem, RunError, Severity,
};
use crate::block::Block;
use crate::decide::Decider;
use crate::lm::model::LanguageModel;
use crate::sink::{DocumentMeta, DocumentStats, RecordSink, Sink, StreamSink};
use crate::source::Input;

/// What cleaning one page gave.
#[derive(Clone, Debug, Default)]
pub struct Cleaned {
    /// The output, as `ppl-filter` would write it for a file holding the page.
    pub output: Vec<u8>,
    /// What went wrong, in the order it was met (an empty page is a [`Severity::Note`]).
    pub problems: Vec<Problem>,
    /// The page's text is not in the options' target language (or its language could not be
    /// told): it was left out, and the output is empty.
    pub other_language: bool,
}

impl Cleaned {
    /// The first problem that skipped the page or part of it ([`failure`]).
    pub fn failure(&self) -> Option<&Problem> {
        failure(&self.problems)
    }
}

/// The first of a page's problems that skipped the page or part of it (a
/// [`Severity::Warning`] or worse), the one a caller that wants all or nothing reports.
pub fn failure(problems: &[Problem]) -> Option<&Problem> {
    problems.iter().find(|p| p.severity != Severity::Note)
}

/// Cleans each page as `ppl-filter` cleans a file holding it, on `threads` threads (each page
/// on one thread, through [`run`]), and returns the results in the pages' order: the same
/// bytes for any thread count. Memory holds the pages and their outputs, and one page's blocks
/// per thread.
pub fn clean_pages(
    pages: &[Page],
    model: &LanguageModel,
    job: &Job,
    threads: usize,
) -> Result<Vec<Cleaned>, RunError> {
    map_in_order(pages, threads, |page| clean_page(page, model, job))
        .map_err(|source| RunError::Threads { threads, source })?
        .into_iter()
        .collect()
}

/// Cleans one page on the calling thread, as `ppl-filter` cleans a file holding it.
pub fn clean_page(page: &Page, model: &LanguageModel, job: &Job) -> Result<Cleaned, RunError> {
    // No output held in memory reaches `usize::MAX` bytes: the bound is never met.
    clean_page_within(page, model, job, usize::MAX).map_err(|error| match error {
        PageError::Run(error) => error,
        PageError::TooLong { .. } => RunError::Output(io::Error::other(error.to_string())),
    })
}

/// Why a page was not cleaned within a bound on its output ([`clean_page_within`]).
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// The run failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The output would be longer than the bound: cleaning stopped as soon as it passed it.
    #[error("the cleaned page would be longer than {max} bytes")]
    TooLong {
        /// The bound.
        max: usize,
    },
}

/// Cleans one page as [`clean_page`] does, stopping as soon as its output would pass
/// `max_output_bytes` ([`PageError::TooLong`]): however much text the page holds or inflates
/// to, no more than `max_output_bytes` of output is ever held, nor, with `json` output, of the
/// text its one record is written from.
pub fn clean_page_within(
    page: &Page,
    model: &LanguageModel,
    job: &Job,
    max_output_bytes: usize,
) -> Result<Cleaned, PageError> {
    let input = page.input();
    let run_options = Options {
        threads: 1,
        ..page.options(&job.options)
    };
    let problems = Mutex::new(Vec::new());
    let observer = |problem: &Problem| {
        problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(problem.clone())
    };
    let mut output = Capped::new(max_output_bytes);
    let (text_over, ran, other_language) = {
        let (mut record, mut stream);
        let written: &mut dyn Sink = match job.output.records() {
            Some(format) => {
                record = RecordSink::new(&mut output, format.with_url(page.url.clone()));
                &mut record
            }
            None => {
                stream = StreamSink::new(&mut output, b"");
                &mut stream
            }
        };
        let mut chain = job.chain(written);
        // A record or a page held for its language is written whole once the page ends: its
        // text is bounded on the way in.
        let mut text = CappedText {
            sink: &mut chain,
            room: max_output_bytes,
            over: false,
        };
        let ran = run_into(&input, model, &run_options, &mut text, &observer);
        let over = text.over;
        (over, ran, chain.left_out().documents > 0)
    };
    if text_over || output.over {
        return Err(PageError::TooLong {
            max: max_output_bytes,
        });
    }
    ran?;
    let problems = problems.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(Cleaned {
        output: output.bytes,
        problems,
        other_language,
    })
}

/// Output held in memory that refuses to grow past `max` bytes: the write that would take it
/// past fails (and the run stops there) and `over` says why.
struct Capped {
    bytes: Vec<u8>,
    max: usize,
    over: bool,
}

impl Capped {
    fn new(max: usize) -> Capped {
        Capped {
            bytes: Vec::new(),
            max,
            over: false,
        }
    }
}

impl io::Write for Capped {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if bytes.len() > self.max - self.bytes.len() {
            self.over = true;
            return Err(io::Error::other("over the bound on a page's output"));
        }
        self.bytes.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A sink that takes at most `room` bytes of text more: the write that would pass it fails
/// (and the run stops there), and `over` says why.
struct CappedText<'a> {
    sink: &'a mut dyn Sink,
    room: usize,
    over: bool,
}

impl Sink for CappedText<'_> {
    fn begin(&mut self, index: usize, meta: &DocumentMeta) -> io::Result<()> {
        self.sink.begin(index, meta)
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.len() > self.room {
            self.over = true;
            return Err(io::Error::other("over the bound on a page's text"));
        }
        self.room -= bytes.len();
        self.sink.write(bytes)
    }

    fn end(&mut self, stats: &DocumentStats) -> io::Result<()> {
        self.sink.end(stats)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.sink.finish()
    }
}

/// One input through [`run`] into `sink`.
fn run_into(
    input: &Input,
    model: &LanguageModel,
    options: &Options,
    sink: &mut dyn Sink,
    observer: &dyn Observer,
) -> Result<(), RunError> {
    run(std::slice::from_ref(input), model, options, sink, observer).map(|_| ())
}

/// A page's blocks, decided as [`clean_page`] decides them, each with its evidence and every
/// sentence's perplexity and keep/drop: for people who study or tune the decision.
pub fn decided_blocks(
    page: &Page,
    model: &LanguageModel,
    options: &Options,
) -> (Vec<Block>, Vec<Problem>) {
    let mut decided = Vec::new();
    let problems = each_decided_block(page, model, options, &mut |block| {
        decided.push(block);
        ControlFlow::Continue(())
    });
    (decided, problems)
}

/// Hands a page's blocks, in order and each as [`decided_blocks`] lists it, to `each` as soon
/// as it is decided; reading stops when `each` answers [`ControlFlow::Break`]. However long the
/// page, only a batch of blocks and the combined method's piece of a document
/// (`max_document_bytes`) are held at once. Returns the problems found while reading.
pub fn each_decided_block(
    page: &Page,
    model: &LanguageModel,
    options: &Options,
    each: &mut dyn FnMut(Block) -> ControlFlow<()>,
) -> Vec<Problem> {
    let mut options = page.options(options);
    options.render.report_perplexity = true;
    let mut findings = Findings::default();
    let mut decider = Decider::new(&options.decide);
    let stopped = Cell::new(false);
    let mut hand = |block: Block| {
        if !stopped.get() && each(block).is_break() {
            stopped.set(true);
        }
    };
    // Err only when `each` asked to stop.
    let _ = read_document(
        &mut &page.bytes[..],
        &options,
        DocumentKind::of(&options),
        &mut findings,
        &mut |more| {
            // Segmenting and scoring are block by block: a batch at a time is as the whole.
            for block in process_whole(std::mem::take(more), None, model, &options).blocks {
                decider.push(block, &mut hand);
            }
            if stopped.get() {
                Err(OutputClosed)
            } else {
                Ok(())
            }
        },
    );
    if !stopped.get() {
        decider.finish(Some(&findings.page), &mut hand);
    }
    findings
        .problems
        .into_iter()
        .map(|trouble| Problem::new(page.name.clone(), trouble))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use crate::lm::model::embedded;
    use crate::pipeline::Request;
    use crate::sink::render::RenderSettings;

    /// The options writing `format` (`json` or `text`).
    fn json_or_text(format: &str) -> Job {
        let options = serde_json::json!({ "format": format });
        Request::of_options(options).unwrap().job().unwrap()
    }

    fn page(name: &str, bytes: &[u8]) -> Page {
        Page {
            name: name.to_string(),
            bytes: Arc::from(bytes),
            url: None,
            encoding: None,
        }
    }

    #[test]
    fn a_page_is_cleaned_as_clean_bytes_cleans_it() {
        let bytes = include_bytes!("../../fixtures/pages/news.html");
        let options = Request::default().job().unwrap();
        let cleaned = clean_page(&page("<page>", bytes), embedded(), &options).unwrap();
        let (expected, _) = super::super::clean_bytes(bytes, embedded(), &options.options);
        assert!(!cleaned.output.is_empty());
        assert_eq!(cleaned.output, expected);
        assert!(cleaned.failure().is_none(), "{:?}", cleaned.problems);
    }

    #[test]
    fn the_output_is_bounded_at_its_last_byte() {
        let page = page("<page>", include_bytes!("../../fixtures/pages/news.html"));
        for format in ["text", "json"] {
            let options = json_or_text(format);
            let whole = clean_page(&page, embedded(), &options).unwrap().output;
            let fits = clean_page_within(&page, embedded(), &options, whole.len()).unwrap();
            assert_eq!(fits.output, whole, "{format}");
            let over = clean_page_within(&page, embedded(), &options, whole.len() - 1);
            let max = whole.len() - 1;
            assert!(
                matches!(over, Err(PageError::TooLong { max: m }) if m == max),
                "{format}: {over:?}"
            );
        }
    }

    #[test]
    fn cleaning_stops_at_the_bound_whatever_the_page_inflates_to() {
        use std::io::Write;
        // 1 MiB of paragraphs as one gzip member of a few kB, repeated: 2 GiB once inflated.
        // Each paragraph of the first member is its own, so that its text comes out (a text
        // given again and again outside the main run comes out once).
        let member = |numbered: bool| {
            let mut member = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            for i in 0..(1 << 20) / 64 {
                let n = if numbered { i } else { 0 };
                writeln!(
                    member,
                    "<p>The town council voted on plan {n:>8} on Tuesday.</p>"
                )
                .unwrap();
            }
            member.finish().unwrap()
        };
        let mut bomb = member(true);
        bomb.extend(member(false).repeat(2047));
        assert!(bomb.len() < 32 << 20);
        let started = std::time::Instant::now();
        for format in ["text", "json"] {
            let options = json_or_text(format);
            let cleaned = clean_page_within(&page("<page>", &bomb), embedded(), &options, 64 << 10);
            assert!(
                matches!(cleaned, Err(PageError::TooLong { max: 65536 })),
                "{format}: {cleaned:?}"
            );
        }
        // A guard against reading all of it (minutes, and 2 GiB of output), not a measure of
        // speed: cleaning stops after about 64 kB of text.
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }

    #[test]
    fn many_pages_come_back_in_order_whatever_the_thread_count() {
        let pages: Vec<Page> = [
            &include_bytes!("../../fixtures/pages/news.html")[..],
            include_bytes!("../../fixtures/pages/latin1.html"),
            include_bytes!("../../fixtures/binary.bin"),
            include_bytes!("../../fixtures/pages/entities.html"),
            b"",
        ]
        .iter()
        .enumerate()
        .map(|(i, bytes)| page(&format!("document {i}"), bytes))
        .collect();
        let options = Request::default().job().unwrap();
        let one = clean_pages(&pages, embedded(), &options, 1).unwrap();
        for threads in [2, 3, 8] {
            let many = clean_pages(&pages, embedded(), &options, threads).unwrap();
            let outputs = |r: &[Cleaned]| r.iter().map(|c| c.output.clone()).collect::<Vec<_>>();
            assert_eq!(outputs(&one), outputs(&many), "{threads} threads");
        }
        let failure = one[2].failure().expect("binary data is refused");
        assert_eq!(failure.input, "document 2");
        assert_eq!(failure.message(), "binary data, not text: skipped");
        assert!(one[4].failure().is_none() && !one[4].problems.is_empty());
    }

    #[test]
    fn only_a_page_in_the_target_language_comes_out() {
        let english = page("<page>", include_bytes!("../../fixtures/pages/news.html"));
        let german = page(
            "<page>",
            "<p>Der Gemeinderat hat am Dienstag beschlossen, das Ufer des Flusses zu erneuern, \
             und die Arbeiten sollen im Frühjahr beginnen.</p>"
                .as_bytes(),
        );
        for format in ["text", "json"] {
            let options = |language: Option<&str>| {
                let options = serde_json::json!({ "format": format, "target_language": language });
                Request::of_options(options).unwrap().job().unwrap()
            };
            let every = options(None);
            for (page, language, kept) in [
                (&english, "en", true),
                (&english, "German", false),
                (&german, "de", true),
                (&german, "eng", false),
            ] {
                let cleaned = clean_page(page, embedded(), &options(Some(language))).unwrap();
                let whole = clean_page(page, embedded(), &every).unwrap();
                assert!(!whole.output.is_empty());
                if kept {
                    assert_eq!(cleaned.output, whole.output, "{format} {language}");
                } else {
                    assert!(cleaned.output.is_empty(), "{format} {language}");
                }
                assert_eq!(cleaned.other_language, !kept, "{format} {language}");
            }
        }
    }

    #[test]
    fn a_page_held_as_text_is_read_in_its_own_encoding() {
        let bytes = "<meta charset=iso-8859-1><p>Café au lait, crème brûlée.</p>".as_bytes();
        let options = Request::default().job().unwrap();
        let sniffed = clean_page(&page("<page>", bytes), embedded(), &options).unwrap();
        let text = Page {
            encoding: Some(encoding_rs::UTF_8),
            ..page("<page>", bytes)
        };
        let utf8 = clean_page(&text, embedded(), &options).unwrap();
        assert_eq!(
            String::from_utf8(utf8.output).unwrap(),
            "Café au lait, crème brûlée.\n"
        );
        // Read from its bytes, the page's UTF-8 wins over its declaration too.
        assert_eq!(sniffed.output, "Café au lait, crème brûlée.\n".as_bytes());
        let (blocks, _) = decided_blocks(&text, embedded(), &options.options);
        assert_eq!(blocks[0].text, "Café au lait, crème brûlée.");
    }

    #[test]
    fn json_output_names_the_page_and_its_url() {
        let bytes = include_bytes!("../../fixtures/pages/news.html");
        let options = json_or_text("json");
        let page = Page {
            url: Some("https://example.com/news".into()),
            ..page("<page>", bytes)
        };
        let cleaned = clean_page(&page, embedded(), &options).unwrap();
        let record: serde_json::Value = serde_json::from_slice(&cleaned.output).unwrap();
        assert_eq!(record["url"], "https://example.com/news");
        assert_eq!(record["source"], "<page>");
        assert!(record["text"].as_str().is_some_and(|t| !t.is_empty()));
    }

    #[test]
    fn blocks_handed_one_at_a_time_are_the_decided_blocks_and_stop_when_asked() {
        let page = page("<page>", include_bytes!("../../fixtures/pages/news.html"));
        let options = Request::default().job().unwrap().options;
        let (all, _) = decided_blocks(&page, embedded(), &options);
        assert!(all.len() > 3);
        let mut first = Vec::new();
        each_decided_block(&page, embedded(), &options, &mut |block| {
            first.push(block);
            if first.len() == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        let texts = |blocks: &[Block]| -> Vec<(String, Vec<bool>)> {
            let keeps = |b: &Block| b.sentences.iter().map(|s| s.keep).collect();
            blocks.iter().map(|b| (b.text.clone(), keeps(b))).collect()
        };
        assert_eq!(texts(&first), texts(&all[..3]));
    }

    #[test]
    fn decided_blocks_carry_the_decision_of_the_clean_text() {
        let bytes = include_bytes!("../../fixtures/pages/news.html");
        let options = Options::default();
        let (blocks, _) = decided_blocks(&page("<page>", bytes), embedded(), &options);
        let mut kept = Vec::new();
        let mut renderer = crate::sink::render::Renderer::new(RenderSettings::default());
        for block in blocks.iter().cloned() {
            renderer.block(block, &mut kept);
        }
        renderer.finish(&mut kept);
        let (clean, _) = super::super::clean_bytes(bytes, embedded(), &options);
        assert_eq!(kept, clean);
        assert!(blocks.iter().any(|b| b.sentences.iter().any(|s| !s.keep)));
        assert!(blocks
            .iter()
            .flat_map(|b| &b.sentences)
            .all(|s| s.perplexity.is_finite()));
    }
}
