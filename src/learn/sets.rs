//! The training data: sets of pages with their gold text ([`TrainingSet`], `--sets` lists),
//! the two gold formats ([`GoldFormat`]), and pages cut into blocks exactly as the filter cuts
//! them, each block labelled by how much of it aligns to the gold ([`aligned_shares`]).

use std::path::{Path, PathBuf};

use super::LearnError;
use crate::block::{Block, PageInfo};
use crate::eval::{lcs, normalize};
use crate::pipeline::{self, Options};
use crate::segment;

/// How a gold file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum GoldFormat {
    /// CleanEval: a `URL: …` first line, then blocks that start with `<p>`, `<h>` or `<l>`.
    /// Words are taken as `ppl-eval` takes them (lines starting with `URL` dropped, markers
    /// split out and ignored).
    #[cfg_attr(feature = "cli", value(name = "cleaneval"))]
    CleanEval,
    /// Plain text, one block per line, no markers and no URL line: every line is text (even
    /// one that starts with "URL"). Words are the white-space-separated tokens.
    Plain,
}

impl GoldFormat {
    /// CleanEval when the first non-blank line starts with `URL` or any line starts with a
    /// `<p>`, `<h>` or `<l>` marker (after white space, any case); plain text otherwise.
    pub fn detect(gold: &str) -> GoldFormat {
        let mut lines = gold
            .lines()
            .map(|l| l.trim_start_matches(|c: char| c.is_whitespace() || c < '\u{20}'));
        let starts_with_marker = |l: &str| {
            let b = l.as_bytes();
            b.len() >= 3
                && b[0] == b'<'
                && b[2] == b'>'
                && matches!(b[1].to_ascii_lowercase(), b'p' | b'h' | b'l')
        };
        if lines
            .clone()
            .find(|l| !l.is_empty())
            .is_some_and(|l| l.starts_with("URL"))
            || lines.any(starts_with_marker)
        {
            GoldFormat::CleanEval
        } else {
            GoldFormat::Plain
        }
    }

    /// The words of `text` (gold or a page's block) as the alignment compares them.
    pub fn words(self, text: &str) -> Vec<&str> {
        match self {
            GoldFormat::CleanEval => normalize::text_view(&normalize::tokenize(text)),
            GoldFormat::Plain => text
                .split(|c: char| c.is_whitespace() || c < '\u{20}')
                .filter(|w| !w.is_empty())
                .collect(),
        }
    }
}

/// One training set: a directory of pages, one of their gold text, and a weight.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingSet {
    /// Pages, `N.html`.
    pub input_dir: PathBuf,
    /// Their gold text, `N.txt`.
    pub gold_dir: PathBuf,
    /// Factor on the weight of the set's examples (after `SetBalance`).
    pub weight: f64,
}

/// Reads a list of training sets: one `INPUT_DIR GOLD_DIR [WEIGHT]` per line, separated by
/// white space (so the paths cannot contain any); blank lines and `#` comments are skipped;
/// relative paths are taken from the list file's directory. A missing weight is 1.
pub fn read_set_list(path: &Path) -> Result<Vec<TrainingSet>, LearnError> {
    let text = std::fs::read_to_string(path).map_err(|source| LearnError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let base = path.parent().unwrap_or(Path::new(""));
    let mut sets = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default();
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let bad = |message: String| LearnError::SetList {
            path: path.to_path_buf(),
            line: n + 1,
            message,
        };
        if !(2..=3).contains(&fields.len()) {
            return Err(bad(format!(
                "expected INPUT_DIR GOLD_DIR [WEIGHT], found {} fields",
                fields.len()
            )));
        }
        let weight = match fields.get(2) {
            Some(w) => w
                .parse::<f64>()
                .map_err(|_| bad(format!("weight {w:?} is not a number")))?,
            None => 1.0,
        };
        sets.push(TrainingSet {
            input_dir: base.join(fields[0]),
            gold_dir: base.join(fields[1]),
            weight,
        });
    }
    Ok(sets)
}

