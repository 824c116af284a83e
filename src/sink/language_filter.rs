//! `--target-language`: [`LanguageFilter`], the sink that passes on only the documents whose
//! text is in one language ([`Told::is`] tells it), and says what it told to the sink after it.

use std::io;

use crate::sink::language::{Language, Told, SAMPLE_BYTES};
use crate::sink::{DocumentMeta, DocumentStats, Sink};
use crate::source::spool::Spool;

/// A sink that holds each document's output and hands it to `inner` only when its text is in
/// `language` (`--target-language`): a document in another language, or whose language is not
/// told confidently, is left out whole (counted, with its sentences, in
/// [`LanguageFilter::left_out`]). A document that was not cleaned (it could not be read) goes
/// on, so that its record or error is kept.
/// The held text is bounded as a record's is ([`Spool`]: its first bytes in memory, the rest in
/// a temporary file). The language told is handed on ([`DocumentStats::told`]): a record that
/// says it does not tell it again.
pub struct LanguageFilter<S: Sink> {
    inner: S,
    language: Language,
    /// The current document: its index, where it came from, and its output so far.
    current: Option<(usize, DocumentMeta)>,
    text: Spool,
    /// The documents left out, and their sentences and kept sentences.
    left_out: LeftOut,
}

/// What a [`LanguageFilter`] left out: documents, and the sentences they held and kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// Documents left out.
    pub documents: u64,
    /// Their sentences.
    pub sentences: u64,
    /// Their sentences the decision kept (not written after all).
    pub kept: u64,
}

impl<S: Sink> LanguageFilter<S> {
    /// Passes on to `inner` the documents in `language`.
    pub fn new(inner: S, language: Language) -> LanguageFilter<S> {
        LanguageFilter {
            inner,
            language,
            current: None,
            text: Spool::new(SAMPLE_BYTES),
            left_out: LeftOut::default(),
        }
    }

    /// What was left out so far.
    pub fn left_out(&self) -> LeftOut {
        self.left_out
    }

    /// The sink documents are passed on to.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S: Sink> Sink for LanguageFilter<S> {
    fn begin(&mut self, index: usize, meta: &DocumentMeta) -> io::Result<()> {
        self.text.clear();
        self.current = Some((index, meta.clone()));
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.text.write(bytes)
    }

    fn end(&mut self, stats: &DocumentStats) -> io::Result<()> {
        let Some((index, meta)) = self.current.take() else {
            return Ok(());
        };
        if stats.failure.is_some() {
            return self.pass_on(index, &meta, stats);
        }
        let told = Told::of_spool(&self.text);
        if !told.is(self.language) {
            self.left_out.documents += 1;
            self.left_out.sentences += stats.sentences;
            self.left_out.kept += stats.kept;
            return Ok(());
        }
        let stats = DocumentStats {
            told: Some(told),
            ..stats.clone()
        };
        self.pass_on(index, &meta, &stats)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.inner.finish()
    }
}

impl<S: Sink> LanguageFilter<S> {
    /// Hands the document held on to the inner sink.
    fn pass_on(
        &mut self,
        index: usize,
        meta: &DocumentMeta,
        stats: &DocumentStats,
    ) -> io::Result<()> {
        self.inner.begin(index, meta)?;
        let inner = &mut self.inner;
        self.text
            .each_written_chunk(&mut |chunk| inner.write(chunk))?;
        self.inner.end(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::StreamSink;

    #[test]
    fn only_documents_in_the_language_are_passed_on() {
        let texts = [
            "Der Hund läuft schnell über die Wiese und bellt laut, weil er sich freut.\n",
            "The dog runs quickly across the meadow and barks loudly because it is happy.\n",
            "Die Katze schläft den ganzen Tag auf dem warmen Sofa im Wohnzimmer.\n",
            "ok\n",
        ];
        let sink = StreamSink::new(Vec::new(), b"--\n");
        let mut filter = LanguageFilter::new(sink, Language::of_name("de").unwrap());
        for (i, text) in texts.iter().enumerate() {
            let meta = DocumentMeta::Input {
                source: format!("{i}.html"),
            };
            filter.begin(i, &meta).unwrap();
            for piece in text.as_bytes().chunks(7) {
                filter.write(piece).unwrap();
            }
            let stats = DocumentStats {
                sentences: 10 + i as u64,
                kept: i as u64,
                ..DocumentStats::default()
            };
            filter.end(&stats).unwrap();
        }
        filter.finish().unwrap();
        // The English and the untold one, with their sentences.
        let left_out = LeftOut {
            documents: 2,
            sentences: 11 + 13,
            kept: 1 + 3,
        };
        assert_eq!(filter.left_out(), left_out);
        let out = String::from_utf8(filter.into_inner().into_inner()).unwrap();
        assert_eq!(out, format!("{}--\n{}", texts[0], texts[2]));
    }
}
