//! What the page's author structured around a block's text, as the HTML stage saw it
//! ([`Structure`]): a heading's level, a list item's depth and number, a table cell's row and
//! column, a code block's language, and the spans of its text that are code or formulas. The
//! renderers write it (Markdown tables, fenced code, `$…$`); the decision keeps a table, a list
//! and a code block whole.

/// The structure around a block's text (all default for a plain paragraph).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Structure {
    /// `h1` to `h6`: 1 to 6; 0 for a block that is no heading.
    pub heading: u8,
    /// The list item the block is in, if any.
    pub list: Option<ListItem>,
    /// The table cell the block is, if any.
    pub cell: Option<Cell>,
    /// A code block (`<pre>`): the language its classes name, if any.
    pub code: Option<Code>,
    /// Blockquotes around the block.
    pub quotes: u8,
    /// A table's caption: the table's element number.
    pub caption_of: Option<u32>,
    /// Spans of the block's text that are inline code, formulas, subscripts or superscripts,
    /// in order, none overlapping another.
    pub marks: Vec<Mark>,
}

/// A list item around a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListItem {
    /// The list's element number in the document: the items of one list share it.
    pub list: u32,
    /// The item's element number in the document (as [`super::Block::containers`]): blocks
    /// that share it are in one item (its first writes the marker, the others continue it).
    pub item: u32,
    /// How many lists are open around it: 1 for an item of an outermost list.
    pub depth: u8,
    /// Its number in an ordered list (`<ol>`, from its `start`), `None` in another list.
    pub number: Option<u32>,
}

/// A cell of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The table's element number in the document: the cells of one table share it.
    pub table: u32,
    /// The row, from 0, in the table's order (`thead` rows where they are written).
    pub row: u32,
    /// The column, from 0, after the cells before it in its row and their `colspan`s.
    pub column: u32,
    /// How many columns it spans (`colspan`, at least 1, at most [`MAX_SPAN`]).
    pub span: u16,
    /// A header cell (`<th>`, or a cell of `<thead>`).
    pub header: bool,
    /// The cell's element number (blocks that share it are one cell's text).
    pub number: u32,
    /// The table is one of data, written as a table, not a layout's cells: set by the decision
    /// (`decide::units`), which keeps or drops it whole.
    pub data: bool,
}

/// The most columns one cell spans: a larger `colspan` is taken as this.
pub const MAX_SPAN: u16 = 64;

/// A code block's language.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Code {
    /// The language its classes name (`language-rust`, `lang-py`, `data-lang`, a
    /// highlighter's class), lower case; empty when none does.
    pub language: String,
}

/// A span of a block's text that is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// Byte offset of its first byte in the block's text.
    pub start: u32,
    /// Byte offset one past its last byte.
    pub end: u32,
    /// What it is.
    pub kind: MarkKind,
}

/// What a marked span of text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// Inline code (`<code>`, `<kbd>`, `<samp>`, `<tt>`).
    Code,
    /// A formula in the text, as TeX.
    Formula,
    /// A formula shown on its own (`display="block"`, `$$…$$`), as TeX.
    DisplayFormula,
    /// `<sub>`.
    Sub,
    /// `<sup>`.
    Sup,
}
