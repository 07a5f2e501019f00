//! What one JSON-RPC message may make the process hold, checked on its
//! bytes before anything parses it (both transports call [`check`] first,
//! through `frame.rs`).
//!
//! A body's size bounds its bytes, not the memory its parse takes: `[0,0,…]`
//! is two bytes a value, and each value costs a parse about fifty, so a
//! 4 MiB body of zeros grew to ~480 MB. One pass over the bytes counts the
//! values and the nesting outside strings (strings are skipped whole by
//! `memchr`), and a message over [`MAX_VALUES`] or [`MAX_DEPTH`] is refused
//! with the `-32600` it is owed, under its own id where the pass found one.
//! What a parse of a message within budget holds is then at most about
//! `MAX_VALUES × 64` bytes besides its strings (~4 MiB), whatever the body.
//!
//! What rmcp keeps for as long as a session or a listen stream lives (an
//! `initialize`'s params: `clientInfo`, `capabilities`, `_meta`; a
//! `subscriptions/listen`'s params) has a much smaller budget,
//! [`HANDSHAKE_BYTES`] and [`HANDSHAKE_VALUES`], checked once the method is
//! known ([`over_handshake_budget`]).

use serde_json::Value;

/// The most JSON values (scalars, strings, keys, arrays and objects) one
/// message may hold. Arguments are at most 1 MiB and 64 names
/// (`settings::Limits`); an honest call holds a few hundred values.
pub(crate) const MAX_VALUES: usize = 65_536;
/// The deepest one message may nest (serde_json's own recursion limit).
pub(crate) const MAX_DEPTH: usize = 128;
/// The largest `initialize` or `subscriptions/listen` message, in bytes:
/// rmcp keeps its params for the session's or the stream's life.
pub(crate) const HANDSHAKE_BYTES: usize = 64 * 1024;
/// The most JSON values an `initialize` or `subscriptions/listen` may hold.
pub(crate) const HANDSHAKE_VALUES: usize = 4_096;
/// The longest protocol version a message may name (they are dates).
pub(crate) const MAX_VERSION_CHARS: usize = 64;

/// Why a message is over budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Over {
    /// More than [`MAX_VALUES`] values.
    Values,
    /// Nested deeper than [`MAX_DEPTH`].
    Depth,
}

/// What a message within budget is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    /// How many JSON values it holds (object keys included).
    pub values: usize,
}

/// A message over budget, and its id when the scan found a short one.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub over: Over,
    pub id: Value,
}

