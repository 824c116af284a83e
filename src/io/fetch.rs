//! Fetching the page at a URL, within limits: only `http` and `https`, at most
//! [`MAX_REDIRECTS`] redirects, a deadline for the whole fetch and a bound on the page's size.
//! Redirects are followed here, one at a time: each target's scheme and address are checked
//! before it is asked for.
//!
//! Two callers, two policies. The web demo fetches what a visitor typed ([`fetch`]): only
//! public addresses (every address a host name resolves to is checked, at every redirect, and
//! the connection goes to the addresses checked). The command line fetches what its user names
//! (`-u`, `-i`), local addresses included, politely ([`Polite`]): one request at a time, a
//! delay between two requests to one host, and what the site's robots.txt allows.

use std::io::{self, Read};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Redirects followed before a fetch is given up.
pub const MAX_REDIRECTS: u32 = 5;

/// How much a fetch may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchLimits {
    /// A larger page is refused.
    pub max_bytes: u64,
    /// The whole fetch (connecting, redirects and reading) must end within this.
    pub timeout: Duration,
}

/// A page fetched.
#[derive(Clone, Debug)]
pub struct Fetched {
    /// Its URL after redirects.
    pub url: String,
    /// Its bytes, as sent.
    pub bytes: Vec<u8>,
    /// The encoding its Content-Type header names (`charset=`), if a known one: it comes
    /// before the page's own `<meta charset>`, as for a WARC response.
    pub encoding: Option<&'static encoding_rs::Encoding>,
}

/// Why a URL was not fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// A scheme other than `http` or `https` (`file:`, `ftp:`, none).
    #[error("only http and https URLs are fetched")]
    Scheme,
    /// The host resolves to an address of this machine or of a private network.
    #[error("{0}")]
    Refused(Refused),
    /// The page is larger than [`FetchLimits::max_bytes`].
    #[error("the page is larger than {max} bytes: not cleaned")]
    TooLarge {
        /// The limit.
        max: u64,
    },
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
    /// The URL is malformed, or the host cannot be resolved, reached or read in time.
    #[error("cannot fetch the page: {0}")]
    Failed(String),
}

impl FetchError {
    /// Whether the visitor's URL is at fault (refused before anything was fetched) rather
    /// than the remote server.
    pub fn is_refusal(&self) -> bool {
        matches!(self, FetchError::Scheme | FetchError::Refused(_))
    }
}

/// A host that resolves to an address that is not fetched.
#[derive(Debug, thiserror::Error)]
#[error(
    "{host} resolves to {ip}, a loopback, private or otherwise non-public address: not fetched"
)]
pub struct Refused {
    /// The host and port, as asked of the resolver.
    pub host: String,
    /// The first address refused.
    pub ip: IpAddr,
}

/// Fetches the page at `url` (GET), within `limits`, from a public address only (the web demo).
pub fn fetch(url: &str, limits: FetchLimits) -> Result<Fetched, FetchError> {
    fetch_from(url, limits, is_public, DEMO_AGENT)
}

/// Fetches the page at `url` (GET), within `limits`, from any address (the command line's
/// [`Polite`] fetches, as its user names them).
pub fn fetch_any(url: &str, limits: FetchLimits) -> Result<Fetched, FetchError> {
    fetch_from(url, limits, |_| true, USER_AGENT)
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

/// Fetches the page at `url`, connecting only to addresses `allowed` accepts. Redirects are
/// followed here, not by ureq, so that each target's scheme (and its address, when it is an
/// address) is checked before anything is sent to it; a host name is checked by the resolver,
/// every address it resolves to, before connecting.
fn fetch_from(
    url: &str,
    limits: FetchLimits,
    allowed: fn(IpAddr) -> bool,
    user_agent: &str,
) -> Result<Fetched, FetchError> {
    if !is_fetched_scheme(url.split_once(':').map_or("", |(scheme, _)| scheme)) {
        return Err(FetchError::Scheme);
    }
    let deadline = Instant::now() + limits.timeout;
    let agent = ureq::AgentBuilder::new()
        .resolver(Allowed(allowed))
        .redirects(0)
        .user_agent(user_agent)
        .build();
    let mut url = url.to_string();
    let mut redirects = 0;
    let response = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(FetchError::Failed(format!(
                "no answer within {} s (--fetch-timeout)",
                limits.timeout.as_secs()
            )));
        }
        let request = agent.get(&url).timeout(left);
        let here = request
            .request_url()
            .map_err(|e| FetchError::Failed(crate::errors::one_line(&e)))?;
        let response = request
            .call()
            .map_err(|e| call_error(e, &url, redirects > 0))?;
        let status = response.status();
        if !(300..400).contains(&status) {
            break response;
        }
        let location = match response.header("location") {
            Some(location) if REDIRECTS.contains(&status) => location,
            _ => return Err(FetchError::Status(status)),
        };
        if redirects == MAX_REDIRECTS {
            return Err(FetchError::TooManyRedirects);
        }
        redirects += 1;
        url = redirect_target(&here, location, allowed)?;
    };
    read_page(url, response, limits.max_bytes)
}

