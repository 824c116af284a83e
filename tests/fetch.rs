//! Pages fetched by URL (`-u`, `-i`), as a trafilatura user would give them: one record each
//! with the page's metadata, robots.txt obeyed unless told not to, a page that cannot be
//! fetched a warning naming its URL; and `--max-filesize` for files. Against hostile servers:
//! a gzip bomb is cut at `--max-filesize` and said to be cut, a body cut short is kept and
//! said to be cut, a robots.txt of many wildcard rules is read right, and a URL that cannot be
//! fetched is not said to be disallowed.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{fixture, ppl_filter, ppl_filter_within, stderr, stdout};

const STORY: &str = r#"<html><head><title>Storm reaches the coast</title>
<meta name="author" content="Jane Reporter">
<meta property="article:published_time" content="2026-10-02">
<meta property="og:site_name" content="Coastal Times">
<meta name="description" content="A storm reached the coast on Friday."></head>
<body><article><p>The storm reached the coast on Friday morning and cut the power to thousands
of homes, officials said on Saturday.</p></article></body></html>"#;

/// A site on 127.0.0.1 (its base URL): `/robots.txt` disallows `/private/`, `/story.html` is
/// [`STORY`], `/news.html` the fixture page, `/private/` a page, anything else 404. The paths
/// asked for are recorded in order.
fn site() -> (String, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let news = std::fs::read_to_string(fixture("pages/news.html")).unwrap();
    let base = server(move |path| {
        log.lock().unwrap().push(path.to_string());
        let (status, body) = match path {
            "/robots.txt" => ("200 OK", "User-agent: *\nDisallow: /private/\n"),
            "/story.html" | "/private/page.html" => ("200 OK", STORY),
            "/news.html" => ("200 OK", news.as_str()),
            _ => ("404 Not Found", "no such page"),
        };
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    });
    (base, asked)
}

#[test]
fn a_list_of_urls_gives_a_record_each_with_the_metadata_its_page_has() {
    let (base, asked) = site();
    let list = std::env::temp_dir().join(format!("ppl-fetch-list-{}.txt", std::process::id()));
    std::fs::write(
        &list,
        format!("{base}/story.html\n# a comment\n\n{base}/news.html\n{base}/private/page.html\n{base}/gone.html\n"),
    )
    .unwrap();
    let args = [
        "-i",
        list.to_str().unwrap(),
        "--format",
        "json",
        "--fetch-delay",
        "0",
    ];
    let out = ppl_filter(&args, b"");
    assert_eq!(
        out.status.code(),
        Some(1),
        "two URLs not fetched: {}",
        stderr(&out)
    );
    let records: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    // A record for every URL, those not fetched with their `error`, as files that cannot be
    // opened get.
    assert_eq!(records.len(), 4, "{}", stdout(&out));
    assert_eq!(records[2]["url"], format!("{base}/private/page.html"));
    assert!(records[2]["error"]
        .as_str()
        .unwrap()
        .contains("robots.txt disallows it"));
    assert_eq!(records[3]["source"], format!("{base}/gone.html"));
    assert_eq!(
        records[3]["error"],
        "not fetched: the server answered HTTP 404"
    );
    assert_eq!(records[0]["url"], format!("{base}/story.html"));
    assert_eq!(records[0]["author"], "Jane Reporter");
    assert_eq!(records[0]["date"], "2026-10-02");
    assert_eq!(records[0]["sitename"], "Coastal Times");
    assert_eq!(
        records[0]["description"],
        "A storm reached the coast on Friday."
    );
    assert!(records[0]["text"]
        .as_str()
        .unwrap()
        .contains("The storm reached the coast"));
    assert_eq!(records[1]["url"], format!("{base}/news.html"));
    // The text is what the CLI gives for the same bytes read from a file.
    let from_file = stdout(&ppl_filter(
        &[fixture("pages/news.html").to_str().unwrap()],
        b"",
    ));
    assert_eq!(records[1]["text"].as_str().unwrap(), from_file.trim_end());
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{base}/private/page.html: not fetched: the site's robots.txt disallows it"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{base}/gone.html: not fetched: the server answered HTTP 404"
        )),
        "{err}"
    );
    // robots.txt was asked for once, first, and the disallowed page never.
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.first().map(String::as_str), Some("/robots.txt"));
    assert_eq!(asked.iter().filter(|p| *p == "/robots.txt").count(), 1);
    assert!(
        !asked.contains(&"/private/page.html".to_string()),
        "{asked:?}"
    );
    let _ = std::fs::remove_file(&list);
}

