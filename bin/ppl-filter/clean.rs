//! The main job: every input cleaned, the kept text written to standard output, to one file
//! per input (`--output-dir`), or as WARC or JSONL records.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use ppl_filter::cli::filter::{CleanArgs, FormatKind, GlobalArgs, InputKind};
use ppl_filter::decide::Choices;
use ppl_filter::html::HtmlSettings;
use ppl_filter::io::sink::{DirSink, PartialFile, RecordFormat, RecordSink, Sink, StreamSink};
use ppl_filter::io::walk::{self, WalkOptions};
use ppl_filter::io::Input;
use ppl_filter::lm::LanguageModel;
use ppl_filter::output::{OutputFormat, OutputMode};
use ppl_filter::pipeline::{self, InputFormat, Observer, Options, Problem, Trouble};

use crate::report::Reporter;

/// Cleans every input and writes the kept text to standard output, or under --output-dir.
pub fn run(args: CleanArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    let model = ppl_filter::lm::load_model(global.model.as_deref())?;
    let encoding = match &args.encoding {
        Some(label) => Some(
            ppl_filter::decode::encoding_for_label(label)
                .ok_or_else(|| anyhow!("unknown encoding '{label}'"))?,
        ),
        None => None,
    };
    let threads = args.threads.unwrap_or_else(pipeline::default_threads);
    let mut files = args.files.clone();
    if let Some(list) = &args.files_from {
        files.extend(walk::read_list(list)?);
        if files.is_empty() {
            bail!("{}: lists no file to clean", list.display());
        }
    }
    let walk_options = WalkOptions {
        globs: args.glob.clone(),
        hidden: args.hidden,
        follow_links: args.follow,
        threads,
    };
    let expanded = walk::expand(&files, &walk_options)?;
    let input_kind = args.input_kind(&expanded.inputs)?;
    let json = args.format == FormatKind::Json;
    let records = json || matches!(input_kind, InputKind::Warc | InputKind::Jsonl);
    let record_format = match input_kind {
        _ if json => RecordFormat::JsonlObjects,
        InputKind::Jsonl => RecordFormat::JsonlRewrite {
            add_scores: args.add_scores,
        },
        _ => RecordFormat::Warc,
    };
    let options = Options {
        input_format: match input_kind {
            InputKind::Html => InputFormat::Html,
            InputKind::Text => InputFormat::Text,
            InputKind::Warc => InputFormat::Warc,
            InputKind::Jsonl => InputFormat::Jsonl,
        },
        encoding,
        html: HtmlSettings {
            max_block_bytes: args.max_block_bytes.max(1),
            max_parser_memory: args.max_parser_memory,
            keep_title: args.title,
        },
        policy: args.policy.policy(),
        mode: if args.scores {
            OutputMode::Scores
        } else if args.mark {
            OutputMode::Mark
        } else {
            OutputMode::Clean
        },
        format: match args.format {
            FormatKind::Plain | FormatKind::Json => OutputFormat::Plain,
            FormatKind::Cleaneval => OutputFormat::CleanEval,
            FormatKind::Markdown => OutputFormat::Markdown,
        },
        jsonl_field: args.field.clone(),
        skip_bad_lines: args.skip_bad_lines,
        all_responses: args.all_responses,
        threads,
        choices: Choices {
            max_document_bytes: args.max_document_bytes,
            ..args.policy.choices()
        },
        report_perplexity: records && record_format.reports_perplexity(),
        ..Options::with_method(args.policy.method()?)
    };
    // Under --output-dir a page gives a text file, a WARC or JSONL input one of its own kind.
    let extension = match (json, records) {
        (true, _) => Some("jsonl"),
        (false, true) => None,
        (false, false) => Some("txt"),
    };
    let named: Vec<(Input, PathBuf)> = expanded
        .inputs
        .into_iter()
        .map(|(input, relative)| {
            let mut name = ppl_filter::io::output_name(&relative, extension);
            if input.is_stdin() && records && !json {
                name.set_extension(if input_kind == InputKind::Warc {
                    "warc"
                } else {
                    "jsonl"
                });
            }
            (input, name)
        })
        .collect();
    ppl_filter::io::outputs::check(args.output_dir.as_deref(), &named, &expanded.walked)?;
    let (inputs, names): (Vec<Input>, Vec<PathBuf>) = named.into_iter().unzip();
    let sources: Vec<String> = inputs.iter().map(Input::to_string).collect();
    let observer = Reporter::new(inputs.len(), input_kind, global.quiet);
    let mut errors = 0;
    let mut warnings = 0;
    for (dir, message) in &expanded.unreadable {
        errors += 1;
        observer.problem(&Problem::new(
            dir.display().to_string(),
            Trouble::Unreadable(message.clone()),
        ));
    }
    if let [input] = &inputs[..] {
        if ppl_filter::io::sniff::stdin_lists_files(input) {
            observer.problem(&Problem::new(input.to_string(), Trouble::ListsFiles));
        }
    }
    for dir in &expanded.empty_dirs {
        warnings += 1;
        let with_glob = !args.glob.is_empty();
        observer.problem(&Problem::new(
            dir.display().to_string(),
            Trouble::NoFileInDirectory { with_glob },
        ));
    }
    // Flags that the inputs or the format at hand would ignore are refused, not ignored.
    let warc_out = input_kind == InputKind::Warc && record_format == RecordFormat::Warc;
    let jsonl_out = input_kind == InputKind::Jsonl && !json;
    let misplaced = [
        (
            args.compress && !warc_out,
            "--compress applies to WARC output (WARC input, without --format json)",
        ),
        (
            args.all_responses && input_kind != InputKind::Warc,
            "--all-responses applies to WARC input",
        ),
        (
            args.output_field.is_some() && !jsonl_out,
            "--output-field applies to JSONL input written back as JSONL",
        ),
        (
            args.url.is_some() && !json,
            "--url applies to --format json",
        ),
    ];
    if let Some((_, message)) = misplaced.iter().find(|(given, _)| *given) {
        bail!("{message}");
    }
    let summary = match (&args.output_dir, records) {
        (Some(dir), true) => {
            let mut total = pipeline::Summary::default();
            for (input, name) in inputs.iter().zip(&names) {
                let path = dir.join(name);
                let sink = (
                    record_format,
                    args.output_field.as_deref(),
                    args.url.as_deref(),
                );
                let summary = clean_to_record_file(input, &path, sink, model, &options, &observer)?;
                total.add(&summary);
                if summary.output_closed {
                    break;
                }
            }
            total
        }
        (output_dir, _) => {
            let stdout = BufWriter::with_capacity(64 * 1024, io::stdout());
            let separator: &[u8] = if args.null { b"\0" } else { b"\n" };
            let mut sink: Box<dyn Sink> = match output_dir {
                _ if records && args.compress => {
                    Box::new(RecordSink::with_gzip_members(stdout, record_format))
                }
                _ if records => Box::new(
                    RecordSink::new(stdout, record_format)
                        .output_field(args.output_field.clone())
                        .json_sources(args.url.clone(), sources.clone()),
                ),
                Some(dir) => Box::new(DirSink::new(dir, names)),
                None => Box::new(StreamSink::new(stdout, separator)),
            };
            pipeline::run(&inputs, model, &options, sink.as_mut(), &observer)?
        }
    };
    observer.done();
    if args.stats {
        let skipped = Skipped {
            binary: summary.binary_skipped,
            special: expanded.special_skipped,
            records: summary.records_skipped,
        };
        let mut counts = summary;
        counts.errors += errors;
        counts.warnings += warnings;
        eprintln!("{}", stats_line(&counts, &skipped, started.elapsed()));
    }
    if summary.output_closed {
        // `| head` had what it wanted: whatever the inputs held, the run ends quietly.
        return Ok(ExitCode::SUCCESS);
    }
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    if summary.records_skipped > 0 && !global.quiet {
        let n = summary.records_skipped;
        eprintln!(
            "ppl-filter: {n} WARC response{} skipped: status not 2xx, or not HTML (--all-responses cleans them)",
            plural(n)
        );
    }
    if summary.sentences > 0 && summary.kept == 0 && !global.quiet {
        let n = summary.documents;
        eprintln!("ppl-filter: nothing kept from {n} document{}", plural(n));
    }
    Ok(if errors + summary.errors > 0 {
        ExitCode::from(2)
    } else if warnings + summary.warnings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// What a run left out without a warning.
struct Skipped {
    /// Files found while walking that are not text.
    binary: u64,
    /// FIFOs, sockets and devices found while walking.
    special: u64,
    /// WARC responses with a status other than 2xx, or not HTML.
    records: u64,
}

/// `--stats`: the run's counts on one line.
fn stats_line(
    summary: &pipeline::Summary,
    skipped: &Skipped,
    elapsed: std::time::Duration,
) -> String {
    let share = match summary.sentences {
        0 => 0.0,
        n => 100.0 * summary.kept as f64 / n as f64,
    };
    format!(
        "ppl-filter: stats: {} documents, {} bytes read, {} of {} sentences kept ({share:.1} %); skipped: {} binary files found in directories, {} special files, {} WARC responses (status or type); {} inputs or parts with warnings, {} with errors; {:.2} s",
        summary.documents,
        summary.bytes,
        summary.kept,
        summary.sentences,
        skipped.binary,
        skipped.special,
        skipped.records,
        summary.warnings,
        summary.errors,
        elapsed.as_secs_f64()
    )
}

/// Cleans one WARC or JSONL input into a file of its own kind at `path` (gzip-compressed when
/// named `*.gz`), which appears only once complete (written under a temporary name), and only
/// when something of the input was cleaned.
fn clean_to_record_file(
    input: &Input,
    path: &std::path::Path,
    (format, output_field, url): (RecordFormat, Option<&str>, Option<&str>),
    model: &'static LanguageModel,
    options: &Options,
    observer: &Reporter,
) -> anyhow::Result<pipeline::Summary> {
    fn run<W: Write + Send>(
        mut sink: RecordSink<W>,
        input: &Input,
        model: &'static LanguageModel,
        options: &Options,
        observer: &Reporter,
    ) -> anyhow::Result<(pipeline::Summary, W)> {
        let inputs = std::slice::from_ref(input);
        let summary = pipeline::run(inputs, model, options, &mut sink, observer)?;
        Ok((summary, sink.into_inner()))
    }
    fn configured<W: Write + Send>(
        sink: RecordSink<W>,
        (output_field, url): (Option<&str>, Option<&str>),
        input: &Input,
    ) -> RecordSink<W> {
        sink.output_field(output_field.map(str::to_string))
            .json_sources(url.map(str::to_string), vec![input.to_string()])
    }
    let file = PartialFile::create(path)?;
    let gz = path.extension().is_some_and(|x| x == "gz");
    let (summary, file) = match format {
        RecordFormat::Warc if gz => run(
            RecordSink::with_gzip_members(file, format),
            input,
            model,
            options,
            observer,
        )?,
        _ if gz => {
            let gzip = flate2::write::GzEncoder::new(file, flate2::Compression::default());
            let (summary, gzip) = run(
                configured(RecordSink::new(gzip, format), (output_field, url), input),
                input,
                model,
                options,
                observer,
            )?;
            (summary, gzip.finish()?)
        }
        _ => run(
            configured(RecordSink::new(file, format), (output_field, url), input),
            input,
            model,
            options,
            observer,
        )?,
    };
    // An input of which nothing was cleaned (it could not be opened, or is not text) leaves
    // no file that would look finished.
    if summary.not_cleaned == 0 || summary.documents > summary.not_cleaned {
        file.commit()?;
    }
    Ok(summary)
}