/// One training page: its blocks (segmented) and their labels.
pub struct LabelledPage {
    /// The input file's stem (`N` of `N.html`).
    pub name: String,
    /// Index of the training set the page comes from.
    pub set: usize,
    /// The page's blocks, measured.
    pub blocks: Vec<Block>,
    /// Share of each block's words that align to the gold text.
    pub aligned: Vec<f32>,
    /// How the gold file was written.
    pub gold_format: GoldFormat,
    /// What the page declares about itself (its kind is evidence for the classifier).
    pub info: PageInfo,
}

impl LabelledPage {
    /// Cuts `html` into blocks as the filter would and labels them against `gold`, written
    /// in `format` (`None`: detected).
    pub fn new(
        name: String,
        html: &[u8],
        gold: &[u8],
        format: Option<GoldFormat>,
        options: &Options,
    ) -> LabelledPage {
        let read = pipeline::read_blocks(html, options);
        let mut blocks = read.blocks;
        for block in &mut blocks {
            segment::segment(block);
        }
        let gold = normalize::decode(gold);
        let gold_format = format.unwrap_or_else(|| GoldFormat::detect(&gold));
        let aligned = aligned_shares(&blocks, &gold, gold_format);
        LabelledPage {
            name,
            set: 0,
            blocks,
            aligned,
            gold_format,
            info: read.info,
        }
    }

    pub(super) fn keep(&self, i: usize) -> bool {
        self.aligned[i] >= 0.5
    }
}

/// Share of each block's words that a longest common subsequence of the page's words and
/// the gold's words matches, both read as `format` reads them.
pub fn aligned_shares(blocks: &[Block], gold: &str, format: GoldFormat) -> Vec<f32> {
    let gold_words = format.words(gold);
    let mut owner = Vec::new();
    let mut page_words = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        for word in format.words(&block.text) {
            page_words.push(word);
            owner.push(i);
        }
    }
    let mut matched = vec![0usize; blocks.len()];
    let mut total = vec![0usize; blocks.len()];
    for &i in &owner {
        total[i] += 1;
    }
    for op in lcs::align(&page_words, &gold_words) {
        if let similar::DiffOp::Equal { old_index, len, .. } = op {
            for &i in &owner[old_index..old_index + len] {
                matched[i] += 1;
            }
        }
    }
    matched
        .iter()
        .zip(&total)
        .map(|(&m, &t)| if t == 0 { 0.0 } else { m as f32 / t as f32 })
        .collect()
}

/// Reads every `N.html` (or `N.html.gz`) of `input_dir` that has a `N.txt` in `gold_dir`, in
/// name order (gold written in `format`; `None`: detected per file).
pub fn read_pages(
    input_dir: &Path,
    gold_dir: &Path,
    format: Option<GoldFormat>,
    options: &Options,
) -> Result<Vec<LabelledPage>, LearnError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LearnError::Io { path, source }
    };
    let names = crate::source::html_pages(input_dir).map_err(|source| LearnError::Io {
        path: input_dir.to_path_buf(),
        source,
    })?;
    let mut pages = Vec::new();
    for path in names {
        let stem = crate::source::page_stem(&path)
            .unwrap_or_default()
            .to_owned();
        let gold_path = gold_dir.join(format!("{stem}.txt"));
        if !gold_path.is_file() {
            continue;
        }
        let html = crate::source::read_page(&path).map_err(io_err(&path))?;
        let gold = std::fs::read(&gold_path).map_err(io_err(&gold_path))?;
        pages.push(LabelledPage::new(stem, &html, &gold, format, options));
    }
    if pages.is_empty() {
        return Err(LearnError::NoPairs(input_dir.to_path_buf()));
    }
    Ok(pages)
}

