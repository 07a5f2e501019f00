//! The window card for MCP Apps hosts: the face's renderer in one
//! self-contained document (style and scripts inline, nothing fetched),
//! talking to the app only through the host, with two tools only the card
//! calls: the scene (waiting for its next change) and a call of an action.
//!
//! The host cannot tell the card's `tools/call` from the model's, so the
//! card's calls are the host's own calls of the actions' tools (the one
//! call path, with its gates and approvals), and it never answers an
//! approval question: it shows the question and where the person answers
//! it. The scene it shows a client holds the person's windows and only the
//! questions that client's own calls are waiting on.
//!
//! Why only `app__read_windows` carries the card: some hosts draw a new
//! card for every result that names one (claude.ai opens an iframe per
//! call), and a card beside each action's result is noise, since the read
//! is what the card explains. The read's result names its windows by id in
//! `structuredContent`, so a card knows what it shows without the host's
//! optional `toolInfo`, and shows that (with its time) when the app can no
//! longer be reached.
//!
//! Why the scene read is `readOnlyHint`/`idempotentHint` and the call is
//! not: hosts ask the person before any call a view makes to a tool not
//! marked read-only; the card repeats its read, and the call acts.

use std::{sync::Arc, time::Duration};

use purview::{
    activity::ClientId,
    http::mcp_apps::{Card, CardReply, CardTool},
    model::{JsonObject, ToolError},
    serde_json::{Value, json},
};

use crate::{
    Inner,
    assets::{SCRIPT, STYLE, escape},
    routes::prepare_call,
};

/// Where the card lives, as hosts read it.
///
/// ```
/// assert_eq!(purview_web::CARD_URI, "ui://purview/windows");
/// ```
pub const CARD_URI: &str = "ui://purview/windows";

/// The card tool that reads the scene.
pub(crate) const SCENE_TOOL: &str = "app__card_scene";
/// The card tool that calls an action.
pub(crate) const CALL_TOOL: &str = "app__card_call";
/// The card tool that says what a call's raw outcome means to the person:
/// a table's loaded rows as a page with its paging, a failure's sentence.
pub(crate) const OUTCOME_TOOL: &str = "app__card_outcome";

/// The card's own script: the host's postMessage JSON-RPC.
pub(crate) const BRIDGE: &str = include_str!("../assets/card.js");
/// The document around the style and scripts.
const DOCUMENT: &str = include_str!("../assets/card.html");

/// How long a scene read waits for a change before answering with the
/// scene as it is (well under hosts' request timeouts).
const LONGEST_WAIT: Duration = Duration::from_secs(20);

/// The card's whole document.
pub(crate) fn document(title: &str) -> String {
    DOCUMENT
        .replace("{{TITLE}}", &escape(title))
        .replace("{{STYLE}}", STYLE)
        .replace("{{BRIDGE}}", BRIDGE)
        .replace("{{SCRIPT}}", SCRIPT)
}

/// The tool whose result the card explains.
pub(crate) const SHOWN_WITH: &str = "app__read_windows";

/// The card for the face `inner`: shown with the read of the windows.
pub(crate) fn card(inner: &Arc<Inner>) -> Card {
    let scene = inner.clone();
    let call = inner.clone();
    let told = inner.clone();
    Card::new(CARD_URI, document(&inner.title))
        .titled(format!("{} windows", inner.title))
        .shown_with(SHOWN_WITH)
        .with_tool(CardTool::new(
            SCENE_TOOL,
            "The app's windows as the card draws them; with `after`, waits until they change from that read.",
            json!({
                "type": "object",
                "properties": {"after": {"type": "integer", "minimum": 0, "description": "The `change` of the last read."}},
                "additionalProperties": false
            }),
            move |arguments, caller| {
                let inner = scene.clone();
                Box::pin(async move {
                    CardReply::Answer(read_scene(&inner, &arguments, &caller).await)
                })
            },
        )
        .read_only())
        .with_tool(CardTool::new(
            CALL_TOOL,
            "Calls an action as the card's form describes it (window, action, values as typed, confirmed): the client's own call of the action's tool.",
            json!({
                "type": "object",
                "properties": {
                    "window": {"type": ["string", "null"]},
                    "action": {"type": "string"},
                    "values": {"type": "object"},
                    "confirmed": {"type": "boolean"}
                },
                "required": ["action"]
            }),
            move |arguments, _caller| {
                let reply = match prepare_call(&call, &arguments) {
                    Ok((action, arguments)) => {
                        let tool = action.call(&call.app, arguments.clone()).tool_name();
                        CardReply::Call { tool, arguments }
                    }
                    Err(refused) => {
                        let said = crate::person::said(&call, &arguments, &refused.1);
                        CardReply::Answer(json!({ "error": refused.1, "said": said }))
                    }
                };
                Box::pin(async move { reply })
            },
        ))
        .with_tool(CardTool::new(
            OUTCOME_TOOL,
            "What a call the card made came back with, as the card shows it: a table's rows as a page with where they stand, or what the person reads of a failure.",
            json!({
                "type": "object",
                "properties": {
                    "window": {"type": ["string", "null"]},
                    "action": {"type": "string"},
                    "page": {"type": ["object", "null"], "description": "The call's `page`, for a table's loader."},
                    "value": {"description": "What the action returned."},
                    "error": {"type": ["object", "null"], "description": "How the call failed."}
                },
                "required": ["action"]
            }),
            move |arguments, _caller| {
                let answer = outcome(&told, &arguments);
                Box::pin(async move { CardReply::Answer(answer) })
            },
        )
        .read_only())
}

