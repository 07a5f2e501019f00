//! An MCP client for tests: reads, lists, calls, and records every
//! notification it receives, over any transport and either protocol
//! generation.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::{Context as _, Result, anyhow};
use purview::{App, model::Snapshot};
use rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig,
        ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
        FormElicitationCapability, Implementation, ProtocolVersion, ReadResourceRequestParams,
        ResourceContents, ResourceUpdatedNotificationParam, ServerNotification,
        SubscribeRequestParams, SubscriptionFilter, Tool,
    },
    service::{NotificationContext, RequestContext, RunningService},
};
use serde_json::Value;
use tokio::sync::mpsc;

/// A notification as a test sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// notifications/tools/list_changed
    ToolsChanged,
    /// notifications/resources/updated for this URI
    Updated(String),
}

/// How a client answers the server's elicitation requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elicit {
    /// The user accepts the form with `approve` set to this.
    Approve(bool),
    /// The user presses "decline".
    Decline,
    /// The user never answers.
    Hang,
    /// The client answers the request with a JSON-RPC error.
    Fail,
}

/// A client's elicitation behaviour, changeable while it runs, and the
/// messages it was asked.
#[derive(Clone)]
pub struct Elicitation {
    pub answer: Arc<Mutex<Elicit>>,
    pub messages: Arc<Mutex<Vec<String>>>,
}

impl Elicitation {
    pub fn new(answer: Elicit) -> Self {
        Self { answer: Arc::new(Mutex::new(answer)), messages: Arc::default() }
    }

    pub fn set(&self, answer: Elicit) {
        *self.answer.lock().unwrap() = answer;
    }

    pub fn messages(&self) -> Vec<String> {
        self.messages.lock().unwrap().clone()
    }
}

/// Records legacy-session notifications; answers elicitation requests when
/// it declares the capability.
#[derive(Clone)]
pub struct Recorder {
    tx: mpsc::UnboundedSender<Note>,
    elicitation: Option<Elicitation>,
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.elicitation.is_some() {
            let mut elicitation = ElicitationCapability::default();
            elicitation.form = Some(FormElicitationCapability::default());
            capabilities.elicitation = Some(elicitation);
        }
        ClientConfig::new(capabilities, Implementation::new("purview-test-agent", "0"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let Some(elicitation) = &self.elicitation else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            elicitation.messages.lock().unwrap().push(message.clone());
        }
        let answer = *elicitation.answer.lock().unwrap();
        match answer {
            Elicit::Approve(approve) => Ok(ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::json!({ "approve": approve }))),
            Elicit::Decline => Ok(ElicitResult::new(ElicitationAction::Decline)),
            Elicit::Hang => std::future::pending().await,
            Elicit::Fail => {
                Err(rmcp::ErrorData::internal_error("the form could not be shown", None))
            }
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.tx.send(Note::ToolsChanged);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.tx.send(Note::Updated(params.uri));
    }
}

/// One connected agent.
pub struct Agent {
    pub client: RunningService<RoleClient, Recorder>,
    notes: mpsc::UnboundedReceiver<Note>,
    tx: mpsc::UnboundedSender<Note>,
}

/// The outcome of one tools/call, as the agent reads it: structuredContent.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub is_error: bool,
    pub structured: Value,
    /// The text mirror in `content`.
    pub text: String,
}

impl Outcome {
    /// The error code, if the call failed.
    pub fn code(&self) -> Option<&str> {
        self.is_error.then(|| self.structured["code"].as_str()).flatten()
    }
}

impl Agent {
    /// A legacy (2025-11-25) session over an in-process duplex, returned
    /// once the app has registered it for notifications (the `initialized`
    /// notification is handled asynchronously).
    pub async fn legacy(app: &App) -> Result<Self> {
        let before = app.session_count();
        let (server_side, client_side) = tokio::io::duplex(1 << 20);
        let server = app.mcp_server();
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        let agent = Self::over(client_side).await?;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while app.session_count() <= before && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        Ok(agent)
    }

    /// A legacy session whose client supports elicitation and answers as
    /// `elicitation` says.
    pub async fn eliciting(app: &App, elicitation: Elicitation) -> Result<Self> {
        let (server_side, client_side) = tokio::io::duplex(1 << 20);
        let server = app.mcp_server();
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        Self::over_with(client_side, Some(elicitation)).await
    }

