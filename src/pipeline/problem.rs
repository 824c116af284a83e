//! What goes wrong with one input ([`Problem`]) and who hears of it ([`Observer`]).

/// How bad a problem with one input is; the exit status follows the worst one of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Worth saying, but the input was cleaned: bytes invalid in its encoding were replaced,
    /// or it was empty (exit code 0).
    Note,
    /// The input, or part of it, was skipped: binary, damaged, truncated, a record or line that
    /// cannot be parsed (exit code 1).
    Warning,
    /// The input could not be read (exit code 2).
    Error,
}

/// A problem with one input, reported as one line naming the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The input (a file, `<stdin>`, a WARC record, a JSONL line).
    pub input: String,
    /// How bad it is.
    pub severity: Severity,
    /// What happened, one line.
    pub message: String,
}

/// Told what happens during a run: problems as they occur, and each input once it is read.
pub trait Observer: Sync {
    /// A problem with one input.
    fn problem(&self, problem: &Problem);
    /// Input `index` has been read to its end (or given up on).
    fn input_read(&self, _index: usize) {}
    /// Document `index` (a whole input, a WARC record or a JSONL line) has been read.
    fn document_read(&self, _index: usize) {}
}

impl<F: Fn(&Problem) + Sync> Observer for F {
    fn problem(&self, problem: &Problem) {
        self(problem)
    }
}