/// A card call's outcome as the person reads it. The card's call goes the
/// client's way and comes back raw, so what it means is made here, by the
/// model's rules, and the card computes none.
fn outcome(inner: &Inner, arguments: &JsonObject) -> Value {
    let error = arguments.get("error").filter(|e| e.is_object());
    let error = error.and_then(|e| purview::serde_json::from_value::<ToolError>(e.clone()).ok());
    let said = error.and_then(|error| crate::person::said(inner, arguments, &error));
    let page = crate::person::page_for(inner, arguments, arguments.get("value"));
    json!({ "page": page, "said": said })
}

/// The scene, once it differs from the read numbered `after` (or at once,
/// or after [`LONGEST_WAIT`]), with where approvals are answered: the
/// person's windows as JSON text (`sceneJson`, the same for every client,
/// written once per change) and the questions `caller`'s own calls wait on
/// (`questions`, and `windowQuestions` window by window in the scene's
/// order), which the card puts back in their places.
async fn read_scene(inner: &Inner, arguments: &JsonObject, caller: &ClientId) -> Value {
    let mut changes = inner.changes.subscribe();
    if let Some(after) = arguments.get("after").and_then(Value::as_u64)
        && *changes.borrow_and_update() == after
    {
        let _ = tokio::time::timeout(LONGEST_WAIT, changes.changed()).await;
    }
    let change = *changes.borrow();
    // One text of the scene per change for every client, written once;
    // this client's own questions beside it.
    let (document, shared) = inner.card_view();
    let (questions, by_window) =
        crate::scene::questions_for(&document, inner.approvals.as_ref(), caller);
    json!({
        "change": change,
        "sceneJson": &*shared,
        "questions": questions,
        "windowQuestions": by_window,
        "whereToAnswer": where_to_answer(inner),
    })
}

/// Where the person answers an approval question the card shows.
fn where_to_answer(inner: &Inner) -> String {
    if inner.approvals.is_some() {
        format!(
            "Only the person can answer this: on the app's own page ({}) or at its desk. This card cannot approve.",
            inner.prefix
        )
    } else {
        "Only the person can answer this, where the app asks them. This card cannot approve."
            .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_card_fits_the_budget_and_names_nothing_from_elsewhere() {
        let card = document("Shop");
        let weight = STYLE.len() + SCRIPT.len() + BRIDGE.len();
        assert!(weight <= crate::BUDGET_BYTES, "the card's script and style weigh {weight} bytes");
        assert!(!card.contains("http://") && !card.contains("https://"), "a URL in the card");
        assert!(!card.contains(" src=") && !card.contains(" href="), "the card loads something");
        assert_eq!(card.matches("</script>").count(), 2, "a script ends early");
    }

    #[test]
    fn s10_1_the_cards_text_is_written_once_per_change_for_every_client() {
        use crate::fixture::Counter;

        let app = purview::App::builder().build();
        let counter = app.open(Counter::default()).unwrap();
        let face = crate::Face::new(app);
        let (_, first) = face.inner.card_view();
        assert!(first.contains("Counts to 0"), "{first}");
        let (_, again) = face.inner.card_view();
        assert!(Arc::ptr_eq(&first, &again), "written again with nothing changed");
        counter.update(|c| c.count = 1).unwrap();
        let (_, changed) = face.inner.card_view();
        assert!(changed.contains("Counts to 1"), "{changed}");
        assert!(!Arc::ptr_eq(&first, &changed), "the old text after a change");
    }

    #[test]
    fn the_cards_shared_text_holds_no_question() {
        let document = json!({
            "questions": [{"id": 1, "text": "Pay Mallory?"}],
            "windows": [{"id": "w1", "questions": [{"id": 2, "text": "Refund Eve?"}]}]
        });
        let shared = crate::scene::without_questions(&document).to_string();
        assert!(!shared.contains("Mallory") && !shared.contains("Eve"), "{shared}");
        assert!(shared.contains(r#""id":"w1""#), "{shared}");
    }

    #[test]
    fn the_title_is_escaped_into_the_card() {
        assert!(document("<i>Shop</i>").contains("&lt;i&gt;Shop&lt;/i&gt;"));
    }
}
