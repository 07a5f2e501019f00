//! The returns desk a new user builds, on both faces (§7, §9): 300
//! returns, a refund form with bounds and a pattern with its message and
//! example, and the return picked `from =` the table. One fixture, drawn
//! by the browser face (in headless Chromium) and by the desk (egui,
//! headless through egui_kittest): placeholders and bounds shown, the
//! last row one click away, a failure said once under its field and
//! cleared when its form is cancelled, windows named by their titles.
//! Pictures at 800×600 and 1280×800 of each, copied into docs/person/.

#[path = "web/driver.rs"]
#[allow(dead_code)] // what the other browser tests use
mod driver;

#[path = "../purview-egui/tests/support/cpu_render.rs"]
mod cpu_render;
#[path = "../purview-egui/tests/support/drawn.rs"]
mod drawn;

use anyhow::{Context as _, Result, ensure};
use drawn::{settle, type_into};
use driver::Browser;
use egui_kittest::{Harness, SnapshotOptions, kittest::Queryable};
use purview::{App, Row, ToolError, actions, http::HttpOptions, projection::Page, window};
use purview_egui::Desk;
use purview_web::Face;

/// A return on file.
#[derive(Clone, Row)]
struct Return {
    id: u32,
    customer: String,
    item: String,
    status: String,
}

#[window(title = "Returns", summary = "{refunded} refunds made")]
#[derive(Clone)]
struct Returns {
    refunded: u32,
    /// The last refund's amount and reference.
    last: Option<(u32, String)>,
    #[block(table, limit = 20, load = load_rows)]
    returns: Vec<Return>,
}

#[actions]
impl Returns {
    /// Fetch a range of returns.
    #[action(read_only, idempotent)]
    fn load_rows(&self, offset: usize, limit: usize) -> Page<Return> {
        Page::slice(&self.returns, offset, limit)
    }

    /// Refund a return to the customer.
    #[action]
    fn refund(
        &mut self,
        /// The return to refund.
        #[arg(from = returns.id)]
        id: u32,
        /// How much to give back, in euros.
        #[arg(range(min = 1, max = 500), example = 25)]
        amount: u32,
        /// The customer's reference.
        #[arg(
            pattern = r"^RMA-\d{4}$",
            example = "RMA-0042",
            message = "a reference such as RMA-0042"
        )]
        reference: String,
    ) -> Result<(), ToolError> {
        if !self.returns.iter().any(|r| r.id == id) {
            return Err(format!("there is no return {id}").into());
        }
        self.refunded += 1;
        self.last = Some((amount, reference));
        Ok(())
    }
}

fn returns() -> Returns {
    let statuses = ["waiting for parcel", "received", "inspected"];
    let returns = (1..=300)
        .map(|id| Return {
            id,
            customer: format!("Customer {id}"),
            item: format!("Item {}", id * 7 % 97),
            status: statuses[id as usize % 3].to_owned(),
        })
        .collect();
    Returns { refunded: 0, last: None, returns }
}

const CARD: &str = "(document.querySelector('section[data-window]') || {}).innerText || ''";

/// `windows` returns desks served with the person's face, opened in a
/// browser at 1280×800.
async fn in_the_browser(windows: usize) -> Result<(App, purview::http::HttpServer, Browser)> {
    let app = App::builder().name("returns").build();
    for _ in 0..windows {
        app.open(returns())?;
    }
    served_in_the_browser(app).await
}

/// `app` served with the person's face, opened in a browser at 1280×800.
async fn served_in_the_browser(app: App) -> Result<(App, purview::http::HttpServer, Browser)> {
    let face = Face::new(app.clone());
    let server = app.serve_http(face.serve_beside(HttpOptions::default())).await?;
    let browser = Browser::start().await?;
    browser.resize(1280, 800).await?;
    browser.goto(&face.one_time_link(&server).context("a link")?).await?;
    Ok((app, server, browser))
}

