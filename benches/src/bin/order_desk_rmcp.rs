//! order_desk's editor written by hand on rmcp, without Purview: the
//! baseline of the stdio comparison (`benches/benches/compare.rs`). It
//! serves the same `app://windows` JSON as Purview's order_desk (byte for
//! byte, both windows), and a `w1__edit_field` tool that checks
//! `expectedVersion`, changes the field, bumps the version when the window's
//! content changed, notifies the session when it subscribed, and answers
//! with the same structured result.
//!
//! ```text
//! order_desk_rmcp            # rmcp::transport::stdio(), the documented way
//! order_desk_rmcp --pipes    # rmcp::transport::stdio_pipes()
//! ```

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicBool, Ordering},
};

use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ListResourcesResult,
        ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
        ReadResourceResult, Resource, ResourceContents, ResourceUpdatedNotificationParam,
        ServerCapabilities, ServerConfig, SubscribeRequestParams, Tool, UnsubscribeRequestParams,
    },
    service::RequestContext,
};
use serde::Serialize;
use serde_json::{Value, json};

const WINDOWS_URI: &str = "app://windows";

/// The editor's fields and its version.
struct Editor {
    version: u64,
    recipient: String,
    amount: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Snapshot<'a> {
    operable_window_ids: [&'a str; 2],
    windows: [Window<'a>; 2],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Window<'a> {
    id: &'a str,
    title: &'a str,
    modal: bool,
    owner_id: Option<&'a str>,
    version: u64,
    summary: &'a str,
    blocks: Vec<Block<'a>>,
}

/// A block as Purview writes it: `type` first, `id` last.
#[derive(Serialize)]
#[serde(untagged)]
enum Block<'a> {
    Text {
        r#type: &'a str,
        text: &'a str,
        id: &'a str,
    },
    Fields {
        r#type: &'a str,
        items: [Field<'a>; 3],
        id: &'a str,
    },
    Table {
        r#type: &'a str,
        columns: &'a [&'a str],
        rows: Value,
        id: &'a str,
    },
    Notice {
        r#type: &'a str,
        severity: &'a str,
        text: &'a str,
        id: &'a str,
    },
    Page {
        r#type: &'a str,
        columns: &'a [&'a str],
        rows: Value,
        offset: u64,
        total: u64,
        id: &'a str,
    },
}

#[derive(Serialize)]
struct Field<'a> {
    label: &'a str,
    value: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    sensitive: Option<bool>,
}

impl Editor {
    fn summary(&self) -> &'static str {
        if self.recipient.is_empty() {
            "Editing order #12345; 1 field is still to fill in"
        } else {
            "Editing order #12345; every field is filled in"
        }
    }

    fn blocks(&self) -> Vec<Block<'_>> {
        let field = |label, value| Field { label, value, sensitive: None };
        let mut blocks = vec![
            Block::Text { r#type: "text", text: "Order #12345", id: "heading" },
            Block::Fields {
                r#type: "fields",
                items: [
                    field("Recipient", &self.recipient),
                    field("Amount", &self.amount),
                    Field {
                        label: "Payment password", value: "••••••", sensitive: Some(true)
                    },
                ],
                id: "fields",
            },
            Block::Table {
                r#type: "table",
                columns: &["Product", "Quantity"],
                rows: json!([["A", 2], ["B", 1]]),
                id: "items",
            },
        ];
        if self.recipient.is_empty() {
            blocks.push(Block::Notice {
                r#type: "notice",
                severity: "error",
                text: "Recipient cannot be empty",
                id: "recipient_error",
            });
        }
        blocks
    }

    fn snapshot(&self) -> String {
        let report_rows = json!([
            [1, "North", 0.5],
            [2, "South", 7919.5],
            [3, "East", 5838.5],
            [4, "West", 3757.5],
            [5, "North", 1676.5]
        ]);
        let snapshot = Snapshot {
            operable_window_ids: ["w1", "w2"],
            windows: [
                Window {
                    id: "w1",
                    title: "Order Editor",
                    modal: false,
                    owner_id: None,
                    version: self.version,
                    summary: self.summary(),
                    blocks: self.blocks(),
                },
                Window {
                    id: "w2",
                    title: "Report Details",
                    modal: false,
                    owner_id: None,
                    version: 1,
                    summary: "Revenue report with 10000 rows; the first 5 are shown, load_rows fetches any range",
                    blocks: vec![Block::Page {
                        r#type: "table",
                        columns: &["Row", "Region", "Revenue"],
                        rows: report_rows,
                        offset: 0,
                        total: 10_000,
                        id: "rows",
                    }],
                },
            ],
        };
        serde_json::to_string(&snapshot).unwrap_or_default()
    }
}

