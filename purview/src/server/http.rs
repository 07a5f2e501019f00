//! Streamable HTTP: many sessions at once, one application state, and
//! limits on everything a client can hold open.
//!
//! Connections are served by hyper directly (not `axum::serve`, see
//! `http/accept.rs`) so that a client that sends its headers slowly is cut
//! off ([`HttpOptions::header_timeout`], a total, however slowly they
//! trickle in) and the open connections are shared fairly per client
//! (`fair.rs`: a client is the named client whose token its requests carry;
//! unchecked connections are cut first); each request then passes the
//! header checks of `guard.rs` before any body is read, its body is limited
//! in size and in total time, its answers must be read (`paced.rs`), and
//! rmcp's session layer shares sessions and GET streams among the clients
//! (`http_sessions.rs`).

use std::{cell::Cell, net::SocketAddr, sync::Arc, time::Duration};

use axum::{
    extract::Request,
    http::StatusCode,
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio_util::sync::CancellationToken;
use tower_http::{limit::RequestBodyLimitLayer, timeout::RequestBodyTimeoutLayer};

use super::{
    fair::{AuthFailures, Client, ConnectionMark, Connections, Summary},
    frame::{self, Frame},
    guard::{Guard, WRONG_TOKEN},
    http_options::HttpOptions,
    http_sessions::{BoundedSessions, Credential, SESSION_REFUSED},
};
use crate::{App, Error};

mod accept;
mod beside;
pub(crate) mod shared_reads;

use accept::{Limits, accept};
pub use beside::charge_connection;

/// A running HTTP server. Dropping it does not stop it; call
/// [`HttpServer::shutdown`].
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    path: String,
    cancel: CancellationToken,
    stopped: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl HttpServer {
    /// The bound address (with the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The MCP endpoint URL, e.g. `http://127.0.0.1:8765/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local_addr, self.path)
    }

    /// Stops accepting requests, ends every session and waits for the server
    /// task to finish.
    pub async fn shutdown(self) {
        self.cancel.cancel();
        let _ = self.task.await;
    }

    /// Waits until the server stops (an I/O failure), without stopping it.
    pub async fn wait(self) {
        let _ = self.task.await;
    }

    /// Resolves once the server has stopped; unlike [`HttpServer::wait`] it
    /// leaves the handle usable, so it can race a shutdown signal.
    pub async fn stopped(&self) {
        self.stopped.cancelled().await;
    }
}

