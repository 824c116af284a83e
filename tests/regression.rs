//! Speed work must not change a byte of output: the library's output over every fixture page
//! and every CleanEval page is compared with CRC-32s recorded by the version before it
//! (`fixtures/regression.txt`), for both decision methods. A deliberate change of behaviour
//! re-records them (the file says how); a new embedded classifier changes the `combined` lines.

use std::path::{Path, PathBuf};

use ppl_filter::decide::{self, Method};
use ppl_filter::lm::model::embedded;
use ppl_filter::pipeline::{self, Options, Problem};
use ppl_filter::sink::render::{OutputFormat, OutputMode};
use ppl_filter::sink::StreamSink;
use ppl_filter::source::Input;

fn html_files(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .collect();
    files.sort();
    files
}

fn crc_of_output(files: &[PathBuf], method: &str, mode: &str) -> String {
    let method = match method {
        "perplexity" => Method::Perplexity,
        "combined" => Method::Combined(decide::embedded()),
        other => panic!("unknown method {other}"),
    };
    let mut options = Options {
        threads: 2,
        ..Options::with_method(method)
    };
    match mode {
        "clean" => {}
        "mark" => options.render.mode = OutputMode::Mark,
        "scores" => options.render.mode = OutputMode::Scores,
        "cleaneval" => options.render.format = OutputFormat::CleanEval,
        other => panic!("unknown mode {other}"),
    }
    let inputs: Vec<Input> = files.iter().cloned().map(Input::File).collect();
    let mut sink = StreamSink::new(Vec::new(), b"\n");
    pipeline::run(&inputs, embedded(), &options, &mut sink, &|_: &Problem| {}).unwrap();
    format!("{:08x}", crc32fast::hash(&sink.into_inner()))
}

#[test]
fn output_matches_the_recorded_version() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/data/cleaneval");
    let recorded = std::fs::read_to_string(root.join("fixtures/regression.txt")).unwrap();
    let mut checked = 0;
    for line in recorded.lines().filter(|l| !l.starts_with('#')) {
        let [method, mode, set, crc] = line.split_whitespace().collect::<Vec<_>>()[..] else {
            panic!("bad line {line}")
        };
        let files = match set {
            "fixtures" => html_files(&[root.join("fixtures/pages")]),
            "shared" if shared.is_dir() => {
                html_files(&[shared.join("dev/input"), shared.join("tune/input")])
            }
            "shared" => {
                eprintln!("skipped: {} is not there", shared.display());
                continue;
            }
            other => panic!("unknown set {other}"),
        };
        assert_eq!(
            crc_of_output(&files, method, mode),
            crc,
            "{method} {mode} output over {set} changed"
        );
        checked += 1;
    }
    assert!(checked >= 8);
}
