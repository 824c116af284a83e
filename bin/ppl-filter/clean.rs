//! The main job: every input cleaned, the kept text written to standard output, to one file
//! per input (`--output-dir`), or as WARC or JSONL records. The flags become a [`Plan`] first
//! (`plan.rs`); this file runs it and reports.

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ppl_filter::cli::filter::{CleanArgs, GlobalArgs};
use ppl_filter::fetch::Polite;
use ppl_filter::lm::LanguageModel;
use ppl_filter::pipeline::{self, Observer, Options, Problem, Severity, Summary, Trouble};
use ppl_filter::sink::language_filter::LanguageFilter;
use ppl_filter::sink::{
    DirSink, DocumentMeta, DocumentStats, PartialFile, RecordFormat, RecordSink, Sink, StreamSink,
};
use ppl_filter::source::Input;

use anyhow::bail;

use crate::plan::{Fetch, Output, Plan, Records};
use crate::report::Reporter;

/// Cleans every input and writes the kept text to standard output, or under --output-dir.
pub fn run(args: CleanArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let model = ppl_filter::lm::load_model(global.model.as_deref())?;
    let mut plan = Plan::from_args(args)?;
    let observer = Reporter::new(
        plan.inputs.len(),
        plan.options.read.input_format,
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
        None => write(&plan, model, &observer)?,
    };
    observer.done();
    Ok(report(&plan, summary, started.elapsed(), global.quiet))
}

/// Cleans the inputs into the plan's output.
fn write(
    plan: &Plan,
    model: &'static LanguageModel,
    observer: &Reporter,
) -> anyhow::Result<Summary> {
    let stdout = || BufWriter::with_capacity(64 * 1024, io::stdout());
    let mut sink: Box<dyn Sink> = match &plan.output {
        Output::RecordFiles {
            dir,
            names,
            records,
        } => {
            let mut total = Summary::default();
            for (input, name) in plan.inputs.iter().zip(names) {
                let path = dir.join(name);
                let summary = clean_to_record_file(input, &path, records, model, plan, observer)?;
                total.add(&summary);
                if summary.output_closed {
                    break;
                }
            }
            return Ok(total);
        }
        Output::Records(records) if records.compress => {
            Box::new(RecordSink::with_gzip_members(stdout(), records.format))
        }
        Output::Records(records) => Box::new(configured(
            RecordSink::new(stdout(), records.format),
            records,
        )),
        Output::Files { dir, names } => Box::new(DirSink::new(dir, names.clone())),
        Output::Stream { separator } => Box::new(StreamSink::new(stdout(), separator)),
    };
    run_into(
        &plan.inputs,
        plan,
        &plan.options,
        model,
        sink.as_mut(),
        observer,
    )
}

/// Cleans `inputs` into `sink` with `options`, through a [`LanguageFilter`] when
/// `--target-language` asks.
fn run_into(
    inputs: &[Input],
    plan: &Plan,
    options: &Options,
    model: &'static LanguageModel,
    sink: &mut dyn Sink,
    observer: &Reporter,
) -> anyhow::Result<Summary> {
    let Some(language) = plan.language else {
        return Ok(pipeline::run(inputs, model, options, sink, observer)?);
    };
    let mut filter = LanguageFilter::new(sink, language);
    let mut summary = pipeline::run(inputs, model, options, &mut filter, observer)?;
    // The counts are of what was written: a document left out keeps none of its sentences.
    let left_out = filter.left_out();
    summary.other_language = left_out.documents;
    summary.sentences -= left_out.sentences;
    summary.kept -= left_out.kept;
    Ok(summary)
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
    let out = BufWriter::with_capacity(64 * 1024, io::stdout());
    let mut to = match &plan.output {
        Output::Stream { separator } => FetchedTo::Stream(StreamSink::new(out, separator)),
        Output::Records(records) => FetchedTo::Records(out, records),
        Output::Files { .. } | Output::RecordFiles { .. } => {
            unreachable!("the plan refuses --output-dir with pages to fetch")
        }
    };
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
        let summary = fetch_one(url, &mut polite, &mut to, plan, model, observer)?;
        total.add(&summary);
        if total.output_closed {
            break;
        }
    }
    if urls.distinct() == 0 {
        bail!("{}: lists no URL to fetch", urls.list_name());
    }
    let flushed = match &mut to {
        FetchedTo::Stream(sink) => sink.finish(),
        FetchedTo::Records(out, _) => out.flush(),
    };
    match flushed {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => total.output_closed = true,
        flushed => flushed?,
    }
    Ok(total)
}

