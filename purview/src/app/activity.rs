//! What a GUI needs to show beside the windows themselves: the list of
//! windows, and where the agent is working.

use super::{App, Change, Error};
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

impl App {
    /// Every open window, in the order they were opened.
    ///
    /// ```
    /// # use purview::{by_hand::*, *};
    /// # #[derive(Clone)] struct W;
    /// # impl Window for W { fn title(&self) -> String { "W".into() } fn project(&self, _: &mut View) {} }
    /// # impl Actions for W { fn actions() -> Vec<ActionSpec> { vec![] }
    /// #   fn call<'a>(&'a mut self, a: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a> { Box::pin(async move { Err(unknown_action(a)) }) } }
    /// let app = App::builder().build();
    /// let w = app.open(W).unwrap();
    /// w.open_modal(W).unwrap();
    /// let list = app.window_list().unwrap();
    /// assert_eq!(list.len(), 2);
    /// assert!(!list[0].operable && list[1].operable);
    /// assert_eq!(list[0].blocked_by.as_deref(), Some(list[1].id.as_str()));
    /// assert_eq!(list[1].blocked_by, None);
    /// ```
    pub fn window_list(&self) -> Result<Vec<WindowInfo>, Error> {
        self.shared.read(|state| {
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

    /// The agent's most recent successful call, if any. The person's own
    /// calls ([`Call::by_person`](crate::Call::by_person)) are not recorded.
    ///
    /// ```
    /// let app = purview::App::builder().build();
    /// assert!(app.agent_activity().is_none());
    /// ```
    pub fn agent_activity(&self) -> Option<AgentActivity> {
        lock_unpoisoned(&self.shared.activity).clone()
    }

    /// Records an agent's successful call and tells the GUI.
    pub(super) fn record_activity(&self, window: Option<String>, action: &str, focus: bool) {
        {
            let mut activity = lock_unpoisoned(&self.shared.activity);
            let serial = activity.as_ref().map_or(1, |a| a.serial + 1);
            let focus_request = match (&window, focus) {
                (Some(w), true) => Some((w.clone(), serial)),
                _ => activity.as_ref().and_then(|a| a.focus_request.clone()),
            };
            *activity = Some(AgentActivity {
                window,
                action: action.to_owned(),
                focus,
                serial,
                focus_request,
            });
        }
        self.shared.signal(Change { agent: true, ..Change::default() });
    }
}
