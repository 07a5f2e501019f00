//! The §6/§10.1 notification policy, independent of any transport: every
//! subscriber (an MCP session, a listen stream, a test double) has its own
//! queue of one pending [`Change`] and its own task that delivers it.
//!
//! - Coalescing: changes that arrive while a delivery is in flight, or
//!   during the gap after it, merge into one pending change; the first
//!   change after a quiet period goes out at once.
//! - Isolation: a subscriber that is slow to accept delays only itself.
//! - Dropping: a subscriber whose connection is gone, or that has not
//!   accepted a delivery within the stall limit, is removed (with a log line).
//!
//! The transport implements [`Subscriber`]; nothing here knows about MCP.
//! [`ChangeHub`] hands each settled change to the GUI's
//! [`App::on_change`](crate::App::on_change) listeners at once and to every
//! subscriber through the [`Broadcaster`].

use std::{
    collections::HashMap,
    panic::{AssertUnwindSafe, catch_unwind},
    sync::{
        Arc, Mutex, Weak,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use tokio::sync::Notify;

use super::Change;
use crate::lock::lock_unpoisoned;
use crate::window::BoxFuture;

/// A subscriber's connection is gone: stop delivering to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Gone;

/// Something that receives the notifications of settled changes.
pub(crate) trait Subscriber: Send + Sync + 'static {
    /// Whether `change` holds anything this subscriber would send. A change
    /// it would not is never queued: its task is not woken and no pacing
    /// timer runs for it (most hosts never subscribe to `app://windows`, so
    /// most edits concern no session). Called on the editing thread: cheap.
    fn wants(&self, change: Change) -> bool {
        change.resource || change.tools
    }

    /// Delivers what this subscriber should see of `change` (it may be
    /// nothing). Resolves once the transport accepted it.
    fn deliver(&self, change: Change) -> BoxFuture<'_, Result<(), Gone>>;
}

/// How the broadcaster paces and polices deliveries.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pacing {
    /// The shortest gap between two deliveries to one subscriber.
    pub gap: Duration,
    /// How long one delivery may take before the subscriber is dropped.
    pub stall_limit: Duration,
}

struct Slot {
    pending: Mutex<Change>,
    wake: Notify,
    closed: AtomicBool,
    subscriber: Box<dyn Subscriber>,
}

#[derive(Default)]
struct Registry {
    next_id: AtomicU64,
    slots: Mutex<HashMap<u64, Arc<Slot>>>,
}

impl Registry {
    fn remove(&self, id: u64) {
        if let Some(slot) = lock_unpoisoned(&self.slots).remove(&id) {
            slot.closed.store(true, Ordering::Release);
            slot.wake.notify_one();
        }
    }
}

/// The set of subscribers of one application.
pub(crate) struct Broadcaster {
    registry: Arc<Registry>,
    pacing: Pacing,
    max_subscribers: usize,
}

/// Keeps a subscriber registered; dropping it unsubscribes and ends the
/// subscriber's task.
pub(crate) struct Subscription {
    id: u64,
    registry: Weak<Registry>,
}

impl Subscription {
    /// The subscriber's id, for log lines.
    pub fn id(&self) -> u64 {
        self.id
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(registry) = self.registry.upgrade() {
            registry.remove(self.id);
        }
    }
}

impl Broadcaster {
    pub fn new(pacing: Pacing, max_subscribers: usize) -> Self {
        Self { registry: Arc::default(), pacing, max_subscribers }
    }

    /// Registers a subscriber and starts its delivery task on the current
    /// tokio runtime; `None` when there are already `max_subscribers`.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    pub fn subscribe(&self, subscriber: impl Subscriber) -> Option<Subscription> {
        if self.count() >= self.max_subscribers {
            return None;
        }
        let id = self.registry.next_id.fetch_add(1, Ordering::Relaxed);
        let slot = Arc::new(Slot {
            pending: Mutex::new(Change::default()),
            wake: Notify::new(),
            closed: AtomicBool::new(false),
            subscriber: Box::new(subscriber),
        });
        lock_unpoisoned(&self.registry.slots).insert(id, slot.clone());
        tokio::spawn(deliver_loop(id, slot, Arc::downgrade(&self.registry), self.pacing));
        Some(Subscription { id, registry: Arc::downgrade(&self.registry) })
    }

    /// Queues a settled change for every subscriber.
    pub fn publish(&self, change: Change) {
        if !(change.resource || change.tools) {
            return;
        }
        let slots: Vec<Arc<Slot>> =
            lock_unpoisoned(&self.registry.slots).values().cloned().collect();
        for slot in slots.iter().filter(|slot| slot.subscriber.wants(change)) {
            let mut pending = lock_unpoisoned(&slot.pending);
            pending.resource |= change.resource;
            pending.tools |= change.tools;
            drop(pending);
            slot.wake.notify_one();
        }
    }

    /// How many subscribers are registered.
    pub fn count(&self) -> usize {
        lock_unpoisoned(&self.registry.slots).len()
    }
}

impl Drop for Broadcaster {
    fn drop(&mut self) {
        // The application is gone: end every delivery task.
        let ids: Vec<u64> = lock_unpoisoned(&self.registry.slots).keys().copied().collect();
        for id in ids {
            self.registry.remove(id);
        }
    }
}

