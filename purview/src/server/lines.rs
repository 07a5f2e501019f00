//! A line-framed JSON-RPC transport (one message per line), for stdio and
//! for any byte stream, that survives whatever a client sends:
//!
//! - every frame that is not a valid message gets the JSON-RPC answer it
//!   is owed (decided in `frame.rs`) instead of silence or a crash;
//! - notifications and responses that arrive before the first request are
//!   dropped, as JSON-RPC allows, instead of failing the handshake;
//! - nothing a client sent is logged, only what kind of frame it was;
//! - a line longer than [`MAX_LINE`] is answered and skipped without being
//!   buffered whole;
//! - at most [`OUTBOUND_FRAMES`] frames wait to be written, and the
//!   transport's own answers to bad frames queue up to as many; a client
//!   that stops reading for [`STALL_LIMIT`] is disconnected rather than
//!   buffered for forever (`outbound.rs` writes);
//! - at most [`MAX_IN_FLIGHT`] requests are being answered at once: the
//!   transport stops reading until one is answered, so a client that sends
//!   without reading cannot pile up answers that wait for the queue;
//! - a request whose id is already taken by one not yet answered is
//!   refused by the transport (rmcp would run it and drop its answer), and
//!   one the client cancels no longer counts, as no answer will come.
//!
//! Lines are read and decoded in [`Transport::receive`] itself, on the
//! session's own task, and each frame is written by the task that sends
//! it, as rmcp's own transports do: a reader and a writer task of their own
//! cost every message two hand-overs between tasks. rmcp polls `receive`
//! inside a `select!` and drops it whenever something else is ready first,
//! so everything a read has produced (the bytes not split yet, a request
//! waiting for its place, an answer waiting for room in the queue) lives
//! in the transport, never in the future.

use std::{
    collections::HashSet,
    ops::Range,
    sync::{Arc, Mutex, atomic::AtomicBool},
    time::Duration,
};

use rmcp::{
    RoleServer,
    model::{
        ClientJsonRpcMessage, ClientNotification, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
    },
    transport::Transport,
};
use serde_json::Value;
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite},
    sync::{Notify, mpsc},
    time::Instant,
};
use tokio_util::sync::CancellationToken;

pub(crate) use super::outbound::{Closed, OUTBOUND_FRAMES};
use super::{
    frame::{Frame, decode, error_frame},
    outbound::{Ends, Outbound},
    quiet::Quiet,
};
use crate::lock::lock_unpoisoned;

/// The longest line accepted, in bytes.
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;
/// How many requests may be read and not yet answered: beyond it the
/// transport reads no further, so the answers waiting for a slow reader
/// stay bounded.
pub(crate) const MAX_IN_FLIGHT: usize = 64;
/// How long a full outgoing queue may stay full before the client is
/// disconnected.
pub(crate) const STALL_LIMIT: Duration = Duration::from_secs(10);
/// How long requests already received may still be answered after the
/// client closed its input (a handler's default timeout, and a little).
const DRAIN_LIMIT: Duration = Duration::from_secs(35);
/// How much is read at once.
const CHUNK: usize = 64 * 1024;
/// The lines about bad frames, a few per interval (a client repeating one
/// would otherwise cost a line each).
static BAD_FRAMES: Quiet = Quiet::new("frames answered as not valid messages");
static TAKEN_IDS: Quiet = Quiet::new("requests refused for an id already in use");

/// A line-framed transport over a reader and a writer. When it is dropped
/// nothing more is read; sends already under way still write their frames
/// (each bounded by the stall limit), and the transport's queued answers to
/// bad frames go out, then the writer is dropped.
pub(crate) struct LineTransport<R> {
    reader: R,
    /// What the last read returned; `unread` is the part not split yet.
    chunk: Box<[u8]>,
    unread: Range<usize>,
    /// The line being assembled across reads.
    line: Vec<u8>,
    /// The line being assembled is too long: it is skipped to its end.
    oversized: bool,
    seen_request: bool,
    /// A decoded message not handed on yet (a request waits here for one
    /// of the [`MAX_IN_FLIGHT`] places).
    held: Option<Box<ClientJsonRpcMessage>>,
    /// The transport's own answer to a bad frame, waiting for room in the
    /// queue of such answers since the instant given.
    reply: Option<(Vec<u8>, Instant)>,
    /// Set when the client closed its input: requests already received
    /// are still answered until then.
    drain_until: Option<Instant>,
    outbound: Arc<Outbound>,
    /// The transport's own answers, written in order by a task of their own.
    replies: mpsc::Sender<Vec<u8>>,
    ends: Ends,
    /// The ids of the requests handed on and not yet answered.
    pending: Arc<Mutex<HashSet<RequestId>>>,
    /// Woken whenever a request is answered.
    answered: Arc<Notify>,
    /// Cancelled when the writer has been dropped.
    flushed: CancellationToken,
}

