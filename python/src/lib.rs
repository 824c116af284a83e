//! `ppl_filter._native`: the Python bindings of ppl-filter, re-exported by the package
//! `ppl_filter` (see `ppl_filter/__init__.py`, and `ppl_filter/_native.pyi` for the types).
//!
//! Nothing here cleans: every function converts its arguments, calls the library
//! (`ppl_filter::pipeline::pages`, the same code the `ppl-filter` command runs) with the GIL
//! released, and converts the result or the refusal back. Files: `input.rs` (pages and
//! options in), `errors.rs` (the exceptions), `models.rs` (`Model`, `Classifier`),
//! `decided.rs` (`Block`, `Sentence`).

mod decided;
mod errors;
mod input;
mod models;

use std::sync::Arc;

use ppl_filter::lm::{embedded, LanguageModel};
use ppl_filter::pipeline::pages::{self, Page};
use ppl_filter::pipeline::{Request, RunError, FAVORS, FORMATS, KINDS, METHODS};
use ppl_filter::sink::language::Language;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use decided::{Block, Sentence};
use errors::Failure;
use input::{
    decision, decision_options, job, output_text, refused, request, thread_count, Checked,
    PageBytes,
};
use models::{Classifier, Model};

/// `clean_many` reads this many pages of its iterable, cleans them, then reads the next ones.
const CHUNK_PAGES: usize = 1024;

/// How messages name the page of `clean` and `blocks`, as `ppl-filter` names standard input.
const PAGE: &str = "<page>";

/// The language model to score with: the one given, or the embedded English model.
fn language_model(model: Option<&Bound<'_, Model>>) -> Option<Arc<LanguageModel>> {
    model.map(|m| Arc::clone(&m.get().model))
}

/// The classifier given (if any), to decide with instead of the embedded one.
fn chosen_classifier(
    classifier: Option<&Bound<'_, Classifier>>,
) -> Option<Arc<ppl_filter::Classifier>> {
    classifier.map(|c| Arc::clone(&c.get().classifier))
}

/// The model a call scores with: the one given, or else the embedded one.
fn scorer(model: &Option<Arc<LanguageModel>>) -> &LanguageModel {
    match model {
        Some(model) => model,
        None => embedded(),
    }
}

/// A run that could not go on (the system refused a thread): `ppl_filter.Error`.
fn run_failure(error: RunError) -> Failure {
    Failure::Run(ppl_filter::one_line(&error))
}

/// Cleans one web page and returns the text `ppl-filter` would print for a file holding it.
///
/// `html` is `bytes` (the encoding is sniffed as for a file: BOM, `<meta charset>`,
/// detection) or `str` (already text: read as it is). `url` is reported in the `json`
/// format. Each option left out (`None`) is what `ppl-filter` does with no flag. `method` is
/// one of `METHODS` (the first, the learned classifier, by default; `perplexity` drops
/// sentences above `threshold`, and blocks whose share of link text is above
/// `max_link_density`); `threshold` drops sentences whose perplexity is above it;
/// `format` is one of `FORMATS` (`text` by default); `favor` (one of `FAVORS`, the first by
/// default), `comments` and `kind` (one of `KINDS`: `auto`, each page's own, by default) steer
/// the combined method. `target_language` (`de`, `deu` or `German`) keeps the page only if its
/// text is in that language: another gives `""`. `model` and `classifier` replace the
/// embedded ones.
///
/// Raises `InputError` for a page that is refused (binary data, a parser that gave up, a `str`
/// holding a lone surrogate), `OptionError` for an unknown option name, a bad threshold or an
/// option that cannot be encoded, `TypeError` for an argument of the wrong type.
#[pyfunction]
#[pyo3(signature = (html, *, url=None, model=None, classifier=None, **options))]
fn clean(
    py: Python<'_>,
    html: &Bound<'_, PyAny>,
    url: Option<Checked<String>>,
    model: Option<&Bound<'_, Model>>,
    classifier: Option<&Bound<'_, Classifier>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let url = url.map(|url| url.option("url")).transpose()?;
    let job = job(request(
        py,
        options,
        chosen_classifier(classifier),
        "clean",
    )?)?;
    let page = PageBytes::extract(html, PAGE, false)?.into_page(PAGE.to_string(), url);
    let model = language_model(model);
    let cleaned = py
        .detach(|| {
            let model = scorer(&model);
            pages::clean_page(&page, model, &job)
        })
        .map_err(run_failure)?;
    if let Some(problem) = cleaned.failure() {
        return Err(refused(&page.name, problem).into());
    }
    Ok(output_text(cleaned.output))
}

