//! A MathML formula that gives no TeX of its own (no TeX annotation, no `alttext`), read as a
//! small tree of its elements ([`MathTree`]) and written as linear TeX ([`MathTree::tex`]):
//! `x^{2}`, `\frac{a}{b}`, `\sqrt[3]{8}`, `\sum_{k = 1}^{n}`, `\left( … \right)` around the
//! parentheses of one row, `\begin{pmatrix} a & b \\ c & d \end{pmatrix}`, Greek letters and
//! operators by their commands, and the letters of Unicode's mathematical alphabets as letters.
//!
//! The tree is bounded ([`MAX_NODES`] elements, [`MAX_DEPTH`] deep, the formula's byte limit for
//! its text): an element past a bound adds nothing, its text goes to the element it is in, and
//! the writing recurses at most [`MAX_DEPTH`] deep.

/// A formula's tree holds at most this many elements…
const MAX_NODES: usize = 2048;
/// …nested at most this deep.
const MAX_DEPTH: usize = 48;

/// What a MathML element is, for its TeX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `<math>`, `<mrow>`, `<mstyle>`, `<mtd>` and every element written as its children.
    Row,
    /// `<mi>`.
    Identifier,
    /// `<mn>`.
    Number,
    /// `<mo>`.
    Operator,
    /// `<mtext>`, `<ms>`.
    Text,
    /// What is not written: `<mphantom>`, `<mspace>`, annotations, `<none>`, `<mprescripts>`.
    Hidden,
    Fraction,
    Sqrt,
    Root,
    Sub,
    Sup,
    SubSup,
    Under,
    Over,
    UnderOver,
    /// `<mmultiscripts>`: its base and its first scripts.
    Multiscripts,
    /// `<mfenced>`.
    Fenced,
    Table,
    TableRow,
}

impl Kind {
    fn of(name: &str) -> Kind {
        match name {
            "mi" => Kind::Identifier,
            "mn" => Kind::Number,
            "mo" => Kind::Operator,
            "mtext" | "ms" => Kind::Text,
            "mphantom" | "mspace" | "annotation" | "annotation-xml" | "none" | "mprescripts" => {
                Kind::Hidden
            }
            "mfrac" => Kind::Fraction,
            "msqrt" => Kind::Sqrt,
            "mroot" => Kind::Root,
            "msub" => Kind::Sub,
            "msup" => Kind::Sup,
            "msubsup" => Kind::SubSup,
            "munder" => Kind::Under,
            "mover" => Kind::Over,
            "munderover" => Kind::UnderOver,
            "mmultiscripts" => Kind::Multiscripts,
            "mfenced" => Kind::Fenced,
            "mtable" => Kind::Table,
            "mtr" | "mlabeledtr" => Kind::TableRow,
            _ => Kind::Row,
        }
    }
}

/// The attributes an element's TeX depends on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct MathAttributes {
    /// `mathvariant`, lower case.
    pub(super) variant: Option<String>,
    /// `linethickness` (of `<mfrac>`).
    pub(super) line_thickness: Option<String>,
    /// `open` and `close` (of `<mfenced>`).
    pub(super) open: Option<String>,
    pub(super) close: Option<String>,
    /// `columnalign` (of `<mtable>`).
    pub(super) column_align: Option<String>,
}

#[derive(Debug)]
struct Node {
    kind: Kind,
    attributes: MathAttributes,
    /// Its text, raw (entities as written).
    text: String,
    children: Vec<u32>,
}

/// A MathML formula's elements as read so far.
#[derive(Debug)]
pub(super) struct MathTree {
    /// The elements, the `<math>` first.
    nodes: Vec<Node>,
    /// The elements open, innermost last.
    open: Vec<u32>,
    /// Elements opened past a bound, whose end tags close nothing.
    ignored: u32,
    /// Bytes of text held.
    bytes: usize,
}

impl Default for MathTree {
    fn default() -> MathTree {
        MathTree {
            nodes: vec![Node {
                kind: Kind::Row,
                attributes: MathAttributes::default(),
                text: String::new(),
                children: Vec::new(),
            }],
            open: vec![0],
            ignored: 0,
            bytes: 0,
        }
    }
}

