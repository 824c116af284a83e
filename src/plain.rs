//! Plain text to blocks, for `--input text` and pages with no markup: one block per paragraph,
//! where paragraphs are separated by blank lines (lines inside a paragraph are joined with a
//! space). Whitespace is collapsed, and a paragraph longer than the longest block is cut in
//! several as HTML blocks are (see `crate::html::soft_cut_start`): no text is dropped. As for
//! HTML, U+0000 is dropped and the other C0 control characters count as white space, so none
//! reaches the output (a line of nothing else is blank). Streaming: only the current paragraph
//! (at most a block) and an unfinished last word (at most a block) are held, and each word is
//! taken once, whatever the pieces the text comes in.

use std::borrow::Cow;

use crate::block::{Block, BlockKind};
use crate::html::{last_sentence_end, soft_cut_start, word_piece};

/// Splits a UTF-8 text stream into paragraph blocks.
pub struct TextBlocks {
    max_block_bytes: usize,
    /// The end of the text so far when it may be the start of a word that goes on.
    word: String,
    /// Words of the current line were taken: it is not blank.
    line_has_words: bool,
    block: Block,
    next_index: u32,
}

impl TextBlocks {
    /// A splitter that cuts blocks at `max_block_bytes`.
    pub fn new(max_block_bytes: usize) -> TextBlocks {
        TextBlocks {
            max_block_bytes: max_block_bytes.max(1),
            word: String::new(),
            line_has_words: false,
            block: Block::default(),
            next_index: 0,
        }
    }

    /// Feeds the next piece of text, appending finished paragraphs to `out`.
    pub fn write(&mut self, text: &str, out: &mut Vec<Block>) {
        let text = without_nul(text);
        let mut rest = &text[..];
        while let Some(nl) = memchr::memchr(b'\n', rest.as_bytes()) {
            self.take_words(&rest[..nl], true, out);
            if !self.line_has_words {
                self.flush(out);
            }
            self.line_has_words = false;
            rest = &rest[nl + 1..];
        }
        self.take_words(rest, false, out);
    }

    /// Ends the text, appending the last paragraph.
    pub fn end(mut self, out: &mut Vec<Block>) {
        self.take_words("", true, out);
        self.flush(out);
    }

    /// Takes the words of `text`, the next part of the current line, after the unfinished word
    /// held from before; `line_ends`: the line ends after it. Otherwise its last word is held,
    /// as it may go on (but for pieces of it as long as a block, which are taken).
    fn take_words(&mut self, text: &str, line_ends: bool, out: &mut Vec<Block>) {
        let mut text = text;
        if !self.word.is_empty() {
            let end = text.find(separates_words).unwrap_or(text.len());
            if end == text.len() && !line_ends {
                self.word.push_str(text);
                self.take_long_word(out);
                return;
            }
            let mut word = std::mem::take(&mut self.word);
            word.push_str(&text[..end]);
            self.push_word(&word, out);
            word.clear();
            self.word = word;
            text = &text[end..];
        }
        let whole = match line_ends {
            true => text.len(),
            false => text
                .char_indices()
                .rev()
                .find(|&(_, c)| separates_words(c))
                .map_or(0, |(i, c)| i + c.len_utf8()),
        };
        for word in text[..whole]
            .split(separates_words)
            .filter(|w| !w.is_empty())
        {
            self.push_word(word, out);
        }
        self.word.push_str(&text[whole..]);
        self.take_long_word(out);
    }

    /// Takes pieces of the held word while it is longer than a block: it is cut there whatever
    /// follows.
    fn take_long_word(&mut self, out: &mut Vec<Block>) {
        while self.word.len() > self.max_block_bytes {
            let piece = word_piece(&self.word, self.max_block_bytes);
            let word = std::mem::take(&mut self.word);
            if !self.block.text.is_empty() {
                self.cut(out);
            }
            self.push_word(&word[..piece], out);
            self.cut(out);
            self.word = word;
            self.word.drain(..piece);
        }
    }

    /// Appends a word to the paragraph, cutting it first when the word does not fit (and the
    /// word in pieces when it is longer than a block).
    fn push_word(&mut self, mut word: &str, out: &mut Vec<Block>) {
        self.line_has_words = true;
        loop {
            let space = usize::from(!self.block.text.is_empty());
            if self.block.text.len() + space + word.len() <= self.max_block_bytes {
                if space == 1 {
                    self.block.text.push(' ');
                }
                self.block.text.push_str(word);
                return;
            }
            if self.block.text.is_empty() {
                let piece = word_piece(word, self.max_block_bytes);
                self.block.text.push_str(&word[..piece]);
                word = &word[piece..];
                if word.is_empty() {
                    return;
                }
            }
            self.cut(out);
        }
    }

    /// Ends the paragraph's block because it is full, marked `truncated`: after its last
    /// sentence end if one is in its last bytes (the words after it begin the next block),
    /// else as it is.
    fn cut(&mut self, out: &mut Vec<Block>) {
        let soft = soft_cut_start(self.max_block_bytes);
        let tail = last_sentence_end(&self.block.text, soft).map(|at| {
            let tail = self.block.text[at + 1..].to_owned();
            self.block.text.truncate(at);
            tail
        });
        self.block.truncated = true;
        self.flush(out);
        if let Some(tail) = tail {
            self.block.text = tail;
        }
    }

    fn flush(&mut self, out: &mut Vec<Block>) {
        if self.block.text.is_empty() {
            self.block.truncated = false;
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

/// `text` without its NULs.
fn without_nul(text: &str) -> Cow<'_, str> {
    match memchr::memchr(0, text.as_bytes()) {
        None => Cow::Borrowed(text),
        Some(_) => Cow::Owned(text.replace('\0', "")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str, chunk: usize) -> Vec<String> {
        split_blocks(text, chunk, 1000)
            .into_iter()
            .map(|b| b.text)
            .collect()
    }

    /// The blocks of `text` given `chunk` characters at a time, at most `max` bytes each.
    fn split_blocks(text: &str, chunk: usize, max: usize) -> Vec<Block> {
        let mut t = TextBlocks::new(max);
        let mut out = Vec::new();
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(chunk) {
            t.write(&piece.iter().collect::<String>(), &mut out);
        }
        t.end(&mut out);
        out
    }

    #[test]
    fn long_paragraphs_are_cut_in_several_alike_for_any_pieces() {
        let sentence = "The council met on Tuesday and voted for the plan. ";
        let text = format!(
            "{}\n\n{}\nlast words",
            sentence.repeat(30),
            "x".repeat(2500)
        );
        let whole = split_blocks(&text, usize::MAX, 1000);
        for chunk in [1, 2, 7, 100, 999, 4096] {
            let got = split_blocks(&text, chunk, 1000);
            assert_eq!(got, whole, "{chunk}-character pieces");
        }
        let texts: Vec<&str> = whole.iter().map(|b| b.text.as_str()).collect();
        // Cut after a sentence near the bound, a word longer than a block in pieces; every
        // word is kept, once, in order.
        assert!(texts.iter().all(|t| t.len() <= 1000), "{texts:?}");
        assert!(texts[0].ends_with("for the plan.") && texts[0].len() > 750);
        assert!(whole[0].truncated && !whole[1].truncated);
        let squeezed = |s: &str| s.split_whitespace().collect::<String>();
        assert_eq!(squeezed(&texts.concat()), squeezed(&text));
        let (piece, last) = ("x".repeat(1000), format!("{} last words", "x".repeat(500)));
        assert_eq!(texts[2..], [piece.as_str(), &piece, &last]);
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
