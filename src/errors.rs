//! Every error the cleaning library returns, in one place, and [`one_line`], the way the
//! binaries, the Python package and the web demo print an error with its causes.
//!
//! Errors stay typed up to the edge of the program: each names what failed (a file, a record, a
//! flag) and keeps its cause as its `source`, and only the edge turns it into a message.

use std::error::Error;

pub use crate::decide::{ClassifierError, ClassifierLoadError, PolicyError};
pub use crate::decode::DecodeError;
pub use crate::eval::EvalError;
pub use crate::html::HtmlError;
pub use crate::io::jsonl::JsonlError;
pub use crate::io::warc::{BodyError, WarcError};
pub use crate::learn::LearnError;
pub use crate::lm::{LoadError, ModelError, TrainError};
pub use crate::pipeline::pages::NameError;
pub use crate::pipeline::RunError;

/// An error and its causes as one line, `outer: inner: …`. A cause whose text the line already
/// holds (a message that quotes its source) is not repeated.
pub fn one_line(error: &(dyn Error + 'static)) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        let text = error.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = error.source();
    }
    line
}