/// Fetches one URL and cleans its page into `to`; a URL not fetched is a warning naming it
/// (and with `--format json` a record with its `error`). A page cut short is kept, with a
/// warning.
fn fetch_one(
    url: String,
    polite: &mut Polite,
    to: &mut FetchedTo,
    plan: &Plan,
    model: &'static LanguageModel,
    observer: &Reporter,
) -> anyhow::Result<Summary> {
    let mut warnings = 0;
    let mut summary = match polite.fetch(&url) {
        Ok(fetched) => {
            if let Some(cut) = &fetched.cut {
                let cut = Trouble::Cut(cut.to_string());
                observer.problem(&Problem::new(url.clone(), cut));
                warnings += 1;
            }
            let mut options = plan.options.clone();
            options.read.encoding = options.read.encoding.or(fetched.encoding);
            let input = [Input::Memory {
                name: url,
                bytes: fetched.bytes.into(),
            }];
            match to {
                FetchedTo::Stream(sink) => run_into(&input, plan, &options, model, sink, observer)?,
                FetchedTo::Records(out, records) => {
                    let sink = RecordSink::new(out, records.format);
                    let mut sink = configured(sink, records).url(Some(fetched.url));
                    run_into(&input, plan, &options, model, &mut sink, observer)?
                }
            }
        }
        Err(e) => {
            let problem = Problem::new(url, Trouble::NotFetched(e.to_string()));
            observer.problem(&problem);
            let mut summary = Summary {
                warnings: 1,
                ..Summary::default()
            };
            if let FetchedTo::Records(out, records) = to {
                summary.output_closed = write_failure(out, records, &problem)?;
            }
            summary
        }
    };
    summary.warnings += warnings;
    Ok(summary)
}

/// Where fetched pages go: one text stream, or a record each.
enum FetchedTo<'a> {
    Stream(StreamSink<BufWriter<io::Stdout>>),
    Records(BufWriter<io::Stdout>, &'a Records),
}

/// Writes the JSON record of a URL not fetched (`source`, `url`, `error`); true when the
/// output was closed (`| head`).
fn write_failure(
    out: &mut BufWriter<io::Stdout>,
    records: &Records,
    problem: &Problem,
) -> io::Result<bool> {
    let url = problem.input.clone();
    let mut sink = configured(RecordSink::new(out, records.format), records).url(Some(url));
    let failed = DocumentStats {
        failure: Some(problem.message()),
        ..DocumentStats::default()
    };
    let written = sink
        .begin(
            0,
            &DocumentMeta::Input {
                source: problem.input.clone(),
            },
        )
        .and_then(|()| sink.end(&failed));
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(true),
        written => written.map(|()| false),
    }
}

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

/// A record sink writing `records`' output field and URL.
fn configured<W: Write + Send>(sink: RecordSink<W>, records: &Records) -> RecordSink<W> {
    sink.output_field(records.output_field.clone())
        .url(records.url.clone())
}

/// Cleans one WARC or JSONL input into a file of its own kind at `path` (gzip-compressed when
/// named `*.gz`), which appears only once complete (written under a temporary name), and only
/// when something of the input was cleaned.
fn clean_to_record_file(
    input: &Input,
    path: &Path,
    records: &Records,
    model: &'static LanguageModel,
    plan: &Plan,
    observer: &Reporter,
) -> anyhow::Result<Summary> {
    let run = |sink: &mut dyn Sink| {
        run_into(
            std::slice::from_ref(input),
            plan,
            &plan.options,
            model,
            sink,
            observer,
        )
    };
    let file = PartialFile::create(path)?;
    let gz = path.extension().is_some_and(|x| x == "gz");
    let (summary, file) = match records.format {
        RecordFormat::Warc if gz => {
            let mut sink = RecordSink::with_gzip_members(file, records.format);
            (run(&mut sink)?, sink.into_inner())
        }
        _ if gz => {
            let gzip = flate2::write::GzEncoder::new(file, flate2::Compression::default());
            let mut sink = configured(RecordSink::new(gzip, records.format), records);
            (run(&mut sink)?, sink.into_inner().finish()?)
        }
        _ => {
            let mut sink = configured(RecordSink::new(file, records.format), records);
            (run(&mut sink)?, sink.into_inner())
        }
    };
    // An input of which nothing was cleaned (it could not be opened, or is not text) leaves
    // no file that would look finished.
    if summary.not_cleaned == 0 || summary.documents > summary.not_cleaned {
        file.commit()?;
    }
    Ok(summary)
}
