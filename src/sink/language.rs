//! The language of a document's cleaned text: told by whatlang from its first bytes (the one
//! rule behind the JSON record's `lang` and `--target-language`), named by ISO 639-1 or 639-3
//! code or English name. [`super::language_filter`] passes on only the documents in one
//! language.

use crate::source::spool::Spool;

/// Bytes of a document's text the language is told from (the first ones).
pub const SAMPLE_BYTES: usize = 256 * 1024;

/// A language whatlang can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Language(whatlang::Lang);

/// ISO 639-3 codes (whatlang's) with their ISO 639-1 codes.
const TWO_LETTER: [(&str, &str); 69] = [
    ("afr", "af"),
    ("aka", "ak"),
    ("amh", "am"),
    ("ara", "ar"),
    ("aze", "az"),
    ("bel", "be"),
    ("ben", "bn"),
    ("bul", "bg"),
    ("cat", "ca"),
    ("ces", "cs"),
    ("cmn", "zh"),
    ("dan", "da"),
    ("deu", "de"),
    ("ell", "el"),
    ("eng", "en"),
    ("epo", "eo"),
    ("est", "et"),
    ("fin", "fi"),
    ("fra", "fr"),
    ("guj", "gu"),
    ("heb", "he"),
    ("hin", "hi"),
    ("hrv", "hr"),
    ("hun", "hu"),
    ("hye", "hy"),
    ("ind", "id"),
    ("ita", "it"),
    ("jav", "jv"),
    ("jpn", "ja"),
    ("kan", "kn"),
    ("kat", "ka"),
    ("khm", "km"),
    ("kor", "ko"),
    ("lat", "la"),
    ("lav", "lv"),
    ("lit", "lt"),
    ("mal", "ml"),
    ("mar", "mr"),
    ("mkd", "mk"),
    ("mya", "my"),
    ("nep", "ne"),
    ("nld", "nl"),
    ("nob", "no"),
    ("ori", "or"),
    ("pan", "pa"),
    ("pes", "fa"),
    ("pol", "pl"),
    ("por", "pt"),
    ("ron", "ro"),
    ("rus", "ru"),
    ("sin", "si"),
    ("slk", "sk"),
    ("slv", "sl"),
    ("sna", "sn"),
    ("spa", "es"),
    ("srp", "sr"),
    ("swe", "sv"),
    ("tam", "ta"),
    ("tel", "te"),
    ("tgl", "tl"),
    ("tha", "th"),
    ("tuk", "tk"),
    ("tur", "tr"),
    ("ukr", "uk"),
    ("urd", "ur"),
    ("uzb", "uz"),
    ("vie", "vi"),
    ("yid", "yi"),
    ("zul", "zu"),
];

impl Language {
    /// The language named `name`: an ISO 639-1 code (`de`), an ISO 639-3 code (`deu`), or its
    /// English name (`German`), in any case; also `nn`/`no` and `fas`/`zho` for the closest
    /// language told, and the names people use for those (`Norwegian`, `Chinese`, `Farsi`).
    pub fn of_name(name: &str) -> Option<Language> {
        let name = name.trim().to_lowercase();
        let code = match name.as_str() {
            "no" | "nb" | "nn" | "nor" | "nno" | "norwegian" | "bokmål" | "nynorsk" => "nob",
            "fas" | "farsi" => "pes",
            "zho" | "chinese" => "cmn",
            two if two.len() == 2 => TWO_LETTER.iter().find(|(_, t)| *t == two)?.0,
            other => other,
        };
        whatlang::Lang::from_code(code)
            .or_else(|| {
                whatlang::Lang::all()
                    .iter()
                    .copied()
                    .find(|lang| lang.eng_name().eq_ignore_ascii_case(&name))
            })
            .map(Language)
    }

    /// The ISO 639-3 code (`deu`), as the JSON record's `lang` writes it.
    pub fn code(self) -> &'static str {
        self.0.code()
    }

    /// The ISO 639-1 code (`de`).
    pub fn two_letter_code(self) -> &'static str {
        TWO_LETTER
            .iter()
            .find(|(three, _)| *three == self.0.code())
            .map_or(self.0.code(), |(_, two)| two)
    }
}

