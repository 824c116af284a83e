//! The decision in document order ([`Decider`]): the perplexity method decides each block as
//! it comes; the combined method holds a document, or a piece of a long one, bounded by
//! `max_document_bytes`, and decides it whole.

use super::classifier::{Classifier, PageView};
use super::{Choices, DecideSettings, Policy};
use crate::block::{Block, ContainerHints, PageInfo, PageKind};
use crate::evidence::{Analysis, DocumentContext};

/// What a block costs the decider's buffer besides its text: the block, its sentences and its
/// evidence (counted against `max_document_bytes`).
pub const BLOCK_OVERHEAD_BYTES: usize = 512;

/// Default bound on a document held whole for the combined method's decision (text plus
/// [`BLOCK_OVERHEAD_BYTES`] a block): far above nearly every real page.
pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 4 << 20;

/// Makes the keep/drop decision for one document's blocks, in order.
///
/// [`Decider::push`] takes blocks as they come (segmented and scored) and hands back, through
/// `decided`, every block whose decision is final; [`Decider::finish`] decides the rest at the
/// document's end. The perplexity method decides each block at once. The combined method holds
/// the whole document, up to `max_document_bytes` ([`BLOCK_OVERHEAD_BYTES`] a block plus its
/// text), then decides it at once: document evidence (`crate::evidence::annotate`), the
/// classifier over each block and its neighbours, an exact Viterbi pass over the labels, and
/// the rules after the labels (`rules.rs`, an article left empty rescued first). A longer document is
/// decided in pieces of that size, each as if it were a document (what came before still
/// counts as text seen earlier).
pub struct Decider<'a> {
    policy: Policy,
    classifier: Option<&'a Classifier>,
    choices: Choices,
    /// What the blocks so far say about the next one.
    document: DocumentContext,
    /// The blocks of the document, or of its current piece, not decided yet.
    held: Vec<Block>,
    held_bytes: usize,
    /// A piece of the document was decided before the blocks held: they are not all of it.
    in_pieces: bool,
}

