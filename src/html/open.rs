//! The stack of open block elements ([`Stack`]): each element's tag, what it suggests, its
//! number in the document, and the counts that give the structure of what is inside it (a
//! list's items, a table's rows, a row's columns), so that a block knows the heading, list item,
//! table cell and code block it is in ([`Stack::structure`]).

use super::tags::{Opening, Tag};
use crate::block::{Cell, Code, ListItem, Structure, MAX_SPAN};

/// The most block elements kept open at once; deeper nesting is treated as flat.
pub(super) const MAX_STACK_DEPTH: usize = 256;

/// One open block element.
#[derive(Clone, Debug)]
pub(super) struct Open {
    pub(super) tag: Tag,
    /// What its tag, class and id suggest ([`crate::block::ContainerHints`] bits).
    pub(super) hints: u8,
    /// Its number in the document ([`crate::block::Block::containers`]).
    pub(super) number: u32,
    /// A list: the number its next item takes; a table: its next row; a row: its next column.
    next: u32,
    /// An item: its number in its list; a row: its row; a cell: its column.
    at: u32,
    /// A cell: the columns it spans.
    span: u16,
    /// A `<pre>`: the language its classes (or its `<code>`'s) name.
    language: Option<String>,
    /// A table: for each of its first [`MAX_SPANNED_COLUMNS`] columns, how many rows from the
    /// current one a cell of a row before (`rowspan`) still takes.
    spanned: Vec<u16>,
}

/// The columns of a table whose cells spanning rows are followed; a cell in a later column
/// spans one row.
const MAX_SPANNED_COLUMNS: usize = 256;

/// The open block elements, innermost last.
#[derive(Debug, Default)]
pub(super) struct Stack {
    open: Vec<Open>,
}

impl Stack {
    /// How many elements are open.
    pub(super) fn len(&self) -> usize {
        self.open.len()
    }

    /// The open elements, outermost first.
    pub(super) fn iter(&self) -> impl DoubleEndedIterator<Item = &Open> {
        self.open.iter()
    }

    /// The number in the document of the open element at `at`.
    pub(super) fn number(&self, at: usize) -> u32 {
        self.open[at].number
    }

    /// The tag of the open element at `at`.
    pub(super) fn tag(&self, at: usize) -> Tag {
        self.open[at].tag
    }

    /// The innermost open element's tag.
    pub(super) fn last(&self) -> Option<Tag> {
        self.open.last().map(|open| open.tag)
    }

    /// Whether an element with this tag is open.
    pub(super) fn contains(&self, tag: Tag) -> bool {
        self.open.iter().any(|open| open.tag == tag)
    }

    /// The place of the innermost open element that `is`.
    pub(super) fn innermost(&self, is: impl Fn(Tag) -> bool) -> Option<usize> {
        self.open.iter().rposition(|open| is(open.tag))
    }

    /// The number of each open element, outermost first.
    pub(super) fn numbers(&self) -> Vec<u32> {
        self.open.iter().map(|open| open.number).collect()
    }

    /// What the open elements suggest, all together.
    pub(super) fn hints(&self) -> u8 {
        self.open.iter().fold(0, |all, open| all | open.hints)
    }

    /// Closes the open elements from `at` on.
    pub(super) fn truncate(&mut self, at: usize) {
        self.open.truncate(at);
    }

    /// Opens an element numbered `number` (unless [`MAX_STACK_DEPTH`] are open), counting it in
    /// the list, table or row it opens in.
    pub(super) fn push(&mut self, tag: Tag, hints: u8, number: u32, opening: Opening) {
        if self.open.len() >= MAX_STACK_DEPTH {
            return;
        }
        let language = match tag {
            Tag::Pre => opening.language.or_else(|| {
                let div = self.innermost(|tag| tag == Tag::Div)?;
                self.open[div].language.clone()
            }),
            _ => opening.language,
        };
        let mut open = Open {
            tag,
            hints,
            number,
            next: 0,
            at: 0,
            span: 1,
            language,
            spanned: Vec::new(),
        };
        match tag {
            Tag::Ol => open.next = opening.start.unwrap_or(1),
            Tag::Ul | Tag::Menu | Tag::Dir => open.next = 1,
            Tag::Li => open.at = self.count_in(is_list, 1),
            Tag::Tr => {
                open.at = self.count_in(|tag| tag == Tag::Table, 1);
                // The cells spanning rows above take one row less.
                if let Some(table) = self.table_of_row(self.open.len()) {
                    for rows in &mut self.open[table].spanned {
                        *rows = rows.saturating_sub(1);
                    }
                }
            }
            Tag::Td | Tag::Th => {
                self.open_implied_row();
                let span = opening.span.unwrap_or(1).clamp(1, u32::from(MAX_SPAN));
                open.span = span as u16;
                open.at = self.place_cell(span, opening.rows.unwrap_or(1));
            }
            _ => {}
        }
        self.open.push(open);
    }

