//! What a GUI needs to show beside the windows themselves: the list of
//! windows, and where the agent is working.

use super::{Change, Error, shared::Shared};
use crate::lock::lock_unpoisoned;

/// One open window, as a GUI draws its list of windows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WindowInfo {
    /// The window id agents use.
    pub id: String,
    /// The current title.
    pub title: String,
    /// Whether it is modal.
    pub modal: bool,
    /// The owning window of a window-level modal.
    pub owner_id: Option<String>,
    /// Whether agents may operate it now (and the person, if the GUI mirrors
    /// modality as it should).
    pub operable: bool,
    /// Its version.
    pub version: u64,
    /// When it is not operable: the id of the window operable in its place
    /// (the top of the modal chain over it, or of the app-level modal), so a
    /// GUI can say "Blocked by …" without working out the chains itself.
    pub blocked_by: Option<String>,
}

/// The agent's most recent successful call, for showing the person where
/// the machine is acting.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentActivity {
    /// The window the call acted on; `None` for an app-level action.
    pub window: Option<String>,
    /// The action's name.
    pub action: String,
    /// Whether the action asked for its window to be brought to the front
    /// ([`Context::request_focus`](crate::Context::request_focus)).
    pub focus: bool,
    /// Increases with every recorded call.
    pub serial: u64,
    /// The most recent focus request and its serial, kept when later calls
    /// do not ask for focus (an agent focuses, then edits), so a GUI can
    /// tell a new request from one it has already handled.
    pub focus_request: Option<(String, u64)>,
}

/// Every open window, in the order they were opened.
pub(super) fn window_list(shared: &Shared) -> Result<Vec<WindowInfo>, Error> {
    shared.read(|state| {
        let topology = state.topology();
        state
            .windows
            .values()
            .map(|e| {
                let operable = state.is_operable(&e.id);
                WindowInfo {
                    id: e.id.to_string(),
                    title: e.title.to_string(),
                    modal: e.modal,
                    owner_id: e.owner.as_deref().map(str::to_owned),
                    operable,
                    version: e.version,
                    blocked_by: (!operable).then(|| topology.blocker_of(&e.id).to_owned()),
                }
            })
            .collect()
    })
}

/// The agent's most recent successful call, if any.
pub(super) fn latest(shared: &Shared) -> Option<AgentActivity> {
    lock_unpoisoned(&shared.activity).clone()
}

/// Records an agent's successful call and tells the GUI.
pub(super) fn record(shared: &Shared, window: Option<String>, action: &str, focus: bool) {
    {
        let mut activity = lock_unpoisoned(&shared.activity);
        let serial = activity.as_ref().map_or(1, |a| a.serial + 1);
        let focus_request = match (&window, focus) {
            (Some(w), true) => Some((w.clone(), serial)),
            _ => activity.as_ref().and_then(|a| a.focus_request.clone()),
        };
        *activity =
            Some(AgentActivity { window, action: action.to_owned(), focus, serial, focus_request });
    }
    shared.signal(Change { agent: true, ..Change::default() });
}
