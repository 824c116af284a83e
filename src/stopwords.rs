//! Stopword lists: the text statistic that both the evidence stage and the jusText-style
//! baseline of `ppl-eval` count. [`Stopwords::english`] is the project's own list
//! (`src/stopwords_en.txt`, made by `scripts/make-stopwords.sh`); [`Stopwords::foreign`] holds
//! the most frequent words of 98 other languages, from jusText's stoplists
//! (`src/stopwords_foreign.txt`, made by `scripts/make-stopwords-foreign.sh`, BSD 2-Clause).

use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::ops::Range;
use std::sync::OnceLock;

/// A stopword list: lower-cased whitespace tokens.
///
/// Words of up to 15 bytes (all of the English list) are packed with their length into a
/// `u128` and found with one multiply-and-probe: the look-up is on the combined method's hot path.
#[derive(Clone, Debug, Default)]
pub struct Stopwords {
    short: HashSet<u128, BuildHasherDefault<PackedHasher>>,
    /// One bit per [`FILTER_BITS`] slot of a packed word's hash, set for every short word: a
    /// look-up whose bit is clear ends there, in a table small enough for the CPU's first cache
    /// (most words of a page are in no list, and the foreign list's table is not that small).
    filter: Vec<u64>,
    long: HashSet<Box<str>>,
}

/// How many slots [`Stopwords`]' filter has (a power of two): 8 KiB of bits, about a tenth of
/// them set by the 6,600 words of the largest list.
const FILTER_BITS: usize = 1 << 16;

