//! What agents and the GUI read far more often than it changes: the
//! tools/list definitions, `app://windows`, the unfiltered
//! `app__read_windows` answers and what a GUI's frame draws. Each is built
//! on the first read after a change and kept beside the settled state
//! until `settle` reports a change of what it shows, so a reader holds the
//! state lock only to clone an `Arc`, however many clients ask and however
//! often.

use std::sync::{
    Arc, OnceLock,
    atomic::{AtomicU64, Ordering},
};

use serde_json::Value;

use super::{Error, builder::Config, catalog, registry::State, scene::Scene, shared::Shared};
use crate::model::ToolDefinition;

/// The answers kept between changes (an empty cell is built on its next
/// read), and how many times each was built.
#[derive(Default)]
pub(crate) struct Reads {
    snapshot_json: OnceLock<Arc<str>>,
    tools: OnceLock<Arc<[ToolDefinition]>>,
    read_windows: OnceLock<Arc<Value>>,
    read_windows_schemas: OnceLock<Arc<Value>>,
    scene: OnceLock<Arc<Scene>>,
    /// The last scene gathered, kept across changes: the next gathering
    /// shares each window that did not change from it.
    previous_scene: Option<Arc<Scene>>,
    counts: Counts,
}

#[derive(Default)]
struct Counts {
    tool_lists: AtomicU64,
    snapshots: AtomicU64,
    window_reads: AtomicU64,
    projections: AtomicU64,
}

impl Reads {
    /// Drops every kept answer: what a window shows, the tool set or the
    /// operable set changed (tool descriptions name their window's title).
    pub fn forget(&mut self) {
        let counts = std::mem::take(&mut self.counts);
        let previous_scene = self.scene.take().or_else(|| self.previous_scene.take());
        *self = Self { counts, previous_scene, ..Self::default() };
    }

    /// Drops what only the scene shows: a blocked window's available
    /// actions changed.
    pub fn forget_scene(&mut self) {
        if let Some(scene) = self.scene.take() {
            self.previous_scene = Some(scene);
        }
    }

    /// Counts one projection of a window from its view-model.
    pub fn projected(&self) {
        self.counts.projections.fetch_add(1, Ordering::Relaxed);
    }
}

/// How many times an app has built each answer it keeps between changes,
/// and projected a window: what reads between changes must not add to.
/// For tests and measurements; not part of the API.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BuildCounts {
    /// tools/list definitions built.
    pub tool_lists: u64,
    /// `app://windows` serialized.
    pub snapshots: u64,
    /// Unfiltered `app__read_windows` answers built (with or without
    /// `schemas`).
    pub window_reads: u64,
    /// Windows projected from their view-models.
    pub projections: u64,
}

fn counted<T>(counter: &AtomicU64, build: impl FnOnce() -> T) -> T {
    counter.fetch_add(1, Ordering::Relaxed);
    build()
}

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

    /// What a GUI's frame draws, gathered once per change.
    pub fn scene(&self) -> Arc<Scene> {
        let previous = self.reads.previous_scene.as_deref();
        self.reads.scene.get_or_init(|| Arc::new(Scene::gather(self, previous))).clone()
    }
}

/// The tool definitions tools/list returns now, shared: the state lock
/// is held only to clone the handle.
pub(super) fn listed_tools(shared: &Shared) -> Result<Arc<[ToolDefinition]>, Error> {
    let config = &shared.config;
    shared.read(|state| state.listed_tools(config))
}

/// How many times the app has built each answer it keeps between changes,
/// and projected a window.
pub(super) fn counts(shared: &Shared) -> Result<BuildCounts, Error> {
    shared.read(|state| {
        let counts = &state.reads.counts;
        BuildCounts {
            tool_lists: counts.tool_lists.load(Ordering::Relaxed),
            snapshots: counts.snapshots.load(Ordering::Relaxed),
            window_reads: counts.window_reads.load(Ordering::Relaxed),
            projections: counts.projections.load(Ordering::Relaxed),
        }
    })
}
