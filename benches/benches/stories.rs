//! The story suite (BENCHMARKS.md, "The story suite"): six stories on
//! order_desk, each done by the same frugal scripted agent — its host
//! lists tools once, never reads resources and shows the model
//! `structuredContent`, and reads only the windows a story is about once it
//! knows their ids — on Purview's `both` and `dispatcher` surfaces and
//! on the hand-written task server (`purview_benches::task_server`), whose
//! tools were written for these stories. For each story and route: the
//! bytes the model reads (the tools/list part a model sees, then every
//! answer), the calls made, and whether the story finished.
//!
//! Sizes are of compact JSON in UTF-8 and do not vary between runs.
//! `cargo bench -p purview-benches --bench stories`

#[path = "../../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod order_desk;

use purview::{App, settings::ToolSurface};
use purview_benches::{task_server::TaskServer, tools_list_bytes};
use serde_json::{Value, json};

fn size(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

/// What one route read and did in one story.
#[derive(Default)]
struct Tally {
    bytes: usize,
    calls: usize,
    finished: bool,
}

/// The frugal agent on a Purview app: per-window tools where tools/list
/// has them, `app__act` otherwise.
struct OnPurview {
    app: App,
    listed: Vec<String>,
    /// Whether the agent knows the window ids yet: from tools/list on the
    /// `both` surface, from its first read on `dispatcher`.
    knows_ids: bool,
    tally: Tally,
}

impl OnPurview {
    fn new(surface: ToolSurface) -> Self {
        let app = order_desk::order_desk_app(surface);
        let listed = app.tool_names().expect("names");
        let tally = Tally { bytes: tools_list_bytes(&app), ..Tally::default() };
        let knows_ids = listed.iter().any(|t| t.starts_with("w1__"));
        Self { app, listed, knows_ids, tally }
    }

    fn dispatcher(&self) -> bool {
        !self.listed.iter().any(|t| t.starts_with("w1__"))
    }

    /// Reads every window.
    async fn read(&mut self) -> Value {
        self.knows_ids = true;
        self.send("app__read_windows", None).await.unwrap_or_default()
    }

    /// Reads only `windows` once it knows the ids, every window before.
    async fn read_only(&mut self, windows: &[&str]) -> Value {
        if !self.knows_ids {
            return self.read().await;
        }
        let only = json!({"windows": windows});
        self.send("app__read_windows", only.as_object().cloned()).await.unwrap_or_default()
    }

    /// `action` of `window` (`app` for the app's own): the answer, or the error.
    async fn act(&mut self, window: &str, action: &str, arguments: Value) -> Result<Value, Value> {
        let direct = purview::naming::tool_name(window, action);
        if self.listed.contains(&direct) {
            let arguments = arguments.as_object().cloned();
            return self.send(&direct, arguments).await;
        }
        let mut act = json!({"window": window, "action": action, "arguments": arguments});
        if let Some(version) =
            act["arguments"].as_object_mut().and_then(|a| a.remove("expectedVersion"))
        {
            act["expectedVersion"] = version;
        }
        self.send("app__act", act.as_object().cloned()).await
    }

    async fn send(
        &mut self,
        tool: &str,
        arguments: Option<purview::model::JsonObject>,
    ) -> Result<Value, Value> {
        let outcome = self.app.call(tool, arguments).outcome().await;
        self.tally.calls += 1;
        self.tally.bytes += size(&outcome.structured);
        if outcome.is_error { Err(outcome.structured) } else { Ok(outcome.structured) }
    }

    /// Reads, fills in the recipient and submits: the confirmation dialog
    /// the submit opened, when both calls succeeded.
    async fn fill_and_submit(&mut self) -> Option<String> {
        self.read_only(&["w1"]).await;
        let fill = json!({"field": "recipient", "value": "Ada Lovelace"});
        let filled = self.act("w1", "edit_field", fill).await;
        let submitted = self.act("w1", "submit", json!({})).await;
        filled.ok()?;
        opened(&submitted.ok()?)
    }

    /// The version of `window` in a read.
    fn version(read: &Value, window: &str) -> Option<u64> {
        read["windows"].as_array()?.iter().find(|w| w["id"] == window)?["version"].as_u64()
    }
}

/// The first window an answer says it opened.
fn opened(answer: &Value) -> Option<String> {
    answer["openedWindowIds"][0].as_str().map(str::to_owned)
}

/// The same frugal agent on the hand-written task server.
struct OnTaskServer {
    server: TaskServer,
    tally: Tally,
}

impl OnTaskServer {
    fn new() -> Self {
        let tools: Vec<Value> = TaskServer::tools()
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
            .collect();
        let tally = Tally { bytes: size(&Value::Array(tools)), ..Tally::default() };
        Self { server: TaskServer::default(), tally }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Result<Value, Value> {
        let answer = self.server.call(tool, &arguments);
        self.tally.calls += 1;
        self.tally.bytes += size(answer.as_ref().unwrap_or_else(|e| e));
        answer
    }
}

const STORIES: [&str; 6] = [
    "order",
    "revenue of row 9,999",
    "lock, a wrong PIN, unlock",
    "second report, close the first",
    "stale_state after the person's edit",
    "Terms, then back out",
];

/// One story on Purview; `true` when it finished.
async fn purview_story(story: usize, agent: &mut OnPurview) -> bool {
    // On the dispatcher surface the agent learns the actions from a read;
    // the stories that begin with one (0, 4 and 5) need no other.
    if agent.dispatcher() && ![0, 4, 5].contains(&story) {
        agent.read().await;
    }
    let ok = |r: &Result<Value, Value>| r.is_ok();
    match story {
        0 => {
            let Some(dialog) = agent.fill_and_submit().await else { return false };
            let confirmed = agent.act(&dialog, "confirm", json!({})).await;
            let check = agent.read_only(&["w1"]).await;
            ok(&confirmed) && check.to_string().contains("submitted")
        }
        1 => {
            let page = agent.act("w2", "load_rows", json!({"offset": 9_998, "limit": 1})).await;
            page.is_ok_and(|p| p["result"]["rows"][0][2].is_number())
        }
        2 => {
            let Ok(locked) = agent.act("app", "lock", json!({})).await else { return false };
            let Some(lock) = opened(&locked) else { return false };
            let wrong = agent.act(&lock, "unlock", json!({"pin": "0000"})).await;
            let right = agent.act(&lock, "unlock", json!({"pin": order_desk::UNLOCK_PIN})).await;
            wrong.is_err() && ok(&right)
        }
        3 => {
            let opened = agent.act("app", "new_report", json!({})).await;
            let closed = agent.act("w2", "close", json!({})).await;
            ok(&opened) && ok(&closed)
        }
        4 => {
            let read = agent.read_only(&["w1"]).await;
            let Some(seen) = OnPurview::version(&read, "w1") else { return false };
            // The person types a recipient while the agent thinks.
            let editor = agent.app.window::<order_desk::OrderEditor>("w1").expect("the editor");
            editor.update(|e| e.recipient = "Grace Hopper".into()).expect("the person's edit");
            let fill = json!({"field": "amount", "value": "$120.00", "expectedVersion": seen});
            let Err(stale) = agent.act("w1", "edit_field", fill.clone()).await else {
                return false;
            };
            let Some(current) = stale["currentVersion"].as_u64() else { return false };
            let retry = json!({"field": "amount", "value": "$120.00", "expectedVersion": current});
            ok(&agent.act("w1", "edit_field", retry).await)
        }
        _ => {
            let Some(dialog) = agent.fill_and_submit().await else { return false };
            let Ok(shown) = agent.act(&dialog, "show_terms", json!({})).await else { return false };
            let Some(terms) = opened(&shown) else { return false };
            let closed = agent.act(&terms, "close", json!({})).await;
            let cancelled = agent.act(&dialog, "cancel", json!({})).await;
            ok(&closed) && ok(&cancelled)
        }
    }
}

/// One story on the task server; `true` when it finished.
fn task_story(story: usize, agent: &mut OnTaskServer) -> bool {
    match story {
        0 => {
            agent.call("get_order", json!({})).ok();
            let set = agent.call("set_recipient", json!({"name": "Ada Lovelace"}));
            let submitted = agent.call("submit_order", json!({}));
            let confirmed = agent.call("confirm", json!({}));
            let check = agent.call("get_order", json!({}));
            set.is_ok()
                && submitted.is_ok()
                && confirmed.is_ok()
                && check.is_ok_and(|o| o["status"] == "submitted")
        }
        1 => agent
            .call("report_rows", json!({"offset": 9_998, "limit": 1}))
            .is_ok_and(|p| p["rows"][0][2].is_number()),
        2 => {
            let locked = agent.call("lock", json!({}));
            let wrong = agent.call("unlock", json!({"pin": "0000"}));
            let right = agent.call("unlock", json!({"pin": order_desk::UNLOCK_PIN}));
            locked.is_ok() && wrong.is_err() && right.is_ok()
        }
        3 => {
            let opened = agent.call("open_report", json!({}));
            let closed = agent.call("close_report", json!({"id": 1}));
            opened.is_ok() && closed.is_ok()
        }
        4 => {
            let Ok(order) = agent.call("get_order", json!({})) else { return false };
            let seen = order["version"].as_u64();
            agent.server.person_sets_recipient("Grace Hopper");
            let Err(stale) =
                agent.call("set_recipient", json!({"name": "Ada Lovelace", "version": seen}))
            else {
                return false;
            };
            let retry = json!({"name": "Ada Lovelace", "version": stale["version"]});
            agent.call("set_recipient", retry).is_ok()
        }
        _ => {
            agent.call("get_order", json!({})).ok();
            let set = agent.call("set_recipient", json!({"name": "Ada Lovelace"}));
            let submitted = agent.call("submit_order", json!({}));
            let terms = agent.call("terms", json!({}));
            let cancelled = agent.call("cancel", json!({}));
            set.is_ok() && submitted.is_ok() && terms.is_ok() && cancelled.is_ok()
        }
    }
}

/// The bytes of tools/list's names and input schemas with every title and
/// description taken out: how small the default surface's list could get
/// by cutting words alone.
fn bare_tools_list_bytes(app: &App) -> usize {
    // `names`: the map is one of property names (`properties`), whose keys
    // are arguments, never keywords.
    fn bare(value: &Value, names: bool) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| names || (*k != "description" && *k != "title"))
                    .map(|(k, v)| (k.clone(), bare(v, !names && k == "properties")))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|v| bare(v, false)).collect()),
            other => other.clone(),
        }
    }
    let tools = app.tools().expect("tools");
    let listed: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t.name, "inputSchema": bare(&Value::Object((*t.input_schema).clone()), false)}))
        .collect();
    size(&Value::Array(listed))
}

