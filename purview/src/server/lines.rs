//! A line-framed JSON-RPC transport (one message per line), for stdio and
//! for any byte stream, that survives whatever a client sends:
//!
//! - every frame that is not a valid message gets the JSON-RPC answer it
//!   is owed (`-32700` parse error, `-32600` invalid request, `-32602` for a
//!   known method with unusable params) instead of silence or a crash;
//! - notifications and responses that arrive before the first request are
//!   dropped, as JSON-RPC allows, instead of failing the handshake;
//! - nothing a client sent is logged, only what kind of frame it was;
//! - a line longer than [`MAX_LINE`] is answered and skipped without being
//!   buffered whole;
//! - a message in which an object has the same key twice is refused
//!   (`-32600`): a proxy that reads the first key and a server that reads
//!   the last would otherwise see two different calls;
//! - replies queue up to [`OUTBOUND_FRAMES`]; a client that stops reading
//!   for [`STALL_LIMIT`] is disconnected rather than buffered for forever;
//! - at most [`MAX_IN_FLIGHT`] requests are being answered at once: the
//!   reader stops reading until one is answered, so a client that sends
//!   without reading cannot pile up answers that wait for the queue.

use std::{
    borrow::Cow,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use rmcp::{
    RoleServer,
    model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, ServerJsonRpcMessage},
    transport::Transport,
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt},
    sync::mpsc,
    task::JoinHandle,
};
use tokio_util::sync::CancellationToken;

use crate::validate::echo;

/// The longest line accepted, in bytes.
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;
/// How many outgoing frames may wait for a client that is slow to read.
pub(crate) const OUTBOUND_FRAMES: usize = 256;
/// How many requests may be read and not yet answered: beyond it the
/// reader waits, so the answers waiting for a slow reader stay bounded.
pub(crate) const MAX_IN_FLIGHT: usize = 64;
/// How long a full outgoing queue may stay full before the client is
/// disconnected.
pub(crate) const STALL_LIMIT: Duration = Duration::from_secs(10);
/// How long requests already received may still be answered after the
/// client closed its input (a handler's default timeout, and a little).
const DRAIN_LIMIT: Duration = Duration::from_secs(35);

/// MCP methods rmcp decodes into typed requests: one that arrives as a
/// custom request had params rmcp could not use.
const KNOWN_METHODS: [&str; 15] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "subscriptions/listen",
    "server/discover",
];

/// The transport was closed (the client stopped reading, or the stream
/// broke).
#[derive(Debug)]
pub(crate) struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the connection is closed")
    }
}

impl std::error::Error for Closed {}

/// What one line is.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A message for the server.
    Message(Box<ClientJsonRpcMessage>),
    /// A JSON-RPC error the transport answers itself.
    Reply(Value),
    /// Nothing to do (blank line, or a notification before any request).
    Ignore(&'static str),
}

fn error_frame(id: Value, code: i64, message: &str) -> Frame {
    Frame::Reply(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
}

/// Decodes one line. `seen_request` says whether a request has arrived yet.
pub(crate) fn decode(line: &[u8], seen_request: bool) -> Frame {
    let line = line.trim_ascii();
    if line.is_empty() {
        return Frame::Ignore("blank line");
    }
    // A well-formed message, by far the most common line, is parsed once,
    // straight into its type. Anything else (and a custom request named like
    // a known method) is worked out again below to find the answer it is
    // owed.
    if line.first() == Some(&b'{')
        && !has_repeated_keys(line)
        && let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(line)
        && !is_misparsed_known_method(&message)
    {
        return pass_on(message, seen_request);
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(_) => {
            return error_frame(
                Value::Null,
                -32700,
                "Parse error: send one JSON-RPC message as valid JSON, nested at most 128 deep.",
            );
        }
    };
    let Some(object) = value.as_object() else {
        return error_frame(
            Value::Null,
            -32600,
            "Invalid request: send one JSON-RPC object per line (batches are not supported).",
        );
    };
    let id = match object.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
        _ => None,
    };
    let method = object.get("method").and_then(Value::as_str).map(echo);
    if has_repeated_keys(line) {
        return error_frame(
            id.unwrap_or(Value::Null),
            -32600,
            "Invalid request: an object in this message has the same key twice; send each key once.",
        );
    }
    let message: ClientJsonRpcMessage = match serde_json::from_value(value) {
        Ok(message) => message,
        Err(_) => {
            return error_frame(
                id.unwrap_or(Value::Null),
                -32600,
                "Invalid request: expected a JSON-RPC 2.0 request, notification or response (with \"jsonrpc\": \"2.0\" and a string or number id).",
            );
        }
    };
    if is_misparsed_known_method(&message) {
        let text = format!(
            "Invalid params for {}: see the MCP schema for this method.",
            method.unwrap_or_default()
        );
        return error_frame(id.unwrap_or(Value::Null), -32602, &text);
    }
    pass_on(message, seen_request)
}

