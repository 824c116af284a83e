//! Sources: where documents come from and how their bytes are read, the first room of the
//! pipeline (the last is [`crate::sink`]).
//!
//! An [`Input`] is standard input or a file; gzip is recognised by its magic bytes and read
//! transparently (all members of a multi-member file; after a damaged member or junk between
//! members reading resumes at the next member, see [`gzip`]). [`walk`] turns command-line
//! arguments into inputs, walking directories; [`sniff`] tells what an input holds from its
//! first bytes; [`pages`] cuts a stream into its pages; [`jsonl`] and [`warc`] read records;
//! [`http`] decodes an HTTP body, for WARC records and fetched pages alike.

pub mod gzip;
pub mod http;
pub mod jsonl;
mod lines;
pub mod pages;
pub mod sniff;
pub mod spool;
#[cfg(feature = "cli")]
pub mod walk;
pub mod warc;

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::errors::io_message;
use gzip::GzipReader;

/// One document source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input (`-`, or no argument), or a pipe, FIFO or device named by its path
    /// (`/dev/stdin`, `<(…)`): bytes that can be read only once, so the handle its first bytes
    /// were sniffed from is the one cleaning reads ([`Stream`]).
    Stream(Stream),
    /// A regular file named on the command line or in `--files-from`.
    File(PathBuf),
    /// A regular file found while walking a directory: one that is not text is skipped
    /// quietly (counted, not warned about), as ripgrep skips binary files.
    Found(PathBuf),
    /// Bytes held in memory (a page handed over by a program: the Python package, the web
    /// demo), under the name its problems are reported with.
    Memory {
        /// What problems call it (`<page>`, `document 3`).
        name: String,
        /// The page.
        bytes: Arc<[u8]>,
    },
}

impl Input {
    /// `-` is standard input; a path that is neither a regular file nor missing (a FIFO, a
    /// pipe such as `/dev/stdin`, a device) is a [`Stream`]; anything else a file.
    pub fn from_arg(arg: &Path) -> Input {
        if arg.as_os_str() == "-" {
            return Input::Stream(Stream::stdin());
        }
        match std::fs::metadata(arg) {
            Ok(meta) if !meta.is_file() && !meta.is_dir() => {
                Input::Stream(Stream::named(arg.to_path_buf()))
            }
            _ => Input::File(arg.to_path_buf()),
        }
    }

    /// Whether this is standard input.
    pub fn is_stdin(&self) -> bool {
        matches!(self, Input::Stream(stream) if stream.path.is_none())
    }

    /// The path of a file input (named or found), `None` for a stream or bytes in memory.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Input::File(path) | Input::Found(path) => Some(path),
            Input::Stream(_) | Input::Memory { .. } => None,
        }
    }

    /// Opens the input for reading, decompressing gzip transparently. A [`Stream`] is read
    /// from the handle it was sniffed through, starting with the bytes sniffed.
    pub fn open(&self) -> io::Result<Box<dyn Read + Send>> {
        let reader: Box<dyn BufRead + Send> = match self {
            Input::Stream(stream) => Box::new(BufReader::with_capacity(64 * 1024, stream.take()?)),
            Input::File(path) | Input::Found(path) => {
                Box::new(BufReader::with_capacity(64 * 1024, File::open(path)?))
            }
            Input::Memory { bytes, .. } => Box::new(io::Cursor::new(Arc::clone(bytes))),
        };
        maybe_gunzip(reader)
    }

    /// Up to `n` of the input's first (raw, possibly compressed) bytes. A [`Stream`] is opened
    /// and its bytes kept for [`Input::open`]; a file is opened for them alone.
    pub fn head(&self, n: usize) -> io::Result<Vec<u8>> {
        let mut head = Vec::with_capacity(n.min(64 * 1024));
        match self {
            Input::Stream(stream) => return stream.head(n),
            Input::File(path) | Input::Found(path) => {
                File::open(path)?.take(n as u64).read_to_end(&mut head)?;
            }
            Input::Memory { bytes, .. } => head.extend_from_slice(&bytes[..bytes.len().min(n)]),
        }
        Ok(head)
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Stream(Stream { path: None, .. }) => f.write_str("<stdin>"),
            Input::Stream(Stream {
                path: Some(path), ..
            })
            | Input::File(path)
            | Input::Found(path) => write!(f, "{}", path.display()),
            Input::Memory { name, .. } => f.write_str(name),
        }
    }
}

