//! The evidence that depends on the blocks before a block in its document.

use rustc_hash::FxHashSet;

use crate::block::Block;

/// The most distinct block texts remembered per document for the "repeated" evidence.
const MAX_REMEMBERED_TEXTS: usize = 4096;

/// A block counts as prose for [`DocumentContext`] with at least this many words...
const PROSE_WORDS: usize = 20;

/// ...and at most this share of link text.
const PROSE_LINK_DENSITY: f64 = 0.3;

/// The evidence that depends on the blocks before a block in its document: whether its text
/// already occurred, how much prose came before it and how long ago. Fed every block of a
/// document in order (by the decider when filtering, by `learn` when training), it keeps a
/// bounded set of text hashes and two counters.
#[derive(Debug, Default)]
pub struct DocumentContext {
    seen: FxHashSet<u64>,
    prose_words: usize,
    since_prose: usize,
}

impl DocumentContext {
    /// Fills the document-order values of a measured block's evidence.
    pub fn observe(&mut self, block: &mut Block) {
        let hash = xxhash_rust::xxh3::xxh3_64(block.text.as_bytes());
        let repeated = !block.text.is_empty() && !self.seen.insert(hash);
        if self.seen.len() > MAX_REMEMBERED_TEXTS {
            self.seen.remove(&hash);
        }
        let evidence = &mut block.evidence;
        evidence.repeated = f32::from(u8::from(repeated));
        evidence.ln_prose_words_so_far = (self.prose_words as f32).ln_1p();
        evidence.ln_blocks_since_prose = (self.since_prose as f32).ln_1p();
        let words = block.words();
        if words >= PROSE_WORDS && block.link_density() <= PROSE_LINK_DENSITY {
            self.prose_words += words;
            self.since_prose = 0;
        } else {
            self.since_prose += 1;
        }
    }

    /// Forgets everything, for the next document.
    pub fn clear(&mut self) {
        self.seen.clear();
        self.prose_words = 0;
        self.since_prose = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::BlockKind;

    #[test]
    fn document_context_counts_prose_before_and_repeats() {
        let prose = "word ".repeat(25);
        let mut blocks: Vec<Block> = ["Menu", prose.trim(), "Menu", "Footer"]
            .iter()
            .enumerate()
            .map(|(i, t)| Block::new(i as u32, BlockKind::Paragraph, *t))
            .collect();
        let mut document = DocumentContext::default();
        for block in &mut blocks {
            document.observe(block);
        }
        let repeated: Vec<f32> = blocks.iter().map(|b| b.evidence.repeated).collect();
        assert_eq!(repeated, [0.0, 0.0, 1.0, 0.0]);
        assert_eq!(blocks[1].evidence.ln_prose_words_so_far, 0.0);
        assert_eq!(blocks[2].evidence.ln_prose_words_so_far, 25f32.ln_1p());
        let since: Vec<f32> = blocks[1..]
            .iter()
            .map(|b| b.evidence.ln_blocks_since_prose)
            .collect();
        assert_eq!(since, [1f32.ln_1p(), 0.0, 1f32.ln_1p()]);
        document.clear();
        let mut again = blocks[2].clone();
        document.observe(&mut again);
        assert_eq!(again.evidence.repeated, 0.0);
    }
}
