//! The HTTP server's connections and wrong-token budget, shared by the
//! one fair-share rule of `crate::shares` (read its module doc first):
//!
//! - every connection is charged to a [`Client`]: the named client whose
//!   bearer token its requests carry, once the header checks have found
//!   it, else its source address (all of loopback counting as one address,
//!   an IPv6 /64 as one). A session is not a client: anyone can open many,
//!   so only a credential tells two clients apart. A connection whose
//!   request has not yet said who it is counts as a newcomer from its
//!   address ([`Client::Newcomer`]), apart from the token-less client of
//!   that address: a token-less crowd holding every slot is then the
//!   client holding the most, and its reconnects cut its own connections,
//!   not a newcomer on its way to proving a credential. A new connection
//!   whose first request passed the checks proving none is, until that
//!   request is answered ([`ConnectionMark::settled`]), apart from both
//!   ([`Client::Answering`]): neither a kept-alive token-less crowd nor a
//!   crowd of fresh connections that send nothing recycles it as its own
//!   while its body is read, the cheapest rank there is after unchecked
//!   connections. A request to a route served beside MCP is answering in
//!   the same way, even on a kept-alive connection, unless its route
//!   charges it to the credential it proves
//!   ([`ConnectionMark::checked_beside`]). When every slot is
//!   taken, a new connection takes the place of the client holding the
//!   most connections, or recycles its own client's cheapest one short of
//!   one at work (its oldest idle one, say); only when neither is possible
//!   is it refused, with a `503` and `Retry-After` written before the close;
//! - a connection's rank says how cheaply it goes: one whose headers have
//!   not passed the checks a second after it was accepted goes first, then
//!   one still reading a request body, then one accepted within the last
//!   second (honest headers are on their way), then an idle one, then one
//!   at work (a handler or a stream). Headers are checked as soon as they
//!   have arrived;
//! - wrong bearer tokens are answered later and later per client address
//!   ([`AuthFailures`]), and at most [`GUESSES_PER_SECOND`] a second in all,
//!   so neither one address nor many can guess fast, while a right token is
//!   never delayed, nor a request that sends none (it guesses nothing);
//! - refusals are logged as rate-limited summaries ([`Summary`]), not one
//!   line each.

use std::{
    collections::HashMap,
    net::{IpAddr, Ipv6Addr},
    pin::Pin,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use tokio_util::sync::CancellationToken;

use super::paced::Phase;
use crate::{
    lock::lock_unpoisoned,
    shares::{Pool, Share, Young},
};

/// Whom a connection, a session or a stream is charged to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Client {
    /// A source address, as [`Client::address`] counts it: connections
    /// whose requests passed the checks carrying no credential (where no
    /// token is required, or on routes served beside MCP), once one of
    /// them has been answered.
    Address(IpAddr),
    /// The named client whose bearer token the requests carried.
    Named(Arc<str>),
    /// A connection from this address (as [`Client::address`] counts it)
    /// whose request has not yet passed the header checks: charged to no
    /// one yet, so that neither the token-less client of its address nor
    /// any crowd holding slots as that client counts it as its own.
    Newcomer(IpAddr),
    /// A connection from this address whose request passed the checks
    /// proving no credential and is being read or answered: its first
    /// request, or any request to a route served beside MCP. Apart from
    /// both the token-less client and the newcomers of its address, so
    /// that neither kind of crowd recycles it as its own.
    Answering(IpAddr),
}

impl Client {
    /// How the app's code sees this client (`Context::client`).
    pub fn id(&self) -> crate::app::ClientId {
        match self {
            Self::Named(name) => crate::app::ClientId::named(name.clone()),
            Self::Address(ip) | Self::Newcomer(ip) | Self::Answering(ip) if ip.is_loopback() => {
                crate::app::ClientId::local()
            }
            Self::Address(ip) | Self::Newcomer(ip) | Self::Answering(ip) => {
                crate::app::ClientId::address(*ip)
            }
        }
    }