/// The hash of a packed word: its halves folded, then multiplied (Fibonacci hashing). The
/// table's hasher ([`PackedHasher`]) and the filter ([`filter_slot`]) both use it.
fn hash_packed(key: u128) -> u64 {
    ((key as u64) ^ ((key >> 64) as u64).rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The filter slot of a packed word: the top bits of its hash.
fn filter_slot(key: u128) -> usize {
    (hash_packed(key) >> 48) as usize
}

/// A word of up to 15 bytes and its length, as one integer.
fn pack(word: &str) -> Option<u128> {
    pack_mapped(word, |b| b)
}

/// [`pack`] of the ASCII lower-case form of the ASCII word `word`.
fn pack_lowercase_ascii(word: &str) -> Option<u128> {
    pack_mapped(word, |b| b.to_ascii_lowercase())
}

/// The eight bytes of `bytes` (ASCII or 0), their upper-case letters made lower-case: a byte is
/// one of `A`..=`Z` when adding 0x3f sets its top bit and adding 0x25 does not (no byte is above
/// 0x7f, so no sum carries into the next byte); such a byte gets 0x20 added.
fn ascii_lowercase_bytes(bytes: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let at_least_a = bytes + 0x3f * ONES;
    let above_z = bytes + 0x25 * ONES;
    let upper = at_least_a & !above_z & (0x80 * ONES);
    bytes | (upper >> 2)
}

/// The bytes of `word`, each mapped by `map`, and its length (in the top byte) as one integer,
/// if it has at most 15 bytes. Built in a register: byte stores read back as one integer
/// would stall the CPU (store forwarding fails).
fn pack_mapped(word: &str, map: impl Fn(u8) -> u8) -> Option<u128> {
    let bytes = word.as_bytes();
    if bytes.len() >= 16 {
        return None;
    }
    let mut key = (bytes.len() as u128) << 120;
    for (i, &b) in bytes.iter().enumerate() {
        key |= u128::from(map(b)) << (8 * i);
    }
    Some(key)
}

/// Hashes a packed word by folding and multiplying (Fibonacci hashing).
/// An ASCII word of a text as the lists look it up, made once for any number of lists.
pub(crate) enum PackedWord<'a> {
    /// Shorter than 16 bytes: packed and lower-cased.
    Short(u128),
    /// The word itself.
    Long(&'a str),
}

/// The ASCII word `text[word]` packed for [`Stopwords::contains_packed`]: a word shorter than 16
/// bytes is packed from one 16-byte load (of the word alone, padded, near the end of `text`),
/// masked to its length and lower-cased eight bytes at a time.
#[inline]
pub(crate) fn pack_ascii_word(text: &str, word: Range<usize>) -> PackedWord<'_> {
    let len = word.len();
    if len >= 16 {
        return PackedWord::Long(&text[word]);
    }
    let bytes = match text.as_bytes().get(word.start..word.start + 16) {
        Some(sixteen) => u128::from_le_bytes(sixteen.try_into().expect("16 bytes")),
        // Near the end of the text: the word alone, padded.
        None => {
            let mut padded = [0u8; 16];
            padded[..len].copy_from_slice(&text.as_bytes()[word]);
            u128::from_le_bytes(padded)
        }
    };
    let masked = bytes & ((1u128 << (8 * len)) - 1);
    PackedWord::Short(
        u128::from(ascii_lowercase_bytes(masked as u64))
            | u128::from(ascii_lowercase_bytes((masked >> 64) as u64)) << 64
            | (len as u128) << 120,
    )
}

#[derive(Default)]
struct PackedHasher(u64);

impl std::hash::Hasher for PackedHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = hash_packed(v);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl Stopwords {
    /// The project's English list (`src/stopwords_en.txt`), parsed once.
    pub fn english() -> &'static Stopwords {
        static ENGLISH: OnceLock<Stopwords> = OnceLock::new();
        ENGLISH.get_or_init(|| Stopwords::from_list(include_str!("stopwords_en.txt")))
    }

    /// The most frequent words of 98 languages other than English (`src/stopwords_foreign.txt`:
    /// the first 100 of each of jusText's stoplists, without the English list's words), parsed
    /// once: evidence of prose in any of them.
    pub fn foreign() -> &'static Stopwords {
        static FOREIGN: OnceLock<Stopwords> = OnceLock::new();
        FOREIGN.get_or_init(|| Stopwords::from_list(include_str!("stopwords_foreign.txt")))
    }

    /// A list from text with one word a line; blank lines and lines starting with `#` are
    /// skipped, words are lower-cased.
    pub fn from_list(list: &str) -> Stopwords {
        let mut stopwords = Stopwords {
            filter: vec![0; FILTER_BITS / 64],
            ..Stopwords::default()
        };
        for word in list
            .lines()
            .map(str::trim)
            .filter(|w| !w.is_empty() && !w.starts_with('#'))
        {
            let word = word.to_lowercase();
            match pack(&word) {
                Some(key) => {
                    let slot = filter_slot(key);
                    stopwords.filter[slot / 64] |= 1 << (slot % 64);
                    stopwords.short.insert(key)
                }
                None => stopwords.long.insert(word.into_boxed_str()),
            };
        }
        stopwords
    }

    /// Whether `lowercased_word` is a stopword (the caller lower-cases).
    pub fn contains(&self, lowercased_word: &str) -> bool {
        match pack(lowercased_word) {
            Some(key) => self.contains_short(key),
            None => self.long.contains(lowercased_word),
        }
    }

    /// Whether the packed word `key` is in the list: its filter bit first.
    #[inline]
    fn contains_short(&self, key: u128) -> bool {
        let slot = filter_slot(key);
        self.filter
            .get(slot / 64)
            .is_some_and(|bits| bits & (1 << (slot % 64)) != 0)
            && self.short.contains(&key)
    }

    /// How many words the list holds.
    pub fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `(stopwords, words)` of `text`, counting whitespace-separated tokens as jusText does
    /// (punctuation stays attached; tokens are lower-cased before the look-up).
    pub fn count(&self, text: &str) -> (usize, usize) {
        let mut lower = String::new();
        let (mut stop, mut words) = (0, 0);
        for word in text.split_whitespace() {
            words += 1;
            stop += usize::from(self.contains_word(word, &mut lower));
        }
        (stop, words)
    }

    /// Whether the ASCII word packed by [`pack_ascii_word`] is a stopword once lower-cased: the
    /// same as [`Stopwords::contains_word`] of the word, faster.
    #[inline]
    pub(crate) fn contains_packed(&self, word: &PackedWord, scratch: &mut String) -> bool {
        match *word {
            PackedWord::Short(key) => self.contains_short(key),
            PackedWord::Long(word) => self.contains_word(word, scratch),
        }
    }

    /// Whether the whitespace token `word` is a stopword once lower-cased (`scratch` holds the
    /// lower-cased copy when one is needed).
    pub fn contains_word(&self, word: &str, scratch: &mut String) -> bool {
        if let Some(key) = word
            .is_ascii()
            .then(|| pack_lowercase_ascii(word))
            .flatten()
        {
            return self.contains_short(key);
        }
        scratch.clear();
        scratch.extend(word.chars().flat_map(char::to_lowercase));
        self.contains(scratch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_stopwords_are_found_exactly() {
        let list = Stopwords::from_list("# comment\nThe\na\nfifteen-letters\nsixteen-letters!\n");
        assert_eq!(list.len(), 4);
        for word in ["the", "a", "fifteen-letters", "sixteen-letters!"] {
            assert!(list.contains(word), "{word}");
        }
        for word in ["The", "a\0", "", "th", "fifteen-letter", "sixteen-letters"] {
            assert!(!list.contains(word), "{word:?}");
        }
    }

    #[test]
    fn an_ascii_word_in_its_text_is_found_as_alone() {
        // Bytes next to the letter ranges (@ [ ` {) must not be lower-cased.
        let list = Stopwords::from_list("the\nof\n@[`{\nzaz\nfifteen-letters\nsixteen-letters!\n");
        let words = [
            "the",
            "The",
            "THE",
            "tHe",
            "of",
            "OF",
            "@[`{",
            "`@{[",
            "ZAZ",
            "Zaz",
            "zaz",
            "zaz0",
            "fifteen-letters",
            "FIFTEEN-LETTERS",
            "sixteen-letters!",
            "SIXTEEN-LETTERS!",
            "a",
            "x86-64",
            "~!#$%^&*()_+=|\\",
            "the\x7f",
        ];
        for list in [&list, Stopwords::english()] {
            for word in words {
                let mut scratch = String::new();
                let alone = list.contains_word(word, &mut scratch);
                // The word at the end of its text, and followed by up to 20 bytes.
                for after in 0..=20 {
                    let text = format!("Hello {word} {}", "X".repeat(after));
                    let text = if after == 0 { text.trim_end() } else { &text };
                    let range = 6..6 + word.len();
                    assert_eq!(
                        list.contains_packed(&pack_ascii_word(text, range), &mut scratch),
                        alone,
                        "{word:?} followed by {after}"
                    );
                }
            }
        }
    }

    #[test]
    fn english_list_loads() {
        let sw = Stopwords::english();
        assert!(sw.len() >= 300, "{}", sw.len());
        assert!(sw.contains("the") && sw.contains("of") && !sw.contains("The"));
        assert!(!sw.contains("# english"));
    }

    #[test]
    fn stopword_counting_is_case_insensitive() {
        let sw = Stopwords::from_list("the\nof\n# comment\nÉté\n");
        assert_eq!(sw.count("THE Cat Of tHe été"), (4, 5));
        assert_eq!(sw.count("the, of. the"), (1, 3));
        assert_eq!(sw.count(""), (0, 0));
    }
}
