//! `ppl-filter serve`: the web demo, a small HTTP server over the library.
//!
//! `GET /` is one page ([`PAGE`]) where a visitor pastes HTML or text, or gives a URL, and
//! sees what is kept and what is dropped. `POST /clean` cleans one page exactly as
//! `ppl-filter` cleans a file holding it ([`pages::clean_page`]), `POST /perplexity` scores
//! sentences; both speak JSON ([`api`]). URLs are fetched by [`fetch`], which refuses local and
//! private addresses. [`Server::bind`] listens, [`Server::run`] answers until Ctrl-C or
//! SIGTERM, then lets the requests under way finish.
//!
//! The HTTP side is [axum]'s router, served by [hyper] (HTTP/1.1) on a [tokio] runtime: the
//! connections are asynchronous, while the work itself (cleaning a page, fetching a URL) is
//! blocking and runs on tokio's blocking threads, at most [`ServeSettings::threads`] requests
//! at once. What a client may hold is bounded, so that a few slow or idle clients cannot lock
//! others out:
//!
//! - connections: at most [`ServeSettings::max_connections_per_client`] of one client (one
//!   more is closed at once) and [`ServeSettings::max_connections`] in all, where a new one
//!   takes the place of the one that has waited longest for a request head, and is closed
//!   only when all are at work (see `connections.rs`). A connection whose next request head has
//!   not fully come [`ServeSettings::idle_timeout`] after it opened or after its last answer
//!   (idle, or sending its head slowly) is closed (hyper's header read timeout).
//! - a request's body: at most [`ServeSettings::max_body_bytes`] (one announcing more is
//!   refused, 413, before any of it is read, and a body left unread is never drained into
//!   memory: the connection is closed), and complete within [`ServeSettings::body_timeout`],
//!   else it is answered 408 and the connection closed. The bodies being read hold at most
//!   [`ServeSettings::max_body_memory`], an eighth of it per client; a body past that is
//!   answered 503.
//! - requests taken in: only a request whose body has come is taken in, at most
//!   [`ServeSettings::max_pending`] at once (waiting for a thread or worked on); one more is
//!   answered 503 at once.
//! - an answer: at most [`ServeSettings::max_answer_bytes`] long, and listing at most
//!   [`ServeSettings::max_blocks`] blocks, which are decided and written one at a time, never
//!   all held at once; a page is cleaned no further than its text fits
//!   ([`pages::clean_page_within`]), whatever it inflates to.
//!
//! The default address is this machine (127.0.0.1); `--bind` opens it to others.

pub mod api;
mod connections;
pub use crate::fetch;

use std::net::SocketAddr;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Bytes, HttpBody};
use axum::extract::{FromRequest, Request, State};
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::lm::model::LanguageModel;
use crate::pipeline::pages::{self, Page, PageError};
use crate::pipeline::{InputFormat, Trouble, FAVORS, FORMATS, KINDS, METHODS};
use crate::source::sniff;
use api::{AnswerTooLarge, ApiError, BoundedJson, CleanRequest, PerplexityRequest, Source};
use connections::{Connections, Counted};
use fetch::{FetchError, FetchLimits};

/// After Ctrl-C or SIGTERM, how long the requests under way have to be answered.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// After requests were answered, how soon the memory they freed is given back to the system.
pub const GIVE_BACK_EVERY: Duration = Duration::from_secs(1);

/// The demo's one page: HTML with its CSS and JavaScript inline, nothing loaded from elsewhere.
pub const PAGE: &str = include_str!("page.html");

/// [`PAGE`] as it is served: with the names the options take ([`METHODS`], [`FORMATS`],
/// [`FAVORS`], [`KINDS`]) written into its `names` script, from which it builds its choices.
fn served_page() -> &'static str {
    static SERVED: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SERVED.get_or_init(|| {
        let names = serde_json::json!({
            "methods": METHODS, "formats": FORMATS, "favors": FAVORS, "kinds": KINDS,
        });
        PAGE.replacen(
            r#"{"names": "the server puts the library's names here"}"#,
            &names.to_string(),
            1,
        )
    })
}

/// The note on `text` that holds markup ([`sniff::has_markup`]): it is cleaned as it came.
pub const MARKUP_AS_TEXT: &str = "the text holds HTML markup: it was cleaned as plain text, tags \
                                   and all (send it as html, in the demo choose HTML, to strip them)";

/// The page loads nothing from elsewhere and talks only to this server.
const PAGE_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'";

