//! The main job: every input cleaned, the kept text written to standard output, to one file
//! per input (`--output-dir`), or as WARC or JSONL records. The flags become a [`Plan`] first
//! (`plan.rs`); this file runs it and reports.

use std::io::{self, BufWriter};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ppl_filter::cli::filter::{CleanArgs, GlobalArgs};
use ppl_filter::fetch::Polite;
use ppl_filter::lm::LanguageModel;
use ppl_filter::pipeline::pages::Page;
use ppl_filter::pipeline::{Observer, PageWriter, Problem, Severity, Summary, Trouble};

use anyhow::bail;

use crate::plan::{Fetch, Plan};
use crate::report::Reporter;

/// Cleans every input and writes the kept text to standard output, or under --output-dir.
pub fn run(args: CleanArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let model = ppl_filter::lm::load_model(global.model.as_deref())?;
    let mut plan = Plan::from_args(args)?;
    let observer = Reporter::new(
        plan.inputs.len(),
        plan.job.options.read.input_format,
        global.quiet,
    );
    if plan.reads_a_terminal() && !global.quiet {
        eprintln!(
            "ppl-filter: reading a page from the terminal: paste it and end with Ctrl-D, or give \
             files, directories or URLs (-u URL, -i FILE); ppl-filter --help says more"
        );
    }
    for problem in &plan.found {
        observer.problem(problem);
    }
    let summary = match plan.fetch.take() {
        Some(fetch) => fetch_and_write(&plan, fetch, model, &observer)?,
        None => plan.job.run(&plan.inputs, model, stdout(), &observer)?,
    };
    observer.done();
    Ok(report(&plan, summary, started.elapsed(), global.quiet))
}

/// Fetches the pages of `-u` and `-i` one at a time, politely ([`Polite`]), and cleans each
/// into standard output as it comes: text separated as files' is (one stream for them all, so
/// a page left out writes no separator), or a JSON record each whose `url` is the page's (after
/// redirects). A page is read in its HTTP charset unless `--encoding` names one. A URL not
/// fetched is a warning naming it, and with `--format json` a record with its `error`, as a
/// file that cannot be opened gets.
fn fetch_and_write(
    plan: &Plan,
    fetch: Fetch,
    model: &'static LanguageModel,
    observer: &Reporter,
) -> anyhow::Result<Summary> {
    let Fetch {
        mut urls,
        limits,
        delay,
        robots,
    } = fetch;
    let mut polite = Polite::new(limits, delay, robots);
    let mut writer = plan.job.writer(stdout());
    let mut total = Summary::default();
    while let Some(url) = urls.next() {
        let url = match url {
            Ok(url) => url,
            Err(e) if e.is_skip() => {
                let skipped = Trouble::NotFetched(e.to_string());
                observer.problem(&Problem::new(urls.list_name(), skipped));
                total.warnings += 1;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let summary = fetch_one(url, &mut polite, &mut writer, plan, model, observer)?;
        total.add(&summary);
        if total.output_closed {
            break;
        }
    }
    if urls.distinct() == 0 {
        bail!("{}: lists no URL to fetch", urls.list_name());
    }
    total.output_closed |= writer.finish()?;
    Ok(total)
}

/// Fetches one URL and cleans its page into `writer`; a URL not fetched is a warning naming
/// it (and with `--format json` a record with its `error`). A page cut short is kept, with a
/// warning.
fn fetch_one(
    url: String,
    polite: &mut Polite,
    writer: &mut PageWriter<'_, Stdout>,
    plan: &Plan,
    model: &'static LanguageModel,
    observer: &Reporter,
) -> anyhow::Result<Summary> {
    match polite.fetch(&url) {
        Ok(fetched) => {
            let mut warnings = 0;
            if let Some(cut) = &fetched.cut {
                let cut = Trouble::Cut(cut.to_string());
                observer.problem(&Problem::new(url.clone(), cut));
                warnings += 1;
            }
            let page = Page {
                name: url,
                bytes: fetched.bytes.into(),
                url: Some(fetched.url),
                encoding: plan.job.options.read.encoding.or(fetched.encoding),
            };
            let mut summary = writer.page(&page, model, observer)?;
            summary.warnings += warnings;
            Ok(summary)
        }
        Err(e) => {
            let problem = Problem::new(url.clone(), Trouble::NotFetched(e.to_string()));
            observer.problem(&problem);
            Ok(Summary {
                warnings: 1,
                output_closed: writer.failure(&problem, &url)?,
                ..Summary::default()
            })
        }
    }
}

/// Standard output, buffered.
fn stdout() -> Stdout {
    BufWriter::with_capacity(64 * 1024, io::stdout())
}

/// Standard output as the job writes it.
type Stdout = BufWriter<io::Stdout>;

/// The end of a run: `--stats`, a word on what was skipped or when nothing was kept, and the
/// exit code (2 when anything failed, 1 when some input was damaged, empty or binary).
fn report(plan: &Plan, mut summary: Summary, elapsed: Duration, quiet: bool) -> ExitCode {
    let found = |severity| plan.found.iter().filter(|p| p.severity == severity).count();
    summary.errors += found(Severity::Error) as u64;
    summary.warnings += found(Severity::Warning) as u64;
    if plan.stats {
        let skipped = Skipped {
            binary: summary.binary_skipped,
            special: plan.special_skipped,
            records: summary.records_skipped,
            language: summary.other_language,
        };
        eprintln!("{}", stats_line(&summary, &skipped, elapsed));
    }
    if summary.output_closed {
        // `| head` had what it wanted: whatever the inputs held, the run ends quietly.
        return ExitCode::SUCCESS;
    }
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    if summary.records_skipped > 0 && !quiet {
        let n = summary.records_skipped;
        eprintln!(
            "ppl-filter: {n} WARC response{} skipped: status not 2xx, or not HTML (--all-responses cleans them)",
            plural(n)
        );
    }
    if summary.sentences > 0 && summary.kept == 0 && !quiet {
        let n = summary.documents;
        eprintln!("ppl-filter: nothing kept from {n} document{}", plural(n));
    }
    if summary.errors > 0 {
        ExitCode::from(2)
    } else if summary.warnings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// What a run left out without a warning.
struct Skipped {
    /// Files found while walking that are not text.
    binary: u64,
    /// FIFOs, sockets and devices found while walking.
    special: u64,
    /// WARC responses with a status other than 2xx, or not HTML.
    records: u64,
    /// Documents in another language than `--target-language`'s.
    language: u64,
}

/// `--stats`: the run's counts on one line.
fn stats_line(summary: &Summary, skipped: &Skipped, elapsed: std::time::Duration) -> String {
    let share = match summary.sentences {
        0 => 0.0,
        n => 100.0 * summary.kept as f64 / n as f64,
    };
    format!(
        "ppl-filter: stats: {} documents, {} bytes read, {} of {} sentences kept ({share:.1} %); skipped: {} binary files found in directories, {} special files, {} WARC responses (status or type), {} documents in another language; {} inputs or parts with warnings, {} with errors; {:.2} s",
        summary.documents,
        summary.bytes,
        summary.kept,
        summary.sentences,
        skipped.binary,
        skipped.special,
        skipped.records,
        skipped.language,
        summary.warnings,
        summary.errors,
        elapsed.as_secs_f64()
    )
}
