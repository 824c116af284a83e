//! Fetching the page at a URL, within limits: only `http` and `https`, at most
//! [`MAX_REDIRECTS`] redirects, a deadline for the whole fetch and a bound on the page's
//! decoded size. Redirects are followed here, one at a time: each target's scheme and address
//! are checked before it is asked for, and the caller is asked about each ([`Polite`] checks
//! its host's robots.txt and waits its delay).
//!
//! A page is decoded here (`decode`): its `Content-Encoding` (gzip, deflate, br) and any
//! gzip it still is, at most [`FetchLimits::max_bytes`] of it. A page cut short — by that
//! bound, by the deadline, by a connection that closed before its Content-Length or its last
//! chunk (`http`), by damaged compressed data — is kept as far as it came, and the cut is
//! said ([`Fetched::cut`]).
//!
//! Two callers, two policies. The web demo fetches what a visitor typed ([`fetch`]): only
//! public addresses (every address a host name resolves to is checked, at every redirect, and
//! the connection goes to the addresses checked). The command line fetches what its user names
//! (`-u`, `-i`), local addresses included, politely ([`Polite`]): one request at a time, a
//! delay between two requests to one host, and what the site's robots.txt allows
//! ([`robots`]).

mod decode;
mod http;
pub mod robots;

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::{Duration, Instant};

use crate::source::http::{self as http_body, CodingError};
use robots::Robots;

/// Redirects followed before a fetch is given up.
pub const MAX_REDIRECTS: u32 = 5;

/// How much a fetch may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchLimits {
    /// The most bytes of a page kept, once decoded: a longer page is cut there
    /// ([`Cut::TooLarge`]).
    pub max_bytes: u64,
    /// The whole fetch (connecting, redirects, reading and decoding) must end within this;
    /// the time [`Polite`] waits between requests to a host is not counted.
    pub timeout: Duration,
}

/// A page fetched.
#[derive(Clone, Debug)]
pub struct Fetched {
    /// Its URL after redirects.
    pub url: String,
    /// Its bytes, decoded (content codings taken off, gzip inflated), at most
    /// [`FetchLimits::max_bytes`] of them.
    pub bytes: Vec<u8>,
    /// The encoding its Content-Type header names (`charset=`), if a known one: it comes
    /// before the page's own `<meta charset>`, as for a WARC response.
    pub encoding: Option<&'static encoding_rs::Encoding>,
    /// Why the page was cut short, if it was: `bytes` are what came before the cut.
    pub cut: Option<Cut>,
}

/// Why a fetched page was cut short; the part before the cut is kept.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Cut {
    /// Decoded, it is longer than [`FetchLimits::max_bytes`]: its first `max` bytes are kept.
    #[error("the page is larger than {max} bytes")]
    TooLarge {
        /// The limit.
        max: u64,
    },
    /// The connection closed before the bytes its Content-Length announced had come.
    #[error(
        "the connection closed after {got} of the {announced} bytes its Content-Length announced"
    )]
    Short {
        /// The bytes that came.
        got: u64,
        /// The bytes announced.
        announced: u64,
    },
    /// A chunked body ended before its last (empty) chunk (inside a chunk, or between two),
    /// or its framing is broken (a chunk size that is not a number, a chunk longer than its
    /// size).
    #[error("its chunked body {0}")]
    Chunked(crate::source::http::ChunkDamage),
    /// The deadline came before the page's end.
    #[error("its end did not come in time (--fetch-timeout)")]
    TimedOut,
    /// Reading failed part-way (the connection was reset, a TLS error).
    #[error("reading it failed: {0}")]
    Read(String),
    /// Its compressed data is damaged or cut.
    #[error("its compressed data is damaged: {0}")]
    Damaged(String),
}

/// Why a URL was not fetched.
#[derive(Clone, Debug, thiserror::Error)]
pub enum FetchError {
    /// A scheme other than `http` or `https` (`file:`, `ftp:`, none).
    #[error("only http and https URLs are fetched")]
    Scheme,
    /// The URL cannot be parsed.
    #[error("not a URL: {0}")]
    Url(String),
    /// The host resolves to an address of this machine or of a private network.
    #[error("{0}")]
    Refused(Refused),
    /// The host name cannot be resolved.
    #[error("cannot resolve {host}: {why}")]
    Resolve {
        /// The host and port.
        host: String,
        /// The resolver's answer.
        why: String,
    },
    /// No address of the host accepts a connection.
    #[error("cannot connect to {host}: {why}")]
    Connect {
        /// The host and port.
        host: String,
        /// The last address's error.
        why: String,
    },
    /// The TLS handshake or session failed (an untrusted certificate, a protocol error).
    #[error("TLS failure with {host}: {why}")]
    Tls {
        /// The host and port.
        host: String,
        /// rustls's error.
        why: String,
    },
    /// No answer came within the deadline.
    #[error("no answer within {} s (--fetch-timeout)", seconds(*.timeout))]
    TimedOut {
        /// The deadline's length.
        timeout: Duration,
    },
    /// The answer is not HTTP, or its head or framing cannot be read.
    #[error("the server's answer is not valid HTTP: {0}")]
    Protocol(String),
    /// The page comes in a content coding that is not decoded (or too many of them).
    #[error("the page is compressed as {0}, which is not decoded")]
    Encoding(String),
    /// The server answered with an error status, or a redirect that cannot be followed (no
    /// `Location`, or a 3xx status other than 301, 302, 303, 307 and 308).
    #[error("the server answered HTTP {0}")]
    Status(u16),
    /// The site redirects to a URL that is not fetched (another scheme, a non-public
    /// address) or is not a URL.
    #[error("the site redirects to {to}, which is not fetched: {why}")]
    Redirect {
        /// The redirect's target (at most 200 characters of it).
        to: String,
        /// Why it is not fetched.
        why: String,
    },
    /// More than [`MAX_REDIRECTS`] redirects.
    #[error("the site redirects more than {MAX_REDIRECTS} times")]
    TooManyRedirects,
    /// The site's robots.txt does not allow this crawler the URL.
    #[error("the site's robots.txt disallows it (--no-robots fetches it anyway)")]
    Robots,
    /// The site's robots.txt could not be read (no answer, a server error, a TLS failure):
    /// nothing of the site is fetched (RFC 9309).
    #[error("cannot read the site's robots.txt ({0}) (--no-robots fetches it anyway)")]
    RobotsUnreadable(Box<FetchError>),
    /// Sending the request or reading the answer failed.
    #[error("cannot fetch the page: {0}")]
    Failed(String),
}