#[test]
fn robots_txt_can_be_ignored_and_sizes_bounded() {
    let (base, _) = site();
    let page = format!("{base}/private/page.html");
    let out = ppl_filter(&["-u", &page, "--no-robots", "--fetch-delay", "0"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("The storm reached the coast"));
    let small = ppl_filter(
        &["-u", &format!("{base}/story.html"), "--max-filesize", "100"],
        b"",
    );
    assert_eq!(small.status.code(), Some(1));
    assert!(
        stderr(&small).contains("larger than 100 bytes"),
        "{}",
        stderr(&small)
    );
    // URLs and files are not mixed, and fetched pages go to standard output.
    let news = fixture("pages/news.html");
    let mixed = ppl_filter(&["-u", &page, news.to_str().unwrap()], b"");
    assert_eq!(mixed.status.code(), Some(2));
    assert!(stderr(&mixed).contains("not both"), "{}", stderr(&mixed));
    // --max-filesize skips a larger file, with a warning naming it.
    let out = ppl_filter(
        &["-q", "--max-filesize", "1000", news.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    let out = ppl_filter(&["--max-filesize", "1000", news.to_str().unwrap()], b"");
    assert!(
        stderr(&out).contains("larger than --max-filesize (1000): skipped"),
        "{}",
        stderr(&out)
    );
}

/// A port on 127.0.0.1 where nothing listens.
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_page_an_error_and_an_unreachable_host_give_a_record_each_named_for_what_happened() {
    let (base, _) = site();
    let unreachable = format!("http://127.0.0.1:{}/page.html", closed_port());
    let args = [
        "-f",
        "json",
        "--fetch-delay",
        "0",
        "--fetch-timeout",
        "5",
        "-u",
        &format!("{base}/story.html"),
        "-u",
        &format!("{base}/gone.html"),
        "-u",
        &unreachable,
    ];
    let out = ppl_filter(&args, b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let records: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records.len(), 3, "{}", stdout(&out));
    assert!(records[0]["text"].as_str().unwrap().contains("The storm"));
    assert!(records[0].get("error").is_none());
    assert_eq!(records[2]["url"], unreachable.as_str());
    for record in &records[1..] {
        let error = record["error"].as_str().unwrap();
        assert!(error.starts_with("not fetched: "), "{error}");
        assert!(!error.contains("disallow"), "{error}");
    }
    assert!(!stderr(&out).contains("disallow"), "{}", stderr(&out));
}

#[test]
fn a_pipe_closed_after_the_first_byte_ends_the_fetching_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let (base, asked) = site();
    let story = format!("{base}/story.html");
    let news = format!("{base}/news.html");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ppl-filter"))
        .args([
            "--fetch-delay",
            "0",
            "-u",
            &story,
            "-u",
            &news,
            "-u",
            &story,
        ])
        .args(["-u", &format!("{news}?again")])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe is closed here, as `| head -c 1` closes it.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    // The run stopped at the closed pipe, before the last page.
    let asked = asked.lock().unwrap().clone();
    assert!(
        !asked.contains(&"/news.html?again".to_string()),
        "{asked:?}"
    );
}

#[test]
fn a_list_is_fetched_once_a_url_with_no_separator_for_pages_left_out() {
    let (base, asked) = site();
    // Read from standard input, a URL named three times is asked for once.
    let list = format!("{base}/story.html\n{base}/gone.html\n{base}/story.html\n{base}/news.html\n{base}/story.html\n");
    let out = ppl_filter(&["-q", "--fetch-delay", "0", "-i", "-"], list.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let asked = asked.lock().unwrap().clone();
    assert_eq!(
        asked.iter().filter(|p| *p == "/story.html").count(),
        1,
        "{asked:?}"
    );
    // Both pages' text, one empty line between them, none before or after.
    let text = stdout(&out);
    let pages: Vec<&str> = text.split("\n\n").collect();
    assert_eq!(pages.len(), 2, "{text:?}");
    assert!(pages[0].starts_with("The storm"), "{text:?}");
    // A line too long to be a URL is skipped with a warning, and the list read on.
    let long = format!("{}\n{base}/story.html\n", "x".repeat(100_000));
    let out = ppl_filter(&["-q", "--fetch-delay", "0", "-i", "-"], long.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("The storm"), "{}", stdout(&out));
    assert_eq!(
        stderr(&out).trim_end(),
        "ppl-filter: -: not fetched: line 1: longer than 65536 bytes, not a URL"
    );
    // A page left out by --target-language writes no separator either.
    let out = ppl_filter(
        &[
            "-q",
            "--fetch-delay",
            "0",
            "--target-language",
            "fr",
            "-i",
            "-",
        ],
        list.as_bytes(),
    );
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_url_with_control_characters_is_shown_escaped() {
    let url = format!(
        "http://127.0.0.1:{}/\u{1b}]0;title\u{7}\u{1b}[2J",
        closed_port()
    );
    let out = ppl_filter(
        &["--fetch-delay", "0", "--fetch-timeout", "5", "-u", &url],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains("\\u{1b}]0;title"), "{err:?}");
}

/// A server on 127.0.0.1 (its base URL) answering every request with the bytes `respond`
/// gives for its path, then closing the connection.
fn server(respond: impl Fn(&str) -> Vec<u8> + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            let _ = reader.read_line(&mut request);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            let path = request.split(' ').nth(1).unwrap_or("/").to_string();
            let _ = stream.write_all(&respond(&path));
        }
    });
    base
}

/// An answer 200 with `headers` (each ending in CRLF) and `body`.
fn ok(headers: &str, body: &[u8]) -> Vec<u8> {
    let head = format!(
        "HTTP/1.1 200 OK\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    [head.as_bytes(), body].concat()
}

const NOT_FOUND: &[u8] = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";

/// 200 MB of whitespace, gzipped and brotli-compressed as it is written (about 200 KB each).
fn bombs() -> (Vec<u8>, Vec<u8>) {
    let block = vec![b' '; 1 << 20];
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut br = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut br, 1 << 16, 5, 22);
        for _ in 0..200 {
            gz.write_all(&block).unwrap();
            writer.write_all(&block).unwrap();
        }
    }
    (gz.finish().unwrap(), br)
}

