//! One HTTP/1.1 GET, over TCP or TLS (rustls, with the Mozilla roots of `webpki-roots`), with
//! its body framed as RFC 9112 says and every way it can end told apart.
//!
//! Why not ureq, which did this before: ureq 2 hands over a body whose framing it has already
//! taken off, and its chunked decoder ends a body cut inside a chunk with a silent end of file,
//! exactly as a body that ended well (`chunked/decoder.rs`: a read of 0 bytes inside a chunk
//! is returned as 0 bytes), while a body cut after whole chunks, or short of its
//! Content-Length, is an error that loses what came. Here a body says which of them it was
//! ([`BodyEnd`]), so that a page cut short is kept and said to be cut. The head is parsed by
//! `httparse`; only what one GET needs is done (no connection is kept for another request:
//! `Connection: close`).
//!
//! Every read and write is bounded by a deadline: the socket's timeout is set to the time left
//! before each of them.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::{Cut, FetchError, Refused};
use crate::source::http::{self, BodyCut, Framing};

/// The most bytes of a response's status line and headers.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// The most headers a response may have.
const MAX_HEADERS: usize = 128;
/// Interim (1xx) responses skipped before the final one.
const MAX_INTERIM: usize = 8;

/// A response whose head has been read; its body is still to be read.
pub(super) struct Response {
    /// Its status code.
    pub status: u16,
    /// Its headers, names in lower case, values as text (bytes that are not UTF-8 replaced).
    pub headers: Vec<(String, String)>,
    /// Its transfer codings other than `chunked`, in the order they were applied.
    pub transfer_codings: Vec<String>,
    /// Its body, framed.
    pub body: Body,
}

impl Response {
    /// The value of header `name` (lower case); several such headers are joined by `, `.
    pub fn header(&self, name: &str) -> Option<String> {
        let mut values = self
            .headers
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v);
        let first = values.next()?.clone();
        Some(values.fold(first, |all, v| format!("{all}, {v}")))
    }
}

/// How a body ended, when it did not end as its framing says it should.
pub(super) type BodyEnd = Arc<Mutex<Option<Cut>>>;

/// Sends a GET for `url` to its host, whose every address `allowed` must accept, and reads the
/// answer's head, all before `deadline` (`timeout` is what the message names).
pub(super) fn get(
    url: &url::Url,
    allowed: fn(IpAddr) -> bool,
    user_agent: &str,
    deadline: Instant,
    timeout: Duration,
) -> Result<Response, FetchError> {
    let host = url.host_str().unwrap_or_default().to_string();
    let port = url.port_or_known_default().unwrap_or(80);
    let netloc = format!("{host}:{port}");
    let timed_out = || FetchError::TimedOut { timeout };
    let socket = connect(url, port, &netloc, allowed, deadline, timeout)?;
    let mut connection = match url.scheme() {
        "https" => Connection::Tls(Box::new(tls(&host, socket, &netloc, timeout)?)),
        _ => Connection::Plain(socket),
    };
    let target = &url[url::Position::BeforePath..url::Position::AfterQuery];
    let host_header = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.clone(),
    };
    let request = format!(
        "GET {target} HTTP/1.1\r\nHost: {host_header}\r\nUser-Agent: {user_agent}\r\n\
         Accept: */*\r\nAccept-Encoding: gzip, deflate, br\r\nConnection: close\r\n\r\n"
    );
    connection
        .write_all(request.as_bytes())
        .and_then(|()| connection.flush())
        .map_err(|e| match e.kind() {
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => timed_out(),
            _ => transport_error(&e, &netloc, "cannot send the request to"),
        })?;
    let mut reader = BufReader::with_capacity(16 * 1024, connection);
    let mut head = Vec::new();
    for _ in 0..=MAX_INTERIM {
        let (status, headers, version_1_0, used) = read_head(&mut reader, &mut head, &netloc)
            .map_err(|e| match e {
                HeadError::Io(e) if is_timeout(&e) => timed_out(),
                HeadError::Io(e) => transport_error(&e, &netloc, "cannot read the answer of"),
                HeadError::Bad(why) => FetchError::Protocol(why),
            })?;
        head.drain(..used);
        if (100..200).contains(&status) && status != 101 {
            continue;
        }
        let (framing, transfer_codings) = framing(status, version_1_0, &headers)?;
        let source = io::Cursor::new(std::mem::take(&mut head)).chain(reader);
        let body = Body {
            framed: http::Body::new(Box::new(source), framing),
            end: BodyEnd::default(),
        };
        return Ok(Response {
            status,
            headers,
            transfer_codings,
            body,
        });
    }
    Err(FetchError::Protocol(format!(
        "more than {MAX_INTERIM} interim (1xx) answers"
    )))
}

