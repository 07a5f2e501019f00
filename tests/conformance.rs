//! The conformance explorer in-process over the test fixture, whose windows
//! cover every protocol path, on every tool surface: no MUST fails, and the
//! fixture's deliberately panicking handler is reported as the app's
//! finding, shrunk to the one call that shows it.

use purview::{App, settings::ToolSurface};
use purview_conformance::{Check, Explorer, Level, Status, Step, Verdict};
use purview_tests::{Editor, PASSWORD, PIN, demo_app_on};

fn fixture(surface: ToolSurface) -> impl Fn() -> App + Send + Sync + 'static {
    move || {
        let app = demo_app_on(surface);
        app.open(Editor::default()).expect("open the editor");
        app
    }
}

/// `explode` panics on purpose; keep its message out of the test output.
fn quiet_explosions() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.to_string().contains("explode action always panics") {
            default(info);
        }
    }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_the_fixture_conforms_and_its_panicking_handler_is_the_apps_finding() {
    quiet_explosions();
    for (surface, seed) in [(ToolSurface::Windows, 1), (ToolSurface::Both, 2)] {
        let report = Explorer::new()
            .seed(seed)
            .steps(1_500)
            .allow_destructive(true)
            .secret(PASSWORD)
            .hint("pin", PIN)
            // `slow` works for this long; its 300 ms limit is tried now and then.
            .hint("millis", 1)
            .explore(fixture(surface))
            .await;
        assert!(report.passed(), "{report}");
        for check in [
            Check::Operability,
            Check::StaleState,
            Check::RuntimeValidation,
            Check::Versions,
            Check::Masking,
        ] {
            assert_eq!(report.check(check).status, Status::Pass, "{check}:\n{report}");
        }
        // The only finding is the application's own: `explode`.
        let failed: Vec<Check> = report
            .checks
            .iter()
            .filter(|c| c.status == Status::Fail && c.level != Level::Should)
            .map(|c| c.check)
            .collect();
        assert_eq!(failed, [Check::HandlerFailed], "{report}");
        // An application finding fails the walk, as the command line's exit
        // code 1 does, unless it is allowed on purpose.
        assert_eq!(report.verdict(), Verdict::Fail, "{report}");
        assert!(!report.clean());
        let mut allowed = report.clone();
        allowed.allowed = vec![Check::HandlerFailed];
        assert_ne!(allowed.verdict(), Verdict::Fail, "{allowed}");
        assert!(allowed.to_string().contains("allowed on purpose: handler-failed"));
        let evidence = &report.check(Check::HandlerFailed).evidence;
        // Through the window's own tool or through app__act.
        let explode = |d: &str| d.contains("__explode") || d.contains(r#""action":"explode""#);
        assert!(evidence.iter().all(|e| explode(&e.detail)), "{evidence:#?}");
        let shrunk =
            report.shrunk.iter().find(|s| s.check == Check::HandlerFailed).expect("shrunk");
        assert!(shrunk.reproduced);
        // The report prints it as a test of the app's own; what it replays
        // (the script between the raw-string marks) shows the finding again
        // through the same calls the printed test makes.
        let test = shrunk.script.as_rust_test(Check::HandlerFailed);
        assert!(report.to_string().contains("async fn replays_the_handler_failed_failure()"));
        let json =
            test.split("r###\"").nth(1).and_then(|t| t.split("\"###").next()).expect("a script");
        let script: purview_conformance::Script = serde_json::from_str(json).expect("the script");
        let endpoint = purview_conformance::Endpoint::in_process(fixture(surface));
        let replayed = Explorer::new().replay(&endpoint, &script).await;
        assert_eq!(replayed.check(Check::HandlerFailed).status, Status::Fail, "{replayed}");
        // At most the calls that open the window it happened in, then the call.
        match shrunk.script.steps.as_slice() {
            [.., Step::Call(call)] if shrunk.script.steps.len() <= 4 => {
                let via_act = call.tool == "app__act" && call.arguments["action"] == "explode";
                assert!(call.tool.ends_with("__explode") || via_act, "{call:?}")
            }
            other => panic!("expected a short sequence ending in explode, got {other:#?}"),
        }
        eprintln!(
            "{}: {} steps in {:.1} s",
            surface.as_str(),
            report.steps,
            report.elapsed.as_secs_f64()
        );
    }
}

/// The kit's `rejects-invalid` finding at seed 7: `app__act` with an empty
/// `action` and an `expectedVersion` that is not an integer named only
/// `action`. §7.3 wants every wrong field named in one answer.
#[tokio::test]
async fn s7_3_app_act_names_a_bad_expected_version_beside_other_bad_fields() {
    let app = demo_app_on(ToolSurface::Both);
    app.open(Editor::default()).expect("open the editor");
    for (window, action) in [("", "x"), ("w1", ""), ("", "")] {
        let arguments = serde_json::json!({
            "window": window, "action": action, "expectedVersion": "not a version"
        });
        let outcome = app.call("app__act", arguments.as_object().cloned()).outcome().await;
        assert!(outcome.is_error, "{arguments}: {:?}", outcome.structured);
        assert_eq!(outcome.structured["code"], "validation_failed");
        let fields: Vec<&str> = outcome.structured["fields"]
            .as_array()
            .expect("fields[]")
            .iter()
            .filter_map(|f| f["field"].as_str())
            .collect();
        assert!(fields.contains(&"expectedVersion"), "{arguments}: names only {fields:?}");
        for name in ["window", "action"] {
            let bad = arguments[name] == "";
            assert_eq!(fields.contains(&name), bad, "{arguments}: names {fields:?}");
        }
    }
}

/// A backlog whose table shows 2 of its rows; `paged` declares the load
/// action that fetches the rest, otherwise only a write is offered.
fn backlog(paged: bool, surface: ToolSurface) -> impl Fn() -> App + Send + Sync + 'static {
    move || {
        let app = App::builder().name("backlog").tool_surface(surface).build();
        let items: Vec<(String,)> = (1..=5).map(|i| (format!("item {i}"),)).collect();
        if paged {
            app.open(PagedBacklog { items }).expect("open the paged backlog");
        } else {
            app.open(Backlog { items }).expect("open the backlog");
        }
        app
    }
}

