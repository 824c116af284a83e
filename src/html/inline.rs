//! The inline structure of the block being filled ([`Inline`]): the spans of its text that are
//! inline code, subscripts, superscripts and formulas ([`Mark`]s), and the formula being read
//! (from MathML's TeX annotation or `alttext`, else its elements written as linear TeX:
//! `html/mathml.rs`; from a MathJax `<script type="math/tex">`), which goes into the text as its
//! TeX once its element ends.

use super::mathml::MathTree;
use super::tags::Tag;
use crate::block::{Mark, MarkKind};

/// A formula's TeX is kept up to this many bytes (a longer one is cut there).
pub(super) const MAX_FORMULA_BYTES: usize = 16 * 1024;

/// The block's marks so far, the mark open, and the formula being read.
#[derive(Debug, Default)]
pub(super) struct Inline {
    marks: Vec<Mark>,
    /// The mark open: its kind, and where its text began once it has.
    open: Option<(MarkKind, Option<u32>)>,
    /// The formula being read, if any.
    pub(super) formula: Option<Formula>,
}

/// A formula being read.
#[derive(Debug)]
pub(super) struct Formula {
    /// The element it is read from (`<math>`, or a MathJax `<script>`), whose end ends it.
    pub(super) element: Tag,
    /// Shown on its own (`display="block"`, MathJax's `mode=display`).
    pub(super) display: bool,
    /// MathML's `alttext`.
    pub(super) alttext: Option<String>,
    /// The TeX of its annotation (or the MathJax script), raw.
    tex: String,
    /// Inside its TeX annotation.
    pub(super) in_tex: bool,
    /// Its text otherwise (MathML's tokens), raw: the formula when it has no TeX.
    text: String,
    /// A MathML formula's elements, written as TeX when it gives none.
    pub(super) tree: Option<MathTree>,
}

impl Formula {
    /// A formula read from `element`.
    pub(super) fn new(element: Tag, display: bool, alttext: Option<String>) -> Formula {
        Formula {
            element,
            display,
            alttext,
            tex: String::new(),
            in_tex: element == Tag::Script,
            text: String::new(),
            tree: (element == Tag::Math).then(MathTree::default),
        }
    }

    /// More of the formula's text (raw: entities as written, but in a script).
    pub(super) fn push(&mut self, raw: &str) {
        if let (Some(tree), false) = (&mut self.tree, self.in_tex) {
            tree.push(raw, MAX_FORMULA_BYTES);
        }
        let to = if self.in_tex {
            &mut self.tex
        } else {
            &mut self.text
        };
        let room = MAX_FORMULA_BYTES.saturating_sub(to.len());
        let mut cut = room.min(raw.len());
        while !raw.is_char_boundary(cut) {
            cut -= 1;
        }
        to.push_str(&raw[..cut]);
    }

    /// The formula as TeX, entities decoded: its annotation's, else its `alttext`, else its
    /// MathML written as TeX, else its text; `None` when all are empty.
    pub(super) fn tex(self) -> Option<String> {
        let decode = |raw: &str, script: bool| match script {
            true => raw.trim().to_string(),
            false => htmlize::unescape(raw).trim().to_string(),
        };
        let script = self.element == Tag::Script;
        [
            decode(&self.tex, script),
            self.alttext.map(|alt| alt.trim().to_string()).unwrap_or_default(),
            self.tree.and_then(|tree| tree.tex()).unwrap_or_default(),
            decode(&self.text, false),
        ]
        .into_iter()
        .find(|tex| !tex.is_empty())
    }
}

impl Inline {
    /// Opens a mark of `kind` (unless one is open: marks do not nest).
    pub(super) fn open(&mut self, kind: MarkKind) {
        if self.open.is_none() {
            self.open = Some((kind, None));
        }
    }

    /// Text is appended at byte `at` of the block: an open mark's text begins there.
    pub(super) fn text_at(&mut self, at: usize) {
        if let Some((_, start @ None)) = &mut self.open {
            *start = Some(at as u32);
        }
    }

    /// Closes the open mark of `kind`, the block's text being `end` bytes long now.
    pub(super) fn close(&mut self, kind: MarkKind, end: usize) {
        let Some((open, start)) = self.open else {
            return;
        };
        if open != kind {
            return;
        }
        self.open = None;
        if let Some(start) = start {
            self.push(start, end, kind);
        }
    }

    fn push(&mut self, start: u32, end: usize, kind: MarkKind) {
        let end = end as u32;
        if end > start {
            self.marks.push(Mark { start, end, kind });
        }
    }