/// Where the server listens and what it accepts.
///
/// Memory is bounded by these settings, whatever the clients send or the pages inflate to:
/// request bodies being read take at most `max_body_memory` (and only as much as arrives
/// within `body_timeout`);
/// the pages being cleaned, at most `threads` of them, each take its body or its fetched page
/// (`fetch.max_bytes`), at most `max_answer_bytes` of cleaned text and an answer of at most
/// `max_answer_bytes`; requests taken in but waiting for a thread, at most `max_pending`, each
/// hold its body.
#[derive(Clone, Debug)]
pub struct ServeSettings {
    /// The address and port to listen on (port 0: any free port).
    pub bind: SocketAddr,
    /// Requests cleaned (or fetched) at once, each on a thread of its own; also the number of
    /// threads handling the connections.
    pub threads: usize,
    /// A larger request body is refused (413).
    pub max_body_bytes: u64,
    /// The bodies being read hold at most this many bytes in all, and an eighth of it for one
    /// client (never less than `max_body_bytes`); a body that would hold more is answered 503.
    pub max_body_memory: u64,
    /// How long a request's body may take to come, from the end of its head; a body not
    /// complete by then is answered 408 and its connection closed. Until its body has come a
    /// request is not taken in (`max_pending`).
    pub body_timeout: Duration,
    /// What fetching a URL may take.
    pub fetch: FetchLimits,
    /// Requests taken in at once (their bodies read, waiting for a thread, or being
    /// answered); one more is answered 503 at once, with `Retry-After: 1`.
    pub max_pending: usize,
    /// Connections open at once, idle ones included; one more takes the place of the one that
    /// has waited longest for a request head, or is closed at once when all are at work.
    pub max_connections: usize,
    /// Connections open at once from one client (an IPv4 address, or an IPv6 /64 network);
    /// one more is closed as soon as it is accepted.
    pub max_connections_per_client: usize,
    /// A connection is closed when the head of its next request has not fully come this long
    /// after it opened or after its last answer was written: idle (kept alive) connections
    /// and heads sent slowly hold no place for longer.
    pub idle_timeout: Duration,
    /// An answer never lists more blocks than this (`"blocks": true`); the answer says when
    /// some were left out (`"blocks_truncated": true`).
    pub max_blocks: usize,
    /// An answer is never longer: the blocks are cut to fit, and a page whose text alone would
    /// not fit is refused (413) as soon as its text passes this, its cleaning stopped there.
    pub max_answer_bytes: usize,
}

/// [`ServeSettings::max_pending`] by default, for each of [`ServeSettings::threads`].
pub const PENDING_PER_THREAD: usize = 4;

/// The port the server listens on when none is named.
pub const DEFAULT_PORT: u16 = 8080;

impl Default for ServeSettings {
    /// 127.0.0.1:8080, one thread per core, 8 MiB bodies (within 10 s; 256 MiB of them being
    /// read) and pages, 10 s per fetch, 4 requests a thread taken in, 256 connections (32 a
    /// client, closed after 10 s idle), 5,000 blocks and 32 MiB an answer.
    fn default() -> ServeSettings {
        ServeSettings::for_threads(crate::pipeline::default_threads())
    }
}

impl ServeSettings {
    /// The defaults with `threads` threads: the one place the server's limits are written
    /// (its flags' defaults are these, read without asking the system for its cores).
    pub fn for_threads(threads: usize) -> ServeSettings {
        ServeSettings {
            bind: SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)),
            threads,
            max_body_bytes: 8 << 20,
            max_body_memory: 256 << 20,
            body_timeout: Duration::from_secs(10),
            fetch: FetchLimits {
                max_bytes: 8 << 20,
                timeout: Duration::from_secs(10),
            },
            max_pending: threads.saturating_mul(PENDING_PER_THREAD),
            max_connections: 256,
            max_connections_per_client: 32,
            idle_timeout: Duration::from_secs(10),
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
            let mut listener =
                tokio::net::TcpListener::from_std(self.listener).map_err(|source| {
                    ServeError::Bind {
                        addr: self.addr,
                        source,
                    }
                })?;
            let connections = Connections::new(connections::Limits {
                max: self.settings.max_connections.max(1),
                max_per_client: self.settings.max_connections_per_client.max(1),
                max_body_memory: self.settings.max_body_memory,
                max_body_bytes: self.settings.max_body_bytes,
            });
            let mut http = hyper::server::conn::http1::Builder::new();
            // The head of each request, the first or the next one on a connection kept alive,
            // must come within the idle timeout.
            http.timer(TokioTimer::new())
                .header_read_timeout(self.settings.idle_timeout);
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
            let service = TowerToHyperService::new(router(app));
            // Every connection holds a receiver: once they are all dropped, every connection
            // is closed.
            let (stopping, stopped) = tokio::sync::watch::channel(false);
            let mut stop = std::pin::pin!(stop);
            loop {
                let (stream, client) = tokio::select! {
                    // Retries on its own after an error (a connection reset before it was
                    // accepted, too many files open).
                    accepted = axum::serve::Listener::accept(&mut listener) => accepted,
                    () = &mut stop => break,
                };
                // One connection too many is closed at once, unread.
                let Some(counted) = connections.admit(client.ip()) else {
                    continue;
                };
                let tracked = Tracked {
                    inner: service.clone(),
                    counted: Arc::clone(&counted),
                };
                let connection = http.serve_connection(TokioIo::new(stream), tracked);
                let mut stopped = stopped.clone();
                tokio::spawn(async move {
                    // Counted until the connection is closed.
                    let mut connection = std::pin::pin!(connection);
                    tokio::select! {
                        _ = connection.as_mut() => return,
                        // Its place was given to a new connection: closed, unanswered.
                        () = counted.closing() => return,
                        _ = stopped.wait_for(|stopped| *stopped) => {}
                    }
                    // Stopping: the request under way, if any, is answered, then the
                    // connection closed.
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                });
            }
            let _ = stopping.send(true);
            drop(stopped);
            // A client that holds a request open (its body never finished) would hold the
            // shutdown off for ever: past the grace period the server stops all the same.
            let _ = tokio::time::timeout(SHUTDOWN_GRACE, stopping.closed()).await;
            Ok(())
        })?;
        // A page still being cleaned past the grace period is not waited for either.
        runtime.shutdown_timeout(Duration::from_secs(1));
        Ok(())
    }
}

