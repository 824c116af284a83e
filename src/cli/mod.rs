//! Command-line definitions of both binaries, kept in the library so that the man pages and
//! shell completions are generated from the same definitions (and a test catches drift).
//!
//! The doc comments of the flags are their `--help` text, read by people at a terminal, so
//! they write CleanEval's markers (<p>, <h>, <l>) as they are printed, not as rustdoc markup.
#![allow(rustdoc::invalid_html_tags)]

pub mod eval;
pub mod filter;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use crate::block::PageKind;
use crate::decide::{
    embedded, Choices, Classifier, ClassifierLoadError, Favor, Given, Method, MethodKind,
    MethodOption, Policy, DEFAULT_MAX_LINK_DENSITY,
};
use crate::pipeline::DecideSettings;

/// Why the decision flags cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    /// A flag that the chosen method would ignore.
    #[error("{flag} applies only to --method {method}")]
    IgnoredByMethod {
        /// The flag given.
        flag: &'static str,
        /// The method it applies to.
        method: &'static str,
    },
    /// The classifier file named by `--classifier` cannot be used.
    #[error(transparent)]
    Classifier(#[from] ClassifierLoadError),
}

/// The model and thresholds of ppl-filter's decision, shared by `ppl-filter` and `ppl-eval compare`.
#[derive(Debug, clap::Args)]
pub struct PolicyArgs {
    /// How blocks and sentences are kept or dropped.
    #[arg(long, value_enum, default_value_t = MethodKind::Combined)]
    pub method: MethodKind,

    /// Classifier file (from `ppl-filter learn`) instead of the embedded one (combined method).
    #[arg(long, value_name = "PATH")]
    pub classifier: Option<PathBuf>,

    /// Drop sentences whose perplexity is above PPL [default: 3000000 with --method
    /// perplexity; none with the combined method, whose classifier weighs perplexity itself and
    /// must not empty pages in other languages].
    #[arg(short, long, value_name = "PPL", value_parser = parse_max_perplexity)]
    pub threshold: Option<f32>,

    /// Perplexity method: drop blocks whose share of link text is above this (1 keeps all)
    /// [default: 0.4]. The combined method weighs link density itself and refuses this flag.
    #[arg(long, value_name = "SHARE", value_parser = parse_max_link_density)]
    pub max_link_density: Option<f32>,

    /// Combined method: keep less, only what is clearly main content.
    #[arg(long, conflicts_with = "favor_recall")]
    pub favor_precision: bool,

    /// Combined method: keep more, anything that may be main content.
    #[arg(long)]
    pub favor_recall: bool,

    /// Combined method: keep readers' comments (dropped by default, as the Dragnet gold does).
    #[arg(long)]
    pub comments: bool,

    /// Combined method: decide every page as this kind instead of the kind it declares
    /// (schema.org types, Open Graph type, URL). The kind sets what the main content is: every
    /// post of a forum (comments kept), every section and card of documentation, collections,
    /// listings and service pages (leaning to recall); articles, products and `other` are
    /// decided as the flags say
    #[arg(long, value_name = "KIND", value_parser = kind_parser())]
    pub kind: Option<PageKind>,
}

/// `--kind`: one of [`PageKind::name`], listed in the help and the completions.
fn kind_parser() -> impl clap::builder::TypedValueParser<Value = PageKind> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(PageKind::ALL.map(PageKind::name))
        .map(|name| PageKind::of_name(&name).unwrap_or_default())
}

/// `--threshold`: a number that [`Policy::check_max_perplexity`] accepts (not NaN, which
/// would drop every sentence).
fn parse_max_perplexity(arg: &str) -> Result<f32, String> {
    let value: f32 = arg.parse().map_err(|e| format!("{e}"))?;
    Policy::check_max_perplexity(value).map_err(|e| e.to_string())
}

/// `--max-link-density`: a number that [`Policy::check_max_link_density`] accepts.
fn parse_max_link_density(arg: &str) -> Result<f32, String> {
    let value: f32 = arg.parse().map_err(|e| format!("{e}"))?;
    Policy::check_max_link_density(value).map_err(|e| e.to_string())
}

impl PolicyArgs {
    /// The decision stage's settings these flags describe: [`PolicyArgs::method`],
    /// [`PolicyArgs::policy`] and [`PolicyArgs::choices`].
    pub fn decide(&self) -> Result<DecideSettings, FlagError> {
        Ok(DecideSettings {
            method: self.method()?,
            policy: self.policy(),
            choices: self.choices(),
        })
    }

    /// The keep/drop policy these flags describe.
    pub fn policy(&self) -> Policy {
        Policy {
            max_perplexity: self.threshold,
            max_link_density: self.max_link_density.unwrap_or(DEFAULT_MAX_LINK_DENSITY),
        }
    }

