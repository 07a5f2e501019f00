//! The MCP face of an [`App`]: a thin rmcp `ServerHandler` over the
//! transport-free application in [`crate::app`], plus stdio and streamable
//! HTTP transports. Everything protocol-specific is decided in `app/`; this
//! module translates.

mod budget;
pub(crate) mod by_method;
mod cut;
#[cfg(feature = "http")]
mod fair;
pub(crate) mod frame;
#[cfg(feature = "http")]
pub(crate) mod guard;
mod handler;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
mod http_options;
#[cfg(feature = "http")]
mod http_sessions;
pub(crate) mod lines;
mod listen;
pub(crate) mod mcp_apps;
mod outbound;
mod owed;
#[cfg(feature = "http")]
mod paced;
mod quiet;
mod round_trip;
mod sessions;
#[cfg(feature = "http")]
mod turns;
mod wire;

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicBool, Ordering},
};

use rmcp::{
    ErrorData as McpError, Peer, RoleServer, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
        ProtocolVersion, ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
};

#[cfg(all(feature = "cli", feature = "http"))]
pub(crate) use guard::check_token;
#[cfg(feature = "http")]
pub use http::{HttpServer, charge_connection};
#[cfg(feature = "http")]
pub use http_options::HttpOptions;

use self::{
    listen::ListenBudget,
    mcp_apps::{Card, CardReply},
    sessions::LegacySession,
    wire::rmcp_tool,
};
use crate::{
    App, Error,
    app::{Answer, Caller, Settled, broadcast::Subscription, progress::ProgressFeed},
    lock::lock_unpoisoned,
    model::ToolOutcome,
    settings::ToolSurface,
    validate::echo,
};

/// How long a client may cache tools/list when it can change at any moment
/// (a modal opening): not at all. The dispatcher surface's list never
/// changes while the app runs.
const WINDOW_TOOLS_TTL_MS: u64 = 0;
const DISPATCHER_TTL_MS: u64 = 60 * 60 * 1000;

/// Numbers sessions, so a person asked to approve knows which one asks.
static SESSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// One connection's notification state.
#[derive(Default)]
struct Session {
    number: u64,
    subscribed: Arc<AtomicBool>,
    legacy: Mutex<Option<Subscription>>,
    listens: std::sync::atomic::AtomicUsize,
}

/// One connection's MCP server. Make one per connection with
/// [`App::mcp_server`]; all of them share the application.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use purview::rmcp::ServiceExt;
/// let app = purview::App::builder().build();
/// let (server_side, _client_side) = tokio::io::duplex(64 * 1024);
/// let running = app.mcp_server().serve(server_side).await?;
/// running.waiting().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpServer {
    app: App,
    session: Arc<Session>,
    /// Over HTTP every `subscriptions/listen` is its own request (and its
    /// own `McpServer`): the budget they share.
    listens: Option<Arc<ListenBudget>>,
    /// The card shown to MCP Apps hosts, if any.
    card: Option<Arc<Card>>,
    /// Over HTTP, the CPU's turns and the client this handler's requests
    /// are charged to (`turns.rs`).
    #[cfg(feature = "http")]
    turns: Option<(Arc<turns::Turns>, fair::Client)>,
    /// Over HTTP, the reads' shared bytes (`http/shared_reads.rs`), told
    /// which sessions read here.
    #[cfg(feature = "http")]
    shared: Option<Arc<http::shared_reads::SharedReads>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer").field("app", &self.app.name()).finish_non_exhaustive()
    }
}

/// Where a cancelled request may stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cancel {
    /// At any await: it changes nothing (a read).
    Anywhere,
    /// Only while it waits for its first turn: once begun, it may be
    /// changing the app, and runs to its end (a call).
    BeforeItStarts,
}

