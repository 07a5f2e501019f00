//! The faces agree: one scripted sequence of a person's intents, run on
//! the desk (purview-egui, headless through egui_kittest) and in the
//! browser (purview-web, in headless Chromium), makes the same calls in
//! the same order and puts the same sentences on screen. Both draw the
//! one model of the person's side (purview-person); this shows they do
//! not disagree where they used to: paging, a value chosen `from` a
//! table, a destructive action asked about outside a modal and run at
//! once inside one (§7, §9), and an agent's call waiting for the person's
//! approval, asked in the app's own words and answered on each face
//! (§5.6). The same holds on order_desk: a field the app refuses, said
//! under its field; the form run again; a destructive action asked about,
//! its dialog opened over the editor and confirmed there at once.

#[path = "web/driver.rs"]
#[allow(dead_code)] // what the other browser tests use
mod driver;

#[path = "../examples/order_desk/windows.rs"]
#[allow(dead_code)] // the windows this file does not open
mod order_desk;

#[path = "../purview-egui/tests/support/cpu_render.rs"]
#[allow(dead_code)] // what the picture tests use
mod cpu_render;
#[path = "../purview-egui/tests/support/drawn.rs"]
#[allow(dead_code)] // what the picture tests use
mod drawn;

use std::time::Duration;

use anyhow::{Context as _, Result, ensure};
use driver::Browser;
use egui_kittest::{Harness, kittest::Queryable};
use purview::{
    App, Context, Row, actions, approval::ApprovalQueue, http::HttpOptions, projection::Page,
    window,
};
use purview_egui::Desk;
use purview_web::Face;

/// A pet on file.
#[derive(Clone, Row)]
struct Pet {
    id: u32,
    name: String,
}

#[window(title = "Clinic", summary = "{booked} booked, {reminded} reminded")]
#[derive(Clone)]
struct Clinic {
    booked: u32,
    reminded: u32,
    #[block(table, limit = 5, load = load_rows)]
    pets: Vec<Pet>,
    /// The calls the person's clicks made, in order.
    made: Vec<String>,
}

#[actions]
impl Clinic {
    /// Fetch a range of pets.
    #[action(read_only, idempotent)]
    fn load_rows(&self, offset: usize, limit: usize) -> Page<Pet> {
        Page::slice(&self.pets, offset, limit)
    }

    /// Book a visit.
    #[action]
    fn book(
        &mut self,
        /// The pet to see.
        #[arg(from = pets.id)]
        pet: u32,
    ) {
        self.booked += 1;
        self.made.push(format!("book {pet}"));
    }

    /// Forget every booking.
    #[action(destructive)]
    fn clear(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        self.made.push("clear".into());
        cx.open_modal(ConfirmClear)?;
        Ok(())
    }

    /// Remind a pet's owner of its visit.
    #[action(approval, destructive = false, question = remind_question)]
    fn remind(&mut self, pet: u32) {
        self.reminded += 1;
        self.made.push(format!("remind {pet}"));
    }

    /// The question the person answers, in the app's words: its quotes
    /// are the app's, shown as written.
    fn remind_question(&self, pet: &u32) -> Result<String, purview::ToolError> {
        Ok(format!("Send the owner of \"Pet {pet}\" a reminder?"))
    }
}

#[window(title = "Confirm clear", summary = "Forget every booking?")]
#[derive(Clone)]
struct ConfirmClear;

#[actions]
impl ConfirmClear {
    /// Forget them.
    #[action(destructive)]
    fn confirm(&mut self, cx: &mut Context) {
        cx.close();
    }
}

fn clinic() -> (App, purview::WindowHandle<Clinic>) {
    let app = App::builder().name("clinic").build();
    let pets = (1..=30).map(|id| Pet { id, name: format!("Pet {id}") }).collect();
    let handle =
        app.open(Clinic { booked: 0, reminded: 0, pets, made: Vec::new() }).expect("the clinic");
    (app, handle)
}

/// What each step shows, the same on both faces.
const SAID: [&str; 9] = [
    "Rows 6–10 of 30",
    "Choose a row in Pets to fill this in.",
    "Choose a row to fill \u{201c}Pet\u{201d} of \u{201c}Book\u{201d}.",
    "1 booked",
    "Clear? This cannot be undone.",
    "Blocked by Confirm clear",
    "Agent is waiting for your approval",
    "Send the owner of \"Pet 3\" a reminder?",
    "1 reminded",
];