#[derive(Clone)]
struct Server {
    editor: Arc<Mutex<Editor>>,
    subscribed: Arc<AtomicBool>,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resource = Resource::new(WINDOWS_URI, "windows").with_mime_type("application/json");
        Ok(ListResourcesResult::with_all_items(vec![resource]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != WINDOWS_URI {
            return Err(ErrorData::resource_not_found("no such resource", None));
        }
        let text = self.editor.lock().unwrap_or_else(|e| e.into_inner()).snapshot();
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, WINDOWS_URI).with_mime_type("application/json"),
        ])
        .into())
    }

    #[allow(deprecated)] // resources/subscribe is how a 2025-11-25 session subscribes.
    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscribed.store(true, Ordering::Release);
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscribed.store(false, Ordering::Release);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {
            "field": {"type": "string", "enum": ["recipient", "amount"]},
            "value": {"type": "string"},
            "expectedVersion": {"type": "integer"},
        }, "required": ["field", "value"]});
        let Value::Object(schema) = schema else { unreachable!("an object literal") };
        let tool = Tool::new("w1__edit_field", "Change one field of the order.", Arc::new(schema));
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "w1__edit_field" {
            return Ok(CallToolResult::structured_error(
                json!({"code": "action_not_available", "message": "no such tool"}),
            )
            .into());
        }
        let args = request.arguments.unwrap_or_default();
        let field = args.get("field").and_then(Value::as_str);
        let value = args.get("value").and_then(Value::as_str);
        let (Some(field @ ("recipient" | "amount")), Some(value)) = (field, value) else {
            return Ok(CallToolResult::structured_error(
                json!({"code": "validation_failed", "message": "field and value are required"}),
            )
            .into());
        };
        let (changed, submittable) = {
            let mut editor = self.editor.lock().unwrap_or_else(|e| e.into_inner());
            let expected = args.get("expectedVersion").and_then(Value::as_u64);
            if expected.is_some_and(|v| v != editor.version) {
                return Ok(CallToolResult::structured_error(json!({
                    "code": "stale_state", "message": "stale", "currentVersion": editor.version,
                }))
                .into());
            }
            let submittable = !editor.recipient.is_empty();
            let slot =
                if field == "recipient" { &mut editor.recipient } else { &mut editor.amount };
            let changed = *slot != value.trim();
            if changed {
                *slot = value.trim().to_owned();
                editor.version += 1;
            }
            (changed, (submittable, !editor.recipient.is_empty()))
        };
        // `submit` needs a recipient: when that flips, the tool set changes.
        let tools_changed = submittable.0 != submittable.1;
        if tools_changed {
            let _ = context.peer.notify_tool_list_changed().await;
        }
        if changed && self.subscribed.load(Ordering::Acquire) {
            let param = ResourceUpdatedNotificationParam::new(WINDOWS_URI);
            let _ = context.peer.notify_resource_updated(param).await;
        }
        let mut result = json!({"message": "Completed `edit_field`."});
        if tools_changed {
            let mut editor_actions = vec!["edit_field", "set_password", "set_details"];
            editor_actions.extend(submittable.1.then_some("submit"));
            editor_actions.push("focus");
            result["next"] = json!({
                "actions": {"w1": editor_actions},
                "operableWindowIds": ["w1", "w2"],
            });
        }
        Ok(CallToolResult::structured(result).into())
    }
}

#[tokio::main]
async fn main() {
    let server = Server {
        editor: Arc::new(Mutex::new(Editor {
            version: 1,
            recipient: String::new(),
            amount: "$100.00".into(),
        })),
        subscribed: Arc::default(),
    };
    let running = if std::env::args().any(|a| a == "--pipes") {
        server.serve(rmcp::transport::stdio_pipes()).await
    } else {
        server.serve(rmcp::transport::stdio()).await
    };
    if let Ok(running) = running {
        let _ = running.waiting().await;
    }
}