#[tokio::test(flavor = "multi_thread")]
async fn s9_the_returns_desk_in_the_browser_pages_picks_and_says_its_bounds() -> Result<()> {
    let (_app, _server, browser) = in_the_browser(1).await?;
    browser.wait_for(&format!("({CARD}).includes('Rows 1–20 of 300')")).await?;

    // The last of 300 rows is one click away.
    browser.press("section[data-window]", "Last rows").await?;
    browser.wait_for(&format!("({CARD}).includes('Rows 281–300 of 300')")).await?;
    browser.press("section[data-window]", "First rows").await?;
    browser.wait_for(&format!("({CARD}).includes('Rows 1–20 of 300')")).await?;

    // The form shows its placeholder and its bounds before anything is typed.
    browser.press("section[data-window]", "Refund…").await?;
    let amount = "#pv-w1-refund-amount";
    browser.wait_for(&format!("document.querySelector('{amount}') !== null")).await?;
    let placeholder =
        browser.run(&format!("return document.querySelector('{amount}').placeholder;")).await?;
    ensure!(placeholder == "25", "the example is the placeholder: {placeholder}");
    let text = browser.run(&format!("return {CARD};")).await?;
    ensure!(
        text.as_str().unwrap_or_default().contains("From 1 to 500"),
        "the bounds are shown: {text}"
    );

    // A row chosen; a reference in the wrong shape is refused under its field.
    browser.click("button[aria-label='Choose 3 as Id for Refund']").await?;
    browser.wait_for("document.querySelector('#pv-w1-refund-id').value === '3'").await?;
    browser.type_into(amount, "40").await?;
    browser.type_into("#pv-w1-refund-reference", "42").await?;
    browser.press("form", "Refund").await?;
    browser.wait_for("document.querySelector('#pv-w1-refund-reference-error') !== null").await?;
    let said = browser
        .run("return document.querySelector('#pv-w1-refund-reference-error').innerText;")
        .await?;
    ensure!(said.as_str().unwrap_or_default().contains("a reference such as RMA-0042"), "{said}");
    // One sentence per failure: the field says it, and nothing says it
    // again in the runtime's words for agents.
    let text = browser.run(&format!("return {CARD};")).await?;
    ensure!(!text.as_str().unwrap_or_default().contains("Rejected"), "{text}");
    let beneath = browser.run("return document.querySelector('p.pv-error') === null;").await?;
    ensure!(beneath == true, "a second sentence beneath the form: {text}");
    let shot = browser.screenshot("web-returns-1280x800").await?;
    ensure!(shot.exists());
    browser.resize(800, 600).await?;
    let shot = browser.screenshot("web-returns-800x600").await?;
    ensure!(shot.exists());

    // Cancelling the form clears its failure: it is no longer news.
    browser.press("form", "Cancel").await?;
    browser.wait_for(&format!("!({CARD}).includes('Rejected')")).await?;
    browser.wait_for("document.querySelector('.pv-error') === null").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn s7_the_persons_place_in_a_table_stays_while_an_agent_works() -> Result<()> {
    let (app, _server, browser) = in_the_browser(1).await?;
    browser.wait_for(&format!("({CARD}).includes('Rows 1–20 of 300')")).await?;
    // The person scrolls down the table to the rows they are reading.
    let wrap = "document.querySelector('.pv-tablewrap')";
    let at = browser.run(&format!("{wrap}.scrollTop = 240; return {wrap}.scrollTop;")).await?;
    ensure!(at.as_f64().unwrap_or_default() > 100.0, "the table does not scroll: {at}");
    // The agent refunds a return: the window changes and is drawn again.
    let arguments = serde_json::json!({"id": 5, "amount": 10, "reference": "RMA-0005"});
    app.call("w1__refund", arguments.as_object().cloned())
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    browser.wait_for(&format!("({CARD}).includes('1 refunds made')")).await?;
    let kept = browser.run(&format!("return {wrap}.scrollTop;")).await?;
    ensure!(kept == at, "the table went back to its top: {kept}, was {at}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn s7_a_page_of_rows_the_person_chose_stays_chosen_through_a_change_and_shows_it()
-> Result<()> {
    let (app, _server, browser) = in_the_browser(1).await?;
    browser.wait_for(&format!("({CARD}).includes('Rows 1–20 of 300')")).await?;
    browser.press("section[data-window]", "Last rows").await?;
    browser.wait_for(&format!("({CARD}).includes('Rows 281–300 of 300')")).await?;
    // The app makes a refund the window shows and changes a row on the
    // page the person is reading: the page stays where the person put it,
    // loaded again, so it shows the change.
    let desk = app.windows_of::<Returns>()?.into_iter().next().context("the returns desk")?;
    desk.update(|r| {
        r.refunded += 1;
        r.returns[289].status = "refunded by the agent".to_owned();
    })?;
    browser
        .wait_for(&format!(
            "({CARD}).includes('refunded by the agent') && ({CARD}).includes('Rows 281–300 of 300')"
        ))
        .await?;
    Ok(())
}

/// Opens the form `within` offers behind `button` and types half a word
/// into its `field`, part of it selected, as an input method leaves an
/// unfinished word; then the agent refunds a return in `refunded`, and the
/// field must still be the node the person typed into, as they left it.
async fn typing_survives_a_refund(
    app: &App,
    browser: &Browser,
    (within, button, field): (&str, &str, &str),
    refunded: &str,
) -> Result<()> {
    let window =
        format!("(document.querySelector('#pv-window-{refunded}') || {{}}).innerText || ''");
    browser.wait_for(&format!("({window}).includes('0 refunds made')")).await?;
    browser.press(within, button).await?;
    browser.wait_for(&format!("document.querySelector('{field}') !== null")).await?;
    browser.type_into(field, "RMA-00").await?;
    browser
        .run(&format!(
            "const f = document.querySelector('{field}'); f.focus(); f.setSelectionRange(2, 5); f.dataset.typing = 'yes';"
        ))
        .await?;
    let arguments = serde_json::json!({"id": 5, "amount": 10, "reference": "RMA-0005"});
    let refund = app.call(&format!("{refunded}__refund"), arguments.as_object().cloned());
    refund.await.map_err(|e| anyhow::anyhow!("{e}"))?;
    browser.wait_for(&format!("({window}).includes('1 refunds made')")).await?;
    let kept = browser
        .run(&format!(
            "const f = document.querySelector('{field}'); \
             return [f.dataset.typing, f.value, f.selectionStart, f.selectionEnd, document.activeElement === f];"
        ))
        .await?;
    ensure!(
        kept == serde_json::json!(["yes", "RMA-00", 2, 5, true]),
        "the field was replaced: {kept}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn s7_a_field_being_typed_into_is_never_replaced_by_an_agents_change_elsewhere() -> Result<()>
{
    let (app, _server, browser) = in_the_browser(2).await?;
    let refund_form = ("#pv-window-w1", "Refund…", "#pv-w1-refund-reference");
    typing_survives_a_refund(&app, &browser, refund_form, "w2").await
}

/// The desk's own action, above its windows.
#[derive(Clone)]
struct Front;

#[actions(app)]
impl Front {
    /// Find a return by the customer's reference.
    #[action]
    fn find(&mut self, reference: String) {
        let _ = reference;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn s7_a_field_of_the_apps_own_action_being_typed_into_stays_through_an_agents_change()
-> Result<()> {
    let app = App::builder().name("returns").app_actions(Front).build();
    app.open(returns())?;
    let (app, _server, browser) = served_in_the_browser(app).await?;
    let find_form = (".pv-app", "Find…", "#pv-app-find-reference");
    typing_survives_a_refund(&app, &browser, find_form, "w1").await
}

// ---- the desk -----------------------------------------------------------

fn desk(size: [f32; 2]) -> Harness<'static, Desk> {
    let app = App::builder().name("returns").build();
    app.open(returns()).expect("returns");
    drawn::drawn(Desk::new(app).embedded(true).heading("Returns desk"), size)
}

/// Draws until something labelled with `label` shows.
async fn until(harness: &mut Harness<'static, Desk>, label: &str) {
    drawn::until(harness, label, |h| h.query_by_label_contains(label).is_some()).await;
}

/// The same steps as in the browser, on the desk; its picture is compared
/// with the one kept in tests/snapshots/.
async fn desk_refund_refused(size: [f32; 2], name: &str) {
    let mut harness = desk(size);
    harness.get_by_label("Last rows").click_accesskit();
    until(&mut harness, "Rows 281–300 of 300").await;
    harness.get_by_label("First rows").click_accesskit();
    until(&mut harness, "Rows 1–20 of 300").await;
    harness.get_by_label("Refund…").click_accesskit();
    settle(&mut harness);
    assert!(harness.query_by_label("From 1 to 500").is_some(), "the amount's bounds");
    assert!(harness.query_by_label_contains("Choose a row in Returns").is_some());
    harness.query_all_by_label("Choose").nth(2).expect("a row to choose").click_accesskit();
    settle(&mut harness);
    assert!(harness.query_by_label("Chosen").is_some(), "the chosen row says so");
    type_into(&mut harness, "Amount *", "40");
    type_into(&mut harness, "Reference *", "42");
    harness.get_by_label("Refund").click_accesskit();
    until(&mut harness, "Reference: must be a reference such as RMA-0042").await;
    // One sentence per failure, as in the browser.
    assert!(harness.query_by_label_contains("Rejected").is_none(), "said twice");
    // Where the person is after pressing Refund, just below the failure.
    harness.get_by_label_contains("must be a reference").scroll_to_me();
    settle(&mut harness);
    let kept =
        SnapshotOptions::new().output_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    harness.snapshot_options(name, &kept);
    // Cancelling the form clears its failure, as in the browser.
    harness.get_by_label("Close the Refund form").click_accesskit();
    settle(&mut harness);
    assert!(harness.query_by_label_contains("must be a reference").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_the_returns_desk_on_the_desk_at_1280_by_800() {
    desk_refund_refused([1280.0, 800.0], "returns_1280x800").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_the_returns_desk_on_the_desk_at_800_by_600() {
    desk_refund_refused([800.0, 600.0], "returns_800x600").await;
}