/// A request for a method rmcp knows that still came out as a custom
/// request: its params were unusable.
fn is_misparsed_known_method(message: &ClientJsonRpcMessage) -> bool {
    matches!(message, JsonRpcMessage::Request(request)
        if matches!(&request.request, ClientRequest::CustomRequest(custom)
            if KNOWN_METHODS.contains(&custom.method.as_str())))
}

/// A decoded message, unless it is one JSON-RPC lets the server drop.
fn pass_on(message: ClientJsonRpcMessage, seen_request: bool) -> Frame {
    match &message {
        JsonRpcMessage::Notification(_) if !seen_request => {
            Frame::Ignore("a notification before the first request")
        }
        JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) if !seen_request => {
            Frame::Ignore("a response before the first request")
        }
        _ => Frame::Message(Box::new(message)),
    }
}

/// Whether an object anywhere in `json` has the same key twice
/// (serde_json's `Value` silently keeps the last one). Invalid JSON counts
/// as having them; callers parse it anyway.
fn has_repeated_keys(json: &[u8]) -> bool {
    use serde::de::DeserializeSeed;
    let mut keys = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    UniqueKeys { keys: &mut keys }.deserialize(&mut deserializer).is_err()
}

/// Objects with more keys than this are checked through a hash set rather
/// than by comparing each key with those before it.
const FEW_KEYS: usize = 16;

/// Walks any JSON value and fails on a repeated key. The keys of the
/// objects being walked share one stack (`keys`), borrowed from the input
/// where they have no escapes, so a check allocates once, not per object.
struct UniqueKeys<'a, 'de> {
    keys: &'a mut Vec<std::borrow::Cow<'de, str>>,
}

impl<'de> serde::de::DeserializeSeed<'de> for UniqueKeys<'_, 'de> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for UniqueKeys<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value without repeated keys")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i128<E>(self, _: i128) -> Result<(), E> {
        Ok(())
    }
    fn visit_u128<E>(self, _: u128) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(UniqueKeys { keys: &mut *self.keys })?.is_some() {}
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let start = self.keys.len();
        let mut many: Option<std::collections::HashSet<std::borrow::Cow<'de, str>>> = None;
        while let Some(key) = map.next_key_seed(Key)? {
            let fresh = match &mut many {
                Some(seen) => seen.insert(key),
                None if self.keys[start..].contains(&key) => false,
                None if self.keys.len() - start < FEW_KEYS => {
                    self.keys.push(key);
                    true
                }
                None => {
                    let mut seen: std::collections::HashSet<_> = self.keys.drain(start..).collect();
                    seen.insert(key);
                    many = Some(seen);
                    true
                }
            };
            if !fresh {
                return Err(serde::de::Error::custom("a key is repeated"));
            }
            map.next_value_seed(UniqueKeys { keys: &mut *self.keys })?;
        }
        self.keys.truncate(start);
        Ok(())
    }
}

/// An object key, borrowed from the input when it has no escapes.
struct Key;

impl<'de> serde::de::DeserializeSeed<'de> for Key {
    type Value = std::borrow::Cow<'de, str>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Key {
    type Value = std::borrow::Cow<'de, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(std::borrow::Cow::Borrowed(key))
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(std::borrow::Cow::Owned(key.to_owned()))
    }
}

