//! What a GUI draws in one frame: each window as it was last projected
//! (the projection agents read, made once per change by `settle`), whether
//! it is operable and what blocks it, its available actions with their
//! input schemas, and which action loads each paged table. It is gathered
//! once per change (`reads.rs`); a frame with nothing changed only clones
//! an `Arc` under the state lock. Nothing here is serialized to JSON.

use std::sync::Arc;

use super::{App, Call, Error, actor::Actor, registry::State, shared::Shared};
use crate::{action::JsonObject, model::WindowState};

/// Everything one frame of a GUI draws, read in one consistent state
/// ([`App::scene`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Scene {
    /// Every open window, in opening order; a window that did not change
    /// since the last scene is the same `Arc` as there.
    pub windows: Vec<Arc<SceneWindow>>,
    /// The app-level actions; `None` while an app-level modal withholds
    /// them (and when the app has none, an empty list).
    pub app_actions: Option<Vec<ActionInfo>>,
}

/// One open window as a GUI draws it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SceneWindow {
    /// Its id, title, version, summary and blocks, as last projected from
    /// the view-model (the projection agents read), shared with every
    /// read until the window changes.
    pub state: Arc<WindowState>,
    /// Whether it may be operated now (no modal blocks it).
    pub operable: bool,
    /// While it is not operable, the window operable in its place.
    pub blocked_by: Option<String>,
    /// Its available actions, in declaration order (listed even while it
    /// is blocked, for a GUI to draw them disabled).
    pub actions: Vec<ActionInfo>,
    /// The paged tables' load actions, as `(block id, action name)`
    /// (`#[block(table, load = ..)]`).
    pub paged_by: Vec<(String, String)>,
}

/// One action as a button or form draws it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ActionInfo {
    /// The action's name.
    pub name: String,
    /// Its human title, such as "Edit field".
    pub title: String,
    /// What it does, in the action's own words (its doc comment or
    /// `description = ".."`; empty when it has none).
    pub description: String,
    /// Whether it destroys something (the person confirms first).
    pub destructive: bool,
    /// Its input schema as agents get it (window actions that write take
    /// `expectedVersion` too).
    pub input_schema: Arc<JsonObject>,
    /// Arguments whose value is a cell of one of the window's tables
    /// (`#[arg(from = table.column)]`): a GUI lets the person pick a row.
    pub sources: Vec<crate::action::ArgumentSource>,
    /// Its window; `None` for an app-level action.
    window: Option<Arc<str>>,
    /// Its place in its type's actions, for [`ActionInfo::call`].
    key: usize,
}

impl ActionInfo {
    /// A call of this action with JSON arguments, as a GUI's default button
    /// or form makes it, run as the person at the keyboard (make it
    /// [`by_agent`](Call::by_agent) for an in-process agent). It names the
    /// action as the scene listed it, by its window and its place in the
    /// type's actions, so no tool name is written and parsed again. Every
    /// gate still applies when it runs: a window closed or blocked since
    /// the scene was read is refused as for any call.
    ///
    /// ```
    /// use purview::prelude::*;
    ///
    /// #[window(summary = "Counts to {count}")]
    /// #[derive(Clone, Default)]
    /// struct Counter {
    ///     #[block(field)]
    ///     count: u32,
    /// }
    ///
    /// #[actions]
    /// impl Counter {
    ///     /// Add `by`.
    ///     #[action]
    ///     fn add(&mut self, by: u32) { self.count += by; }
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = App::builder().build();
    /// let counter = app.open(Counter::default()).unwrap();
    /// let scene = app.scene().unwrap();
    /// let add = &scene.windows[0].actions[0];
    /// let arguments = serde_json::json!({"by": 3}).as_object().cloned().unwrap();
    /// let call = add.call(&app, arguments);
    /// assert_eq!(call.tool_name(), format!("{}__add", counter.id()));
    /// call.await.unwrap();
    /// assert_eq!(counter.read(|c| c.count).unwrap(), 3);
    /// # });
    /// ```
    pub fn call(&self, app: &App, arguments: JsonObject) -> Call {
        Call::listed(app, self.window.clone(), self.key, &self.name, arguments)
    }
}

/// What a GUI draws in one frame ([`App::scene`](crate::App::scene)): the
/// state lock is held only to clone the handle to what was gathered since
/// the last change.
pub(super) fn read(shared: &Shared) -> Result<Arc<Scene>, Error> {
    shared.read(State::scene)
}

/// How many times the app has serialized its windows for agents.
pub(super) fn windows_serialized(shared: &Shared) -> u64 {
    shared
        .read(|state| state.windows_serialized.load(std::sync::atomic::Ordering::Relaxed))
        .unwrap_or_default()
}

impl Scene {
    /// Gathers what a frame draws from the settled state: once per change
    /// (reads.rs keeps it), each window's state shared, not copied.
    pub(super) fn gather(state: &State, previous: Option<&Scene>) -> Self {
        let topology = state.topology();
        let before: std::collections::HashMap<&str, &Arc<SceneWindow>> = previous
            .map(|scene| scene.windows.iter().map(|w| (w.state.id.as_str(), w)).collect())
            .unwrap_or_default();
        let windows = state
            .windows
            .values()
            .map(|entry| {
                let operable = state.is_operable(&entry.id);
                let blocked_by = (!operable).then(|| topology.blocker_of(&entry.id));
                let shown = entry.shown();
                if let Some(same) = before.get(&*entry.id).filter(|w| {
                    Arc::ptr_eq(&w.state, &shown)
                        && w.operable == operable
                        && w.blocked_by.as_deref() == blocked_by
                        && w.actions
                            .iter()
                            .map(|a| a.name.as_str())
                            .eq(entry.actor.available_names())
                }) {
                    return Arc::clone(same);
                }
                Arc::new(SceneWindow {
                    state: shown,
                    operable,
                    blocked_by: blocked_by.map(str::to_owned),
                    actions: actions_of(&entry.actor, Some(&entry.id)),
                    paged_by: entry
                        .actor
                        .vm
                        .paged_by()
                        .iter()
                        .map(|(block, action)| ((*block).to_owned(), (*action).to_owned()))
                        .collect(),
                })
            })
            .collect();
        let app_actions = match &state.app {
            Some(app) => state.app_actions_operable().then(|| actions_of(app, None)),
            None => Some(Vec::new()),
        };
        Self { windows, app_actions }
    }
}

fn actions_of(actor: &Actor, window: Option<&Arc<str>>) -> Vec<ActionInfo> {
    actor
        .spec
        .actions
        .iter()
        .zip(&actor.available)
        .enumerate()
        .filter(|(_, (_, available))| **available)
        .map(|(key, (action, _))| ActionInfo {
            name: action.spec.name.to_string(),
            title: action.tool_title.clone(),
            description: action.spec.description.as_deref().unwrap_or_default().to_owned(),
            destructive: action.spec.hints.destructive == Some(true),
            input_schema: action.input_schema.clone(),
            sources: action.spec.sources.clone(),
            window: window.cloned(),
            key,
        })
        .collect()
}