    /// The client a source address stands for: every loopback address is
    /// the one machine, an IPv4-mapped address is its IPv4 address, and an
    /// IPv6 address counts by its /64 (what one host is usually given).
    pub fn address(source: IpAddr) -> Self {
        let source = match source {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
            v4 => v4,
        };
        if source.is_loopback() {
            return Self::Address(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST));
        }
        match source {
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                Self::Address(IpAddr::V6(Ipv6Addr::from(prefix)))
            }
            v4 => Self::Address(v4),
        }
    }

    /// A connection just accepted from `source`, not yet charged to anyone.
    pub fn newcomer(source: IpAddr) -> Self {
        match Self::address(source) {
            Self::Address(ip) => Self::Newcomer(ip),
            other => other,
        }
    }
}

/// How cheaply a connection can be taken back, lowest first.
mod rank {
    /// Its headers have not passed the checks (or failed them), for longer
    /// than honest ones take to arrive.
    pub const UNCHECKED: u8 = 0;
    /// A request body is still arriving.
    pub const READING: u8 = 1;
    /// Just accepted, its headers not yet arrived ([`super::NEW`]).
    pub const NEW: u8 = 2;
    /// Kept alive between requests.
    pub const IDLE: u8 = 3;
    /// A handler is running, or a response is streaming.
    pub const WORKING: u8 = 4;
}

/// A connection just accepted counts as new, not unchecked, for as long as
/// honest headers take to arrive: it goes after the connections reading a
/// body, so a crowd trickling bodies from the same address (loopback) does
/// not cut each newcomer before it could send its headers; among new ones
/// the oldest goes first, so a crowd reconnecting fast still lets the
/// newest in.
const NEW: Young =
    Young { rank: rank::UNCHECKED, for_: Duration::from_secs(1), counts_as: rank::NEW };

/// Every open connection, shared by the fair-share rule.
pub(crate) struct Connections {
    pool: Arc<Pool<Client>>,
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
    /// The connection has closed: its slot is free at once, even while a
    /// request's mark (kept by a handler still running) refers to it.
    fn drop(&mut self) {
        self.mark.connection.share.release();
        self.mark.gone.cancel();
    }
}

/// What a connection is doing, which sets its rank.
#[derive(Default)]
struct Doing {
    checked: bool,
    reading: usize,
    busy: usize,
}

impl Doing {
    fn rank(&self) -> u8 {
        match self {
            Self { checked: false, .. } => rank::UNCHECKED,
            Self { reading: 1.., .. } => rank::READING,
            Self { busy: 0, .. } => rank::IDLE,
            _ => rank::WORKING,
        }
    }
}

struct Connection {
    share: Share<Client>,
    /// Whom it is charged to now.
    client: Mutex<Client>,
    doing: Mutex<Doing>,
    /// Whether its reads are pacing a request's head (`paced.rs`).
    phase: Phase,
}

impl Connection {
    fn change(&self, change: impl FnOnce(&mut Doing)) {
        let mut doing = lock_unpoisoned(&self.doing);
        change(&mut doing);
        self.share.rank(doing.rank());
        if doing.busy == 0 && doing.reading == 0 {
            // The answer has gone: the next byte begins a new head.
            self.phase.request_ended();
        }
    }
}

/// What every request on a connection carries (a request extension): which
/// connection it came on, from where, and a token cancelled when that
/// connection is gone.
#[derive(Clone)]
pub(crate) struct ConnectionMark {
    connection: Arc<Connection>,
    /// The client's address.
    pub source: IpAddr,
    /// Cancelled once the connection has closed: work done for a request
    /// on it (an approval question) can stop, since no one will read the
    /// answer.
    pub gone: CancellationToken,
}

