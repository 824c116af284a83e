//! The connections a server holds open ([`Connections`]), counted in all and per client, and
//! the bytes of the request bodies they are reading, so that a few clients cannot take every
//! place or all the memory:
//!
//! - one connection past [`ServeSettings::max_connections_per_client`] of its client is closed
//!   as soon as it is accepted;
//! - when [`ServeSettings::max_connections`] are open, a new connection takes the place of the
//!   one that has waited longest for a request head (idle, or sending its head slowly): the
//!   connections that trickle heads, however many addresses they come from, make room for the
//!   new one, and only when every connection is at work on a request is the new one closed;
//! - the bodies being read hold at most [`ServeSettings::max_body_memory`] in all and an eighth
//!   of it per client (never less than one body): a body that would hold more is refused
//!   ([`BodyBudget`]).
//!
//! [`ServeSettings::max_connections`]: super::ServeSettings::max_connections
//! [`ServeSettings::max_connections_per_client`]: super::ServeSettings::max_connections_per_client
//! [`ServeSettings::max_body_memory`]: super::ServeSettings::max_body_memory

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

/// The limits [`Connections`] keeps.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once.
    pub max: usize,
    /// Connections open at once from one client.
    pub max_per_client: usize,
    /// Bytes of unfinished request bodies held at once, in all.
    pub max_body_memory: u64,
    /// The largest request body.
    pub max_body_bytes: u64,
}

impl Limits {
    /// A client's share of the bodies' memory: an eighth, at least one body of the largest.
    fn body_memory_per_client(&self) -> u64 {
        (self.max_body_memory / 8)
            .max(self.max_body_bytes)
            .min(self.max_body_memory)
    }
}

/// The connections open, in all and per client, and the bytes their bodies hold.
#[derive(Debug)]
pub struct Connections {
    open: Mutex<Open>,
    limits: Limits,
}

/// The counts, under the lock.
#[derive(Debug, Default)]
struct Open {
    slots: HashMap<u64, Slot>,
    per_client: HashMap<IpAddr, Client>,
    /// Ticks: each connection's id, and when each began to wait for a request head.
    ticks: u64,
    body_bytes: u64,
}

/// One open connection.
#[derive(Debug)]
struct Slot {
    client: IpAddr,
    /// Since when (a tick) it has waited for a request head; `None` while a request is
    /// answered.
    waiting_since: Option<u64>,
    /// Told when the connection is to close (its place taken).
    close: Arc<Notify>,
}

/// What one client holds.
#[derive(Debug, Default)]
struct Client {
    connections: usize,
    body_bytes: u64,
}

/// One connection counted, shared by its task and its requests: its place is given back when
/// the last of them drops it (the connection is closed).
#[derive(Debug)]
pub struct Counted {
    connections: Arc<Connections>,
    id: u64,
    client: IpAddr,
    close: Arc<Notify>,
}

/// A body would hold more than the bodies' memory allows, in all or for its client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyBudget;

/// Bytes of a body being read, held against the budget until dropped.
#[derive(Debug)]
pub struct BodyHold {
    counted: Arc<Counted>,
    bytes: u64,
}

