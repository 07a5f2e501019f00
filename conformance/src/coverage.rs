//! What a walk reached: the windows it saw and the operations it called,
//! with how each call came out. The walk fills it in; the verdict judges
//! from it whether the walk covered enough.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

/// Calls made to one operation, across every window that offered it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ToolCount {
    /// Calls made.
    pub calls: usize,
    /// Calls that succeeded.
    pub succeeded: usize,
    /// Why valid calls made while it was offered were refused: error code
    /// → how often.
    pub refused: BTreeMap<String, usize>,
    /// The fields `validation_failed` named in those refusals → how often.
    pub fields: BTreeMap<String, usize>,
}

/// What the walk reached.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Coverage {
    /// Window titles seen, with how many distinct windows had that title.
    pub windows: BTreeMap<String, usize>,
    /// The most windows open at once.
    pub most_open: usize,
    /// Operations called, keyed `"Window title · action"` (`"app · action"`
    /// for application-level ones).
    pub tools: BTreeMap<String, ToolCount>,
    /// Operations that were offered but never called.
    pub never_called: BTreeSet<String>,
    /// Operations left alone because they are (or may be) destructive.
    pub skipped_destructive: BTreeSet<String>,
    /// Error codes received, with how often.
    pub codes: BTreeMap<String, usize>,
    /// How often the §10.1 probe raced two writes (each then sent again in
    /// a fixed order, so the walk went on the same way whichever won).
    pub races: usize,
}
