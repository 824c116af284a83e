//! The JSON the server reads and writes: the requests of `POST /clean` and `POST /perplexity`,
//! their answers, and [`ApiError`], an HTTP status with a one-line message
//! (`{"error": "…"}`).

use serde::{Deserialize, Serialize};

use crate::block::Block;

/// `POST /clean`: one page (exactly one of `html`, `text`, `url`) and the options named as
/// [`crate::pipeline::pages::Named`] names them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CleanRequest {
    /// An HTML page.
    pub html: Option<String>,
    /// Plain text, paragraphs separated by blank lines (as `ppl-filter --input text`).
    pub text: Option<String>,
    /// The URL of a page to fetch (http or https).
    pub url: Option<String>,
    /// `combined` (the default) or `perplexity`.
    pub method: Option<String>,
    /// `text` (the default), `markdown`, `cleaneval`, `mark`, `scores` or `json`.
    pub format: Option<String>,
    /// Drop sentences whose perplexity is above this.
    pub threshold: Option<f32>,
    /// `balanced` (the default), `precision` or `recall`.
    pub favor: Option<String>,
    /// Keep readers' comments.
    #[serde(default)]
    pub comments: bool,
    /// Also answer with every block, its sentences and their decision.
    #[serde(default)]
    pub blocks: bool,
}

/// Where the page of a [`CleanRequest`] comes from.
#[derive(Debug, PartialEq, Eq)]
pub enum Source<'a> {
    /// HTML sent in the request.
    Html(&'a str),
    /// Plain text sent in the request.
    Text(&'a str),
    /// A URL to fetch.
    Url(&'a str),
}

impl CleanRequest {
    /// The page's source; an error unless exactly one of `html`, `text` and `url` is given.
    pub fn source(&self) -> Result<Source<'_>, ApiError> {
        let given = [
            self.html.as_deref().map(Source::Html),
            self.text.as_deref().map(Source::Text),
            self.url.as_deref().map(Source::Url),
        ];
        let mut given = given.into_iter().flatten();
        match (given.next(), given.next()) {
            (Some(source), None) => Ok(source),
            _ => Err(ApiError::bad_request(
                "give exactly one of \"html\", \"text\" and \"url\"",
            )),
        }
    }
}

/// The answer to `POST /clean`.
#[derive(Debug, Serialize)]
pub struct CleanResponse {
    /// What `ppl-filter` writes for the page with the same options.
    pub text: String,
    /// What went wrong, one line each (an empty page, bytes invalid in their encoding).
    pub problems: Vec<String>,
    /// The page's blocks and their decision, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<BlockView>>,
}

/// A block as the page shows it: its text, kind, and each sentence's score and decision.
#[derive(Debug, Serialize)]
pub struct BlockView {
    /// The block's text.
    pub text: String,
    /// `heading`, `list_item`, `table_cell`, `form`, `preformatted` or `paragraph`.
    pub kind: &'static str,
    /// Whether any of its sentences is kept.
    pub kept: bool,
    /// Its sentences, in order.
    pub sentences: Vec<SentenceView>,
}

/// A sentence of a [`BlockView`].
#[derive(Debug, Serialize)]
pub struct SentenceView {
    /// The sentence's text.
    pub text: String,
    /// Its perplexity under the language model (`null` if it was not measured).
    pub perplexity: Option<f32>,
    /// Whether it is kept.
    pub kept: bool,
}

impl From<&Block> for BlockView {
    fn from(block: &Block) -> BlockView {
        let sentences: Vec<SentenceView> = block
            .sentences
            .iter()
            .map(|s| SentenceView {
                text: block.sentence_text(s).to_string(),
                perplexity: s.perplexity.is_finite().then_some(s.perplexity),
                kept: s.keep,
            })
            .collect();
        BlockView {
            text: block.text.clone(),
            kind: block.kind.name(),
            kept: sentences.iter().any(|s| s.kept),
            sentences,
        }
    }
}

/// `POST /perplexity`: one sentence or several.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerplexityRequest {
    /// One sentence.
    pub sentence: Option<String>,
    /// Several sentences.
    pub sentences: Option<Vec<String>>,
}

/// The answer to `POST /perplexity`, shaped as the request was.
#[derive(Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PerplexityResponse {
    /// The perplexity of the one sentence.
    One {
        /// Its perplexity.
        perplexity: f64,
    },
    /// The perplexity of each sentence, in order.
    Many {
        /// Their perplexities.
        perplexities: Vec<f64>,
    },
}

impl PerplexityRequest {
    /// Scores the sentence or sentences with `perplexity`; an error unless exactly one of
    /// `sentence` and `sentences` is given.
    pub fn answer(&self, perplexity: impl Fn(&str) -> f64) -> Result<PerplexityResponse, ApiError> {
        match (&self.sentence, &self.sentences) {
            (Some(sentence), None) => Ok(PerplexityResponse::One {
                perplexity: perplexity(sentence),
            }),
            (None, Some(sentences)) => Ok(PerplexityResponse::Many {
                perplexities: sentences.iter().map(|s| perplexity(s)).collect(),
            }),
            _ => Err(ApiError::bad_request(
                "give exactly one of \"sentence\" and \"sentences\"",
            )),
        }
    }
}

/// A request that cannot be answered: the HTTP status and a one-line message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// The HTTP status (4xx, or 5xx when the server or a fetched site failed).
    pub status: u16,
    /// What went wrong, as one line.
    pub message: String,
}

impl ApiError {
    /// An error with this status and message.
    pub fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// A 400: the request is malformed or names an unknown option.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(400, message)
    }

    /// The body of the answer, `{"error": "…"}`.
    pub fn body(&self) -> String {
        serde_json::json!({ "error": self.message }).to_string()
    }
}

/// Parses a JSON request body, any error a 400 naming what is wrong.
pub fn parse<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("bad JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_one_source_is_taken() {
        let request: CleanRequest = parse(br#"{"text": "Hello."}"#).unwrap();
        assert_eq!(request.source(), Ok(Source::Text("Hello.")));
        for body in [&br#"{"html": "<p>a</p>", "url": "http://x/"}"#[..], b"{}"] {
            let request: CleanRequest = parse(body).unwrap();
            assert_eq!(request.source().unwrap_err().status, 400);
        }
    }

    #[test]
    fn unknown_fields_and_bad_json_are_refused() {
        let error = parse::<CleanRequest>(br#"{"html": "x", "colour": "red"}"#).unwrap_err();
        assert!(error.message.contains("unknown field `colour`"), "{error}");
        let error = parse::<CleanRequest>(b"{\"html\": ").unwrap_err();
        assert_eq!(error.status, 400);
        assert!(error.message.starts_with("bad JSON: "), "{error}");
    }

    #[test]
    fn perplexity_answers_take_the_shape_of_the_request() {
        let length = |s: &str| s.len() as f64;
        let one: PerplexityRequest = parse(br#"{"sentence": "abc"}"#).unwrap();
        let json = serde_json::to_string(&one.answer(length).unwrap()).unwrap();
        assert_eq!(json, r#"{"perplexity":3.0}"#);
        let many: PerplexityRequest = parse(br#"{"sentences": ["a", "bb"]}"#).unwrap();
        let json = serde_json::to_string(&many.answer(length).unwrap()).unwrap();
        assert_eq!(json, r#"{"perplexities":[1.0,2.0]}"#);
        let both: PerplexityRequest = parse(br#"{"sentence": "a", "sentences": []}"#).unwrap();
        assert_eq!(both.answer(length).unwrap_err().status, 400);
    }
}
