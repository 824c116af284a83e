//! Streaming properties of the whole pipeline: any read size and any thread count give the
//! same bytes as one whole-page, single-thread run, on the fixtures and on damaged copies of them.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ppl_filter::lm;
use ppl_filter::pipeline::{self, InputFormat, Options, Problem};
use ppl_filter::sink::render::OutputMode;
use ppl_filter::sink::StreamSink;
use ppl_filter::source::{Input, Stream};
use proptest::prelude::*;

/// The fixture pages, in name order.
fn fixture_pages() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pages");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn inputs() -> Vec<Input> {
    fixture_pages().into_iter().map(Input::File).collect()
}

/// Cleans `inputs` with the given read size and threads: the output, and the problems
/// reported, in the order they were told.
fn clean(inputs: &[Input], read_size: usize, threads: usize) -> (Vec<u8>, Vec<String>) {
    clean_as(InputFormat::Html, inputs, read_size, threads)
}

/// [`clean`], the inputs holding `format`.
fn clean_as(
    format: InputFormat,
    inputs: &[Input],
    read_size: usize,
    threads: usize,
) -> (Vec<u8>, Vec<String>) {
    let mut options = Options::default();
    options.read.input_format = format;
    options.read.read_size = read_size;
    options.threads = threads;
    options.render.mode = OutputMode::Mark;
    let mut sink = StreamSink::new(Vec::new(), b"\n");
    let problems = Mutex::new(Vec::new());
    let told = |problem: &Problem| {
        let line = format!("{}: {}", problem.input, problem.trouble);
        problems.lock().unwrap().push(line);
    };
    pipeline::run(inputs, lm::model::embedded(), &options, &mut sink, &told).unwrap();
    (sink.into_inner(), problems.into_inner().unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn chunking_and_threads_do_not_change_output(read_size in 1usize..3000, threads in 1usize..5) {
        let reference = clean(&inputs(), 1 << 20, 1);
        prop_assert!(!reference.0.is_empty());
        prop_assert_eq!(clean(&inputs(), read_size, threads), reference);
    }
}

/// Several whole inputs go a document per thread: the output and the problems, in their
/// order, are those of one thread, also with inputs that cannot be opened or are not text
/// among them.
#[test]
fn many_inputs_in_parallel_give_what_one_thread_gives() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut inputs: Vec<Input> = Vec::new();
    for round in 0..4 {
        inputs.extend(inputs_with_trouble(&fixtures, round));
    }
    let reference = clean(&inputs, 1 << 16, 1);
    assert!(reference.1.len() >= 8, "{:?}", reference.1);
    for threads in [2, 3, 8] {
        assert_eq!(clean(&inputs, 1 << 16, threads), reference, "-j{threads}");
    }
}

/// The responses of WARC files and the lines of JSONL files go a document per thread: the
/// output and the problems (damaged records, bad lines), in their order, are those of one
/// thread.
#[test]
fn records_in_parallel_give_what_one_thread_gives() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let warc = [
        Input::File(fixtures.join("warc/small.warc.gz")),
        Input::File(fixtures.join("warc/small.warc")),
    ];
    let jsonl = [Input::File(fixtures.join("jsonl/pages.jsonl"))];
    for (format, inputs) in [
        (InputFormat::Warc, &warc[..]),
        (InputFormat::Jsonl, &jsonl[..]),
    ] {
        let reference = clean_as(format, inputs, 1 << 16, 1);
        assert!(
            !reference.0.is_empty() && !reference.1.is_empty(),
            "{format:?}"
        );
        for threads in [2, 3, 8] {
            let parallel = clean_as(format, inputs, 1 << 16, threads);
            assert_eq!(parallel, reference, "{format:?} -j{threads}");
        }
    }
}

