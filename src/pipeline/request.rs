//! The request: the options every door takes for cleaning, typed, with their names, defaults
//! and refusals written once.
//!
//! [`Decision`] holds the decision's options; [`Request`] adds how a page held in memory is
//! written (its format) and the language it must be in. The command line fills them through
//! clap (with the feature `cli`, [`Decision`]'s fields are flags and their doc comments the
//! help); Python's keyword arguments and the web API's JSON keys through serde
//! ([`Request::of_options`]: `Request` derives `Deserialize`, each value read by its key's
//! reader in [`read`], unknown keys refused). [`Request::KEYS`] names them all for every door.
//! What is left out (`None`, [`Default`]) is what `ppl-filter` does with no flag, and
//! [`Decision::settings`] is the one place that turns a request into the decision's settings,
//! refusing what the chosen method would ignore.
//!
//! Adding a decision option touches three files: its field here (flag, reader, entry in
//! [`Decision::OPTIONS`] with its Python type, what it sets in [`Decision::settings`]), the
//! decision's settings in `decide/mod.rs` (`Choices`, and `Given` and `MethodOption` for an
//! option of one method) and the stage that uses it; `scripts/generate-docs.sh` writes it into
//! the man page, the completions and Python's stub.

use std::sync::Arc;

use serde::{Deserialize, Deserializer};

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

/// An option as every door names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionName {
    /// Python's keyword, the web API's JSON key.
    pub key: &'static str,
    /// Its type in Python's stub (`python/ppl_filter/_native.pyi`, whose keyword arguments
    /// `scripts/generate-docs.sh` writes from these): `None` is its default, or `False` for a
    /// `bool`.
    pub python: &'static str,
}

impl OptionName {
    const fn new(key: &'static str, python: &'static str) -> OptionName {
        OptionName { key, python }
    }
}

/// The keys of `options`.
const fn keys<const N: usize>(options: [OptionName; N]) -> [&'static str; N] {
    let mut keys = [""; N];
    let mut i = 0;
    while i < N {
        keys[i] = options[i].key;
        i += 1;
    }
    keys
}

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

/// A request that names no option, or options that do not go together.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RequestError {
    /// No option has this name.
    #[error("unknown option '{0}'")]
    Unknown(String),
    /// A value of the wrong type for its option, as serde says it after the option's name
    /// (`comments: invalid type: string "yes", expected a boolean`).
    #[error("{0}")]
    Type(String),
    /// A name that names nothing: no method, format, leaning, kind or language has it
    /// (`unknown method 'best' (combined or perplexity)`).
    #[error("{0}")]
    Name(String),
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

impl RequestError {
    /// The refusal a deserializer's error says: an unknown key (serde's `unknown field`), a
    /// value of the wrong type (named by its key, as [`option_value`](crate::pipeline::option_value) names it) or a name that names
    /// nothing. serde carries errors as messages only, so this one place reads them back.
    pub fn of_serde(error: impl std::fmt::Display) -> RequestError {
        let message = error.to_string();
        if let Some(key) = message
            .strip_prefix("unknown field `")
            .and_then(|rest| rest.split('`').next())
        {
            return RequestError::Unknown(key.to_string());
        }
        let keyed = |key: &&str| {
            message
                .strip_prefix(*key)
                .is_some_and(|rest| rest.starts_with(": "))
        };
        match Request::KEYS.iter().any(keyed) {
            true => RequestError::Type(message),
            false => RequestError::Name(message),
        }
    }
}

/// A name no method, format, leaning, kind or language has: what [`RequestError::Name`] says.
#[derive(Debug, thiserror::Error)]
enum Unnamed {
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
}

/// serde's readers of the options' values (`deserialize_with`): `null` is the option left
/// out, a refusal names the option's key, and a name is looked up by its thing's `of_name`.
pub mod read {
    use serde::de::{Deserialize, Deserializer, Error};

    use super::{Favor, Language, Layout, MethodKind, PageKind, Unnamed, AUTO};

