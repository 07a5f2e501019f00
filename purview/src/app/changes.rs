//! Change signals: what settled mutations changed, waiting to be broadcast.
//! Pending changes accumulate until the broadcaster takes them, which is
//! what coalesces a burst of edits into a few notifications.

use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    sync::{Arc, Mutex},
};

use super::{Change, lock_unpoisoned};

type Listener = Arc<dyn Fn(Change) + Send + Sync>;

#[derive(Default)]
pub(crate) struct ChangeHub {
    pending: Mutex<Change>,
    wake: tokio::sync::Notify,
    listeners: Mutex<Vec<Listener>>,
}

impl ChangeHub {
    /// Records a settled change. Called after the state lock is released, so
    /// whoever reacts reads the new state.
    pub fn signal(&self, change: Change) {
        if change.is_empty() {
            return;
        }
        if change.resource || change.tools {
            let mut pending = lock_unpoisoned(&self.pending);
            pending.resource |= change.resource;
            pending.tools |= change.tools;
            drop(pending);
            self.wake.notify_one();
        }
        let listeners: Vec<Listener> = lock_unpoisoned(&self.listeners).clone();
        for listener in listeners {
            if catch_unwind(AssertUnwindSafe(|| listener(change))).is_err() {
                tracing::error!("an on_change listener panicked");
            }
        }
    }

    /// Waits for the next batch of changes and takes it.
    pub async fn next(&self) -> Change {
        loop {
            self.wake.notified().await;
            let change = std::mem::take(&mut *lock_unpoisoned(&self.pending));
            if change.resource || change.tools {
                return change;
            }
        }
    }

    pub fn add_listener(&self, listener: Listener) {
        lock_unpoisoned(&self.listeners).push(listener);
    }
}
