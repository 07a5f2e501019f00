//! Where the server under test runs and how the explorer talks to it: an
//! ordinary MCP client session (2025-11-25, the generation every GUI Bridge
//! server speaks), with its response cache off so every list and read
//! reaches the server, and a recorder that re-reads right after each
//! notification, as §8.3 tells an agent to.

use std::{
    ffi::OsString,
    fmt,
    sync::{Arc, Mutex},
    time::Duration,
};

use purview::App;
use rmcp::{
    ClientHandler, RoleClient, ServiceExt,
    model::{
        CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation,
        ReadResourceRequestParams, ResourceUpdatedNotificationParam, ServerPeerInfo,
        SubscribeRequestParams, Tool,
    },
    service::{NotificationContext, Peer, RunningService},
};
use serde_json::{Map, Value};
use tokio::sync::{Notify, mpsc};

/// The URI of the protocol's single resource (§4.1).
pub const WINDOWS_URI: &str = "app://windows";

/// The MCP Apps extension's identifier, as capabilities name it.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP Apps view's document.
pub(crate) const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// A GUI Bridge server to explore: an in-process Purview [`App`], a program
/// speaking MCP on stdio, or a streamable HTTP endpoint.
///
/// ```
/// use purview_conformance::Endpoint;
///
/// let stdio = Endpoint::stdio("python3", ["server.py"]);
/// let http = Endpoint::http("http://127.0.0.1:8080/mcp").bearer("s3cret");
/// assert!(stdio.to_string().contains("server.py"));
/// assert!(http.to_string().starts_with("http://"));
/// ```
#[derive(Clone)]
pub struct Endpoint {
    kind: Kind,
}

#[derive(Clone)]
enum Kind {
    InProcess(Arc<dyn Fn() -> App + Send + Sync>),
    Stdio { program: OsString, args: Vec<OsString>, server_stderr: bool },
    Http { url: String, bearer: Option<String>, headers: Vec<(String, String)> },
}

impl Endpoint {
    /// A Purview app built by `make`, served in-process over an in-memory
    /// MCP connection. `make` runs again for every replay while shrinking,
    /// so it must build the app in its initial state.
    pub fn in_process(make: impl Fn() -> App + Send + Sync + 'static) -> Self {
        Self { kind: Kind::InProcess(Arc::new(make)) }
    }

    /// A program that serves MCP on its stdin/stdout. It is started afresh
    /// for every replay while shrinking; its stderr is discarded unless
    /// [`Endpoint::show_server_stderr`] is set.
    pub fn stdio<I, S>(program: impl Into<OsString>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Self {
            kind: Kind::Stdio {
                program: program.into(),
                args: args.into_iter().map(Into::into).collect(),
                server_stderr: false,
            },
        }
    }

    /// A streamable HTTP endpoint, such as `http://127.0.0.1:8080/mcp`. The
    /// server keeps running between replays, so a failure found over HTTP
    /// is reported with the whole walk instead of a shrunk one. Reaching it
    /// needs the `http` feature (on by default); without it the walk stops
    /// at once, saying so.
    pub fn http(url: impl Into<String>) -> Self {
        Self { kind: Kind::Http { url: url.into(), bearer: None, headers: Vec::new() } }
    }

    /// Sends `Authorization: Bearer TOKEN` with every HTTP request.
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        if let Kind::Http { bearer, .. } = &mut self.kind {
            *bearer = Some(token.into());
        }
        self
    }

    /// Sends an extra header with every HTTP request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Kind::Http { headers, .. } = &mut self.kind {
            headers.push((name.into(), value.into()));
        }
        self
    }

    /// Lets a stdio server's stderr through to this process's stderr.
    pub fn show_server_stderr(mut self, show: bool) -> Self {
        if let Kind::Stdio { server_stderr, .. } = &mut self.kind {
            *server_stderr = show;
        }
        self
    }

    /// Whether [`Endpoint::start`] gives a server in its initial state, so a
    /// recorded walk can be replayed (and shrunk).
    pub(crate) fn restartable(&self) -> bool {
        !matches!(self.kind, Kind::Http { .. })
    }

    /// Whether the transport is in-process (timings are tighter there).
    pub(crate) fn in_memory(&self) -> bool {
        matches!(self.kind, Kind::InProcess(_))
    }

    pub(crate) fn start(&self) -> Server {
        let kind = match &self.kind {
            Kind::InProcess(make) => ServerKind::InProcess(make()),
            Kind::Stdio { program, args, server_stderr } => ServerKind::Stdio {
                program: program.clone(),
                args: args.clone(),
                server_stderr: *server_stderr,
                started: false,
            },
            Kind::Http { url, bearer, headers } => ServerKind::Http {
                url: url.clone(),
                bearer: bearer.clone(),
                headers: headers.clone(),
            },
        };
        Server { kind }
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::InProcess(_) => f.write_str("in-process app"),
            Kind::Stdio { program, args, .. } => {
                write!(f, "stdio: {}", program.to_string_lossy())?;
                for arg in args {
                    write!(f, " {}", arg.to_string_lossy())?;
                }
                Ok(())
            }
            Kind::Http { url, .. } => f.write_str(url),
        }
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Endpoint({self})")
    }
}

