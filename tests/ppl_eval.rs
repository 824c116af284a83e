//! Integration tests of the `ppl-eval` binary and of `ppl_filter::eval::score_dirs` on the
//! hand-made pairs of `fixtures/eval/` (answers computed by hand below).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_ppl-eval");

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eval")
}

fn run(args: &[&str]) -> Output {
    match Command::new(BIN).args(args).output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run {BIN}: {e}"),
    }
}

/// A fresh scratch directory under the system temp dir.
fn scratch() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ppl-eval-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Reads a number field from the flat JSON object written by `--json`.
fn json_num(json: &str, key: &str) -> f64 {
    let pat = format!("\"{key}\":");
    let start = json
        .find(&pat)
        .unwrap_or_else(|| panic!("no key {key} in {json}"))
        + pat.len();
    let rest = &json[start..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    rest[..end]
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{key}: {e}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-3
}

// Hand-computed answers for fixtures/eval (text = markers removed, tags = markers as tokens):
//
// 1  gold  "<p> the cat sat <p> on the mat" (+ URL line)   cleaned "the dog sat on mat today"
//    Lev: sub cat->dog, delete "the", insert "today" = 3 of max 6 -> 50
//    text LCS "the sat on mat" = 4: tp 4 fp 2 fn 2 -> P 66.67 R 66.67 F 66.67
//    tags: tp 4 fp 2 fn 4 -> P 66.67 R 50 F 57.14; markers tp 0 fp 0 fn 2 -> 0/0/0
// 2  gold UTF-8+BOM "<h>Café menu <p>Fresh bread daily."
//    cleaned windows-1252 "<h> Café menu\v<p>Fresh bread\x01daily. Call" + CRLF + "  URL: …"
//    text: 6 vs 5 words, one insertion: Lev 1/6 -> 83.33; tp 5 fp 1 fn 0 -> P 83.33 R 100 F 90.91
//    tags: tp 7 fp 1 fn 0 -> P 87.5 R 100 F 93.33; markers 2/0/0 -> 100
// 3  cleaned missing, gold "<p> one two three": Lev 0 (d 3, max 3); all P/R/F 0;
//    text tp0 fp0 fn3, tags fn4, markers fn1
// 4  empty vs empty (gold only a URL line): Lev 100, P = R = F = 100 everywhere
// 5  gold "<p>Hello world.<p>Bye now"  cleaned "<P>Hello world. <h>Bye"
//    text: d 1 of max 4 -> 75; tp 3 fp 0 fn 1 -> P 100 R 75 F 85.71
//    tags: [<p> Hello world. <h> Bye] vs [<p> Hello world. <p> Bye now]: LCS 4 -> tp 4 fp 1 fn 2
//    markers [<p> <h>] vs [<p> <p>]: tp 1 fp 1 fn 1 -> 50/50/50
//
// Totals: Lev macro (50 + 83.33 + 0 + 100 + 75) / 5 = 61.67; micro 1 - 8/19 = 57.89
// text micro 12/3/6 -> P 80 R 66.67 F 72.73; macro P 70, R 68.33, F 68.66
// tags micro 15/4/10 -> P 78.95 R 60 F 68.18; markers micro 3/1/4 -> P 75 R 42.86 F 54.55
fn check_fixture_json(json: &str) {
    let want = [
        ("pages", 5.0),
        ("missing", 1.0),
        ("lev_macro", (50.0 + 500.0 / 6.0 + 0.0 + 100.0 + 75.0) / 5.0),
        ("lev_micro", 100.0 * (1.0 - 8.0 / 19.0)),
        ("text_tp", 12.0),
        ("text_fp", 3.0),
        ("text_fn", 6.0),
        ("text_p_micro", 80.0),
        ("text_r_micro", 200.0 / 3.0),
        ("text_f_micro", 800.0 / 11.0),
        ("text_p_macro", 70.0),
        (
            "text_r_macro",
            (200.0 / 3.0 + 100.0 + 0.0 + 100.0 + 75.0) / 5.0,
        ),
        (
            "text_f_macro",
            (200.0 / 3.0 + 1000.0 / 11.0 + 0.0 + 100.0 + 600.0 / 7.0) / 5.0,
        ),
        ("tags_tp", 15.0),
        ("tags_fp", 4.0),
        ("tags_fn", 10.0),
        ("tags_p_micro", 1500.0 / 19.0),
        ("tags_r_micro", 60.0),
        ("tags_f_micro", 750.0 / 11.0),
        (
            "tags_f_macro",
            (400.0 / 7.0 + 280.0 / 3.0 + 0.0 + 100.0 + 800.0 / 11.0) / 5.0,
        ),
        ("marker_tp", 3.0),
        ("marker_fp", 1.0),
        ("marker_fn", 4.0),
        ("marker_p_micro", 75.0),
        ("marker_r_micro", 300.0 / 7.0),
        ("marker_f_micro", 600.0 / 11.0),
        ("marker_f_macro", 50.0),
    ];
    for (key, value) in want {
        let got = json_num(json, key);
        assert!(close(got, value), "{key}: got {got}, want {value}");
    }
    assert!(json.contains("\"markers_present\":true"));
}

#[test]
fn score_fixtures_table_tsv_json() {
    let dir = scratch();
    let (tsv, json) = (dir.join("pages.tsv"), dir.join("summary.json"));
    let fx = fixtures();
    let out = run(&[
        "score",
        fx.join("cleaned").to_str().unwrap(),
        fx.join("gold").to_str().unwrap(),
        "--tsv",
        tsv.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("pages                  5"), "{table}");
    assert!(table.contains("missing cleaned        1"), "{table}");
    assert!(table.contains("57.89   61.67"), "{table}");
    assert!(table.contains("marker  F"), "{table}");

    check_fixture_json(&std::fs::read_to_string(&json).unwrap());

    let tsv = std::fs::read_to_string(&tsv).unwrap();
    let rows: Vec<Vec<&str>> = tsv.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 6, "header + 5 pages (99.txt ignored):\n{tsv}");
    assert_eq!(rows[0][0], "file");
    let names: Vec<&str> = rows[1..].iter().map(|r| r[0]).collect();
    assert_eq!(names, ["1.txt", "2.txt", "3.txt", "4.txt", "5.txt"]);
    for r in &rows {
        assert_eq!(r.len(), rows[0].len());
    }
    let col = |name: &str| rows[0].iter().position(|h| *h == name).unwrap();
    assert_eq!(rows[3][col("missing")], "1");
    assert_eq!(rows[1][col("lev_distance")], "3");
    assert_eq!(rows[2][col("lev")], "83.3333");
    assert_eq!(rows[4][col("lev")], "100.0000");
    assert_eq!(rows[4][col("text_f")], "100.0000");
    assert_eq!(rows[5][col("tags_tp")], "4");
    assert_eq!(rows[5][col("marker_f")], "50.0000");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn library_matches_binary() {
    let fx = fixtures();
    let s = ppl_filter::eval::score_dirs(&fx.join("cleaned"), &fx.join("gold")).unwrap();
    assert_eq!(s.pages.len(), 5);
    assert_eq!(s.missing, 1);
    assert!(s.pages[2].missing && s.pages[2].name == "3.txt");
    check_fixture_json(&s.to_json());
}

#[test]
fn missing_gold_dir_is_error_2() {
    let fx = fixtures();
    let out = run(&[
        "score",
        fx.join("cleaned").to_str().unwrap(),
        "/nonexistent/gold-dir",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("/nonexistent/gold-dir"), "{err}");
}

#[test]
fn missing_cleaned_dir_is_error_2() {
    let fx = fixtures();
    let out = run(&[
        "score",
        "/nonexistent/cleaned-dir",
        fx.join("gold").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/cleaned-dir"));
}

#[test]
fn unwritable_output_is_error_2() {
    let fx = fixtures();
    let out = run(&[
        "score",
        fx.join("cleaned").to_str().unwrap(),
        fx.join("gold").to_str().unwrap(),
        "--json",
        "/nonexistent/dir/summary.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/dir/summary.json"));
}

#[test]
fn unreadable_cleaned_file_is_error_2() {
    // A cleaned "file" that is a directory exists, so it is not "missing": it is unreadable.
    let dir = scratch();
    let (gold, cleaned) = (dir.join("gold"), dir.join("cleaned"));
    std::fs::create_dir_all(&gold).unwrap();
    std::fs::create_dir_all(cleaned.join("7.txt")).unwrap();
    std::fs::write(gold.join("7.txt"), "<p> x").unwrap();
    let out = run(&["score", cleaned.to_str().unwrap(), gold.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("7.txt"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The arguments of `ppl-eval score` on the fixtures.
fn score_fixtures() -> Vec<String> {
    let fx = fixtures();
    vec![
        "score".to_string(),
        fx.join("cleaned").display().to_string(),
        fx.join("gold").display().to_string(),
    ]
}

/// Runs `ppl-eval args` with its standard output on `stdout` (stderr captured).
fn run_writing_to(args: &[String], stdout: Stdio) -> Output {
    match Command::new(BIN).args(args).stdout(stdout).output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run {BIN}: {e}"),
    }
}

#[test]
fn a_full_device_is_one_line_and_exit_2() {
    let generate = ["--generate", "man"].map(String::from).to_vec();
    let help = vec!["--help".to_string()];
    for args in [score_fixtures(), generate, help] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("open /dev/full");
        let out = run_writing_to(&args, Stdio::from(full));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("ppl-eval: cannot write output: "),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    // A reader that closes its end of the pipe before ppl-eval starts: the first write fails
    // with EPIPE, as when `| head -1` has read what it wanted.
    let mut reader = Command::new("sh")
        .args(["-c", "exec 0<&-; echo closed; exec sleep 60"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run sh");
    let pipe = reader.stdin.take().expect("the reader's stdin");
    let mut said = String::new();
    let said_ok =
        BufReader::new(reader.stdout.as_mut().expect("the reader's stdout")).read_line(&mut said);
    let out = run_writing_to(&score_fixtures(), Stdio::from(pipe));
    let _ = reader.kill();
    let _ = reader.wait();
    assert_eq!((said_ok.ok(), said.as_str()), (Some(7), "closed\n"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn usage_errors_and_help() {
    assert_eq!(run(&[]).status.code(), Some(2));
    assert_eq!(run(&["score", "only-one-dir"]).status.code(), Some(2));
    let help = run(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("score") && text.contains("Exit status"),
        "{text}"
    );
}

#[test]
fn baseline_keeps_the_article_and_drops_the_menu() {
    let out_dir = scratch();
    let pages = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pages");
    let out = run(&[
        "baseline",
        pages.to_str().unwrap(),
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(out_dir.join("news.txt")).unwrap();
    assert!(
        text.contains("<p>The town council voted on Tuesday"),
        "{text}"
    );
    assert!(text.contains("<p>Supporters of the project said"), "{text}");
    for menu in [
        "Home",
        "Login",
        "Privacy policy",
        "Bridge repairs delayed again",
    ] {
        assert!(!text.contains(menu), "kept {menu:?}:\n{text}");
    }
    assert!(
        text.lines()
            .all(|l| l.starts_with("<p>") || l.starts_with("<h>")),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(out_dir);
}

#[test]
fn compare_prints_every_method_and_ppl_filter_beats_no_cleaning() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let work = scratch();
    let out = run(&[
        "compare",
        fixtures.join("pages").to_str().unwrap(),
        fixtures.join("gold").to_str().unwrap(),
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).unwrap();
    let lev = |method: &str| -> f64 {
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| {method} |")))
            .unwrap_or_else(|| panic!("{table}"));
        row.split('|').nth(2).unwrap().trim().parse().unwrap()
    };
    assert!(
        lev("ppl-filter --method perplexity") > lev("no cleaning"),
        "{table}"
    );
    assert!(
        lev("ppl-filter --method combined") > lev("no cleaning"),
        "{table}"
    );
    assert!(
        lev("jusText-style baseline") > lev("no cleaning"),
        "{table}"
    );
    for method in [
        "no-cleaning",
        "jusText-style-baseline",
        "ppl-filter-perplexity",
        "ppl-filter-combined",
    ] {
        assert!(work.join(method).join("news.txt").exists());
    }
    let _ = std::fs::remove_dir_all(work);
}
