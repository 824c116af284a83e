//! WARC input: reading records (writing them is the sinks' business, `sink/warc.rs`). One
//! file a concern:
//!
//! - `record.rs`: what a record is ([`WarcRecord`]) and why one could not be read
//!   ([`WarcError`]);
//! - `read.rs`: [`WarcReader`], a streaming, bounded reader of WARC/1.0 and WARC/1.1 records that
//!   resynchronises after damage;
//! - `input.rs`: the reader's input, which takes back bytes read ahead to read them again;
//! - `http.rs`: the block of a `response` record as an HTTP response: its HTML body and charset
//!   ([`http_response_parts`]), its body decoded by [`crate::source::http`];
//!
//! Gzip (`.warc.gz`, one member per record or one for the whole file) is the caller's business:
//! wrap the input in `source::gzip::GzipReader` (see `source::maybe_gunzip`, which resumes at the next
//! member after a damaged one) and a `BufReader`; its damage reports become
//! [`WarcError::Damaged`] and reading goes on.

mod http;
mod input;
mod read;
mod record;

pub use http::{http_response_parts, HttpParts, MAX_DECODED_BODY_BYTES};
pub use read::WarcReader;
pub use record::{WarcError, WarcRecord};