impl App {
    /// Serves streamable HTTP; returns once the port is bound.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), purview::Error> {
    /// let app = purview::App::builder().build();
    /// let server = app.serve_http(purview::http::HttpOptions::default()).await?;
    /// eprintln!("MCP endpoint: {}", server.url());
    /// server.wait().await;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Serve`] for a malformed path, a bearer token shorter than 16
    /// characters, an address beyond loopback without a token, or a port
    /// that cannot be bound.
    pub async fn serve_http(&self, options: HttpOptions) -> Result<HttpServer, Error> {
        self.warn_if_misconfigured();
        options.check()?;
        let listener = tokio::net::TcpListener::bind(options.addr)
            .await
            .map_err(|e| Error::Serve(bind_failure(options.addr, &e)))?;
        let local_addr = listener.local_addr().map_err(|e| Error::Serve(e.to_string()))?;
        let cancel = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(options.allowed_hosts.clone())
            .with_allowed_origins(options.allowed_origins.clone())
            .enforce_origin_validation()
            .with_cancellation_token(cancel.child_token());
        let sessions = BoundedSessions::for_options(&options);
        let app = self.clone();
        let listens = super::listen::ListenBudget::new(options.max_listen_streams);
        self.warn_if_subscribers_short(&options);
        let card = options.card.clone();
        // Answers are written, and handlers run, in turns of the CPU.
        let turns = (!options.no_cpu_turns).then(super::turns::Turns::for_this_machine);
        let handlers = turns.clone();
        let shared = Arc::new(shared_reads::SharedReads::new(
            self.clone(),
            card.clone(),
            (options.path.clone(), options.session_idle),
            sessions.clone(),
            turns.clone(),
        ));
        let reads = shared.clone();
        let service = StreamableHttpService::new(
            move || {
                Ok(app.mcp_server_over_http(
                    listens.clone(),
                    card.clone(),
                    handlers.clone(),
                    reads.clone(),
                ))
            },
            sessions.clone(),
            config,
        );
        let beside: Arc<[String]> = options.beside_prefixes().into();
        let checks = Arc::new(Checks {
            beside: beside.clone(),
            beside_guard: Guard { tokens: Vec::new(), ..options.guard() },
            guard: options.guard(),
            failures: AuthFailures::default(),
            wrong_token: Summary::new("requests refused for a missing or wrong bearer token"),
            refused: Summary::new("requests refused by the Host/Origin checks"),
            sessions: sessions.clone(),
            turns,
        });
        let body = BodyLimits { total: options.body_timeout, min_rate: options.min_request_rate };
        let router = beside::read_bodies(beside::router(&options, service), beside, body, shared)
            .layer(RequestBodyLimitLayer::new(options.max_body_bytes))
            .layer(RequestBodyTimeoutLayer::new(options.body_timeout))
            .layer(middleware::from_fn(move |request: Request, next: Next| {
                let checks = checks.clone();
                async move { check_headers(&checks, request, next).await }
            }));
        let stopped = CancellationToken::new();
        let connections = Connections::new(options.max_connections);
        let task = tokio::spawn(accept(
            listener,
            router,
            Limits {
                connections,
                header_timeout: options.header_timeout,
                min_rate: options.min_request_rate,
                nodelay: !options.nagle,
            },
            cancel.clone(),
            stopped.clone(),
        ));
        tracing::info!(url = %format!("http://{local_addr}{}", options.path), "serving MCP over streamable HTTP");
        Ok(HttpServer { local_addr, path: options.path, cancel, stopped, task })
    }
}

impl BoundedSessions {
    /// The sessions `options` allows, idle ones expiring after its
    /// `session_idle`.
    fn for_options(options: &HttpOptions) -> Arc<Self> {
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(options.session_idle);
        Self::new(
            sessions,
            options.max_sessions,
            options.max_streams_per_session,
            options.max_streams,
        )
    }
}

impl App {
    /// Warns when the HTTP sessions and listen streams `options` allows
    /// could need more of the app's subscribers than it has.
    fn warn_if_subscribers_short(&self, options: &HttpOptions) {
        let subscribers = self.max_subscribers();
        if options.max_sessions + options.max_listen_streams > subscribers {
            tracing::warn!(
                sessions = options.max_sessions,
                listen_streams = options.max_listen_streams,
                subscribers,
                "HTTP sessions and listen streams together may exceed the app's subscriber limit; some sessions could then get no notifications"
            );
        }
    }
}

/// The header checks, and what they remember between requests.
struct Checks {
    guard: Guard,
    /// The prefixes served beside MCP (`HttpOptions::serve_beside`), and
    /// their checks: `Host` and `Origin`, no bearer token.
    beside: Arc<[String]>,
    beside_guard: Guard,
    failures: AuthFailures,
    wrong_token: Summary,
    refused: Summary,
    /// Whose each session is.
    sessions: Arc<BoundedSessions>,
    /// The CPU's turns, which every answer's body is written in (none
    /// only where a measurement turned them off).
    turns: Option<Arc<super::turns::Turns>>,
}

