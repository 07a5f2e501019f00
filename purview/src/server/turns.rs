//! CPU shared by clients, like every other share (`crate::shares`): over
//! HTTP, the server's work for a request (its handler) and for its answer
//! (writing the JSON) is done in turns, and when turns are scarce the
//! client that has used the least CPU lately goes first.
//!
//! Reads are built once per change and shared (tools/list even as bytes,
//! `http/shared_reads.rs`), but a handler still does work per request (the
//! card's scene, a call), and most answers are turned into JSON for their
//! own request (rmcp does it as the response body is polled): a large
//! read is milliseconds of one core for a small request, and even shared
//! bytes take time to write. Without turns, a client looping on such requests over
//! a few connections keeps every worker thread busy and another client's
//! one small edit waits behind all of them; connections that never read
//! their answers cost the same, since the JSON is written before the
//! socket is found full.
//!
//! - every poll of a handler's future ([`InTurns`], `handler.rs`) and of a
//!   response body ([`Gated`], `http.rs`) takes a [`Turn`]; at most
//!   [`Turns::permits`] run at once: one fewer than the machine's cores (at
//!   least one), so a core is always left for accepting and parsing;
//! - a turn's wall time is charged to the client (its credential, else its
//!   address, as `fair::Client` counts them), and what each client has
//!   used decays by half every [`HALF_LIFE`];
//! - when a turn ends and others wait, the waiter whose client has used
//!   the least goes next (the oldest, among equals). So the client holding
//!   the most CPU waits first, and another client's request waits for at
//!   most the turns already running, however many requests the first
//!   keeps in flight or leaves unread;
//! - one express turn beyond those goes at once to a client that has used
//!   less than half of what every client holding or waiting for one has,
//!   so a light client's small request does not even wait for a running
//!   turn, while clients using the CPU alike wait in line together and
//!   leave the last core to the rest.
//!
//! A turn covers one poll: a body's poll writes at most one message, a
//! handler gives its turn back at each await (an approval, a change it
//! waits for), and what a poll in a turn polls runs in that same turn
//! ([`IN_TURN`]), so no turn ever waits for another.
//!
//! A request its client cancelled (or rmcp did, when a stateless
//! request's connection closed before its answer) stops taking turns
//! ([`unless_cancelled`]): a read at its next await, a call only if it
//! has not started, so a call never stops half-applied.

use std::{
    collections::HashMap,
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll},
    time::{Duration, Instant},
};

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::{Cancel, fair::Client};
use crate::lock::lock_unpoisoned;

/// How quickly a client's use is forgotten: it halves every this long.
pub(crate) const HALF_LIFE: Duration = Duration::from_secs(1);

/// How many clients' use is remembered before the forgotten ones are swept.
const SWEEP_AT: usize = 1024;

/// How many times lighter than every client holding or waiting for a
/// turn a client must be to take the express turn: clients using the CPU
/// alike wait in line together, and the express turn stays for one that
/// asks little beside them.
const EXPRESS_MARGIN: f64 = 2.0;

/// What is forgotten of a client's use when the remembered are swept.
const FORGOTTEN_BELOW: f64 = 1e-4;

/// The turns of one HTTP server.
pub(crate) struct Turns {
    permits: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// How many turns run in the ordinary lane, and whose they are.
    running: usize,
    holding: HashMap<Client, usize>,
    /// Whether the express lane's one turn is taken.
    express: bool,
    used: HashMap<Client, Used>,
    /// How many remembered clients make the next sweep.
    sweep_at: usize,
    waiting: Vec<Waiter>,
    next: u64,
}

/// A client's CPU seconds, as of `at` (decaying from then).
struct Used {
    seconds: f64,
    at: Instant,
}

impl Used {
    fn now(&self, now: Instant) -> f64 {
        let halves = now.saturating_duration_since(self.at).as_secs_f64() / HALF_LIFE.as_secs_f64();
        self.seconds * 0.5f64.powf(halves)
    }
}

struct Waiter {
    client: Client,
    order: u64,
    grant: oneshot::Sender<Turn>,
}

/// One turn at the CPU: given back, and charged to its client, on drop.
pub(crate) struct Turn {
    turns: Arc<Turns>,
    client: Client,
    since: Instant,
    /// The express lane's turn, not one of the ordinary lane's.
    express: bool,
    /// False for a turn that was never handed to anyone.
    armed: bool,
}

impl Drop for Turn {
    fn drop(&mut self) {
        if self.armed {
            Turns::give_back(&self.turns, &self.client, self.express, self.since.elapsed());
        }
    }
}

impl Turns {
    /// The machine's turns: one fewer than its cores, at least one, and
    /// the express lane. One set for the whole process, since the cores
    /// are the machine's: every HTTP server the process serves (an app on
    /// two addresses, two apps) takes its turns from it, and a client is
    /// charged for its work on any of them.
    pub(crate) fn for_this_machine() -> Arc<Self> {
        static MACHINE: std::sync::OnceLock<Arc<Turns>> = std::sync::OnceLock::new();
        MACHINE
            .get_or_init(|| {
                let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
                Self::new(cores.saturating_sub(1).max(1))
            })
            .clone()
    }

