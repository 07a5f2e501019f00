//! Log lines a client causes are bounded in size and in rate, so that one
//! client repeating a bad request cannot fill the disk or bury the lines
//! that matter:
//!
//! - [`Quiet`], a sibling of `fair.rs`'s `Summary`, lets a few lines of one
//!   kind through per [`QUIET_EVERY`] and then one summary line counting
//!   those dropped;
//! - [`quieted`] runs an HTTP request with rmcp's own warnings and errors
//!   (which quote the client's header and body values whole, and log one
//!   ERROR line per refused GET stream) passed through the same budget, per
//!   place in rmcp's code, each field cut to [`FIELD_LIMIT`] characters.

// The relay of rmcp's lines serves the HTTP transport alone.
#![cfg_attr(not(feature = "http"), allow(dead_code))]

use std::{
    collections::HashMap,
    fmt::Write as _,
    future::Future,
    sync::{Mutex, OnceLock},
    time::{Duration, Instant},
};

use tracing::{
    Dispatch, Event, Level, Metadata, Subscriber,
    callsite::Identifier,
    field::{Field, Visit},
    instrument::WithSubscriber,
    span,
    subscriber::Interest,
};

use crate::lock::lock_unpoisoned;

/// How often a kind of line may come through [`LINES_PER_INTERVAL`] times.
pub(crate) const QUIET_EVERY: Duration = Duration::from_secs(10);
/// How many lines of one kind are let through per [`QUIET_EVERY`].
pub(crate) const LINES_PER_INTERVAL: u64 = 5;
/// The most characters of one field a relayed rmcp line carries.
pub(crate) const FIELD_LIMIT: usize = 200;

/// A budget of lines for one kind of event: [`LINES_PER_INTERVAL`] per
/// [`QUIET_EVERY`], then a summary of how many were dropped.
pub(crate) struct Quiet {
    what: &'static str,
    window: Mutex<Window>,
}

#[derive(Default)]
struct Window {
    started: Option<Instant>,
    let_through: u64,
    dropped: u64,
}

impl Window {
    /// Counts one line; whether it may be logged, and how many were dropped
    /// in the interval that just ended (to be summarised first).
    fn admit(&mut self) -> (bool, u64) {
        let now = Instant::now();
        let mut ended = 0;
        if self.started.is_none_or(|at| now.duration_since(at) >= QUIET_EVERY) {
            ended = std::mem::take(&mut self.dropped);
            self.started = Some(now);
            self.let_through = 0;
        }
        if self.let_through < LINES_PER_INTERVAL {
            self.let_through += 1;
            (true, ended)
        } else {
            self.dropped += 1;
            (false, ended)
        }
    }
}

impl Quiet {
    /// A budget for the lines that say `what`.
    pub const fn new(what: &'static str) -> Self {
        Self { what, window: Mutex::new(Window { started: None, let_through: 0, dropped: 0 }) }
    }

    /// Runs `log` if the budget allows; otherwise counts it, to be named in
    /// the next summary line.
    pub fn note(&self, log: impl FnOnce()) {
        let (allowed, dropped) = lock_unpoisoned(&self.window).admit();
        if dropped > 0 {
            summarise(self.what, dropped);
        }
        if allowed {
            log();
        }
    }
}

fn summarise(what: &str, dropped: u64) {
    tracing::warn!(
        dropped,
        every = ?QUIET_EVERY,
        "{what}: {dropped} more such lines were not logged (at most {LINES_PER_INTERVAL} per interval)"
    );
}

/// Runs `request` with rmcp's warnings and errors bounded (see the
/// module's documentation); everything else is logged as before. The lines
/// let through are logged once the request is answered, outside the
/// relaying dispatcher (an event cannot be logged from inside another).
pub(crate) async fn quieted<F: Future>(request: F) -> F::Output {
    let output = request.with_subscriber(relay().clone()).await;
    let pending = std::mem::take(&mut *lock_unpoisoned(&PENDING));
    for line in pending {
        match line {
            Pending::Dropped(what, dropped) => summarise(what, dropped),
            Pending::Line(Level::ERROR, origin, line) => {
                tracing::error!(target: "purview::rmcp", origin, "{line}");
            }
            Pending::Line(_, origin, line) => {
                tracing::warn!(target: "purview::rmcp", origin, "{line}");
            }
        }
    }
    output
}

/// The relaying dispatcher, made once: making a dispatcher re-registers
/// every call site, too costly for each request. It relays to the
/// dispatcher that was in force when the first request came.
fn relay() -> &'static Dispatch {
    static RELAY: OnceLock<Dispatch> = OnceLock::new();
    RELAY.get_or_init(|| {
        let inner = tracing::dispatcher::get_default(Dispatch::clone);
        Dispatch::new(Relay { inner })
    })
}