/// Bytes that can be read only once (standard input, a pipe, a FIFO, a device): opened when
/// first needed, its first bytes kept when they are looked at ([`Input::head`]) and handed
/// back first when it is read ([`Input::open`]), so that sniffing loses nothing. Clones share
/// the one handle; it can be read once.
#[derive(Clone)]
pub struct Stream {
    /// `None` for standard input.
    path: Option<PathBuf>,
    state: Arc<Mutex<StreamState>>,
}

enum StreamState {
    /// Not opened yet.
    Closed,
    /// Opened; `head` was read from it and not yet handed back.
    Open {
        head: Vec<u8>,
        rest: Box<dyn Read + Send>,
        /// The stream ended within `head`: `rest` is not read again (a terminal would wait
        /// for a second Ctrl-D).
        ended: bool,
    },
    /// Opening failed (reported when it is read).
    Failed(io::ErrorKind, String),
    /// Handed over to be read.
    Taken,
}

impl Stream {
    /// Standard input.
    pub fn stdin() -> Stream {
        Stream::new(None)
    }

    /// The pipe, FIFO or device at `path`.
    pub fn named(path: PathBuf) -> Stream {
        Stream::new(Some(path))
    }

    fn new(path: Option<PathBuf>) -> Stream {
        Stream {
            path,
            state: Arc::new(Mutex::new(StreamState::Closed)),
        }
    }

    /// The same handle under the name `path` names it by (`-`: `None`), for an argument that
    /// names a stream named before (`- /dev/stdin`): its problems carry its own name.
    pub fn named_again(&self, path: Option<PathBuf>) -> Stream {
        Stream {
            path,
            state: Arc::clone(&self.state),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, StreamState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn open_raw(&self) -> io::Result<Box<dyn Read + Send>> {
        Ok(match &self.path {
            None => Box::new(io::stdin()),
            Some(path) => Box::new(File::open(path)?),
        })
    }

    /// Up to `n` first bytes (fewer when it ends first), read whatever the size of the reads
    /// that bring them, and kept. Asked again, the same bytes (or more, up to `n`).
    fn head(&self, n: usize) -> io::Result<Vec<u8>> {
        let mut state = self.lock();
        if let StreamState::Closed = *state {
            *state = match self.open_raw() {
                Ok(rest) => StreamState::Open {
                    head: Vec::new(),
                    rest,
                    ended: false,
                },
                Err(e) => StreamState::Failed(e.kind(), io_message(&e)),
            };
        }
        match &mut *state {
            StreamState::Open { head, rest, ended } => {
                if head.len() < n && !*ended {
                    let wanted = (n - head.len()) as u64;
                    let mut more = Vec::new();
                    let read = rest.take(wanted).read_to_end(&mut more);
                    *ended = read.is_ok() && (more.len() as u64) < wanted;
                    head.extend_from_slice(&more);
                    read?;
                }
                Ok(head[..head.len().min(n)].to_vec())
            }
            StreamState::Failed(kind, message) => Err(io::Error::new(*kind, message.clone())),
            StreamState::Taken => Err(already_read()),
            StreamState::Closed => Ok(Vec::new()),
        }
    }

    /// The bytes from the start: the kept head, then the rest. Once only.
    fn take(&self) -> io::Result<Box<dyn Read + Send>> {
        let mut state = self.lock();
        match std::mem::replace(&mut *state, StreamState::Taken) {
            StreamState::Closed => self.open_raw(),
            StreamState::Open {
                head, ended: true, ..
            } => Ok(Box::new(io::Cursor::new(head))),
            StreamState::Open { head, rest, .. } => Ok(Box::new(io::Cursor::new(head).chain(rest))),
            StreamState::Failed(kind, message) => Err(io::Error::new(kind, message)),
            StreamState::Taken => Err(already_read()),
        }
    }
}

/// Reading a stream a second time (it was named twice).
fn already_read() -> io::Error {
    io::Error::other("already read: a pipe or standard input can be read only once")
}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stream").field("path", &self.path).finish()
    }
}

impl PartialEq for Stream {
    /// The same stream: clones of one handle.
    fn eq(&self, other: &Stream) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
    }
}

