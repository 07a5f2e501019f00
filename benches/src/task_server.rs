//! The hand-written task server: order_desk's stories served by tools a
//! developer who knows the app would write for them, with no GUI Bridge
//! generality (no windows, no snapshot, no per-window tools): the floor
//! the story suite (`benches/benches/stories.rs`) measures Purview
//! against. `benches/src/bin/task_server.rs` serves it over stdio with
//! rmcp; the suite calls [`TaskServer::call`] directly, which returns the
//! same `structuredContent` the server sends.

use serde_json::{Value, json};

/// The PIN that unlocks, as in order_desk.
const PIN: &str = "1234";
/// Rows in the revenue report, as in order_desk.
const ROWS: u32 = 10_000;

/// One tool as tools/list shows it to a model.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
}

/// The order, the reports and the lock: everything the stories touch.
pub struct TaskServer {
    recipient: String,
    amount: String,
    version: u64,
    /// The order waits for `confirm` or `cancel`.
    pending: bool,
    submitted: bool,
    reports: Vec<u32>,
    next_report: u32,
    locked: bool,
}

impl Default for TaskServer {
    fn default() -> Self {
        Self {
            recipient: String::new(),
            amount: "$100.00".into(),
            version: 1,
            pending: false,
            submitted: false,
            reports: vec![1],
            next_report: 2,
            locked: false,
        }
    }
}

/// Row `i` of the revenue report: as order_desk computes it.
fn row(i: u32) -> Value {
    const REGIONS: [&str; 4] = ["North", "South", "East", "West"];
    json!([i + 1, REGIONS[i as usize % 4], f64::from((i * 7919) % 10_000) + 0.5])
}

fn error(code: &str, message: &str) -> Result<Value, Value> {
    Err(json!({"code": code, "message": message}))
}

impl TaskServer {
    /// The tools, as a developer would write them for these tasks.
    pub fn tools() -> Vec<ToolSpec> {
        let none = json!({"type": "object"});
        let tool = |name, description, input_schema| ToolSpec { name, description, input_schema };
        vec![
            tool("get_order", "The order: recipient, amount, status, version.", none.clone()),
            tool(
                "set_recipient",
                "Set the order's recipient. Pass the version you read; a stale one is refused with the current version.",
                json!({"type": "object", "properties": {"name": {"type": "string"}, "version": {"type": "integer"}}, "required": ["name"]}),
            ),
            tool("submit_order", "Ask to submit the order; confirm or cancel next.", none.clone()),
            tool("confirm", "Confirm the submission.", none.clone()),
            tool("cancel", "Cancel the submission.", none.clone()),
            tool("terms", "The terms of sale.", none.clone()),
            tool(
                "report_rows",
                "Rows of the revenue report: [row, region, revenue].",
                json!({"type": "object", "properties": {"offset": {"type": "integer"}, "limit": {"type": "integer"}}, "required": ["offset", "limit"]}),
            ),
            tool("open_report", "Open another report; returns its id.", none.clone()),
            tool(
                "close_report",
                "Close a report.",
                json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
            ),
            tool("lock", "Lock the app.", none.clone()),
            tool(
                "unlock",
                "Unlock the app with the PIN.",
                json!({"type": "object", "properties": {"pin": {"type": "string"}}, "required": ["pin"]}),
            ),
        ]
    }

    /// The person at the app changes the recipient.
    pub fn person_sets_recipient(&mut self, name: &str) {
        self.recipient = name.to_owned();
        self.version += 1;
    }

    /// Calls `tool` with `arguments`: the `structuredContent` of a success,
    /// or of an error.
    pub fn call(&mut self, tool: &str, arguments: &Value) -> Result<Value, Value> {
        let text = |key: &str| arguments.get(key).and_then(Value::as_str);
        let number = |key: &str| arguments.get(key).and_then(Value::as_u64);
        if self.locked && tool != "unlock" {
            return error("locked", "The app is locked: unlock it with the PIN.");
        }
        match tool {
            "get_order" => Ok(self.order()),
            "set_recipient" => {
                let Some(name) = text("name").filter(|n| !n.trim().is_empty()) else {
                    return error("invalid", "name: must not be blank");
                };
                if number("version").is_some_and(|v| v != self.version) {
                    return Err(
                        json!({"code": "stale", "message": "The order changed; read it again.", "version": self.version}),
                    );
                }
                self.recipient = name.trim().to_owned();
                self.version += 1;
                Ok(json!({"version": self.version}))
            }
            "submit_order" if self.recipient.is_empty() => {
                error("invalid", "Set a recipient first.")
            }
            "submit_order" => {
                self.pending = true;
                Ok(json!({"confirm": format!("Submit {} to {}?", self.amount, self.recipient)}))
            }
            "confirm" | "cancel" | "terms" if !self.pending => {
                error("invalid", "No submission is waiting.")
            }
            "confirm" => {
                (self.pending, self.submitted) = (false, true);
                Ok(json!({"submitted": true}))
            }
            "cancel" => {
                self.pending = false;
                Ok(json!({"submitted": false}))
            }
            "terms" => Ok(json!({"terms": "Payment is due within 30 days."})),
            "report_rows" => {
                let (offset, limit) = (number("offset").unwrap_or(0), number("limit").unwrap_or(0));
                let rows: Vec<Value> = (offset..(offset + limit.min(1000)).min(u64::from(ROWS)))
                    .map(|i| row(i as u32))
                    .collect();
                Ok(json!({"total": ROWS, "rows": rows}))
            }
            "open_report" => {
                let id = self.next_report;
                self.next_report += 1;
                self.reports.push(id);
                Ok(json!({"id": id}))
            }
            "close_report" => {
                let id = number("id").unwrap_or(0);
                let before = self.reports.len();
                self.reports.retain(|r| u64::from(*r) != id);
                if self.reports.len() == before {
                    return error("invalid", "No such report.");
                }
                Ok(json!({"open": self.reports}))
            }
            "lock" => {
                self.locked = true;
                Ok(json!({"locked": true}))
            }
            "unlock" if text("pin") == Some(PIN) => {
                self.locked = false;
                Ok(json!({"locked": false}))
            }
            "unlock" => error("invalid", "pin: wrong PIN"),
            _ => error("unknown_tool", "No such tool."),
        }
    }

    fn order(&self) -> Value {
        let status = match (self.submitted, self.pending) {
            (true, _) => "submitted",
            (false, true) => "awaiting confirmation",
            (false, false) => "draft",
        };
        json!({"recipient": self.recipient, "amount": self.amount, "status": status, "version": self.version})
    }
}