impl MathTree {
    /// An element named `name` (lower case) starts; `void` when it has no end tag.
    pub(super) fn open(&mut self, name: &str, attributes: MathAttributes, void: bool) {
        if self.ignored > 0 || self.nodes.len() >= MAX_NODES || self.open.len() >= MAX_DEPTH {
            self.ignored += u32::from(!void);
            return;
        }
        let index = self.nodes.len() as u32;
        let parent = *self.open.last().expect("the math element stays open");
        self.nodes[parent as usize].children.push(index);
        self.nodes.push(Node {
            kind: Kind::of(name),
            attributes,
            text: String::new(),
            children: Vec::new(),
        });
        if !void {
            self.open.push(index);
        }
    }

    /// The innermost element open ends.
    pub(super) fn close(&mut self) {
        if self.ignored > 0 {
            self.ignored -= 1;
        } else if self.open.len() > 1 {
            self.open.pop();
        }
    }

    /// Text of the innermost element open, raw; at most `room` more bytes are taken.
    pub(super) fn push(&mut self, raw: &str, room: usize) {
        let room = room.saturating_sub(self.bytes);
        let mut cut = room.min(raw.len());
        while !raw.is_char_boundary(cut) {
            cut -= 1;
        }
        let node = *self.open.last().expect("the math element stays open");
        self.nodes[node as usize].text.push_str(&raw[..cut]);
        self.bytes += cut;
    }

    /// The formula as linear TeX, `None` when it writes nothing.
    pub(super) fn tex(&self) -> Option<String> {
        let tex = self.write(0, 0);
        let tex = tex.split_whitespace().collect::<Vec<_>>().join(" ");
        (!tex.is_empty()).then_some(tex)
    }

    /// The TeX of node `index`, `depth` deep.
    fn write(&self, index: u32, depth: usize) -> String {
        let node = &self.nodes[index as usize];
        if depth > MAX_DEPTH {
            return String::new();
        }
        let child = |i: usize| -> String {
            node.children
                .get(i)
                .map(|&c| self.write(c, depth + 1))
                .unwrap_or_default()
        };
        // A script or an argument: braced.
        let arg = |i: usize| format!("{{{}}}", child(i));
        match node.kind {
            // A row's own text is there only past the bounds, or in broken MathML.
            Kind::Row => {
                let own = tex_chars(&text_of(node));
                let children = self.row(&node.children, depth);
                match own.is_empty() {
                    true => children,
                    false => format!("{own} {children}").trim_end().to_string(),
                }
            }
            Kind::Identifier => identifier(&text_of(node), node.attributes.variant.as_deref()),
            Kind::Number => tex_chars(&text_of(node)),
            Kind::Operator => operator(&text_of(node)),
            Kind::Text => match text_of(node) {
                text if text.is_empty() => text,
                text => format!("\\text{{{}}}", escape_text(&text.replace('\u{a0}', " "))),
            },
            Kind::Hidden => String::new(),
            Kind::Fraction => {
                let thin = node.attributes.line_thickness.as_deref().is_some_and(is_zero);
                match thin {
                    true => format!("\\genfrac{{}}{{}}{{0pt}}{{}}{}{}", arg(0), arg(1)),
                    false => format!("\\frac{}{}", arg(0), arg(1)),
                }
            }
            Kind::Sqrt => format!("\\sqrt{{{}}}", self.row(&node.children, depth)),
            Kind::Root => format!("\\sqrt[{}]{}", child(1), arg(0)),
            Kind::Sub => format!("{}_{}", self.base(node, depth), arg(1)),
            Kind::Sup => format!("{}^{}", self.base(node, depth), arg(1)),
            Kind::SubSup | Kind::Multiscripts => {
                format!("{}_{}^{}", self.base(node, depth), arg(1), arg(2))
            }
            Kind::Under | Kind::Over | Kind::UnderOver => self.limits(node, depth),
            Kind::Fenced => {
                let open = node.attributes.open.as_deref().unwrap_or("(");
                let close = node.attributes.close.as_deref().unwrap_or(")");
                let items: Vec<String> = (0..node.children.len()).map(child).collect();
                format!(
                    "\\left{} {} \\right{}",
                    delimiter(open),
                    items.join(" , "),
                    delimiter(close)
                )
            }
            Kind::Table => self.table(node, depth),
            Kind::TableRow => self.row(&node.children, depth),
        }
    }