/// A route's bytes, calls and whether it finished, as a table cell.
fn summary(tally: &Tally) -> String {
    let calls = if tally.calls == 1 { "call" } else { "calls" };
    let done = if tally.finished { "yes" } else { "**no**" };
    format!("{} B, {} {calls}, {done}", tally.bytes, tally.calls)
}

/// [`summary`] with the ratio of the route's bytes to the task server's.
fn cell(tally: &Tally, floor: usize) -> String {
    format!("{} ({:.2})", summary(tally), tally.bytes as f64 / floor as f64)
}

#[tokio::main]
async fn main() {
    println!(
        "| story | hand-written task server | Purview `both` (ratio) | Purview `dispatcher` (ratio) |"
    );
    println!("|---|---|---|---|");
    let mut worst: f64 = 0.0;
    for (story, name) in STORIES.iter().enumerate() {
        let mut task = OnTaskServer::new();
        task.tally.finished = task_story(story, &mut task);
        let mut both = OnPurview::new(ToolSurface::Both);
        both.tally.finished = purview_story(story, &mut both).await;
        let mut dispatcher = OnPurview::new(ToolSurface::Dispatcher);
        dispatcher.tally.finished = purview_story(story, &mut dispatcher).await;
        let floor = task.tally.bytes.max(1);
        worst = worst.max(both.tally.bytes as f64 / floor as f64);
        println!(
            "| {name} | {} | {} | {} |",
            summary(&task.tally),
            cell(&both.tally, floor),
            cell(&dispatcher.tally, floor)
        );
        for (route, tally) in
            [("task server", &task.tally), ("both", &both.tally), ("dispatcher", &dispatcher.tally)]
        {
            assert!(tally.finished, "story `{name}` did not finish on {route}");
        }
    }
    let listed = |tally: &Tally| tally.bytes;
    println!(
        "\nThe tools/list part a model reads, before any call: task server {} B, Purview `both` {} B, `dispatcher` {} B.",
        listed(&OnTaskServer::new().tally),
        listed(&OnPurview::new(ToolSurface::Both).tally),
        listed(&OnPurview::new(ToolSurface::Dispatcher).tally),
    );
    println!(
        "With every title and description taken out (a list no model could use), tools/list on `both` would still be {} B.",
        bare_tools_list_bytes(&OnPurview::new(ToolSurface::Both).app)
    );
    println!("Purview's default surface, worst story: {worst:.2}x the hand-written task server");
}
