//! Property tests: random sequences of window operations, checked after every
//! step against an independent model of §2, §5.1, §7.1 and §10.3.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::IntoFuture as _;

use proptest::prelude::*;
use purview::App;
use purview_tests::{Confirm, Editor, demo_app};

#[derive(Debug, Clone)]
enum Op {
    Open,
    OpenModal(usize),
    OpenAppModal,
    Close(usize),
    SetAvailable(usize, usize, bool),
    Edit(usize, bool),
    AgentEdit(usize, bool),
    Noop(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Open),
        3 => any::<usize>().prop_map(Op::OpenModal),
        1 => Just(Op::OpenAppModal),
        3 => any::<usize>().prop_map(Op::Close),
        2 => (any::<usize>(), any::<usize>(), any::<bool>()).prop_map(|(w, a, b)| Op::SetAvailable(w, a, b)),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(w, b)| Op::Edit(w, b)),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(w, b)| Op::AgentEdit(w, b)),
        1 => any::<usize>().prop_map(Op::Noop),
    ]
}

const EDITOR_ACTIONS: [&str; 11] = [
    "edit_field",
    "set_password",
    "set_details",
    "submit",
    "focus",
    "touch",
    "slow",
    "explode",
    "load",
    "close",
    "reveal",
];
const CONFIRM_ACTIONS: [&str; 3] = ["confirm", "cancel", "nest"];

#[derive(Debug, Clone)]
struct ModelWindow {
    seq: usize,
    modal: bool,
    owner: Option<String>,
    editor: bool,
    filled: bool,
    hidden: BTreeSet<&'static str>,
}

#[derive(Default)]
struct Model {
    windows: BTreeMap<String, ModelWindow>,
    seq: usize,
}

impl Model {
    /// The window a new modal on `id` attaches to: the chain's current top.
    fn top(&self, id: &str) -> String {
        let mut current = id.to_owned();
        while let Some((child, _)) = self
            .windows
            .iter()
            .filter(|(_, w)| w.modal && w.owner.as_deref() == Some(current.as_str()))
            .max_by_key(|(_, w)| w.seq)
        {
            current = child.clone();
        }
        current
    }

    /// §2 stated directly: a window is operable when nothing is stacked on it
    /// and it belongs to the tree that may act — the newest app-level modal's
    /// if there is one, otherwise any top-level window's.
    fn operable(&self) -> BTreeSet<String> {
        let root = |id: &str| {
            let mut current = id.to_owned();
            while let Some(owner) = self.windows[&current].owner.clone() {
                current = owner;
            }
            current
        };
        let app_modal = self
            .windows
            .iter()
            .filter(|(_, w)| w.modal && w.owner.is_none())
            .max_by_key(|(_, w)| w.seq)
            .map(|(id, _)| id.clone());
        self.windows
            .keys()
            .filter(|id| !self.windows.values().any(|w| w.owner.as_deref() == Some(id.as_str())))
            .filter(|id| match &app_modal {
                Some(m) => root(id) == *m,
                None => !self.windows[&root(id)].modal,
            })
            .cloned()
            .collect()
    }

