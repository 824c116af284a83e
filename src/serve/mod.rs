//! `ppl-filter serve`: the web demo, a small HTTP server over the library.
//!
//! `GET /` is one page ([`PAGE`]) where a visitor pastes HTML or text, or gives a URL, and
//! sees what is kept and what is dropped. `POST /clean` cleans one page exactly as
//! `ppl-filter` cleans a file holding it ([`pages::clean_page`]), `POST /perplexity` scores
//! sentences; both speak JSON ([`api`]). URLs are fetched by [`fetch`], which refuses local and
//! private addresses. [`Server::bind`] listens, [`Server::run`] answers until Ctrl-C or
//! SIGTERM, then lets the requests under way finish.
//!
//! The HTTP side is [axum] on a [tokio] runtime: the connections are asynchronous, while the
//! work itself (cleaning a page, fetching a URL) is blocking and runs on tokio's blocking
//! threads, at most [`ServeSettings::threads`] requests at once. A request body is bounded by
//! [`ServeSettings::max_body_bytes`]: one announcing more is refused (413) before any of it is
//! read, and a body left unread is never drained into memory (the connection is closed).
//! At most [`ServeSettings::max_pending`] requests are taken in at once (being read, waiting
//! for a thread or worked on); one more is answered 503 at once, its body unread. An answer is
//! at most [`ServeSettings::max_answer_bytes`] long and lists at most
//! [`ServeSettings::max_blocks`] blocks, which are decided and written one at a time, never
//! all held at once. The default address is this machine (127.0.0.1); `--bind` opens it to
//! others.

pub mod api;
pub use crate::io::fetch;

use std::future::IntoFuture;
use std::net::SocketAddr;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Bytes, HttpBody};
use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::lm::model::LanguageModel;
use crate::pipeline::pages::{self, Named, Page};
use crate::pipeline::InputFormat;
use api::{ApiError, BoundedJson, CleanRequest, PerplexityRequest, Source};
use fetch::{FetchError, FetchLimits};

/// After Ctrl-C or SIGTERM, how long the requests under way have to be answered.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// After requests were answered, how soon the memory they freed is given back to the system.
pub const GIVE_BACK_EVERY: Duration = Duration::from_secs(1);

/// The demo's one page: HTML with its CSS and JavaScript inline, nothing loaded from elsewhere.
pub const PAGE: &str = include_str!("page.html");

/// The page loads nothing from elsewhere and talks only to this server.
const PAGE_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'";

/// Where the server listens and what it accepts.
#[derive(Clone, Debug)]
pub struct ServeSettings {
    /// The address and port to listen on (port 0: any free port).
    pub bind: SocketAddr,
    /// Requests cleaned (or fetched) at once, each on a thread of its own; also the number of
    /// threads handling the connections.
    pub threads: usize,
    /// A larger request body is refused (413).
    pub max_body_bytes: u64,
    /// What fetching a URL may take.
    pub fetch: FetchLimits,
    /// Requests taken in at once (their bodies being read, waiting for a thread, or being
    /// answered); one more is answered 503 at once, with `Retry-After: 1`.
    pub max_pending: usize,
    /// An answer never lists more blocks than this (`"blocks": true`); the answer says when
    /// some were left out (`"blocks_truncated": true`).
    pub max_blocks: usize,
    /// An answer is never longer: the blocks are cut to fit, and a page whose text alone would
    /// not fit is refused (413).
    pub max_answer_bytes: usize,
}

/// [`ServeSettings::max_pending`] by default, for each of [`ServeSettings::threads`].
pub const PENDING_PER_THREAD: usize = 4;

/// The port the server listens on when none is named.
pub const DEFAULT_PORT: u16 = 8080;

