//! The requests an agent sends most, decoded by their method.
//!
//! rmcp's `ClientRequest` is an untagged union of every request type, so
//! its own decoding tries the types in turn until one takes the message: a
//! `tools/call` fails thirteen times first, each failure a formatted error
//! message, over a buffered copy of the whole frame. That was the largest
//! single cost of a stdio round. Here the frame's head (`jsonrpc`, `id`,
//! `method`) is read first, and for `tools/call`, `resources/read` and
//! `tools/list` the one request type the method names decodes the frame.
//!
//! The outcome is the same message the general path gives (`frame.rs`
//! keeps that path; the tests below and the fuzz target `by_method` compare
//! the two): the general path would
//! reach the same type, since every earlier type in the union refuses a
//! method other than its own. Anything else — another method, a reply, a
//! missing `jsonrpc`, params the type refuses — is left to the general path,
//! which also decides the error answer such frames are owed.

use rmcp::model::{
    CallToolRequest, ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, JsonRpcRequest,
    ListToolsRequest, ReadResourceRequest, RequestId,
};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

/// `line` as one of the common requests, or `None` for the general path.
/// The caller has already refused repeated keys.
pub(crate) fn decode(line: &[u8]) -> Option<ClientJsonRpcMessage> {
    let Head { id: Some(id), method: Some(method), version: true, reply: false } =
        serde_json::from_slice::<Head<'_>>(line).ok()?
    else {
        return None;
    };
    // Each type reads `method` and `params` and skips the rest of the
    // frame (`jsonrpc`, `id`), as it does inside the union.
    let request = match method {
        "tools/call" => ClientRequest::CallToolRequest(typed::<CallToolRequest>(line)?),
        "resources/read" => ClientRequest::ReadResourceRequest(typed::<ReadResourceRequest>(line)?),
        "tools/list" => ClientRequest::ListToolsRequest(typed::<ListToolsRequest>(line)?),
        _ => return None,
    };
    Some(JsonRpcMessage::Request(JsonRpcRequest::new(id, request)))
}

fn typed<'de, T: Deserialize<'de>>(line: &'de [u8]) -> Option<T> {
    serde_json::from_slice(line).ok()
}

/// The keys that say what a frame is. `params` is left to the request's
/// type, which reads it whole; a reply's `result` or `error` is skipped, as
/// such a frame goes down the general path anyway. A key or method spelled
/// with an escape fails the read, which sends the frame down the general
/// path too.
#[derive(Default)]
struct Head<'a> {
    id: Option<RequestId>,
    method: Option<&'a str>,
    /// `"jsonrpc": "2.0"` is there.
    version: bool,
    /// A `result` or `error` key: a reply, or not a valid request.
    reply: bool,
}

impl<'de> Deserialize<'de> for Head<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(HeadVisitor)
    }
}

struct HeadVisitor;

