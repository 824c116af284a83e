//! The flags of `ppl-filter`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::html::HtmlSettings;
use crate::learn::{GoldFormat, Learner, SetBalance};
use crate::sink::render::Layout;
use crate::source::InputFormat;

/// The least `--max-block-bytes` taken: a block of a few long sentences. Blocks much smaller
/// cut sentences into words, and words into letters, each its own block.
const MIN_BLOCK_BYTES: u64 = 256;

const EXIT_CODES: &str = "\
Exit status (as ripgrep's: a batch job can tell a skipped page from a failed run):
  0  every input was cleaned; notes on stderr (bytes invalid in their encoding replaced,
     an empty input) do not change it
  1  some input, or part of one, was skipped: binary data, damaged or truncated input,
     a record or line that cannot be parsed, a directory with no file to clean
     (each named on stderr)
  2  an error: an input or directory could not be read, the model or classifier is bad,
     the output cannot be written, or the command line is wrong

A closed output (for example `| head`) ends the run quietly with status 0.";

/// Examples, shown by `--help` and as the man page's EXAMPLES.
pub const EXAMPLES: &str = "\
Examples:
  curl -s https://example.org/ | ppl-filter > clean.txt
  ppl-filter page.html pages/                    files and directories (walked), .gz too
  ppl-filter crawl.warc.gz                       WARC or JSONL: one kind of input a run
  ppl-filter -o clean/ pages/                    one output file per input
  ppl-filter --format json -i urls.txt           fetch a list of URLs: a JSON record each
  ppl-filter --target-language de --stats crawl.warc.gz
  ppl-filter --favor-precision --format markdown page.html
  ppl-filter --format mark page.html             every sentence, the dropped ones marked
  ppl-filter serve --port 9000                   the web demo
  ppl-filter --generate man > ppl-filter.1       the man page (also complete-bash, -zsh, -fish)";

/// Turns raw web pages into their clean, well-formed text.
///
/// Reads HTML from standard input, each FILE (`-` is standard input; gzip is read
/// transparently), the responses of a WARC file, the lines of a JSONL file, or pages fetched by
/// URL (-u, -i); cuts each page into blocks at block-level elements and keeps its main content.
/// The default method (--method combined) decides each block with a learned classifier (boosted
/// trees) over what the block shows: its sentences' perplexity under a word n-gram model of
/// good English (embedded in the binary) and under a model of boilerplate, its words, links and
/// markup, its neighbours and the page around it; --method perplexity keeps the sentences below
/// a perplexity threshold (PyPlexity's rule). The kept text is written one block per line;
/// documents are separated by an empty line, or written to their own files with --output-dir.
#[derive(Debug, Parser)]
#[command(name = "ppl-filter", version, after_help = format!("{EXAMPLES}\n\n{EXIT_CODES}"))]
pub struct FilterArgs {
    /// Flags that go before or after a subcommand.
    #[command(flatten)]
    pub global: GlobalArgs,

    /// The mode; none is the main job, cleaning.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The main job's flags.
    #[command(flatten)]
    pub clean: CleanArgs,

    /// Write the man page, a shell completion script or the embedded language model's file to
    /// standard output and exit.
    #[arg(hide_short_help = true, long, value_enum, value_name = "WHAT")]
    pub generate: Option<crate::cli::Generate>,
}