    /// The marks of the block that ends now, `len` bytes long (an open mark ends with it and
    /// goes on in the next block); none when its text was changed since (`kept` false:
    /// composed into NFC).
    pub(super) fn take_marks(&mut self, len: usize, kept: bool) -> Vec<Mark> {
        if let Some((kind, Some(start))) = self.open {
            self.push(start, len, kind);
            self.open = Some((kind, None));
        }
        let mut marks = std::mem::take(&mut self.marks);
        if !kept {
            marks.clear();
        }
        marks.retain(|mark| mark.end as usize <= len);
        marks
    }

    /// Forgets the marks of a block that is dropped.
    pub(super) fn clear(&mut self) {
        self.marks.clear();
        if let Some((_, start)) = &mut self.open {
            *start = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::block::{Block, MarkKind};
    use crate::html::{blocks_from_str, HtmlSettings};

    /// Each block's text and its marked spans.
    fn marked(html: &str) -> Vec<(String, Vec<(MarkKind, String)>)> {
        let blocks: Vec<Block> = blocks_from_str(html, &HtmlSettings::default()).unwrap();
        blocks
            .into_iter()
            .map(|b| {
                let marks = b.structure.marks.iter();
                let marks = marks
                    .map(|m| (m.kind, b.text[m.start as usize..m.end as usize].to_string()))
                    .collect();
                (b.text, marks)
            })
            .collect()
    }

    #[test]
    fn inline_code_and_formulas_are_marked_in_their_sentence() {
        let got = marked("<p>Run <code>make  all</code> and <kbd>q</kbd>, H<sub>2</sub>O.</p>");
        assert_eq!(got[0].0, "Run make all and q, H2O.");
        assert_eq!(
            got[0].1,
            [
                (MarkKind::Code, "make all".into()),
                (MarkKind::Code, "q".into()),
                (MarkKind::Sub, "2".into())
            ]
        );
        for (html, tex) in [
            ("<math><mi>E</mi><annotation encoding='application/x-tex'>E=mc^2</annotation></math>", "E=mc^2"),
            ("<math alttext='a^2'><mi>a</mi><mn>2</mn></math>", "a^2"),
            ("<math><mi>x</mi><mo>+</mo><mn>1</mn></math>", "x + 1"),
            ("<script type='math/tex'>\\alpha < 1</script>", "\\alpha < 1"),
            ("<span data-math='\\beta'><span class=katex>β</span></span>", "\\beta"),
            ("<span class=hurmet-tex data-entry='\\frac{a}{b}'><math><mfrac><mi>a</mi><mi>b</mi></mfrac></math></span>", "\\frac{a}{b}"),
            ("<img class=latex alt='\\gamma' src='https://s0.wp.com/latex.php?latex=%5Cgamma'>", "\\gamma"),
            ("<span class=katex><span class=katex-mathml><math><annotation encoding='application/x-tex'>k</annotation></math></span><span class=katex-html aria-hidden=true>k</span></span>", "k"),
        ] {
            let got = marked(&format!("<p>The value {html} is small.</p>"));
            assert_eq!(got[0].0, format!("The value {tex} is small."), "{html}");
            assert_eq!(got[0].1, [(MarkKind::Formula, tex.to_string())], "{html}");
        }
        let display = marked("<math display=block><annotation encoding='TeX'>\\sum x</annotation></math>");
        assert_eq!(display[0].1, [(MarkKind::DisplayFormula, "\\sum x".into())]);
    }

    #[test]
    fn line_numbers_are_left_out_of_a_code_block() {
        for html in [
            "<pre><span class=lineno>1</span>a = 1\n<span class=lineno>2</span>b = 2</pre>",
            "<pre><code><span style='user-select: none'>1</span>a = 1\n<span style='user-select:none'>2</span>b = 2</code></pre>",
            "<pre><div class=ec-line><div class=gutter><div class=ln aria-hidden=true>1</div></div><div class=code>a = 1</div></div><div class=ec-line><div class=gutter>2</div><div class=code>b = 2</div></div></pre>",
            "<table><tr><td class=linenos><pre>1\n2</pre></td><td class=code><pre>a = 1\nb = 2</pre></td></tr></table>",
        ] {
            let got = marked(html);
            assert_eq!(got.iter().map(|b| b.0.as_str()).collect::<Vec<_>>(), ["a = 1\nb = 2"], "{html}");
        }
    }
}