impl<'de> Visitor<'de> for HeadVisitor {
    type Value = Head<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Head<'de>, A::Error> {
        let mut head = Head::default();
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                "jsonrpc" => head.version = map.next_value::<&'de str>()? == "2.0",
                "id" => head.id = Some(map.next_value()?),
                "method" => head.method = Some(map.next_value()?),
                "params" => {
                    map.next_value::<IgnoredAny>()?;
                }
                "result" | "error" => {
                    head.reply = true;
                    map.next_value::<IgnoredAny>()?;
                }
                // Read, not skipped: rmcp's decoding reads every value of
                // the frame, and refuses one that is not valid JSON text (a
                // lone surrogate, a number out of range) that skipping
                // would let through. Clients seldom send other keys.
                _ => {
                    map.next_value::<serde_json::Value>()?;
                }
            }
        }
        Ok(head)
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ClientRequest;
    use serde_json::{Value, json};

    use super::decode;

    /// What rmcp's own decoding makes of `line`, when it makes the request
    /// the method names (not a custom request standing in for bad params).
    fn general(line: &str) -> Option<Value> {
        let message: rmcp::model::ClientJsonRpcMessage = serde_json::from_str(line).ok()?;
        if let rmcp::model::JsonRpcMessage::Request(request) = &message
            && let ClientRequest::CustomRequest(_) = &request.request
        {
            return None;
        }
        Some(serde_json::to_value(message).expect("a message serializes"))
    }

    /// A small generator, so the frames cover the shapes clients send
    /// without a test dependency.
    struct Draw(u64);

    impl Draw {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        fn pick<T: Clone>(&mut self, from: &[T]) -> T {
            from[self.below(from.len())].clone()
        }

        fn value(&mut self, depth: u32) -> Value {
            match self.below(if depth == 0 { 5 } else { 7 }) {
                0 => Value::Null,
                1 => json!(self.pick(&[true, false])),
                2 => json!(self.pick(&[0_i64, -7, 42, i64::MAX, i64::MIN])),
                3 => json!(self.pick(&[0.5, -1e300, 3.0, 1.25e-7])),
                4 => json!(self.pick(&["", "Ada", "é\u{1F600}", "a\"b\\c\n", "</script>"])),
                5 => Value::Array((0..self.below(3)).map(|_| self.value(depth - 1)).collect()),
                _ => {
                    let keys = ["k", "value", "_meta", "é", "a b"];
                    let n = self.below(4);
                    let map =
                        (0..n).map(|i| (format!("{}{i}", self.pick(&keys)), self.value(depth - 1)));
                    Value::Object(map.collect())
                }
            }
        }

        /// `params._meta`, as clients send it, or something else there.
        fn meta(&mut self) -> Option<Value> {
            match self.below(5) {
                0 => None,
                1 => {
                    Some(json!({"progressToken": self.pick(&[json!(7), json!("tok"), json!(-1)])}))
                }
                2 => Some(json!({"progressToken": 1, "custom/key": self.value(2)})),
                3 => Some(self.value(1)),
                _ => Some(json!({})),
            }
        }

        fn params(&mut self, method: &str) -> Option<Value> {
            let mut params = match method {
                "tools/call" => {
                    let mut params =
                        json!({"name": self.pick(&["w1__edit_field", "app__act", "é"])});
                    match self.below(4) {
                        0 => {}
                        1 => params["arguments"] = self.value(3),
                        _ => {
                            params["arguments"] =
                                json!({"field": "recipient", "value": self.value(1)})
                        }
                    }
                    if self.below(6) == 0 {
                        params["requestState"] = json!(self.pick(&["sealed", ""]));
                    }
                    if self.below(6) == 0 {
                        params["inputResponses"] =
                            json!({"approval": {"action": "accept", "content": {"approve": true}}});
                    }
                    if self.below(8) == 0 {
                        params["name"] = self.value(1);
                    }
                    params
                }
                "resources/read" => match self.below(6) {
                    0 => json!({"uri": self.value(1)}),
                    _ => json!({"uri": self.pick(&["app://windows", "app://other", "ü"])}),
                },
                "tools/list" => match self.below(4) {
                    0 => return None,
                    1 => return Some(Value::Null),
                    2 => json!({"cursor": self.pick(&[json!("c1"), json!(5)])}),
                    _ => json!({}),
                },
                _ => match self.below(3) {
                    0 => return None,
                    _ => self.value(1),
                },
            };
            if let (Some(meta), Value::Object(map)) = (self.meta(), &mut params) {
                map.insert("_meta".into(), meta);
            }
            if self.below(10) == 0 {
                params = self.value(1);
            }
            Some(params)
        }

        fn frame(&mut self) -> String {
            let method =
                self.pick(&["tools/call", "resources/read", "tools/list", "ping", "tools/cal"]);
            let mut frame = serde_json::Map::new();
            let (version, id) = (self.below(12), self.below(12));
            if version != 0 {
                frame.insert("jsonrpc".into(), json!(if version == 1 { "1.0" } else { "2.0" }));
            }
            match id {
                0 => {}
                1 => drop(frame.insert("id".into(), Value::Null)),
                2 => drop(frame.insert("id".into(), json!(1.5))),
                3 => drop(frame.insert("id".into(), json!(u64::MAX))),
                4 => drop(frame.insert("id".into(), json!("req-ü"))),
                _ => drop(frame.insert("id".into(), json!(self.below(1000) as i64 - 10))),
            }
            frame.insert("method".into(), json!(method));
            if let Some(params) = self.params(method) {
                frame.insert("params".into(), params);
            }
            match self.below(12) {
                0 => drop(frame.insert("result".into(), json!({}))),
                1 => drop(frame.insert("extra".into(), self.value(1))),
                _ => {}
            }
            serde_json::to_string(&Value::Object(frame)).expect("a map serializes")
        }
    }

    #[test]
    fn jsonrpc_decoding_by_method_gives_what_rmcp_gives() {
        let mut draw = Draw(0x9E37_79B9_7F4A_7C15);
        let mut taken = 0;
        for _ in 0..20_000 {
            let line = draw.frame();
            let quick = decode(line.as_bytes()).map(|m| {
                // The extensions (where `_meta` goes) show only in `Debug`.
                let extensions = format!("{m:?}");
                let general: rmcp::model::ClientJsonRpcMessage =
                    serde_json::from_str(&line).unwrap();
                assert_eq!(extensions, format!("{general:?}"), "{line}");
                serde_json::to_value(m).unwrap()
            });
            let general = general(&line).filter(|m| m.get("id").is_some());
            // Every request rmcp makes of one of these frames is made here
            // too (the generator spells no key or method with an escape),
            // and made the same.
            let common = !line.contains("\"tools/cal\"") && !line.contains("\"ping\"");
            match (&quick, &general) {
                (Some(_), _) | (None, Some(_)) if common => assert_eq!(quick, general, "{line}"),
                (Some(_), _) => panic!("a method not taken here was: {line}"),
                _ => {}
            }
            taken += usize::from(quick.is_some());
        }
        assert!(taken > 4_000, "only {taken} frames took the quick path");
    }

    #[test]
    fn jsonrpc_the_common_requests_take_the_quick_path_and_others_do_not() {
        let quick = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w1__a","arguments":{"v":1}}}"#,
            r#"{"id":"x","method":"resources/read","jsonrpc":"2.0","params":{"uri":"app://windows","_meta":{"progressToken":3}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","extra":{"k":[1,"é"]}}"#,
        ];
        for line in quick {
            assert!(decode(line.as_bytes()).is_some(), "{line}");
        }
        let general: [&[u8]; 7] = [
            // Another method, a notification, a reply, no version, params
            // the type refuses, a method spelled with an escape.
            br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            br#"{"id":1,"method":"tools/list"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"a"}}"#,
        ];
        // Text that is not valid JSON in a value nobody uses: rmcp refuses
        // the frame, so it must get the error answer it is owed, not be
        // taken here.
        let not_json: [&[u8]; 3] = [
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","x":{"\ud800":1}}"#,
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","x":1e999}"#,
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"x\":{\"\x8fursor\":1}}",
        ];
        for line in general.into_iter().chain(not_json) {
            assert!(decode(line).is_none(), "{}", String::from_utf8_lossy(line));
        }
        for line in not_json {
            let rmcp = serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(line);
            assert!(rmcp.is_err(), "{}", String::from_utf8_lossy(line));
        }
    }
}
