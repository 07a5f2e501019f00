//! The answers an app keeps between changes (tools/list, `app://windows`,
//! `app__read_windows`, the scene) beside its settled state, and how many
//! times each was built. reads.rs builds them; `settle` forgets them.

use std::sync::{
    Arc, OnceLock,
    atomic::{AtomicU64, Ordering},
};

use serde_json::Value;

use super::scene::Scene;
use crate::model::ToolDefinition;

/// The answers kept between changes (an empty cell is built on its next
/// read), and how many times each was built.
#[derive(Default)]
pub(crate) struct Reads {
    pub(super) snapshot_json: OnceLock<Arc<str>>,
    pub(super) tools: OnceLock<Arc<[ToolDefinition]>>,
    pub(super) read_windows: OnceLock<Arc<Value>>,
    pub(super) read_windows_schemas: OnceLock<Arc<Value>>,
    pub(super) scene: OnceLock<Arc<Scene>>,
    /// The last scene gathered, kept across changes: the next gathering
    /// shares each window that did not change from it.
    pub(super) previous_scene: Option<Arc<Scene>>,
    /// The windows (by sequence number) changed since `previous_scene` was
    /// gathered, so the next gathering looks at those alone; `None` when
    /// which windows are open or operable may have changed too, and every
    /// window is looked at.
    pub(super) changed_since: Option<Vec<u64>>,
    pub(super) counts: Counts,
}

#[derive(Default)]
pub(super) struct Counts {
    pub(super) tool_lists: AtomicU64,
    pub(super) snapshots: AtomicU64,
    pub(super) window_reads: AtomicU64,
    pub(super) projections: AtomicU64,
    pub(super) scene_windows: AtomicU64,
}

impl Reads {
    /// Drops every kept answer: what a window shows, the tool set or the
    /// operable set changed (tool descriptions name their window's title).
    /// `windows` changed, and with `topology` which windows are open or
    /// operable too.
    pub fn forget(&mut self, windows: &[u64], topology: bool) {
        self.forget_scene(windows, topology);
        let counts = std::mem::take(&mut self.counts);
        let previous_scene = self.previous_scene.take();
        let changed_since = self.changed_since.take();
        *self = Self { counts, previous_scene, changed_since, ..Self::default() };
    }

    /// Drops what only the scene shows (a blocked window's available
    /// actions changed), keeping it to share from and noting which
    /// windows the next gathering must look at again.
    pub fn forget_scene(&mut self, windows: &[u64], topology: bool) {
        if let Some(scene) = self.scene.take() {
            self.previous_scene = Some(scene);
            self.changed_since = Some(Vec::new());
        }
        match &mut self.changed_since {
            Some(changed) if !topology => changed.extend_from_slice(windows),
            _ => self.changed_since = None,
        }
    }

    /// Counts one projection of a window from its view-model.
    pub fn projected(&self) {
        self.counts.projections.fetch_add(1, Ordering::Relaxed);
    }
}

/// How many times an app has built each answer it keeps between changes,
/// and projected a window: what reads between changes must not add to.
/// For tests and measurements, with the `test-support` feature; not part
/// of the API.
#[cfg(feature = "test-support")]
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
    /// Windows looked at while gathering scenes: after a change, only the
    /// windows it changed, unless which windows are open or operable
    /// changed too.
    pub scene_windows: u64,
}

pub(super) fn counted<T>(counter: &AtomicU64, build: impl FnOnce() -> T) -> T {
    counter.fetch_add(1, Ordering::Relaxed);
    build()
}
