//! `ppl-filter serve`: the binary is started on a free port and spoken to over HTTP; its
//! answers are compared with what the command line writes for the same page and flags.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::{self, fixture, ppl_filter, stdout};
use ppl_filter::pipeline::{FAVORS, FORMATS, KINDS, METHODS};
use ppl_filter::serve::MARKUP_AS_TEXT;
use serde_json::{json, Value};

/// A server started for one test, killed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start() -> Server {
        Server::start_with(&[])
    }

    /// A server started with these flags besides the address and `--threads 2`.
    fn start_with(flags: &[&str]) -> Server {
        let args = [&["--bind", "127.0.0.1:0", "--threads", "2"][..], flags].concat();
        let (child, line) = serve_saying(&args);
        let port = line
            .trim_end()
            .strip_prefix("ppl-filter: serving on http://127.0.0.1:")
            .and_then(|rest| rest.strip_suffix('/'))
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Server { child, port }
    }

    /// Sends one request and returns the status and the body of the answer.
    fn send(&self, method: &str, path: &str, body: &[u8]) -> (u16, String) {
        let mut stream = self.connect();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        read_answer(&mut stream)
    }

    /// POSTs `body` as JSON and parses the JSON answer.
    fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let (status, text) = self.send("POST", path, body.to_string().as_bytes());
        let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        (status, json)
    }

    /// The server's resident memory, from `/proc/PID/status` (Linux).
    #[cfg(target_os = "linux")]
    fn resident_bytes(&self) -> u64 {
        self.memory("VmRSS:")
    }

    /// The server's peak resident memory so far.
    #[cfg(target_os = "linux")]
    fn peak_resident_bytes(&self) -> u64 {
        self.memory("VmHWM:")
    }

    /// A line of `/proc/PID/status` in bytes.
    #[cfg(target_os = "linux")]
    fn memory(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix(field))
            .and_then(|rest| rest.trim().strip_suffix("kB"))
            .and_then(|kib| kib.trim().parse().ok())
            .unwrap_or_else(|| panic!("no VmRSS in {status}"));
        kib * 1024
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        // A guard against a hang, not a measure of speed.
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        stream
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads an answer's head and then as many bytes as its Content-Length says (the server may
/// keep the connection open, so reading to the end could wait).
fn read_answer(stream: &mut TcpStream) -> (u16, String) {
    try_read_answer(stream).unwrap_or_else(|e| panic!("{e}"))
}

/// As [`read_answer`], or why there is none (the connection was closed, the answer is bad).
fn try_read_answer(stream: &mut TcpStream) -> Result<(u16, String), String> {
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader
        .read_line(&mut status_line)
        .map_err(|e| e.to_string())?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        if line.trim_end().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().map_err(|_| format!("bad {line:?}"))?;
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).map_err(|e| e.to_string())?;
    String::from_utf8(body)
        .map(|body| (status, body))
        .map_err(|e| e.to_string())
}

fn news() -> String {
    std::fs::read_to_string(fixture("pages/news.html")).unwrap()
}

/// What `ppl-filter ARGS fixtures/pages/news.html` writes.
fn cli_output(args: &[&str]) -> String {
    let path = fixture("pages/news.html");
    let args = [args, &[path.to_str().unwrap()]].concat();
    let output = ppl_filter(&args, b"");
    assert!(output.status.success());
    stdout(&output)
}

