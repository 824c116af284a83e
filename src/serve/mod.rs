//! `ppl-filter serve`: the web demo, a small HTTP server over the library.
//!
//! `GET /` is one page ([`PAGE`]) where a visitor pastes HTML or text, or gives a URL, and
//! sees what is kept and what is dropped. `POST /clean` cleans one page exactly as
//! `ppl-filter` cleans a file holding it ([`pages::clean_page`]), `POST /perplexity` scores
//! sentences; both speak JSON ([`api`]). URLs are fetched by [`fetch`], which refuses local and
//! private addresses. [`Server::bind`] listens, [`Server::run`] answers on
//! [`ServeSettings::threads`] threads until Ctrl-C or SIGTERM, then lets the requests under way
//! finish.
//!
//! Keep it on this machine (the default address): tiny_http 0.12 drains a body left unread
//! into a buffer as large as the rest that its Content-Length announces, so a request that
//! announces more bytes than the machine can allocate aborts the process.

pub mod api;
pub mod fetch;

use std::io::Read;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tiny_http::{Header, Method, Request, Response};

use crate::lm::model::LanguageModel;
use crate::pipeline::pages::{self, Named, Page};
use crate::pipeline::InputFormat;
use api::{ApiError, CleanRequest, CleanResponse, PerplexityRequest, Source};
use fetch::{FetchError, FetchLimits};

/// The demo's one page: HTML with its CSS and JavaScript inline, nothing loaded from elsewhere.
pub const PAGE: &str = include_str!("page.html");

/// Where the server listens and what it accepts.
#[derive(Clone, Debug)]
pub struct ServeSettings {
    /// The address and port to listen on (port 0: any free port).
    pub bind: SocketAddr,
    /// Threads answering requests, each one request at a time.
    pub threads: usize,
    /// A larger request body is refused (413).
    pub max_body_bytes: u64,
    /// What fetching a URL may take.
    pub fetch: FetchLimits,
}

impl Default for ServeSettings {
    /// 127.0.0.1:8080, one thread per core, 8 MiB bodies and pages, 10 s per fetch.
    fn default() -> ServeSettings {
        ServeSettings {
            bind: SocketAddr::from(([127, 0, 0, 1], 8080)),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_body_bytes: 8 << 20,
            fetch: FetchLimits {
                max_bytes: 8 << 20,
                timeout: Duration::from_secs(10),
            },
        }
    }
}

/// Why the server cannot run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address cannot be listened on (in use, not local, not permitted).
    #[error("cannot listen on {addr}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The Ctrl-C and SIGTERM handler cannot be installed.
    #[error("cannot handle Ctrl-C")]
    Signal(#[from] ctrlc::Error),
    /// A thread cannot be started.
    #[error("cannot start a thread")]
    Thread(#[from] std::io::Error),
}

/// A server listening, not yet answering.
pub struct Server {
    http: Arc<tiny_http::Server>,
    settings: ServeSettings,
    addr: SocketAddr,
}

impl Server {
    /// Listens on `settings.bind`.
    pub fn bind(settings: &ServeSettings) -> Result<Server, ServeError> {
        let http = tiny_http::Server::http(settings.bind).map_err(|source| ServeError::Bind {
            addr: settings.bind,
            source,
        })?;
        // A server made by `http` listens on TCP, so it has an IP address.
        let addr = http.server_addr().to_ip().unwrap_or(settings.bind);
        Ok(Server {
            http: Arc::new(http),
            settings: settings.clone(),
            addr,
        })
    }

    /// The address listened on (with the port chosen when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Answers requests with `model` on the settings' threads until Ctrl-C or SIGTERM; the
    /// requests under way are answered before it returns. Installs the process's Ctrl-C
    /// handler, so it can run once per process.
    pub fn run(self, model: &'static LanguageModel) -> Result<(), ServeError> {
        let threads = self.settings.threads.max(1);
        let stopping = Arc::new(AtomicBool::new(false));
        {
            let (http, stopping) = (Arc::clone(&self.http), Arc::clone(&stopping));
            ctrlc::set_handler(move || {
                stopping.store(true, Ordering::SeqCst);
                // Each unblock wakes one thread waiting for a request.
                for _ in 0..threads {
                    http.unblock();
                }
            })?;
        }
        let settings = &self.settings;
        let http = &*self.http;
        let stopping = &*stopping;
        std::thread::scope(|scope| {
            let mut handlers = Vec::with_capacity(threads);
            for _ in 0..threads {
                let handler = std::thread::Builder::new()
                    .name("ppl-serve".into())
                    .spawn_scoped(scope, move || {
                        answer_until_stopped(http, settings, model, stopping)
                    })?;
                handlers.push(handler);
            }
            for handler in handlers {
                handler
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            }
            Ok(())
        })
    }
}

/// One handler thread: takes requests and answers them until the server is stopped.
fn answer_until_stopped(
    http: &tiny_http::Server,
    settings: &ServeSettings,
    model: &LanguageModel,
    stopping: &AtomicBool,
) {
    loop {
        match http.recv() {
            Ok(request) => answer(request, settings, model),
            Err(_) if stopping.load(Ordering::SeqCst) => return,
            // A connection that failed before its request was read.
            Err(_) => continue,
        }
    }
}

/// What a request is answered with.
enum Answer {
    /// The demo page.
    Page,
    /// A JSON answer (200).
    Json(String),
    /// An error, as `{"error": …}` with its status.
    Error(ApiError),
}

impl From<Result<String, ApiError>> for Answer {
    fn from(result: Result<String, ApiError>) -> Answer {
        result.map_or_else(Answer::Error, Answer::Json)
    }
}

/// Answers one request (a closed connection is not an error worth reporting). A panic while
/// answering, a bug, is answered with a 500 and the server goes on.
fn answer(mut request: Request, settings: &ServeSettings, model: &LanguageModel) {
    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        route(&mut request, settings, model)
    }))
    .unwrap_or_else(|_| {
        Answer::Error(ApiError::new(
            500,
            "internal error while answering (see the server's log)",
        ))
    });
    let response = match answer {
        Answer::Page => page_response(),
        Answer::Json(json) => json_response(200, json),
        Answer::Error(error) => json_response(error.status, error.body()),
    };
    let _ = request.respond(response);
}