impl ConnectionMark {
    /// Records that a request on this connection passed the header checks,
    /// with the token of the named client `named`, if one is required.
    /// A newcomer's request without one makes it [`Client::Answering`]
    /// until [`settled`](Self::settled), once the request is answered (were
    /// it the token-less client's meanwhile, a token-less crowd of its
    /// address would cut it first, reading its body being cheaper than
    /// their idle connections; were it still a newcomer, so would a crowd
    /// of fresh connections); a connection kept alive stays its client's.
    pub fn checked(&self, named: Option<Arc<str>>) {
        let mut client = lock_unpoisoned(&self.connection.client);
        let next = match (named, &*client) {
            (Some(name), _) => Some(Client::Named(name)),
            (None, Client::Newcomer(ip)) => Some(Client::Answering(*ip)),
            (None, _) => None,
        };
        if let Some(next) = next {
            self.connection.share.charge_to(next.clone());
            *client = next;
        }
        drop(client);
        self.connection.change(|doing| doing.checked = true);
    }

    /// Records that a request to a route served beside MCP passed the
    /// header checks, which prove no credential there: the route checks its
    /// own (a session of the person's face) once the body is read, and
    /// charges the connection with [`charge_connection`](super::http::charge_connection).
    /// Until [`settled`](Self::settled) the connection is
    /// [`Client::Answering`], even one kept alive from an earlier request:
    /// were it the token-less client's meanwhile, a token-less crowd of
    /// that address would cut it first, reading its body being cheaper
    /// than their idle connections.
    pub fn checked_beside(&self) {
        let mut client = lock_unpoisoned(&self.connection.client);
        if let Client::Address(ip) | Client::Newcomer(ip) = &*client {
            let answering = Client::Answering(*ip);
            self.connection.share.charge_to(answering.clone());
            *client = answering;
        }
        drop(client);
        self.connection.change(|doing| doing.checked = true);
    }

    /// A request that proved no credential has been answered (or, for a
    /// route beside MCP, one its route did not charge to a credential):
    /// its connection is its address's token-less client's from now on.
    pub fn settled(&self) {
        let mut client = lock_unpoisoned(&self.connection.client);
        if matches!(*client, Client::Answering(_) | Client::Newcomer(_)) {
            let address = Client::address(self.source);
            self.connection.share.charge_to(address.clone());
            *client = address;
        }
    }

    /// Whom the connection is charged to: the named client whose token its
    /// requests carry, else its address.
    pub fn client(&self) -> Client {
        match &*lock_unpoisoned(&self.connection.client) {
            Client::Newcomer(_) | Client::Answering(_) => Client::address(self.source),
            client => client.clone(),
        }
    }

    /// Cancelled when the connection is cut to make room for another.
    pub fn cut(&self) -> &CancellationToken {
        &self.connection.share.cut
    }

    /// Whether a request is being served on the connection (its body read,
    /// its handler run, or its response streamed).
    pub fn in_request(&self) -> bool {
        let doing = lock_unpoisoned(&self.connection.doing);
        doing.busy > 0 || doing.reading > 0
    }

    /// The pacing of the connection's request heads.
    pub fn phase(&self) -> Phase {
        self.connection.phase.clone()
    }

    /// Marks the connection busy with a request whose head is whole until
    /// the returned guard is dropped.
    pub fn busy(&self) -> Busy {
        self.connection.phase.request_began();
        self.connection.change(|doing| doing.busy += 1);
        Busy { connection: self.connection.clone(), reading: false }
    }

    /// Marks the connection as reading a request body until the returned
    /// guard is dropped.
    pub fn reading(&self) -> Busy {
        self.connection.change(|doing| doing.reading += 1);
        Busy { connection: self.connection.clone(), reading: true }
    }
}

/// A request, a response stream or a body read in progress on a connection.
pub(crate) struct Busy {
    connection: Arc<Connection>,
    reading: bool,
}

impl Drop for Busy {
    fn drop(&mut self) {
        let reading = self.reading;
        self.connection.change(|doing| {
            let count = if reading { &mut doing.reading } else { &mut doing.busy };
            *count = count.saturating_sub(1);
        });
    }
}

