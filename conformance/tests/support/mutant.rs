//! A small GUI Bridge server written by hand on rmcp, not with Purview, so
//! it can break the protocol on purpose: each defect plants exactly one
//! violation of a §11 MUST, and the conformance kit must name it.
//!
//! The application is one note: w1 "Note" (fields Title and Code, the code
//! sensitive; actions set_title, set_code, delete), a window-level modal
//! "Confirm delete" that delete opens (confirm, cancel), and app__reset.

use std::{sync::Arc, time::Duration};

use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, Implementation,
        ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
        ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
        ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig, SubscribeRequestParams,
        Tool, ToolAnnotations,
    },
    service::RequestContext,
};
use serde_json::{Map, Value, json};

const URI: &str = "app://windows";

/// Each defect, and the check that must catch it.
pub const DEFECTS: [(&str, &str); 9] = [
    ("list-blocked", "tools-only-operable"),
    ("version-noop", "versions"),
    ("leak-secret", "masking"),
    ("no-list-changed", "tools-list-changed"),
    // The same, its windows' updates sent a moment after each answer
    // (as a loaded server may): only the missing list change is a
    // failure, never an update that arrives after the walk moved on.
    ("no-list-changed-late-update", "tools-list-changed"),
    ("jsonrpc-error", "structured-results"),
    ("reuse-id", "ids"),
    ("notify-early", "notify-after-effect"),
    ("unlisted-action", "tools-only-operable"),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Note,
    Confirm,
}

#[derive(Clone)]
struct Win {
    id: String,
    kind: Kind,
    owner: Option<String>,
    version: u64,
    content: Value,
}

#[derive(Clone, Default)]
struct State {
    /// The leak-secret defect: the code is shown as it is.
    leaks: bool,
    windows: Vec<Win>,
    next_id: u64,
    title: String,
    code: String,
}

struct Refusal(Value);

fn refuse(code: &str, message: &str) -> Refusal {
    Refusal(json!({"code": code, "message": message}))
}

impl State {
    fn new(defect: &str) -> Self {
        let mut state = Self { next_id: 1, leaks: defect == "leak-secret", ..Self::default() };
        state.open(Kind::Note, None, None);
        state
    }

    fn content(&self, kind: Kind, leak: bool) -> Value {
        match kind {
            Kind::Note => {
                let code = if leak {
                    self.code.clone()
                } else if self.code.is_empty() {
                    String::new()
                } else {
                    "••••••".into()
                };
                let mut blocks = vec![json!({"type": "fields", "id": "b1", "items": [
                    {"label": "Title", "value": self.title},
                    {"label": "Code", "value": code, "sensitive": true}]})];
                if self.title.is_empty() {
                    blocks.push(json!({"type": "notice", "id": "b2", "severity": "warn", "text": "The note has no title"}));
                }
                json!({"summary": format!("A note titled {:?}", self.title), "blocks": blocks})
            }
            Kind::Confirm => json!({"summary": "Asks whether to delete the note",
                "blocks": [{"type": "text", "id": "b1", "text": "Delete the note?"}]}),
        }
    }

    fn open(&mut self, kind: Kind, owner: Option<String>, fixed_id: Option<&str>) -> String {
        let id = match fixed_id {
            Some(id) => id.to_owned(),
            None => {
                let id = format!("w{}", self.next_id);
                self.next_id += 1;
                id
            }
        };
        let content = self.content(kind, self.leaks);
        self.windows.push(Win { id: id.clone(), kind, owner, version: 1, content });
        id
    }

    fn operable(&self) -> Vec<String> {
        self.windows
            .iter()
            .filter(|w| !self.windows.iter().any(|c| c.owner.as_deref() == Some(&w.id)))
            .map(|w| w.id.clone())
            .collect()
    }

