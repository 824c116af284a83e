//! Crawl-proofing of the `ppl-filter` binary's run as a whole: thread counts and numeric flags
//! out of range are usage errors, a closed pipe ends the run quietly whatever came before, and
//! empty inputs are warnings for every input kind. Each test is built from a reproducer.

use std::io::Read;
use std::process::{Command, Stdio};

use crate::common::*;

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
fn blocks_too_small_to_hold_a_sentence_are_usage_errors() {
    for bytes in ["0", "1", "255", "-1"] {
        assert_usage_error(&["--max-block-bytes", bytes]);
    }
    let page = std::fs::read(fixture("pages/news.html")).unwrap();
    let least = ppl_filter(&["--max-block-bytes", "256"], &page);
    assert_eq!(least.status.code(), Some(0), "{}", stderr(&least));
    assert!(!least.stdout.is_empty());
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

#[test]
fn help_and_version_on_a_full_device_are_one_line_and_exit_2() {
    for flag in ["--help", "--version", "-h"] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("open /dev/full");
        let out = Command::new(env!("CARGO_BIN_EXE_ppl-filter"))
            .arg(flag)
            .stdout(Stdio::from(full))
            .output()
            .unwrap();
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{flag}: {message}");
        assert_eq!(message.lines().count(), 1, "{flag}: {message}");
        assert!(
            message.starts_with("ppl-filter: cannot write output: "),
            "{message}"
        );
    }
    let help = Command::new(env!("CARGO_BIN_EXE_ppl-filter"))
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("--kind"));
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
    args.extend(std::iter::repeat_n(news.as_str(), 400));
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
fn a_closed_pipe_ends_generate_quietly_with_status_0() {
    // The embedded model is megabytes: the write after the reader has gone fails with EPIPE.
    let (status, message) = close_after_one_byte(&["--generate", "model"]);
    assert_eq!(status, Some(0), "{message}");
    assert!(message.is_empty(), "{message}");
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

/// A scratch directory of this test process, made empty.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ppl-edges-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[cfg(unix)]
#[test]
fn pipes_fifos_and_dev_stdin_are_read_once_like_files() {
    let news = fixture("pages/news.html");
    let page = std::fs::read(&news).unwrap();
    let expected = ppl_filter(&[news.to_str().unwrap()], b"");
    assert_eq!(expected.status.code(), Some(0));
    // `cat page | ppl-filter /dev/stdin`: sniffed and cleaned through one handle.
    let piped = ppl_filter(&["/dev/stdin"], &page);
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    assert_eq!(piped.stdout, expected.stdout);
    // WARC and JSONL through a pipe are told from their first bytes, which are not lost.
    let warc = fixture("warc/small.warc.gz");
    if warc.exists() {
        let bytes = std::fs::read(&warc).unwrap();
        // Dated alike: two runs a second apart would write different warcinfo records.
        let by_name = ppl_filter_dated(&[warc.to_str().unwrap()], b"");
        assert_eq!(
            ppl_filter_dated(&["/dev/stdin"], &bytes).stdout,
            by_name.stdout
        );
    }
    // A named FIFO, written by another process: read once, not hung on.
    let dir = scratch("fifo");
    let fifo = dir.join("pages.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let writer = {
        let (fifo, page) = (fifo.clone(), page.clone());
        std::thread::spawn(move || std::fs::write(fifo, page).unwrap())
    };
    let from_fifo = ppl_filter_within(
        &[fifo.to_str().unwrap()],
        b"",
        std::time::Duration::from_secs(60),
    );
    writer.join().unwrap();
    assert_eq!(from_fifo.status.code(), Some(0), "{}", stderr(&from_fifo));
    assert_eq!(from_fifo.stdout, expected.stdout);
    // Found while walking, a FIFO is skipped (reading it would wait for a writer).
    std::fs::copy(&news, dir.join("news.html")).unwrap();
    let walked = ppl_filter_within(
        &[dir.to_str().unwrap()],
        b"",
        std::time::Duration::from_secs(60),
    );
    assert_eq!(walked.status.code(), Some(0), "{}", stderr(&walked));
    assert_eq!(walked.stdout, expected.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_output_over_an_input_or_inside_the_input_tree_is_refused_before_anything_is_written() {
    let dir = scratch("plan");
    let news = std::fs::read(fixture("pages/news.html")).unwrap();
    std::fs::create_dir_all(dir.join("d")).unwrap();
    std::fs::write(dir.join("d/b.txt"), &news).unwrap();
    std::fs::write(dir.join("d/a.html"), &news).unwrap();
    let d = dir.join("d");
    let d = d.to_str().unwrap();
    let b = dir.join("d/b.txt");
    let clean = format!("{d}/clean");
    let cases: [(Vec<&str>, &str); 3] = [
        (vec!["-o", d, d], "inside the input directory"),
        (vec!["-o", d, b.to_str().unwrap()], "would be overwritten"),
        (vec!["-o", &clean, d], "inside the input directory"),
    ];
    for (args, says) in cases {
        let out = ppl_filter(&args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let message = stderr(&out);
        assert!(
            message.contains(says) && message.lines().count() == 1,
            "{args:?}: {message}"
        );
        assert_eq!(
            std::fs::read(dir.join("d/b.txt")).unwrap(),
            news,
            "{args:?}"
        );
        assert!(!dir.join("d/a.txt").exists() && !dir.join("d/clean").exists());
    }
    // Standard output redirected into an input.
    let page = dir.join("d/a.html");
    let appended = std::fs::OpenOptions::new()
        .append(true)
        .open(&page)
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ppl-filter"))
        .arg(&page)
        .stdout(appended)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("also the output"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&page).unwrap(), news);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_input_that_was_not_cleaned_leaves_no_file_and_no_ordinary_record() {
    let dir = scratch("failed");
    let news = fixture("pages/news.html");
    let news = news.to_str().unwrap();
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    std::fs::copy(news, pages.join("news.html")).unwrap();
    let png: Vec<u8> = (0..4000u32).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(
        pages.join("logo.png"),
        [&b"\x89PNG\r\n\x1a\n\0\0"[..], &png].concat(),
    )
    .unwrap();
    let out_dir = dir.join("out");
    let out = out_dir.to_str().unwrap();
    let missing = dir.join("no/such.html");
    let missing = missing.to_str().unwrap();
    let run = ppl_filter(&["-o", out, missing, news], b"");
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert!(out_dir.join("news.txt").exists());
    assert!(!out_dir.join("such.txt").exists());
    // Binary files found while walking: skipped quietly, no file, counted by --stats.
    let walked = ppl_filter(&["--stats", "-o", out, pages.to_str().unwrap()], b"");
    assert_eq!(walked.status.code(), Some(0), "{}", stderr(&walked));
    let message = stderr(&walked);
    assert!(
        message.lines().count() == 1 && message.contains("1 binary files found in directories"),
        "{message}"
    );
    assert!(!out_dir.join("logo.txt").exists());
    // Named on the command line, it is warned about (exit 1), and still gets no file.
    let logo = pages.join("logo.png");
    let named = ppl_filter(&["-o", out, logo.to_str().unwrap()], b"");
    assert_eq!(named.status.code(), Some(1), "{}", stderr(&named));
    assert!(stderr(&named).contains("binary data"));
    assert!(!out_dir.join("logo.txt").exists());
    // JSON: a record that says it failed, with no text.
    let json = ppl_filter(&["--format", "json", missing, news], b"");
    assert_eq!(json.status.code(), Some(2));
    let records: Vec<serde_json::Value> = stdout(&json)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2);
    assert!(records[0]["error"]
        .as_str()
        .unwrap()
        .contains("cannot open"));
    assert!(records[0].get("text").is_none());
    assert!(records[1].get("error").is_none() && records[1]["text"].is_string());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_jsonl_field_missing_on_every_line_is_said_once_naming_the_fields_there_are() {
    let lines: String = (0..50)
        .map(|i| format!("{{\"url\":\"http://e.com/{i}\",\"content\":\"<p>Page {i}.</p>\"}}\n"))
        .collect();
    let out = ppl_filter(&["--input", "jsonl"], lines.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(
        message.contains("no line has the field \"html\"")
            && message.contains("\"content\"")
            && message.contains("--field"),
        "{message}"
    );
    assert_eq!(stdout(&out), lines, "passed through as they were");
    // Some lines without it, among lines with it: one message for each run of them.
    let mixed = format!(
        "{{\"html\":\"<p>x</p>\"}}\n{}{{\"html\":\"<p>y</p>\"}}\n",
        "{\"content\":\"z\"}\n".repeat(3)
    );
    let out = ppl_filter(&["--input", "jsonl"], mixed.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.lines().count() == 1 && message.contains("lines 2-4: no field \"html\""),
        "{message}"
    );
}
