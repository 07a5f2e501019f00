//! Fair shares of the HTTP server's connections, so that no one client can
//! lock the others out:
//!
//! - a connection counts as *unauthenticated* until one of its requests
//!   passes every header check (the bearer token included, when one is
//!   set); unauthenticated connections together hold at most
//!   `max_unauthenticated` of the slots, and they are the first to be cut:
//!   a new connection beyond that share, or beyond the total, closes the
//!   oldest unauthenticated one. A client without the token can therefore
//!   only ever recycle its own share, and one that has it always gets in;
//! - when the total is reached and every connection has authenticated, the
//!   oldest idle one (no request or response stream in progress) is closed;
//!   only when every slot is busy is a new connection refused;
//! - wrong bearer tokens are answered later and later per source address
//!   ([`AuthFailures`]), so guessing is slow while a right token is never
//!   delayed;
//! - refusals are logged as rate-limited summaries ([`Summary`]), not one
//!   line each.

use std::{
    collections::{BTreeMap, HashMap},
    net::IpAddr,
    pin::Pin,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use tokio_util::sync::CancellationToken;

use crate::lock::lock_unpoisoned;

/// One open connection.
struct Entry {
    authenticated: bool,
    /// Requests (and response streams) in progress.
    busy: usize,
    /// Cancelled to cut the connection.
    cut: CancellationToken,
}

/// Every open connection, oldest first (ids only grow).
pub(crate) struct Connections {
    max: usize,
    max_unauthenticated: usize,
    open: Mutex<BTreeMap<u64, Entry>>,
    next: AtomicU64,
    refused: Summary,
    cut: Summary,
}

/// A connection's place in the table; dropping it frees the slot.
pub(crate) struct Admitted {
    pub mark: ConnectionMark,
    /// Cancelled when the connection must close at once.
    pub cut: CancellationToken,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        lock_unpoisoned(&self.mark.connections.open).remove(&self.mark.id);
        self.mark.gone.cancel();
    }
}

/// What every request on a connection carries (a request extension): which
/// connection it came on, from where, and a token cancelled when that
/// connection is gone.
#[derive(Clone)]
pub(crate) struct ConnectionMark {
    id: u64,
    connections: Arc<Connections>,
    /// The client's address.
    pub source: IpAddr,
    /// Cancelled once the connection has closed: work done for a request
    /// on it (an approval question) can stop, since no one will read the
    /// answer.
    pub gone: CancellationToken,
}

impl ConnectionMark {
    /// Records that a request on this connection passed the header checks.
    pub fn authenticated(&self) {
        if let Some(entry) = lock_unpoisoned(&self.connections.open).get_mut(&self.id) {
            entry.authenticated = true;
        }
    }

    /// Marks the connection busy until the returned guard is dropped.
    pub fn busy(&self) -> Busy {
        if let Some(entry) = lock_unpoisoned(&self.connections.open).get_mut(&self.id) {
            entry.busy += 1;
        }
        Busy { id: self.id, connections: self.connections.clone() }
    }
}

/// A request or response stream in progress on a connection.
pub(crate) struct Busy {
    id: u64,
    connections: Arc<Connections>,
}

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(entry) = lock_unpoisoned(&self.connections.open).get_mut(&self.id) {
            entry.busy = entry.busy.saturating_sub(1);
        }
    }
}

impl Connections {
    pub fn new(max: usize, max_unauthenticated: usize) -> Arc<Self> {
        Arc::new(Self {
            max: max.max(1),
            max_unauthenticated: max_unauthenticated.clamp(1, max.max(1)),
            open: Mutex::default(),
            next: AtomicU64::new(1),
            refused: Summary::new("new connections refused: every connection slot is busy"),
            cut: Summary::new(
                "connections cut to make room (unauthenticated first, then idle ones)",
            ),
        })
    }

