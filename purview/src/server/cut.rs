//! No error answer repeats more than [`MESSAGE_LIMIT`] characters of what a
//! client sent, whoever wrote the answer: rmcp quotes a client's header
//! and body values whole in some of its errors (a header mismatch, an
//! unsupported protocol version in `data.requested`), so every error leaving
//! either transport is cut here last (`lines.rs` for stdio, `http.rs` for
//! HTTP answers).

use rmcp::model::ErrorData;
use serde_json::Value;

/// The most characters of one string an error answer carries.
pub(crate) const MESSAGE_LIMIT: usize = 256;
/// The most bytes an error's `data` may take once its strings are cut;
/// beyond it the `data` is dropped (its message still says what failed).
const DATA_LIMIT: usize = 4 * 1024;

/// `text` cut to [`MESSAGE_LIMIT`] characters and marked as cut, or `None`
/// when it is short enough already.
pub(crate) fn cut_text(text: &str) -> Option<String> {
    let (cut, _) = text.char_indices().nth(MESSAGE_LIMIT)?;
    Some(format!("{}… (cut)", &text[..cut]))
}

/// Cuts an rmcp error's message and the strings of its data; whether
/// anything was cut.
pub(crate) fn cut_error(error: &mut ErrorData) -> bool {
    let mut changed = false;
    if let Some(text) = cut_text(&error.message) {
        error.message = text.into();
        changed = true;
    }
    if let Some(data) = &mut error.data {
        changed |= cut_strings(data);
        if changed && serde_json::to_vec(data).map_or(true, |b| b.len() > DATA_LIMIT) {
            error.data = None;
        }
    }
    changed
}

/// Cuts a JSON-RPC error answer's `error.message` and the strings of its
/// `error.data`; whether anything was cut. Other JSON is left alone.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn cut_error_value(reply: &mut Value) -> bool {
    let Some(error) = reply.get_mut("error").and_then(Value::as_object_mut) else {
        return false;
    };
    let mut changed = false;
    if let Some(message) = error.get_mut("message") {
        changed |= cut_strings(message);
    }
    if let Some(data) = error.get_mut("data") {
        changed |= cut_strings(data);
        if changed && serde_json::to_vec(data).map_or(true, |b| b.len() > DATA_LIMIT) {
            error.remove("data");
        }
    }
    changed
}

/// Cuts every string in `value` (object keys included) to
/// [`MESSAGE_LIMIT`] characters; whether any was cut.
fn cut_strings(value: &mut Value) -> bool {
    match value {
        Value::String(text) => match cut_text(text) {
            Some(cut) => {
                *text = cut;
                true
            }
            None => false,
        },
        Value::Array(items) => items.iter_mut().fold(false, |changed, v| cut_strings(v) | changed),
        Value::Object(map) => {
            let long_key = map.keys().any(|k| cut_text(k).is_some());
            if long_key {
                let entries = std::mem::take(map);
                for (key, item) in entries {
                    map.insert(cut_text(&key).unwrap_or(key), item);
                }
            }
            map.values_mut().fold(long_key, |changed, v| cut_strings(v) | changed)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn s12_an_error_never_repeats_more_than_256_characters_of_a_client_string() {
        let long = "v".repeat(1_000_000);
        let mut error = ErrorData::new(
            rmcp::model::ErrorCode(-32022),
            "Unsupported protocol version",
            Some(json!({"requested": long, "supported": ["2025-11-25"]})),
        );
        assert!(cut_error(&mut error));
        let text = serde_json::to_string(&error).unwrap();
        assert!(text.len() < 600 && text.contains("2025-11-25"), "{text}");
        let mut reply =
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": long}});
        assert!(cut_error_value(&mut reply));
        assert!(reply.to_string().len() < 400);
        let mut short =
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "no"}});
        assert!(!cut_error_value(&mut short));
    }
}
