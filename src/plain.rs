//! Plain text to blocks, for `--input text`: one block per paragraph, where paragraphs are
//! separated by blank lines (lines inside a paragraph are joined with a space). Whitespace is
//! collapsed and a block is cut at the same maximum length as HTML blocks. As for HTML, U+0000 is
//! dropped and the other C0 control characters count as white space, so none reaches the output
//! (a line of nothing else is blank). Streaming: only the current paragraph and an unfinished
//! last line are held.

use std::borrow::Cow;

use crate::block::{Block, BlockKind};

/// Splits a UTF-8 text stream into paragraph blocks.
pub struct TextBlocks {
    max_block_bytes: usize,
    line: String,
    block: Block,
    next_index: u32,
}

impl TextBlocks {
    /// A splitter that cuts blocks at `max_block_bytes`.
    pub fn new(max_block_bytes: usize) -> TextBlocks {
        TextBlocks {
            max_block_bytes,
            line: String::new(),
            block: Block::default(),
            next_index: 0,
        }
    }

    /// Feeds the next piece of text, appending finished paragraphs to `out`.
    pub fn write(&mut self, text: &str, out: &mut Vec<Block>) {
        let mut rest = text;
        while let Some(nl) = memchr::memchr(b'\n', rest.as_bytes()) {
            if self.line.is_empty() {
                self.take_line(&rest[..nl], out);
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.push_str(&rest[..nl]);
                self.take_line(&line, out);
            }
            rest = &rest[nl + 1..];
        }
        // Keep an unfinished line, but never more than one block's worth of it.
        if self.line.len() < self.max_block_bytes.saturating_mul(2) {
            self.line.push_str(rest);
        }
    }

    /// Ends the text, appending the last paragraph.
    pub fn end(mut self, out: &mut Vec<Block>) {
        let line = std::mem::take(&mut self.line);
        self.take_line(&line, out);
        self.flush(out);
    }

    fn take_line(&mut self, line: &str, out: &mut Vec<Block>) {
        let mut words = line
            .split(separates_words)
            .filter_map(without_nul)
            .peekable();
        if words.peek().is_none() {
            self.flush(out);
            return;
        }
        for word in words {
            let space = usize::from(!self.block.text.is_empty());
            if self.block.text.len() + space + word.len() > self.max_block_bytes {
                self.block.truncated = true;
                break;
            }
            if space == 1 {
                self.block.text.push(' ');
            }
            self.block.text.push_str(&word);
        }
    }

    fn flush(&mut self, out: &mut Vec<Block>) {
        if self.block.text.is_empty() {
            return;
        }
        let mut block = std::mem::take(&mut self.block);
        block.index = self.next_index;
        block.kind = BlockKind::Paragraph;
        self.next_index += 1;
        out.push(block);
    }
}

/// White space between words: `char::is_whitespace` and the C0 controls but NUL.
fn separates_words(c: char) -> bool {
    c.is_whitespace() || (c < ' ' && c != '\0')
}

/// A word without its NULs, unless nothing is left.
fn without_nul(word: &str) -> Option<Cow<'_, str>> {
    if !word.contains('\0') {
        return (!word.is_empty()).then_some(Cow::Borrowed(word));
    }
    let word = word.replace('\0', "");
    (!word.is_empty()).then_some(Cow::Owned(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str, chunk: usize) -> Vec<String> {
        let mut t = TextBlocks::new(1000);
        let mut out = Vec::new();
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(chunk) {
            t.write(&piece.iter().collect::<String>(), &mut out);
        }
        t.end(&mut out);
        out.into_iter().map(|b| b.text).collect()
    }

    #[test]
    fn paragraphs_are_blank_line_separated() {
        let text = "First line\n  of one.\n\n\nSecond.\n \nThird\n";
        for chunk in [1, 3, 100] {
            assert_eq!(
                split(text, chunk),
                ["First line of one.", "Second.", "Third"]
            );
        }
    }

    #[test]
    fn nul_is_dropped_and_controls_separate_words() {
        let text = "nu\0ll and\x01ctrl\x1fchars\n\0\x02 \nnext\x7f";
        for chunk in [1, 4, 100] {
            assert_eq!(split(text, chunk), ["null and ctrl chars", "next\x7f"]);
        }
    }
}
