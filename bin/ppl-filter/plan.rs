//! The main job's flags turned, once, into what the run does ([`Plan`]): the inputs found and
//! what they hold, the settings of every stage, and where the output goes, each checked before
//! anything is read or written.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail};
use ppl_filter::cli::filter::CleanArgs;
use ppl_filter::fetch::FetchLimits;
use ppl_filter::pipeline::HtmlSettings;
use ppl_filter::pipeline::{self, Options, Problem, Trouble};
use ppl_filter::pipeline::{Job, Layout, Output, OutputDir, OutputMode};
use ppl_filter::pipeline::{ReadSettings, RenderSettings};
use ppl_filter::sink::RecordFormat;
use ppl_filter::source::walk::{self, Expanded, WalkOptions};
use ppl_filter::source::{sniff, Input, InputFormat, NamedInput};

use crate::urls::{UrlList, Urls};

/// What a cleaning run does.
pub struct Plan {
    /// The inputs, in the order they are cleaned.
    pub inputs: Vec<Input>,
    /// The settings of every stage, the language asked for, and where the output goes.
    pub job: Job,
    /// Problems met while finding the inputs, reported before any is cleaned.
    pub found: Vec<Problem>,
    /// FIFOs, sockets and devices skipped while walking directories.
    pub special_skipped: u64,
    /// `--stats`: a line of counts at the end.
    pub stats: bool,
    /// `-u`, `-i`: the pages to fetch (then there is no other input).
    pub fetch: Option<Fetch>,
}

/// The pages to fetch, and how.
pub struct Fetch {
    /// The URLs, in order, each once; a list read as they are fetched.
    pub urls: Urls,
    /// Each page's size and time bounds.
    pub limits: FetchLimits,
    /// Between two requests to one host (`--fetch-delay`).
    pub delay: Duration,
    /// Whether robots.txt is obeyed (not `--no-robots`).
    pub robots: bool,
}

/// The size bound of a fetched page when `--max-filesize` is not given.
const DEFAULT_MAX_FETCHED_BYTES: u64 = 20_000_000;

impl Plan {
    /// Whether the run reads standard input alone and it is a terminal (someone typed
    /// `ppl-filter` without input, who may not know it waits for a page).
    pub fn reads_a_terminal(&self) -> bool {
        use std::io::IsTerminal;
        self.fetch.is_none()
            && matches!(&self.inputs[..], [input] if input.is_stdin())
            && std::io::stdin().is_terminal()
    }

    /// The plan the flags describe, or why they cannot be followed.
    pub fn from_args(args: CleanArgs) -> anyhow::Result<Plan> {
        let threads = args.threads.unwrap_or_else(pipeline::default_threads);
        let fetch = fetch(&args)?;
        let mut expanded = match fetch {
            Some(_) => Expanded::default(),
            None => find_inputs(&args, threads)?,
        };
        let too_large = drop_too_large(&mut expanded.inputs, args.max_filesize);
        let kind = match args.input {
            Some(kind) => kind,
            None if fetch.is_some() => InputFormat::Html,
            None => sniff::kind_of_inputs(expanded.inputs.iter().map(|(input, _)| input))?,
        };
        let records = records(&args, kind)?;
        let options = options(&args, kind, threads, records.as_ref())?;
        let named = output_names(expanded.inputs, kind, args.format, records.is_some());
        ppl_filter::sink::outputs::check(args.output_dir.as_deref(), &named, &expanded.walked)?;
        let (inputs, names): (Vec<Input>, Vec<PathBuf>) = named.into_iter().unzip();
        let mut found = found_problems(&expanded.unreadable, &expanded.empty_dirs, &inputs, &args);
        found.extend(too_large);
        let output = match (args.output_dir, records) {
            (Some(dir), Some(format)) => Output::RecordFiles(OutputDir { dir, names }, format),
            (Some(dir), None) => Output::Files(OutputDir { dir, names }),
            (None, Some(format)) => Output::Records(format),
            (None, None) => Output::Stream {
                separator: if args.null { b"\0" } else { b"\n" }.to_vec(),
            },
        };
        let job = Job {
            options,
            language: args.target_language,
            output,
        };
        Ok(Plan {
            inputs,
            job,
            found,
            special_skipped: expanded.special_skipped,
            stats: args.stats,
            fetch,
        })
    }
}

/// The pages `-u` and `-i` name, if any; with them, no file may be given, and the output goes
/// to standard output.
fn fetch(args: &CleanArgs) -> anyhow::Result<Option<Fetch>> {
    if args.fetch.is_empty() && args.fetch_list.is_none() {
        return Ok(None);
    }
    if !args.files.is_empty() || args.files_from.is_some() {
        bail!("give pages to fetch (-u, -i) or files to read, not both");
    }
    if args.output_dir.is_some() {
        bail!("--output-dir applies to files: fetched pages are written to standard output");
    }
    let list = args.fetch_list.as_deref().map(UrlList::open).transpose()?;
    let urls = Urls::new(args.fetch.clone(), list);
    Ok(Some(Fetch {
        urls,
        limits: FetchLimits {
            max_bytes: args.max_filesize.unwrap_or(DEFAULT_MAX_FETCHED_BYTES),
            timeout: Duration::from_secs_f64(args.fetch_timeout.max(0.001)),
        },
        delay: Duration::from_secs_f64(args.fetch_delay),
        robots: !args.no_robots,
    }))
}