impl Default for ServeSettings {
    /// 127.0.0.1:8080, one thread per core, 8 MiB bodies and pages, 10 s per fetch, 4
    /// requests a thread taken in, 5,000 blocks and 32 MiB an answer.
    fn default() -> ServeSettings {
        let threads = crate::pipeline::default_threads();
        ServeSettings {
            bind: SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)),
            threads,
            max_body_bytes: 8 << 20,
            fetch: FetchLimits {
                max_bytes: 8 << 20,
                timeout: Duration::from_secs(10),
            },
            max_pending: threads.saturating_mul(PENDING_PER_THREAD),
            max_blocks: 5_000,
            max_answer_bytes: 32 << 20,
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
        source: std::io::Error,
    },
    /// The Ctrl-C and SIGTERM handlers cannot be installed.
    #[error("cannot handle Ctrl-C and SIGTERM")]
    Signal(#[source] std::io::Error),
    /// The runtime's threads cannot be started.
    #[error("cannot start the server's threads")]
    Runtime(#[source] std::io::Error),
    /// The server stopped on an error of its listening socket.
    #[error("the server stopped")]
    Serve(#[source] std::io::Error),
}

/// A server listening, not yet answering.
pub struct Server {
    listener: std::net::TcpListener,
    settings: ServeSettings,
    addr: SocketAddr,
}

impl Server {
    /// Listens on `settings.bind`.
    pub fn bind(settings: &ServeSettings) -> Result<Server, ServeError> {
        let bind_error = |source| ServeError::Bind {
            addr: settings.bind,
            source,
        };
        let listener = std::net::TcpListener::bind(settings.bind).map_err(bind_error)?;
        // tokio takes the socket over in `run`, and needs it non-blocking.
        listener.set_nonblocking(true).map_err(bind_error)?;
        let addr = listener.local_addr().map_err(bind_error)?;
        Ok(Server {
            listener,
            settings: settings.clone(),
            addr,
        })
    }

    /// The address listened on (with the port chosen when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Answers requests with `model` until Ctrl-C or SIGTERM; the requests under way are
    /// answered before it returns. Starts its own runtime, with `settings.threads` threads
    /// for the connections, and takes over the process's SIGINT and SIGTERM.
    pub fn run(self, model: &'static LanguageModel) -> Result<(), ServeError> {
        let threads = self.settings.threads.max(1);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name("ppl-serve")
            .enable_all()
            .build()
            .map_err(ServeError::Runtime)?;
        runtime.block_on(async {
            // Installed before the first answer: from then on, Ctrl-C and SIGTERM stop the
            // server cleanly.
            let stop = stop_signal().map_err(ServeError::Signal)?;
            let listener = tokio::net::TcpListener::from_std(self.listener).map_err(|source| {
                ServeError::Bind {
                    addr: self.addr,
                    source,
                }
            })?;
            let app = App {
                answered: Arc::new(AtomicBool::new(false)),
                admission: Arc::new(Semaphore::new(self.settings.max_pending.max(1))),
                settings: Arc::new(self.settings),
                model,
                permits: Arc::new(Semaphore::new(threads)),
            };
            // The memory freed by the requests answered is given back now and then.
            let answered = Arc::clone(&app.answered);
            tokio::spawn(async move {
                let mut every = tokio::time::interval(GIVE_BACK_EVERY);
                loop {
                    every.tick().await;
                    if answered.swap(false, Ordering::Relaxed) {
                        let _ = tokio::task::spawn_blocking(give_back_memory).await;
                    }
                }
            });
            let (stopping, stopped) = tokio::sync::watch::channel(false);
            tokio::spawn(async move {
                stop.await;
                let _ = stopping.send(true);
            });
            let signalled = |mut stopped: tokio::sync::watch::Receiver<bool>| async move {
                let _ = stopped.wait_for(|stopped| *stopped).await;
            };
            let serving = axum::serve(listener, router(app))
                .with_graceful_shutdown(signalled(stopped.clone()))
                .into_future();
            // A client that holds a request open (headers or body never finished) would hold
            // the shutdown off for ever: past the grace period the server stops all the same.
            let grace = async {
                signalled(stopped).await;
                tokio::time::sleep(SHUTDOWN_GRACE).await;
            };
            tokio::select! {
                served = serving => served.map_err(ServeError::Serve),
                () = grace => Ok(()),
            }
        })?;
        // A page still being cleaned past the grace period is not waited for either.
        runtime.shutdown_timeout(Duration::from_secs(1));
        Ok(())
    }
}

/// Resolves at the first SIGINT (Ctrl-C) or SIGTERM. The handlers are installed at once, not
/// when the future is first polled.
#[cfg(unix)]
fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}

/// Resolves at the first Ctrl-C.
#[cfg(not(unix))]
fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    Ok(async {
        // If Ctrl-C cannot be listened for, the server runs until the process is killed.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    })
}

/// What every request handler shares.
#[derive(Clone)]
struct App {
    settings: Arc<ServeSettings>,
    model: &'static LanguageModel,
    /// One permit per request being cleaned: the blocking work is bounded by `threads`.
    permits: Arc<Semaphore>,
    /// One permit per request taken in: bounded by `max_pending`.
    admission: Arc<Semaphore>,
    /// Whether requests were answered since the memory was last given back.
    answered: Arc<AtomicBool>,
}

impl App {
    /// Runs `work`, blocking work answering with JSON, on a blocking thread once a permit is
    /// free; `admitted` is given back once it is done. A panic in `work`, a bug, is answered
    /// with a 500 and the server goes on.
    async fn answer_blocking<F>(&self, admitted: Admitted, work: F) -> Response
    where
        F: FnOnce(&ServeSettings, &LanguageModel) -> Result<String, ApiError> + Send + 'static,
    {
        let internal =
            || ApiError::new(500, "internal error while answering (see the server's log)");
        // The semaphore is never closed, so a permit always comes.
        let Ok(permit) = Arc::clone(&self.permits).acquire_owned().await else {
            return internal().into_response();
        };
        let (settings, model) = (Arc::clone(&self.settings), self.model);
        let answered = Arc::clone(&self.answered);
        let answer = tokio::task::spawn_blocking(move || {
            let answer = work(&settings, model);
            drop(permit);
            drop(admitted);
            answered.store(true, Ordering::Relaxed);
            answer
        })
        .await;
        match answer {
            Ok(Ok(json)) => json_response(StatusCode::OK, json),
            Ok(Err(error)) => error.into_response(),
            // The panic's message went to stderr.
            Err(_) => internal().into_response(),
        }
    }
}

/// Gives the memory that malloc holds free back to the system. glibc's malloc keeps what is
/// freed in its arenas, one per thread or so, and once a large block is freed it serves the
/// next ones from there too: without this, a burst of large pages leaves the server hundreds
/// of MB larger than at rest.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // A call into glibc, which no maintained crate wraps; see SAFETY.
fn give_back_memory() {
    extern "C" {
        fn malloc_trim(pad: usize) -> std::os::raw::c_int;
    }
    // SAFETY: malloc_trim (glibc 2.0 and later) only releases memory that malloc holds free;
    // it takes no pointer and may be called from any thread at any time.
    unsafe {
        malloc_trim(0);
    }
}

/// Other allocators give memory back as they see fit.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back_memory() {}

/// The routes; anything else is a JSON 404 or 405.
fn router(app: App) -> Router {
    let max_body = usize::try_from(app.settings.max_body_bytes).unwrap_or(usize::MAX);
    Router::new()
        // `get` answers HEAD too, with the headers alone.
        .route("/", get(get_page))
        .route("/clean", post(post_clean))
        .route("/perplexity", post(post_perplexity))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(app)
}

/// `GET /`: the page.
async fn get_page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, PAGE_POLICY),
        ],
        PAGE,
    )
        .into_response()
}

