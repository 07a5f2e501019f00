//! Streamable HTTP: many sessions at once, one application state.

use std::{net::SocketAddr, sync::Arc};

use axum::{
    body::Body,
    extract::Request,
    http::{StatusCode, header},
    middleware::{self, Next},
    response::Response,
};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio_util::sync::CancellationToken;

use crate::{App, Error, Secret};

/// How to serve streamable HTTP.
///
/// Defaults: `127.0.0.1:0` (a free port on loopback), path `/mcp`, no token,
/// only loopback `Host` headers and loopback browser `Origin`s accepted
/// (DNS-rebinding protection).
///
/// ```
/// let options = purview::HttpOptions::default()
///     .addr("127.0.0.1:8765".parse().unwrap())
///     .bearer_token("s3cret");
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
        }
    }
}

impl HttpOptions {
    /// The address to bind. Binding beyond loopback also needs
    /// [`HttpOptions::allow_host`] for the names clients will use.
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

    /// Accepts one more `Host` header value (a hostname or `host:port`).
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Accepts one more browser `Origin` (`scheme://host[:port|:*]`).
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
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
    pub async fn serve_http(&self, options: HttpOptions) -> Result<HttpServer, Error> {
        if !options.path.starts_with('/') || options.path.len() < 2 || options.path.ends_with('/') {
            return Err(Error::Serve(format!(
                "the MCP path must start with `/` and name a sub-path, such as `/mcp` (got `{}`)",
                options.path
            )));
        }
        let listener = tokio::net::TcpListener::bind(options.addr)
            .await
            .map_err(|e| Error::Serve(format!("cannot bind {}: {e}", options.addr)))?;
        let local_addr = listener.local_addr().map_err(|e| Error::Serve(e.to_string()))?;
        let cancel = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(options.allowed_hosts.clone())
            .with_allowed_origins(options.allowed_origins.clone())
            .enforce_origin_validation()
            .with_cancellation_token(cancel.child_token());
        let app = self.clone();
        let service = StreamableHttpService::new(
            move || Ok(app.mcp_server()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let mut router = axum::Router::new().nest_service(&options.path, service);
        if let Some(token) = options.bearer_token.clone() {
            let expected = Arc::new(format!("Bearer {}", token.expose()));
            router = router.layer(middleware::from_fn(move |request: Request, next: Next| {
                let expected = expected.clone();
                async move { check_bearer(&expected, request, next).await }
            }));
        }
        let shutdown = cancel.clone();
        let stopped = CancellationToken::new();
        let done = stopped.clone();
        let task = tokio::spawn(async move {
            let served = axum::serve(listener, router)
                .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
                .await;
            if let Err(e) = served {
                tracing::error!(error = %e, "HTTP server stopped");
            }
            done.cancel();
        });
        tracing::info!(url = %format!("http://{local_addr}{}", options.path), "serving MCP over streamable HTTP");
        Ok(HttpServer { local_addr, path: options.path, cancel, stopped, task })
    }
}

async fn check_bearer(expected: &str, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if constant_time_eq(given.as_bytes(), expected.as_bytes()) {
        return next.run(request).await;
    }
    let mut response = Response::new(Body::from("missing or wrong bearer token"));
    *response.status_mut() = StatusCode::UNAUTHORIZED;
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
    response
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
