//! One record's text, held until the record can be written ([`Spool`]): in memory up to a
//! bound, the rest in an anonymous temporary file, so that a record sink's memory does not grow
//! with the page. A WARC record needs its length and digest before its text, and a JSON object
//! its title (known only at the page's end) before it: both are written from the spool once
//! the document ends.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// Bytes held in memory before the rest goes to a temporary file.
pub const HELD_BYTES: usize = 4 << 20;

/// Size of the chunks the spooled text is read back in.
const CHUNK_BYTES: usize = 64 * 1024;

/// A spool read back ([`Spool::into_reader`]).
pub struct SpoolReader {
    memory: io::Cursor<Vec<u8>>,
    spilled: Option<io::Take<File>>,
}

impl Read for SpoolReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.memory.read(buf)? {
            0 => self.spilled.as_mut().map_or(Ok(0), |file| file.read(buf)),
            n => Ok(n),
        }
    }
}

/// A record's text: its first [`Spool::held`] bytes in memory, the rest in an anonymous
/// temporary file (made when first needed, reused for the next records, removed by the
/// operating system when closed).
pub struct Spool {
    memory: Vec<u8>,
    limit: usize,
    file: Option<File>,
    /// Bytes written to the file for the current record.
    spilled: u64,
    /// How many `\n` end the text.
    trailing_newlines: u64,
}

impl Spool {
    /// A spool holding at most `limit` bytes in memory.
    pub fn new(limit: usize) -> Spool {
        Spool {
            memory: Vec::new(),
            limit,
            file: None,
            spilled: 0,
            trailing_newlines: 0,
        }
    }

    /// Empties it for the next record (memory beyond the bound is given back).
    pub fn clear(&mut self) {
        self.memory.clear();
        if self.memory.capacity() > self.limit {
            self.memory.shrink_to(self.limit);
        }
        self.spilled = 0;
        self.trailing_newlines = 0;
    }