    /// The value of the option `key`, `None` for `null`, a refusal naming `key`.
    pub fn value<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        deserializer: D,
        key: &str,
    ) -> Result<Option<T>, D::Error> {
        Option::<T>::deserialize(deserializer)
            .map_err(|e| D::Error::custom(format_args!("{key}: {e}")))
    }

    /// The thing the option `key` names, looked up by `of_name`, or `unnamed` of the name.
    fn named<'de, D: Deserializer<'de>, T>(
        deserializer: D,
        key: &str,
        of_name: impl Fn(&str) -> Option<T>,
        unnamed: fn(String) -> Unnamed,
    ) -> Result<Option<T>, D::Error> {
        match value::<D, String>(deserializer, key)? {
            None => Ok(None),
            Some(name) => match of_name(&name) {
                Some(thing) => Ok(Some(thing)),
                None => Err(D::Error::custom(unnamed(name))),
            },
        }
    }

    pub fn method<'de, D: Deserializer<'de>>(d: D) -> Result<Option<MethodKind>, D::Error> {
        named(d, "method", MethodKind::of_name, Unnamed::Method)
    }

    pub fn threshold<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f32>, D::Error> {
        value(d, "threshold")
    }

    pub fn max_link_density<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f32>, D::Error> {
        value(d, "max_link_density")
    }

    pub fn bias<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f32>, D::Error> {
        value(d, "bias")
    }

    pub fn comments<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        Ok(value(d, "comments")?.unwrap_or(false))
    }

    pub fn drop_tables<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        Ok(value(d, "drop_tables")?.unwrap_or(false))
    }

    /// `auto` is no kind: each page is decided as the kind it is told to be.
    pub fn kind<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PageKind>, D::Error> {
        let kind = |name: &str| match name {
            AUTO => Some(None),
            name => PageKind::of_name(name).map(Some),
        };
        Ok(named(d, "kind", kind, Unnamed::Kind)?.flatten())
    }

    pub fn favor<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Favor>, D::Error> {
        named(d, "favor", Favor::of_name, Unnamed::Favor)
    }

    pub fn format<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Layout>, D::Error> {
        named(d, "format", Layout::of_name, Unnamed::Format)
    }

    pub fn target_language<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Language>, D::Error> {
        named(d, "target_language", Language::of_name, Unnamed::Language)
    }
}

/// The decision's options (the command line's flags, Python's keywords, the API's JSON keys).
/// Each left out (`None`, `false`) is the default; [`Decision::settings`] checks them.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Decision {
    /// How blocks and sentences are kept or dropped [default: combined].
    #[cfg_attr(feature = "cli", arg(long, value_enum))]
    #[serde(deserialize_with = "read::method")]
    pub method: Option<MethodKind>,

    /// Drop sentences whose perplexity is above PPL [default: 3000000 with --method
    /// perplexity; none with the combined method, whose classifier weighs perplexity itself and
    /// must not empty pages in other languages].
    #[cfg_attr(feature = "cli", arg(short, long, value_name = "PPL", value_parser = cli::max_perplexity))]
    #[serde(deserialize_with = "read::threshold")]
    pub threshold: Option<f32>,

    /// Perplexity method: drop blocks whose share of link text is above this (1 keeps all)
    /// [default: 0.4]. The combined method weighs link density itself and refuses this flag.
    #[cfg_attr(feature = "cli", arg(hide_short_help = true, long, value_name = "SHARE", value_parser = cli::max_link_density))]
    #[serde(deserialize_with = "read::max_link_density")]
    pub max_link_density: Option<f32>,

    /// Combined method: add BIAS log-odds to every block's score: above 0 keeps more, below
    /// keeps less, from -20 to 20 (--favor-recall is 1, --favor-precision -1) [default: 0].
    #[cfg_attr(feature = "cli", arg(hide_short_help = true, long, value_name = "BIAS", allow_negative_numbers = true, value_parser = cli::bias))]
    #[serde(deserialize_with = "read::bias")]
    pub bias: Option<f32>,

    /// Combined method: keep readers' comments (dropped by default, as the Dragnet gold does).
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(deserialize_with = "read::comments")]
    pub comments: bool,

    /// Combined method: drop the tables of data (and their captions), for corpora of prose
    /// alone; kept by default, whole, with their header.
    #[cfg_attr(feature = "cli", arg(hide_short_help = true, long))]
    #[serde(deserialize_with = "read::drop_tables")]
    pub drop_tables: bool,

    /// Combined method: decide every page as this kind instead of the kind it declares
    /// (schema.org types, Open Graph type, URL). The kind sets what the main content is: every
    /// post of a forum (comments kept), every section and card of documentation, collections,
    /// listings and service pages (leaning to recall); articles, products and `other` are
    /// decided as the flags say
    #[cfg_attr(feature = "cli", arg(long, value_name = "KIND", value_parser = cli::kind()))]
    #[serde(deserialize_with = "read::kind")]
    pub kind: Option<PageKind>,

    /// Combined method: which way a block in doubt goes (the command line's
    /// `--favor-precision` and `--favor-recall`).
    #[cfg_attr(feature = "cli", arg(skip))]
    #[serde(deserialize_with = "read::favor")]
    pub favor: Option<Favor>,

    /// Combined method: a classifier instead of the embedded one (the command line's
    /// `--classifier PATH`).
    #[cfg_attr(feature = "cli", arg(skip))]
    #[serde(skip)]
    pub classifier: Option<Arc<Classifier>>,
}