/// `POST /clean`.
async fn post_clean(
    State(app): State<App>,
    admitted: Admitted,
    LimitedBody(body): LimitedBody,
) -> Response {
    app.answer_blocking(admitted, move |settings, model| {
        clean(&body, settings, model)
    })
    .await
}

/// `POST /perplexity`.
async fn post_perplexity(
    State(app): State<App>,
    admitted: Admitted,
    LimitedBody(body): LimitedBody,
) -> Response {
    app.answer_blocking(admitted, move |settings, model| {
        perplexity(&body, settings, model)
    })
    .await
}

/// A request taken in: one of [`ServeSettings::max_pending`], held until it is answered.
/// Taken before the body is read; when none is left, the answer is 503 at once.
struct Admitted {
    /// Given back when the request is answered.
    _permit: OwnedSemaphorePermit,
}

impl FromRequestParts<App> for Admitted {
    type Rejection = ApiError;

    async fn from_request_parts(_: &mut Parts, app: &App) -> Result<Admitted, ApiError> {
        match Arc::clone(&app.admission).try_acquire_owned() {
            Ok(permit) => Ok(Admitted { _permit: permit }),
            Err(_) => Err(ApiError::new(
                503,
                format!(
                    "the server is busy ({} requests under way, --max-pending): try again",
                    app.settings.max_pending
                ),
            )),
        }
    }
}

/// Any other path.
async fn not_found(uri: Uri) -> ApiError {
    ApiError::new(404, format!("no such page: {}", uri.path()))
}

/// A known path asked with another method.
async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(405, format!("{method} is not allowed on {}", uri.path()))
}

/// A request's body, at most [`ServeSettings::max_body_bytes`]: refused (413) at once when its
/// Content-Length announces more, or as soon as more has come of a chunked body.
struct LimitedBody(Bytes);

impl FromRequest<App> for LimitedBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, app: &App) -> Result<LimitedBody, ApiError> {
        let max = app.settings.max_body_bytes;
        let too_large = || {
            ApiError::new(
                413,
                format!("the request body is larger than {max} bytes (--max-body-bytes)"),
            )
        };
        // The lower bound is the Content-Length, when there is one.
        if request.body().size_hint().lower() > max {
            return Err(too_large());
        }
        // `Bytes` reads at most the `DefaultBodyLimit` set in `router`.
        match Bytes::from_request(request, app).await {
            Ok(bytes) => Ok(LimitedBody(bytes)),
            Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                Err(too_large())
            }
            Err(rejection) => Err(ApiError::bad_request(format!(
                "cannot read the request body: {}",
                rejection.body_text()
            ))),
        }
    }
}

