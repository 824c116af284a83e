//! WARC input and output. One file a concern:
//!
//! - `record.rs`: what a record is ([`WarcRecord`]) and why one could not be read
//!   ([`WarcError`]);
//! - `read.rs`: [`WarcReader`], a streaming, bounded reader of WARC/1.0 and WARC/1.1 records that
//!   resynchronises after damage;
//! - `input.rs`: the reader's input, which takes back bytes read ahead to read them again;
//! - `http.rs`: the block of a `response` record as an HTTP response: its HTML body and charset
//!   ([`http_response_parts`]), and why a body was not decoded whole ([`BodyError`]);
//! - `write.rs`: [`WarcWriter`], a writer of deterministic `conversion` and `warcinfo` records,
//!   dated [`run_date`] (`SOURCE_DATE_EPOCH`, or now).
//!
//! Gzip (`.warc.gz`, one member per record or one for the whole file) is the caller's business:
//! wrap the input in `io::gzip::GzipReader` (see `io::maybe_gunzip`, which resumes at the next
//! member after a damaged one) and a `BufReader`; its damage reports become
//! [`WarcError::Damaged`] and reading goes on.

mod http;
mod input;
mod read;
mod record;
mod write;

pub use http::{
    charset_param, http_response_parts, looks_like_html, BodyCoding, BodyError, ChunkDamage,
    HttpParts, MAX_DECODED_BODY_BYTES,
};
pub use read::WarcReader;
pub use record::{WarcError, WarcRecord};
pub use write::{run_date, Chunks, Source, WarcWriter};
