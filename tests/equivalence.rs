//! `app__act` is the same path as a window's own tool: for random operation
//! sequences, calling `{window}__{action}` on one app and `app__act` with
//! that window and action on an identical app gives identical outcomes
//! (error code and the whole error or result), identical state (snapshots,
//! versions) and identical notifications.

use std::future::IntoFuture as _;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use purview::{App, activity::Change, settings::ToolSurface};
use purview_tests::{Editor, PIN, demo_app_on};
use serde_json::{Value, json};

#[derive(Debug, Clone)]
enum Op {
    /// The person opens an editor.
    Open,
    /// The person types into an editor.
    PersonEdit(usize, bool),
    /// An agent calls `action` on the n-th open window (or the app), with
    /// the n-th argument set and an expectedVersion choice.
    Call { window: usize, action: usize, args: usize, version: u8 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => Just(Op::Open),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(w, f)| Op::PersonEdit(w, f)),
        6 => (any::<usize>(), any::<usize>(), any::<usize>(), 0u8..3)
            .prop_map(|(window, action, args, version)| Op::Call { window, action, args, version }),
    ]
}

const ACTIONS: [&str; 15] = [
    "edit_field",
    "set_details",
    "submit",
    "focus",
    "touch",
    "explode",
    "load",
    "close",
    "reveal",
    "confirm",
    "cancel",
    "nest",
    "unlock",
    "lock",
    "new_editor",
];

fn arguments(n: usize) -> Value {
    let sets = [
        json!({}),
        json!({"field": "recipient", "value": "Ada"}),
        json!({"field": "amount", "value": "lots"}),
        json!({"field": 5}),
        json!({"recipient": "", "amount": 0}),
        json!({"recipient": "Bo", "amount": 12.5}),
        json!({"offset": 3, "limit": 4}),
        json!({"offset": -1, "limit": 999}),
        json!({"pin": PIN}),
        json!({"pin": "0000"}),
        json!({"colour": "red"}),
    ];
    sets[n % sets.len()].clone()
}

/// One app, and every change it announced.
struct Side {
    app: App,
    changes: Arc<Mutex<Vec<Change>>>,
}

impl Side {
    fn new() -> Self {
        let app = demo_app_on(ToolSurface::Both);
        let changes = Arc::new(Mutex::new(Vec::new()));
        let sink = changes.clone();
        app.on_change(move |c| sink.lock().unwrap().push(c));
        Self { app, changes }
    }

    fn window(&self, n: usize) -> String {
        let ids: Vec<String> = self.app.window_list().unwrap().into_iter().map(|w| w.id).collect();
        if ids.is_empty() || n % (ids.len() + 1) == ids.len() {
            "app".into()
        } else {
            ids[n % (ids.len() + 1)].clone()
        }
    }
}

fn outcome(result: Result<purview::Performed<Option<Value>>, purview::ToolError>) -> Value {
    match result {
        Ok(ok) => json!({"ok": {
            "message": ok.message,
            "result": ok.value,
            "openedWindowIds": ok.opened_window_ids,
            "next": ok.next,
        }}),
        Err(mut err) => {
            // `app__act` alone repeats, on a `validation_failed`, the
            // signature the agent built its call from.
            err.signature = None;
            json!({"error": err})
        }
    }
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let direct = Side::new();
    let dispatched = Side::new();
    for op in ops {
        match op {
            Op::Open => {
                direct.app.open(Editor::default()).unwrap();
                dispatched.app.open(Editor::default()).unwrap();
            }
            Op::PersonEdit(n, fill) => {
                let id = direct.window(n);
                for side in [&direct, &dispatched] {
                    if let Ok(h) = side.app.window::<Editor>(&id) {
                        h.update(|e| {
                            e.recipient = if fill { "typed".into() } else { String::new() }
                        })
                        .unwrap();
                    }
                }
            }
            Op::Call { window, action, args, version } => {
                let id = direct.window(window);
                let action = ACTIONS[action % ACTIONS.len()];
                let mut args = arguments(args);
                let current = direct.app.window::<Editor>(&id).and_then(|h| h.version()).ok();
                let expected = match (version, current) {
                    (1, Some(v)) => Some(v),
                    (2, Some(v)) => Some(v.saturating_sub(1)),
                    _ => None,
                };
                let mut act = json!({"window": id, "action": action, "arguments": args.clone()});
                if let Some(v) = expected {
                    args["expectedVersion"] = json!(v);
                    act["expectedVersion"] = json!(v);
                }
                let tool = format!("{id}__{action}");
                let a = runtime
                    .block_on(direct.app.call(&tool, args.as_object().cloned()).into_future());
                let b = runtime.block_on(
                    dispatched.app.call("app__act", act.as_object().cloned()).into_future(),
                );
                prop_assert_eq!(outcome(a), outcome(b), "{} vs app__act", tool);
            }
        }
        prop_assert_eq!(
            direct.app.snapshot_json().unwrap(),
            dispatched.app.snapshot_json().unwrap()
        );
        prop_assert_eq!(direct.app.tool_names().unwrap(), dispatched.app.tool_names().unwrap());
        prop_assert_eq!(&*direct.changes.lock().unwrap(), &*dispatched.changes.lock().unwrap());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn s5_2_a_window_tool_and_app_act_are_the_same_call(ops in proptest::collection::vec(op(), 1..40)) {
        run(ops)?;
    }
}
