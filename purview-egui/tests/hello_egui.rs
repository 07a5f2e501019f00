//! The minimal example, worked by a person through the default desk.

#[path = "../examples/hello_egui.rs"]
#[allow(dead_code)] // its main() is the example's, not the test's
mod hello;

use std::time::Duration;

use egui_kittest::{
    Harness,
    kittest::{NodeT, Queryable},
};
use purview_egui::Desk;

fn person() -> (purview::App, Harness<'static, Desk>) {
    let app = hello::todo_app();
    let desk = Desk::new(app.clone()).embedded(true).heading("Hello, egui");
    let mut harness = Harness::builder()
        .with_size([1300.0, 600.0])
        .build_ui_state(|ui, desk: &mut Desk| desk.show(ui), desk);
    let _ = harness.try_run();
    (app, harness)
}

/// Draws (letting the person's calls land) until `label` is on screen.
async fn until_label(harness: &mut Harness<'static, Desk>, label: &str, shown: bool) {
    for _ in 0..250 {
        let _ = harness.try_run();
        if harness.query_by_label_contains(label).is_some() == shown {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{label:?} shown should be {shown}; the screen: {:#?}", harness.root());
}

/// The value drawn for the field labelled `label`.
fn field_value(harness: &Harness<'static, Desk>, label: &str) -> Option<String> {
    harness.root().children_recursive().map(|n| n.accesskit_node()).find_map(|n| {
        n.labelled_by().any(|l| l.value().as_deref() == Some(label)).then(|| n.value()).flatten()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_adds_a_task_through_the_generated_form() {
    let (_app, mut harness) = person();
    harness.get_by_label("Add…").click_accesskit();
    let _ = harness.try_run();
    harness.get_by_label("Task *").focus();
    let _ = harness.try_run();
    harness.get_by_label("Task *").type_text("Feed the cat");
    let _ = harness.try_run();
    harness.get_by_label("Add").click_accesskit();
    until_label(&mut harness, "Feed the cat", true).await;
    assert_eq!(field_value(&harness, "Still to do").as_deref(), Some("3"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clear_opens_its_dialog_which_blocks_the_list_until_confirmed() {
    let (app, mut harness) = person();
    harness.get_by_label("Clear").click_accesskit();
    until_label(&mut harness, "Blocked by Clear the list?", true).await;
    assert!(harness.get_by_label("Add…").accesskit_node().is_disabled());
    harness.get_by_label("Confirm").click_accesskit();
    until_label(&mut harness, "Blocked by", false).await;
    assert!(harness.query_by_label("Water the plants").is_none());
    assert_eq!(app.window_list().unwrap().len(), 1, "the dialog closed");
}
