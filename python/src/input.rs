//! What Python passes in, as the library takes it: a page (`str` or `bytes`) as a [`Page`],
//! the keyword arguments naming options as the library's [`Request`] (each keyword set by its
//! name: the library holds the names, defaults and refusals), checked into its options, and
//! arguments whose value cannot be converted ([`Checked`]): a `str` with a lone surrogate, an
//! `int` out of range. Those become the package's own exceptions, naming the argument or the
//! page, where PyO3 would raise a bare `UnicodeEncodeError` or `OverflowError`; an argument of
//! the wrong type stays a `TypeError`.

use std::path::PathBuf;
use std::sync::Arc;

use ppl_filter::decide::Classifier;
use ppl_filter::pipeline::encoding_for_label;
use ppl_filter::pipeline::pages::Page;
use ppl_filter::pipeline::Job;
use ppl_filter::pipeline::MAX_THREADS;
use ppl_filter::pipeline::{Decision, Options, Problem, Request, RequestError};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyUnicodeEncodeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyString};

use crate::errors::Failure;

/// One page's bytes, and whether Python gave them as text.
pub struct PageBytes {
    /// The bytes: a `bytes` page as it is, a `str` page encoded as UTF-8.
    pub bytes: Arc<[u8]>,
    /// The page was a `str`: its bytes are UTF-8 and must be read as such, not sniffed.
    pub text: bool,
}

impl PageBytes {
    /// The bytes of a `str` or `bytes` page; a `TypeError` for anything else.
    ///
    /// A `str` that cannot be encoded as UTF-8 (it holds a lone surrogate such as `"\ud800"`)
    /// is an `InputError` naming the page (`name`), or with `lossy` is read with each lone
    /// surrogate as one U+FFFD, as `errors="ignore"` reads what it can of a page.
    pub fn extract(html: &Bound<'_, PyAny>, name: &str, lossy: bool) -> PyResult<PageBytes> {
        if let Ok(text) = html.cast::<PyString>() {
            let bytes: Arc<[u8]> = match text.to_cow() {
                Ok(text) => Arc::from(text.as_bytes()),
                Err(error) if error.is_instance_of::<PyUnicodeEncodeError>(html.py()) => {
                    if !lossy {
                        return Err(Failure::Input(format!("{name}: {}", message(&error))).into());
                    }
                    let encoded = text.call_method1("encode", ("utf-8", "surrogatepass"))?;
                    Arc::from(surrogates_replaced(
                        encoded.cast::<PyBytes>()?.as_bytes().to_vec(),
                    ))
                }
                Err(error) => return Err(error),
            };
            return Ok(PageBytes { bytes, text: true });
        }
        if let Ok(bytes) = html.cast::<PyBytes>() {
            return Ok(PageBytes {
                bytes: Arc::from(bytes.as_bytes()),
                text: false,
            });
        }
        Err(PyTypeError::new_err(format!(
            "a page must be str or bytes, not {}",
            html.get_type().name()?
        )))
    }

    /// The page as the library takes it: a `str` page is read as UTF-8, whatever a
    /// `<meta charset>` in it says (it described bytes that Python has already decoded).
    pub fn into_page(self, name: String, url: Option<String>) -> Page {
        Page {
            name,
            bytes: self.bytes,
            url,
            encoding: if self.text {
                encoding_for_label("utf-8")
            } else {
                None
            },
        }
    }
}

/// UTF-8 with surrogates (what Python's `surrogatepass` writes: `ED A0..BF xx` for each) with
/// each surrogate replaced by U+FFFD, which takes as many bytes: valid UTF-8.
fn surrogates_replaced(mut bytes: Vec<u8>) -> Vec<u8> {
    const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();
    let mut i = 0;
    // 0xED is never a continuation byte, so it starts a character wherever it is.
    while i + REPLACEMENT.len() <= bytes.len() {
        if bytes[i] == 0xED && bytes[i + 1] >= 0xA0 {
            bytes[i..i + REPLACEMENT.len()].copy_from_slice(REPLACEMENT);
            i += REPLACEMENT.len();
        } else {
            i += 1;
        }
    }
    bytes
}