/// Connects to the host of `url` (at `port`): every address it resolves to must be
/// `allowed`, and they are tried in turn until one answers.
fn connect(
    url: &url::Url,
    port: u16,
    netloc: &str,
    allowed: fn(IpAddr) -> bool,
    deadline: Instant,
    timeout: Duration,
) -> Result<DeadlineSocket, FetchError> {
    let addrs: Vec<SocketAddr> = match url.host() {
        Some(url::Host::Ipv4(ip)) => vec![SocketAddr::new(ip.into(), port)],
        Some(url::Host::Ipv6(ip)) => vec![SocketAddr::new(ip.into(), port)],
        Some(url::Host::Domain(name)) => (name, port)
            .to_socket_addrs()
            .map_err(|e| FetchError::Resolve {
                host: netloc.to_string(),
                why: crate::errors::io_message(&e),
            })?
            .collect(),
        None => return Err(FetchError::Url("no host".into())),
    };
    if let Some(addr) = addrs.iter().find(|addr| !allowed(addr.ip())) {
        return Err(FetchError::Refused(Refused {
            host: netloc.to_string(),
            ip: addr.ip(),
        }));
    }
    let mut last = None;
    for addr in &addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(FetchError::TimedOut { timeout });
        }
        match TcpStream::connect_timeout(addr, left) {
            Ok(tcp) => return Ok(DeadlineSocket { tcp, deadline }),
            Err(e) => last = Some(e),
        }
    }
    match last {
        Some(e) if is_timeout(&e) => Err(FetchError::TimedOut { timeout }),
        Some(e) => Err(FetchError::Connect {
            host: netloc.to_string(),
            why: crate::errors::io_message(&e),
        }),
        None => Err(FetchError::Resolve {
            host: netloc.to_string(),
            why: "no address".into(),
        }),
    }
}

/// A TLS session with `host` over `socket`, its handshake done.
fn tls(
    host: &str,
    mut socket: DeadlineSocket,
    netloc: &str,
    timeout: Duration,
) -> Result<rustls::StreamOwned<rustls::ClientConnection, DeadlineSocket>, FetchError> {
    let failure = |why: String| FetchError::Tls {
        host: netloc.to_string(),
        why,
    };
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    let name = rustls::pki_types::ServerName::try_from(literal.to_string())
        .map_err(|e| failure(e.to_string()))?;
    let mut session =
        rustls::ClientConnection::new(tls_config(), name).map_err(|e| failure(e.to_string()))?;
    while session.is_handshaking() {
        session.complete_io(&mut socket).map_err(|e| {
            if is_timeout(&e) {
                FetchError::TimedOut { timeout }
            } else {
                failure(tls_message(&e))
            }
        })?;
    }
    Ok(rustls::StreamOwned::new(session, socket))
}

/// The TLS settings of every fetch: rustls's safe defaults on *ring*, the Mozilla roots.
fn tls_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map(|builder| {
                    builder
                        .with_root_certificates(roots.clone())
                        .with_no_client_auth()
                })
                // The *ring* provider supports the default versions; this is never taken.
                .unwrap_or_else(|_| {
                    rustls::ClientConfig::builder()
                        .with_root_certificates(roots)
                        .with_no_client_auth()
                });
            Arc::new(config)
        })
        .clone()
}

/// An I/O error of a TLS session as one line: rustls's error when it is one.
fn tls_message(e: &io::Error) -> String {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .map_or_else(|| crate::errors::io_message(e), |e| e.to_string())
}