/// A line-framed transport over a reader and a writer. When it is dropped
/// the reader stops at once and the writer finishes writing what is already
/// queued (each write bounded by the stall limit), then ends.
pub(crate) struct LineTransport {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    outgoing: mpsc::Sender<Vec<u8>>,
    closed: CancellationToken,
    stall_limit: Duration,
    /// Requests received and not yet answered.
    pending: Arc<AtomicUsize>,
    reader: JoinHandle<()>,
    /// Cancelled when the writer has ended.
    flushed: CancellationToken,
    /// Set when the client was disconnected for not reading.
    stalled: Arc<std::sync::atomic::AtomicBool>,
    /// Woken whenever a request is answered (the reader may read on).
    answered: Arc<tokio::sync::Notify>,
}

impl Drop for LineTransport {
    fn drop(&mut self) {
        // Not the writer: answers already queued still go out, and it ends
        // by itself once every sender is gone.
        self.reader.abort();
    }
}

impl LineTransport {
    /// Starts reading `reader` and writing `writer` on the current runtime.
    pub fn new<R, W>(reader: R, writer: W) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Self::with_stall_limit(reader, writer, STALL_LIMIT)
    }

    fn with_stall_limit<R, W>(reader: R, writer: W, stall_limit: Duration) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let closed = CancellationToken::new();
        let (outgoing, frames) = mpsc::channel(OUTBOUND_FRAMES);
        let (messages, incoming) = mpsc::channel(64);
        let pending = Arc::new(AtomicUsize::new(0));
        let flushed = CancellationToken::new();
        let stalled = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let answered = Arc::new(tokio::sync::Notify::new());
        let ends = Ends { closed: closed.clone(), stall_limit, stalled: stalled.clone() };
        tokio::spawn(write_frames(writer, frames, ends.clone(), flushed.clone()));
        let reader = tokio::spawn(read_frames(
            reader,
            Inbound {
                messages,
                replies: outgoing.clone(),
                pending: pending.clone(),
                answered: answered.clone(),
            },
            ends,
        ));
        Self {
            incoming,
            outgoing,
            closed,
            stall_limit,
            pending,
            reader,
            flushed,
            stalled,
            answered,
        }
    }

    /// Whether the client was disconnected because it stopped reading.
    pub fn stalled(&self) -> Arc<std::sync::atomic::AtomicBool> {
        self.stalled.clone()
    }

    /// Cancelled once everything queued for the client has been written (or
    /// the client stopped reading): wait for it before the process exits.
    pub fn flushed(&self) -> CancellationToken {
        self.flushed.clone()
    }
}

/// How the connection ends: closed, and why.
#[derive(Clone)]
struct Ends {
    closed: CancellationToken,
    stall_limit: Duration,
    stalled: Arc<std::sync::atomic::AtomicBool>,
}

impl Ends {
    /// Disconnects a client that has not read for the stall limit.
    fn stall(&self) {
        if !self.stalled.swap(true, Ordering::AcqRel) {
            tracing::warn!(
                "the client has not read its replies for {:?}; disconnecting it",
                self.stall_limit
            );
        }
        self.closed.cancel();
    }
}

async fn write_frames<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut frames: mpsc::Receiver<Vec<u8>>,
    ends: Ends,
    flushed: CancellationToken,
) {
    let Ends { closed, stall_limit, .. } = ends.clone();
    let _flushed = flushed.drop_guard();
    while let Some(mut frame) = frames.recv().await {
        frame.push(b'\n');
        let written = async {
            writer.write_all(&frame).await?;
            writer.flush().await
        };
        match tokio::time::timeout(stall_limit, written).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => {
                tracing::info!("the client's side of the connection is closed");
                closed.cancel();
                return;
            }
            Err(_) => {
                ends.stall();
                return;
            }
        }
    }
}

/// Where the reader puts what it reads.
struct Inbound {
    /// Messages for the MCP service.
    messages: mpsc::Sender<ClientJsonRpcMessage>,
    /// Answers the reader gives itself (to frames that are not messages).
    replies: mpsc::Sender<Vec<u8>>,
    /// Requests passed on and not yet answered.
    pending: Arc<AtomicUsize>,
    /// Woken when one is answered.
    answered: Arc<tokio::sync::Notify>,
}