impl McpServer {
    /// Awaits `work` in this client's CPU turns over HTTP (each poll of it
    /// waits for one, `turns.rs`), stopped if the request is cancelled
    /// (by its client, or by rmcp when a stateless request's connection
    /// closes before its answer) where `at` lets it stop:
    /// no turn is spent on an answer no one waits for, and a call never
    /// stops half-applied. Elsewhere `work` is awaited as it is.
    async fn in_turns<T>(
        &self,
        #[cfg_attr(not(feature = "http"), allow(unused_variables))] (cancelled, at): (
            &tokio_util::sync::CancellationToken,
            Cancel,
        ),
        work: impl std::future::Future<Output = Result<T, McpError>>,
    ) -> Result<T, McpError> {
        #[cfg(feature = "http")]
        if let Some((turns, client)) = &self.turns {
            let started = std::sync::atomic::AtomicBool::new(false);
            let line = turns::InLine::new(turns.clone(), client.clone());
            let work = turns::InTurns::new(turns::marked(&started, cancelled, work), line);
            let stopped = || Err(wire::cancelled());
            return turns::unless_cancelled(work, &started, cancelled, at, stopped).await;
        }
        work.await
    }

    /// This handler with `card` shown to MCP Apps hosts (on any transport;
    /// over HTTP, [`HttpOptions::show_card`] gives it to every session).
    ///
    /// ```
    /// let app = purview::App::builder().build();
    /// let card = purview::http::mcp_apps::Card::new("ui://demo/windows", "<p>Windows</p>");
    /// let server = app.mcp_server().with_card(card);
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn with_card(mut self, card: Card) -> Self {
        self.card = Some(Arc::new(card));
        self
    }

    /// The card, if this request's client renders cards.
    fn card_for(&self, context: &RequestContext<RoleServer>) -> Option<&Card> {
        let card = self.card.as_deref()?;
        mcp_apps::renders_cards(context.client_capabilities().as_ref()).then_some(card)
    }

    /// What one of the card's own tools (one the app does not list itself)
    /// answers; `None` for any other tool, and for every tool when the
    /// client did not declare the extension (to it, the card's tools do not
    /// exist).
    async fn card_reply(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<CardReply> {
        let card = self.card_for(context)?;
        // The app's list is consulted only for a name the card has.
        let app_lists = |name: &str| {
            self.app.listed_tools().is_ok_and(|tools| tools.iter().any(|t| t.name == name))
        };
        let tool = card.tool(&request.name, app_lists)?;
        let caller = client_of(context, self.session.number);
        Some(Card::run(tool, request.arguments.clone().unwrap_or_default(), caller).await)
    }

    /// Registers this session for notifications once (legacy sessions: every
    /// session hears tools/list_changed; resources/updated after subscribe).
    /// Fails (with the reason) when the app already notifies as many
    /// sessions as its limit allows.
    fn register(&self, peer: Peer<RoleServer>) -> Result<(), String> {
        let mut legacy = lock_unpoisoned(&self.session.legacy);
        if legacy.is_none() {
            let session = LegacySession { peer, subscribed: self.session.subscribed.clone() };
            match self.app.subscribe(session) {
                Ok(subscription) => {
                    tracing::info!(session = subscription.id(), "session initialized");
                    *legacy = Some(subscription);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "a session will not receive notifications");
                    return Err(e.to_string());
                }
            }
        }
        Ok(())
    }

    /// A `tools/call`, answered by the application.
    async fn answer_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // Progress only for a client that asked, with a token.
        let token = context.meta.get_progress_token();
        let progress = token.as_ref().map(|_| ProgressFeed::new());
        let resume = round_trip::resume_of(&self.app, &request);
        // A client that cancels the request gets nothing applied. Over HTTP,
        // a call whose connection has closed has no one to answer to: it is
        // cancelled too, so an approval question it waits on is withdrawn
        // instead of staying until the approval timeout.
        let gone = connection_gone(&context);
        let cancel = match gone {
            Some(_) => context.ct.child_token(),
            None => context.ct.clone(),
        };
        let _watch = gone.map(|gone| {
            let (cancel, done) = (cancel.clone(), tokio_util::sync::CancellationToken::new());
            let watching = done.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = gone.cancelled() => cancel.cancel(),
                    () = watching.cancelled() => {}
                }
            });
            done.drop_guard()
        });
        let session = Arc::new(sessions::PeerSession { number: self.session.number, context });
        let caller =
            Caller::Agent { session: Some(session.clone()), progress: progress.clone(), resume };
        let call = self
            .app
            .call(&request.name, request.arguments.clone())
            .made_by(caller)
            .cancel_on(cancel)
            .answer();
        let answer = match (token, progress) {
            // Rare, and its future is large: it waits behind a pointer.
            (Some(token), Some(feed)) => {
                let peer = &session.context.peer;
                Box::pin(sessions::with_progress(peer, token, &feed, call)).await
            }
            _ => call.await,
        };
        let settled = match answer {
            Answer::Settled(settled) => settled,
            Answer::Ask(question) => {
                return Ok(round_trip::ask(&self.app, &request, &question).into());
            }
        };
        if let Settled::Refused(err) = &settled {
            // Debug-quoting keeps a newline or escape in a client's tool
            // name from forging log lines.
            let client = client_of(&session.context, session.number);
            tracing::info!(tool = ?echo(&request.name), code = %err.code, %client, "call rejected");
        }
        let ToolOutcome { is_error, structured } = settled.wire();
        let result = if is_error {
            CallToolResult::structured_error(structured)
        } else {
            CallToolResult::structured(structured)
        };
        Ok(result.into())
    }
}

