//! Word precision / recall / F1 from alignment counts, with the edge cases fixed.
//!
//! All figures are percentages (0–100). Edge cases, per page and for micro totals alike:
//! both sides empty → P = R = F = 100 (nothing to find, nothing wrongly found; matches
//! Lev = 100); cleaned empty but gold not → P = 0 (as Evert's cleaneval.py: an empty
//! output earns nothing); gold empty but cleaned not → R = 0; P + R = 0 → F = 0.
//! Macro averages are means of the per-page P, R and F (F is not recomputed from the
//! mean P and R).

/// Alignment counts of one page or of a sum of pages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Tokens aligned in both (LCS length).
    pub tp: u64,
    /// Tokens only in the cleaned output.
    pub fp: u64,
    /// Tokens only in the gold.
    pub fn_: u64,
}

/// Precision, recall and F1, in percent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Prf {
    /// Precision, percent.
    pub p: f64,
    /// Recall, percent.
    pub r: f64,
    /// F1, percent.
    pub f: f64,
}

impl Counts {
    /// Counts from an LCS length and the two sequence lengths.
    pub fn from_lcs(lcs: usize, cleaned_len: usize, gold_len: usize) -> Counts {
        let lcs = lcs.min(cleaned_len).min(gold_len);
        Counts {
            tp: lcs as u64,
            fp: (cleaned_len - lcs) as u64,
            fn_: (gold_len - lcs) as u64,
        }
    }

    /// P, R, F with the module's edge-case rules.
    pub fn prf(&self) -> Prf {
        let cleaned = self.tp + self.fp;
        let gold = self.tp + self.fn_;
        if cleaned == 0 && gold == 0 {
            return Prf {
                p: 100.0,
                r: 100.0,
                f: 100.0,
            };
        }
        let p = if cleaned == 0 {
            0.0
        } else {
            100.0 * self.tp as f64 / cleaned as f64
        };
        let r = if gold == 0 {
            0.0
        } else {
            100.0 * self.tp as f64 / gold as f64
        };
        let f = if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        };
        Prf { p, r, f }
    }
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
    }
}

impl Prf {
    /// Mean of per-page figures; 0 for no pages.
    pub fn mean<'a>(items: impl IntoIterator<Item = &'a Prf>) -> Prf {
        let (mut n, mut s) = (0usize, Prf::default());
        for x in items {
            n += 1;
            s.p += x.p;
            s.r += x.r;
            s.f += x.f;
        }
        if n == 0 {
            return s;
        }
        let k = n as f64;
        Prf {
            p: s.p / k,
            r: s.r / k,
            f: s.f / k,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary() {
        // 3 matched of 4 cleaned and 6 gold: P 75, R 50, F 60.
        let c = Counts::from_lcs(3, 4, 6);
        assert_eq!(
            c,
            Counts {
                tp: 3,
                fp: 1,
                fn_: 3
            }
        );
        let x = c.prf();
        assert!(
            (x.p - 75.0).abs() < 1e-9 && (x.r - 50.0).abs() < 1e-9 && (x.f - 60.0).abs() < 1e-9
        );
    }

    #[test]
    fn edges() {
        assert_eq!(
            Counts::from_lcs(0, 0, 0).prf(),
            Prf {
                p: 100.0,
                r: 100.0,
                f: 100.0
            }
        );
        assert_eq!(
            Counts::from_lcs(0, 0, 5).prf(),
            Prf {
                p: 0.0,
                r: 0.0,
                f: 0.0
            }
        );
        assert_eq!(
            Counts::from_lcs(0, 5, 0).prf(),
            Prf {
                p: 0.0,
                r: 0.0,
                f: 0.0
            }
        );
        assert_eq!(
            Counts::from_lcs(0, 2, 3).prf(),
            Prf {
                p: 0.0,
                r: 0.0,
                f: 0.0
            }
        );
        assert_eq!(Prf::mean([].iter()), Prf::default());
    }
}