    /// A legacy session over any transport, its client answering
    /// elicitation as `elicitation` says (or not supporting it).
    pub async fn over_with<T, E, A>(transport: T, elicitation: Option<Elicitation>) -> Result<Self>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let (tx, notes) = mpsc::unbounded_channel();
        let client = Recorder { tx: tx.clone(), elicitation }
            .serve(transport)
            .await
            .context("initialize")?;
        Ok(Self { client, notes, tx })
    }

    /// A legacy session over any client transport.
    pub async fn over<T, E, A>(transport: T) -> Result<Self>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        Self::over_with(transport, None).await
    }

    /// A 2026-07-28 session over an in-process duplex, listening for both
    /// notifications through `subscriptions/listen`.
    pub async fn modern(app: &App) -> Result<Self> {
        let (server_side, client_side) = tokio::io::duplex(1 << 20);
        let server = app.mcp_server();
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        Self::modern_over(client_side).await
    }

    /// A 2026-07-28 session over an in-process duplex whose client can put
    /// forms to its user, answering as `elicitation` says: approval
    /// questions come back as `input_required`, which [`Agent::call`]
    /// answers and retries (rmcp's client does), and [`Agent::call_once`]
    /// returns as they are.
    pub async fn modern_eliciting(app: &App, elicitation: Elicitation) -> Result<Self> {
        let (server_side, client_side) = tokio::io::duplex(1 << 20);
        let server = app.mcp_server();
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        Self::modern_over_with(client_side, Some(elicitation)).await
    }

    /// A 2026-07-28 session over any client transport, listening as
    /// [`Agent::modern`] does.
    pub async fn modern_over<T, E, A>(client_side: T) -> Result<Self>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        Self::modern_over_with(client_side, None).await
    }

    /// [`Agent::modern_over`] with a client that answers elicitations.
    pub async fn modern_over_with<T, E, A>(
        client_side: T,
        elicitation: Option<Elicitation>,
    ) -> Result<Self>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let (tx, notes) = mpsc::unbounded_channel();
        let client = Recorder { tx: tx.clone(), elicitation }
            .serve_with_lifecycle(
                client_side,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .context("discover")?;
        let agent = Self { client, notes, tx };
        agent.listen().await?;
        Ok(agent)
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28) for tools/list_changed
    /// and app://windows, pumping what arrives into this agent's notes.
    pub async fn listen(&self) -> Result<()> {
        let filter = SubscriptionFilter::builder()
            .tools_list_changed()
            .resource_subscription(purview::model::WINDOWS_URI)
            .build();
        let mut subscription = self.client.listen(filter).await.context("subscriptions/listen")?;
        let tx = self.tx.clone();
        tokio::spawn(async move {
            while let Ok(Some(notification)) = subscription.next().await {
                let note = match notification {
                    ServerNotification::ToolListChangedNotification(_) => Note::ToolsChanged,
                    ServerNotification::ResourceUpdatedNotification(n) => {
                        Note::Updated(n.params.uri)
                    }
                    _ => continue,
                };
                let _ = tx.send(note);
            }
        });
        Ok(())
    }

    /// resources/subscribe to app://windows (legacy sessions).
    #[allow(deprecated)]
    pub async fn subscribe(&self) -> Result<()> {
        self.client.subscribe(SubscribeRequestParams::new(purview::model::WINDOWS_URI)).await?;
        Ok(())
    }

    /// Reads app://windows and checks the wrapping of §12.2.
    pub async fn read(&self) -> Result<Snapshot> {
        let result = self
            .client
            .read_resource(ReadResourceRequestParams::new(purview::model::WINDOWS_URI))
            .await?;
        let [ResourceContents::TextResourceContents { uri, mime_type, text, .. }] =
            result.contents.as_slice()
        else {
            return Err(anyhow!("expected exactly one text content, got {:?}", result.contents));
        };
        anyhow::ensure!(uri == purview::model::WINDOWS_URI, "uri {uri}");
        anyhow::ensure!(mime_type.as_deref() == Some("application/json"), "mime {mime_type:?}");
        Ok(serde_json::from_str(text)?)
    }

    /// Reads app://windows as raw JSON.
    pub async fn read_json(&self) -> Result<Value> {
        let result = self
            .client
            .read_resource(ReadResourceRequestParams::new(purview::model::WINDOWS_URI))
            .await?;
        match result.contents.as_slice() {
            [ResourceContents::TextResourceContents { text, .. }] => {
                Ok(serde_json::from_str(text)?)
            }
            other => Err(anyhow!("unexpected contents {other:?}")),
        }
    }

    /// tools/list.
    pub async fn tools(&self) -> Result<Vec<Tool>> {
        Ok(self.client.list_all_tools().await?)
    }

    /// tools/list, names only, sorted.
    pub async fn tool_names(&self) -> Result<Vec<String>> {
        let mut names: Vec<String> =
            self.tools().await?.into_iter().map(|t| t.name.to_string()).collect();
        names.sort();
        Ok(names)
    }

    /// tools/call with JSON arguments (an object, or `null` for none).
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<Outcome> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(map) = arguments {
            params = params.with_arguments(map);
        }
        let result = self.client.call_tool(params).await?;
        let text = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
            .join("\n");
        Ok(Outcome {
            is_error: result.is_error == Some(true),
            structured: result.structured_content.unwrap_or(Value::Null),
            text,
        })
    }

    /// One tools/call exactly as given, without answering an
    /// `input_required` result (2026-07-28): for driving the rounds by hand.
    pub async fn call_once(&self, params: CallToolRequestParams) -> Result<CallToolResponse> {
        Ok(self.client.call_tool_once(params).await?)
    }

    /// Waits for the next notification (up to 5 s).
    pub async fn next_note(&mut self) -> Result<Note> {
        tokio::time::timeout(Duration::from_secs(5), self.notes.recv())
            .await
            .context("no notification within 5 s")?
            .context("notification channel closed")
    }

    /// Waits until a notification equal to `want` arrives (up to 5 s).
    pub async fn expect(&mut self, want: Note) -> Result<()> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        loop {
            let note = tokio::time::timeout_at(deadline, self.notes.recv())
                .await
                .with_context(|| format!("no {want:?} within 5 s"))?
                .context("notification channel closed")?;
            if note == want {
                return Ok(());
            }
        }
    }

    /// Everything received so far, after letting in-flight notifications land.
    pub async fn drain(&mut self) -> Vec<Note> {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let mut out = Vec::new();
        while let Ok(note) = self.notes.try_recv() {
            out.push(note);
        }
        out
    }

    /// Disconnects.
    pub async fn close(self) -> Result<()> {
        self.client.cancel().await?;
        Ok(())
    }
}