/// A failure of the connection to `netloc`: a TLS error named as one.
fn transport_error(e: &io::Error, netloc: &str, doing: &str) -> FetchError {
    let tls = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    match tls {
        Some(tls) => FetchError::Tls {
            host: netloc.to_string(),
            why: tls.to_string(),
        },
        None => FetchError::Failed(format!(
            "{doing} {netloc}: {}",
            crate::errors::io_message(e)
        )),
    }
}

/// Whether `e` is a socket's timeout.
fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    )
}

/// Why a response's head could not be read.
enum HeadError {
    Io(io::Error),
    Bad(String),
}

/// A status, headers, whether the answer is HTTP/1.0, and the bytes of `head` they took.
type Head = (u16, Vec<(String, String)>, bool, usize);

/// Reads from `reader` into `head` until `head` starts with a whole response head, and parses
/// it.
fn read_head(
    reader: &mut impl BufRead,
    head: &mut Vec<u8>,
    netloc: &str,
) -> Result<Head, HeadError> {
    loop {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut response = httparse::Response::new(&mut headers);
        match response.parse(head) {
            Ok(httparse::Status::Complete(used)) => {
                let status = response.code.unwrap_or(0);
                let headers = response
                    .headers
                    .iter()
                    .map(|h| {
                        let value = String::from_utf8_lossy(h.value).trim().to_string();
                        (h.name.to_ascii_lowercase(), value)
                    })
                    .collect();
                return Ok((status, headers, response.version == Some(0), used));
            }
            Ok(httparse::Status::Partial) => {}
            Err(httparse::Error::TooManyHeaders) => {
                return Err(HeadError::Bad(format!("more than {MAX_HEADERS} headers")))
            }
            Err(e) => return Err(HeadError::Bad(format!("its head is malformed ({e})"))),
        }
        if head.len() >= MAX_HEAD_BYTES {
            return Err(HeadError::Bad(format!(
                "its head is longer than {} KiB",
                MAX_HEAD_BYTES / 1024
            )));
        }
        let buf = crate::source::fill_buf_retrying(reader).map_err(HeadError::Io)?;
        if buf.is_empty() {
            return Err(HeadError::Bad(if head.is_empty() {
                format!("{netloc} closed the connection without answering")
            } else {
                "the connection closed inside its head".to_string()
            }));
        }
        let n = buf.len().min(MAX_HEAD_BYTES - head.len());
        head.extend_from_slice(&buf[..n]);
        reader.consume(n);
    }
}

/// The framing of a response's body, and its transfer codings other than `chunked`.
fn framing(
    status: u16,
    version_1_0: bool,
    headers: &[(String, String)],
) -> Result<(Framing, Vec<String>), FetchError> {
    if (100..200).contains(&status) || status == 204 || status == 304 {
        return Ok((Framing::Length(0), Vec::new()));
    }
    let values = |name: &str| {
        headers
            .iter()
            .filter(|(n, _)| n == name)
            .flat_map(|(_, v)| v.split(','))
            .map(|v| v.trim().to_ascii_lowercase())
            .filter(|v| !v.is_empty())
            .collect::<Vec<String>>()
    };
    // An HTTP/1.0 answer has no chunked coding (as ureq, curl and browsers read it).
    let transfer = if version_1_0 {
        Vec::new()
    } else {
        values("transfer-encoding")
    };
    if let Some((last, others)) = transfer.split_last() {
        // A coding's parameters (`gzip;q=1`) are not the coding's name.
        let name = |c: &String| c.split(';').next().unwrap_or_default().trim().to_string();
        return Ok(if name(last) == "chunked" {
            (Framing::Chunked, others.iter().map(name).collect())
        } else {
            (Framing::Close, transfer.iter().map(name).collect())
        });
    }
    let lengths = values("content-length");
    let Some(first) = lengths.first() else {
        return Ok((Framing::Close, Vec::new()));
    };
    let parsed = first
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| first.parse::<u64>().ok())
        .flatten();
    match parsed {
        Some(n) if lengths.iter().all(|l| l == first) => Ok((Framing::Length(n), Vec::new())),
        _ => Err(FetchError::Protocol(format!(
            "its Content-Length is not one number ({})",
            super::shown(&lengths.join(", "))
        ))),
    }
}

