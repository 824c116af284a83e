//! `--output-dir`: one file per input under a directory that mirrors the input tree
//! ([`DirSink`]), each written under a hidden temporary name and renamed when complete
//! ([`PartialFile`]).

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{DocumentMeta, DocumentStats, Sink};

/// One file per document: `dir/<name of document i>`, directories created as needed.
///
/// Outputs are atomic: a document is written to a hidden temporary file next to its final
/// name, `.<name>.<process id>.partial`, which is renamed to the final name when the document
/// ends ([`Sink::end`]). On a write error the temporary file is removed and the error returned;
/// a document begun and never ended (the run failed, or the sink was dropped) is removed too.
/// A process killed by a signal can leave a `.partial` file behind, never a truncated file
/// under a final name. A final name that exists already is replaced when the document ends
/// (a symbolic link of that name is replaced, not written through), and no file is written
/// through a directory link that leaves the directory.
pub struct DirSink {
    dir: PathBuf,
    /// `dir` with its links resolved, once it exists: what every file written must be under.
    root: Option<PathBuf>,
    names: Vec<PathBuf>,
    current: Option<PartialFile>,
}

/// A file written under a hidden temporary name next to its final path (`temp_path`): it
/// takes its final name only when [`PartialFile::commit`]ted, and is removed when dropped
/// before that (a failed or interrupted run leaves no truncated file that looks finished).
pub struct PartialFile {
    path: PathBuf,
    temp: PathBuf,
    file: Option<BufWriter<File>>,
}

impl PartialFile {
    /// Creates the temporary file for `path`, and `path`'s directories as needed.
    pub fn create(path: &Path) -> io::Result<PartialFile> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| with_path(parent, e))?;
        }
        let temp = temp_path(path);
        // A new file, never one a link of the temporary name points to: a stale one (of a
        // process killed with this id) is removed first.
        let _ = std::fs::remove_file(&temp);
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| with_path(path, e))?;
        Ok(PartialFile {
            path: path.to_path_buf(),
            temp,
            file: Some(BufWriter::new(file)),
        })
    }

    /// Flushes and closes the temporary file and gives it its final name (replacing a file of
    /// that name); on an error the temporary file is removed.
    pub fn commit(mut self) -> io::Result<()> {
        let Some(file) = self.file.take() else {
            return Ok(());
        };
        let file = file
            .into_inner()
            .map_err(|e| with_path(&self.path, e.into_error()))?;
        drop(file);
        std::fs::rename(&self.temp, &self.path).map_err(|e| with_path(&self.path, e))?;
        // Renamed: nothing is left to remove when `self` drops.
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Write for PartialFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(file) => file.write(bytes).map_err(|e| with_path(&self.path, e)),
            None => Err(io::Error::other("file already closed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(file) => file.flush().map_err(|e| with_path(&self.path, e)),
            None => Ok(()),
        }
    }
}

impl Drop for PartialFile {
    /// Not committed: the temporary file is closed, unflushed, and removed.
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            drop(file.into_parts());
        }
        if !self.temp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

impl DirSink {
    /// A sink writing document `i` to `dir/names[i]`.
    pub fn new(dir: &Path, names: Vec<PathBuf>) -> DirSink {
        DirSink {
            dir: dir.to_path_buf(),
            root: None,
            names,
            current: None,
        }
    }

    /// Removes the document being written, if one was begun and not ended.
    fn discard(&mut self) {
        self.current = None;
    }

    /// Makes the directories of `name` under the output directory, one component at a time,
    /// refusing one that is a link out of it (`out/sub -> /elsewhere`): `create_dir_all`
    /// would make directories through it, and the file would be written outside.
    fn make_parents(&mut self, name: &Path) -> io::Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(|e| with_path(&self.dir, e))?;
        let root = match &self.root {
            Some(root) => root.clone(),
            None => {
                let root = std::fs::canonicalize(&self.dir).map_err(|e| with_path(&self.dir, e))?;
                self.root.insert(root).clone()
            }
        };
        let mut at = self.dir.clone();
        for part in name.parent().into_iter().flat_map(Path::components) {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    let target = std::fs::canonicalize(&at).map_err(|e| with_path(&at, e))?;
                    if !target.starts_with(&root) {
                        return Err(with_path(
                            &at,
                            io::Error::other(
                                "a symbolic link out of the output directory: not written through",
                            ),
                        ));
                    }
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    std::fs::create_dir(&at).map_err(|e| with_path(&at, e))?;
                }
                Err(e) => return Err(with_path(&at, e)),
            }
        }
        Ok(())
    }
}