/// Cleans many pages on `threads` threads (all cores by default) and returns their texts in
/// the pages' order: the same list for any thread count, each text what `clean` returns.
///
/// `pages` is any iterable of `str` or `bytes`; it is read 1,024 pages at a time, and each
/// batch is cleaned with the GIL released. Pages are named `document 0`, `document 1`, … in
/// messages. With `errors="strict"` the first page refused raises `InputError`; with
/// `errors="ignore"` such a page gives what was kept of it (maybe `""`; a lone surrogate in a
/// `str` page is read as U+FFFD). `threads` is 1 to 256, else `OptionError`. The other options
/// are those of `clean`.
#[pyfunction]
#[pyo3(signature = (
    pages, *, threads=None, errors=Checked::given(String::from("strict")), model=None,
    classifier=None, **options
))]
fn clean_many<'py>(
    py: Python<'py>,
    pages: &Bound<'py, PyAny>,
    threads: Option<Checked<i64>>,
    errors: Checked<String>,
    model: Option<&Bound<'py, Model>>,
    classifier: Option<&Bound<'py, Classifier>>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let job = job(request(
        py,
        options,
        chosen_classifier(classifier),
        "clean_many",
    )?)?;
    let strict = match errors.option("errors")?.as_str() {
        "strict" => true,
        "ignore" => false,
        other => {
            let message = format!("unknown errors '{other}' (strict or ignore)");
            return Err(Failure::Option(message).into());
        }
    };
    let threads = thread_count(threads)?;
    let model = language_model(model);
    let texts = PyList::empty(py);
    let mut pages = pages.try_iter()?;
    loop {
        let chunk = next_chunk(&mut pages, texts.len(), !strict)?;
        if chunk.is_empty() {
            return Ok(texts);
        }
        let cleaned = py
            .detach(|| {
                let model = scorer(&model);
                pages::clean_pages(&chunk, model, &job, threads)
            })
            .map_err(run_failure)?;
        for (page, cleaned) in chunk.iter().zip(cleaned) {
            if let Some(problem) = cleaned.failure().filter(|_| strict) {
                return Err(refused(&page.name, problem).into());
            }
            texts.append(output_text(cleaned.output))?;
        }
    }
}

/// The next pages of the iterable (at most [`CHUNK_PAGES`]), numbered from `first`; with
/// `lossy`, a `str` page that cannot be encoded is read with U+FFFD for what cannot.
fn next_chunk(
    pages: &mut Bound<'_, pyo3::types::PyIterator>,
    first: usize,
    lossy: bool,
) -> PyResult<Vec<Page>> {
    let mut chunk = Vec::new();
    for html in pages.by_ref().take(CHUNK_PAGES) {
        let name = format!("document {}", first + chunk.len());
        chunk.push(PageBytes::extract(&html?, &name, lossy)?.into_page(name, None));
    }
    Ok(chunk)
}

/// The page's blocks as the cleaner decided them: each with its text, kind, sentences (their
/// perplexity and whether each is kept) and evidence. The kept sentences, joined by spaces
/// within a block and by newlines between blocks, are the text `clean` returns.
///
/// Options and errors are those of `clean` (there is no `format` nor `target_language`).
#[pyfunction]
#[pyo3(signature = (html, *, model=None, classifier=None, **options))]
fn blocks(
    py: Python<'_>,
    html: &Bound<'_, PyAny>,
    model: Option<&Bound<'_, Model>>,
    classifier: Option<&Bound<'_, Classifier>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Block>> {
    let options = decision_options(decision(
        py,
        options,
        chosen_classifier(classifier),
        "blocks",
    )?)?;
    let page = PageBytes::extract(html, PAGE, false)?.into_page(PAGE.to_string(), None);
    let model = language_model(model);
    let (decided, problems) = py.detach(|| {
        let model = scorer(&model);
        pages::decided_blocks(&page, model, &options)
    });
    if let Some(problem) = pages::failure(&problems) {
        return Err(refused(&page.name, problem).into());
    }
    decided.iter().map(|block| Block::new(py, block)).collect()
}

/// The perplexity of one sentence under the language model (the embedded English one unless
/// `model` is given): low for fluent prose, high for menus and word salad. The number
/// `ppl-filter perplexity` prints. A sentence holding a lone surrogate is an `InputError`.
#[pyfunction]
#[pyo3(signature = (sentence, model=None))]
fn perplexity(sentence: Checked<String>, model: Option<&Bound<'_, Model>>) -> PyResult<f64> {
    let sentence = sentence.input("<sentence>")?;
    Ok(scorer(&language_model(model)).perplexity(&sentence))
}

/// The ISO 639-1 code of a language named by its code or English name (`deu`, `German`, `de`
/// → `de`), as datatrove's language steps and fastText's models name languages; the
/// three-letter code of one that has no two-letter code; `None` for a name of no language.
#[pyfunction]
fn language_code(name: &str) -> Option<&'static str> {
    Language::of_name(name).map(Language::two_letter_code)
}

/// The module: functions, classes, exceptions, and the option names.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(module)?;
    module.add_class::<Model>()?;
    module.add_class::<Classifier>()?;
    module.add_class::<Block>()?;
    module.add_class::<Sentence>()?;
    module.add_function(wrap_pyfunction!(clean, module)?)?;
    module.add_function(wrap_pyfunction!(clean_many, module)?)?;
    module.add_function(wrap_pyfunction!(blocks, module)?)?;
    module.add_function(wrap_pyfunction!(perplexity, module)?)?;
    module.add_function(wrap_pyfunction!(language_code, module)?)?;
    module.add("FORMATS", FORMATS.to_vec())?;
    module.add("METHODS", METHODS.to_vec())?;
    module.add("FAVORS", FAVORS.to_vec())?;
    module.add("KINDS", KINDS.to_vec())?;
    module.add("OPTIONS", Request::KEYS.to_vec())?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
