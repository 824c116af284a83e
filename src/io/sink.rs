//! Where cleaned documents go: one stream with a separator between documents (stdout), or one
//! file per input under an output directory that mirrors the input tree (`--output-dir`).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Receives the output of documents, in input order.
pub trait Sink: Send {
    /// Document `index` (0-based, in input order) starts; what follows belongs to it.
    fn begin(&mut self, index: usize) -> io::Result<()>;
    /// More output of the current document.
    fn write(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// No more output: flush everything.
    fn finish(&mut self) -> io::Result<()>;
}

/// All documents on one stream, separated by `separator`.
pub struct StreamSink<W: Write + Send> {
    out: W,
    separator: Vec<u8>,
}

impl<W: Write + Send> StreamSink<W> {
    /// A stream sink writing `separator` between two documents.
    pub fn new(out: W, separator: &[u8]) -> StreamSink<W> {
        StreamSink { out, separator: separator.to_vec() }
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write + Send> Sink for StreamSink<W> {
    fn begin(&mut self, index: usize) -> io::Result<()> {
        if index > 0 {
            self.out.write_all(&self.separator)?;
        }
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// One file per document: `dir/<name of document i>`, directories created as needed.
pub struct DirSink {
    dir: PathBuf,
    names: Vec<PathBuf>,
    current: Option<(PathBuf, BufWriter<File>)>,
}

impl DirSink {
    /// A sink writing document `i` to `dir/names[i]`.
    pub fn new(dir: &Path, names: Vec<PathBuf>) -> DirSink {
        DirSink { dir: dir.to_path_buf(), names, current: None }
    }

    fn close(&mut self) -> io::Result<()> {
        if let Some((path, mut file)) = self.current.take() {
            file.flush().map_err(|e| with_path(&path, e))?;
        }
        Ok(())
    }
}

impl Sink for DirSink {
    fn begin(&mut self, index: usize) -> io::Result<()> {
        self.close()?;
        let name = self.names.get(index).cloned().unwrap_or_else(|| PathBuf::from(format!("{index}.txt")));
        let path = self.dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| with_path(parent, e))?;
        }
        let file = File::create(&path).map_err(|e| with_path(&path, e))?;
        self.current = Some((path, BufWriter::new(file)));
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        match &mut self.current {
            Some((path, file)) => file.write_all(bytes).map_err(|e| with_path(path, e)),
            None => Ok(()),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        self.close()
    }
}

/// An I/O error whose message names the file.
fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_separates_documents() {
        let mut sink = StreamSink::new(Vec::new(), b"\n");
        for (i, text) in ["a\n", "b\n", "c\n"].iter().enumerate() {
            sink.begin(i).unwrap();
            sink.write(text.as_bytes()).unwrap();
        }
        sink.finish().unwrap();
        assert_eq!(sink.into_inner(), b"a\n\nb\n\nc\n");
    }

    #[test]
    fn dir_sink_mirrors_names() {
        let dir = std::env::temp_dir().join(format!("ppl-sink-{}", std::process::id()));
        let mut sink = DirSink::new(&dir, vec![PathBuf::from("x/1.txt"), PathBuf::from("2.txt")]);
        sink.begin(0).unwrap();
        sink.write(b"one").unwrap();
        sink.begin(1).unwrap();
        sink.finish().unwrap();
        assert_eq!(std::fs::read(dir.join("x/1.txt")).unwrap(), b"one");
        assert_eq!(std::fs::read(dir.join("2.txt")).unwrap(), b"");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
