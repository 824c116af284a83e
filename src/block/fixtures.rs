//! Blocks made by hand for the tests of the stages that read them (evidence, decision): a
//! block under given elements, a menu, repeated records, a page of prose.

use super::{Block, BlockKind, ContainerHints};

/// A paragraph `text` under the elements `containers` (outermost first), with `link_bytes` of
/// it in links.
pub fn block(index: u32, containers: &[u32], text: &str, link_bytes: usize) -> Block {
    let mut b = Block::new(index, BlockKind::Paragraph, text);
    b.containers = containers.to_vec();
    b.link_bytes = link_bytes;
    b
}

/// A menu of the links `items`: body(0) > nav(1) > one link each.
pub fn menu(items: &[&str]) -> Vec<Block> {
    items
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut link = block(i as u32, &[0, 1], t, t.len());
            link.hints = ContainerHints(ContainerHints::NAVIGATION);
            link
        })
        .collect()
}

/// Appends `count` records to `blocks`: body(0) > parent(2) > record(3 + r), each holding
/// the blocks `fields(r)` lists, as text and bytes in links.
pub fn push_records(
    blocks: &mut Vec<Block>,
    count: u32,
    fields: impl Fn(u32) -> Vec<(String, usize)>,
) {
    for r in 0..count {
        for (text, link_bytes) in fields(r) {
            let n = blocks.len() as u32;
            blocks.push(block(n, &[0, 2, 3 + r], &text, link_bytes));
        }
    }
}

/// Paragraphs of `texts`, outside links, all under one element.
pub fn siblings(texts: &[&str]) -> Vec<Block> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| block(i as u32, &[0], t, 0))
        .collect()
}

/// body(0) > nav(1) > 2 links; body > article(2) > 3 paragraphs; body > aside(3) > teaser.
pub fn page() -> Vec<Block> {
    let prose = "The council met on Monday to vote on the plan for the coast road, which has been closed since the storm. \
                 Work on the new sea wall starts in May and should take until the end of the year, officials said.";
    let teaser = "Other news: the mayor opens a new library in the old mill, with a cafe and a reading garden for children.";
    vec![
        block(0, &[0, 1], "Home", 4),
        block(1, &[0, 1], "News", 4),
        block(2, &[0, 2], prose, 0),
        block(3, &[0, 2], prose, 0),
        block(4, &[0, 2], prose, 0),
        block(5, &[0, 3], teaser, teaser.len()),
    ]
}
