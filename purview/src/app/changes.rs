//! What a settled mutation changed: the one fact every listener and
//! subscriber is handed (broadcast.rs decides who hears it, and when).

/// What one mutation changed, as [`App::on_change`](crate::App::on_change)
/// listeners see it.
///
/// ```
/// let change = purview::activity::Change::default();
/// assert!(change.is_empty());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Change {
    /// `app://windows` changed: resources/updated is due.
    pub resource: bool,
    /// The tool set changed: tools/list_changed is due (never on the
    /// [`ToolSurface::Dispatcher`](crate::settings::ToolSurface::Dispatcher) surface,
    /// whose list never changes).
    pub tools: bool,
    /// An agent's call succeeded: see [`App::agent_activity`](crate::App::agent_activity).
    pub agent: bool,
    /// What a GUI draws ([`App::scene`](crate::App::scene)) changed, even
    /// where agents are told of nothing: a blocked window's available
    /// actions, or, on the dispatcher surface, any window's.
    pub scene: bool,
}

impl Change {
    /// Whether anything changed at all.
    pub fn is_empty(&self) -> bool {
        !(self.resource || self.tools || self.agent || self.scene)
    }
}
