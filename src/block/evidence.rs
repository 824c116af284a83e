//! What the combined method knows of a block: [`Evidence`], one named value per fact.
//!
//! The evidence stage ([`crate::evidence`]) fills it: the block's own values on the workers,
//! the values that need the blocks before it in document order, and those only the whole
//! document shows when the decider holds it. The classifier reads the values as one array in
//! the order they are declared here ([`Evidence::values`]); [`Evidence::NAMES`] names them for
//! the classifier file and `ppl-filter learn`. Adding, removing or reordering a value changes
//! what a classifier means, so a classifier file records the names it was learned on.

/// Declares a struct of named `f32` values from one list of documented names: the struct, its
/// names in order and the array a classifier reads, so the three can never disagree. Used for
/// [`Evidence`] (a block's) and [`PageEvidence`] (a page's).
macro_rules! named_values {
    ($(#[doc = $sdoc:literal])+ $struct:ident, $count:ident;
     $( $(#[doc = $doc:literal])+ $name:ident, )+) => {
        $(#[doc = $sdoc])+
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct $struct {
            $( $(#[doc = $doc])+ pub $name: f32, )+
        }

        impl $struct {
            /// The names of the values, in the classifier's order.
            pub const NAMES: [&'static str; $count] = [$(stringify!($name)),+];

            /// The values in the order of the names.
            pub fn values(&self) -> [f32; $count] {
                [$(self.$name),+]
            }
        }

        #[doc = concat!("How many values [`", stringify!($struct), "`] holds.")]
        pub const $count: usize = [$(stringify!($name)),+].len();
    };
}

named_values! {
    /// The evidence about one block, every value an `f32` (all zeros for the padding beyond a
    /// document's edge).
    Evidence, EVIDENCE_VALUES;
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
    /// 1 on an article ([`crate::block::PageKind`]), else 0. Learned from the kind each
    /// training page declares; read, when deciding, from the kind told (`--kind`, else what
    /// the page declares unless the page-kind model overrules it, else the model's).
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
    /// frequent words of 98 languages: `crate::stopwords::Stopwords::foreign`).
    foreign_stopword_share,
    /// 1 inside an element hidden until the reader opens it
    /// (`crate::block::ContainerHints::COLLAPSED`).
    in_collapsed,
}

named_values! {
    /// What a whole page shows of its kind ([`crate::block::PageKind`]), every value an `f32`:
    /// the shape of its text, its repeated records, its prices, what it declares and its URL.
    /// Filled by `evidence::page_evidence` once the page's blocks are held; the page-kind
    /// model reads the values in this order.
    PageEvidence, PAGE_EVIDENCE_VALUES;
    // The page's text.
    /// ln(1 + blocks).
    ln_blocks,
    /// ln(1 + bytes of text).
    ln_text_bytes,
    /// ln(1 + bytes of prose: text outside links, in blocks mostly outside links).
    ln_prose_bytes,
    /// Share of the text's bytes inside links.
    link_density,
    /// Share of the blocks that are headings.
    heading_share,
    /// ln(1 + headings).
    ln_headings,
    /// Share of the blocks that are teasers: four words or more, nearly all inside links.
    teaser_share,
    /// ln(1 + teasers).
    ln_teasers,
    /// Share of the headings nearly all inside links (a card's or a teaser's title).
    linked_heading_share,
    /// ln(1 + headings nearly all inside links).
    ln_linked_headings,
    /// ln(1 + `<article>` elements holding text: one per story or card).
    ln_stories,
    /// ln(1 + bytes of prose of the block that holds the most).
    ln_longest_prose,
    /// Share of the text in list items nearly all inside links (menus, link lists).
    link_list_share,
    /// Share of the text in list items.
    list_item_share,
    /// Share of the text in table cells.
    table_cell_share,
    /// Share of the text in forms.
    form_share,
    /// Share of the text that is preformatted (code).
    preformatted_share,
    /// Share of the blocks that are prose.
    prose_block_share,
    /// Share of the blocks of three words or fewer.
    short_block_share,
    /// Share of the blocks that hold a price (a currency sign or code beside a number).
    price_share,
    /// ln(1 + blocks that hold a price).
    ln_prices,
    /// Share of the blocks whose text came earlier in the page.
    repeated_share,
    /// Share of the text under elements named or marked like navigation.
    navigation_share,
    /// Share of the text in the page's periphery (footer, sidebar, widgets).
    periphery_share,
    /// Share of the text under elements named like main content.
    content_share,
    /// Share of the text hidden until opened.
    collapsed_share,
    // Its structure.
    /// Share of the prose in the main container.
    main_share,
    /// ln(1 + bytes of prose in the main run).
    ln_main_prose,
    /// Share of the prose in readers' comments.
    comment_share,
    /// Share of the text in repeated records (four or more siblings).
    record_share,
    /// ln(1 + the most elements holding text under one parent).
    ln_most_siblings,
    // What it declares.
    /// 1 when schema.org article types are declared.
    schema_article,
    /// 1 for schema.org `TechArticle`.
    schema_tech_article,
    /// 1 for a forum's schema.org types.
    schema_forum,
    /// 1 for posts marked up as schema.org `Comment`.
    schema_comment,
    /// 1 for a schema.org `Product`.
    schema_product,
    /// 1 for a schema.org `Offer`.
    schema_offer,
    /// 1 for a schema.org list type.
    schema_list,
    /// 1 for Open Graph type `article`.
    og_article,
    /// 1 for Open Graph type `website`.
    og_website,
    /// 1 for Open Graph types `product` and `product.group`.
    og_product,
    /// 1 for another Open Graph type.
    og_other,
    // Its URL (canonical or Open Graph).
    /// 1 when the page names its URL.
    has_url,
    /// 1 for a site's home page (no path).
    url_home,
    /// ln(1 + path segments).
    ln_path_segments,
    /// ln(1 + words of the last path segment, split at `-` and `_`: an article's slug).
    ln_slug_words,
    /// 1 when a path segment is a year (19xx, 20xx) or a number of four digits or more.
    url_number,
    /// 1 when the URL has a query.
    url_query,
    /// 1 for a forum's URL (the rules of `evidence::page_kind`).
    url_forum,
    /// 1 for documentation's URL.
    url_documentation,
    /// 1 for a shop's collection's URL.
    url_collection,
    /// 1 when a path segment names products (`product`, `products`, `p`, `item`, `dp`).
    url_product_word,
    /// 1 when a path segment names a listing (`tag`, `tags`, `category`, `search`, `archive`,
    /// `page`, `events`, `jobs`, `list`).
    url_listing_word,
    /// 1 when a path segment names an article (`blog`, `news`, `article`, `articles`, `post`,
    /// `posts`, `story`, a year).
    url_article_word,
    /// 1 when a path segment names a service page (`services`, `service`, `pricing`,
    /// `features`, `solutions`, `about`, `contact`, `plans`).
    url_service_word,
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
