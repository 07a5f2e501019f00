//! The transport side of §10.1 broadcasting: an MCP session (by its peer)
//! or a 2026-07-28 `subscriptions/listen` stream (by its sink), as a
//! [`Subscriber`] of the application. Pacing, coalescing and dropping dead
//! or stalled sessions are the application's (`app/broadcast.rs`). Also the
//! session as the asker of an approval, and as the receiver of one call's
//! progress (whose policy is `app/progress.rs`'s).

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use rmcp::{
    Peer, RoleServer, ServiceError,
    model::{ProgressNotificationParam, ProgressToken, ResourceUpdatedNotificationParam},
    service::{ElicitationError, ElicitationMode, RequestContext, SubscriptionSink},
};

use crate::{
    app::{
        Approval, Change,
        approval::{AgentSession, Answer},
        broadcast::{Gone, Subscriber},
        progress::{self, Progress, ProgressFeed},
    },
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
    fn wants(&self, change: Change) -> bool {
        // A closed session is handed the change too: its delivery finds the
        // connection gone and drops the subscriber.
        let closed = self.peer.is_transport_closed();
        change.tools || (change.resource && self.subscribed.load(Ordering::Acquire)) || closed
    }

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

impl ListenStream {
    /// What of `change` this stream's filter asks for: tools/list_changed,
    /// and resources/updated for `app://windows`.
    fn asked_for(&self, change: Change) -> (bool, bool) {
        let accepted = self.sink.accepted();
        let windows = accepted
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| u == WINDOWS_URI));
        (change.tools && accepted.tools_list_changed == Some(true), change.resource && windows)
    }
}

impl Subscriber for ListenStream {
    fn wants(&self, change: Change) -> bool {
        let (tools, windows) = self.asked_for(change);
        tools || windows
    }

    fn deliver(&self, change: Change) -> BoxFuture<'_, Result<(), Gone>> {
        Box::pin(async move {
            let (tools, windows) = self.asked_for(change);
            if tools {
                self.sink.notify_tool_list_changed().await.map_err(|_| Gone)?;
            }
            if windows {
                self.sink.notify_resource_updated(WINDOWS_URI).await.map_err(|_| Gone)?;
            }
            Ok(())
        })
    }
}

/// The calling agent's session, for asking its user to approve an action
/// (MCP elicitation, form mode: one boolean). Only clients that declared
/// the capability are asked; 2026-07-28 requests cannot be answered with
/// a request, so those clients are asked by a question they answer on
/// retry (round_trip.rs) instead.
pub(super) struct PeerSession {
    pub number: u64,
    /// The request's own context: what the client is and can do is read
    /// from it only when someone is asked, not on every call.
    pub context: RequestContext<RoleServer>,
}

impl AgentSession for PeerSession {
    fn describe(&self) -> String {
        // Named by the client its credential proves; the name it gives
        // itself (from this request or the session's handshake) is its own
        // text, so only a quoted aside.
        let calls_itself = self.context.client_info().map(|info| info.name);
        let client = super::client_of(&self.context, self.number);
        crate::app::approval::asker(&client, calls_itself.as_deref())
    }

    fn asks_on_retry(&self) -> bool {
        super::asks_on_retry(&self.context)
    }

    fn number(&self) -> u64 {
        self.number
    }

    fn client(&self) -> Option<crate::app::ClientId> {
        Some(super::client_of(&self.context, self.number))
    }

    fn elicit(&self, message: String, timeout: Duration) -> BoxFuture<'_, Option<Answer>> {
        Box::pin(async move {
            if !self.context.peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
                return None;
            }
            let asked = self
                .context
                .peer
                .elicit_with_timeout::<super::round_trip::ApprovalForm>(message, Some(timeout))
                .await;
            match asked {
                Ok(Some(form)) => Some(Answer::Given(if form.approve {
                    Approval::Approve
                } else {
                    Approval::Decline
                })),
                Ok(None)
                | Err(ElicitationError::UserDeclined | ElicitationError::UserCancelled) => {
                    Some(Answer::Given(Approval::Decline))
                }
                Err(ElicitationError::Service(ServiceError::Timeout { .. })) => {
                    Some(Answer::TimedOut)
                }
                // The client cannot be asked after all: only then may the
                // app's policy for "no one to ask" decide.
                Err(ElicitationError::CapabilityNotSupported) => None,
                Err(ElicitationError::Service(ServiceError::McpError(e)))
                    if e.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND =>
                {
                    None
                }
                // The client was asked and failed, cancelled or went away:
                // someone may have seen the question, so it is a no.
                Err(_) => Some(Answer::Given(Approval::Decline)),
            }
        })
    }
}

/// Runs `call` while its progress reports go to `peer` as
/// `notifications/progress` for `token`: on the connection (stdio) or the
/// request's own SSE stream (HTTP, where rmcp routes a progress
/// notification by its token), never to another session. The last report
/// is sent before `call`'s output is handed back, so it precedes the
/// result; on 2026-07-28 HTTP nothing can follow the result anyway.
pub(super) async fn with_progress<T>(
    peer: &Peer<RoleServer>,
    token: ProgressToken,
    feed: &ProgressFeed,
    call: impl Future<Output = T>,
) -> T {
    let finished = async {
        let output = call.await;
        feed.close();
        output
    };
    let send = |progress: Progress| {
        let mut param = ProgressNotificationParam::new(token.clone(), progress.done as f64);
        param.total = progress.total.map(|total| total as f64);
        param.message = progress.message;
        async move { peer.notify_progress(param).await.map_err(|_| ()) }
    };
    let (output, ()) = tokio::join!(finished, progress::pace(feed, progress::INTERVAL, send));
    output
}
