//! What agents and the GUI read far more often than it changes: the
//! tools/list definitions, `app://windows`, the unfiltered
//! `app__read_windows` answers and what a GUI's frame draws. Each is built
//! on the first read after a change and kept beside the settled state
//! until `settle` reports a change of what it shows, so a reader holds the
//! state lock only to clone an `Arc`, however many clients ask and however
//! often.

use std::{
    cell::OnceCell,
    collections::{HashMap, HashSet},
    sync::{Arc, atomic::Ordering},
};

use serde_json::Value;

use super::{
    actor::Actor,
    catalog,
    config::Config,
    kept::counted,
    registry::{Entry, State},
    scene::{ActionInfo, Scene, SceneWindow},
};

use crate::model::ToolDefinition;

impl State {
    /// The `app://windows` JSON, serialized once per change.
    pub fn snapshot_json(&self) -> Arc<str> {
        let reads = &self.reads;
        reads
            .snapshot_json
            .get_or_init(|| {
                counted(&reads.counts.snapshots, || Arc::from(self.render_snapshot_json()))
            })
            .clone()
    }

    /// Every tool tools/list returns, built once per change.
    pub fn listed_tools(&self, config: &Config) -> Arc<[ToolDefinition]> {
        let reads = &self.reads;
        reads
            .tools
            .get_or_init(|| {
                counted(&reads.counts.tool_lists, || Arc::from(catalog::tools(self, config)))
            })
            .clone()
    }

    /// The unfiltered `app__read_windows` answer, built once per change.
    pub fn windows_read(&self, schemas: bool) -> Arc<Value> {
        let reads = &self.reads;
        let cell = if schemas { &reads.read_windows_schemas } else { &reads.read_windows };
        cell.get_or_init(|| {
            counted(&reads.counts.window_reads, || {
                Arc::new(catalog::read_windows(self, None, schemas))
            })
        })
        .clone()
    }

    /// What a GUI's frame draws, gathered once per change: from the last
    /// scene and the windows changed since, when only those changed.
    pub fn scene(&self) -> Arc<Scene> {
        let reads = &self.reads;
        let previous = reads.previous_scene.as_deref();
        let gather = || match (previous, &reads.changed_since) {
            (Some(previous), Some(changed)) => Scene::regather(self, previous, changed)
                .unwrap_or_else(|| Scene::gather(self, Some(previous))),
            _ => Scene::gather(self, previous),
        };
        reads.scene.get_or_init(|| Arc::new(gather())).clone()
    }

    /// How many times the app has built each answer it keeps between
    /// changes, and projected a window.
    #[cfg(feature = "test-support")]
    pub fn build_counts(&self) -> super::BuildCounts {
        let counts = &self.reads.counts;
        super::BuildCounts {
            tool_lists: counts.tool_lists.load(Ordering::Relaxed),
            snapshots: counts.snapshots.load(Ordering::Relaxed),
            window_reads: counts.window_reads.load(Ordering::Relaxed),
            projections: counts.projections.load(Ordering::Relaxed),
            scene_windows: counts.scene_windows.load(Ordering::Relaxed),
        }
    }
}

impl Scene {
    /// Gathers what a frame draws from the settled state, looking at every
    /// window; each window's state is shared, not copied, and a window
    /// that did not change is the same `Arc` as in `previous`.
    pub(super) fn gather(state: &State, previous: Option<&Scene>) -> Self {
        let before: HashMap<&str, &Arc<SceneWindow>> = previous
            .map(|scene| scene.windows.iter().map(|w| (w.state.id.as_str(), w)).collect())
            .unwrap_or_default();
        let operable: HashSet<&str> = state.operable.iter().map(|id| &**id).collect();
        let topology = OnceCell::new();
        let windows = state
            .windows
            .values()
            .map(|entry| {
                let blocker = || topology.get_or_init(|| state.topology()).blocker_of(&entry.id);
                let operable = operable.contains(&*entry.id);
                window_of(state, entry, operable, blocker, before.get(&*entry.id).copied())
            })
            .collect();
        Self { windows, app_actions: app_actions_of(state) }
    }

    /// [`Scene::gather`] after a change that left the open and operable
    /// windows as they were: `previous` with the `changed` windows looked
    /// at again, and only those. `None` when `previous` does not list the
    /// same windows (gather them all then).
    fn regather(state: &State, previous: &Scene, changed: &[u64]) -> Option<Self> {
        if previous.windows.len() != state.windows.len() || changed.len() > previous.windows.len() {
            return None;
        }
        let mut windows = previous.windows.clone();
        for seq in changed {
            let entry = state.windows.get(seq)?;
            let at = state.windows.range(..seq).count();
            let before = windows.get(at).filter(|w| w.state.id == *entry.id)?;
            let blocker = || state.topology().blocker_of(&entry.id);
            let window =
                window_of(state, entry, state.is_operable(&entry.id), blocker, Some(before));
            windows[at] = window;
        }
        Some(Self { windows, app_actions: app_actions_of(state) })
    }
}

/// One window as a frame draws it: `before` itself when nothing of it
/// changed.
fn window_of<'a>(
    state: &State,
    entry: &'a Entry,
    operable: bool,
    blocker: impl FnOnce() -> &'a str,
    before: Option<&Arc<SceneWindow>>,
) -> Arc<SceneWindow> {
    state.reads.counts.scene_windows.fetch_add(1, Ordering::Relaxed);
    let blocked_by = (!operable).then(blocker);
    let shown = entry.shown();
    if let Some(same) = before.filter(|w| {
        Arc::ptr_eq(&w.state, &shown)
            && w.operable == operable
            && w.blocked_by.as_deref() == blocked_by
            && w.actions.iter().map(|a| a.name.as_str()).eq(entry.actor.available_names())
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
}

/// The app's own actions as a frame draws them: `None` while an app-level
/// modal withholds them.
fn app_actions_of(state: &State) -> Option<Vec<ActionInfo>> {
    match &state.app {
        Some(app) => state.app_actions_operable().then(|| actions_of(app, None)),
        None => Some(Vec::new()),
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
