//! rmcp's session manager with bounds: at most so many sessions at once
//! (checked and created under one lock, so a burst cannot overshoot), and
//! so many server-to-client GET streams per session and in all. Sessions
//! and the streams in all are shares, not caps (`crate::shares`): each is
//! charged to the client whose request opened it (`REQUEST_CLIENT`, which
//! `http.rs` sets for each request), and when all are taken, a client holding fewer than
//! another closes that one's oldest (a session closed this way ends as if
//! deleted; a stream ends). Idle sessions expire through rmcp's own
//! `keep_alive`, and their places go with them.
//!
//! A session belongs to the client that opened it: a request naming it
//! with another client's credential is answered as if it did not exist
//! ([`BoundedSessions::admits`], which the HTTP layer asks before rmcp
//! sees the request), so a leaked `Mcp-Session-Id` lets no one else call
//! tools in it, take its GET streams or end it.

use std::{
    collections::HashMap,
    pin::Pin,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    task::{Context, Poll},
};

use futures::Stream;
use rmcp::{
    model::{ClientJsonRpcMessage, ServerJsonRpcMessage},
    transport::streamable_http_server::{
        SessionManager,
        session::{
            EventStore, ServerSseMessage, SessionId,
            local::{LocalSessionManager, LocalSessionManagerError},
        },
    },
};

use tokio_util::sync::CancellationToken;

use crate::{
    lock::lock_unpoisoned,
    shares::{Pool, Refused, Share},
};

use super::fair::{Client, Summary};

tokio::task_local! {
    /// Whom the request being served is charged to (the client its own
    /// credential proves), for the sessions and streams it opens.
    pub(crate) static REQUEST_CLIENT: Client;
}

/// The client a request's own credential proves, as a request extension
/// the header checks set: the named client whose token it carries, else
/// its source address. What the request opens, asks or is named by is
/// this client's, whatever its connection was charged to before.
#[derive(Debug, Clone)]
pub(crate) struct Credential(pub Client);

/// Whom what the current request opens is charged to.
pub(crate) fn requesting_client() -> Client {
    REQUEST_CLIENT
        .try_with(Client::clone)
        .unwrap_or(Client::Address(std::net::Ipv4Addr::LOCALHOST.into()))
}

tokio::task_local! {
    /// Set, within the request that asked for a session, to the limit that
    /// refused it, so the HTTP layer can answer 503 with a JSON-RPC error.
    pub(crate) static SESSION_REFUSED: std::cell::Cell<Option<usize>>;
}

/// Why the bounded manager refused, or what the inner one said.
#[derive(Debug)]
pub(crate) enum BoundedError {
    TooManySessions(usize),
    TooManyStreams(usize),
    TooManyStreamsInAll(usize),
    Inner(LocalSessionManagerError),
}

impl std::fmt::Display for BoundedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooManySessions(limit) => write!(
                f,
                "the server already has {limit} sessions, its limit; end one (HTTP DELETE) or wait for idle ones to expire"
            ),
            Self::TooManyStreams(limit) => {
                write!(
                    f,
                    "this session already has {limit} open GET streams, its limit; close one before opening or resuming another"
                )
            }
            Self::TooManyStreamsInAll(limit) => write!(
                f,
                "the server already has {limit} open GET streams, its limit; try again later"
            ),
            Self::Inner(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BoundedError {}

impl From<LocalSessionManagerError> for BoundedError {
    fn from(e: LocalSessionManagerError) -> Self {
        Self::Inner(e)
    }
}

pub(crate) struct BoundedSessions {
    inner: LocalSessionManager,
    max_streams: usize,
    /// Every session's place, shared by the clients that opened them.
    sessions: Arc<Pool<Client>>,
    /// Each live session's place, the client that opened it, and a token
    /// cancelled when it ends.
    places: Mutex<HashMap<SessionId, Place>>,
    streams: Mutex<HashMap<SessionId, Arc<AtomicUsize>>>,
    /// Every GET stream's place, shared by the clients that opened them.
    streams_in_all: Arc<Pool<Client>>,
    /// Held from the count to the insert, so the cap cannot race.
    creating: tokio::sync::Mutex<()>,
    refused: Summary,
    closed_for_room: Summary,
    foreign: Summary,
    /// Itself, for the task that closes a session whose place was taken.
    me: std::sync::Weak<Self>,
}

impl BoundedSessions {
    pub fn new(
        inner: LocalSessionManager,
        max_sessions: usize,
        max_streams: usize,
        max_streams_in_all: usize,
    ) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            inner,
            max_streams,
            sessions: Pool::new(max_sessions, max_sessions),
            places: Mutex::default(),
            streams: Mutex::default(),
            streams_in_all: Pool::new(max_streams_in_all, max_streams_in_all),
            creating: tokio::sync::Mutex::new(()),
            refused: Summary::new(
                "new sessions refused: at the session limit, held by clients holding no more than this one",
            ),
            closed_for_room: Summary::new(
                "sessions closed to make room (the oldest of the client holding the most)",
            ),
            foreign: Summary::new(
                "requests naming another client's session, answered as if it did not exist",
            ),
            me: me.clone(),
        })
    }

    /// Takes one of the session's GET-stream slots (and a share of the
    /// server's), or refuses at either limit. The caller gives them back
    /// (through [`Counted`]'s drop); the stream ends if its place is taken
    /// for another client's.
    fn take_stream_slot(&self, id: &SessionId) -> Result<Slots, BoundedError> {
        let in_all = match self.streams_in_all.admit(requesting_client(), 0) {
            Ok(share) => share,
            Err(Refused::Full(n) | Refused::OverShare(n)) => {
                return Err(BoundedError::TooManyStreamsInAll(n));
            }
        };
        let open = lock_unpoisoned(&self.streams).entry(id.clone()).or_default().clone();
        let taken = open.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < self.max_streams).then_some(n + 1)
        });
        if taken.is_err() {
            // The server-wide place taken above goes back with `in_all`.
            return Err(BoundedError::TooManyStreams(self.max_streams));
        }
        Ok(Slots { session: open, in_all })
    }

    /// Whether a request with `headers` from `client` may go on: it names
    /// no session, a session `client` opened, or none of this server's
    /// (rmcp then answers 404 itself).
    pub fn admits(&self, headers: &axum::http::HeaderMap, client: &Client) -> bool {
        let Some(id) = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) else {
            return true;
        };
        let admitted =
            lock_unpoisoned(&self.places).get(id).is_none_or(|place| place.owner == *client);
        if !admitted {
            self.foreign.note();
        }
        admitted
    }

    /// Whether session `id` holds a place here (it may have expired since,
    /// until the next session is made).
    pub fn holds(&self, id: &str) -> bool {
        lock_unpoisoned(&self.places).contains_key(id)
    }

    /// Whether session `id` is live: rmcp would serve a request in it.
    pub async fn is_live(&self, id: &str) -> bool {
        self.inner.sessions.read().await.contains_key(id)
    }

    /// Closes a session whose place was taken for another client's, unless
    /// it ends first.
    fn close_when_cut(&self, id: SessionId, cut: CancellationToken, ended: CancellationToken) {
        let me = self.me.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = cut.cancelled() => {}
                () = ended.cancelled() => return,
            }
            if let Some(me) = me.upgrade() {
                me.closed_for_room.note();
                let _ = me.close_session(&id).await;
            }
        });
    }
}