/// One running server, which hands out sessions.
pub(crate) struct Server {
    kind: ServerKind,
}

enum ServerKind {
    InProcess(App),
    Stdio {
        program: OsString,
        args: Vec<OsString>,
        server_stderr: bool,
        started: bool,
    },
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Http {
        url: String,
        bearer: Option<String>,
        headers: Vec<(String, String)>,
    },
}

impl Server {
    /// Whether a second session can reach the same application (stdio has
    /// exactly one connection per process).
    pub fn many_sessions(&self) -> bool {
        !matches!(self.kind, ServerKind::Stdio { .. })
    }

    /// Opens a session. A `reactive` session re-reads app://windows (and
    /// tools/list) the moment a notification arrives, and records what it saw.
    /// `approve` answers every approval question (an elicitation form with
    /// an `approve` field): yes, no, or — `None` — the client cannot ask.
    pub async fn session(
        &mut self,
        reactive: bool,
        approve: Option<bool>,
    ) -> Result<Session, String> {
        self.session_as(reactive, approve, false).await
    }

    /// A session whose client declares the MCP Apps extension when `ui`
    /// (as a host that renders views does), for the extension's checks.
    pub async fn session_as(
        &mut self,
        reactive: bool,
        approve: Option<bool>,
        ui: bool,
    ) -> Result<Session, String> {
        let (tx, rx) = mpsc::unbounded_channel();
        let listener = Listener { tx, approve, ui };
        let client = match &mut self.kind {
            ServerKind::InProcess(app) => {
                let (server_side, client_side) = tokio::io::duplex(1 << 22);
                let server = app.mcp_server();
                tokio::spawn(async move {
                    if let Ok(running) = server.serve(server_side).await {
                        let _ = running.waiting().await;
                    }
                });
                listener.serve(client_side).await.map_err(|e| format!("initialize failed: {e}"))?
            }
            ServerKind::Stdio { program, args, server_stderr, started } => {
                if *started {
                    return Err("a stdio server has only one connection".into());
                }
                *started = true;
                let mut command = tokio::process::Command::new(program.clone());
                command.args(args.iter());
                let stderr = if *server_stderr {
                    std::process::Stdio::inherit()
                } else {
                    std::process::Stdio::null()
                };
                let (transport, _) = rmcp::transport::TokioChildProcess::builder(command)
                    .stderr(stderr)
                    .spawn()
                    .map_err(|e| format!("could not start {}: {e}", program.to_string_lossy()))?;
                listener.serve(transport).await.map_err(|e| format!("initialize failed: {e}"))?
            }
            #[cfg(not(feature = "http"))]
            ServerKind::Http { url, .. } => {
                return Err(format!(
                    "cannot reach {url}: this purview-conformance was built without its `http` feature (reinstall it without --no-default-features)"
                ));
            }
            #[cfg(feature = "http")]
            ServerKind::Http { url, bearer, headers } => {
                use rmcp::transport::{
                    StreamableHttpClientTransport,
                    streamable_http_client::StreamableHttpClientTransportConfig,
                };
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.clone());
                if let Some(token) = bearer {
                    config = config.auth_header(token.clone());
                }
                let mut custom = std::collections::HashMap::new();
                for (name, value) in headers.iter() {
                    let name = http::HeaderName::try_from(name.as_str())
                        .map_err(|e| format!("bad header name {name:?}: {e}"))?;
                    let value = http::HeaderValue::try_from(value.as_str())
                        .map_err(|e| format!("bad header value for {name}: {e}"))?;
                    custom.insert(name, value);
                }
                config.custom_headers = custom;
                let transport = StreamableHttpClientTransport::from_config(config);
                listener.serve(transport).await.map_err(|e| format!("initialize failed: {e}"))?
            }
        };
        client.set_response_cache_config(rmcp::ClientCacheConfig::disabled()).await;
        Ok(Session::new(client, rx, reactive))
    }
}

