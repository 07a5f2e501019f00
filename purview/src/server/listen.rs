//! 2026-07-28 `subscriptions/listen` streams: how many one connection may
//! hold, and over HTTP, where every listen is its own request, the places
//! all clients share by the rule of `crate::shares`.

#[cfg(feature = "http")]
use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::{
    ErrorData as McpError, RoleServer,
    service::{RequestContext, SubscriptionContext},
};

#[cfg(feature = "http")]
use super::fair;
use super::{McpServer, sessions::ListenStream};
use crate::model::WINDOWS_URI;

/// How many `subscriptions/listen` streams one connection may hold open.
pub(super) const MAX_LISTENS_PER_CONNECTION: usize = 8;

/// The listen streams open at once across requests, shared fairly by the
/// clients that opened them (`crate::shares`): when all are taken, a client
/// holding fewer than another ends that one's oldest.
pub(crate) struct ListenBudget {
    max: usize,
    #[cfg(feature = "http")]
    pool: Arc<crate::shares::Pool<fair::Client>>,
}

impl ListenBudget {
    #[cfg(feature = "http")]
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(Self { max, pool: crate::shares::Pool::new(max, max) })
    }

    /// Takes a place for the client `context` came from, or `None` when no
    /// place can be had for it.
    #[cfg(feature = "http")]
    fn take(&self, context: &RequestContext<RoleServer>) -> Option<ListenPlace> {
        let client = super::credential_of(context)
            .unwrap_or(fair::Client::Address(std::net::Ipv4Addr::LOCALHOST.into()));
        self.pool.admit(client, 0).ok().map(ListenPlace)
    }

    #[cfg(not(feature = "http"))]
    fn take(&self, _: &RequestContext<RoleServer>) -> Option<ListenPlace> {
        None
    }
}

/// A place in a [`ListenBudget`], given back on drop; cancelled when it is
/// taken for another client's.
#[cfg(feature = "http")]
struct ListenPlace(crate::shares::Share<fair::Client>);

#[cfg(feature = "http")]
impl ListenPlace {
    async fn cut(&self) {
        self.0.cut.cancelled().await;
    }
}

#[cfg(not(feature = "http"))]
struct ListenPlace(std::convert::Infallible);

#[cfg(not(feature = "http"))]
impl ListenPlace {
    async fn cut(&self) {
        match self.0 {}
    }
}

impl McpServer {
    /// A `subscriptions/listen` stream, held until the client closes it.
    pub(super) async fn hold_listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let place = match &self.listens {
            None => None,
            Some(budget) => Some(budget.take(context.request_context()).ok_or_else(|| {
                McpError::invalid_request(
                    format!(
                        "this server already has {} open subscriptions, its limit; try again later, and read {WINDOWS_URI} meanwhile",
                        budget.max
                    ),
                    None,
                )
            })?),
        };
        let listens = &self.session.listens;
        if listens.fetch_add(1, Ordering::AcqRel) >= MAX_LISTENS_PER_CONNECTION {
            listens.fetch_sub(1, Ordering::AcqRel);
            return Err(McpError::invalid_request(
                format!(
                    "this connection already has {MAX_LISTENS_PER_CONNECTION} open subscriptions; close one first"
                ),
                None,
            ));
        }
        let subscribed = self.app.subscribe(ListenStream { sink: context.sink().clone() });
        let result = match subscribed {
            Ok(subscription) => {
                tracing::info!(listener = subscription.id(), "subscription opened");
                let cut = async {
                    match &place {
                        Some(place) => place.cut().await,
                        None => std::future::pending().await,
                    }
                };
                let ended = tokio::select! {
                    () = context.cancelled() => Ok(()),
                    () = cut => Err(McpError::invalid_request(
                        "this subscription was ended to make room for another client's: this client held more open subscriptions than others; listen again later, and read app://windows meanwhile",
                        None,
                    )),
                };
                drop(subscription);
                ended
            }
            Err(e) => Err(McpError::invalid_request(format!("{e}; try again later"), None)),
        };
        listens.fetch_sub(1, Ordering::AcqRel);
        result
    }
}