/// Refuses a request whose headers fail the guard, before its body is read.
/// A request that passes marks its connection checked, charged to the named
/// client whose token it carries (a new connection whose request carries
/// none, and any request to a route beside MCP, is counted apart until
/// the request is answered, then as its address),
/// and carries that client (else its source address) as its
/// [`Credential`]; one naming another client's session is
/// answered 404, as if the session did not exist. A wrong token is answered
/// only after its delay, a missing one at once.
async fn check_headers(checks: &Checks, mut request: Request, next: Next) -> Response {
    let mark = request.extensions().get::<ConnectionMark>().cloned();
    let beside = beside::is_beside(&checks.beside, request.uri().path());
    let guard = if beside { &checks.beside_guard } else { &checks.guard };
    match guard.check(request.headers()) {
        Ok(named) => {
            let Some(mark) = mark else { return next.run(request).await };
            let unnamed = named.is_none();
            if beside && unnamed {
                mark.checked_beside();
            } else {
                mark.checked(named.clone());
            }
            let client = named.map_or_else(|| Client::address(mark.source), Client::Named);
            let response = if !beside && !checks.sessions.admits(request.headers(), &client) {
                super::http_sessions::session_not_found()
            } else {
                request.extensions_mut().insert(Credential(client.clone()));
                // What this request opens (a session, a stream) is charged
                // to the client its credential proves, and so is the CPU
                // its answer takes to write.
                let response = super::http_sessions::REQUEST_CLIENT
                    .scope(client.clone(), next.run(request))
                    .await;
                // A route beside MCP charges the connection to the
                // credential it checks itself (the person's face session):
                // its answer is written in that client's turns, not in
                // those of every token-less process of its address.
                let writer = if beside { mark.client() } else { client };
                match checks.turns.clone() {
                    Some(turns) => response.map(|body| {
                        axum::body::Body::new(super::turns::Gated::new(body, turns, writer))
                    }),
                    None => response,
                }
            };
            if unnamed {
                mark.settled();
            }
            response
        }
        Err((status, reason)) => {
            // A request without a token guesses nothing: it is answered at
            // once, and only wrong tokens are slowed down.
            if (status, reason) == WRONG_TOKEN {
                checks.wrong_token.note();
                if let Some(mark) = &mark {
                    let delay = checks.failures.failed(mark.source);
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                }
            } else {
                checks.refused.note();
            }
            let mut response = (status, reason).into_response();
            if status == StatusCode::UNAUTHORIZED {
                response.headers_mut().insert(
                    axum::http::header::WWW_AUTHENTICATE,
                    axum::http::HeaderValue::from_static("Bearer"),
                );
            }
            response
        }
    }
}

/// How a request body must arrive.
#[derive(Clone, Copy)]
struct BodyLimits {
    /// Whole within this, however it trickles.
    total: Duration,
    /// After [`BODY_GRACE`], at least this many bytes a second on average.
    min_rate: u32,
}

/// How long a body may take before its rate is held to
/// [`HttpOptions::min_request_rate`].
pub(crate) const BODY_GRACE: Duration = Duration::from_secs(2);

/// Why a body was not read whole.
enum Unread {
    TooSlow,
    TooLarge,
    /// The connection was cut to make room for another client.
    Cut,
}

/// Reads `body` whole within `limits`, marking the connection as reading
/// it (the cheapest kind of work to cut, `fair.rs`) meanwhile.
async fn read_body(
    body: axum::body::Body,
    limits: BodyLimits,
    mark: Option<&ConnectionMark>,
) -> Result<axum::body::Bytes, Unread> {
    use http_body_util::BodyExt;
    let _reading = mark.map(ConnectionMark::reading);
    let never = CancellationToken::new();
    let cut = mark.map_or(&never, ConnectionMark::cut);
    let started = tokio::time::Instant::now();
    let rate = f64::from(limits.min_rate.max(1));
    let mut body = body;
    let mut read = Vec::new();
    loop {
        // By then at least one more byte must have come.
        let owed =
            Duration::try_from_secs_f64((read.len() + 1) as f64 / rate).unwrap_or(limits.total);
        let deadline = started + limits.total.min(BODY_GRACE + owed);
        let frame = tokio::select! {
            () = cut.cancelled() => return Err(Unread::Cut),
            frame = tokio::time::timeout_at(deadline, body.frame()) => frame,
        };
        match frame {
            Err(_) => return Err(Unread::TooSlow),
            Ok(None) => return Ok(read.into()),
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    read.extend_from_slice(&data);
                }
            }
            Ok(Some(Err(e))) => {
                let too_large =
                    e.into_inner().downcast_ref::<http_body_util::LengthLimitError>().is_some();
                return Err(if too_large { Unread::TooLarge } else { Unread::TooSlow });
            }
        }
    }
}

