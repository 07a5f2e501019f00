//! Streamable HTTP: many sessions at once, one application state, and
//! limits on everything a client can hold open.
//!
//! Connections are served by hyper directly (not `axum::serve`) so that a
//! client that sends its headers slowly is cut off ([`HttpOptions::header_timeout`])
//! and the number of open connections is capped; each request then passes
//! the header checks of `guard.rs` before any body is read, its body is
//! limited in size and in time, and rmcp's session layer is bounded in
//! sessions and in GET streams per session (`http_sessions.rs`).

use std::{net::SocketAddr, sync::Arc, time::Duration};

use axum::{
    extract::Request,
    http::StatusCode,
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use hyper_util::{
    rt::{TokioIo, TokioTimer},
    service::TowerToHyperService,
};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower_http::{limit::RequestBodyLimitLayer, timeout::RequestBodyTimeoutLayer};

use super::{
    guard::Guard,
    http_sessions::BoundedSessions,
    lines::{self, Frame},
};
use crate::{App, Error, Secret};

/// How to serve streamable HTTP.
///
/// Defaults: `127.0.0.1:0` (a free port on loopback), path `/mcp`, no token,
/// only loopback `Host` headers and loopback browser `Origin`s accepted
/// (DNS-rebinding protection), and the limits below. Serving beyond loopback
/// requires a bearer token (or an explicit
/// [`HttpOptions::allow_remote_without_token`]).
///
/// ```
/// let options = purview::HttpOptions::default()
///     .addr("127.0.0.1:8765".parse().unwrap())
///     .bearer_token("s3cret")
///     .max_sessions(16);
/// # let _ = options;
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct HttpOptions {
    addr: SocketAddr,
    path: String,
    bearer_token: Option<Secret<String>>,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    remote_without_token: bool,
    header_timeout: Duration,
    body_timeout: Duration,
    max_body_bytes: usize,
    max_connections: usize,
    max_sessions: usize,
    max_streams_per_session: usize,
    session_idle: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            path: "/mcp".into(),
            bearer_token: None,
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: vec![
                "http://localhost:*".into(),
                "http://127.0.0.1:*".into(),
                "http://[::1]:*".into(),
            ],
            remote_without_token: false,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_body_bytes: 4 * 1024 * 1024,
            max_connections: 256,
            max_sessions: 64,
            max_streams_per_session: 4,
            session_idle: Duration::from_secs(5 * 60),
        }
    }
}

impl HttpOptions {
    /// The address to bind. Binding beyond loopback also needs a bearer
    /// token and [`HttpOptions::allow_host`] for the names clients will use.
    pub fn addr(mut self, addr: SocketAddr) -> Self {
        self.addr = addr;
        self
    }

    /// The URL path of the MCP endpoint (default `/mcp`); must start with `/`
    /// and name a sub-path.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(Secret::new(token.into()));
        self
    }

    /// Accepts one more `Host` header value (a hostname or IP, without port).
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Accepts one more browser `Origin` (`scheme://host[:port|:*]`).
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Serves beyond loopback without a bearer token. Only for a server
    /// behind an authenticating proxy: otherwise anyone who can reach the
    /// port controls the application.
    pub fn allow_remote_without_token(mut self) -> Self {
        self.remote_without_token = true;
        self
    }

    /// How long a client may take to send a request's headers (10 s);
    /// slower connections are closed.
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// How long a request body may go without progress (30 s).
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// The largest request body accepted (4 MiB); larger ones get 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Connections open at once (256); more are closed on arrival.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n;
        self
    }

    /// MCP sessions at once (64); a new one beyond it is refused.
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.max_sessions = n;
        self
    }

    /// Server-to-client GET streams one session may hold open (4).
    pub fn max_streams_per_session(mut self, n: usize) -> Self {
        self.max_streams_per_session = n;
        self
    }

    /// How long a session may stay idle before it is closed (5 minutes).
    pub fn session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    fn check(&self) -> Result<(), Error> {
        if !self.path.starts_with('/') || self.path.len() < 2 || self.path.ends_with('/') {
            return Err(Error::Serve(format!(
                "the MCP path must start with `/` and name a sub-path, such as `/mcp` (got `{}`)",
                self.path
            )));
        }
        if !self.addr.ip().is_loopback()
            && self.bearer_token.is_none()
            && !self.remote_without_token
        {
            return Err(Error::Serve(format!(
                "refusing to serve {} without a bearer token: anyone who can reach that address would control the application. Give a token (--token), bind 127.0.0.1, or, behind an authenticating proxy, allow it explicitly (--allow-remote-without-token)",
                self.addr
            )));
        }
        Ok(())
    }

    fn guard(&self) -> Guard {
        Guard {
            hosts: self.allowed_hosts.clone(),
            origins: self.allowed_origins.clone(),
            authorization: self.bearer_token.as_ref().map(|t| format!("Bearer {}", t.expose())),
        }
    }
}

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
    /// let server = app.serve_http(purview::HttpOptions::default()).await?;
    /// eprintln!("MCP endpoint: {}", server.url());
    /// server.wait().await;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Serve`] for a malformed path, an address beyond loopback
    /// without a token, or a port that cannot be bound.
    pub async fn serve_http(&self, options: HttpOptions) -> Result<HttpServer, Error> {
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
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(options.session_idle);
        let sessions =
            BoundedSessions::new(sessions, options.max_sessions, options.max_streams_per_session);
        let app = self.clone();
        let service =
            StreamableHttpService::new(move || Ok(app.mcp_server()), Arc::new(sessions), config);
        let guard = Arc::new(options.guard());
        let router = axum::Router::new()
            .nest_service(&options.path, service)
            .layer(middleware::from_fn(answer_malformed))
            .layer(RequestBodyLimitLayer::new(options.max_body_bytes))
            .layer(RequestBodyTimeoutLayer::new(options.body_timeout))
            .layer(middleware::from_fn(move |request: Request, next: Next| {
                let guard = guard.clone();
                async move { check_headers(&guard, request, next).await }
            }));
        let stopped = CancellationToken::new();
        let task = tokio::spawn(accept(
            listener,
            router,
            Limits { connections: options.max_connections, header_timeout: options.header_timeout },
            cancel.clone(),
            stopped.clone(),
        ));
        tracing::info!(url = %format!("http://{local_addr}{}", options.path), "serving MCP over streamable HTTP");
        Ok(HttpServer { local_addr, path: options.path, cancel, stopped, task })
    }
}