/// The answer to a request naming a session its client did not open:
/// rmcp's own answer for a session that does not exist, word for word, so
/// nothing tells the two apart.
pub(crate) fn session_not_found() -> axum::response::Response {
    use axum::response::IntoResponse;
    (axum::http::StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}

/// A live session's place among all, whom it belongs to, and a token
/// cancelled when it ends.
struct Place {
    _share: Share<Client>,
    owner: Client,
    ended: CancellationToken,
}

/// A stream's places: one of its session's, one of the server's.
struct Slots {
    session: Arc<AtomicUsize>,
    in_all: Share<Client>,
}

impl Drop for Slots {
    fn drop(&mut self) {
        self.session.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A GET stream that gives its slots back when the client goes away, and
/// ends when its place is taken for another client's.
struct Counted<S> {
    stream: S,
    cut: Pin<Box<tokio_util::sync::WaitForCancellationFutureOwned>>,
    _slots: Slots,
}

impl<S> Counted<S> {
    fn new(stream: S, slots: Slots) -> Self {
        let cut = Box::pin(slots.in_all.cut.clone().cancelled_owned());
        Self { stream, cut, _slots: slots }
    }
}

impl<S: Stream + Unpin> Stream for Counted<S> {
    type Item = S::Item;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        if self.cut.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Pin::new(&mut self.stream).poll_next(cx)
    }
}

impl SessionManager for BoundedSessions {
    type Error = BoundedError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), BoundedError> {
        let _creating = self.creating.lock().await;
        let sessions = self.inner.sessions.read().await;
        // Sessions that expired while idle never pass through
        // `close_session`: forget their places and stream counts here (a
        // count still held by an open stream lives on in that stream).
        lock_unpoisoned(&self.streams).retain(|id, _| sessions.contains_key(id));
        lock_unpoisoned(&self.places).retain(|id, place| {
            let live = sessions.contains_key(id);
            if !live {
                place.ended.cancel();
            }
            live
        });
        drop(sessions);
        let owner = requesting_client();
        let place = match self.sessions.admit(owner.clone(), 0) {
            Ok(place) => place,
            Err(Refused::Full(limit) | Refused::OverShare(limit)) => {
                self.refused.note();
                let _ = SESSION_REFUSED.try_with(|refused| refused.set(Some(limit)));
                return Err(BoundedError::TooManySessions(limit));
            }
        };
        // Only this method adds sessions, and it holds `creating`.
        let (id, transport) = self.inner.create_session().await?;
        let ended = CancellationToken::new();
        self.close_when_cut(id.clone(), place.cut.clone(), ended.clone());
        lock_unpoisoned(&self.places).insert(id.clone(), Place { _share: place, owner, ended });
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, BoundedError> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, BoundedError> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), BoundedError> {
        lock_unpoisoned(&self.streams).remove(id);
        // Its place goes back now, whatever the inner manager says.
        if let Some(place) = lock_unpoisoned(&self.places).remove(id) {
            place.ended.cancel();
        }
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, BoundedError> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), BoundedError> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, BoundedError> {
        let slots = self.take_stream_slot(id)?;
        match self.inner.create_standalone_stream(id).await {
            Ok(stream) => Ok(Counted::new(Box::pin(stream), slots)),
            Err(e) => Err(e.into()),
        }
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }

    /// A resumed stream (`Last-Event-ID`) counts like a new one: otherwise a
    /// client could hold any number of streams open by resuming.
    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, BoundedError> {
        let slots = self.take_stream_slot(id)?;
        match self.inner.resume(id, last_event_id).await {
            Ok(stream) => Ok(Counted::new(Box::pin(stream), slots)),
            Err(e) => Err(e.into()),
        }
    }
}
