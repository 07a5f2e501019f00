//! Answers a transport owes itself, without rmcp: the shape of a JSON-RPC
//! error answer, and the answers to frames rmcp would mishandle, worked
//! out before rmcp sees them (`frame.rs` and `http.rs` call these): a
//! request for a method the 2026-07-28 revision removed, which rmcp
//! answers with its bare name, and a message holding a number too large
//! for JSON to carry, which cannot be decoded and so would be answered
//! without its id.

use serde_json::{Value, json};

/// The JSON-RPC error answer to the request `id`.
pub(crate) fn error_reply(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Methods the 2026-07-28 revision removed (SEP-2575): a request for one
/// made under that revision is answered "method not found".
const REMOVED_IN_2026: [&str; 5] =
    ["initialize", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "ping"];

/// The first revision without [`REMOVED_IN_2026`].
const STATELESS_REVISION: &str = "2026-07-28";

/// The `-32601` answer owed to a request for a method its revision removed,
/// if `body` is one: made under 2026-07-28 or later, by its
/// `io.modelcontextprotocol/protocolVersion` meta or by `header` (the
/// request's `MCP-Protocol-Version`). An `initialize` that names an older
/// `protocolVersion` is a client falling back to the old handshake, and
/// passes.
pub(crate) fn removed_method(header: Option<&str>, body: &[u8]) -> Option<Value> {
    // Most bodies name none of them: a scan, rather than a parse.
    const QUOTED: [&[u8]; 5] = [
        b"\"initialize\"",
        b"\"logging/setLevel\"",
        b"\"resources/subscribe\"",
        b"\"resources/unsubscribe\"",
        b"\"ping\"",
    ];
    if !QUOTED.iter().any(|name| memchr::memmem::find(body, name).is_some()) {
        return None;
    }
    let value: Value = serde_json::from_slice(body).ok()?;
    let method = value.get("method")?.as_str()?;
    if !REMOVED_IN_2026.contains(&method) {
        return None;
    }
    let params = value.get("params");
    let meta = params
        .and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1protocolVersion"))
        .and_then(Value::as_str);
    let legacy_handshake = params
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
        .is_some_and(|v| v < STATELESS_REVISION);
    let revision = meta.or(header.filter(|_| !legacy_handshake))?;
    if revision < STATELESS_REVISION {
        return None;
    }
    let id = match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    let instead = match method {
        "ping" => "any request, such as `server/discover`, shows that the server is there",
        "initialize" => {
            "send each request's protocol version and capabilities in its `_meta`, or `server/discover` to learn what the server supports"
        }
        "logging/setLevel" => "the server logs to its own stderr",
        _ => "subscribe with `subscriptions/listen`",
    };
    let text = format!(
        "Method not found: `{method}` does not exist in protocol revision {STATELESS_REVISION} and later (SEP-2575); {instead}."
    );
    Some(error_reply(id, -32601, &text))
}

/// The answer to a message that is valid JSON but holds a number too large
/// for a 64-bit float (`1e400`), under the request's own id so the client
/// can match it: a `tools/call` gets `validation_failed` naming the
/// arguments that hold one; anything else gets `-32602`.
pub(crate) fn out_of_range(line: &[u8]) -> Value {
    use serde_json::value::RawValue;
    #[derive(serde::Deserialize)]
    struct Probe {
        id: Option<Box<RawValue>>,
        method: Option<String>,
        params: Option<Box<RawValue>>,
    }
    #[derive(serde::Deserialize)]
    struct Call {
        arguments: Option<std::collections::BTreeMap<String, Box<RawValue>>>,
    }
    let Ok(probe) = serde_json::from_slice::<Probe>(line) else {
        return error_reply(
            Value::Null,
            -32700,
            "Parse error: send one JSON-RPC message as valid JSON.",
        );
    };
    let id = probe
        .id
        .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
        .filter(|id| id.is_string() || id.is_number())
        .unwrap_or(Value::Null);
    let arguments = (probe.method.as_deref() == Some("tools/call"))
        .then(|| probe.params.and_then(|raw| serde_json::from_str::<Call>(raw.get()).ok()))
        .flatten()
        .and_then(|call| call.arguments);
    let Some(arguments) = arguments.filter(|_| !id.is_null()) else {
        return error_reply(
            id,
            -32602,
            "Invalid params: a number in this request is too large for JSON to carry (beyond about 1.8e308); send a smaller one. Nothing was run.",
        );
    };
    let fields: Vec<String> = arguments
        .iter()
        .filter(|(_, raw)| serde_json::from_str::<Value>(raw.get()).is_err())
        .map(|(name, _)| crate::validate::echo(name))
        .collect();
    let error = crate::refusals::number_out_of_range(fields);
    let result = rmcp::model::CallToolResult::structured_error(
        serde_json::to_value(error).unwrap_or_default(),
    );
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

#[cfg(test)]
mod tests {
    #[test]
    fn s3_methods_removed_in_2026_07_28_are_not_found_when_asked_under_it() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        for method in super::REMOVED_IN_2026 {
            // (`ping` included: 2026-07-28 has none.)
            let body =
                format!(r#"{{"jsonrpc":"2.0","id":5,"method":"{method}","params":{{{meta}}}}}"#);
            let Some(reply) = super::removed_method(None, body.as_bytes()) else {
                panic!("{method} passed");
            };
            assert_eq!(
                (reply["id"].clone(), reply["error"]["code"].clone()),
                (5.into(), (-32601).into())
            );
        }
        let by_header =
            br#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}"#;
        assert!(super::removed_method(Some("2026-07-28"), by_header).is_some());
        assert!(
            super::removed_method(Some("2025-11-25"), by_header).is_none(),
            "a legacy session's"
        );
        let fallback = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        assert!(
            super::removed_method(Some("2026-07-28"), fallback).is_none(),
            "the old handshake passes"
        );
        let listed = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert!(super::removed_method(Some("2026-07-28"), listed).is_none());
    }
}