/// Options of every mode, accepted before or after a subcommand
/// (`ppl-filter -m my.bin perplexity …` and `ppl-filter perplexity -m my.bin …` are the same).
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Language model file to use instead of the embedded English model (learn with the one
    /// you will clean with).
    #[arg(short, long, value_name = "PATH", global = true)]
    pub model: Option<PathBuf>,

    /// Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped,
    /// nothing kept); every problem with an input (notes, warnings, errors) is still reported,
    /// one line each.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// The subcommands; without one, ppl-filter cleans its inputs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Train a word n-gram language model from plain text (or .gz) files.
    Train(TrainArgs),
    /// Print the perplexity of each SENTENCE (or of each line of standard input).
    Perplexity(PerplexityArgs),
    /// Learn the combined method's classifier from pages and their hand-cleaned text.
    Learn(LearnArgs),
    /// Serve the web demo: a page to try the cleaning on, and a JSON API.
    ///
    /// Listens on ADDR (this machine only by default) until Ctrl-C or SIGTERM; the requests
    /// under way are answered before it exits. GET / is the demo page. POST /clean takes JSON
    /// {"html": …} (or "text", or "url" to fetch; http and https only, public addresses only)
    /// with optional "blocks" and the options of Python's clean() ("method", "format", "kind",
    /// "target_language", …), and
    /// answers {"text": …, "problems": […]} (and "blocks" when asked), the text as ppl-filter
    /// writes it with the same flags. POST /perplexity takes {"sentence": …} or
    /// {"sentences": […]}. Errors are answered as {"error": …} with a 4xx or 5xx status.
    #[cfg(feature = "serve")]
    Serve(ServeArgs),
}

/// The cleaning flags.
#[derive(Debug, Args)]
pub struct CleanArgs {
    /// Input files or directories (walked recursively); `-` or none reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Also clean the files listed in FILE, one path per line (`-`: standard input).
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub files_from: Option<PathBuf>,

    /// Fetch the page at URL and clean it (repeatable; http and https, any address). Fetched
    /// one at a time, politely: see --fetch-delay, --no-robots, --max-filesize.
    #[arg(short = 'u', long = "fetch", value_name = "URL")]
    pub fetch: Vec<String>,

    /// Fetch and clean the URLs listed in FILE, one a line (`-`: standard input; empty lines
    /// and lines starting with `#` are skipped), read as they are fetched; a URL listed twice
    /// is fetched once.
    #[arg(short = 'i', long = "fetch-list", value_name = "FILE")]
    pub fetch_list: Option<PathBuf>,

    /// Seconds between two requests to one host (longer when its robots.txt asks).
    #[arg(hide_short_help = true, long, value_name = "SECONDS", default_value_t = 1.0, value_parser = parse_seconds)]
    pub fetch_delay: f64,

    /// Seconds a URL's page may take to fetch (connecting, redirects, reading and decoding);
    /// a page whose end has not come by then is cleaned as far as it came, with a warning.
    #[arg(hide_short_help = true, long, value_name = "SECONDS", default_value_t = 30.0, value_parser = parse_seconds)]
    pub fetch_timeout: f64,

    /// Fetch what a site's robots.txt disallows too (it is obeyed by default, for
    /// `User-agent: ppl-filter`, else `*`).
    #[arg(hide_short_help = true, long)]
    pub no_robots: bool,

    /// Skip files larger than BYTES (by their size; compressed size for .gz), and cut a
    /// fetched page at BYTES once decoded, with a warning [default: no limit for files,
    /// 20000000 for a fetched page].
    #[arg(hide_short_help = true, long, value_name = "BYTES")]
    pub max_filesize: Option<u64>,

    /// In directories, clean only files matching GLOB (gitignore syntax; `!GLOB` excludes;
    /// repeatable). Files named on the command line are always cleaned.
    #[arg(short, long, value_name = "GLOB")]
    pub glob: Vec<String>,

    /// In directories, also clean hidden files and walk hidden directories.
    #[arg(hide_short_help = true, long)]
    pub hidden: bool,

    /// In directories, follow symbolic links to directories.
    #[arg(hide_short_help = true, short = 'L', long)]
    pub follow: bool,

    /// The decision's flags.
    #[command(flatten)]
    pub policy: crate::cli::PolicyArgs,

    /// Keep every sentence; wrap dropped ones as <ppl score="…">…</ppl> (as --format mark,
    /// and with the other formats too).
    #[arg(hide_short_help = true, long, conflicts_with = "scores")]
    pub mark: bool,

    /// Print `perplexity<TAB>sentence` for every sentence instead of the text (as --format
    /// scores).
    #[arg(hide_short_help = true, long)]
    pub scores: bool,

    /// Output layout.
    #[arg(short, long, value_enum, default_value_t = Layout::Text)]
    pub format: Layout,