/// Reads the pages of every set in turn ([`read_pages`]), each marked with its set's index.
pub fn read_sets(
    sets: &[TrainingSet],
    format: Option<GoldFormat>,
    options: &Options,
) -> Result<Vec<LabelledPage>, LearnError> {
    let mut pages = Vec::new();
    for (k, set) in sets.iter().enumerate() {
        let mut set_pages = read_pages(&set.input_dir, &set.gold_dir, format, options)?;
        for page in &mut set_pages {
            page.set = k;
        }
        pages.append(&mut set_pages);
    }
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::BlockKind;

    /// A page's blocks, numbered in order.
    fn page(blocks: &[(BlockKind, &str)]) -> Vec<Block> {
        let numbered = blocks.iter().enumerate();
        numbered
            .map(|(i, &(kind, text))| Block::new(i as u32, kind, text))
            .collect()
    }

    #[test]
    fn blocks_are_labelled_by_the_words_that_align_to_gold() {
        let blocks = page(&[
            (BlockKind::ListItem, "Home About Contact"),
            (BlockKind::Paragraph, "The council met on Monday to vote."),
            (BlockKind::Paragraph, "Copyright 2007 the council"),
        ]);
        let gold = "URL: http://x\n<p> The council met on Monday to vote.\n";
        assert_eq!(GoldFormat::detect(gold), GoldFormat::CleanEval);
        let shares = aligned_shares(&blocks, gold, GoldFormat::CleanEval);
        assert_eq!(shares[0], 0.0);
        assert_eq!(shares[1], 1.0);
        assert!(shares[2] < 0.5);
    }

    #[test]
    fn plain_text_gold_labels_blocks_too() {
        let blocks = page(&[
            (BlockKind::Heading, "Storm closes the coast road"),
            (BlockKind::ListItem, "Home News Sport Weather"),
            (
                BlockKind::Paragraph,
                "URLs of the detours are on the council's site, officials said.",
            ),
            (BlockKind::Paragraph, "The road will reopen on Friday."),
            (
                BlockKind::Paragraph,
                "Share this article: Facebook Twitter Email",
            ),
            (BlockKind::Paragraph, "Comments (3) Log in to comment"),
        ]);
        // One block per line, no URL line, no markers; a line may wrap two page blocks, and one
        // starting with "URL" is text like any other.
        let gold = "Storm closes the coast road\nURLs of the detours are on the council's site, officials said.\r\nThe road will reopen on Friday.\n";
        assert_eq!(GoldFormat::detect(gold), GoldFormat::Plain);
        let shares = aligned_shares(&blocks, gold, GoldFormat::Plain);
        assert_eq!(shares, [1.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
        // Read as CleanEval, the "URL…" line would vanish from both sides and its block drop.
        assert_eq!(aligned_shares(&blocks, gold, GoldFormat::CleanEval)[2], 0.0);
    }

    #[test]
    fn gold_formats_are_told_apart() {
        for (gold, format) in [
            ("URL: http://x\n", GoldFormat::CleanEval),
            ("\n\n  URL: http://x\n<p> Text\n", GoldFormat::CleanEval),
            ("\n<h>  Title\n\nBody text\n", GoldFormat::CleanEval),
            ("  <P> upper-case marker\n", GoldFormat::CleanEval),
            ("Title\nBody with <p> inside a line\n", GoldFormat::Plain),
            ("Title\nURL of the report below\n", GoldFormat::Plain),
        ] {
            assert_eq!(GoldFormat::detect(gold), format, "{gold:?}");
        }
        assert_eq!(GoldFormat::detect(""), GoldFormat::Plain);
        assert_eq!(
            GoldFormat::Plain.words("a\tb\u{1}c  <p>d"),
            ["a", "b", "c", "<p>d"]
        );
        assert_eq!(GoldFormat::CleanEval.words("URL: x\n<p>a b"), ["a", "b"]);
    }

    #[test]
    fn set_lists_are_read_relative_to_their_file() {
        let dir = std::env::temp_dir().join(format!("ppl-filter-set-list-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let list = dir.join("sets.txt");
        std::fs::write(
            &list,
            "# training sets\n\ntune/input tune/gold\n/abs/in /abs/gold 0.5  # weighted\n",
        )
        .unwrap();
        let sets = read_set_list(&list).unwrap();
        assert_eq!(
            sets,
            [
                TrainingSet {
                    input_dir: dir.join("tune/input"),
                    gold_dir: dir.join("tune/gold"),
                    weight: 1.0
                },
                TrainingSet {
                    input_dir: "/abs/in".into(),
                    gold_dir: "/abs/gold".into(),
                    weight: 0.5
                },
            ]
        );
        for (bad, message) in [
            ("a\n", "found 1 fields"),
            ("a b c d\n", "found 4 fields"),
            ("a b heavy\n", "not a number"),
        ] {
            std::fs::write(&list, format!("# x\n{bad}")).unwrap();
            let err = read_set_list(&list).unwrap_err().to_string();
            assert!(err.contains(":2: ") && err.contains(message), "{err}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