#[test]
fn a_gzip_or_brotli_bomb_is_cut_at_max_filesize_and_said_to_be_cut() {
    let (gz, br) = bombs();
    assert!(gz.len() < 1_000_000 && br.len() < 1_000_000);
    let base = server(move |path| match path {
        "/page.html.gz" => ok("", &gz),
        "/gzip" => ok("Content-Encoding: gzip\r\n", &gz),
        "/br" => ok("Content-Encoding: br\r\n", &br),
        _ => NOT_FOUND.to_vec(),
    });
    for path in ["/page.html.gz", "/gzip", "/br"] {
        let url = format!("{base}{path}");
        let args = [
            "-u",
            &url,
            "--fetch-delay",
            "0",
            "--max-filesize",
            "3000000",
        ];
        // Generous: a hang (inflating 200 MB and cleaning it) is the bug.
        let out = ppl_filter_within(&args, b"", Duration::from_secs(120));
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!(
                "{url}: the page is larger than 3000000 bytes; text up to the cut was kept"
            )),
            "{path}: {err}"
        );
        assert!(err.lines().all(|l| l.starts_with("ppl-filter: ")), "{err}");
    }
}

#[test]
fn a_body_cut_short_is_cleaned_as_far_as_it_came_and_said_to_be_cut() {
    let base = server(|path| {
        let page = STORY.as_bytes();
        match path {
            "/short" => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n",
                    page.len() * 2
                );
                [head.as_bytes(), page].concat()
            }
            "/chunked" => {
                let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
                let chunk = format!("{:x}\r\n", page.len() + 100);
                [head.as_bytes(), chunk.as_bytes(), page].concat()
            }
            "/whole" => ok("", page),
            _ => NOT_FOUND.to_vec(),
        }
    });
    let short = format!("{base}/short");
    let chunked = format!("{base}/chunked");
    let whole = format!("{base}/whole");
    let args = [
        "-u",
        &short,
        "-u",
        &chunked,
        "-u",
        &whole,
        "--fetch-delay",
        "0",
    ];
    let out = ppl_filter(&args, b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(
        text.matches("The storm reached the coast").count(),
        3,
        "{text}"
    );
    let err = stderr(&out);
    let announced = STORY.len() * 2;
    assert!(
        err.contains(&format!(
            "{short}: the connection closed after {} of the {announced} bytes its Content-Length \
             announced; text up to the cut was kept",
            STORY.len()
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{chunked}: its chunked body ends inside a chunk (100 of its {} bytes missing); \
             text up to the cut was kept",
            STORY.len() + 100
        )),
        "{err}"
    );
    assert!(!err.contains(&whole), "{err}");
}