    /// An under- or overscript, or both: an accent's command (`\\hat{x}`), a large
    /// operator's limits (`\\sum_{k}^{n}`), else `\\underset` and `\\overset`.
    fn limits(&self, node: &Node, depth: usize) -> String {
        let arg = |i: usize| {
            let script = node.children.get(i).map(|&c| self.write(c, depth + 1));
            format!("{{{}}}", script.unwrap_or_default())
        };
        let base = self.base(node, depth);
        let big = self.is_big_operator(node.children.first().copied());
        if node.kind == Kind::UnderOver {
            return match big {
                true => format!("{base}_{}^{}", arg(1), arg(2)),
                false => format!("\\overset{}{{\\underset{}{{{base}}}}}", arg(2), arg(1)),
            };
        }
        let over = node.kind == Kind::Over;
        let script = node.children.get(1).map(|&c| &self.nodes[c as usize]);
        match script.and_then(|s| accent(&text_of(s), over)) {
            Some(command) => format!("\\{command}{{{base}}}"),
            None if big && over => format!("{base}^{}", arg(1)),
            None if big => format!("{base}_{}", arg(1)),
            None if over => format!("\\overset{}{{{base}}}", arg(1)),
            None => format!("\\underset{}{{{base}}}", arg(1)),
        }
    }

    /// A table: a matrix, or `aligned` when its columns are aligned right then left.
    fn table(&self, node: &Node, depth: usize) -> String {
        let rows: Vec<String> = node
            .children
            .iter()
            .map(|&row| {
                let row = &self.nodes[row as usize];
                let cells = row.children.iter().map(|&c| self.write(c, depth + 2));
                cells.collect::<Vec<_>>().join(" & ")
            })
            .collect();
        let aligned = node
            .attributes
            .column_align
            .as_deref()
            .is_some_and(|a| a.split_whitespace().take(2).eq(["right", "left"]));
        let environment = if aligned { "aligned" } else { "matrix" };
        format!(
            "\\begin{{{environment}}} {} \\end{{{environment}}}",
            rows.join(" \\\\ ")
        )
    }

    /// A script's base: its first child, braced when it is several pieces.
    fn base(&self, node: &Node, depth: usize) -> String {
        let Some(&first) = node.children.first() else {
            return "{}".to_string();
        };
        let base = self.write(first, depth + 1);
        let child = &self.nodes[first as usize];
        let pieces = child
            .children
            .iter()
            .filter(|&&c| self.nodes[c as usize].kind != Kind::Hidden)
            .count();
        // One group in delimiters, `\left( … \right)`, needs no braces.
        let fenced = base.starts_with("\\left")
            && base.rsplit(' ').next().is_some_and(|t| t.starts_with("\\right"));
        match (child.kind == Kind::Row && pieces > 1 && !fenced, base.is_empty()) {
            (_, true) => "{}".to_string(),
            (true, false) => format!("{{{base}}}"),
            (false, false) => base,
        }
    }

    /// Whether node `index` is a large operator or a limit (`∑`, `lim`), whose scripts are
    /// its limits.
    fn is_big_operator(&self, index: Option<u32>) -> bool {
        index.is_some_and(|i| {
            let node = &self.nodes[i as usize];
            let text = text_of(node);
            matches!(node.kind, Kind::Operator | Kind::Identifier)
                && (text.chars().count() == 1
                    && "∑∏∐⋃⋂⨁⨂⨀∫∬∭∮⋀⋁".contains(text.as_str())
                    || ["lim", "max", "min", "sup", "inf", "liminf", "limsup"]
                        .contains(&text.as_str()))
        })
    }

