//! Output formats of a [`Scores`]: the readable table (stdout), one TSV row per page, and
//! a flat JSON object written by hand (no serde). All figures are percentages.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use super::prf::Counts;
use super::score::{Averages, Scores};
use super::EvalError;

/// Column names of [`Scores::write_tsv`], in order.
pub const TSV_HEADER: &[&str] = &[
    "file",
    "missing",
    "gold_words",
    "cleaned_words",
    "gold_markers",
    "cleaned_markers",
    "lev_distance",
    "lev_max",
    "lev",
    "text_tp",
    "text_fp",
    "text_fn",
    "text_p",
    "text_r",
    "text_f",
    "tags_tp",
    "tags_fp",
    "tags_fn",
    "tags_p",
    "tags_r",
    "tags_f",
    "marker_tp",
    "marker_fp",
    "marker_fn",
    "marker_p",
    "marker_r",
    "marker_f",
];

fn counts_cols(c: &Counts) -> String {
    let x = c.prf();
    format!(
        "{}\t{}\t{}\t{:.4}\t{:.4}\t{:.4}",
        c.tp, c.fp, c.fn_, x.p, x.r, x.f
    )
}

fn json_prf(out: &mut String, key: &str, a: &Averages) {
    let c = a.counts;
    let _ = write!(
        out,
        ",\"{key}_tp\":{},\"{key}_fp\":{},\"{key}_fn\":{}",
        c.tp, c.fp, c.fn_
    );
    for (avg, p) in [("micro", &a.micro), ("macro", &a.macro_)] {
        let _ = write!(
            out,
            ",\"{key}_p_{avg}\":{:.4},\"{key}_r_{avg}\":{:.4},\"{key}_f_{avg}\":{:.4}",
            p.p, p.r, p.f
        );
    }
}

fn table_rows(out: &mut String, label: &str, a: &Averages) {
    let (mi, ma) = (&a.micro, &a.macro_);
    for (name, micro, macro_) in [("P", mi.p, ma.p), ("R", mi.r, ma.r), ("F", mi.f, ma.f)] {
        let _ = writeln!(out, "{label:<8}{name:<10}{micro:>8.2}{macro_:>8.2}");
    }
}

impl Scores {
    /// The readable summary table printed by `ppl-eval score`.
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "pages           {:>8}", self.pages.len());
        let _ = writeln!(out, "missing cleaned {:>8}", self.missing);
        let _ = writeln!(out, "{:<18}{:>8}{:>8}", "", "micro", "macro");
        let _ = writeln!(
            out,
            "{:<18}{:>8.2}{:>8.2}",
            "Lev", self.lev_micro, self.lev_macro
        );
        table_rows(&mut out, "text", &self.text);
        table_rows(&mut out, "tags", &self.tags);
        match &self.markers {
            Some(m) => table_rows(&mut out, "marker", m),
            None => out.push_str("marker  (no markers in the cleaned files)\n"),
        }
        out
    }

    /// The summary as one flat JSON object (figures in percent, 4 decimals).
    pub fn to_json(&self) -> String {
        let mut out = String::from("{");
        let _ = write!(
            out,
            "\"pages\":{},\"missing\":{},\"lev_micro\":{:.4},\"lev_macro\":{:.4},\
             \"lev_distance\":{},\"lev_max\":{}",
            self.pages.len(),
            self.missing,
            self.lev_micro,
            self.lev_macro,
            self.lev_distance,
            self.lev_max
        );
        json_prf(&mut out, "text", &self.text);
        json_prf(&mut out, "tags", &self.tags);
        let _ = write!(out, ",\"markers_present\":{}", self.markers.is_some());
        if let Some(m) = &self.markers {
            json_prf(&mut out, "marker", m);
        }
        out.push_str("}\n");
        out
    }

    /// Writes the per-page TSV: a header row ([`TSV_HEADER`]) then one row per page.
    pub fn write_tsv<W: Write>(&self, mut w: W) -> std::io::Result<()> {
        writeln!(w, "{}", TSV_HEADER.join("\t"))?;
        for p in &self.pages {
            let s = &p.score;
            let name: String = p
                .name
                .chars()
                .map(|c| if c == '\t' || c.is_control() { ' ' } else { c })
                .collect();
            writeln!(
                w,
                "{name}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.4}\t{}\t{}\t{}",
                u8::from(p.missing),
                s.gold_words,
                s.cleaned_words,
                s.gold_markers,
                s.cleaned_markers,
                s.lev_distance,
                s.lev_max,
                s.lev(),
                counts_cols(&s.text),
                counts_cols(&s.tags),
                counts_cols(&s.markers),
            )?;
        }
        w.flush()
    }

    /// Writes the per-page TSV to `path`.
    pub fn save_tsv(&self, path: &Path) -> Result<(), EvalError> {
        let err = |source| EvalError::Write {
            path: path.to_path_buf(),
            source,
        };
        let f = std::fs::File::create(path).map_err(err)?;
        self.write_tsv(std::io::BufWriter::new(f)).map_err(err)
    }

    /// Writes [`Scores::to_json`] to `path`.
    pub fn save_json(&self, path: &Path) -> Result<(), EvalError> {
        std::fs::write(path, self.to_json()).map_err(|source| EvalError::Write {
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::eval::score::{score_pair, PageEntry, Scores};

    fn summary() -> Scores {
        Scores::from_pages(vec![
            PageEntry {
                name: "1.txt".into(),
                missing: false,
                score: score_pair(b"<p> a b", b"<p> a c"),
            },
            PageEntry {
                name: "2.txt".into(),
                missing: true,
                score: score_pair(b"", b"x"),
            },
        ])
    }

    #[test]
    fn tsv_shape() {
        let mut buf = Vec::new();
        summary().write_tsv(&mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        for l in &lines {
            assert_eq!(l.split('\t').count(), super::TSV_HEADER.len());
        }
        assert!(lines[2].starts_with("2.txt\t1\t"));
    }

    #[test]
    fn json_and_table() {
        let s = summary();
        let j = s.to_json();
        assert!(j.starts_with("{\"pages\":2,\"missing\":1,"));
        assert!(j.contains("\"markers_present\":true") && j.contains("\"marker_f_macro\":"));
        assert!(j.trim_end().ends_with('}'));
        let t = s.to_table();
        assert!(t.contains("Lev") && t.contains("marker  F"));
    }
}
