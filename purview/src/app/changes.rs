//! What settled mutations changed, and who hears about it: the GUI's
//! [`App::on_change`](crate::App::on_change) listeners at once, and the
//! transport's subscribers through the [`Broadcaster`].

use crate::lock::lock_unpoisoned;
use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    sync::{Arc, Mutex},
};

use super::broadcast::{Broadcaster, Pacing, Subscriber, Subscription};

/// What one mutation changed, as [`App::on_change`](crate::App::on_change)
/// listeners see it.
///
/// ```
/// let change = purview::activity::Change::default();
/// assert!(change.is_empty());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Change {
    /// `app://windows` changed: resources/updated is due.
    pub resource: bool,
    /// The tool set changed: tools/list_changed is due (never on the
    /// [`ToolSurface::Dispatcher`](crate::settings::ToolSurface::Dispatcher) surface,
    /// whose list never changes).
    pub tools: bool,
    /// An agent's call succeeded: see [`App::agent_activity`](crate::App::agent_activity).
    pub agent: bool,
}

impl Change {
    /// Whether anything changed at all.
    pub fn is_empty(&self) -> bool {
        !(self.resource || self.tools || self.agent)
    }
}

type Listener = Arc<dyn Fn(Change) + Send + Sync>;

/// Where settled changes go.
pub(crate) struct ChangeHub {
    listeners: Mutex<Vec<Listener>>,
    broadcaster: Broadcaster,
}

impl ChangeHub {
    pub fn new(pacing: Pacing, max_subscribers: usize) -> Self {
        Self { listeners: Mutex::default(), broadcaster: Broadcaster::new(pacing, max_subscribers) }
    }

    /// Hands a settled change on. Called after the state lock is released,
    /// so whoever reacts reads the new state (§6: notify only after the
    /// state took effect).
    pub fn signal(&self, change: Change) {
        if change.is_empty() {
            return;
        }
        self.broadcaster.publish(change);
        let listeners: Vec<Listener> = lock_unpoisoned(&self.listeners).clone();
        for listener in listeners {
            if catch_unwind(AssertUnwindSafe(|| listener(change))).is_err() {
                tracing::error!("an on_change listener panicked");
            }
        }
    }

    pub fn add_listener(&self, listener: Listener) {
        lock_unpoisoned(&self.listeners).push(listener);
    }

    pub fn subscribe(&self, subscriber: impl Subscriber) -> Option<Subscription> {
        self.broadcaster.subscribe(subscriber)
    }

    pub fn subscriber_count(&self) -> usize {
        self.broadcaster.count()
    }
}
