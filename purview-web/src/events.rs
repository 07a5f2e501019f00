//! The live page: a stream of server-sent events, one `scene` event when
//! it opens (every window, and the page's words) and one whenever what the
//! page draws changed (a window's version, the open windows, the agent's
//! whereabouts, a question asked or answered), carrying only the windows
//! that changed since the stream's last event (`cut.rs`). Woken by the
//! app's own change notices, never by a timer; a wake that changed nothing
//! the page draws sends nothing.

use std::{convert::Infallible, sync::Arc, time::Duration};

use axum::{
    extract::State,
    http::{HeaderMap, Method},
    response::{
        IntoResponse, Response,
        sse::{Event, KeepAlive, Sse},
    },
};
use tokio::sync::{oneshot, watch};

use crate::{
    Inner,
    access::{self, refused},
    calls_lock,
    page::Handle,
    scene,
};

/// Live-update streams one face keeps open at once, for all the person's
/// pages together; a newer one ends the oldest (a reloaded page leaves its
/// old stream behind until the connection closes).
///
/// ```
/// assert_eq!(purview_web::MAX_EVENT_STREAMS, 4);
/// ```
pub const MAX_STREAMS: usize = 4;

/// What one open stream waits on.
struct Waiting {
    changes: watch::Receiver<u64>,
    /// Woken when the page's person changed what the page shows.
    woken: watch::Receiver<u64>,
    /// Resolves when a newer stream took this one's place.
    ended: oneshot::Receiver<()>,
    /// The page it draws: what its person holds, what it was sent.
    page: Arc<Handle>,
    /// Its number among the page's streams.
    number: u64,
    /// The change the page's person was last carried through.
    settled: Option<u64>,
    inner: Arc<Inner>,
}

/// `GET {prefix}/events`: the scene now, then on every change.
pub(crate) async fn stream(
    State(inner): State<Arc<Inner>>,
    method: Method,
    headers: HeaderMap,
) -> Response {
    let session = match access::check(&inner.access, &method, &headers) {
        Ok(session) => session,
        Err(why) => return refused(why),
    };
    let page = inner.page(&session, &headers);
    // A page drawn anew (its stream opened again) is sent everything, on
    // this stream alone.
    let number = {
        let mut drawn = calls_lock(&page.page);
        drawn.sent = None;
        drawn.stream = drawn.stream.wrapping_add(1);
        drawn.stream
    };
    // The page's stream before this one ends now, not at its next change.
    page.wake();
    let (end, ended) = oneshot::channel();
    {
        let mut streams = calls_lock(&inner.streams);
        streams.retain(|s: &oneshot::Sender<()>| !s.is_closed());
        if streams.len() >= MAX_STREAMS {
            // Dropping the sender ends that stream.
            streams.remove(0);
        }
        streams.push(end);
    }
    let mut changes = inner.changes.subscribe();
    changes.mark_changed();
    let woken = page.woken.subscribe();
    let waiting = Waiting { changes, woken, ended, page, number, settled: None, inner };
    let events = futures_util::stream::unfold(waiting, next_event);
    Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

/// The next change of what the page draws, or the end.
async fn next_event(mut waiting: Waiting) -> Option<(Result<Event, Infallible>, Waiting)> {
    loop {
        tokio::select! {
            changed = waiting.changes.changed() => changed.ok()?,
            woken = waiting.woken.changed() => woken.ok()?,
            _ = &mut waiting.ended => return None,
        }
        let made = waiting.inner.kept();
        let model = made.model().ok();
        let mut page = calls_lock(&waiting.page.page);
        if page.stream != waiting.number {
            return None;
        }
        // Carried through each change once: a page of rows the person
        // chose is loaded again at the same rows.
        if waiting.settled != Some(made.cut().change()) {
            waiting.settled = Some(made.cut().change());
            if let Some(model) = model {
                for call in page.person.settle(model) {
                    crate::intents::make(&waiting.inner, &waiting.page, &made, call);
                }
            }
        }
        let own = crate::page::own(model, &page.person);
        let event = made.cut().event(page.sent.as_ref(), scene::words_text(), own);
        if let Some((text, sent)) = event {
            page.sent = Some(sent);
            drop(page);
            let event = Event::default().event("scene").data(text);
            return Some((Ok(event), waiting));
        }
    }
}
