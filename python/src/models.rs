//! `Model` and `Classifier`: a language model or a classifier read from a file, to use instead
//! of the embedded ones. Each holds the library's value behind an `Arc`, so a call can keep it
//! while the GIL is released.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ppl_filter::decide;
use ppl_filter::lm::{LanguageModel, LoadError};
use ppl_filter::one_line;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::Failure;
use crate::input::{Checked, FilePath};

/// An n-gram language model read from a file (`ppl-filter train` writes one).
///
/// Pass it as `model=` to `clean`, `clean_many`, `blocks` or `perplexity` instead of the
/// embedded English model.
#[pyclass(frozen, module = "ppl_filter")]
pub struct Model {
    pub model: Arc<LanguageModel>,
    path: PathBuf,
}

#[pymethods]
impl Model {
    /// Reads and checks the model file at `path`; raises `ModelError` (naming the file) if it
    /// cannot be used, `OptionError` for a path that cannot be encoded (a lone surrogate).
    #[staticmethod]
    fn load(py: Python<'_>, path: Checked<FilePath>) -> PyResult<Model> {
        let FilePath(path) = path.option("path")?;
        let model = py.detach(|| LanguageModel::open(&path)).map_err(|source| {
            let error = LoadError {
                path: path.clone(),
                source,
            };
            Failure::Model(one_line(&error))
        })?;
        Ok(Model {
            model: Arc::new(model),
            path,
        })
    }

    /// The n-gram order N.
    #[getter]
    fn order(&self) -> usize {
        self.model.order()
    }

    /// The size of the model file in bytes.
    #[getter]
    fn size_bytes(&self) -> usize {
        self.model.size_bytes()
    }

    /// How many n-grams are stored for each order, unigrams first.
    #[getter]
    fn counts(&self) -> Vec<usize> {
        self.model.counts()
    }

    /// The file the model was read from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// `Model(path=…, order=…, size_bytes=…)`.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Model(path={}, order={}, size_bytes={})",
            path_repr(py, &self.path)?,
            self.model.order(),
            self.model.size_bytes()
        ))
    }
}

/// A keep/drop classifier of the combined method read from a file (`ppl-filter learn` writes
/// one).
///
/// Pass it as `classifier=` to `clean`, `clean_many` or `blocks` instead of the embedded one.
#[pyclass(frozen, module = "ppl_filter")]
pub struct Classifier {
    pub classifier: Arc<decide::Classifier>,
    path: PathBuf,
}

#[pymethods]
impl Classifier {
    /// Reads and checks the classifier file at `path`; raises `ModelError` (naming the file)
    /// if it cannot be used, `OptionError` for a path that cannot be encoded (a lone surrogate).
    #[staticmethod]
    fn load(py: Python<'_>, path: Checked<FilePath>) -> PyResult<Classifier> {
        let FilePath(path) = path.option("path")?;
        let classifier = py
            .detach(|| decide::Classifier::load(&path))
            .map_err(|error| Failure::Model(one_line(&error)))?;
        Ok(Classifier {
            classifier: Arc::new(classifier),
            path,
        })
    }

    /// The file the classifier was read from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// `Classifier(path=…)`.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Classifier(path={})", path_repr(py, &self.path)?))
    }
}

/// Python's `repr` of a path's text, as a `repr` shows the file.
fn path_repr(py: Python<'_>, path: &Path) -> PyResult<String> {
    let text = PyString::new(py, &path.to_string_lossy());
    Ok(text.repr()?.to_cow()?.into_owned())
}