/// Reads the request and computes its answer.
fn route(request: &mut Request, settings: &ServeSettings, model: &LanguageModel) -> Answer {
    let path = request
        .url()
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .to_string();
    let method = request.method().clone();
    match (&method, path.as_str()) {
        (Method::Get | Method::Head, "/") => Answer::Page,
        (Method::Post, "/clean") => read_body(request, settings.max_body_bytes)
            .and_then(|body| clean(&body, settings, model))
            .into(),
        (Method::Post, "/perplexity") => read_body(request, settings.max_body_bytes)
            .and_then(|body| perplexity(&body, model))
            .into(),
        (_, "/" | "/clean" | "/perplexity") => Answer::Error(ApiError::new(
            405,
            format!("{method} is not allowed on {path}"),
        )),
        _ => Answer::Error(ApiError::new(404, format!("no such page: {path}"))),
    }
}

/// The request's body, refused (413) beyond `max` bytes: at once from its Content-Length,
/// or once `max` bytes have been read from a chunked body.
fn read_body(request: &mut Request, max: u64) -> Result<Vec<u8>, ApiError> {
    let too_large = || {
        ApiError::new(
            413,
            format!("the request body is larger than {max} bytes (--max-body-bytes)"),
        )
    };
    if request.body_length().is_some_and(|n| n as u64 > max) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    request
        .as_reader()
        .take(max.saturating_add(1))
        .read_to_end(&mut body)
        .map_err(|e| ApiError::bad_request(format!("cannot read the request body: {e}")))?;
    if body.len() as u64 > max {
        return Err(too_large());
    }
    Ok(body)
}

/// `POST /clean`: the page cleaned as the request's options say.
fn clean(body: &[u8], settings: &ServeSettings, model: &LanguageModel) -> Result<String, ApiError> {
    let request: CleanRequest = api::parse(body)?;
    let named = Named {
        method: request.method.as_deref().unwrap_or("combined"),
        threshold: request.threshold,
        format: request.format.as_deref().unwrap_or("text"),
        favor: request.favor.as_deref().unwrap_or("balanced"),
        comments: request.comments,
        classifier: None,
    };
    let mut options = named
        .options()
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    // Pasted HTML or text came as a JSON string: it is UTF-8, whatever its `<meta charset>`
    // says; a fetched page's encoding is found as a file's is.
    let utf8 = Some(encoding_rs::UTF_8);
    let page = match request.source()? {
        Source::Html(html) => page(html.as_bytes().to_vec(), None, utf8),
        Source::Text(text) => {
            options.options.input_format = InputFormat::Text;
            page(text.as_bytes().to_vec(), None, utf8)
        }
        Source::Url(url) => {
            let fetched = fetch::fetch(url, settings.fetch).map_err(fetch_error)?;
            page(fetched.bytes, Some(fetched.url), None)
        }
    };
    let cleaned = pages::clean_page(&page, model, &options)
        .map_err(|e| ApiError::new(500, crate::cli::one_line(&e)))?;
    let blocks = request.blocks.then(|| {
        let (blocks, _) = pages::decided_blocks(&page, model, &options.options);
        blocks.iter().map(api::BlockView::from).collect()
    });
    let response = CleanResponse {
        text: String::from_utf8_lossy(&cleaned.output).into_owned(),
        problems: cleaned.problems.iter().map(|p| p.message()).collect(),
        blocks,
    };
    Ok(to_json(&response))
}

/// A page held in memory, named as the Python package names its pages.
fn page(
    bytes: Vec<u8>,
    url: Option<String>,
    encoding: Option<&'static encoding_rs::Encoding>,
) -> Page {
    Page {
        name: "<page>".to_string(),
        bytes: bytes.into(),
        url,
        encoding,
    }
}

/// A refused URL is the visitor's error (400); a site that fails is a bad gateway (502).
fn fetch_error(error: FetchError) -> ApiError {
    let status = if error.is_refusal() { 400 } else { 502 };
    ApiError::new(status, error.to_string())
}

/// `POST /perplexity`: each sentence's perplexity.
fn perplexity(body: &[u8], model: &LanguageModel) -> Result<String, ApiError> {
    let request: PerplexityRequest = api::parse(body)?;
    let answer = request.answer(|sentence| model.perplexity(sentence))?;
    Ok(to_json(&answer))
}

/// A value as JSON (the answers hold only strings, numbers and booleans, which always
/// serialize).
fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| ApiError::new(500, e.to_string()).body())
}

fn page_response() -> Response<std::io::Cursor<Vec<u8>>> {
    // The page loads nothing from elsewhere and talks only to this server.
    let policy = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'";
    Response::from_string(PAGE)
        .with_header(header("Content-Type", "text/html; charset=utf-8"))
        .with_header(header("Content-Security-Policy", policy))
}

fn json_response(status: u16, body: String) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_string(body)
        .with_status_code(status)
        .with_header(header("Content-Type", "application/json"))
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid header")
}