impl<R: AsyncRead + Unpin + Send + 'static> LineTransport<R> {
    /// Reads `reader` and starts writing `writer` on the current runtime.
    pub fn new<W>(reader: R, writer: W) -> Self
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Self::with_stall_limit(reader, writer, STALL_LIMIT)
    }

    fn with_stall_limit<W>(reader: R, writer: W, stall_limit: Duration) -> Self
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let flushed = CancellationToken::new();
        let ends = Ends {
            closed: CancellationToken::new(),
            stall_limit,
            stalled: Arc::new(AtomicBool::new(false)),
        };
        let outbound = Outbound::new(writer, ends.clone(), flushed.clone());
        let (replies, queued) = mpsc::channel(OUTBOUND_FRAMES);
        tokio::spawn(write_replies(outbound.clone(), queued));
        Self {
            reader,
            chunk: vec![0; CHUNK].into_boxed_slice(),
            unread: 0..0,
            line: Vec::new(),
            oversized: false,
            seen_request: false,
            held: None,
            reply: None,
            drain_until: None,
            outbound,
            replies,
            ends,
            pending: Arc::default(),
            answered: Arc::default(),
            flushed,
        }
    }

    /// Whether the client was disconnected because it stopped reading.
    pub fn stalled(&self) -> Arc<AtomicBool> {
        self.ends.stalled.clone()
    }

    /// Cancelled once everything queued for the client has been written (or
    /// the client stopped reading): wait for it before the process exits.
    pub fn flushed(&self) -> CancellationToken {
        self.flushed.clone()
    }

    /// The next message for the server, or `None` once the session is over.
    /// Cancel-safe: see the module's documentation.
    async fn next_message(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if self.ends.closed.is_cancelled() {
                return None;
            }
            if self.reply.is_some() {
                self.queue_reply().await?;
                continue;
            }
            if let Some(message) = self.held.take() {
                let request = matches!(*message, JsonRpcMessage::Request(_));
                if request && self.in_flight() >= MAX_IN_FLIGHT {
                    // Read no further while as many requests are unanswered
                    // as the bound allows: the client's writes then wait,
                    // not the server's memory.
                    self.held = Some(message);
                    let answered = self.answered.notified();
                    tokio::select! {
                        () = self.ends.closed.cancelled() => return None,
                        () = answered => {}
                        () = tokio::time::sleep(Duration::from_millis(50)) => {}
                    }
                    continue;
                }
                if let Some(taken) = self.take_place(&message) {
                    TAKEN_IDS
                        .note(|| tracing::info!("refused a request whose id is already in use"));
                    self.reply = Some((frame_bytes(&taken), Instant::now()));
                    continue;
                }
                return Some(*message);
            }
            if let Some(frame) = self.next_frame() {
                match frame {
                    Frame::Message(message) => {
                        if matches!(*message, JsonRpcMessage::Request(_)) {
                            self.seen_request = true;
                        }
                        self.held = Some(message);
                    }
                    Frame::Reply(reply) => {
                        BAD_FRAMES.note(|| {
                            tracing::info!("answered a frame that is not a valid message");
                        });
                        self.reply = Some((frame_bytes(&reply), Instant::now()));
                    }
                    Frame::Ignore(what) => tracing::debug!(frame = what, "ignored"),
                }
                continue;
            }
            if let Some(until) = self.drain_until {
                // The client closed its input: what it already asked is
                // still answered before the session ends (`echo request |
                // server` gets its reply), within a bound.
                if self.in_flight() == 0 {
                    return None;
                }
                let answered = self.answered.notified();
                tokio::select! {
                    () = self.ends.closed.cancelled() => return None,
                    () = tokio::time::sleep_until(until) => return None,
                    () = answered => {}
                    () = tokio::time::sleep(Duration::from_millis(5)) => {}
                }
                continue;
            }
            let read = tokio::select! {
                () = self.ends.closed.cancelled() => return None,
                read = self.reader.read(&mut self.chunk) => read,
            };
            match read {
                Ok(0) | Err(_) => self.drain_until = Some(Instant::now() + DRAIN_LIMIT),
                Ok(n) => self.unread = 0..n,
            }
        }
    }

    /// Splits the next complete line off what was read and decodes it.
    fn next_frame(&mut self) -> Option<Frame> {
        while !self.unread.is_empty() {
            let rest = &self.chunk[self.unread.clone()];
            let (part, complete) = match rest.iter().position(|b| *b == b'\n') {
                Some(end) => (&rest[..end], true),
                None => (rest, false),
            };
            self.unread.start += part.len() + usize::from(complete);
            if complete && self.line.is_empty() && !self.oversized {
                // The whole line is in this read: no copy.
                return Some(decode(part, self.seen_request));
            }
            if !self.oversized && self.line.len() + part.len() > MAX_LINE {
                self.oversized = true;
                self.line = Vec::new();
            }
            if !self.oversized {
                self.line.extend_from_slice(part);
            }
            if !complete {
                continue;
            }
            let frame = if self.oversized {
                error_frame(
                    Value::Null,
                    -32600,
                    "Invalid request: a message is longer than 16 MiB.",
                )
            } else {
                decode(&self.line, self.seen_request)
            };
            self.oversized = false;
            self.line.clear();
            // A long line's buffer is not kept for the rest of the session.
            self.line.shrink_to(CHUNK);
            return Some(frame);
        }
        None
    }

    /// How many requests are handed on and not yet answered.
    fn in_flight(&self) -> usize {
        lock_unpoisoned(&self.pending).len()
    }

    /// Books `message`'s place among the requests not yet answered, or
    /// returns the refusal it is owed when its id is taken. A cancellation
    /// frees its request's place: the server sends no answer to it.
    fn take_place(&self, message: &ClientJsonRpcMessage) -> Option<Value> {
        let mut pending = lock_unpoisoned(&self.pending);
        match message {
            JsonRpcMessage::Request(request) => {
                if pending.insert(request.id.clone()) {
                    return None;
                }
                // The id is in the answer's `id`, not quoted again in its
                // words: a client's string stays where JSON escapes it.
                let message = "Invalid request: this id is taken by a request not yet answered; give each request an id of its own.";
                Some(serde_json::json!({
                    "jsonrpc": "2.0", "id": request.id, "error": {"code": -32600, "message": message}
                }))
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                    && pending.remove(id)
                {
                    self.answered.notify_one();
                }
                None
            }
            _ => None,
        }
    }

    /// Puts the held reply in the outgoing queue, waiting for room at most
    /// the stall limit from when it was made; `None` when the session ends.
    async fn queue_reply(&mut self) -> Option<()> {
        let since = self.reply.as_ref().map(|(_, since)| *since)?;
        let room = tokio::select! {
            () = self.ends.closed.cancelled() => return None,
            () = tokio::time::sleep_until(since + self.ends.stall_limit) => {
                self.ends.stall();
                return None;
            }
            room = self.replies.reserve() => room,
        };
        let (bytes, _) = self.reply.take()?;
        room.ok()?.send(bytes);
        Some(())
    }
}