impl Decision {
    /// The options, as Python's keywords and the API's JSON keys name them, with the type
    /// Python's stub gives each (a test checks them against the fields serde reads).
    pub const OPTIONS: [OptionName; 8] = [
        OptionName::new("method", "Optional[_Method]"),
        OptionName::new("threshold", "Optional[float]"),
        OptionName::new("max_link_density", "Optional[float]"),
        OptionName::new("bias", "Optional[float]"),
        OptionName::new("comments", "bool"),
        OptionName::new("drop_tables", "bool"),
        OptionName::new("kind", "Optional[_Kind]"),
        OptionName::new("favor", "Optional[_Favor]"),
    ];

    /// The options' names ([`Decision::OPTIONS`]).
    pub const KEYS: [&'static str; Decision::OPTIONS.len()] = keys(Decision::OPTIONS);

    /// The decision that `options` name (a function that takes the decision's options alone:
    /// `format` and `target_language` are unknown keys to it), read as [`Request::of_options`]
    /// reads a request.
    pub fn of_options<'de, D: Deserializer<'de>>(options: D) -> Result<Decision, RequestError> {
        /// A decision alone, with the keys it does not know refused.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Alone {
            #[serde(flatten)]
            decision: Decision,
        }
        let alone = Alone::deserialize(options).map_err(RequestError::of_serde)?;
        Ok(alone.decision)
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
            drop_tables: self.drop_tables,
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
            drop_tables: self.drop_tables,
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
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Request {
    /// How blocks and sentences are kept or dropped.
    #[serde(flatten)]
    pub decision: Decision,
    /// What is written; `text` when left out.
    #[serde(deserialize_with = "read::format")]
    pub format: Option<Layout>,
    /// Keep only the pages whose text is in this language (`--target-language`); the others
    /// give no output.
    #[serde(deserialize_with = "read::target_language")]
    pub target_language: Option<Language>,
}

impl Request {
    /// Every option, as Python's keywords and the API's JSON keys name them: the decision's
    /// ([`Decision::OPTIONS`]), then `format` and `target_language`.
    pub const OPTIONS: [OptionName; Decision::OPTIONS.len() + 2] = {
        let mut options =
            [OptionName::new("format", "Optional[_Format]"); Decision::OPTIONS.len() + 2];
        let mut i = 0;
        while i < Decision::OPTIONS.len() {
            options[i] = Decision::OPTIONS[i];
            i += 1;
        }
        options[i + 1] = OptionName::new("target_language", "Optional[str]");
        options
    };

    /// Every option's name ([`Request::OPTIONS`]).
    pub const KEYS: [&'static str; Request::OPTIONS.len()] = keys(Request::OPTIONS);

    /// The request that `options` name (Python's keyword arguments, a JSON object's keys;
    /// `null` is an option left out), read by serde as any program would read it: unknown keys
    /// and values of the wrong type are refused ([`RequestError::of_serde`]).
    pub fn of_options<'de, D: Deserializer<'de>>(options: D) -> Result<Request, RequestError> {
        Request::deserialize(options).map_err(RequestError::of_serde)
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
    use serde_json::json;

    /// The job a JSON object of options describes.
    fn job(options: serde_json::Value) -> Result<Job, RequestError> {
        Request::of_options(options)?.job()
    }

    /// The fields serde reads a `T` from, as its derived `Deserialize` names them.
    fn serde_fields<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
        use serde::de::{self, Visitor};
        struct Fields<'a>(&'a mut &'static [&'static str]);
        impl<'de> Deserializer<'de> for Fields<'_> {
            type Error = de::value::Error;
            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
                Err(de::Error::custom("not a struct"))
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> Result<V::Value, Self::Error> {
                *self.0 = fields;
                Err(de::Error::custom("fields read"))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
                byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
                identifier ignored_any
            }
        }
        let mut fields: &'static [&'static str] = &[];
        let _ = T::deserialize(Fields(&mut fields));
        fields
    }

    #[test]
    fn the_keys_are_the_fields_serde_reads() {
        assert_eq!(serde_fields::<Decision>(), Decision::KEYS);
    }

    #[test]
    fn keys_name_options() {
        let json = job(json!({"method": "combined", "format": "json", "favor": "recall"}));
        let json = json.unwrap();
        assert!(json.output.records().is_some() && json.options.render.report_perplexity);
        assert_eq!(json.options.decide.choices.favor, Favor::Recall);
        assert_eq!(
            json.options.decide.choices.kind, None,
            "auto: each page's own"
        );
        let names = PageKind::ALL.map(PageKind::name);
        assert_eq!(KINDS[1..], names, "every kind by its own name");
        let forum = job(json!({"kind": "forum", "comments": true})).unwrap();
        assert_eq!(forum.options.decide.choices.kind, Some(PageKind::Forum));
        assert!(forum.options.decide.choices.comments);
        let auto = job(json!({"kind": "auto", "comments": null})).unwrap();
        assert_eq!(auto.options.decide.choices.kind, None, "auto is no kind");
        let mark = job(json!({"method": "perplexity", "format": "mark"})).unwrap();
        assert_eq!(mark.options.render.mode, OutputMode::Mark);
        assert!(mark.options.decide.method.classifier().is_none());
        let null = Request::of_options(json!({"method": null, "threshold": null})).unwrap();
        assert!(null.decision.method.is_none() && null.decision.threshold.is_none());
    }

    #[test]
    fn what_names_nothing_or_does_not_go_together_is_refused() {
        for (given, error) in [
            (json!({"method": "best"}), "unknown method 'best'"),
            (json!({"format": "tei"}), "unknown format 'tei'"),
            (json!({"favor": "most"}), "unknown favor 'most'"),
            (json!({"kind": "blog"}), "unknown kind 'blog'"),
            (json!({"colour": "red"}), "unknown option 'colour'"),
            (
                json!({"comments": "yes"}),
                "comments: invalid type: string \"yes\", expected a boolean",
            ),
            (
                json!({"threshold": "high"}),
                "threshold: invalid type: string \"high\", expected f32",
            ),
            (
                json!({"method": 5}),
                "method: invalid type: integer `5`, expected a string",
            ),
            (
                json!({"method": "perplexity", "kind": "forum"}),
                "kind applies only to the combined method",
            ),
            (
                json!({"method": "perplexity", "favor": "precision"}),
                "favor applies only to the combined method",
            ),
        ] {
            let message = job(given).unwrap_err().to_string();
            assert!(message.starts_with(error), "{message}");
        }
        assert!(matches!(
            job(json!({"comments": 1})),
            Err(RequestError::Type(_))
        ));
        assert_eq!(
            job(json!({"target_language": "klingon"})).unwrap_err(),
            RequestError::Name(Unnamed::Language("klingon".into()).to_string())
        );
        let perplexity = json!({"method": "perplexity", "favor": "balanced"});
        assert!(job(perplexity).is_ok(), "the default leaning is no leaning");
        let density = job(json!({"method": "perplexity", "max_link_density": 0.25}));
        assert_eq!(
            density.unwrap().options.decide.policy.max_link_density,
            0.25
        );
        let huge = job(json!({"threshold": 1e300}));
        assert!(matches!(huge, Err(RequestError::Threshold(_))), "{huge:?}");
        // The refusals list the names from the same lists the options are read from.
        let favor = Unnamed::Favor("most".into()).to_string();
        assert_eq!(
            favor,
            format!(
                "unknown favor 'most' ({}, {} or {})",
                FAVORS[0], FAVORS[1], FAVORS[2]
            )
        );
    }

    #[test]
    fn a_decision_alone_knows_the_decisions_keys_only() {
        let decision = Decision::of_options(json!({"kind": "forum", "bias": 2})).unwrap();
        assert_eq!(
            (decision.kind, decision.bias),
            (Some(PageKind::Forum), Some(2.0))
        );
        for key in ["format", "target_language"] {
            let refused = Decision::of_options(json!({ key: "text" })).unwrap_err();
            assert_eq!(refused, RequestError::Unknown(key.to_string()));
        }
        assert_eq!(Request::KEYS[..Decision::KEYS.len()], Decision::KEYS);
        assert!(Request::KEYS.ends_with(&["format", "target_language"]));
    }

    #[test]
    fn drop_tables_drops_the_tables_of_data_and_their_captions_only() {
        use crate::pipeline::pages::{clean_page, Page};
        let html = "<h1>Platforms</h1><p>The tool runs on the platforms below, each tested \
                    on every release of the package by the maintainers.</p><table><caption>\
                    Supported platforms</caption><tr><th>Platform</th><th>Status</th></tr>\
                    <tr><td>Linux</td><td>supported</td></tr><tr><td>macOS</td><td>supported\
                    </td></tr></table><p>Other platforms may work, but nobody tests them \
                    before a release, so reports of problems there are welcome.</p>";
        let page = Page::new("<page>", html.as_bytes());
        let clean = |options: serde_json::Value| {
            let options = job(options).unwrap();
            let cleaned = clean_page(&page, crate::lm::model::embedded(), &options).unwrap();
            String::from_utf8(cleaned.output).unwrap()
        };
        let kept = clean(json!({}));
        let dropped = clean(json!({ "drop_tables": true }));
        assert!(kept.contains("Linux\tsupported"), "{kept}");
        for gone in ["Linux", "Platform\t", "Supported platforms"] {
            assert!(!dropped.contains(gone), "{gone}: {dropped}");
        }
        for line in dropped.lines() {
            assert!(kept.contains(line), "{line}");
        }
        assert!(dropped.contains("Other platforms may work"), "{dropped}");
        assert_eq!(
            job(json!({"method": "perplexity", "drop_tables": true})).unwrap_err(),
            RequestError::IgnoredByMethod(MethodOption::DropTables)
        );
    }

    #[test]
    fn a_bias_keeps_more_or_less_and_one_log_odds_is_the_leaning() {
        use crate::pipeline::pages::{clean_page, Page};
        let page = Page::new(
            "<page>",
            &include_bytes!("../../fixtures/pages/news.html")[..],
        );
        let clean = |options: serde_json::Value| {
            let options = job(options).unwrap();
            clean_page(&page, crate::lm::model::embedded(), &options)
                .unwrap()
                .output
        };
        let bias = |bias: f64| clean(json!({ "bias": bias }));
        let lengths = [-20.0, -3.0, 0.0, 3.0, 20.0].map(|b| bias(b).len());
        assert!(lengths.windows(2).all(|w| w[0] <= w[1]), "{lengths:?}");
        assert!(lengths[0] < lengths[4], "{lengths:?}");
        assert_eq!(bias(0.0), clean(json!({})));
        assert_eq!(bias(1.0), clean(json!({"favor": "recall"})));
        assert_eq!(bias(-1.0), clean(json!({"favor": "precision"})));
        assert_eq!(
            job(json!({"bias": 21.0})).unwrap_err(),
            RequestError::Bias(21.0)
        );
        let nan = Decision {
            bias: Some(f32::NAN),
            ..Decision::default()
        };
        assert!(matches!(nan.settings(), Err(RequestError::Bias(_))));
        let nan = Decision {
            threshold: Some(f32::NAN),
            ..Decision::default()
        };
        assert!(matches!(nan.settings(), Err(RequestError::Threshold(_))));
        assert_eq!(
            job(json!({"method": "perplexity", "bias": 1.0}))
                .unwrap_err()
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