/// A line waiting to be logged once its request is answered.
enum Pending {
    Line(Level, &'static str, String),
    Dropped(&'static str, u64),
}

/// Lines let through and not logged yet: at most [`LINES_PER_INTERVAL`]
/// per place in rmcp's code per interval, and one summary each.
static PENDING: Mutex<Vec<Pending>> = Mutex::new(Vec::new());
/// The budget of each place in rmcp's code that logged.
static WINDOWS: Mutex<Option<HashMap<Identifier, Window>>> = Mutex::new(None);

/// Forwards everything to `inner`, but rmcp's events at WARN and above
/// are rate-limited per call site and kept, their fields cut, to be logged
/// by [`quieted`].
struct Relay {
    inner: Dispatch,
}

impl Relay {
    fn relay(&self, event: &Event<'_>) {
        let meta = event.metadata();
        let (allowed, dropped) = lock_unpoisoned(&WINDOWS)
            .get_or_insert_with(HashMap::new)
            .entry(meta.callsite())
            .or_default()
            .admit();
        let mut pending = lock_unpoisoned(&PENDING);
        if dropped > 0 {
            pending.push(Pending::Dropped(meta.name(), dropped));
        }
        if allowed {
            let mut fields = Cut::default();
            event.record(&mut fields);
            pending.push(Pending::Line(*meta.level(), meta.target(), fields.line));
        }
    }
}

/// An event's fields as one line, each cut to [`FIELD_LIMIT`] characters.
#[derive(Default)]
struct Cut {
    line: String,
}

impl Visit for Cut {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let mut text = String::new();
        let _ = write!(Bounded { text: &mut text }, "{value:?}");
        if !self.line.is_empty() {
            self.line.push(' ');
        }
        if field.name() != "message" {
            let _ = write!(self.line, "{}=", field.name());
        }
        self.line.push_str(&text);
    }
}

/// A writer that keeps the first [`FIELD_LIMIT`] characters and marks the
/// cut; what follows is not even formatted into memory.
struct Bounded<'a> {
    text: &'a mut String,
}

impl std::fmt::Write for Bounded<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let held = self.text.chars().count();
        if held >= FIELD_LIMIT {
            // Stop formatting: the rest is not wanted.
            return Err(std::fmt::Error);
        }
        let room = FIELD_LIMIT - held;
        match s.char_indices().nth(room) {
            None => self.text.push_str(s),
            Some((cut, _)) => {
                self.text.push_str(&s[..cut]);
                self.text.push_str("… (cut)");
                return Err(std::fmt::Error);
            }
        }
        Ok(())
    }
}

fn bounded_here(meta: &Metadata<'_>) -> bool {
    let rmcp = meta.target() == "rmcp" || meta.target().starts_with("rmcp::");
    rmcp && meta.is_event() && *meta.level() <= Level::WARN
}

impl Subscriber for Relay {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        self.inner.register_callsite(meta)
    }
    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        self.inner.enabled(meta)
    }
    fn new_span(&self, span: &span::Attributes<'_>) -> span::Id {
        self.inner.new_span(span)
    }
    fn record(&self, span: &span::Id, values: &span::Record<'_>) {
        self.inner.record(span, values);
    }
    fn record_follows_from(&self, span: &span::Id, follows: &span::Id) {
        self.inner.record_follows_from(span, follows);
    }
    fn event(&self, event: &Event<'_>) {
        if bounded_here(event.metadata()) {
            self.relay(event);
        } else {
            self.inner.event(event);
        }
    }
    fn enter(&self, span: &span::Id) {
        self.inner.enter(span);
    }
    fn exit(&self, span: &span::Id) {
        self.inner.exit(span);
    }
    fn clone_span(&self, id: &span::Id) -> span::Id {
        self.inner.clone_span(id)
    }
    fn try_close(&self, id: span::Id) -> bool {
        self.inner.try_close(id)
    }
    fn current_span(&self) -> tracing_core::span::Current {
        self.inner.current_span()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s12_a_kind_of_line_is_let_through_a_few_times_then_counted() {
        let mut window = Window::default();
        let allowed = (0..1_000).filter(|_| window.admit().0).count() as u64;
        assert_eq!((allowed, window.dropped), (LINES_PER_INTERVAL, 1_000 - LINES_PER_INTERVAL));
    }

    #[test]
    fn s12_a_relayed_field_is_cut() {
        let mut text = String::new();
        let _ = write!(Bounded { text: &mut text }, "{:?}", "x".repeat(1_000_000));
        assert!(text.chars().count() < FIELD_LIMIT + 10, "{}", text.len());
    }
}
