//! A person's click on the desk is the same call as the person's call made
//! in code: each story runs on two fresh apps, once by clicking through
//! the default desk (egui_kittest plays the person) and once as
//! `Call::outcome` made by the person, and the desk shows exactly what
//! the outcome says — the message of a refusal, or each field's error
//! beside its field (and not the runtime's sentence for agents beneath
//! them: one sentence per failure), or the window a success opened.

use std::time::Duration;

use egui_kittest::{Harness, kittest::Queryable};
use purview::{App, Context, ToolError, actions, model::ToolOutcome, window};
use purview_egui::Desk;

#[window(title = "Order", summary = "An order of {amount}")]
#[derive(Clone, Default)]
struct Order {
    #[block(field)]
    amount: u32,
}

#[window(title = "Receipt", summary = "Sent")]
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
}

fn fresh() -> (App, String) {
    let app = App::builder().name("orders").build();
    let order = app.open(Order::default()).expect("open the order");
    let id = order.id().to_owned();
    (app, id)
}

fn person(app: &App) -> Harness<'static, Desk> {
    let desk = Desk::new(app.clone()).embedded(true).heading("Orders");
    let mut harness = Harness::builder()
        .with_size([1400.0, 1000.0])
        .build_ui_state(|ui, desk: &mut Desk| desk.show(ui), desk);
    let _ = harness.try_run();
    harness
}

/// Draws (letting the background call land) until `until` holds.
async fn until(
    harness: &mut Harness<'static, Desk>,
    what: &str,
    until: impl Fn(&Harness<'static, Desk>) -> bool,
) {
    for _ in 0..250 {
        let _ = harness.try_run();
        if until(harness) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never on screen: {what}; the screen: {:#?}", harness.root());
}

/// The person's call of `tool` in code, on a fresh app.
async fn in_code(action: &str, arguments: serde_json::Value) -> ToolOutcome {
    let (app, id) = fresh();
    let tool = format!("{id}__{action}");
    app.call(&tool, arguments.as_object().cloned()).by_person().outcome().await
}

/// The refusal's message, or each field's error, as the desk words them.
fn shown_for(outcome: &ToolOutcome) -> Vec<String> {
    assert!(outcome.is_error, "{:?}", outcome.structured);
    let fields = outcome.structured["fields"].as_array().filter(|f| !f.is_empty());
    let message = outcome.structured["message"].as_str().unwrap_or_default().to_owned();
    let mut shown = if fields.is_some() { Vec::new() } else { vec![message] };
    for field in fields.into_iter().flatten() {
        let (name, error) = (field["field"].as_str(), field["error"].as_str());
        shown.push(format!("{}: {}", capitalized(name.unwrap_or_default()), error.unwrap_or("")));
    }
    shown
}

fn capitalized(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s5_4_a_click_of_a_failing_handler_shows_what_the_call_answers() {
    let outcome = in_code("print", serde_json::json!({})).await;
    let (app, _) = fresh();
    let mut harness = person(&app);
    harness.get_by_label("Print").click_accesskit();
    let shown = shown_for(&outcome);
    until(&mut harness, &shown[0], |h| h.query_by_label(&shown[0]).is_some()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s7_3_a_clicked_form_that_breaks_a_range_shows_what_the_call_answers() {
    let outcome = in_code("set_amount", serde_json::json!({"amount": 0})).await;
    let (app, _) = fresh();
    let mut harness = person(&app);
    harness.get_by_label("Set amount…").click_accesskit();
    let _ = harness.try_run();
    harness.get_by_label("Amount *").focus();
    let _ = harness.try_run();
    harness.get_by_label("Amount *").type_text("0");
    harness.get_by_label("Set amount").click_accesskit();
    let shown = shown_for(&outcome);
    assert_eq!(shown, ["Amount: must be between 1 and 1000"], "the refusal names the field");
    for text in &shown {
        until(&mut harness, text, |h| h.query_by_label(text).is_some()).await;
    }
    let agents = outcome.structured["message"].as_str().unwrap_or_default();
    assert!(agents.starts_with("Rejected"), "{agents}");
    assert!(harness.query_by_label_contains("Rejected").is_none(), "said twice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s5_4_a_click_that_opens_a_window_opens_the_one_the_call_names() {
    let outcome = in_code("send", serde_json::json!({})).await;
    assert!(!outcome.is_error, "{:?}", outcome.structured);
    let opened = outcome.structured["openedWindowIds"][0].as_str().expect("one window opened");
    let (app, _) = fresh();
    let mut harness = person(&app);
    harness.get_by_label("Send").click_accesskit();
    until(&mut harness, "the receipt", |h| h.query_by_label_contains("Blocked by").is_some()).await;
    let ids: Vec<String> = app.window_list().unwrap().into_iter().map(|w| w.id).collect();
    assert_eq!(ids.last().map(String::as_str), Some(opened), "the click opened {ids:?}");
}
