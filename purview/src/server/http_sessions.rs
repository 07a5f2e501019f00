//! rmcp's session manager with bounds: at most so many sessions at once, and
//! so many server-to-client GET streams per session. Idle sessions expire
//! through rmcp's own `keep_alive`.

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

use crate::app::lock_unpoisoned;

/// Why the bounded manager refused, or what the inner one said.
#[derive(Debug)]
pub(crate) enum BoundedError {
    TooManySessions(usize),
    TooManyStreams(usize),
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
    streams: Mutex<HashMap<SessionId, Arc<AtomicUsize>>>,
}

impl BoundedSessions {
    pub fn new(inner: LocalSessionManager, max_sessions: usize, max_streams: usize) -> Self {
        Self { inner, max_sessions, max_streams, streams: Mutex::default() }
    }

    /// Takes one of the session's GET-stream slots, or refuses at the limit.
    /// The caller gives it back (through [`Counted`]'s drop, or by hand when
    /// the stream cannot be opened).
    fn take_stream_slot(&self, id: &SessionId) -> Result<Arc<AtomicUsize>, BoundedError> {
        let open = lock_unpoisoned(&self.streams).entry(id.clone()).or_default().clone();
        if open.fetch_add(1, Ordering::AcqRel) >= self.max_streams {
            open.fetch_sub(1, Ordering::AcqRel);
            return Err(BoundedError::TooManyStreams(self.max_streams));
        }
        Ok(open)
    }
}

/// A GET stream that gives its slot back when the client goes away.
struct Counted<S> {
    stream: S,
    open: Arc<AtomicUsize>,
}

impl<S: Stream + Unpin> Stream for Counted<S> {
    type Item = S::Item;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        Pin::new(&mut self.stream).poll_next(cx)
    }
}

impl<S> Drop for Counted<S> {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
    }
}

impl SessionManager for BoundedSessions {
    type Error = BoundedError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), BoundedError> {
        let sessions = self.inner.sessions.read().await;
        // Sessions that expired while idle never pass through
        // `close_session`: forget their stream counts here.
        lock_unpoisoned(&self.streams).retain(|id, _| sessions.contains_key(id));
        if sessions.len() >= self.max_sessions {
            tracing::warn!(limit = self.max_sessions, "refusing a new session: at the limit");
            return Err(BoundedError::TooManySessions(self.max_sessions));
        }
        drop(sessions);
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
        let open = self.take_stream_slot(id)?;
        match self.inner.create_standalone_stream(id).await {
            Ok(stream) => Ok(Counted { stream: Box::pin(stream), open }),
            Err(e) => {
                open.fetch_sub(1, Ordering::AcqRel);
                Err(e.into())
            }
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
        let open = self.take_stream_slot(id)?;
        match self.inner.resume(id, last_event_id).await {
            Ok(stream) => Ok(Counted { stream: Box::pin(stream), open }),
            Err(e) => {
                open.fetch_sub(1, Ordering::AcqRel);
                Err(e.into())
            }
        }
    }
}
