//! The request: the options every door takes for cleaning, typed, with their names, defaults
//! and refusals written once.
//!
//! [`Decision`] holds the decision's options; [`Request`] adds how a page held in memory is
//! written (its format) and the language it must be in. Each door fills them its own way: the
//! command line through clap (with the feature `cli`, [`Decision`]'s fields are flags and their
//! doc comments the help), Python's keyword arguments and the web API's JSON keys by name
//! ([`Request::set`]). What is left out (`None`, [`Default`]) is what `ppl-filter` does with no
//! flag, and [`Decision::settings`] is the one place that turns a request into the decision's
//! settings, refusing what the chosen method would ignore.
//!
//! Adding a decision option touches three files: its field here (flag, keyword in
//! [`Decision::set`], what it sets in [`Decision::settings`]), the stage that uses it, and
//! Python's stub (`python/ppl_filter/_native.pyi`).

use std::sync::Arc;

use super::job::{Job, Output};
use super::{DecideSettings, Options};
use crate::block::PageKind;
use crate::decide::{
    embedded, Choices, Classifier, Favor, Given, Method, MethodKind, MethodOption, Policy,
};
use crate::sink::language::Language;
use crate::sink::render::Layout;
use crate::sink::RecordFormat;

/// The output formats by name ([`Layout::name`], `--format`): `text` (the kept text, one block a
/// line, as `ppl-filter` writes it), `markdown`, `html` (the main content as minimal HTML),
/// `cleaneval` (`<p>`/`<h>`/`<l>` markers), `mark`
/// (every sentence, the dropped ones as `<ppl score="…">…</ppl>`), `scores`
/// (`perplexity<TAB>sentence`) and `json` (one JSON object, as `--format json`); the older names
/// `plain` and `jsonl` are taken too.
pub const FORMATS: [&str; Layout::ALL.len()] = {
    let mut names = [""; Layout::ALL.len()];
    let mut i = 0;
    while i < Layout::ALL.len() {
        names[i] = Layout::ALL[i].name();
        i += 1;
    }
    names
};

/// The methods by name ([`MethodKind::name`], `--method`).
pub const METHODS: [&str; 2] = [MethodKind::ALL[0].name(), MethodKind::ALL[1].name()];

/// The leanings of the combined method by name ([`Favor::name`]; `--favor-precision`,
/// `--favor-recall`), the default first.
pub const FAVORS: [&str; 3] = [
    Favor::ALL[0].name(),
    Favor::ALL[1].name(),
    Favor::ALL[2].name(),
];

/// The kinds of page by name (`--kind`, [`PageKind::name`] of each of [`PageKind::ALL`]),
/// after `auto`: each page's own.
pub const KINDS: [&str; 9] = {
    let mut names = [AUTO; 9];
    let mut i = 0;
    while i < PageKind::ALL.len() {
        names[i + 1] = PageKind::ALL[i].name();
        i += 1;
    }
    names
};

/// The kind that is no kind: each page is decided as the kind it is told to be.
const AUTO: &str = "auto";

/// `names` as a sentence lists them: `a, b or c`.
fn one_of(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// An option's value as a keyword argument or a JSON key gives it ([`Request::set`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    /// A name or a word.
    Text(&'a str),
    /// A number.
    Number(f64),
    /// True or false.
    Flag(bool),
}

impl<'a> Value<'a> {
    /// What the value is, as a refusal says it.
    const fn what(self) -> &'static str {
        match self {
            Value::Text(_) => "a string",
            Value::Number(_) => "a number",
            Value::Flag(_) => "true or false",
        }
    }

    /// The name the value gives to the option `key`.
    fn text(self, key: &str) -> Result<&'a str, RequestError> {
        match self {
            Value::Text(text) => Ok(text),
            _ => Err(self.wrong(key, "a string")),
        }
    }

    /// The number the value gives to the option `key` (one beyond `f32`'s range becomes
    /// infinite, which the checks refuse).
    fn number(self, key: &str) -> Result<f32, RequestError> {
        match self {
            Value::Number(number) => Ok(number as f32),
            _ => Err(self.wrong(key, "a number")),
        }
    }

    /// The flag the value gives to the option `key`.
    fn flag(self, key: &str) -> Result<bool, RequestError> {
        match self {
            Value::Flag(flag) => Ok(flag),
            _ => Err(self.wrong(key, "true or false")),
        }
    }

    /// The thing named by the value, looked up by `of_name`, or `unknown` of the name.
    fn named<T>(
        self,
        key: &str,
        of_name: impl Fn(&str) -> Option<T>,
        unknown: impl Fn(String) -> RequestError,
    ) -> Result<T, RequestError> {
        let name = self.text(key)?;
        of_name(name).ok_or_else(|| unknown(name.to_string()))
    }

    /// The refusal of this value for the option `key`, which takes `expected`.
    fn wrong(self, key: &str, expected: &'static str) -> RequestError {
        RequestError::Type {
            key: key.to_string(),
            expected,
            given: self.what(),
        }
    }
}