    /// What the inputs hold [default: told from each input's first bytes (WARC, JSON lines,
    /// else pages: HTML, or plain text when their first 4 KiB hold no tag), or from its name
    /// (*.warc[.gz], *.jsonl[.gz]) when they do not tell].
    #[arg(long, value_enum)]
    pub input: Option<InputFormat>,

    /// WARC: also clean responses whose status is not 2xx and payloads that are not HTML (as
    /// plain text); by default they are skipped and counted.
    #[arg(hide_short_help = true, long)]
    pub all_responses: bool,

    /// WARC output on standard output: gzip it, one gzip member per record (as `.warc.gz`
    /// files are written under --output-dir).
    #[arg(hide_short_help = true, short = 'z', long)]
    pub compress: bool,

    /// --format json: the URL of the page(s) read, ahead of a page's own canonical link (a
    /// WARC response's target URI still wins).
    #[arg(hide_short_help = true, long, value_name = "URL")]
    pub url: Option<String>,

    /// JSONL: the field to clean (HTML; plain text when the field is named `text`).
    #[arg(long, value_name = "NAME", default_value = "html")]
    pub field: String,

    /// JSONL: write the cleaned text to this field (added, or replaced if the line has it)
    /// and keep the --field as it was [default: the --field itself].
    #[arg(hide_short_help = true, long, value_name = "NAME")]
    pub output_field: Option<String>,

    /// JSONL: add sentences_kept, sentences_dropped and mean_perplexity (of the kept sentences).
    #[arg(hide_short_help = true, long)]
    pub add_scores: bool,

    /// JSONL: drop lines that are not valid JSON objects with the field, instead of passing
    /// them through unchanged (either way each is reported with its line number).
    #[arg(hide_short_help = true, long)]
    pub skip_bad_lines: bool,

    /// Decode every input with this encoding (a WHATWG label such as utf-8, windows-1252,
    /// shift_jis) instead of detecting it (<meta charset> or a WARC response's HTTP charset, then
    /// a guess); a byte-order mark still wins.
    #[arg(hide_short_help = true, long, value_name = "LABEL")]
    pub encoding: Option<String>,

    /// Also write the page <title> as a heading block.
    #[arg(hide_short_help = true, long)]
    pub title: bool,

    /// Scoring threads, 1 to 256 (default: the number of cores, at most 256).
    #[arg(short = 'j', long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=crate::pipeline::MAX_THREADS as u64))]
    pub threads: Option<usize>,

    /// The longest block, at least 256: a longer one is cut into several (after a sentence
    /// near the limit, else between words); no text is dropped.
    #[arg(hide_short_help = true, long, value_name = "BYTES", default_value_t = HtmlSettings::default().max_block_bytes,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(MIN_BLOCK_BYTES..))]
    pub max_block_bytes: usize,

    /// WARC and JSONL: the largest record or line read. A larger WARC record is skipped, a
    /// larger JSONL line passed through unchanged (dropped with --skip-bad-lines): each is
    /// reported (exit status 1).
    #[arg(hide_short_help = true, long, value_name = "BYTES",
          default_value_t = crate::pipeline::ReadSettings::default().max_record_bytes,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_record_bytes: usize,

    /// The combined method decides a document whole when it holds at most this many bytes
    /// (its text plus 512 a block); a longer one is decided in pieces of this size.
    #[arg(hide_short_help = true, long, value_name = "BYTES", default_value_t = crate::decide::DEFAULT_MAX_DOCUMENT_BYTES)]
    pub max_document_bytes: usize,

    /// Memory the HTML parser may use for one tag; a larger tag ends its document.
    #[arg(hide_short_help = true, long, value_name = "BYTES", default_value_t = HtmlSettings::default().max_parser_memory)]
    pub max_parser_memory: usize,

    /// Keep only the documents whose cleaned text is in LANG: an ISO 639-1 or 639-3 code or an
    /// English name (de, deu, German), as whatlang guesses it from the text's first 256 KiB
    /// (reliably, or with a confidence of 0.5 or more). The others, and those whose language
    /// is not told with that confidence (too short, mixed), are left out whole, counted by
    /// --stats.
    #[arg(long, value_name = "LANG", value_parser = parse_language)]
    pub target_language: Option<crate::sink::language::Language>,

