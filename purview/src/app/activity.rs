//! What a GUI needs to show beside the windows themselves: the list of
//! windows, and where the agent is working.

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