    fn tools(&self) -> BTreeSet<String> {
        let mut tools = BTreeSet::new();
        for id in self.operable() {
            let w = &self.windows[&id];
            let actions: &[&'static str] =
                if w.editor { &EDITOR_ACTIONS } else { &CONFIRM_ACTIONS };
            for action in actions {
                let hook = *action != "submit" || w.filled;
                if hook && !w.hidden.contains(action) {
                    tools.insert(format!("{id}__{action}"));
                }
            }
        }
        if !self.windows.values().any(|w| w.modal && w.owner.is_none()) {
            tools.insert("app__lock".into());
            tools.insert("app__new_editor".into());
        }
        tools
    }

    fn close(&mut self, id: &str) {
        let children: Vec<String> = self
            .windows
            .iter()
            .filter(|(_, w)| w.owner.as_deref() == Some(id))
            .map(|(c, _)| c.clone())
            .collect();
        for child in children {
            self.close(&child);
        }
        self.windows.remove(id);
    }

    fn add(&mut self, id: String, modal: bool, owner: Option<String>, editor: bool) {
        self.seq += 1;
        let window = ModelWindow {
            seq: self.seq,
            modal,
            owner,
            editor,
            filled: false,
            hidden: BTreeSet::new(),
        };
        self.windows.insert(id, window);
    }

    fn pick(&self, n: usize) -> Option<String> {
        (!self.windows.is_empty())
            .then(|| self.windows.keys().nth(n % self.windows.len()).cloned())
            .flatten()
    }
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let app: App = demo_app();
    let mut model = Model::default();
    let mut ever: BTreeSet<String> = BTreeSet::new();
    let mut versions: HashMap<String, (u64, Shown)> = HashMap::new();
    for op in ops {
        match op {
            Op::Open => {
                let h = app.open(Editor::default()).unwrap();
                prop_assert!(ever.insert(h.id().to_owned()), "id reused: {}", h.id());
                model.add(h.id().to_owned(), false, None, true);
            }
            Op::OpenModal(n) => {
                let Some(owner) = model.pick(n) else { continue };
                let h = app.window::<Editor>(&owner).map(|w| w.open_modal(Confirm { depth: 1 }));
                let h = match h {
                    Ok(h) => h.unwrap(),
                    Err(_) => app
                        .window::<Confirm>(&owner)
                        .unwrap()
                        .open_modal(Confirm { depth: 2 })
                        .unwrap(),
                };
                prop_assert!(ever.insert(h.id().to_owned()));
                let top = model.top(&owner);
                model.add(h.id().to_owned(), true, Some(top), false);
            }
            Op::OpenAppModal => {
                let h = app.open_app_modal(Confirm { depth: 1 }).unwrap();
                prop_assert!(ever.insert(h.id().to_owned()));
                model.add(h.id().to_owned(), true, None, false);
            }
            Op::Close(n) => {
                let Some(id) = model.pick(n) else { continue };
                app.close(&id).unwrap();
                model.close(&id);
            }
            Op::SetAvailable(n, a, available) => {
                let Some(id) = model.pick(n) else { continue };
                let w = model.windows.get_mut(&id).unwrap();
                let action = if w.editor {
                    EDITOR_ACTIONS[a % EDITOR_ACTIONS.len()]
                } else {
                    CONFIRM_ACTIONS[a % 3]
                };
                let result = if w.editor {
                    app.window::<Editor>(&id).unwrap().set_available(action, available)
                } else {
                    app.window::<Confirm>(&id).unwrap().set_available(action, available)
                };
                result.unwrap();
                if available {
                    w.hidden.remove(action);
                } else {
                    w.hidden.insert(action);
                }
            }
            Op::Edit(n, fill) => {
                let Some(id) = model.pick(n) else { continue };
                let Ok(h) = app.window::<Editor>(&id) else { continue };
                h.update(|e| e.recipient = if fill { "Ada".into() } else { String::new() })
                    .unwrap();
                model.windows.get_mut(&id).unwrap().filled = fill;
            }
            Op::AgentEdit(n, fill) => {
                let Some(id) = model.pick(n) else { continue };
                let w = &model.windows[&id];
                let args = serde_json::json!({"field": "recipient", "value": if fill { "Bo" } else { "" }});
                let result = runtime.block_on(
                    app.call(&format!("{id}__edit_field"), args.as_object().cloned()).into_future(),
                );
                let callable = model.tools().contains(&format!("{id}__edit_field"));
                match result {
                    Ok(_) => {
                        prop_assert!(callable, "{id}__edit_field succeeded but is not listed");
                        model.windows.get_mut(&id).unwrap().filled = fill;
                    }
                    Err(e) => {
                        prop_assert!(!callable || !w.editor, "listed call failed: {e}");
                    }
                }
            }
            Op::Noop(n) => {
                let Some(id) = model.pick(n) else { continue };
                if let Ok(h) = app.window::<Editor>(&id) {
                    let before = h.version().unwrap();
                    h.update(|e| e.hidden_counter += 1).unwrap();
                    prop_assert_eq!(
                        h.version().unwrap(),
                        before,
                        "invisible edit bumped the version"
                    );
                }
            }
        }
        let snapshot = app.snapshot().expect("not inside a callback");
        let operable: BTreeSet<String> = snapshot.operable_window_ids.iter().cloned().collect();
        prop_assert_eq!(
            operable.len(),
            snapshot.operable_window_ids.len(),
            "duplicates in operableWindowIds"
        );
        prop_assert_eq!(&operable, &model.operable());
        let tools: BTreeSet<String> = app.tool_names().expect("tool names").into_iter().collect();
        prop_assert_eq!(&tools, &model.tools());
        let ids: BTreeSet<String> = snapshot.windows.iter().map(|w| w.id.clone()).collect();
        prop_assert_eq!(ids, model.windows.keys().cloned().collect::<BTreeSet<_>>());
        for w in &snapshot.windows {
            let m = &model.windows[&w.id];
            prop_assert_eq!(w.modal, m.modal);
            prop_assert_eq!(&w.owner_id, &m.owner);
            // §7.1: the version moves exactly when summary or blocks do.
            let content = (w.summary.clone(), w.blocks.clone());
            if let Some((last, last_content)) =
                versions.insert(w.id.clone(), (w.version, content.clone()))
            {
                if last_content == content {
                    prop_assert_eq!(
                        w.version,
                        last,
                        "version of {} moved without a visible change",
                        w.id
                    );
                } else {
                    prop_assert!(
                        w.version > last,
                        "{} changed what it shows but its version went from {} to {}",
                        w.id,
                        last,
                        w.version
                    );
                }
            }
            // A chain stays a chain: at most one modal per owner.
            let owned = snapshot
                .windows
                .iter()
                .filter(|c| c.owner_id.as_deref() == Some(w.id.as_str()))
                .count();
            prop_assert!(owned <= 1, "{} owns {} modals", w.id, owned);
        }
    }
    Ok(())
}

/// What a window shows: its summary and blocks.
type Shown = (Option<String>, Vec<purview::model::Block>);

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn s2_s5_1_s10_3_random_operations_keep_every_invariant(ops in proptest::collection::vec(op(), 1..40)) {
        run(ops)?;
    }
}