    /// Read a stream of pages (standard input, a pipe) as one document. By default it is cut
    /// into its pages, each cleaned as a file holding it would be: a new page begins at a
    /// <!DOCTYPE once the page has opened an element, at <html> or <?xml once it has closed
    /// </html>, and after a NUL or form-feed byte outside the page's <html> (markup inside
    /// scripts, comments and attribute values does not count). With --output-dir, which
    /// writes a file per input, a stream is always one document.
    #[arg(hide_short_help = true, long)]
    pub one_document: bool,

    /// Separate documents with a NUL byte instead of an empty line.
    #[arg(hide_short_help = true, short = '0', long)]
    pub null: bool,

    /// At the end, one line of counts on stderr: documents, bytes read, sentences kept, what
    /// was skipped and why, seconds.
    #[arg(long)]
    pub stats: bool,

    /// Write each input's text to its own file under DIR, mirroring the input tree
    /// (`a/b.html.gz` → `DIR/a/b.txt`; `.md` for Markdown, `.jsonl` for JSON), instead of to
    /// standard output; DIR is created if missing. Inputs whose outputs
    /// would share a name (`x.html` and `x.htm`, one file given twice) are refused before
    /// anything is written (exit 2).
    #[arg(short, long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
}

/// `ppl-filter train`.
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Text files (one paragraph or sentence per line), plain or .gz.
    #[arg(value_name = "CORPUS", required = true)]
    pub corpus: Vec<PathBuf>,

    /// Where to write the model.
    #[arg(short, long, value_name = "MODEL")]
    pub output: PathBuf,

    /// n-gram order: 2 (bigram) or 3 (trigram).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=3))]
    pub order: u8,

    /// Drop n-grams (of order 2 and up) seen fewer times than this.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub min_count: u32,

    /// Leave words seen fewer times than this out of the vocabulary (scored as unknown).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub min_unigram_count: u32,

    /// Most distinct n-grams per order held while counting; rarer ones are pruned beyond it,
    /// which bounds memory on corpora larger than RAM.
    #[arg(long, value_name = "N", default_value_t = 60_000_000)]
    pub max_ngrams_in_memory: usize,

    /// Credit or licence line of the training text, stored in the model header.
    #[arg(long, value_name = "TEXT")]
    pub credit: Option<String>,
}

/// `ppl-filter learn`.
///
/// Pairs every INPUT_DIR/N.html with GOLD_DIR/N.txt (CleanEval format: text, optionally with
/// <p>/<h>/<l> markers and a first `URL:` line), labels each extracted block by how much of it
/// aligns to the gold text, trains the boilerplate language model on what does not align and
/// fits the classifier. A few dozen pages of a language or domain are enough to start.
#[derive(Debug, Args)]
pub struct LearnArgs {
    /// Directory of HTML pages (N.html): the first training set.
    #[arg(value_name = "INPUT_DIR", requires = "gold_dir", required_unless_present_any = ["set", "sets"])]
    pub input_dir: Option<PathBuf>,

    /// Directory of their cleaned text (N.txt).
    #[arg(value_name = "GOLD_DIR")]
    pub gold_dir: Option<PathBuf>,

    /// Another training set: its pages and their cleaned text (repeatable).
    #[arg(long, num_args = 2, value_names = ["INPUT_DIR", "GOLD_DIR"], action = clap::ArgAction::Append)]
    pub set: Vec<PathBuf>,

    /// A file listing training sets, one `INPUT_DIR GOLD_DIR [WEIGHT]` per line (white-space
    /// separated, `#` starts a comment, relative paths are from the file's directory).
    #[arg(long, value_name = "FILE")]
    pub sets: Vec<PathBuf>,

    /// Weight of a set given on the command line: the first --set-weight is the positional
    /// INPUT_DIR GOLD_DIR's (or the first --set's when there is none), the next the next
    /// --set's, and so on; unweighted sets weigh 1. Multiplies the set's example weights
    /// after --set-balance.
    #[arg(long, value_name = "W")]
    pub set_weight: Vec<f64>,

