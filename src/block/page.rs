//! What a page says about itself: [`PageInfo`], gathered by the HTML stage.

/// What a page says about itself, gathered while it is parsed (for `--format json`): its
/// `<title>`, its `<link rel=canonical href>`, and the URL and title of a CleanEval wrapper
/// (`<text id="URL" title="…">`). Each is the first one seen, at most [`PageInfo::MAX_BYTES`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageInfo {
    /// The first `<title>`'s text.
    pub title: Option<String>,
    /// The first `<link rel=canonical>`'s `href`.
    pub canonical_url: Option<String>,
    /// The `id` of a CleanEval `<text>` wrapper (the page's URL).
    pub wrapper_url: Option<String>,
    /// The `title` of a CleanEval `<text>` wrapper.
    pub wrapper_title: Option<String>,
}

impl PageInfo {
    /// The longest value kept (a longer one is cut at a character boundary).
    pub const MAX_BYTES: usize = 2048;

    /// `value` with its white space collapsed, cut to [`PageInfo::MAX_BYTES`]; `None` if empty.
    pub fn clean(value: &str) -> Option<String> {
        let mut out = String::new();
        for word in value.split_whitespace() {
            if out.len() + word.len() + 1 > Self::MAX_BYTES {
                break;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
        (!out.is_empty()).then_some(out)
    }

    /// The page's own URL: the canonical link, else the CleanEval wrapper's.
    pub fn url(&self) -> Option<&str> {
        self.canonical_url
            .as_deref()
            .or(self.wrapper_url.as_deref())
    }

    /// The page's title: `<title>`, else the CleanEval wrapper's.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref().or(self.wrapper_title.as_deref())
    }
}