/// A request to `url` that failed as a [`FetchError`]. An address refused after a
/// redirect (`redirected`) is the site's doing, not the visitor's: a redirect not followed.
fn call_error(error: ureq::Error, url: &str, redirected: bool) -> FetchError {
    match fetch_error(error) {
        FetchError::Refused(refused) if redirected => FetchError::Redirect {
            to: shown(url),
            why: refused.to_string(),
        },
        other => other,
    }
}

/// Where a redirect from `here` to `location` leads, if it is fetched: a URL whose scheme is
/// `http` or `https` and whose host, when it is an address, `allowed` accepts (a host name is
/// checked by the resolver, before connecting).
fn redirect_target(
    here: &ureq::RequestUrl,
    location: &str,
    allowed: fn(IpAddr) -> bool,
) -> Result<String, FetchError> {
    let next = here
        .as_url()
        .join(location)
        .map_err(|e| FetchError::Redirect {
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
    // An address is refused here; a name, by the resolver before connecting.
    let host = next.host_str().unwrap_or_default();
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    if let Some(ip) = literal.parse().ok().filter(|ip| !allowed(*ip)) {
        let host = host.to_string();
        return Err(refuse(Refused { host, ip }.to_string()));
    }
    Ok(next.into())
}

/// The page `response` (the answer from `url`) brings, if it holds at most `max_bytes`, and
/// the encoding its Content-Type names.
fn read_page(url: String, response: ureq::Response, max_bytes: u64) -> Result<Fetched, FetchError> {
    let too_large = FetchError::TooLarge { max: max_bytes };
    let announced = response
        .header("content-length")
        .and_then(|n| n.trim().parse::<u64>().ok());
    if announced.is_some_and(|n| n > max_bytes) {
        return Err(too_large);
    }
    let encoding = response
        .header("content-type")
        .and_then(crate::io::warc::charset_param)
        .and_then(|charset| crate::decode::encoding_for_label(&charset));
    let mut bytes = Vec::new();
    response
        .into_reader()
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| FetchError::Failed(e.to_string()))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large);
    }
    Ok(Fetched {
        url,
        bytes,
        encoding,
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

/// A ureq error as a [`FetchError`]: a refused address found among its causes, an error
/// status, or any other failure as one line.
fn fetch_error(error: ureq::Error) -> FetchError {
    if let ureq::Error::Status(status, _) = error {
        return FetchError::Status(status);
    }
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(e) = cause {
        let refused = e
            .downcast_ref::<io::Error>()
            .and_then(|e| e.get_ref())
            .and_then(|inner| inner.downcast_ref::<Refused>());
        if let Some(refused) = refused {
            return FetchError::Refused(Refused {
                host: refused.host.clone(),
                ip: refused.ip,
            });
        }
        cause = e.source();
    }
    FetchError::Failed(crate::errors::one_line(&error))
}

/// A resolver that refuses a host when any of its addresses is not allowed (not public, for
/// [`fetch`]), so that neither the first request nor a redirect reaches this machine or a
/// private network.
struct Allowed(fn(IpAddr) -> bool);

impl ureq::Resolver for Allowed {
    fn resolve(&self, netloc: &str) -> io::Result<Vec<SocketAddr>> {
        let addrs: Vec<SocketAddr> = netloc.to_socket_addrs()?.collect();
        match addrs.iter().find(|addr| !(self.0)(addr.ip())) {
            Some(addr) => Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                Refused {
                    host: netloc.to_string(),
                    ip: addr.ip(),
                },
            )),
            None => Ok(addrs),
        }
    }
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
/// (RFC 9309, read by the `texting_robots` crate; fetched once a host: a robots.txt that is
/// missing (4xx) allows everything, one that cannot be fetched (5xx, no answer) nothing).
pub struct Polite {
    limits: FetchLimits,
    delay: Duration,
    robots: bool,
    /// When each host (scheme, host and port) was last asked, and its robots.txt's rules: at
    /// most [`MAX_HOSTS`], the one asked longest ago forgotten first.
    hosts: std::collections::HashMap<String, Host>,
}

/// Hosts [`Polite`] remembers at once (a list of URLs over millions of hosts must not hold a
/// robots.txt for each): a host forgotten and asked again has its robots.txt read again.
const MAX_HOSTS: usize = 10_000;

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
    /// Nothing allowed (robots.txt could not be fetched).
    Nothing,
    /// As the file says.
    Robot(Box<texting_robots::Robot>),
}

impl Polite {
    /// A polite fetcher: every page within `limits`, at most one request every `delay` to a
    /// host, robots.txt obeyed when `robots`.
    pub fn new(limits: FetchLimits, delay: Duration, robots: bool) -> Polite {
        Polite {
            limits,
            delay,
            robots,
            hosts: std::collections::HashMap::new(),
        }
    }