/// A request that names no option, or options that do not go together.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RequestError {
    /// No option has this name.
    #[error("unknown option '{0}'")]
    Unknown(String),
    /// A value of the wrong type: a number for a name, a name for a flag.
    #[error("{key}: expected {expected}, not {given}")]
    Type {
        /// The option.
        key: String,
        /// What it takes.
        expected: &'static str,
        /// What it was given.
        given: &'static str,
    },
    /// Not one of [`METHODS`].
    #[error("unknown method '{}' ({})", .0, one_of(&METHODS))]
    Method(String),
    /// Not one of [`FORMATS`].
    #[error("unknown format '{}' ({})", .0, one_of(&FORMATS))]
    Format(String),
    /// Not one of [`FAVORS`].
    #[error("unknown favor '{}' ({})", .0, one_of(&FAVORS))]
    Favor(String),
    /// Not one of [`KINDS`].
    #[error("unknown kind '{}' ({})", .0, one_of(&KINDS))]
    Kind(String),
    /// Not a language [`Language::of_name`] knows.
    #[error(
        "unknown language '{0}' (an ISO 639-1 or 639-3 code, or an English name: de, deu, German)"
    )]
    Language(String),
    /// A perplexity threshold that is not a number.
    #[error("threshold: {0}")]
    Threshold(String),
    /// A bias that is not a number of log-odds from -20 to 20.
    #[error("bias: must be from -20 to 20, not {0}")]
    Bias(f32),
    /// A link-density bound that is not a share.
    #[error("max_link_density: {0}")]
    MaxLinkDensity(String),
    /// An option the chosen method would ignore.
    #[error("{} applies only to the {} method", .0.keyword(), .0.method().name())]
    IgnoredByMethod(MethodOption),
}

/// The decision's options (the command line's flags, Python's keywords, the API's JSON keys).
/// Each left out (`None`, `false`) is the default; [`Decision::settings`] checks them.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Decision {
    /// How blocks and sentences are kept or dropped [default: combined].
    #[cfg_attr(feature = "cli", arg(long, value_enum))]
    pub method: Option<MethodKind>,

    /// Drop sentences whose perplexity is above PPL [default: 3000000 with --method
    /// perplexity; none with the combined method, whose classifier weighs perplexity itself and
    /// must not empty pages in other languages].
    #[cfg_attr(feature = "cli", arg(short, long, value_name = "PPL", value_parser = cli::max_perplexity))]
    pub threshold: Option<f32>,

    /// Perplexity method: drop blocks whose share of link text is above this (1 keeps all)
    /// [default: 0.4]. The combined method weighs link density itself and refuses this flag.
    #[cfg_attr(feature = "cli", arg(hide_short_help = true, long, value_name = "SHARE", value_parser = cli::max_link_density))]
    pub max_link_density: Option<f32>,

    /// Combined method: add BIAS log-odds to every block's score: above 0 keeps more, below
    /// keeps less, from -20 to 20 (--favor-recall is 1, --favor-precision -1) [default: 0].
    #[cfg_attr(feature = "cli", arg(hide_short_help = true, long, value_name = "BIAS", allow_negative_numbers = true, value_parser = cli::bias))]
    pub bias: Option<f32>,

    /// Combined method: keep readers' comments (dropped by default, as the Dragnet gold does).
    #[cfg_attr(feature = "cli", arg(long))]
    pub comments: bool,

    /// Combined method: decide every page as this kind instead of the kind it declares
    /// (schema.org types, Open Graph type, URL). The kind sets what the main content is: every
    /// post of a forum (comments kept), every section and card of documentation, collections,
    /// listings and service pages (leaning to recall); articles, products and `other` are
    /// decided as the flags say
    #[cfg_attr(feature = "cli", arg(long, value_name = "KIND", value_parser = cli::kind()))]
    pub kind: Option<PageKind>,

    /// Combined method: which way a block in doubt goes (the command line's
    /// `--favor-precision` and `--favor-recall`).
    #[cfg_attr(feature = "cli", arg(skip))]
    pub favor: Option<Favor>,

    /// Combined method: a classifier instead of the embedded one (the command line's
    /// `--classifier PATH`).
    #[cfg_attr(feature = "cli", arg(skip))]
    pub classifier: Option<Arc<Classifier>>,
}

