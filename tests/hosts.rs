//! The reference app as most MCP hosts really drive it: a client that lists
//! tools once and never again, never reads resources, rejects any tool name
//! that was not in that first list before it reaches the server, and looks
//! only at `structuredContent` (see notes on hosts in the README). On the
//! default surface and on `dispatcher` it still completes the whole story —
//! fill in the recipient, submit, confirm the dialog it never saw listed,
//! lock, unlock with the PIN; on the protocol's own surface it gets stuck at
//! the first dialog, which is why the default exists.

use std::{collections::BTreeSet, process::Stdio};

use anyhow::{Context as _, Result, bail, ensure};
use purview_tests::{Agent, Note};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

const ORDER_DESK: &str = env!("CARGO_BIN_EXE_order_desk");
const PIN: &str = "1234";

/// A host with a frozen tool list.
struct FrozenHost {
    agent: Agent,
    listed: BTreeSet<String>,
}

impl FrozenHost {
    /// Starts order_desk on `surface` and lists its tools, once.
    async fn start(surface: &str) -> Result<Self> {
        let mut command = tokio::process::Command::new(ORDER_DESK);
        command.args(["--tools", surface]);
        let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn()?;
        let agent = Agent::over(transport).await?;
        let listed = agent.tool_names().await?.into_iter().collect();
        Ok(Self { agent, listed })
    }

    /// Calls a tool the way a host does: only names from the first list
    /// reach the server, and only structuredContent comes back.
    async fn call(&self, tool: &str, arguments: Value) -> Result<Result<Value, Value>> {
        if !self.listed.contains(tool) {
            bail!("the host refuses `{tool}`: it was not in the tool list it fetched at the start");
        }
        let outcome = self.agent.call(tool, arguments).await?;
        Ok(if outcome.is_error { Err(outcome.structured) } else { Ok(outcome.structured) })
    }

    /// What a model that sees only structuredContent knows about the app.
    async fn look(&self) -> Result<Value> {
        self.call("app__read_windows", json!({})).await?.map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// Acts in `window` the way a model would: through the window's own tool
    /// when the frozen list has it, through app__act otherwise.
    async fn act(
        &self,
        window: &str,
        action: &str,
        mut arguments: Value,
    ) -> Result<Result<Value, Value>> {
        let direct = format!("{window}__{action}");
        if self.listed.contains(&direct) {
            return self.call(&direct, arguments).await;
        }
        let version = arguments.as_object_mut().and_then(|a| a.remove("expectedVersion"));
        let mut act = json!({"window": window, "action": action, "arguments": arguments});
        if let Some(version) = version {
            act["expectedVersion"] = version;
        }
        self.call("app__act", act).await
    }
}

/// The window titled `title` in a read_windows answer.
fn titled<'a>(view: &'a Value, title: &str) -> Result<&'a Value> {
    view["windows"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|w| w["title"] == title)
        .with_context(|| format!("no window titled {title:?} in {view}"))
}

fn ok(outcome: Result<Value, Value>) -> Result<Value> {
    outcome.map_err(|e| anyhow::anyhow!("the call failed: {e}"))
}

