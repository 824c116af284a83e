//! What is written for a scored block: the kept sentences (default), every sentence with the
//! dropped ones marked (`--mark`), or a perplexity per sentence (`--scores`); optionally with
//! CleanEval's `<p>`/`<h>`/`<l>` block markers.

use std::io::Write;

use crate::block::Block;

/// Which text is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OutputMode {
    /// Kept sentences only, one block per line.
    #[default]
    Clean,
    /// Every sentence; dropped ones wrapped as `<ppl score="…">…</ppl>`.
    Mark,
    /// `perplexity<TAB>sentence` for every sentence.
    Scores,
}

/// How blocks are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// One block per line.
    #[default]
    Plain,
    /// One block per line, prefixed with `<p>`, `<h>` or `<l>` as in CleanEval gold.
    CleanEval,
}

/// Appends the rendering of `block` to `out`.
pub fn render_block(block: &Block, mode: OutputMode, format: OutputFormat, out: &mut Vec<u8>) {
    if mode == OutputMode::Scores {
        for sentence in &block.sentences {
            let _ = writeln!(
                out,
                "{:.1}\t{}",
                sentence.perplexity,
                block.sentence_text(sentence)
            );
        }
        return;
    }
    let mut wrote_any = false;
    for sentence in &block.sentences {
        if !sentence.keep && mode == OutputMode::Clean {
            continue;
        }
        if wrote_any {
            out.push(b' ');
        } else if format == OutputFormat::CleanEval {
            out.extend_from_slice(block.kind.cleaneval_marker().as_bytes());
            out.push(b' ');
        }
        wrote_any = true;
        let text = block.sentence_text(sentence);
        if sentence.keep {
            out.extend_from_slice(text.as_bytes());
        } else {
            let _ = write!(
                out,
                "<ppl score=\"{:.1}\">{}</ppl>",
                sentence.perplexity, text
            );
        }
    }
    if wrote_any {
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::{BlockKind, Sentence};

    fn block() -> Block {
        let mut b = Block::new(0, BlockKind::Heading, "Good one. Bad one.");
        b.sentences = vec![
            Sentence {
                perplexity: 10.0,
                keep: true,
                ..Sentence::new(0..9)
            },
            Sentence {
                perplexity: 9000.0,
                keep: false,
                ..Sentence::new(10..18)
            },
        ];
        b
    }

    fn render(mode: OutputMode, format: OutputFormat) -> String {
        let mut out = Vec::new();
        render_block(&block(), mode, format, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn modes_and_formats() {
        assert_eq!(
            render(OutputMode::Clean, OutputFormat::Plain),
            "Good one.\n"
        );
        assert_eq!(
            render(OutputMode::Clean, OutputFormat::CleanEval),
            "<h> Good one.\n"
        );
        assert_eq!(
            render(OutputMode::Mark, OutputFormat::Plain),
            "Good one. <ppl score=\"9000.0\">Bad one.</ppl>\n"
        );
        assert_eq!(
            render(OutputMode::Scores, OutputFormat::Plain),
            "10.0\tGood one.\n9000.0\tBad one.\n"
        );
    }

    #[test]
    fn a_block_with_nothing_kept_writes_nothing() {
        let mut b = block();
        b.sentences[0].keep = false;
        let mut out = Vec::new();
        render_block(&b, OutputMode::Clean, OutputFormat::CleanEval, &mut out);
        assert!(out.is_empty());
    }
}