/// Takes the files larger than `max` bytes (`--max-filesize`) out of `inputs`, each a problem.
fn drop_too_large(inputs: &mut Vec<NamedInput>, max: Option<u64>) -> Vec<Problem> {
    let Some(max) = max else {
        return Vec::new();
    };
    let mut too_large = Vec::new();
    inputs.retain(|(input, _)| {
        let size = match input {
            Input::File(path) | Input::Found(path) => {
                std::fs::metadata(path).map_or(0, |m| m.len())
            }
            Input::Memory { bytes, .. } => bytes.len() as u64,
            Input::Stream(_) => 0,
        };
        let keep = size <= max;
        if !keep {
            too_large.push(Problem::new(
                input.to_string(),
                Trouble::TooLarge { size, max },
            ));
        }
        keep
    });
    too_large
}

/// The files named and listed (`--files-from`), directories walked.
fn find_inputs(args: &CleanArgs, threads: usize) -> anyhow::Result<Expanded> {
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
    Ok(walk::expand(&files, &walk_options)?)
}

/// How records are written, when the output is records: `--format json`, or WARC or JSONL
/// input; flags that the inputs and the format at hand would ignore are refused.
fn records(args: &CleanArgs, kind: InputFormat) -> anyhow::Result<Option<RecordFormat>> {
    let json = args.format == Layout::Json;
    let format = match kind {
        _ if json => RecordFormat::JsonlObjects {
            url: args.url.clone(),
        },
        InputFormat::Jsonl => RecordFormat::JsonlRewrite {
            output_field: args.output_field.clone(),
            add_scores: args.add_scores,
        },
        InputFormat::Warc | InputFormat::Html | InputFormat::Text => RecordFormat::Warc {
            gzip_members: args.compress,
        },
    };
    let is_records = json || matches!(kind, InputFormat::Warc | InputFormat::Jsonl);
    let warc_out = kind == InputFormat::Warc && !json;
    let jsonl_out = kind == InputFormat::Jsonl && !json;
    let misplaced = [
        (
            args.compress && !warc_out,
            "--compress applies to WARC output (WARC input, without --format json)",
        ),
        (
            args.all_responses && kind != InputFormat::Warc,
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
    Ok(is_records.then_some(format))
}

/// The settings of every stage.
fn options(
    args: &CleanArgs,
    kind: InputFormat,
    threads: usize,
    records: Option<&RecordFormat>,
) -> anyhow::Result<Options> {
    let encoding = match &args.encoding {
        Some(label) => Some(
            ppl_filter::pipeline::encoding_for_label(label)
                .ok_or_else(|| anyhow!("unknown encoding '{label}'"))?,
        ),
        None => None,
    };
    let mut render = RenderSettings::of(args.format);
    // `--mark` and `--scores`, the older spellings of `--format mark` and `--format scores`.
    if args.scores {
        render.mode = OutputMode::Scores;
    } else if args.mark {
        render.mode = OutputMode::Mark;
    }
    render.report_perplexity = records.is_some_and(RecordFormat::reports_perplexity);
    let mut decide = args.policy.decide()?;
    decide.choices.max_document_bytes = args.max_document_bytes;
    let defaults = Options::with_decision(decide);
    Ok(Options {
        read: ReadSettings {
            input_format: kind,
            encoding,
            jsonl_field: args.field.clone(),
            skip_bad_lines: args.skip_bad_lines,
            all_responses: args.all_responses,
            max_record_bytes: args.max_record_bytes,
            text_without_markup: args.input.is_none(),
            // --output-dir writes a file per input: a stream is one document there.
            one_document: args.one_document || args.output_dir.is_some(),
            ..ReadSettings::default()
        },
        html: HtmlSettings {
            max_block_bytes: args.max_block_bytes.max(1),
            max_parser_memory: args.max_parser_memory,
            keep_title: args.title,
            read_byline: records.is_some_and(|r| matches!(r, RecordFormat::JsonlObjects { .. })),
            ..defaults.html
        },
        render,
        threads,
        ..defaults
    })
}

/// Each input with the name of its output under `--output-dir`, relative to it: a page gives a
/// text file (JSON lines with `--format json`, Markdown with `--format markdown`), a WARC or
/// JSONL input a file of its own kind, and standard input is named for what it holds.
fn output_names(
    inputs: Vec<NamedInput>,
    kind: InputFormat,
    layout: Layout,
    records: bool,
) -> Vec<NamedInput> {
    let json = layout == Layout::Json;
    // A WARC or JSONL input keeps its own kind, unless it is written as JSON objects.
    let extension = (json || !records).then(|| layout.extension());
    inputs
        .into_iter()
        .map(|(input, relative)| {
            let mut name = ppl_filter::sink::outputs::output_name(&relative, extension);
            if input.is_stdin() && records && !json {
                name.set_extension(if kind == InputFormat::Warc {
                    "warc"
                } else {
                    "jsonl"
                });
            }
            (input, name)
        })
        .collect()
}

/// What finding the inputs met, in the order it is reported: directories that could not be
/// read (errors), standard input that seems to list files (a note), directories with no file
/// to clean (warnings).
fn found_problems(
    unreadable: &[(PathBuf, String)],
    empty_dirs: &[PathBuf],
    inputs: &[Input],
    args: &CleanArgs,
) -> Vec<Problem> {
    let at = |dir: &Path, trouble| Problem::new(dir.display().to_string(), trouble);
    let mut found: Vec<Problem> = unreadable
        .iter()
        .map(|(dir, message)| at(dir, Trouble::Unreadable(message.clone())))
        .collect();
    if let [input] = inputs {
        if sniff::stdin_lists_files(input) {
            found.push(Problem::new(input.to_string(), Trouble::ListsFiles));
        }
    }
    let with_glob = !args.glob.is_empty();
    found.extend(
        empty_dirs
            .iter()
            .map(|dir| at(dir, Trouble::NoFileInDirectory { with_glob })),
    );
    found
}
