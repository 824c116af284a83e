//! Scoring: one page pair ([`score_pair`]), a directory pair ([`score_dirs`], parallel over
//! pages, results in a fixed order) and the aggregated [`Scores`].
//!
//! Per page: Lev = 100·(1 − d / max(n, m)) on the text view (100 when both are empty);
//! word P/R/F from the exact LCS on the text view and on the tags view; marker P/R/F from
//! the exact LCS of the two marker sequences alone (`<p> <h> <l>` in order, labelled), so
//! the figure does not depend on which of several optimal word alignments is picked.
//! Scores: Lev macro = mean of pages, Lev micro = 100·(1 − Σd / Σmax); P/R/F micro from
//! summed counts, macro = mean of per-page figures (edge cases in [`super::prf`]).

use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

use super::lcs::lcs_len;
use super::lev::levenshtein;
use super::normalize::{decode, tokenize, MARKERS};
use super::prf::{Counts, Prf};
use super::EvalError;
use crate::pipeline::{default_threads, map_in_order};

/// Every figure of one page pair (token counts are after normalisation).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PageScore {
    /// Word tokens (markers excluded) in the gold.
    pub gold_words: usize,
    /// Word tokens (markers excluded) in the cleaned output.
    pub cleaned_words: usize,
    /// Marker tokens in the gold.
    pub gold_markers: usize,
    /// Marker tokens in the cleaned output.
    pub cleaned_markers: usize,
    /// Word-level Levenshtein distance, text view.
    pub lev_distance: usize,
    /// max(gold_words, cleaned_words): the Lev denominator.
    pub lev_max: usize,
    /// LCS counts, text view (markers removed).
    pub text: Counts,
    /// LCS counts, tags view (markers are tokens).
    pub tags: Counts,
    /// LCS counts of the marker sequences alone.
    pub markers: Counts,
}

impl PageScore {
    /// Lev similarity in percent: 100·(1 − d / max), 100 when both pages are empty.
    pub fn lev(&self) -> f64 {
        if self.lev_max == 0 {
            100.0
        } else {
            100.0 * (1.0 - self.lev_distance as f64 / self.lev_max as f64)
        }
    }
}

/// Scores a cleaned file's bytes against a gold file's bytes.
pub fn score_pair(cleaned: &[u8], gold: &[u8]) -> PageScore {
    let (c, g) = (decode(cleaned), decode(gold));
    score_tokens(&tokenize(&c), &tokenize(&g))
}

/// Scores two tags-view token sequences (as made by [`super::normalize::tokenize`]).
pub fn score_tokens<'a>(cleaned: &[&'a str], gold: &[&'a str]) -> PageScore {
    // Markers get ids 0..3 so views are cheap filters on ids.
    let mut ids: TokenIds<'a> = TokenIds::default();
    for (i, m) in MARKERS.iter().enumerate() {
        ids.insert(m, i as u32);
    }
    let g = intern(&mut ids, gold);
    let c = intern(&mut ids, cleaned);
    let marker_count = MARKERS.len() as u32;
    let split = |s: &[u32]| -> (Vec<u32>, Vec<u32>) { s.iter().partition(|&&x| x >= marker_count) };
    let (g_words, g_marks) = split(&g);
    let (c_words, c_marks) = split(&c);

    let lev_distance = levenshtein(&c_words, &g_words);
    let text_lcs = lcs_len(&c_words, &g_words);
    let marker_lcs = lcs_len(&c_marks, &g_marks);
    // Markers only match markers: with no marker on one side the tags LCS is the text LCS.
    let tags_lcs = if c_marks.is_empty() || g_marks.is_empty() {
        text_lcs
    } else {
        lcs_len(&c, &g)
    };
    PageScore {
        gold_words: g_words.len(),
        cleaned_words: c_words.len(),
        gold_markers: g_marks.len(),
        cleaned_markers: c_marks.len(),
        lev_distance,
        lev_max: g_words.len().max(c_words.len()),
        text: Counts::from_lcs(text_lcs, c_words.len(), g_words.len()),
        tags: Counts::from_lcs(tags_lcs, c.len(), g.len()),
        markers: Counts::from_lcs(marker_lcs, c_marks.len(), g_marks.len()),
    }
}

/// Token ids by token. FxHash: tokens are not adversarial and SipHash dominated interning.
type TokenIds<'a> = FxHashMap<&'a str, u32>;

/// Maps tokens to dense ids, adding unseen ones.
fn intern<'a>(ids: &mut TokenIds<'a>, toks: &[&'a str]) -> Vec<u32> {
    toks.iter()
        .map(|t| {
            let next = ids.len() as u32;
            *ids.entry(t).or_insert(next)
        })
        .collect()
}

