//! Streaming properties of the whole pipeline: any read size and any thread count give the
//! same bytes as one whole-page, single-thread run.

use std::path::{Path, PathBuf};

use ppl_filter::io::sink::StreamSink;
use ppl_filter::io::Input;
use ppl_filter::lm;
use ppl_filter::output::OutputMode;
use ppl_filter::pipeline::{self, Options, Problem};
use proptest::prelude::*;

fn inputs() -> Vec<Input> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pages");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files.into_iter().map(Input::File).collect()
}

fn clean(read_size: usize, threads: usize) -> Vec<u8> {
    let options = Options { read_size, threads, mode: OutputMode::Mark, ..Options::default() };
    let mut sink = StreamSink::new(Vec::new(), b"\n");
    pipeline::run(&inputs(), lm::model::embedded(), &options, &mut sink, &|_: &Problem| {}).unwrap();
    sink.into_inner()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn chunking_and_threads_do_not_change_output(read_size in 1usize..3000, threads in 1usize..5) {
        let reference = clean(1 << 20, 1);
        prop_assert!(!reference.is_empty());
        prop_assert_eq!(clean(read_size, threads), reference);
    }
}