    /// How the training sets weigh against each other before their weights apply.
    #[arg(long, value_enum, default_value_t = SetBalance::Equal)]
    pub set_balance: SetBalance,

    /// How the gold files are written [default: told per file: CleanEval when a file starts
    /// with a URL line or has <p>/<h>/<l> markers, else plain].
    #[arg(long, value_enum)]
    pub gold_format: Option<GoldFormat>,

    /// Where to write the classifier (load it with --classifier).
    #[arg(short, long, value_name = "CLASSIFIER")]
    pub output: PathBuf,

    /// The classifier fitted.
    #[arg(long, value_enum, default_value_t = Learner::Trees)]
    pub learner: Learner,

    /// Boosted trees: how many.
    #[arg(long, value_name = "N", default_value_t = crate::boost::BoostOptions::default().trees)]
    pub trees: usize,

    /// Boosted trees: their depth (1 to 10).
    #[arg(long, value_name = "N", default_value_t = crate::boost::BoostOptions::default().depth,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=crate::boost::MAX_DEPTH as u64))]
    pub depth: usize,

    /// Boosted trees: threads searching their splits, 1 to 256 (default: the number of cores,
    /// at most 256). The classifier is the same for any number.
    #[arg(short = 'j', long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=crate::pipeline::MAX_THREADS as u64))]
    pub threads: Option<usize>,

    /// Boosted trees: the learning rate (shrinkage).
    #[arg(long, value_name = "X", default_value_t = crate::boost::BoostOptions::default().learning_rate,
          value_parser = parse_number::<f64, 1>)]
    pub learning_rate: f64,

    /// Logistic regression: the L2 penalty.
    #[arg(long, value_name = "X", default_value_t = crate::learn::LearnOptions::default().l2,
          value_parser = parse_number::<f64, 0>)]
    pub l2: f64,

    /// Log-odds a block needs above 0 to be kept (positive: stricter).
    #[arg(long, value_name = "X", default_value_t = crate::learn::LearnOptions::default().threshold,
          allow_negative_numbers = true, value_parser = parse_number::<f32, { -1 }>)]
    pub decision_threshold: f32,

    /// Weight of the smoothing between neighbouring blocks (0: none).
    #[arg(long, value_name = "X", default_value_t = crate::learn::LearnOptions::default().smoothing,
          value_parser = parse_number::<f32, 0>)]
    pub smoothing: f32,

    /// Boilerplate model: drop bigrams seen fewer times than this (a smaller classifier file).
    #[arg(long, value_name = "N", default_value_t = crate::learn::LearnOptions::default().min_count,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub min_count: u32,

    /// Boilerplate model: leave words seen fewer times than this out of its vocabulary.
    #[arg(long, value_name = "N",
          default_value_t = crate::learn::LearnOptions::default().min_unigram_count,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub min_unigram_count: u32,
}

/// A finite number that is, by `SIGN`, above 0 (1), at least 0 (0) or anything (-1): NaN or
/// infinity would make a classifier that keeps or drops everything.
fn parse_number<T, const SIGN: i8>(arg: &str) -> Result<T, String>
where
    T: std::str::FromStr + Into<f64> + Copy,
    T::Err: std::fmt::Display,
{
    let value: T = arg.parse().map_err(|e: T::Err| e.to_string())?;
    let x: f64 = value.into();
    match SIGN {
        _ if !x.is_finite() => Err("not a finite number".to_string()),
        1 if x <= 0.0 => Err("must be above 0".to_string()),
        0 if x < 0.0 => Err("must not be negative".to_string()),
        _ => Ok(value),
    }
}

/// `ppl-filter perplexity`.
#[derive(Debug, Args)]
pub struct PerplexityArgs {
    /// Sentences to score; none reads one per line from standard input.
    #[arg(value_name = "SENTENCE")]
    pub sentences: Vec<String>,
}

/// The server's default limits, which its flags' defaults are: none of them depends on the
/// thread count, so the command line is built without asking the system for its cores.
#[cfg(feature = "serve")]
fn serve_default() -> crate::serve::ServeSettings {
    crate::serve::ServeSettings::for_threads(1)
}