/// The order story, seen through structuredContent only.
async fn order_story(host: &FrozenHost) -> Result<()> {
    let view = host.look().await?;
    let editor = titled(&view, "Order Editor")?;
    let (w, version) = (editor["id"].as_str().context("id")?.to_owned(), editor["version"].clone());
    let actions: Vec<&str> = view["actions"][&w]
        .as_array()
        .context("actions")?
        .iter()
        .filter_map(|a| a.as_str()?.split('(').next())
        .collect();
    ensure!(actions.contains(&"edit_field"), "the editor's actions are listed: {actions:?}");

    let filled = ok(host
        .act(
            &w,
            "edit_field",
            json!({"field": "recipient", "value": "Ada Lovelace", "expectedVersion": version}),
        )
        .await?)?;
    // Submitting became possible: the answer itself says so.
    ensure!(
        filled["next"]["actions"][&w].as_array().is_some_and(|a| a.contains(&json!("submit"))),
        "{filled}"
    );

    let submitted = ok(host.act(&w, "submit", json!({})).await?)?;
    let dialog = submitted["openedWindowIds"][0].as_str().context("a dialog opened")?.to_owned();
    ensure!(
        submitted["next"]["actions"][&dialog] == json!(["confirm", "cancel", "show_terms"]),
        "the answer names the dialog's actions: {submitted}"
    );
    ensure!(
        !host.listed.contains(&format!("{dialog}__confirm")),
        "the frozen list cannot know the dialog"
    );

    // The editor is blocked now; the error says how to proceed.
    let blocked = host.act(&w, "edit_field", json!({"field": "amount", "value": "5"})).await?;
    let blocked = blocked.err().context("the blocked editor must refuse")?;
    ensure!(
        blocked["code"] == "blocked_by_modal" && blocked["blockedBy"] == dialog.as_str(),
        "{blocked}"
    );
    ensure!(blocked["message"].as_str().unwrap_or_default().contains("app__act"), "{blocked}");

    let confirmed = ok(host.act(&dialog, "confirm", json!({})).await?)?;
    ensure!(confirmed["message"] == "Order #12345 submitted", "{confirmed}");
    let view = host.look().await?;
    ensure!(
        titled(&view, "Order Editor")?["summary"]
            == "Order #12345 has been submitted to Ada Lovelace",
        "{view}"
    );

    let locked = ok(host.act("app", "lock", json!({})).await?)?;
    let lock = locked["openedWindowIds"][0].as_str().context("the lock screen opened")?.to_owned();
    ensure!(locked["next"]["operableWindowIds"] == json!([lock]), "{locked}");
    ensure!(locked["next"]["actions"][&lock] == json!(["unlock"]), "{locked}");
    let wrong =
        host.act(&lock, "unlock", json!({"pin": "0000"})).await?.err().context("wrong PIN")?;
    ensure!(
        wrong["code"] == "validation_failed" && wrong["fields"][0]["field"] == "pin",
        "{wrong}"
    );
    let unlocked = ok(host.act(&lock, "unlock", json!({"pin": PIN})).await?)?;
    ensure!(unlocked["message"] == "Unlocked", "{unlocked}");
    let view = host.look().await?;
    ensure!(view["operableWindowIds"].as_array().is_some_and(|ids| ids.len() == 2), "{view}");
    Ok(())
}

#[tokio::test]
async fn s5_1_a_host_that_never_refreshes_finishes_the_story_on_the_default_surface() -> Result<()>
{
    let mut host = FrozenHost::start("both").await?;
    order_story(&host).await?;
    // Notifications went out (this surface does change its list); the host
    // ignored them, and it did not matter.
    assert!(host.agent.drain().await.contains(&Note::ToolsChanged));
    host.agent.close().await
}

#[tokio::test]
async fn s5_1_on_the_dispatcher_surface_the_tool_list_never_changes() -> Result<()> {
    let mut host = FrozenHost::start("dispatcher").await?;
    let before = host.agent.tool_names().await?;
    assert_eq!(before, ["app__act", "app__read_windows"]);
    order_story(&host).await?;
    assert_eq!(host.agent.tool_names().await?, before);
    let notes = host.agent.drain().await;
    assert!(
        !notes.contains(&Note::ToolsChanged),
        "no tools/list_changed on this surface: {notes:?}"
    );
    host.agent.close().await
}

#[tokio::test]
async fn s5_1_on_the_protocol_surface_a_frozen_host_cannot_reach_the_dialog() -> Result<()> {
    let host = FrozenHost::start("windows").await?;
    assert!(!host.listed.contains("app__act"));
    ok(host.call("w1__edit_field", json!({"field": "recipient", "value": "Ada"})).await?)?;
    let submitted = host.call("w1__submit", json!({})).await;
    // submit was not available when the list was fetched, so even it is out
    // of reach; so is the dialog it would open.
    assert!(submitted.is_err(), "the frozen list has no w1__submit");
    host.agent.close().await
}

