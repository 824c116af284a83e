//! `ppl-filter`: parses the command line and hands each mode to the library.
//! Exit codes: 0 success, 1 some inputs damaged/empty/binary, 2 an error (see `--help`).

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ppl_filter::classify::{Choices, Method};
use ppl_filter::cli::filter::{
    CleanArgs, Command, FilterArgs, FormatKind, GlobalArgs, GoldFormatKind, InputKind, LearnArgs,
    LearnerKind, PerplexityArgs, SetBalanceKind, TrainArgs,
};
use ppl_filter::html::HtmlSettings;
use ppl_filter::io::sink::{DirSink, PartialFile, RecordFormat, RecordSink, Sink, StreamSink};
use ppl_filter::io::walk::{self, WalkOptions};
use ppl_filter::io::Input;
use ppl_filter::learn::{LearnOptions, Learner};
use ppl_filter::lm;
use ppl_filter::lm::train::{Progress, TrainOptions};
use ppl_filter::output::{OutputFormat, OutputMode};
use ppl_filter::pipeline::{self, InputFormat, Observer, Options, Problem, Severity};

fn main() -> ExitCode {
    let args = FilterArgs::parse_checked();
    let global = args.global;
    let result = match (args.generate, args.command) {
        (Some(what), _) => generate(what),
        (None, Some(Command::Train(train_args))) => train(train_args, &global),
        (None, Some(Command::Perplexity(perplexity_args))) => perplexity(perplexity_args, &global),
        (None, Some(Command::Learn(learn_args))) => learn(learn_args, &global),
        (None, None) => clean(args.clean, &global),
    };
    result.unwrap_or_else(|message| {
        eprintln!("ppl-filter: {message}");
        ExitCode::from(2)
    })
}

/// The main job: clean every input and write the kept text to standard output.
fn clean(args: CleanArgs, global: &GlobalArgs) -> Result<ExitCode, String> {
    let model = ppl_filter::cli::load_model(global.model.as_deref())?;
    let encoding = match &args.encoding {
        Some(label) => Some(
            ppl_filter::decode::encoding_for_label(label)
                .ok_or_else(|| format!("unknown encoding '{label}'"))?,
        ),
        None => None,
    };
    let cores = || {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(pipeline::MAX_THREADS)
    };
    let threads = args.threads.unwrap_or_else(cores);
    let mut files = args.files.clone();
    if let Some(list) = &args.files_from {
        files.extend(walk::read_list(list).map_err(|e| e.to_string())?);
        if files.is_empty() {
            return Err(format!("{}: lists no file to clean", list.display()));
        }
    }
    let walk_options = WalkOptions {
        globs: args.glob.clone(),
        hidden: args.hidden,
        follow_links: args.follow,
        threads,
    };
    let expanded = walk::expand(&files, &walk_options).map_err(|e| e.to_string())?;
    let input_kind = args.input_kind(&expanded.inputs)?;
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
            page_links: args.format == FormatKind::Json,
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
        ..Options::with_method(args.policy.method()?)
    };
    let json = args.format == FormatKind::Json;
    let records = json || matches!(input_kind, InputKind::Warc | InputKind::Jsonl);
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
            if input == Input::Stdin && records && !json {
                name.set_extension(if input_kind == InputKind::Warc {
                    "warc"
                } else {
                    "jsonl"
                });
            }
            (input, name)
        })
        .collect();
    if let Some(dir) = &args.output_dir {
        if let Some((first, second, name)) = ppl_filter::io::first_collision(&named) {
            return Err(format!(
                "{first} and {second} would both be written to {}: nothing written (rename one, or clean them in separate runs)",
                dir.join(name).display()
            ));
        }
    }
    let (inputs, names): (Vec<Input>, Vec<PathBuf>) = named.into_iter().unzip();
    let sources: Vec<String> = inputs.iter().map(Input::to_string).collect();
    let observer = Reporter::new(inputs.len(), input_kind, global.quiet);
    let mut errors = 0;
    let mut warnings = 0;
    for (dir, message) in &expanded.unreadable {
        errors += 1;
        observer.problem(&Problem {
            input: dir.display().to_string(),
            severity: Severity::Error,
            message: format!("cannot read: {message}"),
        });
    }
    if inputs == [Input::Stdin] && ppl_filter::io::sniff::stdin_lists_files() {
        observer.problem(&Problem {
            input: Input::Stdin.to_string(),
            severity: Severity::Note,
            message: "every line names a file: cleaned as a page all the same (to clean the files it lists, use --files-from -)".to_string(),
        });
    }
    for dir in &expanded.empty_dirs {
        warnings += 1;
        let message = if args.glob.is_empty() {
            "no file to clean in this directory"
        } else {
            "no file in this directory matches --glob"
        };
        observer.problem(&Problem {
            input: dir.display().to_string(),
            severity: Severity::Warning,
            message: message.to_string(),
        });
    }
    let record_format = match input_kind {
        _ if json => RecordFormat::JsonlObjects,
        InputKind::Jsonl => RecordFormat::JsonlRewrite {
            add_scores: args.add_scores,
        },
        _ => RecordFormat::Warc,
    };
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
        return Err(message.to_string());
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
            pipeline::run(&inputs, model, &options, sink.as_mut(), &observer)
                .map_err(|e| e.to_string())?
        }
    };
    observer.done();
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

