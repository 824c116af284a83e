//! The keep/drop decision for each sentence.
//!
//! [`score`] fills every sentence's perplexity under the language model; a [`Policy`] then
//! decides. The `perplexity` method is PyPlexity's rule (drop a sentence whose perplexity is
//! above a threshold) plus one structural rule that PyPlexity lacks: a block whose text is
//! mostly link text (menus, tag clouds, "related articles") is dropped whole.

use crate::block::Block;
use crate::lm::model::LanguageModel;

/// Default perplexity threshold, calibrated on CleanEval `tune` by `scripts/calibrate.sh`.
pub const DEFAULT_MAX_PERPLEXITY: f32 = 3_000_000.0;

/// Default link-density limit, calibrated with the threshold.
pub const DEFAULT_MAX_LINK_DENSITY: f32 = 0.4;

/// The thresholds of the keep/drop rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    /// Sentences with a higher perplexity are dropped.
    pub max_perplexity: f32,
    /// Blocks with a higher share of link text are dropped whole.
    pub max_link_density: f32,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy { max_perplexity: DEFAULT_MAX_PERPLEXITY, max_link_density: DEFAULT_MAX_LINK_DENSITY }
    }
}

/// Scores every sentence of the block under `model`.
pub fn score(block: &mut Block, model: &LanguageModel) {
    let Block { text, sentences, .. } = block;
    for sentence in sentences.iter_mut() {
        sentence.perplexity = model.perplexity(&text[sentence.range()]) as f32;
    }
}

impl Policy {
    /// Whether the block survives the link-density rule (its sentences may still be dropped).
    pub fn block_passes(&self, block: &Block) -> bool {
        block.link_density() as f32 <= self.max_link_density
    }

    /// Sets `keep` on every sentence of a scored block.
    pub fn decide(&self, block: &mut Block) {
        let block_ok = self.block_passes(block);
        for sentence in &mut block.sentences {
            sentence.keep = block_ok && sentence.perplexity <= self.max_perplexity;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::{BlockKind, Sentence};

    fn block(text: &str, link_bytes: usize, ppls: &[f32]) -> Block {
        let mut b = Block::new(0, BlockKind::Paragraph, text);
        b.link_bytes = link_bytes;
        b.sentences = ppls
            .iter()
            .map(|&p| Sentence { perplexity: p, ..Sentence::new(0..text.len()) })
            .collect();
        b
    }

    #[test]
    fn drops_sentences_above_the_threshold() {
        let policy = Policy { max_perplexity: 100.0, max_link_density: 0.5 };
        let mut b = block("x", 0, &[50.0, 150.0, 100.0]);
        policy.decide(&mut b);
        let keep: Vec<bool> = b.sentences.iter().map(|s| s.keep).collect();
        assert_eq!(keep, [true, false, true]);
    }

    #[test]
    fn drops_link_blocks_whole() {
        let policy = Policy { max_perplexity: 1e9, max_link_density: 0.5 };
        let mut menu = block("Home About Contact", 18, &[10.0]);
        policy.decide(&mut menu);
        assert!(!menu.sentences[0].keep);
        let mut prose = block("Read the story here", 4, &[10.0]);
        policy.decide(&mut prose);
        assert!(prose.sentences[0].keep);
    }

    #[test]
    fn nan_perplexity_is_dropped() {
        let mut b = block("x", 0, &[f32::NAN]);
        Policy::default().decide(&mut b);
        assert!(!b.sentences[0].keep);
    }
}
