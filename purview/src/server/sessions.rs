//! The transport side of §10.1 broadcasting: an MCP session (by its peer)
//! or a 2026-07-28 `subscriptions/listen` stream (by its sink), as a
//! [`Subscriber`] of the application. Pacing, coalescing and dropping dead
//! or stalled sessions are the application's (`app/broadcast.rs`).

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use rmcp::{Peer, RoleServer, model::ResourceUpdatedNotificationParam, service::SubscriptionSink};

use crate::{
    Change,
    app::broadcast::{Gone, Subscriber},
    model::WINDOWS_URI,
    window::BoxFuture,
};

/// A legacy (2025-11-25) session: every session hears tools/list_changed;
/// resources/updated only after `resources/subscribe`.
pub(super) struct LegacySession {
    pub peer: Peer<RoleServer>,
    pub subscribed: Arc<AtomicBool>,
}

impl Subscriber for LegacySession {
    fn deliver(&self, change: Change) -> BoxFuture<'_, Result<(), Gone>> {
        Box::pin(async move {
            if self.peer.is_transport_closed() {
                return Err(Gone);
            }
            if change.tools {
                self.peer.notify_tool_list_changed().await.map_err(|_| Gone)?;
            }
            if change.resource && self.subscribed.load(Ordering::Acquire) {
                let param = ResourceUpdatedNotificationParam::new(WINDOWS_URI);
                self.peer.notify_resource_updated(param).await.map_err(|_| Gone)?;
            }
            Ok(())
        })
    }
}

/// A 2026-07-28 listen stream: what its accepted filter asked for.
pub(super) struct ListenStream {
    pub sink: SubscriptionSink,
}

impl Subscriber for ListenStream {
    fn deliver(&self, change: Change) -> BoxFuture<'_, Result<(), Gone>> {
        Box::pin(async move {
            let accepted = self.sink.accepted();
            if change.tools && accepted.tools_list_changed == Some(true) {
                self.sink.notify_tool_list_changed().await.map_err(|_| Gone)?;
            }
            let wants_windows = accepted
                .resource_subscriptions
                .as_ref()
                .is_some_and(|uris| uris.iter().any(|u| u == WINDOWS_URI));
            if change.resource && wants_windows {
                self.sink.notify_resource_updated(WINDOWS_URI).await.map_err(|_| Gone)?;
            }
            Ok(())
        })
    }
}
