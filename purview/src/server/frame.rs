//! What one line of JSON-RPC is: a message for the server, or the error
//! answer the transport owes it (`-32700` parse error, `-32600` invalid
//! request, `-32602` for a known method with unusable params). Used by the
//! stdio framing (`lines.rs`) and for HTTP bodies (`http.rs`).
//!
//! A message in which an object has the same key twice is refused
//! (`-32600`): a proxy that reads the first key and a server that reads the
//! last would otherwise see two different calls.

use std::{borrow::Cow, collections::HashSet};

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use serde_json::Value;

use super::budget;
use crate::validate::echo;

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

pub(crate) fn error_frame(id: Value, code: i64, message: &str) -> Frame {
    Frame::Reply(super::owed::error_reply(id, code, message))
}

/// Decodes one line. `seen_request` says whether a request has arrived yet.
/// Nothing is parsed before the line is found within the budgets of
/// `budget.rs`.
pub(crate) fn decode(line: &[u8], seen_request: bool) -> Frame {
    let line = line.trim_ascii();
    if line.is_empty() {
        return Frame::Ignore("blank line");
    }
    let shape = match budget::check(line) {
        Ok(shape) => shape,
        Err(refused) => return over_budget(refused),
    };
    match decode_within_budget(line, seen_request) {
        Frame::Message(message) => held_to_budget(message, line.len(), shape),
        other => other,
    }
}

/// The answer to a message over the budgets of `budget.rs`, if `body` is
/// one: checked before anything parses it.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn over_budget_body(body: &[u8]) -> Option<Frame> {
    budget::check(body.trim_ascii()).err().map(over_budget)
}

fn over_budget(refused: budget::Refusal) -> Frame {
    let code = match refused.over {
        budget::Over::Values => -32600,
        budget::Over::Depth => -32700,
    };
    error_frame(refused.id, code, budget::refusal_message(refused.over))
}

/// A decoded message, unless rmcp would keep more of it than the handshake
/// budget allows (an `initialize` or `subscriptions/listen`), or it names a
/// protocol version longer than any (rmcp's answers and logs repeat it).
fn held_to_budget(message: Box<ClientJsonRpcMessage>, bytes: usize, shape: budget::Shape) -> Frame {
    use rmcp::model::GetMeta;
    let JsonRpcMessage::Request(request) = &*message else {
        return Frame::Message(message);
    };
    let id = serde_json::to_value(&request.id).unwrap_or_default();
    if budget::over_handshake_budget(request.request.method(), bytes, shape) {
        return error_frame(id, -32600, budget::HANDSHAKE_REFUSAL);
    }
    let in_params = match &request.request {
        ClientRequest::InitializeRequest(r) => Some(r.params.protocol_version.as_str().len()),
        _ => None,
    };
    let in_meta = request
        .request
        .get_meta()
        .0
        .get("io.modelcontextprotocol/protocolVersion")
        .and_then(Value::as_str)
        .map(str::len);
    if in_params.into_iter().chain(in_meta).any(|len| len > budget::MAX_VERSION_CHARS) {
        let text = "Invalid params: a protocol version is a date such as \"2025-11-25\", at most 64 characters; send one the server supports (`server/discover` lists them).";
        return error_frame(id, -32602, text);
    }
    Frame::Message(message)
}