/// Counts `json`'s values and nesting in one pass, stopping at the first
/// budget exceeded. Text that is not JSON is scanned as far as it goes:
/// the parse that follows gives its error.
pub(crate) fn check(json: &[u8]) -> Result<Shape, Refusal> {
    let mut values = 0usize;
    let mut depth = 0usize;
    // The top-level `id`'s bytes, once seen; whether the next value is it.
    let mut id: Option<&[u8]> = None;
    let mut next_is_id = false;
    let mut i = 0;
    let refuse = |over, id: Option<&[u8]>| Refusal { over, id: short_id(id) };
    while i < json.len() {
        match json[i] {
            b'"' => {
                values += 1;
                let Some(end) = string_end(json, i + 1) else { break };
                let text = &json[i..=end];
                i = end + 1;
                if next_is_id {
                    id = Some(text);
                    next_is_id = false;
                } else if depth == 1 && text == b"\"id\"" {
                    let after = json[i..].iter().position(|b| !b.is_ascii_whitespace());
                    next_is_id = after.is_some_and(|n| json[i + n] == b':');
                }
            }
            b'{' | b'[' => {
                values += 1;
                depth += 1;
                next_is_id = false;
                if depth > MAX_DEPTH {
                    return Err(refuse(Over::Depth, id));
                }
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b',' | b':' | b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => {
                // A number or a literal: one value, to its end.
                values += 1;
                let start = i;
                while i < json.len() && !ends_scalar(json[i]) {
                    i += 1;
                }
                if next_is_id {
                    id = Some(&json[start..i]);
                    next_is_id = false;
                }
            }
        }
        if values > MAX_VALUES {
            return Err(refuse(Over::Values, id));
        }
    }
    Ok(Shape { values })
}

fn ends_scalar(byte: u8) -> bool {
    matches!(byte, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r' | b'"' | b':' | b'{' | b'[')
}

/// The id to answer a refused message under: a number or a string of at
/// most 256 bytes as the client wrote it, else `null`.
fn short_id(id: Option<&[u8]>) -> Value {
    match id.filter(|id| id.len() <= 256).and_then(|id| serde_json::from_slice(id).ok()) {
        Some(id @ (Value::String(_) | Value::Number(_))) => id,
        _ => Value::Null,
    }
}

/// Where the string whose text starts at `start` ends (its closing quote);
/// `None` when it is not closed.
fn string_end(json: &[u8], start: usize) -> Option<usize> {
    let mut end = start;
    loop {
        end += memchr::memchr2(b'"', b'\\', json.get(end..)?)?;
        if json[end] == b'"' {
            return Some(end);
        }
        end += 2;
    }
}

/// The words of the refusal for a message over budget: what the budget is
/// and what to do, never what the message held.
pub(crate) fn refusal_message(over: Over) -> &'static str {
    match over {
        Over::Values => {
            "Invalid request: a message may hold at most 65536 JSON values (numbers, strings, keys, arrays, objects); send less in one request."
        }
        Over::Depth => {
            "Parse error: send one JSON-RPC message as valid JSON, nested at most 128 deep."
        }
    }
}

/// Whether a `method` message of `bytes` bytes and `shape` is over the
/// budget of what rmcp keeps for a session's or a stream's life.
pub(crate) fn over_handshake_budget(method: &str, bytes: usize, shape: Shape) -> bool {
    matches!(method, "initialize" | "subscriptions/listen")
        && (bytes > HANDSHAKE_BYTES || shape.values > HANDSHAKE_VALUES)
}

/// The refusal of an `initialize` or `subscriptions/listen` over
/// [`over_handshake_budget`].
pub(crate) const HANDSHAKE_REFUSAL: &str = "Invalid request: an `initialize` or `subscriptions/listen` message may be at most 64 KiB and 4096 JSON values, as the server keeps its params while the session or stream lasts; send only clientInfo, capabilities and the filter.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s12_a_flood_of_zeros_is_over_budget_and_keeps_its_id() {
        let mut body = br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"w1__a","arguments":{"v":["#.to_vec();
        body.extend(std::iter::repeat_n(&b"0,"[..], 200_000).flatten());
        body.extend_from_slice(b"0]}}}");
        let refused = check(&body).unwrap_err();
        assert_eq!((refused.over, refused.id), (Over::Values, Value::from(42)));
        let deep = format!(r#"{{"id":"x","a":{}{}}}"#, "[".repeat(200), "]".repeat(200));
        let refused = check(deep.as_bytes()).unwrap_err();
        assert_eq!((refused.over, refused.id), (Over::Depth, Value::from("x")));
    }

    #[test]
    fn s12_values_are_counted_outside_strings_only() {
        let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w1__e","arguments":{"v":"[0,0,{\"a\":[1,2]}]","n":-1.5e3,"t":true,"z":null}}}"#;
        // 3 objects, 10 keys, 8 other values (one of them a string that
        // looks like structure).
        assert_eq!(check(call).unwrap().values, 21);
        let text = format!(r#"{{"id":1,"v":"{}"}}"#, "0,".repeat(100_000));
        assert!(check(text.as_bytes()).is_ok(), "a long string is one value");
        let long_id = format!(r#"{{"id":"{}","v":[{}0]}}"#, "x".repeat(300), "0,".repeat(70_000));
        assert_eq!(check(long_id.as_bytes()).unwrap_err().id, Value::Null);
    }

    #[test]
    fn s12_handshakes_have_a_small_budget() {
        let small = Shape { values: 30 };
        assert!(!over_handshake_budget("initialize", 400, small));
        assert!(over_handshake_budget("initialize", HANDSHAKE_BYTES + 1, small));
        assert!(over_handshake_budget("subscriptions/listen", 400, Shape { values: 5_000 }));
        assert!(!over_handshake_budget("tools/call", 1 << 20, Shape { values: 5_000 }));
    }
}
