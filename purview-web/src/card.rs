//! The window card for MCP Apps hosts: the face's renderer in one
//! self-contained document (style and scripts inline, nothing fetched),
//! talking to the app only through the host, with four tools only the card
//! calls: the scene (waiting for its next change, with what the person
//! holds open in this card), the person's intents in it, the call an
//! intent asked for, and that call's outcome.
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
//! Why the scene read is `readOnlyHint`/`idempotentHint`, the intents and
//! the outcome `readOnlyHint`, and the call is not marked: hosts ask the
//! person before any call a view makes to a tool not marked read-only; the
//! card repeats its read, an intent changes only what the card shows, an
//! outcome only hands back what happened, and the call acts.

use std::{sync::Arc, time::Duration};

use purview::{
    activity::ClientId,
    http::mcp_apps::{Card, CardReply, CardTool},
    model::{ErrorCode, JsonObject, ToolError},
    serde_json::{Value, json},
};
use purview_person::{Effect, Intent};

use crate::{
    Inner,
    assets::{SCRIPT, STYLE, escape},
    page::Handle,
};

/// Where the card lives, as hosts read it.
///
/// ```
/// assert_eq!(purview_web::CARD_URI, "ui://purview/windows");
/// ```
pub const CARD_URI: &str = "ui://purview/windows";