impl IntoResponse for ApiError {
    /// `{"error": "…"}` with the error's status (and `Retry-After: 1` with a 503).
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = json_response(status, self.body());
        if status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        response
    }
}

/// A JSON answer.
fn json_response(status: StatusCode, json: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], json).into_response()
}

/// `POST /clean`: the page cleaned as the request's options say. The answer is
/// `{"text": …, "problems": […]}`, and with `"blocks": true` also `"blocks": [`[`api::BlockView`]`…]`
/// and `"blocks_truncated"`, whether some were left out (past [`ServeSettings::max_blocks`] or
/// [`ServeSettings::max_answer_bytes`]).
fn clean(body: &[u8], settings: &ServeSettings, model: &LanguageModel) -> Result<String, ApiError> {
    let request: CleanRequest = api::parse(body)?;
    // What a request leaves out is what `ppl-filter` does with no flag.
    let default = Named::default();
    let named = Named {
        method: request.method.as_deref().unwrap_or(default.method),
        threshold: request.threshold,
        format: request.format.as_deref().unwrap_or(default.format),
        favor: request.favor.as_deref().unwrap_or(default.favor),
        comments: request.comments,
        kind: request.kind.as_deref().unwrap_or(default.kind),
        classifier: None,
    };
    let mut options = named
        .options()
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    // Pasted HTML or text came as a JSON string: it is UTF-8, whatever its `<meta charset>`
    // says; a fetched page is read in its HTTP charset, or else as a file is.
    let utf8 = Some(encoding_rs::UTF_8);
    let page = match request.source()? {
        Source::Html(html) => page(html.as_bytes().into(), None, utf8),
        Source::Text(text) => {
            options.options.read.input_format = InputFormat::Text;
            page(text.as_bytes().into(), None, utf8)
        }
        Source::Url(url) => {
            let fetched = fetch::fetch(url, settings.fetch).map_err(fetch_error)?;
            page(fetched.bytes.into(), Some(fetched.url), fetched.encoding)
        }
    };
    let cleaned = pages::clean_page(&page, model, &options)
        .map_err(|e| ApiError::new(500, crate::errors::one_line(&e)))?;
    let mut answer = BoundedJson::new(settings.max_answer_bytes);
    // Room is kept for the end of the answer, whatever comes before it.
    answer.raw("{\"text\":", BLOCKS_END.len())?;
    {
        let text = String::from_utf8(cleaned.output)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        answer.value(&text, BLOCKS_END.len())?;
    }
    let problems: Vec<String> = cleaned.problems.iter().map(|p| p.message()).collect();
    answer.raw(",\"problems\":", BLOCKS_END.len())?;
    answer.value(&problems, BLOCKS_END.len())?;
    if !request.blocks {
        answer.raw("}", 0)?;
        return Ok(answer.into_string());
    }
    answer.raw(",\"blocks\":[", BLOCKS_END.len())?;
    let mut listed = 0;
    let mut truncated = false;
    // The blocks come one at a time, each written as it comes: no more than an answer's worth
    // is ever held, and the page is read no further than the blocks listed.
    pages::each_decided_block(&page, model, &options.options, &mut |block| {
        let start = answer.len();
        let fits = listed < settings.max_blocks
            && (listed == 0 || answer.raw(",", BLOCKS_END.len()).is_ok())
            && answer
                .value(&api::BlockView::from(&block), BLOCKS_END.len())
                .is_ok();
        if !fits {
            answer.truncate(start);
            truncated = true;
            return ControlFlow::Break(());
        }
        listed += 1;
        ControlFlow::Continue(())
    });
    let end = if truncated {
        "],\"blocks_truncated\":true}"
    } else {
        BLOCKS_END
    };
    answer.raw(end, 0)?;
    Ok(answer.into_string())
}

/// The most that ends an answer with blocks (`],"blocks_truncated":false}`).
const BLOCKS_END: &str = "],\"blocks_truncated\":false}";

/// A page held in memory, named as the Python package names its pages.
fn page(
    bytes: Arc<[u8]>,
    url: Option<String>,
    encoding: Option<&'static encoding_rs::Encoding>,
) -> Page {
    Page {
        name: "<page>".to_string(),
        bytes,
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
fn perplexity(
    body: &[u8],
    settings: &ServeSettings,
    model: &LanguageModel,
) -> Result<String, ApiError> {
    let request: PerplexityRequest = api::parse(body)?;
    let answer = request.answer(|sentence| model.perplexity(sentence))?;
    let mut json = BoundedJson::new(settings.max_answer_bytes);
    json.value(&answer, 0)?;
    Ok(json.into_string())
}