    /// Admits a new connection from `source`, cutting another to make room
    /// if it must; `None` when every slot is busy with authenticated work.
    /// Check, cut and insert happen under one lock.
    pub fn admit(self: &Arc<Self>, source: IpAddr) -> Option<Admitted> {
        let mut open = lock_unpoisoned(&self.open);
        let unauthenticated = open.values().filter(|e| !e.authenticated).count();
        let full = open.len() >= self.max;
        if full || unauthenticated >= self.max_unauthenticated {
            let oldest_unauthenticated =
                open.iter().find(|(_, e)| !e.authenticated).map(|(id, _)| *id);
            let oldest_idle = || open.iter().find(|(_, e)| e.busy == 0).map(|(id, _)| *id);
            let victim = match oldest_unauthenticated {
                Some(id) => Some(id),
                None if full => oldest_idle(),
                None => None,
            };
            match victim.and_then(|id| open.remove(&id)) {
                Some(entry) => {
                    entry.cut.cancel();
                    self.cut.note();
                }
                None => {
                    drop(open);
                    self.refused.note();
                    return None;
                }
            }
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let cut = CancellationToken::new();
        open.insert(id, Entry { authenticated: false, busy: 0, cut: cut.clone() });
        drop(open);
        let mark = ConnectionMark {
            id,
            connections: self.clone(),
            source,
            gone: CancellationToken::new(),
        };
        Some(Admitted { mark, cut })
    }

    /// Open connections, and how many of them have not authenticated.
    #[cfg(test)]
    fn counts(&self) -> (usize, usize) {
        let open = lock_unpoisoned(&self.open);
        (open.len(), open.values().filter(|e| !e.authenticated).count())
    }
}

/// A response body that keeps its connection marked busy until it ends (a
/// long-lived event stream is work in progress, not an idle connection).
pub(crate) struct Tracked {
    pub body: axum::body::Body,
    pub busy: Option<Busy>,
}

impl http_body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) {
            self.busy = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Wrong bearer tokens per source address: after [`FREE_FAILURES`], each
/// further wrong answer is delayed twice as long as the last, up to
/// [`MAX_DELAY`]. A source that stays quiet for [`FORGET_AFTER`] starts
/// afresh. At most [`MAX_SOURCES`] sources are remembered.
#[derive(Default)]
pub(crate) struct AuthFailures {
    sources: Mutex<HashMap<IpAddr, (u32, Instant)>>,
}

/// Wrong tokens answered at once, per source.
pub(crate) const FREE_FAILURES: u32 = 5;
/// The longest a wrong token's answer waits.
pub(crate) const MAX_DELAY: Duration = Duration::from_secs(2);
const FORGET_AFTER: Duration = Duration::from_secs(60);
const MAX_SOURCES: usize = 4096;

impl AuthFailures {
    /// Records a wrong token from `source`; returns how long to wait before
    /// answering it.
    pub fn failed(&self, source: IpAddr) -> Duration {
        let mut sources = lock_unpoisoned(&self.sources);
        let now = Instant::now();
        if sources.len() >= MAX_SOURCES && !sources.contains_key(&source) {
            sources.retain(|_, (_, last)| now.duration_since(*last) < FORGET_AFTER);
            if sources.len() >= MAX_SOURCES {
                // Many addresses at once: the oldest are forgotten first.
                let oldest = sources.iter().min_by_key(|(_, (_, last))| *last).map(|(ip, _)| *ip);
                if let Some(ip) = oldest {
                    sources.remove(&ip);
                }
            }
        }
        let entry = sources.entry(source).or_insert((0, now));
        if now.duration_since(entry.1) >= FORGET_AFTER {
            entry.0 = 0;
        }
        entry.0 = entry.0.saturating_add(1);
        entry.1 = now;
        delay_after(entry.0)
    }
}

/// How long the answer to the `failures`-th wrong token waits.
pub(crate) fn delay_after(failures: u32) -> Duration {
    match failures.checked_sub(FREE_FAILURES) {
        None | Some(0) => Duration::ZERO,
        Some(over) => (Duration::from_millis(50) * (1u32 << over.min(8))).min(MAX_DELAY),
    }
}

/// A warning logged at most once per [`SUMMARY_EVERY`], counting what
/// happened in between, so that a flood of refusals costs a line, not a
/// line each.
pub(crate) struct Summary {
    what: &'static str,
    since_last: AtomicU64,
    last: Mutex<Option<Instant>>,
}

/// How often a [`Summary`] may log.
pub(crate) const SUMMARY_EVERY: Duration = Duration::from_secs(10);

impl Summary {
    pub const fn new(what: &'static str) -> Self {
        Self { what, since_last: AtomicU64::new(0), last: Mutex::new(None) }
    }

    /// Counts one event; logs the count if the last line is old enough.
    pub fn note(&self) {
        self.since_last.fetch_add(1, Ordering::AcqRel);
        let mut last = lock_unpoisoned(&self.last);
        let due = last.is_none_or(|at| at.elapsed() >= SUMMARY_EVERY);
        if due {
            *last = Some(Instant::now());
            drop(last);
            let count = self.since_last.swap(0, Ordering::AcqRel);
            tracing::warn!(count, every = ?SUMMARY_EVERY, "{} (at most one such line per interval)", self.what);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    #[test]
    fn s12_unauthenticated_connections_recycle_their_own_share_only() {
        let connections = Connections::new(4, 2);
        let idle: Vec<Admitted> = (0..10).filter_map(|_| connections.admit(HERE)).collect();
        let cut = idle.iter().filter(|a| a.cut.is_cancelled()).count();
        assert_eq!((idle.len(), cut), (10, 8), "each new one cuts the oldest");
        assert_eq!(connections.counts(), (2, 2));
        let good = connections.admit(HERE).expect("admitted");
        good.mark.authenticated();
        let _busy = good.mark.busy();
        let more: Vec<Admitted> = (0..10).filter_map(|_| connections.admit(HERE)).collect();
        assert_eq!(more.len(), 10);
        assert!(!good.cut.is_cancelled(), "an authenticated, busy connection is never cut");
    }

    #[test]
    fn s12_only_busy_authenticated_connections_can_fill_the_server() {
        let connections = Connections::new(2, 1);
        let mut held = Vec::new();
        let mut busy = Vec::new();
        for _ in 0..2 {
            let admitted = connections.admit(HERE).expect("room");
            admitted.mark.authenticated();
            busy.push(admitted.mark.busy());
            held.push(admitted);
        }
        assert!(held.iter().all(|a| !a.cut.is_cancelled()));
        assert!(connections.admit(HERE).is_none(), "every slot is busy");
        drop(busy);
        assert!(connections.admit(HERE).is_some(), "an idle one makes room");
    }

    #[test]
    fn wrong_tokens_wait_longer_and_longer_up_to_a_bound() {
        let failures = AuthFailures::default();
        let delays: Vec<Duration> = (0..20).map(|_| failures.failed(HERE)).collect();
        assert!(delays[..FREE_FAILURES as usize].iter().all(Duration::is_zero));
        assert!(delays.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(delays[19], MAX_DELAY);
        let elsewhere = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));
        assert!(failures.failed(elsewhere).is_zero(), "per source");
    }
}