/// The request that `function`'s keyword arguments name (`None` is an option's default), with
/// the classifier given, read by the library's [`Request::of_options`] ([`python_error`]).
pub fn request(
    py: Python<'_>,
    options: Option<&Bound<'_, PyDict>>,
    classifier: Option<Arc<Classifier>>,
    function: &str,
) -> PyResult<Request> {
    let options = encodable(py, options)?;
    let mut deserializer = pythonize::Depythonizer::from_object(options.as_any());
    let mut request =
        Request::of_options(&mut deserializer).map_err(|e| python_error(function, e))?;
    request.decision.classifier = classifier;
    Ok(request)
}

/// The decision that `function`'s keyword arguments name (a function that takes the decision's
/// options alone: no `format` nor `target_language`), read by [`Decision::of_options`].
pub fn decision(
    py: Python<'_>,
    options: Option<&Bound<'_, PyDict>>,
    classifier: Option<Arc<Classifier>>,
    function: &str,
) -> PyResult<Decision> {
    let options = encodable(py, options)?;
    let mut deserializer = pythonize::Depythonizer::from_object(options.as_any());
    let mut decision =
        Decision::of_options(&mut deserializer).map_err(|e| python_error(function, e))?;
    decision.classifier = classifier;
    Ok(decision)
}

/// A copy of the keyword arguments (an empty `dict` for none) that serde can read: each `str`
/// among them known to encode as UTF-8, else an `OptionError` naming its option (a lone
/// surrogate); each `int` beyond 64 bits given as a `float`, else an `OptionError` naming its
/// option (beyond a `float`'s range), where pythonize would fail without naming it.
fn encodable<'py>(
    py: Python<'py>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let options = match options {
        Some(options) => options.copy()?,
        None => PyDict::new(py),
    };
    let mut floats = Vec::new();
    for (key, value) in &options {
        let key: String = key.extract()?;
        if value.is_instance_of::<PyString>() {
            Checked::<String>::extract(value.as_borrowed())?.option(&key)?;
        } else if value.is_instance_of::<PyInt>()
            && !value.is_instance_of::<PyBool>()
            && value.extract::<i64>().is_err()
        {
            let number = Checked::<f64>::extract(value.as_borrowed())?.option(&key)?;
            floats.push((key, number));
        }
    }
    for (key, number) in floats {
        options.set_item(key, number)?;
    }
    Ok(options)
}

/// The library's refusal of `function`'s keyword arguments as Python raises it: a `TypeError`
/// for a keyword no option has or a value of the wrong type, as for Python's own functions; an
/// `OptionError` for a value that names nothing or cannot be used.
fn python_error(function: &str, error: RequestError) -> PyErr {
    match error {
        RequestError::Unknown(key) => PyTypeError::new_err(format!(
            "{function}() got an unexpected keyword argument '{key}'"
        )),
        error @ RequestError::Type(_) => PyTypeError::new_err(error.to_string()),
        error => Failure::Option(error.to_string()).into(),
    }
}

/// The job `request` describes, or an `OptionError` with the library's message.
pub fn job(request: Request) -> Result<Job, Failure> {
    request
        .job()
        .map_err(|error| Failure::Option(error.to_string()))
}

/// The run's options for `decision`, or an `OptionError` with the library's message.
pub fn decision_options(decision: Decision) -> Result<Options, Failure> {
    decision
        .options()
        .map_err(|error| Failure::Option(error.to_string()))
}

/// The `InputError` for a page's problem, worded as `ppl-filter` prints it after its name.
pub fn refused(name: &str, problem: &Problem) -> Failure {
    Failure::Input(format!("{name}: {}", problem.trouble))
}