/// The temporary name of `path` while it is written: hidden, in the same directory (so that
/// renaming it is atomic), unique to this process and plainly unfinished. A long file name is
/// shortened so that the temporary name stays within the usual 255-byte limit.
fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default();
    let mut temp = OsString::from(".");
    if name.len() <= 200 {
        temp.push(name);
    } else {
        let lossy = name.to_string_lossy();
        let mut cut = 200;
        while !lossy.is_char_boundary(cut) {
            cut -= 1;
        }
        temp.push(&lossy[..cut]);
    }
    temp.push(format!(".{}.partial", std::process::id()));
    path.with_file_name(temp)
}

impl Sink for DirSink {
    fn begin(&mut self, index: usize, _meta: &DocumentMeta) -> io::Result<()> {
        // A document that never ended is incomplete: it gets no file.
        self.discard();
        let name = self
            .names
            .get(index)
            .cloned()
            .unwrap_or_else(|| PathBuf::from(format!("{index}.txt")));
        self.make_parents(&name)?;
        self.current = Some(PartialFile::create(&self.dir.join(name))?);
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        let Some(partial) = &mut self.current else {
            return Ok(());
        };
        if let Err(e) = partial.write_all(bytes) {
            self.discard();
            return Err(e);
        }
        Ok(())
    }

    fn end(&mut self, stats: &DocumentStats) -> io::Result<()> {
        match self.current.take() {
            // A document that was not cleaned gets no file that would look finished.
            Some(partial) if stats.failure.is_none() => partial.commit(),
            _ => Ok(()),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        self.discard();
        Ok(())
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
    fn temporary_names_are_hidden_and_short_enough() {
        let temp = temp_path(Path::new("out/sub/page.txt"));
        assert_eq!(
            temp,
            Path::new(&format!("out/sub/.page.txt.{}.partial", std::process::id()))
        );
        let long = "é".repeat(127);
        let temp = temp_path(&Path::new("d").join(&long));
        let name = temp.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with(".\u{e9}") && name.ends_with(".partial") && name.len() <= 255,
            "{name}"
        );
        assert!(temp_path(Path::new(".."))
            .to_string_lossy()
            .ends_with(".partial"));
    }

    #[test]
    fn dir_sink_mirrors_names() {
        let dir = std::env::temp_dir().join(format!("ppl-sink-{}", std::process::id()));
        let mut sink = DirSink::new(&dir, vec![PathBuf::from("x/1.txt"), PathBuf::from("2.txt")]);
        sink.begin(
            0,
            &DocumentMeta::Input {
                source: String::new(),
            },
        )
        .unwrap();
        sink.write(b"one").unwrap();
        assert!(
            !dir.join("x/1.txt").exists(),
            "not under its name before it ends"
        );
        sink.end(&DocumentStats::default()).unwrap();
        sink.begin(
            1,
            &DocumentMeta::Input {
                source: String::new(),
            },
        )
        .unwrap();
        sink.end(&DocumentStats::default()).unwrap();
        sink.begin(
            2,
            &DocumentMeta::Input {
                source: String::new(),
            },
        )
        .unwrap();
        sink.write(b"never ends").unwrap();
        sink.finish().unwrap();
        assert_eq!(std::fs::read(dir.join("x/1.txt")).unwrap(), b"one");
        assert_eq!(std::fs::read(dir.join("2.txt")).unwrap(), b"");
        let mut left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["2.txt", "x"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn no_file_is_written_through_a_link_out_of_the_directory() {
        let base = std::env::temp_dir().join(format!("ppl-sink-links-{}", std::process::id()));
        let (dir, outside) = (base.join("out"), base.join("outside"));
        std::fs::create_dir_all(dir.join("inner")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("f.txt"), b"kept").unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("sub")).unwrap();
        std::os::unix::fs::symlink(dir.join("inner"), dir.join("near")).unwrap();
        std::os::unix::fs::symlink(outside.join("f.txt"), dir.join("f.txt")).unwrap();
        let names = ["sub/a.txt", "sub/deeper/b.txt", "near/c.txt", "f.txt"];
        let mut sink = DirSink::new(&dir, names.iter().map(PathBuf::from).collect());
        let meta = DocumentMeta::Input {
            source: String::new(),
        };
        for index in 0..2 {
            let error = sink.begin(index, &meta).unwrap_err().to_string();
            assert!(error.contains("out/sub: a symbolic link out of"), "{error}");
        }
        for index in 2..4 {
            sink.begin(index, &meta).unwrap();
            sink.write(b"text").unwrap();
            sink.end(&DocumentStats::default()).unwrap();
        }
        // A link inside the directory is followed; a file's own link is replaced.
        assert_eq!(std::fs::read(dir.join("inner/c.txt")).unwrap(), b"text");
        assert!(!std::fs::symlink_metadata(dir.join("f.txt"))
            .unwrap()
            .is_symlink());
        assert_eq!(std::fs::read(outside.join("f.txt")).unwrap(), b"kept");
        let written: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
        assert_eq!(written.len(), 1, "nothing but f.txt outside");
        std::fs::remove_dir_all(&base).unwrap();
    }
}
