//! Writing WARC/1.1 records: [`WarcWriter`] writes `warcinfo` and `conversion` records whose
//! IDs, dates and digests depend only on what they hold and on the run's date ([`run_date`]:
//! now, or `SOURCE_DATE_EPOCH` when set), so the same input always gives byte-identical output
//! under the same `SOURCE_DATE_EPOCH`.

use std::io::{self, Write};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use flate2::write::GzEncoder;
use xxhash_rust::xxh3::Xxh3;

/// The last second a WARC-Date can name (9999-12-31T23:59:59Z): its year has four digits.
const LAST_WARC_SECOND: u64 = 253_402_300_799;

/// The run's date as a WARC-Date (`YYYY-MM-DDThh:mm:ssZ`, UTC): `SOURCE_DATE_EPOCH` (seconds
/// since 1970-01-01T00:00:00Z, as reproducible builds set it) when it is set to such a number,
/// otherwise the time it is first asked for. The same for every writer of a process, so that
/// one run's records agree, and two runs under the same `SOURCE_DATE_EPOCH` give the same bytes.
pub fn run_date() -> &'static str {
    static DATE: OnceLock<String> = OnceLock::new();
    DATE.get_or_init(|| {
        let from_env = std::env::var("SOURCE_DATE_EPOCH")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok());
        let seconds = from_env.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
        warc_date(seconds)
    })
}

/// `seconds` since 1970-01-01T00:00:00Z as a WARC-Date (`YYYY-MM-DDThh:mm:ssZ`, UTC; at most
/// 9999-12-31T23:59:59Z).
fn warc_date(seconds: u64) -> String {
    let seconds = seconds.min(LAST_WARC_SECOND);
    let (year, month, day) = civil_from_days(seconds / 86_400);
    let time = seconds % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        time / 3600,
        time / 60 % 60,
        time % 60
    )
}

/// The proleptic Gregorian (year, month, day) `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    // Days since 0000-03-01, in 400-year eras of 146,097 days (years start in March, so that
    // the leap day ends a year).
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// The record a conversion record is made from (see [`WarcWriter::write_conversion`]).
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// Its WARC-Record-ID (empty when it has none).
    pub refers_to: &'a str,
    /// Its WARC-Target-URI, if any.
    pub target_uri: Option<&'a str>,
    /// Its WARC-Date, if any.
    pub date: Option<&'a str>,
}

