//! The connections a server holds open, counted in all and per client ([`Connections`]): one
//! past [`ServeSettings::max_connections`] or [`ServeSettings::max_connections_per_client`] is
//! closed as soon as it is accepted, so that a few clients that open connections and hold
//! them (sending nothing, or a byte at a time) cannot take every place.
//!
//! [`ServeSettings::max_connections`]: super::ServeSettings::max_connections
//! [`ServeSettings::max_connections_per_client`]: super::ServeSettings::max_connections_per_client

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex};

/// The connections open, in all and per client.
#[derive(Debug)]
pub struct Connections {
    open: Mutex<Open>,
    max: usize,
    max_per_client: usize,
}

/// The counts, under the lock.
#[derive(Debug, Default)]
struct Open {
    total: usize,
    per_client: HashMap<IpAddr, usize>,
}

/// One connection counted: the count is given back when it is dropped (when the connection
/// is closed).
#[derive(Debug)]
pub struct Counted {
    connections: Arc<Connections>,
    client: IpAddr,
}

impl Connections {
    /// No connection open yet; at most `max` at once, at most `max_per_client` of one client.
    pub fn new(max: usize, max_per_client: usize) -> Arc<Connections> {
        Arc::new(Connections {
            open: Mutex::new(Open::default()),
            max,
            max_per_client,
        })
    }

    /// Counts a connection from `address`, or `None` when it would be one too many in all or
    /// for its client ([`client`]).
    pub fn admit(self: &Arc<Connections>, address: IpAddr) -> Option<Counted> {
        let client = client(address);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.total >= self.max {
            return None;
        }
        let of_client = open.per_client.entry(client).or_insert(0);
        if *of_client >= self.max_per_client {
            return None;
        }
        *of_client += 1;
        open.total += 1;
        Some(Counted {
            connections: Arc::clone(self),
            client,
        })
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let mut open = self
            .connections
            .open
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        open.total = open.total.saturating_sub(1);
        if let Some(of_client) = open.per_client.get_mut(&self.client) {
            *of_client -= 1;
            if *of_client == 0 {
                // Clients gone take no memory.
                open.per_client.remove(&self.client);
            }
        }
    }
}

/// Who a connection from `address` is counted against: an IPv4 address (also when it comes
/// as an IPv4-mapped IPv6 address), or an IPv6 address's /64 network, since one host is
/// commonly given a whole /64.
pub fn client(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let network = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(network))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(address: &str) -> IpAddr {
        address.parse().unwrap()
    }

    /// The connections open now.
    fn open(connections: &Connections) -> usize {
        connections.open.lock().unwrap().total
    }

    #[test]
    fn connections_are_bounded_per_client_and_in_all() {
        let connections = Connections::new(5, 2);
        let first = connections.admit(ip("127.0.0.1")).unwrap();
        let _second = connections.admit(ip("127.0.0.1")).unwrap();
        assert!(connections.admit(ip("127.0.0.1")).is_none(), "a third");
        // Another client still gets in.
        let _other = connections.admit(ip("127.0.0.2")).unwrap();
        // A place given back can be taken again.
        drop(first);
        let _again = connections.admit(ip("127.0.0.1")).unwrap();
        assert_eq!(open(&connections), 3);
        let _three = connections.admit(ip("10.0.0.3")).unwrap();
        let _four = connections.admit(ip("10.0.0.4")).unwrap();
        assert!(connections.admit(ip("10.0.0.5")).is_none(), "past 5 in all");
        assert_eq!(open(&connections), 5);
    }

    #[test]
    fn a_client_is_an_ipv4_address_or_an_ipv6_network() {
        assert_eq!(client(ip("::ffff:192.0.2.1")), ip("192.0.2.1"));
        assert_eq!(client(ip("2001:db8:1:2:3:4:5:6")), ip("2001:db8:1:2::"));
        let connections = Connections::new(10, 1);
        let _one = connections.admit(ip("2001:db8::1")).unwrap();
        assert!(connections.admit(ip("2001:db8::2")).is_none());
        assert!(connections.admit(ip("2001:db8:0:1::1")).is_some());
        let _mapped = connections.admit(ip("192.0.2.1")).unwrap();
        assert!(connections.admit(ip("::ffff:192.0.2.1")).is_none());
    }

    #[test]
    fn a_client_whose_connections_all_closed_is_forgotten() {
        let connections = Connections::new(10, 10);
        let counted: Vec<_> = (0..3)
            .map(|_| connections.admit(ip("192.0.2.7")).unwrap())
            .collect();
        drop(counted);
        assert_eq!(open(&connections), 0);
        let open = connections.open.lock().unwrap();
        assert!(open.per_client.is_empty());
    }
}