/// A notification as the explorer records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Note {
    /// notifications/tools/list_changed
    ToolsChanged,
    /// notifications/resources/updated for app://windows
    WindowsUpdated,
}

/// A notification and what an immediate re-read showed.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub note: Note,
    /// For [`Note::WindowsUpdated`]: the app://windows text read right after.
    pub read: Option<String>,
    /// For [`Note::ToolsChanged`]: the tool names listed right after, sorted.
    pub tools: Option<Vec<String>>,
}

#[derive(Clone)]
struct Listener {
    tx: mpsc::UnboundedSender<Note>,
    /// How to answer approval questions, if the walk was told to.
    approve: Option<bool>,
    /// Whether the client declares the MCP Apps extension.
    ui: bool,
}

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.approve.is_some() {
            let mut elicitation = rmcp::model::ElicitationCapability::default();
            elicitation.form = Some(rmcp::model::FormElicitationCapability::default());
            capabilities.elicitation = Some(elicitation);
        }
        if self.ui {
            let mut extensions = rmcp::model::ExtensionCapabilities::new();
            let mut settings = serde_json::Map::new();
            settings.insert("mimeTypes".into(), serde_json::json!([MIME_TYPE]));
            extensions.insert(EXTENSION.into(), settings);
            capabilities.extensions = Some(extensions);
        }
        ClientConfig::new(
            capabilities,
            Implementation::new("purview-conformance", env!("CARGO_PKG_VERSION")),
        )
    }

    /// Answers an approval question as told: a form whose `approve` field
    /// is set to the answer (the person said yes or no), or declined.
    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        use rmcp::model::{ElicitResult, ElicitationAction};
        Ok(match self.approve {
            Some(approve) => ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::json!({ "approve": approve })),
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.tx.send(Note::ToolsChanged);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if params.uri == WINDOWS_URI {
            let _ = self.tx.send(Note::WindowsUpdated);
        }
    }
}

/// The answer to one tools/call.
#[derive(Debug, Clone)]
pub(crate) enum CallOutcome {
    /// A CallToolResult.
    Result {
        is_error: bool,
        structured: Option<Value>,
        /// The text items of `content`, joined.
        text: String,
        /// Whether `content` holds at least one text item.
        has_text: bool,
    },
    /// A JSON-RPC error instead of a result.
    Rpc { code: i32, message: String, data: Option<Value> },
    /// The connection failed or the call did not come back in time.
    Broken(String),
}

impl CallOutcome {
    /// Every byte of the answer that an agent would see, for the secret search.
    pub fn visible_text(&self) -> String {
        match self {
            Self::Result { structured, text, .. } => {
                format!("{}\n{text}", structured.as_ref().map(Value::to_string).unwrap_or_default())
            }
            Self::Rpc { message, data, .. } => {
                format!("{message}\n{}", data.as_ref().map(Value::to_string).unwrap_or_default())
            }
            Self::Broken(reason) => reason.clone(),
        }
    }

    /// Whether the call was rejected in any way.
    pub fn rejected(&self) -> bool {
        !matches!(self, Self::Result { is_error: false, .. })
    }
}

/// The text of one resources/read of app://windows, and how it was wrapped.
#[derive(Debug, Clone)]
pub(crate) struct Read {
    /// The contents as JSON (for the §12.2 wrapping check).
    pub contents: Value,
    /// The single text item, if there is exactly one.
    pub text: Option<String>,
}

/// One MCP client session with the server under test.
pub(crate) struct Session {
    client: RunningService<RoleClient, Listener>,
    events: Arc<Mutex<Vec<Event>>>,
    arrived: Arc<Notify>,
    _reactor: AbortOnDrop,
}

