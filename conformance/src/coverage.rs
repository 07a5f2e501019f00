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
    /// Kinds of window seen, each under the title of the first window of
    /// that kind, with how many distinct windows of the kind were open.
    /// Windows of one kind show the same blocks (notices and media aside)
    /// and titles that differ only in words holding digits, as records of
    /// one type do ("Return RMA-10003", "Return RMA-10004").
    pub windows: BTreeMap<String, usize>,
    /// The most windows open at once.
    pub most_open: usize,
    /// Operations called, keyed `"Window title · action"` (`"app · action"`
    /// for application-level ones), the title being that of the window's
    /// kind (see `windows`): an operation of every window of one kind is
    /// one operation to cover.
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
    /// Each time the walk started the app afresh to reach what a call had
    /// withdrawn for good, in order.
    pub restarts: Vec<Restart>,
}

/// A fresh start of the app in the middle of a walk. A call withdrew
/// operations (the tool list of a window that stayed open and operable
/// lost them), nothing offered them again, and some operation behind them
/// had not succeeded; once nothing else in reach was left to cover, the
/// walk started the app afresh and held the withdrawing operation back
/// there until what it had withdrawn was covered.
///
/// ```
/// use purview_conformance::Restart;
///
/// let restart = Restart::default();
/// assert!(restart.withdrawn.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Restart {
    /// The last step before the fresh start.
    pub after_step: usize,
    /// Each operation withdrawn, with the operation whose call withdrew it.
    pub withdrawn: BTreeMap<String, String>,
    /// The operations that had not succeeded and were out of reach: the
    /// withdrawn ones, and those in windows only they opened.
    pub stranded: BTreeSet<String>,
    /// The operations the walk held back after the fresh start until what
    /// they had withdrawn (and what that opens) was covered.
    pub held_back: BTreeSet<String>,
}
