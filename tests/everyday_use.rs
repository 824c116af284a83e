//! Everyday use of `ppl-filter` as a new user meets it: options before subcommands, what the
//! input kind is told from, `--output-dir` for every kind, directories walked like ripgrep,
//! exit statuses a batch job can rely on, and flags that the chosen method would ignore.

use std::path::{Path, PathBuf};

use crate::common::{fixture, ppl_filter, ppl_filter_keeping_all, stderr, stdout};

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ppl-everyday-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The files under `dir`, relative, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn global_options_go_before_or_after_the_subcommand() {
    let before = ppl_filter(&["-q", "perplexity", "The cat sat."], b"");
    let after = ppl_filter(&["perplexity", "The cat sat.", "--quiet"], b"");
    assert_eq!(before.status.code(), Some(0), "{}", stderr(&before));
    assert_eq!(stdout(&before), stdout(&after));
    assert!(stdout(&before).ends_with("\tThe cat sat.\n"));
    // The model option reaches the subcommand from either side (this one does not exist).
    for args in [
        ["-m", "no-such-model.bin", "perplexity", "x"],
        ["perplexity", "-m", "no-such-model.bin", "x"],
    ] {
        let out = ppl_filter(&args, b"");
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(
            err.starts_with("ppl-filter: no-such-model.bin: "),
            "{args:?}: {err}"
        );
    }
    // A cleaning option with a subcommand is refused, not ignored.
    let misplaced = ppl_filter(&["--format", "plain", "perplexity", "x"], b"");
    assert_eq!(misplaced.status.code(), Some(2));
    assert!(stderr(&misplaced).contains("--format is a cleaning option"));
    let train = ppl_filter(&["-m", "m.bin", "train", "-o", "/dev/null", "x"], b"");
    assert_eq!(train.status.code(), Some(2));
    assert!(stderr(&train).contains("--model does not apply to train"));
}

#[test]
fn flags_the_chosen_method_ignores_are_refused() {
    let page = fixture("pages/news.html");
    for args in [
        vec!["--max-link-density", "0.0"],
        vec!["--method", "perplexity", "--comments"],
        vec!["--method", "perplexity", "--favor-precision"],
        vec![
            "--method",
            "perplexity",
            "--classifier",
            "model/en-classifier.bin",
        ],
    ] {
        let mut all = args.clone();
        all.push(path(&page));
        let out = ppl_filter(&all, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("applies only to --method"),
            "{args:?}"
        );
        assert!(out.stdout.is_empty());
    }
    let out_of_range = ppl_filter(&["--method", "perplexity", "--max-link-density", "7"], b"");
    assert_eq!(out_of_range.status.code(), Some(2));
    let accepted = ppl_filter(
        &[
            "--method",
            "perplexity",
            "--max-link-density",
            "0",
            path(&page),
        ],
        b"",
    );
    assert_eq!(accepted.status.code(), Some(0), "{}", stderr(&accepted));
}

