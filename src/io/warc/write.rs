//! Writing WARC/1.1 records: [`WarcWriter`] writes `warcinfo` and `conversion` records whose
//! IDs, dates and digests depend only on what they hold, so the same input always gives
//! byte-identical output.

use std::io::{self, Write};

use flate2::write::GzEncoder;
use xxhash_rust::xxh3::Xxh3;

/// WARC-Date written when the source record has none (output must be reproducible).
const FALLBACK_DATE: &str = "1970-01-01T00:00:00Z";

/// Writes WARC/1.1 records, each optionally as its own gzip member (`.warc.gz`). Record IDs are
/// derived from content and, for conversion records, the record's place among this writer's
/// conversion records, so the same input always gives byte-identical output and IDs are unique
/// even when source records share (or lack) an ID.
pub struct WarcWriter<W: Write> {
    out: W,
    gzip: Option<flate2::Compression>,
    /// Conversion records written so far.
    conversions: u64,
}

impl<W: Write> WarcWriter<W> {
    /// Plain WARC output.
    pub fn new(out: W) -> Self {
        WarcWriter {
            out,
            gzip: None,
            conversions: 0,
        }
    }

    /// The underlying writer, for output that is not a WARC record.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// `.warc.gz` output: one gzip member per record, as WARC readers expect.
    pub fn new_gzip(out: W, level: flate2::Compression) -> Self {
        WarcWriter {
            out,
            gzip: Some(level),
            conversions: 0,
        }
    }

    /// A `warcinfo` record (`application/warc-fields`) with these fields; returns its ID.
    pub fn write_warcinfo(
        &mut self,
        filename: Option<&str>,
        fields: &[(&str, &str)],
    ) -> io::Result<String> {
        let mut block = String::new();
        for (name, value) in fields {
            block.push_str(&format!(
                "{}: {}\r\n",
                clean_header(name),
                clean_header(value)
            ));
        }
        let id = record_id(&["warcinfo", filename.unwrap_or(""), &block]);
        let mut headers = vec![
            ("WARC-Type", "warcinfo".to_string()),
            ("WARC-Record-ID", id.clone()),
        ];
        headers.push(("WARC-Date", FALLBACK_DATE.to_string()));
        if let Some(name) = filename {
            headers.push(("WARC-Filename", clean_header(name)));
        }
        headers.push(("Content-Type", "application/warc-fields".to_string()));
        self.write_record(&headers, block.as_bytes())?;
        Ok(id)
    }

    /// A `conversion` record holding `text` (UTF-8 plain text) for the record `refers_to`
    /// (its WARC-Record-ID, angle brackets included; empty when the source has none, and then
    /// no `WARC-Refers-To` is written: the target URI, if any, still names the source). `date`
    /// is the source's WARC-Date (`FALLBACK_DATE`, 1970-01-01T00:00:00Z, when `None`). Returns the new record's ID,
    /// derived from `refers_to`, the record's number in this writer and `text`.
    pub fn write_conversion(
        &mut self,
        refers_to: &str,
        target_uri: Option<&str>,
        date: Option<&str>,
        text: &str,
    ) -> io::Result<String> {
        self.conversions += 1;
        let id = record_id(&["conversion", refers_to, &self.conversions.to_string(), text]);
        let mut headers = vec![
            ("WARC-Type", "conversion".to_string()),
            ("WARC-Record-ID", id.clone()),
            ("WARC-Date", clean_header(date.unwrap_or(FALLBACK_DATE))),
        ];
        let refers_to = clean_header(refers_to);
        if !refers_to.is_empty() {
            headers.push(("WARC-Refers-To", refers_to));
        }
        if let Some(uri) = target_uri {
            headers.push(("WARC-Target-URI", clean_header(uri)));
        }
        headers.push(("Content-Type", "text/plain; charset=utf-8".to_string()));
        self.write_record(&headers, text.as_bytes())?;
        Ok(id)
    }

    fn write_record(&mut self, headers: &[(&str, String)], block: &[u8]) -> io::Result<()> {
        let mut record = Vec::with_capacity(block.len() + 512);
        record.extend_from_slice(b"WARC/1.1\r\n");
        for (name, value) in headers {
            record.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
        }
        record.extend_from_slice(
            format!("WARC-Block-Digest: {}\r\n", block_digest(block)).as_bytes(),
        );
        record.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
        record.extend_from_slice(block);
        record.extend_from_slice(b"\r\n\r\n");
        match self.gzip {
            None => self.out.write_all(&record),
            Some(level) => {
                let mut enc = GzEncoder::new(&mut self.out, level);
                enc.write_all(&record)?;
                enc.finish().map(|_| ())
            }
        }
    }

    /// Flushes the output.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The output, e.g. to flush or finish it.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// `sha1:` and the base32 SHA-1 of `block`, as warcio and Heritrix write `WARC-Block-Digest`.
fn block_digest(block: &[u8]) -> String {
    use sha1::Digest;
    let sha1 = sha1::Sha1::digest(block);
    format!("sha1:{}", data_encoding::BASE32.encode(&sha1))
}

/// Header values may not hold line breaks or other controls; they become spaces.
fn clean_header(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// `<urn:uuid:…>`: a version-8 UUID from the xxh3-128 of the parts (NUL-separated).
fn record_id(parts: &[&str]) -> String {
    let mut hasher = Xxh3::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update(&[0]);
    }
    let mut b = hasher.digest128().to_be_bytes();
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::warc::{WarcReader, WarcRecord};
    use flate2::bufread::MultiGzDecoder;
    use std::io::{BufReader, Cursor};

    #[test]
    fn conversion_records_are_deterministic_and_read_back() {
        let write = || {
            let mut w = WarcWriter::new(Vec::new());
            w.write_warcinfo(Some("out.warc"), &[("software", "ppl-filter")])
                .unwrap();
            let id = w
                .write_conversion(
                    "<urn:uuid:x>",
                    Some("http://e.com/\r\nX: y"),
                    Some("2024-01-01T00:00:00Z"),
                    "Clean text.\n",
                )
                .unwrap();
            (id, w.into_inner())
        };
        let (id, bytes) = write();
        assert_eq!(write().1, bytes);
        let recs: Vec<WarcRecord> = WarcReader::new(Cursor::new(&bytes))
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(recs.len(), 2);
        let conv = &recs[1];
        assert_eq!(conv.record_type, "conversion");
        assert_eq!(conv.record_id, id);
        assert_eq!(conv.header("warc-refers-to"), Some("<urn:uuid:x>"));
        assert_eq!(conv.target_uri.as_deref(), Some("http://e.com/  X: y"));
        assert_eq!(conv.payload, b"Clean text.\n");
        assert!(
            id.starts_with("<urn:uuid:") && id.len() == 47 && &id[24..25] == "8",
            "{id}"
        );

        let mut gz = WarcWriter::new_gzip(Vec::new(), flate2::Compression::fast());
        gz.write_conversion("<a>", None, None, "one").unwrap();
        gz.write_conversion("<b>", None, None, "two").unwrap();
        let gz = gz.into_inner();
        let recs: Vec<_> = WarcReader::new(BufReader::new(MultiGzDecoder::new(&gz[..])))
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(
            recs.iter().map(|r| r.payload.clone()).collect::<Vec<_>>(),
            [b"one".to_vec(), b"two".to_vec()]
        );
        assert_eq!(recs[0].date.as_deref(), Some(FALLBACK_DATE));
    }
}