/// A block handed over in chunks: called with a function taking each chunk in order, as often
/// as needed.
pub type Chunks<'a> = dyn FnMut(&mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> + 'a;

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

    /// A `warcinfo` record (`application/warc-fields`) with these fields, dated [`run_date`];
    /// returns its ID (derived from the file name, the date and the fields).
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
        let date = run_date();
        let id = record_id(&["warcinfo", filename.unwrap_or(""), date, &block]);
        let mut headers = vec![
            ("WARC-Type", "warcinfo".to_string()),
            ("WARC-Record-ID", id.clone()),
            ("WARC-Date", date.to_string()),
        ];
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
    /// is the source's WARC-Date ([`run_date`] when `None`). Returns the new record's ID,
    /// derived from `refers_to`, the record's number in this writer and `text`.
    pub fn write_conversion(
        &mut self,
        refers_to: &str,
        target_uri: Option<&str>,
        date: Option<&str>,
        text: &str,
    ) -> io::Result<String> {
        let source = Source {
            refers_to,
            target_uri,
            date,
        };
        self.write_conversion_from(source, text.len() as u64, &mut |each| each(text.as_bytes()))
    }

    /// As [`WarcWriter::write_conversion`], for a text of `len` bytes that `text` hands to its
    /// argument in chunks, and can hand over again: it is read once for its digest and ID and
    /// once to be written, so it need not be held in memory.
    pub fn write_conversion_from(
        &mut self,
        source: Source<'_>,
        len: u64,
        text: &mut Chunks<'_>,
    ) -> io::Result<String> {
        self.conversions += 1;
        let mut ids = Xxh3::new();
        for part in [
            "conversion",
            source.refers_to,
            &self.conversions.to_string(),
        ] {
            ids.update(part.as_bytes());
            ids.update(&[0]);
        }
        let mut sha1 = <sha1::Sha1 as sha1::Digest>::new();
        text(&mut |chunk| {
            ids.update(chunk);
            sha1::Digest::update(&mut sha1, chunk);
            Ok(())
        })?;
        ids.update(&[0]);
        let id = uuid_of(&ids);
        let mut headers = vec![
            ("WARC-Type", "conversion".to_string()),
            ("WARC-Record-ID", id.clone()),
            ("WARC-Date", clean_header(source.date.unwrap_or(run_date()))),
        ];
        let refers_to = clean_header(source.refers_to);
        if !refers_to.is_empty() {
            headers.push(("WARC-Refers-To", refers_to));
        }
        if let Some(uri) = source.target_uri {
            headers.push(("WARC-Target-URI", clean_header(uri)));
        }
        headers.push(("Content-Type", "text/plain; charset=utf-8".to_string()));
        // What the payload is, as a reader would identify it: a reader that sniffs the type
        // (datatrove's) otherwise takes some cleaned text for a script and drops it.
        headers.push(("WARC-Identified-Payload-Type", "text/plain".to_string()));
        let digest = base32_sha1(&sha1::Digest::finalize(sha1));
        self.write_record_from(&headers, &digest, len, text)?;
        Ok(id)
    }

    fn write_record(&mut self, headers: &[(&str, String)], block: &[u8]) -> io::Result<()> {
        let digest = block_digest(block);
        self.write_record_from(headers, &digest, block.len() as u64, &mut |each| {
            each(block)
        })
    }

    /// A record: its header, then its block as `block` hands it over (`len` bytes whose
    /// `WARC-Block-Digest` is `digest`), each record its own gzip member when compressing.
    fn write_record_from(
        &mut self,
        headers: &[(&str, String)],
        digest: &str,
        len: u64,
        block: &mut Chunks<'_>,
    ) -> io::Result<()> {
        let mut head = Vec::with_capacity(512);
        head.extend_from_slice(b"WARC/1.1\r\n");
        for (name, value) in headers {
            head.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
        }
        head.extend_from_slice(format!("WARC-Block-Digest: {digest}\r\n").as_bytes());
        head.extend_from_slice(format!("Content-Length: {len}\r\n\r\n").as_bytes());
        fn write_all(
            out: &mut dyn Write,
            head: &[u8],
            len: u64,
            block: &mut Chunks<'_>,
        ) -> io::Result<()> {
            out.write_all(head)?;
            let mut written = 0u64;
            block(&mut |chunk| {
                written += chunk.len() as u64;
                out.write_all(chunk)
            })?;
            if written != len {
                return Err(io::Error::other(format!(
                    "a WARC block of {written} bytes announced as {len}"
                )));
            }
            out.write_all(b"\r\n\r\n")
        }
        match self.gzip {
            None => write_all(&mut self.out, &head, len, block),
            Some(level) => {
                let mut enc = GzEncoder::new(&mut self.out, level);
                write_all(&mut enc, &head, len, block)?;
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
    base32_sha1(&sha1::Sha1::digest(block))
}

/// `sha1:` and `sha1` in base32.
fn base32_sha1(sha1: &[u8]) -> String {
    format!("sha1:{}", data_encoding::BASE32.encode(sha1))
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
    uuid_of(&hasher)
}

/// `<urn:uuid:…>`: a version-8 UUID from the xxh3-128 of what `hasher` was given.
fn uuid_of(hasher: &Xxh3) -> String {
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
    use crate::source::warc::{WarcReader, WarcRecord};
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
        assert_eq!(
            conv.header("warc-identified-payload-type"),
            Some("text/plain")
        );
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
        assert_eq!(recs[0].date.as_deref(), Some(run_date()));
    }

    #[test]
    fn warcinfo_is_dated_with_the_run() {
        let mut w = WarcWriter::new(Vec::new());
        w.write_warcinfo(None, &[("software", "ppl-filter")])
            .unwrap();
        let recs: Vec<WarcRecord> = WarcReader::new(Cursor::new(w.into_inner()))
            .map(|r| r.unwrap())
            .collect();
        let date = recs[0].date.clone().unwrap();
        assert_eq!(date, run_date());
        // Now (this test does not set SOURCE_DATE_EPOCH), give or take the test's run time.
        let now = |slack: i64| {
            let secs = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_secs();
            warc_date(secs.saturating_add_signed(slack))
        };
        if std::env::var_os("SOURCE_DATE_EPOCH").is_none() {
            assert!(now(-3600) <= date && date <= now(0), "{date}");
        }
    }

    #[test]
    fn dates_are_civil_utc() {
        for (seconds, date) in [
            (0, "1970-01-01T00:00:00Z"),
            (86_399, "1970-01-01T23:59:59Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (951_868_799, "2000-02-29T23:59:59Z"),
            (1_709_208_000, "2024-02-29T12:00:00Z"),
            (1_714_564_800, "2024-05-01T12:00:00Z"),
            (4_107_542_400, "2100-03-01T00:00:00Z"),
            (LAST_WARC_SECOND, "9999-12-31T23:59:59Z"),
            (u64::MAX, "9999-12-31T23:59:59Z"),
        ] {
            assert_eq!(warc_date(seconds), date, "{seconds}");
        }
        // Every day of 1970..2100 follows the one before.
        let mut last = civil_from_days(0);
        for days in 1..47_482 {
            let (y, m, d) = civil_from_days(days);
            let next_day = (last.0, last.1, last.2 + 1);
            let next_month = (last.0, last.1 + 1, 1);
            let next_year = (last.0 + 1, 1, 1);
            assert!(
                [next_day, next_month, next_year].contains(&(y, m, d)),
                "{last:?} then {:?}",
                (y, m, d)
            );
            assert!((1..=12).contains(&m) && (1..=31).contains(&d));
            last = (y, m, d);
        }
        assert_eq!(last, (2099, 12, 31));
    }
}