impl FetchError {
    /// Whether the visitor's URL is at fault (refused before anything was fetched) rather
    /// than the remote server.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            FetchError::Scheme | FetchError::Url(_) | FetchError::Refused(_)
        )
    }

    /// Whether the host itself cannot be reached (not resolved, no connection, no TLS
    /// session): then its robots.txt is not to blame, and `--no-robots` cannot help.
    fn is_unreachable(&self) -> bool {
        matches!(
            self,
            FetchError::Resolve { .. } | FetchError::Connect { .. } | FetchError::Tls { .. }
        )
    }
}

/// A host that resolves to an address that is not fetched.
#[derive(Clone, Debug, thiserror::Error)]
#[error(
    "{host} resolves to {ip}, a loopback, private or otherwise non-public address: not fetched"
)]
pub struct Refused {
    /// The host and port, as asked of the resolver.
    pub host: String,
    /// The first address refused.
    pub ip: IpAddr,
}

/// Seconds as a message shows them: `30`, `0.5`.
fn seconds(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    let shown = format!("{seconds:.3}");
    shown
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

/// Fetches the page at `url` (GET), within `limits`, from a public address only (the web demo).
pub fn fetch(url: &str, limits: FetchLimits) -> Result<Fetched, FetchError> {
    fetch_from(url, limits, is_public, DEMO_AGENT, &mut |_| Ok(()))
}

/// Fetches the page at `url` (GET), within `limits`, from any address (as the command line's
/// [`Polite`] does, without its robots.txt and delay).
pub fn fetch_any(url: &str, limits: FetchLimits) -> Result<Fetched, FetchError> {
    fetch_from(url, limits, |_| true, USER_AGENT, &mut |_| Ok(()))
}

/// The user agent of the web demo's fetches.
const DEMO_AGENT: &str = concat!("ppl-filter/", env!("CARGO_PKG_VERSION"), " (web demo)");

/// The user agent of the command line's fetches.
pub const USER_AGENT: &str = concat!("ppl-filter/", env!("CARGO_PKG_VERSION"));

/// The name a robots.txt's rules are read for (`User-agent: ppl-filter`, else `*`).
pub const ROBOTS_NAME: &str = "ppl-filter";

/// The redirect statuses followed (as a browser follows them, with a GET).
const REDIRECTS: [u16; 5] = [301, 302, 303, 307, 308];

/// A redirect's target in a message: at most this many characters of it.
const MAX_SHOWN_URL_CHARS: usize = 200;

/// What is asked of each URL of a redirect chain, the first included, before it is fetched:
/// an error stops the fetch with it.
type Hop<'a> = dyn FnMut(&url::Url) -> Result<(), FetchError> + 'a;

/// Fetches the page at `url`, connecting only to addresses `allowed` accepts, each URL of the
/// redirect chain passed to `hop` before it is asked for. Redirects are followed here, so
/// that each target's scheme (and its address, when it is an address) is checked before
/// anything is sent to it; a host name's every address is checked before connecting. The
/// deadline counts the time spent fetching, not the time `hop` takes (a polite wait).
fn fetch_from(
    url: &str,
    limits: FetchLimits,
    allowed: fn(IpAddr) -> bool,
    user_agent: &str,
    hop: &mut Hop,
) -> Result<Fetched, FetchError> {
    if !is_fetched_scheme(url.split_once(':').map_or("", |(scheme, _)| scheme)) {
        return Err(FetchError::Scheme);
    }
    let mut url = url::Url::parse(url).map_err(|e| FetchError::Url(e.to_string()))?;
    let mut left = limits.timeout;
    let mut redirects = 0;
    loop {
        hop(&url)?;
        let deadline = Instant::now() + left;
        let response = http::get(&url, allowed, user_agent, deadline, limits.timeout).map_err(
            |e| match e {
                // An address refused after a redirect is the site's doing, not the visitor's.
                FetchError::Refused(refused) if redirects > 0 => FetchError::Redirect {
                    to: shown(url.as_str()),
                    why: refused.to_string(),
                },
                other => other,
            },
        )?;
        let status = response.status;
        if (200..300).contains(&status) {
            return read_page(url, response, limits.max_bytes, deadline);
        }
        let location = match response.header("location") {
            Some(location) if REDIRECTS.contains(&status) => location,
            _ => return Err(FetchError::Status(status)),
        };
        if redirects == MAX_REDIRECTS {
            return Err(FetchError::TooManyRedirects);
        }
        redirects += 1;
        url = redirect_target(&url, &location, allowed)?;
        left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(FetchError::TimedOut {
                timeout: limits.timeout,
            });
        }
    }
}