/// A page's output as a Python string (the library writes UTF-8).
pub fn output_text(output: Vec<u8>) -> String {
    String::from_utf8(output)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// An argument as PyO3 extracted it, or the error that says its value cannot be converted (an
/// `OverflowError` or a `UnicodeEncodeError`), kept to be raised as the package's own exception
/// naming the argument ([`Checked::option`], [`Checked::input`]). Any other error, a
/// `TypeError` for an argument of the wrong type first, is raised by PyO3 as it is.
pub struct Checked<T>(Result<T, PyErr>);

impl<T> Checked<T> {
    /// An argument's default value.
    pub fn given(value: T) -> Checked<T> {
        Checked(Ok(value))
    }

    /// The value, or an `OptionError` naming the option `name`.
    pub fn option(self, name: &str) -> Result<T, Failure> {
        self.0
            .map_err(|error| Failure::Option(format!("{name}: {}", message(&error))))
    }

    /// The value, or an `InputError` naming the input `name`.
    pub fn input(self, name: &str) -> Result<T, Failure> {
        self.0
            .map_err(|error| Failure::Input(format!("{name}: {}", message(&error))))
    }
}

impl<'a, 'py, T> FromPyObject<'a, 'py> for Checked<T>
where
    T: FromPyObject<'a, 'py>,
{
    type Error = PyErr;

    fn extract(object: Borrowed<'a, 'py, PyAny>) -> PyResult<Checked<T>> {
        match T::extract(object).map_err(Into::into) {
            Ok(value) => Ok(Checked(Ok(value))),
            Err(error)
                if error.is_instance_of::<PyOverflowError>(object.py())
                    || error.is_instance_of::<PyUnicodeEncodeError>(object.py()) =>
            {
                Ok(Checked(Err(error)))
            }
            Err(error) => Err(error),
        }
    }
}

/// A file's path given as `str`, `bytes` or `os.PathLike`, encoded as Python's `os.fsencode`
/// encodes it: a `str` with a lone surrogate that the file-system encoding cannot take is a
/// `UnicodeEncodeError` (for [`Checked`]), where PyO3's own `PathBuf` conversion panics.
pub struct FilePath(pub PathBuf);

impl<'a, 'py> FromPyObject<'a, 'py> for FilePath {
    type Error = PyErr;

    fn extract(object: Borrowed<'a, 'py, PyAny>) -> PyResult<FilePath> {
        let os = PyModule::import(object.py(), "os")?;
        let encoded = os.getattr("fsencode")?.call1((object,))?;
        let bytes = encoded.cast::<PyBytes>()?.as_bytes();
        #[cfg(unix)]
        let path = {
            use std::os::unix::ffi::OsStrExt;
            PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
        };
        #[cfg(not(unix))]
        let path = PathBuf::from(
            os.getattr("fsdecode")?
                .call1((bytes,))?
                .extract::<String>()?,
        );
        Ok(FilePath(path))
    }
}

/// The thread count `threads` asks for (`None`: all cores), or an `OptionError` unless it is
/// 1 to [`MAX_THREADS`], the range `ppl-filter -j` takes.
pub fn thread_count(threads: Option<Checked<i64>>) -> Result<usize, Failure> {
    let refused =
        |given: &str| Failure::Option(format!("threads: must be 1 to {MAX_THREADS}, {given}"));
    match threads {
        None => Ok(ppl_filter::pipeline::default_threads()),
        Some(threads) => match threads.0 {
            Ok(n) => usize::try_from(n)
                .ok()
                .filter(|n| (1..=MAX_THREADS).contains(n))
                .ok_or_else(|| refused(&format!("not {n}"))),
            Err(_) => Err(refused("not an integer beyond 64 bits")),
        },
    }
}

/// An exception's message on one line (Python's messages for these errors are one line).
fn message(error: &PyErr) -> String {
    Python::attach(|py| error.value(py).to_string())
        .lines()
        .collect::<Vec<_>>()
        .join(" ")
}
