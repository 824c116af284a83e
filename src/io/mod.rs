//! Inputs: where documents come from and how their bytes are read.
//!
//! An [`Input`] is standard input or a file; gzip is recognised by its magic bytes and read
//! transparently (all members of a multi-member file; after a damaged member or junk between
//! members reading resumes at the next member, see [`gzip`]). [`walk`] turns command-line
//! arguments into inputs, walking directories; [`sniff`] tells what an input holds from its
//! first bytes; [`sink`] says where the output goes.

pub mod gzip;
pub mod jsonl;
mod lines;
pub mod sink;
pub mod sniff;
pub mod walk;
pub mod warc;

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gzip::GzipReader;

/// One document source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input (`-` on the command line).
    Stdin,
    /// A file on disk.
    File(PathBuf),
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
    /// `-` is standard input; anything else is a path.
    pub fn from_arg(arg: &Path) -> Input {
        if arg.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File(arg.to_path_buf())
        }
    }

    /// Opens the input for reading, decompressing gzip transparently. Standard input starts
    /// with the bytes [`sniff::sniff`] read from it, if it did.
    pub fn open(&self) -> io::Result<Box<dyn Read + Send>> {
        let reader: Box<dyn BufRead + Send> = match self {
            Input::Stdin => Box::new(BufReader::with_capacity(
                64 * 1024,
                io::Cursor::new(sniff::take_stdin_head()).chain(io::stdin()),
            )),
            Input::File(path) => Box::new(BufReader::with_capacity(64 * 1024, File::open(path)?)),
            Input::Memory { bytes, .. } => Box::new(io::Cursor::new(Arc::clone(bytes))),
        };
        maybe_gunzip(reader)
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Stdin => f.write_str("<stdin>"),
            Input::File(path) => write!(f, "{}", path.display()),
            Input::Memory { name, .. } => f.write_str(name),
        }
    }
}

/// An input and its path relative to the argument that named it (see [`walk::expand`]).
pub type NamedInput = (Input, PathBuf);

/// The first two of `inputs` whose outputs would take the same name under `--output-dir`
/// (`x.html` and `x.htm`, or one file given twice), so that a run can refuse before it
/// writes anything rather than overwrite one output with another.
pub fn first_collision(inputs: &[NamedInput]) -> Option<(&Input, &Input, &Path)> {
    let mut seen: std::collections::HashMap<&PathBuf, usize> = std::collections::HashMap::new();
    for (i, (input, name)) in inputs.iter().enumerate() {
        if let Some(&first) = seen.get(name) {
            return Some((&inputs[first].0, input, name.as_path()));
        }
        seen.insert(name, i);
    }
    None
}

/// The name of an input's output under `--output-dir`: its relative path with `.gz` dropped and
/// the extension replaced by `extension` (`a/b.html.gz` → `a/b.txt`), or unchanged for `None`
/// (a WARC or JSONL input gives an output of its own kind and name).
pub fn output_name(relative: &Path, extension: Option<&str>) -> PathBuf {
    let mut name = relative.to_path_buf();
    if let Some(extension) = extension {
        if name.extension().is_some_and(|x| x == "gz") {
            name.set_extension("");
        }
        name.set_extension(extension);
    }
    name
}

/// An I/O error's message without Rust's "(os error N)" suffix.
pub fn io_message(e: &io::Error) -> String {
    let message = e.to_string();
    match message.find(" (os error") {
        Some(cut) => message[..cut].to_string(),
        None => message,
    }
}

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

/// The pages of a directory: every `*.html` and `*.htm` file directly in it, sorted by name
/// (as `ppl-eval` and `ppl-filter learn` list a data set's pages).
pub fn html_pages(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "html" || x == "htm"))
        .collect();
    pages.sort();
    Ok(pages)
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

    /// A pipe that hands over one byte per read.
    struct Trickle(io::Cursor<Vec<u8>>);

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(1);
            self.0.read(&mut buf[..n])
        }
    }

    #[test]
    fn gzip_is_recognised_when_the_first_read_brings_one_byte() {
        let trickle = Trickle(io::Cursor::new(gzip_members(&["<p>trickled</p>"])));
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
    fn outputs_that_would_share_a_name_are_found() {
        let named = |path: &str| {
            let input = Input::File(PathBuf::from(path));
            (input, output_name(Path::new(path), Some("txt")))
        };
        let apart = [named("x.html"), named("y.html"), named("a/x.html")];
        assert!(first_collision(&apart).is_none());
        let clash = [named("x.html"), named("y.html"), named("x.htm.gz")];
        let (first, second, name) = first_collision(&clash).unwrap();
        assert_eq!(
            (first.to_string(), second.to_string()),
            ("x.html".into(), "x.htm.gz".into())
        );
        assert_eq!(name, Path::new("x.txt"));
        assert!(first_collision(&[named("x.html"), named("x.html")]).is_some());
        let record = output_name(Path::new("a/c.warc.gz"), None);
        assert_eq!(record, Path::new("a/c.warc.gz"));
    }

    #[test]
    fn dash_is_stdin() {
        assert_eq!(Input::from_arg(Path::new("-")), Input::Stdin);
        assert_eq!(Input::from_arg(Path::new("a.html")).to_string(), "a.html");
    }
}
