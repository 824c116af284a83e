//! `ppl-filter perplexity`: each sentence's perplexity, PyPlexity-style.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use ppl_filter::cli::filter::{GlobalArgs, PerplexityArgs};

/// Prints `perplexity<TAB>sentence` for each sentence given, or each line of standard input.
pub fn run(args: PerplexityArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let model = ppl_filter::lm::load_model(global.model.as_deref())?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut print = |sentence: &str| writeln!(out, "{:.1}\t{sentence}", model.perplexity(sentence));
    let result = if args.sentences.is_empty() {
        io::stdin().lines().try_for_each(|line| print(&line?))
    } else {
        args.sentences.iter().try_for_each(|s| print(s))
    };
    crate::written(result.and_then(|()| out.flush()))
}
