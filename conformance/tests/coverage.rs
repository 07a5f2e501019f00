//! A walk says what it covered and is never a pass when it could not
//! exercise the app: order_desk's lock screen without the PIN leaves the
//! walk inconclusive, naming `unlock` and the hint that gets past it; with
//! the PIN every operation succeeds; on the dispatcher surface `app__act`
//! reaches every kind of window the per-window tools reach.

#[path = "../../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod order_desk;

use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    time::Duration,
};

use purview::{App, settings::ToolSurface};
use purview_conformance::{CoverageLevel, Explorer, Report, Verdict};

/// Every kind of window order_desk can open.
const WINDOW_TYPES: [&str; 5] =
    ["Order Editor", "Report Details", "Confirm submission", "Terms", "Locked"];

async fn walk(surface: ToolSurface, pin: Option<&str>, seed: u64) -> Report {
    // On the dispatcher surface a third of the steps are reads
    // (app__read_windows is a tool like any other there) and every action
    // goes through app__act, so the dialog is reached less often: it takes
    // more steps to call each of its actions.
    let steps = if surface == ToolSurface::Dispatcher { 800 } else { 400 };
    // A submitted order only offers `focus`: the walk leaves `submit` (a
    // destructive action) until the rest is covered, so no seed depends on
    // luck to reach `set_details` first.
    let mut explorer = Explorer::new().seed(seed).steps(steps).allow_destructive(true);
    if let Some(pin) = pin {
        explorer = explorer.hint("pin", pin);
    }
    explorer
        .explore(move || {
            order_desk::order_desk(App::builder().tool_surface(surface).coalesce(Duration::ZERO))
        })
        .await
}

/// Operations that were offered and never succeeded.
fn uncovered(report: &Report) -> Vec<String> {
    let tools = &report.coverage.tools;
    let failing = tools.iter().filter(|(key, c)| c.succeeded == 0 && !key.starts_with('('));
    failing.map(|(key, _)| key.clone()).chain(report.coverage.never_called.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_walk_stuck_behind_the_lock_screen_is_inconclusive_and_names_unlock() {
    let report = walk(ToolSurface::Both, None, 3).await;
    assert!(report.passed(), "no MUST fails on order_desk:\n{report}");
    assert_eq!(report.verdict(), Verdict::Inconclusive, "{report}");
    let unlock = report.gaps.iter().find(|g| g.what == "Locked · unlock").expect("unlock gap");
    assert!(unlock.fix.contains("--hint pin="), "{unlock:?}");
    let text = report.to_string();
    assert!(text.contains("NOT COVERED"), "{text}");
    assert!(text.contains("RESULT: INCONCLUSIVE"), "{text}");
    assert!(text.contains("`Locked · unlock`"), "{text}");
    // An app's own test can refuse such a walk, or accept it knowingly.
    let strict = Report { required: CoverageLevel::Conclusive, ..report.clone() };
    assert!(catch_unwind(AssertUnwindSafe(|| strict.assert_clean())).is_err());
    let lenient = Report { required: CoverageLevel::Any, ..report };
    lenient.assert_clean();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_pin_every_operation_succeeds_and_the_walk_passes_whatever_the_seed() {
    // Seeds 5 and 9 once submitted early and never came back.
    for seed in [3, 5, 9] {
        let report = walk(ToolSurface::Both, Some(order_desk::UNLOCK_PIN), seed).await;
        assert_eq!(report.verdict(), Verdict::Pass, "seed {seed}:\n{report}");
        assert_eq!(uncovered(&report), Vec::<String>::new(), "seed {seed}:\n{report}");
        assert!(report.gaps.is_empty(), "seed {seed}: {:#?}", report.gaps);
        assert!(report.covers(CoverageLevel::Conclusive));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_the_dispatcher_surface_app_act_reaches_every_window_type() {
    let report = walk(ToolSurface::Dispatcher, Some(order_desk::UNLOCK_PIN), 3).await;
    assert_eq!(report.verdict(), Verdict::Pass, "{report}");
    let act = &report.coverage.tools["app · act"];
    assert!(act.succeeded > 0, "{report}");
    for title in WINDOW_TYPES {
        assert!(report.coverage.windows.contains_key(title), "{title} never reached:\n{report}");
    }
    assert_eq!(uncovered(&report), Vec::<String>::new(), "{report}");
}
