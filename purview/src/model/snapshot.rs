use serde::{Deserialize, Serialize};

use super::Block;

/// The content of the single resource `app://windows` (§4.2).
///
/// One read is a self-consistent snapshot: the topology, the operability
/// conclusion and every window's content.
///
/// ```
/// let app = purview::App::builder().build();
/// let snapshot: purview::model::Snapshot = app.snapshot().unwrap();
/// assert!(snapshot.operable_window_ids.is_empty());
/// assert!(snapshot.windows.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Snapshot {
    /// The ids of the windows an agent may operate right now: the single
    /// authoritative conclusion, modal chains and app-level collapse included.
    pub operable_window_ids: Vec<String>,
    /// Every open window with its content. The order carries no meaning.
    pub windows: Vec<WindowState>,
}

/// One element of [`Snapshot::windows`] (§4.2, "Window object").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WindowState {
    /// Unique, name-safe, never reused (§10.3, §12.4).
    pub id: String,
    /// Human-readable window title.
    pub title: String,
    /// Whether the window is modal.
    pub modal: bool,
    /// The owning window of a window-level modal; `null` for top-level
    /// windows and app-level modals. Always present on the wire.
    pub owner_id: Option<String>,
    /// Optimistic-concurrency version: increments whenever `summary` or
    /// `blocks` change (§7.1), never otherwise.
    pub version: u64,
    /// One sentence on what the window currently shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The window's content as semantic blocks; `[]` for an empty window.
    pub blocks: Vec<Block>,
}
