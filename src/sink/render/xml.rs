//! XML ([`XmlTags`]): the main content in the element names of trafilatura's XML, for corpus
//! tools that read them: each document a `<doc>` with its `<main>`, `<head rend="h1">` to
//! `h6`, `<p>`, nested `<list rend="ul|ol">` with their `<item>`, `<table>` with `<row
//! span="N">` and `<cell role="head">` in its header row, `<code>` for a code block (`lang`
//! when the page names it), `<quote>`, and inline `<hi rend="#t">` (code), `<hi rend="#sub">`,
//! `<hi rend="#sup">` and `<formula notation="tex">` (TEI's). Text is escaped, and the
//! characters XML 1.0 does not allow are dropped, so that the output is well-formed.

use std::borrow::Cow;

use super::html::Vocabulary;
use crate::block::MarkKind;

/// trafilatura's XML tags.
#[derive(Debug)]
pub(super) struct XmlTags;

impl Vocabulary for XmlTags {
    const DOCUMENT: Option<(&'static str, &'static str)> =
        Some(("<doc>\n<main>", "</main>\n</doc>"));
    const PARAGRAPH: (&'static str, &'static str) = ("<p>", "</p>");
    const QUOTE: (&'static str, &'static str) = ("<quote>", "</quote>");
    const ITEM: (&'static str, &'static str) = ("<item>", "</item>");

    fn list(start: Option<u32>) -> String {
        match start {
            Some(1) => "<list rend=\"ol\">".into(),
            Some(n) => format!("<list rend=\"ol\" n=\"{n}\">"),
            None => "<list rend=\"ul\">".into(),
        }
    }

    fn list_end(_: bool) -> &'static str {
        "</list>"
    }

    fn heading(level: u8) -> (String, String) {
        (format!("<head rend=\"h{level}\">"), "</head>".into())
    }

    fn code(language: &str) -> (String, String) {
        let open = match language {
            "" => "<code>".to_string(),
            language => format!("<code lang=\"{}\">", escape(language)),
        };
        (open, "</code>".into())
    }

    fn table(rows: &[Vec<String>], xml: &mut String) {
        xml.push_str("<table>\n");
        for (i, row) in rows.iter().enumerate() {
            xml.push_str(&format!("<row span=\"{}\">", row.len()));
            for text in row {
                match i {
                    0 => xml.push_str(&format!("<cell role=\"head\">{text}</cell>")),
                    _ => xml.push_str(&format!("<cell>{text}</cell>")),
                }
            }
            xml.push_str("</row>\n");
        }
        xml.push_str("</table>\n");
    }

    fn mark(out: &mut String, kind: MarkKind, inner: &str) {
        let inner = escape(inner);
        let (open, close) = match kind {
            MarkKind::Code => ("<hi rend=\"#t\">", "</hi>"),
            MarkKind::Formula => ("<formula notation=\"tex\">", "</formula>"),
            MarkKind::DisplayFormula => {
                ("<formula notation=\"tex\" rend=\"display\">", "</formula>")
            }
            MarkKind::Sub => ("<hi rend=\"#sub\">", "</hi>"),
            MarkKind::Sup => ("<hi rend=\"#sup\">", "</hi>"),
        };
        out.push_str(open);
        out.push_str(&inner);
        out.push_str(close);
    }

    fn escape(text: &str) -> Cow<'_, str> {
        escape(text)
    }
}

/// `text` with `&`, `<`, `>` and `"` escaped (as HTML escapes them) and the characters XML 1.0
/// does not allow (the C0 controls but tab, line feed and carriage return; U+FFFE, U+FFFF)
/// dropped.
fn escape(text: &str) -> Cow<'_, str> {
    let allowed = |c: &char| !matches!(c, '\0'..='\x08' | '\x0b' | '\x0c' | '\x0e'..='\x1f' | '\u{fffe}' | '\u{ffff}');
    if text.chars().all(|c| allowed(&c)) {
        return super::html::escape(text);
    }
    let kept: String = text.chars().filter(allowed).collect();
    Cow::Owned(super::html::escape(&kept).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_what_xml_does_not_allow_is_dropped() {
        assert_eq!(escape("a < b & \"c\""), "a &lt; b &amp; &quot;c&quot;");
        assert_eq!(
            escape("bell\x07 tab\t form\x0c end\u{ffff}"),
            "bell tab\t form end"
        );
        assert!(matches!(escape("plain é"), Cow::Borrowed(_)));
    }
}