/// Where a redirect from `here` to `location` leads, if it is fetched: a URL whose scheme is
/// `http` or `https` and whose host, when it is an address, `allowed` accepts (a host name's
/// addresses are checked before connecting).
fn redirect_target(
    here: &url::Url,
    location: &str,
    allowed: fn(IpAddr) -> bool,
) -> Result<url::Url, FetchError> {
    let next = here.join(location).map_err(|e| FetchError::Redirect {
        to: shown(location),
        why: format!("not a URL ({e})"),
    })?;
    let refuse = |why: String| FetchError::Redirect {
        to: shown(next.as_str()),
        why,
    };
    if !is_fetched_scheme(next.scheme()) {
        return Err(refuse(FetchError::Scheme.to_string()));
    }
    let ip = match next.host() {
        Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
        _ => None,
    };
    if let Some(ip) = ip.filter(|ip| !allowed(*ip)) {
        let host = next.host_str().unwrap_or_default().to_string();
        return Err(refuse(Refused { host, ip }.to_string()));
    }
    Ok(next)
}

/// The page `response` (the answer from `url`) brings, decoded, at most `max_bytes` of it,
/// read by `deadline`, and the encoding its Content-Type names.
fn read_page(
    url: url::Url,
    response: http::Response,
    max_bytes: u64,
    deadline: Instant,
) -> Result<Fetched, FetchError> {
    let encoding = response
        .header("content-type")
        .and_then(|t| crate::source::http::charset_param(&t))
        .and_then(|charset| crate::decode::encoding_for_label(&charset));
    let mut names = response.transfer_codings.clone();
    if let Some(content) = response.header("content-encoding") {
        names.extend(
            content
                .split(',')
                .map(|c| c.trim().to_ascii_lowercase())
                .filter(|c| !c.is_empty()),
        );
    }
    let codings = http_body::codings(names.iter().map(String::as_str)).map_err(|e| match e {
        CodingError::Unknown(name) => FetchError::Encoding(shown(&name)),
        other => FetchError::Encoding(other.to_string()),
    })?;
    let (bytes, cut) = decode::read_decoded(response.body, &codings, max_bytes, deadline);
    Ok(Fetched {
        url: url.into(),
        bytes,
        encoding,
        cut,
    })
}

/// Whether URLs of this scheme are fetched: `http` and `https`, in any case.
fn is_fetched_scheme(scheme: &str) -> bool {
    ["http", "https"]
        .iter()
        .any(|s| scheme.eq_ignore_ascii_case(s))
}

/// A URL as a message shows it: its first [`MAX_SHOWN_URL_CHARS`] characters, on one line.
fn shown(url: &str) -> String {
    let mut shown: String = url
        .chars()
        .take(MAX_SHOWN_URL_CHARS)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if url.chars().nth(MAX_SHOWN_URL_CHARS).is_some() {
        shown.push('…');
    }
    shown
}

/// Whether `ip` is an address of the public internet: not unspecified, loopback, private,
/// shared (CGNAT), link-local, unique-local, multicast, broadcast, documentation or otherwise
/// reserved. An IPv6 address that carries an IPv4 one where the carried address is reached
/// (IPv4-mapped, NAT64's well-known prefix, 6to4) is judged by that one; the other forms that
/// carry one (IPv4-compatible, IPv4-translated, local-use NAT64, Teredo) are refused whole.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let refused = a == 0 // "this network", 0.0.0.0
        || ip.is_loopback() // 127/8
        || ip.is_private() // 10/8, 172.16/12, 192.168/16
        || ip.is_link_local() // 169.254/16
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT), 100.64/10
        || (a, b, c) == (192, 0, 0) // IETF protocol assignments, 192.0.0/24
        || (a == 198 && (b == 18 || b == 19)) // benchmarking, 198.18/15
        || ip.is_multicast() // 224/4
        || a >= 240; // reserved 240/4 and the broadcast address
    !refused
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    let embedded_v4 =
        |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    match segments {
        // IPv4-mapped (::ffff:0:0/96): a connection to it goes to the IPv4 address.
        [0, 0, 0, 0, 0, 0xffff, high, low] => return is_public_v4(embedded_v4(high, low)),
        // NAT64's well-known prefix (64:ff9b::/96) carries the address in its last 32 bits.
        [0x64, 0xff9b, 0, 0, 0, 0, high, low] => return is_public_v4(embedded_v4(high, low)),
        // 6to4 (2002::/16) carries it in bits 16 to 48.
        [0x2002, high, low, ..] => return is_public_v4(embedded_v4(high, low)),
        _ => {}
    }
    let [first, second, ..] = segments;
    let refused = (first & 0xff00) == 0 // ::/8, reserved: unspecified, loopback,
        // IPv4-compatible (::/96), IPv4-translated (::ffff:0:0:0/96); mapped is above
        || (first, second) == (0x64, 0xff9b) // NAT64, local use (64:ff9b:1::/48) and the rest
        || segments[..4] == [0x100, 0, 0, 0] // discard-only, 100::/64
        || (first == 0x2001 && second < 0x200) // IETF protocol assignments, 2001::/23:
        // Teredo (2001::/32), benchmarking (2001:2::/48), ORCHID
        || (first, second) == (0x2001, 0xdb8) // documentation, 2001:db8::/32
        || (first == 0x3fff && second < 0x1000) // documentation, 3fff::/20
        || first == 0x5f00 // segment routing (SRv6) SIDs, 5f00::/16
        || (first & 0xfe00) == 0xfc00 // unique local, fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local, fe80::/10
        || (first & 0xffc0) == 0xfec0 // site-local (deprecated), fec0::/10
        || ip.is_multicast(); // ff00::/8
    !refused
}

