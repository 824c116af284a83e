//! Sentence segmentation: cuts a block's text into [`Sentence`] byte ranges.
//!
//! Rule-based and allocation-free (apart from pushing onto the caller's `Vec`), in the spirit
//! of the classic punctuation-plus-capital heuristics (Grefenstette & Tapanainen 1994; Kiss &
//! Strunk's Punkt uses the same cues, learnt instead of listed). One left-to-right pass over the
//! bytes looks at each terminator (`.`, `!`, `?`, `…`) and decides, from the word before it and
//! the character after the following space, whether a sentence ends there:
//!
//! * a run of terminators (`?!`, `...`, `…`) followed by closing quotes or brackets
//!   (`" ' ) ] } ” ’ »`) ends a sentence when whitespace follows and the next text starts with an
//!   upper-case letter, a digit or an opening quote/bracket (`" ' ( [ { “ ‘ « ¿ ¡`); the closers
//!   stay with the sentence they close;
//! * so nothing splits before lower case ("etc. and", "wait... what"), and nothing splits
//!   inside a token ("3.14", "$1.5", "example.com", "a@b.org", "U.S.");
//! * a lone `.` does not end a sentence after a known abbreviation (listed below:
//!   titles "Dr. Smith", "St.", company "Inc.", "vs.", "et al."), after "No.", "Fig.", "Vol.",
//!   "pp." or a month ("Jan.") when a digit follows ("No. 5", "Sept. 11"), after a single
//!   letter (initials "J. R. R. Tolkien"; so "...did I. Then" stays one sentence), after a
//!   dotted abbreviation whose parts are one or two letters ("U.S. Army", "e.g. Paris",
//!   "Ph.D. Thesis"), or after a number of one to three digits that is the first token of the
//!   sentence (list items "1. First"; "in 1999. The" still splits);
//! * a sentence longer than [`MAX_SENTENCE_BYTES`] is cut (see there).
//!
//! Sentence ranges never include leading or trailing ASCII whitespace and always lie on char
//! boundaries, for any input string. Full-width terminators (`。！？`) are not boundaries: the
//! rules are tuned for English.

use crate::block::{Block, Sentence};

/// The longest sentence, in bytes, that the segmenter emits.
///
/// Text with no sentence boundary for longer than this (tables flattened into one block,
/// unpunctuated lists, minified data) is cut into pieces of at most this many bytes, at the last
/// space in the second half of the window, or at the last char boundary when there is none.
/// This bounds the memory and the scoring cost of one sentence.
pub const MAX_SENTENCE_BYTES: usize = 2000;

/// Abbreviations after which a `.` never ends a sentence (compared ASCII-case-insensitively).
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "mx", "dr", "prof", "rev", "hon", "sr", "jr", "st", "mt", "ste", "gen",
    "col", "maj", "capt", "lt", "sgt", "cpl", "adm", "cmdr", "gov", "sen", "rep", "pres", "supt",
    "messrs", "mme", "mlle", "msgr", "fr", "inc", "ltd", "co", "corp", "bros", "plc", "dept",
    "univ", "assn", "vs", "cf", "al", "ca", "approx", "viz", "esp", "incl",
];

/// Abbreviations after which a `.` does not end a sentence when a digit follows ("No. 5").
const NUMERIC_ABBREVIATIONS: &[&str] = &[
    "no", "nos", "nr", "art", "fig", "figs", "vol", "vols", "pp", "ch", "chap", "sec", "eq", "eqs",
    "op", "ref", "refs", "tab", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
    "oct", "nov", "dec",
];

/// Fills `block.sentences` (cleared first) with the sentences of `block.text`.
pub fn segment(block: &mut Block) {
    block.sentences.clear();
    split_sentences(&block.text, &mut block.sentences);
}