    /// A cell with no row open in its table (`<thead><th>…`) is in a row of its own, as the
    /// HTML parser makes one: that row is opened, numbered as its table (it is no element of
    /// the page).
    fn open_implied_row(&mut self) {
        let Some(at) = self.innermost(|tag| matches!(tag, Tag::Tr | Tag::Table)) else {
            return;
        };
        if self.open[at].tag == Tag::Table {
            let table = self.open[at].number;
            self.push(Tag::Tr, 0, table, Opening::default());
        }
    }

    /// The place of the table the row opening at `at` (or open at `at`) is in.
    fn table_of_row(&self, at: usize) -> Option<usize> {
        let table = self.open[..at]
            .iter()
            .rposition(|o| matches!(o.tag, Tag::Table | Tag::Tr))?;
        (self.open[table].tag == Tag::Table).then_some(table)
    }

    /// The column of a cell spanning `span` columns and `rows` rows in the innermost open row:
    /// the first from the row's next one not taken by a cell above spanning rows. The row's
    /// next column follows it; the table notes the rows it takes.
    fn place_cell(&mut self, span: u32, rows: u32) -> u32 {
        let Some(row) = self.innermost(|tag| matches!(tag, Tag::Tr | Tag::Table)) else {
            return 0;
        };
        if self.open[row].tag != Tag::Tr {
            return 0;
        }
        let Some(table) = self.table_of_row(row) else {
            return self.count_in(|tag| tag == Tag::Tr, span);
        };
        let mut column = self.open[row].next;
        let spanned = &mut self.open[table].spanned;
        while spanned.get(column as usize).is_some_and(|&r| r > 0) {
            column += 1;
        }
        // `rowspan=0` spans the rest of its section: taken as one row.
        let rows = rows.clamp(1, u32::from(u16::MAX)) as u16;
        let end = (column.saturating_add(span) as usize).min(MAX_SPANNED_COLUMNS);
        if spanned.len() < end {
            spanned.resize(end, 0);
        }
        let start = (column as usize).min(end);
        spanned[start..end].fill(rows);
        self.open[row].next = column.saturating_add(span);
        column
    }

    /// Takes `n` from the count of the innermost open element that `is` (within the table
    /// the element opens in), giving the count before.
    fn count_in(&mut self, is: impl Fn(Tag) -> bool, n: u32) -> u32 {
        let Some(at) = self.innermost(|tag| is(tag) || tag == Tag::Table) else {
            return 0;
        };
        let open = &mut self.open[at];
        if !is(open.tag) {
            return 0;
        }
        let count = open.next;
        open.next = open.next.saturating_add(n);
        count
    }

    /// Sets the language of the innermost open `<pre>` (from its `<code>`'s classes) if it
    /// names none yet.
    pub(super) fn set_code_language(&mut self, language: String) {
        if let Some(at) = self.innermost(|tag| tag == Tag::Pre) {
            self.open[at].language.get_or_insert(language);
        }
    }

    /// The structure around a block starting now: its heading, list item, cell, code block
    /// and blockquotes. A block is a cell only when no element inside the cell decides its
    /// kind (a list or a paragraph in a cell is a layout's).
    pub(super) fn structure(&self) -> Structure {
        let heading = self
            .innermost(Tag::is_heading)
            .map_or(0, |at| heading_level(self.open[at].tag));
        let list = self.innermost(|tag| tag == Tag::Li).map(|at| {
            let item = &self.open[at];
            let lists = self.open[..at].iter().filter(|o| is_list(o.tag));
            let list = self.open[..at].iter().rposition(|o| is_list(o.tag));
            ListItem {
                list: list.map_or(item.number, |l| self.open[l].number),
                item: item.number,
                depth: lists.count().clamp(1, usize::from(u8::MAX)) as u8,
                number: list
                    .filter(|&l| self.open[l].tag == Tag::Ol)
                    .map(|_| item.at),
            }
        });
        let cell = self.innermost_kind().and_then(|at| self.cell(at));
        let code = self.innermost(|tag| tag == Tag::Pre).map(|at| Code {
            language: self.open[at].language.clone().unwrap_or_default(),
        });
        let quotes = self.open.iter().filter(|o| o.tag == Tag::Blockquote).count();
        let caption_of = self
            .innermost_kind()
            .filter(|&at| self.open[at].tag == Tag::Caption)
            .and_then(|at| self.open[..at].iter().rposition(|o| o.tag == Tag::Table))
            .map(|table| self.open[table].number);
        Structure {
            heading,
            list,
            cell,
            code,
            quotes: quotes.min(usize::from(u8::MAX)) as u8,
            caption_of,
            marks: Vec::new(),
        }
    }

    /// The place of the innermost element that decides a block's kind.
    fn innermost_kind(&self) -> Option<usize> {
        self.innermost(|tag| {
            tag.is_heading()
                || matches!(
                    tag,
                    Tag::Li
                        | Tag::Dt
                        | Tag::Dd
                        | Tag::Td
                        | Tag::Th
                        | Tag::Pre
                        | Tag::P
                        | Tag::Blockquote
                        | Tag::Caption
                        | Tag::Figcaption
                        | Tag::Form
                )
        })
    }