/// Refuses a request whose headers fail the guard, before its body is read.
async fn check_headers(guard: &Guard, request: Request, next: Next) -> Response {
    match guard.check(request.headers()) {
        Ok(()) => next.run(request).await,
        Err((status, reason)) => {
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

/// Answers a POST body that is not one usable JSON-RPC message with the
/// JSON-RPC error it is owed (HTTP 400, never quoting the body), as the
/// stdio transport does; rmcp would answer 415 with serde's own words, or
/// -32601 for a known method with unusable params.
async fn answer_malformed(request: Request, next: Next) -> Response {
    if request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(e) => {
            let too_large =
                e.into_inner().downcast_ref::<http_body_util::LengthLimitError>().is_some();
            return if too_large {
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "the request body is larger than this server accepts",
                )
                    .into_response()
            } else {
                (StatusCode::REQUEST_TIMEOUT, "the request body did not arrive in time")
                    .into_response()
            };
        }
    };
    match lines::decode(&bytes, true) {
        Frame::Message(_) => {
            next.run(Request::from_parts(parts, axum::body::Body::from(bytes))).await
        }
        Frame::Reply(reply) => {
            tracing::info!("answered a request body that is not a valid message");
            let body = serde_json::to_vec(&reply).unwrap_or_default();
            let json = [(axum::http::header::CONTENT_TYPE, "application/json")];
            (StatusCode::BAD_REQUEST, json, body).into_response()
        }
        Frame::Ignore(_) => {
            (StatusCode::BAD_REQUEST, "the request body must be one JSON-RPC message")
                .into_response()
        }
    }
}

struct Limits {
    connections: usize,
    header_timeout: Duration,
}

/// Accepts connections until cancelled, at most `limits.connections` at
/// once, each served by hyper with a header-read timeout.
async fn accept(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: Limits,
    cancel: CancellationToken,
    stopped: CancellationToken,
) {
    let slots = Arc::new(Semaphore::new(limits.connections));
    let connections = tokio_util::task::TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            () = cancel.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors, for example: wait, then go on.
                tracing::warn!(error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::warn!(limit = limits.connections, "too many connections; closing a new one");
            continue;
        };
        let service = TowerToHyperService::new(router.clone());
        let cancel = cancel.clone();
        let header_timeout = limits.header_timeout;
        connections.spawn(async move {
            let _slot = slot;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(TokioTimer::new()).header_read_timeout(header_timeout);
            let connection =
                builder.serve_connection(TokioIo::new(stream), service).with_upgrades();
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                () = cancel.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(5), connection).await;
                }
            }
        });
    }
    connections.close();
    let _ = tokio::time::timeout(Duration::from_secs(10), connections.wait()).await;
    stopped.cancel();
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