/// What whatlang made of a document's text, told once per document: the one value behind the
/// JSON record's `lang` ([`Told::language`]) and `--target-language` ([`Told::is`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Told(Option<Guess>);

/// Whatlang's best guess: the language, whether it is reliable by whatlang's own measure, and
/// its confidence.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Guess {
    lang: whatlang::Lang,
    reliable: bool,
    confidence: f64,
}

impl Told {
    /// What whatlang makes of `text` (its first [`SAMPLE_BYTES`]).
    pub fn of_text(text: &[u8]) -> Told {
        let sample = &text[..text.len().min(SAMPLE_BYTES)];
        Told(
            whatlang::detect(&String::from_utf8_lossy(sample)).map(|info| Guess {
                lang: info.lang(),
                reliable: info.is_reliable(),
                confidence: info.confidence(),
            }),
        )
    }

    /// What whatlang makes of a document's text, held in `text` (what it holds in memory, the
    /// first [`SAMPLE_BYTES`] at least).
    pub fn of_spool(text: &Spool) -> Told {
        let held = text.held();
        Told::of_text(&held[..held.len().min(text.trimmed_len() as usize)])
    }

    /// The language, when whatlang is confident of it (its own "reliable").
    pub fn language(self) -> Option<Language> {
        self.0
            .filter(|guess| guess.reliable)
            .map(|guess| Language(guess.lang))
    }

    /// Whether the text is in `language` as `--target-language` asks: whatlang's best guess is
    /// it, reliably or with a confidence of at least [`TARGET_CONFIDENCE`] (close languages,
    /// Norwegian and Danish, leave whatlang unsure of long Norwegian articles that it guesses
    /// right).
    pub fn is(self, language: Language) -> bool {
        self.0.is_some_and(|guess| {
            guess.lang == language.0 && (guess.reliable || guess.confidence >= TARGET_CONFIDENCE)
        })
    }
}

/// The least confidence with which whatlang's best guess, not reliable by its own measure,
/// is taken by `--target-language` ([`Told::is`]).
pub const TARGET_CONFIDENCE: f64 = 0.5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_language_takes_a_guess_whatlang_is_fairly_sure_of() {
        // Norwegian with a Danish sentence: whatlang guesses Norwegian, with a confidence
        // under its own "reliable".
        let text = "Det var en fin dag i byen, og mange folk var ute for å nyte sola. Barna \
                    lekte i parken mens foreldrene satt på benkene og snakket sammen. \
                    Statsministeren siger, at ændringerne vil gøre det lettere.";
        let mut spool = Spool::new(SAMPLE_BYTES);
        spool.write(text.as_bytes()).unwrap();
        let norwegian = Language::of_name("no").unwrap();
        let told = Told::of_spool(&spool);
        assert_eq!(told.language(), None);
        assert!(told.is(norwegian));
        assert!(!told.is(Language::of_name("da").unwrap()));
        assert_eq!(norwegian.two_letter_code(), "no");
    }

    #[test]
    fn languages_are_named_by_either_code_or_english_name() {
        let german = Language::of_name("de").unwrap();
        for name in ["DE", "deu", "German", " german "] {
            assert_eq!(Language::of_name(name), Some(german), "{name}");
        }
        assert_eq!(german.code(), "deu");
        assert_eq!(german.two_letter_code(), "de");
        assert_eq!(Language::of_name("zh").unwrap().code(), "cmn");
        for (name, code) in [("Chinese", "cmn"), ("Norwegian", "nob"), ("Farsi", "pes")] {
            assert_eq!(
                Language::of_name(name).map(Language::code),
                Some(code),
                "{name}"
            );
        }
        for bad in ["", "xx", "klingon", "d"] {
            assert_eq!(Language::of_name(bad), None, "{bad}");
        }
        // Every language told has its two-letter code.
        for &lang in whatlang::Lang::all() {
            assert_eq!(
                Language::of_name(Language(lang).two_letter_code()),
                Some(Language(lang))
            );
        }
    }
}