impl<'a> Decider<'a> {
    /// A decider for one document.
    pub fn new(settings: &'a DecideSettings) -> Decider<'a> {
        Decider {
            policy: settings.policy,
            classifier: settings.method.classifier(),
            choices: settings.choices,
            document: DocumentContext::default(),
            held: Vec::new(),
            held_bytes: 0,
            in_pieces: false,
        }
    }

    /// Takes the next block of the document.
    pub fn push(&mut self, mut block: Block, decided: &mut dyn FnMut(Block)) {
        let Some(classifier) = self.classifier else {
            self.policy.decide(&mut block);
            keep_title(&mut block);
            return decided(block);
        };
        self.document.observe(&mut block);
        debug_assert_eq!(
            block.evidence.present, 1.0,
            "blocks reach the decider measured"
        );
        self.held_bytes += block.text.len() + BLOCK_OVERHEAD_BYTES;
        self.held.push(block);
        if self.held_bytes > self.choices.max_document_bytes {
            self.decide_held(classifier, None, decided);
            self.in_pieces = true;
        }
    }

    /// Decides every block still held back, as the kind of page `page` is (the one chosen with
    /// `--kind`, else the one it declares, else the one the classifier's page-kind model tells
    /// from the whole page: `crate::evidence::tell_kind`), and returns that kind; the decider
    /// is then ready for a new document. The pieces of a document too long to be held whole
    /// were decided before its kind was known, as a page of no known kind. The perplexity
    /// method holds no blocks: its pages are of the kind they declare.
    pub fn finish(&mut self, page: Option<&PageInfo>, decided: &mut dyn FnMut(Block)) -> PageKind {
        let kind = match self.classifier {
            Some(classifier) => self.decide_held(classifier, page, decided),
            None => self.declared(page),
        };
        self.document.clear();
        self.in_pieces = false;
        kind
    }

    /// The kind chosen with `--kind`, else the one `page` declares ([`PageKind::Other`] for a
    /// piece of a long document, decided before its end is read).
    fn declared(&self, page: Option<&PageInfo>) -> PageKind {
        self.choices
            .kind
            .unwrap_or_else(|| page.map_or(PageKind::Other, crate::evidence::page_kind))
    }

    /// Decides the held blocks as one document, the page `page` (`None` before its end is
    /// read: a piece of a long document, of no known kind), and returns the kind it was
    /// decided as.
    fn decide_held(
        &mut self,
        classifier: &Classifier,
        page: Option<&PageInfo>,
        decided: &mut dyn FnMut(Block),
    ) -> PageKind {
        let mut blocks = std::mem::take(&mut self.held);
        self.held_bytes = 0;
        let analysis = Analysis::of(&blocks);
        let declared = self.declared(page);
        let kind = match (self.choices.kind, page) {
            (None, Some(page)) => crate::evidence::tell_kind(
                declared,
                &blocks,
                page,
                &analysis,
                classifier.page_kinds(),
            ),
            _ => declared,
        };
        let choices = self.choices.for_page(kind, page);
        let view = PageView {
            analysis: &analysis,
            kind,
            titles: page.map_or([None; 3], PageInfo::titles),
        };
        let mut keep = classifier.decide(&mut blocks, &view, &choices);
        super::units::tables_whole(&mut blocks, &mut keep);
        super::units::code_beside_text(&blocks, &mut keep);
        super::units::lists_whole(&blocks, &mut keep);
        super::units::headings_between_text(&blocks, &mut keep);
        if page.is_some() && !self.in_pieces {
            super::units::small_page_whole(&blocks, &mut keep);
        }
        if choices.drop_tables {
            // The tables of data, told and kept whole above, and their captions, dropped (last:
            // no rule brings them back).
            let data = |b: &Block| b.structure.cell.filter(|c| c.data).map(|c| c.table);
            let tables: Vec<u32> = blocks.iter().filter_map(data).collect();
            for (block, keep) in blocks.iter().zip(&mut keep) {
                let caption = block
                    .structure
                    .caption_of
                    .is_some_and(|t| tables.contains(&t));
                *keep &= data(block).is_none() && !caption;
            }
        }
        // No threshold by default (and then not every sentence is measured: see
        // `Options::every_perplexity`); with one, a NaN perplexity drops its sentence.
        let max_perplexity = self.policy.max_perplexity;
        for (mut block, keep) in blocks.drain(..).zip(keep) {
            for sentence in &mut block.sentences {
                sentence.keep = keep && max_perplexity.is_none_or(|m| sentence.perplexity <= m);
            }
            keep_title(&mut block);
            decided(block);
        }
        // The buffer's memory is kept for the next piece.
        self.held = blocks;
        kind
    }
}

/// The page title is there because it was asked for (`--title`): whatever the method decided,
/// it is kept.
fn keep_title(block: &mut Block) {
    if block.hints.has(ContainerHints::TITLE) {
        for sentence in &mut block.sentences {
            sentence.keep = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::BlockKind;
    use crate::decide::classifier::embedded;
    use crate::decide::file::split_file;
    use crate::decide::Method;
    use std::sync::Arc;

    fn measured_block(index: u32, text: &str, classifier: &Classifier) -> Block {
        let mut b = Block::new(index, BlockKind::Paragraph, text);
        crate::segment::segment(&mut b);
        crate::evidence::measure(
            &mut b,
            crate::lm::model::embedded(),
            &classifier.boilerplate,
            true,
        );
        b
    }

    /// Decides `texts` as one document's blocks; also returns the most blocks held at once.
    fn decide_with(
        classifier: &Arc<Classifier>,
        texts: &[&str],
        max_document_bytes: usize,
    ) -> (Vec<(String, bool)>, usize) {
        let settings = DecideSettings {
            method: Method::Combined(classifier.clone()),
            policy: Policy::default(),
            choices: Choices {
                max_document_bytes,
                ..Choices::default()
            },
        };
        let mut decider = Decider::new(&settings);
        let mut out = Vec::new();
        let mut held_most = 0;
        for (i, text) in texts.iter().enumerate() {
            decider.push(measured_block(i as u32, text, classifier), &mut |b| {
                out.push(b)
            });
            held_most = held_most.max(i + 1 - out.len());
        }
        decider.finish(None, &mut |b| out.push(b));
        (
            out.into_iter()
                .map(|b| (b.text.clone(), b.sentences.iter().any(|s| s.keep)))
                .collect(),
            held_most,
        )
    }

    fn decide_all(classifier: &Arc<Classifier>, texts: &[&str]) -> Vec<(String, bool)> {
        decide_with(classifier, texts, DEFAULT_MAX_DOCUMENT_BYTES).0
    }

    #[test]
    fn a_long_document_is_decided_in_bounded_pieces() {
        let classifier = embedded();
        let texts: Vec<String> = (0..40)
            .map(|i| format!("Paragraph {i} of a long page about the river and the mill."))
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (whole, held_whole) = decide_with(&classifier, &refs, DEFAULT_MAX_DOCUMENT_BYTES);
        assert_eq!(held_whole, refs.len(), "a short document is held whole");
        let piece = 5 * (BLOCK_OVERHEAD_BYTES + texts[0].len());
        let (pieces, held_most) = decide_with(&classifier, &refs, piece);
        assert!(held_most <= 6, "held {held_most} blocks");
        assert_eq!(
            pieces.iter().map(|d| &d.0).collect::<Vec<_>>(),
            whole.iter().map(|d| &d.0).collect::<Vec<_>>()
        );
    }

    #[test]
    fn smoothing_changes_nothing_about_order_or_count() {
        let mut bytes = include_bytes!("../../model/en-classifier.bin").to_vec();
        let (mut weights, model) = split_file(&bytes).unwrap();
        weights.smoothing = 5.0;
        bytes = Classifier::to_bytes(&weights, model).unwrap();
        let classifier = Arc::new(Classifier::from_bytes(&bytes).unwrap());
        let texts: Vec<String> = (0..20)
            .map(|i| format!("Block number {i} of a page about rivers."))
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let decided = decide_all(&classifier, &refs);
        assert_eq!(
            decided.iter().map(|d| d.0.as_str()).collect::<Vec<_>>(),
            refs
        );
        // Strong smoothing between identical-looking blocks: one label for all.
        assert!(decided.iter().all(|d| d.1 == decided[0].1), "{decided:?}");
    }
}
