//! Fetching the page at a URL a visitor typed, within limits: only `http` and `https`, only
//! public addresses (every address a host name resolves to is checked, at every redirect, and
//! the connection goes to the addresses checked), at most [`MAX_REDIRECTS`] redirects, a
//! deadline for the whole fetch and a bound on the page's size.

use std::io::{self, Read};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::time::Duration;

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
    #[error("the page is larger than {max} bytes (--max-fetch-bytes): not cleaned")]
    TooLarge {
        /// The limit.
        max: u64,
    },
    /// The server answered with an error status.
    #[error("the server answered HTTP {0}")]
    Status(u16),
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

/// Fetches the page at `url` (GET), within `limits`.
pub fn fetch(url: &str, limits: FetchLimits) -> Result<Fetched, FetchError> {
    let scheme = url.split_once(':').map_or("", |(scheme, _)| scheme);
    if !["http", "https"]
        .iter()
        .any(|s| scheme.eq_ignore_ascii_case(s))
    {
        return Err(FetchError::Scheme);
    }
    let agent = ureq::AgentBuilder::new()
        .resolver(PublicOnly)
        // ureq gives up when it meets its limit, counting the first answer.
        .redirects(MAX_REDIRECTS + 1)
        .timeout(limits.timeout)
        .user_agent(concat!(
            "ppl-filter/",
            env!("CARGO_PKG_VERSION"),
            " (web demo)"
        ))
        .build();
    let response = agent.get(url).call().map_err(fetch_error)?;
    let too_large = FetchError::TooLarge {
        max: limits.max_bytes,
    };
    let announced = response
        .header("content-length")
        .and_then(|n| n.trim().parse::<u64>().ok());
    if announced.is_some_and(|n| n > limits.max_bytes) {
        return Err(too_large);
    }
    let url = response.get_url().to_string();
    let encoding = response
        .header("content-type")
        .and_then(crate::io::warc::charset_param)
        .and_then(|charset| crate::decode::encoding_for_label(&charset));
    let mut bytes = Vec::new();
    response
        .into_reader()
        .take(limits.max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| FetchError::Failed(e.to_string()))?;
    if bytes.len() as u64 > limits.max_bytes {
        return Err(too_large);
    }
    Ok(Fetched {
        url,
        bytes,
        encoding,
    })
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
    FetchError::Failed(crate::cli::one_line(&error))
}

/// A resolver that refuses a host when any of its addresses is not public, so that neither
/// the first request nor a redirect reaches this machine or a private network.
struct PublicOnly;

impl ureq::Resolver for PublicOnly {
    fn resolve(&self, netloc: &str) -> io::Result<Vec<SocketAddr>> {
        let addrs: Vec<SocketAddr> = netloc.to_socket_addrs()?.collect();
        match addrs.iter().find(|addr| !is_public(addr.ip())) {
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
/// shared (CGNAT), link-local, unique-local, multicast, broadcast or reserved. An IPv6
/// address that carries an IPv4 one (mapped, NAT64, 6to4) is judged by that one.
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
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    match segments {
        // NAT64 (64:ff9b::/96) carries the address in its last 32 bits.
        [0x64, 0xff9b, 0, 0, 0, 0, high, low] => return is_public_v4(embedded_v4(high, low)),
        // 6to4 (2002::/16) carries it in bits 16 to 48.
        [0x2002, high, low, ..] => return is_public_v4(embedded_v4(high, low)),
        _ => {}
    }
    let first = segments[0];
    let refused = ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast() // ff00::/8
        || (first & 0xfe00) == 0xfc00 // unique local, fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local, fe80::/10
        || (first & 0xffc0) == 0xfec0 // site-local (deprecated), fec0::/10
        || segments[..6] == [0; 6]; // IPv4-compatible (deprecated), ::a.b.c.d
    !refused
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
            "64:ff9b::a9fe:a9fe",
            "2002:c0a8:0101::1",
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
}