/// The answer to a body that was not read whole; the connection closes.
fn unread(why: Unread) -> Response {
    let close = (axum::http::header::CONNECTION, "close");
    match why {
        Unread::TooSlow => (
            StatusCode::REQUEST_TIMEOUT,
            [close],
            "the request body did not arrive in time, or arrived too slowly",
        )
            .into_response(),
        Unread::TooLarge => (
            StatusCode::PAYLOAD_TOO_LARGE,
            [close],
            "the request body is larger than this server accepts",
        )
            .into_response(),
        Unread::Cut => room_needed(),
    }
}

/// HTTP 503 for a connection cut to make room for another client.
fn room_needed() -> Response {
    let headers =
        [(axum::http::header::CONNECTION, "close"), (axum::http::header::RETRY_AFTER, "1")];
    (StatusCode::SERVICE_UNAVAILABLE, headers, ROOM_NEEDED).into_response()
}

const ROOM_NEEDED: &str = "this client holds more of the server's connections than others do, and one of them was needed for another client; send the request again on one of your open connections";

/// Answers a POST body that is not one usable JSON-RPC message with the
/// JSON-RPC error it is owed (HTTP 400, never quoting the body), as the
/// stdio transport does; rmcp would answer 415 with serde's own words, or
/// -32601 for a known method with unusable params.
///
/// The body must arrive whole within `limits` (in all, and at a minimum
/// rate); an `initialize` refused for the session limit is answered 503
/// with a JSON-RPC error (rmcp would answer 500 with a bare text). Other
/// methods pass through, a DELETE's answer made [`ended`].
async fn answer_malformed(
    limits: BodyLimits,
    shared: Arc<shared_reads::SharedReads>,
    request: Request,
    next: Next,
) -> Response {
    // What rmcp logs while serving a request passes a budget of lines, its
    // fields cut (`quiet.rs`): its errors quote the client's values whole.
    super::quiet::quieted(async move {
        static NOT_MESSAGES: super::quiet::Quiet =
            super::quiet::Quiet::new("request bodies answered as not valid messages");
        if request.method() != axum::http::Method::POST {
            let delete = request.method() == axum::http::Method::DELETE;
            let response = bounded(next.run(request).await).await;
            return if delete { ended(response) } else { response };
        }
        let (parts, body) = request.into_parts();
        let mark = parts.extensions.get::<ConnectionMark>().cloned();
        let bytes = match read_body(body, limits, mark.as_ref()).await {
            Ok(bytes) => bytes,
            Err(why) => return unread(why),
        };
        let json = [(axum::http::header::CONTENT_TYPE, "application/json")];
        // Nothing is parsed before the body is found within the budgets of
        // values and nesting (`budget.rs`).
        if let Some(Frame::Reply(reply)) = frame::over_budget_body(&bytes) {
            NOT_MESSAGES.note(|| tracing::info!("refused a request body over the JSON budget"));
            let body = serde_json::to_vec(&reply).unwrap_or_default();
            return (StatusCode::BAD_REQUEST, json, body).into_response();
        }
        let revision = parts.headers.get("mcp-protocol-version").and_then(|v| v.to_str().ok());
        if let Some(reply) = super::owed::removed_method(revision, &bytes) {
            let body = serde_json::to_vec(&reply).unwrap_or_default();
            return (StatusCode::NOT_FOUND, json, body).into_response();
        }
        match frame::decode(&bytes, true) {
            Frame::Message(message) => {
                let opens_session = !parts.headers.contains_key("mcp-session-id")
                    && matches!(
                        &*message,
                        rmcp::model::JsonRpcMessage::Request(r)
                            if matches!(r.request, rmcp::model::ClientRequest::InitializeRequest(_))
                    );
                let id = match &*message {
                    rmcp::model::JsonRpcMessage::Request(r) if opens_session => {
                        serde_json::to_value(&r.id).unwrap_or_default()
                    }
                    _ => serde_json::Value::Null,
                };
                if let rmcp::model::JsonRpcMessage::Request(r) = &*message
                    && let Some(answer) = shared.answer(&parts, r).await
                {
                    return answer;
                }
                // rmcp parses the body again: this parse is not held
                // meanwhile.
                drop(message);
                let request = Request::from_parts(parts, axum::body::Body::from(bytes));
                if !opens_session {
                    return bounded(next.run(request).await).await;
                }
                SESSION_REFUSED
                    .scope(Cell::new(None), async move {
                        let response = next.run(request).await;
                        match SESSION_REFUSED.with(Cell::get) {
                            Some(limit) => sessions_full(id, limit),
                            None => bounded(response).await,
                        }
                    })
                    .await
            }
            Frame::Reply(reply) => {
                NOT_MESSAGES
                    .note(|| tracing::info!("answered a request body that is not a valid message"));
                let body = serde_json::to_vec(&reply).unwrap_or_default();
                (StatusCode::BAD_REQUEST, json, body).into_response()
            }
            Frame::Ignore(_) => {
                (StatusCode::BAD_REQUEST, "the request body must be one JSON-RPC message")
                    .into_response()
            }
        }
    })
    .await
}