impl Eq for Stream {}

/// What the inputs hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum InputFormat {
    /// HTML pages.
    #[default]
    Html,
    /// Plain text: one block per blank-line-separated paragraph.
    Text,
    /// WARC: every HTML response record is cleaned.
    Warc,
    /// JSON lines: the --field of every line is cleaned and written back.
    Jsonl,
}

/// An input and its path relative to the argument that named it (see [`walk::expand`]).
pub type NamedInput = (Input, PathBuf);

/// `reader.fill_buf()`, tried again when a signal interrupts it.
pub(crate) fn fill_buf_retrying<R: BufRead + ?Sized>(reader: &mut R) -> io::Result<&[u8]> {
    loop {
        match reader.fill_buf() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
            Ok(_) => break,
        }
    }
    // Again (it returns the buffered bytes), for the borrow checker.
    reader.fill_buf()
}

/// Wraps `reader` in a gzip decoder when its first bytes are the gzip magic (`1f 8b 08`; one of
/// the three may be damaged, or a few bytes of a cut member come first: no text starts that
/// way). The decoder ([`GzipReader`]) reports
/// damage as an error from `read` and, unless the input ended inside a member
/// ([`io::ErrorKind::UnexpectedEof`]), goes on with the next intact member: a reader that wants
/// every intact part keeps reading after [`gzip::is_resumable`] errors.
///
/// The first bytes are read whatever the size of the reads that bring them (a pipe may hand
/// over one byte first), so the answer does not depend on how the input arrives.
pub fn maybe_gunzip(mut reader: Box<dyn BufRead + Send>) -> io::Result<Box<dyn Read + Send>> {
    let mut head = Vec::with_capacity(8);
    (&mut reader).take(8).read_to_end(&mut head)?;
    const MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];
    let matching = head.iter().zip(MAGIC).filter(|(a, b)| **a == *b).count();
    let near_start = memchr::memmem::find(&head[..head.len().min(6)], &MAGIC).is_some();
    let gzip = head.starts_with(&MAGIC[..2]) || (head.len() >= 3 && matching >= 2) || near_start;
    let reader = io::Cursor::new(head).chain(reader);
    if gzip {
        Ok(Box::new(GzipReader::new(reader)))
    } else {
        Ok(Box::new(reader))
    }
}

/// The pages of a directory: every `*.html` and `*.htm` file directly in it, gzipped
/// (`*.html.gz`, `*.htm.gz`) or not, sorted by name (as `ppl-eval` and `ppl-filter learn` list
/// a data set's pages; [`page_stem`] names each, [`read_page`] reads it).
pub fn html_pages(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| page_stem(p).is_some())
        .collect();
    pages.sort();
    Ok(pages)
}