/// Fetches pages one at a time as a polite crawler does (the command line's `-u` and `-i`):
/// each host is asked at most once every `delay` (or its robots.txt's `Crawl-delay`, when
/// longer), and, unless told not to, only for what its robots.txt allows [`ROBOTS_NAME`]
/// ([`robots`]; read once a host, at most [`robots::MAX_ROBOTS_BYTES`] of it: a robots.txt
/// that is missing (4xx) allows everything, one that cannot be fetched (no answer, 5xx)
/// nothing). Each URL of a redirect chain is asked as the first is: its host's robots.txt and
/// delay apply.
pub struct Polite {
    limits: FetchLimits,
    delay: Duration,
    robots: bool,
    /// When each host (scheme, host and port) was last asked, and its robots.txt's rules: at
    /// most [`MAX_HOSTS`], whose rules take at most [`MAX_RULE_BYTES`] in all, the one asked
    /// longest ago forgotten first.
    hosts: HashMap<String, Host>,
    /// The bytes the hosts' rules take ([`Robots::heap_bytes`]).
    rule_bytes: usize,
}

/// Hosts [`Polite`] remembers at once (a list of URLs over millions of hosts must not hold a
/// robots.txt for each): a host forgotten and asked again has its robots.txt read again.
const MAX_HOSTS: usize = 10_000;

/// The most bytes the robots.txt rules [`Polite`] remembers may take, all hosts together:
/// past it the host asked longest ago is forgotten.
const MAX_RULE_BYTES: usize = 32 << 20;

/// What [`Polite`] knows of one host.
struct Host {
    last: Instant,
    /// Its robots.txt's rules (`None`: not read, when robots.txt is ignored).
    rules: Option<Rules>,
}

/// A robots.txt's rules for [`ROBOTS_NAME`].
enum Rules {
    /// Everything allowed (no robots.txt).
    All,
    /// Nothing allowed: robots.txt could not be fetched, for this reason.
    Unreadable(FetchError),
    /// As the file says.
    Robots(Robots),
}

impl Rules {
    fn heap_bytes(&self) -> usize {
        match self {
            Rules::Robots(robots) => robots.heap_bytes(),
            _ => 0,
        }
    }
}

impl Polite {
    /// A polite fetcher: every page within `limits`, at most one request every `delay` to a
    /// host, robots.txt obeyed when `robots`.
    pub fn new(limits: FetchLimits, delay: Duration, robots: bool) -> Polite {
        Polite {
            limits,
            delay,
            robots,
            hosts: HashMap::new(),
            rule_bytes: 0,
        }
    }

    /// Fetches `url`, each URL of its redirect chain after its host's robots.txt (read when
    /// the host is first asked) and as late as the host's delay asks.
    pub fn fetch(&mut self, url: &str) -> Result<Fetched, FetchError> {
        let limits = self.limits;
        // The host asked last: its request's end is when it was last asked.
        let mut asked: Option<String> = None;
        let fetched = fetch_from(url, limits, |_| true, USER_AGENT, &mut |hop| {
            if let Some(origin) = asked.take() {
                self.asked(&origin);
            }
            let origin = self.admit(hop)?;
            asked = Some(origin);
            Ok(())
        });
        if let Some(origin) = asked {
            self.asked(&origin);
        }
        fetched
    }

    /// Checks `url` against its host's robots.txt (read first if the host is new) and waits
    /// out the host's delay; returns the host's origin.
    fn admit(&mut self, url: &url::Url) -> Result<String, FetchError> {
        let origin = url.origin().ascii_serialization();
        if !self.hosts.contains_key(&origin) {
            let rules = self.robots.then(|| self.read_robots(&origin));
            self.remember(origin.clone(), rules);
        }
        let host = self.hosts.get(&origin).expect("inserted above");
        let path = &url[url::Position::BeforePath..url::Position::AfterQuery];
        let crawl_delay = match &host.rules {
            None | Some(Rules::All) => None,
            Some(Rules::Unreadable(why)) if why.is_unreachable() => return Err(why.clone()),
            Some(Rules::Unreadable(why)) => {
                return Err(FetchError::RobotsUnreadable(Box::new(why.clone())))
            }
            Some(Rules::Robots(robots)) if !robots.allows(path) => return Err(FetchError::Robots),
            Some(Rules::Robots(robots)) => robots.crawl_delay(),
        };
        let delay = crawl_delay.map_or(self.delay, |d| d.max(self.delay));
        let wait = (host.last + delay).saturating_duration_since(Instant::now());
        std::thread::sleep(wait);
        Ok(origin)
    }

    /// Remembers the host at `origin`, asked just now, and its `rules`, first forgetting the
    /// hosts asked longest ago as long as there are [`MAX_HOSTS`] or their rules and these
    /// would take more than [`MAX_RULE_BYTES`].
    fn remember(&mut self, origin: String, rules: Option<Rules>) {
        let bytes = rules.as_ref().map_or(0, Rules::heap_bytes);
        while !self.hosts.is_empty()
            && (self.hosts.len() >= MAX_HOSTS || self.rule_bytes + bytes > MAX_RULE_BYTES)
        {
            self.forget_the_longest_idle_host();
        }
        self.rule_bytes += bytes;
        let last = Instant::now();
        self.hosts.insert(origin, Host { last, rules });
    }

    /// Notes that the host at `origin` was asked just now.
    fn asked(&mut self, origin: &str) {
        if let Some(host) = self.hosts.get_mut(origin) {
            host.last = Instant::now();
        }
    }

    /// Forgets the host asked longest ago.
    fn forget_the_longest_idle_host(&mut self) {
        let idle = self
            .hosts
            .iter()
            .min_by_key(|(_, host)| host.last)
            .map(|(origin, _)| origin.clone());
        if let Some(host) = idle.and_then(|origin| self.hosts.remove(&origin)) {
            let bytes = host.rules.as_ref().map_or(0, Rules::heap_bytes);
            self.rule_bytes -= bytes;
        }
    }