/// `ppl-filter serve`.
#[cfg(feature = "serve")]
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The host name or address to listen on, with or without a port (`localhost:9000`,
    /// `0.0.0.0`, `[::1]:8080`); port 0 is any free port.
    #[arg(long, value_name = "HOST[:PORT]", default_value = "127.0.0.1")]
    pub bind: String,

    /// The port to listen on (instead of the one --bind names) [default: 8080].
    #[arg(long, value_name = "PORT")]
    pub port: Option<u16>,

    /// Requests cleaned at once, each on a thread of its own, 1 to 256 (default: the number of
    /// cores).
    #[arg(long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=crate::pipeline::MAX_THREADS as u64))]
    pub threads: Option<usize>,

    /// A larger request body is refused (413).
    #[arg(long, value_name = "BYTES", default_value_t = serve_default().max_body_bytes)]
    pub max_body_bytes: u64,

    /// The request bodies being read hold at most this many bytes in all, and an eighth of it
    /// for one client (never less than --max-body-bytes); a body that would hold more is
    /// answered 503.
    #[arg(hide_short_help = true, long, value_name = "BYTES", default_value_t = serve_default().max_body_memory)]
    pub max_body_memory: u64,

    /// A larger page fetched from a URL is refused.
    #[arg(long, value_name = "BYTES", default_value_t = serve_default().fetch.max_bytes)]
    pub max_fetch_bytes: u64,

    /// Seconds a URL's page may take to fetch (connecting, redirects and reading), 1 to 3600.
    #[arg(hide_short_help = true, long, value_name = "SECS", default_value_t = serve_default().fetch.timeout.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub fetch_timeout: u64,

    /// Seconds a request's body may take to come, 1 to 3600; one not complete by then is
    /// answered 408 and its connection closed. A request is taken in (--max-pending) only once
    /// its body has come.
    #[arg(long, value_name = "SECS", default_value_t = serve_default().body_timeout.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub body_timeout: u64,

    /// Requests taken in at once, their bodies come (waiting or cleaned); more are answered
    /// 503 at once (default: 4 for each of --threads).
    #[arg(long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65536))]
    pub max_pending: Option<usize>,

    /// Connections open at once, idle ones included; one more is closed at once.
    #[arg(long, value_name = "N", default_value_t = serve_default().max_connections,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65536))]
    pub max_connections: usize,

    /// Connections open at once from one client (an IPv4 address or an IPv6 /64); one more is
    /// closed at once.
    #[arg(long, value_name = "N", default_value_t = serve_default().max_connections_per_client,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65536))]
    pub max_connections_per_client: usize,

    /// Seconds, 1 to 3600, within which a connection's next request head must have come, after
    /// it opened or after its last answer; else it is closed (idle, or sending slowly).
    #[arg(long, value_name = "SECS", default_value_t = serve_default().idle_timeout.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub idle_timeout: u64,

    /// Blocks listed at most in an answer with "blocks": true (the answer says when some
    /// were left out).
    #[arg(long, value_name = "N", default_value_t = serve_default().max_blocks)]
    pub max_blocks: usize,

    /// A longer answer is never sent: its blocks are cut to fit, or it is refused (413), the
    /// page's cleaning stopped as soon as its text passes this.
    #[arg(long, value_name = "BYTES", default_value_t = serve_default().max_answer_bytes)]
    pub max_answer_bytes: usize,
}

impl FilterArgs {
    /// Parses the process's arguments; the error is clap's (a usage error, or the text of
    /// `--help` and `--version` to print).
    ///
    /// Global options ([`GlobalArgs`]) go before or after a subcommand; a cleaning option given
    /// with a subcommand is an error rather than silently ignored.
    pub fn parse_checked() -> Result<FilterArgs, clap::Error> {
        use clap::{parser::ValueSource, FromArgMatches};
        let mut command = command();
        let matches = command.try_get_matches_from_mut(std::env::args_os())?;
        if let Some((name, _)) = matches.subcommand() {
            let misplaced = command.get_arguments().find(|arg| {
                !arg.is_global_set()
                    && matches.value_source(arg.get_id().as_str()) == Some(ValueSource::CommandLine)
            });
            if let Some(arg) = misplaced {
                let flag = arg.get_long().unwrap_or(arg.get_id().as_str()).to_string();
                let message = format!("--{flag} is a cleaning option; '{name}' does not take it");
                return Err(command.error(clap::error::ErrorKind::ArgumentConflict, message));
            }
        }
        FilterArgs::from_arg_matches(&matches).map_err(|e| e.format(&mut command))
    }
}

