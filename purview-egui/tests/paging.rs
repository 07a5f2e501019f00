//! Paging a large table from the desk (§9): the row count always shown,
//! first, previous, next, last and "go to row", each through the window's
//! own load action with typed requests and pages.

use std::time::Duration;

use egui_kittest::{
    Harness,
    kittest::{NodeT, Queryable},
};
use purview::{App, actions, projection::Page, window};
use purview_egui::Desk;

/// 3,000 appointments, 20 shown at a time.
#[window(title = "Appointments", summary = "{count} appointments")]
#[derive(Clone)]
struct Appointments {
    count: usize,
    #[block(table, limit = 20, load = load_rows, columns = ["Number", "Pet"])]
    rows: Vec<(u32, String)>,
    #[block(table, columns = ["Vet"])]
    vets: Vec<(String,)>,
}

#[actions]
impl Appointments {
    /// Fetch a range of appointments.
    #[action(read_only, idempotent)]
    fn load_rows(
        &self,
        /// Index of the first row.
        offset: usize,
        /// How many rows.
        limit: usize,
    ) -> Page<(u32, String)> {
        Page::slice(&self.rows, offset, limit)
    }
}

fn person() -> (App, Harness<'static, Desk>) {
    let app = App::builder().name("clinic").build();
    let rows: Vec<(u32, String)> = (1..=3000).map(|i| (i, format!("Pet {i}"))).collect();
    let vets = vec![("Dr Moreau".to_owned(),), ("Dr Doolittle".to_owned(),)];
    app.open(Appointments { count: rows.len(), rows, vets }).expect("open");
    let desk = Desk::new(app.clone()).embedded(true).heading("Clinic");
    let mut harness = Harness::builder()
        .with_size([1400.0, 1000.0])
        .build_ui_state(|ui, desk: &mut Desk| desk.show(ui), desk);
    let _ = harness.try_run();
    (app, harness)
}

async fn until_label(harness: &mut Harness<'static, Desk>, label: &str) {
    for _ in 0..250 {
        let _ = harness.try_run();
        if harness.query_by_label_contains(label).is_some() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never on screen: {label}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_the_row_count_is_always_shown_paged_or_not() {
    let (_app, harness) = person();
    assert!(harness.query_by_label("Rows 1–20 of 3000").is_some());
    // A table without paging says how many rows it has too.
    assert!(harness.query_by_label("2 rows").is_some());
    assert!(harness.get_by_label("First rows").accesskit_node().is_disabled());
    assert!(harness.get_by_label("Previous rows").accesskit_node().is_disabled());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_last_and_first_reach_either_end_in_one_click() {
    let (_app, mut harness) = person();
    harness.get_by_label("Last rows").click_accesskit();
    until_label(&mut harness, "Rows 2981–3000 of 3000").await;
    assert!(harness.query_by_label("Pet 3000").is_some());
    assert!(harness.get_by_label("Next rows").accesskit_node().is_disabled());
    harness.get_by_label("First rows").click_accesskit();
    until_label(&mut harness, "Rows 1–20 of 3000").await;
    assert!(harness.query_by_label("Pet 1").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_go_to_row_shows_the_page_holding_it() {
    let (_app, mut harness) = person();
    harness.get_by_label("Go to row").focus();
    let _ = harness.try_run();
    harness.get_by_label("Go to row").type_text("1234");
    let _ = harness.try_run();
    harness.get_by_label("Go").click_accesskit();
    until_label(&mut harness, "Rows 1221–1240 of 3000").await;
    assert!(harness.query_by_label("Pet 1234").is_some());
    assert!(harness.query_by_label("Pet 1").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_go_to_a_row_out_of_range_says_which_rows_exist() {
    let (_app, mut harness) = person();
    harness.get_by_label("Go to row").focus();
    let _ = harness.try_run();
    harness.get_by_label("Go to row").type_text("5000");
    let _ = harness.try_run();
    harness.get_by_label("Go").click_accesskit();
    let _ = harness.try_run();
    assert!(harness.query_by_label("A row from 1 to 3000").is_some());
    assert!(harness.query_by_label("Rows 1–20 of 3000").is_some(), "the page stays");
}