/// Stops the notification recorder with its session.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Session {
    fn new(
        client: RunningService<RoleClient, Listener>,
        mut notes: mpsc::UnboundedReceiver<Note>,
        reactive: bool,
    ) -> Self {
        let events: Arc<Mutex<Vec<Event>>> = Arc::default();
        let arrived = Arc::new(Notify::new());
        let peer: Peer<RoleClient> = client.peer().clone();
        let reactor = {
            let (events, arrived) = (events.clone(), arrived.clone());
            tokio::spawn(async move {
                while let Some(note) = notes.recv().await {
                    let mut event = Event { note: note.clone(), read: None, tools: None };
                    if reactive {
                        match note {
                            Note::WindowsUpdated => event.read = read_text(&peer).await,
                            Note::ToolsChanged => {
                                event.tools = peer.list_all_tools().await.ok().map(|tools| {
                                    let mut names: Vec<String> =
                                        tools.into_iter().map(|t| t.name.to_string()).collect();
                                    names.sort();
                                    names
                                });
                            }
                        }
                    }
                    events.lock().expect("events lock").push(event);
                    arrived.notify_waiters();
                }
            })
        };
        Self { client, events, arrived, _reactor: AbortOnDrop(reactor) }
    }

    /// What the server said in `initialize`.
    pub fn info(&self) -> Option<Arc<ServerPeerInfo>> {
        self.client.peer_info()
    }

    /// resources/list, as JSON.
    pub async fn resources(&self) -> Result<Value, String> {
        let list = self.client.list_all_resources().await.map_err(|e| e.to_string())?;
        serde_json::to_value(list).map_err(|e| e.to_string())
    }

    /// resources/subscribe to app://windows.
    #[allow(deprecated)]
    pub async fn subscribe(&self) -> Result<(), String> {
        self.client
            .subscribe(SubscribeRequestParams::new(WINDOWS_URI))
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// resources/read of app://windows.
    pub async fn read(&self) -> Result<Read, String> {
        let result = self
            .client
            .read_resource(ReadResourceRequestParams::new(WINDOWS_URI))
            .await
            .map_err(|e| e.to_string())?;
        let contents = serde_json::to_value(&result.contents).map_err(|e| e.to_string())?;
        let text = match result.contents.as_slice() {
            [rmcp::model::ResourceContents::TextResourceContents { text, .. }] => {
                Some(text.clone())
            }
            _ => None,
        };
        Ok(Read { contents, text })
    }

    /// resources/read of any URI: its contents as JSON.
    pub async fn read_uri(&self, uri: &str) -> Result<Value, String> {
        let result = self
            .client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .map_err(|e| e.to_string())?;
        serde_json::to_value(&result.contents).map_err(|e| e.to_string())
    }

    /// tools/list (every page).
    pub async fn tools(&self) -> Result<Vec<Tool>, String> {
        self.client.list_all_tools().await.map_err(|e| e.to_string())
    }

    /// tools/call, waiting at most `timeout`.
    pub async fn call(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        timeout: Duration,
    ) -> CallOutcome {
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments.clone());
        let answer = tokio::time::timeout(timeout, self.client.call_tool(params)).await;
        match answer {
            Err(_) => CallOutcome::Broken(format!("no answer within {} s", timeout.as_secs())),
            Ok(Err(rmcp::ServiceError::McpError(error))) => CallOutcome::Rpc {
                code: error.code.0,
                message: error.message.to_string(),
                data: error.data,
            },
            Ok(Err(error)) => CallOutcome::Broken(error.to_string()),
            Ok(Ok(result)) => {
                let texts: Vec<String> = result
                    .content
                    .iter()
                    .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                    .collect();
                CallOutcome::Result {
                    is_error: result.is_error == Some(true),
                    structured: result.structured_content,
                    has_text: !texts.is_empty(),
                    text: texts.join("\n"),
                }
            }
        }
    }

    /// How many notifications have been recorded so far.
    pub fn event_count(&self) -> usize {
        self.events.lock().expect("events lock").len()
    }

    /// The notifications recorded from index `from` on.
    pub fn events_since(&self, from: usize) -> Vec<Event> {
        self.events
            .lock()
            .expect("events lock")
            .get(from..)
            .map(<[Event]>::to_vec)
            .unwrap_or_default()
    }

    /// Waits until the notifications recorded since `from` include every
    /// one in `wanted`, or `deadline` passes. Returns what arrived.
    pub async fn wait_for(
        &self,
        from: usize,
        wanted: &[Note],
        deadline: tokio::time::Instant,
    ) -> Vec<Event> {
        loop {
            let notified = self.arrived.notified();
            let events = self.events_since(from);
            if wanted.iter().all(|w| events.iter().any(|e| &e.note == w)) {
                return events;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.events_since(from);
            }
        }
    }

    /// Ends the session.
    pub async fn close(self) {
        let _ = tokio::time::timeout(Duration::from_secs(5), self.client.cancel()).await;
    }
}

async fn read_text(peer: &Peer<RoleClient>) -> Option<String> {
    let result = peer.read_resource(ReadResourceRequestParams::new(WINDOWS_URI)).await.ok()?;
    match result.contents.as_slice() {
        [rmcp::model::ResourceContents::TextResourceContents { text, .. }] => Some(text.clone()),
        _ => None,
    }
}