#[test]
fn a_robots_txt_of_ten_thousand_wildcard_rules_is_read_right() {
    let mut robots = String::from("User-agent: *\n");
    for i in 0..10_000 {
        robots.push_str(&format!("Disallow: /*{i}*a*b*c*d*e*f*g$\n"));
    }
    robots.push_str("Disallow: /private/\n");
    let base = server(move |path| match path {
        "/robots.txt" => ok("", robots.as_bytes()),
        "/story.html" | "/private/page.html" | "/x7xaxbxcxdxexfxg" => ok("", STORY.as_bytes()),
        _ => NOT_FOUND.to_vec(),
    });
    let story = format!("{base}/story.html");
    let private = format!("{base}/private/page.html");
    let wild = format!("{base}/x7xaxbxcxdxexfxg");
    let args = [
        "-u",
        &story,
        "-u",
        &private,
        "-u",
        &wild,
        "--fetch-delay",
        "0",
    ];
    let out = ppl_filter(&args, b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).matches("The storm reached the coast").count(),
        1
    );
    let err = stderr(&out);
    for disallowed in [&private, &wild] {
        assert!(
            err.contains(&format!(
                "{disallowed}: not fetched: the site's robots.txt disallows it"
            )),
            "{err}"
        );
    }
    assert!(!err.contains(&story), "{err}");
}

#[test]
fn a_url_that_cannot_be_fetched_is_not_said_to_be_disallowed() {
    let base = server(|path| match path {
        "/robots.txt" | "/gone.html" => NOT_FOUND.to_vec(),
        _ => ok("", STORY.as_bytes()),
    });
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let unreachable = format!("http://{}/page.html", closed.local_addr().unwrap());
    drop(closed);
    let story = format!("{base}/story.html");
    let gone = format!("{base}/gone.html");
    let args = [
        "-u",
        &story,
        "-u",
        &gone,
        "-u",
        &unreachable,
        "--fetch-delay",
        "0",
    ];
    let out = ppl_filter(&args, b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains("disallow"), "{err}");
    assert!(
        err.contains(&format!(
            "{gone}: not fetched: the server answered HTTP 404"
        )),
        "{err}"
    );
    // A host that cannot be reached is said so: its robots.txt is not blamed, nor is a flag
    // that cannot help suggested.
    assert!(
        err.contains(&format!("{unreachable}: not fetched: cannot connect to")),
        "{err}"
    );
    assert!(
        !err.contains("robots") && !err.contains("--no-robots"),
        "{err}"
    );
    // Without robots.txt, the page's own failure is said alike.
    let args = ["-u", &unreachable, "--no-robots", "--fetch-delay", "0"];
    let err = stderr(&ppl_filter(&args, b""));
    assert!(
        err.contains(&format!("{unreachable}: not fetched: cannot connect to")),
        "{err}"
    );
}