/// One message as it goes on the wire, newline included.
fn frame_bytes(message: &impl serde::Serialize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(256);
    match serde_json::to_writer(&mut bytes, message) {
        Ok(()) => {
            bytes.push(b'\n');
            bytes
        }
        // Server messages hold only JSON values and strings.
        Err(_) => Vec::new(),
    }
}

/// Writes the transport's own answers, in the order they were queued.
async fn write_replies(outbound: Arc<Outbound>, mut replies: mpsc::Receiver<Vec<u8>>) {
    while let Some(reply) = replies.recv().await {
        if outbound.write(&reply).await.is_err() {
            return;
        }
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = Closed;

    fn name() -> std::borrow::Cow<'static, str> {
        "lines".into()
    }

    fn send(
        &mut self,
        mut item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Closed>> + Send + 'static {
        // rmcp's own errors may quote a client's text whole.
        if let JsonRpcMessage::Error(error) = &mut item {
            super::cut::cut_error(&mut error.error);
        }
        let outbound = self.outbound.clone();
        let answer = match &item {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        let pending = self.pending.clone();
        let answered = self.answered.clone();
        async move {
            let bytes = frame_bytes(&item);
            let sent = match bytes.is_empty() {
                true => Ok(()),
                false => outbound.write(&bytes).await,
            };
            // An answer counts as given once it is written (or lost with the
            // connection): only then may the reader read on.
            if let Some(id) = answer {
                lock_unpoisoned(&pending).remove(&id);
                answered.notify_one();
            }
            sent
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.next_message()
    }

    async fn close(&mut self) -> Result<(), Closed> {
        self.ends.closed.cancel();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{NumberOrString, ServerResult};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

    use super::*;

    /// A transport over one end of an in-memory pipe, and the client's
    /// reading and writing ends.
    fn connected(
        size: usize,
    ) -> (LineTransport<ReadHalf<DuplexStream>>, ReadHalf<DuplexStream>, WriteHalf<DuplexStream>)
    {
        let (server, client) = tokio::io::duplex(size);
        let (read, write) = tokio::io::split(server);
        let (client_read, client_write) = tokio::io::split(client);
        (LineTransport::new(read, write), client_read, client_write)
    }

    fn ping(id: usize) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#) + "\n"
    }

    fn answer(id: i64) -> ServerJsonRpcMessage {
        ServerJsonRpcMessage::response(ServerResult::empty(()), NumberOrString::Number(id))
    }

    fn id_of(message: &ClientJsonRpcMessage) -> Option<i64> {
        match message {
            JsonRpcMessage::Request(request) => match request.id {
                NumberOrString::Number(id) => Some(id),
                NumberOrString::String(_) => None,
            },
            _ => None,
        }
    }

    #[tokio::test]
    async fn jsonrpc_bad_frames_are_answered_in_order_and_long_lines_skipped_across_reads() {
        let (mut transport, client_read, mut client_write) = connected(1 << 16);
        let writing = tokio::spawn(async move {
            client_write.write_all(ping(1).as_bytes()).await?;
            client_write.write_all(b"{not json\n").await?;
            // Longer than MAX_LINE, split over many reads and writes.
            let piece = vec![b' '; 1 << 20];
            for _ in 0..17 {
                client_write.write_all(&piece).await?;
            }
            client_write.write_all(b"\n").await?;
            client_write.write_all(ping(2).as_bytes()).await?;
            std::io::Result::Ok(client_write)
        });
        let first = transport.receive().await.expect("a message");
        let second = transport.receive().await.expect("a message");
        assert_eq!((id_of(&first), id_of(&second)), (Some(1), Some(2)));
        let mut lines = BufReader::new(client_read).lines();
        let parse = lines.next_line().await.unwrap().unwrap();
        let long = lines.next_line().await.unwrap().unwrap();
        assert!(parse.contains("-32700"), "{parse}");
        assert!(long.contains("-32600") && long.contains("16 MiB"), "{long}");
        drop(writing.await.unwrap().unwrap());
    }

    #[tokio::test]
    async fn at_most_max_in_flight_requests_are_read_before_one_is_answered() {
        let (mut transport, _client_read, mut client_write) = connected(1 << 20);
        let requests: String = (0..MAX_IN_FLIGHT + 10).map(ping).collect();
        client_write.write_all(requests.as_bytes()).await.unwrap();
        for _ in 0..MAX_IN_FLIGHT {
            transport.receive().await.expect("a request");
        }
        let more = tokio::time::timeout(Duration::from_millis(200), transport.receive()).await;
        assert!(more.is_err(), "a request beyond the bound was handed on");
        transport.send(answer(0)).await.unwrap();
        let next = tokio::time::timeout(Duration::from_secs(5), transport.receive()).await;
        assert_eq!(next.ok().flatten().as_ref().and_then(id_of), Some(MAX_IN_FLIGHT as i64));
    }

    #[tokio::test]
    async fn what_was_asked_before_the_input_closed_is_still_answered() {
        let (mut transport, client_read, mut client_write) = connected(1 << 16);
        client_write.write_all(ping(7).as_bytes()).await.unwrap();
        client_write.shutdown().await.unwrap();
        let request = transport.receive().await.expect("the request");
        assert_eq!(id_of(&request), Some(7));
        let end = tokio::time::timeout(Duration::from_millis(200), transport.receive()).await;
        assert!(end.is_err(), "the session ended with a request unanswered");
        transport.send(answer(7)).await.unwrap();
        assert!(transport.receive().await.is_none(), "then the session ends");
        drop(transport);
        let mut lines = BufReader::new(client_read).lines();
        let answered = lines.next_line().await.unwrap().unwrap();
        assert!(answered.contains(r#""id":7"#), "{answered}");
    }

    #[tokio::test]
    async fn jsonrpc_a_request_id_already_in_flight_is_refused_and_holds_nothing() {
        let (mut transport, client_read, mut client_write) = connected(1 << 16);
        client_write.write_all((ping(5) + &ping(5)).as_bytes()).await.unwrap();
        client_write.shutdown().await.unwrap();
        let first = transport.receive().await.expect("the first request");
        assert_eq!(id_of(&first), Some(5));
        // The second is answered here and never handed on: only the first
        // keeps the session open once the input has closed.
        let waiting = tokio::time::timeout(Duration::from_millis(200), transport.receive()).await;
        assert!(waiting.is_err(), "the session ended with the first request unanswered");
        transport.send(answer(5)).await.unwrap();
        let end = tokio::time::timeout(Duration::from_secs(5), transport.receive()).await;
        assert!(matches!(end, Ok(None)), "the session ends once the first is answered");
        drop(transport);
        let mut lines = BufReader::new(client_read).lines();
        let mut written = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            written.push(line);
        }
        let refused = written.iter().find(|l| l.contains("-32600")).expect("a refusal");
        assert!(refused.contains(r#""id":5"#) && refused.contains("id is taken"), "{refused}");
        assert!(written.iter().any(|l| l.contains(r#""result""#)), "{written:?}");
    }

    #[tokio::test]
    async fn a_cancelled_request_no_longer_holds_the_session_open() {
        let (mut transport, _client_read, mut client_write) = connected(1 << 16);
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#;
        client_write.write_all((ping(3) + cancel + "\n").as_bytes()).await.unwrap();
        client_write.shutdown().await.unwrap();
        assert_eq!(id_of(&transport.receive().await.expect("the request")), Some(3));
        let cancelled = transport.receive().await.expect("the cancellation, handed on");
        assert!(matches!(cancelled, JsonRpcMessage::Notification(_)), "{cancelled:?}");
        // No answer will come to a cancelled request: the session ends
        // without waiting the drain limit out.
        let end = tokio::time::timeout(Duration::from_secs(5), transport.receive()).await;
        assert!(matches!(end, Ok(None)), "the session did not end");
    }

    #[tokio::test]
    async fn requests_cancelled_beyond_the_bound_never_stop_the_reading() {
        let (mut transport, _client_read, mut client_write) = connected(1 << 20);
        let cancel = |id: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
            ) + "\n"
        };
        let frames: String = (0..MAX_IN_FLIGHT * 2).map(|id| ping(id) + &cancel(id)).collect();
        client_write.write_all((frames + &ping(1000)).as_bytes()).await.unwrap();
        let read_all = async {
            for _ in 0..MAX_IN_FLIGHT * 4 {
                transport.receive().await.expect("a request or a cancellation");
            }
            transport.receive().await
        };
        let last = tokio::time::timeout(Duration::from_secs(5), read_all).await;
        let last = last.expect("the transport stopped reading after the cancellations");
        assert_eq!(last.as_ref().and_then(id_of), Some(1000));
    }

    #[tokio::test]
    async fn a_client_that_never_reads_is_disconnected_not_buffered() {
        let (server, _client) = tokio::io::duplex(1024);
        let (read, write) = tokio::io::split(server);
        let mut transport =
            LineTransport::with_stall_limit(read, write, Duration::from_millis(200));
        let ping = ServerJsonRpcMessage::notification(
            rmcp::model::ServerNotification::ToolListChangedNotification(Default::default()),
        );
        let mut failed_after = None;
        for sent in 0..(OUTBOUND_FRAMES * 4) {
            if transport.send(ping.clone()).await.is_err() {
                failed_after = Some(sent);
                break;
            }
        }
        let sent = failed_after.expect("sends must start failing once the queue stays full");
        assert!(sent <= OUTBOUND_FRAMES + 64, "{sent} frames were accepted");
        assert!(transport.receive().await.is_none(), "the session ends");
    }
}