    /// A row: its children's TeX in order, each pair of parentheses (or brackets, braces,
    /// angles) as `\left( … \right)`, and a table between them as its matrix.
    fn row(&self, children: &[u32], depth: usize) -> String {
        let pieces: Vec<(String, Option<char>)> = children
            .iter()
            .map(|&c| {
                let node = &self.nodes[c as usize];
                let text = text_of(node);
                let mut chars = text.chars();
                let fence = match (node.kind, chars.next(), chars.next()) {
                    (Kind::Operator, Some(c @ ('(' | ')' | '[' | ']' | '{' | '}' | '⟨' | '⟩' | '|' | '‖')), None) => Some(c),
                    _ => None,
                };
                (self.write(c, depth + 1), fence)
            })
            .filter(|(tex, fence)| !tex.is_empty() || fence.is_some())
            .collect();
        // Which opening delimiter each closing one matches.
        let mut pair: Vec<Option<usize>> = vec![None; pieces.len()];
        let mut stack: Vec<usize> = Vec::new();
        for (i, (_, fence)) in pieces.iter().enumerate() {
            match fence {
                Some('(' | '[' | '{' | '⟨') => stack.push(i),
                Some(close @ (')' | ']' | '}' | '⟩')) => {
                    let open = stack.last().and_then(|&o| pieces[o].1);
                    if open == Some(opening_of(*close)) {
                        let o = stack.pop().expect("an opening one");
                        pair[i] = Some(o);
                        pair[o] = Some(i);
                    }
                }
                _ => {}
            }
        }
        let is_matrix = |at: usize| {
            pieces
                .get(at)
                .is_some_and(|p| p.0.starts_with("\\begin{matrix}"))
        };
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        while i < pieces.len() {
            let (tex, fence) = &pieces[i];
            // Bars pair only around a table.
            let close = match fence {
                Some('|' | '‖') if pieces.get(i + 2).is_some_and(|p| p.1 == *fence) => Some(i + 2),
                _ => pair[i].filter(|&c| c > i),
            };
            if let (Some(open), Some(close)) = (*fence, close) {
                if close == i + 2 && is_matrix(i + 1) {
                    // A table between two delimiters: a matrix of that kind.
                    let kind = match open {
                        '(' => "pmatrix",
                        '[' => "bmatrix",
                        '{' => "Bmatrix",
                        '|' => "vmatrix",
                        '‖' => "Vmatrix",
                        _ => "matrix",
                    };
                    out.push(pieces[i + 1].0.replace("{matrix}", &format!("{{{kind}}}")));
                    i += 3;
                    continue;
                }
                if !matches!(open, '|' | '‖') {
                    out.push(format!("\\left{}", delimiter(&open.to_string())));
                    i += 1;
                    continue;
                }
            }
            match (fence, pair[i]) {
                (Some(close), Some(open)) if open < i => {
                    out.push(format!("\\right{}", delimiter(&close.to_string())));
                }
                _ => out.push(tex.clone()),
            }
            i += 1;
        }
        out.join(" ")
    }
}

/// Whether a `linethickness` is zero (`0`, `0pt`, `0.0em`).
fn is_zero(thickness: &str) -> bool {
    let number: String = thickness
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    number.parse::<f64>().is_ok_and(|n| n == 0.0)
}

/// The opening delimiter a closing one matches.
fn opening_of(close: char) -> char {
    match close {
        ')' => '(',
        ']' => '[',
        '}' => '{',
        _ => '⟨',
    }
}

/// A delimiter as `\left` and `\right` take it (`.` for none, `\{`, `\langle`).
fn delimiter(text: &str) -> String {
    match text.trim() {
        "" => ".".to_string(),
        other => tex_chars(other),
    }
}

/// A node's text, entities decoded, trimmed.
fn text_of(node: &Node) -> String {
    htmlize::unescape(&node.text).trim().to_string()
}

/// An identifier: a function's name as its command (`\sin`), a letter in its alphabet
/// (`\mathbf{V}`), another name upright.
fn identifier(text: &str, variant: Option<&str>) -> String {
    const FUNCTIONS: [&str; 32] = [
        "arccos", "arcsin", "arctan", "arg", "cos", "cosh", "cot", "coth", "csc", "deg", "det",
        "dim", "exp", "gcd", "hom", "inf", "ker", "lg", "lim", "liminf", "limsup", "ln", "log",
        "max", "min", "Pr", "sec", "sin", "sinh", "sup", "tan", "tanh",
    ];
    if text.is_empty() {
        return String::new();
    }
    if FUNCTIONS.contains(&text) {
        return format!("\\{text}");
    }
    let tex = tex_chars(text);
    let letters = text.chars().count();
    let alphabet = match variant.map(str::trim) {
        Some("bold") => Some("mathbf"),
        Some("double-struck") => Some("mathbb"),
        Some("script") => Some("mathcal"),
        Some("fraktur") => Some("mathfrak"),
        Some("sans-serif") => Some("mathsf"),
        Some("monospace") => Some("mathtt"),
        Some("normal") if letters == 1 && text.is_ascii() => Some("mathrm"),
        _ if letters > 1 && text.chars().all(char::is_alphabetic) => Some("mathrm"),
        _ => None,
    };
    match alphabet {
        Some(alphabet) => format!("\\{alphabet}{{{tex}}}"),
        None => tex,
    }
}

