//! Inputs: where documents come from and how their bytes are read.
//!
//! An [`Input`] is standard input or a file; gzip is recognised by its magic bytes and read
//! transparently (all members of a multi-member file).

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::bufread::MultiGzDecoder;

/// One document source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input (`-` on the command line).
    Stdin,
    /// A file on disk.
    File(PathBuf),
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

    /// Opens the input for reading, decompressing gzip transparently.
    pub fn open(&self) -> io::Result<Box<dyn Read + Send>> {
        let reader: Box<dyn BufRead + Send> = match self {
            Input::Stdin => Box::new(BufReader::with_capacity(64 * 1024, io::stdin())),
            Input::File(path) => Box::new(BufReader::with_capacity(64 * 1024, File::open(path)?)),
        };
        maybe_gunzip(reader)
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Stdin => f.write_str("<stdin>"),
            Input::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// Wraps `reader` in a gzip decoder when its first bytes are the gzip magic.
pub fn maybe_gunzip(mut reader: Box<dyn BufRead + Send>) -> io::Result<Box<dyn Read + Send>> {
    let head = reader.fill_buf()?;
    if head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b {
        Ok(Box::new(MultiGzDecoder::new(reader)))
    } else {
        Ok(Box::new(reader))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    #[test]
    fn reads_plain_and_multi_member_gzip() {
        let mut bytes = Vec::new();
        for part in ["hello ", "world"] {
            let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(part.as_bytes()).unwrap();
            bytes.extend(enc.finish().unwrap());
        }
        let mut text = String::new();
        maybe_gunzip(Box::new(io::Cursor::new(bytes))).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "hello world");
        let mut plain = String::new();
        maybe_gunzip(Box::new(io::Cursor::new(b"<p>x".to_vec()))).unwrap().read_to_string(&mut plain).unwrap();
        assert_eq!(plain, "<p>x");
    }

    #[test]
    fn dash_is_stdin() {
        assert_eq!(Input::from_arg(Path::new("-")), Input::Stdin);
        assert_eq!(Input::from_arg(Path::new("a.html")).to_string(), "a.html");
    }
}