/// An error answer (HTTP 4xx) that repeats more than
/// [`super::cut::MESSAGE_LIMIT`] characters of anything, cut to it: rmcp's
/// errors quote the client's header and body values in full (a 1 MB tool
/// name came back as a 1 MB answer; a 200,000-character
/// `MCP-Protocol-Version` header, in a plain-text 400), in `error.message`,
/// in `error.data`, or as the whole text.
async fn bounded(response: Response) -> Response {
    if !response.status().is_client_error() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // rmcp's error answers are whole in memory; anything larger than any of
    // them is not one, and is not kept.
    let Ok(bytes) = axum::body::to_bytes(body, 16 * 1024 * 1024).await else {
        return (parts.status, "the request was refused").into_response();
    };
    let cut = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(mut reply) => super::cut::cut_error_value(&mut reply).then(|| reply.to_string()),
        Err(_) => super::cut::cut_text(&String::from_utf8_lossy(&bytes)),
    };
    let Some(cut) = cut else {
        return Response::from_parts(parts, axum::body::Body::from(bytes));
    };
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(cut))
}

/// A session ended by HTTP DELETE is answered 204 No Content: rmcp answers
/// 202 Accepted, which the Python SDK's client logs as a failed
/// termination (it accepts 200 and 204), although nothing is left to do.
fn ended(response: Response) -> Response {
    if response.status() != StatusCode::ACCEPTED {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    parts.status = StatusCode::NO_CONTENT;
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    parts.headers.remove(axum::http::header::CONTENT_TYPE);
    Response::from_parts(parts, axum::body::Body::empty())
}

/// HTTP 503 with the JSON-RPC error a client can show: the session limit
/// is reached, and what to do.
fn sessions_full(id: serde_json::Value, limit: usize) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32000,
            "message": format!("The server already has {limit} sessions, its limit. End one (HTTP DELETE) or try again once idle ones expire."),
        },
    });
    let headers = [
        (axum::http::header::CONTENT_TYPE, "application/json"),
        (axum::http::header::RETRY_AFTER, "5"),
    ];
    (StatusCode::SERVICE_UNAVAILABLE, headers, body.to_string()).into_response()
}

/// Why `addr` could not be bound, and what to do about it.
fn bind_failure(addr: std::net::SocketAddr, error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    let advice = match error.kind() {
        ErrorKind::AddrInUse => {
            "another program is listening on that port: stop it, or choose another port (port 0 lets the system pick a free one)"
        }
        ErrorKind::PermissionDenied => {
            "this process may not listen there (ports below 1024 need privileges): choose a port above 1024"
        }
        ErrorKind::AddrNotAvailable => {
            "this machine has no such address: use 127.0.0.1 (or another address the machine owns)"
        }
        _ => "check the address and port",
    };
    format!("cannot bind {addr} ({error}); {advice}")
}