async fn read_frames<R: AsyncRead + Unpin>(mut reader: R, inbound: Inbound, ends: Ends) {
    let Inbound { messages, replies, pending, answered } = inbound;
    let Ends { closed, stall_limit, .. } = ends.clone();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut line: Vec<u8> = Vec::new();
    let mut oversized = false;
    let mut seen_request = false;
    loop {
        let read = tokio::select! {
            () = closed.cancelled() => return,
            read = reader.read(&mut chunk) => read,
        };
        let n = match read {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut rest = &chunk[..n];
        while !rest.is_empty() {
            let (part, complete) = match rest.iter().position(|b| *b == b'\n') {
                Some(end) => (&rest[..end], true),
                None => (rest, false),
            };
            rest = if complete { &rest[part.len() + 1..] } else { &[] };
            if !oversized && line.len() + part.len() > MAX_LINE {
                oversized = true;
                line = Vec::new();
            }
            if !oversized {
                line.extend_from_slice(part);
            }
            if !complete {
                continue;
            }
            let frame = if oversized {
                error_frame(
                    Value::Null,
                    -32600,
                    "Invalid request: a message is longer than 16 MiB.",
                )
            } else {
                decode(&line, seen_request)
            };
            oversized = false;
            line.clear();
            match frame {
                Frame::Message(message) => {
                    if matches!(*message, JsonRpcMessage::Request(_)) {
                        seen_request = true;
                        // Read no further while as many requests are
                        // unanswered as the bound allows: the client's
                        // writes then wait, not the server's memory.
                        while pending.load(Ordering::Acquire) >= MAX_IN_FLIGHT {
                            let wait = answered.notified();
                            tokio::select! {
                                () = closed.cancelled() => return,
                                () = wait => {}
                                () = tokio::time::sleep(Duration::from_millis(50)) => {}
                            }
                        }
                        pending.fetch_add(1, Ordering::AcqRel);
                    }
                    if messages.send(*message).await.is_err() {
                        return;
                    }
                }
                Frame::Reply(reply) => {
                    tracing::info!("answered a frame that is not a valid message");
                    let bytes = serde_json::to_vec(&reply).unwrap_or_default();
                    if replies.send_timeout(bytes, stall_limit).await.is_err() {
                        ends.stall();
                        return;
                    }
                }
                Frame::Ignore(what) => tracing::debug!(frame = what, "ignored"),
            }
        }
    }
    // The client closed its input: what it already asked is still
    // answered before the session ends (`echo request | server` gets its
    // reply), within a bound.
    let answered = async {
        while pending.load(Ordering::Acquire) > 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::select! {
        () = closed.cancelled() => {}
        _ = tokio::time::timeout(DRAIN_LIMIT, answered) => {}
    }
    drop(messages);
}

impl Transport<RoleServer> for LineTransport {
    type Error = Closed;

    fn name() -> Cow<'static, str> {
        "lines".into()
    }

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Closed>> + Send + 'static {
        let outgoing = self.outgoing.clone();
        let ends = Ends {
            closed: self.closed.clone(),
            stall_limit: self.stall_limit,
            stalled: self.stalled.clone(),
        };
        let answer = matches!(item, JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_));
        let pending = self.pending.clone();
        let answered = self.answered.clone();
        async move {
            let sent = match serde_json::to_vec(&item) {
                Ok(bytes) => outgoing.send_timeout(bytes, ends.stall_limit).await,
                Err(_) => Ok(()),
            };
            // An answer counts as given once it is in the queue (or lost
            // with the connection): only then may the reader read on.
            if answer {
                let _ =
                    pending.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
                answered.notify_one();
            }
            match sent {
                Ok(()) => Ok(()),
                Err(mpsc::error::SendTimeoutError::Timeout(_)) => {
                    ends.stall();
                    Err(Closed)
                }
                Err(mpsc::error::SendTimeoutError::Closed(_)) => {
                    ends.closed.cancel();
                    Err(Closed)
                }
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        let closed = self.closed.clone();
        let incoming = &mut self.incoming;
        async move {
            tokio::select! {
                () = closed.cancelled() => None,
                message = incoming.recv() => message,
            }
        }
    }

    async fn close(&mut self) -> Result<(), Closed> {
        self.closed.cancel();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(frame: Frame) -> Value {
        match frame {
            Frame::Reply(value) => value,
            other => panic!("expected a reply, got {other:?}"),
        }
    }

    #[test]
    fn jsonrpc_every_bad_frame_gets_the_answer_it_is_owed() {
        let parse = reply(decode(b"{not json", true));
        assert_eq!((parse["error"]["code"].as_i64(), &parse["id"]), (Some(-32700), &Value::Null));
        let nested = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(reply(decode(nested.as_bytes(), true))["error"]["code"], -32700);
        let batch = reply(decode(b"[1, 2]", true));
        assert_eq!(batch["error"]["code"], -32600);
        let no_version = reply(decode(br#"{"id": 7, "method": "ping"}"#, true));
        assert_eq!(
            (no_version["error"]["code"].as_i64(), &no_version["id"]),
            (Some(-32600), &json!(7))
        );
        let bad_params = reply(decode(
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5}}"#,
            true,
        ));
        assert_eq!(
            (bad_params["error"]["code"].as_i64(), &bad_params["id"]),
            (Some(-32602), &json!(3))
        );
    }

    #[test]
    fn jsonrpc_notifications_before_the_first_request_are_ignored() {
        let early =
            br#"{"jsonrpc":"2.0","method":"notifications/x","params":{"pin":"TOPSECRET123"}}"#;
        assert!(matches!(decode(early, false), Frame::Ignore(_)));
        assert!(matches!(decode(early, true), Frame::Message(_)));
        let response = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        assert!(matches!(decode(response, false), Frame::Ignore(_)));
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

    #[test]
    fn jsonrpc_repeated_keys_are_found_at_any_depth_and_in_any_spelling() {
        assert!(!has_repeated_keys(
            br#"{"a": {"b": 1}, "c": {"b": 2}, "d": [{"b": 3}, {"b": 4}]}"#
        ));
        assert!(has_repeated_keys(br#"{"a": 1, "a": 2}"#));
        assert!(has_repeated_keys(br#"{"a": [{"x": {"b": 1, "b": 1}}]}"#));
        assert!(
            has_repeated_keys(br#"{"a": 1, "\u0061": 2}"#),
            "an escaped spelling is the same key"
        );
        let many: Vec<String> = (0..100).map(|i| format!(r#""k{i}": {i}"#)).collect();
        assert!(!has_repeated_keys(format!("{{{}}}", many.join(",")).as_bytes()));
        let repeated = format!(r#"{{{}, "k3": 0}}"#, many.join(","));
        assert!(has_repeated_keys(repeated.as_bytes()), "past the few-keys scan too");
        let early = format!(r#"{{"k3": 0, {}}}"#, many.join(","));
        assert!(has_repeated_keys(early.as_bytes()));
    }

    #[test]
    fn jsonrpc_the_quick_and_the_careful_decoding_agree() {
        let lines: [&[u8]; 6] = [
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"w1__a","arguments":{"v":1.5}}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            br#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
            br#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":7}}"#,
        ];
        for line in lines {
            let careful = match serde_json::from_slice::<Value>(line)
                .ok()
                .and_then(|v| serde_json::from_value::<ClientJsonRpcMessage>(v).ok())
            {
                Some(message)
                    if !has_repeated_keys(line) && !is_misparsed_known_method(&message) =>
                {
                    Some(serde_json::to_value(message).unwrap())
                }
                _ => None,
            };
            let quick = match decode(line, true) {
                Frame::Message(message) => Some(serde_json::to_value(*message).unwrap()),
                _ => None,
            };
            assert_eq!(quick, careful, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn a_reply_never_repeats_what_the_client_sent() {
        let secret = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"TOPSECRET123"}, "x": }"#;
        let text = reply(decode(secret, true)).to_string();
        assert!(!text.contains("TOPSECRET123"), "{text}");
    }
}