/// The fixture pages but the UTF-16 one (whose NUL bytes are text), as files and as one
/// stream in a file of its own, a NUL byte after each page (the pages without a doctype need
/// it to be told apart).
fn pages_and_their_stream(name: &str) -> (Vec<Input>, PathBuf) {
    let pages: Vec<PathBuf> = fixture_pages()
        .into_iter()
        .filter(|page| !page.ends_with("utf16.html"))
        .collect();
    let mut stream = Vec::new();
    for page in &pages {
        stream.extend(std::fs::read(page).unwrap());
        stream.push(0);
    }
    let path = std::env::temp_dir().join(format!("ppl-stream-{name}-{}", std::process::id()));
    std::fs::write(&path, stream).unwrap();
    (pages.into_iter().map(Input::File).collect(), path)
}

/// A stream of pages is cut into its pages, each cleaned as a file holding it is: the same
/// bytes out as the pages given as files, for any thread count.
#[test]
fn a_stream_of_pages_gives_what_its_pages_as_files_give() {
    let (files, stream) = pages_and_their_stream("files");
    let (from_files, _) = clean(&files, 1 << 16, 1);
    assert!(!from_files.is_empty());
    for threads in [1, 2, 5] {
        let input = [Input::Stream(Stream::named(stream.clone()))];
        let (from_stream, _) = clean(&input, 1 << 16, threads);
        assert_eq!(
            String::from_utf8_lossy(&from_stream),
            String::from_utf8_lossy(&from_files),
            "-j{threads}"
        );
    }
    std::fs::remove_file(stream).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// A stream of pages gives the same bytes for any read size and thread count.
    #[test]
    fn a_stream_is_cut_alike_whatever_the_reads_and_threads(read_size in 1usize..3000, threads in 1usize..5) {
        let (_, stream) = pages_and_their_stream(&format!("prop-{read_size}-{threads}"));
        let run = |read_size, threads| {
            clean(&[Input::Stream(Stream::named(stream.clone()))], read_size, threads)
        };
        let reference = run(1 << 20, 1);
        let cut = run(read_size, threads);
        std::fs::remove_file(&stream).unwrap();
        prop_assert_eq!(cut, reference);
    }
}

/// The fixture pages with a missing file and a binary one among them, placed by `round`.
fn inputs_with_trouble(fixtures: &Path, round: usize) -> Vec<Input> {
    let mut inputs = inputs();
    let at = round % inputs.len();
    inputs.insert(at, Input::File(fixtures.join("no-such-page.html")));
    inputs.insert(inputs.len() - at, Input::Found(fixtures.join("binary.bin")));
    inputs
}

/// A fixture page damaged the way crawls damage pages: bytes overwritten at random places
/// (broken tags, split or invalid UTF-8, stray NULs), and half the time the end cut off.
fn damaged_page() -> impl Strategy<Value = Vec<u8>> {
    let pages: Vec<Vec<u8>> = fixture_pages()
        .iter()
        .map(|path| std::fs::read(path).unwrap())
        .collect();
    let edits = proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..64);
    (
        0..pages.len(),
        edits,
        prop_oneof![Just(1.0f64), 0.0f64..1.0],
    )
        .prop_map(move |(page, edits, keep)| {
            let mut bytes = pages[page].clone();
            for (at, byte) in edits {
                let i = at.index(bytes.len());
                bytes[i] = byte;
            }
            bytes.truncate((bytes.len() as f64 * keep) as usize);
            bytes
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Damaged input is cleaned without a panic, and still the same for any read size and
    /// thread count (problems included).
    #[test]
    fn damaged_pages_stream_alike(page in damaged_page(), read_size in 1usize..2000, threads in 1usize..4) {
        let path = std::env::temp_dir().join(format!("ppl-filter-damaged-{}.html", std::process::id()));
        std::fs::write(&path, &page).unwrap();
        let input = [Input::File(path.clone())];
        let reference = clean(&input, 1 << 20, 1);
        let chunked = clean(&input, read_size, threads);
        std::fs::remove_file(&path).unwrap();
        prop_assert_eq!(chunked, reference);
    }
}