fn decode_within_budget(line: &[u8], seen_request: bool) -> Frame {
    // A well-formed message, by far the most common line, is parsed
    // straight into its type: by its method for the requests agents send
    // most (by_method.rs), else by rmcp's own decoding. Anything else (and a
    // custom request named like a known method) is worked out again below
    // to find the answer it is owed.
    if line.first() == Some(&b'{') && !has_repeated_keys(line) {
        if let Some(message) = super::by_method::decode(line) {
            return pass_on(message, seen_request);
        }
        // rmcp would answer a removed method with its bare name.
        if let Some(reply) = super::owed::removed_method(None, line) {
            return Frame::Reply(reply);
        }
        if let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(line)
            && !is_misparsed_known_method(&message)
        {
            return pass_on(message, seen_request);
        }
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) if e.to_string().starts_with("number out of range") => {
            return Frame::Reply(super::owed::out_of_range(line));
        }
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
pub(crate) fn has_repeated_keys(json: &[u8]) -> bool {
    scan_for_repeated_keys(json).unwrap_or_else(|| walk_for_repeated_keys(json))
}

/// The careful answer: a walk of the parsed JSON that compares keys as
/// their decoded text.
fn walk_for_repeated_keys(json: &[u8]) -> bool {
    use serde::de::DeserializeSeed;
    let mut keys = Vec::with_capacity(FEW_KEYS);
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    UniqueKeys { keys: &mut keys }.deserialize(&mut deserializer).is_err()
}

/// The quick answer for the common message: a scan of the bytes that skips
/// strings whole and takes a string followed by `:` as a key of the
/// innermost object, comparing keys as bytes (exact for keys without
/// escapes). `None` when it cannot tell cheaply: a key with an escape (it
/// has several spellings), more than [`FEW_KEYS`] keys in one object, more
/// than 32 open objects, or text that is not JSON enough to scan.
fn scan_for_repeated_keys(json: &[u8]) -> Option<bool> {
    const MAX_KEYS: usize = 64;
    const MAX_DEPTH: usize = 32;
    let mut keys: [&[u8]; MAX_KEYS] = [&[]; MAX_KEYS];
    let mut held = 0;
    // Where each open object's keys start in `keys`.
    let mut open = [0usize; MAX_DEPTH];
    let mut depth = 0usize;
    let mut i = 0;
    while i < json.len() {
        match json[i] {
            b'"' => {
                let start = i + 1;
                let (end, escaped) = string_end(json, start)?;
                i = end + 1;
                let after = json[i..].iter().position(|b| !b.is_ascii_whitespace());
                if after.is_some_and(|n| json[i + n] == b':') {
                    let object = depth.checked_sub(1)?;
                    if escaped {
                        return None;
                    }
                    let key = &json[start..end];
                    if keys[open[object]..held].contains(&key) {
                        return Some(true);
                    }
                    if held == MAX_KEYS || held - open[object] == FEW_KEYS {
                        return None;
                    }
                    keys[held] = key;
                    held += 1;
                }
                continue;
            }
            b'{' => {
                if depth == MAX_DEPTH {
                    return None;
                }
                open[depth] = held;
                depth += 1;
            }
            b'}' => {
                depth = depth.checked_sub(1)?;
                held = open[depth];
            }
            _ => {}
        }
        i += 1;
    }
    Some(false)
}

/// Where the string whose text starts at `start` ends (its closing quote),
/// and whether it has an escape; `None` when it is not closed. Most of a
/// frame's bytes are inside strings, so they are skipped by `memchr`.
fn string_end(json: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut end = start;
    let mut escaped = false;
    loop {
        end += memchr::memchr2(b'"', b'\\', json.get(end..)?)?;
        if json[end] == b'"' {
            return Some((end, escaped));
        }
        escaped = true;
        end += 2;
    }
}

/// Objects with more keys than this are checked through a hash set rather
/// than by comparing each key with those before it.
const FEW_KEYS: usize = 16;

/// Walks any JSON value and fails on a repeated key. The keys of the
/// objects being walked share one stack (`keys`), borrowed from the input
/// where they have no escapes, so a check allocates once, not per object.
struct UniqueKeys<'a, 'de> {
    keys: &'a mut Vec<Cow<'de, str>>,
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
        let mut many: Option<HashSet<Cow<'de, str>>> = None;
        while let Some(key) = map.next_key_seed(Key)? {
            let fresh = match &mut many {
                Some(seen) => seen.insert(key),
                None if self.keys[start..].contains(&key) => false,
                None if self.keys.len() - start < FEW_KEYS => {
                    self.keys.push(key);
                    true
                }
                None => {
                    let mut seen: HashSet<_> = self.keys.drain(start..).collect();
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
    type Value = Cow<'de, str>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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

    /// Random JSON made to trip a byte scanner: keys that repeat, are
    /// spelled with escapes, or look like structure; strings full of
    /// quotes, braces, colons and backslashes; objects in arrays.
    fn awkward_json(seed: &mut u64, depth: u32, out: &mut String) {
        fn below(seed: &mut u64, n: u64) -> u64 {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed % n
        }
        const KEYS: [&str; 8] = ["a", "b", r"\u0061", "é", r#"\"{:"#, "{", "a ", r"\\"];
        const STRINGS: [&str; 6] = ["x", r#"\"}"#, "{\\\"a\\\":1}", ":", r"\\", "]["];
        match if depth == 0 { 2 + below(seed, 3) } else { below(seed, 5) } {
            0 => {
                out.push('{');
                for i in 0..below(seed, 5) {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&format!("\"{}\" : ", KEYS[below(seed, 8) as usize]));
                    awkward_json(seed, depth - 1, out);
                }
                out.push('}');
            }
            1 => {
                out.push('[');
                for i in 0..below(seed, 4) {
                    if i > 0 {
                        out.push(',');
                    }
                    awkward_json(seed, depth - 1, out);
                }
                out.push(']');
            }
            2 => out.push_str(&format!("\"{}\"", STRINGS[below(seed, 6) as usize])),
            3 => out.push_str("12.5"),
            _ => out.push_str("null"),
        }
    }

    #[test]
    fn jsonrpc_the_key_scan_agrees_with_the_careful_walk() {
        let mut seed = 0x2545_F491_4F6C_DD1D;
        let (mut scanned, mut repeated) = (0, 0);
        for _ in 0..20_000 {
            let mut json = String::new();
            awkward_json(&mut seed, 4, &mut json);
            assert!(serde_json::from_str::<Value>(&json).is_ok(), "{json}");
            let careful = walk_for_repeated_keys(json.as_bytes());
            assert_eq!(has_repeated_keys(json.as_bytes()), careful, "{json}");
            if let Some(quick) = scan_for_repeated_keys(json.as_bytes()) {
                assert_eq!(quick, careful, "{json}");
                scanned += 1;
            }
            repeated += usize::from(careful);
        }
        assert!(scanned > 5_000 && repeated > 1_000, "{scanned} scanned, {repeated} repeated");
        let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w1__edit_field","arguments":{"field":"recipient","value":"Ada","expectedVersion":3},"_meta":{"progressToken":7}}}"#;
        assert_eq!(scan_for_repeated_keys(call), Some(false), "a call is scanned, not walked");
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