/// The agent's call that waits for the person's approval.
fn remind(app: &App, clinic: &str) -> tokio::task::JoinHandle<Result<(), purview::ToolError>> {
    let (app, name) = (app.clone(), format!("{clinic}__remind"));
    let mut arguments = purview::model::JsonObject::new();
    arguments.insert("pet".into(), 3.into());
    tokio::spawn(async move { app.call(&name, Some(arguments)).await.map(drop) })
}

/// The desk's harness, drawn until `label` is on screen.
async fn desk_until(harness: &mut Harness<'static, Desk>, label: &str) {
    for _ in 0..500 {
        let _ = harness.try_run();
        if harness.query_by_label_contains(label).is_some() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the desk never showed {label:?}");
}

async fn on_the_desk() -> Vec<String> {
    let (app, clinic) = clinic();
    let desk = Desk::answering(app.clone(), ApprovalQueue::new()).embedded(true);
    let mut h = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, desk: &mut Desk| desk.show(ui), desk);
    let _ = h.try_run();
    h.get_by_label("Next rows").click_accesskit();
    desk_until(&mut h, SAID[0]).await;
    h.get_by_label("Book…").click_accesskit();
    desk_until(&mut h, SAID[1]).await;
    desk_until(&mut h, SAID[2]).await;
    h.query_all_by_label("Choose").next().expect("a row to choose").click_accesskit();
    desk_until(&mut h, "Chosen").await;
    h.get_by_label("Book").click_accesskit();
    desk_until(&mut h, SAID[3]).await;
    h.get_by_label("Clear").click_accesskit();
    desk_until(&mut h, SAID[4]).await;
    h.get_by_label("Yes, clear").click_accesskit();
    desk_until(&mut h, SAID[5]).await;
    h.get_by_label("Confirm").click_accesskit();
    for _ in 0..250 {
        let _ = h.try_run();
        if h.query_by_label_contains("Blocked by").is_none() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let asked = remind(&app, clinic.id());
    desk_until(&mut h, SAID[6]).await;
    desk_until(&mut h, SAID[7]).await;
    h.get_by_label("Approve").click_accesskit();
    desk_until(&mut h, SAID[8]).await;
    let outcome = asked.await.expect("the agent's call");
    assert!(outcome.is_ok(), "the approved call ran: {outcome:?}");
    clinic.read(|c| c.made.clone()).expect("the clinic")
}

const CARD: &str = "(document.body || {}).innerText || ''";

async fn in_the_browser() -> Result<Vec<String>> {
    let (app, clinic) = clinic();
    let face = Face::answering(app.clone(), ApprovalQueue::new());
    let server = app.serve_http(face.serve_beside(HttpOptions::default())).await?;
    let browser = Browser::start().await?;
    browser.goto(&face.one_time_link(&server).context("a link")?).await?;
    let shows = |said: &str| format!("({CARD}).includes({said:?})");
    browser.wait_for(&shows("Rows 1–5 of 30")).await?;
    browser.press("section[data-window]", "Next rows").await?;
    browser.wait_for(&shows(SAID[0])).await?;
    browser.press("section[data-window]", "Book…").await?;
    browser.wait_for(&shows(SAID[1])).await?;
    browser.wait_for(&shows(SAID[2])).await?;
    browser.click("button[aria-label='Choose 6 as Pet for Book']").await?;
    browser.wait_for(&shows("Chosen")).await?;
    browser.press("form", "Book").await?;
    browser.wait_for(&shows(SAID[3])).await?;
    browser.press("section[data-window]", "Clear").await?;
    browser.wait_for(&shows(SAID[4])).await?;
    browser.press("[role=alertdialog]", "Yes, clear").await?;
    browser.wait_for(&shows(SAID[5])).await?;
    browser.press("section[role=dialog]", "Confirm").await?;
    browser.wait_for(&format!("!{}", shows("Blocked by"))).await?;
    let asked = remind(&app, clinic.id());
    browser.wait_for(&shows(SAID[6])).await?;
    browser.wait_for(&shows(SAID[7])).await?;
    browser.press(".pv-question", "Approve").await?;
    browser.wait_for(&shows(SAID[8])).await?;
    ensure!(asked.await?.is_ok(), "the approved call ran");
    Ok(clinic.read(|c| c.made.clone())?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s7_the_desk_and_the_browser_make_the_same_calls_and_say_the_same() -> Result<()> {
    let desk = on_the_desk().await;
    let browser = in_the_browser().await?;
    ensure!(desk == ["book 6", "clear", "remind 3"], "the desk's calls: {desk:?}");
    ensure!(browser == desk, "the browser's calls {browser:?} differ from the desk's {desk:?}");
    Ok(())
}

/// What each step on order_desk shows, the same on both faces.
const ORDER_SAID: [&str; 5] = [
    "Amount: must be greater than 0",
    "Editing order #12345; every field is filled in",
    "Submit? This cannot be undone.",
    "Blocked by Confirm submission",
    "Order #12345 has been submitted to Ada Lovelace",
];

fn order_desk() -> (App, purview::WindowHandle<order_desk::OrderEditor>) {
    let app = App::builder().name("order_desk").build();
    let editor = app.open(order_desk::OrderEditor::default()).expect("the editor");
    (app, editor)
}

/// The editor's recipient, amount and whether it was submitted.
fn order_of(editor: &purview::WindowHandle<order_desk::OrderEditor>) -> (String, String, bool) {
    editor.read(|e| (e.recipient.clone(), e.amount.clone(), e.submitted)).expect("the editor")
}

async fn order_on_the_desk() -> (String, String, bool) {
    let (app, editor) = order_desk();
    let mut h = drawn::drawn(Desk::new(app).embedded(true), [1280.0, 800.0]);
    h.get_by_label("Set details…").click_accesskit();
    drawn::settle(&mut h);
    drawn::type_into(&mut h, "Recipient *", "Ada Lovelace");
    drawn::type_into(&mut h, "Amount *", "0");
    h.get_by_label("Set details").click_accesskit();
    desk_until(&mut h, ORDER_SAID[0]).await;
    drawn::type_into(&mut h, "Amount *", "42");
    h.get_by_label("Set details").click_accesskit();
    desk_until(&mut h, ORDER_SAID[1]).await;
    h.get_by_label("Submit").click_accesskit();
    desk_until(&mut h, ORDER_SAID[2]).await;
    h.get_by_label("Yes, submit").click_accesskit();
    desk_until(&mut h, ORDER_SAID[3]).await;
    h.get_by_label("Confirm").click_accesskit();
    desk_until(&mut h, ORDER_SAID[4]).await;
    order_of(&editor)
}

async fn order_in_the_browser() -> Result<(String, String, bool)> {
    let (app, editor) = order_desk();
    let face = Face::new(app.clone());
    let server = app.serve_http(face.serve_beside(HttpOptions::default())).await?;
    let browser = Browser::start().await?;
    browser.goto(&face.one_time_link(&server).context("a link")?).await?;
    let shows = |said: &str| format!("({CARD}).includes({said:?})");
    browser.wait_for(&shows("Order Editor")).await?;
    browser.press("section[data-window]", "Set details…").await?;
    let form = format!("#pv-{}-set_details", editor.id());
    browser.type_into(&format!("{form}-recipient"), "Ada Lovelace").await?;
    browser.type_into(&format!("{form}-amount"), "0").await?;
    browser.press("form", "Set details").await?;
    browser.wait_for(&shows(ORDER_SAID[0])).await?;
    browser.type_into(&format!("{form}-amount"), "42").await?;
    browser.press("form", "Set details").await?;
    browser.wait_for(&shows(ORDER_SAID[1])).await?;
    browser.press("section[data-window]", "Submit").await?;
    browser.wait_for(&shows(ORDER_SAID[2])).await?;
    browser.press("[role=alertdialog]", "Yes, submit").await?;
    browser.wait_for(&shows(ORDER_SAID[3])).await?;
    browser.press("section[role=dialog]", "Confirm").await?;
    browser.wait_for(&shows(ORDER_SAID[4])).await?;
    Ok(order_of(&editor))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s7_on_order_desk_the_desk_and_the_browser_do_the_same_and_say_the_same() -> Result<()> {
    let desk = order_on_the_desk().await;
    let browser = order_in_the_browser().await?;
    let done = ("Ada Lovelace".to_owned(), "$42.00".to_owned(), true);
    ensure!(desk == done, "the desk's order: {desk:?}");
    ensure!(browser == desk, "the browser's order {browser:?} differs from the desk's {desk:?}");
    Ok(())
}