/// One scored page of a directory run.
#[derive(Clone, Debug, PartialEq)]
pub struct PageEntry {
    /// Gold file name, e.g. `105.txt`.
    pub name: String,
    /// The cleaned file was absent and scored as empty.
    pub missing: bool,
    /// The page's figures.
    pub score: PageScore,
}

/// Micro and macro P/R/F of one view, with the summed counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Averages {
    /// Counts summed over pages.
    pub counts: Counts,
    /// P/R/F from the summed counts.
    pub micro: Prf,
    /// Mean of per-page P, R and F.
    pub macro_: Prf,
}

impl Averages {
    fn over<'a>(pages: &'a [PageEntry], view: impl Fn(&'a PageScore) -> &'a Counts) -> Averages {
        let mut counts = Counts::default();
        let mut per_page = Vec::with_capacity(pages.len());
        for p in pages {
            let c = view(&p.score);
            counts += *c;
            per_page.push(c.prf());
        }
        Averages {
            counts,
            micro: counts.prf(),
            macro_: Prf::mean(per_page.iter()),
        }
    }
}

/// Aggregated scores of a directory run; `pages` are in gold-file order.
#[derive(Clone, Debug, PartialEq)]
pub struct Scores {
    /// Per-page results, ordered by numeric file stem, then name.
    pub pages: Vec<PageEntry>,
    /// Number of gold files with no cleaned counterpart.
    pub missing: usize,
    /// Mean of per-page Lev.
    pub lev_macro: f64,
    /// 100·(1 − Σd / Σmax) (100 when Σmax = 0).
    pub lev_micro: f64,
    /// Σ Levenshtein distances.
    pub lev_distance: u64,
    /// Σ max(n, m).
    pub lev_max: u64,
    /// Word P/R/F, markers removed.
    pub text: Averages,
    /// Word P/R/F, markers counted as tokens (Evert's figure).
    pub tags: Averages,
    /// Marker-only P/R/F; `None` when no cleaned file carries a marker.
    pub markers: Option<Averages>,
}

impl Scores {
    /// Aggregates per-page results (kept in the given order).
    pub fn from_pages(pages: Vec<PageEntry>) -> Scores {
        let n = pages.len();
        let lev_distance: u64 = pages.iter().map(|p| p.score.lev_distance as u64).sum();
        let lev_max: u64 = pages.iter().map(|p| p.score.lev_max as u64).sum();
        let lev_macro = if n == 0 {
            0.0
        } else {
            pages.iter().map(|p| p.score.lev()).sum::<f64>() / n as f64
        };
        let lev_micro = if lev_max == 0 {
            100.0
        } else {
            100.0 * (1.0 - lev_distance as f64 / lev_max as f64)
        };
        let any_markers = pages.iter().any(|p| p.score.cleaned_markers > 0);
        Scores {
            missing: pages.iter().filter(|p| p.missing).count(),
            lev_macro,
            lev_micro,
            lev_distance,
            lev_max,
            text: Averages::over(&pages, |s| &s.text),
            tags: Averages::over(&pages, |s| &s.tags),
            markers: any_markers.then(|| Averages::over(&pages, |s| &s.markers)),
            pages,
        }
    }
}

/// Gold files (`*.txt`, regular files) of `dir`, ordered by numeric stem, then name.
fn gold_files(dir: &Path) -> Result<Vec<String>, EvalError> {
    let err = |source| EvalError::GoldDir {
        path: dir.to_path_buf(),
        source,
    };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(err)? {
        let entry = entry.map_err(err)?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !name.ends_with(".txt") {
            continue;
        }
        // Follow symlinks; skip directories and the like.
        if std::fs::metadata(entry.path())
            .map(|m| m.is_file())
            .unwrap_or(false)
        {
            names.push(name);
        }
    }
    names.sort_by_cached_key(|n| {
        let stem = &n[..n.len() - 4];
        (stem.parse::<u64>().map_or((1, 0), |v| (0, v)), n.clone())
    });
    Ok(names)
}

fn score_one(cleaned_dir: &Path, gold_dir: &Path, name: &str) -> Result<PageEntry, EvalError> {
    let gold_path = gold_dir.join(name);
    let gold = std::fs::read(&gold_path).map_err(|source| EvalError::Read {
        path: gold_path.clone(),
        source,
    })?;
    let cleaned_path: PathBuf = cleaned_dir.join(name);
    let (cleaned, missing) = match std::fs::read(&cleaned_path) {
        Ok(b) => (b, false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), true),
        Err(source) => {
            return Err(EvalError::Read {
                path: cleaned_path,
                source,
            })
        }
    };
    Ok(PageEntry {
        name: name.to_owned(),
        missing,
        score: score_pair(&cleaned, &gold),
    })
}

