//! The units the decision keeps whole: a data table, its header with its rows, rather than
//! each short cell on its own ([`tables_whole`]), and a code block beside the text that explains
//! it ([`code_beside_text`]), a list mostly kept ([`lists_whole`]), and a heading between
//! kept text ([`headings_between_text`]). A table is of data when its cells are
//! all it holds (no paragraph, list, code block or other table inside a cell: old blogs lay a
//! page out in tables, whose cells stay blocks decided one by one), it has at least two rows and
//! two columns, and its cells are short.

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
        let kept = 2 * bytes(true) >= bytes(false)
            || before.is_some_and(|i| keep[i])
            || keep.get(run.end).copied().unwrap_or(false);
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

/// Keeps each code block next to a kept block (`keep`, one a block): code reads as
/// boilerplate to the models of prose, and a code block between the paragraphs that explain it
/// is theirs.
pub(super) fn code_beside_text(blocks: &[Block], keep: &mut [bool]) {
    for i in 0..blocks.len() {
        let code = blocks[i].kind == BlockKind::Preformatted && blocks[i].structure.code.is_some();
        let beside = (i > 0 && keep[i - 1]) || keep.get(i + 1).copied().unwrap_or(false);
        if code && !keep[i] && beside {
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

/// Keeps each list whose items' text was mostly kept whole (`keep`, one a block): a list of
/// the text keeps its short items with its long ones.
pub(super) fn lists_whole(blocks: &[Block], keep: &mut [bool]) {
    let mut lists: std::collections::HashMap<u32, (usize, usize)> = Default::default();
    for (block, &kept) in blocks.iter().zip(keep.iter()) {
        if let Some(item) = block.structure.list {
            let bytes = lists.entry(item.list).or_default();
            bytes.0 += block.text.len();
            if kept {
                bytes.1 += block.text.len();
            }
        }
    }
    for (block, kept) in blocks.iter().zip(keep.iter_mut()) {
        let Some(item) = block.structure.list else {
            continue;
        };
        let (all, of_kept) = lists[&item.list];
        if 2 * of_kept > all && block.kind == BlockKind::ListItem {
            *kept = true;
        }
    }
}

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

/// Whether the cells of one table, in order, are a data table's: two rows and two columns at
/// least, and short cells.
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
    rows >= 2
        && columns >= 2
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
    fn a_layout_table_s_cells_are_decided_one_by_one() {
        for html in [
            // A cell holding a paragraph, a list or another table lays the page out.
            "<table><tr><td>Menu</td><td><p>The story of the day.</p></td></tr><tr><td>a</td><td>b</td></tr></table>",
            "<table><tr><td>Menu</td><td>x</td></tr><tr><td><ul><li>a</li></ul></td><td>b</td></tr></table>",
            // One column, or one row.
            "<table><tr><td>a</td></tr><tr><td>b</td></tr></table>",
            "<table><tr><td>a</td><td>b</td></tr></table>",
        ] {
            let got = decided(html, |b| b.text != "a");
            assert!(got.iter().all(|(_, _, data)| !data), "{html}: {got:?}");
            assert!(got.iter().any(|(text, kept, _)| text == "a" && !kept), "{html}");
        }
    }
}
