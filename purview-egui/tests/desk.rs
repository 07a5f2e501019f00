//! The default desk on an app with no GUI code: egui_kittest plays the
//! person (finding controls by their accessible labels), `App::call` plays
//! the agent, on the same application.

use std::time::Duration;

use egui_kittest::{
    Harness,
    kittest::{NodeT, Queryable},
};
use purview::{
    App, Context, Secret, actions, model::ErrorCode, projection::Media, serde_json, window,
};
use purview_egui::Desk;

/// The password the showcase holds: it must never reach the screen.
const SECRET: &str = "hunter2-never-shown";

/// One window with every kind of block, and actions of every shape.
#[window(title = "Showcase", summary = "Every kind of block, to {recipient}")]
#[derive(Clone)]
struct Showcase {
    #[block(text)]
    intro: String,
    #[block(field)]
    recipient: String,
    #[block(field)]
    amount: f64,
    #[block(field, label = "Payment password", sensitive)]
    password: Secret<String>,
    #[block(table, limit = 3, load = load_rows, columns = ["Row", "Region"])]
    rows: Vec<(u32, String)>,
    #[block(list, ordered)]
    steps: Vec<String>,
    #[block(notice = "warn")]
    warning: String,
    #[block(media)]
    chart: Media,
    #[block(custom)]
    extra: serde_json::Value,
}

impl Default for Showcase {
    fn default() -> Self {
        Self {
            intro: "Everything a window can show".into(),
            recipient: "Ada".into(),
            amount: 12.5,
            password: Secret::new(SECRET.into()),
            rows: (1..=10).map(|i| (i, format!("Region {i}"))).collect(),
            steps: vec!["Pick a recipient".into(), "Send it".into()],
            warning: "Prices change on Monday".into(),
            chart: Media::new("image/png", "https://example.com/chart.png")
                .alt("A chart of sales rising"),
            extra: serde_json::json!({"tracking": "ZX-81"}),
        }
    }
}

#[actions]
impl Showcase {
    /// Fetch a range of rows.
    #[action(read_only, idempotent)]
    fn load_rows(
        &self,
        /// Index of the first row.
        offset: usize,
        /// How many rows.
        limit: usize,
    ) -> purview::projection::Page<(u32, String)> {
        purview::projection::Page::slice(&self.rows, offset, limit)
    }

    /// Set the recipient and the amount together.
    #[action]
    fn set_details(
        &mut self,
        /// Who receives it; not empty.
        recipient: String,
        /// More than 0.
        amount: f64,
        cx: &mut Context,
    ) {
        if recipient.trim().is_empty() {
            cx.invalid("recipient", "cannot be empty");
        }
        if amount <= 0.0 {
            cx.invalid("amount", "must be greater than 0");
        }
        self.recipient = recipient;
        self.amount = amount;
    }

    /// Set the payment password; it is never shown back.
    #[action(idempotent)]
    fn set_password(
        &mut self,
        /// The new password.
        password: Secret<String>,
    ) {
        self.password = password;
    }

    /// Delete everything, after a confirmation dialog.
    #[action(destructive)]
    fn delete(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        cx.open_modal(ConfirmDeletion)?;
        Ok(())
    }
}

/// Asks before deleting; blocks the showcase.
#[window(title = "Confirm deletion", summary = "Asks whether to delete everything")]
#[derive(Clone)]
struct ConfirmDeletion;

#[actions]
impl ConfirmDeletion {
    /// Delete for real.
    #[action(destructive)]
    fn confirm(&mut self, cx: &mut Context) {
        if let Some(owner) = cx.owner_id() {
            cx.update::<Showcase>(&owner, |s| s.rows.clear());
        }
        cx.close();
    }

    /// Keep everything.
    #[action(idempotent)]
    fn cancel(&mut self, cx: &mut Context) {
        cx.close();
    }
}

fn showcase_app(builder: purview::AppBuilder) -> App {
    let app = builder.name("showcase").build();
    app.open(Showcase::default()).expect("open the showcase");
    app
}

fn person(app: &App) -> Harness<'static, Desk> {
    let desk = Desk::answering(app.clone(), purview::approval::ApprovalQueue::new())
        .embedded(true)
        .heading("Showcase");
    let mut harness = Harness::builder()
        .with_size([1400.0, 1000.0])
        .build_ui_state(|ui, desk: &mut Desk| desk.show(ui), desk);
    draw(&mut harness);
    harness
}

