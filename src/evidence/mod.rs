//! The evidence stage: what the decision knows of each block, as named values
//! ([`crate::block::Evidence`]).
//!
//! Three steps, by how much of the document each needs:
//! - [`measure`] (and [`score`], all the perplexity method needs): the block alone, on the
//!   workers: perplexity under the general and the boilerplate language model, the block's
//!   shape, element kind and what its containers' names suggest;
//! - [`DocumentContext`]: the blocks before it, in document order (repeated text, prose so
//!   far);
//! - [`page_kind`]: what the page declares about itself, at its end: the kind of page it
//!   holds, which sets what its main content is; [`tell_kind`]: the kind told from what the
//!   whole page shows ([`page_evidence`], [`KindModel`]) when it declares none;
//! - [`annotate`]: the whole document, once the decider holds it (where the main run of prose
//!   lies, container shares, values relative to the page's own). The decision's rules after
//!   the labels (`crate::decide`) apply the same notion of the main content ([`prose_bytes`],
//!   [`main_prose_bytes`]).

mod context;
mod document;
mod kind;
mod measure;
mod page;
mod url;

pub use context::DocumentContext;
pub use document::{
    annotate, main_prose_bytes, prose_bytes, Analysis, PROSE_LINK_DENSITY, RECORD_SIBLINGS,
};
pub use kind::{page_kind, tell_kind, KindModel};
pub use measure::{measure, score};
pub use page::page_evidence;