async fn deliver_loop(id: u64, slot: Arc<Slot>, registry: Weak<Registry>, pacing: Pacing) {
    loop {
        slot.wake.notified().await;
        if slot.closed.load(Ordering::Acquire) {
            return;
        }
        let change = std::mem::take(&mut *lock_unpoisoned(&slot.pending));
        if !(change.resource || change.tools) {
            continue;
        }
        let outcome =
            tokio::time::timeout(pacing.stall_limit, slot.subscriber.deliver(change)).await;
        let reason = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(Gone)) => Some("its connection is gone"),
            Err(_) => Some("it did not accept a notification in time"),
        };
        if let Some(reason) = reason {
            tracing::info!(subscriber = id, reason, "dropping a notification subscriber");
            if let Some(registry) = registry.upgrade() {
                registry.remove(id);
            }
            return;
        }
        // Changes made while this one was sent, or during the gap, go out
        // together next time.
        tokio::time::sleep(pacing.gap).await;
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// Counts deliveries; optionally never completes one, or reports its
    /// connection gone.
    #[derive(Clone, Default)]
    struct Fake {
        delivered: Arc<AtomicUsize>,
        stalled: bool,
        gone: bool,
        /// Wants only changes to the tool set.
        tools_only: bool,
    }

    impl Subscriber for Fake {
        fn wants(&self, change: Change) -> bool {
            change.tools || (change.resource && !self.tools_only)
        }

        fn deliver(&self, _change: Change) -> BoxFuture<'_, Result<(), Gone>> {
            Box::pin(async move {
                if self.stalled {
                    std::future::pending::<()>().await;
                }
                if self.gone {
                    return Err(Gone);
                }
                self.delivered.fetch_add(1, Ordering::SeqCst);
                Ok(())
            })
        }
    }

    fn pacing() -> Pacing {
        Pacing { gap: Duration::from_millis(20), stall_limit: Duration::from_millis(200) }
    }

    const EDIT: Change = Change { resource: true, tools: false, agent: false, scene: true };

    #[tokio::test(start_paused = true)]
    async fn s6_a_burst_is_coalesced_into_a_bounded_number_of_deliveries() {
        let broadcaster = Broadcaster::new(pacing(), 8);
        let fake = Fake::default();
        let _subscription = broadcaster.subscribe(fake.clone()).unwrap();
        for _ in 0..10_000 {
            broadcaster.publish(EDIT);
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let delivered = fake.delivered.load(Ordering::SeqCst);
        assert!((1..=2).contains(&delivered), "{delivered} deliveries for one burst");
    }

    #[tokio::test(start_paused = true)]
    async fn s10_1_a_stalled_subscriber_delays_nobody_and_is_dropped() {
        let broadcaster = Broadcaster::new(pacing(), 8);
        let healthy = Fake::default();
        let _a = broadcaster.subscribe(Fake { stalled: true, ..Fake::default() }).unwrap();
        let _b = broadcaster.subscribe(healthy.clone()).unwrap();
        tokio::task::yield_now().await;
        broadcaster.publish(EDIT);
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert_eq!(healthy.delivered.load(Ordering::SeqCst), 1, "the healthy one waited");
        for _ in 0..5 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            broadcaster.publish(EDIT);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(healthy.delivered.load(Ordering::SeqCst) >= 5);
        assert_eq!(
            broadcaster.count(),
            1,
            "the stalled subscriber was dropped, the healthy one kept"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn s10_1_a_subscriber_whose_connection_is_gone_is_dropped() {
        let broadcaster = Broadcaster::new(pacing(), 8);
        let _gone = broadcaster.subscribe(Fake { gone: true, ..Fake::default() }).unwrap();
        assert_eq!(broadcaster.count(), 1);
        broadcaster.publish(EDIT);
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert_eq!(broadcaster.count(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn s6_a_change_a_subscriber_does_not_want_is_never_delivered_to_it() {
        let broadcaster = Broadcaster::new(pacing(), 8);
        let fake = Fake { tools_only: true, ..Fake::default() };
        let _subscription = broadcaster.subscribe(fake.clone()).unwrap();
        for _ in 0..100 {
            broadcaster.publish(EDIT);
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        assert_eq!(fake.delivered.load(Ordering::SeqCst), 0);
        broadcaster.publish(Change { tools: true, ..EDIT });
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert_eq!(fake.delivered.load(Ordering::SeqCst), 1, "a tool change is wanted");
    }

    #[tokio::test(start_paused = true)]
    async fn subscribers_beyond_the_limit_are_refused() {
        let broadcaster = Broadcaster::new(pacing(), 2);
        let kept: Vec<Subscription> =
            (0..5).filter_map(|_| broadcaster.subscribe(Fake::default())).collect();
        assert_eq!(kept.len(), 2);
        drop(kept);
        assert!(broadcaster.subscribe(Fake::default()).is_some(), "slots come back");
    }

    #[tokio::test(start_paused = true)]
    async fn dropping_the_subscription_ends_its_task() {
        let broadcaster = Broadcaster::new(pacing(), 8);
        let fake = Fake::default();
        let subscription = broadcaster.subscribe(fake.clone()).unwrap();
        drop(subscription);
        assert_eq!(broadcaster.count(), 0);
        broadcaster.publish(EDIT);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(fake.delivered.load(Ordering::SeqCst), 0);
    }
}
