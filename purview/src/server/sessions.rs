//! Connected sessions and the broadcast of notifications to all of them
//! (§10.1): legacy sessions by their peer, 2026-07-28 sessions by their
//! `subscriptions/listen` sink.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use rmcp::{Peer, RoleServer, model::ResourceUpdatedNotificationParam, service::SubscriptionSink};

use crate::{
    app::{Change, Inner, lock_unpoisoned},
    model::WINDOWS_URI,
};

struct Legacy {
    peer: Peer<RoleServer>,
    subscribed: bool,
}

#[derive(Default)]
pub(crate) struct Sessions {
    next_id: AtomicU64,
    legacy: Mutex<HashMap<u64, Legacy>>,
    listeners: Mutex<HashMap<u64, SubscriptionSink>>,
}

impl Sessions {
    pub fn new_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    pub fn register_legacy(&self, id: u64, peer: Peer<RoleServer>) {
        lock_unpoisoned(&self.legacy).entry(id).or_insert(Legacy { peer, subscribed: false });
    }

    pub fn set_subscribed(&self, id: u64, peer: Peer<RoleServer>, subscribed: bool) {
        lock_unpoisoned(&self.legacy)
            .entry(id)
            .or_insert(Legacy { peer, subscribed: false })
            .subscribed = subscribed;
    }

    pub fn remove_legacy(&self, id: u64) {
        lock_unpoisoned(&self.legacy).remove(&id);
    }

    pub fn add_listener(&self, sink: SubscriptionSink) -> u64 {
        let id = self.new_id();
        lock_unpoisoned(&self.listeners).insert(id, sink);
        id
    }

    pub fn remove_listener(&self, id: u64) {
        lock_unpoisoned(&self.listeners).remove(&id);
    }

    /// How many sessions would receive a tools/list_changed now.
    pub fn count(&self) -> usize {
        lock_unpoisoned(&self.legacy).len() + lock_unpoisoned(&self.listeners).len()
    }

    /// Sends one batch of changes to every session that should see it, to
    /// all of them at once. A session whose transport fails is dropped; one
    /// that is merely slow keeps its place, and holds up the next batch (for
    /// everyone) by at most [`SEND_TIMEOUT`].
    async fn broadcast(&self, change: Change) {
        let legacy: Vec<(u64, Peer<RoleServer>, bool)> = lock_unpoisoned(&self.legacy)
            .iter()
            .map(|(id, s)| (*id, s.peer.clone(), s.subscribed))
            .collect();
        let listeners: Vec<(u64, SubscriptionSink)> =
            lock_unpoisoned(&self.listeners).iter().map(|(id, s)| (*id, s.clone())).collect();
        let mut sends: Vec<(bool, u64, tokio::task::JoinHandle<Option<bool>>)> = Vec::new();
        for (id, peer, subscribed) in legacy {
            if peer.is_transport_closed() {
                lock_unpoisoned(&self.legacy).remove(&id);
                continue;
            }
            let send = async move {
                let mut ok = true;
                if change.tools {
                    ok &= peer.notify_tool_list_changed().await.is_ok();
                }
                if change.resource && subscribed {
                    let param = ResourceUpdatedNotificationParam::new(WINDOWS_URI);
                    ok &= peer.notify_resource_updated(param).await.is_ok();
                }
                ok
            };
            sends.push((true, id, tokio::spawn(within(SEND_TIMEOUT, send))));
        }
        for (id, sink) in listeners {
            let accepted = sink.accepted();
            let wants_tools = change.tools && accepted.tools_list_changed == Some(true);
            let wants_resource = change.resource
                && accepted
                    .resource_subscriptions
                    .as_ref()
                    .is_some_and(|uris| uris.iter().any(|u| u == WINDOWS_URI));
            let send = async move {
                let mut ok = true;
                if wants_tools {
                    ok &= sink.notify_tool_list_changed().await.is_ok();
                }
                if wants_resource {
                    ok &= sink.notify_resource_updated(WINDOWS_URI).await.is_ok();
                }
                ok
            };
            sends.push((false, id, tokio::spawn(within(SEND_TIMEOUT, send))));
        }
        for (is_legacy, id, send) in sends {
            // Delivered, or too slow to wait for: the session stays.
            if let Ok(Some(true) | None) = send.await {
                continue;
            }
            tracing::debug!(session = id, "dropping a session that no longer takes notifications");
            if is_legacy {
                lock_unpoisoned(&self.legacy).remove(&id);
            } else {
                lock_unpoisoned(&self.listeners).remove(&id);
            }
        }
    }
}

/// How long one session may take to accept a notification.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// `send`'s outcome, or `None` if it took longer than `limit`.
async fn within(limit: Duration, send: impl std::future::Future<Output = bool>) -> Option<bool> {
    tokio::time::timeout(limit, send).await.ok()
}

/// Starts the app's broadcaster task unless one is running (a task from a
/// runtime that has since shut down counts as finished). Must be called
/// inside a tokio runtime. The task holds only the change hub and the
/// session table, never the windows.
pub(crate) fn ensure_broadcaster(inner: &Arc<Inner>) {
    let mut running = lock_unpoisoned(&inner.broadcaster);
    if running.as_ref().is_some_and(|task| !task.is_finished()) {
        return;
    }
    let hub = inner.hub.clone();
    let sessions = inner.sessions.clone();
    let gap: Duration = inner.config.coalesce;
    *running = Some(tokio::spawn(async move {
        loop {
            let change = hub.next().await;
            sessions.broadcast(change).await;
            // Changes made while we were sending, or during the gap, go out
            // together in the next batch.
            tokio::time::sleep(gap).await;
        }
    }));
}
