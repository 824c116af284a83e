//! The URLs `-u` and `-i` name, read as they are fetched: a list (`-i FILE`, `-` for standard
//! input) is read one line at a time, so the first page is fetched before the list is read to
//! its end (a crawler may still be writing it), and a URL named twice is fetched once.

use std::collections::HashSet;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use rustc_hash::FxBuildHasher;
use xxhash_rust::xxh3::xxh3_128;

/// A line of a URL list longer than this is no URL: it is skipped, and never held whole.
pub const MAX_URL_LINE_BYTES: usize = 64 * 1024;

/// A URL list (`-i`) being read.
pub struct UrlList {
    /// Its name in messages.
    path: PathBuf,
    reader: Box<dyn BufRead>,
    /// Lines read so far.
    line: u64,
}

/// What reading a URL list gave instead of a URL.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// The list cannot be opened.
    #[error("{}: cannot open the URL list", .path.display())]
    Open {
        /// The list.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Reading the list failed; the URLs before were fetched.
    #[error("{}: cannot read the URL list", .path.display())]
    Read {
        /// The list.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A line too long to be a URL: skipped, the list read on.
    #[error("line {line}: longer than {MAX_URL_LINE_BYTES} bytes, not a URL")]
    TooLong {
        /// Its number, from 1.
        line: u64,
    },
}

impl ListError {
    /// Whether the list can be read on after it (a line skipped).
    pub fn is_skip(&self) -> bool {
        matches!(self, ListError::TooLong { .. })
    }
}

impl UrlList {
    /// Opens the list at `path` (`-`: standard input).
    pub fn open(path: &Path) -> Result<UrlList, ListError> {
        let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
            Box::new(BufReader::new(io::stdin()))
        } else {
            let file = std::fs::File::open(path).map_err(|source| ListError::Open {
                path: path.to_path_buf(),
                source,
            })?;
            Box::new(BufReader::new(file))
        };
        Ok(UrlList {
            path: path.to_path_buf(),
            reader,
            line: 0,
        })
    }

    /// The list's name in messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next line, without its line end; `None` at the end of the list.
    fn next_line(&mut self) -> Option<Result<String, ListError>> {
        let mut bytes = Vec::new();
        let limit = MAX_URL_LINE_BYTES as u64 + 1;
        let read = (&mut self.reader)
            .take(limit)
            .read_until(b'\n', &mut bytes)
            .map_err(|source| self.read_error(source));
        match read {
            Err(e) => return Some(Err(e)),
            Ok(0) => return None,
            Ok(_) => self.line += 1,
        }
        if bytes.last() != Some(&b'\n') && bytes.len() > MAX_URL_LINE_BYTES {
            let skipped = self.skip_rest_of_line();
            return Some(skipped.and(Err(ListError::TooLong { line: self.line })));
        }
        Some(Ok(String::from_utf8_lossy(&bytes).trim().to_string()))
    }

    /// Reads past the end of the current line, holding none of it.
    fn skip_rest_of_line(&mut self) -> Result<(), ListError> {
        loop {
            let buffer = match self.reader.fill_buf() {
                Ok(buffer) => buffer,
                Err(source) => return Err(self.read_error(source)),
            };
            if buffer.is_empty() {
                return Ok(());
            }
            match memchr::memchr(b'\n', buffer) {
                Some(end) => {
                    self.reader.consume(end + 1);
                    return Ok(());
                }
                None => {
                    let len = buffer.len();
                    self.reader.consume(len);
                }
            }
        }
    }

    fn read_error(&self, source: io::Error) -> ListError {
        ListError::Read {
            path: self.path.clone(),
            source,
        }
    }
}

/// The URLs to fetch, in order: those given with `-u`, then the list's, each once (empty
/// lines and `#` comments skipped). A URL is remembered by a 128-bit hash, 16 bytes and the
/// set's overhead for each distinct URL.
pub struct Urls {
    given: std::vec::IntoIter<String>,
    list: Option<UrlList>,
    seen: HashSet<u128, FxBuildHasher>,
}

impl Urls {
    /// The URLs `given` (`-u`), then those of `list` (`-i`).
    pub fn new(given: Vec<String>, list: Option<UrlList>) -> Urls {
        Urls {
            given: given.into_iter(),
            list,
            seen: HashSet::default(),
        }
    }

    /// The list's name in messages (`-u` when there is none).
    pub fn list_name(&self) -> String {
        self.list.as_ref().map_or_else(
            || "-u".to_string(),
            |list| list.path().display().to_string(),
        )
    }

    /// How many distinct URLs were given so far.
    pub fn distinct(&self) -> usize {
        self.seen.len()
    }
}

impl Iterator for Urls {
    type Item = Result<String, ListError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let url = match self.given.next() {
                Some(url) => url.trim().to_string(),
                None => match self.list.as_mut()?.next_line()? {
                    Ok(line) => line,
                    Err(e) => return Some(Err(e)),
                },
            };
            if url.is_empty() || url.starts_with('#') {
                continue;
            }
            if self.seen.insert(xxh3_128(url.as_bytes())) {
                return Some(Ok(url));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(text: &[u8]) -> UrlList {
        UrlList {
            path: PathBuf::from("urls.txt"),
            reader: Box::new(io::Cursor::new(text.to_vec())),
            line: 0,
        }
    }

    fn all(urls: Urls) -> Vec<String> {
        urls.map(|url| match url {
            Ok(url) => url,
            Err(e) => format!("error: {e}"),
        })
        .collect()
    }

    #[test]
    fn urls_come_once_each_in_order_given_ones_first() {
        let listed = list(b"# a comment\nhttp://b/\r\n\n  http://a/  \nhttp://b/\nhttp://c/");
        let urls = Urls::new(vec!["http://a/".into(), " ".into()], Some(listed));
        assert_eq!(all(urls), ["http://a/", "http://b/", "http://c/"]);
    }

    #[test]
    fn a_line_too_long_is_skipped_and_the_list_read_on() {
        let mut text = b"http://a/\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 3 * MAX_URL_LINE_BYTES));
        text.extend(b"\nhttp://b/\n");
        let urls = Urls::new(Vec::new(), Some(list(&text)));
        let got = all(urls);
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0], "http://a/");
        assert!(got[1].contains("line 2: longer than"), "{}", got[1]);
        assert_eq!(got[2], "http://b/");
    }

    #[test]
    fn a_line_of_exactly_the_bound_is_read() {
        let mut text = b"http://a/".to_vec();
        text.resize(MAX_URL_LINE_BYTES, b'x');
        text.push(b'\n');
        let got = all(Urls::new(Vec::new(), Some(list(&text))));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].len(), MAX_URL_LINE_BYTES);
    }

    #[test]
    fn the_list_is_read_only_as_far_as_urls_are_taken() {
        /// A reader that fails past its first line, as a list still being written would block.
        struct FirstLineOnly(io::Cursor<Vec<u8>>);
        impl Read for FirstLineOnly {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0.position() >= 10 {
                    return Err(io::Error::other("read too far"));
                }
                self.0.read(&mut buf[..1])
            }
        }
        let listed = UrlList {
            path: PathBuf::from("urls.txt"),
            reader: Box::new(BufReader::with_capacity(
                1,
                FirstLineOnly(io::Cursor::new(b"http://a/\nhttp://b/\n".to_vec())),
            )),
            line: 0,
        };
        let mut urls = Urls::new(Vec::new(), Some(listed));
        assert_eq!(urls.next().unwrap().unwrap(), "http://a/");
        assert!(urls.next().unwrap().is_err());
    }
}
