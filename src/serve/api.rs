//! The JSON the server reads and writes: the requests of `POST /clean` and `POST /perplexity`,
//! their answers, and [`ApiError`], an HTTP status with a one-line message
//! (`{"error": "…"}`). An answer is written into a [`BoundedJson`], which refuses to grow past
//! its bound (`--max-answer-bytes`).

use serde::{Deserialize, Serialize};

use crate::block::Block;
use crate::pipeline::{Request, RequestError};

/// `POST /clean`: one page (exactly one of `html`, `text`, `url`), whether to answer with its
/// blocks, and the cleaning options: every other key, read as a [`Request`]
/// ([`Request::KEYS`]; `null` is the default, as a key left out).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CleanRequest {
    /// An HTML page.
    #[serde(deserialize_with = "page::html")]
    pub html: Option<String>,
    /// Plain text, paragraphs separated by blank lines (as `ppl-filter --input text`).
    #[serde(deserialize_with = "page::text")]
    pub text: Option<String>,
    /// The URL of a page to fetch (http or https).
    #[serde(deserialize_with = "page::url")]
    pub url: Option<String>,
    /// Also answer with every block, its sentences and their decision.
    #[serde(deserialize_with = "page::blocks")]
    pub blocks: bool,
    /// How the page is cleaned and written.
    #[serde(flatten)]
    pub options: Request,
}

/// The readers of the page's own keys, naming the key in a refusal as the options' do.
mod page {
    use crate::pipeline::option_value as value;
    use serde::Deserializer;

    pub fn html<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        value(d, "html")
    }

    pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        value(d, "text")
    }

    pub fn url<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        value(d, "url")
    }

    pub fn blocks<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        Ok(value(d, "blocks")?.unwrap_or(false))
    }
}

impl CleanRequest {
    /// The request a JSON body makes; a 400 naming what is wrong (bad JSON, a key no option
    /// has, a value of the wrong type or that names nothing). The body is read as JSON first,
    /// so that a refusal names the key and not the line and column.
    pub fn parse(body: &[u8]) -> Result<CleanRequest, ApiError> {
        let object: serde_json::Map<String, serde_json::Value> = parse(body)?;
        CleanRequest::deserialize(serde_json::Value::Object(object))
            .map_err(|e| ApiError::bad_request(RequestError::of_serde(e).to_string()))
    }
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

/// An answer's JSON as it is written, never longer than its bound: what would take it past
/// is refused ([`AnswerTooLarge`]) and leaves it as it was.
#[derive(Debug)]
pub struct BoundedJson {
    json: Vec<u8>,
    max: usize,
}

/// An answer would be longer than its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the answer would be larger than {max} bytes (--max-answer-bytes): not sent")]
pub struct AnswerTooLarge {
    /// The bound.
    pub max: usize,
}

impl From<AnswerTooLarge> for ApiError {
    /// A 413: what was asked for (the page, its format, its blocks) makes too large an answer.
    fn from(error: AnswerTooLarge) -> ApiError {
        ApiError::new(413, error.to_string())
    }
}

impl BoundedJson {
    /// An empty answer that may grow to `max` bytes.
    pub fn new(max: usize) -> BoundedJson {
        BoundedJson {
            json: Vec::new(),
            max,
        }
    }

    /// Its length so far.
    pub fn len(&self) -> usize {
        self.json.len()
    }

    /// Takes back what was written after its first `len` bytes.
    pub fn truncate(&mut self, len: usize) {
        self.json.truncate(len);
    }

    /// Whether nothing is written yet.
    pub fn is_empty(&self) -> bool {
        self.json.is_empty()
    }

    /// Appends `json`, already JSON, if it fits within `max` less `keep` bytes.
    pub fn raw(&mut self, json: &str, keep: usize) -> Result<(), AnswerTooLarge> {
        if self.json.len() + json.len() + keep > self.max {
            return Err(AnswerTooLarge { max: self.max });
        }
        self.json.extend_from_slice(json.as_bytes());
        Ok(())
    }