    /// `permits` turns at once (at least one).
    pub(crate) fn new(permits: usize) -> Arc<Self> {
        Arc::new(Self { permits: permits.max(1), state: Mutex::default() })
    }

    /// How many turns run at once.
    #[cfg(test)]
    pub(crate) fn permits(&self) -> usize {
        self.permits
    }

    /// Whether no turn is taken and no one waits.
    #[cfg(test)]
    fn idle(&self) -> bool {
        let state = lock_unpoisoned(&self.state);
        state.running == 0 && state.holding.is_empty() && !state.express && state.waiting.is_empty()
    }

    /// A turn for `client` now if one is free and no one waits, or if the
    /// express lane is free and `client` has used less than half of what
    /// every client holding or waiting for a turn has; else the place in
    /// line that will receive one.
    pub(crate) fn take(self: &Arc<Self>, client: &Client) -> Result<Turn, oneshot::Receiver<Turn>> {
        let now = Instant::now();
        let mut state = lock_unpoisoned(&self.state);
        if state.running < self.permits && state.waiting.is_empty() {
            state.hold(client);
            return Ok(self.turn(client.clone(), false));
        }
        if !state.express && state.lightest(client, now) {
            state.express = true;
            return Ok(self.turn(client.clone(), true));
        }
        let (grant, receive) = oneshot::channel();
        let order = state.next;
        state.next += 1;
        state.waiting.push(Waiter { client: client.clone(), order, grant });
        Err(receive)
    }

    fn turn(self: &Arc<Self>, client: Client, express: bool) -> Turn {
        Turn { turns: self.clone(), client, since: Instant::now(), express, armed: true }
    }

    /// Charges `spent` to `client` and hands the freed turn on, to the
    /// waiter whose client has used the least.
    fn give_back(self: &Arc<Self>, client: &Client, express: bool, spent: Duration) {
        let now = Instant::now();
        let mut state = lock_unpoisoned(&self.state);
        let seconds = state.use_of(client, now) + spent.as_secs_f64();
        state.used.insert(client.clone(), Used { seconds, at: now });
        if state.used.len() > state.sweep_at.max(SWEEP_AT) {
            state.used.retain(|_, u| u.now(now) > FORGOTTEN_BELOW);
            // Those still remembered are busy: sweep again only when twice
            // as many are.
            state.sweep_at = state.used.len() * 2;
        }
        // Waiters whose body or handler went away wait for nothing.
        state.waiting.retain(|w| !w.grant.is_closed());
        if express {
            state.express = false;
        } else {
            state.release(client);
        }
        while state.running < self.permits {
            let Some(next) = state.least_used_waiter(now) else { break };
            let waiter = state.waiting.swap_remove(next);
            state.hold(&waiter.client);
            if let Err(mut unwanted) = waiter.grant.send(self.turn(waiter.client, false)) {
                // Its body was dropped while it waited: the turn goes on.
                unwanted.armed = false;
                state.release(&unwanted.client);
            }
        }
        // The express lane, to a waiter far lighter than every other client.
        while !state.express {
            let Some(next) = state.least_used_waiter(now) else { break };
            let waiter = state.waiting.swap_remove(next);
            if !state.lightest(&waiter.client, now) {
                state.waiting.push(waiter);
                break;
            }
            state.express = true;
            if let Err(mut unwanted) = waiter.grant.send(self.turn(waiter.client, true)) {
                unwanted.armed = false;
                state.express = false;
            }
        }
    }
}

impl State {
    /// The waiter whose client has used the least, the oldest among equals.
    fn least_used_waiter(&self, now: Instant) -> Option<usize> {
        let key = |w: &Waiter| (self.use_of(&w.client, now), w.order);
        (0..self.waiting.len()).min_by(|&a, &b| {
            let (a, b) = (key(&self.waiting[a]), key(&self.waiting[b]));
            a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
        })
    }

    fn use_of(&self, client: &Client, now: Instant) -> f64 {
        self.used.get(client).map_or(0.0, |u| u.now(now))
    }

    /// Whether `client` may take the express turn: it has used less than
    /// every client holding or waiting for an ordinary turn, by
    /// [`EXPRESS_MARGIN`].
    fn lightest(&self, client: &Client, now: Instant) -> bool {
        let mine = self.use_of(client, now) * EXPRESS_MARGIN;
        self.holding
            .keys()
            .chain(self.waiting.iter().map(|w| &w.client))
            .all(|other| other != client && mine < self.use_of(other, now))
    }

    fn hold(&mut self, client: &Client) {
        self.running += 1;
        *self.holding.entry(client.clone()).or_default() += 1;
    }