impl Decision {
    /// Sets the option named `key` (Python's keyword, the API's JSON key) to `value`; `false`
    /// when no decision option has this name. The classifier, an object, is set as a field.
    pub fn set(&mut self, key: &str, value: Value<'_>) -> Result<bool, RequestError> {
        match key {
            "method" => {
                self.method = Some(value.named(key, MethodKind::of_name, RequestError::Method)?);
            }
            "threshold" => self.threshold = Some(value.number(key)?),
            "max_link_density" => self.max_link_density = Some(value.number(key)?),
            "bias" => self.bias = Some(value.number(key)?),
            "comments" => self.comments = value.flag(key)?,
            "kind" => {
                self.kind = match value.text(key)? {
                    AUTO => None,
                    name => Some(
                        PageKind::of_name(name)
                            .ok_or_else(|| RequestError::Kind(name.to_string()))?,
                    ),
                };
            }
            "favor" => self.favor = Some(value.named(key, Favor::of_name, RequestError::Favor)?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The decision's settings this request describes, refused when it gives an option the
    /// chosen method would ignore ([`MethodKind::first_ignored`]) or a bound out of range.
    pub fn settings(&self) -> Result<DecideSettings, RequestError> {
        let kind = self.method.unwrap_or_default();
        let favor = self.favor.unwrap_or_default();
        let given = Given {
            classifier: self.classifier.is_some(),
            favor: favor != Favor::default(),
            bias: self.bias.is_some(),
            comments: self.comments,
            kind: self.kind.is_some(),
            max_link_density: self.max_link_density.is_some(),
        };
        if let Some(option) = kind.first_ignored(&given) {
            return Err(RequestError::IgnoredByMethod(option));
        }
        let method = match kind {
            MethodKind::Combined => {
                Method::Combined(self.classifier.clone().unwrap_or_else(embedded))
            }
            MethodKind::Perplexity => Method::Perplexity,
        };
        let max_perplexity = self
            .threshold
            .map(Policy::check_max_perplexity)
            .transpose()
            .map_err(|e| RequestError::Threshold(e.to_string()))?;
        let max_link_density = match self.max_link_density {
            None => Policy::default().max_link_density,
            Some(share) => Policy::check_max_link_density(share)
                .map_err(|e| RequestError::MaxLinkDensity(e.to_string()))?,
        };
        let policy = Policy {
            max_perplexity,
            max_link_density,
        };
        let choices = Choices {
            favor,
            bias: self.bias.map(check_bias).transpose()?.unwrap_or(0.0),
            comments: self.comments,
            kind: self.kind,
            ..Choices::default()
        };
        Ok(DecideSettings {
            method,
            policy,
            choices,
        })
    }

    /// The run's options for this decision, with every other setting its default.
    pub fn options(&self) -> Result<Options, RequestError> {
        Ok(Options::with_decision(self.settings()?))
    }
}

/// A bias that [`Decision::bias`] takes: from -20 to 20 log-odds (past that every block is kept,
/// or none).
fn check_bias(bias: f32) -> Result<f32, RequestError> {
    match (-20.0..=20.0).contains(&bias) {
        true => Ok(bias),
        false => Err(RequestError::Bias(bias)),
    }
}

/// Everything a program asks of cleaning a page held in memory (the Python package, the web
/// API): the [`Decision`], the output format and the language the page must be in.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// How blocks and sentences are kept or dropped.
    pub decision: Decision,
    /// What is written; `text` when left out.
    pub format: Option<Layout>,
    /// Keep only the pages whose text is in this language (`--target-language`); the others
    /// give no output.
    pub target_language: Option<Language>,
}

impl Request {
    /// Sets the option named `key` (Python's keyword, the API's JSON key) to `value`.
    pub fn set(&mut self, key: &str, value: Value<'_>) -> Result<(), RequestError> {
        match key {
            "format" => {
                self.format = Some(value.named(key, Layout::of_name, RequestError::Format)?);
            }
            "target_language" => {
                let language = value.named(key, Language::of_name, RequestError::Language)?;
                self.target_language = Some(language);
            }
            _ => {
                if !self.decision.set(key, value)? {
                    return Err(RequestError::Unknown(key.to_string()));
                }
            }
        }
        Ok(())
    }

    /// The request with the options named in `words` set, in order ([`Request::set`]).
    pub fn of_words<'a>(
        words: impl IntoIterator<Item = (&'a str, Value<'a>)>,
    ) -> Result<Request, RequestError> {
        let mut request = Request::default();
        for (key, value) in words {
            request.set(key, value)?;
        }
        Ok(request)
    }

    /// The job this request describes (its output text, or a JSON object a document),
    /// checked as [`Decision::settings`] checks the decision.
    pub fn job(&self) -> Result<Job, RequestError> {
        let layout = self.format.unwrap_or_default();
        let output = match layout {
            Layout::Json => Output::Records(RecordFormat::JSON),
            _ => Output::text(),
        };
        let mut options = self.decision.options()?.with_layout(layout);
        options.render.report_perplexity = output
            .records()
            .is_some_and(RecordFormat::reports_perplexity);
        options.html.read_byline = layout == Layout::Json;
        Ok(Job {
            options,
            language: self.target_language,
            output,
        })
    }
}

/// The command line's parsers of [`Decision`]'s flags, refusing what the checks refuse as
/// clap's own errors.
#[cfg(feature = "cli")]
mod cli {
    use super::{PageKind, Policy};

