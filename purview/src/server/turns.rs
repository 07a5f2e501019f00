//! CPU shared by clients, like every other share (`crate::shares`): over
//! HTTP, the server's work for a request (its handler) and for its answer
//! (writing the JSON) is done in turns, and when turns are scarce the
//! client that has used the least CPU lately goes first.
//!
//! Reads are built once per change and shared, but a handler still does
//! work per request (the card's scene, a call), and each answer is turned
//! into JSON for its own request (rmcp does it as the response body is
//! polled): a 2,500-tool `tools/list` is milliseconds of one core for a
//! 600-byte request. Without turns, a client looping on such requests over
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

use std::{
    collections::HashMap,
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll},
    time::{Duration, Instant},
};

use tokio::sync::oneshot;

use super::fair::Client;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str) -> Client {
        Client::Named(name.into())
    }

    /// `client` has used `ms` of CPU just now: a turn charged that long.
    fn used(turns: &Arc<Turns>, client: &Client, ms: u64) {
        let mut turn = turns.take(client).ok().expect("a free turn");
        turn.since -= Duration::from_millis(ms);
        drop(turn);
    }

    fn ordinary(turn: Result<Turn, oneshot::Receiver<Turn>>) -> Turn {
        let turn = turn.ok().expect("a turn at once");
        assert!(!turn.express, "an express turn where an ordinary one was free");
        turn
    }

    #[test]
    fn for_this_machine_leaves_a_core_and_has_at_least_one_turn() {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        assert_eq!(Turns::for_this_machine().permits(), cores.saturating_sub(1).max(1));
        assert_eq!(Turns::new(0).permits(), 1);
    }

    #[test]
    fn every_server_of_the_process_shares_the_machines_turns() {
        let (one, other) = (Turns::for_this_machine(), Turns::for_this_machine());
        assert!(Arc::ptr_eq(&one, &other), "a second server got turns of its own");
    }

    #[test]
    fn s12_a_light_client_does_not_wait_behind_a_heavy_ones_turns() {
        let turns = Turns::new(1);
        let (heavy, light) = (named("heavy"), named("light"));
        used(&turns, &heavy, 20);
        let running = ordinary(turns.take(&heavy));
        let mut queued = turns.take(&heavy).err().expect("the heavy client waits");
        // The express lane: less than half of what everyone holding or
        // waiting has used.
        let express = turns.take(&light).ok().expect("the light client runs at once");
        assert!(express.express);
        // The express lane holds one turn; a second waits in line...
        let mut next = turns.take(&light).err().expect("one express turn at a time");
        drop(express);
        // ...and takes it when it is given back, before the heavy client's
        // older request, whose turn is still held.
        let express = next.try_recv().expect("the lightest waiter takes the express turn");
        assert!(queued.try_recv().is_err(), "the heavy client waits for its own lane");
        drop(running);
        let heavy_runs = queued.try_recv().expect("the ordinary turn, given back, goes to it");
        drop((heavy_runs, express));
        assert!(turns.idle(), "every turn given back");
    }

    #[test]
    fn s12_the_client_that_used_least_takes_the_next_ordinary_turn() {
        let turns = Turns::new(1);
        let (heavy, light, idle) = (named("heavy"), named("light"), named("idle"));
        used(&turns, &heavy, 40);
        used(&turns, &light, 30);
        let running = ordinary(turns.take(&heavy));
        let express = turns.take(&idle).ok().expect("the express lane, to a client that used none");
        let mut heavy_waits = turns.take(&heavy).err().expect("waits");
        let mut light_waits = turns.take(&light).err().expect("waits: the express lane is taken");
        drop(running);
        let light_runs = light_waits.try_recv().expect("the lighter client goes first");
        assert!(heavy_waits.try_recv().is_err(), "the older request of the heavier one waits");
        drop(light_runs);
        let heavy_runs = heavy_waits.try_recv().expect("and runs next");
        drop((heavy_runs, express));
        assert!(turns.idle(), "every turn given back");
    }

    #[test]
    fn s12_only_a_client_far_lighter_than_the_others_takes_the_express_turn() {
        let turns = Turns::new(1);
        let (heavy, alike, light) = (named("heavy"), named("alike"), named("light"));
        used(&turns, &heavy, 40);
        used(&turns, &alike, 30);
        used(&turns, &light, 10);
        let running = ordinary(turns.take(&heavy));
        // Lighter than the holder, but using the CPU alike: in line, so
        // two busy clients never take both lanes.
        let alike_waits = turns.take(&alike).err().expect("no express turn for a like client");
        // Less than half of everyone's: at once.
        let express = turns.take(&light).ok().expect("the express turn");
        assert!(express.express);
        drop((running, alike_waits, express));
        assert!(turns.idle(), "every turn given back, the waiters gone");
    }

    #[test]
    fn s12_a_turn_granted_to_a_waiter_that_left_goes_on() {
        let turns = Turns::new(1);
        let (first, gone, last) = (named("first"), named("gone"), named("last"));
        used(&turns, &last, 10);
        let running = ordinary(turns.take(&first));
        drop(turns.take(&gone).err().expect("waits"));
        let mut waiting = turns.take(&last).err().expect("waits");
        drop(running);
        let turn = waiting.try_recv().expect("the turn passed over the waiter that left");
        drop(turn);
        assert!(turns.idle(), "every turn given back");
    }

    #[tokio::test]
    async fn s12_a_handler_waits_for_a_turn_and_gives_it_back_at_each_await() {
        let turns = Turns::new(1);
        let (heavy, caller) = (named("heavy"), named("caller"));
        used(&turns, &caller, 10);
        let running = ordinary(turns.take(&heavy));
        let (tell, told) = oneshot::channel::<u32>();
        let polled = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = polled.clone();
        let handler = InTurns::new(
            async move {
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                told.await.unwrap_or_default()
            },
            InLine::new(turns.clone(), caller),
        );
        let handler = tokio::spawn(handler);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(polled.load(std::sync::atomic::Ordering::SeqCst), 0, "ran without a turn");
        drop(running);
        for _ in 0..500 {
            if polled.load(std::sync::atomic::Ordering::SeqCst) > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(polled.load(std::sync::atomic::Ordering::SeqCst), 1, "never given the turn");
        // Awaiting what it was told, it holds no turn.
        assert!(turns.idle(), "a turn held across an await");
        tell.send(7).expect("the handler listens");
        assert_eq!(handler.await.ok(), Some(7));
        assert!(turns.idle(), "every turn given back");
    }

    #[tokio::test]
    async fn a_future_polled_inside_a_turn_runs_in_that_turn() {
        let turns = Turns::new(1);
        let (outer, inner) = (named("outer"), named("inner"));
        // Without the thread's mark the inner future would wait for the
        // one turn its own outer poll holds, and neither would end.
        let nested = InTurns::new(
            InTurns::new(async { 7 }, InLine::new(turns.clone(), inner)),
            InLine::new(turns.clone(), outer),
        );
        let answered = tokio::time::timeout(Duration::from_secs(5), nested).await;
        assert_eq!(answered.ok(), Some(7));
        assert!(turns.idle(), "every turn given back");
    }

    #[test]
    fn a_poll_that_panics_leaves_its_turn() {
        let turns = Turns::new(1);
        let mut line = InLine::new(turns.clone(), named("panics"));
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            line.run(&mut cx, |_| -> Poll<()> { panic!("a handler's bug") })
        }));
        assert!(panicked.is_err());
        assert!(!IN_TURN.get(), "the thread still counts as in a turn");
        assert!(turns.idle(), "the turn was not given back");
    }

    #[test]
    fn what_a_client_used_halves_every_half_life() {
        let at = Instant::now();
        let used = Used { seconds: 1.0, at };
        assert!((used.now(at + HALF_LIFE) - 0.5).abs() < 1e-9);
        assert!((used.now(at + 3 * HALF_LIFE) - 0.125).abs() < 1e-9);
    }
}