impl App {
    /// A new MCP server handler for one connection (any rmcp transport).
    pub fn mcp_server(&self) -> McpServer {
        let number = SESSIONS.fetch_add(1, Ordering::Relaxed);
        McpServer {
            app: self.clone(),
            session: Arc::new(Session { number, ..Session::default() }),
            listens: None,
            card: None,
            #[cfg(feature = "http")]
            turns: None,
            #[cfg(feature = "http")]
            shared: None,
        }
    }

    /// A handler for one HTTP request or session, whose listen streams
    /// draw on the server's shared budget.
    #[cfg(feature = "http")]
    pub(crate) fn mcp_server_over_http(
        &self,
        listens: Arc<ListenBudget>,
        card: Option<Arc<Card>>,
        turns: Option<Arc<turns::Turns>>,
        shared: Arc<http::shared_reads::SharedReads>,
    ) -> McpServer {
        // Made for the request that opens the session (or, stateless, is
        // the whole exchange), so charged to the client it proves.
        let turns = turns.map(|turns| (turns, http_sessions::requesting_client()));
        let shared = Some(shared);
        McpServer { listens: Some(listens), card, turns, shared, ..self.mcp_server() }
    }

    /// Serves MCP on stdin/stdout until the client disconnects (a client
    /// that closes stdin before initializing counts as disconnecting, not as
    /// an error). Nothing else may write to stdout meanwhile; log through
    /// `tracing` to stderr.
    ///
    /// When stdin and stdout are pipes (as MCP hosts start servers), they
    /// are read and written on the runtime's IO driver; otherwise (a
    /// terminal, a file) through tokio's blocking stdio handles.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime with IO and time enabled (`#[tokio::main]`
    /// enables both).
    pub async fn serve_stdio(&self) -> Result<(), Error> {
        // tokio's own stdin and stdout hand every read and every write to a
        // blocking-pool thread and back; on pipes that was most of what a
        // request cost. rmcp's `stdio_pipes` reopens the pipes non-blocking
        // on their own file descriptions, so the process's fds 0 and 1 (and
        // any child that inherits them) keep their flags.
        let (reader, writer) = rmcp::transport::stdio_pipes();
        self.serve_io(reader, writer).await
    }

    /// Serves MCP over any byte stream framed like stdio (one JSON-RPC
    /// message per line) until the client disconnects: a pipe, a socket, an
    /// in-memory duplex in a test. Malformed frames are answered, never
    /// echoed; a client that stops reading its replies is disconnected, and
    /// this returns [`Error::Serve`] saying so.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// let app = purview::App::builder().build();
    /// let (server, client) = tokio::io::duplex(64 * 1024);
    /// let (server_read, server_write) = tokio::io::split(server);
    /// let serving = tokio::spawn(async move { app.serve_io(server_read, server_write).await });
    /// let (client_read, mut client_write) = tokio::io::split(client);
    /// client_write.write_all(b"{not json\n").await.unwrap();
    /// let mut answer = String::new();
    /// BufReader::new(client_read).read_line(&mut answer).await.unwrap();
    /// assert!(answer.contains("-32700"));
    /// drop(client_write);
    /// serving.await.unwrap().unwrap();
    /// # });
    /// ```
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    pub async fn serve_io<R, W>(&self, reader: R, writer: W) -> Result<(), Error>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        self.warn_if_misconfigured();
        let transport = lines::LineTransport::new(reader, writer);
        let flushed = transport.flushed();
        let stalled = transport.stalled();
        let outcome = match self.mcp_server().serve(transport).await {
            Ok(running) => match running.waiting().await {
                Ok(_) => Ok(()),
                Err(e) => Err(Error::Serve(format!("the session task failed: {e}"))),
            },
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
                tracing::info!("the client closed the connection before initializing");
                Ok(())
            }
            Err(e) => Err(Error::Serve(describe_init_error(&e))),
        };
        // Answers already queued go out before the caller (often `main`)
        // returns and the runtime stops.
        let _ = tokio::time::timeout(lines::STALL_LIMIT, flushed.cancelled()).await;
        if stalled.load(Ordering::Acquire) {
            return Err(Error::Serve(format!(
                "the client did not read its replies for {:?}, so it was disconnected",
                lines::STALL_LIMIT
            )));
        }
        outcome
    }

    /// The answer to tools/list for a client shown `card` (the card's own
    /// tools listed, the tools it is shown with marked), or for one that
    /// renders no card.
    fn tools_reply_for(&self, card: Option<&Card>) -> Result<ListToolsResult, Error> {
        let mut reply = self.tools_reply()?;
        if let Some(card) = card {
            reply.tools = card.list(std::mem::take(&mut reply.tools));
        }
        Ok(reply)
    }

    /// The answer to tools/list, as every session gets it.
    fn tools_reply(&self) -> Result<ListToolsResult, Error> {
        let tools = self.listed_tools()?;
        let ttl = match self.tool_surface() {
            ToolSurface::Dispatcher => DISPATCHER_TTL_MS,
            _ => WINDOW_TOOLS_TTL_MS,
        };
        Ok(ListToolsResult::with_all_items(tools.iter().map(rmcp_tool).collect()).with_ttl_ms(ttl))
    }

    /// The answer to tools/list as a session's handler makes it: for
    /// measuring what one list costs. Not part of the API.
    #[cfg(feature = "test-support")]
    #[doc(hidden)]
    pub fn tools_list_reply(&self) -> Result<ListToolsResult, Error> {
        self.tools_reply()
    }

    fn server_config(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_subscribe()
            .build();
        let instructions = crate::instructions::with_notes(self.tool_surface(), self.notes());
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(
                self.name().to_owned(),
                self.version().to_owned(),
            ))
            .with_instructions(instructions)
    }
}

