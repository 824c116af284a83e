//! Crawl-proofing of the `ppl-filter` binary's run as a whole: thread counts and numeric flags
//! out of range are usage errors, a closed pipe ends the run quietly whatever came before, and
//! empty inputs are warnings for every input kind. Each test is built from a reproducer.

use std::io::Read;
use std::process::{Command, Stdio};

mod common;
use common::*;

/// A usage error: exit 2, a message, no panic.
fn assert_usage_error(args: &[&str]) {
    let page = std::fs::read(fixture("pages/news.html")).unwrap();
    let out = ppl_filter(args, &page);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {message}");
    assert!(!message.contains("panicked"), "{args:?}: {message}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn thread_counts_out_of_range_are_usage_errors() {
    for j in ["0", "257", "1000", "18446744073709551615", "-1", "two"] {
        assert_usage_error(&["-j", j]);
    }
    let page = std::fs::read(fixture("pages/news.html")).unwrap();
    let most = ppl_filter(&["-j", "256"], &page);
    assert_eq!(most.status.code(), Some(0), "{}", stderr(&most));
    assert_eq!(most.stdout, ppl_filter(&["-j", "1"], &page).stdout);
}

#[test]
fn non_finite_and_out_of_range_thresholds_are_usage_errors() {
    for args in [
        &["-t", "nan"][..],
        &["-t", "inf"],
        &["-t", "-5"],
        &["-t", "0"],
        &["--max-link-density", "nan"],
        &["--max-link-density", "-0.1"],
        &["--max-link-density", "7"],
        &["--method", "perplexity", "--max-link-density", "NaN"],
    ] {
        assert_usage_error(args);
    }
}

#[test]
fn learning_settings_that_are_not_finite_or_out_of_range_are_usage_errors() {
    let path = std::env::temp_dir().join(format!("ppl-learn-args-{}.bin", std::process::id()));
    let out = path.to_str().unwrap();
    for (flag, value) in [
        ("--decision-threshold", "NaN"),
        ("--decision-threshold", "-inf"),
        ("--learning-rate", "0"),
        ("--learning-rate", "nan"),
        ("--l2", "-1"),
        ("--smoothing", "inf"),
    ] {
        let args = ["learn", flag, value, "-o", out, "in", "gold"];
        assert_usage_error(&args);
        assert!(!path.exists(), "{args:?}");
    }
}

/// Reads one byte of the output, closes the pipe, and returns the exit status and stderr.
fn close_after_one_byte(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ppl-filter"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut byte = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut byte).unwrap();
    let mut message = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut message)
        .unwrap();
    (child.wait().unwrap().code(), message)
}

#[test]
fn a_closed_pipe_after_a_damaged_input_ends_quietly_with_status_0() {
    // The damaged page comes first, so its warning is reported before the pipe closes.
    let damaged = fixture("pages/bad-utf8.html").display().to_string();
    let news = fixture("pages/news.html").display().to_string();
    let mut args: Vec<&str> = vec![&damaged];
    args.extend(std::iter::repeat(news.as_str()).take(400));
    for threads in ["1", "2"] {
        let mut with_threads = vec!["-q", "-j", threads];
        with_threads.extend(&args);
        let (status, message) = close_after_one_byte(&with_threads);
        assert_eq!(status, Some(0), "-j{threads}: {message}");
        assert!(
            !message.contains("panicked") && !message.contains("Broken pipe"),
            "{message}"
        );
    }
}

#[test]
fn empty_inputs_are_noted_for_every_input_kind() {
    let dir = std::env::temp_dir().join(format!("ppl-filter-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in [
        "empty.html",
        "empty.warc",
        "empty.jsonl",
        "empty.warc.gz",
        "empty.txt",
    ] {
        let path = dir.join(name);
        std::fs::write(&path, b"").unwrap();
        let out = ppl_filter(&[path.to_str().unwrap()], b"");
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{name}: {message}");
        assert_eq!(message.lines().count(), 1, "{name}: {message}");
        assert!(
            message.contains(name) && message.contains("empty input"),
            "{name}: {message}"
        );
    }
    for kind in ["warc", "jsonl", "html"] {
        let out = ppl_filter(&["--input", kind], b"");
        assert_eq!(
            out.status.code(),
            Some(0),
            "--input {kind}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("<stdin>: empty input"),
            "--input {kind}: {}",
            stderr(&out)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tiny_blocks_in_any_number_are_cleaned_alike_by_any_thread_count() {
    // 200,000 one-word blocks: batches are bounded by blocks, not only by text bytes.
    let page = "<p>a</p>".repeat(200_000);
    let one = ppl_filter(&["-j1", "--mark"], page.as_bytes());
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert_eq!(one.stdout.iter().filter(|&&b| b == b'\n').count(), 200_000);
    for threads in ["2", "16"] {
        assert_eq!(
            ppl_filter(&["-j", threads, "--mark"], page.as_bytes()).stdout,
            one.stdout,
            "-j{threads}"
        );
    }
}