#[test]
fn a_page_is_cleaned_as_the_command_line_cleans_it() {
    let server = Server::start();
    for (options, flags) in [
        (json!({}), &[][..]),
        (json!({"format": "mark"}), &["--mark"][..]),
        (
            json!({"method": "perplexity"}),
            &["--method", "perplexity"][..],
        ),
        (
            json!({"method": "perplexity", "format": "scores", "threshold": 500.0}),
            &["--method", "perplexity", "--scores", "-t", "500"][..],
        ),
        (
            json!({"favor": "recall", "format": "markdown"}),
            &["--favor-recall", "--format", "markdown"][..],
        ),
        (
            json!({"kind": "listing", "format": "mark"}),
            &["--kind", "listing", "--mark"][..],
        ),
        (
            json!({"method": "perplexity", "max_link_density": 0.2}),
            &["--method", "perplexity", "--max-link-density", "0.2"][..],
        ),
        (
            json!({"target_language": "en", "format": "markdown"}),
            &["--target-language", "en", "--format", "markdown"][..],
        ),
    ] {
        let mut request = options.clone();
        request["html"] = json!(news());
        let (status, answer) = server.post("/clean", &request);
        assert_eq!(status, 200, "{options}: {answer}");
        let expected = cli_output(flags);
        assert!(!expected.is_empty());
        assert_eq!(answer["text"], expected, "{options}");
        assert_eq!(answer["problems"], json!([]));
        assert!(answer.get("blocks").is_none());
    }
    // A page in another language than the one asked for comes back empty, as the command
    // leaves it out.
    let german = json!({"html": news(), "target_language": "German"});
    let (status, answer) = server.post("/clean", &german);
    assert_eq!((status, &answer["text"]), (200, &json!("")), "{answer}");
    assert_eq!(cli_output(&["--target-language", "German"]), "");
}

#[test]
fn plain_text_is_cleaned_as_input_text() {
    let server = Server::start();
    let text = "Home | News | Sport\n\nThe town council voted on Tuesday to approve a plan that \
                will restore the banks of the river.\n\nCopyright 2024. All rights reserved.\n";
    let (status, answer) = server.post("/clean", &json!({"text": text, "format": "mark"}));
    assert_eq!(status, 200, "{answer}");
    let output = ppl_filter(&["--input", "text", "--mark"], text.as_bytes());
    assert_eq!(answer["text"], stdout(&output));
    assert!(answer["text"].as_str().unwrap().contains("town council"));
    assert_eq!(answer["problems"], json!([]));
}

#[test]
fn markup_sent_as_text_is_cleaned_as_text_and_the_answer_says_so() {
    let server = Server::start();
    let (status, answer) = server.post("/clean", &json!({"text": news()}));
    assert_eq!(status, 200, "{answer}");
    assert!(answer["text"].as_str().unwrap().contains("</"), "{answer}");
    assert_eq!(answer["problems"][0], MARKUP_AS_TEXT);
    // As HTML, the same page carries no such note.
    let (_, answer) = server.post("/clean", &json!({"html": news()}));
    assert!(
        !answer["problems"].to_string().contains("markup"),
        "{answer}"
    );
}

#[test]
fn blocks_carry_every_sentence_with_its_score_and_decision() {
    let server = Server::start();
    let (status, answer) = server.post("/clean", &json!({"html": news(), "blocks": true}));
    assert_eq!(status, 200);
    let blocks = answer["blocks"].as_array().unwrap();
    let sentences: Vec<&Value> = blocks
        .iter()
        .flat_map(|b| b["sentences"].as_array().unwrap())
        .collect();
    let kept: Vec<&str> = sentences
        .iter()
        .filter(|s| s["kept"] == json!(true))
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    assert!(!kept.is_empty() && kept.len() < sentences.len());
    assert!(sentences
        .iter()
        .all(|s| s["perplexity"].as_f64().unwrap() > 1.0));
    let text = answer["text"].as_str().unwrap();
    assert!(kept.iter().all(|s| text.contains(s)));
    assert_eq!(blocks[0]["kind"], "list_item");
    assert_eq!(blocks[0]["kept"], json!(false));
}