    /// The combined method's leaning and comments (and the default document bound).
    pub fn choices(&self) -> Choices {
        let favor = match (self.favor_precision, self.favor_recall) {
            (true, _) => Favor::Precision,
            (_, true) => Favor::Recall,
            _ => Favor::default(),
        };
        Choices {
            favor,
            comments: self.comments,
            kind: self.kind,
            ..Choices::default()
        }
    }

    /// The decision method, loading the classifier file if one is given; refused when a flag
    /// is given that the chosen method would ignore.
    pub fn method(&self) -> Result<Method, FlagError> {
        let given = Given {
            classifier: self.classifier.is_some(),
            favor: self.favor_precision || self.favor_recall,
            comments: self.comments,
            kind: self.kind.is_some(),
            max_link_density: self.max_link_density.is_some(),
        };
        if let Some(option) = self.method.first_ignored(&given) {
            let flag = match option {
                MethodOption::Classifier => "--classifier",
                MethodOption::Favor if self.favor_precision => "--favor-precision",
                MethodOption::Favor => "--favor-recall",
                MethodOption::Comments => "--comments",
                MethodOption::Kind => "--kind",
                MethodOption::MaxLinkDensity => "--max-link-density",
            };
            let method = option.method().name();
            return Err(FlagError::IgnoredByMethod { flag, method });
        }
        match self.method {
            MethodKind::Perplexity => Ok(Method::Perplexity),
            MethodKind::Combined => match &self.classifier {
                None => Ok(Method::Combined(embedded())),
                Some(path) => Ok(Method::Combined(Arc::new(Classifier::load(path)?))),
            },
        }
    }
}

/// One man page for `command` and its subcommands: each subcommand's synopsis, description
/// and options in a section of its own (no references to pages that do not exist), and the
/// exit status (the command's `after_help`) under EXIT STATUS.
fn man_page(command: &clap::Command, out: &mut dyn Write) -> std::io::Result<()> {
    let mut command = command.clone();
    command.build();
    let name = command.get_name().to_string();
    let man = clap_mangen::Man::new(command.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        writeln!(
            out,
            ".SH \"{} {}\"",
            name.to_uppercase(),
            sub.get_name().to_uppercase()
        )?;
        let sub = sub.clone().name(format!("{name} {}", sub.get_name()));
        let page = clap_mangen::Man::new(sub);
        let mut sections = Vec::new();
        page.render_synopsis_section(&mut sections)?;
        page.render_description_section(&mut sections)?;
        page.render_options_section(&mut sections)?;
        // Its sections become subsections of this one.
        let sections = String::from_utf8_lossy(&sections).replace(".SH ", ".SS ");
        out.write_all(sections.as_bytes())?;
    }
    if name == "ppl-filter" {
        let examples = filter::EXAMPLES.trim_start_matches("Examples:\n");
        writeln!(
            out,
            ".SH EXAMPLES\n.nf\n{}\n.fi",
            examples.replace('\\', "\\\\")
        )?;
    }
    if let Some(status) = command.get_after_help() {
        writeln!(out, ".SH \"EXIT STATUS\"\n.nf\n{status}\n.fi")?;
    }
    man.render_version_section(out)
}

/// What `--generate` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Generate {
    /// The roff man page.
    Man,
    /// bash completions.
    CompleteBash,
    /// zsh completions.
    CompleteZsh,
    /// fish completions.
    CompleteFish,
    /// The embedded language model's file (committed packed as `model/en.pack`).
    Model,
}

/// Writes the man page or a completion script for `command` to `out`.
pub fn generate(
    what: Generate,
    mut command: clap::Command,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    use clap_complete::Shell;
    let name = command.get_name().to_string();
    let shell = match what {
        Generate::Man => return man_page(&command, out),
        Generate::Model => return out.write_all(crate::lm::model::embedded_bytes()),
        Generate::CompleteBash => Shell::Bash,
        Generate::CompleteZsh => Shell::Zsh,
        Generate::CompleteFish => Shell::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, &name, &mut script);
    if shell == Shell::Bash {
        // clap_complete's bash script names a subcommand's branch `ppl__subcmd__filter__…` when
        // the program's name has a hyphen, but looks it up as `ppl__filter__…`, so subcommand
        // flags were never completed: name the branches as they are looked up.
        let script = String::from_utf8_lossy(&script);
        let wrong = name.replace('-', "__subcmd__");
        let right = name.replace('-', "__");
        return out.write_all(script.replace(&wrong, &right).as_bytes());
    }
    out.write_all(&script)
}