impl Connections {
    /// No connection open yet.
    pub fn new(limits: Limits) -> Arc<Connections> {
        Arc::new(Connections {
            open: Mutex::new(Open::default()),
            limits,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts a connection from `address`, waiting for its first request head; `None` when
    /// its client ([`client`]) has all its places, or every place is taken by a connection at
    /// work. When all are taken, the one that has waited longest for a head is told to close
    /// ([`Counted::closing`]) and gives its place at once.
    pub fn admit(self: &Arc<Connections>, address: IpAddr) -> Option<Arc<Counted>> {
        let client = client(address);
        let mut open = self.lock();
        let of_client = open.per_client.get(&client).map_or(0, |c| c.connections);
        if of_client >= self.limits.max_per_client {
            return None;
        }
        if open.slots.len() >= self.limits.max {
            let longest = open
                .slots
                .iter()
                .filter_map(|(&id, slot)| Some((slot.waiting_since?, id)))
                .min()?;
            let slot = open.forget(longest.1)?;
            slot.close.notify_one();
        }
        let id = open.tick();
        let close = Arc::new(Notify::new());
        let slot = Slot {
            client,
            waiting_since: Some(id),
            close: Arc::clone(&close),
        };
        open.slots.insert(id, slot);
        open.per_client.entry(client).or_default().connections += 1;
        Some(Arc::new(Counted {
            connections: Arc::clone(self),
            id,
            client,
            close,
        }))
    }
}

impl Open {
    fn tick(&mut self) -> u64 {
        self.ticks += 1;
        self.ticks
    }

    /// Takes the connection `id` off the counts.
    fn forget(&mut self, id: u64) -> Option<Slot> {
        let slot = self.slots.remove(&id)?;
        if let Some(of_client) = self.per_client.get_mut(&slot.client) {
            of_client.connections -= 1;
        }
        self.forget_client_if_gone(slot.client);
        Some(slot)
    }

    /// Forgets `client` once it holds no connection and no body: clients gone take no memory.
    fn forget_client_if_gone(&mut self, client: IpAddr) {
        if self
            .per_client
            .get(&client)
            .is_some_and(|c| c.connections == 0 && c.body_bytes == 0)
        {
            self.per_client.remove(&client);
        }
    }
}

impl Counted {
    /// Resolves when the connection is to close: its place was given to another.
    pub async fn closing(&self) {
        self.close.notified().await;
    }

    /// A request head has come: the connection is at work, and keeps its place.
    pub fn head_came(&self) {
        self.set_waiting(false);
    }

    /// The request was answered: the connection waits for its next head from now.
    pub fn answered(&self) {
        self.set_waiting(true);
    }

    fn set_waiting(&self, waiting: bool) {
        let mut open = self.connections.lock();
        let tick = open.tick();
        if let Some(slot) = open.slots.get_mut(&self.id) {
            slot.waiting_since = waiting.then_some(tick);
        }
    }

    /// An empty hold on the bodies' memory, for a body about to be read.
    pub fn body(self: &Arc<Counted>) -> BodyHold {
        BodyHold {
            counted: Arc::clone(self),
            bytes: 0,
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        // A place given to another was forgotten then.
        self.connections.lock().forget(self.id);
    }
}

impl BodyHold {
    /// Holds `bytes` more, or refuses them when the bodies would hold more than allowed.
    pub fn grow(&mut self, bytes: u64) -> Result<(), BodyBudget> {
        let limits = self.counted.connections.limits;
        let mut open = self.counted.connections.lock();
        let total = open.body_bytes.saturating_add(bytes);
        let of_client = open.per_client.entry(self.counted.client).or_default();
        let client_total = of_client.body_bytes.saturating_add(bytes);
        if total > limits.max_body_memory || client_total > limits.body_memory_per_client() {
            return Err(BodyBudget);
        }
        of_client.body_bytes = client_total;
        open.body_bytes = total;
        self.bytes += bytes;
        Ok(())
    }
}

impl Drop for BodyHold {
    fn drop(&mut self) {
        let client = self.counted.client;
        let mut open = self.counted.connections.lock();
        open.body_bytes = open.body_bytes.saturating_sub(self.bytes);
        if let Some(of_client) = open.per_client.get_mut(&client) {
            of_client.body_bytes = of_client.body_bytes.saturating_sub(self.bytes);
        }
        open.forget_client_if_gone(client);
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

    fn limits(max: usize, max_per_client: usize) -> Limits {
        Limits {
            max,
            max_per_client,
            max_body_memory: 1 << 30,
            max_body_bytes: 1 << 20,
        }
    }

    /// The connections open now.
    fn open(connections: &Connections) -> usize {
        connections.lock().slots.len()
    }

    /// Whether `counted` was told to close.
    fn told_to_close(counted: &Counted) -> bool {
        let notified = counted.close.notified();
        let mut notified = std::pin::pin!(notified);
        // A permit stored by `notify_one` makes the first poll ready.
        let waker = std::task::Waker::noop();
        let mut context = std::task::Context::from_waker(waker);
        notified.as_mut().poll(&mut context).is_ready()
    }

    use std::future::Future;

    #[test]
    fn connections_are_bounded_per_client() {
        let connections = Connections::new(limits(5, 2));
        let first = connections.admit(ip("127.0.0.1")).unwrap();
        let _second = connections.admit(ip("127.0.0.1")).unwrap();
        assert!(connections.admit(ip("127.0.0.1")).is_none(), "a third");
        // Another client still gets in.
        let _other = connections.admit(ip("127.0.0.2")).unwrap();
        // A place given back can be taken again.
        drop(first);
        let _again = connections.admit(ip("127.0.0.1")).unwrap();
        assert_eq!(open(&connections), 3);
    }

    #[test]
    fn a_full_table_gives_the_longest_waiting_place_and_none_at_work() {
        let connections = Connections::new(limits(3, 3));
        let slow: Vec<_> = (0..3)
            .map(|_| connections.admit(ip("10.0.0.1")).unwrap())
            .collect();
        slow[0].head_came();
        // The oldest waiting for a head, the second, makes room; the first is at work.
        let new = connections.admit(ip("10.0.0.2")).unwrap();
        assert!(!told_to_close(&slow[0]) && told_to_close(&slow[1]));
        assert!(!told_to_close(&slow[2]));
        assert_eq!(open(&connections), 3);
        // Answered, the first waits again, from now: the third has waited longer.
        slow[0].answered();
        let newer = connections.admit(ip("10.0.0.3")).unwrap();
        assert!(told_to_close(&slow[2]) && !told_to_close(&slow[0]));
        // Every place at work: a new connection is closed.
        for counted in [&slow[0], &new, &newer] {
            counted.head_came();
        }
        assert!(connections.admit(ip("10.0.0.4")).is_none());
        // A place given up is not given back twice when its connection closes.
        drop(slow);
        assert_eq!(open(&connections), 2);
        assert_eq!(connections.lock().per_client.len(), 2);
    }

    #[test]
    fn bodies_hold_at_most_their_memory_in_all_and_per_client() {
        let connections = Connections::new(Limits {
            max: 100,
            max_per_client: 100,
            max_body_memory: 800,
            max_body_bytes: 50,
        });
        let a: Vec<_> = (0..3)
            .map(|_| connections.admit(ip("192.0.2.1")).unwrap())
            .collect();
        // A client's share is an eighth, 100 bytes.
        let mut first = a[0].body();
        first.grow(60).unwrap();
        let mut second = a[1].body();
        assert_eq!(second.grow(41), Err(BodyBudget));
        second.grow(40).unwrap();
        drop(first);
        a[2].body().grow(60).unwrap();
        // In all, 800 bytes.
        let others: Vec<_> = (0..8)
            .map(|n| {
                connections
                    .admit(ip(&format!("192.0.2.{}", n + 10)))
                    .unwrap()
            })
            .collect();
        let mut holds: Vec<_> = others.iter().map(|c| c.body()).collect();
        for hold in &mut holds[..7] {
            hold.grow(100).unwrap();
        }
        assert_eq!(holds[7].grow(100), Err(BodyBudget));
        holds[7].grow(60).unwrap();
        drop(holds);
        drop(second);
        assert_eq!(connections.lock().body_bytes, 0);
        drop((a, others));
        assert!(
            connections.lock().per_client.is_empty(),
            "clients gone forgotten"
        );
    }

    #[test]
    fn a_client_is_an_ipv4_address_or_an_ipv6_network() {
        assert_eq!(client(ip("::ffff:192.0.2.1")), ip("192.0.2.1"));
        assert_eq!(client(ip("2001:db8:1:2:3:4:5:6")), ip("2001:db8:1:2::"));
        let connections = Connections::new(limits(10, 1));
        let _one = connections.admit(ip("2001:db8::1")).unwrap();
        assert!(connections.admit(ip("2001:db8::2")).is_none());
        assert!(connections.admit(ip("2001:db8:0:1::1")).is_some());
        let _mapped = connections.admit(ip("192.0.2.1")).unwrap();
        assert!(connections.admit(ip("::ffff:192.0.2.1")).is_none());
    }
}