    /// The rules of the robots.txt at `origin` (RFC 9309: a 4xx, or more than
    /// [`MAX_REDIRECTS`] redirects, allows everything; any other failure, nothing). A file cut
    /// short is read as far as it came.
    fn read_robots(&self, origin: &str) -> Rules {
        let limits = FetchLimits {
            max_bytes: robots::MAX_ROBOTS_BYTES,
            ..self.limits
        };
        match fetch_any(&format!("{origin}/robots.txt"), limits) {
            Ok(fetched) => {
                let text = match fetched.cut {
                    Some(_) => robots::whole_lines(&fetched.bytes),
                    None => &fetched.bytes,
                };
                Rules::Robots(Robots::parse(text, ROBOTS_NAME))
            }
            Err(FetchError::Status(status)) if (400..500).contains(&status) => Rules::All,
            Err(FetchError::TooManyRedirects) => Rules::All,
            Err(why) => Rules::Unreadable(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::http::ChunkDamage;
    use std::sync::{Arc, Mutex};

    fn public(address: &str) -> bool {
        is_public(address.parse().unwrap())
    }

    #[test]
    fn local_and_private_addresses_are_refused() {
        for address in [
            "0.0.0.0",
            "0.1.2.3",
            "127.0.0.1",
            "127.255.0.9",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.254",
            "192.0.0.8",
            "198.18.0.1",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::127.0.0.1",
            "::8.8.8.8",
            "::ffff:0:7f00:1",
            "::ffff:0:808:808",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::7f00:1",
            "64:ff9b::a00:1",
            "64:ff9b:1::7f00:1",
            "64:ff9b:1:ffff::808:808",
            "64:ff9b:2::1",
            "2002:c0a8:0101::1",
            "2002:7f00:1::1",
            "2002:a9fe:a9fe::",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001::1",
            "2001:0:7f00:1::",
            "2001:2::1",
            "2001:db8::1",
            "100::1",
            "3fff::1",
            "5f00::1",
            "fc00::1",
            "fd12:3456:789a::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
        ] {
            assert!(!public(address), "{address} must be refused");
        }
    }

    #[test]
    fn public_addresses_are_fetched() {
        for address in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.0.2.1",
            "198.20.0.1",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:0808:0808::1",
            "2001:200::1",
            "2a00:1450:4001:81c::200e",
            "3ffe::1",
            "4000::1",
        ] {
            assert!(public(address), "{address} must be fetched");
        }
    }

    #[test]
    fn only_http_and_https_are_fetched() {
        let limits = FetchLimits {
            max_bytes: 1024,
            timeout: Duration::from_secs(1),
        };
        for url in [
            "file:///etc/passwd",
            "ftp://example.com/",
            "example.com",
            "",
        ] {
            let error = fetch(url, limits).unwrap_err();
            assert!(matches!(error, FetchError::Scheme), "{url}: {error}");
        }
    }

    #[test]
    fn a_loopback_host_is_refused_before_connecting() {
        let limits = FetchLimits {
            max_bytes: 1024,
            timeout: Duration::from_secs(5),
        };
        for url in [
            "http://127.0.0.1:1/",
            "HTTPS://[::1]/x",
            "http://localhost/",
        ] {
            let error = fetch(url, limits).unwrap_err();
            assert!(matches!(error, FetchError::Refused(_)), "{url}: {error}");
            assert!(error.is_refusal());
        }
    }

    #[test]
    fn a_crawl_delay_that_is_not_a_number_is_ignored() {
        let url = serve(2, |path, _| {
            let body = match path {
                "/robots.txt" => "User-agent: *\nCrawl-delay: NaN\n",
                _ => "<p>page</p>",
            };
            format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        });
        let mut polite = Polite::new(LIMITS, Duration::ZERO, true);
        let fetched = polite.fetch(&format!("{url}/page.html")).unwrap();
        assert_eq!(fetched.bytes, b"<p>page</p>");
    }

    #[test]
    fn the_host_asked_longest_ago_is_forgotten_first() {
        let mut polite = Polite::new(LIMITS, Duration::ZERO, false);
        let start = Instant::now();
        for (origin, ago) in [("http://a", 3), ("http://b", 9), ("http://c", 1)] {
            let last = start - Duration::from_secs(ago);
            polite
                .hosts
                .insert(origin.into(), Host { last, rules: None });
        }
        polite.forget_the_longest_idle_host();
        let mut left: Vec<&String> = polite.hosts.keys().collect();
        left.sort();
        assert_eq!(left, ["http://a", "http://c"]);
    }

    /// Loopback IPv4 only: the test servers below are reachable, nothing else is.
    fn loopback_v4(ip: IpAddr) -> bool {
        ip == IpAddr::V4(Ipv4Addr::LOCALHOST)
    }

    /// A server on 127.0.0.1 answering each of `answers` connections with the answer
    /// `respond` gives for its request's path and port; returns its base URL.
    fn serve(answers: usize, respond: fn(&str, u16) -> String) -> String {
        serve_raw(answers, move |path, port| respond(path, port).into_bytes())
    }

    /// A server on 127.0.0.1 answering each of `answers` connections with the bytes
    /// `respond` gives for its request's path and port, then closing it; returns its base URL.
    fn serve_raw(
        answers: usize,
        respond: impl Fn(&str, u16) -> Vec<u8> + Send + 'static,
    ) -> String {
        serve_logged(answers, respond).0
    }

    /// As [`serve_raw`], with the requests' heads (in lower case), in order.
    fn serve_logged(
        answers: usize,
        respond: impl Fn(&str, u16) -> Vec<u8> + Send + 'static,
    ) -> (String, Arc<Mutex<Vec<String>>>) {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let heads = Arc::clone(&log);
        std::thread::spawn(move || {
            for stream in listener.incoming().take(answers) {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 2 {
                    head.push_str(&line);
                    line.clear();
                }
                let path = head.split(' ').nth(1).unwrap_or("/").to_string();
                heads.lock().unwrap().push(head.to_ascii_lowercase());
                let _ = stream.write_all(&respond(&path, port));
            }
        });
        (format!("http://127.0.0.1:{port}"), log)
    }

    /// Fetches `url` from 127.0.0.1 only, as the demo fetches from public addresses.
    fn local(url: &str) -> Result<Fetched, FetchError> {
        fetch_from(url, LIMITS, loopback_v4, USER_AGENT, &mut |_| Ok(()))
    }

    fn redirect(location: &str) -> String {
        format!(
            "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\
             Connection: close\r\n\r\n"
        )
    }

    const LIMITS: FetchLimits = FetchLimits {
        max_bytes: 1024,
        timeout: Duration::from_secs(30),
    };

    #[test]
    fn a_redirect_to_another_scheme_is_not_followed() {
        let url = serve(1, |_, _| redirect("file:///etc/passwd"));
        let error = local(&url).unwrap_err();
        assert!(!error.is_refusal(), "{error}");
        assert_eq!(
            error.to_string(),
            "the site redirects to file:///etc/passwd, which is not fetched: \
             only http and https URLs are fetched"
        );
        for location in ["gopher://127.0.0.1:70/_x", "ftp://example.com/", "data:,x"] {
            let url = serve(1, |path, _| redirect(&path[1..]));
            let error = local(&format!("{url}/{location}")).unwrap_err();
            assert!(
                matches!(error, FetchError::Redirect { .. }),
                "{location}: {error}"
            );
        }
    }

    #[test]
    fn a_redirect_to_a_refused_address_is_not_followed() {
        // Each is refused before it is connected to: nothing listens there.
        for location in [
            "http://[::1]:1/",
            "http://127.0.0.2:1/",
            "http://[64:ff9b:1::7f00:1]/",
            "http://[::ffff:0:7f00:1]/",
            "https://[::ffff:127.0.0.1]/",
            "http://10.0.0.1/",
        ] {
            let url = serve(1, |path, _| redirect(&path[1..]));
            let error = local(&format!("{url}/{location}")).unwrap_err();
            let message = error.to_string();
            assert!(matches!(error, FetchError::Redirect { .. }), "{message}");
            assert!(message.contains("non-public address"), "{message}");
        }
        // The first URL's own address is the visitor's fault, not the site's.
        let error = local("http://10.0.0.1/").unwrap_err();
        assert!(error.is_refusal(), "{error}");
    }

    #[test]
    fn redirects_are_followed_to_the_page_and_counted() {
        let url = serve(3, |path, _| match path {
            "/" => redirect("/a"),
            "/a" => redirect("b?c=d"),
            _ => format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{path}",
                path.len()
            ),
        });
        let fetched = local(&format!("{url}/")).unwrap();
        assert_eq!(fetched.url, format!("{url}/b?c=d"));
        assert_eq!(fetched.bytes, b"/b?c=d");
        assert_eq!(fetched.encoding, Some(encoding_rs::UTF_8));
        let url = serve(MAX_REDIRECTS as usize + 1, |_, _| redirect("/again"));
        let error = local(&url).unwrap_err();
        assert!(matches!(error, FetchError::TooManyRedirects), "{error}");
        let url = serve(1, |_, _| {
            "HTTP/1.1 302 Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into()
        });
        let error = local(&url).unwrap_err();
        assert!(matches!(error, FetchError::Status(302)), "{error}");
    }

    /// `n` bytes of spaces, gzipped as it is written (never all held uncompressed).
    fn gzipped_spaces(n: usize) -> Vec<u8> {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let block = vec![b' '; 1 << 16];
        for _ in 0..n / block.len() {
            gz.write_all(&block).unwrap();
        }
        gz.finish().unwrap()
    }

    /// `n` bytes of spaces, brotli-compressed as it is written.
    fn brotli_spaces(n: usize) -> Vec<u8> {
        use std::io::Write;
        let mut out = Vec::new();
        {
            let mut br = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
            let block = vec![b' '; 1 << 16];
            for _ in 0..n / block.len() {
                br.write_all(&block).unwrap();
            }
        }
        out
    }

    /// An answer 200 with `headers` (each ending in CRLF) and `body`, whose Content-Length is
    /// the body's.
    fn ok(headers: &str, body: &[u8]) -> Vec<u8> {
        let head = format!(
            "HTTP/1.1 200 OK\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        [head.as_bytes(), body].concat()
    }

    const SMALL: FetchLimits = FetchLimits {
        max_bytes: 1 << 20,
        timeout: Duration::from_secs(30),
    };

    fn small(url: &str) -> Result<Fetched, FetchError> {
        fetch_from(url, SMALL, loopback_v4, USER_AGENT, &mut |_| Ok(()))
    }

    #[test]
    fn a_gzip_bomb_is_cut_at_the_bound_with_or_without_its_coding_said() {
        let bomb = Arc::new(gzipped_spaces(64 << 20));
        let br = Arc::new(brotli_spaces(64 << 20));
        assert!(bomb.len() < 200_000 && br.len() < 200_000);
        let (url, heads) = serve_logged(4, move |path, _| match path {
            "/plain.html.gz" => ok("", &bomb),
            "/gzip" => ok("Content-Encoding: gzip\r\n", &bomb),
            "/twice" => {
                // A gzip of the bomb, said to be gzip: two layers.
                use std::io::Write;
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), Default::default());
                gz.write_all(&bomb).unwrap();
                ok("Content-Encoding: x-gzip\r\n", &gz.finish().unwrap())
            }
            _ => ok("Content-Encoding: br\r\n", &br),
        });
        let started = Instant::now();
        for path in ["/plain.html.gz", "/gzip", "/twice", "/br"] {
            let fetched = small(&format!("{url}{path}")).unwrap();
            assert_eq!(fetched.bytes.len(), 1 << 20, "{path}");
            assert!(fetched.bytes.iter().all(|&b| b == b' '), "{path}");
            assert_eq!(fetched.cut, Some(Cut::TooLarge { max: 1 << 20 }), "{path}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "a hang is the bug"
        );
        let heads = heads.lock().unwrap();
        assert!(
            heads[0].contains("accept-encoding: gzip, deflate, br\r\n"),
            "{heads:?}"
        );
    }

    #[test]
    fn deflate_zlib_wrapped_or_raw_is_decoded_and_an_unknown_coding_refused() {
        use std::io::Write;
        let url = serve_raw(3, |path, _| {
            let text = b"<p>A page sent deflated.</p>";
            match path {
                "/zlib" => {
                    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), Default::default());
                    z.write_all(text).unwrap();
                    ok("Content-Encoding: deflate\r\n", &z.finish().unwrap())
                }
                "/raw" => {
                    let mut z = flate2::write::DeflateEncoder::new(Vec::new(), Default::default());
                    z.write_all(text).unwrap();
                    ok("Content-Encoding: Deflate\r\n", &z.finish().unwrap())
                }
                _ => ok("Content-Encoding: zstd\r\n", text),
            }
        });
        for path in ["/zlib", "/raw"] {
            let fetched = small(&format!("{url}{path}")).unwrap();
            assert_eq!(fetched.bytes, b"<p>A page sent deflated.</p>", "{path}");
            assert_eq!(fetched.cut, None);
        }
        let error = small(&format!("{url}/zstd")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the page is compressed as zstd, which is not decoded"
        );
    }

    #[test]
    fn a_body_cut_short_is_kept_as_far_as_it_came_and_said_to_be_cut() {
        let url = serve_raw(6, |path, _| {
            if path == "/deflated" {
                // A whole deflate stream in a chunked body without its last chunk.
                let mut z = flate2::write::ZlibEncoder::new(Vec::new(), Default::default());
                std::io::Write::write_all(&mut z, b"<p>only this").unwrap();
                let data = z.finish().unwrap();
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\n\
                     Transfer-Encoding: chunked\r\n\r\n{:x}\r\n",
                    data.len()
                );
                return [head.as_bytes(), &data, b"\r\n"].concat();
            }
            let answer: &[u8] = match path {
                "/short" => b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n<p>only this",
                "/in-chunk" => {
                    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
                                 5\r\n<p>on\r\n20\r\nly this"
                }
                "/between" => {
                    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
                                5\r\n<p>on\r\n7\r\nly this\r\n"
                }
                "/whole" => {
                    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
                              5\r\n<p>on\r\n7\r\nly this\r\n0\r\n\r\n"
                }
                _ => b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n\x1f\x8b\x08\x00\x00",
            };
            answer.to_vec()
        });
        let fetch = |path: &str| small(&format!("{url}{path}")).unwrap();
        let short = fetch("/short");
        assert_eq!(short.bytes, b"<p>only this");
        assert_eq!(
            short.cut,
            Some(Cut::Short {
                got: 12,
                announced: 100
            })
        );
        for (path, damage) in [
            (
                "/in-chunk",
                ChunkDamage::CutInChunk {
                    size: 0x20,
                    missing: 0x20 - 7,
                },
            ),
            ("/between", ChunkDamage::NoLastChunk),
            ("/deflated", ChunkDamage::NoLastChunk),
        ] {
            let cut = fetch(path);
            assert_eq!(cut.bytes, b"<p>only this", "{path}");
            assert_eq!(cut.cut, Some(Cut::Chunked(damage)), "{path}");
        }
        assert_eq!(
            Cut::Chunked(ChunkDamage::NoLastChunk).to_string(),
            "its chunked body ends without its last (zero-size) chunk: maybe cut short"
        );
        let whole = fetch("/whole");
        assert_eq!(
            (whole.bytes.as_slice(), whole.cut),
            (&b"<p>only this"[..], None)
        );
        let damaged = fetch("/gzip-cut");
        assert!(
            matches!(damaged.cut, Some(Cut::Damaged(_))),
            "{:?}",
            damaged.cut
        );
    }

    /// A port on 127.0.0.1 where nothing listens.
    fn closed_port() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    }

    /// A server on 127.0.0.1 that takes connections and never answers (kept open `for`).
    fn silent(hold: Duration) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            let until = Instant::now() + hold;
            listener.set_nonblocking(true).unwrap();
            while Instant::now() < until {
                if let Ok((stream, _)) = listener.accept() {
                    held.push(stream);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        format!("http://127.0.0.1:{port}")
    }

    #[test]
    fn failures_are_named_as_what_they_are() {
        let quick = FetchLimits {
            max_bytes: 1024,
            timeout: Duration::from_millis(500),
        };
        let unreachable = format!("http://127.0.0.1:{}/page", closed_port());
        let error = fetch_any(&unreachable, quick).unwrap_err();
        assert!(matches!(error, FetchError::Connect { .. }), "{error}");
        assert!(
            error
                .to_string()
                .starts_with("cannot connect to 127.0.0.1:"),
            "{error}"
        );
        let error =
            fetch_any(&format!("{}/page", silent(Duration::from_secs(5))), quick).unwrap_err();
        assert_eq!(
            error.to_string(),
            "no answer within 0.5 s (--fetch-timeout)"
        );
        // A server that answers TLS in plain text.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            use std::io::Write;
            if let Ok((mut stream, _)) = listener.accept() {
                let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n");
            }
        });
        let error = fetch_any(&format!("https://127.0.0.1:{port}/"), SMALL).unwrap_err();
        assert!(matches!(error, FetchError::Tls { .. }), "{error}");
        let url = serve_raw(1, |_, _| b"SSH-2.0-OpenSSH\r\n\r\n".to_vec());
        let error = fetch_any(&url, SMALL).unwrap_err();
        assert!(matches!(error, FetchError::Protocol(_)), "{error}");
    }

    #[test]
    fn a_robots_txt_that_cannot_be_read_is_named_and_one_that_disallows_is_told_apart() {
        let polite = |limits| Polite::new(limits, Duration::ZERO, true);
        let quick = FetchLimits {
            max_bytes: 1024,
            timeout: Duration::from_millis(500),
        };
        let unreachable = format!("http://127.0.0.1:{}/page", closed_port());
        // A host that cannot be reached is said so: its robots.txt is not to blame.
        let error = polite(quick).fetch(&unreachable).unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, FetchError::Connect { .. }), "{message}");
        assert!(
            message.starts_with("cannot connect to 127.0.0.1:") && !message.contains("robots"),
            "{message}"
        );
        let slow = format!("{}/page", silent(Duration::from_secs(5)));
        let error = polite(quick).fetch(&slow).unwrap_err();
        assert_eq!(
            error.to_string(),
            "cannot read the site's robots.txt (no answer within 0.5 s (--fetch-timeout)) \
             (--no-robots fetches it anyway)"
        );
        let url = serve(1, |_, _| {
            "HTTP/1.1 503 Unavailable\r\nContent-Length: 0\r\n\r\n".to_string()
        });
        let error = polite(LIMITS).fetch(&format!("{url}/page")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "cannot read the site's robots.txt (the server answered HTTP 503) \
             (--no-robots fetches it anyway)"
        );
        // A robots.txt over 500 KiB is read as far as that (RFC 9309), not refused.
        let url = serve_raw(3, |path, _| match path {
            "/robots.txt" => {
                let mut text = b"User-agent: *\nDisallow: /private\n".to_vec();
                text.resize(700 * 1024, b'\n');
                text.extend_from_slice(b"Disallow: /late\n");
                ok("", &text)
            }
            _ => ok("", b"<p>page</p>"),
        });
        let mut polite = polite(LIMITS);
        let error = polite.fetch(&format!("{url}/private/x")).unwrap_err();
        assert!(matches!(error, FetchError::Robots), "{error}");
        assert_eq!(
            error.to_string(),
            "the site's robots.txt disallows it (--no-robots fetches it anyway)"
        );
        assert_eq!(
            polite.fetch(&format!("{url}/late")).unwrap().bytes,
            b"<p>page</p>"
        );
    }

    #[test]
    fn each_hop_of_a_redirect_obeys_its_hosts_robots_txt_and_delay() {
        // Host B disallows /private and asks for a second between requests.
        let (b, b_asked) = serve_logged(3, |path, _| match path {
            "/robots.txt" => ok("", b"User-agent: *\nDisallow: /private\nCrawl-delay: 1\n"),
            _ => ok("", b"<p>b</p>"),
        });
        let to_b = b.clone();
        let a = serve_raw(3, move |path, _| match path {
            "/robots.txt" => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec(),
            "/to-private" => redirect(&format!("{to_b}/private/x")).into_bytes(),
            _ => redirect(&format!("{to_b}/open")).into_bytes(),
        });
        let mut polite = Polite::new(LIMITS, Duration::ZERO, true);
        assert_eq!(
            polite.fetch(&format!("{b}/first")).unwrap().bytes,
            b"<p>b</p>"
        );
        let second = Instant::now();
        let fetched = polite.fetch(&format!("{a}/to-open")).unwrap();
        assert_eq!(fetched.url, format!("{b}/open"));
        // B's delay was waited for before the redirect's hop to it.
        assert!(second.elapsed() >= Duration::from_millis(900));
        let error = polite.fetch(&format!("{a}/to-private")).unwrap_err();
        assert!(matches!(error, FetchError::Robots), "{error}");
        let asked: Vec<String> = b_asked
            .lock()
            .unwrap()
            .iter()
            .map(|head| head.split(' ').nth(1).unwrap_or_default().to_string())
            .collect();
        assert_eq!(asked, ["/robots.txt", "/first", "/open"]);
    }

    #[test]
    fn the_rules_kept_over_all_hosts_are_bounded() {
        let mut polite = Polite::new(LIMITS, Duration::ZERO, true);
        let big = Robots::parse(
            "User-agent: *\nDisallow: /*a*b*c\n"
                .repeat(20_000)
                .as_bytes(),
            ROBOTS_NAME,
        );
        let each = big.heap_bytes();
        assert!(each > 100_000);
        for i in 0..(MAX_RULE_BYTES / each + 5) {
            polite.remember(format!("http://host{i}"), Some(Rules::Robots(big.clone())));
            std::thread::sleep(Duration::from_millis(1));
        }
        let kept: usize = polite
            .hosts
            .values()
            .filter_map(|h| h.rules.as_ref())
            .map(Rules::heap_bytes)
            .sum();
        assert_eq!(kept, polite.rule_bytes);
        assert!(polite.hosts.len() < MAX_RULE_BYTES / each + 5);
        // The last host asked is among those kept.
        let last = format!("http://host{}", MAX_RULE_BYTES / each + 4);
        assert!(polite.hosts.contains_key(&last));
        assert!(kept <= MAX_RULE_BYTES);
    }
}