    fn actions(kind: Kind) -> &'static [&'static str] {
        match kind {
            Kind::Note => &["set_title", "set_code", "delete"],
            Kind::Confirm => &["confirm", "cancel"],
        }
    }

    fn tool_names(&self, defect: &str) -> Vec<String> {
        let operable = self.operable();
        let mut names: Vec<String> = self
            .windows
            .iter()
            .filter(|w| defect == "list-blocked" || operable.contains(&w.id))
            .flat_map(|w| Self::actions(w.kind).iter().map(move |a| format!("{}__{a}", w.id)))
            // The unlisted-action defect: an available action missing from
            // tools/list (app__read_windows still offers it).
            .filter(|name| defect != "unlisted-action" || !name.ends_with("__set_code"))
            .collect();
        names.push("app__reset".into());
        names.push("app__read_windows".into());
        if defect == "pages-nothing" {
            names.push("app__act".into());
        }
        names
    }

    /// Purview's app__read_windows extension: the snapshot plus, for each
    /// operable window (and "app"), its available actions as signatures.
    ///
    /// The pages-nothing defect (a §9 SHOULD, not a MUST): `set_title` says
    /// it pages a table `history` the note does not have.
    fn read_windows(&self, defect: &str) -> Value {
        let mut result = self.snapshot(defect);
        let marks = |action: &str| {
            if defect == "pages-nothing" && action == "set_title" {
                " [pages table history]"
            } else {
                ""
            }
        };
        let mut actions: Map<String, Value> = self
            .windows
            .iter()
            .filter(|w| self.operable().contains(&w.id))
            .map(|w| {
                let list = Self::actions(w.kind)
                    .iter()
                    .map(|a| json!(format!("{a}(){}", marks(a))))
                    .collect();
                (w.id.clone(), Value::Array(list))
            })
            .collect();
        actions.insert("app".into(), json!(["reset()"]));
        result["actions"] = Value::Object(actions);
        result
    }

    fn snapshot(&self, _defect: &str) -> Value {
        let windows: Vec<Value> = self
            .windows
            .iter()
            .map(|w| {
                let content = &w.content;
                json!({"id": w.id, "title": if w.kind == Kind::Note { "Note" } else { "Confirm delete" },
                       "modal": w.owner.is_some(), "ownerId": w.owner, "version": w.version,
                       "summary": content["summary"], "blocks": content["blocks"]})
            })
            .collect();
        json!({"operableWindowIds": self.operable(), "windows": windows})
    }

    /// Checks and applies one call; the §5.4 result, or the §7.4 error.
    fn apply(
        &mut self,
        name: &str,
        mut args: Map<String, Value>,
        defect: &str,
    ) -> Result<Value, Refusal> {
        let (target, action) =
            name.split_once("__").ok_or_else(|| refuse("action_not_available", "no such tool"))?;
        let window = if target == "app" {
            None
        } else {
            let w = self
                .windows
                .iter()
                .find(|w| w.id == target)
                .ok_or_else(|| refuse("window_not_found", "no such window"))?;
            if !Self::actions(w.kind).contains(&action) {
                return Err(refuse("action_not_available", "no such action"));
            }
            if !self.operable().contains(&w.id) {
                return Err(refuse("blocked_by_modal", "a dialog is open on this window"));
            }
            if let Some(expected) = args.remove("expectedVersion")
                && expected.as_u64() != Some(w.version)
            {
                return Err(Refusal(
                    json!({"code": "stale_state", "message": "the window changed",
                                          "currentVersion": w.version}),
                ));
            }
            Some((w.id.clone(), w.kind))
        };
        if window.is_none() && action != "reset" {
            return Err(refuse("action_not_available", "no such app action"));
        }
        let text = |args: &Map<String, Value>, key: &str, min: usize| -> Result<String, Refusal> {
            match args.get(key).and_then(Value::as_str) {
                Some(s) if s.chars().count() >= min => Ok(s.to_owned()),
                _ => Err(Refusal(json!({"code": "validation_failed", "message": "bad arguments",
                                        "fields": [{"field": key, "error": "must be a string"}]}))),
            }
        };
        let params: &[&str] = match action {
            "set_title" => &["title"],
            "set_code" => &["code"],
            _ => &[],
        };
        if let Some(extra) = args.keys().find(|k| !params.contains(&k.as_str())) {
            return Err(Refusal(json!({"code": "validation_failed", "message": "bad arguments",
                                      "fields": [{"field": extra, "error": "unknown argument"}]})));
        }
        let mut opened = Vec::new();
        let mut noop_bump = false;
        match (window, action) {
            (Some(_), "set_title") => {
                let title = text(&args, "title", 1)?;
                noop_bump = defect == "version-noop" && title == self.title;
                self.title = title;
            }
            (Some(_), "set_code") => self.code = text(&args, "code", 0)?,
            (Some((id, _)), "delete") => {
                let fixed = (defect == "reuse-id").then_some("w2");
                opened.push(self.open(Kind::Confirm, Some(id), fixed));
            }
            (Some((id, _)), "confirm" | "cancel") => {
                if action == "confirm" {
                    self.title.clear();
                    self.code.clear();
                }
                self.windows.retain(|w| w.id != id);
            }
            _ => {
                self.title.clear();
                self.code.clear();
            }
        }
        for i in 0..self.windows.len() {
            let now = self.content(self.windows[i].kind, self.leaks);
            let w = &mut self.windows[i];
            if now != w.content || (noop_bump && w.kind == Kind::Note) {
                w.content = now;
                w.version += 1;
            }
        }
        Ok(json!({"message": format!("{action} done"), "openedWindowIds": opened}))
    }
}

#[derive(Clone)]
struct Mutant {
    defect: String,
    state: Arc<std::sync::Mutex<State>>,
    ops: Arc<tokio::sync::Mutex<()>>,
    subscribed: Arc<std::sync::atomic::AtomicBool>,
}

