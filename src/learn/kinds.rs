//! What the page-kind model learns from: each page's [`PageEvidence`] as the decider reads it,
//! and the kind the page declares ([`kind_evidence`]; `scripts/learn-page-kinds.sh` prints them
//! for every page of a set through the `page_evidence` example, and learns the model from them).

use crate::block::{PageEvidence, PageKind};
use crate::evidence::{page_evidence, page_kind, Analysis, DocumentContext};
use crate::pipeline::{read_blocks, Options};

/// The kind `bytes` (one page) declares, and what the whole page shows of its kind: its blocks
/// read as the combined method reads them ([`Options::reading_only`]) and seen in order, as
/// the decider holds them. What a page shows is its text and markup alone, so no classifier
/// and no language model play a part: a build whose classifier holds other evidence can learn
/// its page-kind model, and the page-kind model plays no part in its own input.
pub fn kind_evidence(bytes: &[u8]) -> (PageKind, PageEvidence) {
    let read = read_blocks(bytes, &Options::reading_only());
    let mut blocks = read.blocks;
    let mut document = DocumentContext::default();
    for block in &mut blocks {
        document.observe(block);
    }
    let evidence = page_evidence(&blocks, &read.info, &Analysis::of(&blocks));
    (page_kind(&read.info), evidence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_gives_the_kind_it_declares_and_what_it_shows() {
        let news = include_bytes!("../../fixtures/pages/news.html");
        let (declared, plain) = kind_evidence(news);
        // It declares nothing: its kind is told from what it shows alone.
        assert_eq!(declared, PageKind::Other);
        assert_eq!(plain.og_article, 0.0);
        let tagged = String::from_utf8_lossy(news).replace(
            "<meta charset=\"utf-8\">",
            "<meta charset=\"utf-8\"><meta property=\"og:type\" content=\"article\">",
        );
        let (declared, evidence) = kind_evidence(tagged.as_bytes());
        assert_eq!(declared, PageKind::Article);
        assert_eq!(evidence.og_article, 1.0);
        // What the page shows does not depend on what it declares.
        assert_eq!(evidence.prose_block_share, plain.prose_block_share);
        assert!(plain.prose_block_share > 0.0);
    }
}