    /// `--threshold`: a number that [`Policy::check_max_perplexity`] accepts (not NaN, which
    /// would drop every sentence).
    pub fn max_perplexity(arg: &str) -> Result<f32, String> {
        let value: f32 = arg.parse().map_err(|e| format!("{e}"))?;
        Policy::check_max_perplexity(value).map_err(|e| e.to_string())
    }

    /// `--max-link-density`: a number that [`Policy::check_max_link_density`] accepts.
    pub fn max_link_density(arg: &str) -> Result<f32, String> {
        let value: f32 = arg.parse().map_err(|e| format!("{e}"))?;
        Policy::check_max_link_density(value).map_err(|e| e.to_string())
    }

    /// `--bias`: a number that [`super::check_bias`] accepts.
    pub fn bias(arg: &str) -> Result<f32, String> {
        let value: f32 = arg.parse().map_err(|e| format!("{e}"))?;
        super::check_bias(value).map_err(|e| e.to_string())
    }

    /// `--kind`: one of [`PageKind::name`], listed in the help and the completions.
    pub fn kind() -> impl clap::builder::TypedValueParser<Value = PageKind> {
        use clap::builder::TypedValueParser;
        clap::builder::PossibleValuesParser::new(PageKind::ALL.map(PageKind::name))
            .map(|name| PageKind::of_name(&name).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::render::OutputMode;

    fn words(words: &[(&str, &str)]) -> Result<Job, RequestError> {
        let words = words.iter().map(|&(key, name)| (key, Value::Text(name)));
        Request::of_words(words)?.job()
    }

    #[test]
    fn words_name_options() {
        let json = words(&[
            ("method", "combined"),
            ("format", "json"),
            ("favor", "recall"),
        ]);
        let json = json.unwrap();
        assert!(json.output.records().is_some() && json.options.render.report_perplexity);
        assert_eq!(json.options.decide.choices.favor, Favor::Recall);
        assert_eq!(
            json.options.decide.choices.kind, None,
            "auto: each page's own"
        );
        let names = PageKind::ALL.map(PageKind::name);
        assert_eq!(KINDS[1..], names, "every kind by its own name");
        let forum = words(&[("kind", "forum")]).unwrap();
        assert_eq!(forum.options.decide.choices.kind, Some(PageKind::Forum));
        let auto = words(&[("kind", "forum"), ("kind", "auto")]).unwrap();
        assert_eq!(
            auto.options.decide.choices.kind, None,
            "the last word counts"
        );
        let mark = words(&[("method", "perplexity"), ("format", "mark")]).unwrap();
        assert_eq!(mark.options.render.mode, OutputMode::Mark);
        assert!(mark.options.decide.method.classifier().is_none());
    }

    #[test]
    fn what_names_nothing_or_does_not_go_together_is_refused() {
        for (given, error) in [
            (&[("method", "best")][..], "unknown method 'best'"),
            (&[("format", "xml")], "unknown format 'xml'"),
            (&[("favor", "most")], "unknown favor 'most'"),
            (&[("kind", "blog")], "unknown kind 'blog'"),
            (&[("colour", "red")], "unknown option 'colour'"),
            (
                &[("comments", "yes")],
                "comments: expected true or false, not a string",
            ),
            (
                &[("threshold", "high")],
                "threshold: expected a number, not a string",
            ),
            (
                &[("method", "perplexity"), ("kind", "forum")],
                "kind applies only to the combined method",
            ),
            (
                &[("method", "perplexity"), ("favor", "precision")],
                "favor applies only to the combined method",
            ),
        ] {
            let message = words(given).unwrap_err().to_string();
            assert!(message.starts_with(error), "{message}");
        }
        let mut perplexity = Request::default();
        perplexity.set("method", Value::Text("perplexity")).unwrap();
        perplexity.set("favor", Value::Text("balanced")).unwrap();
        assert!(
            perplexity.job().is_ok(),
            "the default leaning is no leaning"
        );
        perplexity
            .set("max_link_density", Value::Number(0.25))
            .unwrap();
        let density = perplexity.job().unwrap().options.decide.policy;
        assert_eq!(density.max_link_density, 0.25);
        let method = Value::Number(5.0);
        assert_eq!(
            Request::default()
                .set("method", method)
                .unwrap_err()
                .to_string(),
            "method: expected a string, not a number"
        );
        let nan = Request::of_words([("threshold", Value::Number(f64::NAN))]).unwrap();
        assert!(matches!(nan.job(), Err(RequestError::Threshold(_))));
        let huge = Request::of_words([("threshold", Value::Number(1e300))]).unwrap();
        assert!(matches!(huge.job(), Err(RequestError::Threshold(_))));
        assert_eq!(
            words(&[("target_language", "klingon")]).unwrap_err(),
            RequestError::Language("klingon".into())
        );
        // The refusals list the names from the same lists the options are read from.
        let favor = RequestError::Favor("most".into()).to_string();
        assert_eq!(
            favor,
            format!(
                "unknown favor 'most' ({}, {} or {})",
                FAVORS[0], FAVORS[1], FAVORS[2]
            )
        );
    }

    #[test]
    fn a_bias_keeps_more_or_less_and_one_log_odds_is_the_leaning() {
        use crate::pipeline::pages::{clean_page, Page};
        let page = Page::new(
            "<page>",
            &include_bytes!("../../fixtures/pages/news.html")[..],
        );
        let clean = |words: &[(&str, Value)]| {
            let options = Request::of_words(words.iter().copied())
                .unwrap()
                .job()
                .unwrap();
            clean_page(&page, crate::lm::model::embedded(), &options)
                .unwrap()
                .output
        };
        let bias = |bias| clean(&[("bias", Value::Number(bias))]);
        let lengths = [-20.0, -3.0, 0.0, 3.0, 20.0].map(|b| bias(b).len());
        assert!(lengths.windows(2).all(|w| w[0] <= w[1]), "{lengths:?}");
        assert!(lengths[0] < lengths[4], "{lengths:?}");
        assert_eq!(bias(0.0), clean(&[]));
        assert_eq!(bias(1.0), clean(&[("favor", Value::Text("recall"))]));
        assert_eq!(bias(-1.0), clean(&[("favor", Value::Text("precision"))]));
        let refused = |words: &[(&str, Value)]| {
            Request::of_words(words.iter().copied())
                .unwrap()
                .job()
                .unwrap_err()
        };
        assert_eq!(
            refused(&[("bias", Value::Number(21.0))]),
            RequestError::Bias(21.0)
        );
        assert!(matches!(
            refused(&[("bias", Value::Number(f64::NAN))]),
            RequestError::Bias(_)
        ));
        assert_eq!(
            refused(&[
                ("method", Value::Text("perplexity")),
                ("bias", Value::Number(1.0))
            ])
            .to_string(),
            "bias applies only to the combined method"
        );
    }

    #[test]
    fn an_empty_request_is_the_command_line_with_no_flag() {
        let options = Request::default().job().unwrap();
        let defaults = Options::default();
        assert!(options.output == Output::text() && options.language.is_none());
        assert_eq!(options.options.decide.choices, defaults.decide.choices);
        assert_eq!(options.options.decide.policy, defaults.decide.policy);
        assert!(options.options.decide.method.classifier().is_some());
        assert_eq!(options.options.render, defaults.render);
    }
}
