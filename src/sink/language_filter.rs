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
        let mut text = std::mem::replace(&mut self.text, Spool::new(0));
        let passed = self.held(index, &meta, &mut text, stats);
        self.text = text;
        passed
    }

    /// Tells the language of the text held (by this filter, or by the stage before) and hands
    /// the document on, held as it is, when it is in the language wanted.
    fn held(
        &mut self,
        index: usize,
        meta: &DocumentMeta,
        text: &mut Spool,
        stats: &DocumentStats,
    ) -> io::Result<()> {
        if stats.failure.is_some() {
            return self.inner.held(index, meta, text, stats);
        }
        let told = Told::of_spool(text);
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
        self.inner.held(index, meta, text, &stats)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.inner.finish()
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

    /// A sink that says how each document reached it: whole from a spool, or piece by piece.
    #[derive(Default)]
    struct HowGiven(Vec<String>);

    impl Sink for HowGiven {
        fn begin(&mut self, _: usize, _: &DocumentMeta) -> io::Result<()> {
            self.0.push("pieces".into());
            Ok(())
        }
        fn write(&mut self, _: &[u8]) -> io::Result<()> {
            Ok(())
        }
        fn held(
            &mut self,
            _: usize,
            _: &DocumentMeta,
            text: &mut Spool,
            stats: &DocumentStats,
        ) -> io::Result<()> {
            let told = stats.told.map(|t| t.is(Language::of_name("de").unwrap()));
            self.0
                .push(format!("held {} bytes, told {told:?}", text.held().len()));
            Ok(())
        }
        fn finish(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_document_passed_on_is_the_spool_held_not_a_copy() {
        let text = "Der Hund läuft schnell über die Wiese und bellt laut, weil er sich freut.\n";
        let meta = DocumentMeta::Input {
            source: "0.html".into(),
        };
        let mut filter = LanguageFilter::new(HowGiven::default(), Language::of_name("de").unwrap());
        // Streamed in: the filter's own spool goes on whole.
        filter.begin(0, &meta).unwrap();
        filter.write(text.as_bytes()).unwrap();
        filter.end(&DocumentStats::default()).unwrap();
        // Held by the stage before: that spool goes on.
        let mut spool = Spool::new(SAMPLE_BYTES);
        spool.write(text.as_bytes()).unwrap();
        filter
            .held(1, &meta, &mut spool, &DocumentStats::default())
            .unwrap();
        let said = format!("held {} bytes, told Some(true)", text.len());
        assert_eq!(filter.into_inner().0, [said.clone(), said]);
    }
}
