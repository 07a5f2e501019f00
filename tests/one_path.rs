//! One call path: whichever way a call is made — awaited, `.outcome()`, or
//! an agent's `tools/call` over MCP on either protocol generation — it
//! goes through the same phases and ends in the same answer. Each story is
//! run on a fresh app per way of calling, so every way starts from the
//! same state, on the `both` surface (tool names and `app__act`) and on
//! the `dispatcher` surface (`app__act` only).

use anyhow::Result;
use purview::{
    App, Context, Performed, ToolError,
    approval::{Approval, WhoApproves},
    prelude::*,
    settings::ToolSurface,
};
use purview_tests::Agent;
use serde_json::{Map, Value, json};

#[window(summary = "An order of {amount}")]
#[derive(Clone, Default)]
struct Order {
    #[block(field)]
    amount: u32,
}

#[window(summary = "Sent")]
#[derive(Clone, Default)]
struct Receipt;

#[actions]
impl Receipt {}

#[actions]
impl Order {
    /// Sets the amount, from 1 to 1,000.
    #[action]
    fn set_amount(&mut self, #[arg(range(min = 1, max = 1000))] amount: u32) {
        self.amount = amount;
    }

    /// Prints the order; the printer is out of paper.
    #[action]
    fn print(&mut self) -> Result<(), String> {
        Err("the printer is out of paper".into())
    }

    /// Sends the order, opening its receipt.
    #[action]
    fn send(&mut self, cx: &mut Context) -> Result<(), ToolError> {
        cx.open_modal(Receipt).map_err(|e| ToolError::from(e.to_string()))?;
        Ok(())
    }

    /// Deletes the order.
    #[action(destructive, approval)]
    fn delete(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// One story: a call, after the person may have edited the order.
struct Story {
    name: &'static str,
    /// The action and its own arguments.
    action: &'static str,
    arguments: Value,
    /// The person sets the amount first, and the agent's call still
    /// expects the version before it.
    stale: bool,
}

fn stories() -> Vec<Story> {
    let story = |name, action, arguments, stale| Story { name, action, arguments, stale };
    vec![
        story("validation_failed", "set_amount", json!({"amount": 0}), false),
        story("stale_state", "set_amount", json!({"amount": 7}), true),
        story("declined approval", "delete", json!({}), false),
        story("failing handler", "print", json!({}), false),
        story("success that opens a window", "send", json!({}), false),
        story("success", "set_amount", json!({"amount": 12}), false),
    ]
}

/// Ways of making a call.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Way {
    Awaited,
    Outcome,
    McpLegacy,
    McpModern,
}

const WAYS: [Way; 4] = [Way::Awaited, Way::Outcome, Way::McpLegacy, Way::McpModern];

fn app_on(surface: ToolSurface) -> Result<(App, String)> {
    let app = App::builder()
        .tool_surface(surface)
        .who_approves(WhoApproves::policy(|_| Approval::Decline))
        .build();
    let order = app.open(Order { amount: 3 })?;
    Ok((app, order.id().to_owned()))
}

/// The tool name and arguments an agent sends for `story`: by its own
/// tool name, or dispatched through `app__act`.
fn request(story: &Story, window: &str, version: u64, dispatched: bool) -> (String, Value) {
    let mut own = story.arguments.as_object().cloned().unwrap_or_default();
    if story.stale {
        own.insert("expectedVersion".into(), json!(version));
    }
    if dispatched {
        let arguments = json!({"window": window, "action": story.action, "arguments": own});
        ("app__act".to_owned(), arguments)
    } else {
        (format!("{window}__{}", story.action), Value::Object(own))
    }
}

/// The wire form of an awaited call: what `structuredContent` and
/// `isError` would carry.
fn awaited_wire(done: Result<Performed<Option<Value>>, ToolError>) -> (bool, Value) {
    match done {
        Err(error) => (true, serde_json::to_value(error).unwrap()),
        Ok(done) => {
            let mut wire = Map::new();
            if let Some(message) = done.message {
                wire.insert("message".into(), json!(message));
            }
            if !done.opened_window_ids.is_empty() {
                wire.insert("openedWindowIds".into(), json!(done.opened_window_ids));
            }
            if let Some(result) = done.value {
                wire.insert("result".into(), result);
            }
            if let Some(next) = done.next {
                wire.insert("next".into(), serde_json::to_value(next).unwrap());
            }
            if let Some(by) = done.approved_by {
                wire.insert("approvedBy".into(), serde_json::to_value(by).unwrap());
            }
            (false, Value::Object(wire))
        }
    }
}

/// Runs `story` on a fresh app, the way `way` makes calls.
async fn run(
    story: &Story,
    surface: ToolSurface,
    way: Way,
    dispatched: bool,
) -> Result<(bool, Value)> {
    let (app, window) = app_on(surface)?;
    let before = app.window::<Order>(&window)?;
    let version = before.version()?;
    if story.stale {
        before.act().set_amount(5).await?;
    }
    let (tool, arguments) = request(story, &window, version, dispatched);
    let object = arguments.as_object().cloned();
    Ok(match way {
        Way::Awaited => awaited_wire(app.call(&tool, object).await),
        Way::Outcome => {
            let outcome = app.call(&tool, object).outcome().await;
            (outcome.is_error, outcome.structured)
        }
        Way::McpLegacy | Way::McpModern => {
            let agent = match way {
                Way::McpLegacy => Agent::legacy(&app).await?,
                _ => Agent::modern(&app).await?,
            };
            let outcome = agent.call(&tool, arguments).await?;
            agent.close().await?;
            (outcome.is_error, outcome.structured)
        }
    })
}

/// Every story ends the same whichever way it is called, on `surface`.
async fn same_answer_every_way(surface: ToolSurface, dispatched: bool) -> Result<()> {
    for story in stories() {
        let first = run(&story, surface, WAYS[0], dispatched).await?;
        for way in &WAYS[1..] {
            let other = run(&story, surface, *way, dispatched).await?;
            assert_eq!(
                first, other,
                "{} on {surface:?} (dispatched: {dispatched}): awaited and {way:?} disagree",
                story.name
            );
        }
        // The stories end as their names say.
        let (is_error, answer) = first;
        let code = answer["code"].as_str();
        match story.name {
            "validation_failed" => assert_eq!(code, Some("validation_failed")),
            "stale_state" => assert_eq!(code, Some("stale_state")),
            "declined approval" => assert_eq!(code, Some("approval_denied")),
            "failing handler" => assert_eq!(code, Some("action_failed")),
            "success that opens a window" => {
                assert!(!is_error, "{answer}");
                assert_eq!(answer["openedWindowIds"].as_array().map(Vec::len), Some(1));
            }
            _ => assert!(!is_error, "{answer}"),
        }
        if dispatched && story.name == "validation_failed" {
            // The line the agent built its call from, to correct it by.
            let signature = answer["signature"].as_str().unwrap_or_default();
            assert!(signature.starts_with("set_amount("), "{answer}");
        }
    }
    Ok(())
}

#[tokio::test]
async fn s5_4_every_way_of_calling_a_tool_by_name_gives_the_same_answer_on_both() -> Result<()> {
    same_answer_every_way(ToolSurface::Both, false).await
}

#[tokio::test]
async fn s5_4_every_way_of_dispatching_through_app_act_gives_the_same_answer_on_both() -> Result<()>
{
    same_answer_every_way(ToolSurface::Both, true).await
}

#[tokio::test]
async fn s5_4_every_way_of_dispatching_gives_the_same_answer_on_the_dispatcher_surface()
-> Result<()> {
    same_answer_every_way(ToolSurface::Dispatcher, true).await
}