#[tokio::test]
async fn s5_1_dispatcher_tool_definitions_are_byte_for_byte_the_same_after_the_story() -> Result<()>
{
    let host = FrozenHost::start("dispatcher").await?;
    let before = serde_json::to_value(host.agent.tools().await?)?;
    order_story(&host).await?;
    let after = serde_json::to_value(host.agent.tools().await?)?;
    ensure!(before == after, "tools/list changed:\nbefore {before}\nafter  {after}");
    ensure!(before[0]["name"] == "app__read_windows" && before[1]["name"] == "app__act");
    host.agent.close().await
}

#[tokio::test]
async fn s5_1_read_windows_lists_actions_as_tools_list_shows_them_and_can_narrow() -> Result<()> {
    let host = FrozenHost::start("both").await?;
    ok(host.call("w1__edit_field", json!({"field": "recipient", "value": "Ada"})).await?)?;
    let tools = host.agent.tools().await?;
    let whole = host.look().await?;
    let snapshot = host.agent.read_json().await?;
    ensure!(whole["windows"] == snapshot["windows"], "the same windows as app://windows");
    ensure!(whole["operableWindowIds"] == snapshot["operableWindowIds"]);
    ensure!(whole.get("schemas").is_none(), "full schemas only on request: {whole}");
    // Asked with schemas: every listed action carries the tool's own
    // inputSchema and annotations, and the tool's title starts with its own.
    let full = host.call("app__read_windows", json!({"schemas": true})).await?;
    let full = full.map_err(|e| anyhow::anyhow!("{e}"))?;
    ensure!(full["actions"] == whole["actions"], "the same signatures either way");
    let actions = full["actions"].as_object().context("actions")?;
    let mut compared = 0;
    for (window, list) in actions {
        let mut definitions = &full["schemas"][window];
        if let Some(same_as) = definitions.as_str() {
            definitions = &full["schemas"][same_as];
        }
        for signature in list.as_array().context("a list")? {
            let signature = signature.as_str().context("a signature")?;
            let action = signature.split('(').next().context("a name")?;
            let name = format!("{window}__{action}");
            let tool = tools.iter().find(|t| t.name == name).context(name.clone())?;
            let tool = serde_json::to_value(tool)?;
            let entry = &definitions[action];
            for key in ["inputSchema", "annotations"] {
                ensure!(
                    entry[key] == tool[key],
                    "{name}: {key} differs:\n{}\n{}",
                    entry[key],
                    tool[key]
                );
            }
            let title = entry["title"].as_str().context("a title")?;
            ensure!(
                tool["title"].as_str().is_some_and(|t| t.starts_with(title)),
                "{name}: {title}"
            );
            compared += 1;
        }
    }
    let window_tools =
        tools.iter().filter(|t| !t.name.starts_with("app__read") && t.name != "app__act");
    ensure!(compared == window_tools.count(), "every listed window tool appears under actions");
    // Narrowed to one window: its content and actions only, operability whole.
    let only = host.call("app__read_windows", json!({"windows": ["w1"]})).await?;
    let only = only.map_err(|e| anyhow::anyhow!("{e}"))?;
    let ids: Vec<&Value> =
        only["windows"].as_array().context("windows")?.iter().map(|w| &w["id"]).collect();
    ensure!(ids == [&json!("w1")], "{ids:?}");
    ensure!(only["operableWindowIds"] == whole["operableWindowIds"], "{only}");
    let keys: Vec<&String> = only["actions"].as_object().context("actions")?.keys().collect();
    ensure!(keys.iter().all(|k| *k == "w1" || *k == "app"), "{keys:?}");
    host.agent.close().await
}
