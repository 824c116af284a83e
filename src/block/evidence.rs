//! What the combined method knows of a block: [`Evidence`], one named value per fact.
//!
//! The evidence stage ([`crate::evidence`]) fills it: the block's own values on the workers,
//! the values that need the blocks before it in document order, and those only the whole
//! document shows when the decider holds it. The classifier reads the values as one array in
//! the order they are declared here ([`Evidence::values`]); [`Evidence::NAMES`] names them for
//! the classifier file and `ppl-filter learn`. Adding, removing or reordering a value changes
//! what a classifier means, so a classifier file records the names it was learned on.

/// Declares [`Evidence`] from one list of documented names: the struct, its names in order and
/// the array the classifier reads, so the three can never disagree.
macro_rules! evidence {
    ($( $(#[doc = $doc:literal])+ $name:ident, )+) => {
        /// The evidence about one block, every value an `f32` (all zeros for the padding
        /// beyond a document's edge).
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct Evidence {
            $( $(#[doc = $doc])+ pub $name: f32, )+
        }

        impl Evidence {
            /// The names of the values, in the classifier's order.
            pub const NAMES: [&'static str; EVIDENCE_VALUES] = [$(stringify!($name)),+];

            /// The values in the order of [`Evidence::NAMES`].
            pub fn values(&self) -> [f32; EVIDENCE_VALUES] {
                [$(self.$name),+]
            }
        }

        /// How many values [`Evidence`] holds.
        pub const EVIDENCE_VALUES: usize = [$(stringify!($name)),+].len();
    };
}

evidence! {
    // The block itself, measured on the workers (`evidence::measure`).
    /// ln(1 + words).
    ln_words,
    /// Non-space characters per word (at most 20).
    mean_word_chars,
    /// Share of the words that are English stopwords.
    stopword_share,
    /// Share of the characters that are digits.
    digit_share,
    /// Share of the words that start with a capital.
    capitalised_share,
    /// Share of the characters that are neither letters nor digits.
    punctuation_share,
    /// Share of the text's bytes inside links.
    link_density,
    /// 1 for a heading.
    heading,
    /// 1 for a list item.
    list_item,
    /// 1 for a table cell.
    table_cell,
    /// 1 for text in a form.
    form,
    /// 1 for preformatted text.
    preformatted,
    /// 1 when the text ends like a sentence (`.`, `!`, `?`, `:`, maybe closing quotes).
    ends_like_sentence,
    /// ln(1 + sentences).
    ln_sentences,
    /// Mean log2 probability per prediction under the general language model (of the block's
    /// first sentences: `evidence::EVIDENCE_PREDICTIONS`).
    general_log2_prob,
    /// Mean log2 probability per prediction under the boilerplate model.
    boilerplate_log2_prob,
    /// `general_log2_prob − boilerplate_log2_prob`.
    log_likelihood_ratio,
    /// ln(1 + the block's position in its document).
    ln_position,
    /// 1 when the same text came earlier in the document (document order).
    repeated,
    /// Share of the words made of punctuation alone (`|`, `»`: menu separators).
    separator_share,
    /// 1 inside an element named or marked like navigation.
    in_navigation,
    /// 1 inside page periphery (footer, sidebar, widgets, sharing).
    in_periphery,
    /// 1 inside an element named or marked like main content.
    in_content,
    /// 1 inside an element named like a comment thread.
    in_comments,
    /// ln(1 + words of prose blocks before this one; document order).
    ln_prose_words_so_far,
    /// ln(1 + blocks since the last prose block; document order).
    ln_blocks_since_prose,
    /// 1 for a block, 0 for the padding beyond a document's edge.
    present,
    /// Share of the characters that are letters of any script.
    letter_share,
    // Only the whole document shows these (`evidence::document::annotate`).
    /// ln(1 + bytes of prose in the document).
    ln_document_prose,
    /// Share of the document's prose in its main container.
    main_share,
    /// 1 inside the main container.
    in_main,
    /// 1 beside the main container (inside its parent, not in it).
    beside_main,
    /// ln(1 + blocks between this one and the main run, before it).
    ln_blocks_before_main,
    /// ln(1 + blocks between the main run and this one, after it).
    ln_blocks_after_main,
    /// Share of the document's prose under the block's own container.
    container_prose_share,
    /// Largest share of the document's prose under one of the block's innermost containers.
    cluster_prose_share,
    /// Share of link text under the block's own container.
    container_link_density,
    /// ln(1 + blocks under the block's own container).
    ln_container_blocks,
    /// Position in the document, from 0 (first block) to 1 (last).
    relative_position,
    /// `general_log2_prob` minus the document's word-weighted mean.
    general_vs_document,
    /// `log_likelihood_ratio` minus the document's word-weighted mean.
    log_likelihood_ratio_vs_document,
    /// `stopword_share` minus the document's word-weighted mean.
    stopword_share_vs_document,
    /// ln(1 + bytes of prose in the main run itself).
    ln_main_prose,
    /// Share of the document's prose in readers' comments.
    comment_share,
    /// ln(1 + elements that hold text beside the block's innermost one, under the same parent,
    /// itself included): cards of a grid, items of a list, posts of a thread.
    ln_siblings,
    /// The most [`Evidence::ln_siblings`] among the block's three innermost elements (a card's
    /// heading sits a level or two below the repeated record).
    ln_record_siblings,
    /// Share of the document's text in blocks of repeated records (four or more siblings):
    /// high on listings, collections and threads.
    record_share,
    /// 1 on a page declared an article ([`crate::block::PageKind`]), else 0.
    kind_article,
    /// 1 on a forum thread or Q&A page.
    kind_forum,
    /// 1 on a product page.
    kind_product,
    /// 1 on a collection of products.
    kind_collection,
    /// 1 on a listing.
    kind_listing,
    /// 1 on documentation.
    kind_documentation,
    /// 1 on a service page (a site's home page, what it offers).
    kind_service,
    /// Share of the words that are stopwords of another language than English (the most
    /// frequent words of 98 languages: [`crate::stopwords::Stopwords::foreign`]).
    foreign_stopword_share,
    /// 1 inside an element hidden until the reader opens it
    /// ([`crate::block::ContainerHints::COLLAPSED`]).
    in_collapsed,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_follow_the_declaration() {
        assert_eq!(EVIDENCE_VALUES, 56);
        let evidence = Evidence {
            ln_words: 1.0,
            in_collapsed: 2.0,
            ..Evidence::default()
        };
        let values = evidence.values();
        assert_eq!(Evidence::NAMES[0], "ln_words");
        assert_eq!(values[0], 1.0);
        assert_eq!(Evidence::NAMES[EVIDENCE_VALUES - 1], "in_collapsed");
        assert_eq!(values[EVIDENCE_VALUES - 1], 2.0);
        let mut names = Evidence::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EVIDENCE_VALUES, "every name once");
    }
}
