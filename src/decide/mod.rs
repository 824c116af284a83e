//! The keep/drop decision for each sentence, by one of two methods.
//!
//! * `perplexity` ([`Policy`]): PyPlexity's rule (drop a sentence whose perplexity is above a
//!   threshold) plus one structural rule that PyPlexity lacks: a block whose text is mostly link
//!   text (menus, tag clouds, "related articles") is dropped whole.
//! * `combined` ([`Classifier`]): boosted shallow trees (or a logistic regression) over the
//!   evidence of a block and of its neighbours (`crate::evidence`: perplexity under the
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
mod rules;
mod units;
mod viterbi;

use crate::block::{PageInfo, PageKind};
use std::sync::Arc;

pub use classifier::{
    context_input, embedded, evidence_values, Classifier, Logistic, PageView, Scorer, Weights,
    CONTEXT_RADIUS, INPUTS,
};
// What the decision weighs, by name: each block's evidence and the page's.
pub use crate::block::{Evidence, PageEvidence, EVIDENCE_VALUES};
pub use decider::{Decider, BLOCK_OVERHEAD_BYTES, DEFAULT_MAX_DOCUMENT_BYTES};
pub use file::{ClassifierError, ClassifierLoadError, MAX_PARAMETERS_BYTES};
pub use policy::{Policy, PolicyError, DEFAULT_MAX_LINK_DENSITY, DEFAULT_MAX_PERPLEXITY};

/// Which way the combined method leans when a block is in doubt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Favor {
    /// One decision for CleanEval-style pages and articles alike, leaning neither way.
    #[default]
    Balanced,
    /// Keep less: only what is clearly main content.
    Precision,
    /// Keep more: anything that may be main content.
    Recall,
}

impl Favor {
    /// Every leaning, in the order the interfaces list them.
    pub const ALL: [Favor; 3] = [Favor::Balanced, Favor::Precision, Favor::Recall];

    /// The leaning's name, as Python's `favor=` and the API's `"favor"` take it (the command
    /// line says `--favor-precision` and `--favor-recall`).
    pub const fn name(self) -> &'static str {
        match self {
            Favor::Balanced => "balanced",
            Favor::Precision => "precision",
            Favor::Recall => "recall",
        }
    }

    /// The leaning of this name.
    pub fn of_name(name: &str) -> Option<Favor> {
        Favor::ALL.into_iter().find(|favor| favor.name() == name)
    }

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
/// cross-validated effect is in GUIDE.md, "Accuracy").
pub const FAVOR_SHIFT: f32 = 1.0;

/// The combined method's settings besides the classifier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choices {
    /// Which way a block in doubt goes.
    pub favor: Favor,
    /// Log-odds added to every block's score on top of the leaning's (`--bias`): above 0
    /// keeps more, below keeps less; `--favor-recall` is [`FAVOR_SHIFT`].
    pub bias: f32,
    /// Keep readers' comments (prose blocks under an element named like a comment thread),
    /// which the default drops like the Dragnet gold does.
    pub comments: bool,
    /// Drop the tables of data and their captions (`--drop-tables`).
    pub drop_tables: bool,
    /// A document is decided whole up to this size ([`Decider`]).
    pub max_document_bytes: usize,
    /// The kind of every page (`--kind`), instead of the kind each page declares
    /// (`crate::evidence::page_kind`).
    pub kind: Option<PageKind>,
}

impl Choices {
    /// Log-odds added to every block's score before the decision.
    fn shift(&self) -> f32 {
        self.favor.shift() + self.bias
    }

    /// The choices for a page of `kind`: on a forum the posts are the content, so comments are
    /// kept; on documentation, collections, listings and service pages every section and card
    /// is, so the decision leans to recall (unless a way to lean was chosen). Articles, products
    /// and pages of no known kind are decided as chosen. Measured on the WCXB development pages
    /// (GUIDE.md, "Every kind of page").
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

    /// The choices for `page`, decided as `kind` ([`Choices::for_kind`]; `page` is `None` for
    /// the pieces of a long document decided before its end is read). A page of no known kind
    /// that declares an Open Graph type (`website` most often) is taken for one that is not an
    /// article, since articles declare themselves (in Open Graph or schema.org), and leans to
    /// recall like the kinds that are not articles; unless `--kind` chose the kind. Pages
    /// that declare nothing, as every page of the 2008–2013 sets, are decided as chosen.
    /// Measured on the five shared sets (GUIDE.md, "Every kind of page").
    pub fn for_page(self, kind: PageKind, page: Option<&PageInfo>) -> Choices {
        let mut choices = self.for_kind(kind);
        let declares_another_type = kind == PageKind::Other
            && self.kind.is_none()
            && page.is_some_and(|p| p.og_type.is_some());
        if declares_another_type && choices.favor == Favor::Balanced {
            choices.favor = Favor::Recall;
        }
        choices
    }
}

impl Default for Choices {
    fn default() -> Choices {
        Choices {
            favor: Favor::default(),
            bias: 0.0,
            comments: false,
            drop_tables: false,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            kind: None,
        }
    }
}

/// How blocks are kept or dropped: the decision stage's settings.
#[derive(Clone, Debug)]
pub struct DecideSettings {
    /// The decision: perplexity threshold or the learned classifier.
    pub method: Method,
    /// Thresholds of the perplexity method (the perplexity threshold applies to both).
    pub policy: Policy,
    /// The combined method's leaning, comments and document bound ([`Decider`]).
    pub choices: Choices,
}

