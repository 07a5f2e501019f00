//! Wire types of the MCP GUI Bridge Protocol v0.1.0.
//!
//! Everything here serializes exactly as the protocol's §4 and Appendix B
//! describe: camelCase field names, optional fields omitted when absent.
//! These are the values an agent sees; the runtime builds them, an app
//! developer rarely constructs them except [`Block`]s inside
//! [`Window::project`](crate::Window::project). Nothing here depends on the
//! rest of the crate.

mod block;
mod definition;
mod snapshot;
mod tool;

pub use block::{Block, BlockKind, FieldItem, Severity};
pub use definition::{ToolDefinition, ToolHints};
pub use snapshot::{Snapshot, WindowState};
pub use tool::{
    ApprovedBy, DenialReason, ErrorCode, FieldError, Next, ToolError, ToolOutcome, ToolResult,
};

/// A JSON object: a tool's arguments, a schema.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
/// What every sensitive value looks like outside the process.
pub const MASK: &str = "••••••";

/// The URI of the protocol's single resource (§4.1).
pub const WINDOWS_URI: &str = "app://windows";