/// The card tool that reads the scene.
pub(crate) const SCENE_TOOL: &str = "app__card_scene";
/// The card tool that takes what the person did in the card.
pub(crate) const INTENT_TOOL: &str = "app__card_intent";
/// The card tool that makes the call an intent asked for.
pub(crate) const CALL_TOOL: &str = "app__card_call";
/// The card tool that hands a call's raw outcome to the card's person.
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
    let (scene, intent, call, told) = (inner.clone(), inner.clone(), inner.clone(), inner.clone());
    let card_name = json!({"type": "string", "maxLength": 64, "description": "The card's own name for itself."});
    Card::new(CARD_URI, document(&inner.title))
        .titled(format!("{} windows", inner.title))
        .shown_with(SHOWN_WITH)
        .with_tool(CardTool::new(
            SCENE_TOOL,
            "The app's windows as the card draws them, with what the person holds open in this card; with `after`, waits until they change from that read.",
            json!({
                "type": "object",
                "properties": {
                    "after": {"type": "integer", "minimum": 0, "description": "The `change` of the last read."},
                    "mine": {"type": "integer", "minimum": 0, "description": "The `mine` of the last read: the card's own state as it was."},
                    "card": card_name
                },
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
            INTENT_TOOL,
            "What the person did in the card (opened a form, typed, chose a row, asked for rows, submitted, confirmed, cancelled): it changes only what the card shows, and says whether it asks for a call (then made with app__card_call).",
            json!({
                "type": "object",
                "properties": {"card": card_name, "intent": {"type": "object", "description": "{\"kind\": …} and what that kind names."}},
                "required": ["card", "intent"]
            }),
            move |arguments, caller| {
                let answer = card_intent(&intent, &arguments, &caller);
                Box::pin(async move { CardReply::Answer(answer) })
            },
        )
        .read_only())
        .with_tool(CardTool::new(
            CALL_TOOL,
            "Makes the call the person's last intent in the card asked for (or loads again a page of rows they chose): the client's own call of the action's tool.",
            json!({
                "type": "object",
                "properties": {"card": card_name, "call": {"type": "integer", "minimum": 0, "description": "The card's number for this call; its outcome names it."}},
                "required": ["card"]
            }),
            move |arguments, caller| {
                let reply = card_call(&call, &arguments, &caller);
                Box::pin(async move { reply })
            },
        ))
        .with_tool(CardTool::new(
            OUTCOME_TOOL,
            "What the call the card made came back with (`value`, or `error`), handed to what the card shows: a table's rows as the page chosen, or a failure where the person reads it.",
            json!({
                "type": "object",
                "properties": {
                    "card": card_name,
                    "call": {"type": "integer", "minimum": 0, "description": "The card's number for the call."},
                    "refused": {"type": "boolean", "description": "Whether the host declined to make the call."},
                    "value": {"description": "What the action returned."},
                    "error": {"type": ["object", "null"], "description": "How the call failed."}
                },
                "required": ["card"]
            }),
            move |arguments, caller| {
                card_outcome(&told, &arguments, &caller);
                Box::pin(async move { CardReply::Answer(json!({ "done": true })) })
            },
        )
        .read_only())
}

/// The call the card's last intent asked for (or the next page of rows
/// to load again), as the client's own call of the action's tool; noted
/// as the one the card is making, whose outcome comes back through
/// [`OUTCOME_TOOL`].
fn card_call(inner: &Inner, arguments: &JsonObject, caller: &ClientId) -> CardReply {
    let page = card_page(inner, arguments, caller);
    let number = arguments.get("call").and_then(Value::as_u64).unwrap_or(0);
    let next = {
        let mut page = crate::calls_lock(&page.page);
        // One call at a time: the card asks for the next only once the
        // last one's outcome was sent, so a call still out under an older
        // number lost its outcome on the way.
        let lost = match &page.in_flight {
            Some((older, _)) if *older < number => page.in_flight.take(),
            Some(_) => return CardReply::Answer(json!({ "done": true, "busy": true })),
            None => None,
        };
        if let Some((_, call)) = lost {
            let why =
                ToolError::new(ErrorCode::ActionFailed, purview_person::words::OUTCOME_UNKNOWN);
            page.person.finished(&call, Err(why));
        }
        let next =
            page.making.take().or_else(|| (!page.again.is_empty()).then(|| page.again.remove(0)));
        page.in_flight = next.clone().map(|call| (number, call));
        next
    };
    let Some(next) = next else { return CardReply::Answer(json!({ "done": true })) };
    let made = inner.kept();
    let action = made
        .model()
        .map_err(|why| ToolError::new(ErrorCode::ActionFailed, why))
        .and_then(|model| crate::page::action_of(model, &next));
    match action {
        Ok(action) => CardReply::Call {
            tool: action.info.call(&inner.app, next.arguments.clone()).tool_name(),
            arguments: next.arguments,
        },
        Err(error) => {
            crate::calls_lock(&page.page).in_flight = None;
            page.finished(&next, Err(error));
            CardReply::Answer(json!({ "done": true }))
        }
    }
}

/// The outcome of the call the card made (`value`, or `error`, or
/// `refused` when the host did not make it), by the card's number for it
/// (`call`), handed to the card's person.
fn card_outcome(inner: &Inner, arguments: &JsonObject, caller: &ClientId) {
    let page = card_page(inner, arguments, caller);
    let number = arguments.get("call").and_then(Value::as_u64).unwrap_or(0);
    let error = arguments.get("error").filter(|e| e.is_object());
    let error = error.and_then(|e| purview::serde_json::from_value::<ToolError>(e.clone()).ok());
    let refused = arguments.get("refused").and_then(Value::as_bool) == Some(true);
    let error = error.or_else(|| {
        refused.then(|| ToolError::new(ErrorCode::ActionFailed, purview_person::words::NOT_MADE))
    });
    let outcome = error.map_or_else(|| Ok(arguments.get("value").cloned()), Err);
    let made = {
        let mut page = crate::calls_lock(&page.page);
        match page.in_flight.take() {
            Some((n, call)) if n == number => Some(call),
            // Declined by the host before it reached the app: the call
            // asked for goes (or the load next in line), and is not asked
            // again unless the person asks again.
            None if refused => page
                .making
                .take()
                .or_else(|| (!page.again.is_empty()).then(|| page.again.remove(0))),
            other => {
                page.in_flight = other;
                None
            }
        }
    };
    if let Some(call) = made {
        page.finished(&call, outcome);
    }
}

/// The page of the card named in `arguments` (`card`), of `caller`'s.
fn card_page(inner: &Inner, arguments: &JsonObject, caller: &ClientId) -> Arc<Handle> {
    let name = arguments.get("card").and_then(Value::as_str).unwrap_or("");
    inner.pages.of(&format!("card-{caller}"), name)
}

/// An intent in the card, through its person: `{"done": true, "call":
/// true}` when it asks for a call, which the card then makes with
/// [`CALL_TOOL`]. The card never answers an approval question.
fn card_intent(inner: &Inner, arguments: &JsonObject, caller: &ClientId) -> Value {
    let intent = arguments.get("intent").and_then(Value::as_object).and_then(crate::page::intent);
    let Some(intent) = intent.filter(|i| !matches!(i, Intent::Approve(_) | Intent::Decline(_)))
    else {
        let error =
            ToolError::new(ErrorCode::ActionFailed, "The card's request was not understood.");
        return json!({ "error": error });
    };
    let page = card_page(inner, arguments, caller);
    let made = inner.kept();
    match crate::intents::intend(&made, &page, intent) {
        Effect::Call(call) => {
            crate::calls_lock(&page.page).making = Some(call);
            json!({ "done": true, "call": true })
        }
        Effect::Redraw | Effect::Answer { .. } => json!({ "done": true, "call": false }),
    }
}

/// The scene, once it differs from the read numbered `after` and `mine`
/// (the app's change and the card's own state; at once without them, or
/// after [`LONGEST_WAIT`]), with where approvals are answered: the
/// person's windows as JSON text (`sceneJson`, the same for every client,
/// written once per change), the questions `caller`'s own calls wait on
/// (`questions`, and `windowQuestions` window by window in the scene's
/// order), and what the person holds open in this card (`ownWindows`, by
/// the same order, and `app`), which the card puts in their places.
async fn read_scene(inner: &Inner, arguments: &JsonObject, caller: &ClientId) -> Value {
    let mut changes = inner.changes.subscribe();
    let page = card_page(inner, arguments, caller);
    let mut woken = page.woken.subscribe();
    // It waits only while neither the app nor the card's own person
    // changed since the read numbered `after` and `mine`.
    let mine = arguments.get("mine").and_then(Value::as_u64);
    if let Some(after) = arguments.get("after").and_then(Value::as_u64)
        && *changes.borrow_and_update() == after
        && mine.is_some_and(|mine| *woken.borrow_and_update() == mine)
    {
        let wait = async {
            tokio::select! { _ = changes.changed() => {}, _ = woken.changed() => {} }
        };
        let _ = tokio::time::timeout(LONGEST_WAIT, wait).await;
    }
    // Read before the person's state is: a change after this wakes the
    // next read.
    let mine = *woken.borrow_and_update();
    // One text of the scene per change for every client, written once;
    // this client's own questions and this card's own state beside it,
    // all from the one change.
    let made = inner.kept();
    let change = made.cut().change();
    let (document, shared) = inner.card_view_of(&made);
    let (questions, by_window) =
        crate::scene::questions_for(&document, inner.approvals.as_ref(), caller);
    let model = made.model().ok();
    let windows = model.map(|m| m.windows.as_slice()).unwrap_or_default();
    let mut page = crate::calls_lock(&page.page);
    if let Some(model) = model {
        // One load a table, the newest.
        for call in page.person.settle(model) {
            page.again.retain(|c| {
                c.scope != call.scope
                    || c.load.as_ref().map(|l| &l.0) != call.load.as_ref().map(|l| &l.0)
            });
            page.again.push(call);
        }
    }
    let own = crate::page::own(model, &page.person);
    let own_windows: Vec<Value> = windows
        .iter()
        .map(|w| match own.windows.get(&w.id) {
            Some(text) => Value::String(page.for_card(&w.id, text).to_string()),
            None => Value::Null,
        })
        .collect();
    let app = page.for_card(crate::page::APP, &own.app);
    let again = !page.again.is_empty();
    drop(page);
    json!({
        "change": change,
        "mine": mine,
        "sceneJson": &*shared,
        "questions": questions,
        "windowQuestions": by_window,
        "ownWindows": own_windows,
        "app": &*app,
        "again": again,
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

    #[tokio::test]
    async fn s10_1_a_card_makes_one_call_at_a_time_and_takes_back_only_its_outcome() {
        use crate::fixture::Counter;

        let app = purview::App::builder().build();
        let counter = app.open(Counter::default()).unwrap().id().to_owned();
        let face = crate::Face::new(app);
        let inner = &face.inner;
        let client = ClientId::named("host");
        let args = |value: Value| value.as_object().cloned().unwrap();
        let call = |n: u64| card_call(inner, &args(json!({"card": "c", "call": n})), &client);
        let outcome = |value: Value| card_outcome(inner, &args(value), &client);
        let page = card_page(inner, &args(json!({"card": "c"})), &client);
        let failure = || {
            let page = crate::calls_lock(&page.page);
            page.person.failure(&Some(counter.clone())).map(|f| f.error.message.clone())
        };
        let press = json!({"card": "c", "intent": {"kind": "press", "window": counter, "action": "increment"}});
        let asks = |_: ()| card_intent(inner, &args(press.clone()), &client)["call"] == true;
        assert!(asks(()), "a press asks for a call");
        let CardReply::Call { tool, .. } = call(1) else { panic!("no call made") };
        assert!(tool.ends_with("__increment"), "{tool}");
        // Asked again under the same number while it is out: not made twice.
        let CardReply::Answer(busy) = call(1) else { panic!("a call made twice") };
        assert_eq!(busy["busy"], true);
        // An outcome of another number is not this call's.
        outcome(json!({"card": "c", "call": 9, "value": null}));
        assert!(crate::calls_lock(&page.page).in_flight.is_some(), "taken by another number");
        outcome(json!({"card": "c", "call": 1, "value": null}));
        assert!(crate::calls_lock(&page.page).in_flight.is_none() && failure().is_none());

        // The host declines the next call before it reaches the app: the
        // person reads so, and the call is not made later unasked.
        assert!(asks(()));
        outcome(json!({"card": "c", "call": 2, "refused": true}));
        assert_eq!(failure().as_deref(), Some(purview_person::words::NOT_MADE));
        assert!(matches!(call(3), CardReply::Answer(_)), "a declined call made after all");

        // A call whose outcome was lost on the way does not hold up the next.
        assert!(asks(()));
        assert!(matches!(call(4), CardReply::Call { .. }));
        assert!(asks(()));
        assert!(matches!(call(5), CardReply::Call { .. }), "held up by a lost outcome");
        assert_eq!(failure().as_deref(), Some(purview_person::words::OUTCOME_UNKNOWN));
    }

    #[test]
    fn the_title_is_escaped_into_the_card() {
        assert!(document("<i>Shop</i>").contains("&lt;i&gt;Shop&lt;/i&gt;"));
    }
}