/// The name of a data set's page without its extensions (`12` of `12.html` or `12.html.gz`),
/// the name its gold and its output take; `None` for a file that is not a page.
pub fn page_stem(path: &Path) -> Option<&str> {
    let name = path.file_name()?.to_str()?;
    let name = name.strip_suffix(".gz").unwrap_or(name);
    [".html", ".htm"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .filter(|stem| !stem.is_empty())
}

/// A data set's page, whole, gunzipped if it is gzipped.
pub fn read_page(path: &Path) -> io::Result<Vec<u8>> {
    let file = File::open(path)?;
    let mut bytes = Vec::new();
    maybe_gunzip(Box::new(BufReader::new(file)))?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    /// One gzip member for each of `parts`, one after the other.
    fn gzip_members(parts: &[&str]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for part in parts {
            let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(part.as_bytes()).unwrap();
            bytes.extend(enc.finish().unwrap());
        }
        bytes
    }

    #[test]
    fn data_set_pages_are_named_without_their_extensions() {
        assert_eq!(page_stem(Path::new("d/12.html")), Some("12"));
        assert_eq!(page_stem(Path::new("d/12.html.gz")), Some("12"));
        assert_eq!(page_stem(Path::new("d/a.b.htm")), Some("a.b"));
        assert_eq!(page_stem(Path::new("d/12.txt")), None);
        assert_eq!(page_stem(Path::new("d/12.gz")), None);
        assert_eq!(page_stem(Path::new("d/.html")), None);
    }

    #[test]
    fn reads_plain_and_multi_member_gzip() {
        let bytes = gzip_members(&["hello ", "world"]);
        let mut text = String::new();
        maybe_gunzip(Box::new(io::Cursor::new(bytes)))
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "hello world");
        let mut plain = String::new();
        maybe_gunzip(Box::new(io::Cursor::new(b"<p>x".to_vec())))
            .unwrap()
            .read_to_string(&mut plain)
            .unwrap();
        assert_eq!(plain, "<p>x");
    }

    /// A pipe that hands over at most `.1` bytes per read.
    struct Trickle(io::Cursor<Vec<u8>>, usize);

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.1);
            self.0.read(&mut buf[..n])
        }
    }

    #[test]
    fn gzip_is_recognised_when_the_first_read_brings_one_byte() {
        let trickle = Trickle(io::Cursor::new(gzip_members(&["<p>trickled</p>"])), 1);
        let mut text = String::new();
        maybe_gunzip(Box::new(BufReader::with_capacity(1, trickle)))
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "<p>trickled</p>");
    }

    #[test]
    fn gzip_with_a_damaged_first_member_is_still_gzip() {
        let bytes = gzip_members(&["lost ", "kept"]);
        for at in 0..3 {
            let mut bytes = bytes.clone();
            bytes[at] ^= 0x40;
            let mut reader = maybe_gunzip(Box::new(io::Cursor::new(bytes))).unwrap();
            let mut text = String::new();
            let err = reader.read_to_string(&mut text).unwrap_err();
            assert!(
                gzip::is_resumable(&err) && err.to_string().contains("at compressed byte 0 "),
                "{err}"
            );
            reader.read_to_string(&mut text).unwrap();
            assert_eq!(text, "kept");
        }
    }

    #[test]
    fn dash_is_stdin() {
        assert!(Input::from_arg(Path::new("-")).is_stdin());
        assert_eq!(Input::from_arg(Path::new("a.html")).to_string(), "a.html");
        assert!(matches!(
            Input::from_arg(Path::new("/dev/null")),
            Input::Stream(_)
        ));
    }

    /// A stream over `bytes`, as if opened.
    fn stream_of(bytes: &[u8], reads_of: usize) -> Input {
        let stream = Stream::named(PathBuf::from("pipe"));
        *stream.lock() = StreamState::Open {
            head: Vec::new(),
            rest: Box::new(Trickle(io::Cursor::new(bytes.to_vec()), reads_of)),
            ended: false,
        };
        Input::Stream(stream)
    }

    /// A terminal: its bytes, an end (Ctrl-D), then it would wait again (here: an error).
    struct Terminal(io::Cursor<Vec<u8>>, bool);

    impl Read for Terminal {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.1 {
                return Err(io::Error::other("read again after its end"));
            }
            let n = self.0.read(buf)?;
            self.1 = n == 0;
            Ok(n)
        }
    }

    #[test]
    fn a_stream_that_ended_within_its_head_is_not_read_again() {
        let stream = Stream::stdin();
        *stream.lock() = StreamState::Open {
            head: Vec::new(),
            rest: Box::new(Terminal(io::Cursor::new(b"<p>typed</p>".to_vec()), false)),
            ended: false,
        };
        let input = Input::Stream(stream);
        assert_eq!(input.head(4096).unwrap(), b"<p>typed</p>");
        assert_eq!(input.head(8192).unwrap(), b"<p>typed</p>");
        let mut read = Vec::new();
        input.open().unwrap().read_to_end(&mut read).unwrap();
        assert_eq!(read, b"<p>typed</p>");
    }

    #[test]
    fn a_stream_is_read_once_from_its_start_after_its_head_was_looked_at() {
        let page = b"<p>one page, read once</p>".repeat(100);
        for reads_of in [1, 7, 4096] {
            let input = stream_of(&page, reads_of);
            assert_eq!(input.head(10).unwrap(), &page[..10]);
            assert_eq!(
                input.head(20).unwrap(),
                &page[..20],
                "more asked: more read"
            );
            assert_eq!(input.head(5).unwrap(), &page[..5]);
            let mut read = Vec::new();
            input.open().unwrap().read_to_end(&mut read).unwrap();
            assert_eq!(read, page, "reads of {reads_of}");
            let again = input.open().map(|_| ()).unwrap_err();
            assert!(again.to_string().contains("only once"), "{again}");
        }
    }
}
