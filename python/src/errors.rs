//! The exceptions the package raises, and [`Failure`], what the binding's Rust code returns
//! when it refuses something: each kind of failure becomes one of the exceptions.
//!
//! `InputError` and `OptionError` are also `ValueError`s, so the classes are made with
//! Python's `type(name, bases, namespace)` (PyO3's exception macro takes a single base) when
//! the module is imported, and kept for raising.

use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// The package's exception classes, made once when the module is imported.
struct Exceptions {
    error: Py<PyType>,
    input: Py<PyType>,
    model: Py<PyType>,
    option: Py<PyType>,
}

static EXCEPTIONS: PyOnceLock<Exceptions> = PyOnceLock::new();

/// Why a call is refused: each variant holds the message and names the exception raised.
#[derive(Debug)]
pub enum Failure {
    /// A page that was refused: `InputError`.
    Input(String),
    /// A model or classifier file that cannot be used: `ModelError`.
    Model(String),
    /// An option that names nothing or cannot be used: `OptionError`.
    Option(String),
    /// The run itself failed (the system refused a thread): `Error`.
    Run(String),
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> PyErr {
        Python::attach(|py| {
            let Some(exceptions) = EXCEPTIONS.get(py) else {
                return PyRuntimeError::new_err(format!("{failure:?}"));
            };
            let (class, message) = match failure {
                Failure::Input(m) => (&exceptions.input, m),
                Failure::Model(m) => (&exceptions.model, m),
                Failure::Option(m) => (&exceptions.option, m),
                Failure::Run(m) => (&exceptions.error, m),
            };
            PyErr::from_type(class.bind(py).clone(), message)
        })
    }
}

/// A new exception class of the module `ppl_filter`.
fn exception_class<'py>(
    py: Python<'py>,
    name: &str,
    bases: &[Bound<'py, PyType>],
    doc: &str,
) -> PyResult<Bound<'py, PyType>> {
    let namespace = PyDict::new(py);
    namespace.set_item("__doc__", doc)?;
    namespace.set_item("__module__", "ppl_filter")?;
    let bases = PyTuple::new(py, bases)?;
    let class = py.get_type::<PyType>().call1((name, bases, namespace))?;
    Ok(class.cast_into::<PyType>()?)
}

/// Makes the exception classes and adds them to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let exceptions = EXCEPTIONS.get_or_try_init(py, || -> PyResult<Exceptions> {
        let base = py.get_type::<PyException>();
        let value = py.get_type::<PyValueError>();
        let error = exception_class(
            py,
            "Error",
            &[base],
            "The base of every error that ppl_filter raises.",
        )?;
        let input = exception_class(
            py,
            "InputError",
            &[error.clone(), value.clone()],
            "A page was refused (binary data, a parser that gave up): the message names the \
             page as the command line does, `<page>` or `document N`.",
        )?;
        let model = exception_class(
            py,
            "ModelError",
            std::slice::from_ref(&error),
            "A model or classifier file cannot be used; the message names the file.",
        )?;
        let option = exception_class(
            py,
            "OptionError",
            &[error.clone(), value],
            "An option names no method, format or leaning, or has a value that cannot be used.",
        )?;
        Ok(Exceptions {
            error: error.unbind(),
            input: input.unbind(),
            model: model.unbind(),
            option: option.unbind(),
        })
    })?;
    module.add("Error", exceptions.error.bind(py))?;
    module.add("InputError", exceptions.input.bind(py))?;
    module.add("ModelError", exceptions.model.bind(py))?;
    module.add("OptionError", exceptions.option.bind(py))?;
    Ok(())
}
