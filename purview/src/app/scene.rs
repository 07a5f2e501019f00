//! What a GUI draws in one frame: each window as it was last projected
//! (the projection agents read, made once per change by `settle`), whether
//! it is operable and what blocks it, its available actions with their
//! input schemas, and which action loads each paged table. It is gathered
//! once per change (`reads.rs`); a frame with nothing changed only clones
//! an `Arc` under the state lock. Nothing here is serialized to JSON, and
//! a scene's action is called through `facade/listed.rs`
//! ([`ActionInfo::call`]).

use std::sync::Arc;

use crate::{action::JsonObject, model::WindowState};

/// Everything one frame of a GUI draws, read in one consistent state
/// ([`App::scene`](crate::App::scene)).
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
    pub(crate) window: Option<Arc<str>>,
    /// Its place in its type's actions, for [`ActionInfo::call`].
    pub(crate) key: usize,
}