/// The clap command, for man pages and completions.
pub fn command() -> clap::Command {
    <FilterArgs as clap::CommandFactory>::command()
}

/// `--target-language`: a language whatlang tells, by code or English name.
fn parse_language(name: &str) -> Result<crate::sink::language::Language, String> {
    crate::sink::language::Language::of_name(name).ok_or_else(|| {
        format!("`{name}` is no language told here: give an ISO 639-1 or 639-3 code (de, deu) or an English name (German)")
    })
}

/// Seconds, from 0 to a day.
fn parse_seconds(value: &str) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(s) if (0.0..=86_400.0).contains(&s) => Ok(s),
        _ => Err(format!(
            "`{value}` is not a number of seconds from 0 to 86400"
        )),
    }
}

#[cfg(feature = "serve")]
impl ServeArgs {
    /// The address to listen on: `--bind`'s host (resolved; its first address) and port, the
    /// port `--port` names instead, else [`crate::serve::DEFAULT_PORT`].
    pub fn address(&self) -> std::io::Result<std::net::SocketAddr> {
        use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
        let bind = self.bind.trim();
        let (host, port) = if let Ok(address) = bind.parse::<SocketAddr>() {
            (address.ip().to_string(), Some(address.port()))
        } else if let Ok(ip) = bind.trim_matches(['[', ']']).parse::<IpAddr>() {
            (ip.to_string(), None)
        } else {
            match bind.rsplit_once(':') {
                Some((host, port)) if port.parse::<u16>().is_ok() => {
                    (host.to_string(), port.parse().ok())
                }
                _ => (bind.to_string(), None),
            }
        };
        let port = self.port.or(port).unwrap_or(crate::serve::DEFAULT_PORT);
        let cannot = |why: String| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("--bind {bind}: {why}"),
            )
        };
        (host.as_str(), port)
            .to_socket_addrs()
            .map_err(|e| cannot(crate::errors::io_message(&e)))?
            .next()
            .ok_or_else(|| cannot("the host has no address".into()))
    }
}

#[cfg(all(test, feature = "serve"))]
mod tests {
    use super::*;

    #[test]
    fn serve_listens_where_bind_and_port_say() {
        #[derive(Parser)]
        struct Serve {
            #[command(flatten)]
            args: ServeArgs,
        }
        let address = |bind: &str, port: Option<u16>| {
            let mut argv = vec!["serve".to_string(), "--bind".into(), bind.into()];
            argv.extend(
                port.map(|p| ["--port".to_string(), p.to_string()])
                    .into_iter()
                    .flatten(),
            );
            Serve::parse_from(argv)
                .args
                .address()
                .map(|a| a.to_string())
        };
        assert_eq!(address("127.0.0.1", None).unwrap(), "127.0.0.1:8080");
        assert_eq!(address("127.0.0.1:9000", None).unwrap(), "127.0.0.1:9000");
        assert_eq!(
            address("127.0.0.1:9000", Some(9001)).unwrap(),
            "127.0.0.1:9001"
        );
        assert_eq!(address("[::1]:9000", None).unwrap(), "[::1]:9000");
        assert_eq!(address("::1", Some(7)).unwrap(), "[::1]:7");
        let local = address("localhost:9000", None).unwrap();
        assert!(
            local == "127.0.0.1:9000" || local == "[::1]:9000",
            "{local}"
        );
        assert!(address("localhost", Some(0)).unwrap().ends_with(":0"));
        let error = address("no-such-host.invalid", None)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("--bind no-such-host.invalid: "),
            "{error}"
        );
    }
}