/// Scores every `GOLD_DIR/N.txt` against `CLEANED_DIR/N.txt`, in parallel on the available
/// cores. A missing cleaned file scores as empty (`missing` is set); extra cleaned files
/// are ignored. Errors: unreadable or absent directories, no gold file, unreadable file.
pub fn score_dirs(cleaned: &Path, gold: &Path) -> Result<Scores, EvalError> {
    let names = gold_files(gold)?;
    if names.is_empty() {
        return Err(EvalError::NoGold(gold.to_path_buf()));
    }
    match std::fs::metadata(cleaned) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(EvalError::CleanedDir {
                path: cleaned.to_path_buf(),
                source: std::io::Error::other("not a directory"),
            })
        }
        Err(source) => {
            return Err(EvalError::CleanedDir {
                path: cleaned.to_path_buf(),
                source,
            })
        }
    }
    let scored = map_in_order(&names, default_threads(), |name| {
        score_one(cleaned, gold, name)
    })
    .map_err(EvalError::Threads)?;
    let pages = scored.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(Scores::from_pages(pages))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn identical_pages() {
        let s = score_pair(b"<p> a b c\n<h>d", b"URL: x\n<p> a b c <h> d");
        assert_eq!(s.lev_distance, 0);
        assert!(close(s.lev(), 100.0));
        assert_eq!(
            s.text,
            Counts {
                tp: 4,
                fp: 0,
                fn_: 0
            }
        );
        assert_eq!(
            s.tags,
            Counts {
                tp: 6,
                fp: 0,
                fn_: 0
            }
        );
        assert_eq!(
            s.markers,
            Counts {
                tp: 2,
                fp: 0,
                fn_: 0
            }
        );
    }

    #[test]
    fn hand_computed_pair() {
        // gold  : <p> the cat sat <p> on the mat      (text: 6 words, tags: 8 tokens)
        // clean : the dog sat on mat today            (no markers)
        // Lev (text): the=the, cat->dog (1), sat, on, delete "the" (1), mat, insert today (1) = 3
        //   -> 100 * (1 - 3/6) = 50.
        // LCS text: the sat on mat = 4 -> P 4/6, R 4/6, F 66.67.
        // tags: LCS 4 of cleaned 6, gold 8 -> P 66.67, R 50, F 57.14.
        // markers: cleaned none, gold 2 -> tp 0, fp 0, fn 2 -> P 0, R 0, F 0.
        let s = score_pair(
            b"the dog sat on mat today",
            b"<p> the cat sat <p> on the mat",
        );
        assert_eq!(s.lev_distance, 3);
        assert!(close(s.lev(), 50.0));
        assert_eq!(
            s.text,
            Counts {
                tp: 4,
                fp: 2,
                fn_: 2
            }
        );
        assert_eq!(
            s.tags,
            Counts {
                tp: 4,
                fp: 2,
                fn_: 4
            }
        );
        assert_eq!(
            s.markers,
            Counts {
                tp: 0,
                fp: 0,
                fn_: 2
            }
        );
        let t = s.tags.prf();
        assert!(close(t.p, 200.0 / 3.0) && close(t.r, 50.0) && close(t.f, 400.0 / 7.0));
    }

    #[test]
    fn empty_pages() {
        let s = score_pair(b"", b"URL: only\n\n");
        assert!(close(s.lev(), 100.0));
        assert_eq!(
            s.text.prf(),
            Prf {
                p: 100.0,
                r: 100.0,
                f: 100.0
            }
        );
        let s = score_pair(b"", b"<p> a b");
        assert!(close(s.lev(), 0.0));
        assert_eq!(
            s.text.prf(),
            Prf {
                p: 0.0,
                r: 0.0,
                f: 0.0
            }
        );
    }

    #[test]
    fn summary_micro_macro() {
        // Page 1: identical 2 words. Page 2: cleaned empty, gold 2 words.
        let pages = vec![
            PageEntry {
                name: "1.txt".into(),
                missing: false,
                score: score_pair(b"a b", b"a b"),
            },
            PageEntry {
                name: "2.txt".into(),
                missing: true,
                score: score_pair(b"", b"c d"),
            },
        ];
        let s = Scores::from_pages(pages);
        assert_eq!(s.missing, 1);
        assert!(close(s.lev_macro, 50.0) && close(s.lev_micro, 50.0));
        assert!(close(s.text.micro.p, 100.0) && close(s.text.micro.r, 50.0));
        assert!(close(s.text.macro_.p, 50.0) && close(s.text.macro_.f, 50.0));
        assert!(s.markers.is_none());
    }
}
