//! The units the decision keeps whole: a data table, its header with its rows, rather than
//! each short cell on its own ([`tables_whole`]), a code block beside the text that explains
//! it ([`code_beside_text`]), a list mostly kept or standing in kept text ([`lists_whole`]), a
//! heading between kept text ([`headings_between_text`]), and a small page whose few words
//! were mostly dropped ([`small_page_whole`]). A table is of data when its cells are all it
//! holds (no paragraph, list, code block or other table inside a cell: old blogs lay a page
//! out in tables, whose cells stay blocks decided one by one), it has at least two columns,
//! and its cells are short; a table of one row is kept only by its own text.

use std::ops::Range;

use crate::block::{Block, BlockKind};

/// A data table's cell holds at most this many bytes of text…
const MAX_CELL_BYTES: usize = 1000;
/// …and its cells this many on average.
const MAX_MEAN_CELL_BYTES: usize = 200;

/// Marks each data table among `blocks` that is kept ([`crate::block::Cell::data`]) and keeps
/// it whole (`keep`, one a block): kept when its cells' text was mostly kept, or when the block
/// before or after it is (a table of the main content, whose short cells alone read as
/// boilerplate). A table not kept is left to the classifier's decision of each
/// cell, as a layout's.
pub(super) fn tables_whole(blocks: &mut [Block], keep: &mut [bool]) {
    for run in data_tables(blocks) {
        let bytes = |only_kept: bool| -> usize {
            run.clone()
                .filter(|&i| !only_kept || keep[i])
                .map(|i| blocks[i].text.len())
                .sum()
        };
        let table = blocks[run.start].structure.cell.map(|c| c.table);
        // The block before it (its caption passed over) or after it.
        let before = (0..run.start)
            .rev()
            .find(|&i| blocks[i].structure.caption_of != table);
        // A row alone may be a layout's: only its own text keeps it.
        let one_row = blocks[run.clone()].iter().all(|b| {
            b.structure.cell.map(|c| c.row) == blocks[run.start].structure.cell.map(|c| c.row)
        });
        let kept = 2 * bytes(true) >= bytes(false)
            || (!one_row
                && (before.is_some_and(|i| keep[i])
                    || keep.get(run.end).copied().unwrap_or(false)));
        if !kept {
            // A table dropped is no table written: its cells stay as the classifier left them.
            continue;
        }
        for i in run {
            keep[i] = true;
            if let Some(cell) = &mut blocks[i].structure.cell {
                cell.data = true;
            }
        }
    }
}

/// Keeps each code block next to a kept block (`keep`, one a block), passing over the few
/// short blocks of a code block's frame (a tab's language, "Copy"): code reads as boilerplate
/// to the models of prose, and a code block between the paragraphs that explain it is theirs.
pub(super) fn code_beside_text(blocks: &[Block], keep: &mut [bool]) {
    /// The most blocks of a frame passed over on either side, each this short.
    const FRAME_BLOCKS: usize = 3;
    const FRAME_BYTES: usize = 40;
    let frame = |i: usize, keep: &[bool]| {
        blocks[i].text.len() <= FRAME_BYTES && !keep[i] && blocks[i].structure.code.is_none()
    };
    for i in 0..blocks.len() {
        if blocks[i].kind != BlockKind::Preformatted
            || blocks[i].structure.code.is_none()
            || keep[i]
        {
            continue;
        }
        let before = (i.saturating_sub(FRAME_BLOCKS + 1)..i)
            .rev()
            .find(|&j| !frame(j, keep))
            .is_some_and(|j| keep[j]);
        let after = (i + 1..blocks.len().min(i + FRAME_BLOCKS + 2))
            .find(|&j| !frame(j, keep))
            .is_some_and(|j| keep[j]);
        if before || after {
            keep[i] = true;
        }
    }
}

/// Keeps each heading between kept text (`keep`, one a block): a section's heading, whose few
/// words alone read as boilerplate, with the text before and after it.
pub(super) fn headings_between_text(blocks: &[Block], keep: &mut [bool]) {
    for i in 1..blocks.len().saturating_sub(1) {
        if blocks[i].kind == BlockKind::Heading && !keep[i] && keep[i - 1] && keep[i + 1] {
            keep[i] = true;
        }
    }
}