/// An operator: a named one as its command (`\lim`), invisible ones as nothing, the others by
/// their characters.
fn operator(text: &str) -> String {
    match text {
        "lim" | "max" | "min" | "sup" | "inf" | "det" | "log" | "sin" | "cos" | "tan" | "exp"
        | "ln" => format!("\\{text}"),
        _ if text.chars().count() > 1 && text.chars().all(char::is_alphabetic) => {
            format!("\\operatorname{{{text}}}")
        }
        _ => tex_chars(text),
    }
}

/// The accent command an over- or underscript of this text is, if it is one.
fn accent(text: &str, over: bool) -> Option<&'static str> {
    Some(match (text, over) {
        ("→" | "⃗" | "⟶", true) => "vec",
        ("^" | "ˆ" | "̂", true) => "hat",
        ("~" | "˜" | "̃" | "∼", true) => "tilde",
        ("¯" | "‾" | "―" | "_" | "−" | "-" | "̅", true) => "overline",
        ("˙" | "̇", true) => "dot",
        ("¨" | "̈", true) => "ddot",
        ("ˇ" | "̌", true) => "check",
        ("˘" | "̆", true) => "breve",
        ("´" | "́", true) => "acute",
        ("`" | "̀", true) => "grave",
        ("⏞", true) => "overbrace",
        ("←", true) => "overleftarrow",
        ("↔", true) => "overleftrightarrow",
        ("¯" | "‾" | "―" | "_" | "−" | "-" | "̲", false) => "underline",
        ("⏟", false) => "underbrace",
        _ => return None,
    })
}

/// Text in `\text{…}`: TeX's special characters escaped.
fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\backslash "),
            '{' | '}' | '$' | '&' | '#' | '%' | '_' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A token's characters as TeX: commands for Greek letters and symbols (each followed by a
/// space), the letters and digits of the mathematical alphabets as plain ones, invisible
/// operators dropped.
fn tex_chars(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().map(plain_letter) {
        match command(c) {
            Some(command) => {
                if !out.is_empty() && !out.ends_with(' ') {
                    out.push(' ');
                }
                out.push_str(command);
                out.push(' ');
            }
            None if ('\u{2061}'..='\u{2064}').contains(&c) || c == '\u{200b}' => {}
            None => out.push(c),
        }
    }
    out.trim_end().to_string()
}

/// A letter or digit of Unicode's mathematical alphabets (`𝑥`, `𝐕`, `𝜎`) as the plain one.
fn plain_letter(c: char) -> char {
    let code = c as u32;
    let of = |base: u32| char::from_u32(base).unwrap_or(c);
    match code {
        0x210E => 'h',
        // Latin letters, A–Z then a–z, in thirteen alphabets.
        0x1D400..=0x1D6A3 => {
            let i = (code - 0x1D400) % 52;
            of(if i < 26 { 0x41 + i } else { 0x61 + i - 26 })
        }
        // Greek letters in five alphabets of 58: capitals, nabla, small letters, variants.
        0x1D6A8..=0x1D7C9 => {
            let i = (code - 0x1D6A8) % 58;
            of(match i {
                17 => 0x398,
                0..=24 => 0x391 + i,
                25 => 0x2207,
                26..=50 => 0x3B1 + i - 26,
                51 => 0x2202,
                52 => 0x3F5,
                53 => 0x3D1,
                54 => 0x3F0,
                55 => 0x3D5,
                56 => 0x3F1,
                _ => 0x3D6,
            })
        }
        0x1D7CE..=0x1D7FF => of(0x30 + (code - 0x1D7CE) % 10),
        _ => c,
    }
}

