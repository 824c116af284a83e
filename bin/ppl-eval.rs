//! `ppl-eval`: evaluation front end of ppl-filter. A thin clap layer over
//! `ppl_filter::eval`: one subcommand per variant of [`Command`], one small function each.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use ppl_filter::eval::{score_dirs, EvalError};

const EXIT_STATUS: &str = "Exit status: 0 on success, 2 on any error (bad arguments, missing \
                           or unreadable directory or file, unwritable output).";

/// Evaluation tools of ppl-filter: score cleaned text against CleanEval-style gold files.
#[derive(Parser, Debug)]
#[command(name = "ppl-eval", version, after_help = EXIT_STATUS)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Score CLEANED_DIR/N.txt against every GOLD_DIR/N.txt (Lev, word P/R/F, markers).
    ///
    /// Figures: Lev = 100·(1 − word edit distance / longer length), markers removed; word
    /// precision/recall/F from an exact LCS alignment, markers removed ("text") and kept as
    /// tokens ("tags"); marker P/R/F when the cleaned files carry segment markers. Micro from
    /// summed counts, macro = mean over pages. A missing cleaned file is scored as an empty
    /// output and counted; extra cleaned files are ignored. Prints a summary table.
    #[command(after_help = EXIT_STATUS)]
    Score(ScoreArgs),
}

#[derive(Args, Debug)]
struct ScoreArgs {
    /// Directory of cleaned outputs, N.txt
    cleaned_dir: PathBuf,
    /// Directory of gold files, N.txt
    gold_dir: PathBuf,
    /// Also write one TSV row per page (with a header row) to FILE
    #[arg(long, value_name = "FILE")]
    tsv: Option<PathBuf>,
    /// Also write the summary as a flat JSON object to FILE
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

fn score(args: ScoreArgs) -> Result<(), EvalError> {
    let summary = score_dirs(&args.cleaned_dir, &args.gold_dir)?;
    if let Some(path) = &args.tsv {
        summary.save_tsv(path)?;
    }
    if let Some(path) = &args.json {
        summary.save_json(path)?;
    }
    print!("{}", summary.to_table());
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Score(args) => score(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ppl-eval: {e}");
            ExitCode::from(2)
        }
    }
}