    /// Appends `value` as JSON, if it fits within `max` less `keep` bytes; it is written
    /// straight into the answer, and taken back when it does not fit.
    pub fn value(&mut self, value: &impl Serialize, keep: usize) -> Result<(), AnswerTooLarge> {
        let start = self.json.len();
        let room = self.max.saturating_sub(keep);
        let mut writer = Limited {
            json: &mut self.json,
            room,
        };
        match serde_json::to_writer(&mut writer, value) {
            Ok(()) => Ok(()),
            Err(_) => {
                // Over the bound (the answers hold only strings, numbers and booleans, which
                // otherwise always serialize).
                self.json.truncate(start);
                Err(AnswerTooLarge { max: self.max })
            }
        }
    }

    /// The answer.
    pub fn into_string(self) -> String {
        // Only `str`s and serde_json's output, both UTF-8, were written.
        String::from_utf8(self.json)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// A writer into a vector that refuses to take it past `room` bytes.
struct Limited<'a> {
    json: &'a mut Vec<u8>,
    room: usize,
}

impl std::io::Write for Limited<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.json.len() + bytes.len() > self.room {
            return Err(std::io::Error::other("over the answer's bound"));
        }
        self.json.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
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
        let request = CleanRequest::parse(br#"{"text": "Hello."}"#).unwrap();
        assert_eq!(request.source(), Ok(Source::Text("Hello.")));
        for body in [&br#"{"html": "<p>a</p>", "url": "http://x/"}"#[..], b"{}"] {
            let request = CleanRequest::parse(body).unwrap();
            assert_eq!(request.source().unwrap_err().status, 400);
        }
    }

    #[test]
    fn unknown_fields_and_bad_json_are_refused() {
        let error = CleanRequest::parse(br#"{"html": "x", "colour": "red"}"#).unwrap_err();
        assert_eq!(error.message, "unknown option 'colour'");
        for (body, message) in [
            (
                &br#"{"html": 5}"#[..],
                "html: invalid type: integer `5`, expected a string",
            ),
            (
                br#"{"html": "x", "blocks": 1}"#,
                "blocks: invalid type: integer `1`, expected a boolean",
            ),
            (
                br#"{"html": "x", "comments": "yes"}"#,
                "comments: invalid type: string \"yes\", expected a boolean",
            ),
            (
                br#"{"html": "x", "kind": ["forum"]}"#,
                "kind: invalid type: sequence, expected a string",
            ),
        ] {
            assert_eq!(CleanRequest::parse(body).unwrap_err().message, message);
        }
        let options = CleanRequest::parse(
            br#"{"html": "x", "kind": "forum", "favor": null, "blocks": true}"#,
        );
        let options = options.unwrap();
        assert!(options.blocks && options.options.decision.favor.is_none());
        assert_eq!(
            options.options.decision.kind,
            Some(crate::block::PageKind::Forum)
        );
        let error = CleanRequest::parse(b"{\"html\": ").unwrap_err();
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

    #[test]
    fn an_answer_never_grows_past_its_bound() {
        let mut answer = BoundedJson::new(20);
        answer.raw("{\"a\":", 1).unwrap();
        assert_eq!(answer.len(), 5);
        let error = answer.value(&"x".repeat(20), 1).unwrap_err();
        assert_eq!(error, AnswerTooLarge { max: 20 });
        assert_eq!(ApiError::from(error).status, 413);
        // What did not fit is taken back.
        assert_eq!(answer.len(), 5);
        answer.value(&"x".repeat(12), 1).unwrap();
        assert!(answer.raw("}", 1).is_err());
        answer.raw("}", 0).unwrap();
        assert_eq!(
            answer.into_string(),
            format!("{{\"a\":\"{}\"}}", "x".repeat(12))
        );
    }
}