/// A connection's service: the router's, telling the connection's count when a request head
/// has come and when it is answered, and giving the request its connection's count (for the
/// bodies' memory).
#[derive(Clone)]
struct Tracked<S> {
    inner: S,
    counted: Arc<Counted>,
}

impl<S, B> hyper::service::Service<hyper::Request<B>> for Tracked<S>
where
    S: hyper::service::Service<hyper::Request<B>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn call(&self, mut request: hyper::Request<B>) -> Self::Future {
        self.counted.head_came();
        request.extensions_mut().insert(Arc::clone(&self.counted));
        let answer = self.inner.call(request);
        let counted = Arc::clone(&self.counted);
        Box::pin(async move {
            let answer = answer.await;
            counted.answered();
            answer
        })
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
    /// Takes the request in (one of [`ServeSettings::max_pending`], or a 503 at once), then
    /// runs `work`, blocking work answering with JSON, on a blocking thread once a permit is
    /// free; the request's place is given back once it is done. A panic in `work`, a bug, is
    /// answered with a 500 and the server goes on.
    async fn answer_blocking<F>(&self, work: F) -> Response
    where
        F: FnOnce(&ServeSettings, &LanguageModel) -> Result<String, ApiError> + Send + 'static,
    {
        let admitted = match self.admit() {
            Ok(admitted) => admitted,
            Err(busy) => return busy.into_response(),
        };
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

    /// One of [`ServeSettings::max_pending`] places, held until the request is answered; a
    /// 503 when none is left.
    fn admit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        Arc::clone(&self.admission)
            .try_acquire_owned()
            .map_err(|_| {
                ApiError::new(
                    503,
                    format!(
                        "the server is busy ({} requests under way, --max-pending): try again",
                        self.settings.max_pending
                    ),
                )
            })
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
    Router::new()
        // `get` answers HEAD too, with the headers alone.
        .route("/", get(get_page))
        .route("/clean", post(post_clean))
        .route("/perplexity", post(post_perplexity))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(app)
}

/// `GET /`: the page.
async fn get_page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, PAGE_POLICY),
        ],
        served_page(),
    )
        .into_response()
}

/// `POST /clean`: taken in once its body has come.
async fn post_clean(State(app): State<App>, LimitedBody(body): LimitedBody) -> Response {
    app.answer_blocking(move |settings, model| clean(&body, settings, model))
        .await
}

/// `POST /perplexity`: taken in once its body has come.
async fn post_perplexity(State(app): State<App>, LimitedBody(body): LimitedBody) -> Response {
    app.answer_blocking(move |settings, model| perplexity(&body, settings, model))
        .await
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
/// Content-Length announces more, or as soon as more has come of a chunked body; held within
/// the bodies' memory as it comes (else 503, [`connections`]); and complete within
/// [`ServeSettings::body_timeout`], else answered 408 (and the connection closed).
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
        // Every request of `Server::run`'s connections has its connection's count.
        let mut hold = request.extensions().get::<Arc<Counted>>().map(|c| c.body());
        let timeout = app.settings.body_timeout;
        let read = read_body(request.into_body(), max, hold.as_mut());
        let Ok(read) = tokio::time::timeout(timeout, read).await else {
            return Err(ApiError::new(
                408,
                format!(
                    "the request body did not come within {} s (--body-timeout)",
                    timeout.as_secs_f64()
                ),
            ));
        };
        match read {
            Ok(bytes) => Ok(LimitedBody(bytes)),
            Err(BodyError::TooLarge) => Err(too_large()),
            Err(BodyError::Budget) => Err(ApiError::new(
                503,
                format!(
                    "the server holds too many request bodies being sent (--max-body-memory, {} \
                     bytes): try again",
                    app.settings.max_body_memory
                ),
            )),
            Err(BodyError::Read(why)) => Err(ApiError::bad_request(format!(
                "cannot read the request body: {why}"
            ))),
        }
    }
}