/// A response's body as the fetcher reads it: its framing taken off by [`http::Body`], and
/// how it ended, when not as framed (cut short, timed out, a read failed), kept as a [`Cut`]
/// in [`Body::end`] as well as returned.
pub(super) struct Body {
    framed: http::Body<Box<dyn BufRead + Send>>,
    end: BodyEnd,
}

impl Body {
    /// Where the body's [`Cut`], if it was cut, is kept: it can be looked at after the body
    /// has gone into decoders.
    pub fn end(&self) -> BodyEnd {
        Arc::clone(&self.end)
    }
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.framed.read(buf).map_err(|e| {
            let cut = match http::cut_of(&e) {
                Some(BodyCut::Short { got, announced }) => Cut::Short {
                    got: *got,
                    announced: *announced,
                },
                Some(BodyCut::Chunked(damage)) => Cut::Chunked(damage.clone()),
                None if is_timeout(&e) => Cut::TimedOut,
                None => Cut::Read(tls_message(&e)),
            };
            *self.end.lock().unwrap_or_else(|e| e.into_inner()) = Some(cut.clone());
            io::Error::other(cut)
        })
    }
}

/// A TCP socket whose every read and write must end by `deadline`.
pub(super) struct DeadlineSocket {
    tcp: TcpStream,
    deadline: Instant,
}

impl DeadlineSocket {
    /// The time left, set as the socket's timeout for `set`; an error once none is left.
    fn arm(&self, set: fn(&TcpStream, Option<Duration>) -> io::Result<()>) -> io::Result<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the deadline passed",
            ));
        }
        set(&self.tcp, Some(left))
    }
}

impl Read for DeadlineSocket {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.arm(TcpStream::set_read_timeout)?;
        self.tcp.read(buf)
    }
}

impl Write for DeadlineSocket {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.arm(TcpStream::set_write_timeout)?;
        self.tcp.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}

/// A connection, plain or TLS.
enum Connection {
    Plain(DeadlineSocket),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, DeadlineSocket>>),
}

impl Read for Connection {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Connection::Plain(socket) => socket.read(buf),
            // A server that closes without TLS's close_notify has ended its answer as far as
            // it is concerned: the framing of the body tells whether it was all sent.
            Connection::Tls(stream) => match stream.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(0),
                other => other,
            },
        }
    }
}

impl Write for Connection {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Connection::Plain(socket) => socket.write(buf),
            Connection::Tls(stream) => stream.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Connection::Plain(socket) => socket.flush(),
            Connection::Tls(stream) => stream.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_follows_rfc_9112() {
        let h = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        };
        let chunked = h(&[
            ("transfer-encoding", "gzip, chunked"),
            ("content-length", "3"),
        ]);
        let (chunks, codings) = framing(200, false, &chunked).unwrap();
        assert_eq!(chunks, Framing::Chunked);
        assert_eq!(codings, ["gzip"]);
        // HTTP/1.0 has no chunked coding: the Content-Length frames it.
        assert_eq!(framing_of(200, true, &chunked), Framing::Length(3));
        assert_eq!(
            framing_of(200, false, &h(&[("content-length", "5, 5")])),
            Framing::Length(5)
        );
        assert_eq!(framing_of(204, false, &chunked), Framing::Length(0));
        assert_eq!(framing_of(200, false, &[]), Framing::Close);
        for bad in ["5, 6", "+5", "x", "-1", "99999999999999999999999"] {
            let error = framing(200, false, &h(&[("content-length", bad)])).unwrap_err();
            assert!(matches!(error, FetchError::Protocol(_)), "{bad}: {error}");
        }
    }

    fn framing_of(status: u16, version_1_0: bool, headers: &[(String, String)]) -> Framing {
        framing(status, version_1_0, headers).unwrap().0
    }
}
