//! How an error is printed: [`one_line`], the way the binaries, the Python package and the web
//! demo print an error with its causes, and [`printable`].
//!
//! Errors stay typed up to the edge of the program: each names what failed (a file, a record, a
//! flag) and keeps its cause as its `source` (each is defined by the module that returns it),
//! and only the edge turns it into a message.

use std::borrow::Cow;
use std::error::Error;
use std::io;

/// An error and its causes as one line, `outer: inner: …`, its control characters escaped
/// ([`printable`]). A cause whose text the line already holds (a message that quotes its
/// source) is not repeated.
pub fn one_line(error: &(dyn Error + 'static)) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        let text = error.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = error.source();
    }
    printable(&line).into_owned()
}

/// `text` as it may be shown on a terminal: each control character (C0, DEL, C1: line
/// breaks, escape sequences that would move the cursor or retitle the window) written as a
/// `\u{…}` escape, so that a name or URL taken from a page or a list prints as one inert
/// line. Text without one is returned as it is.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            shown.extend(c.escape_unicode());
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

/// An I/O error's message without Rust's "(os error N)" suffix.
pub fn io_message(e: &io::Error) -> String {
    let message = e.to_string();
    match message.find(" (os error") {
        Some(cut) => message[..cut].to_string(),
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(
            printable("http://a.example/ü?q=1"),
            "http://a.example/ü?q=1"
        );
        assert!(matches!(printable("plain"), Cow::Borrowed(_)));
        assert_eq!(
            printable("http://x/\u{1b}]0;owned\u{7}\n\u{9b}2J\u{7f}"),
            "http://x/\\u{1b}]0;owned\\u{7}\\u{a}\\u{9b}2J\\u{7f}"
        );
    }

    #[test]
    fn a_cause_with_a_line_break_stays_on_one_line() {
        let error = std::io::Error::other("first\nsecond");
        assert_eq!(one_line(&error), "first\\u{a}second");
    }
}
