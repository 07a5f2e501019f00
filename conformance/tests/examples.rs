//! The explorer in-process over every example's windows, on every tool
//! surface, with fixed seeds: more than 10,000 steps in all, and no finding
//! (no MUST failed, no handler failed).

#[path = "../../examples/by_hand.rs"]
#[allow(dead_code)]
mod by_hand;
#[path = "../../examples/hello_windows.rs"]
#[allow(dead_code)]
mod hello_windows;
#[path = "../../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod order_desk;

use std::time::Duration;

use purview::{App, settings::ToolSurface};
use purview_conformance::{Check, Explorer, Report, Status};
use serde_json::json;

/// Steps per surface: order_desk, hello_windows, by_hand.
const WINDOWS: [usize; 3] = [3_300, 500, 500];
const BOTH: [usize; 3] = [3_300, 500, 500];
const DISPATCHER: [usize; 3] = [1_000, 300, 300];
const _: () = assert!(
    WINDOWS[0]
        + WINDOWS[1]
        + WINDOWS[2]
        + BOTH[0]
        + BOTH[1]
        + BOTH[2]
        + DISPATCHER[0]
        + DISPATCHER[1]
        + DISPATCHER[2]
        >= 10_000
);

/// Asserts a clean walk of exactly `steps` that reached `must_reach`.
fn clean(report: &Report, steps: usize, must_reach: &[Check]) {
    eprintln!(
        "{}: {} steps in {:.1} s, at most {} windows open",
        report.server.as_deref().unwrap_or("?"),
        report.steps,
        report.elapsed.as_secs_f64(),
        report.coverage.most_open
    );
    report.assert_clean();
    assert_eq!(report.steps, steps, "the walk stopped early:\n{report}");
    for check in must_reach {
        assert_eq!(
            report.check(*check).status,
            Status::Pass,
            "{check} was not exercised:\n{report}"
        );
    }
}

/// The order_desk walk: the lock screen's PIN so it gets past it, the
/// payment password which must never come back, and (for app__act, whose
/// arguments name windows and actions) the names worth trying.
fn desk_explorer(seed: u64, steps: usize) -> Explorer {
    let mut explorer = Explorer::new()
        .seed(seed)
        .steps(steps)
        .allow_destructive(true)
        .hint("pin", order_desk::UNLOCK_PIN)
        .secret("hunter2");
    for window in ["w1", "w2", "w3", "w4", "app"] {
        explorer = explorer.hint("window", window);
    }
    for action in [
        "edit_field",
        "set_details",
        "submit",
        "confirm",
        "cancel",
        "load_rows",
        "close",
        "lock",
        "unlock",
        "new_report",
    ] {
        explorer = explorer.hint("action", action);
    }
    explorer
        .hint("arguments", json!({"field": "recipient", "value": "Ada Lovelace"}))
        .hint("arguments", json!({"pin": order_desk::UNLOCK_PIN}))
        .hint("arguments", json!({"offset": 0, "limit": 5}))
        .hint("arguments", json!({}))
}

async fn walk(surface: ToolSurface, seed: u64, steps: [usize; 3], reached: &[Check]) {
    let desk = desk_explorer(seed, steps[0])
        .explore(move || {
            order_desk::order_desk(App::builder().tool_surface(surface).coalesce(Duration::ZERO))
        })
        .await;
    clean(&desk, steps[0], reached);
    let hello = Explorer::new()
        .seed(seed + 1)
        .steps(steps[1])
        .allow_destructive(true)
        .explore(move || hello_windows::app(surface).expect("hello_windows starts").0)
        .await;
    clean(&hello, steps[1], &[Check::Operability, Check::Versions]);
    let by_hand = Explorer::new()
        .seed(seed + 2)
        .steps(steps[2])
        .allow_destructive(true)
        .explore(move || by_hand::app(surface).expect("by_hand starts").0)
        .await;
    clean(&by_hand, steps[2], &[Check::Operability, Check::Versions]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_examples_walk_clean_on_the_windows_surface() {
    let reached = [
        Check::Operability,
        Check::ToolsListChanged,
        Check::StaleState,
        Check::RuntimeValidation,
        Check::FieldErrors,
        Check::Versions,
        Check::Broadcast,
        Check::Masking,
        Check::Serialized,
    ];
    walk(ToolSurface::Windows, 100, WINDOWS, &reached).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_examples_walk_clean_on_the_default_surface() {
    let reached = [
        Check::Operability,
        Check::ToolsListChanged,
        Check::StaleState,
        Check::RuntimeValidation,
        Check::Versions,
        Check::Broadcast,
        Check::Masking,
    ];
    walk(ToolSurface::Both, 200, BOTH, &reached).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_examples_walk_clean_on_the_dispatcher_surface() {
    // One unchanging tool list; app__act reaches the windows.
    let reached =
        [Check::Operability, Check::StaleState, Check::Versions, Check::Broadcast, Check::Masking];
    walk(ToolSurface::Dispatcher, 300, DISPATCHER, &reached).await;
}
