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

use crate::decide::{Classifier, ClassifierLoadError, Favor, MethodOption};
use crate::pipeline::{DecideSettings, Decision, RequestError};

/// Why the decision flags cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    /// A flag that the chosen method would ignore.
    #[error("{flag} applies only to --method {method}")]
    IgnoredByMethod {
        /// The flag given.
        flag: String,
        /// The method it applies to.
        method: &'static str,
    },
    /// A flag's value that the decision refuses.
    #[error(transparent)]
    Refused(RequestError),
    /// The classifier file named by `--classifier` cannot be used.
    #[error(transparent)]
    Classifier(#[from] ClassifierLoadError),
}

/// The decision's flags, shared by `ppl-filter` and `ppl-eval compare`: the library's
/// [`Decision`], and the two flags the command line spells its own way.
#[derive(Debug, clap::Args)]
pub struct PolicyArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub decision: Decision,

    /// Classifier file (from `ppl-filter learn`) instead of the embedded one (combined method).
    #[arg(long, value_name = "PATH")]
    pub classifier: Option<PathBuf>,

    /// Combined method: keep less, only what is clearly main content.
    #[arg(long, conflicts_with = "favor_recall")]
    pub favor_precision: bool,

    /// Combined method: keep more, anything that may be main content.
    #[arg(long)]
    pub favor_recall: bool,
}

impl PolicyArgs {
    /// The decision stage's settings these flags describe (the classifier file loaded), refused
    /// as [`Decision::settings`] refuses them, naming the flag.
    pub fn decide(&self) -> Result<DecideSettings, FlagError> {
        let mut decision = self.decision.clone();
        decision.favor = match (self.favor_precision, self.favor_recall) {
            (true, _) => Some(Favor::Precision),
            (_, true) => Some(Favor::Recall),
            _ => None,
        };
        if let Some(path) = &self.classifier {
            decision.classifier = Some(Arc::new(Classifier::load(path)?));
        }
        decision.settings().map_err(|error| match error {
            RequestError::IgnoredByMethod(option) => FlagError::IgnoredByMethod {
                flag: self.flag(option),
                method: option.method().name(),
            },
            error => FlagError::Refused(error),
        })
    }

    /// The flag that gave `option`: its keyword spelled as a flag, or the leaning given.
    fn flag(&self, option: MethodOption) -> String {
        match option {
            MethodOption::Favor if self.favor_precision => "--favor-precision".into(),
            MethodOption::Favor => "--favor-recall".into(),
            option => format!("--{}", option.keyword().replace('_', "-")),
        }
    }
}

/// `command` and its subcommands with every option's help shown: the options `-h` leaves
/// out (`hide_short_help`) are in the man page as in `--help`.
fn whole_help(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| arg.hide_short_help(false))
        .mut_subcommands(whole_help)
}

/// One man page for `command` and its subcommands: each subcommand's synopsis, description
/// and options in a section of its own (no references to pages that do not exist), and the
/// exit status (the command's `after_help`) under EXIT STATUS.
fn man_page(command: &clap::Command, out: &mut dyn Write) -> std::io::Result<()> {
    let mut command = whole_help(command.clone());
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
    // The exit status, after the examples in `ppl-filter`'s help text (written above).
    if let Some(help) = command.get_after_help() {
        let help = help.to_string();
        let status = help
            .strip_prefix(filter::EXAMPLES)
            .unwrap_or(&help)
            .trim_start();
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
