//! What the WARC reader returns: a record ([`WarcRecord`], its headers and block), or why one
//! could not be returned ([`WarcError`], one line when displayed).

use std::io;

use thiserror::Error;

use crate::source::http::mime_essence;

/// Why a record could not be returned. Every variant is one line when displayed.
#[derive(Debug, Error)]
pub enum WarcError {
    /// The input ended inside this record (headers or block); the reader then ends.
    #[error("record {record_id}: truncated (input ended inside the record)")]
    Truncated {
        /// The record's WARC-Record-ID, or `(no WARC-Record-ID)`.
        record_id: String,
    },
    /// The block is larger than `max_record_bytes`; it was skipped and reading goes on.
    #[error("record {record_id}: {length} bytes is more than the limit of {limit}; skipped")]
    TooLarge {
        /// The record's WARC-Record-ID, or `(no WARC-Record-ID)`.
        record_id: String,
        /// Its Content-Length.
        length: u64,
        /// The reader's `max_record_bytes`.
        limit: u64,
    },
    /// Not a well-formed record at this offset (of the decompressed stream); the reader skips
    /// to the next `WARC/` line.
    #[error("byte {offset}: malformed WARC record{}: {reason}", fmt_id(.record_id))]
    Malformed {
        /// Where the record (or what is not one) starts.
        offset: u64,
        /// The record's WARC-Record-ID, when its headers got that far.
        record_id: Option<String>,
        /// What is wrong, and where reading goes on.
        reason: String,
    },
    /// Reading failed (other than a plain early end); the reader then ends.
    #[error("read error{}: {source}", fmt_id(.record_id))]
    Io {
        /// The record being read, if any.
        record_id: Option<String>,
        /// The read error.
        source: io::Error,
    },
    /// The decompressor skipped damaged input (its message names the compressed byte offsets),
    /// inside this record when there is one (the record is lost); reading goes on.
    #[error("{source}{}", fmt_lost(.record_id))]
    Damaged {
        /// The record the damage cut, if any.
        record_id: Option<String>,
        /// The decompressor's report (see `io::gzip::damage`).
        source: io::Error,
    },
}

fn fmt_id(id: &Option<String>) -> String {
    id.as_ref()
        .map(|id| format!(" in record {id}"))
        .unwrap_or_default()
}

fn fmt_lost(id: &Option<String>) -> String {
    id.as_ref()
        .map(|id| format!("; record {id}, cut by it, is skipped"))
        .unwrap_or_default()
}

/// One WARC record, its block read whole (bounded by `max_record_bytes`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarcRecord {
    /// The version line without its line ending, e.g. `WARC/1.1`.
    pub version: String,
    /// Every header in input order, continuation lines folded into their value (one space).
    pub headers: Vec<(String, String)>,
    /// `WARC-Type`, lower-cased (`response`, `request`, `warcinfo`, …); empty when absent.
    pub record_type: String,
    /// `WARC-Record-ID` as written, angle brackets included; empty when absent.
    pub record_id: String,
    /// `WARC-Target-URI`, if any.
    pub target_uri: Option<String>,
    /// The record's own `Content-Type` (e.g. `application/http; msgtype=response`).
    pub content_type: Option<String>,
    /// `WARC-Date`, if any.
    pub date: Option<String>,
    /// The record block (for a `response`, the HTTP status line, headers and body).
    pub payload: Vec<u8>,
}

impl WarcRecord {
    /// The first header named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A `response` record holding an HTTP response (the kind whose HTML we clean).
    pub fn is_http_response(&self) -> bool {
        self.record_type == "response"
            && self.content_type.as_deref().is_some_and(|ct| {
                let ct = ct.to_ascii_lowercase();
                mime_essence(&ct) == "application/http"
                    && ct.split(';').skip(1).all(|p| {
                        !p.trim().starts_with("msgtype=") || p.trim() == "msgtype=response"
                    })
            })
    }
}