#[purview::window(summary = "A backlog")]
#[derive(Clone, Default)]
struct Backlog {
    #[block(table, limit = 2, columns = ["Item"])]
    items: Vec<(String,)>,
}

#[purview::actions]
impl Backlog {
    /// Drop the last item.
    #[action]
    fn drop_last(&mut self) {
        self.items.pop();
    }
}

#[purview::window(summary = "A backlog")]
#[derive(Clone, Default)]
struct PagedBacklog {
    #[block(table, limit = 2, load = load_items, columns = ["Item"])]
    items: Vec<(String,)>,
}

#[purview::actions]
impl PagedBacklog {
    /// Fetch a range of items.
    #[action(read_only)]
    fn load_items(&self, offset: usize, limit: usize) -> purview::projection::Page<(String,)> {
        purview::projection::Page::slice(&self.items, offset, limit)
    }
}

/// On every surface: with the per-window tools the kit reads the
/// readOnly annotations of tools/list, with the dispatcher alone the
/// signatures and annotations `app__read_windows` gives.
/// A paged backlog whose load action pages only its first `first` rows, so
/// its pages count fewer rows than the table shows it has.
#[purview::window(summary = "A backlog")]
#[derive(Clone, Default)]
struct MiscountedBacklog {
    #[block(table, limit = 2, load = load_items, columns = ["Item"])]
    items: Vec<(String,)>,
    first: usize,
}

#[purview::actions]
impl MiscountedBacklog {
    /// Fetch a range of items.
    #[action(read_only)]
    fn load_items(&self, offset: usize, limit: usize) -> purview::projection::Page<(String,)> {
        purview::projection::Page::slice(&self.items[..self.first], offset, limit)
    }
}

#[tokio::test]
async fn s9_the_kit_reports_a_declared_load_action_whose_pages_miscount_its_table() {
    for surface in [ToolSurface::Both, ToolSurface::Dispatcher] {
        let miscounted = move || {
            let app = App::builder().name("backlog").tool_surface(surface).build();
            let items: Vec<(String,)> = (1..=5).map(|i| (format!("item {i}"),)).collect();
            app.open(MiscountedBacklog { items, first: 3 }).expect("open the backlog");
            app
        };
        let report = Explorer::new().seed(3).steps(60).explore(miscounted).await;
        let check = report.check(Check::LargeData);
        assert_eq!(check.status, Status::Fail, "{surface:?}\n{report}");
        assert!(
            check
                .evidence
                .iter()
                .any(|e| e.detail.contains("which has 5 rows, but its page counts 3")),
            "{surface:?}\n{report}"
        );
        // The same table paged honestly passes (the check can pass).
        let report = Explorer::new().seed(3).steps(60).explore(backlog(true, surface)).await;
        assert_eq!(report.check(Check::LargeData).status, Status::Pass, "{surface:?}\n{report}");
    }
}

#[tokio::test]
async fn s9_the_kit_reports_a_table_cut_short_with_no_way_to_fetch_the_rest() {
    for surface in [ToolSurface::Windows, ToolSurface::Dispatcher] {
        for (paged, expected) in [(false, Status::Fail), (true, Status::Pass)] {
            let report = Explorer::new().seed(3).steps(40).explore(backlog(paged, surface)).await;
            let check = report.check(Check::LargeData);
            assert_eq!(check.status, expected, "{surface:?}, paged: {paged}\n{report}");
            assert_eq!(check.level, Level::Should);
            if !paged {
                assert!(
                    check.evidence.iter().any(|e| e.detail.contains("2 of the 5 rows")),
                    "{report}"
                );
            }
        }
    }
}