/// The TeX commands of the characters that need one.
const COMMANDS: &[(char, &str)] = &[
    ('α', "\\alpha"), ('β', "\\beta"), ('γ', "\\gamma"), ('δ', "\\delta"), ('ϵ', "\\epsilon"),
    ('ε', "\\varepsilon"), ('ζ', "\\zeta"), ('η', "\\eta"), ('θ', "\\theta"), ('ϑ', "\\vartheta"),
    ('ι', "\\iota"), ('κ', "\\kappa"), ('λ', "\\lambda"), ('μ', "\\mu"), ('ν', "\\nu"),
    ('ξ', "\\xi"), ('π', "\\pi"), ('ϖ', "\\varpi"), ('ρ', "\\rho"), ('ϱ', "\\varrho"),
    ('σ', "\\sigma"), ('ς', "\\varsigma"), ('τ', "\\tau"), ('υ', "\\upsilon"), ('ϕ', "\\phi"),
    ('φ', "\\varphi"), ('χ', "\\chi"), ('ψ', "\\psi"), ('ω', "\\omega"), ('Γ', "\\Gamma"),
    ('Δ', "\\Delta"), ('Θ', "\\Theta"), ('Λ', "\\Lambda"), ('Ξ', "\\Xi"), ('Π', "\\Pi"),
    ('Σ', "\\Sigma"), ('Υ', "\\Upsilon"), ('Φ', "\\Phi"), ('Ψ', "\\Psi"), ('Ω', "\\Omega"),
    ('−', "-"), ('±', "\\pm"), ('∓', "\\mp"), ('×', "\\times"), ('÷', "\\div"), ('⋅', "\\cdot"),
    ('·', "\\cdot"), ('∘', "\\circ"), ('∗', "\\ast"), ('≤', "\\leq"), ('⩽', "\\leq"),
    ('≥', "\\geq"), ('⩾', "\\geq"), ('≠', "\\neq"), ('≈', "\\approx"), ('≡', "\\equiv"),
    ('∼', "\\sim"), ('≃', "\\simeq"), ('≅', "\\cong"), ('∝', "\\propto"), ('≪', "\\ll"),
    ('≫', "\\gg"), ('≺', "\\prec"), ('≻', "\\succ"), ('∈', "\\in"), ('∉', "\\notin"),
    ('∋', "\\ni"), ('⊂', "\\subset"), ('⊃', "\\supset"), ('⊆', "\\subseteq"), ('⊇', "\\supseteq"),
    ('∪', "\\cup"), ('∩', "\\cap"), ('∅', "\\emptyset"), ('∀', "\\forall"), ('∃', "\\exists"),
    ('¬', "\\neg"), ('∧', "\\wedge"), ('∨', "\\vee"), ('⊕', "\\oplus"), ('⊗', "\\otimes"),
    ('⊥', "\\perp"), ('∥', "\\parallel"), ('∣', "\\mid"), ('∠', "\\angle"), ('→', "\\rightarrow"),
    ('←', "\\leftarrow"), ('↔', "\\leftrightarrow"), ('⇒', "\\Rightarrow"), ('⇐', "\\Leftarrow"),
    ('⇔', "\\Leftrightarrow"), ('↦', "\\mapsto"), ('⟶', "\\longrightarrow"), ('↑', "\\uparrow"),
    ('↓', "\\downarrow"), ('∞', "\\infty"), ('∂', "\\partial"), ('∇', "\\nabla"),
    ('…', "\\ldots"), ('⋯', "\\cdots"), ('⋮', "\\vdots"), ('⋱', "\\ddots"), ('′', "'"),
    ('″', "''"), ('∑', "\\sum"), ('∏', "\\prod"), ('∐', "\\coprod"), ('∫', "\\int"),
    ('∬', "\\iint"), ('∭', "\\iiint"), ('∮', "\\oint"), ('⋃', "\\bigcup"), ('⋂', "\\bigcap"),
    ('√', "\\surd"), ('ℏ', "\\hbar"), ('ℓ', "\\ell"), ('ℜ', "\\Re"), ('ℑ', "\\Im"),
    ('ℵ', "\\aleph"), ('ℝ', "\\mathbb{R}"), ('ℕ', "\\mathbb{N}"), ('ℤ', "\\mathbb{Z}"),
    ('ℚ', "\\mathbb{Q}"), ('ℂ', "\\mathbb{C}"), ('°', "^{\\circ}"), ('⟨', "\\langle"),
    ('〈', "\\langle"), ('⟩', "\\rangle"), ('〉', "\\rangle"), ('⌊', "\\lfloor"), ('⌋', "\\rfloor"),
    ('⌈', "\\lceil"), ('⌉', "\\rceil"), ('‖', "\\|"), ('{', "\\{"), ('}', "\\}"), ('%', "\\%"),
    ('#', "\\#"), ('&', "\\&"), ('$', "\\$"),
];

