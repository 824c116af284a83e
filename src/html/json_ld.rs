//! The schema.org types a JSON-LD script declares (`"@type": "NewsArticle"` or a list of
//! them), read from its text without parsing it: scripts in the wild are often not valid JSON
//! (trailing commas, HTML comments, several objects in a row), and only the types are wanted.

use crate::block::SchemaTypes;

/// The most bytes of one JSON-LD script that are read for types (a page's own declarations
/// come first; the rest is often a long list of items).
pub(super) const MAX_JSON_LD_BYTES: usize = 64 * 1024;

/// The [`SchemaTypes`] bits of every `"@type"` value in `text`, but [`SchemaTypes::COMMENT`]:
/// an article lists its readers' comments in JSON-LD, while a forum marks its posts up.
pub(super) fn json_ld_types(text: &str) -> u8 {
    let mut bits = 0;
    let mut rest = text;
    while let Some(at) = memchr::memmem::find(rest.as_bytes(), b"\"@type\"") {
        rest = rest[at + 7..].trim_start();
        let Some(value) = rest.strip_prefix(':') else {
            continue;
        };
        let value = value.trim_start();
        let (list, end) = match value.strip_prefix('[') {
            Some(list) => (list, list.find(']').unwrap_or(list.len())),
            None => (
                value,
                value
                    .get(1..)
                    .and_then(|v| v.find('"'))
                    .map_or(0, |e| e + 2),
            ),
        };
        for name in list[..end].split(',') {
            let name = name.trim();
            if let Some(name) = name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
                bits |= SchemaTypes::of_name(name);
            }
        }
        rest = &list[end..];
    }
    bits & !SchemaTypes::COMMENT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_read_from_strings_and_lists_valid_json_or_not() {
        let text = r#"{"@context":"https://schema.org","@graph":[{"@type" : "WebSite"},
            {"@type":["NewsArticle", "schema:Article"],"comment":[{"@type":"Comment"}]},
            {"@type": "http://schema.org/Offer",}, {"@type": "QAPage"#;
        assert_eq!(
            json_ld_types(text),
            SchemaTypes::ARTICLE | SchemaTypes::OFFER
        );
        assert_eq!(
            json_ld_types(r#"{"@type":"Product"}"#),
            SchemaTypes::PRODUCT
        );
        assert_eq!(
            json_ld_types(r#""@type": [ "ItemList" "#),
            SchemaTypes::LIST
        );
        for broken in [
            "",
            "\"@type\"",
            "\"@type\":",
            "\"@type\": \"",
            "\"@type\": [\"",
            "\"@type\" x",
        ] {
            assert_eq!(json_ld_types(broken), 0, "{broken:?}");
        }
    }
}
