use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// MCP tool annotations (§5.6). `None` leaves a hint unset; hosts then assume
/// MCP's defaults (not read-only, destructive, not idempotent, open world).
///
/// ```
/// let hints = purview::model::ToolHints { read_only: Some(true), ..Default::default() };
/// assert_eq!(serde_json::to_value(hints).unwrap(), serde_json::json!({"readOnlyHint": true}));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolHints {
    /// `readOnlyHint`: the action changes nothing.
    #[serde(rename = "readOnlyHint", default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// `destructiveHint`: the action is destructive or irreversible.
    #[serde(rename = "destructiveHint", default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// `idempotentHint`: calling it twice is the same as once.
    #[serde(rename = "idempotentHint", default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// `openWorldHint`: the action reaches outside the application.
    #[serde(rename = "openWorldHint", default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

/// One tool as tools/list offers it, independent of any MCP library: the
/// runtime's catalog, which the transport turns into its own tool type.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let app = purview::App::builder().build();
/// let tools = app.tools().unwrap();
/// // The default surface lists the two tools that reach every window first.
/// assert_eq!(tools[0].name, "app__read_windows");
/// assert_eq!(tools[1].name, "app__act");
/// # });
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolDefinition {
    /// `{windowId}__{action}`, `app__{action}`, or one of Purview's own tools.
    pub name: String,
    /// A human title naming the action and its window.
    pub title: String,
    /// What the tool does, readable without the server instructions.
    pub description: String,
    /// The arguments (a self-contained JSON Schema object).
    pub input_schema: Arc<Map<String, Value>>,
    /// The shape of `structuredContent` on success (§12.3).
    pub output_schema: Arc<Map<String, Value>>,
    /// The §5.6 annotations.
    pub annotations: ToolHints,
}
