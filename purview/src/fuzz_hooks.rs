//! Entry points for Purview's cargo-fuzz targets (feature `fuzzing`): the
//! pure functions that stand between a client's bytes and the application.
//! Not part of the API.

use axum::http::{HeaderMap, HeaderName, HeaderValue};

use crate::server::{
    frame::{Frame, decode, has_repeated_keys},
    guard::{Guard, parse_authority},
};

/// Decodes one stdio line. `Some(reply)` is the JSON-RPC error the
/// transport would answer with itself.
pub fn decode_frame(line: &[u8], seen_request: bool) -> Option<String> {
    match decode(line, seen_request) {
        Frame::Reply(reply) => Some(reply.to_string()),
        Frame::Message(_) | Frame::Ignore(_) => None,
    }
}

/// Whether decoding `line` by its method gives the message rmcp's own
/// decoding gives: `None` when the transport would not take that path (a
/// repeated key, another method, a reply, params the method's type
/// refuses…).
pub fn by_method_agrees(line: &[u8]) -> Option<bool> {
    let line = line.trim_ascii();
    if has_repeated_keys(line) {
        return None;
    }
    let quick = crate::server::by_method::decode(line)?;
    let Ok(general) = serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(line) else {
        return Some(false);
    };
    // The wire form, and the extensions the wire form leaves out.
    let same_debug = format!("{quick:?}") == format!("{general:?}");
    Some(same_debug && serde_json::to_value(quick).ok() == serde_json::to_value(general).ok())
}

/// The host of an authority (`host[:port]`) as the HTTP guard parses it.
pub fn authority_host(text: &str) -> Option<(String, Option<u16>)> {
    parse_authority(text).map(|a| (a.host.to_owned(), a.port))
}

/// Runs the HTTP guard of a default loopback server with bearer token
/// `token` over raw header pairs (pairs that are not valid HTTP headers are
/// skipped). `Ok` means the request would reach MCP.
pub fn check_headers(pairs: &[(Vec<u8>, Vec<u8>)], token: &str) -> Result<(), u16> {
    let mut headers = HeaderMap::new();
    for (name, value) in pairs {
        if let (Ok(name), Ok(value)) =
            (HeaderName::from_bytes(name), HeaderValue::from_bytes(value))
        {
            headers.append(name, value);
        }
    }
    let guard = Guard {
        hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
        origins: vec![
            "http://localhost:*".into(),
            "http://127.0.0.1:*".into(),
            "http://[::1]:*".into(),
        ],
        tokens: vec![("fuzz".into(), token.to_owned())],
    };
    guard.check(&headers).map(|_| ()).map_err(|(status, _)| status.as_u16())
}