#[test]
fn perplexity_matches_the_perplexity_subcommand() {
    let server = Server::start();
    let sentences = ["The cat sat on the mat.", "Click here to subscribe now"];
    let output = ppl_filter(&[&["perplexity"][..], &sentences[..]].concat(), b"");
    let expected: Vec<String> = stdout(&output)
        .lines()
        .map(|line| line.split('\t').next().unwrap().to_string())
        .collect();
    let (status, answer) = server.post("/perplexity", &json!({"sentences": sentences}));
    assert_eq!(status, 200);
    let got: Vec<String> = answer["perplexities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{:.1}", p.as_f64().unwrap()))
        .collect();
    assert_eq!(got, expected);
    let (status, answer) = server.post("/perplexity", &json!({"sentence": sentences[0]}));
    assert_eq!(status, 200);
    assert_eq!(
        format!("{:.1}", answer["perplexity"].as_f64().unwrap()),
        expected[0]
    );
}

#[test]
fn bad_requests_are_refused_with_one_line() {
    let server = Server::start();
    let error = |status: u16, body: &[u8], path: &str| {
        let (got, text) = server.send("POST", path, body);
        let answer: Value = serde_json::from_str(&text).unwrap();
        let message = answer["error"].as_str().unwrap().to_string();
        assert_eq!(got, status, "{message}");
        assert!(!message.contains('\n'));
        message
    };
    assert!(error(400, b"{\"html\": ", "/clean").starts_with("bad JSON"));
    assert!(error(400, b"[1, 2]", "/clean").starts_with("bad JSON"));
    let both = json!({"html": "<p>x</p>", "url": "http://example.com/"}).to_string();
    assert_eq!(
        error(400, both.as_bytes(), "/clean"),
        "give exactly one of \"html\", \"text\" and \"url\""
    );
    let unknown = json!({"html": "x", "colour": "red"}).to_string();
    assert!(error(400, unknown.as_bytes(), "/clean").contains("unknown option 'colour'"));
    let method = json!({"html": "x", "method": "best"}).to_string();
    assert!(error(400, method.as_bytes(), "/clean").starts_with("unknown method 'best'"));
    let ignored = json!({"html": "x", "method": "perplexity", "comments": true}).to_string();
    assert_eq!(
        error(400, ignored.as_bytes(), "/clean"),
        "comments applies only to the combined method"
    );
    let file = json!({"url": "file:///etc/passwd"}).to_string();
    assert_eq!(
        error(400, file.as_bytes(), "/clean"),
        "only http and https URLs are fetched"
    );
    // Local addresses are refused, and so are URLs that do not parse.
    for (url, says) in [
        ("http://127.0.0.1:1/", "non-public address"),
        ("http://localhost:1/", "non-public address"),
        ("http://[::1]/", "non-public address"),
        ("http://example.com:65536/", "not a URL"),
        ("http://exa mple.com/", "not a URL"),
        ("http:///", "not a URL"),
    ] {
        let body = json!({ "url": url }).to_string();
        let message = error(400, body.as_bytes(), "/clean");
        assert!(message.contains(says), "{url}: {message}");
    }
    let both = json!({"sentence": "a", "sentences": ["b"]}).to_string();
    assert!(error(400, both.as_bytes(), "/perplexity").starts_with("give exactly one"));
    assert_eq!(error(404, b"{}", "/nowhere"), "no such page: /nowhere");
    let (status, text) = server.send("GET", "/clean", b"");
    assert_eq!(status, 405, "{text}");
}

#[test]
fn a_huge_body_is_refused_from_its_length_before_it_is_read() {
    let server = Server::start();
    let mut stream = server.connect();
    let head = "POST /clean HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                Content-Length: 100000000\r\n\r\n";
    stream.write_all(head.as_bytes()).unwrap();
    // A little of the body; the answer comes without the rest.
    stream.write_all(&[b' '; 4096]).unwrap();
    let (status, text) = read_answer(&mut stream);
    assert_eq!(status, 413);
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        answer["error"],
        "the request body is larger than 8388608 bytes (--max-body-bytes)"
    );
    drop(stream);
    // The server still answers.
    let (status, _) = server.post("/perplexity", &json!({"sentence": "Still here."}));
    assert_eq!(status, 200);
}

