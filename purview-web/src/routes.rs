//! The face's routes: the page, its script and style inline (static: it
//! holds nothing of the app's state and no credential), the exchange of a
//! one-time key for a session, the scene, its live events, and the
//! person's intents (`intents.rs`). Every route but the page and the exchange needs the
//! session credential in its header (`access.rs`).

use std::sync::Arc;

use axum::{
    Router,
    body::Bytes,
    extract::State,
    http::{HeaderMap, Method, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use purview::serde_json::{Value, json};

use crate::{
    Inner,
    access::{self, Refused, body_object, json_answer, refused, secured},
    assets, events, intents,
};

type Face = State<Arc<Inner>>;

/// The routes, every one under `inner.prefix`.
pub(crate) fn router(inner: Arc<Inner>) -> Router {
    let at = |path: &str| format!("{}{path}", inner.prefix);
    Router::new()
        .route(&at(""), get(page))
        .route(&at("/"), get(page))
        .route(&at("/open"), post(open))
        .route(&at("/scene"), get(scene))
        .route(&at("/events"), get(events::stream))
        .route(&at("/intent"), post(intents::intent))
        .layer(axum::middleware::from_fn_with_state(inner.clone(), charge_to_session))
        .with_state(inner)
}

/// Charges a request's connection to the face session its credential proves
/// (`purview::http::charge_connection`): in the fair shares, each of the
/// person's browsers is a client of its own, apart from every other local
/// process, as a named MCP client is.
async fn charge_to_session(
    State(inner): Face,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if let Some(session) = inner.access.session(request.headers()) {
        let client = format!("person-{}", session.number);
        purview::http::charge_connection(request.extensions(), &client);
    }
    next.run(request).await
}

/// The exchange of a one-time key (which the link carries in its
/// fragment, so no server ever saw it) for a session credential: `{"key":
/// …}` from the face's own page, answered with `{"session": …}`, which the
/// page keeps in its origin's storage.
async fn open(State(inner): Face, method: Method, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(why) = access::from_the_page(&method, &headers) {
        return refused(why);
    }
    let request = body_object(&body).unwrap_or_default();
    let key = request.get("key").and_then(Value::as_str);
    let Some(session) = key.and_then(|key| inner.access.exchange(key)) else {
        return refused(Refused::NoSession);
    };
    let mut answer = json_answer(StatusCode::OK, &json!({ "session": session.id }));
    answer.headers_mut().insert(CLOSE.0, header::HeaderValue::from_static(CLOSE.1));
    answer
}

/// The page: the same for everyone, for it holds nothing but the app's
/// name; its script asks for everything else with the person's
/// credential.
async fn page(State(inner): Face) -> Response {
    let html = assets::page(&inner.title, &inner.prefix);
    let headers = [(header::CONTENT_TYPE, "text/html; charset=utf-8"), CLOSE];
    secured((headers, html).into_response())
}

/// Closes the connection after an answer to a request that carried no
/// credential (the page, the key's exchange): such a connection counts
/// as its address's, like any token-less local process's, so a crowd of
/// those may cut it; closed, it is never the one the person's later
/// requests, which carry the credential, are sent on.
const CLOSE: (header::HeaderName, &str) = (header::CONNECTION, "close");

/// The scene, once (the events stream sends it on every change).
async fn scene(State(inner): Face, method: Method, headers: HeaderMap) -> Response {
    if let Err(why) = access::check(&inner.access, &method, &headers) {
        return refused(why);
    }
    let json = [(header::CONTENT_TYPE, "application/json")];
    secured((StatusCode::OK, json, inner.document_text().to_string()).into_response())
}
