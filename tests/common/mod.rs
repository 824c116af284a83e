//! Helpers shared by the tests of the `ppl-filter` binary: fixture paths and running the binary
//! on bytes fed through stdin.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `fixtures/NAME` of the crate.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// Runs `ppl-filter ARGS` with `stdin` fed from another thread (so a full pipe cannot block it).
pub fn ppl_filter(args: &[&str], stdin: &[u8]) -> Output {
    run(args, stdin, None)
}

/// Flags under which nothing is dropped: the perplexity method with a threshold no sentence
/// reaches (for tests of reading and writing rather than of the decision).
pub const KEEP_ALL: [&str; 4] = ["--method", "perplexity", "-t", "1e9"];

/// [`ppl_filter`] with [`KEEP_ALL`] before `args`.
pub fn ppl_filter_keeping_all(args: &[&str], stdin: &[u8]) -> Output {
    ppl_filter(&[&KEEP_ALL[..], args].concat(), stdin)
}

/// As [`ppl_filter`], but fails the test if the run takes longer than `limit` (a hang).
pub fn ppl_filter_within(args: &[&str], stdin: &[u8], limit: Duration) -> Output {
    run(args, stdin, Some(limit))
}

/// As [`ppl_filter`], with `SOURCE_DATE_EPOCH` set to 2024-05-01T12:00:00Z, so that two runs
/// writing WARC give the same bytes (its `warcinfo` record is dated with the run).
pub fn ppl_filter_dated(args: &[&str], stdin: &[u8]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ppl-filter"));
    command.env("SOURCE_DATE_EPOCH", "1714564800");
    run_command(command, args, stdin, None)
}

fn run(args: &[&str], stdin: &[u8], limit: Option<Duration>) -> Output {
    run_command(
        Command::new(env!("CARGO_BIN_EXE_ppl-filter")),
        args,
        stdin,
        limit,
    )
}

fn run_command(
    mut command: Command,
    args: &[&str],
    stdin: &[u8],
    limit: Option<Duration>,
) -> Output {
    let mut child = command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ppl-filter");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    if let Some(limit) = limit {
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > limit {
                child.kill().unwrap();
                panic!("ppl-filter {args:?} ran longer than {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    output
}

/// The run's standard output, which must be UTF-8.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("output is UTF-8")
}

/// The run's standard error (lossy).
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