    fn release(&mut self, client: &Client) {
        self.running -= 1;
        if let Some(held) = self.holding.get_mut(client) {
            *held -= 1;
            if *held == 0 {
                self.holding.remove(client);
            }
        }
    }
}

thread_local! {
    /// Set while this thread polls something in a turn: what that poll
    /// polls in turn (a handler's future inside another) runs in the same
    /// turn, never waiting for a second one the first would hold up.
    static IN_TURN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A client's place at the CPU: what polls something in its turns.
pub(crate) struct InLine {
    turns: Arc<Turns>,
    client: Client,
    waiting: Option<oneshot::Receiver<Turn>>,
}

impl InLine {
    /// `client`'s place at `turns`.
    pub(crate) fn new(turns: Arc<Turns>, client: Client) -> Self {
        Self { turns, client, waiting: None }
    }

    /// Runs `poll` in a turn of this client's: at once if one is free (or
    /// this thread is already in one), else once one is handed over.
    fn run<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: impl FnOnce(&mut Context<'_>) -> Poll<T>,
    ) -> Poll<T> {
        if IN_TURN.get() {
            // Its place in line, if any, is given up (a turn handed to it
            // goes on); the turn this thread is in covers it.
            self.waiting = None;
            return poll(cx);
        }
        let turn = loop {
            if let Some(waiting) = &mut self.waiting {
                match Pin::new(waiting).poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(turn) => {
                        self.waiting = None;
                        // Charged from now: the wait for this task to be
                        // polled was not its work. (A sender dropped
                        // unsent, which the line never does, would leave
                        // this to run.)
                        break turn.ok().map(|mut turn| {
                            turn.since = Instant::now();
                            turn
                        });
                    }
                }
            }
            match self.turns.take(&self.client) {
                Ok(turn) => break Some(turn),
                Err(place) => self.waiting = Some(place),
            }
        };
        /// Leaves the turn however the poll ends, a panic included.
        struct Leave;
        impl Drop for Leave {
            fn drop(&mut self) {
                IN_TURN.set(false);
            }
        }
        IN_TURN.set(true);
        let leave = Leave;
        let polled = poll(cx);
        drop(leave);
        drop(turn);
        polled
    }
}

/// A response body whose every poll waits for its client's [`Turn`].
pub(crate) struct Gated {
    body: axum::body::Body,
    line: InLine,
}

impl Gated {
    /// `body`, polled in `client`'s turns of `turns`.
    pub(crate) fn new(body: axum::body::Body, turns: Arc<Turns>, client: Client) -> Self {
        Self { body, line: InLine::new(turns, client) }
    }
}

impl http_body::Body for Gated {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let Self { body, line } = &mut *self;
        line.run(cx, |cx| Pin::new(body).poll_frame(cx))
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A request handler's future whose every poll waits for its client's
/// [`Turn`]: what it does between two awaits is CPU the client is charged
/// for; while it awaits (an approval, a change) it holds no turn.
pub(crate) struct InTurns<F> {
    future: Pin<Box<F>>,
    line: InLine,
}

impl<F: Future> InTurns<F> {
    /// `future`, polled in `line`'s turns.
    pub(crate) fn new(future: F, line: InLine) -> Self {
        Self { future: Box::pin(future), line }
    }
}

impl<F: Future> Future for InTurns<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let Self { future, line } = &mut *self;
        line.run(cx, |cx| future.as_mut().poll(cx))
    }
}

/// Awaits `work` (made by [`marked`]: `None` if it found the request
/// cancelled before it began) unless `cancelled` (the request's token)
/// fires where `at` lets it stop; then answers `stopped()` and `work` is
/// dropped, its turns no longer taken.
pub(crate) async fn unless_cancelled<T>(
    work: impl Future<Output = Option<T>>,
    started: &std::sync::atomic::AtomicBool,
    cancelled: &CancellationToken,
    at: Cancel,
    stopped: impl FnOnce() -> T,
) -> T {
    let mut work = std::pin::pin!(work);
    let done = tokio::select! {
        biased;
        done = &mut work => done,
        () = cancelled.cancelled() => {
            let begun = started.load(std::sync::atomic::Ordering::Acquire);
            if at == Cancel::Anywhere || !begun { None } else { work.await }
        }
    };
    done.unwrap_or_else(stopped)
}

/// `work`, marking `started` when it is first polled (in a turn, when it
/// is polled in turns), or `None` without starting it if `cancelled` fired
/// first (a cancellation and a turn may come in the same wake).
pub(crate) async fn marked<T>(
    started: &std::sync::atomic::AtomicBool,
    cancelled: &CancellationToken,
    work: impl Future<Output = T>,
) -> Option<T> {
    if cancelled.is_cancelled() {
        return None;
    }
    started.store(true, std::sync::atomic::Ordering::Release);
    Some(work.await)
}

#[cfg(test)]
#[path = "turns_tests.rs"]
mod tests;