/// Draws frames until egui is idle; calls landing meanwhile ask for more
/// repaints, so running out of steps is not an error.
fn draw(harness: &mut Harness<'static, Desk>) {
    let _ = harness.try_run();
}

/// Draws (letting background calls land) until `until` holds on screen.
async fn until(
    harness: &mut Harness<'static, Desk>,
    what: &str,
    until: impl Fn(&Harness<'static, Desk>) -> bool,
) {
    for _ in 0..250 {
        draw(harness);
        if until(harness) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never on screen: {what}; the screen: {:#?}", harness.root());
}

async fn until_label(harness: &mut Harness<'static, Desk>, label: &str) {
    until(harness, label, |h| h.query_by_label_contains(label).is_some()).await;
}

/// Every text of the AccessKit tree: labels, values and descriptions.
fn every_text(harness: &Harness<'static, Desk>) -> Vec<String> {
    let root = harness.root();
    std::iter::once(root.accesskit_node())
        .chain(root.children_recursive().map(|n| n.accesskit_node()))
        .flat_map(|n| [n.label(), n.value(), n.description()])
        .flatten()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_block_kind_is_drawn_by_default_and_a_masked_field_never_shows_its_value() {
    let app = showcase_app(App::builder());
    let harness = person(&app);
    for shown in [
        "Everything a window can show",     // text
        "Every kind of block, to Ada",      // the summary, in the app's words
        "Region 1",                         // a table row
        "Rows 1–3 of 10",                   // the table's offset and total
        "1. Pick a recipient",              // an ordered list
        "Warning: Prices change on Monday", // a notice, with its severity in words
        "A chart of sales rising",          // media, by its alt text
        "Details",                          // custom, collapsed
    ] {
        assert!(harness.query_by_label_contains(shown).is_some(), "{shown:?} is not on screen");
    }
    assert_eq!(harness.get_by_label("Ada").value().as_deref(), Some("Ada"));
    // The sensitive field is drawn as its mask, labelled by its name.
    let masked = harness.get_by_label(purview::model::MASK);
    assert!(
        masked
            .accesskit_node()
            .labelled_by()
            .any(|l| l.value().as_deref() == Some("Payment password"))
    );
    let texts = every_text(&harness);
    assert!(texts.iter().any(|t| t.contains("Payment password")));
    assert!(!texts.iter().any(|t| t.contains(SECRET)), "the secret is in the AccessKit tree");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_payload_opens_as_json() {
    let app = showcase_app(App::builder());
    let mut harness = person(&app);
    assert!(harness.query_by_label_contains("ZX-81").is_none(), "custom starts collapsed");
    harness.get_by_label("Details").click_accesskit();
    draw(&mut harness);
    assert!(harness.query_by_label_contains("\"tracking\": \"ZX-81\"").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncated_table_pages_through_the_windows_own_loader() {
    let app = showcase_app(App::builder());
    let mut harness = person(&app);
    assert!(harness.query_by_label("Region 4").is_none());
    harness.get_by_label("Next rows").click_accesskit();
    until_label(&mut harness, "Rows 4–6 of 10").await;
    assert!(harness.query_by_label("Region 4").is_some());
    assert!(harness.query_by_label("Region 1").is_none());
    harness.get_by_label("Previous rows").click_accesskit();
    until_label(&mut harness, "Rows 1–3 of 10").await;
    assert!(harness.query_by_label("Region 1").is_some());
    // The loader is the table's, not a button of its own.
    assert!(harness.query_by_label_contains("Load rows").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_desks_frames_and_clicks_make_no_json_of_the_windows() {
    // The desk reads the app's own types (App::scene), never the agents'
    // snapshot: with no agent attached, drawing and paging cost no
    // serialization of the windows at all.
    let app = showcase_app(App::builder());
    let before = app.windows_serialized();
    let mut harness = person(&app);
    for _ in 0..5 {
        harness.step();
    }
    harness.get_by_label("Next rows").click_accesskit();
    until_label(&mut harness, "Rows 4–6 of 10").await;
    assert_eq!(app.windows_serialized(), before, "a frame serialized the windows");
    // The counter counts: an agent's read serializes them once.
    app.call("app__read_windows", None).outcome().await;
    assert_eq!(app.windows_serialized(), before + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_action_bar_calls_the_action_and_shows_validation_failed_per_field() {
    let app = showcase_app(App::builder());
    let mut harness = person(&app);
    harness.get_by_label("Set details…").click_accesskit();
    draw(&mut harness);
    // Typed wrong: the runtime refuses both arguments, each beside its field.
    harness.get_by_label("Recipient *").focus();
    draw(&mut harness);
    harness.get_by_label("Recipient *").type_text("   ");
    harness.get_by_label("Amount *").focus();
    draw(&mut harness);
    harness.get_by_label("Amount *").type_text("-3");
    draw(&mut harness);
    harness.get_by_label("Set details").click_accesskit();
    until_label(&mut harness, "Recipient: cannot be empty").await;
    assert!(harness.query_by_label("Amount: must be greater than 0").is_some());
    // One sentence per failure: the fields say it, not the runtime's
    // sentence for agents beneath them.
    assert!(harness.query_by_label_contains("Rejected").is_none(), "said twice");
    assert_eq!(app.window::<Showcase>("w1").unwrap().read(|s| s.recipient.clone()).unwrap(), "Ada");

    // Corrected: the call goes through, the form closes, the window shows it.
    harness.get_by_label("Recipient *").focus();
    draw(&mut harness);
    harness.get_by_label("Recipient *").type_text("Grace");
    harness.get_by_label("Amount *").focus();
    draw(&mut harness);
    harness.key_press(egui::Key::Backspace);
    harness.key_press(egui::Key::Backspace);
    harness.get_by_label("Amount *").type_text("7");
    draw(&mut harness);
    harness.get_by_label("Set details").click_accesskit();
    until(&mut harness, "the form closed", |h| h.query_by_label("Set details").is_none()).await;
    // What was typed, the three spaces kept.
    until(&mut harness, "the new recipient", |h| h.query_by_label("   Grace").is_some()).await;
    assert!(harness.query_by_label_contains("Rejected").is_none(), "the error is gone");
    // The person's own click is not agent activity.
    assert!(app.agent_activity().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_refuses_a_number_it_cannot_read_before_calling() {
    let app = showcase_app(App::builder());
    let mut harness = person(&app);
    let version = app.window::<Showcase>("w1").unwrap().version().unwrap();
    harness.get_by_label("Set details…").click_accesskit();
    draw(&mut harness);
    harness.get_by_label("Recipient *").focus();
    draw(&mut harness);
    harness.get_by_label("Recipient *").type_text("Grace");
    harness.get_by_label("Amount *").focus();
    draw(&mut harness);
    harness.get_by_label("Amount *").type_text("a lot");
    draw(&mut harness);
    harness.get_by_label("Set details").click_accesskit();
    draw(&mut harness);
    assert!(harness.query_by_label("Amount: must be a number").is_some());
    assert_eq!(app.window::<Showcase>("w1").unwrap().version().unwrap(), version);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destructive_action_asks_first_and_its_dialog_blocks_the_window_naming_itself() {
    let app = showcase_app(App::builder());
    let mut harness = person(&app);
    harness.get_by_label("Delete").click_accesskit();
    draw(&mut harness);
    assert_eq!(app.window_list().unwrap().len(), 1, "nothing runs before the person says yes");
    harness.get_by_label("Do not delete").click_accesskit();
    draw(&mut harness);
    assert!(harness.query_by_label("Yes, delete").is_none());
    assert_eq!(app.window_list().unwrap().len(), 1);

    harness.get_by_label("Delete").click_accesskit();
    draw(&mut harness);
    harness.get_by_label("Yes, delete").click_accesskit();
    until_label(&mut harness, "Blocked by Confirm deletion").await;
    // The showcase's controls are disabled; the dialog's are not.
    assert!(harness.get_by_label("Set details…").accesskit_node().is_disabled());
    assert!(harness.get_by_label("Next rows").accesskit_node().is_disabled());
    assert!(!harness.get_by_label("Cancel").accesskit_node().is_disabled());
    harness.get_by_label("Cancel").click_accesskit();
    until(&mut harness, "the dialog closed", |h| h.query_by_label_contains("Blocked by").is_none())
        .await;
    assert!(!harness.get_by_label("Set details…").accesskit_node().is_disabled());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_prompt_approves_and_declines_the_agents_call() {
    let app = showcase_app(App::builder().require_approval::<ConfirmDeletion>("confirm"));
    let mut harness = person(&app);
    app.call("w1__delete", None).await.expect("the agent opens the dialog");
    draw(&mut harness);

    for (button, approved) in [("Decline", false), ("Approve", true)] {
        let agent = app.clone();
        let call = tokio::spawn(async move { agent.call("w2__confirm", None).await });
        until_label(&mut harness, button).await;
        assert!(harness.query_by_label("Agent is waiting for your approval").is_some());
        assert!(harness.query_by_label_contains("asks to confirm").is_some());
        harness.get_by_label(button).click_accesskit();
        draw(&mut harness);
        let outcome = tokio::time::timeout(Duration::from_secs(10), call)
            .await
            .expect("answered")
            .expect("the call's task");
        if approved {
            assert!(outcome.is_ok(), "{outcome:?}");
        } else {
            let error = outcome.expect_err("declined");
            assert_eq!(error.code, ErrorCode::ApprovalDenied);
        }
        until(&mut harness, "the prompt gone", |h| h.query_by_label(button).is_none()).await;
    }
    let rows = app.window::<Showcase>("w1").unwrap().read(|s| s.rows.len()).unwrap();
    assert_eq!(rows, 0, "the approved confirm ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_call_changes_what_is_drawn_without_input() {
    let app = showcase_app(App::builder());
    let mut harness = person(&app);
    assert!(harness.query_by_label("Agent is working here").is_none());
    assert!(!harness.ctx.has_requested_repaint(), "idle before the agent acts");
    let mut arguments = purview::model::JsonObject::new();
    arguments.insert("recipient".into(), "Grace".into());
    arguments.insert("amount".into(), 3.into());
    app.call("w1__set_details", Some(arguments)).await.expect("the agent's call");
    assert!(harness.ctx.has_requested_repaint(), "the agent's change wakes the GUI");
    harness.step();
    assert!(harness.query_by_label("Grace").is_some());
    assert!(harness.query_by_label("Ada").is_none());
    assert!(harness.query_by_label("Agent is working here").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modal_dialog_is_its_own_confirmation_so_its_destructive_action_runs_at_once() {
    let app = showcase_app(App::builder());
    let mut harness = person(&app);
    app.call("w1__delete", None).await.expect("the agent opens the dialog");
    until_label(&mut harness, "Blocked by Confirm deletion").await;
    harness.get_by_label("Confirm").click_accesskit();
    until(&mut harness, "the dialog closed", |h| h.query_by_label_contains("Blocked by").is_none())
        .await;
    assert!(harness.query_by_label("Yes, confirm").is_none());
    let rows = app.window::<Showcase>("w1").unwrap().read(|s| s.rows.len()).unwrap();
    assert_eq!(rows, 0, "the person's Confirm ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_argument_is_typed_into_a_password_field_and_never_shown() {
    let app = showcase_app(App::builder());
    let mut harness = person(&app);
    harness.get_by_label("Set password…").click_accesskit();
    draw(&mut harness);
    let typed = "typed-secret-42";
    harness.get_by_label("Password *").focus();
    draw(&mut harness);
    harness.get_by_label("Password *").type_text(typed);
    draw(&mut harness);
    assert!(!every_text(&harness).iter().any(|t| t.contains(typed)), "typed secret on screen");
    harness.get_by_label("Set password").click_accesskit();
    until(&mut harness, "the form closed", |h| h.query_by_label("Set password").is_none()).await;
    let stored = app.window::<Showcase>("w1").unwrap().read(|s| s.password.expose().clone());
    assert_eq!(stored.unwrap(), typed);
    assert!(!every_text(&harness).iter().any(|t| t.contains(typed)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_type_drawn_by_the_app_keeps_the_chrome_and_the_rest_stays_default() {
    let app = showcase_app(App::builder());
    let desk = Desk::new(app.clone()).embedded(true).draw::<ConfirmDeletion>(|ui, dialog, cx| {
        ui.label(format!("Custom dialog {}", dialog.id()));
        if ui.button("Fail on purpose").clicked() {
            let call = cx.app().call(&format!("{}__nothing", cx.id()), None);
            cx.run(call);
        }
        cx.action_bar(ui);
    });
    let mut harness = Harness::builder()
        .with_size([1400.0, 1000.0])
        .build_ui_state(|ui, desk: &mut Desk| desk.show(ui), desk);
    draw(&mut harness);
    app.call("w1__delete", None).await.expect("the agent opens the dialog");
    until_label(&mut harness, "Custom dialog w2").await;
    // The showcase keeps its default drawing; the dialog its chrome.
    assert!(harness.query_by_label("Ada").is_some());
    assert!(harness.query_by_label("Blocked by Confirm deletion").is_some());
    assert!(harness.query_by_label("Cancel").is_some(), "the default bar inside the override");
    harness.get_by_label("Fail on purpose").click_accesskit();
    until_label(&mut harness, "`nothing`").await;
    harness.get_by_label("Cancel").click_accesskit();
    until(&mut harness, "the dialog closed", |h| h.query_by_label("Custom dialog w2").is_none())
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_is_the_persons_even_through_a_call_made_as_an_agent() {
    // `app.call(..)` defaults to an agent's call; run from the desk it is
    // the person's: applied, and not recorded as agent activity.
    let app = showcase_app(App::builder());
    let desk = Desk::new(app.clone()).embedded(true).draw::<Showcase>(|ui, showcase, cx| {
        let recipient = showcase.read(|s| s.recipient.clone()).unwrap_or_default();
        ui.label(format!("Sending to {recipient}"));
        if ui.button("Send to Bob").clicked() {
            let arguments = purview::serde_json::json!({"recipient": "Bob", "amount": 5.0});
            let tool = format!("{}__set_details", cx.id());
            cx.run(cx.app().call(&tool, arguments.as_object().cloned()));
        }
    });
    let mut harness = Harness::builder()
        .with_size([1400.0, 1000.0])
        .build_ui_state(|ui, desk: &mut Desk| desk.show(ui), desk);
    draw(&mut harness);
    harness.get_by_label("Send to Bob").click_accesskit();
    until_label(&mut harness, "Sending to Bob").await;
    assert!(app.agent_activity().is_none(), "the person's click was taken for an agent's call");
}

#[derive(purview::WindowKind)]
enum Kind {
    Showcase(purview::WindowHandle<Showcase>),
    Dialog(purview::WindowHandle<ConfirmDeletion>),
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn windows_drawn_by_kind_run_typed_calls_and_show_their_field_errors() {
    let app = showcase_app(App::builder());
    let desk = Desk::new(app.clone()).embedded(true).draw_kind(|ui, kind: Kind, cx| match kind {
        Kind::Showcase(showcase) => {
            let recipient = showcase.read(|s| s.recipient.clone()).unwrap_or_default();
            ui.label(format!("Sending to {recipient}"));
            if ui.button("Send to nobody").clicked() {
                cx.run(showcase.act().set_details(String::new(), -1.0));
            }
            if ui.button("Send to Grace").clicked() {
                cx.run(showcase.act().set_details("Grace".into(), 2.0));
            }
            if let Some(problem) = cx.field_error("recipient") {
                ui.label(format!("Recipient problem: {problem}"));
            }
        }
        Kind::Dialog(dialog) => {
            ui.label(format!("Dialog {}", dialog.id()));
            cx.default_contents(ui);
        }
    });
    let mut harness = Harness::builder()
        .with_size([1400.0, 1000.0])
        .build_ui_state(|ui, desk: &mut Desk| desk.show(ui), desk);
    draw(&mut harness);
    assert!(harness.query_by_label("Sending to Ada").is_some());
    harness.get_by_label("Send to nobody").click_accesskit();
    until_label(&mut harness, "Recipient problem: cannot be empty").await;
    harness.get_by_label("Send to Grace").click_accesskit();
    // The new value can be drawn a frame before the call's answer clears
    // the old problem; both must come.
    until(&mut harness, "Grace, and the problem cleared by success", |h| {
        h.query_by_label("Sending to Grace").is_some()
            && h.query_by_label_contains("Recipient problem").is_none()
    })
    .await;
    assert!(app.agent_activity().is_none(), "typed calls are the person's");
}