/// Why a body was not read whole.
enum BodyError {
    /// Longer than the largest body.
    TooLarge,
    /// More than the bodies' memory holds ([`connections::BodyBudget`]).
    Budget,
    /// The connection failed, or the chunked framing is broken.
    Read(String),
}

/// Reads `body` to its end, at most `max` bytes, each piece held in `hold` as it comes. The
/// pieces are kept as they came and joined once at the end, so that what a body holds while
/// it comes is its bytes, not a buffer grown by doubling.
async fn read_body(
    mut body: axum::body::Body,
    max: u64,
    mut hold: Option<&mut connections::BodyHold>,
) -> Result<Bytes, BodyError> {
    let mut pieces = Vec::new();
    let mut len = 0u64;
    while let Some(frame) =
        std::future::poll_fn(|context| std::pin::Pin::new(&mut body).poll_frame(context)).await
    {
        let frame = frame.map_err(|e| BodyError::Read(e.to_string()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        len += data.len() as u64;
        if len > max {
            return Err(BodyError::TooLarge);
        }
        if let Some(hold) = hold.as_deref_mut() {
            hold.grow(data.len() as u64)
                .map_err(|_| BodyError::Budget)?;
        }
        pieces.push(data);
    }
    Ok(match pieces.len() {
        0 => Bytes::new(),
        1 => pieces.remove(0),
        _ => Bytes::from(pieces.concat()),
    })
}

impl IntoResponse for ApiError {
    /// `{"error": "…"}` with the error's status (and `Retry-After: 1` with a 503; and
    /// `Connection: close` with a 408, whose body is not waited for any longer).
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = json_response(status, self.body());
        let headers = response.headers_mut();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            headers.insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        if status == StatusCode::REQUEST_TIMEOUT {
            headers.insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
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
    let request = CleanRequest::parse(body)?;
    // What a request leaves out is what `ppl-filter` does with no flag.
    let mut job = request
        .options
        .job()
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    // Pasted HTML or text came as a JSON string: it is UTF-8, whatever its `<meta charset>`
    // says; a fetched page is read in its HTTP charset, or else as a file is.
    let utf8 = Some(encoding_rs::UTF_8);
    // A fetched page cut short (larger than the bound once decoded, its body ended early) is
    // cleaned as far as it came, and the answer's problems say so first.
    let mut cut = None;
    // What the answer's problems say before the cleaning's own.
    let mut notes = Vec::new();
    let page = match request.source()? {
        Source::Html(html) => page(html.as_bytes().into(), None, utf8),
        Source::Text(text) => {
            if sniff::has_markup(&text.as_bytes()[..text.len().min(sniff::MARKUP_HEAD_BYTES)]) {
                notes.push(MARKUP_AS_TEXT.to_string());
            }
            job.options.read.input_format = InputFormat::Text;
            page(text.as_bytes().into(), None, utf8)
        }
        Source::Url(url) => {
            let fetched = fetch::fetch(url, settings.fetch).map_err(fetch_error)?;
            cut = fetched.cut;
            page(fetched.bytes.into(), Some(fetched.url), fetched.encoding)
        }
    };
    // A text longer than the answer may be could not be sent: cleaning stops once it is.
    let cleaned = pages::clean_page_within(&page, model, &job, settings.max_answer_bytes).map_err(
        |e| match e {
            PageError::TooLong { .. } => ApiError::from(AnswerTooLarge {
                max: settings.max_answer_bytes,
            }),
            PageError::Run(e) => ApiError::new(500, crate::errors::one_line(&e)),
        },
    )?;
    let mut answer = BoundedJson::new(settings.max_answer_bytes);
    // Room is kept for the end of the answer, whatever comes before it.
    answer.raw("{\"text\":", BLOCKS_END.len())?;
    {
        let text = String::from_utf8(cleaned.output)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        answer.value(&text, BLOCKS_END.len())?;
    }
    notes.extend(cut.map(|cut| Trouble::Cut(cut.to_string()).to_string()));
    let problems: Vec<String> = notes
        .into_iter()
        .chain(cleaned.problems.iter().map(|p| p.message()))
        .collect();
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
    pages::each_decided_block(&page, model, &job.options, &mut |block| {
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
