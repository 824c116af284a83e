//! Command-line definitions of both binaries, kept in the library so that the man pages and
//! shell completions are generated from the same definitions (and a test catches drift).

pub mod eval;
pub mod filter;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::classify::{Choices, Classifier, Favor, Method, Policy, DEFAULT_MAX_LINK_DENSITY};
use crate::lm::model::{embedded, LanguageModel};

/// The embedded model, or the one at `path`; the error is one line naming the file.
/// A loaded model lives for the rest of the process, as the embedded one does.
pub fn load_model(path: Option<&Path>) -> Result<&'static LanguageModel, String> {
    match path {
        None => Ok(embedded()),
        Some(path) => LanguageModel::open(path)
            .map(|model| &*Box::leak(Box::new(model)))
            .map_err(|e| format!("{}: {e}", path.display())),
    }
}

/// The model and thresholds of ppl-filter's decision, shared by `ppl-filter` and `ppl-eval compare`.
#[derive(Debug, clap::Args)]
pub struct PolicyArgs {
    /// Language model file to use instead of the embedded English model.
    #[arg(short, long, value_name = "PATH")]
    pub model: Option<PathBuf>,

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

    /// Perplexity method: drop blocks whose share of link text is above this (1 keeps all).
    #[arg(long, value_name = "SHARE", default_value_t = DEFAULT_MAX_LINK_DENSITY, value_parser = parse_max_link_density)]
    pub max_link_density: f32,

    /// Combined method: keep less, only what is clearly main content.
    #[arg(long, conflicts_with = "favor_recall")]
    pub favor_precision: bool,

    /// Combined method: keep more, anything that may be main content.
    #[arg(long)]
    pub favor_recall: bool,

    /// Combined method: keep readers' comments (dropped by default, as the Dragnet gold does).
    #[arg(long)]
    pub comments: bool,
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

/// The decision methods, as flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MethodKind {
    /// PyPlexity's rule: drop sentences above --threshold, and blocks above --max-link-density.
    Perplexity,
    /// A learned classifier over perplexity under the general and a boilerplate model, the
    /// block's shape and markup, and its neighbours (`ppl-filter learn` makes one).
    Combined,
}

impl PolicyArgs {
    /// The keep/drop policy these flags describe.
    pub fn policy(&self) -> Policy {
        Policy {
            max_perplexity: self.threshold,
            max_link_density: self.max_link_density,
        }
    }

    /// The combined method's leaning and comments (and the default document bound).
    pub fn choices(&self) -> Choices {
        let favor = match (self.favor_precision, self.favor_recall) {
            (true, _) => Favor::Precision,
            (_, true) => Favor::Recall,
            _ => Favor::Balanced,
        };
        Choices {
            favor,
            comments: self.comments,
            ..Choices::default()
        }
    }

    /// The decision method, loading the classifier file if one is given; the error is one
    /// line naming the file.
    pub fn method(&self) -> Result<Method, String> {
        match (self.method, &self.classifier) {
            (MethodKind::Perplexity, _) => Ok(Method::Perplexity),
            (MethodKind::Combined, None) => Ok(Method::Combined(crate::classify::embedded())),
            (MethodKind::Combined, Some(path)) => Classifier::open(path)
                .map(|c| Method::Combined(std::sync::Arc::new(c)))
                .map_err(|e| format!("{}: {e}", path.display())),
        }
    }
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
        Generate::Man => return clap_mangen::Man::new(command).render(out),
        Generate::CompleteBash => Shell::Bash,
        Generate::CompleteZsh => Shell::Zsh,
        Generate::CompleteFish => Shell::Fish,
    };
    clap_complete::generate(shell, &mut command, name, out);
    Ok(())
}
