//! `Block` and `Sentence`: a page's decided blocks as `blocks()` returns them, copied from the
//! library's [`ppl_filter::Block`] into frozen Python objects.

use ppl_filter::decide::{Evidence, EVIDENCE_VALUES};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// The most characters of text a `repr` shows.
const REPR_CHARS: usize = 60;

/// One sentence of a block: its text, its perplexity under the language model and whether it
/// is kept.
#[pyclass(frozen, module = "ppl_filter")]
pub struct Sentence {
    /// The sentence's text.
    #[pyo3(get)]
    text: String,
    /// Its perplexity under the language model (lower reads more like fluent prose).
    #[pyo3(get)]
    perplexity: f64,
    /// Whether the sentence is in the cleaned text.
    #[pyo3(get)]
    kept: bool,
}

#[pymethods]
impl Sentence {
    /// `Sentence(perplexity=…, kept=…, text=…)`, the text cut to 60 characters.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Sentence(perplexity={:.1}, kept={}, text={})",
            self.perplexity,
            python_bool(self.kept),
            short_repr(py, &self.text)?
        ))
    }
}

/// A run of text between two block-level boundaries of the page, with its sentences, the
/// decision on each, and the evidence the combined method weighed.
#[pyclass(frozen, module = "ppl_filter")]
pub struct Block {
    /// The block's text (entities decoded, white space collapsed).
    #[pyo3(get)]
    text: String,
    /// The element the text sat in: `heading`, `list_item`, `table_cell`, `form`,
    /// `preformatted` or `paragraph`.
    #[pyo3(get)]
    kind: &'static str,
    /// Whether any of its sentences is kept.
    #[pyo3(get)]
    kept: bool,
    /// The share of the text's bytes that sat inside links.
    #[pyo3(get)]
    link_density: f64,
    sentences: Vec<Py<Sentence>>,
    evidence: [f32; EVIDENCE_VALUES],
}

impl Block {
    /// The Python copy of a decided block.
    pub fn new(py: Python<'_>, block: &ppl_filter::Block) -> PyResult<Block> {
        let sentences = block
            .sentences
            .iter()
            .map(|sentence| {
                let copy = Sentence {
                    text: block.sentence_text(sentence).to_string(),
                    perplexity: f64::from(sentence.perplexity),
                    kept: sentence.keep,
                };
                Py::new(py, copy)
            })
            .collect::<PyResult<_>>()?;
        Ok(Block {
            text: block.text.clone(),
            kind: block.kind.name(),
            kept: block.sentences.iter().any(|s| s.keep),
            link_density: block.link_density(),
            sentences,
            evidence: block.evidence.values(),
        })
    }
}

#[pymethods]
impl Block {
    /// Its sentences, in order.
    #[getter]
    fn sentences(&self, py: Python<'_>) -> Vec<Py<Sentence>> {
        self.sentences.iter().map(|s| s.clone_ref(py)).collect()
    }

    /// The evidence the combined method weighed, by name (`ln_words`, `link_density`,
    /// `in_navigation`, …), in the classifier's order.
    #[getter]
    fn evidence<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in Evidence::NAMES.iter().zip(self.evidence) {
            dict.set_item(name, f64::from(value))?;
        }
        Ok(dict)
    }

    /// `Block(kind=…, kept=…, sentences=…, text=…)`, the text cut to 60 characters.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Block(kind='{}', kept={}, sentences={}, text={})",
            self.kind,
            python_bool(self.kept),
            self.sentences.len(),
            short_repr(py, &self.text)?
        ))
    }
}

/// `True` or `False`.
fn python_bool(value: bool) -> &'static str {
    if value {
        "True"
    } else {
        "False"
    }
}

/// Python's `repr` of the text, cut to [`REPR_CHARS`] characters with `…` if longer.
fn short_repr(py: Python<'_>, text: &str) -> PyResult<String> {
    let shown = match text.char_indices().nth(REPR_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    };
    Ok(PyString::new(py, &shown).repr()?.to_cow()?.into_owned())
}