/// Keeps each list whole (`keep`, one a block) whose items' text was mostly kept, or that the
/// kept block before it introduces (a colon at its end, or a section's heading) and that is
/// not mostly links (a menu, a rail of other stories). A list of the text keeps its short
/// items with its long ones. (A list merely between kept blocks is not: on news pages those
/// are toolbars, bylines and boxes of offers.)
pub(super) fn lists_whole(blocks: &[Block], keep: &mut [bool]) {
    #[derive(Default)]
    struct List {
        first: usize,
        bytes: usize,
        kept_bytes: usize,
        link_bytes: usize,
    }
    let mut lists: std::collections::HashMap<u32, List> = Default::default();
    for (i, (block, &kept)) in blocks.iter().zip(keep.iter()).enumerate() {
        if let Some(item) = block.structure.list {
            let list = lists.entry(item.list).or_insert(List {
                first: i,
                ..List::default()
            });
            list.bytes += block.text.len();
            list.link_bytes += block.link_bytes;
            if kept {
                list.kept_bytes += block.text.len();
            }
        }
    }
    let whole: std::collections::HashSet<u32> = lists
        .iter()
        .filter(|(_, list)| {
            let before = list.first.checked_sub(1).filter(|&i| keep[i]);
            // A section's heading introduces its list; a headline, its byline's parts.
            let introduced = before.is_some_and(|i| {
                (blocks[i].kind == BlockKind::Heading && blocks[i].structure.heading >= 2)
                    || blocks[i].text.trim_end().ends_with(':')
            });
            2 * list.kept_bytes > list.bytes || (2 * list.link_bytes <= list.bytes && introduced)
        })
        .map(|(&id, _)| id)
        .collect();
    for (block, kept) in blocks.iter().zip(keep.iter_mut()) {
        let in_whole = block
            .structure
            .list
            .is_some_and(|item| whole.contains(&item.list));
        if in_whole && matches!(block.kind, BlockKind::ListItem | BlockKind::Paragraph) {
            *kept = true;
        }
    }
}

/// A small page's text is all its content: a page of at most [`SMALL_PAGE_WORDS`] words of
/// which less than [`SMALL_PAGE_KEPT`] were kept keeps every block that is not mostly links.
pub(super) fn small_page_whole(blocks: &[Block], keep: &mut [bool]) {
    let words: usize = blocks.iter().map(Block::words).sum();
    let kept: usize = blocks
        .iter()
        .zip(keep.iter())
        .filter(|(_, &k)| k)
        .map(|(b, _)| b.words())
        .sum();
    if words > SMALL_PAGE_WORDS || kept * SMALL_PAGE_KEPT.1 >= words * SMALL_PAGE_KEPT.0 {
        return;
    }
    for (block, kept) in blocks.iter().zip(keep.iter_mut()) {
        if 2 * block.link_bytes < block.text.len() {
            *kept = true;
        }
    }
}

/// A page of at most this many words is small…
const SMALL_PAGE_WORDS: usize = 200;
/// …and when less than this share of them was kept, all of it is.
const SMALL_PAGE_KEPT: (usize, usize) = (1, 4);

/// The runs of blocks that are data tables: the cells of one table in a row, with nothing
/// else of the table before or after them but its caption.
fn data_tables(blocks: &[Block]) -> Vec<Range<usize>> {
    let mut tables = Vec::new();
    let mut i = 0;
    while i < blocks.len() {
        let Some(cell) = blocks[i].structure.cell else {
            i += 1;
            continue;
        };
        let start = i;
        while blocks
            .get(i)
            .and_then(|b| b.structure.cell)
            .is_some_and(|c| c.table == cell.table)
        {
            i += 1;
        }
        let inside = |block: &Block| {
            block.containers.contains(&cell.table) && block.structure.caption_of != Some(cell.table)
        };
        let alone =
            !blocks[..start].last().is_some_and(inside) && !blocks.get(i).is_some_and(inside);
        if alone && is_of_data(&blocks[start..i]) {
            tables.push(start..i);
        }
    }
    tables
}

