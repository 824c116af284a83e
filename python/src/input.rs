//! What Python passes in, as the library takes it: a page (`str` or `bytes`) as a [`Page`],
//! and the options named with words ([`Named`]), checked into the library's [`PageOptions`].

use std::sync::Arc;

use ppl_filter::decode::encoding_for_label;
use ppl_filter::pipeline::pages::{Named, Page, PageOptions};
use ppl_filter::pipeline::Problem;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

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
    pub fn extract(html: &Bound<'_, PyAny>) -> PyResult<PageBytes> {
        if let Ok(text) = html.cast::<PyString>() {
            return Ok(PageBytes {
                bytes: Arc::from(text.to_cow()?.as_bytes()),
                text: true,
            });
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

/// The options `named` describes, or an `OptionError` with the library's message.
pub fn page_options(named: &Named<'_>) -> Result<PageOptions, Failure> {
    named
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
