//! The flags of `ppl-eval`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

const EXIT_STATUS: &str = "Exit status: 0 on success, 2 on any error (bad arguments, missing \
                           or unreadable directory or file, unwritable output).";

/// Evaluation tools of ppl-filter: score cleaned text against CleanEval-style gold files,
/// run the jusText-style baseline, and compare methods.
///
/// Scoring rules (`ppl-eval score`). Every GOLD_DIR/N.txt is compared with CLEANED_DIR/N.txt;
/// a missing cleaned file counts as an empty output (and is reported), extra cleaned files are
/// ignored. Both sides are normalised: decoded as UTF-8, or as windows-1252 when the bytes are
/// not valid UTF-8; a leading byte-order mark is dropped; every line matching ^\s*URL.*$ is
/// deleted; control characters U+0000 to U+001F become spaces; the text is split on Unicode
/// white space into case-sensitive words, punctuation staying attached. The segment markers
/// <p>, <h> and <l> (any case, also when glued to a word) are separate tokens.
///
/// Lev: markers deleted; d = exact word-level Levenshtein distance (insert, delete and
/// substitute each cost 1); per page 100·(1 − d / max(n, m)), 100 when both sides are empty;
/// macro = mean over pages, micro = 100·(1 − Σd / Σmax).
///
/// Word P/R/F (Evert's cleaneval.py): true positives = length of an exact longest common
/// subsequence of the two word sequences, false positives = cleaned words − tp, false
/// negatives = gold words − tp; micro from summed counts, macro = mean of per-page P, R and F.
/// The "text" view removes markers on both sides, the "tags" view keeps them as tokens; marker
/// P/R/F aligns the marker sequences alone and is shown when the cleaned files carry markers.
/// Both sides empty: P = R = F = 100; empty output: P = 0; empty gold: R = 0; P + R = 0: F = 0.
#[derive(Parser, Debug)]
#[command(name = "ppl-eval", version, after_help = EXIT_STATUS)]
pub struct EvalArgs {
    /// The mode (required unless --generate is given).
    #[command(subcommand)]
    pub command: Option<EvalCommand>,

    /// Print the man page or a shell completion script and exit.
    #[arg(long, value_enum, hide = true)]
    pub generate: Option<crate::cli::Generate>,
}

/// The subcommands of `ppl-eval`.
#[derive(Subcommand, Debug)]
pub enum EvalCommand {
    /// Score CLEANED_DIR/N.txt against every GOLD_DIR/N.txt (Lev, word P/R/F, markers).
    ///
    /// Both sides are decoded as UTF-8 (windows-1252 when not valid UTF-8), a leading BOM is
    /// dropped, lines starting with "URL" (after white space) are deleted, control characters
    /// become spaces, and text is split on white space into case-sensitive words. Lev =
    /// 100·(1 − word edit distance / longer length), markers <p> <h> <l> removed; word
    /// precision/recall/F from an exact LCS alignment, markers removed ("text") and kept as
    /// tokens ("tags"); marker P/R/F when the cleaned files carry markers. Micro from summed
    /// counts, macro = mean over pages. A missing cleaned file is scored as an empty output
    /// and counted; extra cleaned files are ignored.
    #[command(after_help = EXIT_STATUS)]
    Score(ScoreArgs),
    /// Clean INPUT_DIR/*.html with the jusText-style baseline into OUT_DIR/N.txt.
    #[command(after_help = EXIT_STATUS)]
    Baseline(BaselineArgs),
    /// Clean INPUT_DIR/*.html with no cleaning, the baseline and ppl-filter; score each
    /// against GOLD_DIR and print them side by side with their throughput.
    #[command(after_help = EXIT_STATUS)]
    Compare(CompareArgs),
}

/// `ppl-eval score`.
#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// Directory of cleaned outputs, N.txt
    pub cleaned_dir: PathBuf,
    /// Directory of gold files, N.txt
    pub gold_dir: PathBuf,
    /// Also write one TSV row per page (with a header row) to FILE
    #[arg(long, value_name = "FILE")]
    pub tsv: Option<PathBuf>,
    /// Also write the summary as a flat JSON object to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// `ppl-eval baseline`.
#[derive(Args, Debug)]
pub struct BaselineArgs {
    /// Directory of pages, *.html
    pub input_dir: PathBuf,
    /// Where N.txt files are written (created if needed)
    pub out_dir: PathBuf,
}

/// `ppl-eval compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Directory of pages, N.html
    pub input_dir: PathBuf,
    /// Directory of gold files, N.txt
    pub gold_dir: PathBuf,
    /// Where each method's outputs are kept (default: a fresh directory under the system temp dir)
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Language model file to use instead of the embedded English model.
    #[arg(short, long, value_name = "PATH")]
    pub model: Option<PathBuf>,
    /// How ppl-filter decides.
    #[command(flatten)]
    pub policy: crate::cli::PolicyArgs,
}

/// The clap command, for man pages and completions.
pub fn command() -> clap::Command {
    <EvalArgs as clap::CommandFactory>::command()
}
