//! The face's routes: the page, its script and style inline (static: it
//! holds nothing of the app's state and no credential), the exchange of a
//! one-time key for a session, the scene, its live events, and the
//! person's two kinds of request (a call, an answer to an approval
//! question). Every route but the page and the exchange needs the
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
use purview::{
    activity::ActionInfo,
    approval::Approval,
    model::{ErrorCode, JsonObject, ToolError},
    serde_json::{self, Value, json},
};

use crate::{
    Inner,
    access::{self, Refused, refused, secured},
    assets, events, person,
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
        .route(&at("/call"), post(call))
        .route(&at("/answer"), post(answer))
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

fn json_answer(status: StatusCode, body: &Value) -> Response {
    let json = [(header::CONTENT_TYPE, "application/json")];
    secured((status, json, body.to_string()).into_response())
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

/// A person's request body, parsed as a JSON object.
fn body_object(body: &Bytes) -> Option<JsonObject> {
    serde_json::from_slice::<Value>(body).ok()?.as_object().cloned()
}

fn error_answer(status: StatusCode, error: &ToolError) -> Response {
    json_answer(status, &json!({ "error": error }))
}

/// The person's call of an action, as the page knows it (window, action,
/// what was typed, whether a destructive action was confirmed): through
/// [`purview::activity::ActionInfo::call`], as the person.
async fn call(State(inner): Face, method: Method, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(why) = access::check(&inner.access, &method, &headers) {
        return refused(why);
    }
    let Some(request) = body_object(&body) else {
        let error = ToolError::new(ErrorCode::ActionFailed, "The request was not understood.");
        return error_answer(StatusCode::BAD_REQUEST, &error);
    };
    match run_call(&inner, &request).await {
        Ok(done) => json_answer(StatusCode::OK, &done),
        Err((status, error)) => {
            let said = person::said(&inner, &request, &error);
            json_answer(status, &json!({ "error": error, "said": said }))
        }
    }
}

/// The action a page's call names (`window`, `action`), with its arguments
/// made from the typed `values` (and a destructive one `confirmed`): what
/// to call, or the HTTP status and the refusal.
pub(crate) fn prepare_call(
    inner: &Inner,
    request: &JsonObject,
) -> Result<(ActionInfo, JsonObject), Box<(StatusCode, ToolError)>> {
    person::prepare(inner, request)
}

/// A page's call ([`prepare_call`]) made by the person: what it answered,
/// or the HTTP status and the refusal.
async fn run_call(inner: &Inner, request: &JsonObject) -> Result<Value, (StatusCode, ToolError)> {
    let (action, arguments) = prepare_call(inner, request).map_err(|refused| *refused)?;
    let limit = request.get("page").and(arguments.get("limit")).and_then(Value::as_u64);
    match action.call(&inner.app, arguments).by_person().await {
        Ok(performed) => {
            let page = limit.and_then(|limit| {
                person::page(performed.value.as_ref(), usize::try_from(limit).unwrap_or(1))
            });
            Ok(
                json!({"ok": true, "message": performed.message, "value": performed.value, "page": page}),
            )
        }
        Err(error) => Err((StatusCode::OK, error)),
    }
}

/// The person's answer to an approval question.
async fn answer(State(inner): Face, method: Method, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(why) = access::check(&inner.access, &method, &headers) {
        return refused(why);
    }
    let request = body_object(&body).unwrap_or_default();
    let id = request.get("id").and_then(Value::as_u64);
    let approve = request.get("approve").and_then(Value::as_bool);
    let (Some(queue), Some(id), Some(approve)) = (&inner.approvals, id, approve) else {
        return json_answer(StatusCode::BAD_REQUEST, &json!({"answered": false}));
    };
    let approval = if approve { Approval::Approve } else { Approval::Decline };
    let answered = queue.answer(id, approval);
    json_answer(StatusCode::OK, &json!({ "answered": answered }))
}