/// The TeX command of a character, if it needs one.
fn command(c: char) -> Option<&'static str> {
    COMMANDS.iter().find(|(of, _)| *of == c).map(|(_, command)| *command)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The TeX of a MathML string, read as the HTML stage reads it.
    fn tex(mathml: &str) -> String {
        let html = format!("<p>Let {mathml} be.</p>");
        let blocks = crate::html::blocks_from_str(&html, &Default::default()).unwrap();
        let text = &blocks[0].text;
        text.strip_prefix("Let ")
            .and_then(|t| t.strip_suffix(" be."))
            .unwrap_or(text)
            .to_string()
    }

    #[test]
    fn mathml_without_tex_is_written_as_linear_tex() {
        for (mathml, expected) in [
            ("<math><mi>a</mi><mi>x</mi><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><mn>1</mn></math>", "a x x^{2} + 1"),
            ("<math><mi>a</mi><mo>&#x2260;</mo><mn>0</mn></math>", "a \\neq 0"),
            ("<math><mfrac><mi>a</mi><mi>b</mi></mfrac><mo>−</mo><msqrt><mi>x</mi></msqrt><mroot><mn>8</mn><mn>3</mn></mroot></math>", "\\frac{a}{b} - \\sqrt{x} \\sqrt[3]{8}"),
            ("<math><msub><mi>r</mi><mtext>perf</mtext></msub></math>", "r_{\\text{perf}}"),
            ("<math><mi>N</mi><mo stretchy=false>(</mo><mi>s</mi><mo>,</mo><msubsup><mi>σ</mi><mi>i</mi><mn>2</mn></msubsup><mo stretchy=false>)</mo></math>", "N \\left( s , \\sigma_{i}^{2} \\right)"),
            ("<math><munderover><mo>∑</mo><mrow><mi>k</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi></munderover><msub><mi>a</mi><mi>k</mi></msub></math>", "\\sum_{k = 1}^{n} a_{k}"),
            ("<math><mover><mi>F</mi><mo>→</mo></mover><mover><mi>x</mi><mo>˙</mo></mover></math>", "\\vec{F} \\dot{x}"),
            ("<math><mrow><mo>(</mo><mtable><mtr><mtd><mi>a</mi></mtd><mtd><mi>b</mi></mtd></mtr><mtr><mtd><mi>c</mi></mtd><mtd><mi>d</mi></mtd></mtr></mtable><mo>)</mo></mrow></math>", "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}"),
            ("<math><mi mathvariant=bold>V</mi><mi>sin</mi><mi>𝑥</mi><mi>𝜎</mi></math>", "\\mathbf{V} \\sin x \\sigma"),
            ("<math><mo>(</mo><mi>x</mi></math>", "( x"),
        ] {
            assert_eq!(tex(mathml), expected, "{mathml}");
        }
    }

    #[test]
    fn a_tree_past_its_bounds_keeps_its_text_where_it_can() {
        let deep = format!("<math>{}x{}</math>", "<mrow>".repeat(100_000), "</mrow>".repeat(100_000));
        assert_eq!(tex(&deep), "x");
        let mut tree = MathTree::default();
        for _ in 0..MAX_NODES + 10 {
            tree.open("mi", MathAttributes::default(), false);
            tree.push("y", 1 << 20);
            tree.close();
        }
        // Each element's text, then the text of those past the bound, in the math element.
        let written = tree.tex().unwrap();
        assert_eq!(written.matches('y').count(), MAX_NODES + 10);
        assert_eq!(written.split(' ').count(), MAX_NODES);
    }
}