/// The decision methods by name, without a classifier: `--method`, Python's `method=` and the
/// API's `"method"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum MethodKind {
    /// PyPlexity's rule: drop sentences above --threshold, and blocks above --max-link-density.
    Perplexity,
    /// A learned classifier over perplexity under the general and a boilerplate model, the
    /// block's shape and markup, and its neighbours (`ppl-filter learn` makes one).
    #[default]
    Combined,
}

impl MethodKind {
    /// Every method, the default first.
    pub const ALL: [MethodKind; 2] = [MethodKind::Combined, MethodKind::Perplexity];

    /// The method's name.
    pub const fn name(self) -> &'static str {
        match self {
            MethodKind::Combined => "combined",
            MethodKind::Perplexity => "perplexity",
        }
    }

    /// The method of this name.
    pub fn of_name(name: &str) -> Option<MethodKind> {
        MethodKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The first option in `given` that this method would ignore, if any: the one rule behind
    /// every door's refusal (the command line names the option by its flag, Python and the web
    /// API by their keyword, [`MethodOption::keyword`]).
    pub fn first_ignored(self, given: &Given) -> Option<MethodOption> {
        let ignored: &[(MethodOption, bool)] = match self {
            MethodKind::Perplexity => &[
                (MethodOption::Classifier, given.classifier),
                (MethodOption::Favor, given.favor),
                (MethodOption::Bias, given.bias),
                (MethodOption::Comments, given.comments),
                (MethodOption::DropTables, given.drop_tables),
                (MethodOption::Kind, given.kind),
            ],
            MethodKind::Combined => &[(MethodOption::MaxLinkDensity, given.max_link_density)],
        };
        ignored
            .iter()
            .find(|(_, given)| *given)
            .map(|&(option, _)| option)
    }
}

/// The options of the decision that one method alone uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodOption {
    /// A classifier instead of the embedded one (combined method).
    Classifier,
    /// A leaning other than the default (combined method).
    Favor,
    /// A bias (combined method).
    Bias,
    /// Readers' comments kept (combined method).
    Comments,
    /// Tables of data dropped (combined method).
    DropTables,
    /// A kind of page given (combined method).
    Kind,
    /// A link-density bound (perplexity method).
    MaxLinkDensity,
}

impl MethodOption {
    /// The option's name as Python's keyword arguments and the web API's JSON give it.
    pub const fn keyword(self) -> &'static str {
        match self {
            MethodOption::Classifier => "classifier",
            MethodOption::Favor => "favor",
            MethodOption::Bias => "bias",
            MethodOption::Comments => "comments",
            MethodOption::DropTables => "drop_tables",
            MethodOption::Kind => "kind",
            MethodOption::MaxLinkDensity => "max_link_density",
        }
    }

    /// The method that uses the option.
    pub const fn method(self) -> MethodKind {
        match self {
            MethodOption::MaxLinkDensity => MethodKind::Perplexity,
            _ => MethodKind::Combined,
        }
    }
}

/// Which of the options that one method alone uses were given ([`MethodKind::first_ignored`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Given {
    /// A classifier file or object.
    pub classifier: bool,
    /// A leaning other than the default.
    pub favor: bool,
    /// `bias`.
    pub bias: bool,
    /// `comments`.
    pub comments: bool,
    /// `drop_tables`.
    pub drop_tables: bool,
    /// A kind of page other than `auto`.
    pub kind: bool,
    /// `max_link_density`.
    pub max_link_density: bool,
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
    fn each_method_refuses_the_options_only_the_other_uses_first_in_order() {
        let all = Given {
            classifier: true,
            favor: true,
            bias: true,
            comments: true,
            drop_tables: true,
            kind: true,
            max_link_density: true,
        };
        let perplexity = MethodKind::Perplexity;
        assert_eq!(
            perplexity.first_ignored(&all),
            Some(MethodOption::Classifier)
        );
        let no_classifier = Given {
            classifier: false,
            ..all
        };
        let favor = perplexity.first_ignored(&no_classifier);
        assert_eq!(favor, Some(MethodOption::Favor));
        let density = MethodKind::Combined.first_ignored(&all);
        assert_eq!(density, Some(MethodOption::MaxLinkDensity));
        assert_eq!(density.unwrap().method(), perplexity);
        for method in MethodKind::ALL {
            assert_eq!(method.first_ignored(&Given::default()), None);
        }
        let only_density = Given {
            max_link_density: true,
            ..Given::default()
        };
        assert_eq!(perplexity.first_ignored(&only_density), None);
    }

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

    #[test]
    fn a_page_of_no_known_kind_that_declares_a_type_leans_to_recall() {
        let base = Choices::default();
        let website = PageInfo {
            og_type: Some("website".into()),
            ..PageInfo::default()
        };
        let other = PageKind::Other;
        assert_eq!(base.for_page(other, Some(&website)).favor, Favor::Recall);
        // Declaring nothing, or a kind that is not leaned, or a kind chosen: as chosen.
        assert_eq!(base.for_page(other, Some(&PageInfo::default())), base);
        assert_eq!(base.for_page(other, None), base);
        assert_eq!(base.for_page(PageKind::Article, Some(&website)), base);
        let chosen = Choices {
            kind: Some(other),
            ..base
        };
        assert_eq!(chosen.for_page(other, Some(&website)), chosen);
        let precise = Choices {
            favor: Favor::Precision,
            ..base
        };
        assert_eq!(precise.for_page(other, Some(&website)), precise);
    }
}
