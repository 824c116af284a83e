//! The perplexity method's rule ([`Policy`]): PyPlexity's perplexity threshold plus one
//! structural rule that PyPlexity lacks: a block whose text is mostly link text (menus, tag
//! clouds, "related articles") is dropped whole.

use crate::block::Block;

/// Default perplexity threshold, calibrated on CleanEval `tune` by `scripts/calibrate.sh`.
pub const DEFAULT_MAX_PERPLEXITY: f32 = 3_000_000.0;

/// Default link-density limit, calibrated with the threshold.
pub const DEFAULT_MAX_LINK_DENSITY: f32 = 0.4;

/// The thresholds of the keep/drop rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    /// Sentences with a higher perplexity are dropped; `None`: the method's default
    /// ([`DEFAULT_MAX_PERPLEXITY`] for the perplexity method, none for the combined one, whose
    /// classifier weighs perplexity with the rest of the evidence: a threshold on English
    /// perplexity would empty pages in other languages).
    pub max_perplexity: Option<f32>,
    /// Blocks with a higher share of link text are dropped whole.
    pub max_link_density: f32,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            max_perplexity: None,
            max_link_density: DEFAULT_MAX_LINK_DENSITY,
        }
    }
}

/// Why a [`Policy`] threshold is unusable (NaN would silently drop everything).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum PolicyError {
    /// The perplexity threshold is not a finite number above 0.
    #[error("perplexity threshold {0} is not a finite number above 0")]
    MaxPerplexity(f32),
    /// The link-density limit is not a share from 0 to 1.
    #[error("link density limit {0} is not a share from 0 to 1")]
    MaxLinkDensity(f32),
}

impl Policy {
    /// A policy with these thresholds, if both are usable (see [`Policy::validate`]).
    pub fn new(max_perplexity: f32, max_link_density: f32) -> Result<Policy, PolicyError> {
        let policy = Policy {
            max_perplexity: Some(max_perplexity),
            max_link_density,
        };
        policy.validate().map(|()| policy)
    }

    /// Checks the perplexity threshold is finite and above 0 and the link-density limit is
    /// in [0, 1] (a NaN in either would drop every sentence without a word).
    pub fn validate(&self) -> Result<(), PolicyError> {
        if let Some(max_perplexity) = self.max_perplexity {
            Policy::check_max_perplexity(max_perplexity)?;
        }
        Policy::check_max_link_density(self.max_link_density)?;
        Ok(())
    }

    /// `max_perplexity` if it is a usable perplexity threshold (finite, above 0).
    pub fn check_max_perplexity(max_perplexity: f32) -> Result<f32, PolicyError> {
        if max_perplexity.is_finite() && max_perplexity > 0.0 {
            Ok(max_perplexity)
        } else {
            Err(PolicyError::MaxPerplexity(max_perplexity))
        }
    }

    /// `max_link_density` if it is a usable link-density limit (from 0 to 1).
    pub fn check_max_link_density(max_link_density: f32) -> Result<f32, PolicyError> {
        if (0.0..=1.0).contains(&max_link_density) {
            Ok(max_link_density)
        } else {
            Err(PolicyError::MaxLinkDensity(max_link_density))
        }
    }

    /// Whether the block survives the link-density rule (its sentences may still be dropped).
    pub fn block_passes(&self, block: &Block) -> bool {
        block.link_density() as f32 <= self.max_link_density
    }

    /// Sets `keep` on every sentence of a scored block.
    pub fn decide(&self, block: &mut Block) {
        let block_ok = self.block_passes(block);
        let max_perplexity = self.max_perplexity.unwrap_or(DEFAULT_MAX_PERPLEXITY);
        for sentence in &mut block.sentences {
            sentence.keep = block_ok && sentence.perplexity <= max_perplexity;
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
            .map(|&p| Sentence {
                perplexity: p,
                ..Sentence::new(0..text.len())
            })
            .collect();
        b
    }

    #[test]
    fn drops_sentences_above_the_threshold() {
        let policy = Policy {
            max_perplexity: Some(100.0),
            max_link_density: 0.5,
        };
        let mut b = block("x", 0, &[50.0, 150.0, 100.0]);
        policy.decide(&mut b);
        let keep: Vec<bool> = b.sentences.iter().map(|s| s.keep).collect();
        assert_eq!(keep, [true, false, true]);
    }

    #[test]
    fn drops_link_blocks_whole() {
        let policy = Policy {
            max_perplexity: Some(1e9),
            max_link_density: 0.5,
        };
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

    #[test]
    fn policies_with_unusable_thresholds_are_errors() {
        assert_eq!(Policy::default().validate(), Ok(()));
        assert_eq!(
            Policy::new(5000.0, 1.0),
            Ok(Policy {
                max_perplexity: Some(5000.0),
                max_link_density: 1.0
            })
        );
        assert!(Policy::new(5000.0, 0.0).is_ok());
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -1.0] {
            assert!(
                matches!(Policy::new(bad, 0.4), Err(PolicyError::MaxPerplexity(_))),
                "{bad}"
            );
        }
        for bad in [f32::NAN, f32::INFINITY, -0.1, 1.5] {
            assert!(
                matches!(Policy::new(1e6, bad), Err(PolicyError::MaxLinkDensity(_))),
                "{bad}"
            );
        }
        let err = Policy {
            max_perplexity: Some(f32::NAN),
            ..Policy::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "perplexity threshold NaN is not a finite number above 0"
        );
    }
}
