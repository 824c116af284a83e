//! The ordered end of the pipeline: the decision, rendering and the sink, in document order.

use std::collections::BTreeMap;
use std::io;

use super::{Batch, Options, RunError, Summary};
use crate::block::Block;
use crate::decide::Decider;
use crate::sink::render::Renderer;
use crate::sink::{DocumentStats, Sink};

/// The ordered end of the pipeline: decides, renders and writes each document's blocks,
/// telling the sink where documents begin and end.
pub(super) struct Writer<'a> {
    out: &'a mut dyn Sink,
    decider: Decider<'a>,
    /// Writes the decided blocks.
    renderer: Renderer,
    /// The current document's counts.
    document: DocumentStats,
    /// (sentences, kept) over the run.
    pub(super) totals: (u64, u64),
    bytes: Vec<u8>,
}

impl<'a> Writer<'a> {
    pub(super) fn new(options: &'a Options, out: &'a mut dyn Sink) -> Writer<'a> {
        let decider = Decider::new(&options.decide);
        Writer {
            out,
            decider,
            renderer: Renderer::new(options.render),
            document: DocumentStats::default(),
            totals: (0, 0),
            bytes: Vec::new(),
        }
    }

    /// Decides, renders and writes one scored batch (some blocks may wait for the next).
    pub(super) fn emit(&mut self, scored: Batch) -> io::Result<()> {
        if let Some((index, meta)) = &scored.begins {
            self.out.begin(*index, meta)?;
            self.document = DocumentStats::default();
        }
        let Writer {
            decider,
            renderer,
            document,
            totals,
            bytes,
            ..
        } = self;
        bytes.clear();
        let mut render = |block: Block| {
            let sentences = block.sentences.len() as u64;
            document.sentences += sentences;
            totals.0 += sentences;
            for sentence in block.sentences.iter().filter(|s| s.keep) {
                document.kept += 1;
                totals.1 += 1;
                document.kept_perplexity_sum += f64::from(sentence.perplexity);
            }
            renderer.block(block, bytes);
        };
        for block in scored.blocks {
            decider.push(block, &mut render);
        }
        if scored.ends {
            document.kind = Some(decider.finish(scored.page.as_deref(), &mut render));
            renderer.finish(bytes);
        }
        self.out.write(&self.bytes)?;
        if scored.ends {
            if let Some(page) = scored.page {
                self.document.page = *page;
            }
            self.document.failure = scored.failure;
            self.out.end(&self.document)?;
        }
        Ok(())
    }
}

/// Flushes the output; a closed pipe ends the run quietly, any other write error is returned.
pub(super) fn finish(
    mut summary: Summary,
    write_error: Option<io::Error>,
    out: &mut dyn Sink,
) -> Result<Summary, RunError> {
    let result = match write_error {
        Some(e) => Err(e),
        None => out.finish(),
    };
    match result {
        Ok(()) => Ok(summary),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            summary.output_closed = true;
            Ok(summary)
        }
        Err(e) => Err(RunError::Output(e)),
    }
}

/// The writer thread: receives scored batches in any order and writes them in sequence,
/// giving a token back for each batch written.
pub(super) fn write_in_order(
    done: crossbeam_channel::Receiver<Batch>,
    tokens: crossbeam_channel::Sender<()>,
    mut writer: Writer,
) -> io::Result<(u64, u64)> {
    let mut next = 0u64;
    let mut waiting = BTreeMap::new();
    for scored in done {
        waiting.insert(scored.seq, scored);
        while let Some(scored) = waiting.remove(&next) {
            writer.emit(scored)?;
            next += 1;
            // The reader may have finished and dropped its end: nothing more to hand out then.
            let _ = tokens.try_send(());
        }
    }
    Ok(writer.totals)
}