#[test]
fn an_enormous_announced_body_is_neither_read_nor_allocated() {
    let server = Server::start();
    #[cfg(target_os = "linux")]
    let before = server.resident_bytes();
    let announce = |method: &str, path: &str| {
        let mut stream = server.connect();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Content-Length: 1000000000000000\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(&[b' '; 4096]).unwrap();
        let answer = read_answer(&mut stream);
        // The rest of the body is not waited for: the connection is closed.
        let mut rest = Vec::new();
        stream.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty());
        answer
    };
    let (status, text) = announce("POST", "/clean");
    assert_eq!(status, 413);
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        answer["error"],
        "the request body is larger than 8388608 bytes (--max-body-bytes)"
    );
    // The page does not read the body at all.
    let (status, page) = announce("GET", "/");
    assert_eq!(status, 200);
    assert!(page.starts_with("<!DOCTYPE html>"));
    // The server still answers, and correctly.
    let (status, answer) = server.post("/clean", &json!({"html": news()}));
    assert_eq!(status, 200);
    assert_eq!(answer["text"], cli_output(&[]));
    #[cfg(target_os = "linux")]
    {
        let grown = server.resident_bytes().saturating_sub(before);
        assert!(grown < 200 << 20, "the server grew by {grown} bytes");
    }
}

#[test]
fn a_chunked_body_is_bounded_while_it_is_read() {
    let server = Server::start();
    let mut stream = server.connect();
    let head = "POST /clean HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\
                Connection: close\r\n\r\n";
    stream.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b' '; 1 << 20];
    // 9 MiB, over the 8 MiB limit; the server may answer before taking it all.
    for _ in 0..9 {
        let sent = stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .and_then(|()| stream.write_all(&chunk))
            .and_then(|()| stream.write_all(b"\r\n"));
        if sent.is_err() {
            break;
        }
    }
    let (status, text) = read_answer(&mut stream);
    assert_eq!(status, 413, "{text}");
}

#[test]
fn the_page_is_served() {
    let server = Server::start();
    let (status, page) = server.send("GET", "/", b"");
    assert_eq!(status, 200);
    assert!(page.starts_with("<!DOCTYPE html>"));
    for needed in ["<textarea", "id=\"url\"", "/clean", "textContent"] {
        assert!(page.contains(needed), "{needed}");
    }
    // Every option the API takes by name can be chosen: the page builds its choices from the
    // library's lists, which the server writes into it.
    let names = page
        .split("<script type=\"application/json\" id=\"names\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .expect("the names script");
    let names: Value = serde_json::from_str(names).unwrap();
    for (key, list) in [
        ("methods", &METHODS[..]),
        ("kinds", &KINDS),
        ("favors", &FAVORS),
        ("formats", &FORMATS),
    ] {
        assert_eq!(names[key], json!(list), "{key}");
    }
    for id in [
        "id=\"method\"",
        "id=\"kind\"",
        "id=\"favor\"",
        "id=\"comments\"",
        "id=\"format\"",
    ] {
        assert!(page.contains(id), "{id}");
    }
    assert!(!page.contains("innerHTML"));
}

#[test]
fn concurrent_requests_are_all_answered() {
    let server = Server::start();
    let expected = cli_output(&[]);
    let request = json!({"html": news()});
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..5 {
                    let (status, answer) = server.post("/clean", &request);
                    assert_eq!(status, 200);
                    assert_eq!(answer["text"], expected);
                }
            });
        }
    });
}

#[test]
fn an_address_in_use_is_an_error() {
    let server = Server::start();
    let bind = format!("127.0.0.1:{}", server.port);
    let output = ppl_filter(&["serve", "--bind", &bind], b"");
    assert_eq!(output.status.code(), Some(2));
    let message = common::stderr(&output);
    assert!(
        message.starts_with(&format!("ppl-filter: cannot listen on {bind}: ")),
        "{message}"
    );
    assert_eq!(message.lines().count(), 1);
}

