//! What the page-kind model learns from: each page's [`PageEvidence`] as the decider reads it,
//! and the kind the page declares ([`kind_evidence`]; `scripts/learn-page-kinds.sh` prints them
//! for every page of a set through the `page_evidence` example, and learns the model from them).

use std::sync::Arc;

use crate::block::{PageEvidence, PageKind};
use crate::evidence::{page_evidence, page_kind, Analysis};
use crate::lm::model::LanguageModel;
use crate::pipeline::pages::{decided_blocks, Page};
use crate::pipeline::{read_blocks, Options};

/// The kind `bytes` (one page) declares, and what the whole page shows of its kind. Every page
/// is decided as one of no known kind, so the page-kind model plays no part in its own input.
pub fn kind_evidence(
    name: &str,
    bytes: Arc<[u8]>,
    model: &LanguageModel,
) -> (PageKind, PageEvidence) {
    let mut options = Options::default();
    options.decide.choices.kind = Some(PageKind::Other);
    let info = read_blocks(&bytes, &options).info;
    // The blocks as the decider holds them: measured, observed in order.
    let (blocks, _) = decided_blocks(&Page::new(name, bytes), model, &options);
    let evidence = page_evidence(&blocks, &info, &Analysis::of(&blocks));
    (page_kind(&info), evidence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lm::model::embedded;

    #[test]
    fn a_page_gives_the_kind_it_declares_and_what_it_shows() {
        let news = include_bytes!("../../fixtures/pages/news.html");
        let (declared, plain) = kind_evidence("news.html", Arc::from(&news[..]), embedded());
        // It declares nothing: its kind is told from what it shows alone.
        assert_eq!(declared, PageKind::Other);
        assert_eq!(plain.og_article, 0.0);
        let tagged = String::from_utf8_lossy(news).replace(
            "<meta charset=\"utf-8\">",
            "<meta charset=\"utf-8\"><meta property=\"og:type\" content=\"article\">",
        );
        let (declared, evidence) = kind_evidence("news.html", tagged.as_bytes().into(), embedded());
        assert_eq!(declared, PageKind::Article);
        assert_eq!(evidence.og_article, 1.0);
        // What the page shows does not depend on what it declares.
        assert_eq!(evidence.prose_block_share, plain.prose_block_share);
        assert!(plain.prose_block_share > 0.0);
    }
}