/// Cleans one WARC or JSONL input into a file of its own kind at `path` (gzip-compressed when
/// named `*.gz`), which appears only once complete (written under a temporary name).
fn clean_to_record_file(
    input: &Input,
    path: &std::path::Path,
    (format, output_field, url): (RecordFormat, Option<&str>, Option<&str>),
    model: &'static ppl_filter::lm::model::LanguageModel,
    options: &Options,
    observer: &Reporter,
) -> Result<pipeline::Summary, String> {
    fn run<W: Write + Send>(
        mut sink: RecordSink<W>,
        input: &Input,
        model: &'static ppl_filter::lm::model::LanguageModel,
        options: &Options,
        observer: &Reporter,
    ) -> Result<(pipeline::Summary, W), String> {
        let summary = pipeline::run(
            std::slice::from_ref(input),
            model,
            options,
            &mut sink,
            observer,
        )
        .map_err(|e| e.to_string())?;
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
    let file = PartialFile::create(path).map_err(|e| e.to_string())?;
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
            (summary, gzip.finish().map_err(|e| e.to_string())?)
        }
        _ => run(
            configured(RecordSink::new(file, format), (output_field, url), input),
            input,
            model,
            options,
            observer,
        )?,
    };
    file.commit().map_err(|e| e.to_string())?;
    Ok(summary)
}