    /// The cell at `at`, if it is a cell in a row of a table.
    fn cell(&self, at: usize) -> Option<Cell> {
        let cell = &self.open[at];
        if !matches!(cell.tag, Tag::Td | Tag::Th) {
            return None;
        }
        let row = self.open[..at].iter().rposition(|o| o.tag == Tag::Tr)?;
        let table = self.open[..row].iter().rposition(|o| o.tag == Tag::Table)?;
        let in_head = self.open[table..row].iter().any(|o| o.tag == Tag::Thead);
        Some(Cell {
            table: self.open[table].number,
            row: self.open[row].at,
            column: cell.at,
            span: cell.span,
            header: cell.tag == Tag::Th || in_head,
            number: cell.number,
            data: false,
        })
    }
}

/// A list element, whose items are `<li>`.
fn is_list(tag: Tag) -> bool {
    matches!(tag, Tag::Ul | Tag::Ol | Tag::Menu | Tag::Dir)
}

/// A heading tag's level, 1 to 6.
fn heading_level(tag: Tag) -> u8 {
    match tag {
        Tag::H1 => 1,
        Tag::H2 => 2,
        Tag::H3 => 3,
        Tag::H4 => 4,
        Tag::H5 => 5,
        _ => 6,
    }
}

#[cfg(test)]
mod tests {
    use crate::block::{Block, Cell, ListItem};
    use crate::html::{blocks_from_str, HtmlSettings};

    fn blocks(html: &str) -> Vec<Block> {
        blocks_from_str(html, &HtmlSettings::default()).unwrap()
    }

    #[test]
    fn list_items_know_their_depth_and_number() {
        let got = blocks("<ol start=3><li>a</li><li>b<ul><li>c</li></ul></li></ol>");
        let items: Vec<(String, Option<ListItem>)> =
            got.iter().map(|b| (b.text.clone(), b.structure.list)).collect();
        let at = |i: usize| (items[i].1.unwrap().depth, items[i].1.unwrap().number);
        assert_eq!(items.len(), 3, "{items:?}");
        assert_eq!(at(0), (1, Some(3)));
        assert_eq!(at(1), (1, Some(4)));
        assert_eq!(at(2), (2, None));
        assert_eq!(items[0].1.unwrap().list, items[1].1.unwrap().list);
        assert_ne!(items[1].1.unwrap().list, items[2].1.unwrap().list);
    }

    #[test]
    fn cells_know_their_row_and_column() {
        let got = blocks(
            "<table><thead><th>h1<th colspan=2>h2</thead>\
             <tr><td>a<td>b<td>c</tr><tr><td><p>para</p></td></tr></table>",
        );
        let cells: Vec<(String, Option<Cell>)> =
            got.iter().map(|b| (b.text.clone(), b.structure.cell)).collect();
        let at = |i: usize| cells[i].1.map(|c| (c.row, c.column, c.span, c.header));
        assert_eq!(at(0), Some((0, 0, 1, true)), "a row implied in thead: {cells:?}");
        assert_eq!(at(1), Some((0, 1, 2, true)));
        assert_eq!(at(2), Some((1, 0, 1, false)));
        assert_eq!(at(4), Some((1, 2, 1, false)));
        assert_eq!(cells[5].0, "para");
        assert_eq!(at(5), None, "a paragraph in a cell lays the page out");
        // A cell spanning rows takes its column in the rows below.
        let spans = blocks(
            "<table><tr><th rowspan=2>h<th>x<th>y<tr><td>a<td>b<tr><td>c<td rowspan=0>d<td>e</table>",
        );
        let columns: Vec<(String, u32, u32)> = spans
            .iter()
            .filter_map(|b| b.structure.cell.map(|c| (b.text.clone(), c.row, c.column)))
            .collect();
        let want = [("h", 0, 0), ("x", 0, 1), ("y", 0, 2), ("a", 1, 1), ("b", 1, 2), ("c", 2, 0), ("d", 2, 1), ("e", 2, 2)];
        assert_eq!(
            columns,
            want.map(|(t, r, c)| (t.to_string(), r, c)),
            "{columns:?}"
        );
        let huge = blocks("<table><tr><td colspan=99999999>a<td>b</table>");
        assert_eq!(huge[1].structure.cell.unwrap().column, u32::from(crate::block::MAX_SPAN));
    }

    #[test]
    fn headings_and_code_blocks_know_their_level_and_language() {
        let got = blocks(
            "<h3>Three</h3><div class='highlight highlight-source-js'><pre>x()</pre></div>\
             <pre><code class='language-Rust'>fn f() {}</code></pre><pre data-lang=go>a</pre>",
        );
        assert_eq!(got[0].structure.heading, 3);
        let language = |i: usize| got[i].structure.code.clone().unwrap().language;
        assert_eq!((language(1), language(2), language(3)), ("js".into(), "rust".into(), "go".into()));
    }
}