/// What went wrong in the handshake, without repeating anything the client
/// sent (rmcp's own messages quote whole frames).
fn describe_init_error(error: &rmcp::service::ServerInitializeError) -> String {
    use rmcp::service::ServerInitializeError as E;
    match error {
        E::ExpectedInitializeRequest(_) => "the client did not start with `initialize`, so it is not an MCP client: connect an MCP host or client instead".into(),
        E::ConnectionClosed(_) => "the client closed the connection during the handshake".into(),
        E::UnexpectedInitializeResponse(_) => "the handshake produced an unexpected result".into(),
        E::InitializeFailed(e) => format!("the handshake failed ({})", e.code.0),
        E::Cancelled => "the handshake was cancelled".into(),
        _ => "the transport failed during the handshake".into(),
    }
}

/// The HTTP connection a request came on; `None` on other transports.
#[cfg(feature = "http")]
pub(super) fn connection_of(context: &RequestContext<RoleServer>) -> Option<&fair::ConnectionMark> {
    let parts = context.extensions.get::<axum::http::request::Parts>()?;
    parts.extensions.get::<fair::ConnectionMark>()
}

/// Over HTTP, the client a request's own credential proves (the named
/// client whose token it carried, else its address); `None` on other
/// transports.
#[cfg(feature = "http")]
pub(super) fn credential_of(context: &RequestContext<RoleServer>) -> Option<fair::Client> {
    let parts = context.extensions.get::<axum::http::request::Parts>()?;
    let proven = parts.extensions.get::<http_sessions::Credential>().map(|c| c.0.clone());
    proven.or_else(|| parts.extensions.get::<fair::ConnectionMark>().map(|mark| mark.client()))
}

/// Which client a request came from: over HTTP, the client its own
/// credential proves (the named client whose token it carried, else its
/// address), whatever session it names or its connection carried before;
/// on any other transport, the connection numbered `number`.
pub(super) fn client_of(context: &RequestContext<RoleServer>, number: u64) -> crate::app::ClientId {
    #[cfg(feature = "http")]
    if let Some(client) = credential_of(context) {
        return client.id();
    }
    let _ = context;
    crate::app::ClientId::connection(number)
}

/// The token cancelled when the HTTP connection a request came on closes;
/// `None` on other transports.
#[cfg(feature = "http")]
fn connection_gone(
    context: &RequestContext<RoleServer>,
) -> Option<tokio_util::sync::CancellationToken> {
    connection_of(context).map(|mark| mark.gone.clone())
}

#[cfg(not(feature = "http"))]
fn connection_gone(_: &RequestContext<RoleServer>) -> Option<tokio_util::sync::CancellationToken> {
    None
}

/// Whether a request's client is asked to approve by a question it answers
/// on retry: 2026-07-28 or later, which allows no server-to-client request,
/// from a client that can put a form to its user.
pub(super) fn asks_on_retry(context: &RequestContext<RoleServer>) -> bool {
    let new = context.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    let form = context.client_capabilities().and_then(|c| c.elicitation).is_some_and(|e| {
        // Neither mode named means form, for older clients.
        e.form.is_some() || e.url.is_none()
    });
    new && form
}

#[cfg(feature = "http")]
impl McpServer {
    /// Tells the shared reads (`http/shared_reads.rs`) this request's
    /// session, if it has one, and whether its client renders cards (by
    /// the capabilities the session opened with: a request naming its own
    /// says nothing of the next).
    fn note_session(&self, context: &RequestContext<RoleServer>) {
        if context.meta.client_capabilities().is_some() {
            return;
        }
        if let Some(shared) = &self.shared {
            let parts = context.extensions.get::<axum::http::request::Parts>();
            let session = parts.and_then(|p| p.headers.get("mcp-session-id")?.to_str().ok());
            if let Some(id) = session {
                shared.note_session(id, self.card_for(context).is_some());
            }
        }
    }
}