/// Whether the cells of one table, in order, are a data table's: two columns at least, short
/// cells, not mostly links, and a header or two cells a row.
fn is_of_data(cells: &[Block]) -> bool {
    let rows = cells
        .iter()
        .filter_map(|b| b.structure.cell)
        .map(|c| c.row)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let columns = cells
        .iter()
        .filter_map(|b| b.structure.cell)
        .map(|c| c.column + u32::from(c.span))
        .max()
        .unwrap_or(0);
    let bytes: usize = cells.iter().map(|b| b.text.len()).sum();
    let links: usize = cells.iter().map(|b| b.link_bytes).sum();
    let header = cells
        .iter()
        .any(|b| b.structure.cell.is_some_and(|c| c.header));
    columns >= 2
        && cells.iter().all(|b| b.text.len() <= MAX_CELL_BYTES && !b.truncated)
        && bytes <= MAX_MEAN_CELL_BYTES * cells.len()
        // A list of links laid out in a table (a menu, a listing's titles) is no data.
        && 2 * links <= bytes
        && (header || cells.len() >= 2 * rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::{blocks_from_str, HtmlSettings};

    fn decided(html: &str, keep: impl Fn(&Block) -> bool) -> Vec<(String, bool, bool)> {
        let mut blocks = blocks_from_str(html, &HtmlSettings::default()).unwrap();
        let mut kept: Vec<bool> = blocks.iter().map(&keep).collect();
        tables_whole(&mut blocks, &mut kept);
        blocks
            .iter()
            .zip(kept)
            .map(|(b, k)| (b.text.clone(), k, b.structure.cell.is_some_and(|c| c.data)))
            .collect()
    }

    #[test]
    fn a_data_table_is_kept_whole_with_its_header() {
        let table = "<table><tr><th>Platform</th><th>Version</th></tr>\
            <tr><td>Linux</td><td>3.8 to 3.13</td></tr><tr><td>Windows</td><td>3.10</td></tr></table>";
        // The short cells alone would be dropped; the long ones kept: the table is kept.
        let got = decided(table, |b| b.text.len() > 5);
        assert!(got.iter().all(|(_, kept, data)| *kept && *data), "{got:?}");
        // Mostly dropped, and alone: no table, each cell as the classifier left it.
        let got = decided(table, |b| b.text == "3.10");
        assert!(got
            .iter()
            .all(|(text, kept, data)| *kept == (text == "3.10") && !data));
    }

    #[test]
    fn a_table_of_one_row_is_kept_by_its_own_text_only() {
        let row =
            "<table><tr><td>Home</td><td>Contact us</td></tr></table><p>The text of the page.</p>";
        let got = decided(row, |b| b.text.len() > 12);
        assert!(
            got.iter()
                .all(|(text, kept, data)| *kept == (text.len() > 12) && !data),
            "{got:?}"
        );
        let got = decided(row, |b| b.text.len() > 5);
        assert!(got.iter().all(|(_, kept, _)| *kept), "{got:?}");
        assert!(got[..2].iter().all(|(_, _, data)| *data), "{got:?}");
    }

    #[test]
    fn a_layout_table_s_cells_are_decided_one_by_one() {
        for html in [
            // A cell holding a paragraph, a list or another table lays the page out.
            "<table><tr><td>Menu</td><td><p>The story of the day.</p></td></tr><tr><td>a</td><td>b</td></tr></table>",
            "<table><tr><td>Menu</td><td>x</td></tr><tr><td><ul><li>a</li></ul></td><td>b</td></tr></table>",
            // One column.
            "<table><tr><td>a</td></tr><tr><td>b</td></tr></table>",
        ] {
            let got = decided(html, |b| b.text != "a");
            assert!(got.iter().all(|(_, _, data)| !data), "{html}: {got:?}");
            assert!(got.iter().any(|(text, kept, _)| text == "a" && !kept), "{html}");
        }
    }

    /// Each block's text and whether `rule` leaves it kept, from `keep`'s first decision.
    fn after(
        html: &str,
        keep: impl Fn(&Block) -> bool,
        rule: fn(&[Block], &mut [bool]),
    ) -> Vec<(String, bool)> {
        let blocks = blocks_from_str(html, &HtmlSettings::default()).unwrap();
        let mut kept: Vec<bool> = blocks.iter().map(&keep).collect();
        rule(&blocks, &mut kept);
        blocks.into_iter().map(|b| b.text).zip(kept).collect()
    }

    #[test]
    fn a_list_in_kept_text_is_kept_whole_and_a_menu_is_not() {
        let long = |b: &Block| b.text.len() > 20;
        let list = "<p>If your main concern is one of these:</p><ul><li><p>Dust</p></li><li>Pollen</li></ul>";
        let got = after(list, long, lists_whole);
        assert!(got.iter().all(|(_, kept)| *kept), "{got:?}");
        // After a section's heading; but not after a headline, nor merely between kept text.
        let sections = "<h2>What you need to check</h2><ul><li>Dust</li><li>Pollen</li></ul>";
        assert!(
            after(sections, |b| b.kind == BlockKind::Heading, lists_whole)
                .iter()
                .all(|(_, kept)| *kept)
        );
        let byline = "<h1>The story of the day</h1><ul><li>May 3</li><li>By Ann</li></ul>";
        let got = after(byline, |b| b.kind == BlockKind::Heading, lists_whole);
        assert!(
            got.iter().any(|(text, kept)| text == "By Ann" && !kept),
            "{got:?}"
        );
        let between = "<p>The first paragraph of the text.</p><ul><li>Dust</li><li>Pollen</li></ul><p>The paragraph after the list.</p>";
        assert!(after(between, long, lists_whole)
            .iter()
            .any(|(text, kept)| text == "Dust" && !kept));
        // Links, or after nothing kept: left as they were.
        let menu = "<p>The first paragraph of the text:</p><ul><li><a href=/a>Home</a></li><li><a href=/b>News</a></li></ul>";
        let got = after(menu, long, lists_whole);
        assert!(
            got.iter().any(|(text, kept)| text == "Home" && !kept),
            "{got:?}"
        );
        let alone = "<h3>Menu</h3><ul><li>Dust</li><li>Pollen</li></ul><p>The paragraph after the list.</p>";
        let got = after(alone, long, lists_whole);
        assert!(
            got.iter().any(|(text, kept)| text == "Dust" && !kept),
            "{got:?}"
        );
    }

    #[test]
    fn a_code_block_in_its_frame_is_kept_beside_the_text() {
        let page = "<p>Add the middleware to your endpoint like this.</p><div>Node.js</div><div>Copy</div>\
            <pre><code>app.use(pay)</code></pre><div>Python</div>";
        let got = after(page, |b| b.text.len() > 20, code_beside_text);
        assert!(
            got.iter()
                .any(|(text, kept)| text == "app.use(pay)" && *kept),
            "{got:?}"
        );
        assert!(
            got.iter().any(|(text, kept)| text == "Copy" && !kept),
            "{got:?}"
        );
        // Beside nothing kept.
        let lone = "<div>Node.js</div><pre><code>app.use(pay)</code></pre><div>Python</div>";
        let got = after(lone, |b| b.text.len() > 20, code_beside_text);
        assert!(got.iter().all(|(_, kept)| !kept), "{got:?}");
    }

    #[test]
    fn a_small_page_mostly_dropped_is_kept_but_its_links() {
        let page =
            "<h1>Welcome</h1><p>Hello, welcome to my website!</p><p><a href=/a>Project one</a></p>";
        let got = after(page, |_| false, small_page_whole);
        assert_eq!(
            got.iter().map(|(_, kept)| *kept).collect::<Vec<_>>(),
            [true, true, false]
        );
        // Mostly kept already, or not small: as it was.
        let got = after(page, |b| b.text.starts_with('H'), small_page_whole);
        assert!(got.iter().any(|(text, kept)| text == "Welcome" && !kept));
        let big = format!(
            "<p>{}</p><p>Dropped.</p>",
            "word ".repeat(SMALL_PAGE_WORDS + 1)
        );
        assert!(after(&big, |_| false, small_page_whole)
            .iter()
            .all(|(_, kept)| !kept));
    }
}