    /// Appends `bytes`.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        match bytes.iter().rposition(|&b| b != b'\n') {
            Some(last) => self.trailing_newlines = (bytes.len() - 1 - last) as u64,
            None => self.trailing_newlines += bytes.len() as u64,
        }
        let room = self
            .limit
            .saturating_sub(self.memory.len())
            .min(bytes.len());
        self.memory.extend_from_slice(&bytes[..room]);
        let rest = &bytes[room..];
        if rest.is_empty() {
            return Ok(());
        }
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(tempfile::tempfile()?),
        };
        if self.spilled == 0 {
            file.set_len(0)?;
            file.seek(SeekFrom::Start(0))?;
        }
        file.write_all(rest)?;
        self.spilled += rest.len() as u64;
        Ok(())
    }

    /// The text's length without the line endings that end it.
    pub fn trimmed_len(&self) -> u64 {
        self.memory.len() as u64 + self.spilled - self.trailing_newlines
    }

    /// The bytes held in memory: the text's first bytes (all of it when it fits).
    pub fn held(&self) -> &[u8] {
        &self.memory
    }

    /// Every byte written, read back from the start: the bytes held in memory, then those in
    /// the temporary file.
    pub fn into_reader(mut self) -> io::Result<SpoolReader> {
        let spilled = match self.file.take() {
            Some(mut file) if self.spilled > 0 => {
                file.seek(SeekFrom::Start(0))?;
                Some(file.take(self.spilled))
            }
            _ => None,
        };
        Ok(SpoolReader {
            memory: io::Cursor::new(self.memory),
            spilled,
        })
    }

    /// Hands the text's first [`Spool::trimmed_len`] bytes to `each` in chunks, in order; may
    /// be called again.
    pub fn each_chunk(&mut self, each: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        self.first_chunks(self.trimmed_len(), each)
    }

    /// Hands every byte written to `each` in chunks, in order (the line endings that end the
    /// text too); may be called again.
    pub fn each_written_chunk(
        &mut self,
        each: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        self.first_chunks(self.memory.len() as u64 + self.spilled, each)
    }

    /// Hands the first `left` bytes written to `each` in chunks, in order.
    fn first_chunks(
        &mut self,
        mut left: u64,
        each: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let in_memory = left.min(self.memory.len() as u64) as usize;
        for chunk in self.memory[..in_memory].chunks(CHUNK_BYTES) {
            each(chunk)?;
        }
        left -= in_memory as u64;
        if left == 0 {
            return Ok(());
        }
        let Some(file) = &mut self.file else {
            return Ok(());
        };
        file.seek(SeekFrom::Start(0))?;
        let mut buffer = vec![0; CHUNK_BYTES];
        while left > 0 {
            let want = left.min(CHUNK_BYTES as u64) as usize;
            file.read_exact(&mut buffer[..want])?;
            each(&buffer[..want])?;
            left -= want as u64;
        }
        Ok(())
    }

    /// Hands the text (trimmed as by [`Spool::each_chunk`]) to `each` as UTF-8 pieces, each
    /// whole characters; bytes that are not UTF-8 become U+FFFD.
    pub fn each_str(&mut self, each: &mut dyn FnMut(&str) -> io::Result<()>) -> io::Result<()> {
        let mut carry: Vec<u8> = Vec::new();
        self.each_chunk(&mut |chunk| {
            carry.extend_from_slice(chunk);
            let whole = match std::str::from_utf8(&carry) {
                Ok(_) => carry.len(),
                // A character cut at the chunk's end waits for the next chunk.
                Err(e) if e.error_len().is_none() => e.valid_up_to(),
                Err(_) => carry.len(),
            };
            each(&String::from_utf8_lossy(&carry[..whole]))?;
            carry.drain(..whole);
            Ok(())
        })?;
        if carry.is_empty() {
            Ok(())
        } else {
            each(&String::from_utf8_lossy(&carry))
        }
    }

    /// The whole (trimmed) text as one string: for records bounded otherwise (a JSONL line).
    pub fn to_string_lossy(&mut self) -> io::Result<String> {
        let mut text = String::with_capacity(self.trimmed_len() as usize);
        self.each_str(&mut |piece| {
            text.push_str(piece);
            Ok(())
        })?;
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_back_it_gives_every_byte_written_from_memory_then_from_the_file() {
        let mut spool = Spool::new(5);
        spool.write(b"abc").unwrap();
        spool.write(b"defgh\n\n").unwrap();
        let mut back = Vec::new();
        spool.into_reader().unwrap().read_to_end(&mut back).unwrap();
        assert_eq!(back, b"abcdefgh\n\n");
    }

    fn text_of(spool: &mut Spool) -> Vec<u8> {
        let mut out = Vec::new();
        spool
            .each_chunk(&mut |chunk| {
                out.extend_from_slice(chunk);
                Ok(())
            })
            .unwrap();
        out
    }

    #[test]
    fn text_beyond_the_bound_goes_to_a_file_and_comes_back_whole() {
        let text =
            "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich.\n".repeat(3000);
        for limit in [0, 1, 7, 1000, 1 << 20] {
            let mut spool = Spool::new(limit);
            for record in 0..2 {
                spool.clear();
                for piece in text.as_bytes().chunks(333 + record) {
                    spool.write(piece).unwrap();
                }
                spool.write(b"\n\n").unwrap();
                assert!(spool.held().len() <= limit);
                let trimmed = text.trim_end_matches('\n');
                assert_eq!(spool.trimmed_len(), trimmed.len() as u64);
                assert_eq!(text_of(&mut spool), trimmed.as_bytes(), "limit {limit}");
                assert_eq!(spool.to_string_lossy().unwrap(), trimmed, "limit {limit}");
            }
        }
    }

    #[test]
    fn a_text_of_line_endings_is_empty() {
        let mut spool = Spool::new(2);
        spool.write(b"\n").unwrap();
        spool.write(b"\n\n\n").unwrap();
        assert_eq!(spool.trimmed_len(), 0);
        assert!(text_of(&mut spool).is_empty());
        spool.clear();
        spool.write(b"a\nb").unwrap();
        assert_eq!(spool.to_string_lossy().unwrap(), "a\nb");
    }
}