impl Connections {
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            // No bound per client below the total: a client alone may use
            // every slot, and gives them back as others arrive. A client
            // holding every slot it may still opens a new connection: its
            // own oldest idle one (or a cheaper one) makes way.
            pool: Pool::recycling(max, max, rank::WORKING, Some(NEW)),
            refused: Summary::new(
                "new connections refused: every slot is held by clients holding no more than this one",
            ),
            cut: Summary::new(
                "connections cut to make room (from the client holding the most, cheapest first)",
            ),
        })
    }

    /// Admits a new connection from `source`, cutting another to make room
    /// if the rule says so; `None` when it must be refused.
    pub fn admit(self: &Arc<Self>, source: IpAddr) -> Option<Admitted> {
        let client = Client::newcomer(source);
        let share = match self.pool.admit(client.clone(), rank::UNCHECKED) {
            Ok(share) => share,
            Err(_) => {
                self.refused.note();
                return None;
            }
        };
        if share.took_back {
            self.cut.note();
        }
        let cut = share.cut.clone();
        let connection = Arc::new(Connection {
            share,
            client: Mutex::new(client),
            doing: Mutex::default(),
            phase: Phase::default(),
        });
        let mark = ConnectionMark { connection, source, gone: CancellationToken::new() };
        Some(Admitted { mark, cut })
    }

    /// Open connections, and how many are charged to `client`.
    #[cfg(test)]
    fn counts(&self, client: &Client) -> (usize, usize) {
        self.pool.held(client)
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

/// Wrong bearer tokens: per client address ([`Client::address`]), after
/// [`FREE_FAILURES`] each further wrong answer is delayed twice as long as
/// the last, up to [`MAX_DELAY`], and a source that stays quiet for
/// [`FORGET_AFTER`] starts afresh (at most [`MAX_SOURCES`] are remembered);
/// in all, wrong answers leave at [`GUESSES_PER_SECOND`] at most, whatever
/// the number of addresses they come from (each waits for its turn).
pub(crate) struct AuthFailures {
    sources: Mutex<HashMap<Client, (u32, Instant)>>,
    /// When the next wrong answer may leave, for the bound in all (a
    /// virtual schedule: each answer takes the next free turn).
    next_turn: Mutex<Instant>,
}

impl Default for AuthFailures {
    fn default() -> Self {
        Self { sources: Mutex::default(), next_turn: Mutex::new(Instant::now()) }
    }
}

/// Wrong tokens answered at once, per source.
pub(crate) const FREE_FAILURES: u32 = 5;
/// The longest a wrong token's answer waits for its source's slow-down.
pub(crate) const MAX_DELAY: Duration = Duration::from_secs(2);
/// Wrong tokens answered per second, from all sources together.
pub(crate) const GUESSES_PER_SECOND: u32 = 32;
const FORGET_AFTER: Duration = Duration::from_secs(60);
const MAX_SOURCES: usize = 4096;

impl AuthFailures {
    /// Records a wrong token from `source`; returns how long to wait before
    /// answering it.
    pub fn failed(&self, source: IpAddr) -> Duration {
        let now = Instant::now();
        let own = self.own_delay(Client::address(source), now);
        // The bound in all: this answer takes the next turn, never earlier
        // than its own delay allows.
        let mut next_turn = lock_unpoisoned(&self.next_turn);
        let turn = (*next_turn).max(now + own);
        *next_turn = turn + Duration::from_secs(1) / GUESSES_PER_SECOND;
        turn - now
    }

    fn own_delay(&self, source: Client, now: Instant) -> Duration {
        let mut sources = lock_unpoisoned(&self.sources);
        if sources.len() >= MAX_SOURCES && !sources.contains_key(&source) {
            sources.retain(|_, (_, last)| now.duration_since(*last) < FORGET_AFTER);
            if sources.len() >= MAX_SOURCES {
                // Many addresses at once: the oldest are forgotten first
                // (the bound in all still holds for them).
                let oldest =
                    sources.iter().min_by_key(|(_, (_, last))| *last).map(|(c, _)| c.clone());
                if let Some(client) = oldest {
                    sources.remove(&client);
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
#[path = "fair_tests.rs"]
mod tests;