#[test]
fn sigint_and_sigterm_stop_the_server_cleanly() {
    for signal in ["-INT", "-TERM"] {
        let mut server = Server::start();
        let (status, _) = server.post("/perplexity", &json!({"sentence": "Hello there."}));
        assert_eq!(status, 200);
        // A client that never finishes its request does not hold the shutdown off.
        let mut stalled = server.connect();
        stalled
            .write_all(b"POST /clean HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{")
            .unwrap();
        let killed = Command::new("kill")
            .args([signal, &server.child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let started = Instant::now();
        let exit = loop {
            if let Some(exit) = server.child.try_wait().unwrap() {
                break exit;
            }
            // A guard against a hang, not a measure of speed.
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "still running after kill {signal}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(exit.code(), Some(0), "kill {signal}");
    }
}

/// `n` one-word paragraphs.
fn paragraphs(n: usize) -> String {
    "<p>a</p>".repeat(n)
}

#[test]
fn the_blocks_listed_are_bounded_and_a_cut_list_says_so() {
    let server = Server::start_with(&["--max-blocks", "50"]);
    let (status, answer) = server.post("/clean", &json!({"html": paragraphs(49), "blocks": true}));
    assert_eq!(status, 200);
    assert_eq!(answer["blocks"].as_array().unwrap().len(), 49);
    assert_eq!(answer["blocks_truncated"], json!(false));
    let (status, answer) = server.post("/clean", &json!({"html": paragraphs(51), "blocks": true}));
    assert_eq!(status, 200);
    assert_eq!(answer["blocks"].as_array().unwrap().len(), 50);
    assert_eq!(answer["blocks_truncated"], json!(true));
    // The text is the whole page's all the same.
    let output = ppl_filter(&[], paragraphs(51).as_bytes());
    assert_eq!(answer["text"], stdout(&output));
    // Without blocks asked for, nothing is said of them.
    let (_, answer) = server.post("/clean", &json!({"html": paragraphs(51)}));
    assert!(answer.get("blocks_truncated").is_none());
}

#[test]
fn answers_are_bounded_in_bytes() {
    let server = Server::start_with(&["--max-answer-bytes", "4000"]);
    // The blocks are cut to fit.
    let (status, text) = server.send(
        "POST",
        "/clean",
        json!({"html": paragraphs(500), "blocks": true})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(status, 200);
    assert!(text.len() <= 4000, "{} bytes", text.len());
    let answer: Value = serde_json::from_str(&text).unwrap();
    let listed = answer["blocks"].as_array().unwrap().len();
    assert!(listed > 0 && listed < 500, "{listed}");
    assert_eq!(answer["blocks_truncated"], json!(true));
    // A text that does not fit is refused with one line.
    let (status, answer) = server.post("/clean", &json!({"html": paragraphs(3000)}));
    assert_eq!(status, 413);
    assert_eq!(
        answer["error"],
        "the answer would be larger than 4000 bytes (--max-answer-bytes): not sent"
    );
    let sentences = vec!["word"; 1000];
    let (status, _) = server.post("/perplexity", &json!({ "sentences": sentences }));
    assert_eq!(status, 413);
}

#[test]
fn blocks_of_a_huge_page_take_little_memory() {
    let server = Server::start();
    // The page and its answer without blocks, to take their memory out of the measure.
    let html = paragraphs(256 << 10);
    let (status, _) = server.post("/clean", &json!({ "html": html }));
    assert_eq!(status, 200);
    #[cfg(target_os = "linux")]
    let before = server.peak_resident_bytes();
    let (status, text) = server.send(
        "POST",
        "/clean",
        json!({"html": html, "blocks": true}).to_string().as_bytes(),
    );
    assert_eq!(status, 200);
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["blocks"].as_array().unwrap().len(), 5000);
    assert_eq!(answer["blocks_truncated"], json!(true));
    // 2 MiB of page: every block held and answered came to about 200 MB.
    #[cfg(target_os = "linux")]
    {
        let grown = server.peak_resident_bytes().saturating_sub(before);
        assert!(grown < 64 << 20, "the peak grew by {grown} bytes");
    }
}

#[test]
fn requests_past_max_pending_are_answered_503_at_once() {
    let server = Server::start_with(&["--max-pending", "1"]);
    // A request whose body never ends is not taken in: it holds no place.
    let mut stalled = server.connect();
    stalled
        .write_all(b"POST /clean HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{")
        .unwrap();
    let (status, _) = server.send("POST", "/perplexity", b"{\"sentence\": \"Hi.\"}");
    assert_eq!(status, 200);
    // A page that takes a while to clean holds the one place while it is cleaned.
    // 7 MB, under --max-body-bytes.
    let busy = json!({ "html": paragraphs(900_000) }).to_string();
    let (status, text) = std::thread::scope(|scope| {
        // The page is taken in only once its body has come: a probe may hold the one place
        // just then, and the page is refused as any request would be; it is sent again, as
        // `Retry-After` asks.
        let cleaning = scope.spawn(|| {
            (0..100)
                .map(|_| server.send("POST", "/clean", busy.as_bytes()))
                .find(|(status, _)| *status != 503)
                .expect("the page is taken in at last")
        });
        let mut tries = 0..10_000;
        let refused = loop {
            let (status, text) = server.send("POST", "/perplexity", b"{\"sentence\": \"Hi.\"}");
            if status == 503 || cleaning.is_finished() {
                break (status, text);
            }
            assert_eq!(status, 200, "{text}");
            assert!(tries.next().is_some(), "the page is never taken in");
        };
        assert_eq!(cleaning.join().unwrap().0, 200);
        refused
    });
    assert_eq!(
        status, 503,
        "the page was cleaned before a request was refused: {text}"
    );
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        answer["error"],
        "the server is busy (1 requests under way, --max-pending): try again"
    );
    // The place is given back once the page is answered.
    let (status, _) = server.send("POST", "/perplexity", b"{\"sentence\": \"Hi.\"}");
    assert_eq!(status, 200);
    // The page itself is never refused.
    assert_eq!(server.send("GET", "/", b"").0, 200);
    drop(stalled);
}

/// Connections that send the head of `POST /clean` and then its body one byte a second, as long
/// as they are held; closed when dropped.
struct Tricklers {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Tricklers {
    /// `n` connections to `server`, all from 127.0.0.1.
    fn open(server: &Server, n: usize) -> Tricklers {
        let head = b"POST /clean HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                     Content-Length: 100000\r\n\r\n{";
        let mut streams: Vec<TcpStream> = (0..n)
            .map(|_| {
                let mut stream = server.connect();
                stream.write_all(head).unwrap();
                stream
            })
            .collect();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        // Bounded: a minute at most, whatever happens to the test.
        let thread = std::thread::spawn(move || {
            for _ in 0..60 {
                for _ in 0..10 {
                    if stopped.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                for stream in &mut streams {
                    // A connection the server closed is no matter here.
                    let _ = stream.write_all(b" ");
                }
            }
        });
        Tricklers {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Tricklers {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// POSTs a short page to `/clean` and checks it is answered correctly, and promptly.
fn cleaned_promptly(server: &Server) {
    let html = "<p>The town council voted on Tuesday to approve a plan that will restore the \
                banks of the river.</p>";
    let started = Instant::now();
    let (status, answer) = server.post("/clean", &json!({ "html": html }));
    // A guard against being held up behind slow clients, not a measure of speed.
    let took = started.elapsed();
    assert_eq!(status, 200, "{answer}");
    assert!(took < Duration::from_secs(5), "answered after {took:?}");
    let output = ppl_filter(&[], html.as_bytes());
    assert_eq!(answer["text"], stdout(&output));
}

#[test]
fn clients_trickling_their_bodies_lock_no_one_out() {
    // --threads 2: 8 requests taken in at most.
    let server = Server::start();
    let eight = Tricklers::open(&server, 8);
    std::thread::sleep(Duration::from_millis(1500));
    cleaned_promptly(&server);
    // As many again: twice --max-pending.
    let sixteen = Tricklers::open(&server, 8);
    std::thread::sleep(Duration::from_millis(1500));
    cleaned_promptly(&server);
    let (status, _) = server.post("/perplexity", &json!({"sentence": "Still here."}));
    assert_eq!(status, 200);
    drop((eight, sixteen));
}

#[test]
fn a_body_that_does_not_come_in_time_is_answered_408() {
    let server = Server::start_with(&["--body-timeout", "1"]);
    let mut stream = server.connect();
    stream
        .write_all(b"POST /clean HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n{")
        .unwrap();
    let started = Instant::now();
    // The body trickles in, a byte every 200 ms: coming, but not in time.
    let mut writer = stream.try_clone().unwrap();
    let trickling = std::thread::spawn(move || {
        for _ in 0..50 {
            std::thread::sleep(Duration::from_millis(200));
            if writer.write_all(b" ").is_err() {
                return;
            }
        }
    });
    let (status, text) = read_answer(&mut stream);
    let took = started.elapsed();
    assert_eq!(status, 408, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        answer["error"],
        "the request body did not come within 1 s (--body-timeout)"
    );
    assert!(
        took >= Duration::from_millis(900),
        "answered after {took:?}"
    );
    // The connection is closed: the rest of the body is not waited for.
    let mut rest = Vec::new();
    let closed = stream.read_to_end(&mut rest);
    assert!(closed.is_err() || rest.is_empty(), "{closed:?}");
    trickling.join().unwrap();
    // A body that comes in time is answered.
    let (status, _) = server.post("/perplexity", &json!({"sentence": "In time."}));
    assert_eq!(status, 200);
}

/// A connection to the server from `source`, an address of this machine (all of 127.0.0.0/8
/// is loopback on Linux).
fn connect_from(server: &Server, source: [u8; 4]) -> TcpStream {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    let stream = runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind((source, 0).into()).unwrap();
        socket
            .connect(([127, 0, 0, 1], server.port).into())
            .await
            .unwrap()
    });
    let stream = stream.into_std().unwrap();
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream
}

/// Whether the server answers `GET /` on `stream`, kept alive (false: it closed the
/// connection).
fn answers(stream: &mut TcpStream) -> bool {
    let sent = stream.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
    sent.is_ok() && matches!(try_read_answer(stream), Ok((200, _)))
}

#[test]
fn connections_past_the_bound_of_a_client_are_closed_and_others_served() {
    let server = Server::start_with(&["--max-connections-per-client", "3"]);
    let mut held: Vec<TcpStream> = (0..3).map(|_| server.connect()).collect();
    for stream in &mut held {
        assert!(answers(stream));
    }
    let mut fourth = server.connect();
    assert!(!answers(&mut fourth), "a fourth connection of 127.0.0.1");
    // Another client is served all the same.
    let mut other = connect_from(&server, [127, 0, 0, 2]);
    assert!(answers(&mut other), "127.0.0.2");
    // A connection closed gives its place back.
    drop(held.pop());
    let mut tries = 0..100;
    loop {
        if answers(&mut server.connect()) {
            break;
        }
        assert!(tries.next().is_some(), "the place is never given back");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_full_server_closes_the_connection_waiting_longest_and_never_one_at_work() {
    let server = Server::start_with(&["--max-connections", "2"]);
    let mut one = connect_from(&server, [127, 0, 0, 3]);
    let mut two = connect_from(&server, [127, 0, 0, 4]);
    assert!(answers(&mut one) && answers(&mut two));
    // Both wait for a next head: a new connection takes the place of the first.
    let mut three = connect_from(&server, [127, 0, 0, 5]);
    assert!(answers(&mut three));
    assert!(
        !answers(&mut one),
        "the connection waiting longest is closed"
    );
    assert!(answers(&mut two));
    // Both at work (their heads came, their bodies have not): a new connection is closed.
    for stream in [&mut two, &mut three] {
        let head = "POST /clean HTTP/1.1\r\nHost: localhost\r\nContent-Length: 20\r\n\r\n";
        stream.write_all(head.as_bytes()).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(!answers(&mut connect_from(&server, [127, 0, 0, 6])));
    // And the requests at work are answered when their bodies come.
    for stream in [&mut two, &mut three] {
        stream.write_all(br#"{"html": "<p>x</p>"}"#).unwrap();
        assert_eq!(try_read_answer(stream).unwrap().0, 200);
    }
}

#[test]
fn bodies_being_read_hold_at_most_their_memory_per_client() {
    let server = Server::start_with(&["--max-body-bytes", "1000", "--max-body-memory", "2000"]);
    // A client's share is at least one body: 1,000 bytes.
    let head = "POST /clean HTTP/1.1\r\nHost: localhost\r\nContent-Length: 700\r\n\r\n";
    let body = format!(r#"{{"html": "{}"}}"#, "x".repeat(700 - 12));
    let (first, rest) = body.split_at(600);
    let mut one = connect_from(&server, [127, 0, 0, 7]);
    one.write_all(format!("{head}{first}").as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // 600 bytes held: a second body of the same client past 400 is refused.
    let mut two = connect_from(&server, [127, 0, 0, 7]);
    two.write_all(format!("{head}{first}").as_bytes()).unwrap();
    let (status, text) = try_read_answer(&mut two).unwrap();
    assert_eq!(status, 503, "{text}");
    assert!(text.contains("--max-body-memory"), "{text}");
    // Another client's body is read, and so is the first one's end.
    let mut other = connect_from(&server, [127, 0, 0, 8]);
    other.write_all(format!("{head}{body}").as_bytes()).unwrap();
    assert_eq!(try_read_answer(&mut other).unwrap().0, 200);
    one.write_all(rest.as_bytes()).unwrap();
    assert_eq!(try_read_answer(&mut one).unwrap().0, 200);
}

/// How long the server takes to close `stream`, which sends nothing more (a guard of 30 s).
fn closed_after(stream: &mut TcpStream, since: Instant) -> Duration {
    let mut rest = Vec::new();
    // A reset is a close too.
    let _ = stream.read_to_end(&mut rest);
    since.elapsed()
}

#[test]
fn idle_connections_and_slow_heads_are_closed_after_the_idle_timeout() {
    let server = Server::start_with(&["--idle-timeout", "1"]);
    // Kept alive after an answer, then idle.
    let mut idle = server.connect();
    assert!(answers(&mut idle));
    let answered = Instant::now();
    let took = closed_after(&mut idle, answered);
    assert!(took >= Duration::from_millis(900), "closed after {took:?}");
    assert!(took < Duration::from_secs(10), "closed after {took:?}");
    // A head sent a byte every 200 ms never ends in time.
    let mut slow = server.connect();
    let mut writer = slow.try_clone().unwrap();
    let opened = Instant::now();
    let trickling = std::thread::spawn(move || {
        for &byte in b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaa" {
            if writer.write_all(&[byte]).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let took = closed_after(&mut slow, opened);
    assert!(took >= Duration::from_millis(900), "closed after {took:?}");
    assert!(took < Duration::from_secs(10), "closed after {took:?}");
    trickling.join().unwrap();
}

/// `ppl-filter serve` started with `args`, and the first line it writes on stderr (where it
/// listens).
fn serve_saying(args: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ppl-filter"))
        .arg("serve")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ppl-filter serve");
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (child, line)
}

#[test]
fn a_host_name_and_a_port_say_where_to_listen() {
    let (mut child, line) = serve_saying(&["--bind", "localhost", "--port", "0", "--threads", "1"]);
    let _ = child.kill();
    let _ = child.wait();
    let address = line
        .trim_end()
        .strip_prefix("ppl-filter: serving on http://")
        .and_then(|rest| rest.strip_suffix('/'))
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    let address: std::net::SocketAddr = address.parse().unwrap();
    assert!(
        address.ip().is_loopback() && address.port() != 0,
        "{address}"
    );
}