#[test]
fn the_input_kind_is_told_from_content_on_stdin_and_in_directories() {
    let warc = std::fs::read(fixture("warc/small.warc.gz")).unwrap();
    let piped = ppl_filter_keeping_all(&[], &warc);
    assert!(
        stdout(&piped).starts_with("WARC/1.1\r\n"),
        "{}",
        stdout(&piped)
    );
    assert_eq!(stdout(&piped).matches("WARC-Type: conversion").count(), 2);
    let jsonl = std::fs::read(fixture("jsonl/pages.jsonl")).unwrap();
    let piped = ppl_filter_keeping_all(&[], &jsonl);
    let first = stdout(&piped).lines().next().unwrap().to_string();
    assert!(
        first.starts_with("{\"id\": \"a\", \"html\": \"The committee"),
        "{first}"
    );
    // Files found in a directory, whatever their names.
    let dir = scratch("sniff");
    std::fs::write(dir.join("crawl.bin"), &warc).unwrap();
    let walked = ppl_filter_keeping_all(&[path(&dir)], b"");
    assert!(stdout(&walked).starts_with("WARC/1.1\r\n"));
    // --input still decides.
    let forced = ppl_filter_keeping_all(&["--input", "html", path(&dir.join("crawl.bin"))], b"");
    assert!(!stdout(&forced).contains("WARC-Type: conversion"));
    // Kinds that cannot share one output are refused before anything is written.
    std::fs::copy(fixture("pages/news.html"), dir.join("page.html")).unwrap();
    let mixed = ppl_filter_keeping_all(&[path(&dir)], b"");
    assert_eq!(mixed.status.code(), Some(2));
    assert!(
        stderr(&mixed).contains("holds WARC but"),
        "{}",
        stderr(&mixed)
    );
    assert!(mixed.stdout.is_empty());
    let chosen = ppl_filter_keeping_all(&["--glob", "*.bin", path(&dir)], b"");
    assert!(stdout(&chosen).starts_with("WARC/1.1\r\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn output_dir_works_for_warc_and_jsonl_inputs() {
    let dir = scratch("records");
    let (tree, out) = (dir.join("in"), dir.join("out"));
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    std::fs::copy(fixture("warc/small.warc.gz"), tree.join("a.warc.gz")).unwrap();
    std::fs::copy(fixture("warc/small.warc"), tree.join("sub/b.warc")).unwrap();
    let run = ppl_filter_keeping_all(&["-q", "-o", path(&out), path(&tree)], b"");
    assert_eq!(
        run.status.code(),
        Some(1),
        "truncated last records: {}",
        stderr(&run)
    );
    assert_eq!(files_under(&out), ["a.warc.gz", "sub/b.warc"]);
    let plain = std::fs::read_to_string(out.join("sub/b.warc")).unwrap();
    let mut gz = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(out.join("a.warc.gz")).unwrap()),
        &mut gz,
    )
    .unwrap();
    assert_eq!(plain.matches("WARC-Type: conversion").count(), 2, "{plain}");
    assert_eq!(
        gz.matches("WARC-Type: conversion").count(),
        2,
        "the gzip output holds the same records"
    );
    assert!(!stdout(&run).contains("WARC"), "nothing goes to stdout");
    // JSONL in, JSONL out under the same name; standard input gets a name of its kind.
    let jsonl = std::fs::read(fixture("jsonl/pages.jsonl")).unwrap();
    let out2 = dir.join("out2");
    let run = ppl_filter_keeping_all(&["-q", "-o", path(&out2)], &jsonl);
    assert!(run.stdout.is_empty());
    assert_eq!(files_under(&out2), ["stdin.jsonl"]);
    let lines = std::fs::read_to_string(out2.join("stdin.jsonl")).unwrap();
    assert_eq!(
        lines.lines().count(),
        jsonl
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn output_dir_names_markdown_md_and_refuses_a_file() {
    let dir = scratch("markdown-out");
    let out = dir.join("out");
    let news = fixture("pages/news.html");
    let run = ppl_filter(
        &["-q", "--format", "markdown", "-o", path(&out), path(&news)],
        b"",
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(files_under(&out), ["news.md"]);
    let markdown = ppl_filter(&["-q", "--format", "markdown", path(&news)], b"");
    assert_eq!(std::fs::read(out.join("news.md")).unwrap(), markdown.stdout);
    // A file given as the output directory: one line that says what to do, nothing written.
    let file = dir.join("file");
    std::fs::write(&file, b"kept").unwrap();
    let run = ppl_filter(&["-o", path(&file), path(&news)], b"");
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        stderr(&run).trim(),
        format!(
            "ppl-filter: the output directory {} is a file, not a directory: nothing written \
             (give a directory, new or existing; -o writes a file per input under it)",
            file.display()
        )
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"kept");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn directories_are_walked_with_globs_hidden_files_and_lists() {
    let dir = scratch("walk");
    for name in ["a.html", "b.htm", ".hidden/c.html", "d/e.html"] {
        let file = dir.join(name);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::copy(fixture("pages/entities.html"), file).unwrap();
    }
    // Outside the tree: an output directory inside a walked one is refused.
    let out = dir.with_extension("out");
    let run = |args: &[&str]| {
        let _ = std::fs::remove_dir_all(&out);
        let mut all = vec!["-q", "-o", path(&out)];
        all.extend(args);
        let run = ppl_filter_keeping_all(&all, b"");
        assert_eq!(run.status.code(), Some(0), "{args:?}: {}", stderr(&run));
        files_under(&out)
    };
    let tree = dir.to_str().unwrap();
    assert_eq!(run(&[tree]), ["a.txt", "b.txt", "d/e.txt"]);
    assert_eq!(
        run(&["--hidden", tree]),
        [".hidden/c.txt", "a.txt", "b.txt", "d/e.txt"]
    );
    assert_eq!(run(&["-g", "*.html", "-g", "!d/", tree]), ["a.txt"]);
    let list = dir.join("list");
    std::fs::write(&list, format!("{tree}/a.html\n{tree}/d\n")).unwrap();
    assert_eq!(run(&["--files-from", path(&list)]), ["a.txt", "e.txt"]);
    let from_stdin =
        ppl_filter_keeping_all(&["--files-from", "-"], format!("{tree}/b.htm\n").as_bytes());
    assert_eq!(
        stdout(&from_stdin),
        stdout(&ppl_filter_keeping_all(&[&format!("{tree}/b.htm")], b""))
    );
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn empty_inputs_and_directories_say_so() {
    let dir = scratch("empty");
    let empty = ppl_filter(&[path(&dir)], b"");
    assert_eq!(empty.status.code(), Some(1), "nothing to clean: skipped");
    assert!(
        stderr(&empty).contains("no file to clean in this directory"),
        "{}",
        stderr(&empty)
    );
    let nothing = ppl_filter(&[], b"");
    assert_eq!(
        nothing.status.code(),
        Some(0),
        "an empty page is cleaned to nothing"
    );
    assert!(
        stderr(&nothing).contains("<stdin>: empty input"),
        "{}",
        stderr(&nothing)
    );
    // `ls | ppl-filter`: standard input names files; say how to clean them.
    std::fs::copy(fixture("pages/news.html"), dir.join("news.html")).unwrap();
    let listing = ppl_filter(
        &[],
        format!("{}\n", path(&dir.join("news.html"))).as_bytes(),
    );
    assert!(
        stderr(&listing).contains("--files-from -"),
        "{}",
        stderr(&listing)
    );
    // A page with nothing worth keeping.
    let bare = ppl_filter(
        &[],
        b"<html><body><nav><a href=/>Home</a></nav></body></html>",
    );
    assert!(
        stderr(&bare).contains("nothing kept from 1 document") || !bare.stdout.is_empty(),
        "{}",
        stderr(&bare)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replaced_bytes_are_a_note_and_skipped_inputs_exit_1() {
    let dir = scratch("status");
    let good = fixture("pages/news.html");
    let mut page = std::fs::read(&good).unwrap();
    let at = page.windows(7).position(|w| w == b"council").unwrap();
    page[at] = 0xff; // invalid in UTF-8, the page's declared encoding
    let damaged = dir.join("damaged.html");
    std::fs::write(&damaged, &page).unwrap();
    let run = ppl_filter(&[path(&good), path(&damaged)], b"");
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(
        stderr(&run).contains("replaced by U+FFFD"),
        "{}",
        stderr(&run)
    );
    let binary = ppl_filter(&[path(&good), path(&fixture("binary.bin"))], b"");
    assert_eq!(binary.status.code(), Some(1), "{}", stderr(&binary));
    let missing = ppl_filter(&[path(&good), path(&dir.join("missing.html"))], b"");
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    let help = ppl_filter(&["--help"], b"");
    assert!(
        stdout(&help).contains("replaced,\n     an empty input) do not change it"),
        "{}",
        stdout(&help)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn short_help_shows_the_everyday_flags_and_examples_and_long_help_all() {
    let short = stdout(&ppl_filter(&["-h"], b""));
    let long = stdout(&ppl_filter(&["--help"], b""));
    for text in [&short, &long] {
        assert!(
            text.contains("Examples:\n  curl -s https://example.org/ | ppl-filter"),
            "{text}"
        );
        assert!(
            text.contains("--output-dir") && text.contains("--format"),
            "{text}"
        );
    }
    assert!(short.lines().count() <= 100, "{short}");
    assert!(!short.contains("--max-parser-memory"), "{short}");
    assert!(long.contains("--max-parser-memory"), "{long}");
}

#[test]
fn flags_the_inputs_or_format_would_ignore_are_refused() {
    let page = fixture("pages/news.html");
    let warc = fixture("warc/small.warc");
    for (args, flag) in [
        (vec!["--url", "https://e.com/", path(&page)], "--url"),
        (vec!["--all-responses", path(&page)], "--all-responses"),
        (
            vec!["--output-field", "text", path(&page)],
            "--output-field",
        ),
        (vec!["--compress", path(&page)], "--compress"),
        (
            vec!["--compress", "--format", "json", path(&warc)],
            "--compress",
        ),
    ] {
        let out = ppl_filter(&args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).starts_with(&format!("ppl-filter: {flag} applies")),
            "{}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn target_language_keeps_only_the_documents_in_that_language() {
    let languages = fixture("pages/languages");
    let news = fixture("pages/news.html");
    let (languages, news) = (languages.to_str().unwrap(), news.to_str().unwrap());
    let german = fixture("pages/languages/de.html");
    let alone = stdout(&ppl_filter(&["-q", german.to_str().unwrap()], b""));
    assert!(!alone.trim().is_empty());
    for name in ["de", "deu", "German"] {
        for threads in ["-j1", "-j3"] {
            let args = [
                "-q",
                threads,
                "--target-language",
                name,
                "--stats",
                news,
                languages,
            ];
            let out = ppl_filter(&args, b"");
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            assert_eq!(
                stdout(&out),
                alone,
                "{name} {threads}: German only, no separator before"
            );
            assert!(
                stderr(&out).contains("7 documents in another language"),
                "{}",
                stderr(&out)
            );
        }
    }
    // Records and files too: one JSON object, one file.
    let json = ppl_filter(
        &[
            "-q",
            "--target-language",
            "de",
            "-f",
            "json",
            news,
            languages,
        ],
        b"",
    );
    let json = stdout(&json);
    let objects: Vec<&str> = json.lines().collect();
    assert_eq!(objects.len(), 1, "{objects:?}");
    assert!(objects[0].contains("\"lang\":\"deu\""), "{}", objects[0]);
    let dir = scratch("target-language");
    let out = ppl_filter(
        &[
            "-q",
            "--target-language",
            "de",
            "-o",
            dir.to_str().unwrap(),
            languages,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(written, ["de.txt"]);
    let _ = std::fs::remove_dir_all(&dir);
    // A language not told here is refused, naming the flag.
    let bad = ppl_filter(&["--target-language", "xx", news], b"");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("--target-language"),
        "{}",
        stderr(&bad)
    );
}

/// Pages piped one after another are cleaned each as its own document, as the files are, and
/// `--one-document` reads the stream as one page; `--format json` gives a record a page.
#[test]
fn pages_on_stdin_are_cleaned_each_as_itself() {
    let news = fixture("pages/news.html");
    let entities = fixture("pages/entities.html");
    let mut stream = std::fs::read(&news).unwrap();
    stream.push(0);
    stream.extend(std::fs::read(&entities).unwrap());
    let files = ppl_filter(&[path(&news), path(&entities)], b"");
    let piped = ppl_filter(&["-j2"], &stream);
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    assert_eq!(stdout(&piped), stdout(&files));
    let records = ppl_filter(&["--format", "json"], &stream);
    assert_eq!(stdout(&records).lines().count(), 2);
    let whole = ppl_filter(&["--one-document", "--format", "json"], &stream);
    assert_eq!(stdout(&whole).lines().count(), 1);
    // --output-dir writes a file per input: the stream is one, and the next input keeps its name.
    let dir = scratch("pages-on-stdin");
    let out = dir.join("out");
    let written = ppl_filter(&["-o", path(&out), "-", path(&entities)], &stream);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    assert_eq!(files_under(&out), ["entities.txt", "stdin.txt"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
