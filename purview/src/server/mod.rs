//! The MCP face of an [`App`]: a thin rmcp `ServerHandler` over the
//! transport-free protocol logic in [`crate::app`], plus stdio and streamable
//! HTTP transports.

mod http;
mod instructions;
pub(crate) mod sessions;

use std::sync::Arc;

use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, Implementation,
        ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
        ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ServerCapabilities,
        ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool, ToolAnnotations,
        UnsubscribeRequestParams,
    },
    service::{NotificationContext, RequestContext, SubscriptionContext},
};

pub use http::{HttpOptions, HttpServer};
pub use instructions::PROTOCOL_INSTRUCTIONS;

use crate::{App, Error, model::WINDOWS_URI};

/// Frees a session's slot when its connection (and so its handler) goes away.
struct SessionSlot {
    id: u64,
    app: App,
}

impl Drop for SessionSlot {
    fn drop(&mut self) {
        self.app.inner.sessions.remove_legacy(self.id);
    }
}

/// One connection's MCP server. Make one per connection with
/// [`App::mcp_server`]; all of them share the application.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use rmcp::ServiceExt;
/// let app = purview::App::builder().build();
/// let (server_side, _client_side) = tokio::io::duplex(64 * 1024);
/// let running = app.mcp_server().serve(server_side).await?;
/// running.waiting().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpServer {
    app: App,
    slot: Arc<SessionSlot>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer").field("session", &self.slot.id).finish()
    }
}

impl App {
    /// A new MCP server handler for one connection (any rmcp transport).
    /// Must be called inside a tokio runtime: it starts the app's
    /// notification broadcaster on first use.
    pub fn mcp_server(&self) -> McpServer {
        sessions::ensure_broadcaster(&self.inner);
        let id = self.inner.sessions.new_id();
        McpServer { app: self.clone(), slot: Arc::new(SessionSlot { id, app: self.clone() }) }
    }

    /// Serves MCP on stdin/stdout until the client disconnects. Nothing else
    /// may write to stdout meanwhile; log through `tracing` to stderr.
    pub async fn serve_stdio(&self) -> Result<(), Error> {
        let running = self
            .mcp_server()
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::Serve(e.to_string()))?;
        running.waiting().await.map_err(|e| Error::Serve(e.to_string()))?;
        Ok(())
    }

    /// The number of sessions that currently receive notifications.
    pub fn session_count(&self) -> usize {
        self.inner.sessions.count()
    }

    /// The tool definitions tools/list returns now.
    pub fn tools(&self) -> Vec<Tool> {
        let Ok(state) = self.inner.lock() else {
            return Vec::new();
        };
        let app_name = &self.inner.config.name;
        state
            .tools
            .iter()
            .filter_map(|t| {
                let (window, actor) = match t.window {
                    Some(seq) => {
                        let entry = state.windows.get(&seq)?;
                        (Some(entry), &entry.actor)
                    }
                    None => (None, state.app.as_ref()?),
                };
                let action = actor.spec.actions.get(t.action)?;
                let what =
                    sentence(action.spec.description.as_deref().unwrap_or(&action.tool_title));
                let (title, description) = match window {
                    Some(w) => (
                        format!("{} · {} (window {})", action.tool_title, w.title, w.id),
                        format!("{what} Acts on the \"{}\" window ({}).", w.title, w.id),
                    ),
                    None => (
                        format!("{} · {app_name}", action.tool_title),
                        format!("{what} An app-level action of {app_name}."),
                    ),
                };
                let hints = action.spec.hints;
                let mut annotations = ToolAnnotations::new();
                annotations.read_only_hint = hints.read_only;
                annotations.destructive_hint = hints.destructive;
                annotations.idempotent_hint = hints.idempotent;
                annotations.open_world_hint = hints.open_world;
                Some(
                    Tool::new(t.name.clone(), description, action.input_schema.clone())
                        .with_title(title)
                        .with_raw_output_schema(action.output_schema.clone())
                        .with_annotations(annotations),
                )
            })
            .collect()
    }

    fn server_config(&self) -> ServerConfig {
        let config = &self.inner.config;
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_subscribe()
            .build();
        let instructions = match &config.instructions {
            Some(notes) => format!("{PROTOCOL_INSTRUCTIONS}\n\nAbout this application: {notes}"),
            None => PROTOCOL_INSTRUCTIONS.to_owned(),
        };
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(config.name.clone(), config.version.clone()))
            .with_instructions(instructions)
    }
}

/// Ends a description with a full stop, so a note can follow it.
fn sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '!', '?']) { text.to_owned() } else { format!("{text}.") }
}

fn windows_resource() -> Resource {
    Resource::new(WINDOWS_URI, "windows")
        .with_title("Application windows")
        .with_description("Every open window with its content, and operableWindowIds: which of them can be operated now.")
        .with_mime_type("application/json")
}

fn unknown_resource(uri: &str) -> McpError {
    McpError::resource_not_found(
        format!("There is no resource `{uri}`; this server has exactly one: {WINDOWS_URI}."),
        None,
    )
}

#[allow(deprecated)] // resources/subscribe is legacy-only, and legacy sessions need it.
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        self.app.server_config()
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.app.inner.sessions.register_legacy(self.slot.id, context.peer);
        tracing::info!(session = self.slot.id, "session initialized");
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(vec![windows_resource()]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if request.uri != WINDOWS_URI {
            return Err(unknown_resource(&request.uri));
        }
        let json = self.app.snapshot_json();
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(json.to_string(), WINDOWS_URI)
                .with_mime_type("application/json"),
        ])
        .into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if request.uri != WINDOWS_URI {
            return Err(unknown_resource(&request.uri));
        }
        self.app.inner.sessions.set_subscribed(self.slot.id, context.peer, true);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if request.uri != WINDOWS_URI {
            return Err(unknown_resource(&request.uri));
        }
        self.app.inner.sessions.set_subscribed(self.slot.id, context.peer, false);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = requested.supported_by(&self.get_info().capabilities);
        if let Some(uris) = &mut accepted.resource_subscriptions {
            uris.retain(|uri| uri == WINDOWS_URI);
        }
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let id = self.app.inner.sessions.add_listener(context.sink().clone());
        tracing::info!(listener = id, "subscription opened");
        context.cancelled().await;
        self.app.inner.sessions.remove_listener(id);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.app.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // A client that cancels the request gets nothing applied.
        let result =
            match self.app.call_cancellable(&request.name, request.arguments, context.ct).await {
                Ok(ok) => CallToolResult::structured(serde_json::to_value(ok).unwrap_or_default()),
                Err(err) => {
                    tracing::info!(tool = %request.name, code = %err.code, "call rejected");
                    CallToolResult::structured_error(serde_json::to_value(err).unwrap_or_default())
                }
            };
        Ok(result.into())
    }
}
