//! What the person is shown besides the windows themselves, read from
//! and recorded in the shared state: the list of windows, and the agent's
//! latest call (activity.rs holds their types).

use super::{AgentActivity, Change, Error, WindowInfo, shared::Shared};
use crate::lock::lock_unpoisoned;

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