fn tool(name: &str) -> Tool {
    let action = name.rsplit("__").next().unwrap_or(name);
    let mut properties = Map::new();
    if !name.starts_with("app__") {
        properties.insert("expectedVersion".into(), json!({"type": "integer", "minimum": 0}));
    }
    match action {
        "set_title" => {
            properties.insert("title".into(), json!({"type": "string", "minLength": 1}));
        }
        "set_code" => {
            properties.insert("code".into(), json!({"type": "string", "writeOnly": true}));
        }
        _ => {}
    }
    let required: Vec<&str> = match action {
        "set_title" => vec!["title"],
        "set_code" => vec!["code"],
        _ => vec![],
    };
    let input = json!({"type": "object", "properties": properties, "required": required,
                       "additionalProperties": false});
    let output = json!({"type": "object", "properties": {"message": {"type": "string"},
        "openedWindowIds": {"type": "array", "items": {"type": "string"}}}});
    let mut t = Tool::new(
        name.to_owned(),
        format!("{action} in the note app"),
        Arc::new(input.as_object().cloned().unwrap_or_default()),
    );
    t.output_schema = Some(Arc::new(output.as_object().cloned().unwrap_or_default()));
    t.annotations = Some(
        ToolAnnotations::new()
            .read_only(false)
            .destructive(false)
            .idempotent(false)
            .open_world(false),
    );
    t
}

impl ServerHandler for Mutant {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_subscribe()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("gui-bridge-mutant", "0"))
            .with_instructions("Read app://windows; pass expectedVersion with writes.")
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(URI, "windows")]))
    }

    async fn read_resource(
        &self,
        _request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let text = self.state.lock().unwrap().snapshot(&self.defect).to_string();
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, URI).with_mime_type("application/json"),
        ])
        .into())
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscribed.store(true, std::sync::atomic::Ordering::Release);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let names = self.state.lock().unwrap().tool_names(&self.defect);
        Ok(ListToolsResult::with_all_items(names.iter().map(|n| tool(n)).collect()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let _serialized = self.ops.lock().await;
        let defect = self.defect.as_str();
        let args = request.arguments.clone().unwrap_or_default();
        let (before, names) = {
            let state = self.state.lock().unwrap();
            (state.snapshot(defect), state.tool_names(defect))
        };
        if request.name == "app__read_windows" {
            let result = self.state.lock().unwrap().read_windows(defect);
            return Ok(CallToolResult::structured(result).into());
        }
        // Purview's app__act: the action a read offered, by window and name.
        let (name, args) = if request.name == "app__act" {
            let target = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default();
            let inner = args.get("arguments").and_then(Value::as_object).cloned();
            (format!("{}__{}", target("window"), target("action")), inner.unwrap_or_default())
        } else {
            (request.name.to_string(), args)
        };
        let subscribed = self.subscribed.load(std::sync::atomic::Ordering::Acquire);
        if defect == "notify-early" && subscribed {
            let mut trial = self.state.lock().unwrap().clone();
            if trial.apply(&name, args.clone(), defect).is_ok() && trial.snapshot(defect) != before
            {
                let _ = context
                    .peer
                    .notify_resource_updated(ResourceUpdatedNotificationParam::new(URI))
                    .await;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        let outcome = self.state.lock().unwrap().apply(&name, args, defect);
        let result = match outcome {
            Ok(body) => CallToolResult::structured(body),
            Err(Refusal(body)) => {
                if defect == "jsonrpc-error" && body["code"] == "validation_failed" {
                    return Err(McpError::invalid_params("bad arguments", Some(body)));
                }
                CallToolResult::structured_error(body)
            }
        };
        let (after, names_after) = {
            let state = self.state.lock().unwrap();
            (state.snapshot(defect), state.tool_names(defect))
        };
        if subscribed && defect == "no-list-changed-late-update" && after != before {
            let peer = context.peer.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(150)).await;
                let _ =
                    peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(URI)).await;
            });
        } else if subscribed && defect != "notify-early" && after != before {
            let _ = context
                .peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(URI))
                .await;
        }
        if !defect.starts_with("no-list-changed") && names_after != names {
            let _ = context.peer.notify_tool_list_changed().await;
        }
        Ok(result.into())
    }
}

/// Serves the note app with `defect` planted ("" for none) on stdio.
pub async fn serve(defect: &str) {
    let server = Mutant {
        defect: defect.to_owned(),
        state: Arc::new(std::sync::Mutex::new(State::new(defect))),
        ops: Arc::default(),
        subscribed: Arc::default(),
    };
    if let Ok(running) = server.serve(rmcp::transport::stdio()).await {
        let _ = running.waiting().await;
    }
}