/// Appends to `out` one [`Sentence`] per sentence of `text`, in order.
///
/// `text` is expected whitespace-normalised (single spaces, trimmed), but any string is accepted:
/// the ranges are in order, non-overlapping, on char boundaries, trimmed of ASCII whitespace,
/// at most [`MAX_SENTENCE_BYTES`] long, and together cover every non-whitespace byte.
pub fn split_sentences(text: &str, out: &mut Vec<Sentence>) {
    let bytes = text.as_bytes();
    let len = bytes.len();
    let mut start = skip_ws(bytes, 0);
    let mut i = start;
    // Where the next `…` is at or after `i` (`len` for none), found lazily.
    let ellipsis = memchr::memmem::Finder::new("…");
    let mut next_ellipsis = ellipsis.find(bytes).unwrap_or(len);
    while i < len {
        if next_ellipsis < i {
            next_ellipsis = ellipsis.find(&bytes[i..]).map_or(len, |p| i + p);
        }
        let t = match memchr::memchr3(b'.', b'!', b'?', &bytes[i..]) {
            Some(p) => (i + p).min(next_ellipsis),
            None if next_ellipsis < len => next_ellipsis,
            None => break,
        };
        // The run of terminators.
        let mut j = t;
        let mut lone_period = true;
        let mut terms = 0usize;
        loop {
            match bytes.get(j) {
                Some(b'.') => j += 1,
                Some(b'!' | b'?') => {
                    lone_period = false;
                    j += 1
                }
                Some(0xE2) if is_ellipsis(bytes, j) => {
                    lone_period = false;
                    j += 3
                }
                _ => break,
            }
            terms += 1;
        }
        if terms > 1 {
            lone_period = false;
        }
        // Closing quotes and brackets stay with the sentence.
        j += closers_len(&bytes[j..]);
        i = j;
        if j >= len || !bytes[j].is_ascii_whitespace() {
            continue;
        }
        let k = skip_ws(bytes, j);
        if k >= len {
            break;
        }
        // `k` follows ASCII whitespace, so it is a char boundary.
        let next = text[k..].chars().next().unwrap_or(' ');
        if !starts_sentence(next) {
            continue;
        }
        if lone_period && is_abbreviation(text, start, t, next) {
            continue;
        }
        push_bounded(text, start, j, out);
        start = k;
        i = k;
    }
    let end = trim_end(bytes, start, len);
    push_bounded(text, start, end, out);
}

/// Whether `bytes[i..]` starts with U+2026 HORIZONTAL ELLIPSIS.
#[inline]
fn is_ellipsis(bytes: &[u8], i: usize) -> bool {
    bytes.get(i..i + 3) == Some(&[0xE2, 0x80, 0xA6][..])
}

/// Byte length of the run of closing quotes and brackets at the start of `bytes`.
fn closers_len(bytes: &[u8]) -> usize {
    let mut j = 0;
    loop {
        match bytes.get(j..) {
            Some([b'"' | b'\'' | b')' | b']' | b'}', ..]) => j += 1,
            // ” ’
            Some([0xE2, 0x80, 0x9D | 0x99, ..]) => j += 3,
            // »
            Some([0xC2, 0xBB, ..]) => j += 2,
            _ => return j,
        }
    }
}

/// Whether a sentence may start with `c`.
#[inline]
fn starts_sentence(c: char) -> bool {
    c.is_ascii_digit()
        || c.is_uppercase()
        || matches!(
            c,
            '"' | '\'' | '(' | '[' | '{' | '“' | '‘' | '«' | '¿' | '¡'
        )
}

/// Whether the lone `.` at byte `t` ends an abbreviation rather than the sentence begun at
/// `sentence_start`; `next` is the first character after the following whitespace.
fn is_abbreviation(text: &str, sentence_start: usize, t: usize, next: char) -> bool {
    let bytes = text.as_bytes();
    let word_start = bytes[sentence_start..t]
        .iter()
        .rposition(|b| b.is_ascii_whitespace())
        .map_or(sentence_start, |p| sentence_start + p + 1);
    let first_token = word_start == sentence_start;
    let word =
        text[word_start..t].trim_start_matches(['"', '\'', '(', '[', '{', '“', '‘', '«', '¿', '¡']);
    let mut chars = word.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if chars.next().is_none() && first.is_alphabetic() {
        // A single letter: an initial.
        return true;
    }
    if word.contains('.') {
        // "U.S", "e.g", "Ph.D": every dot-separated part is one or two letters.
        return word.split('.').all(|part| {
            let n = part.chars().count();
            (1..=2).contains(&n) && part.chars().all(char::is_alphabetic)
        });
    }
    if word.bytes().all(|b| b.is_ascii_digit()) {
        // A list number at the start of an item: "1. First".
        return first_token && word.len() <= 3;
    }
    if word.len() > 6 {
        return false;
    }
    if ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word)) {
        return true;
    }
    next.is_ascii_digit()
        && NUMERIC_ABBREVIATIONS
            .iter()
            .any(|a| a.eq_ignore_ascii_case(word))
}