/// `ppl-filter train`: build a model file from plain text.
fn train(args: TrainArgs, global: &GlobalArgs) -> Result<ExitCode, String> {
    if global.model.is_some() {
        return Err(
            "--model does not apply to train, which makes a model (name it with --output)".into(),
        );
    }
    let options = TrainOptions {
        order: usize::from(args.order),
        min_count: args.min_count,
        min_unigram_count: args.min_unigram_count,
        max_ngrams_in_memory: args.max_ngrams_in_memory,
        credit: args.credit.unwrap_or_default(),
        ..TrainOptions::default()
    };
    let progress = if global.quiet {
        Progress::Hidden
    } else {
        Progress::Stderr
    };
    let trained = lm::train::train(&args.corpus, &options, progress).map_err(|e| e.to_string())?;
    std::fs::write(&args.output, &trained.bytes)
        .map_err(|e| format!("{}: {e}", args.output.display()))?;
    if !global.quiet {
        eprintln!(
            "ppl-filter: wrote {}: {}",
            args.output.display(),
            trained.stats
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `ppl-filter learn`: fit the combined method's classifier to pages and their gold text.
fn learn(args: LearnArgs, global: &GlobalArgs) -> Result<ExitCode, String> {
    use ppl_filter::learn::{GoldFormat, SetBalance, TrainingSet};
    let model = ppl_filter::cli::load_model(global.model.as_deref())?;
    // The sets: the positional pair, each --set (weighted by --set-weight in that order), then
    // the lines of each --sets file.
    let mut sets: Vec<TrainingSet> = args
        .input_dir
        .iter()
        .zip(&args.gold_dir)
        .map(|(i, g)| (i.clone(), g.clone()))
        .chain(
            args.set
                .chunks(2)
                .map(|pair| (pair[0].clone(), pair[1].clone())),
        )
        .map(|(input_dir, gold_dir)| TrainingSet {
            input_dir,
            gold_dir,
            weight: 1.0,
        })
        .collect();
    if args.set_weight.len() > sets.len() {
        return Err(format!(
            "{} --set-weight values for {} sets given on the command line (the sets of a --sets file take their weight from its third column)",
            args.set_weight.len(),
            sets.len()
        ));
    }
    for (set, &weight) in sets.iter_mut().zip(&args.set_weight) {
        set.weight = weight;
    }
    for list in &args.sets {
        sets.extend(ppl_filter::learn::read_set_list(list).map_err(|e| e.to_string())?);
    }
    if sets.is_empty() {
        return Err(
            "no training set: give INPUT_DIR GOLD_DIR, --set or a non-empty --sets file".into(),
        );
    }
    let format = match args.gold_format {
        GoldFormatKind::Auto => None,
        GoldFormatKind::Cleaneval => Some(GoldFormat::CleanEval),
        GoldFormatKind::Plain => Some(GoldFormat::Plain),
    };
    // The decision method plays no part in reading the training pages.
    let options = Options::with_method(Method::Perplexity);
    let mut pages =
        ppl_filter::learn::read_sets(&sets, format, &options).map_err(|e| e.to_string())?;
    let learn_options = LearnOptions {
        l2: args.l2,
        threshold: args.decision_threshold,
        smoothing: args.smoothing,
        learner: match args.learner {
            LearnerKind::Trees => Learner::Trees,
            LearnerKind::Logistic => Learner::Logistic,
        },
        boost: ppl_filter::boost::BoostOptions {
            trees: args.trees,
            depth: args.depth,
            learning_rate: args.learning_rate,
            ..Default::default()
        },
        set_balance: match args.set_balance {
            SetBalanceKind::Equal => SetBalance::Equal,
            SetBalanceKind::Natural => SetBalance::Natural,
        },
        set_weights: sets.iter().map(|s| s.weight).collect(),
        ..Default::default()
    };
    let bytes =
        ppl_filter::learn::learn(&mut pages, model, &learn_options).map_err(|e| e.to_string())?;
    std::fs::write(&args.output, &bytes).map_err(|e| format!("{}: {e}", args.output.display()))?;
    if global.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    let mut summary = String::new();
    if sets.len() > 1 {
        let parts: Vec<String> = sets
            .iter()
            .enumerate()
            .map(|(k, set)| {
                let of_set = || pages.iter().filter(|p| p.set == k);
                let plain = of_set()
                    .filter(|p| p.gold_format == GoldFormat::Plain)
                    .count();
                format!(
                    "{}: {} pages, {plain} with plain-text gold, weight {}",
                    set.input_dir.display(),
                    of_set().count(),
                    set.weight
                )
            })
            .collect();
        summary = format!(" of {} sets ({})", sets.len(), parts.join("; "));
    }
    eprintln!(
        "ppl-filter: wrote {} ({} bytes) from {} pages{summary}",
        args.output.display(),
        bytes.len(),
        pages.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `ppl-filter perplexity`: print each sentence's perplexity, PyPlexity-style.
fn perplexity(args: PerplexityArgs, global: &GlobalArgs) -> Result<ExitCode, String> {
    let model = ppl_filter::cli::load_model(global.model.as_deref())?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut print = |sentence: &str| writeln!(out, "{:.1}\t{sentence}", model.perplexity(sentence));
    let result = if args.sentences.is_empty() {
        io::stdin().lines().try_for_each(|line| print(&line?))
    } else {
        args.sentences.iter().try_for_each(|s| print(s))
    };
    match result.and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(format!("cannot write output: {e}")),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// `--generate`: the man page or a completion script.
fn generate(what: ppl_filter::cli::Generate) -> Result<ExitCode, String> {
    ppl_filter::cli::generate(what, ppl_filter::cli::filter::command(), &mut io::stdout())
        .map_err(|e| format!("cannot write output: {e}"))?;
    Ok(ExitCode::SUCCESS)
}

/// Prints problems as one line each on stderr and drives the progress bar.
struct Reporter {
    bar: Option<ProgressBar>,
    /// Count documents (WARC records, JSONL lines) rather than inputs.
    per_document: bool,
}

impl Reporter {
    /// A bar over several inputs, or a counter of records for WARC and JSONL, unless `quiet`
    /// (indicatif draws only when stderr is a terminal).
    fn new(inputs: usize, kind: InputKind, quiet: bool) -> Reporter {
        let per_document = matches!(kind, InputKind::Warc | InputKind::Jsonl);
        let bar = (!quiet && (per_document || inputs > 1)).then(|| {
            let (length, template) = if per_document {
                (None, "{spinner} {pos} records, {per_sec}")
            } else {
                (
                    Some(inputs as u64),
                    "{bar:40} {pos}/{len} documents, {per_sec}, {eta} left",
                )
            };
            let bar = ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            bar
        });
        Reporter { bar, per_document }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Reporter {
    fn problem(&self, problem: &Problem) {
        let print = || eprintln!("ppl-filter: {}: {}", problem.input, problem.message);
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    fn input_read(&self, _index: usize) {
        if let (Some(bar), false) = (&self.bar, self.per_document) {
            bar.inc(1);
        }
    }

    fn document_read(&self, _index: usize) {
        if let (Some(bar), true) = (&self.bar, self.per_document) {
            bar.inc(1);
        }
    }
}
