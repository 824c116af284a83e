//! The keep/drop decision for each sentence, by one of two methods.
//!
//! * `perplexity` ([`Policy`]): PyPlexity's rule (drop a sentence whose perplexity is above a
//!   threshold) plus one structural rule that PyPlexity lacks: a block whose text is mostly link
//!   text (menus, tag clouds, "related articles") is dropped whole.
//! * `combined` ([`Classifier`]): boosted shallow trees (or a logistic regression) over the
//!   evidence of a block and of its neighbours ([`crate::evidence`]: perplexity under the
//!   general and the boilerplate model, their ratio, shape, markup hints, position and where
//!   the block sits in the whole document), optionally followed by a two-state Viterbi pass
//!   that smooths the keep/drop labels between neighbouring blocks, and the rescue of an
//!   article left empty. A kept block's sentences still obey the perplexity threshold if one
//!   is given.
//!
//! Files: `policy.rs` (the perplexity rule), `classifier.rs` (the classifier and its input),
//! `file.rs` (the classifier file format), `viterbi.rs` (the smoother), `decider.rs` (both
//! methods in document order).
//!
//! Both run in document order through a [`Decider`]: the perplexity method decides each block
//! as it comes, the combined method holds a document (or a piece of a long one) bounded by
//! `max_document_bytes`.

mod classifier;
mod decider;
mod file;
mod policy;
mod viterbi;

use crate::block::PageKind;
use std::sync::Arc;

pub use classifier::{
    context_input, embedded, evidence_values, Classifier, Logistic, Scorer, Weights,
    CONTEXT_RADIUS, INPUTS,
};
pub use decider::{Decider, BLOCK_OVERHEAD_BYTES, DEFAULT_MAX_DOCUMENT_BYTES};
pub use file::{ClassifierError, MAX_PARAMETERS_BYTES};
pub use policy::{Policy, PolicyError, DEFAULT_MAX_LINK_DENSITY, DEFAULT_MAX_PERPLEXITY};

/// Which way the combined method leans when a block is in doubt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Favor {
    /// One balanced decision for CleanEval-style pages and articles alike.
    #[default]
    Balanced,
    /// Keep less: only what is clearly main content.
    Precision,
    /// Keep more: anything that may be main content.
    Recall,
}

impl Favor {
    /// Log-odds added to every block's score before the decision.
    fn shift(self) -> f32 {
        match self {
            Favor::Balanced => 0.0,
            Favor::Precision => -FAVOR_SHIFT,
            Favor::Recall => FAVOR_SHIFT,
        }
    }
}

/// How far `--favor-precision` and `--favor-recall` move the decision, in log-odds (their
/// cross-validated effect is in the README, "Accuracy").
pub const FAVOR_SHIFT: f32 = 1.0;

/// The combined method's settings besides the classifier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choices {
    /// Which way a block in doubt goes.
    pub favor: Favor,
    /// Keep readers' comments (prose blocks under an element named like a comment thread),
    /// which the default drops like the Dragnet gold does.
    pub comments: bool,
    /// A document is decided whole up to this size ([`Decider`]).
    pub max_document_bytes: usize,
    /// The kind of every page (`--kind`), instead of the kind each page declares
    /// ([`crate::evidence::page_kind`]).
    pub kind: Option<PageKind>,
}

impl Choices {
    /// The choices for a page of `kind`: on a forum the posts are the content, so comments are
    /// kept; on documentation, collections, listings and service pages every section and card
    /// is, so the decision leans to recall (unless a way to lean was chosen). Articles, products
    /// and pages of no known kind are decided as chosen. Measured on the WCXB development pages
    /// (README, "Every kind of page").
    pub fn for_kind(self, kind: PageKind) -> Choices {
        let mut choices = self;
        match kind {
            PageKind::Forum => choices.comments = true,
            PageKind::Documentation
            | PageKind::Collection
            | PageKind::Listing
            | PageKind::Service => {
                if choices.favor == Favor::Balanced {
                    choices.favor = Favor::Recall;
                }
            }
            PageKind::Article | PageKind::Product | PageKind::Other => {}
        }
        choices
    }
}

impl Default for Choices {
    fn default() -> Choices {
        Choices {
            favor: Favor::Balanced,
            comments: false,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            kind: None,
        }
    }
}

/// Which decision is made.
#[derive(Clone, Debug)]
pub enum Method {
    /// Perplexity threshold plus the link-density rule ([`Policy`]).
    Perplexity,
    /// The learned classifier with context smoothing.
    Combined(Arc<Classifier>),
}

impl Method {
    /// The classifier, for the combined method.
    pub fn classifier(&self) -> Option<&Classifier> {
        match self {
            Method::Perplexity => None,
            Method::Combined(c) => Some(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_page_sets_what_is_content_and_chosen_flags_win() {
        let base = Choices::default();
        let forum = base.for_kind(PageKind::Forum);
        assert!(forum.comments);
        assert_eq!(forum.favor, Favor::Balanced);
        for kind in [
            PageKind::Documentation,
            PageKind::Collection,
            PageKind::Listing,
            PageKind::Service,
        ] {
            assert_eq!(base.for_kind(kind).favor, Favor::Recall, "{kind:?}");
            let precise = Choices {
                favor: Favor::Precision,
                ..base
            };
            assert_eq!(precise.for_kind(kind).favor, Favor::Precision, "{kind:?}");
        }
        for kind in [PageKind::Article, PageKind::Product, PageKind::Other] {
            assert_eq!(base.for_kind(kind), base, "{kind:?}");
        }
    }
}