/// Pushes `text[start..end]` (already trimmed), cut into pieces of at most
/// [`MAX_SENTENCE_BYTES`].
fn push_bounded(text: &str, mut start: usize, end: usize, out: &mut Vec<Sentence>) {
    let bytes = text.as_bytes();
    while end - start > MAX_SENTENCE_BYTES {
        let mut limit = start + MAX_SENTENCE_BYTES;
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        let half = start + MAX_SENTENCE_BYTES / 2;
        let cut = bytes[half..limit]
            .iter()
            .rposition(|b| b.is_ascii_whitespace())
            .map_or(limit, |p| half + p);
        let piece_end = trim_end(bytes, start, cut);
        if piece_end > start {
            out.push(Sentence::new(start..piece_end));
        }
        start = skip_ws(bytes, cut);
    }
    if end > start {
        out.push(Sentence::new(start..end));
    }
}

/// The first index at or after `i` that is not ASCII whitespace (or `bytes.len()`).
#[inline]
fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// `end` moved back over ASCII whitespace, but not before `start`.
#[inline]
fn trim_end(bytes: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn split(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        split_sentences(text, &mut out);
        out.iter().map(|s| &text[s.range()]).collect()
    }

    #[test]
    fn basic_terminators() {
        assert_eq!(
            split("One two. Three four! Five? Six"),
            ["One two.", "Three four!", "Five?", "Six"]
        );
        assert_eq!(split("Really?! Yes."), ["Really?!", "Yes."]);
        assert_eq!(split("In 1999. 2000 came."), ["In 1999.", "2000 came."]);
        assert_eq!(split("Done. (Later) more."), ["Done.", "(Later) more."]);
        assert_eq!(split("Done. \"Quote\" here."), ["Done.", "\"Quote\" here."]);
    }

    #[test]
    fn no_split_before_lowercase_or_inside_tokens() {
        assert_eq!(
            split("Apples, pears, etc. and more."),
            ["Apples, pears, etc. and more."]
        );
        assert_eq!(split("What? no way."), ["What? no way."]);
        assert_eq!(
            split("Pi is 3.14 and $1.5 million. Next."),
            ["Pi is 3.14 and $1.5 million.", "Next."]
        );
        assert_eq!(
            split("Visit example.com or mail a.b@c.org now."),
            ["Visit example.com or mail a.b@c.org now."]
        );
        assert_eq!(
            split("Go to www.example.com. Then rest."),
            ["Go to www.example.com.", "Then rest."]
        );
    }

    #[test]
    fn closers_stay_with_sentence() {
        assert_eq!(
            split("He said \"Stop.\" Then left."),
            ["He said \"Stop.\"", "Then left."]
        );
        assert_eq!(split("(See above.) The end."), ["(See above.)", "The end."]);
        assert_eq!(split("“Why?” She asked."), ["“Why?”", "She asked."]);
        assert_eq!(
            split("It is ‘done.’ Yes »ok.« No"),
            ["It is ‘done.’", "Yes »ok.« No"]
        );
    }

    #[test]
    fn ellipses() {
        assert_eq!(split("Wait... what now."), ["Wait... what now."]);
        assert_eq!(split("Wait... Then go."), ["Wait...", "Then go."]);
        assert_eq!(
            split("Wait… Then go… slowly."),
            ["Wait…", "Then go… slowly."]
        );
    }

    #[test]
    fn abbreviations() {
        assert_eq!(
            split("Dr. Smith met Mr. Jones. They ate."),
            ["Dr. Smith met Mr. Jones.", "They ate."]
        );
        assert_eq!(
            split("Fruit, e.g. Apples, i.e. Fruit. Yes."),
            ["Fruit, e.g. Apples, i.e. Fruit.", "Yes."]
        );
        assert_eq!(
            split("The U.S. Army won. Then peace."),
            ["The U.S. Army won.", "Then peace."]
        );
        assert_eq!(
            split("Team A vs. Team Bee. Next."),
            ["Team A vs. Team Bee.", "Next."]
        );
        assert_eq!(
            split("See No. 5 and Fig. 3 on Jan. 12. Done."),
            ["See No. 5 and Fig. 3 on Jan. 12.", "Done."]
        );
        assert_eq!(split("I said no. The end."), ["I said no.", "The end."]);
        assert_eq!(
            split("St. Paul and Apple Inc. Are big."),
            ["St. Paul and Apple Inc. Are big."]
        );
        assert_eq!(
            split("Smith et al. (2005) wrote. Yes."),
            ["Smith et al. (2005) wrote.", "Yes."]
        );
        assert_eq!(
            split("Apples etc. Then pears."),
            ["Apples etc.", "Then pears."]
        );
    }

    #[test]
    fn a_paragraph_of_mixed_cues() {
        // Also the splitter of training text: one line of a training corpus.
        assert_eq!(
            split("Dr. Smith met J. R. R. Tolkien. They talked! \"Really?\" Yes. it was 3 p.m. 42 people came.\n"),
            [
                "Dr. Smith met J. R. R. Tolkien.",
                "They talked!",
                "\"Really?\"",
                "Yes. it was 3 p.m. 42 people came."
            ]
        );
    }

    #[test]
    fn initials_and_numbered_items() {
        assert_eq!(
            split("J. R. R. Tolkien wrote it. Fine."),
            ["J. R. R. Tolkien wrote it.", "Fine."]
        );
        assert_eq!(
            split("1. First item. 2. Second item."),
            ["1. First item.", "2. Second item."]
        );
        assert_eq!(split("Chapter 1. The start."), ["Chapter 1.", "The start."]);
    }

    #[test]
    fn unicode_and_whitespace() {
        assert_eq!(split(""), Vec::<&str>::new());
        assert_eq!(split("   "), Vec::<&str>::new());
        assert_eq!(
            split("  Hi.  Über alles.\n Ça va? Ëh "),
            ["Hi.", "Über alles.", "Ça va?", "Ëh"]
        );
        assert_eq!(split("東京。 大阪. Ωmega!"), ["東京。 大阪.", "Ωmega!"]);
    }

    #[test]
    fn long_sentences_are_cut() {
        let text = "word ".repeat(1000) + "end.";
        let parts = split(&text);
        assert!(parts.len() >= 3);
        assert!(parts
            .iter()
            .all(|p| p.len() <= MAX_SENTENCE_BYTES && !p.is_empty()));
        assert!(parts
            .iter()
            .all(|p| !p.starts_with(' ') && !p.ends_with(' ')));
        let text = "é".repeat(3000);
        let parts = split(&text);
        assert_eq!(parts.concat(), text);
        assert!(parts.iter().all(|p| p.len() <= MAX_SENTENCE_BYTES));
    }

    #[test]
    fn segment_fills_block() {
        let mut block = Block::new(0, Default::default(), "Ab cd. Ef gh.");
        block.sentences.push(Sentence::new(0..1));
        segment(&mut block);
        let got: Vec<&str> = block
            .sentences
            .iter()
            .map(|s| block.sentence_text(s))
            .collect();
        assert_eq!(got, ["Ab cd.", "Ef gh."]);
    }

    fn check_invariants(text: &str) {
        let mut out = Vec::new();
        split_sentences(text, &mut out);
        let mut covered = vec![false; text.len()];
        let mut prev_end = 0;
        for s in &out {
            let r = s.range();
            assert!(r.start >= prev_end && r.start < r.end && r.end <= text.len());
            assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end));
            assert!(r.end - r.start <= MAX_SENTENCE_BYTES);
            let t = &text[r.clone()];
            assert_eq!(t, t.trim_matches(|c: char| c.is_ascii_whitespace()));
            covered[r.clone()].iter_mut().for_each(|c| *c = true);
            prev_end = r.end;
        }
        for (i, b) in text.bytes().enumerate() {
            assert!(
                covered[i] || b.is_ascii_whitespace(),
                "byte {i} not covered in {text:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn never_panics_any_string(text in any::<String>()) {
            check_invariants(&text);
        }

        #[test]
        fn never_panics_sentence_like(text in "([A-Za-zÉé1-9]{0,4}[ .!?…\"'”’»()]{0,3}){0,60}") {
            check_invariants(&text);
        }

        #[test]
        fn long_texts_stay_bounded(text in "[a-z .é]{1500,5000}") {
            check_invariants(&text);
        }
    }
}
