//! rmcp's session manager with bounds: at most so many sessions at once
//! (checked and created under one lock, so a burst cannot overshoot), and
//! so many server-to-client GET streams per session and in all. Idle
//! sessions expire through rmcp's own `keep_alive`.

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

use crate::lock::lock_unpoisoned;

use super::fair::Summary;

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
    max_sessions: usize,
    max_streams: usize,
    max_streams_in_all: usize,
    streams: Mutex<HashMap<SessionId, Arc<AtomicUsize>>>,
    streams_in_all: Arc<AtomicUsize>,
    /// Held from the count to the insert, so the cap cannot race.
    creating: tokio::sync::Mutex<()>,
    refused: Summary,
}

impl BoundedSessions {
    pub fn new(
        inner: LocalSessionManager,
        max_sessions: usize,
        max_streams: usize,
        max_streams_in_all: usize,
    ) -> Self {
        Self {
            inner,
            max_sessions,
            max_streams,
            max_streams_in_all,
            streams: Mutex::default(),
            streams_in_all: Arc::default(),
            creating: tokio::sync::Mutex::new(()),
            refused: Summary::new("new sessions refused: at the session limit"),
        }
    }

    /// Whether `id` names a session that exists now.
    pub async fn is_live(&self, id: &str) -> bool {
        self.inner.sessions.read().await.contains_key(id)
    }

    /// Takes one of the session's GET-stream slots (and one of the server's),
    /// or refuses at either limit. The caller gives them back (through
    /// [`Counted`]'s drop).
    fn take_stream_slot(&self, id: &SessionId) -> Result<Slots, BoundedError> {
        let in_all = self.streams_in_all.clone();
        if in_all
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.max_streams_in_all).then_some(n + 1)
            })
            .is_err()
        {
            return Err(BoundedError::TooManyStreamsInAll(self.max_streams_in_all));
        }
        let open = lock_unpoisoned(&self.streams).entry(id.clone()).or_default().clone();
        let taken = open.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < self.max_streams).then_some(n + 1)
        });
        if taken.is_err() {
            // Give back the server-wide place taken above.
            in_all.fetch_sub(1, Ordering::AcqRel);
            return Err(BoundedError::TooManyStreams(self.max_streams));
        }
        Ok(Slots { session: open, in_all })
    }
}

/// A stream's places: one of its session's, one of the server's.
struct Slots {
    session: Arc<AtomicUsize>,
    in_all: Arc<AtomicUsize>,
}

impl Drop for Slots {
    fn drop(&mut self) {
        self.session.fetch_sub(1, Ordering::AcqRel);
        self.in_all.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A GET stream that gives its slots back when the client goes away.
struct Counted<S> {
    stream: S,
    _slots: Slots,
}

impl<S: Stream + Unpin> Stream for Counted<S> {
    type Item = S::Item;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
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
        // `close_session`: forget their stream counts here (a count still
        // held by an open stream lives on in that stream).
        lock_unpoisoned(&self.streams).retain(|id, _| sessions.contains_key(id));
        if sessions.len() >= self.max_sessions {
            self.refused.note();
            let _ = SESSION_REFUSED.try_with(|refused| refused.set(Some(self.max_sessions)));
            return Err(BoundedError::TooManySessions(self.max_sessions));
        }
        drop(sessions);
        // Only this method adds sessions, and it holds `creating`: the count
        // read above is still true here.
        Ok(self.inner.create_session().await?)
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
            Ok(stream) => Ok(Counted { stream: Box::pin(stream), _slots: slots }),
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
            Ok(stream) => Ok(Counted { stream: Box::pin(stream), _slots: slots }),
            Err(e) => Err(e.into()),
        }
    }
}