    /// Fetches `url`, after its host's robots.txt when it is first asked, waiting as long as
    /// the host's delay asks.
    pub fn fetch(&mut self, url: &str) -> Result<Fetched, FetchError> {
        let parsed =
            url::Url::parse(url).map_err(|e| FetchError::Failed(format!("not a URL: {e}")))?;
        if !is_fetched_scheme(parsed.scheme()) {
            return Err(FetchError::Scheme);
        }
        let origin = parsed.origin().ascii_serialization();
        if !self.hosts.contains_key(&origin) {
            if self.hosts.len() >= MAX_HOSTS {
                self.forget_the_longest_idle_host();
            }
            let rules = self.robots.then(|| self.read_robots(&origin));
            let last = Instant::now();
            self.hosts.insert(origin.clone(), Host { last, rules });
        }
        let host = self.hosts.get_mut(&origin).expect("inserted above");
        let allowed = match &host.rules {
            None | Some(Rules::All) => true,
            Some(Rules::Nothing) => false,
            Some(Rules::Robot(robot)) => robot.allowed(parsed.as_str()),
        };
        if !allowed {
            return Err(FetchError::Robots);
        }
        let crawl_delay = match &host.rules {
            // A delay that is not a number (`Crawl-delay: NaN`) is ignored.
            Some(Rules::Robot(robot)) => robot
                .delay
                .and_then(|s| Duration::try_from_secs_f32(s.clamp(0.0, 60.0)).ok()),
            _ => None,
        };
        let delay = crawl_delay.map_or(self.delay, |d| d.max(self.delay));
        let wait = (host.last + delay).saturating_duration_since(Instant::now());
        std::thread::sleep(wait);
        let fetched = fetch_any(url, self.limits);
        host.last = Instant::now();
        fetched
    }

    /// Forgets the host asked longest ago.
    fn forget_the_longest_idle_host(&mut self) {
        let idle = self
            .hosts
            .iter()
            .min_by_key(|(_, host)| host.last)
            .map(|(origin, _)| origin.clone());
        if let Some(origin) = idle {
            self.hosts.remove(&origin);
        }
    }

    /// The rules of the robots.txt at `origin`.
    fn read_robots(&self, origin: &str) -> Rules {
        match fetch_any(&format!("{origin}/robots.txt"), self.limits) {
            Ok(fetched) => match texting_robots::Robot::new(ROBOTS_NAME, &fetched.bytes) {
                Ok(robot) => Rules::Robot(Box::new(robot)),
                // A file that cannot be read as rules allows everything, as a missing one.
                Err(_) => Rules::All,
            },
            Err(FetchError::Status(status)) if (400..500).contains(&status) => Rules::All,
            Err(_) => Rules::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    /// `respond` gives for its request's path; returns its base URL.
    fn serve(answers: usize, respond: fn(&str, u16) -> String) -> String {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(answers) {
                let mut stream = stream.unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                reader.read_line(&mut request_line).unwrap();
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap() > 2 {
                    line.clear();
                }
                let path = request_line.split(' ').nth(1).unwrap_or("/");
                let _ = stream.write_all(respond(path, port).as_bytes());
            }
        });
        format!("http://127.0.0.1:{port}")
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
        let error = fetch_from(&url, LIMITS, loopback_v4, USER_AGENT).unwrap_err();
        assert!(!error.is_refusal(), "{error}");
        assert_eq!(
            error.to_string(),
            "the site redirects to file:///etc/passwd, which is not fetched: \
             only http and https URLs are fetched"
        );
        for location in ["gopher://127.0.0.1:70/_x", "ftp://example.com/", "data:,x"] {
            let url = serve(1, |path, _| redirect(&path[1..]));
            let error = fetch_from(
                &format!("{url}/{location}"),
                LIMITS,
                loopback_v4,
                USER_AGENT,
            )
            .unwrap_err();
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
            let error = fetch_from(
                &format!("{url}/{location}"),
                LIMITS,
                loopback_v4,
                USER_AGENT,
            )
            .unwrap_err();
            let message = error.to_string();
            assert!(matches!(error, FetchError::Redirect { .. }), "{message}");
            assert!(message.contains("non-public address"), "{message}");
        }
        // The first URL's own address is the visitor's fault, not the site's.
        let error = fetch_from("http://10.0.0.1/", LIMITS, loopback_v4, USER_AGENT).unwrap_err();
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
        let fetched = fetch_from(&format!("{url}/"), LIMITS, loopback_v4, USER_AGENT).unwrap();
        assert_eq!(fetched.url, format!("{url}/b?c=d"));
        assert_eq!(fetched.bytes, b"/b?c=d");
        assert_eq!(fetched.encoding, Some(encoding_rs::UTF_8));
        let url = serve(MAX_REDIRECTS as usize + 1, |_, _| redirect("/again"));
        let error = fetch_from(&url, LIMITS, loopback_v4, USER_AGENT).unwrap_err();
        assert!(matches!(error, FetchError::TooManyRedirects), "{error}");
        let url = serve(1, |_, _| {
            "HTTP/1.1 302 Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into()
        });
        let error = fetch_from(&url, LIMITS, loopback_v4, USER_AGENT).unwrap_err();
        assert!(matches!(error, FetchError::Status(302)), "{error}");
    }
}
