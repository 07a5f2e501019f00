//! The desk with the returns desk the browser face is shown with
//! (tests/web_person.rs): 300 returns, a refund form with bounds and a
//! pattern, the return chosen from the table. The same model, the same
//! sentences: snapshots at 800×600 and 1280×800 beside the browser's in
//! docs/person/.

#[path = "support/cpu_render.rs"]
mod cpu_render;

use std::time::Duration;

use egui_kittest::{Harness, kittest::Queryable};
use purview::{App, Row, ToolError, actions, projection::Page, window};
use purview_egui::Desk;

/// A return on file.
#[derive(Clone, Row)]
struct Return {
    id: u32,
    customer: String,
    status: String,
}

#[window(title = "Returns", summary = "{refunded} refunds made")]
#[derive(Clone)]
struct Returns {
    refunded: u32,
    /// The last refund's amount and reference.
    last: Option<(u32, String)>,
    #[block(table, limit = 8, load = load_rows)]
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

fn person(size: [f32; 2]) -> Harness<'static, Desk> {
    let app = App::builder().name("returns").build();
    let statuses = ["waiting for parcel", "received", "inspected"];
    let returns = (1..=300)
        .map(|id| Return {
            id,
            customer: format!("Customer {id}"),
            status: statuses[id as usize % 3].to_owned(),
        })
        .collect();
    app.open(Returns { refunded: 0, last: None, returns }).expect("returns");
    let desk = Desk::new(app).embedded(true).heading("Returns desk");
    let mut harness = Harness::builder()
        .with_size(size)
        .renderer(cpu_render::CpuRenderer::default())
        .build_ui_state(|ui, desk: &mut Desk| desk.show(ui), desk);
    settle(&mut harness);
    harness
}

fn settle(harness: &mut Harness<'static, Desk>) {
    for _ in 0..4 {
        let _ = harness.try_run();
    }
}

fn type_into(harness: &mut Harness<'static, Desk>, label: &str, text: &str) {
    harness.get_by_label(label).focus();
    settle(harness);
    harness.get_by_label(label).type_text(text);
    settle(harness);
}

async fn until(harness: &mut Harness<'static, Desk>, label: &str) {
    for _ in 0..200 {
        settle(harness);
        if harness.query_by_label_contains(label).is_some() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never on screen: {label}");
}

async fn refund_refused(size: [f32; 2], name: &str) {
    let mut harness = person(size);
    harness.get_by_label("Last rows").click_accesskit();
    until(&mut harness, "Rows 297–300 of 300").await;
    harness.get_by_label("Refund…").click_accesskit();
    settle(&mut harness);
    assert!(harness.query_by_label("From 1 to 500").is_some(), "the amount's bounds");
    assert!(harness.query_by_label_contains("Choose a row in Returns").is_some());
    harness.query_all_by_label("Choose").nth(1).expect("a row to choose").click_accesskit();
    settle(&mut harness);
    assert!(harness.query_by_label("Chosen").is_some(), "the chosen row says so");
    type_into(&mut harness, "Amount *", "40");
    type_into(&mut harness, "Reference *", "42");
    harness.get_by_label("Refund").click_accesskit();
    until(&mut harness, "Reference: must be a reference such as RMA-0042").await;
    // One sentence per failure: the field says it, and nothing says it
    // again in the runtime's words for agents.
    assert!(harness.query_by_label_contains("Rejected").is_none(), "said twice");
    harness.snapshot(name);
    // Cancelling the form clears its failure, as in the browser.
    harness.get_by_label("Close the Refund form").click_accesskit();
    settle(&mut harness);
    assert!(harness.query_by_label_contains("Rejected").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_the_returns_desk_at_1280_by_800() {
    refund_refused([1280.0, 800.0], "returns_1280x800").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_the_returns_desk_at_800_by_600() {
    refund_refused([800.0, 600.0], "returns_800x600").await;
}
