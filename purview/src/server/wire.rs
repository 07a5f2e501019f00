//! The MCP shapes of Purview's own answers: a tool definition as rmcp
//! carries it, the one resource, and the errors for an unknown resource
//! and an app that cannot be read.

use rmcp::{
    ErrorData as McpError,
    model::{ReadResourceResult, Resource, ResourceContents, Tool, ToolAnnotations},
};

use crate::{
    Error,
    model::{ToolDefinition, WINDOWS_URI},
    validate::echo,
};

pub(super) fn rmcp_tool(tool: &ToolDefinition) -> Tool {
    let hints = tool.annotations;
    let mut annotations = ToolAnnotations::new();
    annotations.read_only_hint = hints.read_only;
    annotations.destructive_hint = hints.destructive;
    annotations.idempotent_hint = hints.idempotent;
    annotations.open_world_hint = hints.open_world;
    Tool::new(tool.name.clone(), tool.description.clone(), tool.input_schema.clone())
        .with_title(tool.title.clone())
        .with_raw_output_schema(tool.output_schema.clone())
        .with_annotations(annotations)
}

/// The answer to a read of `app://windows`: its JSON text, as written once
/// per change.
pub(super) fn windows_contents(json: &str) -> ReadResourceResult {
    ReadResourceResult::new(vec![
        ResourceContents::text(json.to_owned(), WINDOWS_URI).with_mime_type("application/json"),
    ])
}

/// The answer to a call that read (`app__read_windows`): its value as the
/// structured result, with the same JSON as text.
#[cfg(feature = "http")]
pub(super) fn read_windows_result(value: serde_json::Value) -> rmcp::model::CallToolResult {
    rmcp::model::CallToolResult::structured(value)
}

pub(super) fn windows_resource() -> Resource {
    Resource::new(WINDOWS_URI, "windows")
        .with_title("Application windows")
        .with_description("Every open window with its content, and operableWindowIds: which of them can be operated now.")
        .with_mime_type("application/json")
}

/// Resource-not-found, with the URI as `data.uri` (SEP-2164) unless it is
/// too long to repeat.
pub(super) fn unknown_resource(uri: &str) -> McpError {
    let data = (uri.len() <= URI_ECHO_LIMIT).then(|| serde_json::json!({"uri": uri}));
    McpError::resource_not_found(
        format!("There is no resource `{}`; the app's windows are at {WINDOWS_URI}.", echo(uri)),
        data,
    )
}

/// The longest URI a resource-not-found error repeats in its `data`.
const URI_ECHO_LIMIT: usize = 2048;

pub(super) fn internal(error: Error) -> McpError {
    McpError::internal_error(error.to_string(), None)
}

/// The answer to a request cancelled before it did anything (or a read,
/// stopped): the client has stopped waiting, so rmcp drops it; it says
/// what happened for any log that shows it.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(super) fn cancelled() -> McpError {
    McpError::invalid_request(
        "The request was cancelled before it changed anything; send it again if it is still wanted.",
        None,
    )
}
